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
           "RUNNING", "booster_input", "booster_default"]


def booster_input(name: str, type_: type, default: str | None) -> PortInfo:
    """An input port with Booster's default (the literal nodes.json shows), or none.

    The default is held as a value of the port's type, as Booster's C++ declares it
    (``InputPort<double>("vx_limit", 0.6, ...)``, not the string "0.6"): BT.CPP then writes it as
    its toStr of that value ("0.600000", an int as "1000", a bool as "false"), in the node models
    and in the ports its parser fills, and so does soccerbt (Groot2's FULLTREE byte for byte)."""
    if default is None:
        return InputPort(name, type_)
    return InputPort(name, type_, booster_default(type_, default))


def booster_default(type_: type, text: str) -> Any:
    """nodes.json's default literal as a value of the port's type (strings stay as they are)."""
    if type_ is bool:
        if text not in ("true", "false"):
            raise ValueError(f"not a bool default: {text!r}")
        return text == "true"
    if type_ in (int, float):
        return type_(text)
    return text


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
