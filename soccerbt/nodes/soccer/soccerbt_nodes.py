"""soccerbt's own soccer nodes (Booster's are booster*.py), used by the shipped trees (``soccerbt/trees/xml``).

Where Booster's nodes walk through the ball, ours plan a kick (``PlanKick``: the open part of
the goal through the kick planner), approach the ball along it through the navigator
(``ApproachBall``) and take an explicit kick when the ball lies in front of the feet
(``KickBall``). Decisions are their own nodes with hysteresis (``StrikerDecision``,
``GoalkeeperDecision``) so that the trees read as "decide, then act". Positioning nodes obey
the laws: ``GoToKickoffPosition`` (own half, outside the centre circle unless kicking off),
``FreeKickPosition`` (opponents of the set play keep the free-kick distance, also while
walking), ``SupportPosition`` and ``GoalkeeperPosition``. ``HeadControl`` tracks the ball and
glances at landmarks; ``SearchBall`` scans and turns. ``GoTo`` is a generic walk with obstacle
avoidance (RUNNING until arrived).

All sync nodes return SUCCESS; ``GoTo`` returns RUNNING and stops the robot when halted. The
positioning nodes live in ``soccerbt_positioning`` (re-exported here). Decision, kicking and
positioning nodes report why they chose what they did (``TreeNode.set_reason``) while a replay
log records.
"""
from __future__ import annotations

import math

from soccerbt.nodes.soccer._base import SUCCESS, InputPort, OutputPort, SoccerSyncNode
from soccerbt.nodes.soccer.booster import CalcKickDir
from soccerbt.nodes.soccer.reasons import Rules
from soccerbt.nodes.soccer.skills import (
    BallView,
    NavObstacles,
    ball_view,
    clamp,
    head_angles_to,
    nav_obstacles,
    walk_to_pose,
)
from soccerbt.nodes.soccer.soccerbt_keeper import (
    SAVE_ENTER_TICKS,
    GoalkeeperDecision,
    GoalkeeperPosition,
    SaveHysteresis,
    incoming_shot_y,
    shot_failure,
)
from soccerbt.nodes.soccer.soccerbt_positioning import (
    FIELD_KEEP_OUT_M,
    FreeKickPosition,
    GoTo,
    GoToKickoffPosition,
    SupportPosition,
)
from soccerbt.services.kick import KickChoice
from soccerbt.services.obstacles import Obstacle
from soccerbt.world.types import wrap_angle_rad

__all__ = ["OUR_NODE_TYPES", "incoming_shot_y", "kick_geometry", "kick_strength", "shot_failure", "SaveHysteresis",
           "SAVE_ENTER_TICKS"]

KICK_STAND_OFF_M = 0.35  # robot centre behind the ball centre when kicking (contact: 0.33)
KICK_REACH_X_M = (0.29, 0.41)  # ball x in the robot frame where the foot surely reaches it
KICK_REACH_Y_M = 0.10
KICK_MAX_REL_RAD = 0.55  # kick this far off the robot's heading (speed factor >= 0.93)


def _our_obstacles(ctx) -> NavObstacles:
    return nav_obstacles(ctx)


KICK_MAX_AGE_S = 0.25  # the ball must have been seen this recently to kick it


def _reach(margin_m: float) -> tuple[float, float, float, float, float]:
    """(x min, x max, |y| max, |kick_dir - heading| max, age max) of the kick's reach, widened by
    ``margin_m`` (and 2 rad and 5 s per metre of margin for the angle and the age)."""
    return (KICK_REACH_X_M[0] - margin_m, KICK_REACH_X_M[1] + margin_m, KICK_REACH_Y_M + margin_m,
            KICK_MAX_REL_RAD + 2.0 * margin_m, KICK_MAX_AGE_S + 5.0 * margin_m)


def kick_geometry(ctx, ball: BallView, kick_dir_rad: float, margin_m: float = 0.0) -> tuple[bool, float]:
    """Whether a kick now sends the ball near ``kick_dir_rad``, and the kick direction relative
    to the robot's heading. ``margin_m`` widens the reach (StrikerDecision's hysteresis)."""
    pose = ctx.world_model.robot_pose_field
    rel = wrap_angle_rad(kick_dir_rad - pose.theta_rad)
    if margin_m == 0.0:
        ok = (ball.own and ctx.world_model.ball_age_s < KICK_MAX_AGE_S
              and KICK_REACH_X_M[0] < ball.robot_x_m < KICK_REACH_X_M[1]
              and abs(ball.robot_y_m) < KICK_REACH_Y_M and abs(rel) < KICK_MAX_REL_RAD)
        return ok, rel
    lo, hi, y_max, rel_max, age_max = _reach(margin_m)
    ok = (ball.own and ctx.world_model.ball_age_s < age_max and lo < ball.robot_x_m < hi
          and abs(ball.robot_y_m) < y_max and abs(rel) < rel_max)
    return ok, rel


def kick_geometry_failure(ctx, ball: BallView, rel_rad: float, margin_m: float = 0.0) -> str:
    """The first comparison of ``kick_geometry`` that fails, as a reason reads it ("" when the
    kick is possible)."""
    age = ctx.world_model.ball_age_s
    lo, hi, y_max, rel_max, age_max = _reach(margin_m)
    if not ball.own:
        return "ball known from teammates only (not seen)"
    if age >= age_max:
        return f"ball seen {age:.2f} s ago >= {age_max:.2f}"
    if ball.robot_x_m <= lo:
        return f"ball_x {ball.robot_x_m:.2f} <= reach {lo:.2f}"
    if ball.robot_x_m >= hi:
        return f"ball_x {ball.robot_x_m:.2f} >= reach {hi:.2f}"
    if abs(ball.robot_y_m) >= y_max:
        return f"|ball_y| {abs(ball.robot_y_m):.2f} >= {y_max:.2f}"
    if abs(rel_rad) >= rel_max:
        return f"|kick_dir - heading| {abs(rel_rad):.2f} >= {rel_max:.2f}"
    return ""


def kick_geometry_text(ball: BallView, rel_rad: float, margin_m: float = 0.0) -> str:
    """The comparisons of a kick ``kick_geometry`` allows, as a reason reads them."""
    lo, hi, y_max, rel_max, _age = _reach(margin_m)
    return (f"ball_x {ball.robot_x_m:.2f} in {lo:.2f}..{hi:.2f}, |ball_y| {abs(ball.robot_y_m):.2f} < "
            f"{y_max:.2f}, |kick_dir - heading| {abs(rel_rad):.2f} < {rel_max:.2f}")


def kick_strength(kind: str, ball_xy: tuple[float, float], target_xy: tuple[float, float], field,
                  max_speed_mps: float = 4.5, deceleration_mps2: float = 0.8) -> float:
    """0..1: full for shots near the goal and clearances; a far shot or a cross only as hard as
    needed for the ball to stop ``2 m`` short of the target (keeps it in play)."""
    if kind == "block":
        return 1.0
    d = math.hypot(target_xy[0] - ball_xy[0], target_xy[1] - ball_xy[1])
    if kind == "shoot" and d < 6.5:
        return 1.0
    travel = max(1.0, d - (2.0 if kind == "shoot" else 0.5))
    return clamp(math.sqrt(2.0 * deceleration_mps2 * travel) / max_speed_mps, 0.35, 1.0)


# --- head ---------------------------------------------------------------------------------------


class HeadControl(SoccerSyncNode):
    """Track the ball; every ``glance_period`` look up at the field for ``glance_duration`` (for
    landmarks) unless the ball is close; scan when the ball is unknown."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("glance_period", float, 5.0, "seconds between landmark glances"),
                InputPort("glance_duration", float, 0.5, "seconds of one glance"),
                InputPort("close_ball", float, 1.5, "no glances while the ball is nearer (m)")]

    def setup_state(self) -> None:
        self._next_glance_s = 0.0
        self._glance_until_s = -1.0
        self._scan_start_s: float | None = None

    def update(self):
        ctx = self.context
        now = ctx.now_s()
        ball = ball_view(ctx)
        if not ball.known:
            if self._scan_start_s is None:
                self._scan_start_s = now
            index = _scan_head(ctx, now - self._scan_start_s)
            if self.explaining:
                self.set_reason(Rules().fired("ball unknown -> scan", f"{now - self._scan_start_s:.1f} s into the "
                                                                      f"scan: {_scan_text(index)}"))
            return SUCCESS
        self._scan_start_s = None
        close_m = self.port_float("close_ball")
        far = ball.range_m > close_m
        if far and now >= self._next_glance_s:
            self._glance_until_s = now + self.port_float("glance_duration")
            self._next_glance_s = now + self.port_float("glance_period")
        glancing = far and now < self._glance_until_s
        if glancing:
            ctx.set_head(0.0, 0.25)
        else:
            pan, tilt = head_angles_to(ctx, ball.robot_x_m, ball.robot_y_m)
            ctx.set_head(pan, tilt)
        if self.explaining:
            rules = Rules().ruled_out("ball unknown -> scan")
            rule = "far and a glance due -> glance at the field (landmarks)"
            if glancing:
                why = rules.fired(rule, f"ball_range {ball.range_m:.2f} > close_ball {close_m:.2f}, glance "
                                        f"{self._glance_until_s - now:.2f} s more: pan 0.00 tilt 0.25")
            else:
                rules.ruled_out(rule, f"ball_range {ball.range_m:.2f} <= close_ball {close_m:.2f}" if not far
                                else f"next glance in {self._next_glance_s - now:.2f} s")
                why = rules.otherwise(f"track the ball at ({ball.robot_x_m:.2f}, {ball.robot_y_m:.2f}) "
                                      f"{'seen' if ball.detected else 'remembered'}: pan {pan:.2f} tilt {tilt:.2f}")
            self.set_reason(why)
        return SUCCESS


_SCAN = ((0.9, 1.0), (0.9, 0.0), (0.9, -1.0), (0.35, -1.0), (0.35, 0.0), (0.35, 1.0))  # (tilt, pan)


_SCAN_STEP_S = 0.6


def _scan_head(ctx, elapsed_s: float) -> int:
    """Point the head at the scan's pose for ``elapsed_s``; the pose's index."""
    index = int(elapsed_s / _SCAN_STEP_S) % len(_SCAN)
    tilt, pan = _SCAN[index]
    ctx.set_head(pan, tilt)
    return index


def _scan_text(index: int) -> str:
    """A scan pose as a reason reads it."""
    tilt, pan = _SCAN[index]
    return f"pose {index + 1} of {len(_SCAN)} ({_SCAN_STEP_S:.1f} s each): pan {pan:.2f} tilt {tilt:.2f}"


class SearchBall(SoccerSyncNode):
    """Find the ball: scan with the head; after ``turn_after`` seconds turn on the spot toward
    where it was last seen; after a full turn walk toward the field centre and look again."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("turn_after", float, 2.0, "seconds of head scanning before turning"),
                InputPort("vtheta", float, 0.7, "turning speed (rad/s)")]

    def setup_state(self) -> None:
        self._start_s: float | None = None
        self._last_tick_s = -1e9

    def update(self):
        ctx = self.context
        now = ctx.now_s()
        if self._start_s is None or now - self._last_tick_s > 0.5:  # a new search
            self._start_s = now
            self._dir = 1.0 if ctx.world_model.ball_bearing_rad >= 0.0 else -1.0
        self._last_tick_s = now
        elapsed = now - self._start_s
        head = _scan_head(ctx, elapsed)
        turn_after = self.port_float("turn_after")
        vtheta = self.port_float("vtheta")
        full_turn_s = turn_after + 2.0 * math.pi / max(0.1, vtheta)
        tx = 0.0
        if elapsed < turn_after:
            ctx.stop()
            stage = "scan"
        elif elapsed < full_turn_s:
            ctx.set_velocity(0.0, 0.0, self._dir * vtheta)
            stage = "turn"
        else:
            pose = ctx.world_model.robot_pose_field
            tx = -ctx.field.half_length_m / 3.0 if str(ctx.bb_get("player_role", "")) != "striker" else 0.0
            if pose.distance_to(tx, 0.0) > 1.0:
                walk_to_pose(ctx, tx, 0.0, math.atan2(-pose.y_m, tx - pose.x_m), vx_limit=0.6, vy_limit=0.3,
                             obstacles=_our_obstacles(ctx))
                stage = "walk"
            else:
                self._start_s = now  # start over
                stage = "again"
        if self.explaining:
            self.set_reason(self._reason(stage, elapsed, turn_after, full_turn_s, vtheta, tx, head))
        return SUCCESS

    def _reason(self, stage: str, elapsed_s: float, turn_after_s: float, full_turn_s: float, vtheta: float,
                tx_m: float, head: int) -> str:
        """Which stage of the search ``update`` chose, with the times compared; where the head looks."""
        if stage == "scan":
            what = f"{elapsed_s:.1f} s < turn_after {turn_after_s:.1f} -> stand and scan"
        elif stage == "turn":
            what = (f"{elapsed_s:.1f} s < a full turn {full_turn_s:.1f} -> turn "
                    f"{'left' if self._dir > 0 else 'right'} (the side the ball was last seen) at {vtheta:.2f} rad/s")
        elif stage == "walk":
            what = f"turned a full circle -> walk to ({tx_m:.2f}, 0.00) and look again"
        else:
            what = f"at ({tx_m:.2f}, 0.00) -> start the search over"
        return f"{what}; head {_scan_text(head)}"


# --- kicking ------------------------------------------------------------------------------------


class PlanKick(SoccerSyncNode):
    """Choose the kick: shoot into the widest open part of the goal, cross when it is narrow,
    clear away in the own third (the kick planner; Booster's CalcKickDir without one). Keeps
    the previous choice unless the new one differs by more than ``hysteresis`` rad."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("cross_threshold", float, 0.12, "goal opening (rad) below which to cross"),
                InputPort("hysteresis", float, 0.12, "rad a new direction must differ by")]

    def setup_state(self) -> None:
        self._next_s = -1.0

    def update(self):
        ctx = self.context
        now = ctx.now_s()
        if now < self._next_s:
            return SUCCESS  # 10 Hz is plenty for a direction (the planner is not free)
        self._next_s = now + 0.1
        planner = ctx.kick
        ball = ball_view(ctx)
        state = ctx.state
        if planner is None or not hasattr(planner, "choose"):
            why = CalcKickDir._plan(ctx, 0.2, self.explaining)
            if why:
                self.set_reason(why)
            state_target = (ctx.field.half_length_m, 0.0)
        else:
            obstacles = _opponent_obstacles(ctx)
            threshold = self.port_float("cross_threshold")
            choice = planner.choose((ball.field_x_m, ball.field_y_m), obstacles, threshold)
            first = choice
            if choice.kind == "cross" and math.cos(choice.direction_rad) < 0.3:
                choice = _shoot_past_keeper(ctx, ball, obstacles)  # never pass back from the goal mouth
            hysteresis = self.port_float("hysteresis")
            turn = abs(wrap_angle_rad(choice.direction_rad - state.kick_dir_rad))
            changed = choice.kind != state.kick_type or turn > hysteresis
            if self.explaining:
                self.set_reason(_plan_reason(planner, ball, first, choice, threshold, state, turn, hysteresis, changed))
            if changed:
                state.kick_dir_rad = choice.direction_rad
                state.kick_type = choice.kind
            state_target = choice.target_xy
        ctx.memory["kick_target_xy"] = state_target
        ctx.bb_set("kick_dir_rad", state.kick_dir_rad)
        ctx.bb_set("kick_type", state.kick_type)
        return SUCCESS


def _plan_reason(planner, ball: BallView, first, choice, threshold: float, state, turn: float, hysteresis: float,
                 changed: bool) -> str:
    """PlanKick's reason: the planner's rule that fired, then whether the direction changed."""
    bx = ball.field_x_m
    zone = getattr(planner, "block_zone_x_m", None)
    if first.kind == "block":
        rule = f"ball_x {bx:.2f} < block zone {zone:.2f} -> block" if zone is not None else "block"
    elif first.kind == "cross":
        rule = f"goal opening {first.open_angle_rad:.2f} rad < cross_threshold {threshold:.2f} -> cross"
        if choice is not first:
            rule += f" toward the own half (cos {math.cos(first.direction_rad):.2f} < 0.30): shoot past the keeper"
    elif first.open_angle_rad >= threshold:
        rule = f"goal opening {first.open_angle_rad:.2f} rad >= cross_threshold {threshold:.2f} -> shoot"
    else:
        rule = f"goal opening {first.open_angle_rad:.2f} rad < {threshold:.2f} but near the penalty mark -> shoot"
    if changed:
        return f"{rule} dir {choice.direction_rad:.2f}"
    return (f"{rule} dir {choice.direction_rad:.2f}; kept {state.kick_type} dir {state.kick_dir_rad:.2f}: "
            f"turn {turn:.2f} <= hysteresis {hysteresis:.2f}")


def _shoot_past_keeper(ctx, ball: BallView, obstacles: list):
    """A shot at the inside of the post with the most room from the robots near the goal."""
    f = ctx.field
    hx = f.half_length_m
    best = None
    for sign in (1.0, -1.0):
        ty = sign * (f.goal_width_m / 2.0 - 0.35)
        room = min((math.hypot(o.x_m - hx, o.y_m - ty) for o in obstacles if o.x_m > hx - 3.0), default=9.0)
        if best is None or room > best[0]:
            best = (room, ty)
    assert best is not None  # the loop ran (twice)
    ty = best[1]
    direction = math.atan2(ty - ball.field_y_m, hx - ball.field_x_m)
    return KickChoice(direction, (hx, ty), "shoot", 0.0)


def _opponent_obstacles(ctx) -> list:
    """Robots seen that are not known teammates (unknown colour counts as an opponent)."""
    team = ctx.robot.team
    return [Obstacle(o.x_m, o.y_m, 0.25, "robot") for o in ctx.world_model.obstacles if o.team is not team]


class StrikerDecision(SoccerSyncNode):
    """Write the striker's decision: "find" (no ball), "kick" (the ball lies in front of the
    feet toward the planned direction), else "approach". Hysteresis against a noisy ball: a kick
    decision stays while the ball is within the reach widened by ``kick_margin`` (and for
    ``kick_hold`` seconds after it was last in reach, while the ball is nearer than 0.6 m); a
    ball unseen for less than ``lost_hold`` seconds keeps the approach rather than start a search.
    The hysteresis starts afresh when the node was not ticked in the tick before."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("kick_hold", float, 0.2, "seconds a kick decision is kept after the ball left the reach"),
                InputPort("kick_margin", float, 0.04, "m the reach widens by while kicking (0: no hysteresis)"),
                InputPort("lost_hold", float, 0.3, "seconds a lost ball keeps the approach before a search"),
                OutputPort("decision_out", str, "find, approach or kick")]

    def setup_state(self) -> None:
        self._kick_until_s = -1.0
        self._seen_s = -1e9
        self._last = ""
        self._last_tick_s = -1e9

    def update(self):
        ctx = self.context
        now = ctx.now_s()
        ball = ball_view(ctx)
        last = self._last if now - self._last_tick_s < 0.05 else ""  # not ticked just before: afresh
        self._last_tick_s = now
        why = ""
        if not ball.known:
            lost_s = now - self._seen_s
            hold_s = self.port_float("lost_hold")
            keep = last in ("approach", "kick") and lost_s < hold_s
            decision = "approach" if keep else "find"
            if self.explaining:
                rules = Rules()
                rule = "ball lost -> keep approach"
                if keep:
                    why = rules.fired(rule, f"ball unknown for {lost_s:.2f} s < lost_hold {hold_s:.2f} after {last}")
                else:
                    rules.ruled_out(rule, f"ball unknown for {lost_s:.2f} s >= lost_hold {hold_s:.2f}"
                                    if last in ("approach", "kick") else f"last decision {last or 'none'}")
                    why = rules.fired("ball unknown -> find", "not seen, no reliable team ball")
        else:
            self._seen_s = now
            ok, rel = kick_geometry(ctx, ball, ctx.state.kick_dir_rad)
            margin = self.port_float("kick_margin")
            widened = last == "kick" and margin > 0.0
            held = now < self._kick_until_s and ball.range_m < 0.6
            if ok:
                self._kick_until_s = now + self.port_float("kick_hold")
                decision = "kick"
            elif widened and kick_geometry(ctx, ball, ctx.state.kick_dir_rad, margin)[0]:
                decision = "kick"
            elif held:
                decision = "kick"
            else:
                decision = "approach"
            if self.explaining:
                why = self._reason(ball, rel, ok, widened, margin, now, decision)
        if why:
            self.set_reason(why)
        self._last = decision
        self.set_output("decision_out", decision)
        return SUCCESS

    def _reason(self, ball: BallView, rel_rad: float, in_reach: bool, widened: bool, margin_m: float, now_s: float,
                decision: str) -> str:
        """The rules of a known ball's decision, in the order ``update`` evaluated them."""
        ctx = self.context
        rules = Rules().ruled_out("ball unknown -> find")
        if in_reach:
            return rules.fired("in reach -> kick", kick_geometry_text(ball, rel_rad))
        rules.ruled_out("in reach -> kick", kick_geometry_failure(ctx, ball, rel_rad))
        rule = f"kicking, in the reach + kick_margin {margin_m:.2f} -> kick"
        if not widened:
            rules.ruled_out(rule, "not kicking" if margin_m > 0.0 else "kick_margin 0")
        elif decision == "kick" and kick_geometry(ctx, ball, ctx.state.kick_dir_rad, margin_m)[0]:
            return rules.fired(rule, kick_geometry_text(ball, rel_rad, margin_m))
        else:
            rules.ruled_out(rule, kick_geometry_failure(ctx, ball, rel_rad, margin_m))
        left_s = self._kick_until_s - now_s
        if decision == "kick":
            return rules.fired("kick_hold -> kick",
                               f"held {left_s:.2f} s more and ball_range {ball.range_m:.2f} < 0.60")
        rules.ruled_out("kick_hold -> kick", f"ball_range {ball.range_m:.2f} >= 0.60" if left_s > 0.0
                        else "no kick in reach within kick_hold")
        return rules.otherwise("approach")


class ApproachBall(SoccerSyncNode):
    """Walk to the ball and line up the planned kick: far away or on the wrong side, plan a path
    to a point behind the ball (around the ball and the robots); near and behind it, close in
    with the ball centred in front of the feet, facing within the kick's reach of the direction."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("vx_limit", float, 1.0), InputPort("vy_limit", float, 0.4),
                InputPort("vtheta_limit", float, 1.2),
                InputPort("near", float, 1.2, "m: the final approach starts this close")]

    def update(self):
        ctx = self.context
        ball = ball_view(ctx)
        if not ball.known:
            ctx.stop()
            return SUCCESS
        near = self.port_float("near")
        mode = approach_ball(ctx, ball, ctx.state.kick_dir_rad, vx_limit=self.port_float("vx_limit"),
                             vy_limit=self.port_float("vy_limit"), vtheta_limit=self.port_float("vtheta_limit"),
                             near_m=near)
        if self.explaining:
            self.set_reason(_approach_reason(mode, ball, ctx.state.kick_dir_rad, near))
        return SUCCESS


def _approach_reason(mode: str, ball: BallView, kick_dir_rad: float, near_m: float) -> str:
    """Why approach_ball moved as it did (``mode`` is what it returned)."""
    off = abs(wrap_angle_rad(ball.dir_rb_rad - kick_dir_rad))
    if mode == "contested":
        return (f"opponent within 1.0 m of the ball, behind it (|off| {off:.2f} < 0.35) and ball_range "
                f"{ball.range_m:.2f} < 1.50 -> walk through the ball")
    if mode == "final":
        return (f"behind the ball (|off| {off:.2f} < 0.90) and ball_range {ball.range_m:.2f} < near "
                f"{near_m:.2f} -> final approach")
    if off >= 0.9:
        return f"wrong side of the ball (|off| {off:.2f} >= 0.90) -> path around it"
    return f"ball_range {ball.range_m:.2f} >= near {near_m:.2f} -> path to behind the ball"


def approach_ball(ctx, ball: BallView, kick_dir_rad: float, *, vx_limit: float, vy_limit: float,
                  vtheta_limit: float, near_m: float = 1.2) -> str:
    """The approach of ``ApproachBall`` (also used by the goalkeeper's clearance); returns how it
    moved: "contested" (walks through the ball), "final" (closes in) or "path" (plans a path)."""
    pose = ctx.world_model.robot_pose_field
    f = ctx.field
    # facing the ball is fine as long as the kick can still go along kick_dir (relative kick)
    off_rad = wrap_angle_rad(ball.dir_rb_rad - kick_dir_rad)
    behind = abs(off_rad) < 0.9 and ball.range_m > 0.2
    heading = kick_dir_rad + clamp(off_rad, -0.4, 0.4)
    if behind and abs(off_rad) < 0.35 and ball.range_m < 1.5 and _contested(ctx, ball):
        # an opponent is at the ball: no time to line up a kick, walk through it (the feet push
        # it along) as Booster's robots do
        eth = wrap_angle_rad(heading - pose.theta_rad)
        ctx.set_velocity(min(vx_limit, 0.8), clamp(1.5 * ball.robot_y_m, -min(vy_limit, 0.3), min(vy_limit, 0.3)),
                         clamp(2.0 * eth, -vtheta_limit, vtheta_limit))
        return "contested"
    if behind and ball.range_m < near_m:
        # final approach in the robot frame: ball to (stand-off, 0), heading to `heading`
        ex = ball.robot_x_m - KICK_STAND_OFF_M
        ey = ball.robot_y_m
        eth = wrap_angle_rad(heading - pose.theta_rad)
        vx = clamp(1.2 * ex, -0.25, min(vx_limit, 0.45))
        vy = clamp(1.5 * ey, -min(vy_limit, 0.3), min(vy_limit, 0.3))
        if abs(ey) > 0.15 and ex < 0.15:
            vx = min(vx, 0.0)  # sidestep first rather than push the ball off
        ctx.set_velocity(vx, vy, clamp(2.0 * eth, -vtheta_limit, vtheta_limit))
        return "final"
    stand_off = KICK_STAND_OFF_M + (0.25 if behind else 0.55)
    tx = ball.field_x_m - stand_off * math.cos(heading)
    ty = ball.field_y_m - stand_off * math.sin(heading)
    # the referee removes a robot 0.5 m beyond the lines: stay well inside that
    lim_x = f.half_length_m + FIELD_KEEP_OUT_M
    lim_y = f.half_width_m + FIELD_KEEP_OUT_M
    tx, ty = clamp(tx, -lim_x, lim_x), clamp(ty, -lim_y, lim_y)
    obstacles = nav_obstacles(ctx, include_ball=not behind, ball_radius_m=0.35)
    walk_to_pose(ctx, tx, ty, heading, vx_limit=vx_limit, vy_limit=vy_limit, vtheta_limit=vtheta_limit,
                 obstacles=obstacles)
    return "path"


def _contested(ctx, ball: BallView, radius_m: float = 1.0) -> bool:
    """A robot that is not a known teammate stands within ``radius_m`` of the ball."""
    team = ctx.robot.team
    now = ctx.now_s()
    for o in ctx.world_model.obstacles:
        if o.team is not team and now - o.last_seen_s < 0.5 and \
                math.hypot(o.x_m - ball.field_x_m, o.y_m - ball.field_y_m) < radius_m:
            return True
    return False


class KickBall(SoccerSyncNode):
    """Kick now when the ball lies in front of the feet (toward the planned direction, with the
    strength the distance asks for); otherwise close in on it slowly (``close_in`` m/s, the final
    approach of ApproachBall; 0: stand). The robot stands while it kicks."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("strength", float, -1.0, "0..1; negative: from the kick's distance"),
                InputPort("close_in", float, 0.3, "m/s: out of reach, close in this fast (0: stand)")]

    def update(self):
        ctx = self.context
        ball = ball_view(ctx)
        state = ctx.state
        ok, rel = kick_geometry(ctx, ball, state.kick_dir_rad)
        ctx.stop()
        if not ok and ball.known and self.port_float("close_in") > 0.0:
            # nearly in reach (StrikerDecision's hysteresis keeps "kick"): close in slowly, do not stand
            mode = approach_ball(ctx, ball, state.kick_dir_rad, vx_limit=self.port_float("close_in"), vy_limit=0.3,
                                 vtheta_limit=1.0, near_m=1.2)
            if self.explaining:
                self.set_reason(f"{kick_geometry_failure(ctx, ball, rel)}: "
                                f"{_approach_reason(mode, ball, state.kick_dir_rad, 1.2)}, no kick yet")
            return SUCCESS
        if ok:
            strength = self.port_float("strength")
            if strength < 0.0:
                target = ctx.memory.get("kick_target_xy", (ctx.field.half_length_m, 0.0))
                strength = kick_strength(state.kick_type, (ball.field_x_m, ball.field_y_m), target, ctx.field)
            # aim at where the ball is relative to the foot as well (a ball off-centre flies off-line)
            ctx.request_kick(rel, strength)
            if self.explaining:
                self.set_reason(f"{kick_geometry_text(ball, rel)} -> kick {state.kick_type} strength {strength:.2f}")
        elif self.explaining:
            self.set_reason(f"{kick_geometry_failure(ctx, ball, rel)} -> stand, no kick")
        return SUCCESS


class ClearBall(SoccerSyncNode):
    """Goalkeeper: approach the ball and kick it away (the planned kick)."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("vx_limit", float, 0.8), InputPort("vy_limit", float, 0.4)]

    def update(self):
        ctx = self.context
        ball = ball_view(ctx)
        ok, rel = kick_geometry(ctx, ball, ctx.state.kick_dir_rad)
        if ok:
            ctx.stop()
            ctx.request_kick(rel, 1.0)
            if self.explaining:
                self.set_reason(f"{kick_geometry_text(ball, rel)} -> kick 1.00")
        elif ball.known:
            mode = approach_ball(ctx, ball, ctx.state.kick_dir_rad, vx_limit=self.port_float("vx_limit"),
                                 vy_limit=self.port_float("vy_limit"), vtheta_limit=1.2)
            if self.explaining:
                self.set_reason(f"{kick_geometry_failure(ctx, ball, rel)}: "
                                f"{_approach_reason(mode, ball, ctx.state.kick_dir_rad, 1.2)}")
        else:
            ctx.stop()
            if self.explaining:
                self.set_reason("ball unknown -> stand")
        return SUCCESS


OUR_NODE_TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    HeadControl, SearchBall, PlanKick, StrikerDecision, ApproachBall, KickBall, GoalkeeperDecision,
    GoalkeeperPosition, ClearBall, GoToKickoffPosition, SupportPosition, FreeKickPosition, GoTo,
)}
