"""The FULLTREE reply: BT.CPP 4.10's ``WriteTreeToXML(tree, true, true)`` for a soccerbt tree.

What Groot2Publisher sends is the logger XML of soccerbt.trees.structure (``logger_xml``: one
``<BehaviorTree ID _fullpath>`` per subtree instance, ``_uid`` on every node, ``_fullpath`` on
SubTree nodes, then a TreeNodesModel), with two differences this module makes:

- the models: BT.CPP writes every model the tree's factory holds (``tree.manifests``), the
  built-in ones included (add_builtin_models), sorted by ID. Given the factory's manifests
  (`manifests`), so does this; without them, the built-in models of a fresh TreeFactory and the
  models of the node types the tree uses (their ports as the nodes were built with);
- the ports, as BT.CPP's XML parser fills a node's maps: every port the XML gives, then every
  input port left out that has a default (with it), and an output port's default when it is a
  blackboard pointer; written in the order of BT.CPP's hash maps (soccerbt.groot.hash_order:
  the node's XML attributes inserted in the XML's order, then the defaults in the order of the
  model's ports), inputs first, then the outputs that are not inputs, then the pre- and
  post-conditions in BT.CPP's enum order; a model's ports in its hash map's order (a brace list
  of ports is inserted one by one into an empty table); a port without a type is
  written as BT::AnyTypeAllowed (BT::Any for the three built-in ``entry`` ports);
- the text: TinyXML2's printer, not lxml's: 4 spaces per level, ``<X a="1"/>`` for an empty
  element, a text-only element on one line, attribute values with ``& < > " '`` escaped as
  entities and text with ``& < >``, and a newline after ``</root>``.

Checked byte for byte against BT.CPP 4.10's replies (tests/groot/test_btcpp410.py).

`stored_tree_xml` writes the same reply from a stored description of a tree (a replay log's
tree: soccerbt.trees.structure.describe_tree's rows) and the factory's manifests: byte for byte
what `full_tree_xml` writes for the live tree when every node type is in the manifests and the
XML gave each node's ports inputs first (the description keeps a node's ports as inputs, then
outputs, not the XML's order, which only changes where two ports share a hash bucket). A node
type the manifests lack is modelled from the row: its ports as inputs, the defaults of format 3's
``defaults`` (older logs: none).
"""
from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from lxml import etree

from soccerbt.groot.hash_order import UnorderedKeys, unordered_order
from soccerbt.nodes.ports import POST_CONDITIONS, PRE_CONDITIONS, PortDirection, parse_blackboard_pointer
from soccerbt.trees import TreeFactory
from soccerbt.trees.structure import describe_tree, logger_xml, manifest_models

__all__ = ["full_tree_xml", "stored_tree_xml", "tree_models", "tinyxml2_text"]

_INDENT = "    "


# the built-in ports BT.CPP declares as InputPort<BT::Any> (the rest without a type are
# BT::AnyTypeAllowed, which soccerbt does not tell apart)
_ANY_PORTS = frozenset({("WasEntryUpdated", "entry"), ("SkipUnlessUpdated", "entry"), ("WaitValueUpdate", "entry")})


def _typed(models: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every port with the type BT.CPP writes: a port declared without one is AnyTypeAllowed
    (BT.CPP writes a type for every port but a void one, which no node declares)."""
    for node_id, model in models.items():
        for port in model["ports"]:
            if not port.get("type"):
                port["type"] = "BT::Any" if (node_id, port["name"]) in _ANY_PORTS else "BT::AnyTypeAllowed"
    return models


def tree_models(tree: Any, manifests: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The TreeNodesModel entries BT.CPP writes for `tree` (see the module docstring)."""
    if manifests is not None:
        return _typed(manifest_models(manifests, list(manifests)))
    builtin = TreeFactory().manifests()
    models = manifest_models(builtin, [node_id for node_id, m in builtin.items() if m.builtin])
    used: dict[str, Any] = {}
    for node in tree.nodes():
        node_id = node.registration_id
        if node_id not in models and node_id not in used:
            used[node_id] = SimpleNamespace(kind=node.NODE_KIND, ports=dict(node.config.ports))
    models.update(manifest_models(used, list(used)))
    return _typed(models)


def full_tree_xml(tree: Any, manifests: Mapping[str, Any] | None = None) -> str:
    """The XML of the FULLTREE reply for `tree` (a soccerbt.trees.Tree)."""
    xml = logger_xml(describe_tree(tree), tree_models(tree, manifests))
    root = etree.fromstring(xml)
    nodes = {node.uid: node for node in tree.nodes()}
    for elem in root.iter():
        uid = elem.get("_uid") if isinstance(elem.tag, str) else None
        if uid is not None and int(uid) in nodes:
            _order_node(elem, nodes[int(uid)])
    model_root = root.find("TreeNodesModel")
    if model_root is not None:
        for model in model_root:
            _order_model(model)
    return tinyxml2_text(root)


class _StoredPort:
    """A port of a node type the manifests lack, as far as a stored row tells (an input)."""

    __slots__ = ("default",)
    direction = PortDirection.INPUT

    def __init__(self, default: str | None) -> None:
        self.default = default

    @property
    def has_default(self) -> bool:
        return self.default is not None

    def default_string(self) -> str:
        return self.default or ""


def _stored_ports(row: Mapping[str, Any]) -> dict[str, _StoredPort]:
    ports = {name: _StoredPort(None) for name in row.get("ports", {})}
    for name, default in (row.get("defaults") or {}).items():
        ports.setdefault(name, _StoredPort(default if isinstance(default, str) else None))
    return ports


def _builtin_manifests() -> dict[str, Any]:
    return {node_id: m for node_id, m in TreeFactory().manifests().items() if m.builtin}


def stored_models(description: Mapping[str, Any], manifests: Mapping[str, Any] | None = None
                  ) -> dict[str, dict[str, Any]]:
    """The TreeNodesModel entries for a stored tree: every model of `manifests` (default: the
    built-in ones of a fresh TreeFactory), and for a node type they lack the ports its rows use."""
    if manifests is None:
        manifests = _builtin_manifests()
    models = manifest_models(manifests, list(manifests))
    for row in description.get("nodes", ()):
        node_id = row["id"]
        if node_id in manifests:
            continue
        entry = models.setdefault(node_id, {"kind": row["kind"], "ports": []})
        known = {p["name"] for p in entry["ports"]}
        for name, port in _stored_ports(row).items():
            if name not in known:
                known.add(name)
                entry["ports"].append({"name": name, "direction": "input_port", "type": "",
                                       "default": port.default, "description": ""})
    return _typed(models)


def stored_tree_xml(description: Mapping[str, Any], manifests: Mapping[str, Any] | None = None) -> str:
    """The XML of the FULLTREE reply for a stored tree description (see the module docstring)."""
    if manifests is None:
        manifests = _builtin_manifests()
    xml = logger_xml(dict(description), stored_models(description, manifests))
    root = etree.fromstring(xml)
    rows = {row["uid"]: row for row in description.get("nodes", ())}
    for elem in root.iter():
        uid = elem.get("_uid") if isinstance(elem.tag, str) else None
        row = rows.get(int(uid)) if uid is not None else None
        if row is not None:
            _order_node(elem, _stored_node(row, manifests))
    model_root = root.find("TreeNodesModel")
    if model_root is not None:
        for model in model_root:
            _order_model(model)
    return tinyxml2_text(root)


def _stored_node(row: Mapping[str, Any], manifests: Mapping[str, Any] | None) -> Any:
    """What `_order_node` reads of a node, from its stored row."""
    manifest = manifests.get(row["id"]) if manifests is not None else None
    ports = dict(manifest.ports) if manifest is not None else _stored_ports(row)
    remap = {key: str(value) for key, value in row.get("ports", {}).items()}
    config = SimpleNamespace(port_remap=remap, input_ports=remap, output_ports={}, ports=ports)
    return SimpleNamespace(config=config, NODE_KIND=row["kind"], registration_id=row["id"])


def model_port_order(node_id: str, names: list[str]) -> list[str]:
    """A model's ports in BT.CPP's order: its PortsList made from a brace list, which libstdc++'s
    initializer-list constructor fills one insertion at a time from an empty table (no buckets
    reserved for the list's length: Booster's models, up to 11 ports, show it), as the Switch
    nodes insert theirs. `node_id` is kept for the callers (no node type is modelled apart)."""
    del node_id
    return unordered_order(names)


def _order_model(model: Any) -> None:
    ports = {child.get("name"): child for child in model if isinstance(child.tag, str)}
    if len(ports) < 2:
        return
    for child in list(model):
        model.remove(child)
    for name in model_port_order(model.get("ID", ""), list(ports)):
        model.append(ports[name])


def _order_node(elem: Any, node: Any) -> None:
    """The node's attributes as BT.CPP's WriteTreeToXML writes them (see the module docstring)."""
    cfg = node.config
    fixed = ("ID", "_fullpath", "_uid") if node.NODE_KIND == "SubTree" else ("name", "_uid")
    head = [(key, elem.get(key)) for key in fixed if elem.get(key) is not None]
    conditions = [(key, elem.get(key)) for key in (*PRE_CONDITIONS, *POST_CONDITIONS) if elem.get(key) is not None]
    remap = cfg.port_remap or {**cfg.input_ports, **cfg.output_ports}
    remap_order = unordered_order(remap)
    if node.NODE_KIND == "SubTree":
        ports = [(key, remap[key]) for key in remap_order]
    else:
        models = cfg.ports
        inputs, outputs = UnorderedKeys(), UnorderedKeys()
        values: dict[str, str] = {}
        for key in remap_order:
            port = models.get(key)
            if port is None:
                continue
            values[key] = remap[key]
            if port.direction is not PortDirection.OUTPUT:
                inputs.insert(key)
            if port.direction is not PortDirection.INPUT:
                outputs.insert(key)
        for key in model_port_order(node.registration_id, list(models)):
            port = models[key]
            default = port.default_string() if port.has_default else ""
            if not default:
                continue
            if port.direction is not PortDirection.OUTPUT and key not in inputs:
                inputs.insert(key)
                values[key] = default
            if port.direction is not PortDirection.INPUT and key not in outputs \
                    and parse_blackboard_pointer(default) is not None:
                outputs.insert(key)
                values.setdefault(key, default)
        in_keys = inputs.keys()
        ports = [(key, values[key]) for key in in_keys]
        ports += [(key, values[key]) for key in outputs.keys() if key not in inputs]
    elem.attrib.clear()
    for key, value in (*head, *ports, *conditions):
        elem.set(key, value)


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
