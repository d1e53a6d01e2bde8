"""BT.CPP 4.10's name rules for XML trees (src/xml_parsing.cpp: validateModelName,
validatePortName, validateInstanceName; docs/name_validation_rules.md).

Each function returns BT.CPP's message for a name it refuses (without its "Error at line N: "
prefix: the TreeLoadError carries the line), or None. Used by the loader (tree IDs, SubTree IDs,
element names, TreeNodesModel port names) and the builder (instance names).
"""
from __future__ import annotations

from soccerbt.nodes.ports import describe_forbidden_char, find_forbidden_char, is_reserved_attribute

__all__ = ["model_name_problem", "port_name_problem", "instance_name_problem"]


def _shown(name: str) -> str:
    """The name as quoted in a message: control characters (invisible) as \\xNN."""
    return "".join(f"\\x{ord(c):02x}" if ord(c) < 32 or ord(c) == 127 else c for c in name)


def model_name_problem(name: str) -> str | None:
    """validateModelName: a BehaviorTree or SubTree ID, or a custom element's name."""
    if not name:
        return "Model/Node type name cannot be empty"
    if name in ("Root", "root"):
        return "'Root' is a reserved name and cannot be used as a node type"
    ch = find_forbidden_char(name)
    if ch is not None:
        return f"Model name '{_shown(name)}' contains forbidden character {describe_forbidden_char(ch)}"
    return None


def port_name_problem(name: str) -> str | None:
    """validatePortName: a port declared by a TreeNodesModel <SubTree>."""
    if not name:
        return "Port name cannot be empty"
    if name[0].isascii() and name[0].isdigit():
        return f"Port name '{_shown(name)}' cannot start with a digit"
    ch = find_forbidden_char(name)
    if ch is not None:
        return f"Port name '{_shown(name)}' contains forbidden character {describe_forbidden_char(ch)}"
    if is_reserved_attribute(name):
        return f"Port name '{_shown(name)}' is a reserved attribute name"
    return None


def instance_name_problem(name: str) -> str | None:
    """validateInstanceName: an explicit name="..." may hold anything but control characters
    (tab, LF and CR allowed) and DEL."""
    for ch in name:
        code = ord(ch)
        if (code < 32 and ch not in "\t\n\r") or code == 127:
            return f"Instance name '{_shown(name)}' contains invalid control character (ASCII {code})"
    return None
