"""A Groot2 client written from the protocol's specification (BT.CPP 4.10's groot2_protocol.h),
for the tests: it shares no code with soccerbt.groot (its own header encoder, its own
MessagePack reader), so a mistake in soccerbt's codec cannot hide in both.

Request: multipart; part 1 is 6 bytes: protocol (uint8, 2), type (uint8, an ASCII letter),
unique id (uint32 little-endian). Reply: part 1 is 22 bytes: the same 6 bytes then the tree's
16-byte UUID; a refusal is the two parts b"error" and the reason. The PUB socket (port + 1)
sends a BREAKPOINT_REACHED header ('N') and the node's uid as text.
"""
from __future__ import annotations

import json
import random
import struct
import time
from dataclasses import dataclass
from typing import Any

import zmq
from zmq.utils.monitor import recv_monitor_message

FULLTREE, STATUS, BLACKBOARD = b"T", b"S", b"B"
HOOK_INSERT, HOOK_REMOVE, BREAKPOINT_REACHED, BREAKPOINT_UNLOCK = b"I", b"R", b"N", b"U"
HOOKS_DUMP, REMOVE_ALL_HOOKS, DISABLE_ALL_HOOKS = b"D", b"A", b"X"
TOGGLE_RECORDING, GET_TRANSITIONS = b"r", b"t"
ALL_TYPES = (FULLTREE, STATUS, BLACKBOARD, HOOK_INSERT, HOOK_REMOVE, BREAKPOINT_UNLOCK, HOOKS_DUMP,
             REMOVE_ALL_HOOKS, DISABLE_ALL_HOOKS, TOGGLE_RECORDING, GET_TRANSITIONS)
WAIT_MS = 20000  # a safeguard against a hung test, not a time limit on the answer


class Refused(Exception):
    """The publisher answered b"error" and this reason."""


@dataclass
class Reply:
    protocol: int
    type: bytes
    unique_id: int
    tree_uuid: bytes
    parts: list[bytes]


def header(kind: bytes, unique_id: int) -> bytes:
    return bytes([2, kind[0]]) + struct.pack("<I", unique_id)


class Client:
    """A REQ socket to the publisher and a SUB socket to its notifications."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        self.context = zmq.Context()
        self.req = self.context.socket(zmq.REQ)
        self.req.setsockopt(zmq.LINGER, 0)
        self.req.setsockopt(zmq.RCVTIMEO, WAIT_MS)
        self.req.connect(f"tcp://{host}:{port}")
        self.sub = self.context.socket(zmq.SUB)
        self.sub.setsockopt(zmq.LINGER, 0)
        self.sub.setsockopt(zmq.RCVTIMEO, WAIT_MS)
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        # PUB/SUB's slow joiner: a notification sent before the subscription has reached the
        # publisher is dropped, so wait for the connection's handshake (the subscription goes with
        # it) and a moment for the publisher's I/O thread to take it in
        monitor = self.sub.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        monitor.setsockopt(zmq.RCVTIMEO, WAIT_MS)
        self.sub.connect(f"tcp://{host}:{port + 1}")
        recv_monitor_message(monitor)
        self.sub.disable_monitor()
        monitor.close()
        time.sleep(0.05)

    def raw(self, parts: list[bytes]) -> list[bytes]:
        self.req.send_multipart(parts)
        return self.req.recv_multipart()

    def request(self, kind: bytes, body: bytes | str | None = None) -> Reply:
        unique_id = random.getrandbits(32)
        parts = [header(kind, unique_id)]
        if body is not None:
            parts.append(body.encode() if isinstance(body, str) else body)
        reply = self.raw(parts)
        if reply[0] == b"error":
            raise Refused(reply[1].decode())
        first = reply[0]
        assert len(first) == 22, first
        protocol, kind_byte = first[0], first[1:2]
        (echo,) = struct.unpack("<I", first[2:6])
        assert kind_byte == kind and echo == unique_id
        return Reply(protocol, kind_byte, echo, first[6:], reply[1:])

    def json_request(self, kind: bytes, value: Any) -> Reply:
        return self.request(kind, json.dumps(value))

    def statuses(self) -> dict[int, int]:
        """uid -> status byte (0-4, or 10 + the status left for a node back to IDLE)."""
        body = self.request(STATUS).parts[0]
        assert len(body) % 3 == 0
        return {struct.unpack("<H", body[i:i + 2])[0]: body[i + 2] for i in range(0, len(body), 3)}

    def blackboards(self, names: str) -> Any:
        return unpack(self.request(BLACKBOARD, names).parts[0])

    def hooks(self) -> list[dict[str, Any]]:
        return json.loads(self.request(HOOKS_DUMP).parts[0])

    def notification(self) -> tuple[bytes, int]:
        """The next BREAKPOINT_REACHED: (its header, the node's uid)."""
        first, uid = self.sub.recv_multipart()
        assert len(first) == 6 and first[0] == 2 and first[1:2] == BREAKPOINT_REACHED
        return first, int(uid)

    def close(self) -> None:
        self.req.close()
        self.sub.close()
        self.context.term()


def hook(uid: int, *, mode: int = 0, position: int = 0, desired: str = "SKIPPED", once: bool = False,
         enabled: bool = True) -> dict[str, Any]:
    """A hook as Groot2 sends it (mode 0 BREAKPOINT, 1 REPLACE; position 0 PRE, 1 POST)."""
    return {"enabled": enabled, "uid": uid, "mode": mode, "once": once, "desired_status": desired,
            "position": position}


def unpack(data: bytes) -> Any:
    """MessagePack (the subset nlohmann writes) to Python values."""
    value, end = _read(data, 0)
    assert end == len(data)
    return value


def _read(b: bytes, i: int) -> tuple[Any, int]:
    t = b[i]
    i += 1
    if t <= 0x7F:
        return t, i
    if t >= 0xE0:
        return t - 0x100, i
    if 0x80 <= t <= 0x8F:
        return _map(b, i, t & 0x0F)
    if 0x90 <= t <= 0x9F:
        return _array(b, i, t & 0x0F)
    if 0xA0 <= t <= 0xBF:
        n = t & 0x1F
        return b[i:i + n].decode(), i + n
    if t == 0xC0:
        return None, i
    if t in (0xC2, 0xC3):
        return t == 0xC3, i
    fixed = {0xCA: ">f", 0xCB: ">d", 0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
             0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q"}
    if t in fixed:
        size = struct.calcsize(fixed[t])
        return struct.unpack(fixed[t], b[i:i + size])[0], i + size
    lengths = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I", 0xDC: ">H", 0xDD: ">I", 0xDE: ">H", 0xDF: ">I"}
    size = struct.calcsize(lengths[t])
    (n,) = struct.unpack(lengths[t], b[i:i + size])
    i += size
    if t in (0xD9, 0xDA, 0xDB):
        return b[i:i + n].decode(), i + n
    if t in (0xDC, 0xDD):
        return _array(b, i, n)
    return _map(b, i, n)


def _array(b: bytes, i: int, n: int) -> tuple[list[Any], int]:
    out = []
    for _ in range(n):
        value, i = _read(b, i)
        out.append(value)
    return out, i


def _map(b: bytes, i: int, n: int) -> tuple[dict[Any, Any], int]:
    out = {}
    for _ in range(n):
        key, i = _read(b, i)
        out[key], i = _read(b, i)
    return out, i
