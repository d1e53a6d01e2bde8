"""A robot's command as the simulator accepts it: checked, clamped to the robot's limits, stored.

``accept_command`` takes a command that differs from the robot's last one (``World.command_state``
keeps the fast path of a repeated one): NaN, infinite or non-numeric values raise a ValueError or
TypeError naming the robot and the field and change nothing; speeds, head angles, kick strength
and direction beyond the limits are clamped and counted in ``RobotState.commands_clamped``; a
picked-up robot's command is checked and then ignored.
"""
from __future__ import annotations

import math

from soccerbt.world.bodies import RobotState
from soccerbt.world.config import BodyConfig
from soccerbt.world.types import KickRequest, RobotCommand, RobotId, wrap_angle_rad

__all__ = ["accept_command"]


def _finite(robot_id: RobotId, name: str, value: object) -> float:
    """``value`` as a float, or a ValueError/TypeError naming the robot and the field."""
    try:
        if isinstance(value, (str, bytes)):  # float() would parse them: not a number all the same
            raise TypeError
        out = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TypeError(f"{robot_id}: RobotCommand.{name} must be a number, got {value!r}") from None
    if not math.isfinite(out):
        raise ValueError(f"{robot_id}: RobotCommand.{name} must be finite, got {value!r}")
    return out


def accept_command(robot: RobotState, command: RobotCommand, values: tuple[float, float, float, float, float],
                   body: BodyConfig) -> None:
    """Validate, clamp and store a command that differs from the last one."""
    robot_id = robot.robot_id
    vx, vy, vt, pan, tilt = values
    isfinite = math.isfinite
    try:
        ok = isfinite(vx) and isfinite(vy) and isfinite(vt) and isfinite(pan) and isfinite(tilt)
        if ok and not (type(vx) is float and type(vy) is float and type(vt) is float
                       and type(pan) is float and type(tilt) is float):
            vx, vy, vt, pan, tilt = float(vx), float(vy), float(vt), float(pan), float(tilt)
    except (TypeError, ValueError):
        ok = False
    if not ok:  # find the culprit for the message (or convert what float() takes)
        vx, vy, vt, pan, tilt = (_finite(robot_id, name, getattr(command, name))
                                 for name in ("vx_mps", "vy_mps", "vtheta_radps", "head_pan_rad", "head_tilt_rad"))
    kick = command.kick
    kick_values: tuple[float, float] | None = None
    clamped = False
    if kick is not None:
        if not isinstance(kick, KickRequest):
            raise TypeError(f"{robot_id}: RobotCommand.kick must be a KickRequest or None, got {kick!r}")
        direction = _finite(robot_id, "kick.direction_rad", kick.direction_rad)
        strength = _finite(robot_id, "kick.strength", kick.strength)
        direction = wrap_angle_rad(direction)
        max_dir = body.kick_max_direction_rad
        if abs(direction) > max_dir:
            direction = math.copysign(max_dir, direction)
            clamped = True
        if strength < 0.0 or strength > 1.0:
            strength = min(1.0, max(0.0, strength))
            clamped = True
        kick_values = (direction, strength)
    if robot.removed:
        return
    lim = robot.limits
    hi, lo = lim.max_vx_forward_mps, -lim.max_vx_backward_mps
    cvx = hi if vx > hi else (lo if vx < lo else vx)
    hi = lim.max_vy_mps
    cvy = hi if vy > hi else (-hi if vy < -hi else vy)
    hi = lim.max_vtheta_radps
    cvt = hi if vt > hi else (-hi if vt < -hi else vt)
    hi, lo = lim.head_pan_max_rad, lim.head_pan_min_rad
    cpan = hi if pan > hi else (lo if pan < lo else pan)
    hi, lo = lim.head_tilt_max_rad, lim.head_tilt_min_rad
    ctilt = hi if tilt > hi else (lo if tilt < lo else tilt)
    walk_clamped = cvx != vx or cvy != vy or cvt != vt or cpan != pan or ctilt != tilt
    if clamped or walk_clamped:
        robot.commands_clamped += 1
    robot._cvx, robot._cvy, robot._cvt = cvx, cvy, cvt
    robot._pan_target, robot._tilt_target = cpan, ctilt
    # remembered for the fast path (the floats: a repeated 0 or True compares equal and
    # converts the same); -0.0 after 0.0 counts as the same value and keeps the target 0.0
    robot._cmd_values = (vx, vy, vt, pan, tilt)
    robot._cmd_clamped = walk_clamped
    robot._cmd_limits = lim
    if kick_values is not None:
        robot._kick = kick_values
    if command.stand_up:
        robot._stand_up_request = True
