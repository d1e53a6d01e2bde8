"""Knock-out games on a fake world: extra time after a level game, the penalty shoot-out's
shots (taker, keeper, ball on the mark, SET, PLAYING, goal or miss), its packets (gamePhase,
penaltyShot, singleShots, substitutes, goalkeeper) and the GameController's rule for when it
ends."""
from __future__ import annotations

import pytest

from soccerbt.gamecontroller.adapter import GameControllerAdapter
from soccerbt.gamecontroller.hsl_knockout import EXTRA_TIME, REGULAR, SHOOT_OUT, KnockoutReferee, shoot_out_pose
from soccerbt.gamecontroller.hsl_protocol import GamePhase, HslControlData, PenaltyV19, PenaltyV20
from soccerbt.gamecontroller.hsl_referee import HslReferee, HslRefereeConfig
from soccerbt.gamecontroller.protocol import GameState, decode
from soccerbt.gamecontroller.referee_common import RefereeConfig
from soccerbt.gamecontroller.referee_factory import make_referee
from soccerbt.match import MatchConfig
from soccerbt.world.types import BallOut, GoalScored, RobotId, Team, from_team_frame

DT = 0.1
BLUE_NUMBER, RED_NUMBER = 1, 2


class Driver:
    """Steps a knock-out referee at DT; packets go through bytes and decode, and through blue2's
    adapter."""

    def __init__(self, world, **kw) -> None:
        base = dict(half_duration_s=4.0, initial_s=0.5, ready_s=1.0, set_s=0.5, half_time_break_s=1.0,
                    delay_after_playing_s=0.0, extra_half_s=2.0, shot_break_s=1.0, penalty_shot_s=6.0,
                    knockout=True, game_stuck_s=0.0)
        base.update(kw)
        self.world = world
        self.ref = make_referee(world, HslRefereeConfig(**base), base.get("version", 20))
        assert isinstance(self.ref, KnockoutReferee)
        self.step_no = 0
        self.packets: list[HslControlData] = []
        self.adapter = GameControllerAdapter(BLUE_NUMBER, 2)
        self.bb: dict = {}

    @property
    def t(self) -> float:
        return round(self.step_no * DT, 6)

    def step(self, events: list | None = None) -> None:
        self.step_no += 1
        self.world.t_s = self.t
        self.ref.step(self.t, events or [])
        p = decode(self.ref.packet_bytes())
        assert isinstance(p, HslControlData)
        self.packets.append(p)
        self.adapter.apply(p, self.t, self.bb)

    def run_until(self, done, limit_s: float = 200.0) -> None:
        while not done(self.ref):
            assert self.t < limit_s, f"not reached by t={self.t}"
            self.step()

    @property
    def last(self) -> HslControlData:
        return self.packets[-1]


def team_block(p: HslControlData, number: int):
    return next(t for t in p.teams if t.team_number == number)


def goal_for(d: Driver, team: Team) -> GoalScored:
    return GoalScored(d.t + DT, d.ref.attacks_positive_x(team), None)


def test_a_level_game_goes_to_two_extra_halves_then_to_the_shoot_out(fake_world) -> None:
    d = Driver(fake_world.with_teams(2))
    d.run_until(lambda r: r.state == GameState.PLAYING and not r.first_half)
    assert d.last.game_phase == GamePhase.NORMAL
    budget_before = dict(d.ref.message_budget)
    d.run_until(lambda r: r.period == EXTRA_TIME)
    assert [r.detail for r in d.ref.history if r.kind == "level"] == ["0:0: extra_time next"]
    assert d.ref.state == GameState.INITIAL and d.ref.first_half and not d.ref.finished
    d.step()
    p = d.last
    assert p.game_phase == GamePhase.EXTRA_TIME and p.first_half == 1 and p.secs_remaining == 2
    assert d.bb["gc_game_phase"] == "OVERTIME"
    # the first half's sides and kick-off again; 600 messages for each of the 2 x 2 s extra minutes
    assert d.ref.attacks_positive_x(Team.BLUE) and d.ref.kick_off_team is Team.BLUE
    extra = round(600 * 2 * 2.0 / 60.0)
    assert d.ref.message_budget == {team: n + extra for team, n in budget_before.items()}
    d.run_until(lambda r: r.state == GameState.PLAYING and not r.first_half)
    assert d.last.game_phase == GamePhase.EXTRA_TIME and d.ref.half_remaining_s == pytest.approx(2.0)
    d.run_until(lambda r: r.period == SHOOT_OUT)
    assert [r.detail for r in d.ref.history if r.kind == "level"][-1] == "0:0: shoot_out next"
    d.step()
    p = d.last
    assert p.game_phase == GamePhase.PENALTY_SHOOT_OUT and p.state == GameState.INITIAL
    assert d.bb["gc_game_phase"] == "PENALTYSHOOT"
    for number in (BLUE_NUMBER, RED_NUMBER):  # every robot a substitute, off the field
        assert all(player.penalty == PenaltyV20.SUBSTITUTE for player in team_block(p, number).players)
    assert all(robot.removed for robot in d.world.robots.values())
    assert p.kicking_team == BLUE_NUMBER


def test_a_winner_after_the_second_half_ends_the_game_without_extra_time(fake_world) -> None:
    d = Driver(fake_world.with_teams(2))
    d.run_until(lambda r: r.state == GameState.PLAYING and not r.first_half)
    d.step([goal_for(d, Team.RED)])
    assert d.ref.scores[Team.RED] == 1
    d.run_until(lambda r: r.finished)
    assert d.ref.period == REGULAR and d.ref.state == GameState.FINISHED
    assert [r.kind for r in d.ref.history].count("level") == 0


def test_no_extra_time_when_its_halves_are_zero(fake_world) -> None:
    d = Driver(fake_world.with_teams(2), extra_half_s=0.0)
    d.run_until(lambda r: r.period != REGULAR)
    assert d.ref.period == SHOOT_OUT


@pytest.mark.parametrize("version", [19, 20])
def test_a_shot_puts_taker_keeper_and_ball_in_place_and_scores(fake_world, version) -> None:
    d = Driver(fake_world.with_teams(3), version=version)
    d.ref.start_shoot_out()
    d.run_until(lambda r: r.state == GameState.SET)
    ref, world, field = d.ref, d.world, d.world.field
    blue2, red1 = RobotId(Team.BLUE, 2), RobotId(Team.RED, 1)
    assert (ref.shooter, ref.keeper) == (blue2, red1)  # the first field player against the goalkeeper
    assert world.robots[blue2].pose == from_team_frame(shoot_out_pose(field, True), True)
    assert world.robots[red1].pose == from_team_frame(shoot_out_pose(field, False), False)
    assert world.robots[red1].pose.x_m > 0.0  # every shot goes at the +x goal
    assert (world.ball.x_m, world.ball.y_m) == (field.half_length_m - field.penalty_mark_distance_m, 0.0)
    assert sorted(rid for rid, r in world.robots.items() if not r.removed) == [blue2, red1]
    d.step()
    p = d.last
    none, sub = (PenaltyV19.NONE, PenaltyV19.SUBSTITUTE) if version == 19 else (PenaltyV20.NONE,
                                                                                PenaltyV20.SUBSTITUTE)
    blue, red = team_block(p, BLUE_NUMBER), team_block(p, RED_NUMBER)
    assert [pl.penalty for pl in blue.players[:3]] == [sub, none, sub]
    assert [pl.penalty for pl in red.players[:3]] == [none, sub, sub]
    assert (blue.penalty_shot, red.penalty_shot, blue.goalkeeper, red.goalkeeper) == (1, 0, 0, 1)
    assert p.kicking_team == BLUE_NUMBER and p.state == GameState.SET and p.secs_remaining == 6
    assert d.bb["gc_is_kickoff_side"] and not d.bb["gc_is_under_penalty"]
    d.run_until(lambda r: r.state == GameState.PLAYING)
    d.step([GoalScored(d.t + DT, True, blue2)])
    assert ref.state == GameState.FINISHED and ref.scores == {Team.BLUE: 1, Team.RED: 0}
    d.step()
    blue = team_block(d.last, BLUE_NUMBER)
    assert (blue.score, blue.single_shots) == (1, 0b1)
    assert all(r.removed for r in world.robots.values())  # both off again between shots
    # the next shot: red kicks at the same (+x) goal, so the sides are swapped
    d.run_until(lambda r: r.state == GameState.SET)
    assert (ref.shooter, ref.keeper) == (RobotId(Team.RED, 2), RobotId(Team.BLUE, 1))
    assert ref.attacks_positive_x(Team.RED) and not ref.attacks_positive_x(Team.BLUE)
    d.step()
    assert d.last.kicking_team == RED_NUMBER and not d.bb["gc_is_kickoff_side"]
    assert team_block(d.last, BLUE_NUMBER).goalkeeper == 1


def play_shot(d: Driver, outcome: str) -> None:
    """One shot from SET to its end: "goal", "out" (over the goal line), "stopped" (played,
    then still) or "time"."""
    d.run_until(lambda r: r.state == GameState.PLAYING)
    team = d.ref.shot_team
    if outcome == "goal":
        d.step([GoalScored(d.t + DT, d.ref.attacks_positive_x(team), d.ref.shooter)])
    elif outcome == "out":
        d.step([BallOut(d.t + DT, "goal", d.world.field.half_length_m, 2.0, d.ref.shooter)])
    elif outcome == "stopped":
        d.world.ball.x_m += 1.0  # played, now still
        d.run_until(lambda r: r.state != GameState.PLAYING)
    else:
        d.run_until(lambda r: r.state != GameState.PLAYING)
    assert d.ref.state == GameState.FINISHED


def test_misses_by_ball_out_ball_stopped_and_time(fake_world) -> None:
    d = Driver(fake_world.with_teams(2))
    d.ref.start_shoot_out()
    for outcome in ("out", "stopped", "time"):
        start = d.t
        play_shot(d, outcome)
        last = [r for r in d.ref.history if r.kind == "shot_end"][-1]
        why = {"out": "ball out", "stopped": "ball stopped", "time": "time"}[outcome]
        assert last.detail == f"miss ({why}) 0:0"
        if outcome == "stopped":  # still for shot_still_s (1 s) after it was played
            playing = [r.t_s for r in d.ref.history if r.kind == "state" and r.detail == "PLAYING"][-1]
            assert last.t_s - playing == pytest.approx(1.0 + DT, abs=0.11)
        if outcome == "time":
            playing = [r.t_s for r in d.ref.history if r.kind == "state" and r.detail == "PLAYING"][-1]
            assert last.t_s - playing == pytest.approx(6.0, abs=0.11)
        assert d.t > start


def test_the_shoot_out_ends_when_one_team_cannot_catch_up(fake_world) -> None:
    d = Driver(fake_world.with_teams(2))
    d.ref.start_shoot_out()
    for outcome in ("goal", "out", "goal", "out"):  # blue, red, blue, red
        play_shot(d, outcome)
    d.run_until(lambda r: r.finished)
    assert d.ref.penalty_shots == {Team.BLUE: 2, Team.RED: 2}  # blue leads 2:0 with one red shot left
    assert d.ref.scores == {Team.BLUE: 2, Team.RED: 0} and d.ref.shot_masks == {Team.BLUE: 0b11, Team.RED: 0}
    assert d.ref.history[-1].kind == "game_over" and d.ref.history[-1].detail == "shoot-out 2:0"


def test_sudden_death_until_a_pair_of_shots_differs(fake_world) -> None:
    d = Driver(fake_world.with_teams(2))
    d.ref.start_shoot_out()
    # three each, level 1:1; sudden death: both score, then blue misses and red scores
    for outcome in ("goal", "out", "out", "goal", "time", "out", "goal", "goal", "out", "goal"):
        play_shot(d, outcome)
    d.run_until(lambda r: r.finished)
    assert d.ref.penalty_shots == {Team.BLUE: 5, Team.RED: 5}
    assert d.ref.scores == {Team.BLUE: 2, Team.RED: 3}
    assert d.ref.shot_masks == {Team.BLUE: 0b01001, Team.RED: 0b11010}
    assert d.ref.history[-1].detail == "shoot-out 2:3"


def test_level_after_every_sudden_death_shot_ends_drawn(fake_world) -> None:
    d = Driver(fake_world.with_teams(2), penalty_shots=1, sudden_death_shots=1)
    d.ref.start_shoot_out()
    for outcome in ("out", "out", "goal", "goal"):
        play_shot(d, outcome)
    d.run_until(lambda r: r.finished)
    assert d.ref.history[-1].detail == "shoot-out level 1:1"
    assert d.ref.penalty_shots == {Team.BLUE: 2, Team.RED: 2}


def test_takers_go_in_number_order_with_the_goalkeeper_last(fake_world) -> None:
    d = Driver(fake_world.with_teams(3), penalty_shots=3, sudden_death_shots=3)
    d.ref.start_shoot_out()
    takers = []
    for _ in range(8):
        d.run_until(lambda r: r.state == GameState.SET)
        takers.append(str(d.ref.shooter))
        play_shot(d, "out")
    assert takers == ["blue2", "red2", "blue3", "red3", "blue1", "red1", "blue2", "red2"]


def test_knockout_needs_the_hsl_referee(fake_world) -> None:
    world = fake_world.with_teams(1)
    with pytest.raises(ValueError, match="HSL referee"):
        make_referee(world, RefereeConfig(), 12, knockout=True)
    with pytest.raises(ValueError, match="HSL referee"):
        MatchConfig(knockout=True, gc_version=12)
    assert type(make_referee(world, RefereeConfig(), 20)) is HslReferee
    assert isinstance(make_referee(world, RefereeConfig(), 19, knockout=True), KnockoutReferee)
    with pytest.raises(ValueError, match="penalty_shots"):
        HslRefereeConfig(penalty_shots=0)


def test_the_cli_refuses_knockout_with_the_hl_referee(capsys) -> None:
    from soccerbt.__main__ import main

    with pytest.raises(SystemExit) as exc:
        main(["run", "--headless", "--seconds", "1", "--knockout", "--gc-version", "12"])
    assert exc.value.code == 2
    assert "--knockout" in capsys.readouterr().err


def test_the_team_message_period_fits_the_budget_through_extra_time() -> None:
    from soccerbt.match import Match

    referee = HslRefereeConfig(players_per_team=3, message_budget=6000)
    regular = Match(MatchConfig(referee=referee, particles=20))
    knockout = Match(MatchConfig(referee=referee, knockout=True, particles=20))
    assert knockout.referee.config.extra_half_s == 300.0  # half a half
    assert regular.team_message_period_s == 0.9  # 3 robots x 1200 s x 1.5 / 6000
    # 3 robots x (1200 + 600) s x 1.5 / (6000 + 600 a minute for 10 extra minutes)
    assert knockout.team_message_period_s == 0.7
    knockout.referee.start_shoot_out()
    knockout.referee.state = GameState.PLAYING
    before = knockout.referee.messages_counted[Team.BLUE]
    knockout.referee.count_team_messages(Team.BLUE, 5)  # the shoot-out counts none
    assert knockout.referee.messages_counted[Team.BLUE] == before


def test_no_timeout_in_the_shoot_out_and_void_shots_of_illegal_communication(fake_world) -> None:
    d = Driver(fake_world.with_teams(2))
    d.ref.start_shoot_out()
    assert not d.ref.call_timeout(Team.BLUE)
    d.ref.illegal_communication[Team.BLUE] = True
    play_shot(d, "goal")
    assert d.ref.scores[Team.BLUE] == 0 and d.ref.shot_masks[Team.BLUE] == 0b1
