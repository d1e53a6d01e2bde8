"""Mode priority in our shipped game tree, tick by tick (issue 15).

A held stick (``go_manual``) or assist (``assist_chase``, ``assist_kick``) preempts recalibrate
and full auto in the very tick it is first seen; the mode of ``control_state`` is back in the
tick after the release; control_state 1 (manual / assist) over 2 (recalibrate) over 3 (auto).
Driven through the blackboard keys, ``apply_input`` and the keyboard, on a real ``Match``
(blue2 in READY: auto walks it to its kick-off pose, so auto's command is not a chase's).
"""
from __future__ import annotations

import itertools

import pygame
import pytest

from soccerbt.drivers.gamepad import ChordAction, ManualCommand, ManualInput, apply_input
from soccerbt.drivers.keyboard import KeyboardPad
from soccerbt.drivers.pad_devices import PadManager
from soccerbt.match import Match, MatchConfig
from soccerbt.nodes.status import SKIPPED

ROBOT = "blue2"
READY_S = 3.0  # READY starts at 2 s (seed 1): every robot walks to its kick-off pose

# the top-level modes of game.xml, and the children of the manual branch
MODES = {"manual": "manual or assisted", "recalibrate": "recalibrate: stand and localize until LT+B",
         "auto": "full auto"}
MANUAL_CHILDREN = {"stand": "stand unless assisting (sticks drive the robot directly)",
                   "chase": "assisted chase", "kick": "assisted kick"}
FLAGS = ("go_manual", "assist_chase", "assist_kick")
CHILD_OF_FLAG = {"go_manual": "stand", "assist_chase": "chase", "assist_kick": "kick"}


def _ran(agent, names: dict[str, str]) -> set[str]:
    """Which of the named nodes ran (ticked, not skipped) in the agent's last tick."""
    wanted = {name: key for key, name in names.items()}
    return {wanted[n.name] for n in agent.tree.active_nodes()
            if n.name in wanted and n.last_status is not SKIPPED}


def modes(agent) -> set[str]:
    return _ran(agent, MODES)


def manual_children(agent) -> set[str]:
    return _ran(agent, MANUAL_CHILDREN)


def velocity(agent) -> tuple[float, float, float]:
    c = agent.last_command
    return (c.vx_mps, c.vy_mps, c.vtheta_radps)


def _ready_match(**kwargs) -> Match:
    match = Match(MatchConfig(seed=1, duration_s=60.0), **kwargs)
    match.run(READY_S)
    agent = match.agent(ROBOT)
    assert agent.blackboard["gc_game_state"] == "READY" and modes(agent) == {"auto"}
    assert agent.context.world_model.ball_location_known
    return match


def _set_flags(bb, held: str | None) -> None:
    for flag in FLAGS:
        bb[flag] = flag == held


def test_every_mode_pair_through_the_blackboard_keys() -> None:
    match = _ready_match()
    agent = match.agent(ROBOT)
    bb = agent.blackboard
    base_mode = {1: "manual", 2: "recalibrate", 3: "auto"}

    # control_state to control_state: the new mode runs in the tick it is written
    for a, b in itertools.permutations((1, 2, 3), 2):
        bb["control_state"] = a
        match.step()
        assert modes(agent) == {base_mode[a]}, (a, b)
        bb["control_state"] = b
        match.step()
        assert modes(agent) == {base_mode[b]}, (a, b)
        if b != 3:
            assert velocity(agent) == (0.0, 0.0, 0.0)  # manual without input, recalibrate: stand

    # a held input over every control_state: manual/assist at once, the base mode right after
    for base, held in itertools.product((1, 2, 3), FLAGS):
        bb["control_state"] = base
        _set_flags(bb, None)
        match.step()
        assert modes(agent) == {base_mode[base]}, (base, held)
        _set_flags(bb, held)
        match.step()
        assert modes(agent) == {"manual"}, (base, held)
        assert manual_children(agent) == {CHILD_OF_FLAG[held]}, (base, held)
        if held == "go_manual":  # no pad here: the tree stands, the stick's velocity is the pad's
            assert velocity(agent) == (0.0, 0.0, 0.0)
        _set_flags(bb, None)
        match.step()
        assert modes(agent) == {base_mode[base]}, (base, held)

    # held input to held input: the new one's branch in the same tick (chase over kick)
    bb["control_state"] = 3
    for first, second in itertools.permutations(FLAGS, 2):
        _set_flags(bb, first)
        match.step()
        assert manual_children(agent) == {CHILD_OF_FLAG[first]}
        _set_flags(bb, second)
        match.step()
        assert modes(agent) == {"manual"} and manual_children(agent) == {CHILD_OF_FLAG[second]}
    bb["assist_chase"] = bb["assist_kick"] = True
    match.step()
    assert manual_children(agent) == {"chase"}
    _set_flags(bb, None)
    match.step()
    assert modes(agent) == {"auto"}
    assert agent.node_exception_count == 0


def test_held_assist_chase_commands_the_chase_not_auto_in_that_tick() -> None:
    """Three twins of one seed, stepped alike up to the press: auto alone, auto with C held,
    manual mode with C held. The held chase's command is the manual mode's chase, not auto's."""
    auto, held, manual = _ready_match(), _ready_match(), _ready_match()
    held.agent(ROBOT).blackboard["assist_chase"] = True
    manual.agent(ROBOT).blackboard.update({"assist_chase": True, "control_state": 1})
    for m in (auto, held, manual):
        m.step()
    a, h, c = (m.agent(ROBOT) for m in (auto, held, manual))
    assert modes(h) == {"manual"} and manual_children(h) == {"chase"}
    assert velocity(h) == pytest.approx(velocity(c))
    assert velocity(h) != pytest.approx(velocity(a), abs=0.05)  # auto would walk elsewhere
    assert abs(velocity(h)[0]) + abs(velocity(h)[2]) > 0.05     # and the chase does walk
    held.agent(ROBOT).blackboard["assist_chase"] = False
    held.step()
    assert modes(h) == {"auto"} and manual_children(h) == set()  # auto back the next tick


def test_apply_input_modes_tick_by_tick() -> None:
    match = _ready_match()
    agent = match.agent(ROBOT)
    bb = agent.blackboard

    def send(**kwargs) -> None:
        apply_input(ManualInput(**kwargs), bb, match.t_s, ROBOT)
        match.step()

    send(assist_chase=True)
    assert modes(agent) == {"manual"} and manual_children(agent) == {"chase"}
    send()
    assert modes(agent) == {"auto"}
    send(assist_kick=True)
    assert modes(agent) == {"manual"} and manual_children(agent) == {"kick"}
    send(command=ManualCommand(0.5, 0.0, 0.0))
    assert modes(agent) == {"manual"} and manual_children(agent) == {"stand"}
    send()
    assert modes(agent) == {"auto"}
    send(actions=[ChordAction.RECALIBRATE])
    assert modes(agent) == {"recalibrate"} and bb["control_state"] == 2
    send(assist_chase=True)
    assert modes(agent) == {"manual"} and manual_children(agent) == {"chase"}
    send()
    assert modes(agent) == {"recalibrate"}
    send(actions=[ChordAction.MANUAL])
    assert modes(agent) == {"manual"} and manual_children(agent) == {"stand"}
    send(actions=[ChordAction.AUTO])
    assert modes(agent) == {"auto"}


def _key(kind: int, key: int) -> pygame.event.Event:
    return pygame.event.Event(kind, key=key, mod=0, unicode="", scancode=0)


def test_keyboard_modes_tick_by_tick() -> None:
    pygame.display.init()
    manager = PadManager()
    manager.keyboard = KeyboardPad()
    match = _ready_match(pads=manager)
    manager.set_keyboard_robot(ROBOT)
    agent = match.agent(ROBOT)

    def press(key: int, down: bool = True) -> None:
        manager.handle_event(_key(pygame.KEYDOWN if down else pygame.KEYUP, key))

    press(pygame.K_c)
    match.step()
    assert modes(agent) == {"manual"} and manual_children(agent) == {"chase"}
    assert abs(velocity(agent)[0]) + abs(velocity(agent)[2]) > 0.05
    press(pygame.K_c, False)
    match.step()
    assert modes(agent) == {"auto"}
    press(pygame.K_k)
    match.step()
    assert modes(agent) == {"manual"} and manual_children(agent) == {"kick"}
    press(pygame.K_k, False)
    press(pygame.K_UP)
    match.step()
    assert modes(agent) == {"manual"} and manual_children(agent) == {"stand"}
    assert velocity(agent) == pytest.approx((0.6, 0.0, 0.0))  # the arrow's command, not auto's
    press(pygame.K_UP, False)
    match.step()
    assert modes(agent) == {"auto"}
    press(pygame.K_2)
    press(pygame.K_2, False)
    match.step()
    assert modes(agent) == {"recalibrate"} and velocity(agent) == (0.0, 0.0, 0.0)
    press(pygame.K_c)
    match.step()
    assert modes(agent) == {"manual"} and manual_children(agent) == {"chase"}
    press(pygame.K_c, False)
    match.step()
    assert modes(agent) == {"recalibrate"}
    press(pygame.K_3)
    press(pygame.K_3, False)
    match.step()
    assert modes(agent) == {"auto"}
