"""Robot I/O: the Driver protocol, SimDriver (the embedded simulator) and the gamepad adapter.

May import soccerbt.world and soccerbt.blackboard. Importing this package loads neither the
simulator nor pygame: ``SimDriver`` is imported on first use, the gamepad adapter lives in
``soccerbt.drivers.gamepad``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from soccerbt.drivers.base import Driver, RobotLimits

if TYPE_CHECKING:
    from soccerbt.drivers.sim import SimDriver

__all__ = ["Driver", "RobotLimits", "SimDriver"]


def __getattr__(name: str) -> Any:
    if name == "SimDriver":
        # deferred: start-up: the robot's program imports soccerbt.drivers and needs no simulator
        from soccerbt.drivers.sim import SimDriver

        return SimDriver
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
