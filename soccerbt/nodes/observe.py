"""Watching a tree's status changes as BehaviorTree.CPP 4.10's StatusChangeLogger sees them.

BT.CPP notifies its loggers from `setStatus()` and `resetStatus()` whenever the stored status
changes. The engine stores a node's status in `_bt_status` at exactly the points where BT.CPP
calls those two (a parent goes RUNNING before its children, a finishing control node resets its
children before its own transition, halts reset children first, a skipped node stays IDLE), so
observing that attribute gives the same transitions in the same order.

Observing costs nothing while nobody listens: `observe(nodes, env)` moves each node to a
subclass of its own class (cached, same name) whose `_bt_status` is a set-only data
descriptor. Reads still go straight to the instance dictionary; only writes run one Python
call, which compares and reports a change to `env.status_observer(node, previous, status)`.
`unobserve` moves the nodes back. A recorder that only needs the changes in order sets
`env.status_log` to a list instead: each change is appended to it as three integers (uid,
previous status code, new status code: BT.CPP's IDLE 0, RUNNING 1, SUCCESS 2, FAILURE 3), with
no further call, so a recorder turns a tick's changes into bytes with one C call. Skipped nodes are reported separately, through
`env.skip_sink` (a list of uids the engine appends to when it is not None).

Knows nothing of soccer.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from soccerbt.native import recording as _native
from soccerbt.nodes.status import NodeStatus

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
    (no descriptor call), writes land here. The compiled ``StatusSlot`` of soccerbt.native does
    the same in C (a watched tree's every status store runs it); this is its pure-Python twin."""

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


_DESCRIPTOR: Any = _native.StatusSlot() if _native is not None else _ObservedStatus()
_OBSERVED: dict[type, type] = {}
_ORIGINAL: dict[type, type] = {}


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
    return type(node) in _ORIGINAL


def observe(nodes: Iterable[Any], env: Any,
            observer: Callable[[Any, NodeStatus, NodeStatus], None] | None) -> None:
    """Report every status change of `nodes` to `observer(node, previous, status)` (and to
    `env.status_log` when it is a list)."""
    env.status_observer = observer
    for node in nodes:
        cls = type(node)
        if cls not in _ORIGINAL:
            node.__class__ = _observed_class(cls)
            _fresh_dict(node)


def unobserve(nodes: Iterable[Any], env: Any) -> None:
    """Stop reporting: the nodes go back to their own classes (no cost per write again)."""
    env.status_observer = None
    for node in nodes:
        original = _ORIGINAL.get(type(node))
        if original is not None:
            node.__class__ = original
            _fresh_dict(node)


def _fresh_dict(node: Any) -> None:
    """Give the node a dictionary of its own after a class change: CPython keeps an instance's
    attribute values laid out for the class it was made with, and after a swap every attribute
    read missed the fast path (3-4 times slower, the watched tree's ticks 40% slower)."""
    node.__dict__ = dict(node.__dict__)
