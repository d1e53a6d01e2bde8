"""A registered node type (``Manifest``), and what loading and building read of the factory
that holds them (``Registry``).

Below ``loading``, ``building`` and ``factory``: ``TreeFactory`` is a ``Registry``; the loader
and the builder know only this protocol, so neither imports the factory that uses them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from soccerbt.nodes.ports import PortInfo

if TYPE_CHECKING:
    from soccerbt.nodes.tree_node import TreeNode

__all__ = ["Manifest", "Registry"]


@dataclass
class Manifest:
    """A registered node type: ID, class, kind (Action/Condition/Control/Decorator/SubTree),
    ports in declaration order, description."""

    registration_id: str
    cls: type[TreeNode]
    kind: str
    ports: dict[str, PortInfo]
    description: str = ""
    builtin: bool = False


class Registry(Protocol):
    """What the loader and the builder read of a ``TreeFactory``: the registered node types,
    the scripting enums, the declared blackboard keys and the file size limit."""

    max_file_bytes: int
    _manifests: dict[str, Manifest]
    _enums: dict[str, int]
    _declared_keys: frozenset[str] | None
