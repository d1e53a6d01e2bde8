"""Team messages over UDP: the codec, and brains on one host hearing each other on loopback."""
from __future__ import annotations

import math
import socket
import time

import pytest

from soccerbt.robot.team_udp import (
    MESSAGE_BYTES,
    TeamWireError,
    UdpTeamLink,
    decode_team_message,
    encode_team_message,
    team_port,
)
from soccerbt.services.planning import Role, RoleChoice, TeamMessage
from soccerbt.world.types import Pose2D, RobotId, Team

BLUE2 = RobotId(Team.BLUE, 2)


def _message(**kw: object) -> TeamMessage:
    base = dict(sender=BLUE2, pose=Pose2D(1.5, -2.25, 0.5), ball_xy=(3.0, 0.5), ball_age_s=0.25, cost_to_ball_s=4.5,
                role=Role.STRIKER, timestamp_s=10.0, active=True, role_choice=None)
    base.update(kw)
    return TeamMessage(**base)  # type: ignore[arg-type]


def test_round_trip_keeps_every_field_and_restamps_time() -> None:
    choice = RoleChoice(t_s=8.0, goalkeeper=3, striker=2, live=True)
    data = encode_team_message(_message(role_choice=choice), team_number=17, now_s=10.0)
    assert len(data) == MESSAGE_BYTES <= 512
    team, msg = decode_team_message(data, now_s=100.0)  # another robot's clock
    assert team == 17
    assert msg.sender == BLUE2 and msg.role is Role.STRIKER and msg.active
    assert msg.pose == pytest.approx(Pose2D(1.5, -2.25, 0.5))
    assert msg.ball_xy == pytest.approx((3.0, 0.5))
    assert (msg.ball_age_s, msg.cost_to_ball_s) == (0.25, 4.5)
    assert msg.timestamp_s == 100.0  # stamped on arrival with the receiver's clock
    assert msg.role_choice is not None
    assert msg.role_choice.t_s == pytest.approx(98.0)  # its age (2 s) carried over
    assert (msg.role_choice.goalkeeper, msg.role_choice.striker, msg.role_choice.live) == (3, 2, True)


def test_missing_pose_ball_and_infinite_cost() -> None:
    data = encode_team_message(_message(pose=None, ball_xy=None, ball_age_s=math.inf, cost_to_ball_s=math.inf,
                                        role=Role.GOALKEEPER, active=False,
                                        role_choice=RoleChoice(5.0, None, None, live=False)), 1, 5.0)
    _, msg = decode_team_message(data, 5.0)
    assert msg.pose is None and msg.ball_xy is None and not msg.active
    assert math.isinf(msg.cost_to_ball_s) and msg.role is Role.GOALKEEPER
    assert msg.role_choice == RoleChoice(5.0, None, None, live=False)


@pytest.mark.parametrize("mutate, fragment", [
    (lambda d: d[:-1], "bytes"),
    (lambda d: d + b"x", "bytes"),
    (lambda d: b"XXXX" + d[4:], "magic"),
    (lambda d: d[:4] + bytes([9]) + d[5:], "version"),
    (lambda d: d[:7] + bytes([0]) + d[8:], "player"),
    (lambda d: d[:10] + b"\x00\x00\xc0\x7f" + d[14:], "pose"),  # x = NaN
])
def test_bad_datagrams_are_refused(mutate, fragment: str) -> None:
    good = encode_team_message(_message(), 1, 10.0)
    with pytest.raises(TeamWireError, match=fragment):
        decode_team_message(mutate(good), 10.0)


def test_brains_on_one_host_hear_their_teammates_only() -> None:
    port = _free_port()
    me, mate, foe = RobotId(Team.BLUE, 1), RobotId(Team.BLUE, 2), RobotId(Team.RED, 1)
    with UdpTeamLink(1, address="127.255.255.255", port=port) as a, \
            UdpTeamLink(1, address="127.255.255.255", port=port) as b, \
            UdpTeamLink(2, address="127.255.255.255", port=port) as c:
        a.register(me)
        b.register(mate)
        c.register(foe)
        a.send(_message(sender=me, role=Role.GOALKEEPER), 1.0)
        c.send(_message(sender=foe), 1.0)
        got = _receive(b, mate, want=1)
        assert [m.sender for m in got] == [me]
        assert got[0].role is Role.GOALKEEPER
        assert b.counters.foreign == 1  # the red robot's message
        own = _receive(a, me, want=0)
        assert own == [] and a.counters.own == 1  # a robot does not hear itself
        assert a.counters.sent == 1


def test_garbage_is_dropped_and_counted() -> None:
    port = _free_port()
    with UdpTeamLink(1, address="127.255.255.255", port=port) as link:
        link.register(BLUE2)
        raw = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for payload in (b"garbage", b"SBTm" + bytes(200), encode_team_message(_message(), 1, 0.0)[:-3]):
            raw.sendto(payload, ("127.0.0.1", port))
        raw.close()
        deadline = time.monotonic() + 2.0
        got: list[TeamMessage] = []
        while link.counters.dropped < 3 and time.monotonic() < deadline:
            got += link.receive(BLUE2, 0.0)
            time.sleep(0.01)
        assert got == [] and link.counters.dropped == 3 and link.counters.received == 0


def _receive(link: UdpTeamLink, robot: RobotId, want: int) -> list[TeamMessage]:
    out: list[TeamMessage] = []
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        out += link.receive(robot, 1.0)
        if len(out) >= want and (link.counters.foreign + link.counters.own) >= 2:
            break
        time.sleep(0.01)
    return out


def _free_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_team_port_is_10000_plus_team() -> None:
    assert team_port(17) == 10017
