"""Booster's head and plain motion nodes: camera aim and scans, velocity, turning, walking to a pose,
getting back into the field and up.

Part of Booster's node library (soccerbt.nodes.soccer.booster has the registry and the shared
conventions).
"""
from __future__ import annotations

import math

from soccerbt.nodes.soccer._base import RUNNING, SUCCESS, SoccerStatefulNode, SoccerSyncNode
from soccerbt.nodes.soccer._base import booster_input as _in
from soccerbt.nodes.soccer.reasons import Rules
from soccerbt.nodes.soccer.skills import ball_view, head_angles_to, walk_to_pose
from soccerbt.world.types import wrap_angle_rad

_DOUBLE, _INT, _BOOL = float, int, bool  # the C++ port types of nodes.json
_BALL_UNKNOWN = "ball_location_known false and tm_ball_pos_reliable false"


# --- head ------------------------------------------------------------------------------------


class MoveHead(SoccerSyncNode):
    """Point the head: pitch (+ down) and yaw (+ left)."""

    @classmethod
    def provided_ports(cls):
        return [_in("pitch", _DOUBLE, "0"), _in("yaw", _DOUBLE, "0")]

    def update(self):
        yaw, pitch = self.port_float("yaw"), self.port_float("pitch")
        self.context.set_head(yaw, pitch)
        if self.explaining:
            self.set_reason(f"ports -> yaw {yaw:.2f} pitch {pitch:.2f}")
        return SUCCESS


class CamTrackBall(SoccerSyncNode):
    """Keep the head on the ball; without a detection drift slowly toward the remembered ball."""

    @classmethod
    def provided_ports(cls):
        return []

    def update(self):
        ctx = self.context
        ball = ball_view(ctx)
        if not ball.known:
            if self.explaining:
                self.set_reason(Rules().fired("ball unknown -> hold the head", _BALL_UNKNOWN))
            return SUCCESS
        pan, tilt = head_angles_to(ctx, ball.robot_x_m, ball.robot_y_m)
        at = f"ball at ({ball.robot_x_m:.2f}, {ball.robot_y_m:.2f})"
        if ball.detected:
            ctx.set_head(pan, tilt)
            if self.explaining:
                self.set_reason(Rules().ruled_out("ball unknown -> hold the head").fired(
                    "ball detected -> look at it", f"{at}: yaw {pan:.2f} pitch {tilt:.2f}"))
        else:
            cmd = ctx.command
            yaw = cmd.head_pan_rad + (pan - cmd.head_pan_rad) * 0.05
            pitch = cmd.head_tilt_rad + (tilt - cmd.head_tilt_rad) * 0.05
            ctx.set_head(yaw, pitch)
            if self.explaining:
                self.set_reason(Rules().ruled_out("ball unknown -> hold the head").ruled_out(
                    "ball detected -> look at it", "not in this frame").otherwise(
                    f"drift 5% toward the remembered {at}: yaw {yaw:.2f} pitch {pitch:.2f}"))
        return SUCCESS


_FIND_POSES = ((1.0, 1.1), (1.0, 0.0), (1.0, -1.1), (0.2, -1.1), (0.2, 0.0), (0.2, 1.1))  # (pitch, yaw)


class CamFindBall(SoccerSyncNode):
    """Cycle six head poses (two pitches x three yaws), one a second, until the ball is seen."""

    @classmethod
    def provided_ports(cls):
        return []

    def setup_state(self) -> None:
        self._index = 0
        self._last_cmd_s: float | None = None

    def update(self):
        ctx = self.context
        window_s = ctx.config.ball_detected_window_s
        if ctx.world_model.ball_detected(window_s):
            if self.explaining:
                self.set_reason(f"ball detected within {window_s:.2f} s -> leave the head")
            return SUCCESS
        now = ctx.now_s()
        if self._last_cmd_s is not None:
            since = now - self._last_cmd_s
            if since < 1.0:
                if self.explaining:
                    self.set_reason(f"ball not detected; pose {self._index + 1} of {len(_FIND_POSES)} held "
                                    f"{since:.2f} s < 1.00")
                return SUCCESS
            self._index = 0 if since > 60.0 else (self._index + 1) % len(_FIND_POSES)
        pitch, yaw = _FIND_POSES[self._index]
        ctx.set_head(yaw, pitch)
        self._last_cmd_s = now
        if self.explaining:
            self.set_reason(f"ball not detected -> pose {self._index + 1} of {len(_FIND_POSES)}: yaw {yaw:.2f} "
                            f"pitch {pitch:.2f}")
        return SUCCESS


class CamScanField(SoccerSyncNode):
    """Sweep the head left and right (low pitch one half cycle, high the other) for landmarks."""

    @classmethod
    def provided_ports(cls):
        return [_in("low_pitch", _DOUBLE, "0.5"), _in("high_pitch", _DOUBLE, "0.2"),
                _in("left_yaw", _DOUBLE, "0.8"), _in("right_yaw", _DOUBLE, "-0.8"),
                _in("msec_cycle", _INT, "4000")]

    def update(self):
        ctx = self.context
        low, high = self.port_float("low_pitch"), self.port_float("high_pitch")
        left, right = self.port_float("left_yaw"), self.port_float("right_yaw")
        cycle_ms = max(1, int(self.get_input("msec_cycle")))
        t_ms = int(ctx.now_s() * 1000.0) % cycle_ms
        half = cycle_ms / 2.0
        pitch = low if t_ms > half else high
        frac = 2.0 * t_ms / cycle_ms if t_ms < half else 2.0 * (cycle_ms - t_ms) / cycle_ms
        yaw = right + (left - right) * frac
        ctx.set_head(yaw, pitch)
        if self.explaining:
            self.set_reason(f"sweep {t_ms} ms of msec_cycle {cycle_ms}, {'low' if t_ms > half else 'high'} half -> "
                            f"yaw {yaw:.2f} pitch {pitch:.2f}")
        return SUCCESS


_FAST_SCAN_POSES = ((0.8, 1.1), (0.3, 1.1), (0.3, 0.0), (0.8, 0.0), (0.8, -1.1), (0.3, -1.1), (0.5, 0.0))


class CamFastScan(SoccerStatefulNode):
    """Step through seven head poses, ``msecs_interval`` each; RUNNING until done."""

    @classmethod
    def provided_ports(cls):
        return [_in("msecs_interval", _DOUBLE, "300")]

    def on_start(self):
        self._index = 0
        self._last_s = self.context.now_s()
        self._look(0)
        return RUNNING

    def _look(self, index: int) -> None:
        pitch, yaw = _FAST_SCAN_POSES[index]
        self.context.set_head(yaw, pitch)
        if self.explaining:
            self.set_reason(f"pose {index + 1} of {len(_FAST_SCAN_POSES)}: yaw {yaw:.2f} pitch {pitch:.2f}")

    def on_running(self):
        ctx = self.context
        now = ctx.now_s()
        if (now - self._last_s) * 1000.0 < self.port_float("msecs_interval"):
            return RUNNING
        if self._index >= len(_FAST_SCAN_POSES) - 1:
            return SUCCESS
        self._index += 1
        self._last_s = now
        self._look(self._index)
        return RUNNING

    def on_halted(self):
        self._index = 0


# --- plain motion ----------------------------------------------------------------------------


class SetVelocity(SoccerSyncNode):
    """Command a walking velocity (robot frame); zeros stand."""

    @classmethod
    def provided_ports(cls):
        return [_in("x", _DOUBLE, "0"), _in("y", _DOUBLE, "0"), _in("theta", _DOUBLE, "0")]

    def update(self):
        self.context.set_velocity(self.port_float("x"), self.port_float("y"), self.port_float("theta"))
        return SUCCESS


class StepOnSpot(SoccerSyncNode):
    """Step in place (a tiny forward/backward velocity keeps the gait going)."""

    @classmethod
    def provided_ports(cls):
        return []

    def setup_state(self) -> None:
        self._sign = 1.0

    def update(self):
        self._sign = -self._sign  # deterministic stand-in for Booster's random +-1 cm/s
        self.context.set_velocity(0.01 * self._sign, 0.0, 0.0)
        return SUCCESS


class StandStill(SoccerStatefulNode):
    """Stand for ``msecs``: RUNNING meanwhile, then SUCCESS."""

    @classmethod
    def provided_ports(cls):
        return [_in("msecs", _INT, "1000")]

    def on_start(self):
        self._start_s = self.context.now_s()
        self.context.stop()
        return RUNNING

    def on_running(self):
        self.context.stop()
        if (self.context.now_s() - self._start_s) * 1000.0 < float(self.get_input("msecs")):
            return RUNNING
        return SUCCESS

    def on_halted(self):
        self.context.stop()


class TurnOnSpot(SoccerStatefulNode):
    """Turn in place by ``rad`` (toward the ball's side with ``towards_ball``); RUNNING until
    turned, at most 5 s."""

    LIMIT_S = 5.0

    @classmethod
    def provided_ports(cls):
        return [_in("rad", _DOUBLE, "0"), _in("towards_ball", _BOOL, "false")]

    def on_start(self):
        ctx = self.context
        self._start_s = ctx.now_s()
        self._last_theta = ctx.world_model.odometry.theta_rad
        self._turned = 0.0
        angle = self.port_float("rad")
        if bool(self.get_input("towards_ball")):
            ball = ball_view(ctx)
            side = 1.0 if (ball.yaw_rad >= 0.0 if ball.range_m < 1e8 else angle >= 0.0) else -1.0
            angle = abs(angle) * side
        self._angle = angle
        ctx.set_velocity(0.0, 0.0, angle)
        return RUNNING

    def on_running(self):
        ctx = self.context
        theta = ctx.world_model.odometry.theta_rad
        self._turned += wrap_angle_rad(theta - self._last_theta)
        self._last_theta = theta
        if abs(self._turned) - abs(self._angle) > -0.1 or ctx.now_s() - self._start_s > self.LIMIT_S:
            ctx.stop()
            return SUCCESS
        ctx.set_velocity(0.0, 0.0, (self._angle - self._turned) * 2.0)
        return RUNNING

    def on_halted(self):
        self.context.stop()


class RobotFindBall(SoccerStatefulNode):
    """Turn toward the side the ball was last seen on until it is seen; RUNNING meanwhile."""

    @classmethod
    def provided_ports(cls):
        return [_in("vyaw_limit", _DOUBLE, "1.0")]

    def on_start(self):
        ctx = self.context
        if ctx.world_model.ball_detected(ctx.config.ball_detected_window_s):
            ctx.stop()
            return SUCCESS
        self._turn_dir = 1.0 if ctx.world_model.ball_bearing_rad > 0.0 else -1.0
        return self.on_running()

    def on_running(self):
        ctx = self.context
        if ctx.world_model.ball_detected(ctx.config.ball_detected_window_s):
            ctx.stop()
            return SUCCESS
        ctx.set_velocity(0.0, 0.0, self.port_float("vyaw_limit") * self._turn_dir)
        return RUNNING

    def on_halted(self):
        self._turn_dir = 1.0
        self.context.stop()


def move_to_pose_tolerant(ctx, x_m: float, y_m: float, theta_rad: float, *, long_range_m: float,
                          turn_threshold_rad: float, vx_limit: float, vy_limit: float,
                          vtheta_limit: float, x_tol_m: float, y_tol_m: float, theta_tol_rad: float,
                          avoid_obstacles: bool) -> bool:
    """Booster's moveToPoseOnField: stand once within the tolerances (True), else walk."""
    pose = ctx.world_model.robot_pose_field
    if (abs(x_m - pose.x_m) < x_tol_m and abs(y_m - pose.y_m) < y_tol_m
            and abs(wrap_angle_rad(theta_rad - pose.theta_rad)) < theta_tol_rad):
        ctx.stop()
        return True
    walk_to_pose(ctx, x_m, y_m, theta_rad, vx_limit=vx_limit, vy_limit=vy_limit, vtheta_limit=vtheta_limit,
                 avoid_obstacles=avoid_obstacles, long_range_m=long_range_m, turn_threshold_rad=turn_threshold_rad)
    return False


class MoveToPoseOnField(SoccerSyncNode):
    """Walk to a field pose (stand when within the tolerances)."""

    @classmethod
    def provided_ports(cls):
        return [_in("x", _DOUBLE, "0"), _in("y", _DOUBLE, "0"), _in("theta", _DOUBLE, "0"),
                _in("long_range_threshold", _DOUBLE, "1.5"), _in("turn_threshold", _DOUBLE, "0.4"),
                _in("vx_limit", _DOUBLE, "0.8"), _in("vy_limit", _DOUBLE, "0.5"),
                _in("vtheta_limit", _DOUBLE, "0.2"), _in("x_tolerance", _DOUBLE, "0.5"),
                _in("y_tolerance", _DOUBLE, "0.5"), _in("theta_tolerance", _DOUBLE, "0.5"),
                _in("avoid_obstacle", _BOOL, "false")]

    def update(self):
        f = self.port_float
        move_to_pose_tolerant(
            self.context, f("x"), f("y"), f("theta"), long_range_m=f("long_range_threshold"),
            turn_threshold_rad=f("turn_threshold"), vx_limit=f("vx_limit"), vy_limit=f("vy_limit"),
            vtheta_limit=f("vtheta_limit"), x_tol_m=f("x_tolerance"), y_tol_m=f("y_tolerance"),
            theta_tol_rad=f("theta_tolerance"), avoid_obstacles=bool(self.get_input("avoid_obstacle")))
        return SUCCESS


class GoBackInField(SoccerSyncNode):
    """Walk back inside the lines when beyond them (``valve``: margin); else stand."""

    @classmethod
    def provided_ports(cls):
        return [_in("valve", _DOUBLE, "0.5")]

    def update(self):
        ctx = self.context
        valve = self.port_float("valve")
        pose = ctx.world_model.robot_pose_field
        f = ctx.field
        if pose.x_m > f.half_length_m - valve:
            direction = math.pi
        elif pose.x_m < -f.half_length_m + valve:
            direction = 0.0
        elif pose.y_m > f.half_width_m + valve:
            direction = -math.pi / 2.0
        elif pose.y_m < -f.half_width_m - valve:
            direction = math.pi / 2.0
        else:
            ctx.stop()
            return SUCCESS
        d = wrap_angle_rad(direction - pose.theta_rad)
        ctx.set_velocity(0.4 * math.cos(d), 0.4 * math.sin(d), 0.0)
        return SUCCESS


class CheckAndStandUp(SoccerSyncNode):
    """After a fall, stand up (retry up to ``stand_up_retry_max`` times), unless penalised."""

    @classmethod
    def provided_ports(cls):
        return []

    def update(self):
        ctx = self.context
        state = ctx.state
        if not ctx.world_model.fallen:
            state.stand_up_attempts = 0
            return SUCCESS
        ctx.stop()
        if bool(ctx.bb_get("gc_is_under_penalty", False)):
            return SUCCESS
        now = ctx.now_s()
        cfg = ctx.config
        if (state.stand_up_attempts <= cfg.stand_up_retry_max
                and now - state.last_stand_up_s >= cfg.stand_up_retry_interval_s):
            ctx.request_stand_up()
            state.stand_up_attempts += 1
            state.last_stand_up_s = now
        return SUCCESS
