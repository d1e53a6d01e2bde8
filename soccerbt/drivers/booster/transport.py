"""The transport interface the Booster driver and the served simulator speak through, and an
in-process implementation.

``Transport`` makes ``Publisher``s and ``Subscription``s of the messages in ``messages`` on ROS 2
topic names (``topics`` has them), with a QoS kind from ``topics.QOS``. Subscriptions are polled:
``take()`` never blocks and never raises on a bad sample; samples that do not decode are counted
in ``dropped``.

Implementations: ``MemoryTransport`` (here: several transports on one ``MemoryBus`` in one
process, for tests and the embedded server) and ``CycloneTransport`` (``cyclone``: DDS on a
network). ``open_transport(kind, ...)`` picks one by name without importing the others.

``MemoryBus`` behaves like DDS where it matters to tests: messages go through their CDR bytes
(``encode`` on publish, ``decode`` on take), a subscription keeps the last ``depth`` samples, a
publisher and a subscription match only when their types are the same and their QoS are
compatible (a reliable reader needs a reliable writer, a transient-local reader a transient-local
writer), and ``inject(topic, data)`` puts raw bytes on a topic for bad-input tests. It does not
keep a transient-local writer's history for readers that join later (no QoS kind has a
transient-local reader).
"""
from __future__ import annotations

import threading
from collections import deque
from typing import Any, Protocol, runtime_checkable

from soccerbt.drivers.booster.messages import Message, MessageError
from soccerbt.drivers.booster.topics import QosProfile, dds_topic_name, qos_kind

__all__ = ["MAX_TAKE", "INJECTED_WRITER", "MemoryBus", "MemoryTransport", "Publisher", "Subscription", "Transport",
           "TransportError",
           "TRANSPORT_KINDS", "memory_bus"]

MAX_TAKE = 4096  # samples one take() returns at most, whatever it is asked


class TransportError(RuntimeError):
    """A transport that cannot do what it was asked (closed, misconfigured, a DDS error)."""


@runtime_checkable
class Publisher(Protocol):
    topic: str  # the ROS name

    def publish(self, message: Any) -> None: ...  # a messages.py instance

    def publish_encoded(self, data: bytes) -> None: ...  # a sample already encoded (CDR with its header)

    def matched(self) -> int: ...  # matched remote readers (0 for none)


@runtime_checkable
class Subscription(Protocol):
    topic: str
    received: int  # samples decoded and handed out
    dropped: int  # samples that failed to decode (counted, never raised)

    def take(self, max_samples: int = 64) -> list[Any]: ...  # non-blocking; oldest first

    # the same, each sample with the id of the writer that sent it (a DDS publication handle);
    # (None, writer) says that writer has gone (unregistered, disposed, or its liveliness lost)
    def take_with_writers(self, max_samples: int = 64) -> list[tuple[Any, int]]: ...

    def matched(self) -> int: ...

    # optional: ``wait(timeout_s) -> bool`` blocks until a sample is ready (CycloneSubscription);
    # a waiter without it polls ``take``


@runtime_checkable
class Transport(Protocol):
    def publisher(self, topic: str, message_type: type, qos: str) -> Publisher: ...

    def subscription(self, topic: str, message_type: type, qos: str, depth: int = 1) -> Subscription: ...

    def close(self) -> None: ...


def check_message_type(message_type: type) -> None:
    if not (isinstance(message_type, type) and issubclass(message_type, Message)):
        raise TypeError(f"{message_type!r} is not a message class of soccerbt.drivers.booster.messages")


def clamp_take(max_samples: int) -> int:
    return max(0, min(int(max_samples), MAX_TAKE))


# --- in memory -----------------------------------------------------------------------------------

def _compatible(writer: QosProfile, reader: QosProfile) -> bool:
    return (writer.reliable or not reader.reliable) and (writer.transient_local or not reader.transient_local)


INJECTED_WRITER = 0  # the writer id of MemoryBus.inject's samples


class _MemoryPublisher:
    def __init__(self, owner: MemoryTransport, topic: str, message_type: type, qos: QosProfile) -> None:
        self.topic = topic
        self.message_type = message_type
        self.qos = qos
        self._owner = owner
        self.published = 0
        self.writer_id = owner.bus.new_writer_id()  # what a DDS publication handle is to a reader

    def publish(self, message: Any) -> None:
        if not isinstance(message, self.message_type):
            raise TypeError(f"{self.topic}: expected a {self.message_type.__name__}, got {type(message).__name__}")
        self.publish_encoded(message.encode())

    def publish_encoded(self, data: bytes) -> None:
        """A sample of this topic's type encoded by the caller (a simulator that keeps a template)."""
        bus = self._owner.live_bus()
        with bus.lock:
            for sub in bus.subscriptions.get(self.topic, ()):
                if sub.message_type is self.message_type and _compatible(self.qos, sub.qos):
                    sub.queue.append((data, self.writer_id))
        self.published += 1

    def matched(self) -> int:
        bus = self._owner.bus
        with bus.lock:
            return sum(1 for s in bus.subscriptions.get(self.topic, ())
                       if s.message_type is self.message_type and _compatible(self.qos, s.qos))


class _MemorySubscription:
    def __init__(self, owner: MemoryTransport, topic: str, message_type: type, qos: QosProfile) -> None:
        self.topic = topic
        self.message_type = message_type
        self.qos = qos
        self.queue: deque[tuple[bytes | None, int]] = deque(maxlen=qos.depth)  # (sample or None: gone, writer)
        self.received = 0
        self.dropped = 0
        self.last_error = ""
        self._owner = owner

    def take(self, max_samples: int = 64) -> list[Any]:
        return [message for message, _ in self.take_with_writers(max_samples) if message is not None]

    def take_with_writers(self, max_samples: int = 64) -> list[tuple[Any, int]]:
        n = clamp_take(max_samples)
        bus = self._owner.bus
        with bus.lock:
            raw = [self.queue.popleft() for _ in range(min(n, len(self.queue)))]
        out: list[tuple[Any, int]] = []
        for data, writer in raw:
            if data is None:
                out.append((None, writer))
                continue
            try:
                out.append((self.message_type.decode(data), writer))
            except MessageError as exc:
                self.dropped += 1
                self.last_error = str(exc)
        self.received += sum(1 for message, _ in out if message is not None)
        return out

    def matched(self) -> int:
        bus = self._owner.bus
        with bus.lock:
            return sum(1 for p in bus.publishers.get(self.topic, ())
                       if p.message_type is self.message_type and _compatible(p.qos, self.qos))


class MemoryBus:
    """Topics shared by the ``MemoryTransport``s opened on it (one process)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.publishers: dict[str, list[_MemoryPublisher]] = {}
        self.subscriptions: dict[str, list[_MemorySubscription]] = {}
        self._writer_ids = INJECTED_WRITER

    def new_writer_id(self) -> int:
        with self.lock:
            self._writer_ids += 1
            return self._writer_ids

    def inject(self, topic: str, data: bytes, writer: int = INJECTED_WRITER) -> int:
        """Put raw ``data`` on ``topic`` as if a writer (``writer``) had sent it: every
        subscription of the topic gets it, whatever its type. How many got it."""
        with self.lock:
            subs = list(self.subscriptions.get(topic, ()))
            for sub in subs:
                sub.queue.append((bytes(data), writer))
        return len(subs)

    def topics(self) -> dict[str, set[str]]:
        """ROS topic name -> the ROS types of its publishers and subscriptions."""
        with self.lock:
            out: dict[str, set[str]] = {}
            for table in (self.publishers, self.subscriptions):
                for name, endpoints in table.items():
                    for e in endpoints:
                        out.setdefault(name, set()).add(e.message_type.ROS_TYPE)
            return out


class MemoryTransport:
    """A ``Transport`` on a ``MemoryBus`` (a new private bus if none is given)."""

    def __init__(self, bus: MemoryBus | None = None) -> None:
        self.bus = bus if bus is not None else MemoryBus()
        self._publishers: list[_MemoryPublisher] = []
        self._subscriptions: list[_MemorySubscription] = []
        self.closed = False

    def live_bus(self) -> MemoryBus:
        if self.closed:
            raise TransportError("the transport is closed")
        return self.bus

    def publisher(self, topic: str, message_type: type, qos: str) -> _MemoryPublisher:
        check_message_type(message_type)
        dds_topic_name(topic)  # the same names as on DDS
        pub = _MemoryPublisher(self, topic, message_type, qos_kind(qos).writer)
        bus = self.live_bus()
        with bus.lock:
            bus.publishers.setdefault(topic, []).append(pub)
        self._publishers.append(pub)
        return pub

    def subscription(self, topic: str, message_type: type, qos: str, depth: int = 1) -> _MemorySubscription:
        check_message_type(message_type)
        dds_topic_name(topic)
        sub = _MemorySubscription(self, topic, message_type, qos_kind(qos).reader_with_depth(depth))
        bus = self.live_bus()
        with bus.lock:
            bus.subscriptions.setdefault(topic, []).append(sub)
        self._subscriptions.append(sub)
        return sub

    def inject(self, topic: str, data: bytes) -> int:
        """``MemoryBus.inject`` on this transport's bus."""
        return self.live_bus().inject(topic, data)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        with self.bus.lock:
            for pub in self._publishers:  # its readers hear that the writer has gone (DDS: not alive)
                for sub in self.bus.subscriptions.get(pub.topic, ()):
                    if sub.message_type is pub.message_type:
                        sub.queue.append((None, pub.writer_id))
            for table, mine in ((self.bus.publishers, self._publishers), (self.bus.subscriptions, self._subscriptions)):
                for endpoint in mine:
                    endpoints = table.get(endpoint.topic, [])
                    if endpoint in endpoints:
                        endpoints.remove(endpoint)
                    if not endpoints:
                        table.pop(endpoint.topic, None)

    def __enter__(self) -> MemoryTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_MEMORY_BUSES: dict[int, MemoryBus] = {}
_MEMORY_LOCK = threading.Lock()


def memory_bus(domain: int = 0) -> MemoryBus:
    """The process-wide memory bus of ``domain`` (``open_transport("memory")`` uses it)."""
    with _MEMORY_LOCK:
        return _MEMORY_BUSES.setdefault(domain, MemoryBus())


TRANSPORT_KINDS = ("cyclone", "memory")
