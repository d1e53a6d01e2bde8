"""The simulator: true robots, ball and clock, stepped at a fixed dt with one seeded RNG.

``World`` owns the truth (readable by referee, metrics, viewer and tests) and hands each robot
only its ``Observations``. Robots walk omnidirectionally within their ``RobotLimits``, turn a
pan/tilt head, collide, fall and stand up, kick and push the ball; the ball rolls with a
constant deceleration and bounces off robots, posts and nets; goals and ball-out are reported
as events. Same seed and same commands give the same world, bit for bit (``snapshot()``).

    world = World(WorldConfig(), seed=1)        # WorldConfig.perfect() for tests
    world.add_robot(rid, Pose2D(-3.0, 0.0, 0.0))  # world frame: blue's first-half goal at -x
    world.set_command(rid, RobotCommand(vx_mps=0.5, head_tilt_rad=0.4))
    world.step()                                 # dt_s of simulated time
    obs = world.observe(rid)                     # what the robot senses now
    events = world.events.drain()                # GoalScored, BallOut, BallTouched, ...

Semantics worth knowing: a command holds until replaced, except its kick (used by the next
step) and its stand_up (a request, kept until the robot is down long enough to get up).
A fallen robot ignores walking until it stood up (``BodyConfig.stand_up_duration_s`` after the
request, or by itself after ``auto_stand_up_delay_s`` when ``BodyConfig.auto_stand_up``).
The ball stays on the ground: kicks do not lift it, so every ball between the posts is under
the crossbar. Hot loops are plain Python over a few robots (numpy calls on arrays this small
cost more than they save), the camera's too (sensors.py). A command equal to the robot's last
one (brains repeat theirs at every tick) skips validation and clamping but is counted as
clamped again when it was; the odometry Pose2D of a robot that did not move is reused.

Here: the robots (walking, odometry, gyro, head, falls, kicks, collisions), the camera frames
and the clock; the ball's motion is ``ball_motion``'s, a new command's checks ``commands``'.
"""
from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

from soccerbt.world._fast import ObservationsTwin, PoseTwin
from soccerbt.world.ball_motion import BallMotion
from soccerbt.world.bodies import BallState, RobotState
from soccerbt.world.commands import accept_command
from soccerbt.world.config import BallConfig, BodyConfig, CameraConfig, NoiseConfig, WorldConfig
from soccerbt.world.field import Field
from soccerbt.world.sensors import CameraModel
from soccerbt.world.types import (
    BallKicked,
    BallTouched,
    Detection,
    EventLog,
    Observations,
    Pose2D,
    RobotCommand,
    RobotFell,
    RobotId,
    RobotLimits,
    RobotStoodUp,
    wrap_angle_rad,
)

__all__ = ["World", "WorldConfig", "NoiseConfig", "CameraConfig", "BodyConfig", "BallConfig",
           "RobotState", "BallState", "RobotLimits"]

_new = object.__new__  # builds the twins of observe_state (soccerbt.world._fast)


class World:
    """The simulated world: robots, ball, clock and events. See the module docstring."""

    def __init__(self, config: WorldConfig | None = None, seed: int = 0) -> None:
        self.config = config if config is not None else WorldConfig()
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)  # the run's only source of randomness
        self.field: Field = self.config.field
        self.dt_s: float = self.config.dt_s
        self.step_count = 0
        self.t_s = 0.0
        self.robots: dict[RobotId, RobotState] = {}
        self.ball = BallState(self.field.ball_radius_m)
        self.events = EventLog()
        self._robot_list: list[RobotState] = []
        self._on_field: list[RobotState] = []  # those not removed, in index order (_update_on_field)
        self._contacts: set[int] = set()  # robot pairs touching at the last step (i * 256 + j)
        self._camera = CameraModel(self.field, self.config.camera, self.config.noise) if self.config.sensors else None
        self._frame_index = 0  # camera frames delivered so far
        self._frame_now = False  # the current step carries a camera frame
        self._detections: dict[int, list[Detection]] = {}  # robot index -> the current frame's
        noise = self.config.noise  # per-step constants (the config is frozen)
        self._walk_noise = bool(noise.walk_speed_rel_sigma or noise.walk_lateral_slip_sigma
                                or noise.walk_turn_slip_sigma)
        self._fall_rate_dt = noise.spontaneous_fall_rate_per_s * self.dt_s
        self._frame_rate_hz = self.config.camera.frame_rate_hz
        f, rr = self.field, self.config.body.radius_m
        self._touch_m = 2.0 * rr  # robot centres closer than this are in contact
        self._goal_posts = f.goal_posts
        self._post_reach_m = rr + f.goal_post_diameter_m / 2.0  # robot centre to post centre, touching
        self._near_goal_x_m = f.half_length_m - self._post_reach_m
        self._robot_lx_m = f.half_length_m + f.border_strip_m - rr  # the carpet's edge for a robot's centre
        self._robot_ly_m = f.half_width_m + f.border_strip_m - rr
        self._ball_motion = BallMotion(f, self.config, self.dt_s)

    # --- robots in and out ----------------------------------------------------------------

    def add_robot(self, robot_id: RobotId, pose: Pose2D, limits: RobotLimits | None = None) -> None:
        """Put a new robot on the field, standing still at ``pose`` (world frame)."""
        if not isinstance(robot_id, RobotId):
            raise TypeError(f"add_robot: robot_id must be a RobotId, got {robot_id!r}")
        if robot_id in self.robots:
            raise ValueError(f"add_robot: robot {robot_id} is already in the world")
        if len(self._robot_list) >= 255:
            raise ValueError("add_robot: at most 255 robots")
        self._check_pose("add_robot", robot_id, pose)
        robot = RobotState(robot_id, pose, limits if limits is not None else self.config.limits,
                           len(self._robot_list))
        noise = self.config.noise
        if noise.odometry_scale_sigma or noise.odometry_turn_scale_sigma or noise.imu_yaw_bias_sigma_radps:
            a, b, c = self.rng.standard_normal(3).tolist()
            robot._odo_scale = a * noise.odometry_scale_sigma
            robot._odo_turn_scale = b * noise.odometry_turn_scale_sigma
            robot._imu_bias = c * noise.imu_yaw_bias_sigma_radps
        self._calibrate(robot)
        if noise.spontaneous_fall_rate_per_s > 0.0:
            robot._fall_budget = float(self.rng.exponential())
        self.robots[robot_id] = robot
        self._robot_list.append(robot)
        self._update_on_field()

    def _update_on_field(self) -> None:
        """The robots on the field, kept for the per-step loops (``removed`` changes only
        through add_robot, remove_robot and place_robot)."""
        self._on_field = [r for r in self._robot_list if not r.removed]

    def _calibrate(self, robot: RobotState) -> None:
        """The per-step factors of the robot's calibration errors (they never change)."""
        dt = self.dt_s
        robot._odo_k = (1.0 + robot._odo_scale) * dt
        robot._odo_turn_k = 1.0 + robot._odo_turn_scale
        robot._imu_bias_dt = robot._imu_bias * dt

    def remove_robot(self, robot_id: RobotId) -> None:
        """The referee picks the robot up: it stops, takes no commands, is neither seen nor an obstacle."""
        robot = self._robot(robot_id)
        robot.removed = True
        self._update_on_field()
        robot.standing_up = False
        self._stop(robot)
        robot._kick = None
        robot._stand_up_request = False

    def place_robot(self, robot_id: RobotId, pose: Pose2D) -> None:
        """The referee puts the robot down at ``pose``: standing, still, taking commands again."""
        robot = self._robot(robot_id)
        self._check_pose("place_robot", robot_id, pose)
        robot.x_m, robot.y_m, robot.theta_rad = float(pose.x_m), float(pose.y_m), wrap_angle_rad(float(pose.theta_rad))
        robot.removed = False
        self._update_on_field()
        robot.fallen = False
        robot.standing_up = False
        robot._kick = None
        robot._stand_up_request = False
        robot._kick_until_s = -1.0
        robot._cvx = robot._cvy = robot._cvt = 0.0
        robot._cmd_values = None  # the targets changed: the next command is checked in full
        self._stop(robot)
        # contacts involving this robot start afresh (a put-down robot does not "collide" into place)
        idx = robot._index
        self._contacts = {k for k in self._contacts if k // 256 != idx and k % 256 != idx}
        self.ball._contacts.discard(idx)

    def knock_over(self, robot_id: RobotId) -> None:
        """Make a standing robot fall now (tests, scripted scenarios)."""
        robot = self._robot(robot_id)
        if not robot.removed and not robot.fallen:
            self._fall(robot)

    def place_ball(self, x_m: float, y_m: float) -> None:
        """The referee puts the ball down, still, in play, untouched."""
        x, y = float(x_m), float(y_m)
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"place_ball: position must be finite, got ({x_m!r}, {y_m!r})")
        lx = self.field.half_length_m + self.field.border_strip_m
        ly = self.field.half_width_m + self.field.border_strip_m
        if abs(x) > lx or abs(y) > ly:
            raise ValueError(f"place_ball: ({x}, {y}) is off the carpet (|x| <= {lx}, |y| <= {ly})")
        ball = self.ball
        ball.x_m, ball.y_m, ball.vx_mps, ball.vy_mps = x, y, 0.0, 0.0
        ball.in_play = True
        ball.last_touch = None
        ball._last_touch_t_s = -math.inf
        ball._in_goal = False
        ball._contacts = set()

    def set_ball_velocity(self, vx_mps: float, vy_mps: float) -> None:
        """Give the ball a velocity (tests, scripted scenarios)."""
        vx, vy = float(vx_mps), float(vy_mps)
        if not (math.isfinite(vx) and math.isfinite(vy)):
            raise ValueError(f"set_ball_velocity: velocity must be finite, got ({vx_mps!r}, {vy_mps!r})")
        self.ball.vx_mps, self.ball.vy_mps = vx, vy

    # --- commands and observations ----------------------------------------------------------

    def set_command(self, robot_id: RobotId, command: RobotCommand) -> None:
        """The robot's command from now on (a kick request is used once, by the next step).

        NaN, infinite or non-numeric values raise (naming robot and field) and change nothing;
        speeds, head angles, kick strength and direction beyond the limits are clamped and
        counted in ``RobotState.commands_clamped``. A picked-up robot ignores commands.
        """
        self.command_state(self._robot(robot_id), command)

    def command_state(self, robot: RobotState, command: RobotCommand) -> None:
        """``set_command`` for a RobotState already looked up (see ``observe_state``)."""
        if not isinstance(command, RobotCommand):
            raise TypeError(f"{robot.robot_id}: set_command expects a RobotCommand, got {type(command).__name__}")
        values = (command.vx_mps, command.vy_mps, command.vtheta_radps, command.head_pan_rad, command.head_tilt_rad)
        # a brain repeats its command at every tick: values equal to the last accepted ones were
        # validated and clamped then, with these limits, to what the robot still holds
        try:
            same = values == robot._cmd_values and command.kick is None and robot.limits is robot._cmd_limits
        except Exception:  # noqa: BLE001 - e.g. an array compared: the full check names the field
            same = False
        if same:
            if not robot.removed:
                if robot._cmd_clamped:
                    robot.commands_clamped += 1
                if command.stand_up:
                    robot._stand_up_request = True
            return
        accept_command(robot, command, values, self.config.body)

    def observe(self, robot_id: RobotId) -> Observations:
        """What this robot senses at the current step (the same object when asked twice)."""
        return self.observe_state(self._robot(robot_id))

    def observe_state(self, robot: RobotState) -> Observations:
        """``observe`` for a RobotState already looked up (drivers keep theirs: no id hashing).

        Every robot calls it at every step: make_pose and make_observations are inlined, their
        twins' ``__init__`` too (soccerbt.world._fast).
        """
        step = self.step_count
        if robot._obs_step == step:  # set together with _obs
            return robot._obs  # type: ignore[return-value]
        frame_now = self._frame_now
        detections: tuple[Detection, ...] = ()
        if frame_now:
            rows = self._detections.get(robot._index)
            if rows:
                detections = tuple(rows)
        odometry = robot._odo_pose
        if odometry is None:  # it moved since the last observation (standing robots keep theirs)
            odometry = _new(PoseTwin)
            odometry.x_m = robot._odo_x
            odometry.y_m = robot._odo_y
            odometry.theta_rad = robot._odo_th
            odometry.__class__ = Pose2D
            robot._odo_pose = odometry
        obs = _new(ObservationsTwin)
        obs.t_s = self.t_s
        obs.camera_frame = frame_now
        obs.detections = detections
        obs.odometry = odometry
        obs.imu_yaw_rad = robot._imu_yaw
        obs.fallen = robot.fallen and not robot.removed
        obs.head_pan_rad = robot.head_pan_rad
        obs.head_tilt_rad = robot.head_tilt_rad
        obs.line_segments = ()
        obs.__class__ = Observations
        robot._obs = obs
        robot._obs_step = step
        return obs  # type: ignore[return-value]

    def limits_of(self, robot_id: RobotId) -> RobotLimits:
        return self._robot(robot_id).limits

    def is_kicking(self, robot_id: RobotId) -> bool:
        """The robot is in the middle of a kick motion (it does not walk meanwhile)."""
        return self.t_s < self._robot(robot_id)._kick_until_s

    # --- stepping -------------------------------------------------------------------------

    def step(self) -> None:
        """Advance the world by ``dt_s``: robots, collisions, ball, goals and ball-out, camera."""
        t_prev = self.t_s
        self.step_count += 1
        self.t_s = t = self.step_count * self.dt_s  # no accumulated rounding
        self._step_robots(t_prev, t)
        self._step_collisions(t)
        self._ball_motion.step(self.ball, self._on_field, self.rng, self.events, t_prev, t)
        frame = int(t * self._frame_rate_hz + 1e-9)
        self._frame_now = frame != self._frame_index
        self._frame_index = frame
        if self._frame_now and self._camera is not None:
            self._detections = self._camera.frame(self.rng, self._on_field, self.ball)
        elif self._frame_now:
            self._detections = {}

    def run(self, seconds: float) -> None:
        """Step for ``seconds`` of simulated time (rounded to whole steps)."""
        for _ in range(int(round(seconds / self.dt_s))):
            self.step()

    def _step_robots(self, t_prev: float, t: float) -> None:
        dt = self.dt_s
        half_dt = 0.5 * dt
        body = self.config.body
        noise = self.config.noise
        walk_noise = self._walk_noise
        fall_rate_dt = self._fall_rate_dt
        cos, sin, sqrt = math.cos, math.sin, math.sqrt
        pi = math.pi
        neg_pi = -pi  # angles in [-pi, pi) need no wrap_angle_rad (tested as two comparisons)
        for r in self._on_field:
            if r.fallen:
                self._step_fallen(r, t)
                continue
            r._stand_up_request = False  # a request made while standing does not pre-arm a fall
            lim = r.limits
            if r._kick is not None:
                if t_prev >= r._kick_until_s:
                    self._try_kick(r, t)
                r._kick = None
            if t_prev < r._kick_until_s:  # kicking: stand still
                tvx = tvy = tvt = 0.0
            else:
                tvx, tvy, tvt = r._cvx, r._cvy, r._cvt
            # acceleration limits of the walking controller
            fvx, fvy, fvt = r._fvx, r._fvy, r._fvt
            if fvx != tvx:
                a = lim.max_ax_mps2 * dt
                d = tvx - fvx
                fvx = tvx if -a <= d <= a else (fvx + a if d > 0.0 else fvx - a)
                r._fvx = fvx
            if fvy != tvy:
                a = lim.max_ay_mps2 * dt
                d = tvy - fvy
                fvy = tvy if -a <= d <= a else (fvy + a if d > 0.0 else fvy - a)
                r._fvy = fvy
            if fvt != tvt:
                a = lim.max_atheta_radps2 * dt
                d = tvt - fvt
                fvt = tvt if -a <= d <= a else (fvt + a if d > 0.0 else fvt - a)
                r._fvt = fvt
            speed = 0.0
            if fvx == 0.0 and fvy == 0.0 and fvt == 0.0:
                if r._wvx != 0.0 or r._wvy != 0.0 or r.vtheta_radps != 0.0:
                    r.vx_mps = r.vy_mps = r.vtheta_radps = 0.0
                    r._wvx = r._wvy = 0.0
            else:
                if walk_noise:
                    r._gait_left_s -= dt
                    if r._gait_left_s <= 0.0:
                        r._gait_left_s += body.gait_step_s
                        n = self.rng.standard_normal(5).tolist()
                        r._n_sx = n[0] * noise.walk_speed_rel_sigma
                        r._n_sy = n[1] * noise.walk_speed_rel_sigma
                        r._n_st = n[2] * noise.walk_speed_rel_sigma
                        r._k_sx, r._k_sy, r._k_st = 1.0 + r._n_sx, 1.0 + r._n_sy, 1.0 + r._n_st
                        r._n_slip_y = n[3] * noise.walk_lateral_slip_sigma
                        r._n_slip_t = n[4] * noise.walk_turn_slip_sigma
                    fwd = fvx if fvx >= 0.0 else -fvx
                    avx = fvx * r._k_sx
                    avy = fvy * r._k_sy + r._n_slip_y * fwd
                    avt = fvt * r._k_st + r._n_slip_t * fwd
                else:
                    avx, avy, avt = fvx, fvy, fvt
                r.vx_mps, r.vy_mps, r.vtheta_radps = avx, avy, avt
                th = r.theta_rad
                th_mid = th + avt * half_dt
                c, s = cos(th_mid), sin(th_mid)
                wvx = c * avx - s * avy
                wvy = s * avx + c * avy
                r._wvx, r._wvy = wvx, wvy
                r.x_m += wvx * dt
                r.y_m += wvy * dt
                th += avt * dt
                if th < neg_pi or th >= pi:
                    th = wrap_angle_rad(th)
                r.theta_rad = th
                speed = sqrt(avx * avx + avy * avy)
                r.distance_walked_m += speed * dt
                # odometry: the controller's belief, scaled by the calibration error
                ovt = fvt * r._odo_turn_k
                oth = r._odo_th
                o_mid = oth + ovt * half_dt
                c, s = cos(o_mid), sin(o_mid)
                k = r._odo_k
                r._odo_x += (c * fvx - s * fvy) * k
                r._odo_y += (s * fvx + c * fvy) * k
                oth += ovt * dt
                if oth < neg_pi or oth >= pi:
                    oth = wrap_angle_rad(oth)
                r._odo_th = oth
                r._odo_pose = None
                # the gyro sees the true turn
                if avt != 0.0:
                    yaw = r._imu_yaw + avt * dt
                    if yaw < neg_pi or yaw >= pi:
                        yaw = wrap_angle_rad(yaw)
                    r._imu_yaw = yaw
            if r._imu_bias:
                yaw = r._imu_yaw + r._imu_bias_dt
                if yaw < neg_pi or yaw >= pi:
                    yaw = wrap_angle_rad(yaw)
                r._imu_yaw = yaw
            # head joints move toward their targets at limited speed
            pan = r.head_pan_rad
            if pan != r._pan_target:
                a = lim.head_pan_speed_radps * dt
                d = r._pan_target - pan
                r.head_pan_rad = r._pan_target if -a <= d <= a else (pan + a if d > 0.0 else pan - a)
            tilt = r.head_tilt_rad
            if tilt != r._tilt_target:
                a = lim.head_tilt_speed_radps * dt
                d = r._tilt_target - tilt
                r.head_tilt_rad = r._tilt_target if -a <= d <= a else (tilt + a if d > 0.0 else tilt - a)
            # falling on its own: a hazard budget drawn once, spent faster when walking fast
            if fall_rate_dt > 0.0:
                effort = speed / lim.max_vx_forward_mps
                r._fall_budget -= fall_rate_dt * (0.2 + (0.8 if effort >= 1.0 else 0.8 * effort))
                if r._fall_budget <= 0.0:
                    r._fall_budget = float(self.rng.exponential())
                    self._fall(r)

    def _step_fallen(self, r: RobotState, t: float) -> None:
        body = self.config.body
        if r.standing_up:
            if t >= r._stand_up_done_s - 1e-9:
                r.standing_up = False
                p = self.config.noise.stand_up_failure_probability
                if p > 0.0 and self.rng.random() < p:
                    r._fallen_since_s = t  # it fell back; may try again
                else:
                    r.fallen = False
                    r.stand_ups += 1
                    self._stop(r)
                    self.events.events.append(RobotStoodUp(t, r.robot_id))
            return
        lying_s = t - r._fallen_since_s
        if ((r._stand_up_request and lying_s >= body.min_lying_s - 1e-9)
                or (body.auto_stand_up and lying_s >= body.auto_stand_up_delay_s - 1e-9)):
            r._stand_up_request = False
            r.standing_up = True
            r._stand_up_done_s = t + body.stand_up_duration_s

    def _stop(self, r: RobotState) -> None:
        r.vx_mps = r.vy_mps = r.vtheta_radps = 0.0
        r._fvx = r._fvy = r._fvt = 0.0
        r._wvx = r._wvy = 0.0

    def _fall(self, r: RobotState) -> None:
        r.fallen = True
        r.standing_up = False
        r.falls += 1
        r._fallen_since_s = self.t_s
        r._kick = None
        r._kick_until_s = -1.0
        r._stand_up_request = False
        self._stop(r)
        self.events.events.append(RobotFell(self.t_s, r.robot_id))

    def _try_kick(self, r: RobotState, t: float) -> None:
        """Start a kick motion; the ball flies when it lies within reach in front of the feet."""
        body = self.config.body
        noise = self.config.noise
        r._kick_until_s = t + body.kick_duration_s
        direction, strength = r._kick  # type: ignore[misc]
        ball = self.ball
        c, s = math.cos(r.theta_rad), math.sin(r.theta_rad)
        dx, dy = ball.x_m - r.x_m, ball.y_m - r.y_m
        bx, by = c * dx + s * dy, -s * dx + c * dy
        reach_x = body.radius_m + ball.radius_m + body.kick_reach_m
        if not (0.0 < bx <= reach_x and abs(by) <= body.kick_lateral_reach_m):
            r.kick_misses += 1
            return
        speed = strength * body.kick_max_speed_mps * (0.5 + 0.5 * math.cos(direction))
        if noise.kick_speed_rel_sigma or noise.kick_direction_sigma_rad:
            n0, n1 = self.rng.standard_normal(2).tolist()
            speed = max(0.0, speed * (1.0 + n0 * noise.kick_speed_rel_sigma))
            direction += n1 * noise.kick_direction_sigma_rad
        heading = r.theta_rad + direction
        ball.vx_mps, ball.vy_mps = speed * math.cos(heading), speed * math.sin(heading)
        r.kicks += 1
        self.events.events.append(BallTouched(t, r.robot_id))
        self.events.events.append(BallKicked(t, r.robot_id))
        ball.last_touch = r.robot_id
        ball._last_touch_t_s = t

    def _step_collisions(self, t: float) -> None:
        """Robots push each other apart (and may fall); posts and the carpet's edge stop them."""
        min_d = self._touch_m
        min_d2 = min_d * min_d
        active = self._on_field
        contacts: set[int] | None = None  # made at the first contact (most steps have none)
        n = len(active)
        xs = [r.x_m for r in active]
        reach_x = min_d * (1.0 + 1e-9)  # a margin over rounding: the exact test follows
        for i in range(n - 1):
            ax = xs[i]
            lo, hi = ax - reach_x, ax + reach_x
            for j in range(i + 1, n):
                bx = xs[j]
                if bx <= lo or bx >= hi:  # surely apart along x: no float to make
                    continue
                dx = bx - ax
                if dx >= min_d or dx <= -min_d:
                    continue
                a, b = active[i], active[j]  # y read from the robots: xs and they move together
                ay = a.y_m
                dy = b.y_m - ay
                d2 = dx * dx + dy * dy
                if d2 >= min_d2:
                    continue
                d = math.sqrt(d2)
                if d > 1e-9:
                    nx, ny = dx / d, dy / d
                else:
                    nx, ny = 1.0, 0.0
                half = 0.5 * (min_d - d)
                ax -= nx * half
                ay -= ny * half
                lo, hi = ax - reach_x, ax + reach_x
                xs[i] = ax
                xs[j] += nx * half
                a.x_m, a.y_m = ax, ay
                b.x_m, b.y_m = xs[j], b.y_m + ny * half
                key = a._index * 256 + b._index if a._index < b._index else b._index * 256 + a._index
                if contacts is None:
                    contacts = set()
                contacts.add(key)
                fall_k = self.config.noise.collision_fall_probability_per_mps
                if key not in self._contacts and fall_k > 0.0:
                    approach = (a._wvx - b._wvx) * nx + (a._wvy - b._wvy) * ny
                    p = fall_k * max(0.0, approach)
                    if p > 0.0:
                        for victim in (a, b):
                            if not victim.fallen and self.rng.random() < p:
                                self._fall(victim)
        if contacts is not None:
            self._contacts = contacts
        elif self._contacts:
            self._contacts = set()
        reach, near_goal_x, lx, ly = self._post_reach_m, self._near_goal_x_m, self._robot_lx_m, self._robot_ly_m
        for r in active:
            x = r.x_m
            if x > near_goal_x or x < -near_goal_x:  # (nearer the centre it is within lx too)
                for px, py in self._goal_posts:
                    dx, dy = r.x_m - px, r.y_m - py
                    d2 = dx * dx + dy * dy
                    if d2 < reach * reach:
                        d = math.sqrt(d2)
                        nx, ny = (dx / d, dy / d) if d > 1e-9 else (1.0, 0.0)
                        r.x_m, r.y_m = px + nx * reach, py + ny * reach
                x = r.x_m
                if x > lx:
                    r.x_m = lx
                elif x < -lx:
                    r.x_m = -lx
            y = r.y_m
            if y > ly:
                r.y_m = ly
            elif y < -ly:
                r.y_m = -ly

    # --- determinism ------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain values (floats exact): equal snapshots = identical worlds."""
        return {
            "t_s": self.t_s,
            "step_count": self.step_count,
            "ball": self.ball._snapshot(),
            "robots": {str(rid): r._snapshot() for rid, r in self.robots.items()},
            "contacts": tuple(sorted(self._contacts)),
            "pending_events": tuple(repr(e) for e in self.events.events),
            "detections": tuple((k, tuple(v)) for k, v in sorted(self._detections.items())),
            "rng": repr(self.rng.bit_generator.state),
            "camera_draws": self._camera.draw_index if self._camera is not None else None,
        }

    def digest(self) -> str:
        """A short hash of ``snapshot()`` (``repr`` of floats round-trips, so it is exact)."""
        return hashlib.sha256(repr(self.snapshot()).encode()).hexdigest()[:16]

    # --- helpers ----------------------------------------------------------------------------

    def _robot(self, robot_id: RobotId) -> RobotState:
        try:
            return self.robots[robot_id]
        except (KeyError, TypeError):
            known = ", ".join(str(r) for r in self.robots) or "none"
            raise KeyError(f"unknown robot {robot_id!s} (robots in the world: {known})") from None

    @staticmethod
    def _check_pose(where: str, robot_id: RobotId, pose: Pose2D) -> None:
        if not isinstance(pose, Pose2D):
            raise TypeError(f"{where}: {robot_id}: pose must be a Pose2D, got {pose!r}")
        for name in ("x_m", "y_m", "theta_rad"):
            value = getattr(pose, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"{where}: {robot_id}: pose.{name} must be finite, got {value!r}")
