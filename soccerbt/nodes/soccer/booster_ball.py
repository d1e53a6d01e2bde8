"""Booster's decision and ball-handling nodes: kick direction, striker and goalie decisions,
chasing, adjusting and kicking (the scripted and the RL-vision kick).

Part of Booster's node library (soccerbt.nodes.soccer.booster has the registry and the shared
conventions).
"""
from __future__ import annotations

import math

from soccerbt.nodes.soccer._base import RUNNING, SUCCESS, OutputPort, SoccerStatefulNode, SoccerSyncNode
from soccerbt.nodes.soccer._base import booster_input as _in
from soccerbt.nodes.soccer.reasons import Rules
from soccerbt.nodes.soccer.skills import (
    angle_good_for_kick,
    avoid_direction,
    ball_view,
    clamp,
    dist_to_obstacle,
    goal_post_angles,
    kick_window,
    nav_obstacles,
    sigmoid_down,
    walk_to_pose,
)
from soccerbt.world.types import wrap_angle_rad

_DOUBLE, _STRING = float, str  # the C++ port types of nodes.json


# --- decisions -------------------------------------------------------------------------------


class CalcKickDir(SoccerSyncNode):
    """Choose the kick direction and type as robocup_demo's CalcKickDir: cross toward the
    penalty mark region when the goal opening seen from the ball (between the post angles) is
    narrower than ``cross_threshold`` (+0.1 rad after a cross) and the ball is beyond the centre
    circle; else block (away from the own goal) while defending, i.e. during the opponents'
    free kick (Booster's isDefensing); else shoot at the goal centre."""

    @classmethod
    def provided_ports(cls):
        return [_in("cross_threshold", _DOUBLE, "0.2")]

    def update(self):
        why = self._plan(self.context, self.port_float("cross_threshold"), self.explaining)
        if why:
            self.set_reason(why)
        return SUCCESS

    @staticmethod
    def _plan(ctx, cross_threshold_rad: float, explain: bool = False) -> str:
        """Set the kick direction and type; with ``explain`` return the reason ("" otherwise)."""
        f = ctx.field
        state = ctx.state
        after_cross = state.kick_type == "cross"
        threshold = cross_threshold_rad + (0.1 if after_cross else 0.0)
        ball = ball_view(ctx)
        bx, by = ball.field_x_m, ball.field_y_m
        left, right = goal_post_angles(ctx, bx, by)
        hl = f.half_length_m
        opening = left - right  # as Booster compares them: not wrapped
        circle = f.centre_circle_radius_m
        defending = (str(ctx.bb_get("gc_game_sub_state_type", "NONE")) == "FREE_KICK"
                     and not bool(ctx.bb_get("gc_is_sub_state_kickoff_side", False)))
        if opening < threshold and bx > circle:
            state.kick_type = "cross"
            state.kick_dir_rad = math.atan2(-by, hl - f.penalty_mark_distance_m / 2.0 - bx)
        elif defending:  # the opponents' free kick: clear it away from the own goal
            state.kick_type = "block"
            state.kick_dir_rad = math.atan2(by, bx + hl)
        else:
            state.kick_type = "shoot"
            state.kick_dir_rad = 0.0 if bx > hl else math.atan2(-by, hl - bx)
        ctx.bb_set("kick_dir_rad", state.kick_dir_rad)
        ctx.bb_set("kick_type", state.kick_type)
        if not explain:
            return ""
        thr = f"cross_threshold {threshold:.2f}" + (" (+0.10 after a cross)" if after_cross else "")
        if state.kick_type == "cross":
            rule = f"goal opening {opening:.2f} rad < {thr} and ball_x {bx:.2f} > circle {circle:.2f}"
        else:
            rule = (f"goal opening {opening:.2f} rad >= {thr}" if opening >= threshold
                    else f"ball_x {bx:.2f} <= circle {circle:.2f}")
            rule += ("; opponents' free kick (defending)" if defending else "; not defending")
        return f"{rule} -> {state.kick_type} dir {state.kick_dir_rad:.2f}"


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
        chase_m = threshold * (0.9 if last == "chase" else 1.0)
        angle_good = False
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
        elif ball.range_m > chase_m:
            decision = "chase"
        elif (((angle_good := angle_good_for_kick(ctx, ball)) and not ctx.state.is_freekick_kicking_off)
              or reached_kick_dir) \
                and ball.detected and abs(ball.yaw_rad) < math.pi / 2.0 and not avoid_kick and ball.range_m < 1.5:
            decision = "cross" if ctx.state.kick_type == "cross" else "kick"
            ctx.state.is_freekick_kicking_off = False
        else:
            decision = "adjust"
        if self.explaining:
            self.set_reason(self._reason(decision, ball, pose, chase_m, last, angle_good, reached_kick_dir,
                                         delta_dir, avoid_kick))
        self.set_output("decision_out", decision)
        return SUCCESS

    def _reason(self, decision: str, ball, pose, chase_m: float, last: str, angle_good: bool, reached: bool,
                delta_dir: float, avoid_kick: bool) -> str:
        """robocup_demo's StrikerDecide rules in its order, each with the values compared and its
        verdict, down to the one that gave ``decision``."""
        ctx = self.context
        cfg = ctx.config
        rules = Rules()
        if decision == "find":
            return rules.fired("ball unknown -> find", _FIND_VALUES)
        rules.ruled_out("ball unknown -> find")
        rule = "auto visual kick -> auto_visual_kick"
        lo, hi = cfg.auto_visual_kick_dist_min_m, cfg.auto_visual_kick_dist_max_m
        yaw_max = cfg.auto_visual_kick_angle_rad * 1.3
        if decision == "auto_visual_kick":
            return rules.fired(rule, f"lead, ball_range {ball.range_m:.2f} in {lo:.2f}..{hi:.2f}, |ball_yaw| "
                                     f"{abs(ball.yaw_rad):.2f} < {yaw_max:.2f} (angle x1.3), ball not out")
        if not cfg.enable_auto_visual_kick:
            rules.ruled_out(rule, "enable_auto_visual_kick false")
        elif not bool(ctx.bb_get("is_lead", True)):
            rules.ruled_out(rule, "is_lead false")
        elif bool(ctx.bb_get("ball_out", False)):
            rules.ruled_out(rule, "ball_out true")
        elif not lo < ball.range_m < hi:
            rules.ruled_out(rule, f"ball_range {ball.range_m:.2f} outside {lo:.2f}..{hi:.2f}")
        elif abs(ball.yaw_rad) >= yaw_max:
            rules.ruled_out(rule, f"|ball_yaw| {abs(ball.yaw_rad):.2f} >= {yaw_max:.2f} (angle x1.3)")
        else:
            rules.ruled_out(rule, f"|ball_y| {abs(ball.field_y_m):.2f} or |robot_y| {abs(pose.y_m):.2f} >= 5.00")
        if decision == "assist":
            return rules.fired("not the lead -> assist", "is_lead false")
        rules.ruled_out("not the lead -> assist", "is_lead true")
        far, near = _chase_comparison(ball, chase_m, last)
        if decision == "chase":
            return rules.fired("far -> chase", far)
        rules.ruled_out("far -> chase", near)
        left, right = kick_window(ctx, ball)
        posts = f"posts {right:.2f}..{left:.2f}"
        angle = (f"angle good (dir_rb {ball.dir_rb_rad:.2f} in {posts})" if angle_good
                 else f"angle not good (dir_rb {ball.dir_rb_rad:.2f} outside {posts})")
        kicking_off = ctx.state.is_freekick_kicking_off
        if kicking_off and angle_good:
            angle += " but kicking off a free kick"
        reach = (f"kick dir reached (delta_dir {delta_dir:.2f})" if reached
                 else f"kick dir not reached (|delta_dir| {abs(delta_dir):.2f} >= 0.10, no sign change)")
        rule = f"aligned and close -> {'cross' if ctx.state.kick_type == 'cross' else 'kick'}"
        if decision in ("kick", "cross"):
            return rules.fired(rule, f"{angle if angle_good and not kicking_off else reach}, ball detected, "
                                     f"|ball_yaw| {abs(ball.yaw_rad):.2f} < 1.57, ball_range {ball.range_m:.2f} < 1.50")
        if not ((angle_good and not kicking_off) or reached):
            rules.ruled_out(rule, f"{angle} and {reach}")
        elif not ball.detected:
            rules.ruled_out(rule, "ball not detected in this frame")
        elif abs(ball.yaw_rad) >= math.pi / 2.0:
            rules.ruled_out(rule, f"|ball_yaw| {abs(ball.yaw_rad):.2f} >= 1.57")
        elif avoid_kick:
            rules.ruled_out(rule, "obstacle within kick_ao_safe_dist along the ball")
        else:
            rules.ruled_out(rule, f"ball_range {ball.range_m:.2f} >= 1.50")
        return rules.otherwise("adjust")


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
        retreat_x = 0.0 - (1.0 if last == "retreat" else 0.0)
        chase_m = threshold * (0.9 if last == "chase" else 1.0)
        if not ball.known:
            decision = "find"
        elif ball.field_x_m > retreat_x:
            decision = "retreat"
        elif ball.range_m > chase_m:
            decision = "chase"
        elif -math.pi / 2.0 < ball.dir_rb_rad < math.pi / 2.0:
            decision = "kick"
        else:
            decision = "adjust"
        if self.explaining:
            self.set_reason(_goalie_reason(decision, ball, last, retreat_x, chase_m))
        self.set_output("decision_out", decision)
        return SUCCESS


_FIND_VALUES = "ball_location_known false and tm_ball_pos_reliable false"


def _chase_comparison(ball, chase_m: float, last: str) -> tuple[str, str]:
    """(the ball beyond the chase threshold, the ball within it) as both deciders say it (the
    threshold x0.9 while chasing: robocup_demo's hysteresis)."""
    held = " (x0.9 while chasing)" if last == "chase" else ""
    return (f"ball_range {ball.range_m:.2f} > chase_threshold {chase_m:.2f}{held}",
            f"ball_range {ball.range_m:.2f} <= chase_threshold {chase_m:.2f}{held}")


def _goalie_reason(decision: str, ball, last: str, retreat_x: float, chase_m: float) -> str:
    """robocup_demo's GoalieDecide rules in its order, each with the values compared and its
    verdict, down to the one that gave ``decision``."""
    rules = Rules()
    if decision == "find":
        return rules.fired("ball unknown -> find", _FIND_VALUES)
    rules.ruled_out("ball unknown -> find")
    held = " (-1 while retreating)" if last == "retreat" else ""
    if decision == "retreat":
        return rules.fired("ball in the other half -> retreat", f"ball_x {ball.field_x_m:.2f} > {retreat_x:.2f}{held}")
    rules.ruled_out("ball in the other half -> retreat", f"ball_x {ball.field_x_m:.2f} <= {retreat_x:.2f}{held}")
    far, near = _chase_comparison(ball, chase_m, last)
    if decision == "chase":
        return rules.fired("far -> chase", far)
    rules.ruled_out("far -> chase", near)
    if decision == "kick":
        return rules.fired("ball in front -> kick", f"dir_rb {ball.dir_rb_rad:.2f} in (-1.57, 1.57)")
    rules.ruled_out("ball in front -> kick", f"dir_rb {ball.dir_rb_rad:.2f} outside (-1.57, 1.57)")
    return rules.otherwise("adjust")


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
        vx_lim, vy_lim, vth_lim = (
            self.port_float("vx_limit"),
            self.port_float("vy_limit"),
            self.port_float("vtheta_limit"),
        )
        dist, safe = self.port_float("dist"), self.port_float("safe_dist")
        kick_dir = ctx.state.kick_dir_rad
        theta_br = math.atan2(pose.y_m - ball.field_y_m, pose.x_m - ball.field_x_m)
        threshold = math.pi / 2.0 * (1.2 if self._direct else 1.0)
        off = abs(wrap_angle_rad(kick_dir - ball.dir_rb_rad))
        if self.explaining:
            held = " (x1.2 while direct)" if self._direct else ""
            self.set_reason(
                f"|kick_dir - dir_rb| {off:.2f} < {threshold:.2f}{held} -> walk behind the ball"
                if off < threshold
                else f"|kick_dir - dir_rb| {off:.2f} >= {threshold:.2f}{held} -> circle at safe_dist {safe:.2f}"
            )
        if off < threshold:
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
        if cfg.avoid_during_chase and dist_to_obstacle(ctx, target_dir) < min(
            cfg.chase_avoid_safe_dist_m, target_range
        ):
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
        speed = (
            f("tangential_speed_near")
            if abs(delta_dir) * ball.range_m < f("near_threshold")
            else f("tangential_speed_far")
        )
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
    _exit_s: float | None  # when the ball was left (decelerating since), set from on_start on

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
        self._exit_s = None
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
