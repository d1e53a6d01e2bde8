"""What the recorder encodes each tick, and the choice between soccerbt.native and Python.

A robot's tick (``py_encode_tick``: a ``soccerbt.Tick`` of the command, the transitions, the
skipped and ticked uids, the reasons), its blackboard changes (``py_bb_changes``: the root
entries written since the last tick whose value is new, by sequence number, as the Tick's
repeated ``changes``; other values as JSON text), a step's truth (``py_encode_truth``) and a
repeated field joined under a head (``py_join_repeated``: the StepInputs of every brain's
inputs), and the JSON text of blackboard values (``_json_text``, ``keyframe_value``): the
pure-Python twins of soccerbt.native's compiled functions, built with protobuf's own classes
(``soccerbt.log.proto``). ``bb_changes``, ``encode_tick``, ``encode_truth`` and
``join_repeated`` are the compiled ones when built (``_native_or_python``), else the twins.
"""
from __future__ import annotations

import math
from dataclasses import asdict, is_dataclass
from itertools import compress
from operator import attrgetter, ne
from typing import Any

from soccerbt.log import proto
from soccerbt.log.format import WRITERS, json_text, nice_f32
from soccerbt.native import recording
from soccerbt.world.types import Pose2D

__all__ = ["bb_changes", "encode_tick", "encode_truth", "join_repeated", "py_bb_changes", "py_encode_tick",
           "py_encode_truth", "py_join_repeated", "collect_changes", "changes_bytes", "removed_change",
           "keyframe_value", "json_value", "UNSET", "NO_TICK", "varint", "step_message", "truth_bytes"]


def json_value(value: object) -> object:
    """A JSON-ready, deterministic rendering of a blackboard value (poses as [x, y, theta])."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return round(value, _DIGITS)
        return repr(value)
    if isinstance(value, (tuple, list)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    x = getattr(value, "x_m", None)
    y = getattr(value, "y_m", None)
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        th = getattr(value, "theta_rad", None)
        return [json_value(float(x)), json_value(float(y))] + ([json_value(float(th))] if th is not None else [])
    name = getattr(value, "name", None)  # enums, statuses
    if isinstance(name, str):
        return name
    if is_dataclass(value) and not isinstance(value, type):
        return json_value(asdict(value))
    return repr(value)


_SEQ = attrgetter("sequence_id")
_DIGITS = 4

UNSET = object()  # a key-table slot whose value was never logged


def _change(key: str, writer: int) -> Any:
    """A Change of `key` by `writer` (a node uid, or -1 - the adapter's index), no value yet."""
    if writer > 0:
        return proto.Change(key=key, node_uid=writer)
    return proto.Change(key=key, adapter=-1 - writer if writer < -1 else 0)


def collect_changes(entries: list[Any], seqs: list[int], raws: list[object], adapter: list[int],
                    role_index: int, keys: list[str]) -> tuple[list[Any], bool]:
    """The root entries written since `seqs` whose value is new, as ``soccerbt.Change``
    messages, and whether the entry at `role_index` is one; `seqs` and `raws` are brought up to
    date in place. Sequence numbers are compared in C (map, compress)."""
    out: list[Any] = []
    role = False
    now = list(map(_SEQ, entries))
    if now == seqs:
        return out, role
    changed = list(compress(range(len(entries)), map(ne, now, seqs)))
    seqs[:] = now
    for i in changed:
        entry = entries[i]
        value = entry.value
        cls = value.__class__
        before = raws[i]
        if before.__class__ is cls and before == value:
            continue
        raws[i] = value
        if i == role_index:
            role = True
        change = _change(keys[i], entry.writer if entry.writer_seq == now[i] else adapter[i])
        if cls is float:
            change.number = value
        elif cls is _POSE:
            change.pose.x_m, change.pose.y_m, change.pose.theta_rad = value.x_m, value.y_m, value.theta_rad
            change.pose.SetInParent()
        elif cls is bool:
            change.flag = value
        elif cls is tuple and value and _all_floats(value):
            change.floats.values.extend(value)
        elif cls is tuple and value and _all_points(value):  # obstacles and the like: (x, y) pairs
            change.points.values.extend(v for point in value for v in point)
        else:
            change.json = _json_text(value)
        out.append(change)
    return out, role


_REMOVED = WRITERS.index("removed")  # soccerbt.Adapter's number: the enum lists WRITERS in order


def removed_change(key: str) -> Any:
    """The Change of a root key that went (its writer: the adapter "removed")."""
    return proto.Change(key=key, adapter=_REMOVED, removed=True)


def changes_bytes(changes: list[Any]) -> bytes:
    """The changes as soccerbt.Tick's repeated ``changes`` (its last field: appended to a Tick
    without changes)."""
    return proto.Tick(changes=changes).SerializeToString() if changes else b""


def py_bb_changes(entries: list[Any], seqs: list[int], raws: list[object], adapter: list[int],
                  role_index: int, keys: list[str]) -> tuple[bytes, bool]:
    """A tick's blackboard changes (b"" when no value is new) and whether the entry at
    `role_index` changed: the pure-Python twin of soccerbt.native's ``bb_changes``. `seqs` and
    `raws` are brought up to date in place."""
    changes, role = collect_changes(entries, seqs, raws, adapter, role_index, keys)
    return changes_bytes(changes), role


def py_encode_tick(robot: str, step: int, tick: int, root: int, command: Any, transitions: list[int],
                   skipped: list[int], ticked: list[Any] | None, reasons: dict[int, str] | None,
                   changes: bytes) -> bytes:
    """A robot's ``soccerbt.Tick`` from the command object, the flat (uid, previous, new) status
    log, the ticked nodes (None: no node data) and the reasons (one line each already), the
    changes (``bb_changes``) appended: the pure-Python twin of soccerbt.native's ``encode_tick``."""
    if not 0 <= root <= 5 or len(transitions) % 3 or any(not 0 <= code <= 5 for code in transitions[1::3]) \
            or any(not 0 <= code <= 5 for code in transitions[2::3]):
        raise ValueError("encode_tick: a tick, root or transition list out of its range")
    cmd = proto.Command(vx_mps=command.vx_mps, vy_mps=command.vy_mps, vtheta_radps=command.vtheta_radps,
                        head_pan_rad=command.head_pan_rad, head_tilt_rad=command.head_tilt_rad)
    kick = command.kick
    if kick is not None:
        cmd.kick = True
        cmd.kick_direction_rad = kick.direction_rad
        cmd.kick_strength = kick.strength
    msg = proto.Tick(robot=robot, step=step, tick=tick, root=root, command=cmd, skipped=skipped)
    if transitions:
        msg.transitions.extend(
            proto.Transition(uid=u, previous=p, status=n)
            for u, p, n in zip(transitions[0::3], transitions[1::3], transitions[2::3], strict=False)
        )
    if ticked:
        msg.ticked.extend(map(_UID, ticked))
    if reasons:
        msg.reasons.extend(proto.Reason(uid=uid, text=text) for uid, text in reasons.items())
    return msg.SerializeToString() + changes


def py_encode_truth(step: int, t_s: float, ball: Any, gc: tuple[int, ...], names: list[str],
                    bodies: list[Any]) -> bytes:
    """A step's ``soccerbt.Truth`` from the ball, the GameController numbers (state, secondary
    state, sub-state, scores blue and red) and the robots' bodies in `names`' order: the
    pure-Python twin of soccerbt.native's ``encode_truth``."""
    return truth_bytes(step, t_s, (ball.x_m, ball.y_m, ball.vx_mps, ball.vy_mps), gc, names,
                       [(b.x_m, b.y_m, b.theta_rad, b.fallen, b.removed) for b in bodies])


def truth_bytes(step: int, t_s: float, ball: tuple[float, float, float, float], gc: tuple[int, ...],
                names: list[str], robots: list[tuple[Any, ...]]) -> bytes:
    """A ``soccerbt.Truth`` from the ball (x, y, vx, vy), the GameController numbers and each
    robot's (x, y, theta, fallen, removed) in `names`' order (a TruthRecord's fields)."""
    msg = proto.Truth(step=step, t_s=t_s)
    msg.ball.x_m, msg.ball.y_m, msg.ball.vx_mps, msg.ball.vy_mps = ball
    msg.ball.SetInParent()
    g = msg.game
    g.state, g.secondary_state, g.sub_state, g.score_blue, g.score_red = gc
    g.SetInParent()
    for name, (x, y, theta, fallen, removed) in zip(names, robots, strict=True):
        msg.robots.add(name=name, x_m=x, y_m=y, theta_rad=theta, fallen=bool(fallen), removed=bool(removed))
    return msg.SerializeToString()


def varint(value: int) -> bytes:
    """protobuf's base-128 varint of a whole number of 0 or more."""
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def step_message(step: int, truth: bytes, ticks: list[bytes]) -> bytes:
    """A step's ``soccerbt.Step`` from its ``Truth`` and every robot's ``Tick`` (protobuf's bytes)."""
    head = (b"\x08" + varint(step) if step else b"") + b"\x12" + varint(len(truth)) + truth
    return join_repeated(head, 3, ticks)


def py_join_repeated(head: bytes, field: int, parts: list[bytes]) -> bytes:
    """`head`, then each part as one entry of the length-delimited repeated field `field`: the
    pure-Python twin of soccerbt.native's ``join_repeated``."""
    tag = varint(field << 3 | 2)
    return head + b"".join(tag + varint(len(part)) + part for part in parts)


_UID = attrgetter("uid")
NO_TICK: tuple[list[int], list[int], dict[int, str]] = ([], [], {})


def _identity(value: object) -> object:
    return value


def _rounded(value: float) -> object:
    return round(value, 4) if value - value == 0.0 else repr(value)  # NaN and inf as text


def _pose(value: Any) -> list[object]:
    return [round(value.x_m, 4), round(value.y_m, 4), round(value.theta_rad, 4)]


def _float_tuple(value: tuple) -> object:
    """A tuple of floats (a point, a velocity) as json_value renders it; other tuples too."""
    out = []
    for v in value:
        if v.__class__ is not float or v - v != 0.0:
            return json_value(value)  # not all finite floats (nested points, text): the general rendering
        out.append(round(v, 4))
    return out


# the usual entry types rendered as json_value renders them, without its chain of type tests
_FAST_JSON: dict[type, Any] = {bool: _identity, int: _identity, str: _identity, type(None): _identity,
                               float: _rounded, Pose2D: _pose, tuple: _float_tuple}
_ENCODE = json_text


def _json_text(value: object) -> str:
    """json.dumps(json_value(value)) for the usual types, faster (the same text)."""
    # the ignores: mypy does not narrow `value` through cls = value.__class__
    cls = value.__class__
    if cls is float:
        return (repr(round(value, 4))  # type: ignore[call-overload]
                if value - value == 0.0 else _ENCODE(repr(value)))  # type: ignore[operator]
    if cls is bool:
        return "true" if value else "false"
    if cls is int:
        return repr(value)
    if cls is str:
        return _ENCODE(value)
    if value is None:
        return "null"
    if cls is tuple:
        text = _floats_text(value)  # type: ignore[arg-type]
        if text is not None:
            return text
    elif cls is _POSE:
        text = _floats_text((value.x_m, value.y_m, value.theta_rad))  # type: ignore[attr-defined]
        if text is not None:
            return text
    enc = _FAST_JSON.get(cls)
    return _ENCODE(enc(value) if enc is not None else json_value(value))


def keyframe_value(value: object) -> object:
    """A keyframe's JSON value: floats with 7 significant digits (the precision of the f32
    changes that follow, so a keyframe and a replayed change read alike), else json_value's."""
    # the ignores: mypy does not narrow `value` through cls = value.__class__
    cls = value.__class__
    if cls is float:
        # through an f32 first, as a change is stored: rounding the double straight to 7 digits
        # can land one unit apart (0.074735335 -> 0.07473533, its f32 -> 0.07473534)
        return nice_f32(value)  # type: ignore[arg-type]
    if cls is _POSE:
        return [keyframe_value(v) for v in (value.x_m, value.y_m, value.theta_rad)]  # type: ignore[attr-defined]
    if cls is tuple and value and all(v.__class__ is float for v in value):  # type: ignore[attr-defined]
        return [keyframe_value(v) for v in value]  # type: ignore[attr-defined]
    if cls is tuple and value and _all_points(value):  # type: ignore[arg-type]
        return [[keyframe_value(x), keyframe_value(y)] for x, y in value]  # type: ignore[attr-defined]
    return json_value(value)


def _all_floats(values: tuple) -> bool:
    return set(map(type, values)) == _JUST_FLOAT


def _all_points(values: tuple) -> bool:
    """A tuple of (x, y) float pairs (obstacles and the like)."""
    return (set(map(type, values)) == _JUST_TUPLE and set(map(len, values)) == _JUST_TWO
            and all(map(_all_floats, values)))


_JUST_FLOAT = {float}
_JUST_TUPLE = {tuple}
_JUST_TWO = {2}


def _floats_text(values: tuple) -> str | None:
    """"[1.2346,-0.5]" for a tuple of finite floats (json_value's rendering); None otherwise."""
    for v in values:
        if v.__class__ is not float or v - v != 0.0:
            return None
    return "[" + ",".join([repr(round(v, 4)) for v in values]) + "]"


_POSE: type = Pose2D


def _native_or_python() -> tuple[Any, Any, Any, Any]:
    """(bb_changes, encode_tick, encode_truth, join_repeated): soccerbt.native's compiled ones
    when built, else the twins."""
    if recording is None:
        return py_bb_changes, py_encode_tick, py_encode_truth, py_join_repeated
    recording.setup(_POSE, _json_text)
    return recording.bb_changes, recording.encode_tick, recording.encode_truth, recording.join_repeated


bb_changes, encode_tick, encode_truth, join_repeated = _native_or_python()
