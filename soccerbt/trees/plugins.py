"""A team's own nodes: plugins that register node types on a ``TreeFactory`` without editing soccerbt.

Two ways in, as BT.CPP's plugins and pytest's:

- an installed package names its registration function in the entry-point group ``soccerbt.nodes``
  (``[project.entry-points."soccerbt.nodes"] my_team = "my_team.nodes:register_nodes"``); every
  installed one is loaded whenever soccerbt builds a factory with the soccer nodes;
- ``--nodes MODULE_OR_FILE`` for code not installed as a package: a module (``my_team.nodes``), a
  module and its function (``my_team.nodes:register_nodes``) or a Python file
  (``path/to/my_nodes.py``). A module or file without a function names ``register_nodes``.

A registration function takes a ``NodeRegistrar`` (``register_node_type``,
``register_scripting_enum``, ``declare_blackboard_keys``). A node id that is already registered (a
BT.CPP built-in, a soccer node, another plugin's) is a ``PluginError`` that names both, and so is a
plugin that fails to import or register: a command reports it and starts nothing.

``load_node_plugins(factory, specs)`` loads the entry points and then ``specs`` and returns the
``NodePlugin`` records (what a log's header keeps: name, source, version, nodes); the factory keeps
them too (``factory.plugins``, and each node's origin in ``factory.node_origins``). A file is imported
once per process (batch workers build a factory per match).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.metadata
import importlib.util
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["ENTRY_POINT_GROUP", "REGISTER_FUNCTION", "NodePlugin", "NodeRegistrar", "PluginError",
           "add_nodes_option", "missing_recorded_plugins", "load_node_plugins", "origin_of"]

#: the entry-point group a package names its registration function in
ENTRY_POINT_GROUP = "soccerbt.nodes"
#: the function a --nodes module or file without ":FUNCTION" must define
REGISTER_FUNCTION = "register_nodes"

_BUILTIN_ORIGIN = "BehaviorTree.CPP's built-in nodes"
_SOCCER_ORIGIN = "soccerbt's soccer nodes"


def add_nodes_option(parser: argparse.ArgumentParser) -> None:
    """``--nodes MODULE_OR_FILE`` (repeatable): a team's own nodes, beside the installed plugins."""
    parser.add_argument("--nodes", metavar="MODULE_OR_FILE", action="append", default=[],
                        help="also register a team's own nodes: a module (its register_nodes), "
                             "MODULE:FUNCTION, or a .py file; repeatable (installed packages of the "
                             "entry-point group soccerbt.nodes are always loaded)")


class PluginError(ValueError):
    """A node plugin that cannot be loaded or clashes with a registered node; the text names it."""


@dataclass(frozen=True)
class NodePlugin:
    """One loaded plugin: ``name`` (the entry point's name, the module or the file's stem),
    ``source`` (where it came from, in words), ``spec`` (the ``--nodes`` text, None for an entry
    point), ``version`` (its distribution's, when installed) and the node ids it registered."""

    name: str
    source: str
    spec: str | None
    version: str | None
    nodes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "spec": self.spec, "version": self.version,
                "nodes": list(self.nodes)}


class NodeRegistrar:
    """What a plugin's registration function is given: the factory's registration calls, checked."""

    def __init__(self, factory: Any, plugin: str, label: str | None = None) -> None:
        self._factory = factory
        self._name = plugin  # what factory.node_origins says: "plugin NAME"
        self._plugin = label or plugin  # what an error begins with
        self.registered: list[str] = []

    def register_node_type(self, node_id: str, cls: type, *, ports: Iterable[Any] | None = None,
                           description: str = "") -> None:
        """Register ``cls`` (a ``soccerbt.nodes`` node class) as ``node_id``; ``ports`` overrides
        its ``provided_ports()``. A node id already registered is a ``PluginError``."""
        if not isinstance(node_id, str) or not node_id:
            raise PluginError(f"{self._plugin}: a node id must be a non-empty string, not {node_id!r}")
        if node_id in self._factory.manifests():
            raise PluginError(f"{self._plugin}: node {node_id!r} clashes with {origin_of(self._factory, node_id)}; "
                              f"give it another id")
        try:
            self._factory.register_node_type(node_id, cls, ports=ports, description=description)
        except (TypeError, ValueError) as exc:
            raise PluginError(f"{self._plugin}: {exc}") from None
        self._factory.node_origins[node_id] = f"plugin {self._name}"
        self.registered.append(node_id)

    def register_scripting_enum(self, name: Any, value: int | None = None) -> None:
        """A name scripts and enum ports may use (``name`` = ``value``, or every member of an Enum)."""
        try:
            self._factory.register_scripting_enum(name, value)
        except ValueError as exc:
            raise PluginError(f"{self._plugin}: {exc}") from None

    def declare_blackboard_keys(self, keys: Iterable[str]) -> None:
        """Blackboard keys the plugin's nodes use, for the scripts' key check (when it is on)."""
        if self._factory.declared_blackboard_keys is not None:
            self._factory.declare_blackboard_keys(keys)


def origin_of(factory: Any, node_id: str) -> str:
    """Where a registered node id came from, in words."""
    manifest = factory.manifests().get(node_id)
    if manifest is not None and manifest.builtin:
        return _BUILTIN_ORIGIN
    return getattr(factory, "node_origins", {}).get(node_id, _SOCCER_ORIGIN)


_lock = threading.Lock()
_file_modules: dict[tuple[str, str], ModuleType] = {}  # (resolved path, sha256 of its bytes) -> module


def _is_file_spec(spec: str) -> bool:
    return spec.endswith(".py") or "/" in spec or "\\" in spec


def _load_file(spec: str) -> tuple[ModuleType, str]:
    path = Path(spec).expanduser()
    if not path.is_file():
        raise PluginError(f"--nodes {spec}: no such file" if not path.exists() else f"--nodes {spec}: not a file")
    resolved = path.resolve()
    try:
        data = resolved.read_bytes()
    except OSError as exc:
        raise PluginError(f"--nodes {spec}: {exc.strerror or exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    key = (str(resolved), digest)
    with _lock:
        module = _file_modules.get(key)
        if module is None:
            # a name of its own, so that two files called nodes.py do not meet in sys.modules
            name = f"soccerbt_nodes_plugin_{resolved.stem}_{digest[:12]}"
            loader_spec = importlib.util.spec_from_file_location(name, resolved)
            if loader_spec is None or loader_spec.loader is None:
                raise PluginError(f"--nodes {spec}: not a Python file")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[name] = module  # classes defined in it pickle and dataclasses resolve
            try:
                loader_spec.loader.exec_module(module)
            except Exception as exc:
                sys.modules.pop(name, None)
                raise PluginError(f"--nodes {spec}: {_failure(exc)}") from None
            _file_modules[key] = module
    return module, f"file {resolved}"


def _load_module(spec: str) -> tuple[ModuleType, str]:
    try:
        module = importlib.import_module(spec)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (spec == exc.name or spec.startswith(exc.name + ".")):
            raise PluginError(f"--nodes {spec}: no such module (a file's name ends in .py)") from None
        raise PluginError(f"--nodes {spec}: {_failure(exc)}") from None
    except Exception as exc:
        raise PluginError(f"--nodes {spec}: {_failure(exc)}") from None
    return module, f"module {spec}"


_PACKAGE_DIR = str(Path(__file__).resolve().parents[1])


def _failure(exc: BaseException) -> str:
    """An import's or a registration's exception in one line, at the plugin's own file and line
    (the innermost frame outside soccerbt and importlib)."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno}: {exc.msg}"
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        frame_file = tb.tb_frame.f_code.co_filename
        if not frame_file.startswith((_PACKAGE_DIR, "<")):
            where = f"{frame_file}:{tb.tb_lineno}: "
        tb = tb.tb_next
    return f"{where}{type(exc).__name__}: {exc}"


def _resolve(spec: str) -> tuple[Callable[..., Any], str, str]:
    """The registration function a ``--nodes`` text names, its plugin name and source."""
    if not isinstance(spec, str) or not spec.strip():
        raise PluginError(f"--nodes {spec!r}: give a module, MODULE:FUNCTION or a .py file")
    target, sep, function = spec.rpartition(":")
    if not sep or not function.isidentifier() or not target:
        target, function = spec, REGISTER_FUNCTION
    if _is_file_spec(target):
        module, source = _load_file(target)
        name = Path(target).stem
    else:
        module, source = _load_module(target)
        name = target
    register = getattr(module, function, None)
    if not callable(register):
        raise PluginError(f"--nodes {spec}: {source} defines no {function}(registrar) function")
    return register, name, source


def _entry_points() -> list[importlib.metadata.EntryPoint]:
    return sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: (ep.name, ep.value))


def _register(factory: Any, register: Callable[..., Any], label: str, name: str, source: str,
              spec: str | None, version: str | None) -> NodePlugin:
    registrar = NodeRegistrar(factory, name, label)
    before = factory.manifests()
    try:
        register(registrar)
    except PluginError:
        raise
    except Exception as exc:
        raise PluginError(f"{label}: registration failed: {_failure(exc)}") from None
    after = factory.manifests()
    changed = [k for k, m in before.items() if after.get(k) is not m]
    if changed:  # it went round the registrar (the factory itself, replace=True)
        raise PluginError(f"{label}: replaced or removed {', '.join(sorted(changed))} "
                          f"({origin_of(factory, changed[0])}); plugins may only add nodes")
    return NodePlugin(name, source, spec, version, tuple(registrar.registered))


def load_node_plugins(factory: Any, specs: Sequence[str] = (), *, entry_points: bool = True) -> list[NodePlugin]:
    """Load every installed ``soccerbt.nodes`` entry point (with ``entry_points``) and then each
    ``--nodes`` spec onto ``factory``; the plugins loaded, in that order. ``PluginError`` when one
    cannot be loaded or clashes (the factory is then not to be used)."""
    if not hasattr(factory, "node_origins"):
        factory.node_origins = {}
    plugins: list[NodePlugin] = list(getattr(factory, "plugins", []))
    if entry_points:
        for ep in _entry_points():
            label = f"{ep.name} (entry point {ep.value})"
            try:
                register = ep.load()
            except Exception as exc:
                raise PluginError(f"{label}: cannot be loaded: {_failure(exc)}") from None
            if not callable(register):
                raise PluginError(f"{label}: names {type(register).__name__}, not a registration function")
            dist = getattr(ep, "dist", None)
            version = getattr(dist, "version", None)
            source = f"entry point {ENTRY_POINT_GROUP}: {ep.name} = {ep.value}" + (
                f" ({dist.name} {version})" if dist is not None else "")
            plugins.append(_register(factory, register, label, ep.name, source, None, version))
    for spec in dict.fromkeys(specs):  # the same --nodes twice loads once
        register, name, source = _resolve(spec)
        plugins.append(_register(factory, register, f"--nodes {spec}", name, source, spec, None))
    factory.plugins = plugins
    return plugins


def missing_recorded_plugins(recorded: Any, factory: Any) -> list[str]:
    """The node plugins a log's header names (``node_plugins``, untrusted) that ``factory`` has not
    loaded, each in words with how to load it: what a re-run of that log needs first."""
    if not isinstance(recorded, list):
        return []
    loaded = {plugin.name for plugin in getattr(factory, "plugins", [])}
    missing = []
    for entry in recorded:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or entry["name"] in loaded:
            continue
        name, spec, source = entry["name"], entry.get("spec"), entry.get("source")
        listed = entry.get("nodes")
        nodes = [n for n in listed if isinstance(n, str)] if isinstance(listed, list) else []
        how = f"give --nodes {spec}" if isinstance(spec, str) else "install the package that provides it"
        missing.append(f"the run used the node plugin {name!r} ({source if isinstance(source, str) else 'unknown'}; "
                       f"nodes {', '.join(nodes) or 'none'}), which is not loaded: {how}")
    return missing
