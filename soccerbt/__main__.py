"""The soccerbt command line: run | view | validate | nodes | tree | gc | replay | batch | sweep | brain | sim.

Each command lives in the package it belongs to, as a module with
`configure(parser: argparse.ArgumentParser) -> None` that adds its arguments and sets
`func(args) -> int`. This file only collects them, so that packages stay independent.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path

import soccerbt
from soccerbt import __version__

# command name -> (module that configures it, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("soccerbt.tools.run_cli", "play a simulated match (viewer when a display exists)"),
    "view": ("soccerbt.tools.view_cli", "play a simulated match in the pygame field viewer"),
    "validate": ("soccerbt.trees.cli_validate", "check XML trees against the registered nodes"),
    "nodes": ("soccerbt.trees.cli_nodes", "print the registered nodes (--xml: TreeNodesModel)"),
    "tree": ("soccerbt.trees.cli_tree", "print a loaded tree"),
    "gc": ("soccerbt.gamecontroller.cli", "GameController tools: listen, send"),
    "replay": ("soccerbt.tools.replay.replay_cli", "replay a recorded run tick by tick in the viewer"),
    "batch": ("soccerbt.tools.batch.batch_cli", "play many seeded matches in parallel processes or on Ray"),
    "sweep": ("soccerbt.tools.batch.sweep_cli", "play the same matches for each value of some node ports"),
    "brain": ("soccerbt.robot.cli", "run one robot's brain as a program (a Booster robot, or a served simulator)"),
    "sim": ("soccerbt.tools.sim_cli", "serve the simulator's robots over their Booster interfaces (--serve booster)"),
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The top-level parser with one sub-parser per available command.

    Only the command named in ``argv`` (None: every command) has its module imported and its
    arguments configured: a command imports only what it needs, so `soccerbt --help`,
    `soccerbt validate` and `soccerbt nodes` start without the match stack (scipy, pygame).
    """
    parser = argparse.ArgumentParser(prog="soccerbt", description=__doc__.splitlines()[0])

    parser.add_argument("--version", action="version", version=f"soccerbt {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = None if argv is None else _command_in(argv)
    for name, (module_name, help_text) in COMMANDS.items():
        if wanted is not None and name != wanted:
            if _module_exists(module_name):  # listed in --help, configured only when chosen
                sub.add_parser(name, help=help_text, description=help_text)
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # command not built yet: leave it out
                continue
            raise
        module.configure(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def _command_in(argv: Sequence[str]) -> str:
    """The command argparse will pick from ``argv``: its first word that is not an option (the
    top-level options take no value), or "" when there is none."""
    for word in argv:
        if word == "--":
            continue
        if not word.startswith("-"):
            return word
    return ""


def _module_exists(module_name: str) -> bool:
    """Whether a command's module is present, found without importing it or its package."""
    parts = module_name.split(".")
    if parts[0] != "soccerbt":
        return importlib.util.find_spec(module_name) is not None
    base = Path(soccerbt.__file__).parent.joinpath(*parts[1:])
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `soccerbt` console script and `python -m soccerbt`."""
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
