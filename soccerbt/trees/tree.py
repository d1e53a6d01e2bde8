"""A loaded behaviour tree: BT.CPP's Tree with tickExactlyOnce / tickOnce / tickWhileRunning.

`Tree.root` is the root node (a py_trees Behaviour); `Tree.subtrees` lists every instantiated
(sub)tree with its blackboard; `Tree.nodes()` walks all nodes depth-first. Each node has
`.path` (stable, e.g. "MainTree/root/ReactiveSequence[2]"), `.bt_path` (BT.CPP's fullPath),
`.last_status` (SKIPPED included) and `.node_status` (BT.CPP's stored status). Node uids are
numbered from 1 in creation order, as BT.CPP numbers them (`Tree.node_by_uid`).

`tree.on_status_change(callback)` reports every status change of every node, in BT.CPP 4.10's
StatusChangeLogger order, as `StatusChange` objects (see soccerbt.nodes.observe); it returns a
handle whose `remove()` (or `tree.remove_status_callback(handle)`) stops it. With nobody
watching, ticking costs what it costs without this feature.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import py_trees

from soccerbt.nodes.node_config import TreeEnv
from soccerbt.nodes.observe import StatusChange, observe, unobserve
from soccerbt.nodes.status import FAILURE, IDLE, RUNNING, SUCCESS, NodeStatus
from soccerbt.nodes.tree_node import TreeNode

__all__ = ["Tree", "SubtreeInfo", "StatusCallbackHandle", "StatusChange"]

StatusObserver = Callable[[TreeNode, NodeStatus, NodeStatus], None]


class StatusCallbackHandle:
    """What `Tree.on_status_change` returns: `remove()` stops the callback (idempotent)."""

    __slots__ = ("_tree", "callback", "raw")

    def __init__(self, tree: Tree, callback: Callable[..., None], raw: bool) -> None:
        self._tree: Tree | None = tree
        self.callback = callback
        self.raw = raw

    def remove(self) -> None:
        tree, self._tree = self._tree, None
        if tree is not None:
            tree.remove_status_callback(self)

    @property
    def active(self) -> bool:
        return self._tree is not None


@dataclass
class SubtreeInfo:
    """One instantiated tree: BT.CPP's Tree::Subtree (instance name, tree ID, blackboard)."""

    instance_name: str
    tree_id: str
    blackboard: Any
    nodes: list[TreeNode]


class Tree:
    """An instantiated tree, ticked with BT.CPP's tick methods."""

    def __init__(self, subtrees: list[SubtreeInfo], env: TreeEnv,
                 sleep: Callable[[float], None] | None = None) -> None:
        if not subtrees or not subtrees[0].nodes:
            raise ValueError("Empty Tree")
        self.subtrees = subtrees
        self.env = env
        self.root: TreeNode = subtrees[0].nodes[0]
        self._sleep = sleep or time.sleep
        self.tick_count = 0
        self._status_handles: list[StatusCallbackHandle] = []
        self._by_uid: dict[int, TreeNode] | None = None

    # -- BT.CPP API ----------------------------------------------------------------------------

    def tick_exactly_once(self) -> NodeStatus:
        """One tick of the root (BT.CPP tickExactlyOnce)."""
        env = self.env
        if env._timers:
            env.fire_due_timers()
        root = self.root
        env.tick_id += 1
        env.ticked.clear()
        status = root.execute_tick()
        self.tick_count += 1
        if status is SUCCESS or status is FAILURE:
            root._bt_status = IDLE
        return status

    def tick_once(self) -> NodeStatus:
        """Tick, and tick again at once while RUNNING and a wake-up was emitted (tickOnce)."""
        return self._tick_root(False, 0.0)

    def tick_while_running(self, sleep_s: float = 0.01) -> NodeStatus:
        """Tick until the root is not RUNNING, sleeping `sleep_s` between ticks
        (interrupted by wake-ups), as BT.CPP's tickWhileRunning."""
        return self._tick_root(True, sleep_s)

    def _tick_root(self, while_running: bool, sleep_s: float) -> NodeStatus:
        env = self.env
        status = IDLE
        root = self.root
        while status is IDLE or (while_running and status is RUNNING):
            env.fire_due_timers()
            env.tick_id += 1
            env.ticked.clear()
            status = root.execute_tick()
            self.tick_count += 1
            while status is RUNNING and env.wait_for():
                env.tick_id += 1
                env.ticked.clear()
                status = root.execute_tick()
                self.tick_count += 1
            if status is SUCCESS or status is FAILURE:
                root._bt_status = IDLE
            if status is RUNNING and sleep_s > 0:
                self._sleep_interruptible(sleep_s)
        return status

    def _sleep_interruptible(self, sleep_s: float) -> None:
        env = self.env
        if env.wake_up:
            return
        deadline = env.next_deadline()
        if deadline is not None:
            sleep_s = max(0.0, min(sleep_s, deadline - env.now()))
        if sleep_s > 0:
            self._sleep(sleep_s)

    def halt_tree(self) -> None:
        """Halt every node (BT.CPP haltTree: root haltNode, then every node, then reset)."""
        root = self.root
        root.halt_node()
        for node in self.nodes():
            node.halt_node()
        root._bt_status = IDLE

    def root_blackboard(self) -> Any:
        """The root Blackboard (a MutableMapping)."""
        return self.subtrees[0].blackboard

    # -- status changes -------------------------------------------------------------------------

    def on_status_change(self, callback: Callable[[StatusChange], None], *,
                         raw: bool = False) -> StatusCallbackHandle:
        """Call `callback(StatusChange)` on every status change of every node, in BT.CPP's
        logger order. With `raw=True` the callback is `callback(node, previous, status)`
        instead (no object made per change: what the recorder uses)."""
        handle = StatusCallbackHandle(self, callback, raw)
        self._status_handles.append(handle)
        self._install_observer()
        return handle

    def remove_status_callback(self, handle: StatusCallbackHandle) -> None:
        """Stop a callback added by `on_status_change` (unknown handles are ignored)."""
        if handle in self._status_handles:
            self._status_handles.remove(handle)
            handle._tree = None
            self._install_observer()

    def start_status_log(self) -> list[int]:
        """From now on append every status change to the list returned, as three integers: the
        node's uid, the previous and the new status code (BT.CPP's: IDLE 0, RUNNING 1, SUCCESS
        2, FAILURE 3). The cheapest way to watch (no call per change beyond the append); the
        owner empties the list as it reads it."""
        if self.env.status_log is None:
            self.env.status_log = []
        self._install_observer()
        return self.env.status_log

    def stop_status_log(self) -> None:
        """Stop appending to the status log (the nodes go back to their own classes when nobody
        else watches)."""
        self.env.status_log = None
        self._install_observer()

    def start_reasons(self) -> dict[int, str]:
        """From now on collect the reasons nodes report (``TreeNode.set_reason``): node uid ->
        the last reason text it gave. The owner reads and empties the dict after each tick;
        until this is called nodes build no reason at all."""
        if self.env.reasons is None:
            self.env.reasons = {}
        return self.env.reasons

    def stop_reasons(self) -> None:
        """Stop collecting reasons (nodes build none again)."""
        self.env.reasons = None

    def _install_observer(self) -> None:
        handles = list(self._status_handles)
        env = self.env
        if not handles:
            if env.status_log is None:
                unobserve(self.nodes(), env)
            else:
                observe(self.nodes(), env, None)
            return
        observer: StatusObserver
        if len(handles) == 1 and handles[0].raw:
            observer = handles[0].callback
        else:
            def observer(node: TreeNode, previous: NodeStatus, status: NodeStatus) -> None:
                change = None
                for h in handles:
                    if h.raw:
                        h.callback(node, previous, status)
                    else:
                        if change is None:
                            change = StatusChange(node, previous, status, env.tick_id)
                        h.callback(change)
        observe(self.nodes(), env, observer)

    # -- inspection ----------------------------------------------------------------------------

    def nodes(self) -> Iterator[TreeNode]:
        """Every node, depth-first from the root (subtree contents included)."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def active_nodes(self) -> list[TreeNode]:
        """The nodes ticked during the last tick (whatever they returned, SKIPPED included)."""
        return list(dict.fromkeys(self.env.ticked))

    def node_by_uid(self, uid: int) -> TreeNode | None:
        """The node with BT.CPP uid `uid` (numbered from 1 in creation order)."""
        if self._by_uid is None:
            self._by_uid = {n.uid: n for n in self.nodes()}
        return self._by_uid.get(uid)

    def nodes_by_uid(self) -> list[TreeNode]:
        """Every node in uid order (BT.CPP's creation order)."""
        return sorted(self.nodes(), key=lambda n: n.uid)

    def find(self, path: str) -> TreeNode | None:
        """The node whose `.path` or `.bt_path` equals `path`."""
        for node in self.nodes():
            if node.path == path or node.bt_path == path:
                return node
        return None

    def blackboards(self) -> dict[str, Any]:
        """Instance name ("" for the main tree) -> blackboard of every instantiated tree."""
        return {s.instance_name: s.blackboard for s in self.subtrees}

    def set_clock(self, clock: Callable[[], float],
                  sleep: Callable[[float], None] | None = None) -> None:
        """Drive Delay/Timeout/Sleep (and tick_while_running's sleeps) by another clock."""
        self.env.clock = clock
        if sleep is not None:
            self._sleep = sleep

    def render(self, show_status: bool = False) -> str:
        """py_trees' unicode rendering of the tree."""
        return py_trees.display.unicode_tree(self.root, show_status=show_status)

    def __repr__(self) -> str:
        return f"<Tree {self.subtrees[0].tree_id!r} nodes={sum(1 for _ in self.nodes())}>"
