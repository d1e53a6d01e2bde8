"""Building trees: BT.CPP 4.10's XMLParser::instantiateTree.

``_Builder`` turns a loaded ``_DocSet`` into a ``Tree``: node construction with their ports
checked, SubTree blackboards and remapping (explicit, literals, ``{=}``, ``_autoremap``,
TreeNodesModel defaults), pre/post conditions compiled, UIDs and paths as BT.CPP numbers
them. Used by soccerbt.trees.factory; every problem is a TreeLoadError ``path:line: message``;
an unknown node, port attribute or SubTree ID ends with the nearest names ("; did you mean
'kick_hold'?", ``soccerbt.trees.suggest``).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from soccerbt.blackboard import Blackboard, is_strongly_typed
from soccerbt.nodes.decorators import SubTreeNode
from soccerbt.nodes.node_config import NodeConfig, TreeEnv
from soccerbt.nodes.node_kinds import ControlNode, DecoratorNode
from soccerbt.nodes.ports import (
    POST_CONDITIONS,
    PRE_CONDITIONS,
    PortDirection,
    has_converter,
    is_allowed_port_name,
    is_enum_type,
    parse_blackboard_pointer,
    parse_bool,
    remapped_key,
    type_name,
)
from soccerbt.nodes.script_cache import compile_script
from soccerbt.nodes.tree_node import TreeNode, pre_conditions
from soccerbt.trees.errors import TreeLoadError
from soccerbt.trees.loading import _DocSet, _Errors, unknown_node_message
from soccerbt.trees.names import instance_name_problem
from soccerbt.trees.registry import Manifest, Registry
from soccerbt.trees.suggest import did_you_mean
from soccerbt.trees.tree import SubtreeInfo, Tree
from soccerbt.trees.xmlload import XmlDocument, XNode

_KIND_TAGS = ("Action", "Condition", "Control", "Decorator", "SubTree")
_Node = TypeVar("_Node", bound=TreeNode)  # the class _construct builds, and what it returns


class _Builder:
    """XMLParser::instantiateTree: nodes, SubTree blackboards, UIDs and paths."""

    def __init__(self, factory: Registry, docset: _DocSet, errors: _Errors, context: Any,
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

    def _lint_enum_literal(self, doc: XmlDocument, element: XNode, att_name: str,
                           att_value: str, port: Any) -> None:
        """Validation only: an enum port's literal that does not convert. BT.CPP loads such a
        tree (an enum port has no converter to try at load) and throws when the node reads the
        port, so the tree loads here too; `validate` still reports it."""
        try:
            port.convert(att_value, self.env.enums)
        except Exception:  # noqa: BLE001 - any conversion error
            self.errors.add(self._err(
                doc, element.attr_line(att_name),
                _not_converted(att_name, att_value, port)
                + ": the tree loads, and the node throws when it is ticked"))

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
            at_doc, at_node = origin if origin else (None, None)
            raise TreeLoadError(at_doc.path if at_doc else "<tree>", at_node.line if at_node else None,
                                f"Can't find a tree with name: {tree_id}"
                                + did_you_mean(tree_id, self.docset.trees))
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
                raise self._err(doc, element.line, unknown_node_message(tag, manifests))
            type_id = tag
            if element_id is not None:
                raise self._err(doc, element.attr_line("ID"),
                                f"Attribute [ID] is not allowed in <{type_id}>")
        else:
            if element_id is None:
                raise self._err(doc, element.line, f"Attribute [ID] is mandatory in <{tag}>")
            type_id = element_id
        instance_name = attrs.get("name", type_id)
        if "name" in attrs and (problem := instance_name_problem(attrs["name"])) is not None:
            raise self._err(doc, element.line, problem)
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
                                        "in the providedPorts() of its registered node type"
                                        + _port_hint(att_name, manifest))
                    is_bb = (len(att_value) >= 3 and att_value[0] == "{"
                             and att_value[-1] == "}")
                    if not is_bb and port.strongly_typed and has_converter(port.type_):
                        try:
                            port.convert(att_value, enums)
                        except Exception:  # noqa: BLE001 - BT.CPP catches any conversion error
                            raise self._err(doc, element.attr_line(att_name),
                                            _not_converted(att_name, att_value, port)) from None
                    elif not is_bb and self.errors.collect and is_enum_type(port.type_):
                        self._lint_enum_literal(doc, element, att_name, att_value, port)
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
        cfg.port_remap = port_remap
        cfg.xml_path = doc.path
        cfg.xml_line = element.line
        cfg.tree_id = tree_id

        node: TreeNode
        if kind == "SubTree":
            cfg.registration_id = "SubTree"
            cfg.input_ports = port_remap
            cfg.ports = {}
            node = self._construct(SubTreeNode, instance_name, cfg, doc, element)
            node.subtree_id = type_id
        else:
            if manifest is None:
                raise self._err(doc, element.line, unknown_node_message(type_id, manifests))
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

    def _construct(self, cls: type[_Node], name: str, cfg: NodeConfig, doc: XmlDocument,
                   element: XNode) -> _Node:
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
                    if entry.cpp_type is not None:  # declared by a tree: compare C++ types
                        prev_name = entry.cpp_type
                        mismatch = prev_name != port.type_name
                    else:  # written by an adapter or a script: its Python type is all there is
                        prev_name = type_name(prev)
                        mismatch = prev is not new
                    if mismatch and is_strongly_typed(prev) and is_strongly_typed(new) \
                            and prev is not str:
                        raise self._err(doc, element.attr_line(pname),
                                        f"The creation of the tree failed because the port "
                                        f"[{key}] was initially created with type "
                                        f"[{prev_name}] and, later type "
                                        f"[{port.type_name}] was used somewhere else.")
                else:
                    entry = bb.create_entry(key, port.entry_type(), port.entry_converter(enums))
                    if is_strongly_typed(entry.type_):
                        entry.cpp_type = port.type_name
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
                # BT.CPP 4.10 writes a whole-text integer with set<int> (set<int64_t> beyond
                # int), a number with set<double>, which declare strongly typed entries (a
                # port of another type inside the subtree is refused at load), and any other
                # text with set<std::string>, an AnyTypeAllowed entry any port may read.
                new_bb.enable_autoremap(False)
                try:
                    value = _subtree_literal(attr_value)
                    typed = not isinstance(value, str)
                    entry = new_bb.create_entry(attr_name, type(value) if typed else None)
                    entry.value = value
                    entry.sequence_id += 1
                    if typed:
                        entry.cpp_type = entry.cpp_value_type = _literal_cpp_type(value)
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


def _not_converted(name: str, value: str, port: Any) -> str:
    """BT.CPP's words for a port literal its type does not convert."""
    return (f"The port with name \"{name}\" and value \"{value}\" can not be converted to "
            f"{port.type_name}")


def _literal_cpp_type(value: int | float) -> str:
    """The C++ type BT.CPP 4.10 stores a numeric SubTree literal as (BT::demangle's name)."""
    if isinstance(value, float):
        return "double"
    return "int" if -(2**31) <= value < 2**31 else "long"


def _port_hint(name: str, manifest: Manifest) -> str:
    """After BT.CPP's words for an unknown port attribute: the nearest declared port names
    ("; did you mean 'kick_hold'?"), else the ports the node has."""
    hint = did_you_mean(name, manifest.ports)
    if hint:
        return hint
    ports = ", ".join(manifest.ports)
    return f" (its ports: {ports})" if ports else " (it has no ports)"


def _describe(exc: BaseException) -> str:
    text = str(exc).replace("\n", ": ").strip()
    return text or type(exc).__name__
