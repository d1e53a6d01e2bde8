"""Booster-compatible soccer nodes: thin nodes that read ports and the blackboard and call
services through the robot context (``context.RobotContext``).

``register_soccer_nodes(factory)`` registers every soccer node type (Booster's ids of
``../shared/booster/nodes.json`` plus our own generic ones) on a ``TreeFactory`` and declares
the blackboard schema's keys on it. Importing this package imports no node module; the
registration does.
"""
from __future__ import annotations

from typing import Any

__all__ = ["register_soccer_nodes", "soccer_node_types"]


def soccer_node_types() -> dict[str, type]:
    """Node id -> class of every soccer node type."""
    types: dict[str, type] = {}
    try:
        from soccerbt.nodes.soccer import library
    except ImportError:  # the node modules are still being written
        return types
    types.update(library.NODE_TYPES)
    return types


def register_soccer_nodes(factory: Any, declare_keys: bool = True) -> None:
    """Register every soccer node type on ``factory``; with ``declare_keys`` also declare the
    blackboard schema (when the factory supports ``declare_blackboard_keys``)."""
    for node_id, cls in soccer_node_types().items():
        factory.register_node_type(node_id, cls)
    if declare_keys and hasattr(factory, "declare_blackboard_keys"):
        from soccerbt.blackboard.schema import declare_on

        declare_on(factory)
