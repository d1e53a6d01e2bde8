"""soccerbt's goalkeeper nodes: the decision (``GoalkeeperDecision``: find, save, clear or block)
and the position on the line from the ball to the goal (``GoalkeeperPosition``), with the shot
detection both share (``incoming_shot_y`` behind ``SaveHysteresis``). ``ClearBall`` kicks like
the striker and lives with it in ``soccerbt_nodes``, which re-exports these.

The decision's reason lists its rules in order with their values and verdicts (``reasons.Rules``):
a reader sees why no shot was seen (``shot_failure``) as well as why the ball was cleared.
"""
from __future__ import annotations

import math

from soccerbt.nodes.soccer._base import SUCCESS, InputPort, OutputPort, SoccerSyncNode
from soccerbt.nodes.soccer.reasons import Rules
from soccerbt.nodes.soccer.skills import BallView, ball_view, walk_to_pose
from soccerbt.nodes.soccer.soccerbt_positioning import _hold_reason, _walk_and_hold
from soccerbt.world.types import Pose2D

__all__ = ["GoalkeeperDecision", "GoalkeeperPosition", "SaveHysteresis", "incoming_shot_y", "shot_failure",
           "shot_to_save", "SAVE_ENTER_TICKS"]


class GoalkeeperDecision(SoccerSyncNode):
    """Write the goalkeeper's decision: "find" (no ball), "save" (a shot rolls toward the own
    goal mouth: meet it on the keeper's line), "clear" (the ball is in or near the own penalty
    area and near the keeper: go and kick it away), else "block"."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("clear_distance", float, 2.5, "m: clear balls this close to the keeper"),
                InputPort("save_speed", float, 1.0,
                          "m/s: a ball rolling toward the own goal mouth this fast is a shot to save"),
                InputPort("decision_in", str, ""), OutputPort("decision_out", str)]

    def setup_state(self) -> None:
        self._save = SaveHysteresis()

    def update(self):
        ctx = self.context
        f = ctx.field
        ball = ball_view(ctx)
        last = str(self.get_input("decision_in") or "")
        why = ""
        was_saving = self._save.saving and ctx.now_s() - self._save.last_tick_s < 0.05
        line_x_m = -f.half_length_m + SHOT_REACH_LINE_M
        save_speed = self.port_float("save_speed")
        if not ball.known:
            self._save.count, self._save.saving = 0, False
            decision = "find"
            if self.explaining:
                why = Rules().fired("ball unknown -> find", "not seen, no reliable team ball")
        elif (shot_y := self._save.update(ctx, ball, line_x_m, save_speed, ctx.now_s())) is not None:
            decision = "save"
            if self.explaining:
                vx, vy = ctx.world_model.ball_velocity_field
                speed = save_speed * (SAVE_KEEP_SPEED if was_saving else 1.0)
                mouth = f.goal_width_m / 2.0 + SHOT_MOUTH_MARGIN_M + (SAVE_KEEP_MARGIN_M if was_saving else 0.0)
                why = Rules().ruled_out("ball unknown -> find").fired(
                    "shot -> save", f"ball rolling {math.hypot(vx, vy):.2f} m/s (vx {vx:.2f} <= -{speed:.2f}"
                    f"{' while saving' if was_saving else f' in {SAVE_ENTER_TICKS} ticks'}) crosses the keeper's "
                    f"line at y {shot_y:.2f}, inside the goal mouth +-{mouth:.2f}")
        else:
            margin = 1.0 if last == "clear" else 0.3
            area_x = -f.half_length_m + f.penalty_area_length_m + margin
            area_y = f.penalty_area_width_m / 2.0 + margin
            in_area = ball.field_x_m < area_x and abs(ball.field_y_m) < area_y
            clear_m = self.port_float("clear_distance") * (1.4 if last == "clear" else 1.0)
            near = ball.range_m < clear_m
            decision = "clear" if in_area and near else "block"
            if self.explaining:
                rules = Rules().ruled_out("ball unknown -> find")
                if self._save.count:
                    rules.ruled_out("shot -> save", f"a shot seen in {self._save.count} of {SAVE_ENTER_TICKS} "
                                                    "consecutive ticks")
                elif was_saving:
                    rules.ruled_out("shot -> save", "saving ended: " + shot_failure(
                        ctx, ball, line_x_m, save_speed * SAVE_KEEP_SPEED, "save_speed x0.6",
                        SHOT_MOUTH_MARGIN_M + SAVE_KEEP_MARGIN_M, deceleration_mps2=0.0))
                else:
                    rules.ruled_out("shot -> save", shot_failure(ctx, ball, line_x_m, save_speed))
                held = " (x1.4 while clearing)" if last == "clear" else ""
                at = f"ball ({ball.field_x_m:.2f}, {ball.field_y_m:.2f})"
                area = f"the area + {margin:.1f} m (x < {area_x:.2f}, |y| < {area_y:.2f})"
                rule = "in the area and near -> clear"
                if not in_area:
                    rules.ruled_out(rule, f"{at} outside {area}")
                    why = rules.otherwise("block")
                elif not near:
                    rules.ruled_out(rule, f"{at} in {area}, but ball_range {ball.range_m:.2f} >= clear_distance "
                                          f"{clear_m:.2f}{held}")
                    why = rules.otherwise("block")
                else:
                    why = rules.fired(rule, f"{at} in {area}, ball_range {ball.range_m:.2f} < clear_distance "
                                            f"{clear_m:.2f}{held}")
        if why:
            self.set_reason(why)
        self.set_output("decision_out", decision)
        return SUCCESS


SHOT_MOUTH_MARGIN_M = 0.5  # a shot this far wide of a post still counts as on goal (noisy velocity)
SHOT_REACH_LINE_M = 0.8  # GoalkeeperDecision: a shot still rolls this far in front of the goal line


SAVE_KEEP_SPEED = 0.6     # a save goes on while the ball rolls in at this fraction of save_speed
SAVE_KEEP_MARGIN_M = 0.3  # ... and this much wider of the posts (hysteresis: noisy velocity)


SAVE_ENTER_TICKS = 3      # a shot must be seen in this many consecutive ticks before a save starts


class SaveHysteresis:
    """When a keeper saves: a shot (``incoming_shot_y``) seen in SAVE_ENTER_TICKS consecutive
    ticks starts a save (one spike of the ball's velocity estimate does not); a save goes on while
    the ball rolls in at SAVE_KEEP_SPEED of the speed, SAVE_KEEP_MARGIN_M wider of the posts
    (``shot_to_save``). A node not ticked in the tick before starts afresh."""

    __slots__ = ("count", "saving", "last_tick_s")

    def __init__(self) -> None:
        self.count = 0
        self.saving = False
        self.last_tick_s = -1e9

    def update(self, ctx, ball: BallView, line_x_m: float, save_speed_mps: float, now_s: float) -> float | None:
        """The y where the shot crosses the line while saving, else None."""
        fresh = now_s - self.last_tick_s < 0.05
        self.last_tick_s = now_s
        saving = fresh and self.saving
        y = shot_to_save(ctx, ball, line_x_m, save_speed_mps, saving)
        if y is None:
            self.count, self.saving = 0, False
            return None
        if saving:
            return y
        self.count = self.count + 1 if fresh else 1
        self.saving = self.count >= SAVE_ENTER_TICKS
        return y if self.saving else None


def shot_to_save(ctx, ball: BallView, line_x_m: float, save_speed_mps: float, saving: bool) -> float | None:
    """``incoming_shot_y`` with the keeper's hysteresis: a save in progress (``saving``) goes on
    while the ball rolls in at SAVE_KEEP_SPEED of the speed and SAVE_KEEP_MARGIN_M wider, whether
    or not it would still roll as far as the line (a ball dribbled at the goal comes in jerks)."""
    if not saving:
        return incoming_shot_y(ctx, ball, line_x_m, save_speed_mps)
    return incoming_shot_y(ctx, ball, line_x_m, save_speed_mps * SAVE_KEEP_SPEED,
                           SHOT_MOUTH_MARGIN_M + SAVE_KEEP_MARGIN_M, deceleration_mps2=0.0)


def incoming_shot(ctx, ball: BallView, line_x_m: float, min_speed_mps: float,
                  mouth_margin_m: float = SHOT_MOUTH_MARGIN_M, deceleration_mps2: float = 0.8
                  ) -> tuple[float | None, str]:
    """Where the ball, own-seen and rolling toward the own goal at ``min_speed_mps`` or more,
    crosses the line x = ``line_x_m`` (team frame): (that y, "") when it still rolls there and its
    path, drawn straight on, enters the goal mouth (``SHOT_MOUTH_MARGIN_M`` wide of either post),
    else (None, why not): "not own", "wide", or ``shot_crossing``'s "slow", "behind", "stops". A
    ball already behind the line is met where it crosses the goal line."""
    # deferred: start-up: scipy (services.planning) stays out of soccerbt nodes and validate (test_cli_startup)
    from soccerbt.services.planning import shot_crossing

    if not ball.own:  # the velocity comes from own sightings only
        return None, "not own"
    f = ctx.field
    xy = (ball.field_x_m, ball.field_y_m)
    velocity = ctx.world_model.ball_velocity_field
    # aim without rolling friction: the velocity estimate lags a shot, so its speed is low
    aim_y, why = shot_crossing(xy, velocity, -f.half_length_m, min_speed_mps, deceleration_mps2=0.0)
    if aim_y is None:
        return None, why
    if abs(aim_y) > f.goal_width_m / 2.0 + mouth_margin_m:
        return None, "wide"
    if xy[0] <= line_x_m:
        return aim_y, ""
    return shot_crossing(xy, velocity, line_x_m, min_speed_mps, deceleration_mps2=deceleration_mps2)


def incoming_shot_y(ctx, ball: BallView, line_x_m: float, min_speed_mps: float,
                    mouth_margin_m: float = SHOT_MOUTH_MARGIN_M, deceleration_mps2: float = 0.8) -> float | None:
    """``incoming_shot``'s y, or None."""
    return incoming_shot(ctx, ball, line_x_m, min_speed_mps, mouth_margin_m, deceleration_mps2)[0]


def shot_failure(ctx, ball: BallView, line_x_m: float, min_speed_mps: float, speed_name: str = "save_speed",
                 mouth_margin_m: float = SHOT_MOUTH_MARGIN_M, deceleration_mps2: float = 0.8) -> str:
    """Why ``incoming_shot`` with these arguments sees no shot, as a reason reads it: the test
    that failed, with the values compared ("" when it sees one)."""
    y, why = incoming_shot(ctx, ball, line_x_m, min_speed_mps, mouth_margin_m, deceleration_mps2)
    if y is not None:
        return ""
    if why == "not own":
        return "ball known from teammates only (no velocity of its own)"
    f = ctx.field
    bx, by = ball.field_x_m, ball.field_y_m
    vx, vy = ctx.world_model.ball_velocity_field
    speed = math.hypot(vx, vy)
    if why == "slow":
        return f"ball rolling {speed:.2f} m/s, vx {vx:.2f} > -{speed_name} {-min_speed_mps:.2f}"
    if why == "behind":
        return f"ball behind the goal line (x {bx:.2f} <= {-f.half_length_m:.2f})"
    if why == "wide":
        aim_y = by + vy * (-f.half_length_m - bx) / vx
        return (f"ball heads for y {aim_y:.2f} on the goal line, outside the goal mouth "
                f"+-{f.goal_width_m / 2.0 + mouth_margin_m:.2f}")
    path_m = speed * (line_x_m - bx) / vx  # "stops"
    return (f"ball stops before the keeper's line: {speed:.2f} m/s rolls "
            f"{speed * speed / (2.0 * deceleration_mps2):.2f} m < {path_m:.2f} m")


class GoalkeeperPosition(SoccerSyncNode):
    """Stand on the line from the ball to the own goal centre, ``dist_to_goalline`` in front of
    it (inside the penalty area), facing the ball; in front of the goal when the ball is unknown.
    Against a shot (the ball rolling into the goal mouth at ``save_speed`` or more) step straight
    to where its path crosses that line, without hesitating or walking around obstacles."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("dist_to_goalline", float, 0.8), InputPort("vx_limit", float, 0.6),
                InputPort("vy_limit", float, 0.4), InputPort("tolerance", float, 0.15),
                InputPort("save_speed", float, 1.0, "m/s: as GoalkeeperDecision's")]

    def setup_state(self) -> None:
        self._save = SaveHysteresis()

    def update(self):
        # deferred: start-up: scipy (services.planning) stays out of soccerbt nodes and validate (test_cli_startup)
        from soccerbt.services.planning import goalkeeper_blocking_position, goalkeeper_save_position

        ctx = self.context
        f = ctx.field
        ball = ball_view(ctx)
        d = self.port_float("dist_to_goalline")
        if ball.known:
            crossing_y = self._save.update(ctx, ball, -f.half_length_m + d, self.port_float("save_speed"), ctx.now_s())
            if crossing_y is not None:
                target = goalkeeper_save_position((ball.field_x_m, ball.field_y_m), crossing_y, f, d)
                if self.explaining:
                    self.set_reason(f"shot crosses the line {d:.2f} m out at y {crossing_y:.2f} -> step straight to "
                                    f"({target.x_m:.2f}, {target.y_m:.2f})")
                self._arrived = False
                walk_to_pose(ctx, target.x_m, target.y_m, target.theta_rad, vx_limit=self.port_float("vx_limit"),
                             vy_limit=self.port_float("vy_limit"), vtheta_limit=1.0, avoid_obstacles=False)
                return SUCCESS
            target = goalkeeper_blocking_position((ball.field_x_m, ball.field_y_m), f, d)
            what = "no shot: on the ball-to-goal line"
        else:
            target = Pose2D(-f.half_length_m + d, 0.0, 0.0)
            what = "ball unknown: in front of the goal"
        arrived = _walk_and_hold(ctx, target, self.port_float("tolerance"), self.port_float("vx_limit"),
                                 self.port_float("vy_limit"), holder=self)
        if self.explaining:
            self.set_reason(_hold_reason(what, target, arrived))
        return SUCCESS
