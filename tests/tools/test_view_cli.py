"""``soccerbt view`` wiring: the keyboard drives the selected robot, SPACE stops everybody."""
from __future__ import annotations

import argparse

import pygame
import pytest

from soccerbt.tools.view_cli import build_viewer_match, configure, parse_speed
from soccerbt.tools.viewer.match_source import MatchSceneSource
from soccerbt.tools.viewer.viewer import Viewer

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    configure(parser)
    return parser.parse_args(list(argv))


def test_speed_argument() -> None:
    assert parse_speed("2.5") == 2.5
    assert parse_speed("max") == float("inf")
    for bad in ("0.01", "50", "fast"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_speed(bad)
    args = _args("--speed", "4", "--select", "red2", "--seconds", "5")
    assert (args.speed, args.select, args.seconds) == (4.0, "red2", 5.0)


def test_keyboard_drives_the_selected_robot_and_space_stops_all() -> None:
    pygame.display.init()
    match = build_viewer_match(_args("--seed", "2", "--seconds", "30"))
    viewer = Viewer(MatchSceneSource(match), event_handlers=[match.pads.handle_event])
    viewer.on_select = match.pads.set_keyboard_robot
    surface = pygame.Surface(viewer.size_px)
    viewer.render(surface)
    blue2 = match.agent("blue2")
    x_px, y_px = viewer.renderer.to_px(*_world_xy(match, blue2))
    viewer.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=(x_px, y_px)))
    assert viewer.state.selected == "blue2"
    assert match.pads.keyboard_robot == "blue2"

    viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_UP, mod=0, unicode="", scancode=0))
    match.step()
    assert blue2.blackboard["go_manual"] is True
    assert blue2.last_command.vx_mps > 0.1
    assert match.agent("blue1").blackboard["go_manual"] is False  # only the selected robot

    viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE, mod=0, unicode=" ", scancode=0))
    for _ in range(3):
        match.step()
    assert match.estop.engaged
    for agent in match.agents.values():
        cmd = agent.last_command
        assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps, cmd.kick) == (0.0, 0.0, 0.0, None)


def _world_xy(match, agent) -> tuple[float, float]:
    pose = match.world.robots[agent.robot].pose
    return pose.x_m, pose.y_m


def test_headless_run_saves_a_screenshot(tmp_path, capsys) -> None:
    from soccerbt.__main__ import main

    out = tmp_path / "out.png"
    assert main(["run", "--headless", "--seconds", "1", "--quiet", "--screenshot", str(out)]) == 0
    image = pygame.image.load(str(out))
    assert image.get_size() == (1300, 760)
    assert "screenshot saved" in capsys.readouterr().err
    # the ball starts on the centre mark's side of the field: some pixel is ball-orange
    from soccerbt.tools.viewer.render import BALL
    width, height = image.get_size()
    assert any(tuple(image.get_at((x, y)))[:3] == BALL for x in range(0, width - 330, 2) for y in range(0, height, 2))


def test_the_viewer_plays_the_headless_match_and_its_log_verifies(tmp_path, capsys) -> None:
    """The same seed plays the same match in the viewer and headless, to the last digit (the
    viewer's reads of a robot's pose covariance once moved its particle filter's cluster seed),
    so a log recorded through the viewer re-runs: ``replay --verify`` exits 0."""
    from soccerbt.__main__ import main

    viewed, headless = tmp_path / "viewed.mcap", tmp_path / "headless.mcap"
    assert main(["view", "--seconds", "8", "--speed", "max", "--seed", "2", "--record", str(viewed)]) == 0
    assert main(["run", "--headless", "--quiet", "--seconds", "8", "--seed", "2", "--record", str(headless)]) == 0
    capsys.readouterr()
    assert main(["replay", "diff", str(headless), str(viewed)]) == 0
    assert capsys.readouterr().out.startswith("identical:")
    assert main(["replay", str(viewed), "--verify"]) == 0
    assert "reproduces (800 steps, seed 2)" in capsys.readouterr().out
