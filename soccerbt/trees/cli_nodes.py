"""`soccerbt nodes [--xml]`: list the registered node types, or print their TreeNodesModel.

A node of a team's plugin (installed, or ``--nodes``) is listed with ``[plugin NAME]``, and the
plugins follow the nodes, each with where it came from, its version and its nodes."""
from __future__ import annotations

import argparse

from soccerbt.trees.cli_common import add_factory_options, factory_from_args

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--xml", action="store_true",
                        help="print the <TreeNodesModel> for Groot2")
    parser.add_argument("--builtin", action="store_true",
                        help="include BT.CPP's built-in nodes")
    add_factory_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    factory = factory_from_args(args)
    if args.xml:
        print(factory.tree_nodes_model_xml(include_builtin=args.builtin), end="")
        return 0
    for node_id, m in sorted(factory.manifests().items()):
        if m.builtin and not args.builtin:
            continue
        ports = ", ".join(f"{p.name}:{p.type_name}" for p in m.ports.values())
        origin = factory.node_origins.get(node_id)
        print(f"{m.kind:9} {node_id}({ports})" + (f"  [{origin}]" if origin else ""))
    for plugin in factory.plugins:
        version = f" {plugin.version}" if plugin.version else ""
        print(f"\nplugin {plugin.name}{version}: {plugin.source}\n  nodes: {', '.join(plugin.nodes) or 'none'}")
    return 0
