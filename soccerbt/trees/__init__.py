"""The XML engine: lenient BT.CPP v4 parsing with line numbers, includes, the factory that
builds py_trees from XML, SubTree remapping, and TreeNodesModel export.

Our own shipped trees live in xml/ (package data). Knows nothing of soccer.
Public names: TreeFactory, TreeLoadError, Tree, NodeTickError.
"""
from soccerbt.trees.errors import NodeTickError, TreeLoadError
from soccerbt.trees.factory import Manifest, TreeFactory
from soccerbt.trees.tree import SubtreeInfo, Tree

__all__ = ["TreeFactory", "TreeLoadError", "Tree", "NodeTickError", "Manifest", "SubtreeInfo"]
