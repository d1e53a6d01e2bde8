"""Gamepad devices: opening pads through SDL and the manager that maps pads to robots.

``PadManager`` keeps the connected pads (by SDL instance id, in connection order), gives each
robot at most one pad (a ``PadAdapter`` of soccerbt.drivers.gamepad) and handles hot-plug
events; ``SdlBackend`` opens pads through pygame (``DeviceBackend`` lets tests fake it).
This module builds on soccerbt.drivers.gamepad (the adapter, the inputs, the emergency stop),
which knows nothing of it: importing gamepad (e.g. for ``EmergencyStop`` in the agent) stays
light. pygame is imported only when a device is opened.
"""
from __future__ import annotations

import logging
import os
from collections.abc import Hashable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from soccerbt.drivers.gamepad import (
    CONTROLLER,
    JOYSTICK,
    EmergencyStop,
    JoystickMapping,
    ManualCommand,
    ManualInput,
    PadAdapter,
    PadEvent,
    VelocityLimits,
    _types,
    apply_input,
    merge_inputs,
    pad_event_types,
    robot_key,
)

__all__ = ["OpenedDevice", "DeviceBackend", "SdlBackend", "PadInfo", "PadManager"]

_log = logging.getLogger("soccerbt.drivers.gamepad")  # one logger for everything about pads


@dataclass(frozen=True, slots=True)
class OpenedDevice:
    """A pad opened by a ``DeviceBackend``: its SDL instance id, the device object, its name."""

    instance_id: int
    device: Any
    name: str = ""


class DeviceBackend(Protocol):
    """How ``PadManager`` opens pads named by DEVICEADDED events (SDL by default; tests fake it)."""

    def is_controller(self, device_index: int) -> bool: ...

    def open(self, kind: str, device_index: int) -> OpenedDevice: ...


class SdlBackend:
    """Opens pads through pygame: ``pygame._sdl2.controller.Controller`` or ``pygame.joystick``."""

    def is_controller(self, device_index: int) -> bool:
        # deferred: start-up: pygame only once a pad is opened
        from pygame._sdl2 import controller

        return bool(controller.get_init() and controller.is_controller(device_index))

    def open(self, kind: str, device_index: int) -> OpenedDevice:
        # deferred: start-up: pygame only once a pad is opened
        import pygame
        from pygame._sdl2 import controller

        if kind == CONTROLLER:
            pad = controller.Controller(device_index)
            # Controller.id is the device index (it shifts on hot-plug); events carry the
            # instance id, which the joystick twin knows
            return OpenedDevice(pad.as_joystick().get_instance_id(), pad, pad.name)
        joystick = pygame.joystick.Joystick(device_index)
        return OpenedDevice(joystick.get_instance_id(), joystick, joystick.get_name())


@dataclass(slots=True)
class PadInfo:
    """A connected pad as the manager knows it (``robot`` is the robot key it drives, or None)."""

    instance_id: int
    kind: str
    name: str = ""
    device: Any = None
    robot: str | None = None


class PadManager:
    """The connected pads (by SDL instance id, in connection order) and one pad per robot.

    - ``handle_event(event)``: give it every pygame event (the viewer does); it tracks DEVICEADDED
      / REMOVED, routes pad input to the robot the pad drives, and passes key events to the
      ``keyboard`` source when one is set. ``pump()`` does the same from pygame's queue (pad
      events only) when no viewer runs.
    - ``assign(robot, pad_index=0)``: the robot drives ``pads[pad_index]`` now if that pad is
      connected (taking it from another robot, which is released), otherwise as soon as it
      connects. A robot whose pad disconnects is released and takes the next pad that connects
      (hot-plugging a pad back in gives it back).
    - ``update(robot, now_s, blackboard)``: writes the robot's pad keys and returns its manual
      command; robots without a pad get the flags false.
    """

    def __init__(self, max_vx_mps: float = 1.2, max_vy_mps: float = 0.4, max_vtheta_radps: float = 1.5,
                 *, dead_zone: float = 0.1, trigger_threshold: float = 0.5, stale_timeout_s: float = 0.5,
                 joystick_mapping: JoystickMapping | None = None, estop: EmergencyStop | None = None,
                 backend: DeviceBackend | None = None) -> None:
        self._adapter_args = dict(max_vx_mps=max_vx_mps, max_vy_mps=max_vy_mps,
                                  max_vtheta_radps=max_vtheta_radps, dead_zone=dead_zone,
                                  trigger_threshold=trigger_threshold, stale_timeout_s=stale_timeout_s,
                                  joystick_mapping=joystick_mapping, estop=estop)
        PadAdapter(**self._adapter_args)  # validate the settings now, not at the first hot-plug
        self.estop = estop
        self.backend: DeviceBackend = backend if backend is not None else SdlBackend()
        self.pads: list[PadInfo] = []
        self.keyboard: Any = None          # a KeyboardPad (or any InputSource with handle_event)
        self._keyboard_robot: str | None = None
        self._adapters: dict[str, PadAdapter] = {}
        self._waiting: dict[str, int | None] = {}  # robot -> wanted pad index, None: next to connect
        self.events: list[PadEvent] = []
        self._started = False

    # -- queries -------------------------------------------------------------------------------

    def pad(self, instance_id: int) -> PadInfo | None:
        return next((p for p in self.pads if p.instance_id == instance_id), None)

    def pad_of(self, robot: Hashable) -> PadInfo | None:
        key = robot_key(robot)
        return next((p for p in self.pads if p.robot == key), None)

    def adapter(self, robot: Hashable) -> PadAdapter:
        """The robot's adapter (created unbound on first use)."""
        key = robot_key(robot)
        if key not in self._adapters:
            self._adapters[key] = PadAdapter(**self._adapter_args, robot=key)
        return self._adapters[key]

    def set_limits(self, robot: Hashable, max_vx_mps: float, max_vy_mps: float, max_vtheta_radps: float) -> None:
        """The speeds a full stick commands on this robot (its walking limits)."""
        self.adapter(robot).limits = VelocityLimits(max_vx_mps, max_vy_mps, max_vtheta_radps)

    @property
    def waiting(self) -> dict[str, int | None]:
        """Robots assigned a pad that is not connected yet: robot -> pad index (None: next pad)."""
        return dict(self._waiting)

    # -- assignment ----------------------------------------------------------------------------

    def assign(self, robot: Hashable, pad_index: int = 0) -> None:
        """Let ``robot`` drive ``pads[pad_index]`` (now if connected, else when it connects)."""
        if isinstance(pad_index, bool) or not isinstance(pad_index, int) or pad_index < 0:
            raise ValueError(f"pad index must be an integer >= 0, got {pad_index!r}")
        key = robot_key(robot)
        current = self.pad_of(key)
        if pad_index < len(self.pads):
            target = self.pads[pad_index]
            if current is target:
                return
            if current is not None:
                self._unbind(current, "unassigned")
            if target.robot is not None:
                previous = target.robot
                self._unbind(target, "unassigned")
                self._waiting[previous] = None
            self._bind(key, target)
        else:
            if current is not None:
                self._unbind(current, "unassigned")
            self._waiting[key] = pad_index

    def unassign(self, robot: Hashable) -> None:
        """The robot drives no pad any more (released at its next update)."""
        key = robot_key(robot)
        self._waiting.pop(key, None)
        current = self.pad_of(key)
        if current is not None:
            self._unbind(current, "unassigned")

    def _bind(self, key: str, pad: PadInfo) -> None:
        self._waiting.pop(key, None)
        pad.robot = key
        self.adapter(key).bind(pad.instance_id, pad.kind, pad.device, pad.name)
        self.events.append(PadEvent("assigned", key, pad.name or str(pad.instance_id)))
        _log.info("pad %s (%s) drives %s", pad.name, pad.instance_id, key)

    def _unbind(self, pad: PadInfo, reason: str) -> None:
        if pad.robot is not None:
            self.adapter(pad.robot).unbind(reason)
        pad.robot = None

    def _resolve_waiting(self, new_pad: PadInfo) -> None:
        for key, index in list(self._waiting.items()):
            if index is None:
                candidate = new_pad  # a robot that lost its pad takes the next pad to connect
            elif index < len(self.pads):
                candidate = self.pads[index]
            else:
                continue
            if candidate.robot is None:
                self._bind(key, candidate)

    # -- keyboard -------------------------------------------------------------------------------

    @property
    def keyboard_robot(self) -> str | None:
        return self._keyboard_robot

    def set_keyboard_robot(self, robot: Hashable | None) -> None:
        """Which robot the keyboard source drives (None: none); the previous one is released."""
        key = None if robot is None else robot_key(robot)
        if key != self._keyboard_robot and self.keyboard is not None:
            release_all = getattr(self.keyboard, "release_all", None)
            if release_all is not None:
                release_all()
            if hasattr(self.keyboard, "robot"):
                self.keyboard.robot = key  # its events name the robot it drives
        self._keyboard_robot = key

    # -- events --------------------------------------------------------------------------------

    def handle_event(self, event: Any) -> bool:
        """Consume a pygame event (pad events, and key events when a keyboard is set)."""
        t = _types()
        etype = getattr(event, "type", None)
        if etype not in t.all:
            if self.keyboard is not None:
                return bool(self.keyboard.handle_event(event))
            return False
        if etype in (t.CADDED, t.JADDED):
            return self._on_added(event, CONTROLLER if etype == t.CADDED else JOYSTICK)
        pad = self.pad(getattr(event, "instance_id", None))
        if pad is None:
            return False
        if etype in t.removed:
            self._on_removed(pad)
            return True
        if pad.robot is None:
            return True  # a pad nobody drives: its input goes nowhere
        return self.adapter(pad.robot).handle_event(event)

    def _on_added(self, event: Any, kind: str) -> bool:
        device_index = getattr(event, "device_index", None)
        if kind == JOYSTICK and device_index is not None:
            try:
                if self.backend.is_controller(device_index):
                    return False  # its CONTROLLERDEVICEADDED twin opens it with the normalised layout
            except Exception:
                pass
        opened: OpenedDevice | None = None
        if device_index is not None:
            try:
                opened = self.backend.open(kind, device_index)
            except Exception as exc:
                _log.info("pad at device index %s could not be opened (%s)", device_index, exc)
        if opened is None:
            instance_id = getattr(event, "instance_id", None)
            if not isinstance(instance_id, int):
                _log.warning("pad added at device index %s: cannot open it and the event names no "
                             "instance id; ignored", device_index)
                return False
            opened = OpenedDevice(instance_id, None, getattr(event, "name", "") or f"pad {instance_id}")
        existing = self.pad(opened.instance_id)
        if existing is not None:
            if existing.kind == JOYSTICK and kind == CONTROLLER:  # now known as a game controller
                existing.kind, existing.device, existing.name = kind, opened.device, opened.name
                if existing.robot is not None:
                    self.adapter(existing.robot).bind(existing.instance_id, kind, opened.device, opened.name)
            return True
        pad = PadInfo(opened.instance_id, kind, opened.name, opened.device)
        self.pads.append(pad)
        self.events.append(PadEvent("connected", None, pad.name or str(pad.instance_id)))
        _log.info("pad connected: %s (%s, instance %s)", pad.name, kind, pad.instance_id)
        self._resolve_waiting(pad)
        return True

    def _on_removed(self, pad: PadInfo) -> None:
        self.pads.remove(pad)
        self.events.append(PadEvent("disconnected", pad.robot, pad.name or str(pad.instance_id)))
        _log.warning("pad disconnected: %s (instance %s)", pad.name, pad.instance_id)
        if pad.robot is not None:
            self.adapter(pad.robot).disconnect("disconnected")
            self._waiting[pad.robot] = None
            pad.robot = None
        quit_device = getattr(pad.device, "quit", None)
        if quit_device is not None:
            try:
                quit_device()
            except Exception:
                pass

    # -- pygame without a viewer ------------------------------------------------------------------

    def start(self) -> None:
        """Initialise pygame's joystick and game-controller subsystems (pads already plugged in
        then arrive as DEVICEADDED events) and, if needed, a display-less event queue.

        Call it before ``pygame.init()`` when a viewer runs too: it sets SDL's hint that pads
        keep sending while the window is not focused, which SDL reads when the joystick
        subsystem starts."""
        # pads keep working when the viewer's window is not focused
        os.environ.setdefault("SDL_JOYSTICK_ALLOW_BACKGROUND_EVENTS", "1")
        # deferred: start-up: pygame only once a pad is opened (after the environment above)
        import pygame
        from pygame._sdl2 import controller

        if not pygame.display.get_init():
            if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
                os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
            pygame.display.init()  # pygame's event queue needs the video subsystem
        pygame.joystick.init()
        controller.init()
        self._started = True

    def pump(self) -> int:
        """Handle the pad events waiting in pygame's queue, in queue order; how many were
        consumed. For runs without a viewer; a viewer gives its events to ``handle_event``.

        Other events stay queued, in their order: they are taken out and posted back, because
        ``pygame.event.get(types)`` groups events by type, which would lose the order of an
        ADDED and the first input, or of a button's UP and DOWN."""
        # deferred: start-up: pygame only once a pad is opened
        import pygame

        if not self._started:
            self.start()
        pad_types = set(pad_event_types())
        consumed = 0
        others = []
        for event in pygame.event.get():
            if event.type in pad_types:
                consumed += bool(self.handle_event(event))
            else:
                others.append(event)
        for event in others:
            try:
                pygame.event.post(event)
            except pygame.error:  # a type that cannot be posted back is dropped, not fatal
                _log.debug("pump: could not re-queue %s", event)
        return consumed

    def on_step(self, match: Any) -> None:
        """A match observer that pumps pad events after every step (runs without a viewer:
        ``Match(observers=[manager], pads=manager)``)."""
        self.pump()

    # -- update ----------------------------------------------------------------------------------

    def read(self, robot: Hashable, now_s: float) -> ManualInput:
        """The merged input of the robot's pad and (when it drives this robot) the keyboard."""
        key = robot_key(robot)
        inputs = []
        adapter = self._adapters.get(key)
        if adapter is not None:
            inputs.append(adapter.read(now_s))
            if adapter.lost:
                adapter.lost = False
                pad = self.pad_of(key)
                if pad is not None:  # polling says the pad is gone: forget it like a REMOVED event
                    self._on_removed(pad)
                self._waiting[key] = None
        if self.keyboard is not None and self._keyboard_robot == key:
            inputs.append(self.keyboard.read(now_s))
        return merge_inputs(inputs)

    def update(self, robot: Hashable, now_s: float, blackboard: MutableMapping[str, object]) -> ManualCommand | None:
        """Write the robot's pad keys (flags false when nothing drives it); its manual command."""
        key = robot_key(robot)
        command, events = apply_input(self.read(key, now_s), blackboard, now_s, key)
        self.events.extend(events)
        return command

    def drain_events(self) -> list[PadEvent]:
        """Every event since the last call: the manager's, the adapters' and the keyboard's."""
        out, self.events = self.events, []
        for adapter in self._adapters.values():
            out.extend(adapter.drain_events())
        if self.keyboard is not None and hasattr(self.keyboard, "drain_events"):
            out.extend(self.keyboard.drain_events())
        return out

    def robots(self) -> Sequence[str]:
        """Robots that have an adapter (assigned now or before)."""
        return list(self._adapters)
