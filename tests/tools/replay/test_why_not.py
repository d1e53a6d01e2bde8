"""The replay's "why not": a recorded keeper's reasons rule out the higher rules with their values.
A shot on a recorded match: before the save, the keeper's reason says why the shot rule did not
hold yet (the ticks it was seen in); the save's own reason says the shot rule held; `--find`
finds the save by its reason."""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from soccerbt.gamecontroller.protocol import GameState, SecondaryState
from soccerbt.log.reader import McapLog
from soccerbt.log.writer import make_recorder
from soccerbt.match import Match, MatchConfig
from soccerbt.nodes.soccer.soccerbt_keeper import SAVE_ENTER_TICKS
from soccerbt.tools.replay.search import resolve_nodes
from soccerbt.world.types import Team


def _open_play(match: Match) -> bool:
    return match.referee.state == GameState.PLAYING and match.referee.secondary_state == SecondaryState.NORMAL


@pytest.fixture(scope="module")
def shot_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1 v 1 (red a statue) where a shot rolls at blue's goal once the keeper stands in it."""
    out = tmp_path_factory.mktemp("why_not") / "shot.mcap"
    match = Match(MatchConfig(seed=4, team_size=1, idle_teams=("red",)))
    recorder = make_recorder(out, match)
    for _ in range(12000):
        if _open_play(match):
            break
        match.step()
    assert _open_play(match)
    match.run(12.0)  # the keeper walks into its goal
    sign = -1.0 if match.referee.attacks_positive_x(Team.BLUE) else 1.0
    goal_x = sign * match.field.half_length_m
    x0 = goal_x - sign * 5.0
    match.world.place_ball(x0, 1.0)
    match.run(3.0)
    dx, dy = goal_x - x0, -1.0
    d = math.hypot(dx, dy)
    match.world.set_ball_velocity(3.5 * dx / d, 3.5 * dy / d)
    match.run(2.0)
    recorder.finish(match.result())
    return out


def _keeper_reasons(log: McapLog) -> list[tuple[float, str]]:
    state = log.robot_state("blue1", 1)
    uid = resolve_nodes(state.tree, "GoalkeeperDecision")[0]["uid"]
    out = []
    for view in log.steps(robots=["blue1"]):
        tick = view.ticks.get("blue1")
        if tick is not None and uid in tick.reasons:
            out.append((view.truth.t_s, tick.reasons[uid]))
    return out


def test_a_recorded_save_says_why_the_shot_rule_held_and_before_why_not(shot_log: Path) -> None:
    reasons = _keeper_reasons(McapLog.open(shot_log))
    saves = [i for i, (_t, text) in enumerate(reasons) if "shot -> save: ball rolling" in text
             and text.endswith(": yes")]
    assert saves, "the keeper never decided to save the shot"
    first = saves[0]
    before = reasons[first - 1][1]
    # the tick before the save: the rule was evaluated and ruled out, with what it compared
    ruled_out = next(part for part in before.split("; ") if part.startswith("shot -> save: "))
    assert ruled_out.endswith(": no")
    assert ("consecutive ticks" in ruled_out or "vx " in ruled_out or "heads for y" in ruled_out
            or "stops before" in ruled_out)
    # and it went on to the next rule, down to the one that held
    assert before.endswith(("otherwise -> block", ": yes"))
    # the save's own reason: the higher rule (ball unknown) ruled out, the shot rule held with its values
    save = reasons[first][1]
    assert save.startswith("ball unknown -> find: no; shot -> save: ball rolling ") and "<= -1.00" in save


def test_find_finds_the_save_by_its_ruled_out_rule(shot_log: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "soccerbt", "replay", str(shot_log), "--find",
                          "blue1: GoalkeeperDecision.reason ~ 'shot -> save: a shot seen in'"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    # one range: the ticks where the shot was seen but not yet in SAVE_ENTER_TICKS ticks (1 of 3, 2 of 3)
    assert run.stderr.strip() == "1 range(s)"
    first, last = map(int, run.stdout.split("ticks ")[1].split("-"))
    assert last - first == SAVE_ENTER_TICKS - 2
