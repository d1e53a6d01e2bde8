"""Every port of a recorded node with the value in effect and where it came from: what the node
panel, ``replay --tree`` and ``--json`` show (a stored tree: ``format.check_tree``).

A port's value comes from the XML (a literal as written), from its model's default (the XML
leaves the port out), or from a blackboard entry (a ``{key}`` pointer, written or the default):
then the value is the root blackboard's at that step. A pointer to a SubTree's own key names an
entry the log does not record (it holds the root blackboard), and a port without a default that
the XML leaves out is not set. Logs of format 2 hold neither the defaults nor where a pointer
resolves: their ports are those of the XML, and a pointer is taken as the root key it names.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from soccerbt.cli.values import short_value
from soccerbt.nodes.ports import remapped_key

__all__ = ["PortValue", "ports_in_effect", "SOURCES"]

# where a value came from
SOURCES = ("xml", "default", "blackboard", "subtree", "unset")


@dataclass(frozen=True)
class PortValue:
    """One port: its name, the value in effect (None: none), where it came from (``SOURCES``:
    "blackboard" also for a default that points at an entry), the text written in the XML or
    the model's default ("" when neither), the root blackboard key it reads (None: none), and
    whether that entry was set at that step."""

    name: str
    value: Any
    source: str
    written: str
    key: str | None = None
    set: bool = True
    from_default: bool = False   # the written text is the model's default (the XML leaves the port out)

    def text(self, width: int = 40) -> str:
        """``name=value (source)`` as the text tools print it."""
        if self.source == "unset":
            return f"{self.name} (not set)"
        if self.source == "subtree":
            return f"{self.name}={self.written} (a SubTree's own entry: not recorded)"
        if self.source == "blackboard":
            now = ("''" if self.value == "" else short_value(self.value, width)) if self.set else "(not set)"
            return f"{self.name}={self.written}{' (default)' if self.from_default else ''} = {now}"
        if self.source == "default":
            try:  # BT.CPP writes a double's default as "1.500000"
                return f"{self.name}={float(self.value):g} (default)"
            except ValueError:
                return f"{self.name}={short_value(self.value, width)} (default)"
        return f"{self.name}={short_value(self.value, width)}"

    def as_json(self) -> dict[str, Any]:
        """``--json``'s entry: {"name", "value", "source", "written", "key", "set", "default"}."""
        return {"name": self.name, "value": self.value, "source": self.source, "written": self.written,
                "key": self.key, "set": self.set, "default": self.from_default}


def ports_in_effect(row: dict[str, Any], blackboard: dict[str, list[Any]]) -> list[PortValue]:
    """The ports of a stored tree's node ``row`` (``format.check_tree``), the written ones first
    in the XML's order, then the model's others by name, with the values in effect on
    ``blackboard`` (the root blackboard at the step: {key: [value, writer]})."""
    keys = row.get("keys")
    out: list[PortValue] = []

    def pointer(name: str, text: str, from_default: bool = False) -> PortValue | None:
        key = remapped_key(name, text)
        if key is None:
            return None
        if keys is not None and name in keys:
            root = keys[name]
        else:  # format 2: the key as written (its scope unknown)
            root = key[1:] if key.startswith("@") else key
        if root is None:
            return PortValue(name, None, "subtree", text, from_default=from_default)
        entry = blackboard.get(root)
        return PortValue(name, entry[0] if entry else None, "blackboard", text, root, entry is not None, from_default)

    for name, text in (row.get("ports") or {}).items():
        out.append(pointer(name, text) or PortValue(name, text, "xml", text))
    for name, default in sorted((row.get("defaults") or {}).items()):
        if default is None:
            out.append(PortValue(name, None, "unset", ""))
            continue
        out.append(pointer(name, default, True) or PortValue(name, default, "default", default, from_default=True))
    return out
