"""The MCAP replay log's layout: channel names, schemas and message encodings, in one place.

A run recorded with ``soccerbt run --record FILE.mcap`` is an MCAP file (zstd-compressed
chunks, message and chunk indexes, a summary) whose message times are simulated time in
nanoseconds. Channels (the topic names below):

``/soccerbt/header`` (JSON, once at t=0): format and soccerbt versions, seed, the match
configuration, the field, the robots, dt, which goal blue attacks first, and for each team the
tree file and every file it includes with their SHA-256 hashes.

``/match/step`` (binary, every step): length-prefixed parts (u32 each, ``join_parts``). First
the truth (``truth_struct``): step number, simulated time, the ball (x, y, vx, vy), the
GameController state (state, secondary state, sub-state, score blue, score red) and for each
robot in header order its true pose, fallen and removed flags. Then each robot's tick
(``encode_tick``): the agent's tick number (as ``Agent.ticks``), the root status, the command
(vx, vy, vtheta, head pan, head tilt, kick direction and strength or NaN, f32), every status
transition of the tick in order (u16 uids, then the previous codes, then the new codes, u8:
BT.CPP's IDLE 0, RUNNING 1, SUCCESS 2, FAILURE 3), the uids the tick skipped, the uids of the
nodes ticked (in the order their ticks returned), and the blackboard changes
(``encode_changes``: key indexes into the robot's key table, writers, floats as f32, other
values as JSON) where a writer is a node uid (a node wrote it through an output port, a Script,
SetBlackboard or a pre/post-condition script) or the adapter that owns the key
(``gamecontroller``, ``world_model``, ``team``, ``gamepad``, ``nodes``).

``/robots/<robot>/keys`` (JSON, when the robot's root keys change): the key table from a step on.

``/robots/<robot>/tree`` (JSON, at load and at every hot reload): the tree's nodes in uid order
(uid, parent, name, registration ID, kind, full path, ports, pre/post conditions) and its
subtree instances, with the time and tick the tree took effect.

``/robots/<robot>/keyframe`` (JSON, at load, every ``KEYFRAME_STEPS`` and whenever a root key
appears or goes): every node's status, the key table (the root keys, sorted) and the whole root
blackboard with writers, so a reader seeks without replaying from the start.

``/events`` (JSON): referee and agent events (goals, penalties, set plays, node exceptions,
reloads) and the recorder's own (falls, role changes). ``/gamecontroller`` (JSON, on change):
the GameController state in words. ``/commands`` (JSON, ``SCENE_PERIOD_STEPS``): every robot's
command (vx, vy, vtheta, head pan, head tilt, kick direction, kick strength; null: no kick).
``/foxglove/scene`` (``foxglove.SceneUpdate`` JSON, ``SCENE_PERIOD_STEPS``): field, robots and
ball, which Foxglove and Lichtblick draw in their 3D panel. At the end an attachment
``soccerbt/index.json`` lists the events and each robot's tree loads (a reader reads it from the
summary instead of scanning), and ``/soccerbt/summary`` holds the match result.

A log converted from the JSON-lines format of earlier versions (``soccerbt replay convert``)
has the same channels but no ``/robots/<robot>/tree``: its header says ``"node_data": false``
and ``converted_from``; its ticks carry the root status and the command, no transitions, and
its blackboard changes the writer ``unknown`` (the old format did not record writers).

The same seed and trees give the same bytes: no wall-clock time is written. ``ReplayError`` is
the error of every reader of a log (``path:line: message``).
"""
from __future__ import annotations

import json
import math
import struct
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ReplayError", "status_name", "FORMAT", "FORMAT_VERSION", "HEADER_TOPIC", "STEP_TOPIC", "join_parts", "split_parts", "EVENTS_TOPIC", "GC_TOPIC", "SCENE_TOPIC", "COMMANDS_TOPIC",
    "SUMMARY_TOPIC", "INDEX_ATTACHMENT", "KEYFRAME_STEPS", "SCENE_PERIOD_STEPS", "STATUS_CODES",
    "STATUS_NAMES", "tree_topic", "keyframe_topic", "keys_topic", "robot_of_topic", "TickRecord",
    "TruthRecord", "truth_struct", "encode_tick", "decode_tick", "encode_truth", "decode_truth", "json_bytes", "json_text", "encode_changes", "decode_changes", "writer_code", "WRITERS",
    "SCHEMAS", "ns_of", "step_of_ns",
]

FORMAT = "soccerbt-mcap"
FORMAT_VERSION = 1
HEADER_TOPIC = "/soccerbt/header"
STEP_TOPIC = "/match/step"
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


def keys_topic(robot: str) -> str:
    return f"{_ROBOT_PREFIX}{robot}/keys"


def keyframe_topic(robot: str) -> str:
    return f"{_ROBOT_PREFIX}{robot}/keyframe"


def robot_of_topic(topic: str) -> tuple[str, str] | None:
    """("blue2", "tick") for "/robots/blue2/tick"; None for a match channel."""
    if not topic.startswith(_ROBOT_PREFIX):
        return None
    robot, _, kind = topic[len(_ROBOT_PREFIX):].partition("/")
    return (robot, kind) if robot and kind else None


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


# --- per-robot tick -----------------------------------------------------------------------------

_TICK_HEAD = struct.Struct("<IBB7fHHH")   # tick, root status, flags, command, counts
_NAN = float("nan")


@dataclass(slots=True)
class TickRecord:
    """One robot's tick as recorded (see the module docstring)."""

    tick: int
    root: int                       # STATUS_CODES value, or ROOT_EXCEPTION
    command: tuple[float, ...]      # vx, vy, vtheta, head pan, head tilt, kick dir, kick strength
    transitions: list[tuple[int, int, int]] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    ticked: list[int] = field(default_factory=list)   # uids, in the order their ticks returned
    blackboard: dict[str, list[Any]] = field(default_factory=dict)  # key -> [value, writer]
    changes: bytes = b""                                  # the blackboard section, undecoded

    def changed_indexes(self) -> list[int]:
        """The key-table indexes this tick changed (no value decoded)."""
        if len(self.changes) < _BB_HEAD.size:
            return []
        n = _BB_HEAD.unpack_from(self.changes)[0]
        idx = array("H")
        idx.frombytes(self.changes[_BB_HEAD.size:_BB_HEAD.size + 2 * n])
        return list(idx)


def encode_tick(tick: int, root: int, command: tuple[float, ...], n_transitions: int, uids: bytes,
                codes: bytes, skipped: list[int], ticked: bytes, changes: bytes) -> bytes:
    """`uids`: u16 per transition; `codes`: the previous codes of all transitions, then their
    new codes (u8 each); `ticked`: the u16 uids of the nodes ticked, in the order their ticks
    returned; `changes`: the blackboard section (encode_changes)."""
    head = _TICK_HEAD.pack(tick, root, 0, *command, n_transitions, len(skipped), len(ticked) // 2)
    return b"".join((head, uids, codes, array("H", skipped).tobytes(), ticked, changes))


# --- blackboard changes -------------------------------------------------------------------------
# A tick's blackboard section: u16 n, u32 floats, u16 kind bytes, u32 text bytes; then n u16 key
# indexes (into the key table of the robot's latest keyframe: a new or removed key makes the
# recorder write a keyframe), n i16 writers (a node uid, or minus 1 + the index of an adapter in
# WRITERS), the kind bytes, the f32 values, and the JSON texts of the other values joined by
# newlines. Kinds: 1 a float (one f32), 2 a tuple of floats (then its length byte), 3 a pose
# (x, y, theta), 4 false, 5 true, 6 any other value (one JSON text), 7 removed, 8 a tuple of
# (x, y) points (then its length byte; two f32 each).

_BB_HEAD = struct.Struct("<HIHI")
KIND_FLOAT, KIND_FLOATS, KIND_POSE, KIND_FALSE, KIND_TRUE, KIND_JSON, KIND_REMOVED, KIND_POINTS = 1, 2, 3, 4, 5, 6, 7, 8
# "unknown": a change converted from a JSON-lines log, which did not record who wrote it
WRITERS = ("adapter", "gamecontroller", "world_model", "team", "gamepad", "nodes", "tree", "removed", "unknown")
_WRITER_CODE = {name: -1 - i for i, name in enumerate(WRITERS)}


def writer_code(writer: object) -> int:
    """A writer as stored: a node uid as it is, an adapter name as -1 - its index in WRITERS."""
    if isinstance(writer, int) and not isinstance(writer, bool):
        return writer
    return _WRITER_CODE.get(str(writer), -1)


def writer_of_code(code: int) -> object:
    return code if code > 0 else WRITERS[-1 - code] if -1 - code < len(WRITERS) else "adapter"


def encode_changes(indexes: array, writers: array, kinds: bytearray, floats: array, texts: list[str]) -> bytes:
    """The blackboard section of a tick (b"" when nothing changed)."""
    if not indexes:
        return b""
    text = "\n".join(texts).encode("utf-8")
    return b"".join((_BB_HEAD.pack(len(indexes), len(floats), len(kinds), len(text)), indexes.tobytes(),
                     writers.tobytes(), bytes(kinds), floats.tobytes(), text))


def decode_changes(data: bytes, keys: list[str]) -> dict[str, list[Any]]:
    """{key: [value, writer]} of a blackboard section, with the key table in force; floats come
    back at f32 precision, shown with 7 significant digits."""
    if not data:
        return {}
    if len(data) < _BB_HEAD.size:
        raise ValueError("blackboard section cut short")
    n, n_floats, n_kinds, n_text = _BB_HEAD.unpack_from(data)
    o = _BB_HEAD.size
    if o + 4 * n + n_kinds + 4 * n_floats + n_text > len(data):
        raise ValueError("blackboard section cut short")
    idx = array("H")
    idx.frombytes(data[o:o + 2 * n])
    o += 2 * n
    writers = array("h")
    writers.frombytes(data[o:o + 2 * n])
    o += 2 * n
    kinds = data[o:o + n_kinds]
    o += n_kinds
    floats = array("f")
    floats.frombytes(data[o:o + 4 * n_floats])
    o += 4 * n_floats
    texts = data[o:o + n_text].decode("utf-8").split("\n") if n_text else []
    out: dict[str, list[Any]] = {}
    k = f = t = 0
    for i in range(n):
        kind = kinds[k]
        k += 1
        if kind == KIND_FLOAT:
            value: Any = _nice(floats[f])
            f += 1
        elif kind == KIND_FLOATS or kind == KIND_POSE:
            count = 3 if kind == KIND_POSE else kinds[k]
            if kind == KIND_FLOATS:
                k += 1
            value = [_nice(v) for v in floats[f:f + count]]
            f += count
        elif kind == KIND_POINTS:
            count = kinds[k]
            k += 1
            value = [[_nice(floats[f + 2 * j]), _nice(floats[f + 2 * j + 1])] for j in range(count)]
            f += 2 * count
        elif kind == KIND_FALSE or kind == KIND_TRUE:
            value = kind == KIND_TRUE
        elif kind == KIND_JSON:
            value = json.loads(texts[t])
            t += 1
        elif kind == KIND_REMOVED:
            value = None
        else:
            raise ValueError(f"unknown blackboard value kind {kind}")
        index = idx[i]
        if index >= len(keys):
            raise ValueError(f"blackboard key index {index} outside the key table ({len(keys)} keys)")
        out[keys[index]] = [value, writer_of_code(writers[i])]
    return out


def nice_f32(value: float) -> float | str:
    """A double as a blackboard change stores and reads it back: an f32, then ``_nice``."""
    return _nice(array("f", (value,))[0])


def _nice(value: float) -> float | str:
    """An f32 read back as the shortest decimal that names it (NaN and infinities as text)."""
    if value - value != 0.0:
        return repr(value)
    return float(f"{value:.7g}")


def join_parts(parts: list[bytes]) -> bytes:
    """Length-prefixed parts (u32 each): a step message is the truth then each robot's tick."""
    out = []
    for part in parts:
        out.append(_U32.pack(len(part)))
        out.append(part)
    return b"".join(out)


def split_parts(data: bytes) -> list[bytes]:
    parts, o = [], 0
    while o < len(data):
        if o + 4 > len(data):
            raise ValueError("step message cut short")
        (n,) = _U32.unpack_from(data, o)
        o += 4
        if o + n > len(data):
            raise ValueError("step message cut short")
        parts.append(bytes(data[o:o + n]))
        o += n
    return parts


_U32 = struct.Struct("<I")


def decode_tick(data: bytes, keys: list[str] | None = None) -> TickRecord:
    """The inverse of encode_tick; ValueError on a message of the wrong shape. The blackboard
    changes are decoded with `keys` (the robot's key table); without it they stay in
    `changes`."""
    if len(data) < _TICK_HEAD.size:
        raise ValueError("tick message too short")
    tick, root, _flags, *rest = _TICK_HEAD.unpack_from(data)
    command = tuple(rest[:7])
    n, n_skipped, n_ticked = rest[7:]
    o = _TICK_HEAD.size
    end = o + 2 * n + 2 * n + 2 * n_skipped + 2 * n_ticked
    if end > len(data):
        raise ValueError("tick message cut short")
    uids = array("H")
    uids.frombytes(data[o:o + 2 * n])
    o += 2 * n
    codes = data[o:o + 2 * n]
    o += 2 * n
    skipped = array("H")
    skipped.frombytes(data[o:o + 2 * n_skipped])
    o += 2 * n_skipped
    ticked_uids = array("H")
    ticked_uids.frombytes(data[o:o + 2 * n_ticked])
    o += 2 * n_ticked
    changes = bytes(data[o:])
    transitions = list(zip(uids, codes[:n], codes[n:]))
    bb = decode_changes(changes, keys) if keys is not None else {}
    return TickRecord(tick, root, command, transitions, list(skipped), list(ticked_uids), bb, changes)


def command_tuple(command: Any) -> tuple[float, ...]:
    kick = command.kick
    return (command.vx_mps, command.vy_mps, command.vtheta_radps, command.head_pan_rad,
            command.head_tilt_rad, _NAN if kick is None else kick.direction_rad,
            _NAN if kick is None else kick.strength)


# --- truth --------------------------------------------------------------------------------------

_TRUTH_HEAD = struct.Struct("<Id4f5h")
_TRUTH_ROBOT = struct.Struct("<3fBB")


@dataclass(slots=True)
class TruthRecord:
    step: int
    t_s: float
    ball: tuple[float, float, float, float]
    gc: tuple[int, int, int, int, int]
    robots: list[tuple[float, float, float, int, int]]


def encode_truth(step: int, t_s: float, ball: tuple[float, ...], gc: tuple[int, ...],
                 robots: list[tuple[float, float, float, int, int]]) -> bytes:
    """The truth part of a step message (the recorder packs the same layout in one call)."""
    flat = [v for robot in robots for v in robot]
    return truth_struct(len(robots)).pack(step, t_s, *ball, *gc, *flat)


_TRUTH_STRUCTS: dict[int, struct.Struct] = {}


def truth_struct(robots: int) -> struct.Struct:
    """The struct of a whole truth part with `robots` robots (what encode_truth writes)."""
    st = _TRUTH_STRUCTS.get(robots)
    if st is None:
        st = _TRUTH_STRUCTS[robots] = struct.Struct(_TRUTH_HEAD.format + _TRUTH_ROBOT.format[1:] * robots)
    return st


def decode_truth(data: bytes) -> TruthRecord:
    if len(data) < _TRUTH_HEAD.size or (len(data) - _TRUTH_HEAD.size) % _TRUTH_ROBOT.size:
        raise ValueError("truth message of the wrong size")
    step, t_s, *rest = _TRUTH_HEAD.unpack_from(data)
    robots = [_TRUTH_ROBOT.unpack_from(data, o)
              for o in range(_TRUTH_HEAD.size, len(data), _TRUTH_ROBOT.size)]
    return TruthRecord(step, t_s, tuple(rest[:4]), tuple(rest[4:9]), robots)  # type: ignore[arg-type]


# --- schemas ------------------------------------------------------------------------------------

_OBJECT = {"type": "object"}
_POSE = {"type": "object", "properties": {
    "position": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"},
                                                  "z": {"type": "number"}}},
    "orientation": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"},
                                                     "z": {"type": "number"}, "w": {"type": "number"}}}}}
_COLOR = {"type": "object", "properties": {k: {"type": "number"} for k in "rgba"}}
_VEC3 = {"type": "object", "properties": {k: {"type": "number"} for k in "xyz"}}
_PRIMITIVE = {"type": "object", "properties": {"pose": _POSE, "size": _VEC3, "color": _COLOR}}
_SCENE_UPDATE = {
    "title": "foxglove.SceneUpdate", "type": "object",
    "properties": {
        "deletions": {"type": "array", "items": _OBJECT},
        "entities": {"type": "array", "items": {"type": "object", "properties": {
            "timestamp": {"type": "object", "properties": {"sec": {"type": "integer"},
                                                           "nsec": {"type": "integer"}}},
            "frame_id": {"type": "string"}, "id": {"type": "string"},
            "lifetime": {"type": "object", "properties": {"sec": {"type": "integer"},
                                                          "nsec": {"type": "integer"}}},
            "frame_locked": {"type": "boolean"},
            "metadata": {"type": "array", "items": _OBJECT},
            "cubes": {"type": "array", "items": _PRIMITIVE},
            "spheres": {"type": "array", "items": _PRIMITIVE},
            "cylinders": {"type": "array", "items": _PRIMITIVE},
            "texts": {"type": "array", "items": _OBJECT},
            "lines": {"type": "array", "items": _OBJECT},
        }}},
    },
}
_EVENT = {"title": "soccerbt.Event", "type": "object", "properties": {
    "kind": {"type": "string"}, "detail": {"type": "string"}, "t": {"type": "number"},
    "team": {"type": ["string", "null"]}, "robot": {"type": ["string", "null"]},
    "node_path": {"type": ["string", "null"]}}}
_COMMANDS = {"title": "soccerbt.Commands", "type": "object", "properties": {
    "t": {"type": "number"},
    "commands": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": ["number", "null"]}}}}}
_GC = {"title": "soccerbt.GameControllerState", "type": "object", "properties": {
    "state": {"type": "string"}, "secondary_state": {"type": "string"}, "sub_state": {"type": "string"},
    "score_blue": {"type": "integer"}, "score_red": {"type": "integer"}}}

# topic kind -> (schema name, encoding, schema data, message encoding)
SCHEMAS: dict[str, tuple[str, str, bytes, str]] = {
    "header": ("soccerbt.Header", "jsonschema", json_bytes({"title": "soccerbt.Header", **_OBJECT}), "json"),
    "summary": ("soccerbt.Summary", "jsonschema", json_bytes({"title": "soccerbt.Summary", **_OBJECT}), "json"),
    "events": ("soccerbt.Event", "jsonschema", json_bytes(_EVENT), "json"),
    "gc": ("soccerbt.GameControllerState", "jsonschema", json_bytes(_GC), "json"),
    "commands": ("soccerbt.Commands", "jsonschema", json_bytes(_COMMANDS), "json"),
    "scene": ("foxglove.SceneUpdate", "jsonschema", json_bytes(_SCENE_UPDATE), "json"),
    "tree": ("soccerbt.Tree", "jsonschema", json_bytes({"title": "soccerbt.Tree", **_OBJECT}), "json"),
    "keys": ("soccerbt.KeyTable", "jsonschema", json_bytes({"title": "soccerbt.KeyTable", **_OBJECT}), "json"),
    "keyframe": ("soccerbt.Keyframe", "jsonschema", json_bytes({"title": "soccerbt.Keyframe", **_OBJECT}),
                 "json"),
    "step": ("soccerbt.Step", "", b"", "soccerbt.step.v1"),
}
