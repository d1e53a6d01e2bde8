"""The factory: registered node types, XML loading (includes, VerifyXML) and instantiation.

It follows BT.CPP 4.10's bt_factory.cpp and xml_parsing.cpp: the same checks at the same
moment (VerifyXML per document, then port checks while instantiating), the same SubTree
blackboard remapping (explicit, literals, `{=}`, `_autoremap`, TreeNodesModel defaults), the
same node UIDs and paths. Every load-time problem is a TreeLoadError `path:line: message`.
"""
from __future__ import annotations

import enum
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from soccerbt.blackboard import Blackboard, is_strongly_typed
from soccerbt.nodes.base import (
    ControlNode,
    DecoratorNode,
    NodeConfig,
    TreeEnv,
    TreeNode,
    pre_conditions,
)
from soccerbt.nodes.builtins import BUILTIN_NODES
from soccerbt.nodes.decorators import SubTreeNode
from soccerbt.nodes.ports import (
    POST_CONDITIONS,
    PRE_CONDITIONS,
    PortDirection,
    PortInfo,
    has_converter,
    is_allowed_port_name,
    parse_blackboard_pointer,
    parse_bool,
    remapped_key,
    type_name,
)
from soccerbt.nodes.scripting import compile_script
from soccerbt.trees.errors import TreeLoadError
from soccerbt.trees.tree import SubtreeInfo, Tree
from soccerbt.trees.includes import IncludeRules, _env_int, default_max_file_bytes, resolve_include
from soccerbt.trees.xmlload import (
    FileRefused,
    XmlDocument,
    XNode,
    decode_xml_bytes,
    limit_message,
    parse_xml_text,
    read_limited,
)

__all__ = ["TreeFactory", "Manifest"]

_KIND_TAGS = ("Action", "Condition", "Control", "Decorator", "SubTree")

#: the most nodes one tree may have once every SubTree is expanded; TreeFactory(max_nodes=...)
DEFAULT_MAX_NODES = 20_000
_COUNT_CAP = 1 << 62  # expanded sizes saturate here (a bomb's exact size is of no interest)


@dataclass
class Manifest:
    """A registered node type: ID, class, kind (Action/Condition/Control/Decorator/SubTree),
    ports in declaration order, description."""

    registration_id: str
    cls: type
    kind: str
    ports: dict[str, PortInfo]
    description: str = ""
    builtin: bool = False


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


class TreeFactory:
    """Registered node types plus the XML loader (BT.CPP BehaviorTreeFactory).

    Limits for untrusted trees: `max_file_bytes` (largest file read, 8 MiB by default, or the
    environment variable SOCCERBT_MAX_TREE_BYTES) and `max_nodes` (most nodes of one tree
    with its SubTrees expanded, 20,000 by default, or SOCCERBT_MAX_TREE_NODES). Both are
    attributes and may be changed at any time.
    """

    def __init__(self, *, max_nodes: int | None = None, max_file_bytes: int | None = None) -> None:
        self.max_nodes: int = max_nodes if max_nodes is not None else \
            _env_int("SOCCERBT_MAX_TREE_NODES", DEFAULT_MAX_NODES)
        self.max_file_bytes: int = max_file_bytes if max_file_bytes is not None else \
            default_max_file_bytes()
        for name in ("max_nodes", "max_file_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"TreeFactory({name}=...) must be a positive whole number, "
                                 f"not {value!r}")
        self._manifests: dict[str, Manifest] = {}
        self._enums: dict[str, int] = {}
        self._declared_keys: frozenset[str] | None = None
        self._registered = _DocSet()
        for node_id, cls in BUILTIN_NODES.items():
            self.register_node_type(node_id, cls)
            self._manifests[node_id].builtin = True

    # -- registration --------------------------------------------------------------------------

    def register_node_type(self, node_id: str, cls: type, *, ports: Iterable[PortInfo] | None = None,
                           description: str = "", replace: bool = False) -> None:
        """Register `cls` (a TreeNode subclass) under `node_id`; `ports` overrides its
        provided_ports(). Raises ValueError for a duplicate ID or an invalid port name."""
        if not isinstance(cls, type) or not issubclass(cls, TreeNode):
            raise TypeError(f"{node_id}: {cls!r} is not a soccerbt.nodes TreeNode subclass")
        if node_id in self._manifests and not replace:
            raise ValueError(f"ID [{node_id}] already registered")
        if node_id in self._manifests and self._manifests[node_id].builtin:
            raise ValueError(f"You can not remove the builtin registration ID [{node_id}]")
        port_list = list(ports) if ports is not None else list(cls.provided_ports())
        port_map: dict[str, PortInfo] = {}
        for port in port_list:
            if not isinstance(port, PortInfo):
                raise TypeError(f"{node_id}: provided_ports() must return PortInfo objects")
            if not is_allowed_port_name(port.name) and not (cls is SubTreeNode
                                                              and port.name == "_autoremap"):
                raise ValueError(
                    f"{node_id}: the name of a port must not be `name` or `ID` and must start "
                    f"with an alphabetic character. Underscore is reserved: [{port.name}]")
            port_map[port.name] = port
        self._manifests[node_id] = Manifest(node_id, cls, cls.NODE_KIND, port_map, description)

    def unregister_node_type(self, node_id: str) -> bool:
        m = self._manifests.get(node_id)
        if m is None:
            return False
        if m.builtin:
            raise ValueError(f"You can not remove the builtin registration ID [{node_id}]")
        del self._manifests[node_id]
        return True

    def manifests(self) -> Mapping[str, Manifest]:
        return dict(self._manifests)

    def builtin_node_ids(self) -> list[str]:
        return [k for k, m in self._manifests.items() if m.builtin]

    def register_scripting_enum(self, name: str | type[enum.Enum], value: int | None = None) -> None:
        """Register `name` = `value` for scripts and enum ports, or every member of an Enum."""
        if isinstance(name, type) and issubclass(name, enum.Enum):
            for member in name:
                self.register_scripting_enum(member.name, int(member.value))
            return
        if value is None:
            raise ValueError("register_scripting_enum(name, value) needs a value")
        value = int(value)
        old = self._enums.get(name)
        if old is not None and old != value:
            raise ValueError(f"Registering the enum [{name}] twice with different values, "
                             f"first {old} and later {value}")
        self._enums[name] = value

    def scripting_enums(self) -> Mapping[str, int]:
        return dict(self._enums)

    def declare_blackboard_keys(self, keys: Iterable[str]) -> None:
        """Opt-in key schema: from now on scripts may only read declared keys, enums, ports
        and keys assigned somewhere in the loaded documents."""
        names = set(self._declared_keys or ())
        names.update(str(k) for k in keys)
        self._declared_keys = frozenset(names)

    def register_behavior_tree_from_file(self, path: str | os.PathLike, **kwargs: Any) -> None:
        """Load a file's BehaviorTrees so later create calls can use them (BT.CPP API)."""
        loader = _Loader(self, _Errors(False), kwargs.get("include_roots"),
                         kwargs.get("allow_any_include", False), self._registered)
        loader.load_file(Path(path))

    def register_behavior_tree_from_text(self, xml: str, base_dir: str | None = None) -> None:
        loader = _Loader(self, _Errors(False), None, False, self._registered)
        loader.load_text(xml, Path(base_dir) if base_dir else Path.cwd())

    def registered_behavior_trees(self) -> list[str]:
        return sorted(self._registered.trees)

    # -- creation ------------------------------------------------------------------------------

    def create_tree_from_file(self, path: str | os.PathLike, context: Any = None, *,
                              blackboard: Blackboard | None = None,
                              clock: Callable[[], float] | None = None,
                              main_tree: str | None = None,
                              include_roots: Iterable[str | os.PathLike] | None = None,
                              allow_any_include: bool = False) -> Tree:
        """Load `path` (and its includes) and instantiate its main tree.

        Includes must stay inside the file's folder (or `include_roots`) unless
        `allow_any_include`. Raises TreeLoadError."""
        return self._create(Path(path), None, None, context, blackboard, clock, main_tree,
                            include_roots, allow_any_include, _Errors(False))

    def create_tree_from_text(self, xml: str, context: Any = None, *,
                              blackboard: Blackboard | None = None,
                              clock: Callable[[], float] | None = None,
                              main_tree: str | None = None, base_dir: str | None = None,
                              include_roots: Iterable[str | os.PathLike] | None = None,
                              allow_any_include: bool = False,
                              source_name: str = "<string>") -> Tree:
        """Like create_tree_from_file for XML text (includes relative to `base_dir`/cwd)."""
        return self._create(None, xml, Path(base_dir) if base_dir else Path.cwd(), context,
                            blackboard, clock, main_tree, include_roots, allow_any_include,
                            _Errors(False), source_name)

    def create_tree(self, tree_id: str, context: Any = None, *,
                    blackboard: Blackboard | None = None,
                    clock: Callable[[], float] | None = None) -> Tree:
        """Instantiate a tree registered with register_behavior_tree_from_file/text."""
        errors = _Errors(False)
        builder = _Builder(self, self._registered, errors, context, clock)
        if tree_id in self._registered.trees:
            _check_expanded_size(self._registered, tree_id, self.max_nodes)
        try:
            return builder.build(tree_id, blackboard, self._registered.docs[0]
                                 if self._registered.docs else None)
        except TreeLoadError:
            raise
        except Exception as exc:  # noqa: BLE001 - never a bare traceback
            raise builder.located(exc) from exc

    def validate_file(self, path: str | os.PathLike, **kwargs: Any) -> list[TreeLoadError]:
        """Every load problem of `path` (empty list: it loads)."""
        errors = _Errors(True)
        try:
            self._create(Path(path), None, None, None, None, None, kwargs.get("main_tree"),
                         kwargs.get("include_roots"), kwargs.get("allow_any_include", False),
                         errors)
        except TreeLoadError as exc:
            errors.items.append(exc)
        # a collected problem may also be the one that stopped the load: report it once
        unique: dict[str, TreeLoadError] = {}
        for item in errors.items:
            unique.setdefault(str(item), item)
        return list(unique.values())

    def _create(self, path: Path | None, text: str | None, base: Path | None, context: Any,
                blackboard: Blackboard | None, clock: Callable[[], float] | None,
                main_tree: str | None, include_roots: Any, allow_any: bool, errors: _Errors,
                source_name: str = "<string>") -> Tree:
        docset = _DocSet(list(self._registered.docs), dict(self._registered.trees),
                         {k: dict(v) for k, v in self._registered.models.items()},
                         self._registered.suffix)
        loader = _Loader(self, errors, include_roots, allow_any, docset)
        shown = str(path) if path is not None else source_name
        builder = _Builder(self, docset, errors, context, clock)
        try:
            before = set(docset.trees)
            if path is not None:
                top = loader.load_file(path)
            else:
                top = loader.load_text(text or "", base or Path.cwd(), source_name)
            if top is None:
                if errors.items:
                    raise errors.items[0]
                raise TreeLoadError(shown, None, "nothing could be loaded")
            tree_id = main_tree or _detect_main_tree(top, set(docset.trees) - before)
            if tree_id is not None and tree_id in docset.trees:
                _check_expanded_size(docset, tree_id, self.max_nodes)
            tree = builder.build(tree_id, blackboard, top)
        except TreeLoadError:
            raise
        except RecursionError:
            raise TreeLoadError(shown, builder.current_line(), "the tree is nested too deeply") \
                from None
        except Exception as exc:  # noqa: BLE001 - never a bare traceback
            raise builder.located(exc, shown) from exc
        if errors.items:
            raise errors.items[0]
        return tree

    # -- TreeNodesModel ------------------------------------------------------------------------

    def tree_nodes_model_xml(self, include_builtin: bool = False) -> str:
        """BT.CPP writeTreeNodesModelXML: the <TreeNodesModel> of the registered nodes."""
        from soccerbt.trees.model_xml import tree_nodes_model_xml

        return tree_nodes_model_xml(self._manifests, include_builtin)


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


# =========================================================================== loading


class _Loader:
    """Reads documents with their includes and runs VerifyXML on each (loadDocImpl)."""

    def __init__(self, factory: TreeFactory, errors: _Errors, include_roots: Any,
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
                        if not pname:
                            self.errors.add(TreeLoadError(doc.path, port_node.line,
                                                          "Missing attribute [name] in port "
                                                          "(SubTree model)"))
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
                elif node_id in manifests:
                    fail(node, "The attribute [ID] of tag <BehaviorTree> must not use the name "
                               "of a registered Node")
                elif n_children != 1:
                    fail(node, f"The tag <BehaviorTree> with ID '{node_id}' must have exactly "
                               "1 child")
            elif name == "SubTree":
                if n_children != 0:
                    fail(node, f"<SubTree> with ID '{node_id}' should not have any child")
                elif node_id in manifests:
                    fail(node, "The attribute [ID] of tag <SubTree> must not use the name of a "
                               "registered Node")
            else:
                lookup = node_id if is_builtin else name
                m = manifests.get(lookup)
                if m is None:
                    fail(node, f"Node not recognized: {lookup}")
                    return
                kind = m.kind
                if kind == "Decorator" or kind == "SubTree":
                    if n_children != 1:
                        fail(node, f"The node '{lookup}' must have exactly 1 child")
                elif kind == "Control":
                    if n_children == 0:
                        fail(node, f"The node '{lookup}' must have 1 or more children")
                    if lookup == "ReactiveSequence":
                        asyncs = 0
                        for child in node.children:
                            cm = manifests.get(child.tag)
                            if cm is None:
                                fail(child, f"Unknown node type: {child.tag}")
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
    from soccerbt.nodes.ports import NO_DEFAULT

    return NO_DEFAULT


# =========================================================================== instantiation


class _Builder:
    """XMLParser::instantiateTree: nodes, SubTree blackboards, UIDs and paths."""

    def __init__(self, factory: TreeFactory, docset: _DocSet, errors: _Errors, context: Any,
                 clock: Callable[[], float] | None) -> None:
        self.factory = factory
        self.docset = docset
        self.errors = errors
        self.env = TreeEnv(clock, dict(factory._enums), context)
        self.uid = 0
        self.subtrees: list[SubtreeInfo] = []
        self._subtree_paths: set[str] = set()  # instance names of self.subtrees
        self.ancestors: list[str] = []
        self._doc: XmlDocument | None = None
        self._node: XNode | None = None
        self.declared = factory._declared_keys
        self._assigned: set[str] | None = None
        self._bb_current: Any = None
        self._tree_current = ""

    # -- error location ------------------------------------------------------------------------

    def current_line(self) -> int | None:
        return self._node.line if self._node is not None else None

    def located(self, exc: BaseException, shown: str | None = None) -> TreeLoadError:
        path = self._doc.path if self._doc is not None else (shown or "<tree>")
        return TreeLoadError(path, self.current_line(), _describe(exc))

    def _err(self, doc: XmlDocument, line: int | None, msg: str) -> TreeLoadError:
        return TreeLoadError(doc.path, line, msg)

    # -- main ----------------------------------------------------------------------------------

    def build(self, tree_id: str | None, blackboard: Blackboard | None,
              top: XmlDocument | None) -> Tree:
        docset = self.docset
        if tree_id is None:
            if len(docset.trees) == 1:
                tree_id = next(iter(docset.trees))
            else:
                where = top.path if top is not None else "<tree>"
                line = top.root.line if top is not None else None
                raise TreeLoadError(where, line,
                                    "[main_tree_to_execute] was not specified correctly")
        if tree_id not in docset.trees:
            where = top.path if top is not None else "<tree>"
            line = top.root.attr_line("main_tree_to_execute") if top is not None else None
            raise TreeLoadError(where, line, f"Can't find a tree with name: {tree_id}")
        bb = blackboard if blackboard is not None else Blackboard()
        self._create_subtree(tree_id, "", "", bb, None, None)
        if self.errors.items:
            raise self.errors.items[0]
        return Tree(self.subtrees, self.env)

    def _create_subtree(self, tree_id: str, tree_path: str, prefix: str, bb: Blackboard,
                        parent: TreeNode | None, origin: tuple[XmlDocument, XNode] | None) -> None:
        if tree_id in self.ancestors:
            doc, node = origin if origin else (self.docset.trees[tree_id].doc, None)
            raise self._err(doc, node.line if node else None,
                            f"Recursive behavior tree cycle detected: tree '{tree_id}' "
                            "references itself (directly or indirectly)")
        tdef = self.docset.trees.get(tree_id)
        if tdef is None:
            doc, node = origin if origin else (None, None)
            raise TreeLoadError(doc.path if doc else "<tree>", node.line if node else None,
                                f"Can't find a tree with name: {tree_id}")
        if not tdef.element.children:
            raise self._err(tdef.doc, tdef.element.line, f"The tag <BehaviorTree> with ID "
                            f"'{tree_id}' must have exactly 1 child")
        info = SubtreeInfo(tree_path, tree_id, bb, [])
        self.subtrees.append(info)
        self._subtree_paths.add(tree_path)
        self.ancestors.append(tree_id)
        try:
            root_el = tdef.element.children[0]
            our_path = (parent.path if parent is not None else tree_id)
            self._step(root_el, tdef.doc, info, bb, parent, prefix, our_path, None, tree_id)
        finally:
            self.ancestors.pop()

    def _step(self, element: XNode, doc: XmlDocument, info: SubtreeInfo, bb: Blackboard,
              parent: TreeNode | None, prefix: str, parent_path: str, index: int | None,
              tree_id: str) -> None:
        if element.bad:
            return
        self._doc, self._node = doc, element
        try:
            node = self._create_node(element, doc, bb, parent, prefix, parent_path, index,
                                     tree_id)
        except TreeLoadError as exc:
            element.bad = True
            self.errors.add(exc)
            return
        info.nodes.append(node)
        if isinstance(node, SubTreeNode):
            self._instantiate_subtree(node, element, doc, info, bb)
        else:
            for i, child in enumerate(element.children):
                self._step(child, doc, info, bb, node, prefix, node.path, i, tree_id)

    # -- one node ------------------------------------------------------------------------------

    def _create_node(self, element: XNode, doc: XmlDocument, bb: Blackboard,
                     parent: TreeNode | None, prefix: str, parent_path: str,
                     index: int | None, tree_id: str) -> TreeNode:
        manifests = self.factory._manifests
        tag = element.tag
        attrs = element.attrs
        element_id = attrs.get("ID")
        kind = tag if tag in _KIND_TAGS else None
        if kind is None:
            if tag not in manifests:
                raise self._err(doc, element.line, f"{tag} is not a registered node")
            type_id = tag
            if element_id is not None:
                raise self._err(doc, element.attr_line("ID"),
                                f"Attribute [ID] is not allowed in <{type_id}>")
        else:
            if element_id is None:
                raise self._err(doc, element.line, f"Attribute [ID] is mandatory in <{tag}>")
            type_id = element_id
        instance_name = attrs.get("name", type_id)
        manifest = manifests.get(type_id)
        port_remap: dict[str, str] = {}
        other: dict[str, str] = {}
        enums = self.env.enums
        for att_name, att_value in attrs.items():
            if is_allowed_port_name(att_name):
                if manifest is not None and kind != "SubTree":
                    port = manifest.ports.get(att_name)
                    if port is None:
                        raise self._err(doc, element.attr_line(att_name),
                                        f"a port with name [{att_name}] is found in the XML "
                                        f"(<{tag}>, line {element.attr_line(att_name)}) but not "
                                        "in the providedPorts() of its registered node type.")
                    is_bb = (len(att_value) >= 3 and att_value[0] == "{"
                             and att_value[-1] == "}")
                    if not is_bb and port.strongly_typed and has_converter(port.type_):
                        try:
                            port.convert(att_value, enums)
                        except Exception:  # noqa: BLE001 - BT.CPP catches any conversion error
                            raise self._err(doc, element.attr_line(att_name),
                                            f"The port with name \"{att_name}\" and value "
                                            f"\"{att_value}\" can not be converted to "
                                            f"{port.type_name}") from None
                port_remap[att_name] = att_value
            elif att_name not in PRE_CONDITIONS and att_name not in POST_CONDITIONS \
                    and att_name not in ("name", "ID", "_autoremap"):
                other[att_name] = att_value

        self._bb_current, self._tree_current = bb, tree_id
        self.uid += 1
        cfg = NodeConfig()
        cfg.blackboard = bb
        cfg.env = self.env
        cfg.uid = self.uid
        cfg.bt_path = prefix + instance_name
        if type_id == instance_name:
            cfg.bt_path += f"::{self.uid}"
        if parent is None:
            cfg.path = f"{parent_path}/{instance_name}"
        elif index is None:
            cfg.path = f"{parent_path}/{instance_name}"
        else:
            cfg.path = f"{parent_path}/{instance_name}[{index}]"
        cfg.other_attributes = other
        cfg.xml_path = doc.path
        cfg.xml_line = element.line
        cfg.tree_id = tree_id

        if kind == "SubTree":
            cfg.registration_id = "SubTree"
            cfg.input_ports = port_remap
            cfg.ports = {}
            node = self._construct(SubTreeNode, instance_name, cfg, doc, element)
            node.subtree_id = type_id
        else:
            if manifest is None:
                raise self._err(doc, element.line, f"Node not recognized: {type_id}")
            cfg.registration_id = type_id
            cfg.ports = manifest.ports
            self._declare_port_entries(manifest, port_remap, bb, doc, element)
            for pname, value in port_remap.items():
                direction = manifest.ports[pname].direction
                if direction is not PortDirection.OUTPUT:
                    cfg.input_ports[pname] = value
                if direction is not PortDirection.INPUT:
                    cfg.output_ports[pname] = value
            for pname, port in manifest.ports.items():
                dstr = port.default_string()
                if not dstr:
                    continue
                if port.direction is not PortDirection.OUTPUT and pname not in cfg.input_ports:
                    if isinstance(port.default, str):
                        cfg.input_ports[pname] = dstr
                if port.direction is not PortDirection.INPUT and pname not in cfg.output_ports \
                        and parse_blackboard_pointer(dstr) is not None:
                    cfg.output_ports[pname] = dstr
            node = self._construct(manifest.cls, instance_name, cfg, doc, element)
        self._attach_conditions(node, element, doc, tree_id)
        if parent is not None:
            if isinstance(parent, (ControlNode, DecoratorNode)):
                parent.add_child(node)
        return node

    def _construct(self, cls: type, name: str, cfg: NodeConfig, doc: XmlDocument,
                   element: XNode) -> TreeNode:
        try:
            node = cls(name, cfg)
        except TreeLoadError:
            raise
        except Exception as exc:  # noqa: BLE001 - a constructor that refuses its config
            raise self._err(doc, element.line, f"<{element.tag}>: {_describe(exc)}") from None
        if self.declared is not None:
            for pname in getattr(cls, "SCRIPT_PORTS", ()):
                raw = cfg.input_ports.get(pname)
                if raw is not None and parse_blackboard_pointer(raw) is None:
                    self._check_keys(raw, pname, doc, element.attr_line(pname), element)
        return node

    def _declare_port_entries(self, manifest: Manifest, port_remap: dict[str, str],
                              bb: Blackboard, doc: XmlDocument, element: XNode) -> None:
        enums = self.env.enums
        for pname, port in manifest.ports.items():
            raw = port_remap.get(pname)
            if raw is None:
                continue
            key = remapped_key(pname, raw)
            if key is None:
                continue
            try:
                entry = bb.get_entry(key)
                if entry is not None:
                    prev = entry.type_
                    new = port.entry_type()
                    if prev is not new and is_strongly_typed(prev) and is_strongly_typed(new) \
                            and prev is not str:
                        raise self._err(doc, element.attr_line(pname),
                                        f"The creation of the tree failed because the port "
                                        f"[{key}] was initially created with type "
                                        f"[{type_name(prev)}] and, later type "
                                        f"[{port.type_name}] was used somewhere else.")
                else:
                    bb.create_entry(key, port.entry_type(), port.entry_converter(enums))
            except TreeLoadError:
                raise
            except Exception as exc:  # noqa: BLE001 - a blackboard refusal
                raise self._err(doc, element.attr_line(pname), _describe(exc)) from None

    def _attach_conditions(self, node: TreeNode, element: XNode, doc: XmlDocument,
                           tree_id: str) -> None:
        enums = self.env.enums
        pre: list[tuple[int, Any]] = []
        post: list[Any] = [None, None, None, None]
        for idx, attr in enumerate(PRE_CONDITIONS):
            src = element.attrs.get(attr)
            if src is not None:
                pre.append((idx, self._compile(src, attr, doc, element, enums)))
        for idx, attr in enumerate(POST_CONDITIONS):
            src = element.attrs.get(attr)
            if src is not None:
                post[idx] = self._compile(src, attr, doc, element, enums)
        node.config.pre = pre
        node.config.post = post
        node._pre = pre_conditions(pre)
        node._post = tuple(post) if any(p is not None for p in post) else None

    def _compile(self, src: str, attr: str, doc: XmlDocument, element: XNode,
                 enums: Mapping[str, int]) -> Any:
        line = element.attr_line(attr)
        try:
            script = compile_script(src, enums)
        except Exception as exc:  # noqa: BLE001 - ScriptSyntaxError and friends
            raise self._err(doc, line, f"<{element.tag}> attribute {attr}: Error in the script "
                                       f"\"{src}\": {_describe(exc)}") from None
        if self.declared is not None:
            self._check_keys(src, attr, doc, line, element, script)
        return script

    # -- key schema ----------------------------------------------------------------------------

    def _check_keys(self, src: str, attr: str, doc: XmlDocument, line: int, element: XNode,
                    script: Any = None) -> None:
        if script is None:
            try:
                script = compile_script(src, self.env.enums)
            except Exception:  # noqa: BLE001 - the node reported the syntax already
                return
        declared = self.declared or frozenset()
        assigned = self._assigned_keys()
        local = self._local_keys(element)
        for key in sorted(getattr(script, "referenced_keys", ())):
            name = key[1:] if key.startswith("@") else key
            if name in declared or name in self.env.enums or name in assigned or name in local:
                continue
            raise self._err(doc, line, f"unknown blackboard key '{name}' in {attr}")

    def _assigned_keys(self) -> set[str]:
        """Keys assigned by a script or written through a "{key}" port anywhere loaded."""
        if self._assigned is not None:
            return self._assigned
        keys: set[str] = set()
        enums = self.env.enums
        for tdef in self.docset.trees.values():
            stack = [tdef.element]
            while stack:
                node = stack.pop()
                stack.extend(node.children)
                for attr, value in node.attrs.items():
                    bbk = parse_blackboard_pointer(value)
                    if bbk is not None:
                        keys.add(bbk.lstrip("@"))
                    if attr in PRE_CONDITIONS or attr in POST_CONDITIONS or attr in ("code", "if"):
                        try:
                            sc = compile_script(value, enums)
                        except Exception:  # noqa: BLE001
                            continue
                        keys.update(k.lstrip("@") for k in getattr(sc, "assigned_keys", ()))
        self._assigned = keys
        return keys

    def _local_keys(self, element: XNode) -> set[str]:
        """Ports and remapped keys of the subtree being built (its SubTree's attributes)."""
        keys: set[str] = set()
        bb = self._bb_current
        if bb is not None:
            if hasattr(bb, "remappings"):
                keys.update(bb.remappings())
            if hasattr(bb, "local_keys"):
                keys.update(bb.local_keys())
        model = self.docset.models.get(self._tree_current)
        if model:
            keys.update(model)
        return keys

    # -- SubTree ---------------------------------------------------------------------------

    def _instantiate_subtree(self, node: SubTreeNode, element: XNode, doc: XmlDocument,
                             info: SubtreeInfo, bb: Blackboard) -> None:
        new_bb = Blackboard(bb)
        subtree_id = element.attrs["ID"]
        remapping: dict[str, str] = {}
        autoremap = False
        for attr_name, attr_value in element.attrs.items():
            if attr_value == "{=}":
                attr_value = "{" + attr_name + "}"
            if attr_name == "_autoremap":
                try:
                    autoremap = parse_bool(attr_value)
                except ValueError as exc:
                    raise self._err(doc, element.attr_line(attr_name), str(exc)) from None
                new_bb.enable_autoremap(autoremap)
                continue
            if not is_allowed_port_name(attr_name):
                continue
            remapping[attr_name] = attr_value
        model = self.docset.models.get(subtree_id)
        if model:
            for pname, port in model.items():
                if pname not in remapping and not autoremap:
                    if not port.has_default or port.default_string() == "":
                        raise self._err(doc, element.line,
                                        f"In the <TreeNodesModel> the <Subtree ID=\"{subtree_id}\"> "
                                        f"is defining a mandatory port called [{pname}], but you "
                                        "are not remapping it")
                    remapping[pname] = port.default_string()
        for attr_name, attr_value in remapping.items():
            key = parse_blackboard_pointer(attr_value)
            if key is not None:
                new_bb.add_remapping(attr_name, key)
            else:
                # a constant: never autoremapped (BT.CPP disables autoremap around the set).
                # BT.CPP writes it with set<std::string>, which declares an AnyTypeAllowed
                # entry: typed ports inside the subtree may read it, whatever their type.
                new_bb.enable_autoremap(False)
                try:
                    entry = new_bb.create_entry(attr_name)
                    entry.value = _subtree_literal(attr_value)
                    entry.sequence_id += 1
                except Exception as exc:  # noqa: BLE001
                    raise self._err(doc, element.attr_line(attr_name), _describe(exc)) from None
                finally:
                    new_bb.enable_autoremap(autoremap)
        parent_instance = info.instance_name
        subtree_path = parent_instance + "/" if parent_instance else ""
        subtree_path += element.attrs.get("name") or f"{subtree_id}::{node.uid}"
        node.subtree_blackboard = new_bb
        if subtree_path in self._subtree_paths:
            raise self._err(doc, element.line,
                            f"Duplicate SubTree path detected: '{subtree_path}'")
        self._create_subtree(subtree_id, subtree_path, subtree_path + "/", new_bb, node,
                             (doc, element))


_LIT_INT = re.compile(r"-?[0-9]+")
_LIT_REAL = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _subtree_literal(text: str) -> Any:
    """A SubTree literal as 4.10 stores it: an integer, else a double (whole text parsed, as
    std::from_chars checked to the end), else the string itself."""
    if _LIT_INT.fullmatch(text):
        value = int(text)
        if -(2**63) <= value < 2**63:
            return value
    if _LIT_REAL.fullmatch(text):
        return float(text)
    return text


def _describe(exc: BaseException) -> str:
    text = str(exc).replace("\n", ": ").strip()
    return text or type(exc).__name__

