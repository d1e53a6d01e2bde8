"""Simulated matches against a team that stands still: our trees and Booster's trees score.

The standing team is a team of statues (no brain) at kick-off spots, its player 1 on its goal
line. The laws are checked all along (nobody walks during SET, the kick-off after each goal, and our
team waits at the statues' kick-offs).
A match stops once the goals asked for are in, so a strong tree makes the test short.
"""
from __future__ import annotations

import pytest

from soccerbt.match import Match, MatchConfig

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

FIVE_MINUTES_S = 300.0


def _play_against_statues(sim, config: MatchConfig, goals_needed: int):
    match = Match(config)
    rules = [sim.nobody_walks_during_set(), sim.restart_after_goal_goes_to_the_conceding_team(),
             sim.kick_off_opponents_wait()]
    sim.play(match, FIVE_MINUTES_S, rules, until=lambda m: len(m.referee.goals) >= goals_needed)
    return match, rules


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_our_trees_score_three_goals_in_five_minutes_against_a_team_that_stands_still(sim, seed: int) -> None:
    match, rules = _play_against_statues(sim, MatchConfig(seed=seed, idle_teams=("red",)), goals_needed=3)
    result = match.result()
    assert result.score["blue"] >= 3, f"seed {seed}: {result.score} after {result.sim_s} s; goals {result.goals}"
    assert result.score["red"] == 0
    # every goal is ours; one may go in off a statue (the referee books it as their own goal)
    assert all(g.team == "blue" and (not g.own_goal or g.scorer.startswith("red")) for g in result.goals)
    assert not result.errors, result.errors
    sim.assert_rules(rules)


def test_boosters_trees_load_unmodified_and_score_against_a_team_that_stands_still(sim, shared_dir) -> None:
    tree = shared_dir / "booster" / "trees" / "game.xml"
    config = MatchConfig(seed=4, blue_tree=str(tree), idle_teams=("red",))
    match, rules = _play_against_statues(sim, config, goals_needed=1)
    result = match.result()
    assert result.trees["blue"] == str(tree)
    assert result.score["blue"] >= 1, f"{result.score} after {result.sim_s} s"
    assert not result.errors, result.errors
    sim.assert_rules(rules)


def test_our_trees_score_under_the_hsl_referee_within_the_message_budget(sim) -> None:
    # the HSL GameController (v20): the delayed PLAYING after each kick-off, the team-message
    # budget counted (our robots send at the period that fits it for a whole game)
    match = Match(MatchConfig(seed=1, idle_teams=("red",), gc_version=20))
    sim.play(match, FIVE_MINUTES_S, [], until=lambda m: len(m.referee.goals) >= 3)
    result = match.result()
    assert result.score["blue"] >= 3, f"{result.score} after {result.sim_s} s; goals {result.goals}"
    assert not result.errors, result.errors
    assert not any(match.referee.illegal_communication.values())
    assert match.team_message_period_s == 0.45
