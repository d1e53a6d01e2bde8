"""The node library: base classes and typed ports, the BT.CPP built-ins, and (in soccer/)
the Booster-compatible soccer nodes.

Outside soccer/ this knows nothing of soccer. May import blackboard, services, drivers.
Public names: ActionNode, ConditionNode, SyncActionNode, StatefulActionNode, ControlNode,
DecoratorNode, TreeNode, InputPort, OutputPort, BidirectionalPort, NodeStatus, NodeTickError.
"""
from soccerbt.nodes.base import (
    ActionNode,
    ConditionNode,
    ControlNode,
    DecoratorNode,
    LeafNode,
    LogicError,
    NodeConfig,
    NodeTickError,
    PortError,
    StatefulActionNode,
    SyncActionNode,
    TreeEnv,
    TreeNode,
)
from soccerbt.nodes.ports import (
    BidirectionalPort,
    InputPort,
    OutputPort,
    PortDirection,
    PortInfo,
    SharedQueue,
    Unsigned,
)
from soccerbt.nodes.status import NodeStatus

__all__ = [
    "ActionNode", "ConditionNode", "ControlNode", "DecoratorNode", "LeafNode", "LogicError",
    "NodeConfig", "NodeTickError", "PortError", "StatefulActionNode", "SyncActionNode",
    "TreeEnv", "TreeNode", "BidirectionalPort", "InputPort", "OutputPort", "PortDirection",
    "PortInfo", "SharedQueue", "Unsigned", "NodeStatus",
]
