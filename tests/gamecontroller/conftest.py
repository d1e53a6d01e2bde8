"""Fixtures of the gamecontroller tests: a small fake world that speaks the referee's protocol,
and helpers that build packets."""
from __future__ import annotations

import dataclasses
import socket
from dataclasses import dataclass

import pytest

from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, RobotId, Team


@dataclass
class FakeRobot:
    pose: Pose2D
    fallen: bool = False
    removed: bool = False


@dataclass
class FakeBall:
    x_m: float = 0.0
    y_m: float = 0.0
    vx_mps: float = 0.0
    vy_mps: float = 0.0


@dataclass
class FakeWorld:
    """The referee's view of a world: robots stand where the test puts them."""

    t_s: float = 0.0
    field: Field = dataclasses.field(default_factory=Field.adult_size)
    robots: dict[RobotId, FakeRobot] = dataclasses.field(default_factory=dict)
    ball: FakeBall = dataclasses.field(default_factory=FakeBall)
    calls: list[tuple] = dataclasses.field(default_factory=list)

    @classmethod
    def with_teams(cls, players: int = 2) -> FakeWorld:
        """Blue in the -x half, red in the +x half, all legally placed for a kick-off."""
        world = cls()
        for team, sx in ((Team.BLUE, -1.0), (Team.RED, 1.0)):
            for k in range(1, players + 1):
                world.robots[RobotId(team, k)] = FakeRobot(Pose2D(sx * (2.0 + k), 0.8 * k, 0.0))
        return world

    def place_ball(self, x_m: float, y_m: float) -> None:
        self.ball = FakeBall(x_m, y_m)
        self.calls.append(("place_ball", x_m, y_m))

    def remove_robot(self, robot_id: RobotId) -> None:
        self.robots[robot_id].removed = True
        self.calls.append(("remove_robot", robot_id))

    def place_robot(self, robot_id: RobotId, pose: Pose2D) -> None:
        robot = self.robots[robot_id]
        robot.pose, robot.removed, robot.fallen = pose, False, False
        self.calls.append(("place_robot", robot_id, pose))


@pytest.fixture
def fake_world() -> type[FakeWorld]:
    return FakeWorld


@pytest.fixture
def udp_sender():
    """A UDP socket for sending test datagrams on loopback."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    yield sock
    sock.close()
