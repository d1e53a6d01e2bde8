"""Every soccer node type by id: Booster's (booster.py, one library per Booster version, see
versions.py) and soccerbt's own (soccerbt_nodes.py)."""
from __future__ import annotations

from soccerbt.nodes.soccer.booster import BOOSTER_NODE_TYPES, booster_node_types
from soccerbt.nodes.soccer.soccerbt_nodes import OUR_NODE_TYPES
from soccerbt.nodes.soccer.versions import AUTO

__all__ = ["NODE_TYPES", "BOOSTER_NODE_TYPES", "OUR_NODE_TYPES", "node_types"]

if set(booster_node_types(AUTO)) & set(OUR_NODE_TYPES):  # an id must mean one node
    raise RuntimeError("a soccer node id is defined twice")
NODE_TYPES: dict[str, type] = {**BOOSTER_NODE_TYPES, **OUR_NODE_TYPES}  # Booster's main branch


def node_types(booster_version: str = AUTO) -> dict[str, type]:
    """Every soccer node type with Booster's library of ``booster_version``."""
    return {**booster_node_types(booster_version), **OUR_NODE_TYPES}
