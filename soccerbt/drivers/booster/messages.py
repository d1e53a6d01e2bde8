"""The Booster robot's messages as plain dataclasses, with their exact CDR bytes.

Each class mirrors one ROS 2 message of robocup_demo's interface packages (or of ROS 2's common
packages): the field names and types are those of the ``.msg`` file, ``ROS_TYPE`` is the ROS
name (``booster_interface/msg/Odometer``) and ``DDS_TYPE`` the DDS type name that ROS 2 and the
vendor SDK put in discovery (``booster_interface::msg::dds_::Odometer_``).

``encode()`` gives the sample as DDS and ROS 2 put it on the wire: the 4-byte encapsulation
header (``00 01 00 00``: plain CDR, little-endian) and the XCDR1 body (every primitive aligned
to its size, counted from the end of the header; strings as a uint32 length with the NUL, then
the bytes and the NUL; sequences as a uint32 count, then the elements). No padding is added at
the end (the DDS writer pads to 4 bytes itself). float32 fields are packed with ``struct``'s
``'f'``: a Python float is rounded to the nearest float32, so ``decode(encode(m))`` equals ``m``
only for values a float32 holds exactly.

``decode(data)`` reads plain CDR in either byte order and raises :class:`MessageError` (a
``ValueError``), never another exception, for anything it cannot read: fewer bytes than the
message needs, an unknown encapsulation, a bool that is neither 0 nor 1, a string without its
NUL or not UTF-8, a declared length beyond the bytes that remain (checked before anything is
allocated), a length beyond the caps below, or more than 3 bytes left after the message. It
works in time linear in the input's size. The caps:

* a whole sample: ``MAX_MESSAGE_BYTES`` (16 MiB);
* a string: ``MAX_STRING_BYTES`` (1 MiB with its NUL);
* ``Detections.detected_objects``: 256; ``LowState`` motor lists: 256 each;
  ``RawBytesMsg.msg``: 1 MiB; any other sequence: 1,048,576 elements.

Sequences decode as lists, ``char[]`` (``RawBytesMsg.msg``) as ``bytes``, fixed arrays
(``float32[3]``) as lists of their exact length.

robocup_demo's ``fall_down_recovery_state`` is a ``RawBytesMsg`` whose bytes are memcpy'd into
``{uint8 state; uint8 is_recovery_available; uint8 current_planner_index}``:
:class:`RecoveryState` packs and unpacks them.

Two of robocup_demo's definitions differ from the SDK's IDL in names only (the bytes are the
same): ``RemoteControllerState.hat_pos`` is the SDK's ``reserved``, and ``MotorState.mode`` and
``temperature`` are int8 here, uint8 in the SDK. This module follows the ``.msg`` files.

Pure Python: it imports neither cyclonedds nor anything of ROS.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, ClassVar, TypeVar

__all__ = [
    "MAX_DETECTED_OBJECTS", "MAX_MESSAGE_BYTES", "MAX_MOTORS", "MAX_RAW_BYTES", "MAX_SEQUENCE_LENGTH",
    "MAX_STRING_BYTES", "MESSAGE_TYPES",
    "Clock", "DetectedObject", "Detections", "FallDownState", "Header", "ImuState", "LineSegments",
    "LowState", "Message", "MessageError", "MotorState", "Odometer", "Point", "Pose", "Quaternion",
    "RawBytesMsg", "RecoveryState",
    "CameraInfo", "RegionOfInterest", "String",
    "RemoteControllerState", "RpcReqMsg", "RpcRespMsg", "Time", "wire_fields",
]

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
MAX_STRING_BYTES = 1024 * 1024
MAX_SEQUENCE_LENGTH = 1024 * 1024

_ORIGIN = 4  # CDR alignment counts from the end of the encapsulation header
_HEADER_LE = b"\x00\x01\x00\x00"
_U32 = {"<": struct.Struct("<I"), ">": struct.Struct(">I")}
_ENDIANS = ("<", ">")


class MessageError(ValueError):
    """A message that cannot be decoded (or a value that cannot be encoded)."""


# --- codecs --------------------------------------------------------------------------------------
#
# A struct is a list of steps. A run is a stretch of consecutive primitive fields and fixed
# arrays of primitives: one precompiled struct.Struct per byte order and start phase (the
# offset modulo 8) reads or writes the whole stretch, padding included. Strings, sequences and
# nested structs are steps of their own.

_PRIMS: dict[str, tuple[str, str, int]] = {
    # ros type: (encode char, decode char, size)
    "bool": ("?", "B", 1),
    "int8": ("b", "b", 1),
    "uint8": ("B", "B", 1),
    "char": ("B", "B", 1),
    "int16": ("h", "h", 2),
    "uint16": ("H", "H", 2),
    "int32": ("i", "i", 4),
    "uint32": ("I", "I", 4),
    "int64": ("q", "q", 8),
    "uint64": ("Q", "Q", 8),
    "float32": ("f", "f", 4),
    "float64": ("d", "d", 8),
}


@dataclass(frozen=True)
class _Prim:
    """A primitive field (``count`` 0) or a fixed array of ``count`` primitives."""

    ros: str
    count: int = 0


@dataclass(frozen=True)
class _Str:
    max_bytes: int = MAX_STRING_BYTES


@dataclass(frozen=True)
class _Seq:
    elem: Any  # a ros primitive name or a Message class
    max_len: int = MAX_SEQUENCE_LENGTH


@dataclass(frozen=True)
class _Bytes:
    """``char[]`` / ``uint8[]``: a sequence of bytes, as Python ``bytes``."""

    max_len: int = MAX_SEQUENCE_LENGTH


@dataclass(frozen=True)
class _Nested:
    cls: Any


class _Run:
    """Consecutive primitive fields, read and written with one struct call."""

    def __init__(self, owner: str, items: list[tuple[str, _Prim]]) -> None:
        self.names = tuple(name for name, _ in items)
        self.get = (
            attrgetter(*self.names) if len(self.names) > 1 else (lambda obj, _n=self.names[0]: (getattr(obj, _n),))
        )
        self.counts = tuple(p.count for _, p in items)
        self.has_arrays = any(self.counts)
        self.owner = owner
        self.min_size = sum(_PRIMS[p.ros][2] * max(1, p.count) for _, p in items)
        # decode: flat slot ranges for each field
        slots, start = [], 0
        for _, p in items:
            n = max(1, p.count)
            slots.append((start, start + n, p.count))
            start += n
        self.slots = tuple(slots)
        self.flat_bools = tuple(j for i, (_, p) in enumerate(items) if p.ros == "bool"
                                for j in range(self.slots[i][0], self.slots[i][1]))
        self.enc: dict[tuple[str, int], tuple[struct.Struct, int]] = {}
        self.dec: dict[tuple[str, int], tuple[struct.Struct, int]] = {}
        for endian in _ENDIANS:
            for phase in range(8):
                efmt, dfmt, off = [endian], [endian], phase
                for _, p in items:
                    ec, dc, size = _PRIMS[p.ros]
                    pad = (-off) % size
                    n = max(1, p.count)
                    for part, char in ((efmt, ec), (dfmt, dc)):
                        if pad:
                            part.append(f"{pad}x")
                        part.append(f"{n}{char}" if n > 1 else char)
                    off += pad + size * n
                es, ds = struct.Struct("".join(efmt)), struct.Struct("".join(dfmt))
                self.enc[(endian, phase)] = (es, es.size)
                self.dec[(endian, phase)] = (ds, ds.size)

    def encode(self, obj: Any, buf: bytearray) -> None:
        values = self.get(obj)
        if self.has_arrays:
            flat: list[Any] = []
            for value, count, name in zip(values, self.counts, self.names, strict=False):
                if count:
                    if len(value) != count:
                        raise MessageError(f"{self.owner}.{name}: needs exactly {count} values, got {len(value)}")
                    flat.extend(value)
                else:
                    flat.append(value)
            values = flat
        s, _ = self.enc[("<", (len(buf) - _ORIGIN) & 7)]
        try:
            buf += s.pack(*values)
        except (struct.error, TypeError, OverflowError) as exc:
            raise MessageError(f"{self.owner}({', '.join(self.names)}): cannot encode: {exc}") from None

    def decode(self, data: bytes, pos: int, endian: str, out: dict[str, Any]) -> int:
        s, size = self.dec[(endian, (pos - _ORIGIN) & 7)]
        if pos + size > len(data):
            raise MessageError(f"{self.owner}.{self.names[0]}: needs {size} bytes at offset {pos}, "
                               f"only {len(data) - pos} remain (truncated)")
        flat = s.unpack_from(data, pos)
        for i in self.flat_bools:
            if flat[i] > 1:
                raise MessageError(f"{self.owner}: a bool holds {flat[i]} (only 0 and 1 are valid)")
        if self.has_arrays or self.flat_bools:
            for name, (a, b, count) in zip(self.names, self.slots, strict=False):
                if count:
                    out[name] = [bool(x) for x in flat[a:b]] if a in self.flat_bools else list(flat[a:b])
                else:
                    out[name] = bool(flat[a]) if a in self.flat_bools else flat[a]
        else:
            for name, value in zip(self.names, flat, strict=False):
                out[name] = value
        return pos + size


def _read_count(data: bytes, pos: int, endian: str, what: str, limit: int) -> tuple[int, int]:
    """A uint32 length at ``pos`` (aligned to 4): (count, position after it)."""
    pos += (-(pos - _ORIGIN)) & 3
    if pos + 4 > len(data):
        raise MessageError(f"{what}: the length needs 4 bytes at offset {pos}, only {max(0, len(data) - pos)} "
                           "remain (truncated)")
    (n,) = _U32[endian].unpack_from(data, pos)
    if n > limit:
        raise MessageError(f"{what}: declared length {n} exceeds the limit of {limit}")
    return n, pos + 4


def _align(buf: bytearray, size: int) -> None:
    pad = (-(len(buf) - _ORIGIN)) % size
    if pad:
        buf += b"\0" * pad


def _encode_count(buf: bytearray, n: int, limit: int, what: str) -> None:
    if n > limit:
        raise MessageError(f"{what}: {n} elements exceed the limit of {limit}")
    _align(buf, 4)
    buf += _U32["<"].pack(n)


class _StructCodec:
    """Encodes and decodes one message class (a list of steps)."""

    def __init__(self, cls: Any, spec: list[tuple[str, Any]]) -> None:
        self.cls = cls
        self.name = cls.__name__
        self.steps: list[tuple[str, Any, Any]] = []  # (kind, name or run, detail)
        run: list[tuple[str, _Prim]] = []
        min_size = 0
        for name, kind in spec:
            if isinstance(kind, _Prim):
                run.append((name, kind))
                continue
            if run:
                r = _Run(self.name, run)
                self.steps.append(("run", r, None))
                min_size += r.min_size
                run = []
            if isinstance(kind, _Str):
                self.steps.append(("str", name, kind.max_bytes))
                min_size += 4
            elif isinstance(kind, _Bytes):
                self.steps.append(("bytes", name, kind.max_len))
                min_size += 4
            elif isinstance(kind, _Nested):
                self.steps.append(("nested", name, kind.cls))
                min_size += kind.cls._CODEC.min_size
            elif isinstance(kind, _Seq):
                if isinstance(kind.elem, str):
                    ec, dc, size = _PRIMS[kind.elem]
                    self.steps.append(("seqprim", name, (ec, dc, size, kind.elem == "bool", kind.max_len)))
                else:
                    self.steps.append(("seqstruct", name, (kind.elem, kind.max_len)))
                min_size += 4
            else:  # pragma: no cover - a programming error in a spec below
                raise TypeError(f"{self.name}.{name}: unknown field kind {kind!r}")
        if run:
            r = _Run(self.name, run)
            self.steps.append(("run", r, None))
            min_size += r.min_size
        self.min_size = max(1, min_size)
        self.field_names = tuple(f.name for f in fields(cls))
        # a message of primitives only (MotorState): a sequence of it is one block of equal records
        self.fixed_run: _Run | None = self.steps[0][1] if [k for k, _, _ in self.steps] == ["run"] else None

    # encode ----------------------------------------------------------------------------------
    def encode_into(self, obj: Any, buf: bytearray) -> None:
        for kind, name, detail in self.steps:
            if kind == "run":
                name.encode(obj, buf)
                continue
            value = getattr(obj, name)
            what = f"{self.name}.{name}"
            if kind == "str":
                try:
                    raw = value.encode("utf-8")
                except (AttributeError, UnicodeError) as exc:
                    raise MessageError(
                        f"{what}: cannot encode {type(value).__name__} as a UTF-8 string: {exc}"
                    ) from None
                if len(raw) + 1 > detail:
                    raise MessageError(f"{what}: {len(raw) + 1} bytes exceed the limit of {detail}")
                _align(buf, 4)
                buf += _U32["<"].pack(len(raw) + 1)
                buf += raw
                buf += b"\0"
            elif kind == "bytes":
                try:
                    if isinstance(value, (int, str)):
                        raise TypeError("not a bytes-like value or a sequence of byte values")
                    raw = bytes(value)
                except (TypeError, ValueError) as exc:
                    raise MessageError(f"{what}: cannot encode {type(value).__name__} as bytes: {exc}") from None
                _encode_count(buf, len(raw), detail, what)
                buf += raw
            elif kind == "nested":
                if not isinstance(value, detail):
                    raise MessageError(f"{what}: expected a {detail.__name__}, got {type(value).__name__}")
                detail._CODEC.encode_into(value, buf)
            elif kind == "seqprim":
                ec, _, size, _, limit = detail
                try:
                    n = len(value)
                except TypeError:
                    raise MessageError(f"{what}: expected a sequence, got {type(value).__name__}") from None
                _encode_count(buf, n, limit, what)
                if n:
                    _align(buf, size)
                    try:
                        buf += struct.pack(f"<{n}{ec}", *value)
                    except (struct.error, TypeError, OverflowError) as exc:
                        raise MessageError(f"{what}: cannot encode: {exc}") from None
            else:  # seqstruct
                elem, limit = detail
                try:
                    n = len(value)
                except TypeError:
                    raise MessageError(f"{what}: expected a sequence, got {type(value).__name__}") from None
                _encode_count(buf, n, limit, what)
                codec = elem._CODEC
                for i, item in enumerate(value):
                    if not isinstance(item, elem):
                        raise MessageError(f"{what}[{i}]: expected a {elem.__name__}, got {type(item).__name__}")
                    codec.encode_into(item, buf)

    # decode ----------------------------------------------------------------------------------
    def decode_at(self, data: bytes, pos: int, endian: str) -> tuple[Any, int]:
        out: dict[str, Any] = {}
        for kind, name, detail in self.steps:
            if kind == "run":
                pos = name.decode(data, pos, endian, out)
                continue
            what = f"{self.name}.{name}"
            if kind == "str":
                n, pos = _read_count(data, pos, endian, what, detail)
                if n > len(data) - pos:
                    raise MessageError(f"{what}: string length {n} exceeds the {len(data) - pos} bytes that remain")
                if n == 0:  # not valid CDR, but some writers send it for ""
                    out[name] = ""
                    continue
                if data[pos + n - 1] != 0:
                    raise MessageError(f"{what}: string of {n} bytes does not end with NUL")
                try:
                    out[name] = data[pos:pos + n - 1].decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise MessageError(f"{what}: string is not UTF-8 ({exc.reason} at byte {exc.start})") from None
                pos += n
            elif kind == "bytes":
                n, pos = _read_count(data, pos, endian, what, detail)
                if n > len(data) - pos:
                    raise MessageError(f"{what}: length {n} exceeds the {len(data) - pos} bytes that remain")
                out[name] = data[pos:pos + n]
                pos += n
            elif kind == "nested":
                try:
                    out[name], pos = detail._CODEC.decode_at(data, pos, endian)
                except MessageError as exc:
                    raise MessageError(f"{what}: {exc}") from None
            elif kind == "seqprim":
                _, dc, size, is_bool, limit = detail
                n, pos = _read_count(data, pos, endian, what, limit)
                if n:
                    pos += (-(pos - _ORIGIN)) % size
                    if n * size > len(data) - pos:
                        raise MessageError(f"{what}: {n} elements of {size} bytes exceed the "
                                           f"{max(0, len(data) - pos)} bytes that remain")
                    values = list(struct.unpack_from(f"{endian}{n}{dc}", data, pos))
                    if is_bool:
                        if any(v > 1 for v in values):
                            raise MessageError(f"{what}: a bool holds a value other than 0 and 1")
                        values = [bool(v) for v in values]
                    out[name] = values
                    pos += n * size
                else:
                    out[name] = []
            else:  # seqstruct
                elem, limit = detail
                n, pos = _read_count(data, pos, endian, what, limit)
                codec = elem._CODEC
                if n * codec.min_size > len(data) - pos:
                    raise MessageError(f"{what}: {n} elements of at least {codec.min_size} bytes exceed the "
                                       f"{len(data) - pos} bytes that remain")
                if n and codec.fixed_run is not None:
                    block = codec.decode_block(data, pos, endian, n)
                    if block is not None:
                        out[name], pos = block
                        continue
                items = []
                for i in range(n):
                    try:
                        item, pos = codec.decode_at(data, pos, endian)
                    except MessageError as exc:
                        raise MessageError(f"{what}[{i}]: {exc}") from None
                    items.append(item)
                out[name] = items
        return self.cls(**out), pos

    def decode_block(self, data: bytes, pos: int, endian: str, n: int) -> tuple[list[Any], int] | None:
        """``n`` messages of primitives one after another, unpacked in one pass; None when their
        layout changes from one to the next (an 8-byte field after an odd start), or when the
        block is cut short (the general path then names the element that is)."""
        run = self.fixed_run
        s, size = run.dec[(endian, (pos - _ORIGIN) & 7)]
        if run.dec[(endian, (pos + size - _ORIGIN) & 7)][0].format != s.format or pos + n * size > len(data):
            return None
        names, slots, bools = run.names, run.slots, run.flat_bools
        cls = self.cls
        items = []
        for flat in s.iter_unpack(data[pos:pos + n * size]):
            for i in bools:
                if flat[i] > 1:
                    raise MessageError(f"{self.name}: a bool holds {flat[i]} (only 0 and 1 are valid)")
            kw = {}
            for name, (a, b, count) in zip(names, slots, strict=False):
                if count:
                    kw[name] = [bool(x) for x in flat[a:b]] if a in bools else list(flat[a:b])
                else:
                    kw[name] = bool(flat[a]) if a in bools else flat[a]
            items.append(cls(**kw))
        return items, pos + n * size


_M = TypeVar("_M", bound="Message")


class Message:
    """Base of every message class: ``encode()``, ``decode()`` and the type names."""

    __slots__ = ()
    ROS_TYPE: ClassVar[str]
    DDS_TYPE: ClassVar[str]
    _CODEC: ClassVar[_StructCodec]
    _WIRE: ClassVar[tuple[tuple[str, str, Any, int], ...]]

    def encode(self) -> bytes:
        """This message as CDR (XCDR1, little-endian) with its 4-byte encapsulation header."""
        buf = bytearray(_HEADER_LE)
        self._CODEC.encode_into(self, buf)
        return bytes(buf)

    @classmethod
    def decode(cls: type[_M], data: bytes) -> _M:
        """A message from CDR bytes (header included); :class:`MessageError` if they are not one."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise MessageError(f"{cls.__name__}: expected bytes, got {type(data).__name__}")
        if len(data) > MAX_MESSAGE_BYTES:
            raise MessageError(f"{cls.__name__}: {len(data)} bytes exceed the limit of {MAX_MESSAGE_BYTES}")
        if not isinstance(data, bytes):
            data = bytes(data)
        if len(data) < 4:
            raise MessageError(f"{cls.__name__}: {len(data)} bytes, fewer than the 4-byte encapsulation header")
        if data[0] != 0 or data[1] > 1:
            raise MessageError(f"{cls.__name__}: encapsulation 0x{data[0]:02x}{data[1]:02x} is not plain CDR "
                               "(0x0000 big-endian or 0x0001 little-endian)")
        endian = "<" if data[1] == 1 else ">"
        message, pos = cls._CODEC.decode_at(data, _ORIGIN, endian)
        if len(data) - pos > 3:
            raise MessageError(f"{cls.__name__}: {len(data) - pos} bytes left after the message (at most 3 of "
                               "padding are allowed)")
        return message


def _wire_field(name: str, kind: Any) -> tuple[str, str, Any, int]:
    if isinstance(kind, _Prim):
        return (name, "array" if kind.count else "primitive", kind.ros, kind.count)
    if isinstance(kind, _Str):
        return (name, "string", None, 0)
    if isinstance(kind, _Bytes):
        return (name, "sequence", "uint8", 0)
    if isinstance(kind, _Nested):
        return (name, "struct", kind.cls, 0)
    return (name, "sequence", kind.elem, 0)


def wire_fields(message_type: type[Message]) -> tuple[tuple[str, str, Any, int], ...]:
    """How ``message_type`` is laid out, field by field, for building DDS type descriptions:
    ``(name, kind, element, count)`` with kind "primitive" (element: the ROS type name, such as
    "float32"), "array" (element and count), "string", "sequence" (element: a ROS primitive
    name or a message class; ``char[]`` is a sequence of "uint8") or "struct" (element: the
    message class)."""
    return message_type._WIRE


def _register(ros_type: str, spec: list[tuple[str, Any]]) -> Any:
    """Class decorator: the type names and the codec from ``spec`` (field name, kind)."""

    def wrap(cls: Any) -> Any:
        names = [f.name for f in fields(cls)]
        if names != [name for name, _ in spec]:  # pragma: no cover - a programming error
            raise TypeError(f"{cls.__name__}: spec {[n for n, _ in spec]} does not match fields {names}")
        pkg, _, short = ros_type.split("/")
        cls.ROS_TYPE = ros_type
        cls.DDS_TYPE = f"{pkg}::msg::dds_::{short}_"
        cls._CODEC = _StructCodec(cls, spec)
        cls._WIRE = tuple(_wire_field(name, kind) for name, kind in spec)
        return cls

    return wrap


# --- builtin_interfaces, std_msgs, rosgraph_msgs, geometry_msgs -----------------------------------

@_register("builtin_interfaces/msg/Time", [("sec", _Prim("int32")), ("nanosec", _Prim("uint32"))])
@dataclass(slots=True)
class Time(Message):
    sec: int = 0
    nanosec: int = 0


@_register("std_msgs/msg/Header", [("stamp", _Nested(Time)), ("frame_id", _Str())])
@dataclass(slots=True)
class Header(Message):
    stamp: Time = field(default_factory=Time)
    frame_id: str = ""


@_register("rosgraph_msgs/msg/Clock", [("clock", _Nested(Time))])
@dataclass(slots=True)
class Clock(Message):
    clock: Time = field(default_factory=Time)


@_register("geometry_msgs/msg/Point", [("x", _Prim("float64")), ("y", _Prim("float64")), ("z", _Prim("float64"))])
@dataclass(slots=True)
class Point(Message):
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0


@_register("geometry_msgs/msg/Quaternion",
           [("x", _Prim("float64")), ("y", _Prim("float64")), ("z", _Prim("float64")), ("w", _Prim("float64"))])
@dataclass(slots=True)
class Quaternion(Message):
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    w: float = 1.0


@_register("geometry_msgs/msg/Pose", [("position", _Nested(Point)), ("orientation", _Nested(Quaternion))])
@dataclass(slots=True)
class Pose(Message):
    position: Point = field(default_factory=Point)
    orientation: Quaternion = field(default_factory=Quaternion)


@_register("std_msgs/msg/String", [("data", _Str())])
@dataclass(slots=True)
class String(Message):
    """std_msgs/String: the robot's whistle detector says ``whistle_detected`` on ``/whistle_detected``."""

    data: str = ""


@_register("sensor_msgs/msg/RegionOfInterest", [("x_offset", _Prim("uint32")), ("y_offset", _Prim("uint32")),
                                                 ("height", _Prim("uint32")), ("width", _Prim("uint32")),
                                                 ("do_rectify", _Prim("bool"))])
@dataclass(slots=True)
class RegionOfInterest(Message):
    x_offset: int = 0
    y_offset: int = 0
    height: int = 0
    width: int = 0
    do_rectify: bool = False


@_register("sensor_msgs/msg/CameraInfo", [
    ("header", _Nested(Header)), ("height", _Prim("uint32")), ("width", _Prim("uint32")),
    ("distortion_model", _Str()), ("d", _Seq("float64")), ("k", _Prim("float64", 9)), ("r", _Prim("float64", 9)),
    ("p", _Prim("float64", 12)), ("binning_x", _Prim("uint32")), ("binning_y", _Prim("uint32")),
    ("roi", _Nested(RegionOfInterest)),
])
@dataclass(slots=True)
class CameraInfo(Message):
    """A camera's image size and intrinsics (``k``: fx 0 cx / 0 fy cy / 0 0 1, row-major)."""

    header: Header = field(default_factory=Header)
    height: int = 0
    width: int = 0
    distortion_model: str = ""
    d: list[float] = field(default_factory=list)
    k: list[float] = field(default_factory=lambda: [0.0] * 9)
    r: list[float] = field(default_factory=lambda: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])
    p: list[float] = field(default_factory=lambda: [0.0] * 12)
    binning_x: int = 0
    binning_y: int = 0
    roi: RegionOfInterest = field(default_factory=RegionOfInterest)


# --- vision_interface ----------------------------------------------------------------------------

MAX_DETECTED_OBJECTS = 256  # a camera frame of a soccer field shows a few dozen; decoding 4096 took 32 ms


@_register("vision_interface/msg/DetectedObject", [
    ("label", _Str()), ("color", _Str()), ("confidence", _Prim("float64")),
    ("xmin", _Prim("int64")), ("ymin", _Prim("int64")), ("xmax", _Prim("int64")), ("ymax", _Prim("int64")),
    ("target_uv", _Seq("float32")), ("received_pos", _Seq("float32")), ("position", _Seq("float32")),
    ("position_projection", _Seq("float32")), ("position_cam", _Seq("float32")),
    ("position_confidence", _Prim("int32")),
])
@dataclass(slots=True)
class DetectedObject(Message):
    label: str = ""
    color: str = ""
    confidence: float = 0.0
    xmin: int = 0
    ymin: int = 0
    xmax: int = 0
    ymax: int = 0
    target_uv: list[float] = field(default_factory=list)
    received_pos: list[float] = field(default_factory=list)
    position: list[float] = field(default_factory=list)
    position_projection: list[float] = field(default_factory=list)  # robot frame x, y (m), robocup_demo needs 2
    position_cam: list[float] = field(default_factory=list)
    position_confidence: int = 0


@_register("vision_interface/msg/Detections", [
    ("header", _Nested(Header)), ("detected_objects", _Seq(DetectedObject, MAX_DETECTED_OBJECTS)),
    ("radar_x", _Seq("float32")), ("radar_y", _Seq("float32")), ("corner_pos", _Seq("float32")),
])
@dataclass(slots=True)
class Detections(Message):
    header: Header = field(default_factory=Header)
    detected_objects: list[DetectedObject] = field(default_factory=list)
    radar_x: list[float] = field(default_factory=list)
    radar_y: list[float] = field(default_factory=list)
    corner_pos: list[float] = field(default_factory=list)  # robocup_demo needs 8


@_register("vision_interface/msg/LineSegments",
           [("header", _Nested(Header)), ("coordinates", _Seq("float32")), ("coordinates_uv", _Seq("float32"))])
@dataclass(slots=True)
class LineSegments(Message):
    header: Header = field(default_factory=Header)
    coordinates: list[float] = field(default_factory=list)
    coordinates_uv: list[float] = field(default_factory=list)


# --- booster_interface (folder booster_ros2_interface) ---------------------------------------------

MAX_MOTORS = 256


@_register("booster_interface/msg/Odometer", [("x", _Prim("float32")), ("y", _Prim("float32")),
                                               ("theta", _Prim("float32"))])
@dataclass(slots=True)
class Odometer(Message):
    x: float = 0.0  # m
    y: float = 0.0  # m
    theta: float = 0.0  # rad


@_register("booster_interface/msg/ImuState",
           [("rpy", _Prim("float32", 3)), ("gyro", _Prim("float32", 3)), ("acc", _Prim("float32", 3))])
@dataclass(slots=True)
class ImuState(Message):
    rpy: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])  # roll, pitch, yaw (rad)
    gyro: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])  # rad/s
    acc: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])  # m/s^2


@_register("booster_interface/msg/MotorState", [
    ("mode", _Prim("int8")), ("q", _Prim("float32")), ("dq", _Prim("float32")), ("ddq", _Prim("float32")),
    ("tau_est", _Prim("float32")), ("temperature", _Prim("int8")), ("lost", _Prim("uint32")),
    ("reserve", _Prim("uint32", 2)),
])
@dataclass(slots=True)
class MotorState(Message):
    mode: int = 0
    q: float = 0.0  # rad
    dq: float = 0.0  # rad/s
    ddq: float = 0.0  # rad/s^2
    tau_est: float = 0.0  # N m
    temperature: int = 0  # degrees C
    lost: int = 0
    reserve: list[int] = field(default_factory=lambda: [0, 0])


@_register("booster_interface/msg/LowState", [
    ("imu_state", _Nested(ImuState)), ("motor_state_parallel", _Seq(MotorState, MAX_MOTORS)),
    ("motor_state_serial", _Seq(MotorState, MAX_MOTORS)),
])
@dataclass(slots=True)
class LowState(Message):
    imu_state: ImuState = field(default_factory=ImuState)
    motor_state_parallel: list[MotorState] = field(default_factory=list)
    motor_state_serial: list[MotorState] = field(default_factory=list)


@_register("booster_interface/msg/FallDownState",
           [("fall_down_state", _Prim("uint32")), ("is_recovery_available", _Prim("bool"))])
@dataclass(slots=True)
class FallDownState(Message):
    IS_READY: ClassVar[int] = 0
    IS_FALLING: ClassVar[int] = 1
    HAS_FALLEN: ClassVar[int] = 2
    IS_GETTING_UP: ClassVar[int] = 3
    fall_down_state: int = 0
    is_recovery_available: bool = False


_BUTTONS = ("a", "b", "x", "y", "lb", "rb", "lt", "rt", "ls", "rs", "back", "start",
            "hat_c", "hat_u", "hat_d", "hat_l", "hat_r", "hat_lu", "hat_ld", "hat_ru", "hat_rd")


@_register("booster_interface/msg/RemoteControllerState",
           [("event", _Prim("uint32"))] + [(n, _Prim("float32")) for n in ("lx", "ly", "rx", "ry")]
           + [(n, _Prim("bool")) for n in _BUTTONS] + [("hat_pos", _Prim("uint8"))])
@dataclass(slots=True)
class RemoteControllerState(Message):
    event: int = 0  # SDL_EventType
    lx: float = 0.0  # left stick, left -1 .. right 1
    ly: float = 0.0  # left stick, front -1 .. back 1
    rx: float = 0.0
    ry: float = 0.0
    a: bool = False
    b: bool = False
    x: bool = False
    y: bool = False
    lb: bool = False
    rb: bool = False
    lt: bool = False
    rt: bool = False
    ls: bool = False
    rs: bool = False
    back: bool = False
    start: bool = False
    hat_c: bool = False
    hat_u: bool = False
    hat_d: bool = False
    hat_l: bool = False
    hat_r: bool = False
    hat_lu: bool = False
    hat_ld: bool = False
    hat_ru: bool = False
    hat_rd: bool = False
    hat_pos: int = 0  # SDL hat position (the SDK's IDL calls this byte "reserved")


MAX_RAW_BYTES = 1024 * 1024


@_register("booster_interface/msg/RawBytesMsg", [("msg", _Bytes(MAX_RAW_BYTES))])
@dataclass(slots=True)
class RawBytesMsg(Message):
    msg: bytes = b""


# --- booster_msgs ----------------------------------------------------------------------------------

@_register("booster_msgs/msg/RpcReqMsg", [("uuid", _Str()), ("header", _Str()), ("body", _Str())])
@dataclass(slots=True)
class RpcReqMsg(Message):
    uuid: str = ""
    header: str = ""  # JSON: {"api_id": N, ...}
    body: str = ""  # JSON


@_register("booster_msgs/msg/RpcRespMsg", [("uuid", _Str()), ("header", _Str()), ("body", _Str())])
@dataclass(slots=True)
class RpcRespMsg(Message):
    uuid: str = ""
    header: str = ""  # JSON: {"status": N}, 0 = success
    body: str = ""


# --- robocup_demo's fall_down_recovery_state payload ------------------------------------------------

@dataclass(frozen=True, slots=True)
class RecoveryState:
    """The bytes of robocup_demo's ``fall_down_recovery_state`` (a ``RawBytesMsg``):
    ``{uint8 state; uint8 is_recovery_available; uint8 current_planner_index}``.

    ``state`` is a ``FallDownState`` value (IS_READY 0, IS_FALLING 1, HAS_FALLEN 2,
    IS_GETTING_UP 3)."""

    state: int
    is_recovery_available: bool
    current_planner_index: int = 0

    def to_bytes(self) -> bytes:
        if not 0 <= self.state <= 3:
            raise MessageError(f"RecoveryState.state {self.state} is not 0..3")
        if not 0 <= self.current_planner_index <= 255:
            raise MessageError(f"RecoveryState.current_planner_index {self.current_planner_index} is not 0..255")
        return bytes((self.state, 1 if self.is_recovery_available else 0, self.current_planner_index))

    def to_message(self) -> RawBytesMsg:
        return RawBytesMsg(msg=self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes) -> RecoveryState:
        """From the payload: at least 2 bytes (a missing planner index reads 0; bytes after the
        third are ignored); ``state`` must be 0..3 and the flag 0 or 1."""
        raw = bytes(data)
        if len(raw) < 2:
            raise MessageError(f"fall_down_recovery_state: {len(raw)} bytes, at least 2 are needed")
        if raw[0] > 3:
            raise MessageError(f"fall_down_recovery_state: state {raw[0]} is not 0..3")
        if raw[1] > 1:
            raise MessageError(f"fall_down_recovery_state: is_recovery_available holds {raw[1]}")
        return cls(raw[0], bool(raw[1]), raw[2] if len(raw) > 2 else 0)

    @classmethod
    def from_message(cls, message: RawBytesMsg) -> RecoveryState:
        return cls.from_bytes(message.msg)


MESSAGE_TYPES: tuple[type[Message], ...] = (
    Time, Header, Clock, Point, Quaternion, Pose, DetectedObject, Detections, LineSegments, Odometer,
    ImuState, MotorState, LowState, FallDownState, RemoteControllerState, RawBytesMsg, RpcReqMsg, RpcRespMsg,
    RegionOfInterest, CameraInfo, String,
)
"""Every message class of this module."""
