"""BT.CPP 4.10's Groot2 monitor protocol (protocol 2): request types, headers, hooks, buffers.

Every exchange is a ZeroMQ multipart request and reply. The first part of a request is its
6-byte header: protocol id (1 byte, 2), request type (1 byte, an ASCII letter), a unique id
(uint32, little-endian: BT.CPP copies the integer's bytes on a little-endian machine). The reply
starts with the same 6 bytes (protocol forced to 2) followed by the tree's 16-byte UUID; a
refused request gets two parts instead, ``b"error"`` and the reason.

The bodies, as 4.10's Groot2Publisher writes them:
- FULLTREE: the tree's XML (WriteTreeToXML with uids and every model);
- STATUS: 3 bytes per node (uid uint16 LE, status byte) in the tree's order; a node that went
  back to IDLE shows 10 + the status it left (11 RUNNING, 12 SUCCESS, 13 FAILURE);
- BLACKBOARD: MessagePack of {blackboard name: {key: value}} (soccerbt.groot.codec);
- HOOKS_DUMP: a JSON array of hooks (`Hook.to_json`);
- TOGGLE_RECORDING "start": the wall-clock time in microseconds as decimal text;
- GET_TRANSITIONS: 9 bytes per transition: microseconds since recording started (the low 6
  bytes, LE), uid (uint16 LE), new status (byte).
The other requests are answered with the header alone. A breakpoint reached is announced on
the PUB socket as a request header of type BREAKPOINT_REACHED (random id) and the node's uid as
decimal text.

Nothing here opens a socket (that is soccerbt.groot.publisher); the test client does not use
this module, it speaks the protocol from its own encoder.
"""
from __future__ import annotations

import json
import random
import struct
import threading
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

__all__ = [
    "PROTOCOL_ID", "REQUEST_HEADER_SIZE", "REPLY_HEADER_SIZE", "RequestType", "RequestHeader",
    "encode_request_header", "decode_request_header", "encode_reply_header", "decode_reply_header",
    "error_reply", "Position", "Mode", "Hook", "ProtocolError", "status_from_string",
    "STATUS_CODES", "IDLE_FROM_OFFSET", "encode_transitions", "dump_json", "parse_json",
    "breakpoint_notification", "json_kind",
]

PROTOCOL_ID = 2
REQUEST_HEADER_SIZE = 6
REPLY_HEADER_SIZE = 22
IDLE_FROM_OFFSET = 10  # a node back to IDLE shows 10 + the status it left
STATUS_CODES = {"IDLE": 0, "RUNNING": 1, "SUCCESS": 2, "FAILURE": 3, "SKIPPED": 4}
_STATUS_NAMES = {code: name for name, code in STATUS_CODES.items()}

_HEADER = struct.Struct("<BBI")


class RequestType(IntEnum):
    """The request types of 4.10 (groot2_protocol.h), with their byte values."""

    FULLTREE = ord("T")
    STATUS = ord("S")
    BLACKBOARD = ord("B")
    HOOK_INSERT = ord("I")
    HOOK_REMOVE = ord("R")
    BREAKPOINT_REACHED = ord("N")
    BREAKPOINT_UNLOCK = ord("U")
    HOOKS_DUMP = ord("D")
    REMOVE_ALL_HOOKS = ord("A")
    DISABLE_ALL_HOOKS = ord("X")
    TOGGLE_RECORDING = ord("r")
    GET_TRANSITIONS = ord("t")
    UNDEFINED = 0


class ProtocolError(ValueError):
    """A request the publisher refuses; its text is the error reply's second part."""


@dataclass(frozen=True)
class RequestHeader:
    """A decoded request header (the type as its byte: an unknown one stays a number)."""

    protocol: int
    type: int
    unique_id: int


def encode_request_header(request_type: int, unique_id: int | None = None, protocol: int = PROTOCOL_ID) -> bytes:
    """The 6-byte header; a random unique id when none is given (as BT.CPP makes one)."""
    if unique_id is None:
        unique_id = random.getrandbits(32)
    return _HEADER.pack(protocol & 0xFF, int(request_type) & 0xFF, unique_id & 0xFFFFFFFF)


def decode_request_header(data: bytes) -> RequestHeader:
    """The header of a request (`data` must be exactly 6 bytes)."""
    if len(data) != REQUEST_HEADER_SIZE:
        raise ProtocolError("wrong request header")
    protocol, kind, unique_id = _HEADER.unpack(data)
    return RequestHeader(protocol, kind, unique_id)


def encode_reply_header(request: RequestHeader, tree_id: bytes) -> bytes:
    """The 22-byte reply header: the request's type and id, protocol 2, the tree's UUID."""
    return encode_request_header(request.type, request.unique_id) + bytes(tree_id[:16]).ljust(16, b"\0")


def decode_reply_header(data: bytes) -> tuple[RequestHeader, bytes]:
    """(request header, tree UUID) of a reply's first part."""
    if len(data) != REPLY_HEADER_SIZE:
        raise ProtocolError("wrong reply header")
    return decode_request_header(data[:REQUEST_HEADER_SIZE]), bytes(data[REQUEST_HEADER_SIZE:])


def error_reply(message: str) -> list[bytes]:
    """The two parts of a refusal."""
    return [b"error", message.encode("utf-8")]


def breakpoint_notification(node_uid: int) -> list[bytes]:
    """What the PUB socket sends when a hook is reached: a BREAKPOINT_REACHED header, the uid."""
    return [encode_request_header(RequestType.BREAKPOINT_REACHED), str(node_uid).encode("ascii")]


def status_from_string(text: str) -> str:
    """BT.CPP's convertFromString<NodeStatus>: the name itself, or the error it throws."""
    if text in STATUS_CODES:
        return text
    raise ProtocolError(f"Cannot convert this to NodeStatus: {text}")


class Position(IntEnum):
    PRE = 0
    POST = 1


class Mode(IntEnum):
    BREAKPOINT = 0
    REPLACE = 1


@dataclass(eq=False)
class Hook:
    """One hook (Monitor::Hook): where (`position`), on which node, what it does (`mode`), what
    it returns (`desired_status`, a status name), whether it goes after one use (`once`).

    `position` and `mode` keep the integer Groot2 sent (4.10 casts it unchecked): position 0 is
    PRE and anything else POST; mode 0 is BREAKPOINT (the tick waits) and anything else does
    not wait. `ready` and `condition` are the breakpoint's wake-up."""

    node_uid: int = 0
    position: int = 0
    mode: int = 0
    enabled: bool = True
    remove_when_done: bool = False
    desired_status: str = "SKIPPED"
    ready: bool = False
    condition: threading.Condition = field(default_factory=threading.Condition, repr=False)

    @property
    def is_pre(self) -> bool:
        return self.position == Position.PRE

    @property
    def is_breakpoint(self) -> bool:
        return self.mode == Mode.BREAKPOINT

    def to_json(self) -> dict[str, Any]:
        """The hook as 4.10's to_json writes it."""
        return {"enabled": self.enabled, "uid": self.node_uid, "mode": self.mode,
                "once": self.remove_when_done, "desired_status": self.desired_status,
                "position": self.position}

    def update_from_json(self, data: Any) -> None:
        """4.10's from_json: the fields in its order; a missing or ill-typed one raises
        ProtocolError after the ones before it were set (as nlohmann's get_to leaves them)."""
        self.enabled = _json_bool(_at(data, "enabled"))
        self.node_uid = _json_number(_at(data, "uid")) & 0xFFFF
        self.remove_when_done = _json_bool(_at(data, "once"))
        self.mode = _json_int(_at(data, "mode"))
        self.position = _json_int(_at(data, "position"))
        desired = _at(data, "desired_status")
        if not isinstance(desired, str):
            raise ProtocolError(f"[json.exception.type_error.302] type must be string, but is {json_kind(desired)}")
        self.desired_status = status_from_string(desired)

    @classmethod
    def from_json(cls, data: Any) -> Hook:
        hook = cls()
        hook.update_from_json(data)
        return hook


def json_kind(value: Any) -> str:
    """nlohmann::json's type_name() of a decoded JSON value (what its type errors name)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _at(data: Any, key: str) -> Any:
    if not isinstance(data, dict):
        raise ProtocolError(f"[json.exception.type_error.304] cannot use at() with {json_kind(data)}")
    if key not in data:
        raise ProtocolError(f"[json.exception.out_of_range.403] key '{key}' not found")
    return data[key]


def _json_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ProtocolError(f"[json.exception.type_error.302] type must be boolean, but is {json_kind(value)}")
    return value


def _json_number(value: Any) -> int:
    """nlohmann's get<integer>: any number (a float truncated) or a boolean."""
    if isinstance(value, bool | int):
        return int(value)
    if isinstance(value, float):
        return int(value) if value == value and abs(value) != float("inf") else 0
    raise ProtocolError(f"[json.exception.type_error.302] type must be number, but is {json_kind(value)}")


def _json_int(value: Any) -> int:
    number = _json_number(value) & 0xFFFFFFFF
    return number - (1 << 32) if number >= 1 << 31 else number


def encode_transitions(transitions: Any) -> bytes:
    """GET_TRANSITIONS' body from (microseconds since start, uid, status code) triples."""
    out = bytearray()
    for time_us, uid, code in transitions:
        out += (int(time_us) & 0xFFFFFFFFFFFF).to_bytes(6, "little")
        out += (uid & 0xFFFF).to_bytes(2, "little")
        out.append(code & 0xFF)
    return bytes(out)


def dump_json(value: Any) -> str:
    """nlohmann's dump(): keys sorted, no spaces, UTF-8 kept, control characters as \\u00xx."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def parse_json(data: bytes) -> Any:
    """A request's JSON part; ProtocolError (nlohmann's parse error) when it is not JSON."""
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"[json.exception.parse_error.101] parse error: {exc}") from None


def status_name(code: int) -> str:
    """The name of a BT.CPP status code ("IDLE" ... "SKIPPED")."""
    return _STATUS_NAMES[code]
