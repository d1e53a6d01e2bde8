"""A person taking over never leaves a robot walking on a velocity the tree held before."""
from __future__ import annotations

import pygame
import pytest

from soccerbt.drivers.gamepad import EmergencyStop
from soccerbt.drivers.keyboard import KeyboardPad
from soccerbt.drivers.pad_devices import PadManager
from soccerbt.match import Match, MatchConfig


def _key(kind: int, key: int) -> pygame.event.Event:
    return pygame.event.Event(kind, key=key, mod=0, unicode="", scancode=0)


def _walking(cmd) -> bool:
    return abs(cmd.vx_mps) + abs(cmd.vy_mps) + abs(cmd.vtheta_radps) > 0.05


@pytest.fixture(params=["ours", "booster"])
def tree_path(request) -> str | None:
    """Our shipped tree, and Booster's (whose manual branch commands no velocity at all)."""
    if request.param == "ours":
        return None
    return str(request.getfixturevalue("shared_dir") / "booster" / "trees" / "game.xml")


def test_manual_mode_and_released_stick_leave_the_robot_standing(tree_path) -> None:
    pygame.display.init()
    estop = EmergencyStop()
    manager = PadManager(estop=estop)
    manager.keyboard = KeyboardPad(estop=estop)
    match = Match(MatchConfig(seed=1, duration_s=60.0, blue_tree=tree_path), pads=manager, estop=estop)
    manager.set_keyboard_robot("blue2")
    agent = match.agent("blue2")
    for _ in range(2000):  # READY: every robot walks to its kick-off pose
        match.step()
        if _walking(agent.last_command):
            break
    assert _walking(agent.last_command), "the robot walks in READY"

    manager.handle_event(_key(pygame.KEYDOWN, pygame.K_1))  # control_state 1: manual/assist
    manager.handle_event(_key(pygame.KEYUP, pygame.K_1))
    match.step()
    match.step()
    assert agent.blackboard["control_state"] == 1
    assert not _walking(agent.last_command)

    manager.handle_event(_key(pygame.KEYDOWN, pygame.K_UP))
    match.step()
    assert agent.last_command.vx_mps > 0.1
    manager.handle_event(_key(pygame.KEYUP, pygame.K_UP))
    match.step()
    match.step()
    assert agent.blackboard["go_manual"] is False
    assert not _walking(agent.last_command)

    manager.handle_event(_key(pygame.KEYDOWN, pygame.K_3))  # back to auto: the tree walks again
    manager.handle_event(_key(pygame.KEYUP, pygame.K_3))
    for _ in range(300):
        match.step()
        if _walking(agent.last_command):
            break
    assert _walking(agent.last_command)
