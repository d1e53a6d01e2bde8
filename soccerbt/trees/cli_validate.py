"""`soccerbt validate FILE...`: load trees against the registered nodes, print located errors.

Prints `FILE: ok` for a tree that loads, otherwise one `path:line: message` line per problem;
the exit code is 1 when any file has an error. An unknown node is reported once per name (at its
first line, with how many more times it is used) with a "did you mean" from the registered names.
"""
from __future__ import annotations

import argparse
import difflib
import re

from soccerbt.trees.cli_common import add_factory_options, factory_from_args

__all__ = ["configure", "run", "explained"]

_UNKNOWN = re.compile(r"Node not recognized: (\S+)$")


def explained(errors: list, known: list[str]) -> list[str]:
    """The error lines, an unknown node once per name (its first place, "+N more" uses) with the
    closest registered names."""
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
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        unknown[name] = len(out)
        out.append(text + (f" (did you mean {' or '.join(close)}?)" if close else ""))
    return out


def _more(line: str) -> str:
    """The line of an unknown node with one more use counted ("; used 2 more times")."""
    m = re.search(r"; used (\d+) more times?$", line)
    n = int(m.group(1)) + 1 if m else 1
    base = line[:m.start()] if m else line
    return f"{base}; used {n} more time{'s' if n > 1 else ''}"


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
            for line in explained(errors, list(factory.manifests()) + factory.registered_behavior_trees()):
                print(line)
        else:
            print(f"{path}: ok")
    return 1 if failed else 0
