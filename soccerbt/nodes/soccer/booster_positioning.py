"""Booster's positioning nodes: ready positions, goal blocking, assisting and the free-kick
position (main, 2026 and auto versions).

Part of Booster's node library (soccerbt.nodes.soccer.booster has the registry and the shared
conventions).
"""
from __future__ import annotations

import math

from soccerbt.nodes.soccer._base import RUNNING, SUCCESS, InputPort, SoccerStatefulNode, SoccerSyncNode
from soccerbt.nodes.soccer._base import booster_input as _in
from soccerbt.nodes.soccer.booster_motion import move_to_pose_tolerant
from soccerbt.nodes.soccer.skills import (
    avoid_direction,
    ball_view,
    clamp,
    dist_to_obstacle,
    nav_obstacles,
    sigmoid_down,
    striker_rank,
    walk_to_pose,
)
from soccerbt.nodes.soccer.versions import (
    BOOSTER_VERSIONS,
    DEFAULT_BOOSTER_VERSION,
    VERSION_DEFAULTS,
    tree_version_of_file,
)
from soccerbt.world.types import wrap_angle_rad

_DOUBLE, _STRING = float, str  # the C++ port types of nodes.json


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
        rank = -1
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
        if self.explaining:
            who = "goal_keeper" if rank < 0 else f"striker rank {rank}"
            side = "kicking off" if kickoff else "not kicking off"
            self.set_reason(f"{who}, {side} -> ({tx:.2f}, {ty:.2f})")
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
        dist_m = pose.distance_to(tx, ty)
        there = dist_m < self.port_float("dist_tolerance") and abs(ball.yaw_rad) < self.port_float("theta_tolerance")
        if self.explaining:
            self.set_reason(f"{role}: ball-to-goal line -> ({tx:.2f}, {ty:.2f}); distance {dist_m:.2f} "
                            f"{'<' if dist_m < self.port_float('dist_tolerance') else '>='} dist_tolerance "
                            f"{self.port_float('dist_tolerance'):.2f}, |ball_yaw| {abs(ball.yaw_rad):.2f} "
                            f"-> {'stand' if there else 'walk'}")
        if there:
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
        there = (pose.distance_to(tx, ty) < self.port_float("dist_tolerance")
                 and abs(ball.yaw_rad) < self.port_float("theta_tolerance"))
        if self.explaining:
            behind = "4.0 m (another assistant is ahead)" if secondary else "2.0 m"
            self.set_reason(f"{behind} behind the ball on its line to the own goal -> ({tx:.2f}, {ty:.2f})"
                            f"{', there: stand' if there else ''}")
        if there:
            ctx.stop()
            return SUCCESS
        rx, ry = pose.inverse_transform_point(tx, ty)
        target_dir = math.atan2(ry, rx)
        cfg = ctx.config
        if cfg.avoid_during_chase and dist_to_obstacle(ctx, target_dir) < min(
            cfg.chase_avoid_safe_dist_m, math.hypot(rx, ry)
        ):
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
        if self.explaining:
            rank = striker_rank(ctx)
            where = "goal-kick spot (ball unknown)" if fresh and not ball_view(ctx).known else "ball"
            self.set_reason(f"{side}, striker rank {rank}, from the {where} -> ({tx:.2f}, {ty:.2f}, {tth:.2f}); "
                            f"distance {dist:.2f} {'<' if dist < 0.2 else '>='} 0.20")
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
            if (
                ball.range_m < 1.0
                and _point_segment_dist(ball.field_x_m, ball.field_y_m, pose.x_m, pose.y_m, tx, ty) < 0.5
            ):
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
    # typed as booster_input types them (BT.CPP writes 0.6 as 0.600000)
    return [_in(p.name, p.type_, defaults[p.name]) if p.name in defaults else p for p in ports]


def _point_segment_dist(px, py, ax, ay, bx, by) -> float:
    dx, dy = bx - ax, by - ay
    ll = dx * dx + dy * dy
    t = 0.0 if ll == 0.0 else clamp(((px - ax) * dx + (py - ay) * dy) / ll, 0.0, 1.0)
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))
