"""KeyboardPad: arrows and Q/E move, C/K assist, 1/2/3/S chords, SPACE latches the emergency stop."""
from __future__ import annotations

import pytest

from soccerbt.drivers.gamepad import EmergencyStop, ManualCommand
from soccerbt.drivers.keyboard import KeyBindings, KeyboardPad
from soccerbt.world.types import KickRequest, RobotCommand

pygame = pytest.importorskip("pygame")


@pytest.fixture
def pg():
    pygame.display.init()
    pygame.event.clear()
    yield pygame
    pygame.event.clear()


def press(pad: KeyboardPad, *keys: int) -> None:
    for key in keys:
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0))
    for event in pygame.event.get():
        pad.handle_event(event)


def release(pad: KeyboardPad, *keys: int) -> None:
    for key in keys:
        pad.handle_event(pygame.event.Event(pygame.KEYUP, key=key, mod=0))


@pytest.mark.parametrize("key, expected", [
    ("K_UP", (0.6, 0.0, 0.0)), ("K_DOWN", (-0.6, 0.0, 0.0)),
    ("K_LEFT", (0.0, 0.2, 0.0)), ("K_RIGHT", (0.0, -0.2, 0.0)),
    ("K_q", (0.0, 0.0, 0.75)), ("K_e", (0.0, 0.0, -0.75)),
])
def test_movement_keys_at_half_the_limits(pg, key, expected):
    pad = KeyboardPad()
    bb: dict[str, object] = {}
    press(pad, getattr(pygame, key))
    cmd = pad.update(0.0, bb)
    assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps) == tuple(pytest.approx(v) for v in expected)
    assert bb["go_manual"] is True
    release(pad, getattr(pygame, key))
    assert pad.update(0.02, bb) is None and bb["go_manual"] is False


def test_shift_gives_full_speed_and_opposites_cancel(pg):
    pad = KeyboardPad(max_vx_mps=1.0, max_vy_mps=0.5, max_vtheta_radps=2.0)
    press(pad, pygame.K_UP, pygame.K_LEFT, pygame.K_LSHIFT)
    assert pad.update(0.0, {}) == ManualCommand(1.0, 0.5, 0.0)
    press(pad, pygame.K_DOWN)  # up and down together: no forward motion, still sideways
    assert pad.update(0.02, {}) == ManualCommand(0.0, 0.5, 0.0)
    release(pad, pygame.K_LEFT)
    assert pad.update(0.04, {}) is None


def test_held_keys_set_the_assist_flags(pg):
    pad = KeyboardPad()
    bb: dict[str, object] = {}
    press(pad, pygame.K_c)
    for step in range(30):
        pad.update(step * 0.1, bb)
        assert (bb["assist_chase"], bb["assist_kick"], bb["go_manual"]) == (True, False, False)
    press(pad, pygame.K_k)
    release(pad, pygame.K_c)
    pad.update(3.0, bb)
    assert (bb["assist_chase"], bb["assist_kick"]) == (False, True)


def test_chord_keys_act_once_per_press(pg):
    pad = KeyboardPad()
    bb: dict[str, object] = {"control_state": 3, "odom_calibrated": True, "player_role": "striker"}
    press(pad, pygame.K_2)
    pad.update(0.0, bb)
    assert (bb["control_state"], bb["odom_calibrated"]) == (2, False)
    bb["control_state"] = 3
    press(pad, pygame.K_2)  # key repeat: a second KEYDOWN without KEYUP
    pad.update(0.02, bb)
    assert bb["control_state"] == 3
    release(pad, pygame.K_2)
    press(pad, pygame.K_1, pygame.K_s)
    pad.update(0.04, bb)
    assert (bb["control_state"], bb["player_role"]) == (1, "goal_keeper")
    press(pad, pygame.K_3)
    pad.update(0.06, bb)
    assert bb["control_state"] == 3
    assert [(e.kind, e.detail) for e in pad.drain_events()] == [
        ("control_state", "2"), ("control_state", "1"), ("swap_roles", "goal_keeper"), ("control_state", "3")]


def test_space_latches_the_stop_for_every_robot_and_return_releases_it(pg):
    estop = EmergencyStop()
    pad = KeyboardPad(estop=estop)
    press(pad, pygame.K_SPACE)
    assert estop.engaged
    commands = [RobotCommand(vx_mps=0.5, kick=KickRequest()), RobotCommand(vtheta_radps=1.0)]
    for command in commands:  # what the agents do each tick, whichever robot the keys drive
        estop.apply(command)
    assert [(c.vx_mps, c.vtheta_radps, c.kick) for c in commands] == [(0.0, 0.0, None), (0.0, 0.0, None)]
    release(pad, pygame.K_SPACE)
    press(pad, pygame.K_SPACE)  # pressing again keeps it engaged (a latch, not a toggle)
    assert estop.engaged
    press(pad, pygame.K_RETURN)
    assert not estop.engaged
    assert [e.kind for e in pad.drain_events()] == ["estop_engaged", "estop_released"]


def test_focus_loss_releases_every_key(pg):
    pad = KeyboardPad()
    press(pad, pygame.K_UP, pygame.K_c)
    assert pad.update(0.0, {}) is not None
    pad.handle_event(pygame.event.Event(pygame.WINDOWFOCUSLOST))
    bb: dict[str, object] = {}
    assert pad.update(0.02, bb) is None
    assert bb == {"go_manual": False, "assist_chase": False, "assist_kick": False}


def test_unbound_keys_are_left_to_others(pg):
    pad = KeyboardPad()
    assert pad.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_z, mod=0)) is False
    assert pad.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=(0, 0))) is False
    assert pad.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_UP, mod=0)) is True


def test_custom_bindings_and_their_errors(pg):
    pad = KeyboardPad(bindings=KeyBindings(forward=("K_w",), swap_roles=("K_F5",)))
    press(pad, pygame.K_w)
    assert pad.update(0.0, {}).vx_mps == pytest.approx(0.6)
    with pytest.raises(ValueError, match="KeyBindings.kick: 'K_nope'"):
        KeyBindings(kick=("K_nope",)).resolve()
    with pytest.raises(ValueError, match="bound to both"):
        KeyBindings(kick=("K_UP",)).resolve()
    with pytest.raises(ValueError, match="speed_fraction"):
        KeyboardPad(speed_fraction=0.0)


def test_f_toggles_field_relative_arrows_in_screen_directions(pg):
    import math

    pad = KeyboardPad()  # half speed: 0.6 m/s forward, 0.2 m/s sideways at most
    heading = {"rad": math.pi / 2}  # the robot faces up the screen (world +y)
    mirrored = {"on": False}
    pad.heading_rad = lambda: heading["rad"]
    pad.view_mirrored = lambda: mirrored["on"]
    press(pad, pygame.K_RIGHT)
    assert pad.update(0.0, {}) == ManualCommand(0.0, -0.2, 0.0)  # robot-relative: its right
    release(pad, pygame.K_RIGHT)
    press(pad, pygame.K_f)
    release(pad, pygame.K_f)
    assert pad.field_relative and [e.detail for e in pad.drain_events()] == ["on"]
    heading["rad"] = 0.0  # facing screen right
    press(pad, pygame.K_UP)  # screen up: the robot's left
    cmd = pad.update(0.02, {})
    assert (cmd.vx_mps, cmd.vy_mps) == (pytest.approx(0.0, abs=1e-12), pytest.approx(0.2))
    heading["rad"] = math.pi  # facing screen left: up is its right
    cmd = pad.update(0.04, {})
    assert (cmd.vx_mps, cmd.vy_mps) == (pytest.approx(0.0, abs=1e-12), pytest.approx(-0.2))
    mirrored["on"] = True  # the view from the other side: screen up is world -y, its left again
    cmd = pad.update(0.06, {})
    assert (cmd.vx_mps, cmd.vy_mps) == (pytest.approx(0.0, abs=1e-12), pytest.approx(0.2))
    release(pad, pygame.K_UP)
    mirrored["on"] = False
    heading["rad"] = math.pi / 4  # diagonal: the fastest velocity on the limits' ellipse
    press(pad, pygame.K_UP, pygame.K_q)
    cmd = pad.update(0.08, {})
    assert cmd.vtheta_radps == pytest.approx(0.75)  # Q still turns
    c, s = math.cos(math.pi / 4), math.sin(math.pi / 4)
    wx, wy = c * cmd.vx_mps - s * cmd.vy_mps, s * cmd.vx_mps + c * cmd.vy_mps
    assert wx == pytest.approx(0.0, abs=1e-9) and wy > 0.2  # straight up the screen
    assert (cmd.vx_mps / 0.6) ** 2 + (cmd.vy_mps / 0.2) ** 2 == pytest.approx(1.0)
    release(pad, pygame.K_UP, pygame.K_q)
    pad.heading_rad = lambda: None  # no heading known: robot-relative again
    press(pad, pygame.K_UP)
    assert pad.update(0.1, {}) == ManualCommand(0.6, 0.0, 0.0)
    release(pad, pygame.K_UP)
    press(pad, pygame.K_f)
    assert not pad.field_relative
