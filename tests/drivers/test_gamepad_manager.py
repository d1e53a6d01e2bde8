"""PadManager: hot-plugging, one pad per robot, assignment, pump(), the keyboard beside a pad.

Device events go through pygame's real (headless) queue; a fake backend stands in for SDL's
device opening so the tests do not depend on pads plugged into the machine."""
from __future__ import annotations

import pytest

from soccerbt.drivers.gamepad import CONTROLLER, JOYSTICK, EmergencyStop, ManualCommand, parse_robot_key, robot_key
from soccerbt.drivers.keyboard import KeyboardPad
from soccerbt.drivers.pad_devices import OpenedDevice, PadManager
from soccerbt.world.types import RobotId, Team

pygame = pytest.importorskip("pygame")

LX, LY, RX, LT = 0, 1, 2, 4
X, LB = 2, 9
FULL = 32767


@pytest.fixture
def pg():
    pygame.display.init()
    pygame.event.clear()
    yield pygame
    pygame.event.clear()


class FakeBackend:
    """Device index -> (is a game controller, instance id); opening returns event-only pads
    (device None) unless a device object is given."""

    def __init__(self) -> None:
        self.devices: dict[int, tuple[bool, int, object]] = {}

    def plug(self, device_index: int, instance_id: int, controller: bool = True, device: object = None) -> None:
        self.devices[device_index] = (controller, instance_id, device)

    def is_controller(self, device_index: int) -> bool:
        return self.devices[device_index][0]

    def open(self, kind: str, device_index: int) -> OpenedDevice:
        is_controller, instance_id, device = self.devices[device_index]
        if kind == CONTROLLER and not is_controller:
            raise RuntimeError("not a game controller")
        return OpenedDevice(instance_id, device, f"pad{instance_id}")


def post(*events) -> None:
    for event in events:
        pygame.event.post(event)


def added(device_index: int, controller: bool = True):
    kind = pygame.CONTROLLERDEVICEADDED if controller else pygame.JOYDEVICEADDED
    return pygame.event.Event(kind, device_index=device_index)


def removed(instance_id: int, controller: bool = True):
    kind = pygame.CONTROLLERDEVICEREMOVED if controller else pygame.JOYDEVICEREMOVED
    return pygame.event.Event(kind, instance_id=instance_id)


def axis(instance_id: int, a: int, value: int):
    return pygame.event.Event(pygame.CONTROLLERAXISMOTION, instance_id=instance_id, axis=a, value=value)


def jaxis(instance_id: int, a: int, value: float):
    return pygame.event.Event(pygame.JOYAXISMOTION, instance_id=instance_id, axis=a, value=value)


def button(instance_id: int, b: int, pressed: bool = True):
    kind = pygame.CONTROLLERBUTTONDOWN if pressed else pygame.CONTROLLERBUTTONUP
    return pygame.event.Event(kind, instance_id=instance_id, button=b)


def plug_sdl_style(backend: FakeBackend, manager: PadManager, device_index: int, instance_id: int) -> None:
    """SDL announces a game controller twice: as a joystick, then as a controller."""
    backend.plug(device_index, instance_id)
    post(added(device_index, controller=False), added(device_index))
    manager.pump()


@pytest.fixture
def rig(pg):
    backend = FakeBackend()
    manager = PadManager(backend=backend)
    manager._started = True  # the test owns pygame's initialisation (display.init above)
    return backend, manager


def test_hot_plug_assign_drive_unplug_and_replug(rig):
    backend, manager = rig
    bb: dict[str, object] = {}
    manager.assign("blue1")                     # before any pad: waits for pad 0
    assert manager.update("blue1", 0.0, bb) is None and bb["go_manual"] is False
    plug_sdl_style(backend, manager, 0, 40)
    assert [(p.instance_id, p.kind, p.robot) for p in manager.pads] == [(40, CONTROLLER, "blue1")]
    post(axis(40, LY, -FULL))
    assert manager.pump() == 1
    assert manager.update("blue1", 0.02, bb) == ManualCommand(pytest.approx(1.2), 0.0, 0.0)
    assert bb["go_manual"] is True
    post(removed(40, controller=False), removed(40))  # SDL sends both twins too
    manager.pump()
    assert manager.update("blue1", 0.04, bb) is None and bb["go_manual"] is False
    assert manager.pads == [] and manager.waiting == {"blue1": None}
    plug_sdl_style(backend, manager, 0, 41)     # plugged back in: a new instance id
    assert manager.pad_of("blue1").instance_id == 41
    post(axis(41, RX, FULL))
    manager.pump()
    assert manager.update("blue1", 0.06, bb).vtheta_radps == pytest.approx(-1.5)
    kinds = [(e.kind, e.detail) for e in manager.drain_events()]
    assert kinds == [("connected", "pad40"), ("assigned", "pad40"), ("disconnected", "pad40"),
                     ("released", "disconnected"), ("connected", "pad41"), ("assigned", "pad41")]


def test_joystick_twin_events_of_a_controller_are_not_counted_twice(rig):
    backend, manager = rig
    plug_sdl_style(backend, manager, 0, 40)
    manager.assign("blue1", 0)
    bb: dict[str, object] = {}
    post(jaxis(40, 1, 1.0), axis(40, LY, -FULL))  # joystick twin says backwards, controller forwards
    manager.pump()
    assert manager.update("blue1", 0.0, bb).vx_mps == pytest.approx(1.2)
    assert len(manager.pads) == 1


def test_unknown_pad_falls_back_to_the_joystick_api(rig):
    backend, manager = rig
    backend.plug(0, 50, controller=False)
    post(added(0, controller=False))
    manager.pump()
    assert [(p.instance_id, p.kind) for p in manager.pads] == [(50, JOYSTICK)]
    manager.assign("red2", 0)
    post(jaxis(50, 0, -1.0))  # stick left
    manager.pump()
    assert manager.update("red2", 0.0, {}).vy_mps == pytest.approx(0.4)


def test_one_pad_per_robot(rig):
    backend, manager = rig
    plug_sdl_style(backend, manager, 0, 40)
    plug_sdl_style(backend, manager, 1, 41)
    manager.assign("blue1", 0)
    manager.assign("blue2", 1)
    post(axis(40, LY, -FULL), button(41, LB))
    manager.pump()
    bb1: dict[str, object] = {}
    bb2: dict[str, object] = {}
    assert manager.update("blue1", 0.0, bb1) is not None
    assert manager.update("blue2", 0.0, bb2) is None
    assert (bb1["go_manual"], bb1["assist_chase"]) == (True, False)
    assert (bb2["go_manual"], bb2["assist_chase"]) == (False, True)


def test_assigning_a_taken_pad_moves_it_and_releases_the_other_robot(rig):
    backend, manager = rig
    plug_sdl_style(backend, manager, 0, 40)
    manager.assign("blue1", 0)
    post(axis(40, LX, FULL))
    manager.pump()
    bb1: dict[str, object] = {}
    assert manager.update("blue1", 0.0, bb1) is not None
    manager.assign("red1", 0)
    assert manager.update("blue1", 0.02, bb1) is None and bb1["go_manual"] is False
    assert manager.pad_of("red1").instance_id == 40 and manager.pad_of("blue1") is None
    assert manager.waiting == {"blue1": None}
    post(axis(40, LX, FULL))
    manager.pump()
    assert manager.update("red1", 0.04, {}).vy_mps == pytest.approx(-0.4)


def test_waiting_for_a_pad_index(rig):
    backend, manager = rig
    manager.assign("blue1", 1)
    plug_sdl_style(backend, manager, 0, 40)
    assert manager.pad_of("blue1") is None and manager.waiting == {"blue1": 1}
    plug_sdl_style(backend, manager, 1, 41)
    assert manager.pad_of("blue1").instance_id == 41 and manager.waiting == {}


def test_unassign_and_unbound_pads(rig):
    backend, manager = rig
    plug_sdl_style(backend, manager, 0, 40)
    post(axis(40, LY, -FULL))
    manager.pump()  # nobody drives pad 40: its input goes nowhere
    bb: dict[str, object] = {}
    assert manager.update("blue1", 0.0, bb) is None
    assert bb == {"go_manual": False, "assist_chase": False, "assist_kick": False}
    manager.assign("blue1", 0)
    post(axis(40, LY, -FULL))
    manager.pump()
    assert manager.update("blue1", 0.02, bb) is not None
    manager.unassign("blue1")
    assert manager.update("blue1", 0.04, bb) is None and bb["go_manual"] is False
    assert manager.waiting == {}


class DetachableDevice:
    def __init__(self) -> None:
        self.is_attached = True
        self.axes = dict.fromkeys(range(6), 0)

    def attached(self) -> bool:
        return self.is_attached

    def get_axis(self, index: int) -> int:
        return self.axes[index]

    def get_button(self, index: int) -> bool:
        return False


def test_a_pad_lost_to_polling_is_forgotten_and_replaced_by_the_next(rig):
    backend, manager = rig
    device = DetachableDevice()
    backend.plug(0, 40, device=device)
    post(added(0))
    manager.pump()
    manager.assign("blue1", 0)
    device.axes[LY] = -FULL
    bb: dict[str, object] = {}
    for step in range(20):  # steady stick, no events: polling keeps it alive
        assert manager.update("blue1", step * 0.1, bb) is not None
    device.is_attached = False
    assert manager.update("blue1", 2.0, bb) is None and bb["go_manual"] is False
    assert manager.pads == [] and manager.waiting == {"blue1": None}
    plug_sdl_style(backend, manager, 1, 42)
    assert manager.pad_of("blue1").instance_id == 42


def test_default_sdl_backend_accepts_event_only_pads(pg):
    manager = PadManager()
    manager.start()
    # device index 99 cannot be opened, but a synthetic event may name its instance id
    post(pygame.event.Event(pygame.CONTROLLERDEVICEADDED, device_index=99, instance_id=1234))
    post(pygame.event.Event(pygame.CONTROLLERDEVICEADDED, device_index=98))  # nothing to go on
    manager.pump()
    pad = manager.pad(1234)  # (a pad really plugged into this machine would be listed too)
    assert (pad.kind, pad.device, pad.name) == (CONTROLLER, None, "pad 1234")
    assert all(p.instance_id == 1234 or p.device is not None for p in manager.pads)
    manager.assign(RobotId(Team.RED, 3), manager.pads.index(pad))
    post(axis(1234, LY, FULL))
    manager.pump()
    assert manager.update("red3", 0.0, {}).vx_mps == pytest.approx(-1.2)


def test_pump_leaves_other_events_queued_in_order(rig):
    _, manager = rig
    post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a, mod=0), axis(99, LX, FULL),
         pygame.event.Event(pygame.USEREVENT, code=5), pygame.event.Event(pygame.KEYUP, key=pygame.K_a, mod=0))
    assert manager.pump() == 0  # pad 99 is unknown: its event is taken but not consumed
    assert [(e.type, getattr(e, "key", None)) for e in pygame.event.get()] == [
        (pygame.KEYDOWN, pygame.K_a), (pygame.USEREVENT, None), (pygame.KEYUP, pygame.K_a)]


def test_pump_keeps_the_queue_order_of_pad_events(rig):
    backend, manager = rig
    backend.plug(0, 40)
    manager.assign("blue1")
    bb: dict[str, object] = {}
    # added and the first input in one batch; LB released and pressed again in the same batch
    post(added(0), button(40, LB), button(40, LB, False), button(40, LB), axis(40, LY, -FULL))
    assert manager.pump() == 5
    assert manager.update("blue1", 0.0, bb) is not None
    assert bb["assist_chase"] is True
    post(button(40, LB, False), button(40, LB), button(40, LB, False))
    manager.pump()
    manager.update("blue1", 0.02, bb)
    assert bb["assist_chase"] is False


def test_keyboard_and_pad_on_one_robot_are_merged(rig):
    backend, manager = rig
    estop = EmergencyStop()
    manager.keyboard = KeyboardPad(estop=estop)
    plug_sdl_style(backend, manager, 0, 40)
    manager.assign("blue1", 0)
    manager.set_keyboard_robot("blue1")
    bb: dict[str, object] = {}
    for event in (pygame.event.Event(pygame.KEYDOWN, key=pygame.K_c, mod=0),
                  axis(40, RX, -FULL)):
        assert manager.handle_event(event) is True
    cmd = manager.update("blue1", 0.0, bb)
    assert cmd.vtheta_radps == pytest.approx(1.5)
    assert (bb["go_manual"], bb["assist_chase"]) == (True, True)
    manager.set_keyboard_robot("blue2")  # the keyboard moves on: its keys are released
    manager.update("blue1", 0.02, bb)
    assert bb["assist_chase"] is False
    assert manager.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE, mod=0))
    assert estop.engaged


def test_robot_keys():
    assert robot_key(RobotId(Team.BLUE, 1)) == "blue1" == robot_key(" blue1 ")
    assert parse_robot_key("Red2") == RobotId(Team.RED, 2)
    for bad in ("green1", "blue", "blue0", "blue-1", ""):
        with pytest.raises(ValueError, match="expected a team colour"):
            parse_robot_key(bad)
    with pytest.raises(ValueError):
        robot_key("")
    with pytest.raises(ValueError, match="pad index"):
        PadManager(backend=FakeBackend()).assign("blue1", -1)


def test_on_step_pumps_pad_events_like_a_match_observer(rig):
    backend, manager = rig
    backend.plug(0, 40)
    manager.assign("blue1")
    post(added(0), axis(40, LY, -FULL))
    manager.on_step(object())  # what Match does with its observers after each step
    assert manager.update("blue1", 0.0, {}).vx_mps == pytest.approx(1.2)


def test_keyboard_events_name_the_robot_it_drives(rig):
    _, manager = rig
    manager.keyboard = KeyboardPad()
    manager.set_keyboard_robot(RobotId(Team.RED, 1))
    manager.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_3, mod=0))
    bb: dict[str, object] = {}
    manager.update("red1", 0.0, bb)
    assert bb["control_state"] == 3
    events = [(e.kind, e.robot_key, e.detail) for e in manager.drain_events()]
    assert events == [("control_state", "red1", "3")]
