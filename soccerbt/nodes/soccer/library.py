"""Every soccer node type by id: Booster's (booster.py) and ours (ours.py)."""
from __future__ import annotations

from soccerbt.nodes.soccer.booster import BOOSTER_NODE_TYPES
from soccerbt.nodes.soccer.ours import OUR_NODE_TYPES

__all__ = ["NODE_TYPES", "BOOSTER_NODE_TYPES", "OUR_NODE_TYPES"]

if set(BOOSTER_NODE_TYPES) & set(OUR_NODE_TYPES):  # an id must mean one node
    raise RuntimeError("a soccer node id is defined twice")
NODE_TYPES: dict[str, type] = {**BOOSTER_NODE_TYPES, **OUR_NODE_TYPES}
