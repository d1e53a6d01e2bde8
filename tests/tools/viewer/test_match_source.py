"""The viewer on a real match: scenes from truth and beliefs, the active branch, click-to-go, PNGs."""
from __future__ import annotations

import math

import pygame
import pytest

from soccerbt.match import Match, MatchConfig
from soccerbt.tools.viewer.match_source import MatchSceneSource
from soccerbt.tools.viewer.render import BALL, SELECTED
from soccerbt.tools.viewer.viewer import Viewer, save_match_screenshot
from soccerbt.world.types import Team


@pytest.fixture(scope="module")
def source() -> MatchSceneSource:
    src = MatchSceneSource(Match(MatchConfig(seed=3, particles=100)))
    for _ in range(50):
        src.step()
    return src


def test_scene_holds_every_robot_truth_and_beliefs(source: MatchSceneSource) -> None:
    scene = source.scene("blue1")
    assert sorted(r.key for r in scene.robots) == ["blue1", "blue2", "blue3", "red1", "red2", "red3"]
    world = source.match.world
    assert scene.ball == (world.ball.x_m, world.ball.y_m)
    for robot in scene.robots:
        truth = next(t for rid, t in world.robots.items() if str(rid) == robot.key)
        assert robot.pose == truth.pose
        assert robot.estimate is not None and robot.particles is not None
        assert robot.particles.shape == (100, 3)
        assert robot.role in ("striker", "goal_keeper", "supporter")
    assert scene.banner.state in ("INITIAL", "READY")
    assert scene.t_s == pytest.approx(0.5)


def test_estimates_are_in_the_world_frame_for_both_teams(source: MatchSceneSource) -> None:
    referee = source.match.referee
    for robot in source.scene(None).robots:
        agent = source.match.agent(robot.key)
        team_frame = agent.pose_estimate()
        sign = 1.0 if referee.attacks_positive_x(robot.team) else -1.0
        assert robot.estimate.x_m == pytest.approx(sign * team_frame.x_m)
        assert robot.estimate.y_m == pytest.approx(sign * team_frame.y_m)
        # particle mean follows the same mirror
        assert float(robot.particles[:, 0].mean()) * sign == pytest.approx(
            float(agent.context.localizer.particles()[:, 0].mean()), abs=1e-9)


def test_selected_robot_lists_its_active_branch(source: MatchSceneSource) -> None:
    lines = source.scene("red2").tree_lines
    assert lines, "the selected robot's tree is listed"
    assert lines[0].depth == 0
    assert {line.status for line in lines} <= {"SUCCESS", "FAILURE", "RUNNING", "SKIPPED"}
    assert lines[0].status == str(source.match.agent("red2").last_status)
    # depths grow one level at a time, as in a tree listing
    assert all(b.depth <= a.depth + 1 for a, b in zip(lines, lines[1:], strict=False))
    assert source.scene(None).tree_lines == []


def test_blackboard_changes_are_reported(source: MatchSceneSource) -> None:
    source.scene("blue2")
    source.match.agent("blue2").blackboard["decision"] = "viewer-test"
    changes = dict(source.scene("blue2").blackboard_changes)
    assert changes.get("decision") == "viewer-test"


def test_click_to_go_walks_the_robot_toward_the_target() -> None:
    src = MatchSceneSource(Match(MatchConfig(seed=5, particles=100)))
    agent = src.match.agent("blue3")
    start = src.match.world.robots[agent.robot].pose
    target = (start.x_m + 1.5 * (1 if start.x_m < 0 else -1), start.y_m * 0.5)
    src.send_robot_to("blue3", *target)
    for _ in range(300):
        src.step()
    end = src.match.world.robots[agent.robot].pose
    before = math.dist((start.x_m, start.y_m), target)
    after = math.dist((end.x_m, end.y_m), target)
    assert after < before - 0.5


def test_dragging_the_ball_moves_the_true_ball(source: MatchSceneSource) -> None:
    source.place_ball(2.0, -1.0)
    assert (source.match.world.ball.x_m, source.match.world.ball.y_m) == pytest.approx((2.0, -1.0))
    source.place_ball(50.0, 0.0)  # far outside: clamped to the border strip
    assert abs(source.match.world.ball.x_m) <= source.field.half_length_m + source.field.border_strip_m


def test_screenshot_of_a_match_shows_the_ball_and_the_selection(source: MatchSceneSource, tmp_path) -> None:
    path = save_match_screenshot(source.match, tmp_path / "match.png", selected="blue1")
    image = pygame.image.load(str(path))
    viewer = Viewer(MatchSceneSource(source.match))
    ball = source.match.world.ball
    assert tuple(image.get_at(viewer.renderer.to_px(ball.x_m, ball.y_m)))[:3] == BALL
    blue1 = next(t for rid, t in source.match.world.robots.items() if rid.team is Team.BLUE and rid.number == 1)
    x_px, y_px = viewer.renderer.to_px(blue1.pose.x_m, blue1.pose.y_m)
    ring = viewer.renderer._m(0.25) + 4
    ring_pixels = [
        tuple(image.get_at((x_px + dx, y_px + dy)))[:3] for dx, dy in ((0, -ring), (ring, 0), (0, ring), (-ring, 0))
    ]
    assert SELECTED in ring_pixels


def test_values_are_formatted_as_the_replay_does() -> None:
    import numpy as np

    from soccerbt.tools.viewer.match_source import format_value
    from soccerbt.world.types import Pose2D

    assert format_value(Pose2D(-1.262352162417876, 2.0, 0.5)) == "(-1.26, 2.00, 0.50)"
    assert format_value(0.123456789) == "0.123"
    assert format_value([1.23456, 2.0]) == "(1.23, 2.00)"
    assert format_value(np.array([1.0, 2.5])) == "(1.00, 2.50)"
    assert format_value(True) == "true" and format_value(None) == "null" and format_value(7) == "7"
    assert format_value("striker") == "striker"
    long = format_value("x" * 100)
    assert len(long) == 40 and long.endswith("...")


def test_blackboard_panel_lists_each_key_once_with_its_latest_value() -> None:
    src = MatchSceneSource(Match(MatchConfig(seed=4, particles=50)))
    bb = src.match.agent("red1").blackboard
    src.scene("red1")
    for value in ("a", "b", "c"):
        bb["decision"] = value
        bb["viewer_pose"] = (1.23456, -0.5)
        changes = src.scene("red1").blackboard_changes
        bb["viewer_pose"] = (1.0 + len(value), 0.0)
    keys = [k for k, _ in changes]
    assert len(keys) == len(set(keys))
    assert dict(changes)["decision"] == "c"
    assert keys.index("decision") < 3  # the latest changes come first


def test_a_tree_reload_is_noticed_once_not_once_per_robot() -> None:
    from soccerbt.agent import AgentEvent

    src = MatchSceneSource(Match(MatchConfig(seed=4, particles=50)))
    events = src.match.agent_events
    for robot in ("blue1", "blue2", "blue3"):
        events.append(AgentEvent(1.0, robot, "tree_reload_failed", "trees/xml/game.xml:12: unknown node 'Foo'"))
    notices = src.notices()
    assert [n.text for n in notices] == ["tree reload failed: trees/xml/game.xml:12: unknown node 'Foo'"]
    assert notices[0].level == "error"
    events.append(AgentEvent(2.0, "red1", "tree_reload_failed", "trees/xml/game.xml:12: unknown node 'Foo'"))
    assert src.notices() == []
    for robot in ("blue1", "blue2", "blue3"):
        events.append(AgentEvent(3.0, robot, "tree_reloaded", "trees/xml/game.xml (2 file(s))"))
    assert [n.text for n in src.notices()] == ["tree reloaded: trees/xml/game.xml (2 file(s))"]


def test_click_to_go_target_is_in_the_scene_until_reached() -> None:
    src = MatchSceneSource(Match(MatchConfig(seed=5, particles=100)))
    agent = src.match.agent("red2")
    start = src.match.world.robots[agent.robot].pose
    target = (start.x_m + (0.4 if start.x_m < 0 else -0.4), start.y_m)
    src.send_robot_to("red2", *target)
    assert src.scene(None).goto_targets["red2"] == pytest.approx(target)
    assert "click-to-go" in src.notices()[0].text
    for _ in range(1500):
        src.step()
        if not src.goto_targets():
            break
    assert src.scene(None).goto_targets == {}
    assert any("red2 reached" in n.text for n in src.notices())
