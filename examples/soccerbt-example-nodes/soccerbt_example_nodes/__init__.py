"""An example of a team's own soccerbt nodes: ``BallCloserThan`` (a condition) and ``WalkToSpot``
(an action), registered by ``register_nodes``, the function this package names in the entry-point
group ``soccerbt.nodes`` (pyproject.toml). ``trees/sweeper.xml`` plays with them."""
from __future__ import annotations

from pathlib import Path

from soccerbt_example_nodes.nodes import BallCloserThan, WalkToSpot

__all__ = ["BallCloserThan", "WalkToSpot", "register_nodes", "SWEEPER_TREE"]

#: a tree that uses both nodes (soccerbt run --blue-tree ...)
SWEEPER_TREE = Path(__file__).resolve().parent / "trees" / "sweeper.xml"


def register_nodes(registrar) -> None:  # noqa: ANN001 - a soccerbt.trees.plugins.NodeRegistrar
    """Register this package's nodes (soccerbt calls it once per tree factory)."""
    registrar.register_node_type("BallCloserThan", BallCloserThan,
                                 description="SUCCESS while the ball is known and nearer than distance")
    registrar.register_node_type("WalkToSpot", WalkToSpot,
                                 description="walk to a spot of the field (team frame); RUNNING until there")
