"""The two ports a Groot2 publisher binds, and the thread that answers on the first.

BT.CPP 4.10's Groot2Publisher binds a REP socket at PORT (requests) and a PUB socket at PORT+1
(breakpoint notifications). ``GrootSockets`` binds both (on 127.0.0.1 unless another host is
given), then, once started, answers every request in a thread of its own with its owner's
``handle`` (each reply is sent back, whatever it holds: a request never stops the server). The
thread sleeps in ZeroMQ until a request comes or ``close()`` wakes it through an inproc pair;
with ``quiet_ms`` it also wakes after that long without a request and calls ``on_quiet`` (the
live publisher's heartbeat). Both the live publisher (``soccerbt.groot.publisher``) and the
replay's (``soccerbt.groot.recorded``) serve through it.

pyzmq is an optional dependency (the ``groot`` extra): ``zmq_module`` imports it, or says what
to install.
"""
from __future__ import annotations

import random
import socket
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["GrootSockets", "GrootUnavailable", "zmq_module", "free_port_range", "SEND_TIMEOUT_MS"]

SEND_TIMEOUT_MS = 1000


class GrootUnavailable(RuntimeError):
    """pyzmq is missing (the ``groot`` extra) or a port could not be bound."""


def zmq_module() -> Any:
    """pyzmq, or GrootUnavailable saying how to install it."""
    try:
        import zmq  # deferred: optional dependency (the groot extra)
    except ImportError as exc:
        raise GrootUnavailable("Groot2 needs pyzmq: pip install 'soccerbt[groot]'") from exc
    return zmq


def free_port_range(count: int, low: int = 20000, high: int = 32000, host: str = "127.0.0.1") -> int:
    """A port p with p .. p + count - 1 free on ``host`` as far as a bind can tell now (a robot
    takes two), drawn from ``low`` .. ``high``: by default below Linux's ephemeral range (32768
    and up), where no outgoing connection takes one meanwhile. GrootUnavailable after 200 tries."""
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(low, high - count)
        try:
            for port in range(base, base + count):
                with socket.socket() as probe:
                    probe.bind((host, port))
        except OSError:
            continue
        return base
    raise GrootUnavailable(f"no {count} free ports in a row in {low}..{high} on {host}")


class GrootSockets:
    """REP at ``port`` and PUB at ``port + 1`` on ``host``, bound at construction (GrootUnavailable
    when they cannot be); ``start()`` begins answering with ``handle``; ``publish`` sends a
    notification; ``close()`` stops the thread and frees the ports (idempotent)."""

    def __init__(self, host: str, port: int, name: str, handle: Callable[[list[bytes]], list[bytes]], *,
                 on_request: Callable[[], object] | None = None, on_quiet: Callable[[], object] | None = None,
                 quiet_ms: int | None = None) -> None:
        zmq = zmq_module()
        self._handle = handle
        self._on_request = on_request
        self._on_quiet = on_quiet
        self._quiet_ms = quiet_ms
        self._name = name
        self._lock = threading.Lock()   # the PUB socket and the wake-up's: any thread may use them
        self._active = True
        self.requests = 0               # requests answered (and refused) so far
        self._context = zmq.Context()
        self._server = self._context.socket(zmq.REP)
        self._publisher = self._context.socket(zmq.PUB)
        self._wake_rx = self._context.socket(zmq.PAIR)
        self._wake_tx = self._context.socket(zmq.PAIR)
        wake_address = f"inproc://groot2-wake-{id(self)}"
        self._wake_rx.bind(wake_address)
        self._wake_tx.connect(wake_address)
        self._all = (self._server, self._publisher, self._wake_rx, self._wake_tx)
        for sock in self._all:
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.SNDTIMEO, SEND_TIMEOUT_MS)
        try:
            self._server.bind(f"tcp://{host}:{port}")
            self._publisher.bind(f"tcp://{host}:{port + 1}")
        except zmq.ZMQError as exc:
            for sock in self._all:
                sock.close()
            self._context.term()
            raise GrootUnavailable(f"cannot bind {host}:{port} and {port + 1}: {exc}") from None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Answer requests from now on, in a thread of its own."""
        self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
        self._thread.start()

    def publish(self, parts: list[bytes]) -> None:
        """One notification on the PUB socket (ZMQError once closed)."""
        with self._lock:
            self._publisher.send_multipart(parts)

    def _serve(self) -> None:
        zmq = zmq_module()
        poller = zmq.Poller()
        poller.register(self._server, zmq.POLLIN)
        poller.register(self._wake_rx, zmq.POLLIN)
        while self._active:
            try:
                ready = dict(poller.poll(self._quiet_ms))
            except zmq.ZMQError:
                break
            if self._wake_rx in ready or not self._active:
                break
            if not ready:  # quiet for quiet_ms
                if self._on_quiet is not None:
                    self._on_quiet()
                continue
            try:
                request = self._server.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                continue
            except zmq.ZMQError:
                break
            if not request:
                continue
            if self._on_request is not None:
                self._on_request()
            reply = self._handle(request)
            self.requests += 1
            try:
                self._server.send_multipart(reply)
            except zmq.ZMQError:
                if not self._active:
                    break

    def stop(self) -> None:
        """End the answering thread (the ports stay bound until ``close``)."""
        if not self._active:
            return
        self._active = False
        with self._lock:
            self._wake_tx.send(b"")
        if self._thread is not None:
            self._thread.join()

    def close(self) -> None:
        """Stop, and free the ports. Idempotent."""
        self.stop()
        with self._lock:
            if self._context.closed:
                return
            for sock in self._all:
                sock.close()
            self._context.term()
