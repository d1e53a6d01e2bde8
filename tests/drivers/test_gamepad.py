"""PadAdapter: stick maths, limits, assist buttons, LT chords, releases, polling, joystick fallback,
and the emergency stop. Events are real pygame events (headless SDL), handled or posted."""
from __future__ import annotations

import math
import subprocess
import sys

import pytest

from soccerbt.drivers.gamepad import (
    CONTROLLER,
    JOYSTICK,
    ChordAction,
    EmergencyStop,
    JoystickMapping,
    ManualCommand,
    ManualInput,
    PadAdapter,
    apply_input,
    init_blackboard,
    merge_inputs,
    radial_dead_zone,
)
from soccerbt.world.types import KickRequest, RobotCommand

pygame = pytest.importorskip("pygame")

PAD = 7  # instance id of the pad under test
LX, LY, RX, RY, LT, RT = 0, 1, 2, 3, 4, 5
A, B, X, Y, BACK, START, LB, RB = 0, 1, 2, 3, 4, 6, 9, 10
FULL = 32767


@pytest.fixture
def pg():
    pygame.display.init()
    pygame.event.clear()
    yield pygame
    pygame.event.clear()


def axis(a: int, value: int | float, pad: int = PAD):
    return pygame.event.Event(pygame.CONTROLLERAXISMOTION, instance_id=pad, axis=a, value=value)


def down(button: int, pad: int = PAD):
    return pygame.event.Event(pygame.CONTROLLERBUTTONDOWN, instance_id=pad, button=button)


def up(button: int, pad: int = PAD):
    return pygame.event.Event(pygame.CONTROLLERBUTTONUP, instance_id=pad, button=button)


def feed(adapter: PadAdapter, *events) -> None:
    """Post the events to pygame's queue and hand what comes out to the adapter, as a viewer does."""
    for event in events:
        pygame.event.post(event)
    for event in pygame.event.get():
        adapter.handle_event(event)


def bound_adapter(**kwargs) -> PadAdapter:
    adapter = PadAdapter(**kwargs)
    adapter.bind(PAD, CONTROLLER)
    return adapter


# --- constants and import hygiene ------------------------------------------------------------


def test_sdl_layout_constants_match_pygame():
    assert (LX, LY, RX, RY, LT, RT) == (pygame.CONTROLLER_AXIS_LEFTX, pygame.CONTROLLER_AXIS_LEFTY,
                                        pygame.CONTROLLER_AXIS_RIGHTX, pygame.CONTROLLER_AXIS_RIGHTY,
                                        pygame.CONTROLLER_AXIS_TRIGGERLEFT, pygame.CONTROLLER_AXIS_TRIGGERRIGHT)
    assert (A, B, X, Y, BACK, START, LB, RB) == (
        pygame.CONTROLLER_BUTTON_A, pygame.CONTROLLER_BUTTON_B, pygame.CONTROLLER_BUTTON_X,
        pygame.CONTROLLER_BUTTON_Y, pygame.CONTROLLER_BUTTON_BACK, pygame.CONTROLLER_BUTTON_START,
        pygame.CONTROLLER_BUTTON_LEFTSHOULDER, pygame.CONTROLLER_BUTTON_RIGHTSHOULDER)


def test_importing_the_adapters_does_not_import_pygame():
    code = ("import sys, soccerbt.drivers, soccerbt.drivers.gamepad, soccerbt.drivers.keyboard; "
            "print('pygame' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- dead zone and stick mapping ---------------------------------------------------------------


def test_radial_dead_zone_rescales_from_the_edge():
    assert radial_dead_zone(0.05, 0.05, 0.1) == (0.0, 0.0)
    assert radial_dead_zone(0.1, 0.0, 0.1) == (0.0, 0.0)          # the edge itself is still zero
    x, y = radial_dead_zone(0.55, 0.0, 0.1)
    assert x == pytest.approx(0.5) and y == 0.0
    x, y = radial_dead_zone(0.0, -1.0, 0.1)
    assert (x, y) == (pytest.approx(0.0), pytest.approx(-1.0))
    # a square gate's corner is clipped to length 1, keeping the direction
    x, y = radial_dead_zone(1.0, 1.0, 0.1)
    assert math.hypot(x, y) == pytest.approx(1.0) and x == pytest.approx(y)
    # radial, not per axis: 0.08 on each axis is beyond 0.1 together
    x, y = radial_dead_zone(0.08, 0.08, 0.1)
    assert x > 0.0 and y > 0.0
    assert radial_dead_zone(float("nan"), 0.0, 0.1) == (0.0, 0.0)


def test_stick_up_is_forward_and_limits_scale(pg):
    adapter = bound_adapter()
    bb: dict[str, object] = {}
    feed(adapter, axis(LY, -32768))
    cmd = adapter.update(0.0, bb)
    assert cmd == ManualCommand(pytest.approx(1.2), 0.0, 0.0)
    assert bb["go_manual"] is True
    feed(adapter, axis(LY, FULL))
    assert adapter.update(0.02, bb).vx_mps == pytest.approx(-1.2)


@pytest.mark.parametrize("axis_id, value, expected", [
    (LX, FULL, (0.0, -0.4, 0.0)),     # stick right: walk right (negative vy)
    (LX, -FULL, (0.0, 0.4, 0.0)),     # stick left: walk left
    (RX, FULL, (0.0, 0.0, -1.5)),     # right stick right: turn clockwise
    (RX, -FULL, (0.0, 0.0, 1.5)),     # right stick left: counter-clockwise
])
def test_axis_signs_map_to_the_robot_frame(pg, axis_id, value, expected):
    adapter = bound_adapter()
    feed(adapter, axis(axis_id, value))
    cmd = adapter.update(0.0, {})
    assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps) == tuple(pytest.approx(v) for v in expected)


def test_half_deflection_is_rescaled_and_custom_limits_apply(pg):
    adapter = bound_adapter(max_vx_mps=0.8, max_vy_mps=0.3, max_vtheta_radps=2.0)
    feed(adapter, axis(LY, -int(0.55 * FULL)), axis(RX, int(0.55 * FULL)))
    cmd = adapter.update(0.0, {})
    assert cmd.vx_mps == pytest.approx(0.5 * 0.8, abs=1e-4)
    assert cmd.vy_mps == 0.0
    assert cmd.vtheta_radps == pytest.approx(-0.5 * 2.0, abs=1e-4)


def test_normalised_float_values_are_accepted(pg):
    adapter = bound_adapter()
    feed(adapter, axis(LY, -1.0))
    assert adapter.update(0.0, {}).vx_mps == pytest.approx(1.2)


def test_stick_inside_dead_zone_is_not_manual(pg):
    adapter = bound_adapter()
    bb: dict[str, object] = {"go_manual": True}
    feed(adapter, axis(LX, 2000), axis(LY, -2000), axis(RX, 3000))   # |(0.06, 0.06)| < 0.1
    assert adapter.update(0.0, bb) is None
    assert bb == {"go_manual": False, "assist_chase": False, "assist_kick": False}


def test_right_stick_vertical_alone_takes_over_with_zero_velocity(pg):
    adapter = bound_adapter()
    bb: dict[str, object] = {}
    feed(adapter, axis(RY, -FULL))
    assert adapter.update(0.0, bb) == ManualCommand(0.0, 0.0, 0.0)
    assert bb["go_manual"] is True


def test_release_of_the_stick_gives_control_back(pg):
    adapter = bound_adapter()
    bb: dict[str, object] = {}
    feed(adapter, axis(LX, FULL))
    assert adapter.update(0.0, bb) is not None and bb["go_manual"] is True
    feed(adapter, axis(LX, 0))
    assert adapter.update(0.02, bb) is None and bb["go_manual"] is False


def test_bad_axis_values_are_neutral(pg):
    adapter = bound_adapter()
    feed(adapter, axis(LX, float("nan")), axis(LY, "junk"), axis(99, FULL))
    assert adapter.update(0.0, {}) is None


# --- assist buttons and chords ----------------------------------------------------------------


def test_holding_lb_and_rb_sets_the_assist_flags_while_held(pg):
    adapter = bound_adapter()
    bb: dict[str, object] = {}
    feed(adapter, down(LB))
    for step in range(50):  # held steady for 5 s without any event: buttons are not timed out
        assert adapter.update(step * 0.1, bb) is None
        assert bb["assist_chase"] is True and bb["assist_kick"] is False and bb["go_manual"] is False
    feed(adapter, down(RB), up(LB))
    adapter.update(5.1, bb)
    assert (bb["assist_chase"], bb["assist_kick"]) == (False, True)
    feed(adapter, up(RB))
    adapter.update(5.2, bb)
    assert (bb["assist_chase"], bb["assist_kick"]) == (False, False)


@pytest.mark.parametrize("button, state", [(X, 1), (A, 2), (B, 3)])
def test_lt_chords_set_control_state_once_on_the_press_edge(pg, button, state):
    adapter = bound_adapter()
    bb: dict[str, object] = {"control_state": 0, "odom_calibrated": True}
    feed(adapter, axis(LT, 30000), down(button))
    adapter.update(0.0, bb)
    assert bb["control_state"] == state
    assert bb["odom_calibrated"] is (state != 2)  # LT+A also asks for recalibration
    bb["control_state"] = 9  # someone else changes it: holding the chord must not write again
    bb["odom_calibrated"] = True
    adapter.update(0.02, bb)
    feed(adapter, down(button))  # a repeated DOWN without an UP is not an edge
    adapter.update(0.04, bb)
    assert bb["control_state"] == 9 and bb["odom_calibrated"] is True
    feed(adapter, up(button), down(button))  # a new press acts again
    adapter.update(0.06, bb)
    assert bb["control_state"] == state
    events = [e for e in adapter.drain_events() if e.kind == "control_state"]
    assert [e.detail for e in events] == [str(state), str(state)]


def test_face_buttons_without_lt_do_nothing(pg):
    adapter = bound_adapter()
    bb: dict[str, object] = {"control_state": 3, "player_role": "striker"}
    feed(adapter, axis(LT, int(0.4 * FULL)), down(X), down(Y))   # LT below the 0.5 threshold
    adapter.update(0.0, bb)
    assert bb["control_state"] == 3 and bb["player_role"] == "striker"
    feed(adapter, axis(LT, FULL))  # LT pressed after the face button: no chord
    adapter.update(0.02, bb)
    assert bb["control_state"] == 3 and bb["player_role"] == "striker"


def test_lt_y_toggles_the_role_and_reports_it(pg):
    adapter = bound_adapter()
    bb: dict[str, object] = {"player_role": "striker"}
    roles = []
    for i in range(3):
        feed(adapter, axis(LT, FULL), down(Y), up(Y))
        adapter.update(i * 0.1, bb)
        roles.append(bb["player_role"])
    assert roles == ["goal_keeper", "striker", "goal_keeper"]
    assert [(e.kind, e.detail) for e in adapter.drain_events()] == [
        ("swap_roles", "goal_keeper"), ("swap_roles", "striker"), ("swap_roles", "goal_keeper")]


def test_a_tap_between_two_updates_still_acts(pg):
    adapter = bound_adapter()
    bb: dict[str, object] = {"control_state": 3}
    feed(adapter, axis(LT, FULL), down(X), up(X), axis(LT, 0))
    adapter.update(0.0, bb)
    assert bb["control_state"] == 1


def test_chords_are_applied_in_order(pg):
    adapter = bound_adapter()
    bb: dict[str, object] = {}
    feed(adapter, axis(LT, FULL), down(A), down(B))
    adapter.update(0.0, bb)
    assert bb["control_state"] == 3 and bb["odom_calibrated"] is False


# --- safety releases --------------------------------------------------------------------------


def test_disconnect_releases_within_one_update(pg):
    adapter = bound_adapter()
    bb: dict[str, object] = {}
    feed(adapter, axis(LY, -FULL), down(LB), down(RB))
    assert adapter.update(0.0, bb) is not None
    assert bb == {"go_manual": True, "assist_chase": True, "assist_kick": True}
    feed(adapter, pygame.event.Event(pygame.CONTROLLERDEVICEREMOVED, instance_id=PAD))
    assert adapter.update(0.02, bb) is None
    assert bb == {"go_manual": False, "assist_chase": False, "assist_kick": False}
    assert [(e.kind, e.detail) for e in adapter.drain_events()] == [("released", "disconnected")]
    # the old pad's events no longer reach the robot
    feed(adapter, axis(LY, -FULL))
    assert adapter.update(0.04, bb) is None and not adapter.bound


def test_joystick_removed_event_also_releases(pg):
    adapter = bound_adapter()
    feed(adapter, axis(LX, FULL))
    adapter.update(0.0, {})
    feed(adapter, pygame.event.Event(pygame.JOYDEVICEREMOVED, instance_id=PAD))
    assert adapter.update(0.02, {}) is None


def test_event_only_pad_goes_stale_while_a_stick_is_held(pg):
    adapter = bound_adapter(stale_timeout_s=0.5)
    bb: dict[str, object] = {}
    feed(adapter, axis(LY, -FULL), down(LB))
    adapter.update(1.0, bb)
    for t in (1.1, 1.3, 1.5):  # up to the timeout the stick still drives
        assert adapter.update(t, bb) is not None
    assert adapter.update(1.52, bb) is None  # more than 0.5 s without an event
    assert bb == {"go_manual": False, "assist_chase": False, "assist_kick": False}
    assert [(e.kind, e.detail) for e in adapter.drain_events()] == [("released", "stale")]
    assert adapter.update(3.0, bb) is None  # the state was reset: it stays released
    feed(adapter, axis(RX, FULL))           # until the pad speaks again
    cmd = adapter.update(3.02, bb)
    assert cmd == ManualCommand(0.0, 0.0, pytest.approx(-1.5))


def test_fresh_events_keep_an_event_only_pad_alive(pg):
    adapter = bound_adapter(stale_timeout_s=0.5)
    for i in range(40):  # jitter every 0.2 s for 8 s
        feed(adapter, axis(LY, -FULL + (i % 2)))
        assert adapter.update(i * 0.2, {}) is not None


class FakeController:
    """A stand-in for pygame._sdl2.controller.Controller (raw Sint16 axes)."""

    def __init__(self) -> None:
        self.axes = dict.fromkeys(range(6), 0)
        self.buttons: set[int] = set()
        self.is_attached = True
        self.fail = False

    def attached(self) -> bool:
        return self.is_attached

    def get_axis(self, index: int) -> int:
        if self.fail:
            raise pygame.error("controller read failed")
        return self.axes[index]

    def get_button(self, index: int) -> bool:
        return index in self.buttons


def test_polled_pad_held_steady_is_not_timed_out(pg):
    device = FakeController()
    adapter = PadAdapter(stale_timeout_s=0.5)
    adapter.bind(PAD, CONTROLLER, device, "fake")
    device.axes[LY] = -FULL  # no event at all: SDL sends none while the stick is steady
    for step in range(100):
        assert adapter.update(step * 0.1, {}).vx_mps == pytest.approx(1.2)
    device.axes[LY] = 0
    assert adapter.update(10.1, {}) is None


def test_polled_buttons_give_assist_and_chords(pg):
    device = FakeController()
    adapter = PadAdapter()
    adapter.bind(PAD, CONTROLLER, device)
    bb: dict[str, object] = {"control_state": 3}
    device.buttons |= {LB}
    device.axes[LT] = FULL
    adapter.update(0.0, bb)
    assert bb["assist_chase"] is True
    device.buttons |= {A}
    adapter.update(0.1, bb)
    assert bb["control_state"] == 2 and bb["odom_calibrated"] is False
    bb["control_state"] = 3
    adapter.update(0.2, bb)  # still held: no second action
    assert bb["control_state"] == 3


def test_event_edge_and_poll_do_not_act_twice(pg):
    device = FakeController()
    adapter = PadAdapter()
    adapter.bind(PAD, CONTROLLER, device)
    bb: dict[str, object] = {"player_role": "striker"}
    device.axes[LT] = FULL
    device.buttons |= {Y}
    feed(adapter, axis(LT, FULL), down(Y))  # the event and the poll both see Y go down
    adapter.update(0.0, bb)
    assert bb["player_role"] == "goal_keeper"


@pytest.mark.parametrize("failure", ["detached", "raises"])
def test_polling_failure_releases_within_one_update(pg, failure):
    device = FakeController()
    adapter = PadAdapter()
    adapter.bind(PAD, CONTROLLER, device)
    bb: dict[str, object] = {}
    device.axes[LX] = FULL
    device.buttons |= {RB}
    assert adapter.update(0.0, bb) is not None
    if failure == "detached":
        device.is_attached = False
    else:
        device.fail = True
    assert adapter.update(0.02, bb) is None
    assert bb == {"go_manual": False, "assist_chase": False, "assist_kick": False}
    assert adapter.lost and not adapter.bound
    assert [(e.kind, e.detail) for e in adapter.drain_events()] == [("released", "lost")]


# --- raw joystick fallback --------------------------------------------------------------------


def jaxis(a: int, value: float):
    return pygame.event.Event(pygame.JOYAXISMOTION, instance_id=PAD, axis=a, value=value)


def jdown(button: int):
    return pygame.event.Event(pygame.JOYBUTTONDOWN, instance_id=PAD, button=button)


def test_unknown_pad_uses_the_joystick_mapping(pg):
    adapter = PadAdapter()
    adapter.bind(PAD, JOYSTICK)
    bb: dict[str, object] = {"control_state": 3}
    feed(adapter, jaxis(1, -1.0), jaxis(3, 1.0))   # xpad: LY axis 1, RX axis 3
    cmd = adapter.update(0.0, bb)
    assert cmd.vx_mps == pytest.approx(1.2) and cmd.vtheta_radps == pytest.approx(-1.5)
    feed(adapter, jaxis(2, -1.0), jdown(2))        # LT at rest (-1): X alone is no chord
    adapter.update(0.02, bb)
    assert bb["control_state"] == 3
    feed(adapter, jaxis(2, 1.0), pygame.event.Event(pygame.JOYBUTTONUP, instance_id=PAD, button=2), jdown(2))
    adapter.update(0.04, bb)
    assert bb["control_state"] == 1
    feed(adapter, jdown(4))                        # LB is button 4
    adapter.update(0.06, bb)
    assert bb["assist_chase"] is True


def test_controller_and_joystick_events_do_not_mix(pg):
    controller = bound_adapter()
    assert controller.handle_event(jaxis(1, -1.0)) is False   # the joystick twin of a controller
    assert controller.update(0.0, {}) is None
    joystick = PadAdapter()
    joystick.bind(PAD, JOYSTICK)
    assert joystick.handle_event(axis(LY, -FULL)) is False
    assert joystick.update(0.0, {}) is None


def test_trigger_as_button_mapping(pg):
    mapping = JoystickMapping(left_trigger_axis=None, left_trigger_button=6, back_button=None, trigger_rest=0.0)
    adapter = PadAdapter(joystick_mapping=mapping)
    adapter.bind(PAD, JOYSTICK)
    bb: dict[str, object] = {}
    feed(adapter, jdown(6), jdown(1))  # LT button, then B
    adapter.update(0.0, bb)
    assert bb["control_state"] == 3


def test_events_of_other_pads_are_ignored(pg):
    adapter = bound_adapter()
    assert adapter.handle_event(axis(LY, -FULL, pad=PAD + 1)) is False
    assert adapter.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_UP)) is False
    assert adapter.update(0.0, {}) is None
    assert PadAdapter().handle_event(axis(LY, -FULL)) is False  # unbound


def test_settings_are_validated():
    with pytest.raises(ValueError, match="dead_zone"):
        PadAdapter(dead_zone=1.0)
    with pytest.raises(ValueError, match="vy_mps"):
        PadAdapter(max_vy_mps=-0.1)
    with pytest.raises(ValueError, match="stale_timeout_s"):
        PadAdapter(stale_timeout_s=0.0)
    with pytest.raises(ValueError, match="trigger_threshold"):
        PadAdapter(trigger_threshold=1.5)
    with pytest.raises(ValueError, match="kind"):
        PadAdapter().bind(1, "wheel")


# --- pure helpers ------------------------------------------------------------------------------


def test_manual_command_overrides_only_the_walking_velocity():
    command = RobotCommand(vx_mps=0.3, vy_mps=0.1, vtheta_radps=0.2, head_pan_rad=0.5, kick=KickRequest())
    ManualCommand(1.0, -0.2, 0.7).apply_to(command)
    assert (command.vx_mps, command.vy_mps, command.vtheta_radps) == (1.0, -0.2, 0.7)
    assert command.head_pan_rad == 0.5 and command.kick == KickRequest()


def test_merge_and_apply_inputs():
    pad = ManualInput(ManualCommand(1.0, 0.0, 0.0), assist_chase=True, actions=[ChordAction.AUTO])
    keys = ManualInput(ManualCommand(0.0, 0.5, 0.0), assist_kick=True, actions=[ChordAction.SWAP_ROLES],
                       released=None)
    merged = merge_inputs([ManualInput(released="stale"), pad, keys])
    assert merged.command == ManualCommand(1.0, 0.0, 0.0)
    assert (merged.assist_chase, merged.assist_kick, merged.released) == (True, True, "stale")
    bb: dict[str, object] = {"player_role": "goal_keeper"}
    cmd, events = apply_input(merged, bb, 2.0, "blue1")
    assert cmd == ManualCommand(1.0, 0.0, 0.0)
    assert bb == {"player_role": "striker", "control_state": 3, "go_manual": True,
                  "assist_chase": True, "assist_kick": True}
    assert [(e.kind, e.detail, e.robot_key, e.t_s) for e in events] == [
        ("released", "stale", "blue1", 2.0), ("control_state", "3", "blue1", 2.0),
        ("swap_roles", "striker", "blue1", 2.0)]


def test_swap_from_an_unset_role_makes_a_goalkeeper():
    bb: dict[str, object] = {}
    apply_input(ManualInput(actions=[ChordAction.SWAP_ROLES]), bb)
    assert bb["player_role"] == "goal_keeper"


def test_init_blackboard_creates_missing_flags_only():
    bb: dict[str, object] = {"go_manual": True}
    init_blackboard(bb)
    assert bb == {"go_manual": True, "assist_chase": False, "assist_kick": False}


# --- emergency stop ----------------------------------------------------------------------------


def test_emergency_stop_latches_and_zeroes_commands():
    estop = EmergencyStop()
    command = RobotCommand(vx_mps=1.0, vy_mps=0.2, vtheta_radps=-0.5, head_tilt_rad=0.3,
                           kick=KickRequest(0.1, 0.9), stand_up=True)
    assert estop.apply(command).vx_mps == 1.0  # not engaged: untouched
    assert estop.engage("test") is True
    assert estop.engage("again") is False and estop.engaged and estop.reason == "test"
    safe = estop.apply(command)
    assert safe is command
    assert (safe.vx_mps, safe.vy_mps, safe.vtheta_radps, safe.kick, safe.stand_up) == (0.0, 0.0, 0.0, None, False)
    assert safe.head_tilt_rad == 0.3
    assert estop.release() is True and not estop.engaged and estop.release() is False
    assert estop.engage_count == 1


def test_pad_back_engages_and_start_releases_the_stop(pg):
    estop = EmergencyStop()
    adapter = bound_adapter(estop=estop)
    feed(adapter, down(BACK))
    assert estop.engaged  # at once, not at the next update
    feed(adapter, up(BACK), down(BACK))
    assert estop.engaged
    feed(adapter, down(START))
    assert not estop.engaged
    assert [e.kind for e in adapter.drain_events()] == ["estop_engaged", "estop_released"]


# --- properties ----------------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_raw = st.integers(min_value=-32768, max_value=32767)


@settings(max_examples=200, deadline=None)
@given(lx=_raw, ly=_raw, rx=_raw, ry=_raw, dz=st.floats(min_value=0.0, max_value=0.5))
def test_any_stick_position_stays_within_the_limits(lx, ly, rx, ry, dz):
    pygame.display.init()
    adapter = bound_adapter(dead_zone=dz)
    for a, v in ((LX, lx), (LY, ly), (RX, rx), (RY, ry)):
        adapter.handle_event(axis(a, v))
    bb: dict[str, object] = {}
    cmd = adapter.update(0.0, bb)
    left_out = math.hypot(max(-1.0, lx / FULL), ly / FULL) > dz
    right_out = math.hypot(max(-1.0, rx / FULL), ry / FULL) > dz
    assert bb["go_manual"] is (left_out or right_out) is (cmd is not None)
    if cmd is not None:
        assert abs(cmd.vx_mps) <= 1.2 + 1e-9 and abs(cmd.vy_mps) <= 0.4 + 1e-9
        assert abs(cmd.vtheta_radps) <= 1.5 + 1e-9
        # stick up (negative Y) never walks backwards, stick right never walks left, and so on
        assert cmd.vx_mps * ly <= 0 and cmd.vy_mps * lx <= 0 and cmd.vtheta_radps * rx <= 0
