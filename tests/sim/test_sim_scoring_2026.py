"""Booster's 2026 trees (branch sandbox/support_2026_game_controller) score against a team that
stands still, under the laws checked all along. Our simulated referee still speaks HL v12: the
local free-kick phase then stops short of EXECUTE (the GameController ends the set play)."""
from __future__ import annotations

import pytest

from soccerbt.match import Match, MatchConfig

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

FIVE_MINUTES_S = 300.0


def test_boosters_2026_trees_score_against_a_team_that_stands_still(sim, shared_dir) -> None:
    tree = shared_dir / "booster" / "trees-2026" / "game.xml"
    match = Match(MatchConfig(seed=1, blue_tree=str(tree), idle_teams=("red",)))
    rules = [sim.nobody_walks_during_set(), sim.restart_after_goal_goes_to_the_conceding_team(),
             sim.kick_off_opponents_wait()]
    sim.play(match, FIVE_MINUTES_S, rules, until=lambda m: len(m.referee.goals) >= 1)
    result = match.result()
    assert result.trees["blue"] == str(tree)
    assert result.score["blue"] >= 1, f"{result.score} after {result.sim_s} s"
    assert not result.errors, result.errors
    assert all(r.node_exceptions == 0 for r in result.robots)
    sim.assert_rules(rules)
