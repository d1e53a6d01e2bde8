"""`soccerbt validate FILE...`: load trees against the registered nodes, print located errors.

Prints `FILE: ok` for a tree that loads, otherwise one `path:line: message` line per problem;
the exit code is 1 when any file has an error.
"""
from __future__ import annotations

import argparse

from soccerbt.trees.cli_common import add_factory_options, factory_from_args

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="BT.CPP v4 XML trees")
    parser.add_argument("--allow-any-include", action="store_true",
                        help="let <include> leave the tree's folder")
    add_factory_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    factory = factory_from_args(args)
    failed = False
    for path in args.files:
        errors = factory.validate_file(path, allow_any_include=args.allow_any_include)
        if errors:
            failed = True
            for err in errors:
                print(err)
        else:
            print(f"{path}: ok")
    return 1 if failed else 0
