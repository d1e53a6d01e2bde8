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

    __slots__ = ("_world", "_robot_id", "_state", "_observe", "_command")

    def __init__(self, world: World, robot_id: RobotId) -> None:
        if robot_id not in world.robots:
            known = ", ".join(str(r) for r in world.robots) or "none"
            raise KeyError(f"SimDriver: unknown robot {robot_id} (robots in the world: {known})")
        self._world = world  # private: a brain sees its observations, never the truth
        self._robot_id = robot_id
        self._state = world.robots[robot_id]  # kept: spares hashing the id at every step
        self._observe = world.observe_state  # bound once: sense and act run for every robot and step
        self._command = world.command_state

    @property
    def robot_id(self) -> RobotId:
        return self._robot_id

    @property
    def limits(self) -> RobotLimits:
        return self._world.limits_of(self._robot_id)

    def sense(self) -> Observations:
        return self._observe(self._state)

    def act(self, command: RobotCommand) -> None:
        self._command(self._state, command)

    def __repr__(self) -> str:
        return f"SimDriver({self._robot_id})"
