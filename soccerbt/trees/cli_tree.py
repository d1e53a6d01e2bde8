"""`soccerbt tree FILE`: load a tree and print it (py_trees unicode rendering)."""
from __future__ import annotations

import argparse
import sys

from soccerbt.trees.cli_common import add_factory_options, factory_from_args
from soccerbt.trees.errors import TreeLoadError

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a BT.CPP v4 XML tree")
    parser.add_argument("--paths", action="store_true", help="print every node's path instead")
    parser.add_argument("--allow-any-include", action="store_true",
                        help="let <include> leave the tree's folder")
    add_factory_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    factory = factory_from_args(args)
    try:
        tree = factory.create_tree_from_file(args.file, allow_any_include=args.allow_any_include)
    except TreeLoadError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.paths:
        for node in tree.nodes():
            print(f"{node.path}  [{node.registration_id}]")
    else:
        print(tree.render(), end="")
    return 0
