"""The HSL referee on a fake world: its v19/v20 packets, decoded from the real bytes, and the
gc_* entries the adapter writes from them at each phase (kick-off with the delayed PLAYING, set
plays inside PLAYING with ``stopped``, penalty kick, penalties, the team-message budget, the
mercy rule, timeouts, the dropped ball of a stuck game)."""
from __future__ import annotations

import math

import pytest

from soccerbt.gamecontroller.adapter import GameControllerAdapter
from soccerbt.gamecontroller.hl_referee import Referee
from soccerbt.gamecontroller.hsl_protocol import (
    KICKING_TEAM_NONE,
    GamePhase,
    HslControlData,
    PenaltyV19,
    PenaltyV20,
    SetPlay,
)
from soccerbt.gamecontroller.hsl_referee import HslReferee, HslRefereeConfig
from soccerbt.gamecontroller.protocol import GameState, Penalty, decode, encode
from soccerbt.gamecontroller.referee_common import RefereeConfig
from soccerbt.gamecontroller.referee_factory import make_referee
from soccerbt.match import MatchConfig
from soccerbt.world.types import BallKicked, BallOut, BallTouched, GoalScored, Pose2D, RobotId, Team

BLUE1, BLUE2 = RobotId(Team.BLUE, 1), RobotId(Team.BLUE, 2)
RED1, RED2 = RobotId(Team.RED, 1), RobotId(Team.RED, 2)
DT = 0.1
SIZES = {19: 198, 20: 158}


class Driver:
    """Steps an HSL referee at DT; every packet goes through bytes, decode and two adapters
    (blue2 and red2), like a robot's."""

    def __init__(self, world, config: HslRefereeConfig) -> None:
        self.world = world
        self.ref = HslReferee(world, config)
        self.step_no = 0
        self.packets: list[HslControlData] = []
        self.blue = GameControllerAdapter(1, 2)
        self.red = GameControllerAdapter(2, 2)
        self.bb_blue: dict = {}
        self.bb_red: dict = {}

    @property
    def t(self) -> float:
        return round(self.step_no * DT, 6)

    def run_until(self, t_end: float, events: dict[float, list] | None = None) -> None:
        events = events or {}
        while self.t < t_end - 1e-9:
            self.step_no += 1
            t = self.t
            self.world.t_s = t
            self.ref.step(t, events.get(round(t, 6), []))
            raw = self.ref.packet_bytes()
            assert len(raw) == SIZES[self.ref.config.version]
            p = decode(raw)
            assert isinstance(p, HslControlData) and encode(p) == raw
            self.packets.append(p)
            self.blue.apply(p, t, self.bb_blue)
            self.red.apply(p, t, self.bb_red)

    @property
    def last(self) -> HslControlData:
        return self.packets[-1]


def config(**kw) -> HslRefereeConfig:
    base = dict(half_duration_s=100.0, initial_s=1.0, set_s=2.0, half_time_break_s=3.0)
    base.update(kw)
    return HslRefereeConfig(**base)


def view(p: HslControlData) -> tuple:
    return (GameState(p.state).name, p.stopped, SetPlay(p.set_play).name, p.kicking_team)


def entries(bb: dict) -> tuple:
    return (bb["gc_game_state"], bb["gc_game_sub_state_type"], bb["gc_game_sub_state"], bb["gc_stopped"],
            bb["gc_real_game_sub_state"], bb["gc_is_kickoff_side"], bb["gc_is_sub_state_kickoff_side"])


def kick_off(d: Driver) -> None:
    """Play through INITIAL, READY, SET and the delayed PLAYING (10 s) until the ball is free."""
    d.run_until(0.9)
    assert view(d.last) == ("INITIAL", 0, "NONE", 1)
    d.run_until(3.0)  # READY ends early: every robot is placed and still
    d.run_until(d.ref._phase_start_s + 2.0 + 0.05)
    assert d.ref.state == GameState.PLAYING


@pytest.mark.parametrize("version", [19, 20])
def test_kick_off_through_ready_set_and_the_delayed_playing(fake_world, version) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(version=version))
    d.run_until(0.9)
    assert view(d.last) == ("INITIAL", 0, "NONE", 1) and d.last.version == version
    d.run_until(1.0)
    assert view(d.last) == ("READY", 0, "NONE", 1) and d.last.secondary_time == 45
    assert entries(d.bb_blue) == ("READY", "NONE", "NONE", False, "NONE", True, False)
    assert entries(d.bb_red) == ("READY", "NONE", "NONE", False, "NONE", False, False)
    d.run_until(2.0)  # placed and still for 1 s: SET
    assert view(d.last) == ("SET", 0, "NONE", 1)
    set_at = d.ref._phase_start_s
    d.run_until(set_at + 2.0)  # the whistle: the referee plays, the packets still say SET
    assert d.ref.state == GameState.PLAYING and d.ref.delayed
    playing_at = d.t
    secs_at_whistle = d.last.secs_remaining
    d.run_until(playing_at + 9.9)
    assert view(d.last) == ("SET", 0, "NONE", 1)
    assert entries(d.bb_blue)[0] == "SET" and entries(d.bb_red)[0] == "SET"
    assert d.last.secs_remaining < secs_at_whistle  # the game clock runs
    d.run_until(playing_at + 10.0)  # the delay and the kicking team's 10 s are over: ball free
    assert view(d.last) == ("PLAYING", 0, "NONE", KICKING_TEAM_NONE)
    assert entries(d.bb_blue) == ("PLAY", "NONE", "NONE", False, "NONE", False, False)
    assert [r.kind for r in d.ref.history if r.kind.startswith("delay")] == ["delay", "delay_end"]


def test_without_delay_the_kicking_team_is_named_until_it_plays_the_ball(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(delay_after_playing_s=0.0))
    kick_off(d)
    assert view(d.last) == ("PLAYING", 0, "NONE", 1) and 0 < d.last.secondary_time <= 10
    t = d.t
    d.run_until(t + 0.1, {round(t + 0.1, 6): [BallKicked(t + 0.1, BLUE2)]})
    assert view(d.last) == ("PLAYING", 0, "NONE", KICKING_TEAM_NONE)


def test_throw_in_is_stopped_then_resumed_for_45_s_inside_playing(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(set_play_stop_s=5.0))
    kick_off(d)
    t_out = round(d.t + 0.1, 6)
    world.ball.x_m, world.ball.y_m = 2.0, 4.6
    d.run_until(t_out, {t_out: [BallOut(t_out, "touch", 2.0, 4.6, BLUE1)]})
    assert not d.ref.delayed  # the set play ends the delay early
    assert view(d.last) == ("PLAYING", 1, "THROW_IN", 2) and d.last.secondary_time == 45
    assert entries(d.bb_red) == ("PLAY", "FREE_KICK", "STOP", True, "THROW_IN", True, True)
    assert entries(d.bb_blue) == ("PLAY", "FREE_KICK", "STOP", True, "THROW_IN", False, False)
    assert (world.ball.x_m, world.ball.y_m) == (2.0, 4.5 - world.field.ball_radius_m)
    clock = d.last.secs_remaining
    d.run_until(t_out + 4.9)  # stopped: the game clock and the set play's clock stand still
    assert view(d.last) == ("PLAYING", 1, "THROW_IN", 2)
    assert d.last.secs_remaining == clock and d.last.secondary_time == 45
    d.run_until(t_out + 5.0)  # the referee resumes
    assert view(d.last) == ("PLAYING", 0, "THROW_IN", 2) and d.last.secondary_time == 45
    assert entries(d.bb_red) == ("PLAY", "FREE_KICK", "GET_READY", False, "THROW_IN", True, True)
    d.run_until(t_out + 15.0)
    assert d.last.secondary_time == 35 and d.last.secs_remaining < clock
    t_kick = round(d.t + 0.1, 6)
    d.run_until(t_kick, {t_kick: [BallTouched(t_kick, RED2)]})  # the kick is taken: ball free
    assert view(d.last) == ("PLAYING", 0, "NONE", KICKING_TEAM_NONE)
    assert entries(d.bb_red) == ("PLAY", "NONE", "NONE", False, "NONE", False, False)


def test_set_play_ends_after_45_s_and_opponents_in_the_keep_away_zone_are_penalised(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(set_play_stop_s=2.0, keep_away_grace_s=10.0))
    kick_off(d)
    t0 = d.t  # the free kick starts now, at the referee's last step
    assert d.ref.award_free_kick(Team.RED, (-2.0, -2.0), direct=False)
    world.robots[BLUE2].pose = Pose2D(-2.5, -2.0, 0.0)  # 0.5 m from the ball
    d.run_until(t0 + 2.0)
    assert view(d.last) == ("PLAYING", 0, "INDIRECT_FREE_KICK", 2)
    d.run_until(t0 + 11.9)
    assert not d.ref.is_penalized(BLUE2)
    d.run_until(t0 + 12.1)
    assert d.ref.penalty_name(BLUE2) == "ILLEGAL_POSITIONING"
    assert d.bb_blue["gc_is_under_penalty"] and d.bb_blue["gc_penalty_name"] == "ILLEGAL_POSITIONING"
    d.run_until(t0 + 47.1)
    assert view(d.last) == ("PLAYING", 0, "NONE", KICKING_TEAM_NONE)
    assert [r.detail for r in d.ref.history if r.kind == "set_play_end"] == ["INDIRECT_FREEKICK time"]


def test_penalty_kick_through_ready_and_set(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(delay_after_playing_s=0.0))
    kick_off(d)
    assert d.ref.award_penalty_kick(Team.BLUE)
    f = world.field
    assert (world.ball.x_m, world.ball.y_m) == (f.half_length_m - f.penalty_mark_distance_m, 0.0)
    d.run_until(d.t + 0.1)
    assert view(d.last) == ("READY", 0, "PENALTY_KICK", 1)
    assert entries(d.bb_blue)[:2] == ("READY", "FREE_KICK")
    d.run_until(d.t + 1.0)
    assert view(d.last) == ("SET", 0, "PENALTY_KICK", 1)
    d.run_until(d.ref._phase_start_s + 2.0)
    assert view(d.last) == ("PLAYING", 0, "PENALTY_KICK", 1) and d.last.secondary_time == 60
    world.ball.x_m -= 0.5  # the kick
    d.run_until(d.t + 0.1)
    assert view(d.last) == ("PLAYING", 0, "NONE", KICKING_TEAM_NONE)


def test_penalties_durations_increments_return_point_and_codes(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(set_play_stop_s=5.0, game_stuck_s=0.0))  # the fake ball never moves
    kick_off(d)
    t0 = d.t
    assert d.ref.penalize(BLUE1, "PICK_UP")  # incremental: 30 s
    assert d.ref.penalize(BLUE2, PenaltyV20.PUSHING)  # incremental, the team's second: 45 s
    assert d.ref.penalize(RED1, Penalty.PICKUP_OR_INCAPABLE)  # a v12 code of the inherited checks
    world.robots[RED2].fallen = False
    assert d.ref.penalize(RED2, "MOTION_IN_SET")  # 10 s, stays on the field
    d.run_until(t0 + 0.1)
    blue = d.last.team(1)
    red = d.last.team(2)
    assert (blue.players[0].penalty, blue.players[0].secs_till_unpenalised) == (PenaltyV20.PICK_UP, 30)
    assert (blue.players[1].penalty, blue.players[1].secs_till_unpenalised) == (PenaltyV20.PUSHING, 45)
    assert red.players[0].penalty == PenaltyV20.PICK_UP
    assert red.players[1].penalty == PenaltyV20.MOTION_IN_SET and not world.robots[RED2].removed
    assert blue.players[2].penalty == PenaltyV20.SUBSTITUTE
    assert world.robots[BLUE1].removed
    d.run_until(t0 + 10.0)
    assert not d.ref.is_penalized(RED2) and not world.robots[RED2].removed
    d.run_until(t0 + 30.0)
    assert not d.ref.is_penalized(BLUE1)
    pose = world.robots[BLUE1].pose  # back at the own touch line, level with the penalty mark
    f = world.field
    assert pose.x_m == pytest.approx(-f.half_length_m + f.penalty_mark_distance_m)
    assert abs(pose.y_m) == pytest.approx(f.half_width_m)
    assert pose.theta_rad == pytest.approx(-math.copysign(math.pi / 2, pose.y_m))
    assert d.ref.is_penalized(BLUE2)
    # a stop pauses the penalty clock
    t_out = round(d.t + 0.1, 6)
    d.run_until(t_out, {t_out: [BallOut(t_out, "touch", 1.0, -4.6, RED1)]})
    secs = d.last.team(1).players[1].secs_till_unpenalised
    d.run_until(t_out + 4.0)
    assert d.ref.stopped and d.last.team(1).players[1].secs_till_unpenalised == secs


def test_v19_packets_write_penalties_in_v19_codes(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(version=19))
    kick_off(d)
    d.ref.penalize(RED2, "LEAVING_THE_FIELD")
    d.ref.penalize(RED1, "MOTION_IN_STOP")  # no such code in v19: sent as PICK_UP
    d.run_until(d.t + 0.1)
    assert d.last.team(2).players[1].penalty == PenaltyV19.LEAVING_THE_FIELD
    assert d.last.team(2).players[0].penalty == PenaltyV19.PICK_UP
    assert d.bb_red["gc_penalty_name"] == "LEAVING_THE_FIELD" and d.bb_red["gc_is_under_penalty"]


def test_goal_restarts_with_the_conceding_team_kicking_off(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config())
    kick_off(d)
    t = round(d.t + 0.1, 6)
    d.run_until(t, {t: [BallKicked(t - 0.05, BLUE2), GoalScored(t, True, BLUE2)]})
    assert view(d.last) == ("READY", 0, "NONE", 2) and d.last.team(1).score == 1
    assert d.bb_blue["gc_score"] == 1 and d.bb_red["gc_opponent_score"] == 1


def test_make_referee_and_match_config_choose_the_version(fake_world) -> None:
    world = fake_world.with_teams(2)
    assert type(make_referee(world, RefereeConfig(), 12)) is Referee
    ref = make_referee(world, RefereeConfig(removal_penalty_s=7.0, ready_s=30.0), 19)
    assert isinstance(ref, HslReferee) and ref.config.version == 19 and ref.config.ready_s == 30.0
    assert len(ref.packet_bytes()) == 198
    with pytest.raises(ValueError):
        make_referee(world, RefereeConfig(), 13)
    with pytest.raises(ValueError):
        MatchConfig(gc_version=18)
    assert MatchConfig().gc_version == 20


def restart(d: Driver) -> None:
    """From READY after a goal (or a dropped ball): SET once placed, then PLAYING (delayed)."""
    assert d.ref.state == GameState.READY
    d.run_until(d.t + 1.5)
    assert d.ref.state == GameState.SET
    d.run_until(d.ref._phase_start_s + 2.05)
    assert d.ref.state == GameState.PLAYING


def goal(d: Driver, by) -> None:
    """``by`` scores in the goal its team attacks, one step from now."""
    t = round(d.t + 0.1, 6)
    positive = d.ref.attacks_positive_x(by.team)
    d.run_until(t, {t: [BallKicked(t - 0.05, by), GoalScored(t, positive, by)]})


def test_team_message_budget_counts_in_ready_set_playing_and_voids_goals_when_over(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(message_budget=100))
    d.ref.count_team_messages(Team.BLUE, 50)  # INITIAL: not counted
    d.run_until(0.5)
    assert d.last.team(1).message_budget == 100 and d.ref.messages_counted[Team.BLUE] == 0
    d.run_until(1.5)  # READY
    d.ref.count_team_messages(Team.BLUE, 30)
    d.ref.count_team_messages(Team.RED, 100)  # exactly the budget: still legal
    d.run_until(1.6)
    assert (d.last.team(1).message_budget, d.last.team(2).message_budget) == (70, 0)
    d.run_until(3.0)  # SET, then PLAYING
    d.run_until(d.ref._phase_start_s + 2.05)
    goal(d, BLUE2)
    restart(d)
    goal(d, RED2)
    assert d.ref.scores == {Team.BLUE: 1, Team.RED: 1}
    d.ref.count_team_messages(Team.RED, 1)  # one message with no budget left: illegal
    d.run_until(d.t + 0.1)
    assert d.ref.illegal_communication == {Team.BLUE: False, Team.RED: True}
    assert d.ref.scores[Team.RED] == 0 and d.last.team(2).score == 0 and d.last.team(2).message_budget == 0
    assert d.bb_red["gc_score"] == 0
    restart(d)  # blue's kick-off after red's goal
    goal(d, RED2)  # void: no score, the other team kicks off
    assert d.ref.scores == {Team.BLUE: 1, Team.RED: 0}
    assert view(d.last) == ("READY", 0, "NONE", 1)
    assert [r.kind for r in d.ref.history if r.kind in ("goal", "goal_void", "illegal_communication")] == [
        "goal", "goal", "illegal_communication", "goal_void"]
    assert [g.team for g in d.ref.goals] == [Team.BLUE, Team.RED]


def test_mercy_rule_ends_the_game_at_the_goal_difference(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(mercy_goal_difference=3))
    kick_off(d)
    for k in range(3):
        if k:
            restart(d)
        goal(d, BLUE2)
        assert d.ref.scores[Team.BLUE] == k + 1
        if k < 2:
            assert not d.ref.finished and d.ref.state == GameState.READY
    assert d.ref.finished and view(d.last)[0] == "FINISHED"
    assert d.bb_blue["gc_game_state"] == "END"
    assert [r.detail for r in d.ref.history if r.kind == "game_over"] == ["mercy rule 3:0"]
    d.run_until(d.t + 20.0)  # no second half
    assert d.ref.finished and d.ref.state == GameState.FINISHED and d.ref.first_half


def test_mercy_rule_default_is_ten_and_counts_the_difference(fake_world) -> None:
    assert HslRefereeConfig().mercy_goal_difference == 10
    world = fake_world.with_teams(2)
    d = Driver(world, config(mercy_goal_difference=2))
    kick_off(d)
    goal(d, BLUE2)
    restart(d)
    goal(d, RED2)  # 1:1
    restart(d)
    goal(d, BLUE2)  # 2:1: a difference of one
    assert not d.ref.finished


def test_one_timeout_per_team_sent_as_initial_with_game_phase_timeout(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(timeout_s=20.0))
    d.run_until(1.5)  # READY, blue to kick off
    assert view(d.last) == ("READY", 0, "NONE", 1)
    assert d.ref.call_timeout(Team.BLUE)
    d.run_until(d.t + 0.1)
    p = d.last
    assert p.game_phase == GamePhase.TIMEOUT and view(p) == ("INITIAL", 0, "NONE", 2)  # red kicks off next
    assert p.secondary_time == 20
    assert d.bb_blue["gc_game_state"] == "INITIAL" and d.bb_blue["gc_game_sub_state_type"] == "TIMEOUT"
    assert not d.ref.call_timeout(Team.RED)  # not during a timeout
    clock = p.secs_remaining
    d.ref.count_team_messages(Team.BLUE, 5)  # not counted in a timeout
    d.run_until(d.t + 10.0)
    assert d.last.secondary_time == 10 and d.last.secs_remaining == clock
    assert d.ref.messages_counted[Team.BLUE] == 0
    d.run_until(d.t + 10.0)  # over: READY, red's kick-off
    assert d.last.game_phase == GamePhase.NORMAL and view(d.last) == ("READY", 0, "NONE", 2)
    assert d.bb_blue["gc_game_sub_state_type"] == "NONE"
    assert not d.ref.call_timeout(Team.BLUE)  # blue's only timeout is used
    assert d.ref.timeouts_left == {Team.BLUE: 0, Team.RED: 1}
    d.run_until(d.t + 3.0)  # SET, then PLAYING
    d.run_until(d.ref._phase_start_s + 2.05)
    assert d.ref.state == GameState.PLAYING
    assert not d.ref.call_timeout(Team.RED)  # not while playing
    goal(d, RED2)
    assert d.ref.call_timeout(Team.RED)  # after a goal, in READY
    assert [r.kind for r in d.ref.history if r.kind.startswith("timeout")] == ["timeout", "timeout_end", "timeout"]


def test_a_stuck_game_restarts_with_a_dropped_ball(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(game_stuck_s=30.0))
    kick_off(d)
    t0 = d.ref._phase_start_s  # the whistle: the ball is in play from here
    t_touch = round(t0 + 20.0, 6)
    d.run_until(t_touch, {t_touch: [BallTouched(t_touch, RED1)]})  # a touch starts the clock again
    d.run_until(t_touch + 9.9)
    world.ball.x_m, world.ball.y_m = 1.0, 0.5  # the ball rolled: again
    d.run_until(t_touch + 39.9)
    assert d.ref.state == GameState.PLAYING
    d.run_until(t_touch + 40.1)  # 30 s unmoved and untouched: a kick-off for nobody
    assert view(d.last) == ("READY", 0, "NONE", KICKING_TEAM_NONE)
    assert (world.ball.x_m, world.ball.y_m) == (0.0, 0.0)
    assert [r.kind for r in d.ref.history if r.kind == "game_stuck"] == ["game_stuck"]
    assert not d.bb_blue["gc_is_kickoff_side"] and not d.bb_red["gc_is_kickoff_side"]
    restart(d)  # SET (both teams outside the centre circle), PLAYING: still nobody's
    assert d.last.kicking_team == KICKING_TEAM_NONE


def test_no_game_stuck_during_a_set_play(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, config(game_stuck_s=5.0, set_play_stop_s=2.0))
    kick_off(d)
    assert d.ref.award_free_kick(Team.RED, (-2.0, -2.0))
    d.run_until(d.t + 30.0)
    assert d.ref.state == GameState.PLAYING and d.last.set_play == SetPlay.DIRECT_FREE_KICK
