"""Typed ports (BT.CPP InputPort / OutputPort / BidirectionalPort) and string conversion.

A port has a name, a direction, a type, an optional default and a description. Conversion from
XML strings follows BT.CPP's convertFromString: integers and doubles are parsed like
std::from_chars (a valid prefix is enough, no leading '+' or blank), C++ `int` is bounded to 32
bits, booleans accept 0/1/true/True/TRUE/false/False/FALSE, enums accept a registered scripting
enum name, a member name or an integer, lists are ';'-separated.
"""
from __future__ import annotations

import enum
import re
import typing
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from soccerbt.nodes.status import NodeStatus

__all__ = [
    "PortDirection", "PortInfo", "InputPort", "OutputPort", "BidirectionalPort", "NO_DEFAULT",
    "Unsigned", "SharedQueue", "convert_from_string", "has_converter", "is_enum_type",
    "type_name", "is_allowed_port_name",
    "is_reserved_attribute", "find_forbidden_char", "describe_forbidden_char",
    "parse_blackboard_pointer", "remapped_key", "to_btcpp_string",
    "PRE_CONDITIONS", "POST_CONDITIONS",
]

PRE_CONDITIONS = ("_failureIf", "_successIf", "_skipIf", "_while")
POST_CONDITIONS = ("_onHalted", "_onFailure", "_onSuccess", "_post")


class _NoDefault:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Any = _NoDefault()


class PortDirection(enum.Enum):
    INPUT = "Input"
    OUTPUT = "Output"
    INOUT = "InOut"


class Unsigned(int):
    """Type tag for C++ `unsigned int` ports (Timeout/Delay/Sleep msec): 0 .. 2**32-1."""


class SharedQueue:
    """Type tag for BT.CPP's SharedQueue<T> (std::shared_ptr<std::deque<T>>), used by Loop."""

    __slots__ = ("item_type",)

    def __init__(self, item_type: type) -> None:
        self.item_type = item_type

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SharedQueue) and other.item_type is self.item_type

    def __hash__(self) -> int:
        return hash(("SharedQueue", self.item_type))

    def __repr__(self) -> str:
        return f"SharedQueue({self.item_type.__name__})"


# --------------------------------------------------------------------------- conversion

_INT_RE = re.compile(r"-?[0-9]+")
_FLOAT_RE = re.compile(
    r"-?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)",
    re.IGNORECASE,
)
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_UINT32 = (0, 2**32 - 1)


def parse_int(text: str, bounds: tuple[int, int] = _INT32) -> int:
    """std::from_chars into int64 then BT.CPP's bound check (prefix parse, no '+')."""
    m = _INT_RE.match(text)
    if m is None:
        raise ValueError(f"Can't convert string [{text}] to integer")
    value = int(m.group(0))
    if value < _INT64[0] or value > _INT64[1]:
        raise ValueError(f"Can't convert string [{text}] to integer")
    if value < bounds[0] or value > bounds[1]:
        raise ValueError(f"Value out of bound when converting [{text}] to integer")
    return value


def parse_double(text: str) -> float:
    """std::from_chars into double (prefix parse, general format, no hex, no '+')."""
    m = _FLOAT_RE.match(text)
    if m is None:
        raise ValueError(f"Can't convert string [{text}] to double")
    s = m.group(0)
    low = s.lower().lstrip("-")
    if low.startswith("nan"):
        return float("nan")
    if low.startswith("inf"):
        return float("-inf") if s.startswith("-") else float("inf")
    value = float(s)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"Can't convert string [{text}] to double")
    return value


def parse_bool(text: str) -> bool:
    """convertFromString<bool>."""
    if text in ("1", "true", "TRUE", "True"):
        return True
    if text in ("0", "false", "FALSE", "False"):
        return False
    raise ValueError("convertFromString(): invalid bool conversion")


def parse_status(text: str) -> NodeStatus:
    try:
        return NodeStatus(text)
    except ValueError:
        raise ValueError(f"Cannot convert this to NodeStatus: {text}") from None


def _parse_enum(cls: type[enum.Enum], text: str, enums: Mapping[str, int] | None) -> enum.Enum:
    if enums is not None and text in enums:
        return cls(enums[text])
    if text in cls.__members__:
        return cls.__members__[text]
    return cls(parse_int(text))


def _list_item_type(t: Any) -> Any:
    if typing.get_origin(t) in (list, tuple):
        args = typing.get_args(t)
        return args[0] if args else str
    return None


def convert_from_string(type_: Any, text: str, enums: Mapping[str, int] | None = None) -> Any:
    """BT.CPP convertFromString for the port type `type_` (None/object: the string itself).

    Raises ValueError when the text cannot be converted.
    """
    if type_ is None or type_ is object or type_ is str or type_ is Any:
        return text
    if type_ is float:
        return parse_double(text)
    if type_ is Unsigned:
        return parse_int(text, _UINT32)
    if type_ is bool:
        return parse_bool(text)
    if type_ is int:
        return parse_int(text)
    if type_ is NodeStatus:
        return parse_status(text)
    if isinstance(type_, type) and issubclass(type_, enum.Enum):
        return _parse_enum(type_, text, enums)
    if isinstance(type_, SharedQueue):
        item = type_.item_type
        return deque(convert_from_string(item, p, enums) for p in _split(text))
    item = _list_item_type(type_)
    if item is not None:
        return [convert_from_string(item, p, enums) for p in _split(text)]
    if type_ is list:
        return list(_split(text))
    conv = getattr(type_, "from_btcpp_string", None)
    if callable(conv):
        return conv(text)
    raise ValueError(f"no conversion from string to {type_name(type_)}")


def _split(text: str) -> list[str]:
    """BT.CPP splitString(str, ';'): no trailing empty part, an empty string gives []."""
    parts = text.split(";")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def has_converter(type_: Any) -> bool:
    """Whether the port has a string converter in BT.CPP (GetAnyFromStringFunctor), so that
    the loader tries a literal value at load: every type convert_from_string knows except the
    enums (NodeStatus and Enum subclasses), whose literals BT.CPP converts only when the node
    reads the port (a bad one throws at tick)."""
    if is_enum_type(type_):
        return False
    if type_ in (None, object, Any, str, float, int, bool, Unsigned, list):
        return True
    if isinstance(type_, SharedQueue) or _list_item_type(type_) is not None:
        return True
    return callable(getattr(type_, "from_btcpp_string", None))


def is_enum_type(type_: Any) -> bool:
    """Whether a port of this type is a C++ enum in BT.CPP (NodeStatus or an Enum subclass)."""
    return type_ is NodeStatus or (isinstance(type_, type) and issubclass(type_, enum.Enum))


_TYPE_NAMES: dict[Any, str] = {
    int: "int", float: "double", bool: "bool", str: "std::string", Unsigned: "unsigned int",
    NodeStatus: "BT::NodeStatus",
}
_ITEM_NAMES = {int: "int", float: "double", bool: "bool", str: "std::string"}


def type_name(type_: Any) -> str:
    """The C++ type name BT.CPP prints for a port type (TreeNodesModel `type`, errors)."""
    if type_ is None or type_ is object or type_ is Any:
        return "BT::AnyTypeAllowed"
    if type_ in _TYPE_NAMES:
        return _TYPE_NAMES[type_]
    if isinstance(type_, SharedQueue):
        inner = _ITEM_NAMES.get(type_.item_type, getattr(type_.item_type, "__name__", "T"))
        return f"std::shared_ptr<std::deque<{inner}, std::allocator<{inner}> > >"
    item = _list_item_type(type_)
    if item is not None:
        inner = _ITEM_NAMES.get(item, getattr(item, "__name__", "T"))
        return f"std::vector<{inner}, std::allocator<{inner}> >"
    return getattr(type_, "__qualname__", repr(type_))


def to_btcpp_string(value: Any) -> str:
    """BT.CPP toStr for a default value: doubles with six decimals, bools true/false."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6f}"
    if isinstance(value, NodeStatus):
        return value.value
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (list, tuple, deque)):
        return ";".join(to_btcpp_string(v) for v in value)
    return str(value)


# --------------------------------------------------------------------------- names

_FORBIDDEN = frozenset(" \t\n\r<>&\"'/\\:*?|.")


def find_forbidden_char(name: str) -> str | None:
    """BT.CPP 4.10 findForbiddenChar: the first character of `name` that a model or port name
    may not hold (ASCII control characters, DEL, blanks, XML specials, path separators,
    wildcards, the period), or None. Non-ASCII characters are allowed."""
    for ch in name:
        code = ord(ch)
        if code >= 0x80:
            continue
        if code < 32 or code == 127 or ch in _FORBIDDEN:
            return ch
    return None


def describe_forbidden_char(ch: str) -> str:
    """BT.CPP formatForbiddenChar: `'x'`, or `control character (ASCII n)`."""
    code = ord(ch)
    if code < 32 or code == 127:
        return f"control character (ASCII {code})"
    return f"'{ch}'"


def is_reserved_attribute(name: str) -> bool:
    """BT.CPP IsReservedAttribute: pre/post conditions, name, ID, _autoremap."""
    return name in PRE_CONDITIONS or name in POST_CONDITIONS or name in ("name", "ID", "_autoremap")


def is_allowed_port_name(name: str) -> bool:
    """BT.CPP IsAllowedPortName: starts with a letter, no forbidden character, not reserved."""
    if not name:
        return False
    first = name[0]
    if not (first.isascii() and first.isalpha()):
        return False
    if find_forbidden_char(name) is not None:
        return False
    return not is_reserved_attribute(name)


def parse_blackboard_pointer(text: str) -> str | None:
    """TreeNode::isBlackboardPointer: "{key}" (blanks around allowed) -> "key", else None."""
    if len(text) < 3:
        return None
    s = text.strip(" ")
    if len(s) >= 3 and s[0] == "{" and s[-1] == "}":
        return s[1:-1]
    return None


def remapped_key(port_name: str, value: str) -> str | None:
    """TreeNode::getRemappedKey: "{=}" or "=" -> the port name, "{key}" -> key, else None."""
    if value == "{=}" or value == "=":
        return port_name
    return parse_blackboard_pointer(value)


# --------------------------------------------------------------------------- PortInfo


class PortInfo:
    """One port of a node type: name, direction, type, default and description."""

    __slots__ = ("name", "direction", "type_", "default", "description")

    def __init__(self, name: str, direction: PortDirection, type_: Any = None,
                 default: Any = NO_DEFAULT, description: str = "") -> None:
        if not isinstance(name, str):
            raise TypeError(f"port name must be a string, got {name!r}")
        self.name = name
        self.direction = direction
        self.type_ = None if type_ in (object, Any) else type_
        self.default = default
        self.description = description

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    @property
    def strongly_typed(self) -> bool:
        """BT.CPP isStronglyTyped: the type is neither AnyTypeAllowed nor Any."""
        return self.type_ is not None

    @property
    def type_name(self) -> str:
        return type_name(self.type_)

    def default_string(self) -> str:
        """BT.CPP defaultValueString()."""
        if self.default is NO_DEFAULT:
            return ""
        if isinstance(self.default, str):
            return self.default
        return to_btcpp_string(self.default)

    def convert(self, text: str, enums: Mapping[str, int] | None = None) -> Any:
        return convert_from_string(self.type_, text, enums)

    def entry_type(self) -> Any:
        """The Python type of a blackboard entry declared by this port (None = any)."""
        t = self.type_
        if t is None:
            return None
        if t is Unsigned:
            return int
        if isinstance(t, SharedQueue):
            return deque
        if _list_item_type(t) is not None:
            return list
        return t if isinstance(t, type) else None

    def entry_converter(self, enums: Mapping[str, int] | None) -> Callable[[str], Any] | None:
        t = self.type_
        if t is None or t is str:
            return None
        return lambda text: convert_from_string(t, text, enums)

    def __repr__(self) -> str:
        d = "" if self.default is NO_DEFAULT else f", default={self.default!r}"
        return f"{self.direction.name.title()}Port({self.name!r}, {type_name(self.type_)}{d})"


def InputPort(name: str, type_: Any = None, default: Any = NO_DEFAULT,  # noqa: N802 - BT.CPP name
              description: str = "") -> PortInfo:
    """An input port: read with node.get_input(name)."""
    return PortInfo(name, PortDirection.INPUT, type_, default, description)


def OutputPort(name: str, type_: Any = None, description: str = "",  # noqa: N802
               default: Any = NO_DEFAULT) -> PortInfo:
    """An output port: written with node.set_output(name, value); needs "{key}" in the XML."""
    return PortInfo(name, PortDirection.OUTPUT, type_, default, description)


def BidirectionalPort(name: str, type_: Any = None, default: Any = NO_DEFAULT,  # noqa: N802
                      description: str = "") -> PortInfo:
    """An in/out port."""
    return PortInfo(name, PortDirection.INOUT, type_, default, description)
