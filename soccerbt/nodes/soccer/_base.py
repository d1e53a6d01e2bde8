"""Base classes of the soccer nodes: the engine's Sync/Stateful action nodes plus helpers.

``port_float(name)`` reads a numeric input port as a float; ``setup_state()`` is called once
at construction for per-instance state (so a node never shares state with another robot's).
``self.context`` is the robot's ``RobotContext``. ``booster_input`` declares a port as Booster's
nodes.json does.
"""
from __future__ import annotations

from typing import Any

from soccerbt.nodes.node_kinds import StatefulActionNode, SyncActionNode
from soccerbt.nodes.ports import InputPort, OutputPort, PortInfo
from soccerbt.nodes.status import FAILURE, RUNNING, SUCCESS

__all__ = ["SoccerSyncNode", "SoccerStatefulNode", "InputPort", "OutputPort", "SUCCESS", "FAILURE",
           "RUNNING", "booster_input"]


def booster_input(name: str, type_: type, default: str | None) -> PortInfo:
    """An input port with Booster's default (kept as the string nodes.json shows), or none."""
    if default is None:
        return InputPort(name, type_)
    return InputPort(name, type_, default)


class _SoccerMixin:
    context: Any

    def setup_state(self) -> None:
        """Initialise per-instance state (override)."""

    def port_float(self, name: str) -> float:
        cached = self._inputs.get(name)  # type: ignore[attr-defined]
        if cached is not None and cached[0] is False and type(cached[1]) is float:
            return cached[1]  # a literal, converted once (nodes read their tunables every tick)
        return float(self.get_input(name))  # type: ignore[attr-defined]


class SoccerSyncNode(_SoccerMixin, SyncActionNode):
    """A soccer node that never returns RUNNING."""

    def __init__(self, name: str, config: Any = None) -> None:
        super().__init__(name, config)
        self.setup_state()


class SoccerStatefulNode(_SoccerMixin, StatefulActionNode):
    """A soccer node with on_start / on_running / on_halted (may return RUNNING)."""

    def __init__(self, name: str, config: Any = None) -> None:
        super().__init__(name, config)
        self.setup_state()
