"""The blackboard reply of BT.CPP 4.10's Groot2 publisher: ExportBlackboardToJSON and nlohmann's
MessagePack, reproduced for soccerbt's blackboards.

`export_blackboard(bb)` is ExportBlackboardToJSON: every key of the blackboard's own storage
(not its parent's), sorted as nlohmann's std::map sorts them, with its value as BT.CPP's
JsonExporter writes it. BT.CPP's Any keeps every integral type (bool included) as int64, so a
bool is exported as 0 or 1; a float as a double; a string as a string; a list of floats, ints,
strings or bools as an array (vector<double>, vector<int>, vector<string>, vector<bool>: the
bools as JSON booleans). Any other value (a pose, an object) is null, as in BT.CPP when no JSON
converter is registered for its type, unless `register_json_converter` gave one here. An entry
without a value is null too. A blackboard without keys is JSON null, not an empty object.

`blackboards_dump(subtrees, names)` is the reply's payload for "name;name;...": each named
(sub)tree's blackboard, plus "ROOT" when a tree's root blackboard is not its own (an external
root), with 4.10's refusals. `to_msgpack(value)` is nlohmann's to_msgpack: the smallest
integer form, a float as float32 when that loses nothing (else float64), map keys in order.
"""
from __future__ import annotations

import math
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from soccerbt.groot.protocol import ProtocolError

__all__ = ["export_blackboard", "export_value", "blackboards_dump", "to_msgpack", "register_json_converter",
           "ROOT_BLACKBOARD_NAME", "split_names"]

ROOT_BLACKBOARD_NAME = "ROOT"

_CONVERTERS: dict[type, Callable[[Any], Any]] = {}


def register_json_converter(value_type: type, convert: Callable[[Any], Any]) -> None:
    """Export values of `value_type` as `convert(value)` (JSON-ready data), as a C++ team
    registers a converter with BT.CPP's JsonExporter (which adds "__type": do the same)."""
    _CONVERTERS[value_type] = convert


def export_value(value: Any) -> Any:
    """One blackboard value as BT.CPP's JsonExporter::toJson writes it (None: null)."""
    kind = type(value)
    if value is None:
        return None
    if kind is str:
        return value
    if kind is bool:
        return int(value)  # Any keeps bool as int64
    if kind is int:
        return _wrap_int64(value)
    if kind is float:
        return value
    if kind is list or kind is tuple:
        return _export_vector(value)
    convert = _CONVERTERS.get(kind)
    if convert is not None:
        return convert(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):  # an IntEnum, a numpy integer... kept as integers by Any
        return _wrap_int64(int(value))
    if isinstance(value, float):
        return float(value)
    return None


def _wrap_int64(value: int) -> int:
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value >= 1 << 63 else value


def _export_vector(values: Sequence[Any]) -> Any:
    """vector<double>, vector<int>, vector<string>, vector<bool>; anything else null."""
    kinds = {type(v) for v in values}
    if not kinds or kinds <= {float} or kinds <= {str}:
        return list(values)
    if kinds <= {int}:
        return [_wrap_int32(v) for v in values]
    if kinds <= {bool}:
        return [bool(v) for v in values]
    return None


def _wrap_int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def export_blackboard(blackboard: Any) -> dict[str, Any] | None:
    """ExportBlackboardToJSON of one blackboard (its own keys); None when it has none."""
    entries = blackboard.local_entries()
    if not entries:
        return None
    return {key: export_value(entries[key].value) for key in sorted(entries, key=_key_order)}


def _key_order(key: str) -> bytes:
    return key.encode("utf-8")


def split_names(text: str) -> list[str]:
    """BT::splitString(text, ';'): "a;;b" gives "a", "" and "b"; a trailing ';' adds nothing."""
    out = []
    pos = 0
    while pos < len(text):
        end = text.find(";", pos)
        if end < 0:
            end = len(text)
        out.append(text[pos:end])
        pos = end + 1
    return out


def blackboards_dump(subtrees: Mapping[str, Any], names: str) -> bytes:
    """The BLACKBOARD reply's payload for `names` ("a;b"): `subtrees` maps each (sub)tree's name
    (its instance name, or its tree ID for the main tree) to its blackboard. Unknown names are
    left out. ProtocolError for the requests 4.10 refuses."""
    out: dict[str, Any] = {}
    exported_root = None
    for name in split_names(names):
        local = subtrees.get(name)
        if local is None:
            continue
        root = local.root()
        external_root = root is not local
        if name == ROOT_BLACKBOARD_NAME and (external_root or exported_root is not None):
            raise ProtocolError("blackboard dump request uses reserved name [ROOT] together with an "
                                "external root blackboard export")
        out[name] = export_blackboard(local)
        if external_root:
            if root is exported_root:
                continue
            if exported_root is not None:
                raise ProtocolError("blackboard dump request spans multiple external root blackboards")
            if ROOT_BLACKBOARD_NAME in out:
                raise ProtocolError("blackboard dump request would overwrite subtree [ROOT] with an "
                                    "external root blackboard export")
            out[ROOT_BLACKBOARD_NAME] = export_blackboard(root)
            exported_root = root
    if not out:
        return to_msgpack(None)
    return to_msgpack({key: out[key] for key in sorted(out, key=_key_order)})


# --------------------------------------------------------------------------- MessagePack


def to_msgpack(value: Any) -> bytes:
    """nlohmann::json::to_msgpack of JSON-ready data (dict keys written in their order)."""
    out = bytearray()
    stack = [value]
    while stack:  # explicit stack: a deep value must not exhaust Python's recursion
        item = stack.pop()
        _write(out, item, stack)
    return bytes(out)


def _write(out: bytearray, value: Any, stack: list[Any]) -> None:
    if value is None:
        out.append(0xC0)
    elif value is True:
        out.append(0xC3)
    elif value is False:
        out.append(0xC2)
    elif isinstance(value, int):
        _write_int(out, value)
    elif isinstance(value, float):
        _write_float(out, value)
    elif isinstance(value, str):
        data = value.encode("utf-8")
        n = len(data)
        if n <= 31:
            out.append(0xA0 | n)
        elif n <= 0xFF:
            out += b"\xd9" + struct.pack(">B", n)
        elif n <= 0xFFFF:
            out += b"\xda" + struct.pack(">H", n)
        else:
            out += b"\xdb" + struct.pack(">I", n)
        out += data
    elif isinstance(value, list | tuple):
        n = len(value)
        if n <= 15:
            out.append(0x90 | n)
        elif n <= 0xFFFF:
            out += b"\xdc" + struct.pack(">H", n)
        else:
            out += b"\xdd" + struct.pack(">I", n)
        stack.extend(reversed(value))
    elif isinstance(value, dict):
        n = len(value)
        if n <= 15:
            out.append(0x80 | n)
        elif n <= 0xFFFF:
            out += b"\xde" + struct.pack(">H", n)
        else:
            out += b"\xdf" + struct.pack(">I", n)
        pairs: list[Any] = []
        for key, item in value.items():
            pairs += (str(key), item)
        stack.extend(reversed(pairs))
    else:
        raise TypeError(f"not JSON-ready data: {type(value).__name__}")


def _write_int(out: bytearray, n: int) -> None:
    if n >= 0:
        if n < 128:
            out.append(n)
        elif n <= 0xFF:
            out += b"\xcc" + struct.pack(">B", n)
        elif n <= 0xFFFF:
            out += b"\xcd" + struct.pack(">H", n)
        elif n <= 0xFFFFFFFF:
            out += b"\xce" + struct.pack(">I", n)
        else:
            out += b"\xcf" + struct.pack(">Q", n & 0xFFFFFFFFFFFFFFFF)
    elif n >= -32:
        out += struct.pack(">b", n)
    elif n >= -0x80:
        out += b"\xd0" + struct.pack(">b", n)
    elif n >= -0x8000:
        out += b"\xd1" + struct.pack(">h", n)
    elif n >= -0x80000000:
        out += b"\xd2" + struct.pack(">i", n)
    else:
        out += b"\xd3" + struct.pack(">q", max(n, -(1 << 63)))


_FLOAT_MAX = struct.unpack(">f", b"\x7f\x7f\xff\xff")[0]


def _write_float(out: bytearray, x: float) -> None:
    """float32 when the value is within float's range and survives the round trip exactly
    (NaN never does), else float64: nlohmann's write_compact_float."""
    if not math.isnan(x) and -_FLOAT_MAX <= x <= _FLOAT_MAX:
        packed = struct.pack(">f", x)
        if struct.unpack(">f", packed)[0] == x:
            out += b"\xca" + packed
            return
    out += b"\xcb" + struct.pack(">d", x)
