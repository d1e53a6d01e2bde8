"""BT.CPP 4.10 control nodes: Sequence, Fallback (and Async), SequenceWithMemory,
ReactiveSequence/Fallback, Parallel, ParallelAll, IfThenElse, WhileDoElse, SwitchN, TryCatch.

Each reproduces the corresponding src/controls/*.cpp of BehaviorTree.CPP 4.10: the same child
order, the same halts (through ControlNode.reset_children/halt_child) and the same wake-up
yields (`emit_wake_up` + RUNNING) of the async variants.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from soccerbt.nodes.node_config import NodeConfig
from soccerbt.nodes.node_kinds import ControlNode
from soccerbt.nodes.ports import InputPort
from soccerbt.nodes.status import FAILURE, IDLE, RUNNING, SKIPPED, SUCCESS, NodeStatus
from soccerbt.nodes.tree_node import LogicError

__all__ = [
    "SequenceNode", "AsyncSequenceNode", "FallbackNode", "AsyncFallbackNode",
    "SequenceWithMemoryNode", "ReactiveSequenceNode", "ReactiveFallbackNode", "ParallelNode",
    "ParallelAllNode", "IfThenElseNode", "WhileDoElseNode", "TryCatchNode", "switch_node_type",
]


def _idle_child(name: str) -> LogicError:
    return LogicError(f"[{name}]: A children should not return IDLE")


class _ChainNode(ControlNode):
    """Sequence and Fallback are mirror images: tick children in order until one returns
    ``STOP_ON`` (that status ends the chain and resets it), a child returning ``GO_ON`` moves
    to the next one, and ``GO_ON`` is also the result when every child went on."""

    STOP_ON: NodeStatus
    GO_ON: NodeStatus
    ASYNC = False

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._idx = 0
        self._skipped = 0

    def halt(self) -> None:
        self._idx = 0
        self._skipped = 0
        ControlNode.halt(self)

    def bt_tick(self) -> NodeStatus:
        children = self.children
        n = len(children)
        if self._bt_status is not RUNNING:
            if self._bt_status is IDLE:
                self._skipped = 0
            self._bt_status = RUNNING
        asynch, stop_on, go_on = self.ASYNC, self.STOP_ON, self.GO_ON
        while self._idx < n:
            child = children[self._idx]
            prev = child._bt_status if asynch else IDLE  # only the async variants need it
            cs = child.execute_tick()
            # exclusive identity tests, the usual result first
            if cs is go_on:
                self._idx += 1
                if asynch and prev is IDLE and self._idx < n:
                    self.env.wake_up = True  # BT.CPP's async controls yield after a sync child
                    return RUNNING
            elif cs is RUNNING:
                return RUNNING
            elif cs is stop_on:
                self.reset_children()
                self._idx = 0
                return stop_on
            elif cs is SKIPPED:
                self._idx += 1
                self._skipped += 1
            else:
                raise _idle_child(self.name)
        all_skipped = self._skipped == n
        if self._idx == n:
            self.reset_children()
            self._idx = 0
            self._skipped = 0
        return SKIPPED if all_skipped else go_on


class SequenceNode(_ChainNode):
    """Sequence: tick children in order; FAILURE restarts from the first child."""

    STOP_ON, GO_ON = FAILURE, SUCCESS


class AsyncSequenceNode(SequenceNode):
    """AsyncSequence: yields RUNNING after each child that finished synchronously."""

    ASYNC = True


class FallbackNode(_ChainNode):
    """Fallback: tick children in order until one succeeds."""

    STOP_ON, GO_ON = SUCCESS, FAILURE


class AsyncFallbackNode(FallbackNode):
    """AsyncFallback: yields RUNNING after each child that failed synchronously."""

    ASYNC = True


class SequenceWithMemoryNode(ControlNode):
    """SequenceWithMemory: a FAILURE does not restart; halting keeps the current index."""

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._idx = 0
        self._skipped = 0

    def bt_tick(self) -> NodeStatus:
        children = self.children
        n = len(children)
        if self._bt_status is not RUNNING:
            if self._bt_status is IDLE:
                self._skipped = 0
            self._bt_status = RUNNING
        while self._idx < n:
            child = children[self._idx]
            prev = child._bt_status
            cs = child.execute_tick()
            if cs is RUNNING:
                return RUNNING
            if cs is FAILURE:
                self.halt_children(self._idx)
                return FAILURE
            if cs is SUCCESS:
                self._idx += 1
                if prev is IDLE and self._idx < n:
                    self.env.wake_up = True
                    return RUNNING
            elif cs is SKIPPED:
                self._idx += 1
                self._skipped += 1
            else:
                raise _idle_child(self.name)
        all_skipped = self._skipped == n
        if self._idx == n:
            self.reset_children()
            self._idx = 0
            # 4.10 forgets the skips of a finished run: a node left RUNNING by an all-skipped
            # tick (a SKIPPED result keeps the status tick() set) counts afresh
            self._skipped = 0
        return SKIPPED if all_skipped else SUCCESS


class _ReactiveChainNode(ControlNode):
    """ReactiveSequence and ReactiveFallback: every tick restarts from the first child; a
    RUNNING child halts every other one; ``STOP_ON`` ends the chain, ``GO_ON`` moves on."""

    STOP_ON: NodeStatus
    GO_ON: NodeStatus

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._running_child = -1

    def halt(self) -> None:
        self._running_child = -1
        ControlNode.halt(self)

    def bt_tick(self) -> NodeStatus:
        skipped = 0
        if self._bt_status is not RUNNING:
            if self._bt_status is IDLE:
                self._running_child = -1
            self._bt_status = RUNNING
        children = self.children
        stop_on, go_on = self.STOP_ON, self.GO_ON
        index = -1
        for child in children:
            index += 1
            cs = child.execute_tick()
            # exclusive identity tests, the usual results first (Booster's reactive chains
            # mostly hold children that succeed or are skipped by their `_while`)
            if cs is go_on:
                continue
            if cs is SKIPPED:
                skipped += 1
                status = child._bt_status
                if status is not IDLE:  # usually IDLE already (skipped by its `_while`)
                    if status is RUNNING:
                        child.halt_node()
                    child._bt_status = IDLE
                continue
            if cs is RUNNING:
                for i, other in enumerate(children):
                    if i != index:
                        status = other._bt_status
                        if status is not IDLE:
                            if status is RUNNING:
                                other.halt_node()
                            other._bt_status = IDLE
                if self._running_child == -1:
                    self._running_child = index
                return RUNNING
            if cs is stop_on:
                self.reset_children()
                return stop_on
            raise _idle_child(self.name)
        self.reset_children()
        return SKIPPED if skipped == len(children) else go_on


class ReactiveSequenceNode(_ReactiveChainNode):
    """ReactiveSequence: every tick restarts from the first child; FAILURE ends it."""

    STOP_ON, GO_ON = FAILURE, SUCCESS


class ReactiveFallbackNode(_ReactiveChainNode):
    """ReactiveFallback: every tick restarts from the first child; SUCCESS ends it."""

    STOP_ON, GO_ON = SUCCESS, FAILURE


class ParallelNode(ControlNode):
    """Parallel: SUCCESS at success_count successes, FAILURE when success became impossible
    or at failure_count failures (negative counts: relative to the number of children)."""

    @classmethod
    def provided_ports(cls) -> list:
        return [
            InputPort("success_count", int, -1,
                      "number of children that need to succeed to trigger a SUCCESS"),
            InputPort("failure_count", int, 1,
                      "number of children that need to fail to trigger a FAILURE"),
        ]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._success_threshold = -1
        self._failure_threshold = 1
        self._completed: set[int] = set()
        self._success_count = 0
        self._failure_count = 0

    def _threshold(self, value: int) -> int:
        if value < 0:
            return max(len(self.children) + value + 1, 0)
        return value

    def bt_tick(self) -> NodeStatus:
        try:
            self._success_threshold = self.get_input("success_count")
        except Exception:  # noqa: BLE001 - BT.CPP's message
            raise RuntimeError("Missing parameter [success_count] in ParallelNode") from None
        try:
            self._failure_threshold = self.get_input("failure_count")
        except Exception:  # noqa: BLE001
            raise RuntimeError("Missing parameter [failure_count] in ParallelNode") from None
        children = self.children
        n = len(children)
        required_success = self._threshold(self._success_threshold)
        required_failure = self._threshold(self._failure_threshold)
        if n < required_success:
            raise LogicError("Number of children is less than threshold. Can never succeed.")
        if n < required_failure:
            raise LogicError("Number of children is less than threshold. Can never fail.")
        self._bt_status = RUNNING
        skipped = 0
        completed = self._completed
        for i in range(n):
            if i not in completed:
                cs = children[i].execute_tick()
                if cs is SKIPPED:
                    skipped += 1
                elif cs is SUCCESS:
                    completed.add(i)
                    self._success_count += 1
                elif cs is FAILURE:
                    completed.add(i)
                    self._failure_count += 1
                elif cs is not RUNNING:
                    raise _idle_child(self.name)
            if self._success_count >= required_success or (
                self._success_threshold < 0
                and (self._success_count + skipped) >= required_success
            ):
                self._clear()
                self.reset_children()
                return SUCCESS
            if (n - self._failure_count) < required_success or (
                self._failure_count == required_failure
            ):
                self._clear()
                self.reset_children()
                return FAILURE
        return SKIPPED if skipped == n else RUNNING

    def _clear(self) -> None:
        self._completed = set()
        self._success_count = 0
        self._failure_count = 0

    def halt(self) -> None:
        self._clear()
        ControlNode.halt(self)


class ParallelAllNode(ControlNode):
    """ParallelAll: run every child to completion; FAILURE if max_failures failed."""

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("max_failures", int, 1,
                          "If the number of children returning FAILURE exceeds this value, "
                          "ParallelAll returns FAILURE")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._failure_threshold = 1
        self._completed: set[int] = set()
        self._failure_count = 0

    def bt_tick(self) -> NodeStatus:
        try:
            max_failures = self.get_input("max_failures")
        except Exception:  # noqa: BLE001
            raise RuntimeError("Missing parameter [max_failures] in ParallelNode") from None
        children = self.children
        n = len(children)
        self._failure_threshold = (max(n + max_failures + 1, 0) if max_failures < 0
                                   else max_failures)
        skipped = 0
        if n < self._failure_threshold:
            raise LogicError("Number of children is less than threshold. Can never fail.")
        self._bt_status = RUNNING
        completed = self._completed
        for i in range(n):
            if i in completed:
                continue
            cs = children[i].execute_tick()
            if cs is SUCCESS:
                completed.add(i)
            elif cs is FAILURE:
                completed.add(i)
                self._failure_count += 1
            elif cs is SKIPPED:
                skipped += 1
            elif cs is not RUNNING:
                raise _idle_child(self.name)
        if skipped == n:
            return SKIPPED
        if skipped + len(completed) >= n:
            self.halt_children()
            self._completed = set()
            status = FAILURE if self._failure_count >= self._failure_threshold else SUCCESS
            self._failure_count = 0
            return status
        return RUNNING

    def halt(self) -> None:
        self._completed = set()
        self._failure_count = 0
        ControlNode.halt(self)


class IfThenElseNode(ControlNode):
    """IfThenElse: 2 or 3 children; the first is the condition."""

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._child_idx = 0

    def halt(self) -> None:
        self._child_idx = 0
        ControlNode.halt(self)

    def bt_tick(self) -> NodeStatus:
        children = self.children
        n = len(children)
        if n != 2 and n != 3:
            raise LogicError("IfThenElseNode must have either 2 or 3 children")
        self._bt_status = RUNNING
        if self._child_idx == 0:
            cond = children[0].execute_tick()
            if cond is RUNNING:
                return RUNNING
            if cond is SUCCESS:
                self._child_idx = 1
            elif cond is FAILURE:
                if n == 3:
                    self._child_idx = 2
                else:
                    return FAILURE
        if self._child_idx > 0:
            st = children[self._child_idx].execute_tick()
            if st is RUNNING:
                return RUNNING
            self.reset_children()
            self._child_idx = 0
            return st
        raise LogicError("Something unexpected happened in IfThenElseNode")


class WhileDoElseNode(ControlNode):
    """WhileDoElse: a reactive IfThenElse (the condition is ticked every time)."""

    def bt_tick(self) -> NodeStatus:
        children = self.children
        n = len(children)
        if n != 2 and n != 3:
            raise LogicError("WhileDoElseNode must have either 2 or 3 children")
        self._bt_status = RUNNING
        cond = children[0].execute_tick()
        if cond is RUNNING:
            return RUNNING
        st = IDLE
        if cond is SUCCESS:
            if n == 3:
                self.halt_child(2)
            st = children[1].execute_tick()
        elif cond is FAILURE:
            if n == 3:
                self.halt_child(1)
                st = children[2].execute_tick()
            else:
                st = FAILURE
        if st is RUNNING:
            return RUNNING
        self.reset_children()
        return st  # IDLE here (a skipped condition) makes execute_tick raise, as in BT.CPP


class TryCatchNode(ControlNode):
    """TryCatch (4.9+): children 0..N-2 as a Sequence; on FAILURE tick the last (catch)."""

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("catch_on_halt", bool, False,
                          "If true, execute the catch child when the node is halted during "
                          "the try-block")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._idx = 0
        self._skipped = 0
        self._in_catch = False

    def halt(self) -> None:
        catch_on_halt = bool(self.get_input("catch_on_halt", False))
        children = self.children
        if (catch_on_halt and not self._in_catch and self._bt_status is RUNNING
                and len(children) >= 2):
            for i in range(len(children) - 1):
                self.halt_child(i)
            if children[-1].execute_tick() is RUNNING:
                self.halt_child(len(children) - 1)
        self._idx = 0
        self._skipped = 0
        self._in_catch = False
        ControlNode.halt(self)

    def bt_tick(self) -> NodeStatus:
        children = self.children
        n = len(children)
        if n < 2:
            raise LogicError(f"[{self.name}]: TryCatch requires at least 2 children")
        if self._bt_status is IDLE:
            self._skipped = 0
            self._in_catch = False
        self._bt_status = RUNNING
        try_count = n - 1
        while True:
            if self._in_catch:
                cs = children[-1].execute_tick()
                if cs is RUNNING:
                    return RUNNING
                self.reset_children()
                self._idx = 0
                self._in_catch = False
                return FAILURE
            entered_catch = False
            while self._idx < try_count:
                cs = children[self._idx].execute_tick()
                if cs is RUNNING:
                    return RUNNING
                if cs is FAILURE:
                    self.reset_children()
                    self._idx = 0
                    self._in_catch = True
                    entered_catch = True
                    break
                if cs is SUCCESS:
                    self._idx += 1
                elif cs is SKIPPED:
                    self._idx += 1
                    self._skipped += 1
                else:
                    raise LogicError(f"[{self.name}]: A child should not return IDLE")
            if entered_catch:
                continue  # BT.CPP re-enters tick() to run the catch child
            all_skipped = self._skipped == try_count
            self.reset_children()
            self._idx = 0
            self._skipped = 0
            return SKIPPED if all_skipped else SUCCESS


# std::from_chars' grammar (no leading '+', no spaces); BT.CPP 4.10 requires the whole
# string to be consumed (PR #1178), so "5abc" no longer equals "5"
_FROM_CHARS_INT = re.compile(r"-?[0-9]+")
_FROM_CHARS_REAL = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|-?(?:inf|infinity|nan)", re.I)


def _check_string_equality(v1: str, v2: str, enums: Mapping[str, int] | None) -> bool:
    """switch_node.cpp CheckStringEquality: as strings, as ints, as reals (enums resolve)."""
    if v1 == v2:
        return True

    def to_int(text: str) -> int | None:
        if enums and text in enums:
            return enums[text]
        return int(text) if _FROM_CHARS_INT.fullmatch(text) else None

    a, b = to_int(v1), to_int(v2)
    if a is not None and b is not None and a == b:
        return True

    def to_real(text: str) -> float | None:
        if enums and text in enums:
            return float(enums[text])
        return float(text) if _FROM_CHARS_REAL.fullmatch(text) else None

    ra, rb = to_real(v1), to_real(v2)
    if ra is None or rb is None:
        return False
    return abs(ra - rb) <= 1.1920928955078125e-07


def switch_node_type(num_cases: int) -> type:
    """The SwitchN node class (BT.CPP SwitchNode<N>)."""

    class SwitchNode(ControlNode):
        NUM_CASES = num_cases

        @classmethod
        def provided_ports(cls) -> list:
            ports = [InputPort("variable", str)]
            ports += [InputPort(f"case_{i}", str) for i in range(1, num_cases + 1)]
            return ports

        def __init__(self, name: str, config: NodeConfig | None = None) -> None:
            super().__init__(name, config)
            self._running_child = -1
            self._case_keys = [f"case_{i}" for i in range(1, num_cases + 1)]

        def halt(self) -> None:
            self._running_child = -1
            ControlNode.halt(self)

        def bt_tick(self) -> NodeStatus:
            if len(self.children) != num_cases + 1:
                raise LogicError("Wrong number of children in SwitchNode; must be "
                                 "(num_cases + default)")
            match_index = num_cases
            variable = self.get_input("variable", None)
            if variable is not None:
                enums = self.env.enums
                for index, key in enumerate(self._case_keys):
                    value = self.get_input(key, None)
                    if value is not None and _check_string_equality(variable, value, enums):
                        match_index = index
                        break
            if self._running_child != -1 and self._running_child != match_index:
                self.halt_child(self._running_child)
            ret = self.children[match_index].execute_tick()
            if ret is SKIPPED:
                self._running_child = -1
                return SKIPPED
            if ret is RUNNING:
                self._running_child = match_index
            else:
                self.reset_children()
                self._running_child = -1
            return ret

    SwitchNode.__name__ = SwitchNode.__qualname__ = f"Switch{num_cases}"
    return SwitchNode
