"""The door of a live stream: at most ``max_clients`` connections, and a bounded queue per client.

foxglove-sdk 0.30's WebSocket server takes every connection it is offered and counts a client's
backlog in messages, so a crowd of clients that subscribe to everything and stop reading grows
the server without bound (150 such clients took a brain from 119 to 668 MB). ``ConnectionGate``
stands in front of it: it listens on the stream's address, relays each accepted connection to the
SDK's server on a loopback port of its own, and

- refuses a connection beyond ``max_clients`` (closed at once; counted, said once);
- keeps at most ``max_queue_bytes`` of the server's bytes for a client that does not read: it then
  stops reading the server for that client, so the SDK's own bounded backlog drops that client's
  oldest messages (the stream and the other clients never wait).

One thread relays every connection (``selectors``); closing the gate closes them all. A stream
ends whole: what the server sent before it closed its side is still relayed to the client (the
server's side closes, the client's stays until its queue is written); ``drain`` waits until no
byte has moved for a moment (the server's last messages are through), and ``close(goodbye)``
ends each client's connection with a WebSocket close frame carrying that reason, so a viewer
tells a stream that ended from one that was lost (a killed source says no goodbye).
"""
from __future__ import annotations

import logging
import selectors
import socket
import struct
import threading
import time
from dataclasses import dataclass, field

__all__ = ["ConnectionGate", "MAX_CLIENTS", "MAX_QUEUE_BYTES"]

_log = logging.getLogger("soccerbt.live")

MAX_CLIENTS = 8  # connections at once: a team's laptops, not a crowd
MAX_QUEUE_BYTES = 8 << 20  # of the server's bytes held for one client that does not read
_READ_BYTES = 1 << 16


@dataclass(eq=False)
class _Pair:
    client: socket.socket
    server: socket.socket
    to_client: bytearray = field(default_factory=bytearray)
    to_server: bytearray = field(default_factory=bytearray)
    server_gone: bool = False  # the server closed its side: the client's queue is written, then closed


class ConnectionGate:
    """Listens on ``host:port`` and relays to ``127.0.0.1:upstream_port`` (see the module docstring)."""

    def __init__(self, host: str, port: int, upstream_port: int, *, max_clients: int = MAX_CLIENTS,
                 max_queue_bytes: int = MAX_QUEUE_BYTES) -> None:
        self.upstream = ("127.0.0.1", upstream_port)
        self.max_clients = max_clients
        self.max_queue_bytes = max_queue_bytes
        self.refused = 0  # connections turned away at the cap
        self.accepted = 0
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._listener = socket.socket(family, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, port))
        self._listener.listen(64)
        self._listener.setblocking(False)
        self.port = int(self._listener.getsockname()[1])
        self._pairs: dict[socket.socket, _Pair] = {}
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ, None)
        self._wake_r, self._wake_w = socket.socketpair()
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._closed = False
        self._goodbye: str | None = None  # the close frame's reason, sent to each client as the gate closes
        self.moved_s = time.monotonic()   # when a byte last moved from a server or to a client
        self._said = False
        self._thread = threading.Thread(target=self._run, name="soccerbt-live-gate", daemon=True)
        self._thread.start()

    @property
    def clients(self) -> int:
        """Connections being relayed."""
        return len(set(self._pairs.values()))

    def drain(self, quiet_s: float, timeout_s: float) -> bool:
        """Wait until no byte has moved for ``quiet_s`` (the server's last messages are with the
        clients, or a client stopped reading), at most ``timeout_s``; True when it went quiet."""
        deadline = time.monotonic() + timeout_s
        while True:
            now = time.monotonic()
            if now - self.moved_s >= quiet_s:
                return True
            if now >= deadline:
                return False
            time.sleep(min(quiet_s / 4.0, max(0.0, deadline - now)))

    def close(self, goodbye: str | None = None) -> None:
        """Close every connection; with ``goodbye``, each client whose queue is written first
        receives a WebSocket close frame with that reason (the stream ended, it was not lost)."""
        if self._closed:
            return
        self._goodbye = goodbye
        self._closed = True
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass
        self._thread.join(2.0)

    # --- the relay's thread ------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._closed:
                for key, events in self._selector.select(0.5):
                    sock = key.fileobj
                    if sock is self._listener:
                        self._accept()
                    elif sock is self._wake_r:
                        continue
                    else:
                        self._relay(sock, events)  # type: ignore[arg-type]
        finally:
            if self._goodbye is not None:
                for pair in set(self._pairs.values()):
                    self._say_goodbye(pair, self._goodbye)
            for sock in list(self._pairs):
                self._drop(sock)
            for sock in (self._listener, self._wake_r, self._wake_w):
                sock.close()
            self._selector.close()

    def _say_goodbye(self, pair: _Pair, reason: str) -> None:
        """A close frame (status 1000 and ``reason``) to a client whose queue is written: between
        two of the server's frames, never inside one."""
        if pair.to_client:
            return  # a client that stopped reading: its connection just closes
        body = struct.pack(">H", 1000) + reason.encode("utf-8")[:120]
        try:
            pair.client.settimeout(0.2)
            pair.client.sendall(bytes((0x88, len(body))) + body)
        except OSError:
            pass

    def _accept(self) -> None:
        try:
            client, _addr = self._listener.accept()
        except OSError:
            return
        if self.clients >= self.max_clients:
            self.refused += 1
            if not self._said:
                self._said = True
                _log.warning("live stream: a connection refused: %d clients at once at most (further ones are "
                             "counted, not logged)", self.max_clients)
            client.close()
            return
        try:
            server = socket.create_connection(self.upstream, timeout=2.0)
        except OSError:
            client.close()
            return
        for sock in (client, server):
            sock.setblocking(False)
        pair = _Pair(client, server)
        self._pairs[client] = self._pairs[server] = pair
        self._selector.register(client, selectors.EVENT_READ, None)
        self._selector.register(server, selectors.EVENT_READ, None)
        self.accepted += 1

    def _relay(self, sock: socket.socket, events: int) -> None:
        pair = self._pairs.get(sock)
        if pair is None:
            return
        if events & selectors.EVENT_WRITE:
            queue = pair.to_client if sock is pair.client else pair.to_server
            try:
                sent = sock.send(queue)
            except BlockingIOError:
                sent = 0
            except OSError:
                self._drop(sock)
                return
            del queue[:sent]
            if sent:
                self.moved_s = time.monotonic()
            if pair.server_gone and not pair.to_client:
                self._drop(sock)  # the server's last bytes are with the client
                return
        if events & selectors.EVENT_READ:
            try:
                data = sock.recv(_READ_BYTES)
            except BlockingIOError:
                data = None
            except OSError:
                data = b""
            if data == b"" and sock is pair.server and pair.to_client:
                self._server_gone(pair)  # the client still gets what the server sent before it closed
                return
            if data == b"":
                self._drop(sock)
                return
            if data:
                queue = pair.to_server if sock is pair.client else pair.to_client
                queue += data
                if sock is pair.server:
                    self.moved_s = time.monotonic()
        self._update(pair)

    def _server_gone(self, pair: _Pair) -> None:
        pair.server_gone = True
        self._pairs.pop(pair.server, None)
        try:
            self._selector.unregister(pair.server)
        except (KeyError, ValueError):
            pass
        pair.server.close()
        self._selector.modify(pair.client, selectors.EVENT_WRITE)

    def _update(self, pair: _Pair) -> None:
        """What each side is waited for: written while its queue holds bytes; the server read for
        this client only while the client's queue has room (else the SDK's backlog drops)."""
        if pair.server_gone:
            return  # _server_gone waits for the client's queue to be written
        client_events = selectors.EVENT_READ | (selectors.EVENT_WRITE if pair.to_client else 0)
        server_events = (selectors.EVENT_READ if len(pair.to_client) < self.max_queue_bytes else 0) | \
            (selectors.EVENT_WRITE if pair.to_server else 0)
        self._selector.modify(pair.client, client_events)
        if server_events:
            try:
                self._selector.modify(pair.server, server_events)
            except KeyError:
                self._selector.register(pair.server, server_events)
        else:
            try:
                self._selector.unregister(pair.server)
            except KeyError:
                pass

    def _drop(self, sock: socket.socket) -> None:
        pair = self._pairs.get(sock)
        if pair is None:
            return
        for side in (pair.client, pair.server):
            self._pairs.pop(side, None)
            try:
                self._selector.unregister(side)
            except (KeyError, ValueError):
                pass
            side.close()
