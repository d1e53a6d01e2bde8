"""The trees soccerbt ships (package data of soccerbt.trees, in xml/): ``default_tree_path()``,
our own game tree, which every match plays unless told otherwise."""
from __future__ import annotations

from pathlib import Path

__all__ = ["default_tree_path", "SHIPPED_TREES_DIR"]

#: the folder of the shipped trees (game.xml and its subtrees/)
SHIPPED_TREES_DIR = Path(__file__).resolve().parent / "xml"


def default_tree_path() -> Path:
    """Our own game tree: soccerbt/trees/xml/game.xml."""
    return SHIPPED_TREES_DIR / "game.xml"
