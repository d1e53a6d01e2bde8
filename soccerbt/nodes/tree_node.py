"""The node base class with BehaviorTree.CPP 4.10 semantics, as a py_trees Behaviour, and the errors of a tick.

`TreeNode` reproduces BT.CPP's TreeNode: `execute_tick()` runs the pre-conditions (`_failureIf`,
`_successIf`, `_skipIf`, `_while`), then `tick()`, then the post-conditions, and stores the
status unless it is SKIPPED (a skipped node stays IDLE, as in BT.CPP). `halt_node()` is BT.CPP's
haltNode (halt() then `_onHalted`). The py_trees view (`status`, `children`, `parent`, `name`,
`iterate()`) stays consistent so py_trees' display and visitors work; py_trees' own tick()
generator is never used on the hot path.

The classes a node subclasses, one per node kind (`ActionNode`, `ControlNode`, ...), are in
soccerbt.nodes.node_kinds; what a node is built with (`NodeConfig`, `TreeEnv`) in node_config.

Any node may say why it decided what it did: ``if self.explaining: self.set_reason(text)``.
``explaining`` is true only while someone records the tree's reasons (``Tree.start_reasons``, a
replay log's recorder), so an unrecorded tick builds no text.
"""
from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status as PTStatus

from soccerbt.blackboard import Blackboard
from soccerbt.nodes.node_config import NodeConfig
from soccerbt.nodes.ports import (
    NO_DEFAULT,
    PortInfo,
    remapped_key,
)
from soccerbt.nodes.status import (
    FAILURE,
    IDLE,
    RUNNING,
    SKIPPED,
    SUCCESS,
    NodeStatus,
    to_py_trees,
)

__all__ = ["TreeNode", "LogicError", "PortError", "NodeTickError", "pre_conditions"]

_PT_TO_NS = {
    PTStatus.SUCCESS: SUCCESS, PTStatus.FAILURE: FAILURE, PTStatus.RUNNING: RUNNING,
    PTStatus.INVALID: IDLE, SUCCESS: SUCCESS, FAILURE: FAILURE, RUNNING: RUNNING, IDLE: IDLE,
    SKIPPED: SKIPPED,
}
_NS_TO_PT = {s: to_py_trees(s) for s in NodeStatus}
_PT_SUCCESS, _PT_FAILURE, _PT_RUNNING = PTStatus.SUCCESS, PTStatus.FAILURE, PTStatus.RUNNING


class LogicError(RuntimeError):
    """BT.CPP LogicError / RuntimeError raised by a node while ticking."""


class PortError(RuntimeError):
    """get_input()/set_output() could not read or write a port."""


class NodeTickError(RuntimeError):
    """An exception raised inside a node during a tick, carrying that node's path.

    `node_path` is the node's stable path, `node` the node, `original` the exception.
    """

    def __init__(self, node: TreeNode, original: BaseException) -> None:
        self.node = node
        self.node_path = getattr(node, "path", node.name)
        self.original = original
        super().__init__(
            f"Exception in node '{node.bt_path}' [{node.registration_id}] at {self.node_path}: "
            f"{original}"
        )


_MISSING = object()


def pre_conditions(pre: list[tuple[int, Any]]) -> Any:
    """The form execute_tick runs: None, one `_while` evaluator, or (index, evaluator) pairs."""
    if not pre:
        return None
    if len(pre) == 1 and pre[0][0] == 3:
        return _condition(pre[0][1])
    return tuple((cid, _condition(script)) for cid, script in pre)


def _condition(script: Any) -> Any:
    """The script's boolean evaluator: its one-closure `condition` when it has one."""
    return getattr(script, "condition", None) or script.evaluate_bool


# The methods every tick runs on the node itself. CPython 3.11 caches each attribute lookup
# and method call in a function's code, keyed by the object's type, and one cache entry holds
# one type: a method shared by many node classes (execute_tick by all of them, SyncStub.bt_tick
# by every stub type) misses on nearly every call and falls back to the slow generic lookup.
# So each class gets its own copy of the ones it inherits (same code, globals and closure, so
# the same behaviour, super() included), and the caches in each copy see one type only. This
# took a third off the instructions of a tick of Booster's tree.
_PER_CLASS_METHODS = ("execute_tick", "bt_tick", "on_start", "on_running", "update",
                      "reset_children")


def _own_copy(func: types.FunctionType) -> types.FunctionType:
    """A copy of `func` with its own code object (hence its own attribute-lookup caches)."""
    copy = types.FunctionType(func.__code__.replace(), func.__globals__, func.__name__,
                              func.__defaults__, func.__closure__)
    copy.__kwdefaults__ = func.__kwdefaults__
    copy.__qualname__ = func.__qualname__
    copy.__doc__ = func.__doc__
    copy.__module__ = func.__module__
    copy.__dict__.update(func.__dict__)
    return copy


# --------------------------------------------------------------------------- TreeNode


class TreeNode(Behaviour):
    """A BT.CPP TreeNode as a py_trees Behaviour (see the module docstring)."""

    # slots (beside the instance dictionary): the status the engine reads and writes most, and
    # what a watched tree's status reports read (soccerbt.nodes.observe: read in place in C)
    __slots__ = ("_bt_status", "uid", "env")

    # py_trees declares list[Behaviour]; a node's children are TreeNodes (add_child, set_child
    # take nothing else), which mypy cannot accept over the base's type (list is invariant)
    children: list[TreeNode]  # type: ignore[assignment]

    NODE_KIND = "Action"     # BT.CPP NodeType: Action, Condition, Control, Decorator, SubTree
    EXEC_MODE = 0            # 0 plain, 1 SyncActionNode (never RUNNING), 2 decorator
    SCRIPT_PORTS: tuple[str, ...] = ()   # input ports that hold scripts (key-schema check)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in _PER_CLASS_METHODS:  # see _PER_CLASS_METHODS
            if name not in cls.__dict__:
                inherited = getattr(cls, name, None)
                if type(inherited) is types.FunctionType:
                    setattr(cls, name, _own_copy(inherited))

    @classmethod
    def provided_ports(cls) -> list[PortInfo]:
        """The ports of this node type (override in subclasses)."""
        return []

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        self._bt_status = IDLE
        super().__init__(name)
        cfg = config if config is not None else _standalone_config(type(self))
        self.config = cfg
        self.bb = cfg.blackboard
        self.env = cfg.env
        self.context = cfg.env.context
        self.uid = cfg.uid
        self.bt_path = cfg.bt_path or name
        self.path = cfg.path or name
        self.registration_id = cfg.registration_id or type(self).__name__
        self.last_status = IDLE  # the last status execute_tick returned (SKIPPED included)
        self._pre = pre_conditions(cfg.pre)
        post = cfg.post
        self._post = tuple(post) if any(p is not None for p in post) else None
        self._inputs: dict[str, tuple[bool, Any]] = {}
        self._never_running = self.EXEC_MODE == 1  # SyncActionNode
        self._resets_child = self.EXEC_MODE == 2   # DecoratorNode

    # -- py_trees view ------------------------------------------------------------------------

    @property
    def status(self) -> PTStatus:
        return _NS_TO_PT[self._bt_status]

    @status.setter
    def status(self, value: PTStatus) -> None:
        st = _PT_TO_NS.get(value, IDLE)
        self._bt_status = IDLE if st is SKIPPED else st

    @property
    def last_tick(self) -> int:
        """The tree's tick id when this node was ticked in the latest root tick, else -1."""
        env = self.env
        return env.tick_id if any(n is self for n in env.ticked) else -1

    @property
    def full_path(self) -> str:
        """BT.CPP's fullPath: names joined by "/", SubTree instances included; an unnamed
        node's name is its ID followed by "::" and its uid."""
        return self.bt_path

    @property
    def node_status(self) -> NodeStatus:
        """The BT.CPP status (IDLE, RUNNING, SUCCESS, FAILURE; never SKIPPED)."""
        return self._bt_status

    def tip(self) -> Behaviour | None:
        for child in self.children:
            if child._bt_status is RUNNING:
                return child.tip()
        return self if self._bt_status is not IDLE else None

    # -- BT.CPP core -------------------------------------------------------------------------

    def bt_tick(self) -> NodeStatus:
        """The node's own logic (BT.CPP tick()); called by execute_tick()."""
        raise NotImplementedError

    def update(self) -> PTStatus:
        """py_trees' update(): one BT.CPP tick of this node (for py_trees-driven use)."""
        return _NS_TO_PT[self.execute_tick()]

    def halt(self) -> None:
        """BT.CPP halt(): interrupt the node (reset its status)."""
        self._bt_status = IDLE

    def execute_tick(self) -> NodeStatus:
        """BT.CPP executeTick: pre-conditions, tick(), post-conditions, store the status.

        Also SyncActionNode's "never RUNNING" check and DecoratorNode's child reset, folded
        in here (EXEC_MODE 1 and 2) so that a tick costs one Python frame per node.
        """
        st: NodeStatus | None  # None only between _check_pre and the tick it lets run
        try:
            pre = self._pre
            if pre is None:
                st = self.bt_tick()
            elif pre.__class__ is not tuple:
                # the common case: a lone `_while` (Booster's trees), evaluated inline
                status = self._bt_status
                if status is IDLE:
                    st = self.bt_tick() if pre(self.bb) else SKIPPED
                elif status is RUNNING:
                    if pre(self.bb):
                        st = self.bt_tick()
                    else:
                        self.halt_node()
                        st = SKIPPED
                else:
                    st = self.bt_tick()
            elif (st := self._check_pre(pre)) is None:
                st = self.bt_tick()
            # the usual results first (identity tests only); a py_trees status is converted
            # (IDLE and anything else raise) and then stored like the NodeStatus it maps to
            if st is SUCCESS or st is FAILURE:
                post = self._post
                if post is not None:
                    self._run_post(post, st)
                self._bt_status = st
            elif st is SKIPPED:  # stays IDLE (as in BT.CPP); reported to the skip sink
                if (skipped := self.env.skip_sink) is not None:
                    skipped.append(self.uid)
            elif st is RUNNING:
                self._bt_status = st
                if self._never_running:
                    raise LogicError("SyncActionNode MUST never return RUNNING")
            else:
                st = self._store_converted(st)
            if self._resets_child:
                # _resets_child is set for EXEC_MODE 2 only: a DecoratorNode, which has `child`
                child = self.child  # type: ignore[attr-defined]
                cs = child._bt_status
                if cs is SUCCESS or cs is FAILURE:
                    child._bt_status = IDLE
        except NodeTickError:
            raise
        except Exception as exc:
            raise NodeTickError(self, exc) from exc
        self.last_status = st
        self.env.ticked.append(self)
        return st

    def _store_converted(self, st: Any) -> NodeStatus:
        """execute_tick's rare case: tick() returned a py_trees status (or IDLE, or junk)."""
        st = self._bad_status(st)  # SUCCESS, FAILURE or RUNNING; raises for anything else
        post = self._post
        if post is not None and (st is SUCCESS or st is FAILURE):
            self._run_post(post, st)
        self._bt_status = st
        if st is RUNNING and self._never_running:
            raise LogicError("SyncActionNode MUST never return RUNNING")
        return st

    def _bad_status(self, st: Any) -> NodeStatus:
        if st is IDLE:
            raise LogicError(
                f"Node [{self.name}]: you are not allowed to set manually the status to IDLE. "
                "If you know what you are doing (?) use resetStatus() instead."
            )
        mapped = _PT_TO_NS.get(st)
        if mapped is IDLE:
            return self._bad_status(IDLE)
        if mapped is None:
            raise LogicError(f"Node [{self.name}]: tick() returned {st!r}, not a status")
        return mapped

    def _check_pre(self, pre: tuple) -> NodeStatus | None:
        status = self._bt_status
        if status is IDLE:
            bb = self.bb
            for cid, evaluate in pre:
                if evaluate(bb):
                    if cid == 0:
                        return FAILURE
                    if cid == 1:
                        return SUCCESS
                    if cid == 2:
                        return SKIPPED
                elif cid == 3:
                    return SKIPPED
        elif status is RUNNING:
            for cid, evaluate in pre:
                if cid == 3 and not evaluate(self.bb):
                    self.halt_node()
                    return SKIPPED
        return None

    def _run_post(self, post: tuple, st: NodeStatus) -> None:
        outcome = post[2] if st is SUCCESS else post[1]  # _onSuccess or _onFailure, then _post
        for script in (outcome, post[3]):
            if script is None:
                continue
            if self.env.track_writers:  # stamping the writers costs a call: only when recorded
                self.run_script(script)
            else:
                script(self.bb)

    def halt_node(self) -> None:
        """BT.CPP haltNode: halt(), then the `_onHalted` script. An exception raised by the node
        (its on_halted, its script) comes out as a NodeTickError naming this node."""
        try:
            self.halt()
            post = self._post
            if post is not None and post[0] is not None:
                self.run_script(post[0])
        except NodeTickError:
            raise
        except Exception as exc:
            raise NodeTickError(self, exc) from exc

    def run_script(self, script: Any) -> object:
        """Run a compiled script on this node's blackboard. While writers are tracked
        (`env.track_writers`), the entries it changed are stamped with this node's uid."""
        bb = self.bb
        if not self.env.track_writers:
            return script(bb)
        keys = getattr(script, "assigned_keys", ())
        before = {}
        for key in keys:
            entry = bb.get_entry(key)
            before[key] = entry.sequence_id if entry is not None else None
        try:
            return script(bb)
        finally:
            for key in keys:
                entry = bb.get_entry(key)
                if entry is not None and entry.sequence_id != before[key]:
                    entry.writer = self.uid
                    entry.writer_seq = entry.sequence_id

    def stamp_write(self, key: str) -> None:
        """Mark the entry `key` resolves to as last written by this node (when tracked)."""
        if self.env.track_writers:
            entry = self.bb.get_entry(key)
            if entry is not None:
                entry.writer = self.uid
                entry.writer_seq = entry.sequence_id

    def reset_status(self) -> None:
        self._bt_status = IDLE

    def set_status(self, status: NodeStatus) -> None:
        if status is IDLE:
            self._bad_status(IDLE)
        self._bt_status = status

    def emit_wake_up(self) -> None:
        self.env.wake_up = True

    # -- reasons -----------------------------------------------------------------------------

    @property
    def explaining(self) -> bool:
        """Whether someone records this tree's reasons (a replay log): only then is a reason
        worth building. A node's tick reads ``if self.explaining: self.set_reason(...)``, so
        that it formats nothing when nobody records."""
        return self.env.reasons is not None

    def set_reason(self, reason: str) -> None:
        """Report why this tick decided what it did: the rule that fired and the inputs it
        compared, with their values and thresholds (``"ball_x 0.62 > reach 0.41 -> approach"``).
        Kept with the tick by a recorder (``env.reasons``); nothing happens when nobody records.
        The last reason of a tick counts."""
        reasons = self.env.reasons
        if reasons is not None:
            reasons[self.uid] = reason

    # -- ports -------------------------------------------------------------------------------

    def get_input(self, key: str, default: Any = _MISSING) -> Any:
        """The typed value of input port `key`: literal, "{key}" entry or the port default.

        Raises PortError when there is no value (unless `default` is given).
        """
        cached = self._inputs.get(key)
        if cached is None:
            cached = self._resolve_input(key)
            if cached[0] is not None:
                self._inputs[key] = cached
        kind, payload = cached
        if kind is True:  # blackboard key
            entry = self.bb.get_entry(payload)
            if entry is not None:
                value = entry.value
                if value is not None:
                    port = self.config.ports.get(key)
                    if port is None or port.type_ is None:
                        return value
                    try:
                        return _cast(value, port, self.env.enums)
                    except (ValueError, TypeError, ArithmeticError) as exc:
                        if default is not _MISSING:
                            return default
                        raise PortError(f"getInput(): {exc}") from None
            if default is not _MISSING:
                return default
            raise PortError(f"getInput() failed because it was unable to find the key [{key}] "
                            f"remapped to [{payload}]")
        if kind is False:  # literal (already converted)
            return payload
        if default is not _MISSING:
            return default
        raise PortError(payload)

    def _resolve_input(self, key: str) -> tuple[Any, Any]:
        cfg = self.config
        port = cfg.ports.get(key)
        if key in cfg.input_ports:
            raw = cfg.input_ports[key]
        else:
            if port is None:
                return (None, f"getInput() of node '{self.bt_path}' failed because the manifest "
                              f"doesn't contain the key: [{key}]")
            if port.default is NO_DEFAULT:
                return (None, f"getInput() of node '{self.bt_path}' failed because nor the "
                              f"manifest or the XML contain the key: [{key}]")
            if not isinstance(port.default, str):
                return (False, port.default)
            raw = port.default
        bb_key = remapped_key(key, raw)
        if bb_key is not None:
            return (True, bb_key)
        if port is None or port.type_ is None:
            return (False, raw)
        try:
            return (False, port.convert(raw, self.env.enums))
        except (ValueError, TypeError) as exc:
            return (None, f"getInput(): {exc}")

    def set_output(self, key: str, value: Any) -> None:
        """Write output port `key` (its XML value must be "{key}" or "{=}")."""
        raw = self.config.output_ports.get(key)
        if raw is None:
            raise PortError(f"setOutput() failed: NodeConfig::output_ports does not contain the "
                            f"key: [{key}]")
        if raw == "{=}" or raw == "=":
            self.bb.set(key, value)
            if self.env.track_writers:
                self.stamp_write(key)
            return
        bb_key = remapped_key(key, raw)
        if bb_key is None:
            raise PortError("setOutput requires a blackboard pointer. Use {}")
        self.bb.set(bb_key, value)
        if self.env.track_writers:
            self.stamp_write(bb_key)

    def get_raw_port_value(self, key: str) -> str:
        """BT.CPP getRawPortValue: the XML text of a port."""
        cfg = self.config
        if key in cfg.input_ports:
            return cfg.input_ports[key]
        if key in cfg.output_ports:
            return cfg.output_ports[key]
        raise LogicError(f"[{key}] not found")

    def __repr__(self) -> str:
        return f"<{self.registration_id} {self.path!r} {self._bt_status.value}>"


def _cast(value: Any, port: PortInfo, enums: Mapping[str, int]) -> Any:
    """Any::cast<T> for a blackboard value read through a typed port."""
    t = port.type_
    vt = type(value)
    if vt is t:
        return value
    if isinstance(value, str):
        if t is str:
            return value
        return port.convert(value, enums)
    if t is float:
        if vt is int or vt is bool:
            return float(value)
        return float(value)
    if t is int or getattr(t, "__name__", "") == "Unsigned":
        if vt is bool:
            return int(value)
        if vt is float:
            if value != value or value in (float("inf"), float("-inf")) or value != int(value):
                raise ValueError("Invalid floating point to integer conversion")
            value = int(value)
        value = int(value)
        low, high = (0, 2**32 - 1) if t is not int else (-(2**31), 2**31 - 1)
        if value < low or value > high:
            raise ValueError("Value outside the max numerical limit.")
        return value
    if t is bool:
        if vt is int:
            if value not in (0, 1):
                raise ValueError("Implicit casting to bool is not allowed")
            return bool(value)
        if vt is float:
            return bool(value)
        return bool(value)
    if t is str:
        # safe_any convert<std::string>: std::to_string of the stored number (bool is int64)
        if vt is bool:
            return "1" if value else "0"
        if vt is int:
            return str(value)
        if vt is float:
            return f"{value:.6f}"
        raise ValueError("Any::cast failed: not convertible to std::string")
    if isinstance(t, type) and not isinstance(value, t):
        try:
            return t(value)
        except Exception as exc:  # noqa: BLE001 - report as a cast failure
            raise ValueError(f"Any::cast failed: {exc}") from None
    return value


def _standalone_config(cls: type) -> NodeConfig:
    """A config for a node built outside a factory (tests, py_trees-only use)."""
    cfg = NodeConfig()
    cfg.blackboard = Blackboard()
    try:
        cfg.ports = {p.name: p for p in cls.provided_ports()}  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001
        cfg.ports = {}
    return cfg
