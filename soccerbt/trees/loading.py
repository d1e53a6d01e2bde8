"""Loading trees: documents with their includes, VerifyXML, and the expanded-size guard.

``_Loader`` reads the documents of one create call (the file, its ``<include>``s under the
include rules, TreeNodesModel entries) into a ``_DocSet`` and runs BT.CPP 4.10's VerifyXML
on each (xml_parsing.cpp's loadDocImpl), with its name rules (soccerbt.trees.names); ``expanded_size`` counts a tree's
nodes with every SubTree expanded, so that a "billion laughs" of SubTrees is refused before it is built.
``_Errors`` raises the first problem or, for validation, collects them all. Used by
soccerbt.trees.factory; every problem is a TreeLoadError ``path:line: message``, an unknown node
with the nearest registered IDs (``unknown_node_message``: "; did you mean 'KickBall'?").
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from soccerbt.nodes.ports import NO_DEFAULT, PortDirection, PortInfo
from soccerbt.trees.errors import TreeLoadError
from soccerbt.trees.includes import IncludeRules, resolve_include
from soccerbt.trees.names import model_name_problem, port_name_problem
from soccerbt.trees.registry import Registry
from soccerbt.trees.suggest import did_you_mean
from soccerbt.trees.xmlload import (
    FileRefused,
    XmlDocument,
    XNode,
    decode_xml_bytes,
    limit_message,
    parse_xml_text,
    read_limited,
)

_COUNT_CAP = 1 << 62  # expanded sizes saturate here (a bomb's exact size is of no interest)
_KIND_TAGS = ("Action", "Condition", "Control", "Decorator", "SubTree")


class _Errors:
    """Raise the first error, or (validation) collect them all."""

    def __init__(self, collect: bool) -> None:
        self.collect = collect
        self.items: list[TreeLoadError] = []
        self._keys: set[tuple[str, int | None, str]] = set()

    def add(self, err: TreeLoadError) -> None:
        if not self.collect:
            raise err
        key = (err.path, err.line, err.message)
        if key not in self._keys:
            self._keys.add(key)
            self.items.append(err)


@dataclass
class _TreeDef:
    element: XNode
    doc: XmlDocument


@dataclass
class _DocSet:
    """Everything loaded for one create call: documents, BehaviorTrees, SubTree models."""

    docs: list[XmlDocument] = field(default_factory=list)
    trees: dict[str, _TreeDef] = field(default_factory=dict)
    models: dict[str, dict[str, PortInfo]] = field(default_factory=dict)
    suffix: int = 0


def expanded_size(docset: _DocSet, tree_id: str, cap: int = _COUNT_CAP) -> int:
    """How many nodes `tree_id` has once every SubTree is expanded (a SubTree element counts
    itself and its tree). Linear in the definitions: each tree is counted once (memoised), with
    no recursion; unknown trees and cycles count 0 (the builder reports them). Saturates at
    `cap`."""
    trees = docset.trees
    own: dict[str, tuple[int, list[str]]] = {}  # tree ID -> (its own elements, SubTree IDs used)

    def scan(tid: str) -> tuple[int, list[str]]:
        tdef = trees[tid]
        count = 0
        refs: list[str] = []
        stack = list(tdef.element.children[:1])
        while stack:
            el = stack.pop()
            count += 1
            if el.tag == "SubTree":
                sid = el.attrs.get("ID")
                if sid:
                    refs.append(sid)
            else:
                stack.extend(el.children)
        return count, refs

    size: dict[str, int] = {}
    if tree_id not in trees:
        return 0
    visiting: set[str] = set()
    stack: list[tuple[str, bool]] = [(tree_id, False)]
    while stack:
        tid, done = stack.pop()
        if done:
            count, refs = own[tid]
            total = count + sum(size.get(r, 0) for r in refs)
            size[tid] = min(total, cap)
            visiting.discard(tid)
            continue
        if tid in size or tid in visiting or tid not in trees:
            continue
        visiting.add(tid)
        own[tid] = scan(tid)
        stack.append((tid, True))
        for ref in own[tid][1]:
            if ref not in size and ref not in visiting and ref in trees:
                stack.append((ref, False))
    return size.get(tree_id, 0)


def _check_expanded_size(docset: _DocSet, tree_id: str, max_nodes: int) -> None:
    """Refuse, before building anything, a tree that expands beyond `max_nodes` nodes."""
    count = expanded_size(docset, tree_id)
    if count <= max_nodes:
        return
    tdef = docset.trees[tree_id]
    shown = f"more than {_COUNT_CAP:,}" if count >= _COUNT_CAP else f"{count:,}"
    raise TreeLoadError(tdef.doc.path, tdef.element.line,
                        f"the tree '{tree_id}' expands to {shown} nodes once its SubTrees are "
                        f"instantiated, more than the limit of {max_nodes:,} (raise it with "
                        "TreeFactory(max_nodes=...) or the environment variable "
                        "SOCCERBT_MAX_TREE_NODES)")


def _detect_main_tree(doc: XmlDocument, new_trees: set[str]) -> str | None:
    root = doc.root
    main = root.attrs.get("main_tree_to_execute")
    if main is not None:
        return main
    bts = [c for c in root.children if c.tag == "BehaviorTree"]
    if len(bts) == 1 and bts[0].attrs.get("ID"):
        return bts[0].attrs["ID"]
    if len(new_trees) == 1:
        return next(iter(new_trees))
    return None


class _Loader:
    """Reads documents with their includes and runs VerifyXML on each (loadDocImpl)."""

    def __init__(self, factory: Registry, errors: _Errors, include_roots: Any,
                 allow_any: bool, docset: _DocSet) -> None:
        self.factory = factory
        self.errors = errors
        self.rules = IncludeRules.make(include_roots, allow_any)
        self.max_bytes = factory.max_file_bytes
        self.docset = docset
        self.stack: list[Path] = []
        self.cache: dict[Path, XmlDocument] = {}

    def load_file(self, path: Path) -> XmlDocument | None:
        shown = str(path)
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError) as exc:  # a symlink loop
            self.errors.add(TreeLoadError(shown, None, f"cannot read file: {exc}"))
            return None
        self.rules.default_to(resolved.parent)
        try:
            doc = self._read(resolved, shown)
        except FileRefused as exc:
            self.errors.add(TreeLoadError(shown, None if exc.missing else 1,
                                          "cannot read file: No such file or directory"
                                          if exc.missing else exc.reason))
            return None
        except TreeLoadError as exc:
            self.errors.add(exc)
            return None
        self.stack.append(resolved)
        try:
            self._load_doc(doc)
        finally:
            self.stack.pop()
        return doc

    def load_text(self, text: str, base: Path, source_name: str = "<string>") -> XmlDocument | None:
        self.rules.default_to(base)
        try:
            if len(text) > self.max_bytes or len(text.encode("utf-8", "surrogatepass")) \
                    > self.max_bytes:
                raise TreeLoadError(source_name, 1, f"the text is more than "
                                                    f"{limit_message(self.max_bytes)}")
            doc = parse_xml_text(text, source_name, base)
        except TreeLoadError as exc:
            self.errors.add(exc)
            return None
        self._load_doc(doc)
        return doc

    def _read(self, resolved: Path, shown: str) -> XmlDocument:
        """Parse a file (cached): FileRefused when it is not read (not a regular file, too
        large, missing), TreeLoadError when it does not parse."""
        doc = self.cache.get(resolved)
        if doc is None:
            raw = read_limited(resolved, self.max_bytes)
            doc = parse_xml_text(decode_xml_bytes(raw, shown), shown, resolved.parent)
            self.cache[resolved] = doc
        return doc

    @property
    def roots(self) -> list[Path]:
        return self.rules.roots

    def _inside_roots(self, p: Path) -> bool:
        return self.rules.inside(p)

    def _load_doc(self, doc: XmlDocument) -> None:
        errors = self.errors
        root = doc.root
        if root.tag != "root":
            errors.add(TreeLoadError(doc.path, root.line,
                                     "The XML must have a root node called <root>"))
            return
        for incl in [c for c in root.children if c.tag == "include"]:
            self._include(doc, incl)
        self._verify(doc)
        self._load_models(doc)
        self.docset.docs.append(doc)
        for bt in root.children:
            if bt.tag != "BehaviorTree":
                continue
            name = bt.attrs.get("ID")
            if not name:
                name = f"BehaviorTree_{self.docset.suffix}"
                self.docset.suffix += 1
            self.docset.trees[name] = _TreeDef(bt, doc)

    def _include(self, doc: XmlDocument, incl: XNode) -> None:
        errors = self.errors
        try:
            resolved = resolve_include(doc, incl, self.rules)  # the folder rule, in one place
        except TreeLoadError as exc:
            errors.add(exc)
            return
        attr = incl.attrs["path"]
        line = incl.attr_line("path")
        if resolved in self.stack:
            chain = " -> ".join(p.name for p in self.stack[self.stack.index(resolved):])
            errors.add(TreeLoadError(doc.path, line,
                                     f"include cycle: {chain} -> {resolved.name}"))
            return
        shown = os.path.relpath(resolved) if not os.path.isabs(doc.path) else str(resolved)
        try:
            sub = self._read(resolved, shown)
        except FileRefused as exc:
            if exc.missing:
                msg = f"cannot open included file \"{attr}\" ({resolved})"
            else:
                msg = f"cannot include \"{attr}\" ({resolved}): {exc.reason}"
            errors.add(TreeLoadError(doc.path, line, msg))
            return
        except TreeLoadError as exc:
            errors.add(exc)
            return
        self.stack.append(resolved)
        try:
            self._load_doc(sub)
        finally:
            self.stack.pop()

    def _load_models(self, doc: XmlDocument) -> None:
        kinds = (("input_port", PortDirection.INPUT), ("output_port", PortDirection.OUTPUT),
                 ("inout_port", PortDirection.INOUT))
        for models in doc.root.children:
            if models.tag != "TreeNodesModel":
                continue
            for sub in models.children:
                if sub.tag != "SubTree":
                    continue
                sid = sub.attrs.get("ID")
                if not sid:
                    self.errors.add(TreeLoadError(doc.path, sub.line, "Missing attribute 'ID' "
                                                  "in SubTree element within TreeNodesModel"))
                    continue
                model = self.docset.models.setdefault(sid, {})
                for tag, direction in kinds:
                    for port_node in sub.children:
                        if port_node.tag != tag:
                            continue
                        pname = port_node.attrs.get("name")
                        if pname is None:
                            self.errors.add(TreeLoadError(doc.path, port_node.line,
                                                          "Missing attribute [name] in port "
                                                          "(SubTree model)"))
                            continue
                        problem = port_name_problem(pname)
                        if problem is not None:
                            self.errors.add(TreeLoadError(doc.path, port_node.line, problem))
                            continue
                        default = port_node.attrs.get("default")
                        model[pname] = PortInfo(pname, direction, None,
                                                default if default is not None else
                                                _no_default(),
                                                port_node.attrs.get("description", ""))

    # -- VerifyXML ---------------------------------------------------------------------------

    def _verify(self, doc: XmlDocument) -> None:
        errors = self.errors
        manifests = self.factory._manifests
        root = doc.root
        models = [c for c in root.children if c.tag == "TreeNodesModel"]
        if len(models) > 1:
            errors.add(TreeLoadError(doc.path, models[1].line,
                                     "Only a single node <TreeNodesModel> is supported"))
        if models:
            for node in root.children:
                if node.tag in ("Action", "Decorator", "SubTree", "Condition", "Control") \
                        and not node.attrs.get("ID"):
                    errors.add(TreeLoadError(doc.path, node.line, "The attribute [ID] is "
                                             "mandatory"))
        bt_count = len(root.children)

        def fail(node: XNode, msg: str) -> None:
            node.bad = True
            errors.add(TreeLoadError(doc.path, node.line, msg))

        def step(node: XNode) -> None:
            n_children = len(node.children)
            name = node.tag
            node_id = node.attrs.get("ID", "")
            is_builtin = name in ("Decorator", "Action", "Condition", "Control", "SubTree")
            if is_builtin and not node_id:
                fail(node, f"The tag <{name}> must have the attribute [ID]")
            elif name == "BehaviorTree":
                if not node_id and bt_count > 1:
                    fail(node, "The tag <BehaviorTree> must have the attribute [ID]")
                elif node_id and (problem := model_name_problem(node_id)) is not None:
                    fail(node, problem)
                elif node_id in manifests:
                    fail(node, "The attribute [ID] of tag <BehaviorTree> must not use the name "
                               "of a registered Node")
                elif n_children != 1:
                    fail(node, f"The tag <BehaviorTree> with ID '{node_id}' must have exactly "
                               "1 child")
            elif name == "SubTree":
                if n_children != 0:
                    fail(node, f"<SubTree> with ID '{node_id}' should not have any child")
                elif (problem := model_name_problem(node_id)) is not None:
                    fail(node, problem)
                elif node_id in manifests:
                    fail(node, "The attribute [ID] of tag <SubTree> must not use the name of a "
                               "registered Node")
            else:
                lookup = node_id if is_builtin else name
                problem = None if is_builtin else model_name_problem(name)
                if problem is not None:
                    fail(node, problem)
                    return
                m = manifests.get(lookup)
                if m is None:
                    fail(node, unknown_node_message(lookup, manifests))
                    return
                kind = m.kind
                if kind == "Decorator" or kind == "SubTree":
                    if n_children != 1:
                        fail(node, f"The node '{lookup}' must have exactly 1 child")
                elif kind == "Control":
                    if n_children == 0:
                        fail(node, f"The node '{lookup}' must have 1 or more children")
                    elif lookup == "TryCatch" and n_children < 2:
                        fail(node, "The node 'TryCatch' must have at least 2 children")
                    if lookup == "ReactiveSequence":
                        asyncs = 0
                        for child in node.children:
                            cm = manifests.get(child.tag)
                            if cm is None:
                                # a misspelled child: the very message its own check gives (one
                                # line in validate, the same text in run); <Action ID=...> and
                                # friends: BT.CPP 4.10 looks their tag up, and refuses them
                                fail(child, f"Unknown node type: {child.tag}" if child.tag in _KIND_TAGS
                                     else unknown_node_message(child.tag, manifests))
                                continue
                            if cm.kind == "Control" and child.tag == "AsyncSequence":
                                asyncs += 1
                                if asyncs > 1:
                                    fail(node, "A ReactiveSequence cannot have more than one "
                                               "async child.")
                elif n_children != 0:
                    fail(node, f"The node '{lookup}' must not have any child")
            for child in node.children:
                step(child)

        for bt in root.children:
            if bt.tag == "BehaviorTree":
                step(bt)


def _no_default() -> Any:
    return NO_DEFAULT


def unknown_node_message(node_id: str, known: Iterable[str]) -> str:
    """BT.CPP's "Node not recognized: X" with the nearest registered node IDs ("; did you mean
    'Y'?"), the one form of an unknown node wherever a tree is loaded."""
    return f"Node not recognized: {node_id}{did_you_mean(node_id, known)}"
