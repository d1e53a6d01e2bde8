"""A loaded tree's structure as plain data, and BehaviorTree.CPP's XML for loggers from it.

``describe_tree(tree)`` lists every node in uid order (uid, parent uid, name, registration ID,
kind, BT.CPP full path, the BehaviorTree ID it belongs to, its port values and pre/post
conditions as written, the ports its model declares that the XML leaves out with their
defaults, the root blackboard key each port's ``{pointer}`` resolves to, the subtree ID of a
SubTree node) and every subtree instance (tree ID and instance path): what a replay log stores
so that a reader rebuilds the tree without the XML files. ``logger_xml(description)`` turns
that back into the XML BT.CPP's loggers embed (``addTreeToXML`` with metadata: one
``<BehaviorTree ID=".." _fullpath="..">`` per subtree instance, a ``_uid`` on every node,
``_fullpath`` on SubTree nodes, then a TreeNodesModel).

Knows nothing of soccer.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from lxml import etree

from soccerbt.nodes.ports import POST_CONDITIONS, PRE_CONDITIONS, remapped_key

__all__ = ["describe_tree", "logger_xml", "manifest_models", "BUILTIN_IDS"]

# node IDs registered by BT.CPP's own factory: left out of the TreeNodesModel, as BT.CPP does
BUILTIN_IDS = frozenset({
    "AlwaysFailure", "AlwaysSuccess", "Script", "ScriptCondition", "SetBlackboard", "UnsetBlackboard",
    "Sleep", "WasEntryUpdated", "Sequence", "SequenceWithMemory", "ReactiveSequence", "Fallback",
    "ReactiveFallback", "AsyncSequence", "AsyncFallback", "Parallel", "ParallelAll", "IfThenElse",
    "WhileDoElse", "Switch2", "Switch3", "Switch4", "Switch5", "Switch6", "TryCatch", "Inverter",
    "ForceSuccess", "ForceFailure", "Repeat", "RetryUntilSuccessful", "KeepRunningUntilFailure",
    "RunOnce", "Precondition", "Timeout", "Delay", "SkipUnlessUpdated", "WaitValueUpdate",
    "LoopInt", "LoopBool", "LoopDouble", "LoopString", "SubTree", "EntryUpdated",
})


def describe_tree(tree: Any) -> dict[str, Any]:
    """The structure of `tree` (a soccerbt.trees.Tree) as JSON-ready data."""
    nodes = []
    for node in sorted(tree.nodes(), key=lambda n: n.uid):
        cfg = node.config
        ports = dict(cfg.input_ports)
        for key, value in cfg.output_ports.items():
            ports.setdefault(key, value)
        conditions = {PRE_CONDITIONS[idx]: getattr(script, "source", str(script)) for idx, script in cfg.pre}
        for idx, script in enumerate(cfg.post):
            if script is not None:
                conditions[POST_CONDITIONS[idx]] = getattr(script, "source", str(script))
        parent = node.parent
        row: dict[str, Any] = {
            "uid": node.uid, "parent": getattr(parent, "uid", 0) if parent is not None else 0,
            "name": node.name, "id": node.registration_id, "kind": node.NODE_KIND,
            "path": node.bt_path, "tree_id": cfg.tree_id, "ports": ports,
        }
        if conditions:
            row["conditions"] = conditions
        # the ports the XML leaves out, with the default in effect (None: no default, not set)
        defaults = {name: port.default_string() if port.has_default else None
                    for name, port in cfg.ports.items() if name not in ports}
        if defaults:
            row["defaults"] = defaults
        # the root blackboard key each {pointer} port names (None: a SubTree's own key)
        keys = _root_keys(cfg.blackboard, ports, defaults)
        if keys:
            row["keys"] = keys
        subtree_id = getattr(node, "subtree_id", None)
        if node.NODE_KIND == "SubTree" and subtree_id:
            row["subtree"] = subtree_id
        if cfg.xml_line:
            row["line"] = cfg.xml_line
        nodes.append(row)
    subtrees = [{"tree_id": s.tree_id, "instance": s.instance_name, "root": s.nodes[0].uid if s.nodes else 0}
                for s in tree.subtrees]
    return {"nodes": nodes, "subtrees": subtrees}


def _root_keys(blackboard: Any, ports: Mapping[str, str], defaults: Mapping[str, str | None]) -> dict[str, str | None]:
    """port -> the root key its blackboard pointer ("{key}", "{=}", "{@key}") resolves to."""
    out: dict[str, str | None] = {}
    if blackboard is None:
        return out
    for name, text in (*ports.items(), *defaults.items()):
        if not text:
            continue
        key = remapped_key(name, text)
        if key is not None:
            out[name] = blackboard.root_key(key)
    return out


_PRETTY_DEPTH = 100


_PORT_TAGS = {"Input": "input_port", "Output": "output_port", "InOut": "inout_port"}


def manifest_models(manifests: Mapping[str, Any], ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The TreeNodesModel entries (``logger_xml``'s `models`) of the registered types `ids`, as
    BT.CPP's ``addNodeModelToXML`` writes them: the kind, and each port with its direction, type
    (when it has one), default (when it has one) and description."""
    out: dict[str, dict[str, Any]] = {}
    for node_id in ids:
        m = manifests[node_id]
        ports = []
        for port in m.ports.values():
            ports.append({"name": port.name, "direction": _PORT_TAGS[port.direction.value],
                          "type": port.type_name if port.type_ is not None else "",
                          "default": port.default_string() if port.has_default else None,
                          "description": port.description})
        out[node_id] = {"kind": m.kind, "ports": ports}
    return out


def logger_xml(description: dict[str, Any], models: dict[str, dict[str, Any]] | None = None) -> str:
    """BT.CPP's logger XML for a described tree (see the module docstring).

    `models`: registration ID -> {"kind": ..., "ports": [{"name", "direction", "type", "default",
    "description"}]} for the TreeNodesModel (``manifest_models``); by default the non-built-in IDs
    of the tree with the ports it uses.
    """
    rows = {row["uid"]: row for row in description["nodes"]}
    children: dict[int, list[int]] = {}
    for row in description["nodes"]:
        children.setdefault(row["parent"], []).append(row["uid"])
    root = etree.Element("root", BTCPP_format="4")

    def add(top: int, top_parent: Any) -> None:
        """The node `top` and everything below it, with an explicit stack (never recursing on the
        tree's depth: a stored tree may come from an untrusted log)."""
        stack = [(top, top_parent)]
        while stack:
            uid, parent_elem = stack.pop()
            row = rows[uid]
            elem = etree.SubElement(parent_elem, row["id"])
            if row["kind"] == "SubTree":
                elem.set("ID", row.get("subtree", ""))
                elem.set("_fullpath", row["path"])
            else:
                elem.set("name", row["name"])
            elem.set("_uid", str(uid))
            for key, value in row.get("ports", {}).items():
                if key != "_autoremap" or row["kind"] == "SubTree":
                    elem.set(key, str(value))
            for key, value in row.get("conditions", {}).items():
                elem.set(key, value)
            if row["kind"] != "SubTree":
                stack.extend((child, elem) for child in reversed(children.get(uid, [])))

    for sub in description["subtrees"]:
        bt = etree.SubElement(root, "BehaviorTree", ID=sub["tree_id"], _fullpath=sub["instance"])
        if sub.get("root"):
            add(sub["root"], bt)
    model_root = etree.SubElement(root, "TreeNodesModel")
    if models is None:
        models = {}
        for row in description["nodes"]:
            if row["id"] in BUILTIN_IDS:
                continue
            entry = models.setdefault(row["id"], {"kind": row["kind"], "ports": []})
            known = {p["name"] for p in entry["ports"]}
            for key in row.get("ports", {}):
                if key not in known:
                    entry["ports"].append({"name": key, "direction": "input_port", "type": ""})
    for model_id in sorted(models):
        model = models[model_id]
        elem = etree.SubElement(model_root, model.get("kind", "Action"), ID=model_id)
        for port in model.get("ports", []):
            p = etree.SubElement(elem, port.get("direction", "input_port"), name=port["name"])
            if port.get("type"):
                p.set("type", port["type"])
            if port.get("default") is not None:
                p.set("default", port["default"])
            if port.get("description"):
                p.text = port["description"]
    # indented when shallow; a deep tree's indentation would grow with the square of its depth
    depth: dict[int, int] = {0: 0}
    for row in description["nodes"]:  # parents come before their children (uid order)
        depth[row["uid"]] = depth.get(row["parent"], 0) + 1
    shallow = max(depth.values(), default=0) <= _PRETTY_DEPTH
    return etree.tostring(root, encoding="unicode", pretty_print=shallow)
