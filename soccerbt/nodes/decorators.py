"""BT.CPP 4.10 decorators: Inverter, ForceSuccess, ForceFailure, KeepRunningUntilFailure,
Repeat, RetryUntilSuccessful, RunOnce, Precondition, Delay, Timeout, Loop<T>,
SkipUnlessUpdated / WaitValueUpdate (EntryUpdatedDecorator) and SubTree.

Delay and Timeout use the tree's injectable clock through TreeEnv timers, so simulated time
drives them; BT.CPP's timer thread becomes a timer fired between ticks.
"""
from __future__ import annotations

from collections import deque
from typing import Any

from soccerbt.nodes.actions import entry_port_key
from soccerbt.nodes.node_config import NodeConfig
from soccerbt.nodes.node_kinds import DecoratorNode
from soccerbt.nodes.ports import (
    BidirectionalPort,
    InputPort,
    OutputPort,
    SharedQueue,
    Unsigned,
    convert_from_string,
    parse_blackboard_pointer,
)
from soccerbt.nodes.script_cache import compile_script
from soccerbt.nodes.status import FAILURE, IDLE, RUNNING, SKIPPED, SUCCESS, NodeStatus
from soccerbt.nodes.tree_node import LogicError

__all__ = [
    "InverterNode", "ForceSuccessNode", "ForceFailureNode", "KeepRunningUntilFailureNode",
    "RepeatNode", "RetryNode", "RunOnceNode", "PreconditionNode", "DelayNode", "TimeoutNode",
    "loop_node_type", "SkipUnlessUpdatedNode", "WaitValueUpdateNode", "SubTreeNode",
]


def _idle_child(name: str) -> LogicError:
    return LogicError(f"[{name}]: A children should not return IDLE")


def _no_child(name: str) -> LogicError:
    """A decorator ticked before set_child() (the loader gives each one of a tree its child)."""
    return LogicError(f"Decorator [{name}] has no child")


class InverterNode(DecoratorNode):
    def bt_tick(self) -> NodeStatus:
        self._bt_status = RUNNING
        child = self.child
        if child is None:
            raise _no_child(self.name)
        cs = child.execute_tick()
        if cs is SUCCESS:
            self.reset_child()
            return FAILURE
        if cs is FAILURE:
            self.reset_child()
            return SUCCESS
        if cs is RUNNING or cs is SKIPPED:
            return cs
        raise _idle_child(self.name)


class ForceSuccessNode(DecoratorNode):
    def bt_tick(self) -> NodeStatus:
        self._bt_status = RUNNING
        child = self.child
        if child is None:
            raise _no_child(self.name)
        cs = child.execute_tick()
        if cs is SUCCESS or cs is FAILURE:
            self.reset_child()
            return SUCCESS
        return cs


class ForceFailureNode(DecoratorNode):
    def bt_tick(self) -> NodeStatus:
        self._bt_status = RUNNING
        child = self.child
        if child is None:
            raise _no_child(self.name)
        cs = child.execute_tick()
        if cs is SUCCESS or cs is FAILURE:
            self.reset_child()
            return FAILURE
        return cs


class KeepRunningUntilFailureNode(DecoratorNode):
    def bt_tick(self) -> NodeStatus:
        self._bt_status = RUNNING
        child = self.child
        if child is None:
            raise _no_child(self.name)
        cs = child.execute_tick()
        if cs is FAILURE:
            self.reset_child()
            return FAILURE
        if cs is SUCCESS:
            self.reset_child()
            return RUNNING
        if cs is RUNNING:
            return RUNNING
        return self._bt_status  # BT.CPP returns status() (RUNNING) for anything else


class RepeatNode(DecoratorNode):
    """Repeat num_cycles times (-1: forever); yields RUNNING after a synchronous success."""

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("num_cycles", int, description="Repeat a successful child up to N "
                          "times. Use -1 to create an infinite loop.")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._count = 0

    def bt_tick(self) -> NodeStatus:
        try:
            num = self.get_input("num_cycles")
        except Exception:  # noqa: BLE001
            raise RuntimeError("Missing parameter [num_cycles] in RepeatNode") from None
        do_loop = self._count < num or num == -1
        self._bt_status = RUNNING
        child = self.child
        while do_loop:
            if child is None:
                raise _no_child(self.name)
            prev = child._bt_status
            cs = child.execute_tick()
            if cs is SUCCESS:
                self._count += 1
                do_loop = self._count < num or num == -1
                self.reset_child()
                if prev is IDLE and do_loop:
                    self.env.wake_up = True
                    return RUNNING
            elif cs is FAILURE:
                self._count = 0
                self.reset_child()
                return FAILURE
            elif cs is RUNNING:
                return RUNNING
            elif cs is SKIPPED:
                self.reset_child()
                return SKIPPED
            else:
                raise _idle_child(self.name)
        self._count = 0
        return SUCCESS

    def halt(self) -> None:
        self._count = 0
        DecoratorNode.halt(self)


class RetryNode(DecoratorNode):
    """RetryUntilSuccessful num_attempts times (-1: forever)."""

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("num_attempts", int, description="Execute again a failing child up "
                          "to N times. Use -1 to create an infinite loop.")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._tries = 0

    def halt(self) -> None:
        self._tries = 0
        DecoratorNode.halt(self)

    def bt_tick(self) -> NodeStatus:
        try:
            max_attempts = self.get_input("num_attempts")
        except Exception:  # noqa: BLE001
            raise RuntimeError("Missing parameter [num_attempts] in RetryNode") from None
        do_loop = self._tries < max_attempts or max_attempts == -1
        self._bt_status = RUNNING
        child = self.child
        while do_loop:
            if child is None:
                raise _no_child(self.name)
            prev = child._bt_status
            cs = child.execute_tick()
            if cs is SUCCESS:
                self._tries = 0
                self.reset_child()
                return SUCCESS
            if cs is FAILURE:
                self._tries += 1
                max_attempts = self.get_input("num_attempts", max_attempts)
                do_loop = self._tries < max_attempts or max_attempts == -1
                self.reset_child()
                if prev is IDLE and do_loop:
                    self.env.wake_up = True
                    return RUNNING
            elif cs is RUNNING:
                return RUNNING
            elif cs is SKIPPED:
                self.reset_child()
                return SKIPPED
            else:
                raise _idle_child(self.name)
        self._tries = 0
        return FAILURE


class RunOnceNode(DecoratorNode):
    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("then_skip", bool, True, "If true, skip after the first execution, "
                          "otherwise return the same NodeStatus returned once by the child.")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._already = False
        self._returned = IDLE

    def bt_tick(self) -> NodeStatus:
        skip = self.get_input("then_skip", True)
        if self._already:
            return SKIPPED if skip else self._returned
        self._bt_status = RUNNING
        child = self.child
        if child is None:
            raise _no_child(self.name)
        st = child.execute_tick()
        if st is SUCCESS or st is FAILURE:
            self._already = True
            self._returned = st
            self.reset_child()
        return st


class PreconditionNode(DecoratorNode):
    """Precondition if/else; once the child started it keeps ticking it (even after a halt)."""

    SCRIPT_PORTS = ("if",)

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("if", str),
                InputPort("else", NodeStatus, FAILURE, "Return status if condition is false")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._script = ""  # as in BT.CPP: an empty `if` is never compiled (no executor)
        self._executor: Any = None
        self._children_running = False
        self._load_executor()

    def _load_executor(self) -> None:
        try:
            script = self.get_input("if")
        except Exception:  # noqa: BLE001
            raise RuntimeError("Missing parameter [if] in Precondition") from None
        if script == self._script:
            return
        self._executor = compile_script(script, self.env.enums)
        self._script = script

    def bt_tick(self) -> NodeStatus:
        self._load_executor()
        try:
            else_return = self.get_input("else")
        except Exception:  # noqa: BLE001
            raise RuntimeError("Missing parameter [else] in Precondition") from None
        if not self._children_running:
            if self._executor is None:  # BT.CPP calls an empty std::function
                raise RuntimeError("bad_function_call (Precondition with an empty [if])")
            self._children_running = bool(self._executor.evaluate_bool(self.bb))
        if not self._children_running:
            return else_return
        child = self.child
        if child is None:
            raise _no_child(self.name)
        cs = child.execute_tick()
        if cs is SUCCESS or cs is FAILURE:
            self.reset_child()
            self._children_running = False
        return cs


class DelayNode(DecoratorNode):
    """Delay: wait delay_msec (tree clock), then tick the child."""

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("delay_msec", Unsigned,
                          description="Tick the child after a few milliseconds")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._started = False
        self._complete = False
        self._aborted = False
        self._timer = 0

    def halt(self) -> None:
        self._started = False
        self.env.cancel_timer(self._timer)
        DecoratorNode.halt(self)

    def _on_timer(self, aborted: bool) -> None:
        self._complete = not aborted
        if not aborted:
            self.env.wake_up = True

    def bt_tick(self) -> NodeStatus:
        try:
            msec = self.get_input("delay_msec")
        except Exception:  # noqa: BLE001
            raise RuntimeError("Missing parameter [delay_msec] in DelayNode") from None
        if not self._started:
            self._complete = False
            self._aborted = False
            self._started = True
            self._bt_status = RUNNING
            self._timer = self.env.add_timer(msec / 1000.0, self._on_timer)
        if self._aborted:
            self._aborted = False
            self._started = False
            return FAILURE
        if self._complete:
            child = self.child
            if child is None:
                raise _no_child(self.name)
            cs = child.execute_tick()
            if cs is SUCCESS or cs is FAILURE:
                self._started = False
                self._aborted = False
                self.reset_child()
            return cs
        return RUNNING


class TimeoutNode(DecoratorNode):
    """Timeout: halt the child and fail when it stays RUNNING longer than msec."""

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("msec", Unsigned, description="After a certain amount of time, halt() "
                          "the child if it is still running.")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._started = False
        self._child_halted = False
        self._timer = 0

    def _on_timer(self, aborted: bool) -> None:
        if aborted:
            return
        child = self.child
        if child is None:
            raise _no_child(self.name)
        if child._bt_status is RUNNING:
            self._child_halted = True
            self.reset_child()
            self.env.wake_up = True

    def bt_tick(self) -> NodeStatus:
        try:
            msec = self.get_input("msec")
        except Exception:  # noqa: BLE001
            raise RuntimeError("Missing parameter [msec] in TimeoutNode") from None
        if not self._started:
            self._started = True
            self._bt_status = RUNNING
            self._child_halted = False
            if msec > 0:
                self._timer = self.env.add_timer(msec / 1000.0, self._on_timer)
        if self._child_halted:
            self._started = False
            return FAILURE
        child = self.child
        if child is None:
            raise _no_child(self.name)
        cs = child.execute_tick()
        if cs is SUCCESS or cs is FAILURE:
            self._started = False
            self.env.cancel_timer(self._timer)
            self.reset_child()
        return cs

    def halt(self) -> None:
        self._started = False
        self.env.cancel_timer(self._timer)
        DecoratorNode.halt(self)


def loop_node_type(item_type: type, registration_id: str) -> type:
    """BT.CPP LoopNode<T>: pop each element of `queue` into `value` and tick the child."""

    class LoopNode(DecoratorNode):
        ITEM_TYPE = item_type

        @classmethod
        def provided_ports(cls) -> list:
            # untyped, as in BT.CPP 4.10 (issue #969): the entry may hold a queue, a list or a
            # string, and a string written there stays a string
            return [BidirectionalPort("queue", None),
                    InputPort("if_empty", NodeStatus, SUCCESS,
                              "Status to return if queue is empty: SUCCESS, FAILURE, SKIPPED"),
                    OutputPort("value", item_type)]

        def __init__(self, name: str, config: NodeConfig | None = None) -> None:
            super().__init__(name, config)
            self._child_running = False
            self._static_queue: deque | None = None
            self._current: deque | None = None
            raw = self.get_raw_port_value("queue")
            if parse_blackboard_pointer(raw) is None:
                self._static_queue = convert_from_string(SharedQueue(item_type), raw,
                                                         self.env.enums)

        def _port_queue(self) -> deque | None:
            """The queue to pop from the `queue` entry (BT.CPP LoopNode::tick): a deque held by
            the entry is shared (popping changes the entry); a list (std::vector<T>) or a
            string is converted once per run into the node's own queue, and the entry keeps
            its value, so the next run starts from it again."""
            raw = self.config.input_ports.get("queue", "")
            key = parse_blackboard_pointer(raw)
            if raw in ("{=}", "="):
                key = "queue"
            if key is None:
                return self._current
            entry = self.bb.get_entry(key)
            if entry is None or entry.value is None:
                raise RuntimeError("Any::cast failed because it is empty")
            value = entry.value
            if isinstance(value, deque):
                return value
            if self._current is not None:
                return self._current
            if isinstance(value, (list, tuple)):
                return deque(value)
            if isinstance(value, str):
                return convert_from_string(SharedQueue(item_type), value, self.env.enums)
            raise RuntimeError("LoopNode: port 'queue' must contain either SharedQueue<T>, "
                               "std::vector<T>, or a string")

        def bt_tick(self) -> NodeStatus:
            popped = False
            if self._bt_status is IDLE:
                self._child_running = False
                self._current = None
                if self._static_queue is not None:
                    self._current = deque(self._static_queue)
            if not self._child_running:
                if self._static_queue is None:
                    self._current = self._port_queue()
                q = self._current
                if q:
                    value = q.popleft()
                    popped = True
                    if "value" in self.config.output_ports:
                        self.set_output("value", value)
            if not popped and not self._child_running:
                return self.get_input("if_empty")
            if self._bt_status is IDLE:
                self._bt_status = RUNNING
            child = self.child
            if child is None:
                raise _no_child(self.name)
            cs = child.execute_tick()
            self._child_running = cs is RUNNING
            if cs is SUCCESS or cs is FAILURE:
                self.reset_child()
            if cs is FAILURE:
                return FAILURE
            return RUNNING

    LoopNode.__name__ = LoopNode.__qualname__ = registration_id
    return LoopNode


class _EntryUpdatedDecorator(DecoratorNode):
    """BT.CPP EntryUpdatedDecorator: tick the child only when `entry` was written since."""

    IF_NOT_UPDATED = SKIPPED

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("entry", None, description="Entry to check")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._entry_key = entry_port_key(name, self.config)
        self._sequence_id = 0
        self._still_executing = False

    def bt_tick(self) -> NodeStatus:
        if self._still_executing:
            child = self.child
            if child is None:
                raise _no_child(self.name)
            st = child.execute_tick()
            self._still_executing = st is RUNNING
            return st
        entry = self.bb.get_entry(self._entry_key)
        if entry is None:
            return self.IF_NOT_UPDATED
        current, previous = entry.sequence_id, self._sequence_id
        self._sequence_id = current
        if previous == current:
            return self.IF_NOT_UPDATED
        child = self.child
        if child is None:
            raise _no_child(self.name)
        st = child.execute_tick()
        self._still_executing = st is RUNNING
        return st

    def halt(self) -> None:
        self._still_executing = False
        DecoratorNode.halt(self)


class SkipUnlessUpdatedNode(_EntryUpdatedDecorator):
    IF_NOT_UPDATED = SKIPPED


class WaitValueUpdateNode(_EntryUpdatedDecorator):
    IF_NOT_UPDATED = RUNNING


class SubTreeNode(DecoratorNode):
    """The node that holds an instantiated subtree (its child is the subtree's root)."""

    NODE_KIND = "SubTree"

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("_autoremap", bool, False,
                          "If true, all the ports with the same name will be remapped")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self.subtree_id = ""
        self.subtree_blackboard: Any = None

    def bt_tick(self) -> NodeStatus:
        if self._bt_status is IDLE:
            self._bt_status = RUNNING
        child = self.child
        if child is None:
            raise _no_child(self.name)
        cs = child.execute_tick()
        if cs is SUCCESS or cs is FAILURE:
            # reset_child() inline (a call saved on every SubTree): a finished child is not
            # RUNNING, so there is nothing to halt
            child._bt_status = IDLE
        return cs
