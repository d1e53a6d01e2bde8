"""The robot's own remote controller as a pad the gamepad adapter reads.

A Booster robot publishes its joystick as ``RemoteControllerState`` (sticks in [-1, 1] with
SDL's signs: pushed forward is -1; buttons and triggers as booleans). ``RemoteControllerDevice``
presents the newest state through the polling interface of a pygame game controller
(``get_axis``/``get_button`` with SDL's controller indices), so ``PadAdapter`` binds it like an
SDL pad and everything the pad does works on the field unchanged: the sticks drive
(``go_manual``), LB / RB hold assist chase / kick, LT + X / A / B choose control state 1 / 2 / 3,
LT + Y swaps roles, BACK engages the emergency stop and START releases it.

``RemotePad`` is the adapter the agent calls (``update(now_s, blackboard)``): it binds the
device when the first state arrives. As with an SDL pad, silence is no fault (a stick held
steady sends nothing new); a robot whose inputs stop altogether is stopped by the driver.
"""
from __future__ import annotations

import math
from collections.abc import MutableMapping
from typing import Any

from soccerbt.drivers.gamepad import CONTROLLER, EmergencyStop, ManualCommand, PadAdapter, PadEvent

__all__ = ["RemoteControllerDevice", "RemotePad"]

_AXES = ("lx", "ly", "rx", "ry")  # SDL controller axes 0..3; 4 and 5 are the triggers
_BUTTONS = {0: "a", 1: "b", 2: "x", 3: "y", 4: "back", 6: "start", 9: "lb", 10: "rb"}
REMOTE_INSTANCE_ID = 1_000_000  # an instance id no SDL pad has


def _stick(value: Any) -> float:
    v = float(value)
    return max(-1.0, min(1.0, v)) if math.isfinite(v) else 0.0


class RemoteControllerDevice:
    """The newest ``RemoteControllerState`` as a polled game controller (see the module docstring)."""

    def __init__(self) -> None:
        self.state: Any = None
        self.writer: int | None = None  # who sent the newest state (its DDS publication handle)
        self.received = 0

    def update(self, state: Any, writer: int | None = None) -> None:
        self.state = state
        self.writer = writer
        self.received += 1

    def attached(self) -> bool:
        return self.state is not None

    def get_axis(self, index: int) -> float:
        s = self.state
        if s is None:
            return 0.0
        if index < 4:
            return _stick(getattr(s, _AXES[index]))
        if index == 4:
            return 1.0 if s.lt else 0.0
        if index == 5:
            return 1.0 if s.rt else 0.0
        return 0.0

    def get_button(self, index: int) -> bool:
        s = self.state
        name = _BUTTONS.get(index)
        return bool(getattr(s, name)) if s is not None and name is not None else False


class RemotePad:
    """One robot's remote controller, read like an SDL pad (``update(now_s, bb)``)."""

    def __init__(self, device: RemoteControllerDevice, *, estop: EmergencyStop | None = None, robot: str | None = None,
                 max_vx_mps: float = 1.0, max_vy_mps: float = 0.4, max_vtheta_radps: float = 1.2) -> None:
        self.device = device
        # the stop the pad engages and releases is signed by the remote's writer: a stop is
        # released only by the remote controller that engaged it
        stop = _SignedStop(estop, device) if estop is not None else None
        self.adapter = PadAdapter(max_vx_mps, max_vy_mps, max_vtheta_radps, estop=stop, robot=robot)  # type: ignore[arg-type]

    def update(self, now_s: float, blackboard: MutableMapping[str, object]) -> ManualCommand | None:
        if not self.adapter.bound and self.device.attached():
            self.adapter.bind(REMOTE_INSTANCE_ID, CONTROLLER, self.device, "robot remote controller")
        return self.adapter.update(now_s, blackboard)

    def drain_events(self) -> list[PadEvent]:
        return self.adapter.drain_events()


class _SignedStop:
    """The brain's ``EmergencyStop`` as the remote's pad adapter sees it: an engage or a release
    names the writer of the remote controller state that asked for it."""

    def __init__(self, stop: EmergencyStop, device: RemoteControllerDevice) -> None:
        self._stop = stop
        self._device = device

    def engage(self, reason: str = "") -> bool:
        return self._stop.engage(reason, owner=self._device.writer)

    def release(self) -> bool:
        return self._stop.release(owner=self._device.writer)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stop, name)
