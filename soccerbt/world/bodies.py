"""The simulator's truth about its bodies: ``RobotState`` (one robot) and ``BallState``.

Plain slotted records that soccerbt.world.sim's ``World`` steps; public attributes are for
readers (viewers, tests, the referee), ``_`` ones are the simulator's own state and caches.
"""
from __future__ import annotations

import math
from typing import Any

from soccerbt.world.types import Observations, Pose2D, RobotId, RobotLimits, Team, wrap_angle_rad

__all__ = ["RobotState", "BallState"]


class RobotState:
    """The truth about one robot. Public attributes are for readers; ``_`` ones are internal.

    ``vx_mps, vy_mps, vtheta_radps`` are the executed velocity in the robot frame (noise
    included); ``pose`` is built on demand from ``x_m, y_m, theta_rad`` (world frame).
    """

    __slots__ = (
        "robot_id", "team", "limits", "x_m", "y_m", "theta_rad", "vx_mps", "vy_mps", "vtheta_radps",
        "fallen", "removed", "standing_up", "head_pan_rad", "head_tilt_rad", "kicks", "kick_misses",
        "walk_in_kicks", "stand_ups",
        "distance_walked_m", "falls", "commands_clamped",
        "_index", "_cvx", "_cvy", "_cvt", "_pan_target", "_tilt_target", "_kick", "_stand_up_request",
        "_fvx", "_fvy", "_fvt", "_wvx", "_wvy", "_kick_until_s", "_fallen_since_s", "_stand_up_done_s",
        "_gait_left_s", "_n_sx", "_n_sy", "_n_st", "_n_slip_y", "_n_slip_t",
        "_odo_x", "_odo_y", "_odo_th", "_odo_scale", "_odo_turn_scale", "_imu_yaw", "_imu_bias",
        "_fall_budget", "_obs", "_obs_step", "_cmd_values", "_cmd_clamped", "_cmd_limits",
        "_odo_pose", "_odo_k", "_odo_turn_k", "_imu_bias_dt", "_k_sx", "_k_sy", "_k_st",
    )
    _CACHES = ("_obs", "_obs_step", "_cmd_values", "_cmd_clamped", "_cmd_limits", "_odo_pose",
               "_odo_k", "_odo_turn_k", "_imu_bias_dt", "_k_sx", "_k_sy", "_k_st")  # not state: left out of snapshots

    def __init__(self, robot_id: RobotId, pose: Pose2D, limits: RobotLimits, index: int) -> None:
        self.robot_id = robot_id
        self.team: Team = robot_id.team
        self.limits = limits
        self.x_m, self.y_m, self.theta_rad = float(pose.x_m), float(pose.y_m), wrap_angle_rad(float(pose.theta_rad))
        self.vx_mps = self.vy_mps = self.vtheta_radps = 0.0
        self.fallen = False
        self.removed = False
        self.standing_up = False
        self.head_pan_rad = 0.0
        self.head_tilt_rad = 0.0
        self.kicks = 0  # kick motions that met the ball
        self.kick_misses = 0
        self.walk_in_kicks = 0  # walked into the ball and sent it off at WALK_IN_KICK_SPEED_MPS or more
        self.distance_walked_m = 0.0
        self.falls = 0
        self.stand_ups = 0  # got up after a fall (a failed attempt that fell back is not one)
        self.commands_clamped = 0
        self._index = index
        self._cvx = self._cvy = self._cvt = 0.0  # commanded, clamped
        self._pan_target = 0.0
        self._tilt_target = 0.0
        self._kick: tuple[float, float] | None = None  # pending (direction_rad, strength)
        self._stand_up_request = False
        self._fvx = self._fvy = self._fvt = 0.0  # what the walking controller executes (accel-limited)
        self._wvx = self._wvy = 0.0  # executed velocity, world frame
        self._kick_until_s = -1.0
        self._fallen_since_s = 0.0
        self._stand_up_done_s = 0.0
        self._gait_left_s = 0.0
        self._n_sx = self._n_sy = self._n_st = self._n_slip_y = self._n_slip_t = 0.0
        self._odo_x = self._odo_y = self._odo_th = 0.0
        self._odo_scale = 0.0
        self._odo_turn_scale = 0.0
        self._imu_yaw = 0.0
        self._imu_bias = 0.0
        self._fall_budget = math.inf
        self._obs: Observations | None = None
        self._obs_step = -1
        # the last accepted walk and head values (World.command_state's fast path)
        self._cmd_values: tuple[float, float, float, float, float] | None = None
        self._cmd_clamped = False
        self._cmd_limits: RobotLimits | None = None
        self._odo_pose: Pose2D | None = None  # the odometry as a Pose2D, None once it changed
        self._odo_k = self._odo_turn_k = self._imu_bias_dt = 0.0  # per-step factors: World._calibrate
        self._k_sx = self._k_sy = self._k_st = 1.0  # 1 + the gait step's speed errors

    @property
    def pose(self) -> Pose2D:
        """The true pose in the world frame."""
        return Pose2D(self.x_m, self.y_m, self.theta_rad)

    @property
    def active(self) -> bool:
        """On the field (not picked up by the referee)."""
        return not self.removed

    @property
    def odometry(self) -> Pose2D:
        """What the robot's odometry believes (its own frame): truth for tests of drift."""
        return Pose2D(self._odo_x, self._odo_y, self._odo_th)

    def _snapshot(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__slots__:
            if name in self._CACHES:
                continue
            value = getattr(self, name)
            out[name] = value if isinstance(value, (bool, int, float, str, type(None), tuple)) else repr(value)
        return out

    def __repr__(self) -> str:
        state = "removed" if self.removed else "fallen" if self.fallen else "up"
        return (f"RobotState({self.robot_id}, x={self.x_m:.3f}, y={self.y_m:.3f}, "
                f"theta={self.theta_rad:.3f}, {state})")


class BallState:
    """The truth about the ball (world frame). ``in_play`` turns false when a goal or a ball-out
    was reported, until the referee places the ball again."""

    __slots__ = ("x_m", "y_m", "vx_mps", "vy_mps", "radius_m", "in_play", "last_touch",
                 "_last_touch_t_s", "_in_goal", "_contacts")

    def __init__(self, radius_m: float) -> None:
        self.x_m = self.y_m = self.vx_mps = self.vy_mps = 0.0
        self.radius_m = radius_m
        self.in_play = True
        self.last_touch: RobotId | None = None
        self._last_touch_t_s = -math.inf
        self._in_goal = False
        self._contacts: set[int] = set()

    @property
    def speed_mps(self) -> float:
        return math.hypot(self.vx_mps, self.vy_mps)

    def _snapshot(self) -> dict[str, Any]:
        return {"x_m": self.x_m, "y_m": self.y_m, "vx_mps": self.vx_mps, "vy_mps": self.vy_mps,
                "in_play": self.in_play, "last_touch": str(self.last_touch),
                "last_touch_t_s": self._last_touch_t_s, "in_goal": self._in_goal,
                "contacts": tuple(sorted(self._contacts))}

    def __repr__(self) -> str:
        return f"BallState(x={self.x_m:.3f}, y={self.y_m:.3f}, vx={self.vx_mps:.3f}, vy={self.vy_mps:.3f})"
