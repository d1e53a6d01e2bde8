"""The Humanoid Soccer League (2026-) referee: the HSL GameController's part, sending v20 (or
v19) control messages (``../shared/reference/hsl-gamecontroller.md``, ``hsl-rules.md``).

``HslReferee`` subclasses the HL v12 ``Referee`` (``hl_referee``): ball out, goals, kick-off
positions, the fallen / leaving-the-field checks, half time and the packet timing are the v12
referee's; what differs in HSL is overridden here:

- Kick-off and penalty kick go through READY and SET (``award_penalty_kick(team)``: the ball on
  the penalty mark, READY, SET, then 60 s of PLAYING with ``setPlay`` PENALTY_KICK until the
  ball moved). After a kick-off only the kicking team may play the ball for 10 s
  (``kickoff_wait_s``), then ``kickingTeam`` is 255 (ball free).
- The other set plays (throw-in, goal kick, corner kick from ball out; direct and indirect free
  kicks through ``award_free_kick``) stay in PLAYING: ``setPlay`` and ``kickingTeam`` are set,
  ``stopped`` = 1 for ``set_play_stop_s`` while the referee places the ball (our stand-in for the
  operator's "resume"), then ``stopped`` = 0 and ``secondaryTime`` counts ``set_play_s`` (45 s)
  until the kicking team plays the ball (touch, or the ball moved ``ball_moved_m``) or the time
  runs out: then ``setPlay`` NONE, ``kickingTeam`` 255. Opponents still inside the keep-away
  circle ``keep_away_grace_s`` after the resume get ILLEGAL_POSITIONING (when
  ``illegal_set_play_position`` is "penalize"). Stopped play pauses the game clock, the set
  play's clock and the penalty timers.
- The delayed PLAYING (the whistle): the referee's own state turns PLAYING when SET ends (its
  clocks, the kick-off's 10 s, the rule checks of tests all run from there), but the packets keep
  showing SET for ``delay_after_playing_s`` (10 s) - the GameController's ``delayAfterPlaying``,
  which assumes robots hear the whistle. No simulated robot has a whistle detector, so every robot
  meets what a real robot without one meets: SET for 10 s, then PLAYING with the ball already
  free. The delay ends early, as in the GameController, when the referee does something SET
  cannot explain (a goal, a ball out and its set play, a penalty). ``delay_after_playing_s`` = 0
  models robots that all hear the whistle at once. ``shown_state`` is what the packets say.
- Penalties with the HSL durations (``penalty_durations_s``: 30 s, MOTION_IN_SET 10 s and the
  robot stays on the field) and increments (+15 s for each earlier incremental penalty of the
  team), counted only in READY and PLAYING while play is not stopped; the robot returns at its own
  half's touch line level with its penalty mark, facing the field. The v12 codes the inherited
  checks give are read by meaning (PICKUP_OR_INCAPABLE of a fallen robot is INCAPABLE_ROBOT, of a
  robot off the field LEAVING_THE_FIELD; ILLEGAL_ATTACK/DEFENSE are ILLEGAL_POSITIONING).

- The team-message budget: ``count_team_messages(team, n)`` (``Match`` calls it with every
  message a team's ``TeamLink`` sent) counts messages in READY, SET and PLAYING, as the
  GameController does; ``TeamInfo.messageBudget`` says what is left of ``message_budget``
  (12000, the 2026 configs' number for a whole game; it is not scaled to shorter simulated
  halves). A message sent with no budget left makes the team's communication illegal: its score
  is set to 0 and its later goals do not count (``goal_void`` in the history; the other team
  still kicks off).
- The mercy rule: a counted goal that makes the difference ``mercy_goal_difference`` (10) ends
  the game (``game_over`` "mercy rule").
- Timeouts: ``call_timeout(team)`` (``timeouts_per_team``, one each) outside PLAYING and
  FINISHED and not before a penalty kick: ``timeout_s`` (300 s) of INITIAL with ``gamePhase``
  TIMEOUT and ``secondaryTime`` counting down; the next kick-off goes to the other team; then
  READY. Penalty clocks stand still meanwhile (they run in READY and PLAYING only).
- Global game stuck: in PLAYING with the ball in play (no set play, not stopped), when nobody
  touched the ball and it did not move ``ball_moved_m`` for ``game_stuck_s`` (30 s), a dropped
  ball: a kick-off with ``kickingTeam`` 255 (READY, SET, PLAYING; both teams outside the centre
  circle).

Penalty codes are kept by their v20 meaning and written in the packet's version (v19 has no
MOTION_IN_STOP or CAUTIONED: they are sent as PICK_UP there). Extra time and the penalty
shoot-out of knock-out games are ``hsl_knockout.KnockoutReferee``'s (a subclass; which referee
a match gets is ``referee_factory.make_referee``'s choice). Not modelled (yet): oversized (over 512
bytes) team messages and the local game stuck penalty.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, fields

from soccerbt.gamecontroller.hl_referee import _FREE_KICK_NAMES, Referee, _PenaltyState
from soccerbt.gamecontroller.hsl_protocol import (
    HSL_MAX_NUM_PLAYERS,
    HSL_V19,
    HSL_V20,
    KICKING_TEAM_NONE,
    CompetitionType,
    GamePhase,
    HslControlData,
    HslRobotInfoV19,
    HslRobotInfoV20,
    HslTeamInfo,
    PenaltyV19,
    PenaltyV20,
    SetPlay,
)
from soccerbt.gamecontroller.protocol import GameState, Penalty, SecondaryState, SubState
from soccerbt.gamecontroller.referee_common import _EPS, RefereeConfig, RefereeWorld
from soccerbt.world.types import (
    BallKicked,
    BallOut,
    BallTouched,
    GoalScored,
    Pose2D,
    RobotId,
    Team,
    WorldEvent,
    to_team_frame,
)

__all__ = ["HSL_PENALTY_DURATIONS", "HslReferee", "HslRefereeConfig"]

# meaning (PenaltyV20 name) -> (seconds, incremental): the 2026 configs (hsl-gamecontroller.md)
HSL_PENALTY_DURATIONS: dict[str, tuple[float, bool]] = {
    "ILLEGAL_POSITIONING": (30.0, True), "MOTION_IN_SET": (10.0, False), "MOTION_IN_STOP": (45.0, False),
    "LOCAL_GAME_STUCK": (30.0, False), "INCAPABLE_ROBOT": (30.0, False), "PICK_UP": (30.0, True),
    "BALL_HOLDING": (30.0, True), "LEAVING_THE_FIELD": (30.0, True), "PLAYING_WITH_ARMS_HANDS": (30.0, True),
    "PUSHING": (30.0, True), "CAUTIONED": (30.0, False), "SENT_OFF": (math.inf, False),
}
_STAYS_ON_FIELD = frozenset({"MOTION_IN_SET"})

# the v12 set-play codes the inherited logic uses, as HSL setPlay
_SET_PLAY_OF = {
    SecondaryState.DIRECT_FREEKICK: SetPlay.DIRECT_FREE_KICK,
    SecondaryState.INDIRECT_FREEKICK: SetPlay.INDIRECT_FREE_KICK,
    SecondaryState.PENALTYKICK: SetPlay.PENALTY_KICK, SecondaryState.THROW_IN: SetPlay.THROW_IN,
    SecondaryState.GOAL_KICK: SetPlay.GOAL_KICK, SecondaryState.CORNER_KICK: SetPlay.CORNER_KICK,
}
# v12 penalty codes of the inherited checks, by meaning (PICKUP_OR_INCAPABLE is decided per robot)
_V12_MEANING = {Penalty.ILLEGAL_ATTACK: "ILLEGAL_POSITIONING", Penalty.ILLEGAL_DEFENSE: "ILLEGAL_POSITIONING",
                Penalty.BALL_MANIPULATION: "PLAYING_WITH_ARMS_HANDS", Penalty.PHYSICAL_CONTACT: "PUSHING",
                Penalty.SUBSTITUTE: "SUBSTITUTE"}


@dataclass
class HslRefereeConfig(RefereeConfig):
    """``RefereeConfig`` plus the HSL numbers (seconds). Inherited times keep their meaning:
    ``ready_s`` 45, ``set_s`` (SET before PLAYING), ``kickoff_wait_s`` (10 s kicking team only),
    ``half_time_break_s`` (the simulation's short break; the GameController's is 600 s)."""

    version: int = HSL_V20
    competition_type: int = CompetitionType.LARGE  # the Booster T1's division
    delay_after_playing_s: float = 10.0  # packets show SET this long after SET -> PLAYING
    set_play_stop_s: float = 5.0  # stopped while the ball is placed (then the referee resumes)
    set_play_s: float = 45.0  # after the resume, until the kick is taken
    penalty_kick_s: float = 60.0
    keep_away_grace_s: float = 10.0  # after the resume, opponents must have left the keep-away circle
    penalty_increment_s: float = 15.0
    penalty_durations_s: dict[str, tuple[float, bool]] = field(default_factory=lambda: dict(HSL_PENALTY_DURATIONS))
    message_budget: int = 12000  # team messages per team and game (the 2026 configs), counted
    mercy_goal_difference: int = 10  # this goal difference ends the game; 0: no mercy rule
    timeouts_per_team: int = 1
    timeout_s: float = 300.0
    game_stuck_s: float = 30.0  # no touch and the ball unmoved this long: dropped ball; 0: never
    # a knock-out game (hsl_knockout.KnockoutReferee): extra time, then a penalty shoot-out
    knockout: bool = False
    extra_half_s: float | None = None  # None: half a half (300 s of 600, as in 2026); 0: no extra time
    extra_messages_per_minute: int = 600  # budget added per extra minute (the 2026 configs)
    penalty_shots: int = 3
    sudden_death_shots: int = 3
    penalty_shot_s: float = 60.0
    shot_break_s: float = 5.0  # FINISHED between two shots
    shot_still_s: float = 1.0  # a played ball still this long outside the goal: a miss

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.version not in (HSL_V19, HSL_V20):
            raise ValueError(f"HslRefereeConfig.version: {self.version!r} (expected 19 or 20)")
        if not 0 <= self.message_budget <= 0xFFFF:
            raise ValueError(f"HslRefereeConfig.message_budget: {self.message_budget} out of range 0..65535")
        if self.extra_half_s is None:
            self.extra_half_s = self.half_duration_s / 2.0
        if self.penalty_shots < 1 or self.sudden_death_shots < 0 or self.penalty_shot_s <= 0.0 \
                or self.extra_half_s < 0.0:
            raise ValueError("HslRefereeConfig: penalty_shots >= 1, sudden_death_shots >= 0, penalty_shot_s > 0 "
                             "and extra_half_s >= 0 expected")
        unknown = set(self.penalty_durations_s) - set(PenaltyV20.__members__)
        if unknown:
            raise ValueError(f"HslRefereeConfig.penalty_durations_s: unknown penalties {sorted(unknown)}")

    def extra_time_messages(self) -> int:
        """The messages each team's budget gains for the two extra halves."""
        return round(self.extra_messages_per_minute * 2.0 * (self.extra_half_s or 0.0) / 60.0)

    @classmethod
    def from_config(cls, config: RefereeConfig, version: int = HSL_V20) -> HslRefereeConfig:
        """The HSL config with every field of a (v12) ``RefereeConfig``; HSL fields at their defaults."""
        if isinstance(config, HslRefereeConfig):
            values = {f.name: getattr(config, f.name) for f in fields(HslRefereeConfig)}
        else:  # the HSL fields at their defaults (extra halves: half a half)
            values = {f.name: getattr(config, f.name) for f in fields(RefereeConfig)}
        values["version"] = version
        return cls(**values)


class HslReferee(Referee):
    """The HSL GameController of a simulated match (see the module docstring)."""

    config: HslRefereeConfig

    def __init__(self, world: RefereeWorld, config: HslRefereeConfig | None = None) -> None:
        config = config or HslRefereeConfig()
        if not isinstance(config, HslRefereeConfig):
            config = HslRefereeConfig.from_config(config)
        self._delay_until_s: float | None = None
        self._incremental = {Team.BLUE: 0, Team.RED: 0}
        self.message_budget = {Team.BLUE: config.message_budget, Team.RED: config.message_budget}
        self.messages_counted = {Team.BLUE: 0, Team.RED: 0}
        self.illegal_communication = {Team.BLUE: False, Team.RED: False}
        self.timeouts_left = {Team.BLUE: config.timeouts_per_team, Team.RED: config.timeouts_per_team}
        self.timeout_team: Team | None = None  # a timeout runs (state INITIAL, gamePhase TIMEOUT)
        self._timeout_until_s = 0.0
        self._stuck_since_s: float | None = None  # ball in play, unmoved and untouched since
        self._stuck_spot = (0.0, 0.0)
        super().__init__(world, config)
        if self.players_per_team > HSL_MAX_NUM_PLAYERS:
            raise ValueError(f"players per team {self.players_per_team} out of range 1..{HSL_MAX_NUM_PLAYERS}")

    # --- what the packets show -----------------------------------------------------------------

    @property
    def stopped(self) -> bool:
        """Play is stopped while the ball of a set play taken in PLAYING is placed."""
        return (self.state == GameState.PLAYING and self.secondary_state not in (
            SecondaryState.NORMAL, SecondaryState.PENALTYKICK) and self.sub_state == SubState.STOP)

    @property
    def delayed(self) -> bool:
        """The referee plays, but the packets still show SET (the whistle's delay)."""
        return self._delay_until_s is not None and self.state == GameState.PLAYING

    @property
    def shown_state(self) -> int:
        return GameState.SET if self.delayed else self.state

    def kicking_team(self) -> Team | None:
        """The team the packet names in ``kickingTeam`` (None: 255, the ball is free)."""
        if self.secondary_state != SecondaryState.NORMAL:
            return self.set_play_team
        if self.state in (GameState.INITIAL, GameState.READY, GameState.SET) or self.delayed:
            return self.kick_off_team
        if self.state == GameState.PLAYING and self._restart_start_s is not None:
            return self._restart_team
        return None

    def packet_situation(self) -> tuple:
        """What the packet shows beyond the v12 referee's fields (``Match`` sends at once when it
        changes)."""
        return (int(self.shown_state), self.stopped, self.kicking_team(), self.in_timeout,
                tuple(self.illegal_communication.values()))

    @property
    def in_timeout(self) -> bool:
        return self.timeout_team is not None

    def game_phase(self) -> int:
        return GamePhase.TIMEOUT if self.in_timeout else GamePhase.NORMAL

    # --- team messages, timeouts ------------------------------------------------------------

    def count_team_messages(self, team: Team, count: int = 1) -> None:
        """``count`` team messages ``team`` sent now. Counted in READY, SET and PLAYING (not in
        a timeout); a message sent with no budget left makes the team's communication illegal:
        score 0, later goals void."""
        if count <= 0 or self.in_timeout or self.state not in (GameState.READY, GameState.SET, GameState.PLAYING):
            return
        self.messages_counted[team] += count
        left = self.message_budget[team]
        self.message_budget[team] = max(0, left - count)
        if count > left and not self.illegal_communication[team]:
            self.illegal_communication[team] = True
            self.scores[team] = 0
            self._record("illegal_communication", f"{team.name.lower()} over the message budget "
                         f"({self.config.message_budget}): score 0, later goals void", team)
            self._revision += 1

    def call_timeout(self, team: Team) -> bool:
        """A timeout for ``team`` (its own, ``timeouts_per_team``): legal outside PLAYING and
        FINISHED and not before a penalty kick. INITIAL with gamePhase TIMEOUT for ``timeout_s``,
        the next kick-off for the other team, then READY."""
        if self.finished or self.state in (GameState.PLAYING, GameState.FINISHED) or self.in_timeout \
                or self.secondary_state != SecondaryState.NORMAL or self.timeouts_left[team] <= 0:
            return False
        self.timeouts_left[team] -= 1
        self.timeout_team = team
        self._timeout_until_s = self.t_s + self.config.timeout_s
        self._clear_set_play()
        self.kick_off_team = team.other
        self._spot = (0.0, 0.0)
        self._replace_ball()
        self._set_state(GameState.INITIAL)
        self._record("timeout", team.name.lower(), team)
        return True

    # --- set plays --------------------------------------------------------------------------

    def award_free_kick(self, team: Team, spot: tuple[float, float], direct: bool = True) -> bool:
        """A direct (or indirect) free kick for ``team`` at a world spot; only while playing."""
        if not self._ball_in_play():
            return False
        self._start_set_play(SecondaryState.DIRECT_FREEKICK if direct else SecondaryState.INDIRECT_FREEKICK,
                             team, spot)
        return True

    def award_penalty_kick(self, team: Team) -> bool:
        """A penalty kick for ``team`` at the penalty mark of the goal it attacks: READY, SET,
        PLAYING (``penalty_kick_s``). Only while playing."""
        if not self._ball_in_play():
            return False
        self._cancel_delay("penalty kick")
        self._clear_set_play()
        f = self.field
        sx = 1.0 if self.attacks_positive_x(team) else -1.0
        self.secondary_state = SecondaryState.PENALTYKICK
        self.set_play_team = team
        self._spot = (sx * (f.half_length_m - f.penalty_mark_distance_m), 0.0)
        self._replace_ball()
        self._record("set_play", "PENALTYKICK", team)
        self._set_state(GameState.READY)
        return True

    def _start_set_play(self, kind: int, team: Team, spot: tuple[float, float]) -> None:
        self._cancel_delay("set play")
        super()._start_set_play(kind, team, spot)

    def _end_set_play(self, why: str) -> None:
        self._restart_start_s = None
        self._restart_team = None
        self._close_set_play(why)
        self._revision += 1

    def _ball_moved(self) -> bool:
        ball = self.world.ball
        return math.hypot(ball.x_m - self._spot[0], ball.y_m - self._spot[1]) >= self.config.ball_moved_m - _EPS

    def _advance_set_play(self, elapsed: float) -> bool:
        cfg = self.config
        if self.secondary_state == SecondaryState.PENALTYKICK:  # PLAYING after READY and SET
            if self._ball_moved():
                self._end_set_play("taken")
                return True
            if elapsed >= cfg.penalty_kick_s - _EPS:
                self._end_set_play("time")
                return True
            return False
        if self.sub_state == SubState.STOP:
            if elapsed >= cfg.set_play_stop_s - _EPS:
                self._replace_ball()
                self.sub_state = SubState.GET_READY
                self._phase_start_s = self.t_s
                self._record("resume", _FREE_KICK_NAMES.get(self.secondary_state, ""), self.set_play_team)
                return True
            return False
        if self._ball_moved():
            self._end_set_play("taken")
            return True
        if elapsed >= cfg.set_play_s - _EPS:
            self._end_set_play("time")
            return True
        if cfg.illegal_set_play_position == "penalize" and elapsed >= cfg.keep_away_grace_s - _EPS:
            sx, sy = self._spot
            for rid, robot in self._active_robots():
                if rid.team is not self.set_play_team and math.hypot(
                        robot.pose.x_m - sx, robot.pose.y_m - sy) < self.field.free_kick_distance_m:
                    self.penalize(rid, "ILLEGAL_POSITIONING")
        return False

    # --- the flow ---------------------------------------------------------------------------

    def step(self, t_s: float, events: Iterable[WorldEvent] = ()) -> None:
        dt = max(0.0, t_s - self.t_s)
        if self.state == GameState.PLAYING and self.stopped:
            self.half_remaining_s += dt  # stopped play pauses the game clock (the base takes dt off)
        super().step(t_s, events)
        if self._delay_until_s is not None and (self.state != GameState.PLAYING
                                                or self.t_s >= self._delay_until_s - _EPS):
            self._cancel_delay("time" if self.state == GameState.PLAYING else GameState(self.state).name)

    def _on_event(self, ev: WorldEvent) -> None:
        if isinstance(ev, (BallTouched, BallKicked)):
            self._stuck_since_s = None  # play goes on: the stuck clock starts again
        if isinstance(ev, GoalScored):
            self._cancel_delay("goal")
        elif isinstance(ev, BallOut):
            self._cancel_delay("ball out")
        elif isinstance(ev, (BallTouched, BallKicked)) and self.state == GameState.PLAYING \
                and self.secondary_state != SecondaryState.NORMAL and not self.stopped \
                and self.secondary_state != SecondaryState.PENALTYKICK:
            super()._on_event(ev)
            if ev.robot.team is self.set_play_team:
                self._end_set_play("taken")
            elif self.config.illegal_set_play_position == "penalize":
                self.penalize(ev.robot, "ILLEGAL_POSITIONING")  # the kicking team's ball
            return
        super()._on_event(ev)

    def _advance(self) -> bool:
        if self.in_timeout:
            if self.t_s >= self._timeout_until_s - _EPS:
                team = self.timeout_team
                self.timeout_team = None
                self._record("timeout_end", team.name.lower() if team is not None else "", team)
                self._enter_ready(self.kick_off_team)
                return True
            return False
        if self._game_stuck():
            self._record("game_stuck", f"nobody played the ball for {self.config.game_stuck_s:g} s: dropped ball")
            self._cancel_delay("dropped ball")
            self._enter_ready(None)
            return True
        before = self.state
        changed = super()._advance()
        if changed and before == GameState.SET and self.state == GameState.PLAYING:
            delay = self.config.delay_after_playing_s
            if delay > 0.0:
                self._delay_until_s = self.t_s + delay
                self._record("delay", f"packets show SET for {delay:g} s")
        return changed

    def _game_stuck(self) -> bool:
        """Nobody touched the ball and it did not move for ``game_stuck_s`` while in play."""
        limit = self.config.game_stuck_s
        if limit <= 0.0 or not self._ball_in_play() or self.stopped:
            self._stuck_since_s = None
            return False
        ball = self.world.ball
        if self._stuck_since_s is None or math.hypot(ball.x_m - self._stuck_spot[0], ball.y_m - self._stuck_spot[1]) \
                >= self.config.ball_moved_m - _EPS:
            self._stuck_since_s = self.t_s
            self._stuck_spot = (ball.x_m, ball.y_m)
            return False
        return self.t_s - self._stuck_since_s >= limit - _EPS

    # --- goals ------------------------------------------------------------------------------

    def _on_goal(self, ev: GoalScored) -> None:
        if not self._ball_in_play():
            super()._on_goal(ev)
            return
        scorer = Team.BLUE if self.attacks_positive_x(Team.BLUE) == ev.goal_at_positive_x else Team.RED
        if self.illegal_communication[scorer]:  # the goal does not count; the other team kicks off
            self._record("goal_void", f"{scorer.name.lower()}: illegal communication", scorer,
                         ev.last_touch or self.last_touch)
            self._enter_ready(kick_off=scorer.other)
            return
        super()._on_goal(ev)
        diff = self.config.mercy_goal_difference
        if diff > 0 and self.scores[scorer] - self.scores[scorer.other] >= diff:
            self._clear_set_play()
            self.finished = True
            self._set_state(GameState.FINISHED)
            self._record("game_over", f"mercy rule {self.scores[Team.BLUE]}:{self.scores[Team.RED]}")

    def _cancel_delay(self, why: str) -> None:
        if self._delay_until_s is not None:
            self._delay_until_s = None
            self._record("delay_end", why)
            self._revision += 1

    def _all_placed(self) -> bool:
        if self.secondary_state != SecondaryState.PENALTYKICK:
            return super()._all_placed()
        t = self.t_s
        for rid, robot in self._active_robots():  # a penalty kick: everyone stands still
            track = self._tracks.get(rid)
            if robot.fallen or track is None or t - track.still_since_s < self.config.placed_still_s - _EPS:
                return False
        return True

    def _enter_set(self) -> None:
        if self.secondary_state != SecondaryState.PENALTYKICK:
            super()._enter_set()
            return
        self._replace_ball()  # on the penalty mark; positions are not judged (yet)
        self._set_state(GameState.SET)

    # --- penalties ------------------------------------------------------------------------

    def _meaning(self, robot_id: RobotId, code: int | str | None) -> str:
        if isinstance(code, str):
            if code not in PenaltyV20.__members__:
                raise ValueError(f"unknown HSL penalty {code!r}")
            return code
        if isinstance(code, (PenaltyV19, PenaltyV20)):
            return code.name
        if code is None or code == Penalty.PICKUP_OR_INCAPABLE:
            robot = self.world.robots.get(robot_id)
            if robot is not None and robot.fallen:
                return "INCAPABLE_ROBOT"
            if robot is not None and not self.field.is_inside_field(robot.pose.x_m, robot.pose.y_m):
                return "LEAVING_THE_FIELD"
            return "PICK_UP"
        if isinstance(code, Penalty) or code >= Penalty.SUBSTITUTE:  # a v12 code
            return _V12_MEANING.get(code, "PICK_UP")
        table = PenaltyV19 if self.config.version == HSL_V19 else PenaltyV20
        try:
            return table(code).name
        except ValueError:
            raise ValueError(f"penalty code {code} is no v{self.config.version} penalty") from None

    def penalize(self, robot_id: RobotId, code: int | str | None = None,
                 duration_s: float | None = None) -> bool:
        """An HSL penalty by meaning ("PICK_UP", a ``PenaltyV20``/``V19`` member, a code of the
        packet's version, or a v12 ``Penalty`` of the inherited checks). Its duration is
        ``penalty_durations_s`` plus the team's increments unless ``duration_s`` is given."""
        if robot_id in self._penalties or robot_id not in self.world.robots:
            return False
        meaning = self._meaning(robot_id, code)
        base_s, incremental = self.config.penalty_durations_s.get(meaning, (30.0, False))
        duration = duration_s
        if duration is None:
            duration = base_s + (self.config.penalty_increment_s * self._incremental[robot_id.team]
                                 if incremental else 0.0)
        if incremental:
            self._incremental[robot_id.team] += 1
        self._cancel_delay("penalty")
        self._penalties[robot_id] = _PenaltyState(int(PenaltyV20[meaning]), self.t_s, self.t_s + duration)
        if meaning not in _STAYS_ON_FIELD:
            self.world.remove_robot(robot_id)
        self._tracks.pop(robot_id, None)
        self._record("penalty", meaning, robot_id.team, robot_id)
        self._revision += 1
        return True

    def unpenalize(self, robot_id: RobotId) -> bool:
        p = self._penalties.get(robot_id)
        if p is None:
            return False
        if PenaltyV20(p.code).name in _STAYS_ON_FIELD:  # it never left
            del self._penalties[robot_id]
            self._tracks.pop(robot_id, None)
            self._record("unpenalised", str(robot_id), robot_id.team, robot_id)
            self._revision += 1
            return True
        return super().unpenalize(robot_id)

    def penalty_name(self, robot_id: RobotId) -> str:
        p = self._penalties.get(robot_id)
        return "NONE" if p is None else PenaltyV20(p.code).name

    def _run_penalties(self, dt: float) -> None:
        if self.state not in (GameState.READY, GameState.PLAYING) or self.stopped:
            for p in self._penalties.values():  # the penalty clock runs in READY and PLAYING only
                p.until_s += dt
            return
        for rid in [rid for rid, p in self._penalties.items() if self.t_s >= p.until_s - _EPS]:
            self.unpenalize(rid)

    def _reentry_pose(self, rid: RobotId) -> Pose2D:
        """On the own half's touch line level with the own penalty mark, on the side away from
        the ball, facing the field (further toward the centre line when taken)."""
        f = self.field
        attack = self.attacks_positive_x(rid.team)
        ball = self.world.ball
        side = -1.0 if to_team_frame(Pose2D(ball.x_m, ball.y_m), attack).y_m > 0.0 else 1.0
        x0 = -f.half_length_m + f.penalty_mark_distance_m
        xs = [x0 + 0.7 * k for k in range(12) if x0 + 0.7 * k < -0.3]
        cands = [Pose2D(x, side * f.half_width_m, -side * math.pi / 2.0) for x in xs]
        cands += [Pose2D(x, -side * f.half_width_m, side * math.pi / 2.0) for x in xs]
        return self._free_team_pose(rid, cands)

    # --- packets ------------------------------------------------------------------------------

    def secondary_time(self) -> int:
        cfg = self.config
        elapsed = self.t_s - self._phase_start_s
        if self.in_timeout:
            return max(0, math.ceil(self._timeout_until_s - self.t_s - 1e-9))
        if self.delayed:
            return 0  # as SET shows it
        if self.state == GameState.PLAYING and self.secondary_state == SecondaryState.PENALTYKICK:
            left = cfg.penalty_kick_s - elapsed
        elif self.state == GameState.PLAYING and self.secondary_state != SecondaryState.NORMAL:
            left = cfg.set_play_s if self.stopped else cfg.set_play_s - elapsed
        else:
            return super().secondary_time()
        return max(0, math.ceil(left - 1e-9))

    def _robot_info(self, team: Team, number: int) -> HslRobotInfoV19 | HslRobotInfoV20:
        v19 = self.config.version == HSL_V19
        if number > self.players_per_team:
            return _SUB_V19 if v19 else _SUB_V20
        p = self._penalties.get(RobotId(team, number))
        if p is None:
            return _NONE_V19 if v19 else _NONE_V20
        left = p.until_s - self.t_s
        secs = 255 if math.isinf(left) else max(0, min(255, math.ceil(left - 1e-9)))
        if v19:
            name = PenaltyV20(p.code).name
            code = PenaltyV19[name] if name in PenaltyV19.__members__ else PenaltyV19.PICK_UP
            return HslRobotInfoV19(int(code), secs, 0, 0)
        return HslRobotInfoV20(p.code, secs, 0)

    def _hsl_team_info(self, team: Team) -> HslTeamInfo:
        colour = team.value
        return HslTeamInfo(team_number=self._numbers[team], field_player_colour=colour, goalkeeper_colour=colour,
                           goalkeeper=self.config.goalkeeper_number, score=self.scores[team],
                           message_budget=self.message_budget[team],
                           players=tuple(self._robot_info(team, n) for n in range(1, HSL_MAX_NUM_PLAYERS + 1)))

    def _build_packet(self) -> HslControlData:  # type: ignore[override]
        order = (Team.BLUE, Team.RED) if self.first_half else (Team.RED, Team.BLUE)
        kicking = self.kicking_team()
        set_play = SetPlay.NONE if self.delayed and self.secondary_state != SecondaryState.PENALTYKICK \
            else _SET_PLAY_OF.get(self.secondary_state, SetPlay.NONE)
        packet = HslControlData(
            version=self.config.version, packet_number=self._sent & 0xFF, players_per_team=self.players_per_team,
            competition_type=int(self.config.competition_type), stopped=1 if self.stopped else 0,
            game_phase=int(self.game_phase()),
            state=int(self.shown_state), set_play=int(set_play), first_half=1 if self.first_half else 0,
            kicking_team=KICKING_TEAM_NONE if kicking is None else self._numbers[kicking],
            secs_remaining=max(-0x8000, min(0x7FFF, self.secs_remaining())),
            secondary_time=min(0x7FFF, self.secondary_time()),
            teams=(self._hsl_team_info(order[0]), self._hsl_team_info(order[1])))
        self._sent += 1
        return packet


_NONE_V19 = HslRobotInfoV19()
_NONE_V20 = HslRobotInfoV20()
_SUB_V19 = HslRobotInfoV19(penalty=int(PenaltyV19.SUBSTITUTE))
_SUB_V20 = HslRobotInfoV20(penalty=int(PenaltyV20.SUBSTITUTE))
