"""The factory: registered node types, and trees created from XML.

Loading (includes, VerifyXML, the size guard) lives in soccerbt.trees.loading, instantiation
in soccerbt.trees.building. Together they follow BT.CPP 4.10's bt_factory.cpp and
xml_parsing.cpp: the same checks at the same moment (VerifyXML per document, then port checks
while instantiating), the same SubTree blackboard remapping (explicit, literals, `{=}`, `_autoremap`, TreeNodesModel
defaults), the same node UIDs and paths. Every load-time problem is a TreeLoadError `path:line: message`.
"""
from __future__ import annotations

import enum
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from soccerbt.blackboard import Blackboard
from soccerbt.nodes.builtins import BUILTIN_NODES
from soccerbt.nodes.decorators import SubTreeNode
from soccerbt.nodes.ports import PortInfo, is_allowed_port_name
from soccerbt.nodes.tree_node import TreeNode
from soccerbt.trees.building import _Builder
from soccerbt.trees.errors import TreeLoadError
from soccerbt.trees.includes import _env_int, default_max_file_bytes
from soccerbt.trees.loading import _check_expanded_size, _detect_main_tree, _DocSet, _Errors, _Loader
from soccerbt.trees.model_xml import tree_nodes_model_xml
from soccerbt.trees.registry import Manifest
from soccerbt.trees.tree import Tree

__all__ = ["TreeFactory", "Manifest"]

#: the most nodes one tree may have once every SubTree is expanded; TreeFactory(max_nodes=...)
DEFAULT_MAX_NODES = 20_000


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
        # a team's plugins (soccerbt.trees.plugins): what was loaded, and node id -> "plugin NAME"
        self.plugins: list[Any] = []
        self.node_origins: dict[str, str] = {}
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

    @property
    def declared_blackboard_keys(self) -> frozenset[str] | None:
        """The declared keys scripts may read (None: no key schema, every key is allowed)."""
        return self._declared_keys

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
        return tree_nodes_model_xml(self._manifests, include_builtin)
