"""The MCAP replay log's format: channel names, schemas and message layouts, in one place.

A run recorded with ``soccerbt run --record FILE.mcap`` (or ``view``, ``brain``'s flight
recorder, ``sim --serve``, ``--live``) is an MCAP file (zstd-compressed chunks, message and
chunk indexes, a summary) whose message times are simulated time in nanoseconds (a step of
10 ms is 10,000,000 ns). **It is a record**: what every brain did and why is written as it
happens, so that any later soccerbt, and any MCAP tool, reads it without re-running anything.
Every channel carries a schema a standard MCAP reader decodes: JSON Schema for the JSON
channels (``soccerbt.log.schemas``), protobuf for the per-step ones (``soccerbt.log.proto``).

Format 3 (``FORMAT_VERSION``; ``CHANGELOG.md`` records every change), its channels (format 2 is
the same without the tree's ``defaults`` and ``keys``, and reasons of at most 240 characters):

``/soccerbt/header`` (JSON, once at t=0): the format and its version, soccerbt's version, the
digest of its source and the git commit it ran from, the Python and library versions
(``software``), seed, the match configuration, the field, the robots, dt, which goal blue
attacks first, for each team the tree file and every file it includes with their SHA-256, and
what each brain was built with (``inputs``).

``/match/step`` (``soccerbt.Step``, every step): the truth (simulated time, the ball, the
GameController state and score, every robot's true pose, fallen and removed flags, by name) and
each robot's ``soccerbt.Tick``, named: the brain's tick number, the root status, the command,
every status transition of the tick in BehaviorTree.CPP's logger order (uid, previous, new), the
uids skipped and ticked, the reasons decision nodes gave for what they decided (the rules
evaluated, the values compared, the verdicts) and the root blackboard's changes, each with its
key, its new value and its writer: a node uid (an output port, a Script, SetBlackboard or a
pre/post-condition script) or the adapter that owns the key (``gamecontroller``,
``world_model``, ``team``, ``gamepad``, ``nodes``).

``/match/inputs`` (``soccerbt.StepInputs``, every step): every brain's inputs (observations,
GameController packet, team messages, pad, emergency stop), exactly; what ``--rerun``,
``--verify`` and a derive feed a fresh brain (``soccerbt.log.inputs``).

``/robots/<robot>/tree`` (JSON, at load and at every hot reload): the tree's nodes in uid order
(uid, parent, name, registration ID, kind, full path, ports as written, pre/post conditions,
``defaults``: every port its model declares that the XML leaves out, with the default in effect
or null, and ``keys``: the root blackboard key each ``{pointer}`` port resolves to, null for a
SubTree's own key) and its subtree instances, with the time and tick the tree took effect.

``/robots/<robot>/keyframe`` (JSON, at load, every ``KEYFRAME_STEPS`` and at the start of every
log, a flight log's segments included): every node's status, the whole root blackboard with
writers and each node's latest reason with its tick, so that a reader seeks (and a log opens)
without what came before.

``/events`` (JSON): referee and agent events (goals, penalties, set plays, node exceptions,
reloads) and the recorder's own (falls, role changes). ``/gamecontroller`` (JSON, on change):
the GameController state in words. ``/commands`` (JSON, ``SCENE_PERIOD_STEPS``): every robot's
command. ``/foxglove/scene`` (``foxglove.SceneUpdate`` JSON, ``SCENE_PERIOD_STEPS``; built in
``scene_update``): field lines, goals, robots with their pose estimates and ball beliefs, and the
ball, which Foxglove and Lichtblick draw in their 3D panel. At the end an attachment
``soccerbt/index.json`` lists the events and each robot's tree loads (a reader reads it from the
summary instead of scanning), and ``/soccerbt/summary`` holds the match result.

A log recorded with ``--record-mode inputs`` (an opt-in for long batch runs: the header says
``"node_data": false``) leaves out the node data (transitions, blackboard, reasons, trees,
keyframes, scene, commands): its ticks carry the root and the command only, and
``soccerbt.resim.derive`` makes it whole. A log converted from the JSON-lines format of earlier
versions (``soccerbt replay convert``) has no trees either: its header says ``converted_from``.

Format 1 (soccerbt 0.1) held each step on the same channel in a binary layout of its own, and
blackboard changes by key index; ``soccerbt.log.format_v1`` reads it (``READABLE_FORMATS``).

The same seed and trees give the same bytes: no wall-clock time is written. ``ReplayError`` is
the error of every reader of a log (``path:line: message``).

A log is untrusted input: every message a reader uses is checked here, once, where it is read
(``check_header``, ``check_index``, ``check_tree``, ``check_keyframe``, ``check_event``,
``check_summary``; the protobuf messages in ``decode_step``), and a message
of the wrong shape raises ``ShapeError`` or ``ValueError`` naming the field (``nodes[3].parent:
not an earlier node's uid``). JSON is parsed by ``load_json``: bounded in size, nested at most
``MAX_JSON_DEPTH`` levels (checked without recursion), so that nothing downstream recurses on the
log's depth. A stored tree is held to the XML limits of a tree file: at most
``max_tree_nodes()`` nodes (20,000, or ``SOCCERBT_MAX_TREE_NODES``) and ``MAX_ATTRIBUTES`` ports
and conditions a node.
"""
from __future__ import annotations

import json
import math
import os
import re
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from soccerbt.log import proto as _proto
from soccerbt.log import schemas as _schemas
from soccerbt.world.field import Field

__all__ = [
    "ReplayError", "status_name", "FORMAT", "FORMAT_VERSION", "READABLE_FORMATS", "HEADER_TOPIC", "STEP_TOPIC",
    "decode_step", "split_step", "tick_record", "truth_record",
    "INPUTS_TOPIC", "EVENTS_TOPIC", "GC_TOPIC", "SCENE_TOPIC", "COMMANDS_TOPIC", "SUMMARY_TOPIC", "INDEX_ATTACHMENT",
    "KEYFRAME_STEPS", "SCENE_PERIOD_STEPS", "STATUS_CODES", "STATUS_NAMES", "ROOT_EXCEPTION", "tree_topic",
    "keyframe_topic", "robot_of_topic", "kind_of_topic", "TickRecord", "TruthRecord", "decode_tick",
    "json_bytes", "json_text", "writer_code", "writer_of_code", "WRITERS", "SCHEMAS", "ns_of",
    "step_of_ns", "ShapeError", "load_json", "check_header", "check_index", "check_tree", "check_keyframe",
    "check_event", "check_summary", "MAX_JSON_DEPTH", "MAX_ATTRIBUTES", "max_tree_nodes", "ROBOT_NAME",
    "reason_text", "MAX_REASON_CHARS", "same_value", "same_command", "command_tuple", "nice_f32", "nice_value",
    "json_value_of_text",
]

FORMAT = "soccerbt-mcap"
FORMAT_VERSION = 3
READABLE_FORMATS = (1, 2, 3)  # the format versions this soccerbt reads (1: soccerbt.log.format_v1)
HEADER_TOPIC = "/soccerbt/header"
STEP_TOPIC = "/match/step"  # format 1 wrote the same topic in its own binary layout
INPUTS_TOPIC = "/match/inputs"  # every robot's brain inputs of a step (soccerbt.log.inputs)
EVENTS_TOPIC = "/events"
GC_TOPIC = "/gamecontroller"
SCENE_TOPIC = "/foxglove/scene"
COMMANDS_TOPIC = "/commands"
SUMMARY_TOPIC = "/soccerbt/summary"
INDEX_ATTACHMENT = "soccerbt/index.json"
KEYFRAME_STEPS = 100      # one keyframe per robot per simulated second
SCENE_PERIOD_STEPS = 10   # the Foxglove scene at 10 Hz
STATUS_CODES = {"IDLE": 0, "RUNNING": 1, "SUCCESS": 2, "FAILURE": 3, "SKIPPED": 4}
STATUS_NAMES = ("IDLE", "RUNNING", "SUCCESS", "FAILURE", "SKIPPED")
ROOT_EXCEPTION = 5        # the root "status" of a tick that raised


def status_name(code: int) -> str:
    """A root status code's name ("EXCEPTION" for ROOT_EXCEPTION)."""
    return STATUS_NAMES[code] if code < len(STATUS_NAMES) else "EXCEPTION"

_ROBOT_PREFIX = "/robots/"


class ReplayError(ValueError):
    """A replay log that cannot be read: prints as ``path:line: message`` (or ``path: message``)."""

    def __init__(self, path: Path | str, line: int | None, message: str) -> None:
        self.path = Path(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else f"{self.path}"
        return f"{where}: {self.message}"


def tree_topic(robot: str) -> str:
    return f"{_ROBOT_PREFIX}{robot}/tree"


def keyframe_topic(robot: str) -> str:
    return f"{_ROBOT_PREFIX}{robot}/keyframe"


def robot_of_topic(topic: str) -> tuple[str, str] | None:
    """("blue2", "tree") for "/robots/blue2/tree"; None for a match channel."""
    if not topic.startswith(_ROBOT_PREFIX):
        return None
    robot, _, kind = topic[len(_ROBOT_PREFIX):].partition("/")
    return (robot, kind) if robot and kind else None


def kind_of_topic(topic: str) -> str | None:
    """The schema kind (a key of SCHEMAS) of a log topic; None for one this version does not know."""
    kind = _KIND_OF_TOPIC.get(topic)
    if kind is not None:
        return kind
    robot = robot_of_topic(topic)
    return robot[1] if robot is not None and robot[1] in ("tree", "keyframe") else None


_KIND_OF_TOPIC = {HEADER_TOPIC: "header", STEP_TOPIC: "step", EVENTS_TOPIC: "events", GC_TOPIC: "gc",
                  SCENE_TOPIC: "scene", COMMANDS_TOPIC: "commands", SUMMARY_TOPIC: "summary", INPUTS_TOPIC: "inputs"}


def ns_of(step: int, dt_s: float) -> int:
    """A step's log time: simulated nanoseconds (exact for the 10 ms step)."""
    return round(step * dt_s * 1e9)


def step_of_ns(log_time_ns: int, dt_s: float) -> int:
    return round(log_time_ns / (dt_s * 1e9))


def json_bytes(obj: Any) -> bytes:
    """Deterministic compact JSON; a NaN or infinity is written as its text ("nan")."""
    try:
        return _ENCODE(obj).encode("utf-8")
    except ValueError:  # a float the recorder did not turn into text: JSON has no NaN
        return _ENCODE(_finite(obj)).encode("utf-8")


def json_text(obj: Any) -> str:
    """json_bytes as text."""
    try:
        return _ENCODE(obj)
    except ValueError:
        return _ENCODE(_finite(obj))


def _no_json(value: object) -> object:
    return repr(value)


def _finite(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else repr(obj)
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_no_json).encode


# --- decoded records (both formats read into these) ----------------------------------------------

_NAN = float("nan")


@dataclass(slots=True)
class TickRecord:
    """One robot's tick as recorded: the brain's tick count, the root status (a STATUS_CODES
    value, or ROOT_EXCEPTION), the command (vx, vy, vtheta, head pan, head tilt, kick direction
    and strength, NaN without a kick), every transition (uid, previous, new), the uids skipped
    and ticked (in the order their ticks returned), the blackboard's changes {key: [value,
    writer]} and the reasons (uid -> why it decided, this tick). ``changes``: a format-1 tick's
    blackboard section, undecoded (not compared)."""

    tick: int
    root: int
    command: tuple[float, ...]
    transitions: list[tuple[int, int, int]] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    ticked: list[int] = field(default_factory=list)
    blackboard: dict[str, list[Any]] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)
    changes: bytes = field(default=b"", compare=False)


@dataclass(slots=True)
class TruthRecord:
    """The world after a step: the ball (x, y, vx, vy), the GameController state (state,
    secondary state, sub-state, score blue, score red) and each robot (x, y, theta, fallen,
    removed) in the header's order; floats at f32 precision."""

    step: int
    t_s: float
    ball: tuple[float, float, float, float]
    gc: tuple[int, int, int, int, int]
    robots: list[tuple[float, float, float, int, int]]


# --- reasons ------------------------------------------------------------------------------------

MAX_REASON_CHARS = 480      # a longer reason is cut (with "...") when recorded (a rule chain: 240 cut it)
MAX_READ_REASON_CHARS = 960  # what a keyframe's reason may hold when read (soccerbt 0.3.0 reads as much)


def reason_text(text: object) -> str:
    """A node's reason as recorded: one line (newlines become spaces), at most MAX_REASON_CHARS."""
    out = str(text).replace("\r", " ").replace("\n", " ")
    return out if len(out) <= MAX_REASON_CHARS else out[:MAX_REASON_CHARS - 3] + "..."


# --- blackboard values and writers -------------------------------------------------------------

# the adapters a change's writer names when no node wrote it, in the order of proto's Adapter enum;
# "unknown": a change converted from a JSON-lines log, which did not record who wrote it
WRITERS = ("adapter", "gamecontroller", "world_model", "team", "gamepad", "nodes", "tree", "removed", "unknown")
_WRITER_CODE = {name: -1 - i for i, name in enumerate(WRITERS)}


def writer_code(writer: object) -> int:
    """A writer as the recorder keeps it: a node uid as it is, an adapter name as -1 - its index
    in WRITERS."""
    if isinstance(writer, int) and not isinstance(writer, bool):
        return writer
    return _WRITER_CODE.get(str(writer), -1)


def writer_of_code(code: int) -> object:
    return code if code > 0 else WRITERS[-1 - code] if -1 - code < len(WRITERS) else "adapter"


def json_value_of_text(text: str) -> Any:
    """A blackboard value stored as JSON text; ValueError for bad JSON or deep nesting."""
    if "[" not in text and "{" not in text:
        return json.loads(text)
    return load_json(text)


def nice_f32(value: float) -> float | str:
    """A double as a blackboard change stores and reads it back: an f32, then ``nice_value``."""
    return nice_value(array("f", (value,))[0])


def nice_value(value: float) -> float | str:
    """An f32 read back as the shortest decimal that names it (NaN and infinities as text)."""
    if value - value != 0.0:
        return repr(value)
    return float(f"{value:.7g}")


def same_value(x: float, y: float) -> bool:
    """Two recorded numbers equal, NaN (a command without a kick) equal to NaN."""
    return x == y or (x != x and y != y)


def same_command(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Two commands (``command_tuple``'s order) equal value by value (``same_value``)."""
    return len(a) == len(b) and all(map(same_value, a, b))


def command_tuple(command: Any) -> tuple[float, ...]:
    kick = command.kick
    return (command.vx_mps, command.vy_mps, command.vtheta_radps, command.head_pan_rad,
            command.head_tilt_rad, _NAN if kick is None else kick.direction_rad,
            _NAN if kick is None else kick.strength)


# --- format 2: the per-step protobuf messages, decoded ------------------------------------------
# (their encoders are the recorder's: soccerbt.log.tick_encode, soccerbt.log.inputs)

_ROOT_CODES = frozenset(range(ROOT_EXCEPTION + 1))
_NODE_CODES = frozenset(range(5))


def _parse(cls: Any, data: bytes, what: str) -> Any:
    try:
        return cls.FromString(data)
    except Exception as exc:  # protobuf's DecodeError: the bytes are no such message
        raise ValueError(f"{what} message does not decode ({exc})") from None


def decode_tick(data: bytes) -> TickRecord:
    """A ``soccerbt.Tick`` message as a TickRecord (``tick_record``); ValueError for bytes of the
    wrong shape."""
    return tick_record(_parse(_proto.Tick, data, "tick"))


def decode_step(data: bytes, robots: Any = None) -> tuple[TruthRecord, dict[str, TickRecord]]:
    """The truth and the ticks by robot of a ``soccerbt.Step`` message (`robots`: only theirs
    converted); ValueError for bytes of the wrong shape or a robot named twice."""
    msg = _parse(_proto.Step, data, "step")
    ticks: dict[str, TickRecord] = {}
    for tick in msg.robots:
        name = tick.robot
        if name in ticks:
            raise ValueError(f"{name[:40]!r}'s tick twice in one step")
        if robots is None or name in robots:
            ticks[name] = tick_record(tick)
    return truth_record(msg.truth), ticks


def split_step(data: bytes) -> tuple[bytes, list[tuple[str, bytes]]]:
    """(its ``soccerbt.Truth``'s bytes, (robot, its ``soccerbt.Tick``'s bytes) of each tick) of a
    ``soccerbt.Step`` message (protobuf's canonical bytes: those the recorder wrote); ValueError
    for bytes of the wrong shape."""
    msg = _parse(_proto.Step, data, "step")
    return msg.truth.SerializeToString(), [(tick.robot, tick.SerializeToString()) for tick in msg.robots]


def tick_record(msg: Any) -> TickRecord:
    """A decoded ``soccerbt.Tick`` as a TickRecord; ValueError for a status or writer out of
    range, or a change without a value."""
    root = msg.root
    if root not in _ROOT_CODES:
        raise ValueError(f"root status code {root} (0..{ROOT_EXCEPTION})")
    c = msg.command
    command = (c.vx_mps, c.vy_mps, c.vtheta_radps, c.head_pan_rad, c.head_tilt_rad,
               c.kick_direction_rad if c.kick else _NAN, c.kick_strength if c.kick else _NAN)
    transitions = [(t.uid, t.previous, t.status) for t in msg.transitions]
    for _uid, prev, new in transitions:
        if prev not in _NODE_CODES or new not in _NODE_CODES:
            raise ValueError(f"status code {max(prev, new)} in a transition (0..{MAX_STATUS})")
    blackboard = {}
    for change in msg.changes:
        blackboard[change.key] = _change_value(change)
    reasons = {r.uid: r.text for r in msg.reasons}
    return TickRecord(msg.tick, root, command, transitions, list(msg.skipped), list(msg.ticked), blackboard, reasons)


def _change_value(change: Any) -> list[Any]:
    """[value, writer] of a ``soccerbt.Change`` as the readers show them (floats at f32
    precision with 7 significant digits, poses and tuples as lists)."""
    kind = change.WhichOneof("value")
    if kind == "number":
        value: Any = nice_value(change.number)
    elif kind == "flag":
        value = change.flag
    elif kind == "json":
        value = json_value_of_text(change.json)
    elif kind == "pose":
        pose = change.pose
        value = [nice_value(pose.x_m), nice_value(pose.y_m), nice_value(pose.theta_rad)]
    elif kind == "floats":
        value = [nice_value(v) for v in change.floats.values]
    elif kind == "points":
        flat = change.points.values
        if len(flat) % 2:
            raise ValueError(f"blackboard {change.key[:40]}: points of an odd number of values")
        value = [[nice_value(flat[k]), nice_value(flat[k + 1])] for k in range(0, len(flat), 2)]
    elif kind == "removed":
        return [None, "removed"]
    else:
        raise ValueError(f"blackboard {change.key[:40]}: a change without a value")
    who = change.WhichOneof("writer")
    if who == "node_uid":
        writer: object = change.node_uid
    elif who == "adapter" and 0 <= change.adapter < len(WRITERS):
        writer = WRITERS[change.adapter]
    else:
        writer = "adapter"
    return [value, writer]


def truth_record(msg: Any) -> TruthRecord:
    """A decoded ``soccerbt.Truth`` as a TruthRecord (its robots in the message's order)."""
    b, g = msg.ball, msg.game
    robots = [(r.x_m, r.y_m, r.theta_rad, int(r.fallen), int(r.removed)) for r in msg.robots]
    return TruthRecord(msg.step, msg.t_s, (b.x_m, b.y_m, b.vx_mps, b.vy_mps),
                       (g.state, g.secondary_state, g.sub_state, g.score_blue, g.score_red), robots)


# --- checking what a reader reads -----------------------------------------------------------------
# A log is untrusted: these check each message's shape once, where it is read. They never
# recurse on the message's depth.

MAX_JSON_DEPTH = 64            # deeper JSON is not a soccerbt message
MAX_JSON_BYTES = 16 << 20      # a JSON message larger than this is not a soccerbt message
MAX_ATTRIBUTES = 256           # ports and conditions of a stored node (a tree file's element: the same)
MAX_ROBOTS = 64
MAX_STATUS = 4                 # SKIPPED: the largest node status code
ROBOT_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_MIN_DT_S, _MAX_DT_S = 1e-4, 1.0


class ShapeError(ValueError):
    """A message of the wrong shape; the message names the field (``nodes[3].uid: ...``)."""


DEFAULT_MAX_TREE_NODES = 20_000  # the loader's (soccerbt.trees.factory.DEFAULT_MAX_NODES; a test keeps them equal)


def max_tree_nodes() -> int:
    """The most nodes a stored tree may have: the loader's limit (20,000, or the environment
    variable SOCCERBT_MAX_TREE_NODES; read here without importing the engine)."""
    raw = os.environ.get("SOCCERBT_MAX_TREE_NODES", "").strip().replace("_", "")
    try:
        value = int(raw) if raw else DEFAULT_MAX_TREE_NODES
    except ValueError:
        return DEFAULT_MAX_TREE_NODES
    return value if value > 0 else DEFAULT_MAX_TREE_NODES


def load_json(data: bytes | str, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """A JSON message: at most `max_bytes`, nested at most MAX_JSON_DEPTH levels; ShapeError
    otherwise (never RecursionError or MemoryError for what a log holds)."""
    if len(data) > max_bytes:
        raise ShapeError(f"{len(data):,} bytes of JSON, more than {max_bytes:,}")
    try:
        obj = json.loads(data)
    except RecursionError:
        raise ShapeError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ShapeError(f"not JSON ({getattr(exc, 'msg', None) or exc})") from None
    if isinstance(obj, (dict, list)):
        if isinstance(data, (bytes, bytearray)):
            openings = data.count(b"[") + data.count(b"{")
        else:
            openings = data.count("[") + data.count("{")
        if openings >= MAX_JSON_DEPTH:  # else it cannot nest that deep
            check_depth(obj)
    return obj


def check_depth(obj: Any, limit: int = MAX_JSON_DEPTH, where: str = "") -> None:
    """ShapeError when lists and objects nest deeper than `limit` (an explicit stack, no recursion)."""
    stack = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        values = item.values() if isinstance(item, dict) else item
        for v in values:
            if isinstance(v, (dict, list)):
                if depth >= limit:
                    raise ShapeError(f"{where}nested deeper than {limit} levels")
                stack.append((v, depth + 1))


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _dict(obj: Any, where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise ShapeError(f"{where or 'the message'}: not a JSON object")
    return obj


def _list(obj: dict[str, Any], key: str, where: str, *, required: bool = True) -> list[Any]:
    v = obj.get(key)
    if v is None and not required:
        return []
    if not isinstance(v, list):
        raise ShapeError(f"{where}{key}: {'missing' if key not in obj else 'not a list'}")
    return v


def _int(obj: dict[str, Any], key: str, where: str, low: int = 0, high: int = 1 << 62, *,
         required: bool = True, default: int = 0) -> int:
    if key not in obj and not required:
        return default
    v = obj.get(key)
    if not _is_int(v):
        raise ShapeError(f"{where}{key}: {'missing' if key not in obj else 'not a whole number'}")
    if not low <= v <= high:
        raise ShapeError(f"{where}{key}: {v} is outside {low}..{high}")
    return v


def _number(obj: dict[str, Any], key: str, where: str, *, required: bool = True) -> None:
    if key not in obj and not required:
        return
    if not _is_number(obj.get(key)):
        raise ShapeError(f"{where}{key}: {'missing' if key not in obj else 'not a number'}")


def _str(obj: dict[str, Any], key: str, where: str, *, required: bool = True, nullable: bool = False) -> None:
    if key not in obj and not required:
        return
    v = obj.get(key)
    if not isinstance(v, str) and not (nullable and v is None):
        raise ShapeError(f"{where}{key}: {'missing' if key not in obj else 'not a string'}")


def _str_list(obj: dict[str, Any], key: str, where: str, *, unique: bool = False) -> list[str]:
    items = _list(obj, key, where)
    for k, v in enumerate(items):
        if not isinstance(v, str):
            raise ShapeError(f"{where}{key}[{k}]: not a string")
    if unique and len(set(items)) != len(items):
        raise ShapeError(f"{where}{key}: a name is listed twice")
    return items


def check_header(obj: Any) -> dict[str, Any]:
    """The header (``/soccerbt/header``) of a soccerbt log, checked: dt_s, robots, field, trees,
    flags. The format itself is the reader's check (another file is no soccerbt log)."""
    h = _dict(obj, "header")
    w = "header: "
    dt = h.get("dt_s", 0.01)
    if not _is_number(dt) or not math.isfinite(dt) or not _MIN_DT_S <= dt <= _MAX_DT_S:
        raise ShapeError(f"{w}dt_s: {dt!r} is not a step length in seconds ({_MIN_DT_S:g} to {_MAX_DT_S:g})")
    robots = _str_list(h, "robots", w, unique=True)
    if not robots or len(robots) > MAX_ROBOTS:
        raise ShapeError(f"{w}robots: {len(robots)} robots (1 to {MAX_ROBOTS})")
    for k, name in enumerate(robots):
        if not ROBOT_NAME.fullmatch(name):
            raise ShapeError(f"{w}robots[{k}]: {name[:40]!r} is not a robot name")
    _str(h, "field", w)
    try:
        Field.by_name(h["field"])
    except (ValueError, KeyError):
        raise ShapeError(f"{w}field: {h['field'][:40]!r} is no field soccerbt knows") from None
    for key in ("node_data", "blue_attacks_positive_x_first_half"):
        if key in h and not isinstance(h[key], bool):
            raise ShapeError(f"{w}{key}: not true or false")
    for key in ("config", "converted_from"):
        if key in h and h[key] is not None and not isinstance(h[key], dict):
            raise ShapeError(f"{w}{key}: not a JSON object")
    trees = h.get("trees", {})
    if not isinstance(trees, dict):
        raise ShapeError(f"{w}trees: not a JSON object")
    for team, tree in trees.items():
        at = f"{w}trees.{team[:20]}."
        _dict(tree, at[:-1])
        _str(tree, "path", at, required=False)
        for k, entry in enumerate(_list(tree, "files", at, required=False)):
            _dict(entry, f"{at}files[{k}]")
            _str(entry, "path", f"{at}files[{k}].")
            _str(entry, "sha256", f"{at}files[{k}].")
    return h


def check_event(obj: Any, where: str = "event: ") -> dict[str, Any]:
    """A referee or agent event (``/events``, the index's ``events``)."""
    e = _dict(obj, where.rstrip(": "))
    _str(e, "kind", where)
    _number(e, "t", where)
    _int(e, "step", where)
    for key in ("detail", "team", "robot", "node_path"):
        _str(e, key, where, required=False, nullable=True)
    return e


def _event_is_plain(e: Any) -> bool:
    """Whether an event is well-formed (the fast path of check_event)."""
    if type(e) is not dict:
        return False
    g = e.get
    # the ignore: g("step") is an int once its type is (mypy does not narrow a call's result)
    return (type(g("kind")) is str and type(g("t")) in _NUMBER_TYPES
            and type(g("step")) is int and g("step") >= 0  # type: ignore[operator]
            and type(g("detail")) in _STR_OR_NONE and type(g("team")) in _STR_OR_NONE
            and type(g("robot")) in _STR_OR_NONE and type(g("node_path")) in _STR_OR_NONE)


def check_index(obj: Any, robots: list[str]) -> dict[str, Any]:
    """The index attachment: events, each robot's tree loads, the number of steps."""
    ix = _dict(obj, "index")
    w = "index: "
    ix["events"] = _list(ix, "events", w, required=False)
    for k, event in enumerate(ix["events"]):
        if not _event_is_plain(event):
            check_event(event, f"{w}events[{k}].")
    known = set(robots)
    ix["loads"] = _list(ix, "loads", w, required=False)
    for k, load in enumerate(ix["loads"]):
        at = f"{w}loads[{k}]."
        _dict(load, at[:-1])
        _str(load, "robot", at)
        if load["robot"] not in known:
            raise ShapeError(f"{at}robot: {load['robot'][:40]!r} is not one of the header's robots")
        _int(load, "step", at)
        _int(load, "load", at, 1)
        _number(load, "t", at, required=False)
        _str(load, "reason", at, required=False, nullable=True)
    _int(ix, "steps", w, required=False)
    return ix


_KINDS = frozenset({"Action", "Condition", "Control", "Decorator", "SubTree"})
_INT_TYPE = frozenset({int})
_STR_TYPE = frozenset({str})
_STR_OR_NONE = frozenset({str, type(None)})
_NUMBER_TYPES = frozenset({int, float})
_STATUS_CODES = frozenset(range(MAX_STATUS + 1))


def _row_is_plain(row: Any, k: int) -> bool:
    """Whether a node row is well-formed (the fast path of check_tree)."""
    if type(row) is not dict:
        return False
    g = row.get
    parent, ports, conditions, line = g("parent"), g("ports"), g("conditions"), g("line")
    defaults, keys = g("defaults"), g("keys")
    return (
        type(g("uid")) is int
        and g("uid") == k + 1
        and type(parent) is int
        and 0 <= parent <= k
        and type(g("name")) is str
        and type(g("id")) is str
        and type(g("path")) is str
        and type(g("kind")) is str
        and g("kind") in _KINDS
        and type(g("tree_id", "")) in _STR_OR_NONE
        and type(g("subtree", "")) in _STR_OR_NONE
        and (line is None or type(line) is int)
        and (ports is None or (type(ports) is dict and set(map(type, ports.values())) <= _STR_TYPE))
        and (conditions is None or (type(conditions) is dict and set(map(type, conditions.values())) <= _STR_TYPE))
        and (defaults is None or (type(defaults) is dict and set(map(type, defaults.values())) <= _STR_OR_NONE))
        and (keys is None or (type(keys) is dict and set(map(type, keys.values())) <= _STR_OR_NONE))
        and len(ports or ()) + len(conditions or ()) + len(defaults or ()) <= MAX_ATTRIBUTES
        and len(keys or ()) <= MAX_ATTRIBUTES
    )


def check_tree(obj: Any, max_nodes: int | None = None) -> dict[str, Any]:
    """A robot's tree (``/robots/NAME/tree``): nodes numbered 1..n in order, each parent an
    earlier node (or 0, the root), names, IDs, kinds and paths as strings, ports and conditions
    string -> string, defaults and keys string -> string or null (ports, conditions and defaults
    at most MAX_ATTRIBUTES together, keys as many), at most ``max_tree_nodes()`` nodes; subtree
    instances naming nodes of the tree."""
    t = _dict(obj, "tree")
    w = "tree: "
    _int(t, "load", w, 1)
    _int(t, "step", w, required=False)
    _int(t, "tick", w, required=False)
    _number(t, "t", w, required=False)
    _str(t, "reason", w, required=False, nullable=True)
    _str(t, "file", w, required=False, nullable=True)
    limit = max_tree_nodes() if max_nodes is None else max_nodes
    nodes = _list(t, "nodes", w)
    if not nodes:
        raise ShapeError(f"{w}nodes: a tree without nodes")
    if len(nodes) > limit:
        raise ShapeError(f"{w}nodes: {len(nodes):,} nodes, more than the limit of {limit:,} of a tree "
                         "(SOCCERBT_MAX_TREE_NODES)")
    for k, row in enumerate(nodes):
        if _row_is_plain(row, k):
            continue  # the usual case, checked in one expression; else named field by field below
        at = f"{w}nodes[{k}]."
        _dict(row, at[:-1])
        if row.get("uid") != k + 1 or not _is_int(row.get("uid")):
            raise ShapeError(f"{at}uid: expected {k + 1} (nodes are numbered in order from 1)")
        parent = row.get("parent")
        if not _is_int(parent) or not 0 <= parent <= k:
            raise ShapeError(f"{at}parent: not 0 nor an earlier node's uid")
        for key in ("name", "id", "kind", "path"):
            _str(row, key, at)
        if row["kind"] not in _KINDS:
            raise ShapeError(f"{at}kind: {row['kind'][:40]!r} is not one of {', '.join(sorted(_KINDS))}")
        _str(row, "tree_id", at, required=False, nullable=True)
        _str(row, "subtree", at, required=False, nullable=True)
        _int(row, "line", at, required=False)
        count = keys_count = 0
        for key in ("ports", "conditions", "defaults", "keys"):
            if key not in row:
                continue
            table = row[key]
            if not isinstance(table, dict):
                raise ShapeError(f"{at}{key}: not a JSON object")
            for name, value in table.items():
                if not isinstance(value, str) and not (key in ("defaults", "keys") and value is None):
                    raise ShapeError(f"{at}{key}.{name[:40]}: not a string")
            if key == "keys":
                keys_count = len(table)
            else:
                count += len(table)
        if count > MAX_ATTRIBUTES:
            raise ShapeError(f"{at}ports: {count:,} ports and conditions, more than {MAX_ATTRIBUTES}")
        if keys_count > MAX_ATTRIBUTES:
            raise ShapeError(f"{at}keys: {keys_count:,} keys, more than {MAX_ATTRIBUTES}")
    t["subtrees"] = _list(t, "subtrees", w, required=False)
    for k, sub in enumerate(t["subtrees"]):
        at = f"{w}subtrees[{k}]."
        _dict(sub, at[:-1])
        _str(sub, "tree_id", at)
        _str(sub, "instance", at)
        _int(sub, "root", at, 0, len(nodes), required=False)
    return t


def _check_blackboard(bb: Any, where: str) -> None:
    if not isinstance(bb, dict):
        raise ShapeError(f"{where}blackboard: not a JSON object")
    for key, entry in bb.items():
        if not isinstance(entry, list) or len(entry) != 2:
            raise ShapeError(f"{where}blackboard.{key[:40]}: not [value, writer]")
        writer = entry[1]
        if not (_is_int(writer) or isinstance(writer, str)):
            raise ShapeError(f"{where}blackboard.{key[:40]}: the writer is neither a node uid nor a name")


def check_keyframe(obj: Any) -> dict[str, Any]:
    """A keyframe (``/robots/NAME/keyframe``): after_step, tick and load, a status code (0..4)
    per node and the blackboard {key: [value, writer]} (format 1's also carried a key table)."""
    kf = _dict(obj, "keyframe")
    w = "keyframe: "
    _int(kf, "after_step", w)
    _int(kf, "tick", w, required=False)
    _int(kf, "load", w, 0, required=False, default=1)
    statuses = _list(kf, "statuses", w)
    if not (set(map(type, statuses)) <= _INT_TYPE and set(statuses) <= _STATUS_CODES):  # fast: C loops
        for k, code in enumerate(statuses):
            if not _is_int(code) or not 0 <= code <= MAX_STATUS:
                raise ShapeError(f"{w}statuses[{k}]: {code!r} is not a status code (0..{MAX_STATUS})")
    if "keys" in kf:
        _str_list(kf, "keys", w)
    _check_blackboard(kf.get("blackboard"), w)
    reasons = kf.get("reasons", [])
    if not isinstance(reasons, list):
        raise ShapeError(f"{w}reasons: not a list")
    for k, row in enumerate(reasons):
        if not (isinstance(row, list) and len(row) == 3 and _is_int(row[0]) and _is_int(row[1])
                and isinstance(row[2], str) and len(row[2]) <= MAX_READ_REASON_CHARS):
            raise ShapeError(f"{w}reasons[{k}]: not [uid, tick, text]")
    return kf


def check_summary(obj: Any) -> dict[str, Any]:
    """The match summary (``/soccerbt/summary``): an object with the score {team: goals}."""
    m = _dict(obj, "summary")
    score = m.get("score")
    if score is not None and (not isinstance(score, dict) or not all(_is_int(v) for v in score.values())):
        raise ShapeError("summary: score: not an object of whole numbers")
    return m


# --- schemas ------------------------------------------------------------------------------------
# The JSON schemas themselves are in soccerbt.log.schemas.

def _jsonschema(schema: dict[str, Any], message_encoding: str = "json") -> tuple[str, str, bytes, str]:
    return schema["title"], "jsonschema", json_bytes(schema), message_encoding


def _protobuf(message: str) -> tuple[str, str, bytes, str]:
    return f"{_proto.PACKAGE}.{message}", "protobuf", _proto.SCHEMA_DATA, "protobuf"


# topic kind -> (schema name, encoding, schema data, message encoding)
SCHEMAS: dict[str, tuple[str, str, bytes, str]] = {
    "header": _jsonschema(_schemas.HEADER),
    "summary": _jsonschema(_schemas.SUMMARY),
    "events": _jsonschema(_schemas.EVENT),
    "gc": _jsonschema(_schemas.GC),
    "commands": _jsonschema(_schemas.COMMANDS),
    "scene": _jsonschema(_schemas.SCENE_UPDATE),
    "tree": _jsonschema(_schemas.TREE),
    "keyframe": _jsonschema(_schemas.KEYFRAME),
    "step": _protobuf("Step"),
    "inputs": _protobuf("StepInputs"),
}
