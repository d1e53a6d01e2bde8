"""The base classes of a tree's nodes, one per BT.CPP node kind, on ``TreeNode``.

Leaves: ``ActionNode`` and ``ConditionNode`` (user ``update()``, ``on_halted()``),
``SyncActionNode`` (never RUNNING), ``StatefulActionNode`` (``on_start``/``on_running``/
``on_halted``). Composites: ``ControlNode`` (children), ``DecoratorNode`` (one child).
"""
from __future__ import annotations

from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status as PTStatus

from soccerbt.nodes.node_config import NodeConfig
from soccerbt.nodes.status import FAILURE, IDLE, RUNNING, SUCCESS, NodeStatus
from soccerbt.nodes.tree_node import _NS_TO_PT, _PT_FAILURE, _PT_RUNNING, _PT_SUCCESS, _PT_TO_NS, LogicError, TreeNode

__all__ = ["LeafNode", "ActionNode", "ConditionNode", "SyncActionNode", "StatefulActionNode", "ControlNode",
           "DecoratorNode"]


class LeafNode(TreeNode):
    """A node without children."""


class ActionNode(LeafNode):
    """A user action: implement `update()` (-> Status) and optionally `on_halted()`.

    `update()` may return a py_trees Status or a NodeStatus. py_trees' `initialise()` runs
    when the node starts from IDLE and `terminate(status)` when it completes or is halted,
    if the subclass overrides them.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._has_initialise = cls.initialise is not Behaviour.initialise
        cls._has_terminate = cls.terminate is not Behaviour.terminate

    _has_initialise = False
    _has_terminate = False

    def update(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.update() is not implemented")

    def on_halted(self) -> None:
        """Called when the node is halted while RUNNING."""

    def bt_tick(self) -> NodeStatus:
        if self._has_initialise and self._bt_status is IDLE:
            self.initialise()
        result = self.update()
        st: NodeStatus | None
        # identity tests before the table: hashing an Enum member runs Python code
        if result is _PT_SUCCESS or result is SUCCESS:
            st = SUCCESS
        elif result is _PT_RUNNING or result is RUNNING:
            st = RUNNING
        elif result is _PT_FAILURE or result is FAILURE:
            st = FAILURE
        else:
            st = _PT_TO_NS.get(result)
        if st is None or st is IDLE:
            raise LogicError(f"Node [{self.name}]: update() must return SUCCESS, FAILURE or "
                             "RUNNING")
        if self._has_terminate and (st is SUCCESS or st is FAILURE):
            self.terminate(_NS_TO_PT[st])
        return st

    def halt(self) -> None:
        if self._bt_status is RUNNING:
            self.on_halted()
            if self._has_terminate:
                self.terminate(PTStatus.INVALID)
        self._bt_status = IDLE


class ConditionNode(ActionNode):
    """A condition: `update()` returns SUCCESS or FAILURE."""

    NODE_KIND = "Condition"


class SyncActionNode(ActionNode):
    """An action that never returns RUNNING (BT.CPP SyncActionNode)."""

    EXEC_MODE = 1

    def halt(self) -> None:
        self._bt_status = IDLE


class StatefulActionNode(ActionNode):
    """BT.CPP StatefulActionNode: `on_start()`, `on_running()`, `on_halted()`."""

    def on_start(self) -> Any:
        """Called when ticked from IDLE (BT.CPP onStart; overriding `onStart` works too)."""
        return self.onStart()

    def on_running(self) -> Any:
        """Called when ticked while RUNNING (BT.CPP onRunning)."""
        return self.onRunning()

    def on_halted(self) -> None:
        """Called when halted while RUNNING (BT.CPP onHalted)."""
        self.onHalted()

    def onStart(self) -> Any:  # noqa: N802 - BT.CPP's name
        raise NotImplementedError(f"{type(self).__name__} must implement on_start()")

    def onRunning(self) -> Any:  # noqa: N802
        raise NotImplementedError(f"{type(self).__name__} must implement on_running()")

    def onHalted(self) -> None:  # noqa: N802
        pass

    def bt_tick(self) -> NodeStatus:
        prev = self._bt_status
        if prev is IDLE:
            st = _PT_TO_NS.get(self.on_start())
            if st is None or st is IDLE:
                raise LogicError("StatefulActionNode::onStart() must not return IDLE")
            return st
        if prev is RUNNING:
            st = _PT_TO_NS.get(self.on_running())
            if st is None or st is IDLE:
                raise LogicError("StatefulActionNode::onRunning() must not return IDLE")
            return st
        return prev

    def halt(self) -> None:
        if self._bt_status is RUNNING:
            self.on_halted()
        self._bt_status = IDLE


# --------------------------------------------------------------------------- composites


class ControlNode(TreeNode):
    """A node with one or more children (BT.CPP ControlNode)."""

    NODE_KIND = "Control"

    def add_child(self, child: TreeNode) -> None:
        child.parent = self
        self.children.append(child)

    def halt(self) -> None:
        self.reset_children()
        self._bt_status = IDLE

    def reset_children(self) -> None:
        for child in self.children:
            status = child._bt_status
            if status is not IDLE:
                if status is RUNNING:
                    child.halt_node()
                child._bt_status = IDLE

    def halt_child(self, index: int) -> None:
        child = self.children[index]
        if child._bt_status is RUNNING:
            child.halt_node()
        child._bt_status = IDLE

    def halt_children(self, first: int = 0) -> None:
        children = self.children
        for i in range(first, len(children)):
            child = children[i]
            status = child._bt_status
            if status is not IDLE:
                if status is RUNNING:
                    child.halt_node()
                child._bt_status = IDLE


class DecoratorNode(TreeNode):
    """A node with exactly one child (BT.CPP DecoratorNode)."""

    NODE_KIND = "Decorator"
    EXEC_MODE = 2

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self.child: TreeNode | None = None

    def set_child(self, child: TreeNode) -> None:
        if self.child is not None:
            raise LogicError(f"Decorator [{self.name}] has already a child assigned")
        child.parent = self
        self.child = child
        self.children.append(child)

    add_child = set_child

    def halt(self) -> None:
        self.reset_child()
        self._bt_status = IDLE

    def reset_child(self) -> None:
        child = self.child
        if child is None:
            return
        if child._bt_status is RUNNING:
            child.halt_node()
        child._bt_status = IDLE

    halt_child = reset_child
