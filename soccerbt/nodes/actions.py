"""BT.CPP 4.10 built-in leaves: AlwaysSuccess, AlwaysFailure, Script, ScriptCondition,
SetBlackboard, UnsetBlackboard, Sleep and WasEntryUpdated.

Scripts are compiled once (at load) by the blackboard's script language; Sleep reads the
tree's injectable clock through TreeEnv timers.
"""
from __future__ import annotations

from typing import Any

from soccerbt.blackboard import BlackboardTypeError, btcpp_type_name, is_strongly_typed
from soccerbt.nodes.node_config import NodeConfig
from soccerbt.nodes.node_kinds import ConditionNode, StatefulActionNode, SyncActionNode
from soccerbt.nodes.ports import BidirectionalPort, InputPort, Unsigned, parse_blackboard_pointer
from soccerbt.nodes.script_cache import compile_script
from soccerbt.nodes.status import FAILURE, RUNNING, SUCCESS, NodeStatus
from soccerbt.nodes.tree_node import LogicError

__all__ = ["AlwaysSuccessNode", "AlwaysFailureNode", "ScriptNode", "ScriptConditionNode",
           "SetBlackboardNode", "UnsetBlackboardNode", "SleepNode", "WasEntryUpdatedNode"]


class AlwaysSuccessNode(SyncActionNode):
    def bt_tick(self) -> NodeStatus:
        return SUCCESS


class AlwaysFailureNode(SyncActionNode):
    def bt_tick(self) -> NodeStatus:
        return FAILURE


class _ScriptHolder:
    """Shared by Script and ScriptCondition: (re)compile `code` when it changes.

    As in BT.CPP the last script starts empty, so an empty `code` is never compiled and leaves
    no executor: Script then succeeds, ScriptCondition throws when ticked."""

    _script: str
    _executor: Any
    MISSING = "Missing port [code] in Script"

    def _load_executor(self) -> None:
        try:
            script = self.get_input("code")  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001
            raise RuntimeError(self.MISSING) from None
        if script == self._script:
            return
        self._executor = compile_script(script, self.env.enums)  # type: ignore[attr-defined]
        self._script = script


class ScriptNode(_ScriptHolder, SyncActionNode):
    SCRIPT_PORTS = ("code",)

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("code", str, description="Piece of code that can be parsed")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._script = ""
        self._executor = None
        self._load_executor()

    def bt_tick(self) -> NodeStatus:
        self._load_executor()
        if self._executor is not None:
            self.run_script(self._executor)
        return SUCCESS


class ScriptConditionNode(_ScriptHolder, ConditionNode):
    SCRIPT_PORTS = ("code",)
    MISSING = "Missing port [code] in ScriptCondition"

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("code", None,
                          description="Piece of code that can be parsed. Must return false or true")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._script = ""
        self._executor = None
        self._load_executor()

    def bt_tick(self) -> NodeStatus:
        self._load_executor()
        if self._executor is None:  # BT.CPP calls an empty std::function
            raise RuntimeError("bad_function_call (ScriptCondition with an empty [code])")
        return SUCCESS if self._executor.condition(self.bb) else FAILURE


# the C++ types a Python int, float, bool or str entry stands for (other types are compared
# as the blackboard compares them)
_BASIC_CPP = frozenset({"int", "long", "unsigned int", "double", "bool", "std::string"})


class SetBlackboardNode(SyncActionNode):
    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("value", None, description="Value to be written into the output_key"),
                BidirectionalPort("output_key", None, description="Name of the blackboard "
                                  "entry where the value should be written")]

    def bt_tick(self) -> NodeStatus:
        try:
            output_key = self.get_input("output_key")
        except Exception:  # noqa: BLE001
            raise RuntimeError("missing port [output_key]") from None
        output_key = str(output_key)
        value_str = self.config.input_ports.get("value")
        if value_str is None:
            raise LogicError("[value] not found")
        bb = self.bb
        dst = bb.get_entry(output_key)
        src_key = parse_blackboard_pointer(value_str)
        if src_key is not None:
            src = bb.get_entry(src_key)
            if src is None:
                raise RuntimeError("Can't find the port referred by [value]")
            if dst is None:
                dst = bb.create_entry(output_key, src.type_, src.converter)
                if dst.cpp_type is None:  # createEntry(key, src->info): the same TypeInfo
                    dst.cpp_type = src.cpp_type
            out_value = src.value
            # the C++ type of the value copied, where known: kept with the value (a SubTree
            # literal's int, a script's first write into a port's entry: a long), else a
            # script's or an adapter's entry's (an int is a long); unknown for a value a port
            # wrote first into the entry a port declared
            value_cpp = src.cpp_value_type or (
                btcpp_type_name(type(out_value)) if src.cpp_type is None else None)
        else:
            out_value = value_str
            value_cpp = None
        if out_value is None:
            return FAILURE
        if value_cpp is not None and dst is not None and is_strongly_typed(dst.type_):
            # set<BT::Any> compares the C++ types: a SubTree literal's int is no script's long
            declared = dst.cpp_type or btcpp_type_name(dst.type_)
            if value_cpp != declared and value_cpp in _BASIC_CPP and declared in _BASIC_CPP:
                raise BlackboardTypeError(
                    f"Blackboard::set({output_key}): once declared, the type of a port shall "
                    f"not change. Previously declared type [{declared}], current type [BT::Any]")
        if dst is not None and dst.type_ is not str and isinstance(out_value, str):
            # TypeInfo::parseString: the entry's converter, or nothing at all. An untyped
            # entry has no converter, so BT.CPP 4.10 writes an empty value there.
            conv = dst.converter
            if conv is None:
                out_value = None
            else:
                try:
                    out_value = conv(out_value)
                    value_cpp = dst.cpp_type  # parseString: an Any of the declared type
                except Exception as exc:  # noqa: BLE001
                    raise LogicError(f"Can't convert string [{out_value}] to type "
                                     f"[{btcpp_type_name(dst.type_)}]: {exc}") from None
        bb.set_any(output_key, out_value)  # set<BT::Any>: a new entry takes the value's type
        written = bb.get_entry(output_key)
        if written is not None:  # set<BT::Any> replaces the Any: the copied value's C++ type
            written.cpp_value_type = value_cpp
        self.stamp_write(output_key)
        return SUCCESS


class UnsetBlackboardNode(SyncActionNode):
    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("key", str, description="Key of the entry to remove")]

    def bt_tick(self) -> NodeStatus:
        try:
            key = self.get_input("key")
        except Exception:  # noqa: BLE001
            raise RuntimeError("missing input port [key]") from None
        self.bb.unset(key)
        return SUCCESS


class SleepNode(StatefulActionNode):
    """Sleep msec milliseconds of the tree clock (RUNNING meanwhile)."""

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("msec", Unsigned)]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._waiting = False
        self._timer = 0

    def _on_timer(self, aborted: bool) -> None:
        if not aborted:
            self.env.wake_up = True
        self._waiting = False

    def on_start(self) -> NodeStatus:
        try:
            msec = self.get_input("msec")
        except Exception:  # noqa: BLE001
            raise RuntimeError("Missing parameter [msec] in SleepNode") from None
        if msec <= 0:
            return SUCCESS
        self._bt_status = RUNNING
        self._waiting = True
        self._timer = self.env.add_timer(msec / 1000.0, self._on_timer)
        return RUNNING

    def on_running(self) -> NodeStatus:
        return RUNNING if self._waiting else SUCCESS

    def on_halted(self) -> None:
        self._waiting = False
        self.env.cancel_timer(self._timer)


def entry_port_key(node_name: str, config: NodeConfig) -> str:
    """The blackboard key named by the `entry` port of the entry-updated nodes (a `{key}`
    pointer or a bare key); BT.CPP's constructors throw when the port is missing."""
    raw = config.input_ports.get("entry", "")
    if not raw:
        raise LogicError(f"Missing port 'entry' in {node_name}")
    key = parse_blackboard_pointer(raw)
    return key if key is not None else raw


class WasEntryUpdatedNode(SyncActionNode):
    """SUCCESS if `entry` was written since the last tick of this node."""

    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("entry", None, description="Entry to check")]

    def __init__(self, name: str, config: NodeConfig | None = None) -> None:
        super().__init__(name, config)
        self._entry_key = entry_port_key(name, self.config)
        self._sequence_id = 0

    def bt_tick(self) -> NodeStatus:
        entry = self.bb.get_entry(self._entry_key)
        if entry is None:
            return FAILURE
        current, previous = entry.sequence_id, self._sequence_id
        self._sequence_id = current
        return SUCCESS if previous != current else FAILURE
