"""soccerbt's own positioning nodes: walking to a spot and holding it.

``GoToKickoffPosition`` (READY: own half, outside the centre circle unless kicking off),
``SupportPosition`` (supporters behind the ball and on the wings), ``FreeKickPosition`` (our
set play, or keeping the free-kick distance from theirs), ``GoTo`` (a generic walk, RUNNING until
arrived) and the helpers ``_walk_and_hold`` (stand once there, until the error doubles) and
``_hold_reason`` (a positioning node's reason: the spot chosen and why). Part of our node library
(``soccerbt_nodes`` registers and re-exports them).
"""
from __future__ import annotations

import math
from typing import Any

from soccerbt.nodes.soccer._base import RUNNING, SUCCESS, InputPort, SoccerStatefulNode, SoccerSyncNode
from soccerbt.nodes.soccer.booster import report_freekick_target
from soccerbt.nodes.soccer.skills import ball_view, nav_obstacles, walk_to_pose
from soccerbt.world.types import Pose2D, wrap_angle_rad

__all__ = ["GoToKickoffPosition", "SupportPosition", "FreeKickPosition", "GoTo", "FIELD_KEEP_OUT_M"]

FIELD_KEEP_OUT_M = 0.2  # approach poses at most this far beyond the outer lines


def _our_obstacles(ctx):
    return nav_obstacles(ctx)


def _hold_reason(what: str, target: Pose2D, arrived: bool) -> str:
    """A positioning node's reason: which spot it chose and why, and whether it stands there."""
    return (f"{what} -> ({target.x_m:.2f}, {target.y_m:.2f}, {target.theta_rad:.2f})"
            f"{', there: stand' if arrived else ''}")


def _walk_and_hold(ctx, target: Pose2D, tolerance_m: float, vx_limit: float, vy_limit: float,
                   obstacles: list | None = None, holder: Any = None) -> bool:
    """Walk to ``target``; stand once within ``tolerance_m`` and 0.2 rad (True). With a
    ``holder`` (the node) an arrived robot stays put until the error doubles, so that
    localization noise does not make it shuffle (the referee wants placed robots still)."""
    pose = ctx.world_model.robot_pose_field
    arrived = bool(getattr(holder, "_arrived", False))
    scale = 2.0 if arrived else 1.0
    if pose.distance_to(target.x_m, target.y_m) < tolerance_m * scale and \
            abs(wrap_angle_rad(target.theta_rad - pose.theta_rad)) < 0.2 * scale:
        ctx.stop()
        if holder is not None:
            holder._arrived = True
        return True
    if holder is not None:
        holder._arrived = False
    walk_to_pose(ctx, target.x_m, target.y_m, target.theta_rad, vx_limit=vx_limit, vy_limit=vy_limit,
                 vtheta_limit=1.0, obstacles=_our_obstacles(ctx) if obstacles is None else obstacles)
    return False


# --- positioning -----------------------------------------------------------------------------------


def _team_roles(ctx) -> list[tuple[int, str]]:
    """(number, role) of the active team, this robot included, by number."""
    me = ctx.player_number
    out = [(me, str(ctx.bb_get("player_role", ctx.start_role)))]
    for t in ctx.world_model.teammates.values():
        if t.number != me and not t.penalised:
            out.append((t.number, t.role or "supporter"))
    return sorted(out)


def _rank_in_role(ctx, role: str) -> tuple[int, int]:
    """(index among the active robots of ``role`` by number, how many there are)."""
    same = [n for n, r in _team_roles(ctx) if r == role]
    me = ctx.player_number
    return (same.index(me) if me in same else 0), max(1, len(same))


class GoToKickoffPosition(SoccerSyncNode):
    """READY: walk to this role's legal kick-off pose (own half; outside the centre circle unless
    kicking off; the kicking-off striker right behind the ball), then stand."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("vx_limit", float, 0.9), InputPort("vy_limit", float, 0.4),
                InputPort("tolerance", float, 0.25)]

    def update(self):
        # deferred: start-up: scipy (services.planning) stays out of soccerbt nodes and validate (test_cli_startup)
        from soccerbt.services.planning import Role, kickoff_positions

        ctx = self.context
        f = ctx.field
        role = str(ctx.bb_get("player_role", ctx.start_role))
        kicking_off = bool(ctx.bb_get("gc_is_kickoff_side", False))
        rank = -1
        if role == "goal_keeper":
            target = kickoff_positions(f, [Role.GOALKEEPER], kicking_off)[0]
        else:
            # by number among the active field players, not by the negotiated role: two robots
            # that briefly both believe they strike must not walk to the same spot
            rank = _field_player_rank(ctx)
            target = kickoff_positions(f, [Role.STRIKER] + [Role.SUPPORTER] * rank, kicking_off)[-1]
            if rank == 0 and not kicking_off:
                target = Pose2D(target.x_m - 0.3, target.y_m, target.theta_rad)  # margin to the circle
        arrived = _walk_and_hold(ctx, target, self.port_float("tolerance"), self.port_float("vx_limit"),
                                 self.port_float("vy_limit"), holder=self)
        if self.explaining:
            who = "goal_keeper" if rank < 0 else f"field player rank {rank} by number"
            side = "kicking off" if kicking_off else "not kicking off"
            self.set_reason(_hold_reason(f"{who}, {side}", target, arrived))
        return SUCCESS


def _field_player_rank(ctx) -> int:
    """Index of this robot among the team's active non-goalkeepers, by player number."""
    me = ctx.player_number
    others = [n for n, r in _team_roles(ctx) if r != "goal_keeper" and n != me]
    return sum(1 for n in others if n < me)


class SupportPosition(SoccerSyncNode):
    """Supporter: take a supporting spot facing the ball (behind it toward the own goal, then the
    wings), spots shared out among the supporters by walking distance."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("vx_limit", float, 0.8), InputPort("vy_limit", float, 0.4),
                InputPort("behind", float, 2.5, "m behind the ball toward the own goal"),
                InputPort("lateral", float, 1.5, "m beside the ball-to-goal line"),
                InputPort("tolerance", float, 0.3)]

    def update(self):
        # deferred: start-up: scipy (services.planning) stays out of soccerbt nodes and validate (test_cli_startup)
        from soccerbt.services.planning import supporter_targets

        ctx = self.context
        f = ctx.field
        ball = ball_view(ctx)
        if not ball.known:
            bx, by = -f.half_length_m / 3.0, 0.0
        else:
            bx, by = ball.field_x_m, ball.field_y_m
        idx, n = _rank_in_role(ctx, str(ctx.bb_get("player_role", "supporter")))
        spots = supporter_targets((bx, by), f, n, behind_m=self.port_float("behind"))
        target = spots[min(idx, len(spots) - 1)]
        if idx == 0:
            # behind the ball but beside the striker's approach line (it comes from behind the
            # ball too), on the field-centre side
            side = -1.0 if by > 0.0 else 1.0
            target = Pose2D(target.x_m, target.y_m + side * self.port_float("lateral"), 0.0)
        # stay inside, and out of the own goal area (the keeper's)
        x, y = f.clamp_to_field(target.x_m, target.y_m, 0.4)
        x = max(x, -f.half_length_m + f.goal_area_length_m + 0.5)
        target = Pose2D(x, y, math.atan2(by - y, bx - x))
        arrived = _walk_and_hold(ctx, target, self.port_float("tolerance"), self.port_float("vx_limit"),
                                 self.port_float("vy_limit"), holder=self)
        if self.explaining:
            seen = f"ball ({bx:.2f}, {by:.2f})" if ball.known else "ball unknown (own third)"
            self.set_reason(_hold_reason(f"supporter {idx + 1} of {n} by number, {seen}", target, arrived))
        return SUCCESS


class FreeKickPosition(SoccerSyncNode):
    """GET_READY of a free kick. Our set play: the striker goes behind the ball along the planned
    kick, the others support. Theirs: everybody keeps ``keep_margin`` beyond the free-kick
    distance from the ball, walking around it, the goalkeeper included. The leading striker of
    the kicking team reports its spot to the local free-kick phase
    (``local_freekick_target_valid`` / ``_error``), which reaches EXECUTE under the HSL
    GameController once it stood there (the trees then take the kick; never under HL v12)."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("vx_limit", float, 0.8), InputPort("vy_limit", float, 0.4),
                InputPort("keep_margin", float, 0.6, "m beyond the free-kick distance")]

    def update(self):
        # deferred: start-up: scipy (services.planning) stays out of soccerbt nodes and validate (test_cli_startup)
        from soccerbt.services.planning import free_kick_position, goalkeeper_blocking_position, supporter_targets

        ctx = self.context
        f = ctx.field
        ball = ball_view(ctx)
        role = str(ctx.bb_get("player_role", ctx.start_role))
        ours = bool(ctx.bb_get("gc_is_sub_state_kickoff_side", False))
        keep = f.free_kick_distance_m + self.port_float("keep_margin")
        if not ball.known:
            ctx.stop()
            return SUCCESS
        bxy = (ball.field_x_m, ball.field_y_m)
        if role == "goal_keeper":
            target = goalkeeper_blocking_position(bxy, f, 0.8)
            what = "goal_keeper: block"
        elif ours and role == "striker":
            target = _behind_ball_on_field(bxy, ctx.state.kick_dir_rad, 0.7, f)
            what = "our set play, striker: behind the ball along the kick"
        elif ours:
            idx, n = _rank_in_role(ctx, role)
            target = supporter_targets(bxy, f, n)[idx]
            what = f"our set play, {role} {idx + 1} of {n}: support"
        else:
            what = f"their set play, {role}: keep {keep:.2f} m (free-kick distance + keep_margin) from the ball"
            idx, _n = _rank_in_role(ctx, role)
            base = free_kick_position(bxy, f, False, defense_dist_m=keep)
            if role != "striker":  # supporters spread beside the striker's spot
                a = math.atan2(base.y_m - bxy[1], base.x_m - bxy[0]) + (0.7 if idx % 2 == 0 else -0.7)
                base = Pose2D(bxy[0] + keep * math.cos(a), bxy[1] + keep * math.sin(a), 0.0)
            target = base
        if not ours:
            target = _keep_away(target, bxy, keep, f)
        else:
            # a throw-in's spot lies on the touch line: never stand where the referee removes us
            x, y = f.clamp_to_field(target.x_m, target.y_m, -FIELD_KEEP_OUT_M)
            target = Pose2D(x, y, target.theta_rad)
        obstacles = nav_obstacles(ctx, include_ball=True, ball_radius_m=(keep - 0.25) if not ours else 0.35)
        target = Pose2D(target.x_m, target.y_m, math.atan2(bxy[1] - target.y_m, bxy[0] - target.x_m)
                        if not (ours and role == "striker") else target.theta_rad)
        if ours and role == "striker" and bool(ctx.bb_get("is_lead", False)):
            # the kicker's report moves the local free-kick phase on to EXECUTE (HSL only)
            pose = ctx.world_model.robot_pose_field
            report_freekick_target(ctx, True, pose.distance_to(target.x_m, target.y_m))
        arrived = _walk_and_hold(ctx, target, 0.15, self.port_float("vx_limit"), self.port_float("vy_limit"),
                                 obstacles, holder=self)
        if self.explaining:
            self.set_reason(_hold_reason(what, target, arrived))
        return SUCCESS


def _behind_ball_on_field(ball_xy: tuple[float, float], kick_dir_rad: float, dist_m: float, field) -> Pose2D:
    """``dist_m`` behind the ball along the kick, facing it; near a line (a throw-in) the
    direction turns into the field until the spot lies inside (the kick may go off-heading)."""
    limit = FIELD_KEEP_OUT_M
    for k in range(0, 10):
        for sign in ((1.0,) if k == 0 else (1.0, -1.0)):
            d = kick_dir_rad + sign * 0.15 * k
            x, y = ball_xy[0] - dist_m * math.cos(d), ball_xy[1] - dist_m * math.sin(d)
            if field.is_inside_field(x, y, -limit):
                return Pose2D(x, y, wrap_angle_rad(d))
    x, y = field.clamp_to_field(ball_xy[0] - dist_m * math.cos(kick_dir_rad),
                                ball_xy[1] - dist_m * math.sin(kick_dir_rad), -limit)
    return Pose2D(x, y, math.atan2(ball_xy[1] - y, ball_xy[0] - x))


def _keep_away(target: Pose2D, ball_xy: tuple[float, float], keep_m: float, field) -> Pose2D:
    """``target`` pushed radially out of the circle of ``keep_m`` around the ball, inside the field."""
    dx, dy = target.x_m - ball_xy[0], target.y_m - ball_xy[1]
    d = math.hypot(dx, dy)
    if d >= keep_m:
        return target
    if d < 1e-6:
        dx, dy, d = -1.0, 0.0, 1.0
    x, y = ball_xy[0] + dx / d * keep_m, ball_xy[1] + dy / d * keep_m
    x, y = field.clamp_to_field(x, y, 0.3)
    if math.hypot(x - ball_xy[0], y - ball_xy[1]) < keep_m:  # clamped back in: go the other way round
        x = ball_xy[0] - math.copysign(keep_m, ball_xy[0])
        x, y = field.clamp_to_field(x, ball_xy[1], 0.3)
    return Pose2D(x, y, target.theta_rad)


class GoTo(SoccerStatefulNode):
    """Walk to a field pose (x, y, theta) around obstacles; RUNNING until within ``tolerance``
    and ``theta_tolerance``, then SUCCESS. Halting it stops the robot."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("x", float, 0.0), InputPort("y", float, 0.0), InputPort("theta", float, 0.0),
                InputPort("vx_limit", float, 0.8), InputPort("vy_limit", float, 0.4),
                InputPort("vtheta_limit", float, 1.0), InputPort("tolerance", float, 0.2),
                InputPort("theta_tolerance", float, 0.2), InputPort("avoid_obstacles", bool, True)]

    def on_start(self):
        return self.on_running()

    def on_running(self):
        ctx = self.context
        f = self.port_float
        pose = ctx.world_model.robot_pose_field
        if pose.distance_to(f("x"), f("y")) < f("tolerance") and \
                abs(wrap_angle_rad(f("theta") - pose.theta_rad)) < f("theta_tolerance"):
            ctx.stop()
            return SUCCESS
        walk_to_pose(ctx, f("x"), f("y"), f("theta"), vx_limit=f("vx_limit"), vy_limit=f("vy_limit"),
                     vtheta_limit=f("vtheta_limit"), avoid_obstacles=bool(self.get_input("avoid_obstacles")))
        return RUNNING

    def on_halted(self):
        self.context.stop()
