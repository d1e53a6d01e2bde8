"""SimDriver: one simulated robot behind the Driver protocol."""
from __future__ import annotations

import math

import pytest

from soccerbt.drivers import Driver, RobotLimits, SimDriver
from soccerbt.world import Pose2D, RobotCommand, RobotId, Team, World, WorldConfig

B1 = RobotId(Team.BLUE, 1)


def make() -> tuple[World, SimDriver]:
    w = World(WorldConfig.perfect())
    w.add_robot(B1, Pose2D(0.0, 0.0, 0.0))
    w.place_ball(2.0, 0.0)
    return w, SimDriver(w, B1)


def test_sim_driver_is_a_driver_with_the_robot_limits():
    w, d = make()
    assert isinstance(d, Driver)
    assert d.robot_id == B1
    assert d.limits == RobotLimits() == w.robots[B1].limits
    assert (d.limits.max_vx_forward_mps, d.limits.max_vy_mps, d.limits.max_vtheta_radps) == (1.2, 0.4, 1.5)


def test_act_moves_the_robot_and_sense_reports_the_step():
    w, d = make()
    d.act(RobotCommand(vx_mps=0.5, head_tilt_rad=0.4))
    for _ in range(100):
        w.step()
    obs = d.sense()
    assert obs.t_s == 1.0 and obs is w.observe(B1)
    assert obs.odometry.x_m == pytest.approx(w.robots[B1].x_m)
    assert obs.head_tilt_rad == pytest.approx(0.4)
    frames = [d.sense() for _ in range(4) if not w.step()]
    balls = [det for o in frames for det in o.detections if det.kind == "ball"]
    assert balls and all(b.x_m == pytest.approx(2.0 - w.robots[B1].x_m, abs=0.02) for b in balls)


def test_bad_commands_raise_through_the_driver_and_change_nothing():
    w, d = make()
    d.act(RobotCommand(vx_mps=0.3))
    with pytest.raises(ValueError, match=r"blue1: RobotCommand\.vy_mps must be finite"):
        d.act(RobotCommand(vy_mps=math.nan))
    w.run(2.0)
    assert w.robots[B1].vx_mps == 0.3


def test_unknown_robot():
    w = World()
    with pytest.raises(KeyError, match="unknown robot blue1"):
        SimDriver(w, B1)
