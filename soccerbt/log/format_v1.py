"""Format 1 of the log, read only: the binary step message and its key tables (soccerbt 0.1).

Logs of format 1 (``format_version`` 1 in the header) hold every step on ``/match/step``: one
message of length-prefixed parts (``split_parts``), the truth then each robot's tick in the
header's order (``decode_truth``, ``decode_tick``), the blackboard changes indexing a key table
that ``/robots/<robot>/keys`` messages and keyframes carry (``table_of``), and the brains' inputs
on ``/match/inputs`` (``soccerbt.log.inputs.decode_inputs_v1``). Nothing writes this format any
more; ``soccerbt.log.reader`` reads it into the same records as format 2 (``TickRecord``,
``TruthRecord``), so every tool reads both. ``encode_tick`` is kept for the tests of the tick decoder; the
tests' format-1 logs are files written by soccerbt 0.1 (``tests/data/logs``).

A tick part: ``<IBB7fHHH`` (tick, root status, flags, the command as seven f32: vx, vy,
vtheta, head pan, head tilt, kick direction and strength or NaN, then the counts of
transitions, skipped and ticked uids), the transitions' u16 uids, their previous codes, their
new codes (u8 each), the skipped and the ticked u16 uids, the reasons section when the flags
say so, then the blackboard section.
"""
from __future__ import annotations

import json
import struct
from array import array
from typing import Any

from soccerbt.log.format import (
    MAX_STATUS,
    ROOT_EXCEPTION,
    TickRecord,
    TruthRecord,
    json_value_of_text,
    nice_value,
    reason_text,
    writer_of_code,
)

__all__ = ["STEP_TOPIC", "keys_topic", "split_parts", "decode_tick", "encode_tick", "decode_changes",
           "changed_indexes", "decode_truth", "table_of", "FLAG_REASONS", "KIND_FLOAT", "KIND_FLOATS", "KIND_POSE",
           "KIND_FALSE", "KIND_TRUE", "KIND_JSON", "KIND_REMOVED", "KIND_POINTS", "encode_reasons"]

STEP_TOPIC = "/match/step"
_ROBOT_PREFIX = "/robots/"


def keys_topic(robot: str) -> str:
    """A robot's key table channel (format 1)."""
    return f"{_ROBOT_PREFIX}{robot}/keys"


# --- a robot's tick -----------------------------------------------------------------------------

_TICK_HEAD = struct.Struct("<IBB7fHHH")   # tick, root status, flags, command, counts
_STATUS_BYTES = bytes(range(5))            # the node status codes a transition may hold
_NAN = float("nan")


def encode_tick(tick: int, root: int, command: tuple[float, ...], n_transitions: int, uids: bytes,
                codes: bytes, skipped: list[int], ticked: bytes, changes: bytes,
                reasons: dict[int, str] | None = None, *, one_line: bool = False) -> bytes:
    """`uids`: u16 per transition; `codes`: the previous codes of all transitions, then their
    new codes (u8 each); `ticked`: the u16 uids of the nodes ticked, in the order their ticks
    returned; `changes`: the blackboard section (encode_changes); `reasons`: uid -> the reason
    the node reported in this tick (a reasons section, ``FLAG_REASONS``; none when empty);
    `one_line`: the texts are ``reason_text``'s already."""
    if not reasons:
        head = _TICK_HEAD.pack(tick, root, 0, *command, n_transitions, len(skipped), len(ticked) // 2)
        return b"".join((head, uids, codes, array("H", skipped).tobytes(), ticked, changes))
    head = _TICK_HEAD.pack(tick, root, FLAG_REASONS, *command, n_transitions, len(skipped), len(ticked) // 2)
    return b"".join((head, uids, codes, array("H", skipped).tobytes(), ticked, encode_reasons(reasons, one_line),
                     changes))


# --- reasons ----------------------------------------------------------------------------------
# A tick whose flags hold FLAG_REASONS carries, after its ticked uids, the reasons its nodes
# reported: u16 n, u32 text bytes, n u16 uids, then the n texts (UTF-8) joined by REASON_SEPARATOR.

FLAG_REASONS = 1
REASON_SEPARATOR = "\n"
_REASONS_HEAD = struct.Struct("<HI")


def encode_reasons(reasons: dict[int, str], one_line: bool = False) -> bytes:
    """The reasons section of a tick (see above); texts are made one line (``reason_text``)
    unless `one_line` says they are."""
    uids = array("H", reasons)
    texts = reasons.values() if one_line else map(reason_text, reasons.values())
    text = REASON_SEPARATOR.join(texts).encode("utf-8")
    return b"".join((_REASONS_HEAD.pack(len(uids), len(text)), uids.tobytes(), text))


def _decode_reasons(data: bytes, o: int) -> tuple[dict[int, str], int]:
    """(uid -> reason, the offset after the section) of the reasons section at `o`."""
    if o + _REASONS_HEAD.size > len(data):
        raise ValueError("tick message cut short (reasons)")
    n, size = _REASONS_HEAD.unpack_from(data, o)
    o += _REASONS_HEAD.size
    if o + 2 * n + size > len(data):
        raise ValueError("tick message cut short (reasons)")
    uids = array("H")
    uids.frombytes(data[o:o + 2 * n])
    o += 2 * n
    try:
        texts = bytes(data[o:o + size]).decode("utf-8").split(REASON_SEPARATOR) if n else []
    except UnicodeDecodeError:
        raise ValueError("a reason is not UTF-8 text") from None
    if len(texts) != n:
        raise ValueError(f"{n} reasons announced, {len(texts)} texts")
    return dict(zip(uids, texts, strict=False)), o + size


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


def changed_indexes(changes: bytes) -> list[int]:
    """The key-table indexes a tick's blackboard section changed (no value decoded)."""
    if len(changes) < _BB_HEAD.size:
        return []
    n = _BB_HEAD.unpack_from(changes)[0]
    idx = array("H")
    idx.frombytes(changes[_BB_HEAD.size:_BB_HEAD.size + 2 * n])
    return list(idx)


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
    try:
        k = f = t = 0
        for i in range(n):
            kind = kinds[k]
            k += 1
            if kind == KIND_FLOAT:
                value: Any = nice_value(floats[f])
                f += 1
            elif kind == KIND_FLOATS or kind == KIND_POSE:
                count = 3 if kind == KIND_POSE else kinds[k]
                if kind == KIND_FLOATS:
                    k += 1
                value = [nice_value(v) for v in floats[f:f + count]]
                f += count
            elif kind == KIND_POINTS:
                count = kinds[k]
                k += 1
                value = [[nice_value(floats[f + 2 * j]), nice_value(floats[f + 2 * j + 1])] for j in range(count)]
                f += 2 * count
            elif kind == KIND_FALSE or kind == KIND_TRUE:
                value = kind == KIND_TRUE
            elif kind == KIND_JSON:
                value = json_value_of_text(texts[t])
                t += 1
            elif kind == KIND_REMOVED:
                value = None
            else:
                raise ValueError(f"unknown blackboard value kind {kind}")
            index = idx[i]
            if index >= len(keys):
                raise ValueError(f"blackboard key index {index} outside the key table ({len(keys)} keys)")
            out[keys[index]] = [value, writer_of_code(writers[i])]
    except IndexError:
        raise ValueError("blackboard section cut short (fewer kinds or texts than changes)") from None
    return out


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
    tick, root, flags, *rest = _TICK_HEAD.unpack_from(data)
    command = tuple(rest[:7])
    n, n_skipped, n_ticked = rest[7:]
    if root > ROOT_EXCEPTION:
        raise ValueError(f"root status code {root} (0..{ROOT_EXCEPTION})")
    o = _TICK_HEAD.size
    end = o + 2 * n + 2 * n + 2 * n_skipped + 2 * n_ticked
    if end > len(data):
        raise ValueError("tick message cut short")
    uids = array("H")
    uids.frombytes(data[o:o + 2 * n])
    o += 2 * n
    codes = data[o:o + 2 * n]
    if codes.translate(None, _STATUS_BYTES):  # anything left is no status code
        raise ValueError(f"status code {max(codes)} in a transition (0..{MAX_STATUS})")
    o += 2 * n
    skipped = array("H")
    skipped.frombytes(data[o:o + 2 * n_skipped])
    o += 2 * n_skipped
    ticked_uids = array("H")
    ticked_uids.frombytes(data[o:o + 2 * n_ticked])
    o += 2 * n_ticked
    reasons: dict[int, str] = {}
    if flags & FLAG_REASONS:
        reasons, o = _decode_reasons(data, o)
    changes = bytes(data[o:])
    transitions = list(zip(uids, codes[:n], codes[n:], strict=False))
    bb = decode_changes(changes, keys) if keys is not None else {}
    return TickRecord(tick, root, command, transitions, list(skipped), list(ticked_uids), bb, reasons, changes)

# --- truth --------------------------------------------------------------------------------------

_TRUTH_HEAD = struct.Struct("<Id4f5h")
_TRUTH_ROBOT = struct.Struct("<3fBB")


def decode_truth(data: bytes) -> TruthRecord:
    if len(data) < _TRUTH_HEAD.size or (len(data) - _TRUTH_HEAD.size) % _TRUTH_ROBOT.size:
        raise ValueError("truth message of the wrong size")
    step, t_s, *rest = _TRUTH_HEAD.unpack_from(data)
    robots = [_TRUTH_ROBOT.unpack_from(data, o)
              for o in range(_TRUTH_HEAD.size, len(data), _TRUTH_ROBOT.size)]
    return TruthRecord(step, t_s, tuple(rest[:4]), tuple(rest[4:9]), robots)


def table_of(data: bytes) -> tuple[int, list[str]] | None:
    """(the first step it holds for, the key table) of a /keys or keyframe message, or None when
    it has no well-formed table: a reader following key tables needs no more of the message."""
    try:
        msg = json.loads(data)
    except (RecursionError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(msg, dict):
        return None
    keys = msg.get("keys")
    if not isinstance(keys, list) or not all(type(k) is str for k in keys):
        return None
    if "from_step" in msg:
        valid = msg["from_step"]
    else:
        valid = msg.get("after_step")
        valid = valid + 1 if type(valid) is int else None
    return (valid, keys) if type(valid) is int else None
