"""Stub leaves built from a Booster-style nodes.json (ids, bases, ports, defaults).

`register_stub_nodes(factory, path)` registers, for every entry, a SyncActionNode stub that
returns SUCCESS or a StatefulActionNode stub that returns RUNNING once, then SUCCESS; ports
and defaults come from the JSON (C++ types mapped to Python ones). Used to load Booster's
trees before the real soccer nodes exist, in tests and benchmarks.
"""
from __future__ import annotations

import json
import os
from typing import Any

from soccerbt.nodes.node_kinds import StatefulActionNode, SyncActionNode
from soccerbt.nodes.ports import NO_DEFAULT, PortDirection, PortInfo
from soccerbt.nodes.status import RUNNING, SUCCESS, NodeStatus

__all__ = ["register_stub_nodes", "stub_node_types", "CPP_TYPES"]

CPP_TYPES: dict[str, Any] = {
    "double": float, "float": float, "int": int, "unsigned": int, "unsigned int": int,
    "long": int, "bool": bool, "string": str, "std::string": str,
}
_DIRECTIONS = {"input": PortDirection.INPUT, "output": PortDirection.OUTPUT,
               "inout": PortDirection.INOUT}


class SyncStub(SyncActionNode):
    """A synchronous stub: SUCCESS on every tick (counts its ticks)."""

    def __init__(self, name: str, config: Any = None) -> None:
        super().__init__(name, config)
        self.tick_count = 0

    def bt_tick(self) -> NodeStatus:
        self.tick_count += 1
        return SUCCESS


class StatefulStub(StatefulActionNode):
    """An asynchronous stub: RUNNING on start, SUCCESS on the next tick."""

    def __init__(self, name: str, config: Any = None) -> None:
        super().__init__(name, config)
        self.tick_count = 0
        self.halt_count = 0

    def on_start(self) -> NodeStatus:
        self.tick_count += 1
        return RUNNING

    def on_running(self) -> NodeStatus:
        self.tick_count += 1
        return SUCCESS

    def on_halted(self) -> None:
        self.halt_count += 1


def stub_node_types(nodes_json_path: str | os.PathLike) -> dict[str, tuple[type, list[PortInfo]]]:
    """Node id -> (stub class, ports) for every entry of a nodes.json file.

    Raises ValueError (``path: what is wrong``, with the line for bad JSON) for a file that is
    missing, unreadable, not JSON, or not shaped as {node id: {"base", "ports": [...]}}."""
    try:
        with open(nodes_json_path, encoding="utf-8") as fh:
            text = fh.read(_MAX_NODES_JSON_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"{nodes_json_path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{nodes_json_path}: not a UTF-8 text file") from None
    if len(text) > _MAX_NODES_JSON_BYTES:
        raise ValueError(f"{nodes_json_path}: larger than {_MAX_NODES_JSON_BYTES} bytes")
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{nodes_json_path}:{exc.lineno}: not JSON ({exc.msg})") from None
    problem = _shape_problem(spec)
    if problem is not None:
        raise ValueError(f"{nodes_json_path}: {problem}")
    out: dict[str, tuple[type, list[PortInfo]]] = {}
    for node_id, info in spec.items():
        base = StatefulStub if info.get("base") == "StatefulActionNode" else SyncStub
        cls = type(node_id, (base,), {"__doc__": f"Stub of Booster's {node_id}."})
        ports = []
        for p in info.get("ports", []):
            default = p.get("default")
            ports.append(PortInfo(p["name"], _DIRECTIONS[p.get("direction", "input")],
                                  CPP_TYPES.get(p.get("type", ""), None),
                                  NO_DEFAULT if default is None else default))
        out[node_id] = (cls, ports)
    return out


_MAX_NODES_JSON_BYTES = 8 << 20


def _shape_problem(spec: object) -> str | None:
    """What is wrong with the shape of a nodes.json document, or None."""
    if not isinstance(spec, dict):
        return f"expected an object of node types, got {type(spec).__name__}"
    for node_id, info in spec.items():
        if not node_id.isidentifier():
            return f"node type {node_id!r} is not a valid ID"
        if not isinstance(info, dict):
            return f"{node_id}: expected an object, got {type(info).__name__}"
        ports = info.get("ports", [])
        if not isinstance(ports, list):
            return f"{node_id}: 'ports' must be a list"
        for port in ports:
            if not isinstance(port, dict) or not isinstance(port.get("name"), str):
                return f"{node_id}: every port needs a 'name'"
            if port.get("direction", "input") not in _DIRECTIONS:
                return f"{node_id}.{port['name']}: unknown direction {port.get('direction')!r}"
    return None


def register_stub_nodes(factory: Any, nodes_json_path: str | os.PathLike,
                        replace: bool = False) -> list[str]:
    """Register a stub for every node of `nodes_json_path`; returns the ids registered."""
    ids = []
    for node_id, (cls, ports) in stub_node_types(nodes_json_path).items():
        factory.register_node_type(node_id, cls, ports=ports, replace=replace)
        ids.append(node_id)
    return ids
