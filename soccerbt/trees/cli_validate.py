"""`soccerbt validate FILE...`: load trees against the registered nodes, print located errors.

Prints `FILE: ok` for a tree that loads, otherwise one `path:line: message` line per problem;
the exit code is 1 when any file has an error. An unknown node is reported once per name (at its
first line, with how many more times it is used), with the "did you mean" every load gives
(``soccerbt.trees.suggest``): `path:4: Node not recognized: KickBal; did you mean 'KickBall' or
'Kick'? (used 1 more time)`.
"""
from __future__ import annotations

import argparse
import re

from soccerbt.trees.cli_common import add_factory_options, factory_from_args
from soccerbt.trees.errors import TreeLoadError

__all__ = ["configure", "run", "explained"]

_UNKNOWN = re.compile(r"Node not recognized: (\S+?)(?:; did you mean .*)?$")


def explained(errors: list[TreeLoadError]) -> list[str]:
    """The error lines, an unknown node once per name (its first place, "used N more times")."""
    out: list[str] = []
    unknown: dict[str, int] = {}
    for err in errors:
        text = str(err)
        m = _UNKNOWN.search(text)
        if m is None:
            out.append(text)
            continue
        name = m.group(1)
        if name in unknown:
            out[unknown[name]] = _more(out[unknown[name]])
            continue
        unknown[name] = len(out)
        out.append(text)
    return out


def _more(line: str) -> str:
    """The line of an unknown node with one more use counted (" (used 2 more times)")."""
    m = re.search(r" \(used (\d+) more times?\)$", line)
    n = int(m.group(1)) + 1 if m else 1
    base = line[:m.start()] if m else line
    return f"{base} (used {n} more time{'s' if n > 1 else ''})"


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
            for line in explained(errors):
                print(line)
        else:
            print(f"{path}: ok")
    return 1 if failed else 0
