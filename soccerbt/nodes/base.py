"""The node base classes, importable from here (a team's nodes and node plugins import them so).

They live in ``tree_node`` (``TreeNode``: BehaviorTree.CPP 4.10's node semantics as a py_trees
Behaviour, and the errors a tick raises), ``node_kinds`` (``ActionNode``, ``ConditionNode``,
``SyncActionNode``, ``StatefulActionNode``, ``ControlNode``, ``DecoratorNode``) and
``node_config`` (``NodeConfig``, ``TreeEnv``); the package ``soccerbt.nodes`` exports them from here.
"""
from soccerbt.nodes.node_config import NodeConfig, TreeEnv
from soccerbt.nodes.node_kinds import (
    ActionNode,
    ConditionNode,
    ControlNode,
    DecoratorNode,
    LeafNode,
    StatefulActionNode,
    SyncActionNode,
)
from soccerbt.nodes.ports import PortDirection
from soccerbt.nodes.tree_node import LogicError, NodeTickError, PortError, TreeNode, pre_conditions

__all__ = [
    "TreeNode", "LeafNode", "ActionNode", "ConditionNode", "SyncActionNode",
    "StatefulActionNode", "ControlNode", "DecoratorNode", "NodeConfig", "TreeEnv",
    "LogicError", "PortError", "NodeTickError", "PortDirection", "pre_conditions",
]
