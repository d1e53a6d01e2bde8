"""What the tree commands share: building the default factory from command-line options."""
from __future__ import annotations

import argparse

from soccerbt.nodes.soccer import register_soccer_nodes
from soccerbt.nodes.stubs import register_stub_nodes
from soccerbt.trees.factory import TreeFactory
from soccerbt.trees.plugins import PluginError, add_nodes_option, load_node_plugins

__all__ = ["add_factory_options", "factory_from_args"]


def add_factory_options(parser: argparse.ArgumentParser) -> None:
    add_nodes_option(parser)
    parser.add_argument("--nodes-json", metavar="FILE", action="append", default=[],
                        help="also register stub nodes from a Booster-style nodes.json")
    parser.add_argument("--no-soccer", action="store_true",
                        help="do not register the soccer nodes (only BT.CPP built-ins)")
    parser.add_argument("--no-schema", action="store_true",
                        help="do not check script keys against the blackboard key schema")
    parser.add_argument("--max-nodes", type=_positive_int, metavar="N", default=None,
                        help="most nodes of a tree with its SubTrees expanded (default 20000, "
                             "or SOCCERBT_MAX_TREE_NODES)")
    parser.add_argument("--max-file-bytes", type=_positive_int, metavar="N", default=None,
                        help="largest tree file read, in bytes (default 8388608, "
                             "or SOCCERBT_MAX_TREE_BYTES)")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def factory_from_args(args: argparse.Namespace) -> TreeFactory:
    """Built-ins, the soccer nodes (with the key schema), the node plugins (installed, and
    --nodes) and any --nodes-json stubs."""
    factory = TreeFactory(max_nodes=getattr(args, "max_nodes", None),
                          max_file_bytes=getattr(args, "max_file_bytes", None))
    if not getattr(args, "no_soccer", False):
        register_soccer_nodes(factory, declare_keys=not getattr(args, "no_schema", False))
    try:
        load_node_plugins(factory, getattr(args, "nodes", []) or [])
    except PluginError as exc:
        raise SystemExit(f"soccerbt: {exc}") from None

    for path in getattr(args, "nodes_json", []) or []:
        try:
            register_stub_nodes(factory, path, replace=True)
        except ValueError as exc:  # "path[:line]: what is wrong" (missing, not JSON, wrong shape)
            raise SystemExit(f"soccerbt: --nodes-json {exc}") from None
    return factory
