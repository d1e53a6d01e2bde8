"""What the recorder encodes each tick, and the choice between soccerbt.native and Python.

A robot's tick part (``py_encode_tick``: the command, the ticked uids, the reasons), its
blackboard section (``py_bb_changes``: the root entries written since the last tick whose value
is new, by sequence number, floats as f32, other values as JSON text), the uids of nodes as u16
(``py_uids_u16``) and the JSON text of blackboard values (``_json_text``, ``keyframe_value``):
the pure-Python twins of soccerbt.native's compiled functions. ``bb_changes``, ``encode_tick``
and ``join_parts`` are the compiled ones when built (``_native_or_python``), else the twins
(``logformat.join_parts`` the third).
"""
from __future__ import annotations

import math
from array import array
from dataclasses import asdict, is_dataclass
from itertools import compress
from operator import attrgetter, ne
from typing import Any

from soccerbt.log import format as lf

__all__ = ["bb_changes", "encode_tick", "join_parts", "py_bb_changes", "py_encode_tick", "py_uids_u16",
           "collect_changes", "keyframe_value", "json_value", "UNSET", "NO_TICK"]

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


_UID = attrgetter("uid")
_SEQ = attrgetter("sequence_id")
_DIGITS = 4

UNSET = object()  # a key-table slot whose value was never logged


def collect_changes(entries: list[Any], seqs: list[int], raws: list[object], adapter: list[int],
                     role_index: int) -> tuple[array, array, bytearray, array, list[str], bool]:
    """The root entries written since `seqs` whose value is new, as encode_changes' arrays, and
    whether the entry at `role_index` is one; `seqs` and `raws` are brought up to date in place.
    Sequence numbers are compared in C (map, compress); floats go to an f32 array."""
    indexes, writers, kinds, floats = array("H"), array("h"), bytearray(), array("f")
    texts: list[str] = []
    role = False
    now = list(map(_SEQ, entries))
    if now == seqs:
        return indexes, writers, kinds, floats, texts, role
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
        indexes.append(i)
        writers.append(entry.writer if entry.writer_seq == now[i] else adapter[i])
        if cls is float:
            kinds.append(lf.KIND_FLOAT)
            floats.append(value)
        elif cls is _POSE:
            kinds.append(lf.KIND_POSE)
            floats.extend((value.x_m, value.y_m, value.theta_rad))
        elif cls is bool:
            kinds.append(lf.KIND_TRUE if value else lf.KIND_FALSE)
        elif cls is tuple and 0 < len(value) < 256 and _all_floats(value):
            kinds.append(lf.KIND_FLOATS)
            kinds.append(len(value))
            floats.extend(value)
        elif cls is tuple and 0 < len(value) < 256 and _all_points(value):
            kinds.append(lf.KIND_POINTS)  # obstacles and the like: (x, y) pairs
            kinds.append(len(value))
            for point in value:
                floats.extend(point)
        else:
            kinds.append(lf.KIND_JSON)
            texts.append(_json_text(value))
    return indexes, writers, kinds, floats, texts, role


def py_bb_changes(entries: list[Any], seqs: list[int], raws: list[object], adapter: list[int],
                  role_index: int) -> tuple[bytes, bool]:
    """A tick's blackboard section (logformat.encode_changes; b"" when no value is new) and
    whether the entry at `role_index` changed: the pure-Python twin of soccerbt.native's
    ``bb_changes``. `seqs` and `raws` are brought up to date in place."""
    indexes, writers, kinds, floats, texts, role = collect_changes(entries, seqs, raws, adapter, role_index)
    return lf.encode_changes(indexes, writers, kinds, floats, texts), role


def py_encode_tick(tick: int, root: int, command: Any, n: int, uids: bytes, codes: bytes, skipped: list[int],
                   ticked: list[Any] | None, changes: bytes, reasons: dict[int, str] | None) -> bytes:
    """A robot's tick part (logformat.encode_tick) from the command object and the ticked nodes
    (None: no node data), the reasons one line each already: the pure-Python twin of
    soccerbt.native's ``encode_tick``."""
    return lf.encode_tick(tick, root, lf.command_tuple(command), n, uids, codes, skipped,
                          py_uids_u16(ticked) if ticked is not None else b"", changes, reasons, one_line=True)


def py_uids_u16(nodes: list[Any]) -> bytes:
    """The nodes' uids as u16 bytes: the pure-Python twin of soccerbt.native's ``uids_u16``."""
    return array("H", map(_UID, nodes)).tobytes()
NO_TICK: tuple[bytes, bytes, int, list[int], dict[int, str]] = (b"", b"", 0, [], {})


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


def _fast_json() -> dict[type, Any]:
    from soccerbt.world.types import Pose2D

    return {bool: _identity, int: _identity, str: _identity, type(None): _identity, float: _rounded,
            Pose2D: _pose, tuple: _float_tuple}


# the usual entry types rendered as json_value renders them, without its chain of type tests
_FAST_JSON = _fast_json()
_ENCODE = lf.json_text
_KEY_TEXT: dict[str, str] = {}
_WRITER_TEXT: dict[object, str] = {}


def _key_text(key: str) -> str:
    text = _KEY_TEXT.get(key)
    if text is None:
        text = _KEY_TEXT[key] = _ENCODE(key)
    return text


def _writer_text(writer: object) -> str:
    text = _WRITER_TEXT.get(writer)
    if text is None:
        text = _WRITER_TEXT[writer] = _ENCODE(writer)
    return text


def _json_text(value: object) -> str:
    """json.dumps(json_value(value)) for the usual types, faster (the same text)."""
    cls = value.__class__
    if cls is float:
        return repr(round(value, 4)) if value - value == 0.0 else _ENCODE(repr(value))  # type: ignore[operator]
    if cls is bool:
        return "true" if value else "false"
    if cls is int:
        return repr(value)
    if cls is str:
        return _ENCODE(value)
    if value is None:
        return "null"
    if cls is tuple:
        text = _floats_text(value)
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
    cls = value.__class__
    if cls is float:
        # through an f32 first, as a change is stored: rounding the double straight to 7 digits
        # can land one unit apart (0.074735335 -> 0.07473533, its f32 -> 0.07473534)
        return lf.nice_f32(value)
    if cls is _POSE:
        return [keyframe_value(v) for v in (value.x_m, value.y_m, value.theta_rad)]  # type: ignore[attr-defined]
    if cls is tuple and value and all(v.__class__ is float for v in value):  # type: ignore[union-attr]
        return [keyframe_value(v) for v in value]  # type: ignore[union-attr]
    if cls is tuple and value and _all_points(value):  # type: ignore[arg-type]
        return [[keyframe_value(x), keyframe_value(y)] for x, y in value]  # type: ignore[union-attr]
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


def _pose_class() -> type:
    from soccerbt.world.types import Pose2D

    return Pose2D


_POSE = _pose_class()


def _native_or_python() -> tuple[Any, Any, Any]:
    """(bb_changes, encode_tick, join_parts): soccerbt.native's compiled ones when built, else
    the twins (here, and logformat.join_parts)."""
    from soccerbt.native import recording

    if recording is None:
        return py_bb_changes, py_encode_tick, lf.join_parts
    recording.setup(_POSE, _json_text)
    return recording.bb_changes, recording.encode_tick, recording.join_parts


bb_changes, encode_tick, join_parts = _native_or_python()
