"""Parameters of the simulated world: body, ball, camera and noise, gathered in WorldConfig.

Every number a run depends on lives here, with a default close to what humanoid teams see
with a Booster T1 on artificial turf. ``NoiseConfig.perfect()`` turns every random
disturbance off (sensor noise, misses, false detections, walking and odometry noise, random
falls, kick scatter) while keeping the geometry (field of view, range, occlusion) for tests.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from soccerbt.world.field import Field
from soccerbt.world.types import RobotLimits


@dataclass(frozen=True)
class NoiseConfig:
    """Every random disturbance of the world; all zero in ``perfect()``.

    Walking noise is a velocity error redrawn every gait step (``gait_step_s``): a relative
    speed error per axis plus a sideways and a turning slip proportional to forward speed.
    Odometry believes the commanded (filtered) velocity scaled by a per-robot calibration
    error, so the gap between what it believes and what happened is its drift.
    """

    # walking
    walk_speed_rel_sigma: float = 0.06
    walk_lateral_slip_sigma: float = 0.03  # m/s of sideways drift per m/s forward
    walk_turn_slip_sigma: float = 0.04  # rad/s of turning drift per m/s forward
    # odometry and IMU
    odometry_scale_sigma: float = 0.03  # per-robot calibration error of the odometry
    odometry_turn_scale_sigma: float = 0.05
    imu_yaw_bias_sigma_radps: float = 0.002  # per-robot gyro bias
    # falls
    spontaneous_fall_rate_per_s: float = 1.0 / 600.0  # walking at full speed; standing: a fifth
    collision_fall_probability_per_mps: float = 0.35  # per collision, times approach speed
    stand_up_failure_probability: float = 0.1
    # kick
    kick_speed_rel_sigma: float = 0.1
    kick_direction_sigma_rad: float = 0.08
    push_direction_sigma_rad: float = 0.1  # ball pushed by walking feet
    # camera
    range_sigma_base_m: float = 0.02
    range_sigma_rel: float = 0.06  # times distance
    bearing_sigma_rad: float = 0.02
    ball_miss_base: float = 0.05
    robot_miss_base: float = 0.08
    feature_miss_base: float = 0.15
    miss_at_max_range: float = 0.35  # added at the range limit, linear in distance
    false_ball_per_frame: float = 0.01
    false_feature_per_frame: float = 0.03
    team_recognition_probability: float = 0.9  # colour recognised (close); falls with distance
    confidence_sigma: float = 0.05

    @classmethod
    def perfect(cls) -> NoiseConfig:
        """No randomness at all: exact sensors and walking, no random falls."""
        values = {f.name: 0.0 for f in fields(cls)}
        values["team_recognition_probability"] = 1.0
        return cls(**values)

    @property
    def is_perfect(self) -> bool:
        return self == NoiseConfig.perfect()


@dataclass(frozen=True)
class CameraConfig:
    """The head camera: geometry, rate and range limits (pitch positive looking down)."""

    horizontal_fov_rad: float = math.radians(90.0)
    vertical_fov_rad: float = math.radians(70.0)
    height_m: float = 1.1  # above the ground, on the T1's head
    frame_rate_hz: float = 30.0
    min_range_m: float = 0.15
    ball_max_range_m: float = 6.0
    robot_max_range_m: float = 7.0
    feature_max_range_m: float = 6.0
    goal_post_max_range_m: float = 9.0
    object_height_m: float = 1.2  # robots and posts are tall: seen even when the base is below
    ball_sure_range_m: float = 0.0  # a ball in view nearer than this is never missed (0: misses as any)
    occluder_radius_m: float = 0.2


@dataclass(frozen=True)
class BodyConfig:
    """The robot's body: its footprint, its kick and its standing up."""

    radius_m: float = 0.22  # footprint circle for robot-robot, ball and post contact
    foot_push_gain: float = 1.5  # ball speed / robot speed when walking into the ball
    ball_restitution: float = 0.3  # a rolling ball bouncing off a robot's body
    kick_reach_m: float = 0.14  # beyond body contact, in front of the feet
    kick_lateral_reach_m: float = 0.18
    kick_max_speed_mps: float = 4.5
    kick_max_direction_rad: float = math.pi / 2.0  # sideways kicks at most
    kick_duration_s: float = 0.5  # the robot stands still while kicking
    stand_up_duration_s: float = 3.0
    min_lying_s: float = 0.5  # a stand-up request is accepted after this long on the ground
    auto_stand_up: bool = False  # stand up without a stand_up command (brains send one)
    auto_stand_up_delay_s: float = 2.0
    gait_step_s: float = 0.3  # walking noise is redrawn once per step of the gait


@dataclass(frozen=True)
class BallConfig:
    """The ball's rolling and bouncing (its radius comes from the field)."""

    rolling_deceleration_mps2: float = 0.8
    post_restitution: float = 0.5
    net_restitution: float = 0.1


@dataclass(frozen=True)
class WorldConfig:
    """Everything a World needs besides its seed."""

    field: Field = Field.adult_size()
    dt_s: float = 0.01
    noise: NoiseConfig = NoiseConfig()
    camera: CameraConfig = CameraConfig()
    body: BodyConfig = BodyConfig()
    ball: BallConfig = BallConfig()
    limits: RobotLimits = RobotLimits()
    sensors: bool = True  # compute camera detections (off: truth-only runs, e.g. referee tests)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.dt_s) and 0.0 < self.dt_s <= 0.1):
            raise ValueError(f"WorldConfig.dt_s must be in (0, 0.1] seconds, got {self.dt_s!r}")
        if not self.camera.frame_rate_hz > 0.0:
            raise ValueError(f"CameraConfig.frame_rate_hz must be positive, got {self.camera.frame_rate_hz!r}")

    @classmethod
    def perfect(cls, **overrides: object) -> WorldConfig:
        """A world without randomness (for tests); keyword arguments override fields."""
        return cls(noise=NoiseConfig.perfect(), **overrides)  # type: ignore[arg-type]

    def with_(self, **changes: object) -> WorldConfig:
        """A copy with some fields replaced."""
        return replace(self, **changes)  # type: ignore[arg-type]
