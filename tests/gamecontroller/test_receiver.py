"""The UDP receiver on real loopback sockets (ephemeral ports): newest packet kept, garbage
counted and survived, foreign and not-allowed packets counted, alive return packets sent."""
from __future__ import annotations

import dataclasses
import select
import socket

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soccerbt.gamecontroller.protocol import GameControlData, TeamInfo, decode_return, encode
from soccerbt.gamecontroller.receiver import GameControllerReceiver

LOOPBACK = "127.0.0.1"


def packet(number: int, teams: tuple[int, int] = (3, 4)) -> bytes:
    return encode(GameControlData(packet_number=number, teams=(TeamInfo(teams[0]), TeamInfo(teams[1], 1))))


def poll_until(rx: GameControllerReceiver, now_s: float, want_received: int, rounds: int = 200):
    """Poll until the receiver has read ``want_received`` datagrams (select waits for data)."""
    newest = None
    for _ in range(rounds):
        got = rx.poll(now_s)
        newest = got or newest
        if rx.counters.received >= want_received:
            return newest
        select.select([rx], [], [], 0.05)
    raise AssertionError(f"only {rx.counters.received} of {want_received} datagrams arrived")


@pytest.fixture
def rx():
    receiver = GameControllerReceiver(3, 2, host=LOOPBACK, port=0, send_alive=False, clock=lambda: 0.0)
    yield receiver
    receiver.close()


def test_poll_does_not_block_and_returns_none_without_data(rx: GameControllerReceiver) -> None:
    assert rx.poll(0.0) is None
    assert rx.counters.received == 0 and not rx.connected(0.0)


def test_keeps_the_newest_packet_for_our_team(rx: GameControllerReceiver, udp_sender: socket.socket) -> None:
    for n in (10, 11, 12):
        udp_sender.sendto(packet(n), (LOOPBACK, rx.port))
    newest = poll_until(rx, 5.0, 3)
    assert newest.packet_number == 12 and rx.latest is newest
    assert rx.counters.accepted == 3
    assert rx.connected(6.9) and not rx.connected(7.1)  # timeout_s 2 after the last packet at 5.0
    assert rx.poll(8.0) is None and rx.latest is newest  # nothing new: None, latest stays


def test_counts_foreign_and_malformed(rx: GameControllerReceiver, udp_sender: socket.socket) -> None:
    udp_sender.sendto(packet(1, teams=(7, 8)), (LOOPBACK, rx.port))  # not naming team 3
    udp_sender.sendto(b"garbage", (LOOPBACK, rx.port))
    udp_sender.sendto(packet(2)[:-1], (LOOPBACK, rx.port))
    udp_sender.sendto(packet(3), (LOOPBACK, rx.port))
    newest = poll_until(rx, 0.0, 4)
    c = rx.counters
    assert (c.received, c.accepted, c.foreign, c.dropped_malformed) == (4, 1, 1, 2)
    assert newest.packet_number == 3


def test_allow_list(udp_sender: socket.socket) -> None:
    with GameControllerReceiver(3, 1, host=LOOPBACK, port=0, allow=["127.0.0.9"], send_alive=False) as rx:
        udp_sender.sendto(packet(1), (LOOPBACK, rx.port))
        assert poll_until(rx, 0.0, 1) is None
        assert rx.counters.not_allowed == 1 and rx.latest is None
    with GameControllerReceiver(3, 1, host=LOOPBACK, port=0, allow=[LOOPBACK], send_alive=False) as rx:
        udp_sender.sendto(packet(1), (LOOPBACK, rx.port))
        assert poll_until(rx, 0.0, 1) is not None and rx.counters.not_allowed == 0


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(garbage=st.lists(st.one_of(
    st.binary(min_size=1, max_size=900),
    st.integers(0, 687).map(lambda n: packet(0)[:n] or b"x"),
    st.lists(st.integers(0, 688 * 8 - 1), min_size=1, max_size=4).map(
        lambda bits: _flip(packet(0), bits))), min_size=1, max_size=12))
def test_garbage_is_counted_and_the_receiver_keeps_running(rx: GameControllerReceiver, udp_sender: socket.socket,
                                                           garbage: list[bytes]) -> None:
    base = dataclasses.replace(rx.counters)
    for data in garbage:
        udp_sender.sendto(data, (LOOPBACK, rx.port))
    udp_sender.sendto(packet(99), (LOOPBACK, rx.port))
    poll_until(rx, 1.0, base.received + len(garbage) + 1)
    c = rx.counters
    assert c.received - base.received == len(garbage) + 1
    # every datagram is accounted for exactly once
    assert (c.accepted - base.accepted) + (c.dropped_malformed - base.dropped_malformed) \
        + (c.foreign - base.foreign) == len(garbage) + 1
    assert rx.latest is not None and rx.connected(1.0)


def _flip(data: bytes, bits: list[int]) -> bytes:
    buf = bytearray(data)
    for b in bits:
        buf[b // 8] ^= 1 << (b % 8)
    return bytes(buf)


def test_alive_return_packets_go_to_the_sender_about_once_a_second() -> None:
    ret = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ret.bind((LOOPBACK, 0))
    ret.setblocking(False)
    try:
        with GameControllerReceiver(3, 2, host=LOOPBACK, port=0, return_port=ret.getsockname()[1]) as rx, \
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as gc:
            for k in range(5):  # 2 Hz for 2.5 s of (injected) time
                gc.sendto(packet(k), (LOOPBACK, rx.port))
                poll_until(rx, 0.5 * k, k + 1)
            assert rx.counters.returns_sent == 3  # at t = 0, 1, 2
            got = []
            for _ in range(100):
                select.select([ret], [], [], 0.05)
                try:
                    data, addr = ret.recvfrom(64)
                except BlockingIOError:
                    if len(got) == 3:
                        break
                    continue
                got.append(decode_return(data))
            assert [(r.team, r.player, r.message) for r in got] == [(3, 2, 2)] * 3
            # no packets for longer than the timeout: no more alive packets
            assert rx.poll(10.0) is None and rx.counters.returns_sent == 3
    finally:
        ret.close()


def test_unreachable_return_port_does_not_break_receiving(udp_sender: socket.socket) -> None:
    # find a free port and close it again: ICMP port unreachable comes back to our socket
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind((LOOPBACK, 0))
    dead_port = probe.getsockname()[1]
    probe.close()
    with GameControllerReceiver(3, 2, host=LOOPBACK, port=0, return_port=dead_port, alive_period_s=0.0) as rx:
        for k in range(4):
            udp_sender.sendto(packet(k), (LOOPBACK, rx.port))
            poll_until(rx, float(k), rx.counters.received + 1)
        assert rx.counters.accepted == 4 and rx.latest.packet_number == 3


def test_several_receivers_share_a_port() -> None:
    with GameControllerReceiver(3, 1, host=LOOPBACK, port=0, send_alive=False) as a:
        with GameControllerReceiver(3, 2, host=LOOPBACK, port=a.port, send_alive=False) as b:
            assert a.port == b.port


def test_invalid_numbers_are_rejected() -> None:
    with pytest.raises(ValueError):
        GameControllerReceiver(3, 0, host=LOOPBACK, port=0)
    with pytest.raises(ValueError):
        GameControllerReceiver(300, 1, host=LOOPBACK, port=0)


def test_closed_receiver_polls_none() -> None:
    rx = GameControllerReceiver(3, 1, host=LOOPBACK, port=0, send_alive=False)
    rx.close()
    assert rx.poll(0.0) is None
    with pytest.raises(ValueError):
        rx.fileno()


# --- HSL v19 / v20 on the same port ----------------------------------------------------------

from soccerbt.gamecontroller.hsl_protocol import HslControlData, HslRobotInfoV19, HslTeamInfo, status_message  # noqa: E402
from soccerbt.gamecontroller.protocol import HslReturnData, ReturnData  # noqa: E402


def hsl_packet(number: int, version: int = 20, teams: tuple[int, int] = (3, 4)) -> bytes:
    if version == 19:
        blocks = tuple(HslTeamInfo(t, players=(HslRobotInfoV19(),) * 20) for t in teams)
    else:
        blocks = (HslTeamInfo(teams[0]), HslTeamInfo(teams[1], 1))
    return encode(HslControlData(version=version, packet_number=number, teams=blocks))


def test_all_three_versions_on_one_port(rx: GameControllerReceiver, udp_sender: socket.socket) -> None:
    sends = [packet(1), hsl_packet(2, 19), hsl_packet(3, 20), hsl_packet(4, 20, teams=(7, 8)),
             hsl_packet(5, 20)[:-1], b"RGme\x15" + bytes(153), hsl_packet(6, 19) + b"\x00"]
    for data in sends:
        udp_sender.sendto(data, (LOOPBACK, rx.port))
    newest = poll_until(rx, 0.0, len(sends))
    c = rx.counters
    assert (c.hl_v12, c.hsl_v19, c.hsl_v20) == (1, 1, 2)
    assert (c.accepted, c.foreign, c.dropped_malformed) == (3, 1, 3)
    assert isinstance(newest, HslControlData) and newest.version == 20 and newest.packet_number == 3


def _collect(sock: socket.socket, want: int) -> list:
    got = []
    for _ in range(100):
        select.select([sock], [], [], 0.05)
        try:
            got.append(decode_return(sock.recvfrom(64)[0]))
        except BlockingIOError:
            if len(got) >= want:
                break
    return got


def test_robot_answers_in_the_family_it_hears() -> None:
    ret = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ret.bind((LOOPBACK, 0))
    ret.setblocking(False)
    try:
        with GameControllerReceiver(3, 12, host=LOOPBACK, port=0, return_port=ret.getsockname()[1]) as rx, \
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as gc:
            sent = rx.update_status(fallen=True, pose_x_mm=1200.0, pose_y_mm=-300.0, pose_theta_rad=float("nan"),
                                    ball_age_s=0.5, ball_x_mm=400.0, ball_y_mm=10.0)
            assert sent.pose_theta_rad == 0.0  # NaN replaced
            times = [0.0, 0.5, 1.0, 1.5, 2.0]  # HSL at 2 Hz: status messages at t = 0, 1, 2
            for k, t in enumerate(times):
                gc.sendto(hsl_packet(k), (LOOPBACK, rx.port))
                poll_until(rx, t, k + 1)
            assert rx.counters.status_sent == 3 and rx.counters.returns_sent == 3
            got = _collect(ret, 3)
            assert got == [HslReturnData(12, 3, 1, 1200.0, -300.0, 0.0, 0.5, 400.0, 10.0)] * 3
            # the GameController switches to HL v12: alive packets from then on
            gc.sendto(packet(9), (LOOPBACK, rx.port))
            poll_until(rx, 3.0, 6)
            got = _collect(ret, 1)
            assert got == [ReturnData(3, 12, 2)]
            assert rx.counters.status_sent == 3 and rx.counters.returns_sent == 4
    finally:
        ret.close()


def test_status_defaults_before_any_update(rx: GameControllerReceiver) -> None:
    assert rx._status == status_message(3, 2, fallen=False)
    assert rx._status.ball_age_s == -1.0 and rx._status.fallen == 0


def test_player_numbers_up_to_twenty() -> None:
    with GameControllerReceiver(3, 20, host=LOOPBACK, port=0, send_alive=False) as rx:
        assert rx.player == 20
    with pytest.raises(ValueError, match="1..20"):
        GameControllerReceiver(3, 21, host=LOOPBACK, port=0)


def _finished(number: int) -> bytes:
    return encode(GameControlData(packet_number=number, state=4, teams=(TeamInfo(3), TeamInfo(4, 1))))


def _playing(number: int) -> bytes:
    return encode(GameControlData(packet_number=number, state=3, teams=(TeamInfo(3), TeamInfo(4, 1))))


def _drain(sock: socket.socket, rounds: int = 10) -> list[bytes]:
    got = []
    for _ in range(rounds):
        select.select([sock], [], [], 0.05)
        try:
            got.append(sock.recvfrom(64)[0])
        except BlockingIOError:
            continue
    return got


def test_a_spoofer_on_the_network_cannot_replace_the_locked_gamecontroller(caplog: pytest.LogCaptureFixture) -> None:
    # the real GameController at 127.0.0.1, a spoofer at 127.0.0.2 sending FINISHED (packet number 0)
    real_ret = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    real_ret.bind((LOOPBACK, 0))
    port = real_ret.getsockname()[1]
    spoof_ret = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    spoof_ret.bind(("127.0.0.2", port))
    for s in (real_ret, spoof_ret):
        s.setblocking(False)
    try:
        with GameControllerReceiver(3, 2, host=LOOPBACK, port=0, return_port=port) as rx, \
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as real, \
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as spoofer:
            real.bind((LOOPBACK, 0))
            spoofer.bind(("127.0.0.2", 0))
            real.sendto(_playing(7), (LOOPBACK, rx.port))
            poll_until(rx, 0.0, 1)
            for k in range(3):
                spoofer.sendto(_finished(0), (LOOPBACK, rx.port))
                real.sendto(_playing(8 + k), (LOOPBACK, rx.port))
                poll_until(rx, 1.0 + k, 3 + 2 * k)
            assert rx.locked_address == LOOPBACK and rx.latest.state == 3  # still PLAYING
            assert rx.counters.not_locked == 3 and rx.counters.accepted == 4
            said = [r.getMessage() for r in caplog.records if "locked onto" in r.getMessage()]
            assert len(said) == 1 and said[0].startswith("packet from 127.0.0.2 ignored: locked onto the "
                                                         "GameController at 127.0.0.1")
            assert len(_drain(real_ret)) >= 1 and _drain(spoof_ret) == []  # answers go to the locked one only
            # the real one falls silent for the release time: a GameController restarted elsewhere is taken
            spoofer.sendto(_finished(1), (LOOPBACK, rx.port))
            poll_until(rx, 3.0 + rx.lock_release_s, 8)
            assert rx.locked_address == "127.0.0.2" and rx.counters.lock_moves == 1 and rx.latest.state == 4
    finally:
        real_ret.close()
        spoof_ret.close()


def test_an_allow_list_takes_every_allowed_sender_and_no_other(udp_sender: socket.socket) -> None:
    with GameControllerReceiver(3, 1, host=LOOPBACK, port=0, allow=[LOOPBACK], send_alive=False) as rx, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as spoofer:
        spoofer.bind(("127.0.0.2", 0))
        spoofer.sendto(_finished(0), (LOOPBACK, rx.port))
        udp_sender.sendto(_playing(5), (LOOPBACK, rx.port))
        poll_until(rx, 0.0, 2)
        assert rx.latest.state == 3 and rx.counters.not_allowed == 1 and rx.locked_address is None


def test_gc_listen_and_brain_name_the_allow_list_alike() -> None:
    import argparse

    from soccerbt.gamecontroller.cli import configure as gc_configure
    from soccerbt.robot.cli import configure as brain_configure

    gc = argparse.ArgumentParser()
    gc_configure(gc)
    assert gc.parse_args(["listen", "--team", "3", "--player", "1", "--gc-allow", "10.0.0.2"]).allow == ["10.0.0.2"]
    assert gc.parse_args(["listen", "--team", "3", "--player", "1", "--allow", "10.0.0.3"]).allow == ["10.0.0.3"]
    brain = argparse.ArgumentParser()
    brain_configure(brain)
    args = brain.parse_args(["--robot", "blue1", "--gc-allow", "10.0.0.2", "--gc-allow", "10.0.0.4"])
    assert args.gc_allow == ["10.0.0.2", "10.0.0.4"]
