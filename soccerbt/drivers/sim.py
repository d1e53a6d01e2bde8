"""SimDriver: the Driver of one robot of the embedded simulator (soccerbt.world.sim.World)."""
from __future__ import annotations

from soccerbt.world.sim import World
from soccerbt.world.types import Observations, RobotCommand, RobotId, RobotLimits

__all__ = ["SimDriver"]


class SimDriver:
    """Connects one simulated robot: ``sense`` observes it, ``act`` sets its command.

    The world must already hold the robot (``World.add_robot``); stepping the world is the
    match loop's job, never the driver's.
    """

    __slots__ = ("world", "_robot_id", "_state")

    def __init__(self, world: World, robot_id: RobotId) -> None:
        if robot_id not in world.robots:
            known = ", ".join(str(r) for r in world.robots) or "none"
            raise KeyError(f"SimDriver: unknown robot {robot_id} (robots in the world: {known})")
        self.world = world
        self._robot_id = robot_id
        self._state = world.robots[robot_id]  # kept: spares hashing the id at every step

    @property
    def robot_id(self) -> RobotId:
        return self._robot_id

    @property
    def limits(self) -> RobotLimits:
        return self.world.limits_of(self._robot_id)

    def sense(self) -> Observations:
        return self.world.observe_state(self._state)

    def act(self, command: RobotCommand) -> None:
        self.world.command_state(self._state, command)

    def __repr__(self) -> str:
        return f"SimDriver({self._robot_id})"
