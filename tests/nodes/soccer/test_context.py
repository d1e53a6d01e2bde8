"""RobotContext: the command copy handed to the driver and the clamping to the robot's limits."""
from __future__ import annotations

import dataclasses
import math

from soccerbt.nodes.soccer.context import HEAD_PAN_LIMIT_RAD, RobotContext
from soccerbt.services.world_model import WorldModel
from soccerbt.world.field import Field
from soccerbt.world.types import KickRequest, RobotCommand, RobotId, RobotLimits, Team


def _context(limits: RobotLimits | None = None) -> RobotContext:
    field = Field.adult_size()
    return RobotContext(robot=RobotId(Team.BLUE, 1), field=field, clock=lambda: 0.0,
                        world_model=WorldModel(field, Team.BLUE), limits=limits)


def test_command_snapshot_copies_every_field_of_the_command() -> None:
    ctx = _context()
    values = {"vx_mps": 0.3, "vy_mps": -0.1, "vtheta_radps": 0.2, "head_pan_rad": 0.4,
              "head_tilt_rad": 0.5, "kick": KickRequest(0.1, 0.7), "stand_up": True}
    assert set(values) == {f.name for f in dataclasses.fields(RobotCommand)}, "a new field needs copying"
    for name, value in values.items():
        setattr(ctx.command, name, value)
    snap = ctx.command_snapshot()
    assert snap == RobotCommand(**values)
    assert snap is not ctx.command
    ctx.command.vx_mps = 0.0  # the copy does not follow later changes
    assert snap.vx_mps == 0.3


def test_velocity_and_head_clamp_to_the_limits_and_follow_new_limits() -> None:
    ctx = _context(RobotLimits())
    lim = ctx.limits
    ctx.set_velocity(9.0, -9.0, 9.0)
    assert ctx.command.vx_mps == lim.max_vx_forward_mps
    assert ctx.command.vy_mps == -lim.max_vy_mps
    assert ctx.command.vtheta_radps == lim.max_vtheta_radps
    ctx.set_velocity(-9.0, 0.0, 0.0)
    assert ctx.command.vx_mps == -abs(lim.max_vx_backward_mps)
    ctx.set_head(9.0, -9.0)
    assert (ctx.command.head_pan_rad, ctx.command.head_tilt_rad) == (lim.head_pan_max_rad, lim.head_tilt_min_rad)
    # limits replaced at run time (another robot model): the clamps follow at once
    ctx.limits = dataclasses.replace(lim, max_vx_forward_mps=0.5, head_pan_max_rad=0.2)
    ctx.set_velocity(9.0, 0.0, 0.0)
    ctx.set_head(9.0, 0.0)
    assert ctx.command.vx_mps == 0.5
    assert ctx.command.head_pan_rad == 0.2
    assert ctx.max_vx_mps == 0.5


def test_without_limits_the_t1_defaults_clamp_and_non_finite_stops() -> None:
    ctx = _context(None)
    ctx.set_head(-9.0, 0.0)
    assert ctx.command.head_pan_rad == -HEAD_PAN_LIMIT_RAD
    ctx.set_velocity(0.5, 0.0, 0.0)
    ctx.set_velocity(math.nan, 0.0, 0.0)
    assert (ctx.command.vx_mps, ctx.command.vy_mps, ctx.command.vtheta_radps) == (0.0, 0.0, 0.0)


def test_nav_obstacles_are_built_when_first_read_and_then_kept() -> None:
    from soccerbt.nodes.soccer.skills import nav_obstacles

    ctx = _context()
    wm = ctx.world_model
    calls = []
    points = [(1.0, 2.0), (3.0, -1.0)]

    def obstacle_points():
        calls.append(1)
        return list(points)

    wm.obstacle_points = obstacle_points  # type: ignore[method-assign]
    wm.best_ball_field = lambda: (0.5, 0.0)  # type: ignore[method-assign]
    obstacles = nav_obstacles(ctx, include_ball=True, ball_radius_m=0.4)
    assert calls == []  # nothing built until somebody reads it
    assert [(o.x_m, o.y_m, o.radius_m, o.kind) for o in obstacles] == [
        (1.0, 2.0, 0.25, "robot"), (3.0, -1.0, 0.25, "robot"), (0.5, 0.0, 0.4, "ball")]
    assert len(obstacles) == 3 and obstacles[2].kind == "ball"
    points.clear()
    assert len(list(obstacles)) == 3 and calls == [1]  # built once: later reads see the same list
    assert nav_obstacles(ctx) == []
