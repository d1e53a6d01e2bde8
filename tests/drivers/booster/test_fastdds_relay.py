"""The FastDDS discovery relay's RTPS handling, on made-up datagrams (no DDS; the relay's sockets
are replaced by one on loopback). The relay against the real SDK is in test_cyclone.py."""
from __future__ import annotations

import socket
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soccerbt.drivers.booster.fastdds_relay import (
    FastDdsRelay,
    RtpsError,
    parse_spdp,
    spdp_multicast_port,
    strip_spdp_parameters,
)

CYCLONE, EPROSIMA = b"\x01\x10", b"\x01\x0f"
PREFIX_C = bytes(range(1, 13))
PREFIX_F = bytes(range(101, 113))


def header(vendor: bytes, prefix: bytes) -> bytes:
    return b"RTPS\x02\x03" + vendor + prefix


def param(pid: int, value: bytes) -> bytes:
    value += b"\0" * ((-len(value)) % 4)
    return struct.pack("<HH", pid, len(value)) + value


def locator(address: str, port: int) -> bytes:
    return struct.pack("<iI", 1, port) + bytes(12) + socket.inet_aton(address)


def info_ts() -> bytes:
    return bytes((0x09, 0x01)) + struct.pack("<H", 8) + struct.pack("<iI", 1_700_000_000, 5)


def spdp_data(params: list[bytes], *, inline_qos: list[bytes] | None = None, last: bool = True) -> bytes:
    flags = 0x01 | 0x04 | (0x02 if inline_qos else 0)
    body = struct.pack("<HH", 0, 16) + b"\x00\x01\x00\xc7" + b"\x00\x01\x00\xc2" + struct.pack("<iI", 0, 1)
    if inline_qos:
        body += b"".join(inline_qos) + struct.pack("<HH", 1, 0)
    body += b"\x00\x03\x00\x00" + b"".join(params) + struct.pack("<HH", 1, 0)
    return bytes((0x15, flags)) + struct.pack("<H", 0 if last else len(body)) + body


VERSION_INFO = param(0x8007, b"\x00" * 8 + b"internals: vm/11.0.1/Linux\0")
CYCLONE_PARAMS = [
    param(0x0002, struct.pack("<iI", 10, 0)),  # lease duration 10 s
    param(0x0015, b"\x02\x03"),
    param(0x0016, CYCLONE),
    param(0x0050, PREFIX_C + b"\x00\x00\x01\xc1"),
    param(0x0032, locator("127.0.0.1", 47001)),
    VERSION_INFO,
    param(0x8019, b"\x00\x00\x00\x01"),
]


def cyclone_spdp(twice: bool = False) -> bytes:
    data = spdp_data(CYCLONE_PARAMS, last=not twice)
    return header(CYCLONE, PREFIX_C) + info_ts() + data + (spdp_data(CYCLONE_PARAMS) if twice else b"")


def fastdds_spdp(port: int, address: str = "127.0.0.1") -> bytes:
    params = [param(0x0015, b"\x02\x03"), param(0x0016, EPROSIMA), param(0x0050, PREFIX_F + b"\x00\x00\x01\xc1"),
              param(0x8007, struct.pack("<I", 7)), param(0x0032, locator(address, port)),
              param(0x0002, struct.pack("<iI", 20, 0))]
    return header(EPROSIMA, PREFIX_F) + info_ts() + spdp_data(params)


def test_multicast_port() -> None:
    assert spdp_multicast_port(0) == 7400
    assert spdp_multicast_port(1) == 7650


@pytest.mark.parametrize("twice", [False, True])
def test_strip_removes_only_the_version_info(twice: bool) -> None:
    original = cyclone_spdp(twice)
    cleaned, removed = strip_spdp_parameters(original)
    assert removed == (2 if twice else 1)
    assert len(cleaned) == len(original) - removed * len(VERSION_INFO)
    assert VERSION_INFO not in cleaned
    without = [p for p in CYCLONE_PARAMS if p is not VERSION_INFO]
    assert cleaned == header(CYCLONE, PREFIX_C) + info_ts() + spdp_data(without, last=not twice) + (
        spdp_data(without) if twice else b"")
    again, removed_again = strip_spdp_parameters(cleaned)
    assert (again, removed_again) == (cleaned, 0)


def test_parse_participant_announcements() -> None:
    (info,) = parse_spdp(cyclone_spdp())
    assert (info.vendor, info.guid_prefix, info.lease_s, info.disposed) == (CYCLONE, PREFIX_C, 10.0, False)
    assert info.metatraffic == [("127.0.0.1", 47001)]
    (fast,) = parse_spdp(fastdds_spdp(7410))
    assert (fast.vendor, fast.metatraffic, fast.lease_s) == (EPROSIMA, [("127.0.0.1", 7410)], 20.0)
    status = param(0x0071, b"\x00\x00\x00\x03")
    disposed = header(CYCLONE, PREFIX_C) + spdp_data(CYCLONE_PARAMS, inline_qos=[status])
    assert parse_spdp(disposed)[0].disposed
    assert parse_spdp(header(CYCLONE, PREFIX_C) + info_ts()) == []  # no announcement in it


@pytest.mark.parametrize("bad", [
    b"RTPS",  # no full header
    header(CYCLONE, PREFIX_C) + b"\x15\x01\xff\x00",  # submessage longer than the datagram
    cyclone_spdp()[:-4],  # parameter list without its sentinel
    cyclone_spdp()[:60],
    header(CYCLONE, PREFIX_C) + spdp_data([param(0x0032, b"\x00" * 4)])[:-4] + struct.pack("<HH", 0x50, 400),
])
def test_malformed_datagrams_raise_rtps_error(bad: bytes) -> None:
    with pytest.raises(RtpsError):
        strip_spdp_parameters(bad)
    with pytest.raises(RtpsError):
        parse_spdp(bad)


class Receiver:
    """A UDP socket on loopback standing for a FastDDS participant's discovery port."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]

    def drain(self) -> list[bytes]:
        out = []
        while True:
            try:
                out.append(self.sock.recv(65536))
            except socket.timeout:
                return out


@pytest.fixture
def relay_and_receiver() -> tuple[FastDdsRelay, Receiver]:
    relay = FastDdsRelay(0)  # not started: no multicast, datagrams are handed to it
    receiver = Receiver()
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    relay._out = out
    yield relay, receiver
    out.close()
    receiver.sock.close()


def test_relay_forwards_cleaned_announcements_to_fastdds(relay_and_receiver: tuple[FastDdsRelay, Receiver]) -> None:
    relay, receiver = relay_and_receiver
    relay.handle(cyclone_spdp(), now=0.0)  # no FastDDS participant yet: kept, not sent
    assert receiver.drain() == []
    relay.handle(fastdds_spdp(receiver.port), now=0.1)  # a new FastDDS participant gets what is kept
    cleaned, _ = strip_spdp_parameters(cyclone_spdp())
    assert receiver.drain() == [cleaned]
    relay.handle(cyclone_spdp(), now=0.5)  # unchanged: not resent at once
    assert receiver.drain() == []
    relay.handle(fastdds_spdp(receiver.port), now=0.6)  # every FastDDS announcement is answered
    assert receiver.drain() == [cleaned]
    relay._forward_all()  # the periodic refresh
    assert receiver.drain() == [cleaned]
    relay.handle(fastdds_spdp(9999, address="10.1.2.3"), now=0.7)  # not on loopback: never a target
    assert relay.snapshot()["fastdds_participants"] == 1
    status = param(0x0071, b"\x00\x00\x00\x01")
    relay.handle(header(CYCLONE, PREFIX_C) + spdp_data(CYCLONE_PARAMS, inline_qos=[status]), now=1.0)
    assert len(receiver.drain()) == 1  # the dispose is forwarded once
    assert relay.snapshot()["cyclone_participants"] == 0
    relay.handle(cyclone_spdp(), now=2.0)
    relay._expire(now=25.0)  # both leases ran out
    assert relay.snapshot()["cyclone_participants"] == relay.snapshot()["fastdds_participants"] == 0
    assert relay.counters.malformed == 0


def test_relay_counts_malformed(relay_and_receiver: tuple[FastDdsRelay, Receiver]) -> None:
    relay, receiver = relay_and_receiver
    for bad in (b"", b"hello", cyclone_spdp()[:-4], fastdds_spdp(receiver.port)[:70]):
        relay.handle(bad, now=0.0)
    assert relay.counters.malformed == 4
    assert relay.counters.received == 4
    assert relay.counters.last_error


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300), st.sampled_from([CYCLONE, EPROSIMA, b"\x01\x01"]))
def test_relay_never_raises_on_garbage(payload: bytes, vendor: bytes) -> None:
    relay = FastDdsRelay(0)
    for datagram in (payload, header(vendor, PREFIX_C) + payload, cyclone_spdp()[:len(payload)] + payload):
        relay.handle(datagram, now=0.0)
    assert relay.counters.received == 3


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=6))
def test_relay_never_raises_on_corrupted_announcements(flips: list[tuple[int, int]]) -> None:
    relay = FastDdsRelay(0)
    data = bytearray(cyclone_spdp(twice=True))
    for position, value in flips:
        data[position % len(data)] = value
    relay.handle(bytes(data), now=0.0)
    assert relay.counters.received == 1
