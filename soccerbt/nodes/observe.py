"""Watching a tree's status changes as BehaviorTree.CPP 4.10's StatusChangeLogger sees them.

BT.CPP notifies its loggers from `setStatus()` and `resetStatus()` whenever the stored status
changes. The engine stores a node's status in `_bt_status` at exactly the points where BT.CPP
calls those two (a parent goes RUNNING before its children, a finishing control node resets its
children before its own transition, halts reset children first, a skipped node stays IDLE), so
observing that attribute gives the same transitions in the same order.

Observing costs nothing while nobody listens. `observe(nodes, env)` takes one of two ways, the
same in what it reports:
- compiled (soccerbt.native built): each node class of the tree gets the C ``StatusHook`` as its
  ``__setattr__`` while a tree of it is watched (counted per class; a class of its own
  ``__setattr__`` takes the other way). Stores run as object.__setattr__'s and a changed
  ``_bt_status`` is reported; no instance changes class, so attribute reads stay on the
  interpreter's fast path.
- pure Python: each node moves to a subclass of its own class (cached, same name) whose
  `_bt_status` is a set-only data descriptor. Reads still go to the instance dictionary; writes
  run one Python call. The class change costs every attribute read of the node a little (its
  values move to a dictionary of its own).
Either way a change goes to `env.status_observer(node, previous, status)`, and `unobserve`
undoes it. A recorder that only needs the changes in order sets
`env.status_log` to a list instead: each change is appended to it as three integers (uid,
previous status code, new status code: BT.CPP's IDLE 0, RUNNING 1, SUCCESS 2, FAILURE 3), with
no further call, so a recorder turns a tick's changes into bytes with one C call. Skipped nodes are reported separately, through
`env.skip_sink` (a list of uids the engine appends to when it is not None).

Knows nothing of soccer.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from soccerbt.blackboard.core import Entry
from soccerbt.native import recording as _native
from soccerbt.nodes.base import TreeEnv
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
    (no descriptor call), writes land here (the pure-Python way; the compiled one is
    soccerbt.native's ``StatusHook``)."""

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
_OBJECT_SETATTR = object.__dict__["__setattr__"]
_OBSERVED: dict[type, type] = {}
_ORIGINAL: dict[type, type] = {}
_HOOK: Any = _native.StatusHook() if _native is not None else None
if _native is not None:  # their slots read in place by the hook and the recorder's diff
    _native.setup_classes(Entry, TreeEnv)
_HOOKED: dict[type, int] = {}      # class -> how many watched trees hooked it
use_hook = _HOOK is not None       # the compiled way (tests set it False to run the other)


def _observed_class(cls: type) -> type:
    sub = _OBSERVED.get(cls)
    if sub is None:
        sub = type(cls.__name__, (cls,), {
            "__slots__": (), "_bt_status": _DESCRIPTOR, "__module__": cls.__module__,
            # the class's own way of storing, named here: a hook put on the class or a base later
            # (a tree of it watched the compiled way) must not report the changes a second time
            "__setattr__": _own_setattr(cls),
            "__qualname__": cls.__qualname__, "__doc__": cls.__doc__,
        })
        _OBSERVED[cls] = sub
        _ORIGINAL[sub] = cls
    return sub


def _own_setattr(cls: type) -> Any:
    """The __setattr__ `cls` stores with, the hook left out."""
    for klass in cls.__mro__:
        own = klass.__dict__.get("__setattr__")
        if own is not None and own is not _HOOK:
            return own
    return _OBJECT_SETATTR


def is_observed(node: Any) -> bool:
    """Whether `node` currently reports its status changes."""
    if type(node) in _ORIGINAL:
        return True
    hooked = getattr(node.env, "observed_classes", None)
    return hooked is not None and type(node) in hooked


def _hookable(cls: type) -> bool:
    """Whether `cls` stores attributes as object does (or through the hook already): a class
    with a __setattr__ of its own, or inheriting one, keeps it (its nodes take the other way)."""
    for klass in cls.__mro__:
        own = klass.__dict__.get("__setattr__")
        if own is not None:
            return own is _OBJECT_SETATTR or own is _HOOK
    return True


def observe(nodes: Iterable[Any], env: Any,
            observer: Callable[[Any, NodeStatus, NodeStatus], None] | None) -> None:
    """Report every status change of `nodes` to `observer(node, previous, status)` (and to
    `env.status_log` when it is a list)."""
    env.status_observer = observer
    nodes = list(nodes)
    if use_hook and env.observed_classes is None:
        classes = frozenset(type(n) for n in nodes if _hookable(type(n)) and type(n) not in _ORIGINAL)
        for cls in classes:
            if _HOOKED.get(cls, 0) == 0:
                cls.__setattr__ = _HOOK  # type: ignore[assignment,method-assign]
            _HOOKED[cls] = _HOOKED.get(cls, 0) + 1
        env.observed_classes = classes
    hooked = env.observed_classes or ()
    for node in nodes:
        cls = type(node)
        if cls not in _ORIGINAL and cls not in hooked:
            node.__class__ = _observed_class(cls)
            _fresh_dict(node)


def unobserve(nodes: Iterable[Any], env: Any) -> None:
    """Stop reporting: the classes lose the hook when no other watched tree has them, the
    nodes moved go back to their own classes (no cost per write again)."""
    env.status_observer = None
    for cls in env.observed_classes or ():
        left = _HOOKED.get(cls, 0) - 1
        if left <= 0:
            _HOOKED.pop(cls, None)
            if cls.__dict__.get("__setattr__") is _HOOK:
                del cls.__setattr__
        else:
            _HOOKED[cls] = left
    env.observed_classes = None
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
