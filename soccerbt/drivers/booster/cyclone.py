"""``CycloneTransport``: the ``Transport`` over DDS with Cyclone DDS (the ``cyclonedds`` package,
the ``robot`` extra), speaking the names, types and QoS that ROS 2 and the vendor SDK use.

One ``DomainParticipant`` per transport. Each ROS topic becomes its DDS topic (``rt/...``, see
``topics``) with the DDS type name of its message class (``booster_interface::msg::dds_::
Odometer_``); the QoS come from ``topics.QOS``; the data representation is XCDR1, as in ROS 2.

Bytes, not objects: our messages encode and decode themselves (``messages``), so the transport
moves bytes. For each message class it builds, once, an equivalent cyclonedds ``IdlStruct``
(same type name, same members) only so that Cyclone announces the right type in discovery and can
check samples against it. ``publish`` writes ``message.encode()`` (padded to 4 bytes as
cyclonedds does) with the C layer's raw write; ``take`` takes the raw serialized samples and
decodes them with our bounded decoder. What arrives is checked twice: Cyclone's C layer drops a
sample that is not valid CDR of the announced type before it reaches the reader (such samples
are not seen, so not counted); our decoder then refuses what Cyclone accepts but we don't (a
string that is not UTF-8, more detected objects than our cap, ...): such a sample is counted in
``dropped`` and its error kept in ``last_error``, never raised.

Configuration is made in code, as a Cyclone XML string (no file, the ``CYCLONEDDS_URI``
environment is not read): the domain id, the network interface (``"lo"`` keeps all traffic on
loopback, ``"eth0"`` a robot's network, None lets Cyclone choose), and with
``fastdds_compat=True`` a discovery peer on loopback served by ``fastdds_relay.FastDdsRelay`` so
that the vendor SDK (FastDDS 2.13) finds us; the relay runs while the transport is open. One
process may open several transports on one domain when they ask for the same configuration (they
share Cyclone's domain, and the relay).

Costs (measured, see the tests' report): a publish is one encode and one C call; a take one C
call and a decode per sample.
"""
from __future__ import annotations

import re
import threading
import types
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from cyclonedds import idl
from cyclonedds.core import DDSException, InstanceState, ReadCondition, SampleState, ViewState, WaitSet
from cyclonedds.domain import Domain, DomainParticipant
from cyclonedds.idl import types as idl_types
from cyclonedds.pub import DataWriter
from cyclonedds.qos import Policy, Qos
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic

try:  # the raw byte paths of cyclonedds' own DataWriter.write and DataReader.take
    from cyclonedds._clayer import ddspy_take, ddspy_write
except ImportError as exc:  # pragma: no cover - a cyclonedds without its C layer
    raise ImportError(f"cyclonedds' C layer is missing: {exc}") from exc

from soccerbt.drivers.booster.fastdds_relay import FastDdsRelay
from soccerbt.drivers.booster.messages import Message, MessageError, wire_fields
from soccerbt.drivers.booster.topics import QosProfile, dds_topic_name, qos_kind
from soccerbt.drivers.booster.transport import TransportError, check_message_type, clamp_take

__all__ = ["CycloneTransport", "cyclone_config", "idl_type"]

_INTERFACE = re.compile(r"[A-Za-z0-9_.:\-]{1,64}")
_IPV4 = re.compile(r"\d{1,3}(\.\d{1,3}){3}")
_TAKE_MASK = SampleState.Any | ViewState.Any | InstanceState.Any
_IDL_PRIMS = {
    "bool": bool, "int8": idl_types.int8, "uint8": idl_types.uint8, "char": idl_types.uint8,
    "int16": idl_types.int16, "uint16": idl_types.uint16, "int32": idl_types.int32, "uint32": idl_types.uint32,
    "int64": idl_types.int64, "uint64": idl_types.uint64, "float32": idl_types.float32,
    "float64": idl_types.float64,
}
_IDL_TYPES: dict[type, Any] = {}
_IDL_LOCK = threading.Lock()


def idl_type(message_type: type[Message]) -> Any:
    """The cyclonedds ``IdlStruct`` equivalent to ``message_type`` (same DDS type name and
    members), built once; it only describes the type to Cyclone."""
    with _IDL_LOCK:
        return _idl_type(message_type)


def _idl_type(message_type: type[Message]) -> Any:
    found = _IDL_TYPES.get(message_type)
    if found is not None:
        return found
    annotations: dict[str, Any] = {}
    for name, kind, element, count in wire_fields(message_type):
        if kind == "primitive":
            annotations[name] = _IDL_PRIMS[element]
        elif kind == "array":
            annotations[name] = idl_types.array[_IDL_PRIMS[element], count]
        elif kind == "string":
            annotations[name] = str
        elif kind == "struct":
            annotations[name] = _idl_type(element)
        else:  # sequence
            inner = _IDL_PRIMS[element] if isinstance(element, str) else _idl_type(element)
            annotations[name] = idl_types.sequence[inner]
    short = message_type.DDS_TYPE.rsplit("::", 1)[-1]

    def body(ns: dict[str, Any]) -> None:
        ns["__annotations__"] = annotations
        ns["__module__"] = __name__

    cls = types.new_class(short, (idl.IdlStruct,), {"typename": message_type.DDS_TYPE}, body)
    cls = dataclass(cls)
    _IDL_TYPES[message_type] = cls
    return cls


_LOOPBACK = ("lo", "127.0.0.1")
_MAX_INDEX = 120  # participants on one host with a well-known port (Cyclone's default is 9)


def cyclone_config(interface: str | None = None, *, peers: tuple[str, ...] = (), spdp_interval_s: float | None = None,
                   tracing_file: str | None = None, tracing_verbosity: str = "config") -> str:
    """Cyclone's XML configuration: ``interface`` (a name such as "lo" or "eth0", or an
    address; None: Cyclone chooses), discovery ``peers`` ("127.0.0.1:7650"), the SPDP interval,
    and tracing to a file.

    On the loopback interface without peers, the participant takes a well-known port
    (``ParticipantIndex`` auto) and announces itself to 127.0.0.1's as well as by multicast: ROS 2
    nodes with ``ROS_LOCALHOST_ONLY=1`` or ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` (FastDDS
    then discovers by unicast to localhost's well-known ports only) find it, and it finds them."""
    general = ""
    if interface is not None:
        if not _INTERFACE.fullmatch(interface):
            raise ValueError(f"not a network interface name or address: {interface!r}")
        attribute = "address" if _IPV4.fullmatch(interface) else "name"
        general = (f"<General><Interfaces><NetworkInterface {attribute}={quoteattr(interface)}/></Interfaces>"
                   "</General>")
    discovery = ""
    if peers or spdp_interval_s is not None:
        parts = []
        if peers:
            for peer in peers:
                if not _INTERFACE.fullmatch(peer):
                    raise ValueError(f"not a peer address: {peer!r}")
            parts.append("<ParticipantIndex>none</ParticipantIndex>")
            parts.append("<Peers>" + "".join(f"<Peer address={quoteattr(p)}/>" for p in peers) + "</Peers>")
        if spdp_interval_s is not None:
            parts.append(f"<SPDPInterval>{int(spdp_interval_s * 1000)}ms</SPDPInterval>")
        discovery = "<Discovery>" + "".join(parts) + "</Discovery>"
    elif interface in _LOOPBACK:
        discovery = (f"<Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>{_MAX_INDEX}"
                     '</MaxAutoParticipantIndex><Peers><Peer address="127.0.0.1"/></Peers></Discovery>')
    tracing = ""
    if tracing_file is not None:
        tracing = (f"<Tracing><Verbosity>{tracing_verbosity}</Verbosity>"
                   f"<OutputFile>{escape(tracing_file)}</OutputFile></Tracing>")
    return f'<CycloneDDS><Domain Id="any">{general}{discovery}{tracing}</Domain></CycloneDDS>'


def _qos(profile: QosProfile) -> Qos:
    return Qos(
        Policy.Reliability.Reliable(max_blocking_time=100_000_000)
        if profile.reliable
        else Policy.Reliability.BestEffort,
        Policy.Durability.TransientLocal if profile.transient_local else Policy.Durability.Volatile,
        Policy.History.KeepLast(profile.depth),
        Policy.DataRepresentation(use_cdrv0_representation=True),
    )


# --- the process's domains -------------------------------------------------------------------------

@dataclass
class _DomainEntry:
    domain: Any
    config: str
    relay: FastDdsRelay | None
    users: int


_DOMAINS: dict[int, _DomainEntry] = {}
_DOMAINS_LOCK = threading.Lock()


def _acquire_domain(domain_id: int, interface: str | None, fastdds_compat: bool, tracing_file: str | None
                    ) -> _DomainEntry:
    with _DOMAINS_LOCK:
        entry = _DOMAINS.get(domain_id)
        wanted = (interface, fastdds_compat, tracing_file)
        if entry is not None:
            if entry.config != repr(wanted):
                raise TransportError(f"DDS domain {domain_id} is already open in this process with another "
                                     f"configuration ({entry.config}); asked for {wanted!r}")
            entry.users += 1
            return entry
        relay = None
        peers: tuple[str, ...] = ()
        spdp_interval_s = None
        if fastdds_compat:
            relay = FastDdsRelay(domain_id).start()
            peers = (f"127.0.0.1:{relay.peer_port}",)
            spdp_interval_s = 1.0
        xml = cyclone_config(interface, peers=peers, spdp_interval_s=spdp_interval_s, tracing_file=tracing_file,
                             tracing_verbosity="finest" if tracing_file else "config")
        try:
            domain = Domain(domain_id, xml)
        except DDSException as exc:
            if relay is not None:
                relay.stop()
            raise TransportError(f"cannot open DDS domain {domain_id} (interface {interface!r}): {exc}") from None
        entry = _DomainEntry(domain, repr(wanted), relay, 1)
        _DOMAINS[domain_id] = entry
        return entry


def _release_domain(domain_id: int) -> None:
    with _DOMAINS_LOCK:
        entry = _DOMAINS.get(domain_id)
        if entry is None:
            return
        entry.users -= 1
        if entry.users > 0:
            return
        del _DOMAINS[domain_id]
    _delete(entry.domain)
    if entry.relay is not None:
        entry.relay.stop()


def _delete(entity: Any) -> None:
    """Delete a cyclonedds entity now (its children with it), quietly if it is gone already."""
    try:
        entity.__del__()
    except DDSException:
        pass


# --- endpoints ---------------------------------------------------------------------------------------

class CyclonePublisher:
    def __init__(self, transport: CycloneTransport, topic: str, message_type: type, writer: Any) -> None:
        self.topic = topic
        self.message_type = message_type
        self._transport = transport
        self._writer = writer
        self._ref = writer._ref
        self.published = 0

    def publish(self, message: Any) -> None:
        if not isinstance(message, self.message_type):
            raise TypeError(f"{self.topic}: expected a {self.message_type.__name__}, got {type(message).__name__}")
        self.publish_encoded(message.encode())

    def publish_encoded(self, data: bytes) -> None:
        """A sample of this topic's type encoded by the caller (a simulator that keeps a template)."""
        if self._transport.closed:
            raise TransportError(f"{self.topic}: the transport is closed")
        pad = (-len(data)) & 3
        if pad:
            data += b"\0" * pad
        ret = ddspy_write(self._ref, data)
        if ret < 0:
            raise TransportError(f"{self.topic}: DDS write failed with code {ret}")
        self.published += 1

    def matched(self) -> int:
        if self._transport.closed:
            return 0
        count = self._writer._get_matched_subscriptions(self._ref, None, 0)
        return max(0, int(count))


class CycloneSubscription:
    def __init__(self, transport: CycloneTransport, topic: str, message_type: type, reader: Any) -> None:
        self.topic = topic
        self.message_type = message_type
        self._transport = transport
        self._reader = reader
        self._ref = reader._ref
        self._decode = message_type.decode
        self.received = 0
        self.dropped = 0
        self.last_error = ""
        self._waitset: Any = None

    def wait(self, timeout_s: float) -> bool:
        """Block until a sample is ready to take or ``timeout_s`` passed (the GIL is released
        meanwhile); whether one is ready. A brain on the simulated clock waits for ``/clock``
        this way instead of polling it."""
        if self._transport.closed:
            return False
        if self._waitset is None:
            waitset = WaitSet(self._transport.participant)
            waitset.attach(ReadCondition(self._reader, _TAKE_MASK))
            self._transport.own(waitset)  # deleted with the transport's other entities
            self._waitset = waitset
        try:
            return self._waitset.wait(max(0, int(timeout_s * 1e9))) > 0
        except DDSException as exc:
            self.last_error = f"DDS wait failed: {exc}"
            return False

    def take(self, max_samples: int = 64) -> list[Any]:
        """The samples that arrived (at most ``max_samples``, oldest first; never waits)."""
        return [message for message, _ in self.take_with_writers(max_samples) if message is not None]

    def take_with_writers(self, max_samples: int = 64) -> list[tuple[Any, int]]:
        """``take``, each sample with its writer's publication handle; (None, handle) where a
        writer has gone (its instance no longer alive: unregistered, disposed, liveliness lost)."""
        n = clamp_take(max_samples)
        if n == 0 or self._transport.closed:
            return []
        raw = ddspy_take(self._ref, _TAKE_MASK, n)
        if isinstance(raw, int):
            self.last_error = f"DDS take failed with code {raw}"
            return []
        out: list[tuple[Any, int]] = []
        decode = self._decode
        for data, info in raw:
            writer = int(info.publication_handle)
            if not info.valid_data:
                if info.instance_state != InstanceState.Alive:
                    out.append((None, writer))
                continue
            try:
                out.append((decode(data), writer))
                self.received += 1
            except MessageError as exc:
                self.dropped += 1
                self.last_error = str(exc)
        return out

    def matched(self) -> int:
        if self._transport.closed:
            return 0
        count = self._reader._get_matched_publications(self._ref, None, 0)
        return max(0, int(count))


class CycloneWaiter:
    """Blocks until any of several subscriptions has a sample to take (a WaitSet with a read
    condition per reader); what is ready must be taken, or the next wait returns at once."""

    def __init__(self, transport: CycloneTransport, subscriptions: list[CycloneSubscription]) -> None:
        self._transport = transport
        self._waitset = WaitSet(transport.participant)
        for sub in subscriptions:
            self._waitset.attach(ReadCondition(sub._reader, _TAKE_MASK))
        transport.own(self._waitset)

    def wait(self, timeout_s: float) -> bool:
        """Whether a sample is ready (False after ``timeout_s`` or once the transport closed)."""
        if self._transport.closed:
            return False
        try:
            return self._waitset.wait(max(0, int(timeout_s * 1e9))) > 0
        except DDSException:
            return False


class CycloneTransport:
    """DDS through Cyclone (see the module docstring).

    ``domain``: the DDS domain id (0..232); ``interface``: "lo", "eth0", an address, or None;
    ``fastdds_compat``: run the discovery relay for the vendor SDK (loopback only: the interface
    must be "lo", and None means "lo" here); ``tracing_file``: Cyclone's trace, for debugging.
    """

    def __init__(self, domain: int = 0, interface: str | None = None, *, fastdds_compat: bool = False,
                 tracing_file: str | None = None) -> None:
        if not 0 <= domain <= 232:
            raise ValueError(f"DDS domain id must be 0..232, got {domain}")
        if fastdds_compat:
            if interface is None:
                interface = "lo"
            elif interface not in ("lo", "127.0.0.1"):
                raise ValueError("fastdds_compat works on one host over loopback: interface must be 'lo' "
                                 f"(got {interface!r})")
        self.domain = domain
        self.interface = interface
        self.fastdds_compat = fastdds_compat
        self.closed = False
        self._entry = _acquire_domain(domain, interface, fastdds_compat, tracing_file)
        try:
            self._participant = DomainParticipant(domain)
        except DDSException as exc:
            _release_domain(domain)
            raise TransportError(f"cannot create a DDS participant on domain {domain}: {exc}") from None
        self._topics: dict[str, tuple[type, Any]] = {}
        self._endpoints: list[Any] = []
        self._lock = threading.Lock()

    def waiter(self, subscriptions: list[CycloneSubscription]) -> CycloneWaiter:
        """One wait for several of this transport's subscriptions (``wait(timeout_s)``: until any
        has a sample)."""
        return CycloneWaiter(self, subscriptions)

    @property
    def participant(self) -> Any:
        """The cyclonedds DomainParticipant of this transport."""
        return self._participant

    def own(self, entity: Any) -> None:
        """Delete ``entity`` (a cyclonedds entity made by an endpoint) when the transport closes."""
        self._endpoints.append(entity)

    @property
    def relay(self) -> FastDdsRelay | None:
        """The FastDDS discovery relay (``fastdds_compat``), or None."""
        return self._entry.relay

    def _topic(self, topic: str, message_type: type) -> Any:
        check_message_type(message_type)
        if self.closed:
            raise TransportError("the transport is closed")
        name = dds_topic_name(topic)
        with self._lock:
            found = self._topics.get(name)
            if found is not None:
                if found[0] is not message_type:
                    raise TransportError(f"{topic}: already used with {found[0].__name__}, "
                                         f"not {message_type.__name__}")
                return found[1]
            try:
                dds_topic = Topic(self._participant, name, idl_type(message_type))
            except DDSException as exc:
                raise TransportError(f"{topic}: cannot create DDS topic {name}: {exc}") from None
            self._topics[name] = (message_type, dds_topic)
            return dds_topic

    def publisher(self, topic: str, message_type: type, qos: str) -> CyclonePublisher:
        profile = qos_kind(qos).writer
        dds_topic = self._topic(topic, message_type)
        try:
            writer = DataWriter(self._participant, dds_topic, _qos(profile))
        except DDSException as exc:
            raise TransportError(f"{topic}: cannot create a DDS writer: {exc}") from None
        self._endpoints.append(writer)
        return CyclonePublisher(self, topic, message_type, writer)

    def subscription(self, topic: str, message_type: type, qos: str, depth: int = 1) -> CycloneSubscription:
        profile = qos_kind(qos).reader_with_depth(depth)
        dds_topic = self._topic(topic, message_type)
        try:
            reader = DataReader(self._participant, dds_topic, _qos(profile))
        except DDSException as exc:
            raise TransportError(f"{topic}: cannot create a DDS reader: {exc}") from None
        self._endpoints.append(reader)
        return CycloneSubscription(self, topic, message_type, reader)

    def close(self) -> None:
        """Delete the participant (and its endpoints); the last transport of the domain also
        closes the domain and stops the relay."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
        for entity in self._endpoints:
            _delete(entity)
        for _, dds_topic in self._topics.values():
            _delete(dds_topic)
        _delete(self._participant)
        self._endpoints.clear()
        self._topics.clear()
        _release_domain(self.domain)

    def __enter__(self) -> CycloneTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
