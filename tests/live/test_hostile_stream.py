"""--connect against a hostile stream (issue 39, findings 3, 6, 7): a WebSocket server on loopback
that trickles its handshake, advertises too many channels, floods one second with megabytes or
sends endless tree loads. Each ends in a said reason, with the client's buffer bounded."""
from __future__ import annotations

import base64
import hashlib
import json
import socket
import struct
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from soccerbt.live.client import LiveLog
from soccerbt.live.ws_client import MAX_CHANNELS, ConnectionClosed, FoxgloveClient
from soccerbt.log import format as lf
from soccerbt.log.format import ReplayError
from soccerbt.log.reader import McapLog

LOG = Path(__file__).resolve().parents[1] / "data" / "logs" / "mcap_v2_full_2v2.mcap"
_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _frame(opcode: int, payload: bytes) -> bytes:
    n = len(payload)
    head = bytes((0x80 | opcode,))
    if n < 126:
        head += bytes((n,))
    elif n < 1 << 16:
        head += bytes((126,)) + struct.pack(">H", n)
    else:
        head += bytes((127,)) + struct.pack(">Q", n)
    return head + payload


class HostileServer:
    """One connection on loopback; ``script(conn)`` plays the server's part after the handshake
    (or instead of it, with ``handshake=False``)."""

    def __init__(self, script: Callable[[socket.socket], None], handshake: bool = True) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.received = b""
        self._thread = threading.Thread(target=self._serve, args=(script, handshake), daemon=True)
        self._thread.start()

    def _serve(self, script: Callable[[socket.socket], None], handshake: bool) -> None:
        conn, _ = self.sock.accept()
        conn.settimeout(20)
        try:
            request = b""
            while b"\r\n\r\n" not in request:
                request += conn.recv(4096)
            if handshake:
                key = next(line.split(":", 1)[1].strip() for line in request.decode().split("\r\n")
                           if line.lower().startswith("sec-websocket-key"))
                accept = base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest()).decode()
                conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              f"Sec-WebSocket-Accept: {accept}\r\nSec-WebSocket-Protocol: foxglove.sdk.v1\r\n\r\n")
                             .encode())
            script(conn)
        except OSError:
            pass
        finally:
            conn.close()
            self.sock.close()

    def join(self) -> None:
        self._thread.join(30)


def _advertise(channels: list[tuple[int, str]]) -> bytes:
    body = {"op": "advertise", "channels": [{"id": cid, "topic": topic, "encoding": "json", "schemaName": "x",
                                             "schema": ""} for cid, topic in channels]}
    return _frame(0x1, json.dumps(body).encode())


def _message(sid: int, log_ns: int, data: bytes) -> bytes:
    return _frame(0x2, b"\x01" + struct.pack("<IQ", sid, log_ns) + data)


def test_a_handshake_trickled_a_byte_at_a_time_is_given_up_saying_why() -> None:
    stop = threading.Event()

    def trickle(conn: socket.socket) -> None:
        for byte in b"HTTP/1.1 101 Switching Protocols\r\n" * 4:
            if stop.wait(0.2):
                return
            conn.sendall(bytes((byte,)))

    server = HostileServer(trickle, handshake=False)
    with pytest.raises(ConnectionClosed, match=r"no WebSocket handshake within 1 s"):
        FoxgloveClient("127.0.0.1", server.port, timeout_s=1.0)
    stop.set()
    server.join()


def test_too_many_channels_close_the_connection_and_subscribing_stays_linear() -> None:
    n = MAX_CHANNELS  # every one subscribed, in one message: a set, not a scan per channel

    def advertise_many(conn: socket.socket) -> None:
        conn.sendall(_advertise([(cid, f"/t{cid}") for cid in range(1, n + 1)]))
        conn.sendall(_advertise([(n + 1, "/one_too_many")]))
        try:
            conn.recv(1 << 20)
        except OSError:
            pass

    server = HostileServer(advertise_many)
    client = FoxgloveClient("127.0.0.1", server.port, timeout_s=5.0)
    events = client.events(auto_subscribe=True)
    kind, channels = next(events)
    assert kind == "advertise" and len(channels) == n and len(client._subscribed) == n
    with pytest.raises(ConnectionClosed, match=f"advertised more than {MAX_CHANNELS} channels"):
        next(events)
    server.join()


def _header_bytes() -> bytes:
    if not LOG.is_file():
        pytest.skip(f"{LOG} missing")
    return lf.json_bytes(McapLog.open(LOG).header)


def test_a_flood_within_one_second_is_closed_with_the_buffer_bounded() -> None:
    header = _header_bytes()
    megabyte = b"x" * (1 << 20)

    def flood(conn: socket.socket) -> None:
        conn.sendall(_advertise([(1, lf.HEADER_TOPIC), (2, lf.EVENTS_TOPIC.replace("events", "junk"))]))
        conn.recv(4096)  # the subscribe
        conn.sendall(_message(1, 0, header))
        for _ in range(1500):  # 1.5 GB stamped with one log time, if the client kept them all
            conn.sendall(_message(2, 10_000_000, megabyte))

    server = HostileServer(flood)
    cap = 64 << 20
    with pytest.raises(ReplayError) as caught:
        LiveLog.connect("127.0.0.1", server.port, wait_s=20.0, max_buffer_bytes=cap)
    assert "the stream sent more than 67 MB for one second of its steps (the client's buffer): closed" \
        in str(caught.value)
    server.join()


def test_endless_tree_loads_are_refused() -> None:
    from soccerbt.live.client import MAX_TREE_LOADS

    header = _header_bytes()
    robot = json.loads(header)["robots"][0]
    node = {"uid": 1, "parent": 0, "name": "root", "id": "Sequence", "kind": "Control", "path": "root"}

    def loads(conn: socket.socket) -> None:
        conn.sendall(_advertise([(1, lf.HEADER_TOPIC), (2, lf.tree_topic(robot))]))
        conn.recv(4096)
        conn.sendall(_message(1, 0, header))
        for load in range(1, MAX_TREE_LOADS + 2):
            tree = {"load": load, "step": 1, "t": 0.01, "nodes": [node]}
            conn.sendall(_message(2, 10_000_000, json.dumps(tree).encode()))

    server = HostileServer(loads)
    with pytest.raises(ReplayError, match=f"more than {MAX_TREE_LOADS} tree loads: closed"):
        LiveLog.connect("127.0.0.1", server.port, wait_s=20.0)
    server.join()


def test_the_oldest_seconds_go_first_when_the_bytes_run_out() -> None:
    log = LiveLog("127.0.0.1", 1, buffer_s=300.0, max_buffer_bytes=10_000)
    log._header(_header_bytes())
    for second in range(20):  # 20 seconds of 3,000 bytes: at most three fit (the open one counted)
        log._message("/junk", second * 100 + 1, b"j" * 3000)
    log._seal()
    kept = [i for i, chunk in enumerate(log._stored) if chunk]
    assert log._kept_bytes + log._open_bytes <= 10_000
    # the oldest second kept ends in the keyframe that opens the log: the steps after it are readable
    assert kept == [17, 18, 19] and log.first_step == log.chunks[17].end_step + 1 == 1801
