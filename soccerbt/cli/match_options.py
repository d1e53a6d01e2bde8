"""The match options the commands share: which match, how long, how big, under which GameController.

``add_match_shape_arguments`` (``--seconds``, ``--half``, ``--team-size``, ``--field``,
``--gc-version``, ``--knockout``, and a team's own nodes ``--nodes``: ``run``, ``view``, ``batch``, ``sweep``),
``add_match_arguments`` (those, plus ``--seed``, the trees and ``--pad``: ``run`` and ``view``), and the
``MatchConfig`` they ask for (``config_from_args``, ``shape_from_args``); ``tree_problem`` names
a tree option that names no file. A bad value is an argparse error that names the option.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from soccerbt.cli.arguments import field_name, seed_value, team_size_value
from soccerbt.match import MatchConfig
from soccerbt.trees.plugins import add_nodes_option
from soccerbt.world.field import Field

__all__ = ["add_match_shape_arguments", "add_match_arguments", "FIELD_CHOICES", "seed_value", "tree_problem",
           "shape_from_args", "config_from_args"]


def add_match_shape_arguments(parser: argparse.ArgumentParser) -> None:
    """How long and how big a match is, and under which GameController: ``--seconds``,
    ``--half``, ``--team-size``, ``--field``, ``--gc-version`` (shared by ``run``, ``view`` and
    ``batch``)."""
    parser.add_argument("--seconds", type=_positive_float, default=None,
                        help="simulated seconds per match (default: the whole match, two halves)")
    parser.add_argument("--half", type=_positive_float, default=600.0, help="half length in seconds (default 600)")
    parser.add_argument("--team-size", type=team_size_value, default=None,
                        help="robots per team (default: 3 AdultSize, 4 KidSize)")
    parser.add_argument("--field", type=field_name, choices=FIELD_CHOICES, default="adult", metavar="{S,M,L}",
                        help="HSL field: S 9x6 m (up to 7 a team), M 14x9 m (up to 5), L 22x14 m (up to 5, "
                             "5 v 5 by default); any case; kid and adult name S and M (default M)")
    parser.add_argument("--gc-version", type=int, choices=(12, 19, 20), default=20,
                        help="GameController the referee plays: 20 (default) or 19 the Humanoid Soccer League's "
                             "(HSL packets, set plays in PLAYING, delayed PLAYING), 12 the HL v12 one")
    parser.add_argument("--knockout", action="store_true",
                        help="a knock-out game: level at the end, two extra halves of 300 s, then a penalty "
                             "shoot-out (HSL referee only)")
    add_nodes_option(parser)
    _check_team_size_on_field(parser)


FIELD_CHOICES = ("s", "m", "l", "kid", "adult", "small", "medium", "large")


def _check_team_size_on_field(parser: argparse.ArgumentParser) -> None:
    """After parsing, ``--team-size`` must fit ``--field`` (7 on S, 5 on M and L) and
    ``--knockout`` needs an HSL ``--gc-version``: an argparse error otherwise, whatever the
    order of the options."""
    parse = parser.parse_known_args

    def parse_known_args(args=None, namespace=None):  # type: ignore[no-untyped-def]
        ns, rest = parse(args, namespace)
        size, name = getattr(ns, "team_size", None), getattr(ns, "field", None)
        if size is not None and name is not None:
            limit = Field.by_name(name).max_players_per_team
            if size > limit:
                parser.error(f"argument --team-size: at most {limit} robots a team on the "
                             f"{name.upper() if len(name) == 1 else name} field, got {size}")
        if getattr(ns, "knockout", False) and getattr(ns, "gc_version", None) == 12:
            parser.error("argument --knockout: extra time and the shoot-out need the HSL referee "
                         "(--gc-version 19 or 20)")
        return ns, rest

    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]


def add_match_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that say which match to play (shared by ``run`` and ``view``)."""
    add_match_shape_arguments(parser)
    parser.add_argument("--seed", type=seed_value, default=0, help="seed of the run, 0 or more (default 0)")
    parser.add_argument("--tree", default=None, help="XML tree for both teams (default: our game.xml)")
    parser.add_argument("--blue-tree", default=None, help="XML tree for the blue team")
    parser.add_argument("--red-tree", default=None, help="XML tree for the red team")
    parser.add_argument("--pad", metavar="ROBOT", default=None, help="drive ROBOT (e.g. blue2) with a gamepad")


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0.0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value



def tree_problem(args: argparse.Namespace) -> str | None:
    """Why a tree option names no tree file ("PATH: is a directory (--tree)"), or None."""
    for team in ("blue", "red"):
        own = getattr(args, f"{team}_tree", None)
        path, flag = (own, f"--{team}-tree") if own is not None else (getattr(args, "tree", None), "--tree")
        if path is None:
            continue
        p = Path(path)
        if p.is_dir():
            return f"{path}: is a directory, not a tree file ({flag})"
        if not p.is_file():
            return f"{path}: no such tree file ({flag})"
    return None


def shape_from_args(args: argparse.Namespace) -> MatchConfig:
    """The match options of ``add_match_shape_arguments`` (no seed, no trees): the base of the
    games of ``batch`` and ``sweep``."""
    return MatchConfig(team_size=args.team_size, field=args.field, duration_s=args.seconds, half_s=args.half,
                       gc_version=args.gc_version, knockout=args.knockout, node_plugins=_node_plugins(args))


def _node_plugins(args: argparse.Namespace) -> tuple[str, ...]:
    """The ``--nodes`` texts, a file that exists named by its absolute path (batch workers, spawned
    brains and the log's header then find it wherever they run)."""
    specs = []
    for spec in getattr(args, "nodes", None) or ():
        path = Path(spec)
        specs.append(str(path.resolve()) if spec.endswith(".py") and path.is_file() else spec)
    return tuple(specs)


def config_from_args(args: argparse.Namespace) -> MatchConfig:
    """The match configuration the arguments ask for."""
    blue = args.blue_tree or args.tree
    red = args.red_tree or args.tree
    problem = tree_problem(args)
    if problem is not None:
        raise FileNotFoundError(problem)
    return MatchConfig(team_size=args.team_size, field=args.field, seed=args.seed, duration_s=args.seconds,
                       half_s=args.half, blue_tree=blue, red_tree=red,
                       realtime=getattr(args, "realtime", False), gc_version=args.gc_version,
                       knockout=args.knockout, node_plugins=_node_plugins(args))
