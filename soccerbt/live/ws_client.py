"""A small client of the Foxglove WebSocket protocol, for ``--connect`` and the tests.

The protocol is ``foxglove.websocket.v1``, renamed ``foxglove.sdk.v1`` by the foxglove-sdk
servers (the same messages; the SDK accepts only the new name): the client offers both.

Enough of RFC 6455 for one server: the opening handshake (checked: status 101, the accept key,
the subprotocol), frames read with bounded sizes (a message larger than ``max_message_bytes``
closes the connection: a live stream is untrusted input like a log), pings answered, client
frames masked. On top, the Foxglove protocol's client side: ``advertise`` and ``unadvertise``
(the server's channels), ``subscribe``, and the binary ``messageData`` (opcode 1: subscription
id, log time in nanoseconds, the message).

``FoxgloveClient(host, port).events()`` yields ``("advertise", [channel, ...])`` and
``("message", topic, log_time_ns, data)``; ``subscribe_all`` subscribes to every channel
advertised (``events`` does it as they come when ``auto_subscribe``).

How a stream stops is told apart: a server that says goodbye (a WebSocket close frame, with its
reason) raises ``StreamEnded``; a connection that closes without one (the source was killed)
raises ``ConnectionClosed``; after ``keep_alive(ping_after_s, lost_after_s)`` a server silent for
``ping_after_s`` is pinged (a live server answers at once, even while its match is paused) and
one silent for ``lost_after_s`` is given up (``ConnectionClosed``: the source froze, the network
went away).

Limits for an untrusted server: the connection and the whole opening handshake within
``timeout_s`` (a server that sends a byte at a time is given up on), at most ``MAX_CHANNELS``
channels (more closes the connection), subscriptions kept in a set (linear in what is advertised).
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import socket
import struct
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["FoxgloveClient", "ConnectionClosed", "StreamEnded", "SUBPROTOCOLS"]

SUBPROTOCOLS = ("foxglove.sdk.v1", "foxglove.websocket.v1")
_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_MESSAGE_BYTES = 64 << 20
MAX_HANDSHAKE_BYTES = 16 << 10
MAX_RETRIES = 20
MAX_CHANNELS = 4096  # a soccerbt stream advertises about ten a robot: a server that offers more is refused
RETRY_AFTER_S = 0.1
_UNKNOWN = re.compile(r"[Uu]nknown channel(?: ID)?:? (\d+)")


class ConnectionClosed(ConnectionError):
    """The server closed the stream, or sent what this client does not accept."""


class StreamEnded(ConnectionClosed):
    """The server said goodbye (a WebSocket close frame): the stream ended, it was not lost.
    The message is the server's reason (or says that it gave none)."""


class FoxgloveClient:
    """One connection to a Foxglove WebSocket server (see the module docstring)."""

    def __init__(self, host: str, port: int, *, timeout_s: float | None = 5.0,
                 max_message_bytes: int = MAX_MESSAGE_BYTES, recv_buffer_bytes: int | None = None) -> None:
        self.host, self.port = host, port
        self.max_message_bytes = max_message_bytes
        self.sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        if recv_buffer_bytes is not None:  # a small window: a client that stops reading stalls soon
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, recv_buffer_bytes)
        self.timeout_s = timeout_s
        self._deadline = None if timeout_s is None else time.monotonic() + timeout_s  # connect and handshake
        self.sock.settimeout(timeout_s)
        self.sock.connect((host, port))
        self._buf = bytearray()
        self.channels: dict[int, dict[str, Any]] = {}
        self._subscriptions: dict[int, int] = {}   # subscription id -> channel id
        self._subscribed: dict[int, int] = {}      # channel id -> its subscription id
        self._next_sub = 1
        self._retries: dict[int, int] = {}
        self._due: dict[int, float] = {}       # channel id -> when to subscribe again
        self._send_lock = threading.Lock()     # a ping (the reader's thread) and a close never interleave
        self.heard_s = time.monotonic()        # when the server last sent a byte
        self.ping_after_s: float | None = None  # keep_alive: off until asked
        self.lost_after_s: float | None = None
        self._handshake()

    # --- RFC 6455 ---------------------------------------------------------------------------

    def _handshake(self) -> None:
        key = base64.b64encode(os.urandom(16)).decode()
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.sock.sendall((f"GET / HTTP/1.1\r\nHost: {host}:{self.port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                           f"Sec-WebSocket-Protocol: {', '.join(SUBPROTOCOLS)}\r\n\r\n").encode())
        while b"\r\n\r\n" not in self._buf:
            if len(self._buf) > MAX_HANDSHAKE_BYTES:
                raise ConnectionClosed("the server's handshake is too long")
            if self._deadline is not None:  # the whole handshake, not each read, within timeout_s
                left = self._deadline - time.monotonic()
                if left <= 0:
                    raise ConnectionClosed(f"no WebSocket handshake within {self.timeout_s:g} s")
                self.sock.settimeout(left)
            try:
                self._fill()
            except TimeoutError:
                raise ConnectionClosed(f"no WebSocket handshake within {self.timeout_s:g} s") from None
        self.sock.settimeout(self.timeout_s)
        head, _, rest = bytes(self._buf).partition(b"\r\n\r\n")
        self._buf = bytearray(rest)
        lines = head.decode("latin-1").split("\r\n")
        if len(lines[0].split()) < 2 or lines[0].split()[1] != "101":
            raise ConnectionClosed(f"not a WebSocket server (it answered {lines[0][:80]!r})")
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        accept = base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest()).decode()
        if fields.get("sec-websocket-accept") != accept:
            raise ConnectionClosed("the server's handshake does not accept our key")
        if fields.get("sec-websocket-protocol") not in SUBPROTOCOLS:
            raise ConnectionClosed(f"the server speaks neither {' nor '.join(SUBPROTOCOLS)}")

    def keep_alive(self, ping_after_s: float, lost_after_s: float) -> None:
        """From now on (after the handshake) reads ping a server silent for ``ping_after_s`` and
        give it up after ``lost_after_s`` of silence (ConnectionClosed, saying so)."""
        self.ping_after_s, self.lost_after_s = ping_after_s, lost_after_s
        self.heard_s = time.monotonic()
        self.sock.settimeout(max(0.01, min(ping_after_s, lost_after_s) / 2.0))

    def _fill(self) -> None:
        while True:
            try:
                data = self.sock.recv(1 << 16)
            except TimeoutError:
                if self.lost_after_s is None or self.ping_after_s is None:
                    raise
                silent_s = time.monotonic() - self.heard_s
                if silent_s >= self.lost_after_s:
                    raise ConnectionClosed(f"nothing heard from the source for {silent_s:.1f} s (it froze, or the "
                                           "network went away)") from None
                if silent_s >= self.ping_after_s:
                    self._send(0x9, b"soccerbt")  # a live server answers at once, even with nothing to stream
                continue
            break
        if not data:
            raise ConnectionClosed("the connection closed without a goodbye (the source was killed or crashed)")
        self.heard_s = time.monotonic()
        self._buf += data

    def _take(self, n: int) -> bytes:
        while len(self._buf) < n:
            self._fill()
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def _frame(self) -> tuple[bool, int, bytes]:
        b0, b1 = self._take(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("<H", self._take(2)[::-1])[0]
        elif n == 127:
            n = struct.unpack(">Q", self._take(8))[0]
        if n > self.max_message_bytes:
            self.close()
            raise ConnectionClosed(f"a frame of {n:,} bytes, more than {self.max_message_bytes:,}")
        mask = self._take(4) if b1 & 0x80 else None
        payload = self._take(n)
        if mask is not None:
            payload = bytes(c ^ mask[i % 4] for i, c in enumerate(payload))
        return bool(b0 & 0x80), b0 & 0x0F, payload

    def _send(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        n = len(payload)
        head = bytes((0x80 | opcode,))
        if n < 126:
            head += bytes((0x80 | n,))
        elif n < 1 << 16:
            head += bytes((0x80 | 126,)) + struct.pack(">H", n)
        else:
            head += bytes((0x80 | 127,)) + struct.pack(">Q", n)
        masked = bytes(c ^ mask[i % 4] for i, c in enumerate(payload))
        with self._send_lock:
            self.sock.sendall(head + mask + masked)

    def read_message(self) -> tuple[int, bytes]:
        """The next whole text (1) or binary (2) message; pings are answered on the way."""
        parts: list[bytes] = []
        size = 0
        kind = None
        while True:
            fin, opcode, payload = self._frame()
            if opcode == 0x8:  # the server's goodbye: a status code, then its reason
                reason = payload[2:].decode("utf-8", "replace").strip()[:200]
                raise StreamEnded(reason or "the source closed the stream")
            if opcode == 0x9:
                self._send(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            if opcode in (0x1, 0x2):
                kind = opcode
                parts = [payload]
                size = len(payload)
            elif opcode == 0x0 and kind is not None:
                parts.append(payload)
                size += len(payload)
            else:
                raise ConnectionClosed(f"an unexpected frame (opcode {opcode})")
            if size > self.max_message_bytes:
                self.close()
                raise ConnectionClosed(f"a message of more than {self.max_message_bytes:,} bytes")
            if fin:
                return kind, b"".join(parts)

    # --- the Foxglove protocol -----------------------------------------------------------------

    def subscribe(self, channel_ids: list[int]) -> None:
        subs = []
        for cid in channel_ids:
            if cid in self._subscribed:
                continue
            sid = self._next_sub
            self._next_sub += 1
            self._subscriptions[sid] = cid
            self._subscribed[cid] = sid
            subs.append({"id": sid, "channelId": cid})
        if subs:
            self._send(0x1, json.dumps({"op": "subscribe", "subscriptions": subs}).encode())

    def _retry(self, status: str) -> None:
        """A subscription the server did not know (foxglove-sdk can answer so to a channel it has
        just advertised): subscribed again RETRY_AFTER_S later, a few times at most."""
        found = _UNKNOWN.search(status)
        if found is None:
            return
        cid = int(found.group(1))
        tries = self._retries.get(cid, 0)
        if cid not in self.channels or tries >= MAX_RETRIES:
            return
        self._retries[cid] = tries + 1
        sid = self._subscribed.pop(cid, None)
        if sid is not None:
            del self._subscriptions[sid]
        self._due[cid] = time.monotonic() + RETRY_AFTER_S

    def _retry_due(self) -> None:
        if not self._due:
            return
        now = time.monotonic()
        ready = [cid for cid, at in self._due.items() if at <= now]
        for cid in ready:
            del self._due[cid]
        if ready:
            self.subscribe([cid for cid in ready if cid in self.channels])

    def subscribe_all(self) -> None:
        self.subscribe(sorted(self.channels))

    def events(self, auto_subscribe: bool = True) -> Iterator[tuple[Any, ...]]:
        """("advertise", channels) and ("message", topic, log_time_ns, data) as they come."""
        while True:
            kind, data = self.read_message()
            self._retry_due()
            if kind == 0x1:
                try:
                    msg = json.loads(data)
                except ValueError:
                    continue
                if not isinstance(msg, dict):
                    continue
                if msg.get("op") == "advertise" and isinstance(msg.get("channels"), list):
                    new = [c for c in msg["channels"] if isinstance(c, dict) and isinstance(c.get("id"), int)
                           and isinstance(c.get("topic"), str)]
                    for c in new:
                        self.channels[c["id"]] = c
                    if len(self.channels) > MAX_CHANNELS:
                        self.close()
                        raise ConnectionClosed(f"the server advertised more than {MAX_CHANNELS} channels")
                    if auto_subscribe:
                        self.subscribe([c["id"] for c in new])
                    yield ("advertise", new)
                elif msg.get("op") == "status" and isinstance(msg.get("message"), str):
                    self._retry(msg["message"])
                elif msg.get("op") == "unadvertise" and isinstance(msg.get("channelIds"), list):
                    for cid in msg["channelIds"]:
                        if isinstance(cid, int):
                            self.channels.pop(cid, None)
            elif len(data) >= 13 and data[0] == 0x01:
                sid, log_ns = struct.unpack_from("<IQ", data, 1)
                cid = self._subscriptions.get(sid)
                channel = self.channels.get(cid) if cid is not None else None
                if channel is not None:
                    yield ("message", channel["topic"], log_ns, data[13:])

    def close(self) -> None:
        try:
            self._send(0x8, struct.pack(">H", 1000))
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass
