"""The Driver protocol: what one robot senses and what it accepts, simulated or real.

A brain talks to its robot only through a Driver: ``sense()`` returns the robot's
``Observations`` (timestamped, robot and odometry frames), ``act()`` takes a ``RobotCommand``
(walk velocity, head angles, kick, stand up) and ``limits`` says what the robot can do.
``SimDriver`` (drivers/sim.py) connects a robot of the simulated World; a real robot's driver
implements the same protocol.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

from soccerbt.world.types import Observations, RobotCommand, RobotId, RobotLimits

__all__ = ["Driver", "RobotLimits"]


@runtime_checkable
class Driver(Protocol):
    """I/O of one robot."""

    @property
    def robot_id(self) -> RobotId:
        """Which robot this driver connects."""
        ...

    @property
    def limits(self) -> RobotLimits:
        """The robot's speed, acceleration and head joint limits."""
        ...

    def sense(self) -> Observations:
        """What the robot senses now (``Observations.t_s`` is the time of the measurement)."""
        ...

    def act(self, command: RobotCommand) -> None:
        """The command from now on; invalid values raise ValueError/TypeError and change nothing."""
        ...
