"""Booster robocup_demo's node types, implemented on our services.

Same ids, ports and defaults as ``../shared/booster/nodes.json``; behaviour as described in
``../shared/booster/README.md``. Every ``SyncActionNode`` returns SUCCESS on every path; only
Kick, RLVisionKick, GoToFreekickPosition, CamFastScan, TurnOnSpot, RobotFindBall and StandStill
(``StatefulActionNode``) return RUNNING, and their ``on_halted`` stops the robot.

Nodes read their ports and the world model through ``self.context`` (a ``RobotContext``) and
write the command being built; the geometry lives in ``skills``. Per-instance state (head scan
index, decision hysteresis) stays in the node, so two robots never share it (Booster keeps some
of it in C++ statics).
"""
from __future__ import annotations

import math

from soccerbt.nodes.soccer._base import (FAILURE, RUNNING, SUCCESS, InputPort, OutputPort,
                                         SoccerStatefulNode, SoccerSyncNode)
from soccerbt.nodes.soccer.skills import (angle_good_for_kick, avoid_direction, ball_view, clamp,
                                          dist_to_obstacle, goal_post_angles, head_angles_to,
                                          nav_obstacles, sigmoid_down, striker_rank, walk_to_pose)
from soccerbt.nodes.soccer.versions import (BOOSTER_VERSIONS, DEFAULT_BOOSTER_VERSION, VERSION_DEFAULTS,
                                           tree_version_of_file)
from soccerbt.world.types import wrap_angle_rad

__all__ = ["BOOSTER_NODE_TYPES", "RobocupWalk", "GoToFreekickPosition2026", "GoToFreekickPositionAuto",
           "report_freekick_target"]

_DOUBLE, _INT, _BOOL, _STRING = float, int, bool, str


def _in(name: str, type_: type, default: str | None) -> object:
    """An input port with Booster's default (kept as the string nodes.json shows)."""
    if default is None:
        return InputPort(name, type_)
    return InputPort(name, type_, default)


# --- head ------------------------------------------------------------------------------------


class MoveHead(SoccerSyncNode):
    """Point the head: pitch (+ down) and yaw (+ left)."""

    @classmethod
    def provided_ports(cls):
        return [_in("pitch", _DOUBLE, "0"), _in("yaw", _DOUBLE, "0")]

    def update(self):
        self.context.set_head(self.port_float("yaw"), self.port_float("pitch"))
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
            return SUCCESS
        pan, tilt = head_angles_to(ctx, ball.robot_x_m, ball.robot_y_m)
        if ball.detected:
            ctx.set_head(pan, tilt)
        else:
            cmd = ctx.command
            ctx.set_head(cmd.head_pan_rad + (pan - cmd.head_pan_rad) * 0.05,
                         cmd.head_tilt_rad + (tilt - cmd.head_tilt_rad) * 0.05)
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
        if ctx.world_model.ball_detected(ctx.config.ball_detected_window_s):
            return SUCCESS
        now = ctx.now_s()
        if self._last_cmd_s is not None:
            since = now - self._last_cmd_s
            if since < 1.0:
                return SUCCESS
            self._index = 0 if since > 60.0 else (self._index + 1) % len(_FIND_POSES)
        pitch, yaw = _FIND_POSES[self._index]
        ctx.set_head(yaw, pitch)
        self._last_cmd_s = now
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
        ctx.set_head(right + (left - right) * frac, pitch)
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
        pitch, yaw = _FAST_SCAN_POSES[0]
        self.context.set_head(yaw, pitch)
        return RUNNING

    def on_running(self):
        ctx = self.context
        now = ctx.now_s()
        if (now - self._last_s) * 1000.0 < self.port_float("msecs_interval"):
            return RUNNING
        if self._index >= len(_FAST_SCAN_POSES) - 1:
            return SUCCESS
        self._index += 1
        self._last_s = now
        pitch, yaw = _FAST_SCAN_POSES[self._index]
        ctx.set_head(yaw, pitch)
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


# --- positioning -----------------------------------------------------------------------------


class GoToReadyPosition(SoccerSyncNode):
    """Walk to the kick-off position of this role: strikers just outside the centre circle
    (kicking off) or at twice its radius, goalkeeper in front of its goal."""

    @classmethod
    def provided_ports(cls):
        return [_in("dist_tolerance", _DOUBLE, "0.8"), _in("theta_tolerance", _DOUBLE, "0.5"),
                _in("vx_limit", _DOUBLE, "0.8"), _in("vy_limit", _DOUBLE, "0.5")]

    def update(self):
        ctx = self.context
        f = ctx.field
        role = ctx.bb_get("player_role", ctx.start_role)
        kickoff = bool(ctx.bb_get("gc_is_kickoff_side", False))
        r = f.centre_circle_radius_m
        vx_limit, vy_limit = self.port_float("vx_limit"), self.port_float("vy_limit")
        pose = ctx.world_model.robot_pose_field
        if not f.is_inside_field(pose.x_m, pose.y_m, margin_m=1.0):  # near the border: slower
            vx_limit, vy_limit = min(vx_limit, 0.6), min(vy_limit, 0.4)
        tx = ty = 0.0
        if role == "goal_keeper":
            tx = -f.half_length_m + f.goal_area_length_m
        else:
            rank = striker_rank(ctx)
            if rank == 0:
                tx, ty = (-r - 0.5 if kickoff else -2.0 * r), 0.0
            elif rank == 1:
                tx, ty = (-r - 0.5 if kickoff else -2.0 * r), -1.5
            elif rank == 2:
                tx, ty = -f.half_length_m + f.penalty_area_length_m, r / 2.0
            else:
                tx, ty = -f.half_length_m + f.penalty_mark_distance_m, -r / 2.0
        tol = self.port_float("dist_tolerance") / 1.5
        move_to_pose_tolerant(ctx, tx, ty, 0.0, long_range_m=1.0, turn_threshold_rad=0.4, vx_limit=vx_limit,
                              vy_limit=vy_limit, vtheta_limit=1.5, x_tol_m=tol, y_tol_m=tol,
                              theta_tol_rad=self.port_float("theta_tolerance"), avoid_obstacles=True)
        return SUCCESS


def _blocking_target(ctx, ball, dist_to_goalline_m: float, role: str) -> tuple[float, float]:
    f = ctx.field
    hl = f.half_length_m
    if role == "striker":
        tx = max(-hl + dist_to_goalline_m, ball.field_x_m - 1.5)
    else:
        tx = -hl + dist_to_goalline_m
    depth = ball.field_x_m + hl
    if depth < dist_to_goalline_m:
        quarter = f.goal_width_m / 2.0 if role == "striker" else f.goal_width_m / 4.0
        ty = quarter if ball.field_y_m > 0.0 else -quarter
    else:
        ty = ball.field_y_m * dist_to_goalline_m / depth
        lim = f.goal_width_m / 2.0 if role == "striker" else f.penalty_area_width_m / 2.0
        ty = clamp(ty, -lim, lim)
    return tx, ty


class GoToGoalBlockingPosition(SoccerSyncNode):
    """Goalkeeper: stand on the ball-to-goal line ``dist_to_goalline`` in front of the goal
    line, clamped to the penalty area, facing the ball."""

    @classmethod
    def provided_ports(cls):
        return [_in("dist_tolerance", _DOUBLE, "0.8"), _in("theta_tolerance", _DOUBLE, "0.8"),
                _in("vx_limit", _DOUBLE, "0.1"), _in("vy_limit", _DOUBLE, "0.1"),
                _in("dist_to_goalline", _DOUBLE, "2.5")]

    def update(self):
        ctx = self.context
        ball = ball_view(ctx)
        role = str(ctx.bb_get("player_role", ctx.start_role))
        tx, ty = _blocking_target(ctx, ball, self.port_float("dist_to_goalline"), role)
        pose = ctx.world_model.robot_pose_field
        if (pose.distance_to(tx, ty) < self.port_float("dist_tolerance")
                and abs(ball.yaw_rad) < self.port_float("theta_tolerance")):
            ctx.stop()
            return SUCCESS
        rx, ry = pose.inverse_transform_point(tx, ty)
        vx_lim, vy_lim = self.port_float("vx_limit"), self.port_float("vy_limit")
        ctx.set_velocity(clamp(rx, -vx_lim, vx_lim), clamp(ry, -vy_lim, vy_lim), ball.yaw_rad * 4.0)
        return SUCCESS


class Assist(SoccerSyncNode):
    """Supporter: hold a position behind the lead player, on the ball-to-own-goal line."""

    @classmethod
    def provided_ports(cls):
        return [_in("dist_tolerance", _DOUBLE, "0.8"), _in("theta_tolerance", _DOUBLE, "0.8"),
                _in("vx_limit", _DOUBLE, "0.1"), _in("vy_limit", _DOUBLE, "0.1"),
                _in("dist_to_goalline", _DOUBLE, "2.5")]

    def update(self):
        ctx = self.context
        f = ctx.field
        ball = ball_view(ctx)
        pose = ctx.world_model.robot_pose_field
        secondary = has_two = False
        for t in ctx.world_model.teammates.values():
            if t.penalised or t.is_lead or t.role != "striker" or t.number == ctx.player_number:
                continue
            has_two = True
            if t.pose_field is not None and t.pose_field.x_m > pose.x_m:
                secondary = True
        hl = f.half_length_m
        tx = ball.field_x_m - (4.0 if secondary else 2.0)
        tx = max(tx, -hl + self.port_float("dist_to_goalline"))
        ty = ball.field_y_m * (tx + hl) / max(1e-3, ball.field_x_m + hl)
        if has_two:
            ty += -0.5 if secondary else 0.5
        if (pose.distance_to(tx, ty) < self.port_float("dist_tolerance")
                and abs(ball.yaw_rad) < self.port_float("theta_tolerance")):
            ctx.stop()
            return SUCCESS
        rx, ry = pose.inverse_transform_point(tx, ty)
        target_dir = math.atan2(ry, rx)
        cfg = ctx.config
        if cfg.avoid_during_chase and dist_to_obstacle(ctx, target_dir) < min(cfg.chase_avoid_safe_dist_m, math.hypot(rx, ry)):
            d = avoid_direction(ctx, target_dir, cfg.chase_avoid_safe_dist_m)
            vx, vy, vth = 0.5 * math.cos(d), 0.5 * math.sin(d), ball.yaw_rad
        else:
            vx, vy, vth = rx, ry, ball.yaw_rad * 4.0
        vx_lim, vy_lim = self.port_float("vx_limit"), self.port_float("vy_limit")
        ctx.set_velocity(clamp(vx, -1.0, vx_lim), clamp(vy, -vy_lim, vy_lim), vth)
        return SUCCESS


FREEKICK_TARGET_VALID_KEY = "local_freekick_target_valid"
FREEKICK_TARGET_ERROR_KEY = "local_freekick_target_error"


def report_freekick_target(ctx, valid: bool, error_m: float) -> None:
    """What Booster's 2026 free-kick positioning nodes report for the local free-kick phase:
    whether they worked this tick from a fresh target (a known ball, or the goal-kick spot), and
    how far (m) the robot is from it. The phase logic (``soccerbt.services.freekick``) reads
    and then clears them before every tick."""
    ctx.bb_set(FREEKICK_TARGET_VALID_KEY, bool(valid))
    ctx.bb_set(FREEKICK_TARGET_ERROR_KEY, float(error_m) if math.isfinite(error_m) else 1e9)


class GoToFreekickPosition(SoccerStatefulNode):
    """Free kick: attack, behind the ball along the kick direction; defense, 2.5-3.5 m from the
    ball toward the own goal. RUNNING until within 0.2 m and 0.1 rad. Reports the target to
    the local free-kick phase (``local_freekick_target_valid`` / ``_error``). Without a ball
    estimate during the opponents' goal kick (Booster's 2026 trees run it then) the ball is
    taken to lie on the opponents' goal-area line. Defaults of Booster's main branch."""

    @classmethod
    def provided_ports(cls):
        return [_in("side", _STRING, "attack"), _in("attack_dist", _DOUBLE, "0.7"),
                _in("defense_dist", _DOUBLE, "1.9"), _in("vx_limit", _DOUBLE, "1.2"),
                _in("vy_limit", _DOUBLE, "0.5")]

    def on_start(self):
        self._final_adjust = False
        return self.on_running()

    def _ball(self):
        """The ball estimate, or the opponents' goal-kick spot when the ball is unknown."""
        ctx = self.context
        ball = ball_view(ctx)
        if ball.known or ctx.bb_get("gc_real_game_sub_state", "NONE") != "GOAL_KICK" \
                or bool(ctx.bb_get("gc_is_sub_state_kickoff_side", False)):
            return ball, ball.known
        f = ctx.field
        bx = f.half_length_m - f.goal_area_length_m
        by = (f.goal_area_width_m / 2.0) * (1.0 if ball.field_y_m >= 0.0 else -1.0) if ball.field_y_m else 0.0
        pose = ctx.world_model.robot_pose_field
        rx, ry = pose.inverse_transform_point(bx, by)
        return ball._replace(field_x_m=bx, field_y_m=by, robot_x_m=rx, robot_y_m=ry,
                             range_m=math.hypot(rx, ry), yaw_rad=math.atan2(ry, rx),
                             dir_rb_rad=math.atan2(by - pose.y_m, bx - pose.x_m)), True

    def _target(self, side: str, ball):
        ctx = self.context
        f = ctx.field
        kick_dir = ctx.state.kick_dir_rad
        defense_dir = math.atan2(ball.field_y_m, ball.field_x_m + f.half_length_m)
        rank = striker_rank(ctx)
        if rank >= 2:
            y = f.goal_area_width_m / 2.0 * (1.0 if rank == 2 else -1.0)
            return -f.half_length_m + f.penalty_mark_distance_m, y, 0.0
        if side == "attack":
            if rank == 0:
                d = self.port_float("attack_dist")
                return ball.field_x_m - d * math.cos(kick_dir), ball.field_y_m - d * math.sin(kick_dir), kick_dir
            return (ball.field_x_m - 2.0 * math.cos(defense_dir), ball.field_y_m - 2.0 * math.sin(defense_dir),
                    defense_dir)
        dx, dy = (3.0, 2.5) if rank == 0 else (3.5, 4.0)
        return (ball.field_x_m - dx * math.cos(defense_dir), ball.field_y_m - dy * math.sin(defense_dir),
                defense_dir)

    def on_running(self):
        ctx = self.context
        side = str(self.get_input("side"))
        if side not in ("attack", "defense"):
            return SUCCESS
        ball, fresh = self._ball()
        tx, ty, tth = self._target(side, ball)
        pose = ctx.world_model.robot_pose_field
        dist = pose.distance_to(tx, ty)
        report_freekick_target(ctx, fresh, dist)
        if dist < 0.2 and abs(wrap_angle_rad(tth - pose.theta_rad)) < 0.1:
            ctx.stop()
            return SUCCESS
        vx_lim, vy_lim = self.port_float("vx_limit"), self.port_float("vy_limit")
        if dist < 1.0 or self._final_adjust or ctx.navigator is None:
            self._final_adjust = True
            rx, ry = pose.inverse_transform_point(tx, ty)
            factor = sigmoid_down(ball.range_m * abs(ball.yaw_rad), 3.0, 1.0)
            vx, vy = rx * factor, ry * factor
            # do not walk into the ball on the way
            if ball.range_m < 1.0 and _point_segment_dist(ball.field_x_m, ball.field_y_m, pose.x_m, pose.y_m, tx, ty) < 0.5:
                vx = min(0.0, vx)
                vy = vy + 0.1 if vy >= 0.0 else vy - 0.1
            ctx.set_velocity(clamp(vx, -0.4, vx_lim), clamp(vy, -vy_lim, vy_lim), ball.yaw_rad * 2.0)
            return RUNNING
        keep_m = ctx.field.free_kick_distance_m + 0.2 if side == "defense" else 0.5
        walk_to_pose(ctx, tx, ty, tth, vx_limit=min(0.6, vx_lim), vy_limit=min(0.5, vy_lim), vtheta_limit=1.5,
                     obstacles=nav_obstacles(ctx, include_ball=True, ball_radius_m=keep_m))
        return RUNNING

    def on_halted(self):
        self.context.stop()


class GoToFreekickPosition2026(GoToFreekickPosition):
    """GoToFreekickPosition with the defaults of Booster's 2026 branch (attack_dist 0.6,
    vx_limit 0.7)."""

    BOOSTER_VERSION = "2026"

    @classmethod
    def provided_ports(cls):
        return _with_defaults(super().provided_ports(), VERSION_DEFAULTS["2026"]["GoToFreekickPosition"])


class GoToFreekickPositionAuto(GoToFreekickPosition):
    """GoToFreekickPosition whose version-dependent defaults (attack_dist, vx_limit) are those
    of the Booster version of the tree it is built in (``versions.tree_version_of_file``, or
    ``RobotContext.booster_version``). Registered without a default for those two ports."""

    def __init__(self, name, config=None):
        version = DEFAULT_BOOSTER_VERSION
        if config is not None:
            ctx_version = getattr(getattr(config.env, "context", None), "booster_version", None)
            version = ctx_version if ctx_version in BOOSTER_VERSIONS else tree_version_of_file(config.xml_path)
            for port, value in VERSION_DEFAULTS[version]["GoToFreekickPosition"].items():
                config.input_ports.setdefault(port, value)
        self.booster_version = version
        super().__init__(name, config)

    @classmethod
    def provided_ports(cls):
        versioned = VERSION_DEFAULTS["main"]["GoToFreekickPosition"]
        out = []
        for p in super().provided_ports():
            if p.name in versioned:
                text = ", ".join(f"{v} {VERSION_DEFAULTS[v]['GoToFreekickPosition'][p.name]}"
                                 for v in BOOSTER_VERSIONS)
                p = InputPort(p.name, p.type_, description=f"default by the tree's Booster version: {text}")
            out.append(p)
        return out


def _with_defaults(ports, defaults: dict[str, str]):
    return [InputPort(p.name, p.type_, defaults[p.name]) if p.name in defaults else p for p in ports]


def _point_segment_dist(px, py, ax, ay, bx, by) -> float:
    dx, dy = bx - ax, by - ay
    ll = dx * dx + dy * dy
    t = 0.0 if ll == 0.0 else clamp(((px - ax) * dx + (py - ay) * dy) / ll, 0.0, 1.0)
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


# --- decisions -------------------------------------------------------------------------------


class CalcKickDir(SoccerSyncNode):
    """Choose the kick direction and type: shoot at the goal centre, cross toward the penalty
    mark region when the goal opening is narrow, block (away from the own goal) on defence."""

    @classmethod
    def provided_ports(cls):
        return [_in("cross_threshold", _DOUBLE, "0.2")]

    def update(self):
        self._plan(self.context, self.port_float("cross_threshold"))
        return SUCCESS

    @staticmethod
    def _plan(ctx, cross_threshold_rad: float) -> None:
        f = ctx.field
        state = ctx.state
        threshold = cross_threshold_rad + (0.1 if state.kick_type == "cross" else 0.0)
        ball = ball_view(ctx)
        bx, by = ball.field_x_m, ball.field_y_m
        left, right = goal_post_angles(ctx, bx, by)
        hl = f.half_length_m
        if wrap_angle_rad(left - right) < threshold and bx > f.centre_circle_radius_m:
            state.kick_type = "cross"
            state.kick_dir_rad = math.atan2(-by, hl - f.penalty_mark_distance_m / 2.0 - bx)
        elif bx < -hl / 3.0:  # defending: clear it away from the own goal
            state.kick_type = "block"
            state.kick_dir_rad = math.atan2(by, bx + hl)
        else:
            state.kick_type = "shoot"
            state.kick_dir_rad = 0.0 if bx > hl else math.atan2(-by, hl - bx)
        ctx.bb_set("kick_dir_rad", state.kick_dir_rad)
        ctx.bb_set("kick_type", state.kick_type)


class StrikerDecide(SoccerSyncNode):
    """Write the striker's decision: find, auto_visual_kick, assist, chase (with hysteresis),
    kick or cross (aligned, close, ball in front, no obstacle), else adjust."""

    @classmethod
    def provided_ports(cls):
        return [_in("chase_threshold", _DOUBLE, "1.0"), _in("decision_in", _STRING, ""),
                _in("position", _STRING, "offense"), OutputPort("decision_out", _STRING)]

    def setup_state(self) -> None:
        self._last_delta_dir = 0.0
        self._last_tick_s = -1e9

    def update(self):
        ctx = self.context
        cfg = ctx.config
        threshold = self.port_float("chase_threshold")
        last = str(self.get_input("decision_in") or "")
        ball = ball_view(ctx)
        pose = ctx.world_model.robot_pose_field
        delta_dir = wrap_angle_rad(ctx.state.kick_dir_rad - ball.dir_rb_rad)
        now = ctx.now_s()
        reached_kick_dir = ((delta_dir * self._last_delta_dir <= 0.0 and abs(delta_dir) < math.pi / 6.0
                             and now - self._last_tick_s < 0.1) or abs(delta_dir) < 0.1)
        self._last_tick_s, self._last_delta_dir = now, delta_dir
        is_lead = bool(ctx.bb_get("is_lead", True))
        avoid_kick = (cfg.avoid_during_kick and pose.x_m < ctx.field.half_length_m - ctx.field.goal_area_length_m
                      and dist_to_obstacle(ctx, ball.yaw_rad) < cfg.kick_avoid_safe_dist_m)
        if not ball.known:
            decision = "find"
        elif (cfg.enable_auto_visual_kick and is_lead and not bool(ctx.bb_get("ball_out", False))
              and cfg.auto_visual_kick_dist_min_m < ball.range_m < cfg.auto_visual_kick_dist_max_m
              and abs(ball.yaw_rad) < cfg.auto_visual_kick_angle_rad * 1.3
              and abs(ball.field_y_m) < 5.0 and abs(pose.y_m) < 5.0):
            decision = "auto_visual_kick"
            ctx.state.in_visual_kick = True
        elif not is_lead:
            decision = "assist"
        elif ball.range_m > threshold * (0.9 if last == "chase" else 1.0):
            decision = "chase"
        elif ((angle_good_for_kick(ctx, ball) and not ctx.state.is_freekick_kicking_off) or reached_kick_dir) \
                and ball.detected and abs(ball.yaw_rad) < math.pi / 2.0 and not avoid_kick and ball.range_m < 1.5:
            decision = "cross" if ctx.state.kick_type == "cross" else "kick"
            ctx.state.is_freekick_kicking_off = False
        else:
            decision = "adjust"
        self.set_output("decision_out", decision)
        return SUCCESS


class GoalieDecide(SoccerSyncNode):
    """Write the goalkeeper's decision: find, retreat (ball in the other half), chase (with
    hysteresis), kick (ball in front), adjust."""

    @classmethod
    def provided_ports(cls):
        return [_in("chase_threshold", _DOUBLE, "1.0"), _in("adjust_angle_tolerance", _DOUBLE, "0.1"),
                _in("adjust_y_tolerance", _DOUBLE, "0.1"), _in("decision_in", _STRING, ""),
                _in("auto_visual_kick_enable_dist_min", _DOUBLE, "2.0"),
                _in("auto_visual_kick_enable_dist_max", _DOUBLE, "3.0"),
                _in("auto_visual_kick_enable_angle", _DOUBLE, "0.785"),
                _in("auto_visual_kick_obstacle_dist_threshold", _DOUBLE, "3.0"),
                _in("auto_visual_kick_obstacle_angle_threshold", _DOUBLE, "1.744"),
                OutputPort("decision_out", _STRING)]

    def update(self):
        ctx = self.context
        threshold = self.port_float("chase_threshold")
        last = str(self.get_input("decision_in") or "")
        ball = ball_view(ctx)
        if not ball.known:
            decision = "find"
        elif ball.field_x_m > 0.0 - (1.0 if last == "retreat" else 0.0):
            decision = "retreat"
        elif ball.range_m > threshold * (0.9 if last == "chase" else 1.0):
            decision = "chase"
        elif -math.pi / 2.0 < ball.dir_rb_rad < math.pi / 2.0:
            decision = "kick"
        else:
            decision = "adjust"
        self.set_output("decision_out", decision)
        return SUCCESS


# --- ball handling ---------------------------------------------------------------------------


class Chase(SoccerSyncNode):
    """Walk to a point ``dist`` behind the ball along the kick direction; circle around at
    ``safe_dist`` when on the wrong side; slow down when the heading error is large."""

    @classmethod
    def provided_ports(cls):
        return [_in("vx_limit", _DOUBLE, "0.6"), _in("vy_limit", _DOUBLE, "0.4"),
                _in("vtheta_limit", _DOUBLE, "1.0"), _in("dist", _DOUBLE, "0.1"),
                _in("safe_dist", _DOUBLE, "4.0")]

    def setup_state(self) -> None:
        self._direct = True
        self._circle_dir = 1.0

    def update(self):
        ctx = self.context
        cfg = ctx.config
        ball = ball_view(ctx)
        pose = ctx.world_model.robot_pose_field
        vx_lim, vy_lim, vth_lim = self.port_float("vx_limit"), self.port_float("vy_limit"), self.port_float("vtheta_limit")
        dist, safe = self.port_float("dist"), self.port_float("safe_dist")
        kick_dir = ctx.state.kick_dir_rad
        theta_br = math.atan2(pose.y_m - ball.field_y_m, pose.x_m - ball.field_x_m)
        threshold = math.pi / 2.0 * (1.2 if self._direct else 1.0)
        if abs(wrap_angle_rad(kick_dir - ball.dir_rb_rad)) < threshold:
            self._direct = True
            tx, ty = ball.field_x_m - dist * math.cos(kick_dir), ball.field_y_m - dist * math.sin(kick_dir)
        else:
            self._direct = False
            cb_threshold = -0.2 * self._circle_dir
            self._circle_dir = 1.0 if wrap_angle_rad(theta_br - kick_dir) > cb_threshold else -1.0
            tangent = theta_br + self._circle_dir * math.acos(min(1.0, safe / max(ball.range_m, 1e-5)))
            tx, ty = ball.field_x_m + safe * math.cos(tangent), ball.field_y_m + safe * math.sin(tangent)
        rx, ry = pose.inverse_transform_point(tx, ty)
        target_dir = math.atan2(ry, rx)
        target_range = math.hypot(rx, ry)
        if cfg.avoid_during_chase and dist_to_obstacle(ctx, target_dir) < min(cfg.chase_avoid_safe_dist_m, target_range):
            d = avoid_direction(ctx, target_dir, min(cfg.chase_avoid_safe_dist_m, target_range))
            vx, vy, vth = 0.5 * math.cos(d), 0.5 * math.sin(d), ball.yaw_rad
        else:
            vth = target_dir
            if abs(target_dir) < 0.1 and ball.range_m > 2.0:
                vth = 0.0
            vx = min(vx_lim, ball.range_m) * sigmoid_down(abs(vth), 3.0, 1.0)
            vy = 0.0
        ctx.set_velocity(clamp(vx, -vx_lim, vx_lim), clamp(vy, -vy_lim, vy_lim), clamp(vth, -vth_lim, vth_lim))
        return SUCCESS


class SimpleChase(SoccerSyncNode):
    """Walk straight at the ball, turning to face it; stop translating within ``stop_dist``."""

    @classmethod
    def provided_ports(cls):
        return [_in("stop_dist", _DOUBLE, "1.0"), _in("stop_angle", _DOUBLE, "0.1"),
                _in("vy_limit", _DOUBLE, "0.2"), _in("vx_limit", _DOUBLE, "0.6")]

    def update(self):
        ctx = self.context
        if not ctx.world_model.ball_location_known:
            ctx.stop()
            return SUCCESS
        ball = ball_view(ctx)
        factor = sigmoid_down(ball.range_m * abs(ball.yaw_rad), 3.0, 1.0)
        vx, vy = ball.robot_x_m * factor, ball.robot_y_m * factor
        vx = clamp(vx, -1.0, self.port_float("vx_limit"))
        vy_lim = self.port_float("vy_limit")
        vy = clamp(vy, -vy_lim, vy_lim)
        vth = ball.yaw_rad * 4.0
        if abs(ball.yaw_rad) < self.port_float("stop_angle"):
            vth = 0.0
        if ball.range_m < self.port_float("stop_dist"):
            vx = vy = 0.0
        ctx.set_velocity(vx, vy, vth)
        return SUCCESS


class Adjust(SoccerSyncNode):
    """Move tangentially around the ball at ``range``, turning to face it, to line up the kick."""

    @classmethod
    def provided_ports(cls):
        return [_in("turn_threshold", _DOUBLE, "3.25"), _in("vx_limit", _DOUBLE, "0.05"),
                _in("vy_limit", _DOUBLE, "0.05"), _in("vtheta_limit", _DOUBLE, "0.1"),
                _in("range", _DOUBLE, "2.25"), _in("vtheta_factor", _DOUBLE, "3.0"),
                _in("tangential_speed_far", _DOUBLE, "0.2"), _in("tangential_speed_near", _DOUBLE, "0.15"),
                _in("near_threshold", _DOUBLE, "0.8"), _in("no_turn_threshold", _DOUBLE, "0.1"),
                _in("turn_first_threshold", _DOUBLE, "0.5")]

    def update(self):
        ctx = self.context
        if not ctx.world_model.ball_location_known:
            return SUCCESS
        f = self.port_float
        ball = ball_view(ctx)
        pose = ctx.world_model.robot_pose_field
        delta_dir = wrap_angle_rad(ctx.state.kick_dir_rad - ball.dir_rb_rad)
        speed = f("tangential_speed_near") if abs(delta_dir) * ball.range_m < f("near_threshold") else f("tangential_speed_far")
        radial = clamp(ball.range_m - f("range"), 0.0, 0.5)  # close in toward the ball
        tangent_dir = ball.dir_rb_rad + (math.pi / 2.0) * (-1.0 if delta_dir > 0.0 else 1.0) - pose.theta_rad
        radial_dir = ball.dir_rb_rad - pose.theta_rad
        vx = speed * math.cos(tangent_dir) + radial * math.cos(radial_dir)
        vy = speed * math.sin(tangent_dir) + radial * math.sin(radial_dir)
        vth = ball.yaw_rad * f("vtheta_factor")
        if abs(ball.yaw_rad) < f("no_turn_threshold"):
            vth = 0.0
        if abs(ball.yaw_rad) > f("turn_first_threshold") and abs(delta_dir) < math.pi / 4.0:
            vx = vy = 0.0
        vx_lim, vy_lim, vth_lim = f("vx_limit"), f("vy_limit"), f("vtheta_limit")
        ctx.set_velocity(clamp(vx, 0.0, vx_lim), clamp(vy, -vy_lim, vy_lim), clamp(vth, -vth_lim, vth_lim))
        return SUCCESS


class Kick(SoccerStatefulNode):
    """Walk through the ball in its direction; RUNNING for about ``min_msec_kick`` plus the
    travel time; ends early when the ball moved away or was lost."""

    @classmethod
    def provided_ports(cls):
        return [_in("min_msec_kick", _DOUBLE, "500"), _in("msecs_stablize", _DOUBLE, "1000"),
                _in("speed_limit", _DOUBLE, "0.8")]

    def _blocked(self) -> bool:
        ctx = self.context
        cfg = ctx.config
        pose = ctx.world_model.robot_pose_field
        return (cfg.avoid_during_kick and str(ctx.bb_get("player_role", "")) != "goal_keeper"
                and pose.x_m < ctx.field.half_length_m - ctx.field.goal_area_length_m
                and dist_to_obstacle(ctx, ctx.world_model.ball_bearing_rad) < cfg.kick_avoid_safe_dist_m)

    def on_start(self):
        ctx = self.context
        ball = ball_view(ctx)
        self._min_range = ball.range_m
        self._speed = 0.5
        self._start_s = ctx.now_s()
        if self._blocked():
            ctx.set_velocity(-0.1, 0.0, 0.0)
            return SUCCESS
        self._crab_walk(ball.yaw_rad, self._speed)
        return RUNNING

    def _crab_walk(self, angle_rad: float, speed_mps: float) -> None:
        self.context.set_velocity(speed_mps * math.cos(angle_rad), speed_mps * math.sin(angle_rad), 0.0)

    def on_running(self):
        ctx = self.context
        wm = ctx.world_model
        ball = ball_view(ctx)
        if (ball.detected and ball.range_m - self._min_range > 0.3) or wm.ball_age_s > 1.0:
            return SUCCESS  # the ball moved away, or is lost
        self._min_range = min(self._min_range, ball.range_m)
        if self._blocked():
            ctx.set_velocity(-0.1, 0.0, 0.0)
            return SUCCESS
        speed_limit = max(1e-3, self.port_float("speed_limit"))
        budget_s = self.port_float("min_msec_kick") / 1000.0 + ball.range_m / speed_limit
        if ctx.now_s() - self._start_s > budget_s:
            ctx.stop()
            return SUCCESS
        if ball.detected:
            self._speed += 0.1
            self._crab_walk(ball.yaw_rad, min(speed_limit, self._speed))
        return RUNNING

    def on_halted(self):
        self.context.stop()


class RLVisionKick(SoccerStatefulNode):
    """Stand-in for Booster's learned kicking gait: after a short stop, line up behind the ball
    toward the kick direction and kick or dribble through it; RUNNING until the ball is lost,
    out or too far (after ``min_msec_kick``) or ``max_msec_kick`` passed; stops on halt."""

    DECELERATE_S = 0.5

    @classmethod
    def provided_ports(cls):
        return [_in("max_msec_kick", _DOUBLE, "10000"), _in("min_msec_kick", _DOUBLE, "3000"),
                _in("range", _DOUBLE, "1.5"), _in("auto_visual_kick_enable_dist_min", _DOUBLE, "0.0"),
                _in("auto_visual_kick_enable_dist_max", _DOUBLE, "4.0"),
                _in("auto_visual_kick_enable_angle", _DOUBLE, "0.785"),
                _in("auto_visual_kick_enable_goal_angle", _DOUBLE, "0.35"),
                _in("auto_visual_kick_obstacle_dist_threshold", _DOUBLE, "1.0"),
                _in("auto_visual_kick_obstacle_angle_threshold", _DOUBLE, "1.744")]

    def on_start(self):
        self._start_s = self.context.now_s()
        self._exit_s: float | None = None
        self.context.stop()
        return RUNNING

    def on_running(self):
        ctx = self.context
        now = ctx.now_s()
        elapsed = now - self._start_s
        if self._exit_s is not None:  # decelerating before leaving
            ctx.stop()
            return SUCCESS if now - self._exit_s >= self.DECELERATE_S else RUNNING
        if elapsed < self.DECELERATE_S:
            ctx.stop()
            return RUNNING
        wm = ctx.world_model
        ball = ball_view(ctx)
        too_far = ball.detected and ball.range_m > 5.0
        if ((too_far and elapsed * 1000.0 > self.port_float("min_msec_kick")) or not wm.ball_location_known
                or bool(ctx.bb_get("ball_out", False)) or elapsed * 1000.0 > self.port_float("max_msec_kick")):
            ctx.state.in_visual_kick = False
            self._exit_s = now
            ctx.stop()
            return RUNNING
        dribble_kick(ctx, ball, ctx.state.kick_dir_rad, speed_mps=0.7)
        return RUNNING

    def on_halted(self):
        self.context.state.in_visual_kick = False
        self.context.stop()


def dribble_kick(ctx, ball, kick_dir_rad: float, speed_mps: float) -> None:
    """Get behind the ball toward ``kick_dir_rad`` and kick it (or walk through it)."""
    pose = ctx.world_model.robot_pose_field
    behind_err = wrap_angle_rad(kick_dir_rad - ball.dir_rb_rad)
    heading_err = wrap_angle_rad(kick_dir_rad - pose.theta_rad)
    if (ball.detected and 0.25 < ball.robot_x_m < 0.45 and abs(ball.robot_y_m) < 0.12
            and abs(heading_err) < 0.2):
        ctx.request_kick(0.0, 1.0)
        ctx.stop()
        return
    if abs(behind_err) < 0.35 and ball.range_m < 1.0:
        # aligned: approach the ball centre-on, facing the kick direction
        ctx.set_velocity(min(speed_mps, 0.3 + ball.robot_x_m), clamp(1.5 * ball.robot_y_m, -0.3, 0.3),
                         clamp(2.0 * heading_err, -1.0, 1.0))
        return
    stand_off_m = 0.45 if abs(behind_err) < 0.8 else 0.7
    tx = ball.field_x_m - stand_off_m * math.cos(kick_dir_rad)
    ty = ball.field_y_m - stand_off_m * math.sin(kick_dir_rad)
    walk_to_pose(ctx, tx, ty, kick_dir_rad, vx_limit=speed_mps, vy_limit=0.4, vtheta_limit=1.2,
                 obstacles=nav_obstacles(ctx, include_ball=abs(behind_err) > 0.8, ball_radius_m=0.3))


# --- localization ----------------------------------------------------------------------------


def _calibrated_if_confident(ctx) -> None:
    loc = ctx.localizer
    if loc is None:
        return
    conf = loc.confidence() if callable(getattr(loc, "confidence", None)) else 0.0
    wm_threshold = getattr(ctx.world_model, "calibrated_confidence", 0.6)
    if conf >= wm_threshold:
        ctx.bb_set("odom_calibrated", True)


class _RateLimited(SoccerSyncNode):
    """A localization node that acts at most every ``msecs_interval``."""

    def setup_state(self) -> None:
        self._last_s = -1e9

    def due(self) -> bool:
        now = self.context.now_s()
        if (now - self._last_s) * 1000.0 < self.port_float("msecs_interval"):
            return False
        self._last_s = now
        return True


class SelfLocate(_RateLimited):
    """Localization hints: ``trust_direction`` (keep the believed heading's side),
    ``enter_field`` (own-half prior), ``face_forward`` (facing the opponent goal)."""

    @classmethod
    def provided_ports(cls):
        return [_in("mode", _STRING, "enter_field"), _in("msecs_interval", _DOUBLE, "10000")]

    def update(self):
        ctx = self.context
        loc = ctx.localizer
        if loc is None or not self.due():
            return SUCCESS
        mode = str(self.get_input("mode"))
        if mode == "trust_direction" and hasattr(loc, "trust_direction"):
            loc.trust_direction()
        elif mode == "enter_field" and hasattr(loc, "resolve_mirror"):
            loc.resolve_mirror(own_half=True)
        elif mode == "face_forward" and hasattr(loc, "resolve_mirror"):
            loc.resolve_mirror(heading_rad=0.0)
        _calibrated_if_confident(ctx)
        return SUCCESS


class SelfLocateEnterField(_RateLimited):
    """Robots entering from the touch line: own-half prior; set odom_calibrated when confident."""

    @classmethod
    def provided_ports(cls):
        return [_in("msecs_interval", _DOUBLE, "1000")]

    def update(self):
        ctx = self.context
        loc = ctx.localizer
        if loc is None or not self.due():
            return SUCCESS
        if not bool(ctx.bb_get("odom_calibrated", False)) and hasattr(loc, "resolve_mirror"):
            loc.resolve_mirror(own_half=True)
        _calibrated_if_confident(ctx)
        return SUCCESS


class _SelfLocateFrom(_RateLimited):
    """Reset the localization from one feature combination of the current camera frame."""

    MODE = ""

    @classmethod
    def provided_ports(cls):
        return [_in("msecs_interval", _DOUBLE, "1000"), _in("max_dist", _DOUBLE, "2.0"),
                _in("max_drift", _DOUBLE, "1.0"), _in("validate", _BOOL, "true")]

    def update(self):
        ctx = self.context
        loc = ctx.localizer
        wm = ctx.world_model
        if loc is None or not hasattr(loc, "relocalize_from") or not wm.landmarks:
            return SUCCESS
        if ctx.now_s() - wm.last_frame_s > 0.05 or not self.due():
            return SUCCESS
        pose = loc.relocalize_from(self.MODE, wm.landmarks, max_dist_m=self.port_float("max_dist"),
                                   max_drift_m=self.port_float("max_drift"),
                                   validate=bool(self.get_input("validate")))
        if pose is not None:
            ctx.bb_set("odom_calibrated", True)
        return SUCCESS


class SelfLocate1M(_SelfLocateFrom):
    """From the centre mark (with an X crossing when seen)."""

    MODE = "1M"


class SelfLocate2X(_SelfLocateFrom):
    """From the two X crossings of the halfway line and the centre circle."""

    MODE = "2X"


class SelfLocate2T(_SelfLocateFrom):
    """From two T crossings."""

    MODE = "2T"


class SelfLocateLT(_SelfLocateFrom):
    """From an L and a T crossing."""

    MODE = "LT"


class SelfLocatePT(_SelfLocateFrom):
    """From a penalty mark and a T crossing."""

    MODE = "PT"


class SelfLocateBorder(_SelfLocateFrom):
    """From features on the outer lines (corners, T crossings, goal posts)."""

    MODE = "border"


class CalibrateOdom(SoccerSyncNode):
    """Believe the pose (x, y, theta) and mark the odometry calibrated."""

    @classmethod
    def provided_ports(cls):
        return [_in("x", _DOUBLE, "0"), _in("y", _DOUBLE, "0"), _in("theta", _DOUBLE, "0")]

    def update(self):
        from soccerbt.world.types import Pose2D

        ctx = self.context
        if ctx.localizer is not None and hasattr(ctx.localizer, "reset_to"):
            ctx.localizer.reset_to(Pose2D(self.port_float("x"), self.port_float("y"), self.port_float("theta")))
        ctx.bb_set("odom_calibrated", True)
        return SUCCESS


class RobocupWalk(SoccerSyncNode):
    """Booster 2026: switch the locomotion to the soccer walking mode and leave the learned
    kick. The simulated robot has one gait: it only ends a visual kick in progress; SUCCESS."""

    @classmethod
    def provided_ports(cls):
        return []

    def update(self):
        ctx = self.context
        ctx.state.in_visual_kick = False
        ctx.logger.debug("RobocupWalk: soccer walking mode")
        return SUCCESS


# --- utilities -------------------------------------------------------------------------------


class WaveHand(SoccerSyncNode):
    """Wave a hand (``action`` start/stop): logged, the simulated robot has no arms."""

    @classmethod
    def provided_ports(cls):
        return [_in("action", _STRING, "start")]

    def update(self):
        self.context.logger.debug("WaveHand %s", self.get_input("action"))
        return SUCCESS


class PrintMsg(SoccerSyncNode):
    """Log ``msg``."""

    @classmethod
    def provided_ports(cls):
        return [_in("msg", _STRING, None)]

    def update(self):
        try:
            msg = self.get_input("msg")
        except Exception:  # an unset message is not worth failing a tree
            msg = ""
        self.context.logger.info("%s", msg)
        return SUCCESS


BOOSTER_NODE_TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    RobotFindBall, Chase, SimpleChase, Adjust, Kick, StandStill, CalcKickDir, StrikerDecide,
    CamTrackBall, CamFindBall, CamFastScan, CamScanField, SetVelocity, StepOnSpot,
    GoToFreekickPosition, GoToReadyPosition, GoToGoalBlockingPosition, TurnOnSpot,
    MoveToPoseOnField, GoBackInField, GoalieDecide, WaveHand, MoveHead, CheckAndStandUp,
    RLVisionKick, Assist, CalibrateOdom, PrintMsg, SelfLocate, SelfLocateEnterField,
    SelfLocate1M, SelfLocateBorder, SelfLocate2T, SelfLocateLT, SelfLocatePT, SelfLocate2X,
)}
_ = FAILURE  # re-exported for the nodes of ours.py
