"""Simulated matches that check the laws of the game at every step (validation functions).

Each test plays a seeded match with our own trees, provokes a situation (a goal, a penalty, a
ball out) through the simulator or the referee, and checks rules over the truth: nobody walks
during SET, everyone is in its own half when SET starts, the kicking-off team's opponents wait,
a penalised robot leaves and comes back, free-kick distances, the kick-off after a goal. The
referee is the default (HSL, v20) unless a test names the HL v12 one.
"""
from __future__ import annotations

import math

import pytest

from soccerbt.gamecontroller.protocol import GameState, SecondaryState, SubState
from soccerbt.gamecontroller.referee_common import RefereeConfig
from soccerbt.match import Match, MatchConfig
from soccerbt.world.types import RobotId, Team

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

# The referee is set to leave wrong positions alone ("ignore"), so that the rules test what the
# robots do, not what the referee corrects.
STRICT_REFEREE = RefereeConfig(players_per_team=3, illegal_ready_position="ignore",
                               illegal_set_play_position="ignore", penalize_leaving_field=False)


def playing(match: Match) -> bool:
    ref = match.referee
    return ref.state == GameState.PLAYING and ref.secondary_state == SecondaryState.NORMAL


def test_kick_off_set_and_the_restart_after_a_goal(sim) -> None:
    match = Match(MatchConfig(seed=11, referee=STRICT_REFEREE))
    rules = [sim.nobody_walks_during_set(), sim.everyone_in_own_half_when_set_starts(),
             sim.kick_off_opponents_wait(), sim.restart_after_goal_goes_to_the_conceding_team()]
    # the first kick-off is blue's: play it until the kick-off wait is over
    sim.play(match, 60.0, rules, until=playing)
    assert playing(match) and match.referee.kick_off_team is Team.BLUE
    sim.play(match, 12.0, rules, until=lambda m: not m.referee.kick_off_pending)
    assert not match.referee.kick_off_pending
    # a goal for blue (the ball rolls into the +x goal): red must kick off next
    hx = match.field.half_length_m
    match.world.place_ball(hx - 0.4, 0.7)
    match.world.set_ball_velocity(3.0, 0.0)
    sim.play(match, 2.0, rules, until=lambda m: len(m.referee.goals) == 1)
    assert match.referee.scores[Team.BLUE] == 1
    red_knows = sim.eventually("red knows it kicks off", lambda m: all(
        a.blackboard["gc_is_kickoff_side"] for rid, a in m.agents.items() if rid.team is Team.RED)
        and not any(a.blackboard["gc_is_kickoff_side"] for rid, a in m.agents.items() if rid.team is Team.BLUE))
    rules.append(red_knows)
    sim.play(match, 60.0, rules, until=playing)
    assert playing(match) and match.referee.kick_off_team is Team.RED
    sim.play(match, 11.0, rules, until=lambda m: not m.referee.kick_off_pending)
    sim.assert_rules(rules)
    assert [r.detail for r in match.referee.history if r.kind == "kick_off"] == ["blue", "red"]


@pytest.mark.parametrize("gc_version, meaning, penalty_s", [(12, "PICKUP_OR_INCAPABLE", 10.0), (20, "PICK_UP", 30.0)])
def test_a_penalised_robot_leaves_and_comes_back(sim, gc_version, meaning, penalty_s) -> None:
    """HL: 10 s; HSL: a pick-up is 30 s of penalty clock, which stands still while play is stopped."""
    match = Match(MatchConfig(seed=12, idle_teams=("red",), gc_version=gc_version))
    rid = RobotId(Team.BLUE, 2)
    sim.play(match, 60.0, until=playing)
    sim.play(match, 3.0)
    assert match.referee.penalize(rid)
    robot = match.world.robots[rid]
    walked_at_removal = robot.distance_walked_m
    agent = match.agents[rid]
    hy = match.field.half_width_m
    gone = sim.eventually("the robot is off the field and knows it is penalised",
                          lambda m: robot.removed and agent.blackboard["gc_is_under_penalty"])
    stays_out = sim.always("no commands reach a picked-up robot", lambda m: None if not robot.removed else (
        robot.distance_walked_m == walked_at_removal or f"walked {robot.distance_walked_m - walked_at_removal:.2f} m"))
    back = sim.eventually("the robot is back at its touch line, unpenalised",
                          lambda m: not robot.removed and abs(abs(robot.y_m) - hy) < 0.05
                          and not agent.blackboard["gc_is_under_penalty"])
    rules = [gone, stays_out, back]
    sim.play(match, penalty_s + 15.0, rules, until=lambda m: back.ok)
    assert back.ok
    plays_again = sim.eventually("the robot walks back into the field", lambda m: not robot.removed
                                 and abs(robot.y_m) < hy - 1.0 and robot.distance_walked_m > walked_at_removal + 1.0)
    rules.append(plays_again)
    sim.play(match, 20.0, rules, until=lambda m: plays_again.ok)
    sim.assert_rules(rules)
    penalties = [r for r in match.referee.history if r.kind == "penalty"]
    assert [(r.robot, r.detail) for r in penalties] == [(rid, meaning)]
    unpenalised = [r for r in match.referee.history if r.kind == "unpenalised"]
    assert len(unpenalised) == 1
    served_s = unpenalised[0].t_s - penalties[0].t_s
    assert penalty_s - 0.02 <= served_s < penalty_s + 10.0
    if gc_version == 12:  # the HL penalty clock never stops
        assert math.isclose(served_s, penalty_s, abs_tol=0.02)


def test_opponents_keep_their_distance_at_a_throw_in(sim) -> None:
    """The HL v12 throw-in (GET_READY, SET, EXECUTE); the HSL one is in test_sim_hsl.py."""
    match = Match(MatchConfig(seed=13, referee=STRICT_REFEREE, gc_version=12))
    rules = [sim.nobody_walks_during_set(), sim.opponents_keep_free_kick_distance()]
    sim.play(match, 60.0, rules, until=playing)
    sim.play(match, 12.0, rules, until=lambda m: not m.referee.kick_off_pending)
    # the ball leaves over the left touch line in red's half, untouched: red throws in
    hy = match.field.half_width_m
    match.world.place_ball(1.5, hy - 0.2)
    match.world.set_ball_velocity(0.0, 2.0)
    sim.play(match, 2.0, rules, until=lambda m: m.referee.secondary_state != SecondaryState.NORMAL)
    ref = match.referee
    assert ref.secondary_state == SecondaryState.THROW_IN and ref.set_play_team is Team.RED
    reached_set = sim.eventually("the throw-in reaches its SET", lambda m: m.referee.sub_state == SubState.SET
                                 and m.referee.secondary_state != SecondaryState.NORMAL)
    rules.append(reached_set)
    sim.play(match, 25.0, rules, until=lambda m: m.referee.secondary_state == SecondaryState.NORMAL)
    assert ref.secondary_state == SecondaryState.NORMAL
    sim.assert_rules(rules)
    assert not [r for r in ref.history if r.kind == "penalty"]
