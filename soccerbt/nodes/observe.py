"""Watching a tree's status changes as BehaviorTree.CPP 4.10's StatusChangeLogger sees them.

BT.CPP notifies its loggers from `setStatus()` and `resetStatus()` whenever the stored status
changes. The engine stores a node's status in `_bt_status` at exactly the points where BT.CPP
calls those two (a parent goes RUNNING before its children, a finishing control node resets its
children before its own transition, halts reset children first, a skipped node stays IDLE), so
observing that attribute gives the same transitions in the same order.

Observing costs nothing while nobody listens. TreeNode keeps `_bt_status` (and `uid`, `env`) in
slots. `observe(nodes, env)` takes one of two ways, the same in what it reports:
- compiled (soccerbt.native built): while any tree is watched, TreeNode's `_bt_status` member is
  replaced by the C ``StatusSlot``, which reads and writes the same slot and reports a change
  (to the node's env: a tree nobody watches reports nothing). No node changes class and no
  other attribute is touched, so the interpreter's fast paths stay.
- pure Python: each node moves to a subclass of its own class (cached, same name) whose
  `_bt_status` is a set-only data descriptor; its status moves to the instance dictionary while
  watched (reads find it there; writes run one Python call). The class change costs every
  attribute read of the node a little (its values move to a dictionary of its own).
Either way a change goes to `env.status_observer(node, previous, status)`, and `unobserve`
undoes it. A recorder that only needs the changes in order sets
`env.status_log` to a list instead: each change is appended to it as three integers (uid,
previous status code, new status code: BT.CPP's IDLE 0, RUNNING 1, SUCCESS 2, FAILURE 3), with
no further call, so a recorder turns a tick's changes into bytes with one C call. Skipped nodes are reported separately,
through `env.skip_sink` (a list of uids the engine appends to when it is not None).

Knows nothing of soccer.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from soccerbt.blackboard.core import Entry
from soccerbt.native import recording as _native
from soccerbt.nodes.node_config import TreeEnv
from soccerbt.nodes.status import NodeStatus
from soccerbt.nodes.tree_node import TreeNode

__all__ = ["StatusChange", "observe", "unobserve", "is_observed"]


class StatusChange:
    """One status change of one node: `.uid`, `.path` (BT.CPP's fullPath), `.name`,
    `.previous` and `.status` (NodeStatus: IDLE, RUNNING, SUCCESS, FAILURE), `.tick` (the
    tree's tick counter when it happened; 0 before the first tick) and `.node`."""

    __slots__ = ("uid", "path", "name", "previous", "status", "tick", "node")

    def __init__(self, node: Any, previous: NodeStatus, status: NodeStatus, tick: int) -> None:
        self.uid: int = node.uid
        self.path: str = node.bt_path
        self.name: str = node.name
        self.previous = previous
        self.status = status
        self.tick = tick
        self.node = node

    def __repr__(self) -> str:
        return (f"StatusChange(uid={self.uid}, path={self.path!r}, "
                f"{self.previous.name} -> {self.status.name}, tick={self.tick})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StatusChange):
            return NotImplemented
        return (self.uid, self.path, self.previous, self.status, self.tick) == (
            other.uid, other.path, other.previous, other.status, other.tick)

    __hash__ = None  # type: ignore[assignment]


class _ObservedStatus:
    """A set-only data descriptor for `_bt_status`: reads find the instance dictionary first
    (no descriptor call), writes land here (the pure-Python way; the compiled one is
    soccerbt.native's ``StatusSlot``)."""

    __slots__ = ()

    def __set__(self, node: Any, status: NodeStatus) -> None:
        d = node.__dict__
        previous = d["_bt_status"]
        if previous is not status:
            d["_bt_status"] = status
            env = node.env
            log = env.status_log
            if log is not None:
                log += (node.uid, previous._code, status._code)
            observer = env.status_observer
            if observer is not None:
                observer(node, previous, status)


_DESCRIPTOR = _ObservedStatus()
_OBSERVED: dict[type, type] = {}
_ORIGINAL: dict[type, type] = {}
_MEMBER: Any = TreeNode.__dict__["_bt_status"]   # the slot's own descriptor (restored after)
_SLOT: Any = _native.StatusSlot(TreeNode) if _native is not None else None
if _native is not None:  # their slots read in place by the slot's reports and the recorder's diff
    _native.setup_classes(Entry, TreeEnv)
_SLOT_USERS = [0]                  # the envs watched the compiled way
use_slot = _SLOT is not None       # the compiled way (tests set it False to run the other)


def _observed_class(cls: type) -> type:
    sub = _OBSERVED.get(cls)
    if sub is None:
        sub = type(cls.__name__, (cls,), {
            "__slots__": (), "_bt_status": _DESCRIPTOR, "__module__": cls.__module__,
            "__qualname__": cls.__qualname__, "__doc__": cls.__doc__,
        })
        _OBSERVED[cls] = sub
        _ORIGINAL[sub] = cls
    return sub


def is_observed(node: Any) -> bool:
    """Whether `node` currently reports its status changes."""
    if type(node) in _ORIGINAL:
        return True
    watched = getattr(node.env, "observed_classes", None)
    return watched is not None and type(node) in watched


def observe(nodes: Iterable[Any], env: Any,
            observer: Callable[[Any, NodeStatus, NodeStatus], None] | None) -> None:
    """Report every status change of `nodes` to `observer(node, previous, status)` (and to
    `env.status_log` when it is a list)."""
    env.status_observer = observer
    nodes = list(nodes)
    if use_slot and env.observed_classes is None:
        classes = frozenset(type(n) for n in nodes if isinstance(n, TreeNode) and type(n) not in _ORIGINAL)
        if classes:
            if _SLOT_USERS[0] == 0:
                TreeNode._bt_status = _SLOT
            _SLOT_USERS[0] += 1
        env.observed_classes = classes
    watched = env.observed_classes or ()
    for node in nodes:
        cls = type(node)
        if cls not in _ORIGINAL and cls not in watched:
            status = _MEMBER.__get__(node) if isinstance(node, TreeNode) else None
            node.__class__ = _observed_class(cls)
            _fresh_dict(node)
            if status is not None:  # the status moves to the dictionary while watched this way
                node.__dict__["_bt_status"] = status


def unobserve(nodes: Iterable[Any], env: Any) -> None:
    """Stop reporting: TreeNode gets its own member back when no other tree is watched the
    compiled way, the nodes moved go back to their own classes (no cost per write again)."""
    env.status_observer = None
    if env.observed_classes:
        _SLOT_USERS[0] -= 1
        if _SLOT_USERS[0] <= 0:
            _SLOT_USERS[0] = 0
            TreeNode._bt_status = _MEMBER
    env.observed_classes = None
    for node in nodes:
        original = _ORIGINAL.get(type(node))
        if original is not None:
            status = node.__dict__.pop("_bt_status", None) if isinstance(node, TreeNode) else None
            node.__class__ = original
            _fresh_dict(node)
            if status is not None:
                _MEMBER.__set__(node, status)


def _fresh_dict(node: Any) -> None:
    """Give the node a dictionary of its own after a class change: CPython keeps an instance's
    attribute values laid out for the class it was made with, and after a swap every attribute
    read missed the fast path (3-4 times slower, the watched tree's ticks 40% slower)."""
    node.__dict__ = dict(node.__dict__)
