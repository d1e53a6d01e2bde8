"""Knock-out games under the HSL GameController: extra time and the penalty shoot-out.

``KnockoutReferee`` is the ``HslReferee`` of a game that must have a winner
(``HslRefereeConfig.knockout``; ``MatchConfig(knockout=True)``, ``--knockout`` on the CLI). It
follows the official GameController's actions (``start_extra_time``,
``start_penalty_shootout``, ``wait_for_penalty_shot``, ``free_penalty_shot``,
``finish_penalty_shot``, ``goal``) and the 2026 parameters:

- **Extra time.** A second half that ends level is followed, after the half-time break, by two
  extra halves of ``extra_half_s`` (300 s) with ``gamePhase`` EXTRA_TIME: the sides and the
  kick-off are those of the first half again, penalties are forgiven (robots come back at
  their touch line), and each team's message budget grows by ``extra_messages_per_minute``
  (600) for every extra minute, unless its communication was illegal.
- **Penalty shoot-out.** Still level after extra time (or after the second half when
  ``extra_half_s`` is 0): ``gamePhase`` PENALTY_SHOOT_OUT, every robot a substitute (off the
  field), and shots taken in turn, the first kick-off team first. For each shot the referee
  plays the operator: it picks the kicking team's next field player (in number order, the
  goalkeeper last) and the defending team's goalkeeper, puts the ball on the penalty mark of
  the +x goal, the taker 1 m behind it facing the goal and the keeper on its goal line; SET for
  ``set_s``, then PLAYING for ``penalty_shot_s`` (60 s; the packets show SET for the whistle's
  delay, as in every HSL PLAYING). The shot ends as a goal when the ball enters that goal, and
  as a miss when the ball leaves the field, stops after it was played (still for
  ``shot_still_s``) or the time runs out; then FINISHED for ``shot_break_s`` with both robots
  off again. ``penaltyShot`` counts each team's shots and ``singleShots`` has bit k set when
  shot k+1 scored. A shoot-out goal adds to the score, as the GameController counts it.
  ``penalty_shots`` (3) each, then up to ``sudden_death_shots`` (3) more each; it ends as
  soon as one team cannot be caught (the GameController's rule), and level after all of them
  it ends drawn (``game_over`` "shoot-out level": the GameController leaves that to the
  referees).

What the referee does not judge in a shoot-out: the keeper leaving its line early and a taker
playing the ball twice (no penalties are given during the shoot-out).
"""
from __future__ import annotations

import math

from soccerbt.gamecontroller.hsl_protocol import GamePhase, HslRobotInfoV19, HslRobotInfoV20, HslTeamInfo
from soccerbt.gamecontroller.hsl_referee import _NONE_V19, _NONE_V20, _SUB_V19, _SUB_V20, HslReferee, HslRefereeConfig
from soccerbt.gamecontroller.protocol import GameState
from soccerbt.gamecontroller.referee_common import _EPS, RefereeWorld
from soccerbt.world.field import Field
from soccerbt.world.types import (
    BallKicked,
    BallOut,
    BallTouched,
    GoalScored,
    Pose2D,
    RobotId,
    Team,
    WorldEvent,
    from_team_frame,
)

__all__ = ["KnockoutReferee", "SHOOT_OUT", "EXTRA_TIME", "REGULAR", "shoot_out_pose"]

REGULAR, EXTRA_TIME, SHOOT_OUT = "regular", "extra_time", "shoot_out"
_TAKER_BEHIND_BALL_M = 1.0
_KEEPER_INSIDE_LINE_M = 0.2


def shoot_out_pose(field: Field, taker: bool) -> Pose2D:
    """Where a shot's robot is put, in its team frame: the taker 1 m behind the opponent's
    penalty mark facing the goal, the keeper on its own goal line (the referee places them
    there; a robot's localization starts from it)."""
    hx = field.half_length_m
    if taker:
        return Pose2D(hx - field.penalty_mark_distance_m - _TAKER_BEHIND_BALL_M, 0.0, 0.0)
    return Pose2D(-hx + _KEEPER_INSIDE_LINE_M, 0.0, 0.0)


class KnockoutReferee(HslReferee):
    """An ``HslReferee`` that plays extra time and a penalty shoot-out when the game is level
    (see the module docstring). ``period`` is "regular", "extra_time" or "shoot_out"."""

    def __init__(self, world: RefereeWorld, config: HslRefereeConfig | None = None) -> None:
        self.period = REGULAR
        self.penalty_shots = {Team.BLUE: 0, Team.RED: 0}
        self.shot_masks = {Team.BLUE: 0, Team.RED: 0}
        self.shooter: RobotId | None = None
        self.keeper: RobotId | None = None
        self.shot_team: Team | None = None  # kicks now (or kicked last, between shots)
        self._next_period: str | None = None  # due after the break that follows a level game
        self._ball_played = False
        self._ball_still_since_s: float | None = None
        super().__init__(world, config)

    # --- what the packets show -----------------------------------------------------------------

    def game_phase(self) -> int:
        if self.in_timeout:
            return GamePhase.TIMEOUT
        return {SHOOT_OUT: GamePhase.PENALTY_SHOOT_OUT, EXTRA_TIME: GamePhase.EXTRA_TIME}.get(
            self.period, GamePhase.NORMAL)

    def attacks_positive_x(self, team: Team) -> bool:
        if self.period == SHOOT_OUT:  # every shot goes at the +x goal
            return team is self.shot_team
        return super().attacks_positive_x(team)

    def kicking_team(self) -> Team | None:
        if self.period == SHOOT_OUT:
            return self.shot_team
        return super().kicking_team()

    def packet_situation(self) -> tuple:
        return super().packet_situation() + (self.period, self.shooter, self.keeper)

    def _robot_info(self, team: Team, number: int) -> HslRobotInfoV19 | HslRobotInfoV20:
        if self.period != SHOOT_OUT or number > self.players_per_team:
            return super()._robot_info(team, number)
        v19 = self.config.version == 19
        if RobotId(team, number) in (self.shooter, self.keeper):
            return _NONE_V19 if v19 else _NONE_V20
        return _SUB_V19 if v19 else _SUB_V20

    def _hsl_team_info(self, team: Team) -> HslTeamInfo:
        info = super()._hsl_team_info(team)
        if self.period != SHOOT_OUT:
            return info
        keeper = self.keeper.number if self.keeper is not None and self.keeper.team is team else 0
        return HslTeamInfo(team_number=info.team_number, field_player_colour=info.field_player_colour,
                           goalkeeper_colour=info.goalkeeper_colour, goalkeeper=keeper, score=info.score,
                           penalty_shot=self.penalty_shots[team], single_shots=self.shot_masks[team],
                           message_budget=info.message_budget, players=info.players)

    def call_timeout(self, team: Team) -> bool:
        if self.period == SHOOT_OUT:  # no timeouts between shots (the operator would wait instead)
            return False
        return super().call_timeout(team)

    def count_team_messages(self, team: Team, count: int = 1) -> None:
        if self.period != SHOOT_OUT:  # the GameController counts none during the shoot-out
            super().count_team_messages(team, count)

    def secondary_time(self) -> int:
        if self.period == SHOOT_OUT:
            return 0
        return super().secondary_time()

    # --- the flow ---------------------------------------------------------------------------

    # the shared step runs; in the shoot-out these hooks give its own events, flow and no
    # robot checks (no penalties are judged between or during shots)

    def _on_event(self, ev: WorldEvent) -> None:
        if self.period == SHOOT_OUT:
            self._on_shot_event(ev)
        else:
            super()._on_event(ev)

    def _track_robots(self, dt: float) -> None:
        if self.period != SHOOT_OUT:
            super()._track_robots(dt)

    def _advance(self) -> bool:
        if self.period == SHOOT_OUT:
            return self._advance_shoot_out()
        if self.state == GameState.FINISHED and self._next_period is not None and not self.in_timeout:
            if self.t_s - self._phase_start_s >= self.config.half_time_break_s - _EPS:
                period, self._next_period = self._next_period, None
                if period == EXTRA_TIME:
                    self._start_extra_time()
                else:
                    self.start_shoot_out()
                return True
            return False
        return super()._advance()

    def _end_half(self) -> None:
        level = self.scores[Team.BLUE] == self.scores[Team.RED]
        if self.first_half or not level or self.finished:
            super()._end_half()
            return
        self._clear_set_play()
        self.half_remaining_s = 0.0
        self._set_state(GameState.FINISHED)
        if self.period == REGULAR and self.config.extra_half_s > 0.0:
            self._next_period = EXTRA_TIME
        else:
            self._next_period = SHOOT_OUT
        self._record("level", f"{self.scores[Team.BLUE]}:{self.scores[Team.RED]}: {self._next_period} next")

    def _start_second_half(self) -> None:
        super()._start_second_half()
        if self.period == EXTRA_TIME:
            self.half_remaining_s = self.config.extra_half_s

    def _forgive_penalties(self) -> None:
        for rid in sorted(self._penalties, key=lambda r: (r.team.value, r.number)):
            self.unpenalize(rid)

    def _start_extra_time(self) -> None:
        cfg = self.config
        self._forgive_penalties()
        self.period = EXTRA_TIME
        self.first_half = True  # the first half's sides again
        self.half_remaining_s = cfg.extra_half_s
        extra = cfg.extra_time_messages()
        for team in (Team.BLUE, Team.RED):
            if not self.illegal_communication[team]:
                self.message_budget[team] = min(0xFFFF, self.message_budget[team] + extra)
        if cfg.relocate_at_half_time:
            for rid in sorted(self.world.robots, key=lambda r: (r.team.value, r.number)):
                self.world.place_robot(rid, self._free_team_pose(rid, self._touch_line_candidates(-1.0)))
        self._tracks.clear()
        self.kick_off_team = cfg.first_kick_off
        self._record("half", "extra time, first")
        self._set_state(GameState.INITIAL)

    # --- the shoot-out ------------------------------------------------------------------------

    def start_shoot_out(self) -> None:
        """The operator's "start penalty shoot-out" (called by the flow when extra time ends
        level; callable at any time, as the GameController's test option allows)."""
        self._clear_set_play()
        self._restart_start_s = None
        self._penalties.clear()
        self._cancel_delay("shoot-out")
        self.period = SHOOT_OUT
        self.shot_team = self.config.first_kick_off
        self.kick_off_team = None
        for rid in sorted(self.world.robots, key=lambda r: (r.team.value, r.number)):
            self.world.remove_robot(rid)  # substitutes: off the field
        self._tracks.clear()
        self._record("shoot_out", f"{self.shot_team.name.lower()} shoots first", self.shot_team)
        self._set_state(GameState.INITIAL)

    def _taker(self, team: Team) -> RobotId:
        """The team's next taker: field players in number order, the goalkeeper last, in turn."""
        numbers = sorted(rid.number for rid in self.world.robots if rid.team is team)
        keeper = self.config.goalkeeper_number
        order = [n for n in numbers if n != keeper] + [n for n in numbers if n == keeper]
        return RobotId(team, order[(self.penalty_shots[team] - 1) % len(order)])

    def _keeper(self, team: Team) -> RobotId:
        numbers = sorted(rid.number for rid in self.world.robots if rid.team is team)
        keeper = self.config.goalkeeper_number
        return RobotId(team, keeper if keeper in numbers else numbers[0])

    def _start_shot(self) -> None:
        """The operator's "wait for penalty shot" and selections: SET with the ball on the mark."""
        team = self.shot_team
        assert team is not None
        self.penalty_shots[team] += 1
        f = self.field
        self.shooter, self.keeper = self._taker(team), self._keeper(team.other)
        for rid, taker in ((self.shooter, True), (self.keeper, False)):
            self.world.place_robot(rid, from_team_frame(shoot_out_pose(f, taker), self.attacks_positive_x(rid.team)))
        self._spot = (f.half_length_m - f.penalty_mark_distance_m, 0.0)
        self._replace_ball()
        self._ball_played = False
        self._ball_still_since_s = None
        self.half_remaining_s = self.config.penalty_shot_s
        self._record("shot", f"{team.name.lower()} shot {self.penalty_shots[team]}: {self.shooter} against "
                             f"{self.keeper}", team, self.shooter)
        self._set_state(GameState.SET)

    def _end_shot(self, goal: bool, why: str) -> None:
        team = self.shot_team
        assert team is not None
        if goal:
            if not self.illegal_communication[team]:  # as in the GameController: the shot counts, no score
                self.scores[team] += 1
            self.shot_masks[team] |= 1 << (self.penalty_shots[team] - 1)
        self._record("shot_end", f"{'goal' if goal else 'miss'} ({why}) "
                                 f"{self.scores[Team.BLUE]}:{self.scores[Team.RED]}", team, self.shooter)
        self._cancel_delay("shot over")
        for rid in (self.shooter, self.keeper):
            if rid is not None:
                self.world.remove_robot(rid)
        self.shooter = self.keeper = None
        self._set_state(GameState.FINISHED)

    def shoot_out_goes_on(self) -> bool:
        """After a shot of ``shot_team``: whether the other team shoots next (the
        GameController's legality rule for the next shot)."""
        side = self.shot_team
        assert side is not None
        cfg = self.config
        diff = self.scores[side] - self.scores[side.other]
        taken_side, taken_next = self.penalty_shots[side], self.penalty_shots[side.other]
        if taken_next < cfg.penalty_shots:
            return diff <= cfg.penalty_shots - taken_next and -diff <= cfg.penalty_shots - taken_side
        if taken_next < cfg.penalty_shots + cfg.sudden_death_shots:
            return side is cfg.first_kick_off or diff == 0
        return False

    def _advance_shoot_out(self) -> bool:
        cfg = self.config
        elapsed = self.t_s - self._phase_start_s
        if self.finished:
            return False
        if self.state == GameState.INITIAL:
            if elapsed >= cfg.initial_s - _EPS:
                self._start_shot()
                return True
        elif self.state == GameState.SET:
            if elapsed >= cfg.set_s - _EPS:
                self._set_state(GameState.PLAYING)
                if cfg.delay_after_playing_s > 0.0:
                    self._delay_until_s = self.t_s + cfg.delay_after_playing_s
                    self._record("delay", f"packets show SET for {cfg.delay_after_playing_s:g} s")
                return True
        elif self.state == GameState.PLAYING:
            return self._judge_shot()
        elif self.state == GameState.FINISHED and elapsed >= cfg.shot_break_s - _EPS:
            if self.shoot_out_goes_on():
                assert self.shot_team is not None
                self.shot_team = self.shot_team.other
                self._start_shot()
            else:
                self.finished = True
                blue, red = self.scores[Team.BLUE], self.scores[Team.RED]
                self._record("game_over", f"shoot-out {blue}:{red}" if blue != red else f"shoot-out level {blue}:{red}")
            return True
        return False

    def _judge_shot(self) -> bool:
        """A miss when the time is up or the ball, once played, stopped outside the goal."""
        if self.half_remaining_s <= 1e-9:
            self._end_shot(False, "time")
            return True
        ball = self.world.ball
        if not self._ball_played:
            self._ball_played = math.hypot(ball.x_m - self._spot[0], ball.y_m - self._spot[1]) \
                >= self.config.ball_moved_m - _EPS
            return False
        if math.hypot(ball.vx_mps, ball.vy_mps) < self.config.still_speed_mps:
            if self._ball_still_since_s is None:
                self._ball_still_since_s = self.t_s
            elif self.t_s - self._ball_still_since_s >= self.config.shot_still_s - _EPS:
                self._end_shot(False, "ball stopped")
                return True
        else:
            self._ball_still_since_s = None
        return False

    def _on_shot_event(self, ev: WorldEvent) -> None:
        if isinstance(ev, (BallTouched, BallKicked)):
            self.last_touch = ev.robot
            return
        if self.state != GameState.PLAYING:
            if isinstance(ev, (GoalScored, BallOut)):
                self._replace_ball()  # not in play: back to the mark
            return
        if isinstance(ev, GoalScored):
            self._end_shot(ev.goal_at_positive_x, "goal" if ev.goal_at_positive_x else "wrong goal")
        elif isinstance(ev, BallOut):
            self._end_shot(False, "ball out")
