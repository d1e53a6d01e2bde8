"""A discovery relay on loopback that lets the vendor SDK's FastDDS 2.13 find Cyclone DDS.

Why: the Booster SDK (``booster_robotics_sdk_python`` 1.6.3) vendors FastDDS 2.13.1, which
reads Cyclone's vendor-specific participant parameter 0x8007 (Cyclone's participant version
info, 48 bytes) as its own ``PID_NETWORK_CONFIGURATION_SET`` (4 bytes) without looking at the
vendor id, and drops the whole participant announcement (SPDP). It never learns of a Cyclone
participant, so nothing matches either way. Every other discovery message is fine: with the
parameter removed from the announcements, the endpoint discovery (SEDP) and all data flow
directly between the two, both ways.

What it does (``FastDdsRelay``, a daemon thread):

* a UDP socket on ``127.0.0.1`` (ephemeral port) that the Cyclone participant lists as a
  discovery peer (``CycloneTransport(fastdds_compat=True)`` adds it to its configuration), so
  Cyclone sends its participant announcements there, at start and every SPDP interval;
* a socket that joins the SPDP multicast group (239.255.0.1, port 7400 + 250 x domain) on the
  loopback interface, where FastDDS (``ChannelFactory.Init(domain, "lo")``) and Cyclone announce
  their participants;
* from each announcement of a Cyclone participant (RTPS vendor id 0x0110) it removes the
  parameter 0x8007 (parsing the RTPS submessages and the parameter list, bounded) and keeps the
  result; from each announcement of a FastDDS participant (vendor id 0x010f) it learns where
  that participant listens for discovery (its metatraffic unicast locators on 127.0.0.0/8);
* it sends the cleaned announcements to every FastDDS participant it knows: when a Cyclone
  participant appears or changes, in answer to each announcement of a FastDDS participant
  (FastDDS ignores what arrives while it is still starting, and announces itself several times
  as it starts), and every ``refresh_s`` (1 s) so that FastDDS's lease of the Cyclone
  participants never runs out. A Cyclone participant that announces its end (a dispose)
  is forwarded once and forgotten; one that stops announcing is forgotten after its lease
  duration, a FastDDS participant likewise.

Malformed datagrams (truncated headers, submessage or parameter lengths beyond the datagram, a
parameter list without its sentinel, more than ``MAX_PARAMETERS`` parameters) are dropped and
counted in ``counters.malformed``; nothing in a datagram can raise out of the thread.

Limits: one host. It only sends to 127.0.0.0/8, so both participants must be on this machine
and talk over loopback (the SDK's ``Init(domain, "lo")``, the transport's ``interface="lo"``);
it needs multicast on the loopback interface (Linux provides it, also in a fresh network
namespace) to hear FastDDS's announcements. Fragmented announcements (DATA_FRAG) are not
rewritten (Cyclone's are a few hundred bytes). FastDDS 2.14 and later (ROS 2 Jazzy) and
Cyclone need none of this.
"""
from __future__ import annotations

import logging
import select
import socket
import struct
import threading
import time
from dataclasses import dataclass, field

__all__ = ["FastDdsRelay", "RelayCounters", "RtpsError", "spdp_multicast_port", "strip_spdp_parameters",
           "parse_spdp"]

_log = logging.getLogger(__name__)

VENDOR_CYCLONE = b"\x01\x10"
VENDOR_EPROSIMA = b"\x01\x0f"
SPDP_MULTICAST_ADDRESS = "239.255.0.1"
PID_CYCLONE_PARTICIPANT_VERSION_INFO = 0x8007
MAX_DATAGRAM_BYTES = 65536
MAX_PARAMETERS = 256
MAX_PARTICIPANTS = 256  # of each kind the relay remembers

_SUBMSG_DATA = 0x15
_SUBMSG_DATA_FRAG = 0x16
_ENTITY_SPDP_WRITER = b"\x00\x01\x00\xc2"
_PID_PAD = 0x0000
_PID_SENTINEL = 0x0001
_PID_LEASE_DURATION = 0x0002
_PID_METATRAFFIC_UNICAST_LOCATOR = 0x0032
_PID_STATUS_INFO = 0x0071
_LOCATOR_KIND_UDPV4 = 1


class RtpsError(ValueError):
    """A datagram that is not a well-formed RTPS message."""


def spdp_multicast_port(domain: int) -> int:
    """The SPDP multicast port of ``domain`` (RTPS well-known ports: PB 7400 + DG 250 x domain)."""
    return 7400 + 250 * domain


@dataclass
class RelayCounters:
    received: int = 0  # datagrams read
    malformed: int = 0  # datagrams dropped as not well-formed RTPS
    cyclone_announcements: int = 0  # cleaned Cyclone SPDP samples (new or refreshed)
    fastdds_announcements: int = 0
    forwarded: int = 0  # datagrams sent to FastDDS participants
    send_errors: int = 0
    last_error: str = ""


@dataclass
class Spdp:
    """What the relay needs of one participant announcement."""

    vendor: bytes
    guid_prefix: bytes
    disposed: bool = False
    lease_s: float = 10.0
    metatraffic: list[tuple[str, int]] = field(default_factory=list)  # UDPv4 (address, port)


def _submessages(datagram: bytes) -> list[tuple[int, int, int, int]]:
    """(id, flags, body start, body end) of each submessage; RtpsError if malformed."""
    if len(datagram) < 20 or datagram[:4] != b"RTPS":
        raise RtpsError("not an RTPS message (no 20-byte header)")
    if len(datagram) > MAX_DATAGRAM_BYTES:
        raise RtpsError("datagram too large")
    out = []
    pos = 20
    while pos < len(datagram):
        if pos + 4 > len(datagram):
            raise RtpsError(f"submessage header truncated at {pos}")
        sid, flags = datagram[pos], datagram[pos + 1]
        (length,) = struct.unpack_from("<H" if flags & 1 else ">H", datagram, pos + 2)
        start = pos + 4
        end = len(datagram) if length == 0 and sid not in (0x01, 0x09) else start + length  # PAD, INFO_TS may be 0
        if end > len(datagram):
            raise RtpsError(f"submessage 0x{sid:02x} of {length} bytes exceeds the datagram")
        out.append((sid, flags, start, end))
        if len(out) > 64:
            raise RtpsError("more than 64 submessages")
        pos = end
    return out


def _parameters(payload: bytes, start: int, little: bool) -> tuple[list[tuple[int, int, int]], int]:
    """(pid, value start, value end) of each parameter before the sentinel, and the position after
    the sentinel; RtpsError if malformed."""
    fmt = "<HH" if little else ">HH"
    out = []
    pos = start
    while True:
        if pos + 4 > len(payload):
            raise RtpsError("parameter list without its sentinel")
        pid, length = struct.unpack_from(fmt, payload, pos)
        if pid == _PID_SENTINEL:
            return out, pos + 4
        if pos + 4 + length > len(payload):
            raise RtpsError(f"parameter 0x{pid:04x} of {length} bytes exceeds the payload")
        if pid != _PID_PAD:
            out.append((pid & 0xBFFF, pos + 4, pos + 4 + length))  # 0x4000: "must understand" bit
        pos += 4 + length
        if len(out) > MAX_PARAMETERS:
            raise RtpsError(f"more than {MAX_PARAMETERS} parameters")


def _spdp_data(datagram: bytes) -> list[tuple[int, int, int, int, int]]:
    """Each SPDP DATA submessage: (index in the submessage list, flags, body start, payload start,
    body end). The payload starts with its 4-byte encapsulation."""
    found = []
    for index, (sid, flags, start, end) in enumerate(_submessages(datagram)):
        if sid == _SUBMSG_DATA_FRAG and end - start >= 12 and datagram[start + 8:start + 12] == _ENTITY_SPDP_WRITER:
            raise RtpsError("fragmented participant announcement (not rewritten)")
        if sid != _SUBMSG_DATA or end - start < 20:
            continue
        if datagram[start + 8:start + 12] != _ENTITY_SPDP_WRITER:
            continue
        (to_qos,) = struct.unpack_from("<H" if flags & 1 else ">H", datagram, start + 2)
        pos = start + 4 + to_qos
        if pos > end:
            raise RtpsError("octetsToInlineQos beyond the submessage")
        if flags & 0x02:  # inline QoS: a parameter list of its own
            _, pos = _parameters(datagram[:end], pos, bool(flags & 1))
        if not flags & 0x0C:  # neither data nor key: nothing to read
            continue
        if pos + 4 > end:
            raise RtpsError("serialized payload truncated")
        found.append((index, flags, start, pos, end))
    return found


def parse_spdp(datagram: bytes) -> list[Spdp]:
    """The participant announcements in ``datagram`` (none if it holds no SPDP DATA)."""
    vendor, prefix = datagram[6:8], datagram[8:20]
    out = []
    for _, flags, start, pos, end in _spdp_data(datagram):
        info = Spdp(vendor=vendor, guid_prefix=prefix)
        little_sub = bool(flags & 1)
        if flags & 0x02:  # inline QoS may carry the status (disposed / unregistered)
            (to_qos,) = struct.unpack_from("<H" if little_sub else ">H", datagram, start + 2)
            for pid, a, b in _parameters(datagram[:end], start + 4 + to_qos, little_sub)[0]:
                if pid == _PID_STATUS_INFO and b - a >= 4 and datagram[a + 3] & 0x03:
                    info.disposed = True
        encapsulation = datagram[pos:pos + 2]
        if encapsulation not in (b"\x00\x02", b"\x00\x03"):  # PL_CDR_BE, PL_CDR_LE
            if flags & 0x08:  # a key-only payload (a dispose) may be plain CDR
                info.disposed = True
                out.append(info)
                continue
            raise RtpsError(f"participant data encapsulation 0x{encapsulation.hex()} is not a parameter list")
        little = encapsulation == b"\x00\x03"
        for pid, a, b in _parameters(datagram[:end], pos + 4, little)[0]:
            if pid == _PID_LEASE_DURATION and b - a >= 8:
                sec, frac = struct.unpack_from("<iI" if little else ">iI", datagram, a)
                info.lease_s = max(0.1, min(3600.0, sec + frac / 2**32))
            elif pid == _PID_METATRAFFIC_UNICAST_LOCATOR and b - a >= 24:
                kind, port = struct.unpack_from("<iI" if little else ">iI", datagram, a)
                if kind == _LOCATOR_KIND_UDPV4 and 0 < port < 65536 and len(info.metatraffic) < 8:
                    info.metatraffic.append((socket.inet_ntoa(datagram[a + 20:a + 24]), port))
        out.append(info)
    return out


def strip_spdp_parameters(datagram: bytes, pids: frozenset[int] = frozenset({PID_CYCLONE_PARTICIPANT_VERSION_INFO})
                          ) -> tuple[bytes, int]:
    """``datagram`` with the parameters ``pids`` removed from every participant announcement:
    (the new datagram, how many were removed). RtpsError if it is malformed."""
    subs = _submessages(datagram)
    spdp = {index: (pos, end) for index, _, _, pos, end in _spdp_data(datagram)}
    if not spdp:
        return datagram, 0
    out = bytearray(datagram[:20])
    removed = 0
    for index, (sid, flags, start, end) in enumerate(subs):
        body = datagram[start:end]
        if index in spdp:
            pos, _ = spdp[index]
            encapsulation = datagram[pos:pos + 2]
            if encapsulation in (b"\x00\x02", b"\x00\x03"):
                little = encapsulation == b"\x00\x03"
                params, _ = _parameters(datagram[:end], pos + 4, little)
                kept = bytearray(datagram[pos:pos + 4])
                for pid, a, b in params:
                    if pid in pids:
                        removed += 1
                        continue
                    kept += datagram[a - 4:b]
                kept += struct.pack("<HH" if little else ">HH", _PID_SENTINEL, 0)
                body = datagram[start:pos] + bytes(kept)
        length = len(body)
        if length > 0xFFFF:  # pragma: no cover - a datagram is at most 64 KiB
            raise RtpsError("submessage too long")
        last = index == len(subs) - 1
        original_length = struct.unpack_from("<H" if flags & 1 else ">H", datagram, start - 2)[0]
        length_field = 0 if (last and original_length == 0) else length
        out += bytes((sid, flags)) + struct.pack("<H" if flags & 1 else ">H", length_field) + body
    return bytes(out), removed


def _is_loopback(address: str) -> bool:
    return address.startswith("127.")


class FastDdsRelay:
    """The relay (see the module docstring). ``start()`` opens its sockets and thread;
    ``peer_port`` is the loopback port Cyclone must list as a discovery peer."""

    def __init__(self, domain: int = 0, *, refresh_s: float = 1.0,
                 strip: frozenset[int] = frozenset({PID_CYCLONE_PARTICIPANT_VERSION_INFO})) -> None:
        self.domain = domain
        self.refresh_s = refresh_s
        self.strip = strip
        self.counters = RelayCounters()
        self.peer_port = 0
        self._cyclone: dict[bytes, tuple[bytes, float, float]] = {}  # prefix -> (datagram, seen, lease)
        self._fastdds: dict[bytes, tuple[list[tuple[str, int]], float, float]] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._unicast: socket.socket | None = None
        self._multicast: socket.socket | None = None
        self._out: socket.socket | None = None
        self.first_forward_s: float | None = None  # monotonic time of the first announcement sent to FastDDS

    # --- life ---------------------------------------------------------------------------------
    def start(self) -> FastDdsRelay:
        if self._thread is not None:
            return self
        uni = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        uni.bind(("127.0.0.1", 0))
        self.peer_port = uni.getsockname()[1]
        mc = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            mc.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if hasattr(socket, "SO_REUSEPORT"):
                mc.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            mc.bind((SPDP_MULTICAST_ADDRESS, spdp_multicast_port(self.domain)))
            mc.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                          socket.inet_aton(SPDP_MULTICAST_ADDRESS) + socket.inet_aton("127.0.0.1"))
        except OSError:
            mc.close()
            uni.close()
            raise
        self._unicast, self._multicast, self._out = uni, mc, uni
        self._thread = threading.Thread(target=self._run, name="fastdds-relay", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None
        for sock in (self._unicast, self._multicast):
            if sock is not None:
                sock.close()
        self._unicast = self._multicast = self._out = None

    def __enter__(self) -> FastDdsRelay:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- work ---------------------------------------------------------------------------------
    def _run(self) -> None:
        socks = [s for s in (self._unicast, self._multicast) if s is not None]
        next_refresh = time.monotonic() + self.refresh_s
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select(socks, [], [], 0.1)
            except (OSError, ValueError):  # closed under us
                return
            for sock in ready:
                try:
                    datagram, _ = sock.recvfrom(MAX_DATAGRAM_BYTES)
                except OSError:
                    continue
                try:
                    self.handle(datagram, time.monotonic())
                except Exception as exc:  # a bug must not end discovery: count it, log once
                    self.counters.malformed += 1
                    if not self.counters.last_error:
                        _log.exception("fastdds relay: unexpected error on a datagram")
                    self.counters.last_error = repr(exc)
            now = time.monotonic()
            if now >= next_refresh:
                next_refresh = now + self.refresh_s
                self._expire(now)
                self._forward_all()

    def handle(self, datagram: bytes, now: float) -> None:
        """One received datagram (the thread calls this; tests may too)."""
        c = self.counters
        c.received += 1
        try:
            vendor = datagram[6:8]
            if vendor == VENDOR_CYCLONE:
                announcements = parse_spdp(datagram)
                if not announcements:
                    return
                cleaned, _ = strip_spdp_parameters(datagram, self.strip)
                self._cyclone_seen(announcements, cleaned, now)
            elif vendor == VENDOR_EPROSIMA:
                self._fastdds_seen(parse_spdp(datagram), now)
            elif datagram[:4] != b"RTPS" or len(datagram) < 20:
                raise RtpsError("not an RTPS message")
        except (RtpsError, struct.error, IndexError, OSError) as exc:
            c.malformed += 1
            c.last_error = str(exc)

    def _cyclone_seen(self, announcements: list[Spdp], cleaned: bytes, now: float) -> None:
        info = announcements[0]
        self.counters.cyclone_announcements += 1
        if any(a.disposed for a in announcements):
            self._cyclone.pop(info.guid_prefix, None)
            self._send_to_fastdds([cleaned])
            return
        old = self._cyclone.get(info.guid_prefix)
        if old is None and len(self._cyclone) >= MAX_PARTICIPANTS:
            return
        self._cyclone[info.guid_prefix] = (cleaned, now, info.lease_s)
        if old is None or old[0] != cleaned:
            self._send_to_fastdds([cleaned])

    def _fastdds_seen(self, announcements: list[Spdp], now: float) -> None:
        for info in announcements:
            self.counters.fastdds_announcements += 1
            if info.disposed:
                self._fastdds.pop(info.guid_prefix, None)
                continue
            targets = [t for t in info.metatraffic if _is_loopback(t[0])]
            if not targets:
                continue
            if info.guid_prefix not in self._fastdds and len(self._fastdds) >= MAX_PARTICIPANTS:
                continue
            self._fastdds[info.guid_prefix] = (targets, now, info.lease_s)
            # Answer every announcement, as SPDP does: FastDDS ignores what arrives while it is
            # still starting, and it announces itself several times as it starts.
            self._send([d for d, _, _ in self._cyclone.values()], targets)

    def _expire(self, now: float) -> None:
        for table in (self._cyclone, self._fastdds):
            for prefix in [p for p, (_, seen, lease) in table.items() if now - seen > lease]:
                del table[prefix]

    def _forward_all(self) -> None:
        self._send_to_fastdds([d for d, _, _ in self._cyclone.values()])

    def _send_to_fastdds(self, datagrams: list[bytes]) -> None:
        targets = [t for targets, _, _ in self._fastdds.values() for t in targets]
        self._send(datagrams, targets)

    def _send(self, datagrams: list[bytes], targets: list[tuple[str, int]]) -> None:
        out = self._out
        if out is None or not datagrams or not targets:
            return
        for target in targets:
            for datagram in datagrams:
                try:
                    out.sendto(datagram, target)
                    self.counters.forwarded += 1
                except OSError as exc:
                    self.counters.send_errors += 1
                    self.counters.last_error = f"send to {target}: {exc}"
        if self.first_forward_s is None:
            self.first_forward_s = time.monotonic()

    def snapshot(self) -> dict[str, int]:
        """Counters and table sizes, for logs and tests."""
        c = self.counters
        return {"received": c.received, "malformed": c.malformed, "cyclone_announcements": c.cyclone_announcements,
                "fastdds_announcements": c.fastdds_announcements, "forwarded": c.forwarded,
                "send_errors": c.send_errors, "cyclone_participants": len(self._cyclone),
                "fastdds_participants": len(self._fastdds)}
