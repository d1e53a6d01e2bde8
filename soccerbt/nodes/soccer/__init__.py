"""Booster-compatible soccer nodes: thin nodes that read ports and the blackboard and call
services through the robot context (``context.RobotContext``).

``register_soccer_nodes(factory)`` registers every soccer node type (Booster's ids of
``../shared/booster/nodes.json`` plus our own generic ones) on a ``TreeFactory`` and declares
the blackboard schema's keys on it. ``booster_version`` picks Booster's node library ("main",
"2026"; default: the environment variable ``SOCCERBT_BOOSTER_VERSION``, else "auto", the union
whose version-dependent defaults follow each tree's version: see ``versions.py``). Importing
this package imports the node modules (``library``); none of them loads numpy, scipy or shapely
before a node needs them.
"""
from __future__ import annotations

from typing import Any

from soccerbt.blackboard.schema import declare_on
from soccerbt.nodes.soccer import library, versions

__all__ = ["register_soccer_nodes", "soccer_node_types"]


def soccer_node_types(booster_version: str | None = None) -> dict[str, type]:
    """Node id -> class of every soccer node type, with Booster's library of
    ``booster_version`` (None: ``SOCCERBT_BOOSTER_VERSION``, else "auto")."""
    if booster_version is None:
        booster_version = versions.booster_version_from_env() or versions.AUTO
    return library.node_types(booster_version)


def register_soccer_nodes(factory: Any, declare_keys: bool = True, booster_version: str | None = None) -> None:
    """Register every soccer node type on ``factory`` (Booster's library of ``booster_version``,
    see ``soccer_node_types``); with ``declare_keys`` also declare the blackboard schema (when
    the factory supports ``declare_blackboard_keys``)."""
    for node_id, cls in soccer_node_types(booster_version).items():
        factory.register_node_type(node_id, cls)
    if declare_keys and hasattr(factory, "declare_blackboard_keys"):
        declare_on(factory)
