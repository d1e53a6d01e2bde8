"""The FULLTREE reply: BT.CPP 4.10's ``WriteTreeToXML(tree, true, true)`` for a soccerbt tree.

What Groot2Publisher sends is the logger XML of soccerbt.trees.structure (``logger_xml``: one
``<BehaviorTree ID _fullpath>`` per subtree instance, ``_uid`` on every node, ``_fullpath`` on
SubTree nodes, then a TreeNodesModel), with two differences this module makes:

- the models: BT.CPP writes every model the tree's factory holds (``tree.manifests``), the
  built-in ones included (add_builtin_models), sorted by ID. Given the factory's manifests
  (`manifests`), so does this; without them, the built-in models of a fresh TreeFactory and the
  models of the node types the tree uses (their ports as the nodes were built with);
- the text: TinyXML2's printer, not lxml's: 4 spaces per level, ``<X a="1"/>`` for an empty
  element, a text-only element on one line, attribute values with ``& < > " '`` escaped as
  entities and text with ``& < >``, and a newline after ``</root>``.

Attribute order within a node follows the XML the tree was loaded from; BT.CPP iterates its
port maps (hash maps) instead, so a node with several ports may list them in another order.
"""
from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from lxml import etree

from soccerbt.trees import TreeFactory
from soccerbt.trees.structure import describe_tree, logger_xml, manifest_models

__all__ = ["full_tree_xml", "tree_models", "tinyxml2_text"]

_INDENT = "    "


def tree_models(tree: Any, manifests: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The TreeNodesModel entries BT.CPP writes for `tree` (see the module docstring)."""
    if manifests is not None:
        return manifest_models(manifests, list(manifests))
    builtin = TreeFactory().manifests()
    models = manifest_models(builtin, [node_id for node_id, m in builtin.items() if m.builtin])
    used: dict[str, Any] = {}
    for node in tree.nodes():
        node_id = node.registration_id
        if node_id not in models and node_id not in used:
            used[node_id] = SimpleNamespace(kind=node.NODE_KIND, ports=dict(node.config.ports))
    models.update(manifest_models(used, list(used)))
    return models


def full_tree_xml(tree: Any, manifests: Mapping[str, Any] | None = None) -> str:
    """The XML of the FULLTREE reply for `tree` (a soccerbt.trees.Tree)."""
    xml = logger_xml(describe_tree(tree), tree_models(tree, manifests))
    return tinyxml2_text(etree.fromstring(xml))


def _escape(text: str, table: dict[int, str]) -> str:
    return text.translate(table)


_ATTRIBUTE = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;", ord('"'): "&quot;", ord("'"): "&apos;"}
_TEXT = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;"}


def tinyxml2_text(root: Any) -> str:
    """An element tree printed as TinyXML2's XMLPrinter prints a document (see the module
    docstring). Comments and processing instructions are left out (BT.CPP writes none)."""
    parts: list[str] = []
    first = True
    for event, elem in etree.iterwalk(root, events=("start", "end")):
        if not isinstance(elem.tag, str):
            continue
        depth = _depth(elem, root)
        text = elem.text if elem.text and elem.text.strip() else None
        children = [c for c in elem if isinstance(c.tag, str)]
        if event == "start":
            if not first:
                parts.append("\n" + _INDENT * depth)
            first = False
            parts.append("<" + elem.tag)
            for name, value in elem.attrib.items():
                parts.append(f' {name}="{_escape(value, _ATTRIBUTE)}"')
            if text is None and not children:
                parts.append("/>")
            else:
                parts.append(">")
                if text is not None:
                    parts.append(_escape(text, _TEXT))
        else:
            if text is None and not children:
                pass  # closed with "/>"
            elif children and text is None:
                parts.append("\n" + _INDENT * depth + f"</{elem.tag}>")
            else:
                parts.append(f"</{elem.tag}>")
            if elem is root:
                parts.append("\n")
    return "".join(parts)


def _depth(elem: Any, root: Any) -> int:
    depth = 0
    while elem is not root:
        elem = elem.getparent()
        depth += 1
    return depth
