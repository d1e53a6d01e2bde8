"""What a node is built with: its ``NodeConfig`` (blackboard, port remapping, manifest ports,
conditions, path), and the ``TreeEnv`` every node of one tree shares (clock, timers, wake-up
signal, scripting enums, the robot context, and the hooks of whoever watches or records the tree).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from soccerbt.nodes.ports import PortInfo
from soccerbt.nodes.status import NodeStatus

__all__ = ["TreeEnv", "NodeConfig"]


class TreeEnv:
    """What every node of one tree shares: clock, timers, wake-up signal, enums, context."""

    __slots__ = ("clock", "enums", "context", "wake_up", "_timers", "_next_timer", "tick_id",
                 "status_observer", "skip_sink", "track_writers", "status_log", "ticked", "reasons",
                 "observed_classes")

    def __init__(self, clock: Callable[[], float] | None = None,
                 enums: Mapping[str, int] | None = None, context: Any = None) -> None:
        self.clock: Callable[[], float] = clock or time.monotonic
        self.enums: Mapping[str, int] = enums if enums is not None else {}
        self.context = context
        self.wake_up = False
        self.tick_id = 0  # incremented by the Tree before every root tick
        # set while someone watches the tree (soccerbt.nodes.observe): status changes go to
        # status_observer(node, previous, status), the uids of skipped nodes to skip_sink
        self.status_observer: Callable[[Any, NodeStatus, NodeStatus], None] | None = None
        # the node classes soccerbt.nodes.observe hooked for this tree (None: none)
        self.observed_classes: frozenset[type] | None = None
        self.skip_sink: list[int] | None = None
        # while true, nodes stamp the entries they write with their uid (Entry.writer)
        self.track_writers = False
        # while a list, each status change appends three integers: uid, previous code, new code
        self.status_log: list[int] | None = None
        # the nodes ticked since the root tick began (the Tree clears it before each root tick)
        self.ticked: list[Any] = []
        # while a dict (someone records), nodes report why they decided: uid -> reason text
        # (TreeNode.set_reason); None otherwise, and a node then builds no text at all
        self.reasons: dict[int, str] | None = None
        self._timers: dict[int, tuple[float, Callable[[bool], None]]] = {}
        self._next_timer = 1

    def now(self) -> float:
        return self.clock()

    def emit_wake_up(self) -> None:
        self.wake_up = True

    def add_timer(self, delay_s: float, callback: Callable[[bool], None]) -> int:
        """A timer firing `callback(False)` once the clock passes now + delay_s."""
        tid = self._next_timer
        self._next_timer += 1
        self._timers[tid] = (self.clock() + delay_s, callback)
        return tid

    def cancel_timer(self, tid: int) -> None:
        item = self._timers.pop(tid, None)
        if item is not None:
            item[1](True)

    def fire_due_timers(self) -> None:
        """Run the callbacks of expired timers (BT.CPP's TimerQueue thread, between ticks)."""
        if not self._timers:
            return
        now = self.clock()
        due = sorted((d, tid) for tid, (d, _cb) in self._timers.items() if d <= now)
        for _d, tid in due:
            item = self._timers.pop(tid, None)
            if item is not None:
                item[1](False)

    def next_deadline(self) -> float | None:
        return min((d for d, _cb in self._timers.values()), default=None)

    def wait_for(self) -> bool:
        """WakeUpSignal::waitFor(0): true (and reset) if a wake-up was emitted."""
        self.fire_due_timers()
        if self.wake_up:
            self.wake_up = False
            return True
        return False


class NodeConfig:
    """BT.CPP NodeConfig: blackboard, port remapping, manifest ports, conditions, path."""

    __slots__ = ("blackboard", "input_ports", "output_ports", "ports", "env", "uid", "bt_path",
                 "path", "registration_id", "other_attributes", "pre", "post", "xml_path",
                 "xml_line", "tree_id", "port_remap")

    def __init__(self) -> None:
        self.blackboard: Any = None
        self.input_ports: dict[str, str] = {}
        self.output_ports: dict[str, str] = {}
        self.ports: dict[str, PortInfo] = {}
        self.env: TreeEnv = TreeEnv()
        self.uid = 0
        self.bt_path = ""
        self.path = ""
        self.registration_id = ""
        self.other_attributes: dict[str, str] = {}
        self.pre: list[tuple[int, Any]] = []   # (index in PRE_CONDITIONS, compiled script)
        self.post: list[Any] = [None, None, None, None]  # _onHalted, _onFailure, _onSuccess, _post
        self.xml_path = ""
        self.xml_line = 0
        self.tree_id = ""
        # the XML's port attributes in the XML's order (BT.CPP's port_remap: input and output
        # ports interleaved, which the two dicts above do not keep): what Groot2's tree XML orders by
        self.port_remap: dict[str, str] = {}
