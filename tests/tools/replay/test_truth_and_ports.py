"""The truth beside the estimates and every port's value in effect, in the text tools (issue 40):
``--tree`` and ``--json`` show where the ball and the robot really were in the robot's team
frame with how far its estimates are off, and each node's ports with the value in effect and
where it came from (the XML, the model's default, a blackboard entry); ``--find`` reads
``truth.*``; a robot's own log says it has no truth."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from soccerbt.log import format as lf
from soccerbt.log.port_values import ports_in_effect
from soccerbt.log.reader import McapLog
from soccerbt.log.writer import make_recorder
from soccerbt.match import Match, MatchConfig
from soccerbt.tools.replay import tree_tools as tt
from soccerbt.tools.replay.truth import TruthFrames, robot_truth

KEEPER_TREE = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <Script code="target := 1.5"/>
      <GoalkeeperDecision clear_distance="2.0" decision_in="{decision}" decision_out="{decision}"/>
      <SubTree ID="Inner" target="{ball_distance_m}"/>
      <SubTree ID="Inner" name="auto" _autoremap="true"/>
      <GoalkeeperPosition/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Inner">
    <Sequence>
      <Script code="local := 1"/>
      <HeadControl close_ball="{target}"/>
    </Sequence>
  </BehaviorTree>
</root>
"""


@pytest.fixture(scope="module")
def log_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("truth")
    tree = tmp / "keeper.xml"
    tree.write_text(KEEPER_TREE)
    match = Match(MatchConfig(seed=3, duration_s=10.0, team_size=1, blue_tree=str(tree), idle_teams=("red",)))
    out = tmp / "truth.mcap"
    recorder = make_recorder(out, match)
    match.run(10.0)
    recorder.finish(match.result())
    return out


def test_the_log_is_format_3_with_defaults_and_keys(log_path: Path) -> None:
    log = McapLog.open(log_path)
    assert log.format_version == lf.FORMAT_VERSION == 3
    rows = {row["path"]: row for row in log.robot_state("blue1", 10).tree["nodes"]}
    keeper = next(row for row in rows.values() if row["name"] == "GoalkeeperDecision")
    assert keeper["ports"] == {"clear_distance": "2.0", "decision_in": "{decision}", "decision_out": "{decision}"}
    assert keeper["defaults"] == {"save_speed": "1.000000"}
    assert keeper["keys"] == {"decision_in": "decision", "decision_out": "decision"}
    heads = [row for row in rows.values() if row["name"] == "HeadControl"]
    # remapped to the root's ball_distance_m in the first instance; autoremapped (target: the root's own) in the second
    assert [row["keys"] for row in heads] == [{"close_ball": "ball_distance_m"}, {"close_ball": "target"}]


def test_ports_in_effect_say_where_each_value_came_from(log_path: Path) -> None:
    log = McapLog.open(log_path)
    state = log.robot_state("blue1", 300)
    keeper = next(row for row in state.tree["nodes"] if row["name"] == "GoalkeeperDecision")
    ports = {p.name: p for p in ports_in_effect(keeper, state.blackboard)}
    assert (ports["clear_distance"].value, ports["clear_distance"].source) == ("2.0", "xml")
    assert (ports["save_speed"].value, ports["save_speed"].source, ports["save_speed"].from_default) == \
        ("1.000000", "default", True)
    decision = state.blackboard["decision"][0]
    assert (ports["decision_in"].value, ports["decision_in"].source, ports["decision_in"].key) == \
        (decision, "blackboard", "decision")
    assert ports["save_speed"].text() == "save_speed=1 (default)"
    assert ports["decision_in"].text() == f"decision_in={{decision}} = {decision}"
    # a format-2 row: the XML's ports only, a pointer taken as the root key it names
    old = {k: v for k, v in keeper.items() if k not in ("defaults", "keys")}
    assert [p.name for p in ports_in_effect(old, state.blackboard)] == ["clear_distance", "decision_in", "decision_out"]


def test_tree_and_json_show_the_truth_beside_the_estimate(log_path: Path) -> None:
    log = McapLog.open(log_path)
    step = 350
    state = log.robot_state("blue1", step)
    truth = robot_truth(log, "blue1", step, state)
    view = log.step_view(step)
    sign = 1.0 if TruthFrames(log).attacks_positive_x("blue1", step) else -1.0
    k = log.robots.index("blue1")
    assert truth.pose[:2] == pytest.approx((sign * view.truth.robots[k][0], sign * view.truth.robots[k][1]))
    assert truth.ball_xy_m == pytest.approx((sign * view.truth.ball[0], sign * view.truth.ball[1]))
    est = state.blackboard["robot_pose_field"][0]
    assert truth.pose_error_m == pytest.approx(math.hypot(est[0] - truth.pose[0], est[1] - truth.pose[1]))
    run = subprocess.run([sys.executable, "-m", "soccerbt", "replay", str(log_path), "--robot", "blue1", "--at",
                          f"{step * log.dt_s:.2f}", "--tree", "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["truth"] == truth.as_json() and out["truth"]["frame"] == "team"
    assert out["truth"]["robot"]["x"] == pytest.approx(truth.pose[0], abs=1e-3)
    keeper = next(node for node in out["nodes"] if node["name"] == "GoalkeeperDecision")
    assert {"name": "save_speed", "value": "1.000000", "source": "default", "written": "1.000000", "key": None,
            "set": True, "default": True} in keeper["ports"]
    lines = tt.tree_lines(state, step * log.dt_s, truth)
    assert lines[1].startswith(f"truth: ball ({truth.ball_xy_m[0]:.2f}, {truth.ball_xy_m[1]:.2f})")
    assert lines[2].startswith(f"truth: blue1 at ({truth.pose[0]:.2f}, {truth.pose[1]:.2f}") and "m off" in lines[2]
    assert any(line.strip().startswith("ports: clear_distance=2.0, decision_in={decision} = ") and
               "save_speed=1 (default)" in line for line in lines)


def test_find_reads_the_truth(log_path: Path) -> None:
    log = McapLog.open(log_path)
    frames = TruthFrames(log)
    xs = []
    for view in log.steps(robots=["blue1"]):
        sign = 1.0 if frames.attacks_positive_x("blue1", view.step) else -1.0
        xs.append(sign * view.truth.robots[0][0])
    middle = (min(xs) + max(xs)) / 2.0  # the keeper walks to its goal: steps on either side
    expected = [x < middle for x in xs]
    ranges = tt.find_ranges(log, f"blue1: truth.x < {middle!r}")
    got = [False] * len(expected)
    for _t0, _t1, k0, k1 in ranges:
        for k in range(k0, k1 + 1):
            got[k - 1] = True
    assert got == expected and any(expected) and not all(expected)


class _RobotLog:
    """A robot's own log as the truth tools see it: its header says its truth is its estimate."""

    header = {"truth": "estimate", "blue_attacks_positive_x_first_half": True}
    events: list = []
    robots = ["blue1"]


def test_a_robots_own_log_says_it_has_no_truth(log_path: Path) -> None:
    frames = TruthFrames(_RobotLog())  # type: ignore[arg-type]
    assert not frames.available and "holds no truth" in frames.note("blue1")
    state = McapLog.open(log_path).robot_state("blue1", 10)
    note = frames.note("blue1")
    out = tt.tree_json(state, 0.1, note)
    assert out["truth"] is None and out["truth_note"] == note
    assert tt.tree_lines(state, 0.1, note)[1] == f"truth: none ({note})"


def test_the_node_panel_shows_every_port_in_effect(log_path: Path) -> None:
    import os  # noqa: I001 - the dummy video driver before pygame
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from soccerbt.tools.viewer.tree_panel import TreePanel

    pygame.init()
    state = McapLog.open(log_path).robot_state("blue1", 300)
    keeper = next(row for row in state.tree["nodes"] if row["name"] == "GoalkeeperDecision")
    panel = TreePanel()
    panel.selected = keeper["uid"]
    drawn: list[tuple[str, tuple[int, int, int]]] = []
    blit = panel._blit_text

    def capture(surface, text, colour, x, y):  # noqa: ANN001, ANN202
        drawn.append((text, colour))
        return blit(surface, text, colour, x, y)

    panel._blit_text = capture  # type: ignore[method-assign]
    surface = pygame.Surface((480, 900))
    panel.draw(surface, surface.get_rect(), state)
    texts = [text.strip() for text, _c in drawn]
    decision = state.blackboard["decision"][0]
    assert "clear_distance=2.0" in texts and "save_speed=1 (default)" in texts
    assert f"decision_in={{decision}} = {decision}" in texts
