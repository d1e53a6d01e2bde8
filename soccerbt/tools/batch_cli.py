"""``soccerbt batch``: play many seeded matches in parallel processes and tabulate them.

``--seeds 0-9`` (ranges and lists: ``0-3,10,20-22``) with ``--jobs N`` worker processes
(default: the CPU count). Tree A is ``--blue-tree`` (or ``--tree``, or our game.xml), tree B
``--red-tree``; ``--swap-colours`` plays every seed twice, once with each tree on each side,
``--alternate-colours`` swaps the sides of odd seeds. The match options are those of ``run``:
``--seconds`` (default: the whole match), ``--half``, ``--team-size``, ``--field``.

A progress line per finished match goes to stderr; then stdout gets the results table (seed,
colours, score, goals with times and scorers, in seed order) and the totals per tree (wins,
draws, losses, goals for and against). ``--json FILE`` writes every result. The table does
not depend on ``--jobs``. Ctrl-C stops the workers, prints the games that finished, exit 130.
Exit 1 when a game could not be played (a broken tree: ``path:line: message``).
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from soccerbt.match import Match, MatchConfig, default_tree_path
from soccerbt.tools.batch import (BatchInterrupted, GameOutcome, batch_json, default_jobs, parse_seeds, plan_games,
                                  run_batch, table_lines)
from soccerbt.tools.outputs import check_output_path, write_atomically
from soccerbt.tools.run_cli import add_match_shape_arguments, tree_problem

EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, as a shell reports a process ended by it


def _seeds(text: str) -> list[int]:
    try:
        return parse_seeds(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"jobs must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"jobs must be 1 or more, got {text!r}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``soccerbt batch``."""
    parser.add_argument("--seeds", type=_seeds, default=[0], help="seeds: 0-9, 1,4,7 or 0-3,10 (default 0)")
    parser.add_argument("--jobs", type=_jobs, default=None, help="worker processes (default: the CPU count)")
    colours = parser.add_mutually_exclusive_group()
    colours.add_argument("--swap-colours", action="store_true",
                         help="play every seed twice, each tree once on each side")
    colours.add_argument("--alternate-colours", action="store_true", help="swap the sides of odd seeds")
    add_match_shape_arguments(parser)
    parser.add_argument("--tree", default=None, help="XML tree for both A and B (default: our game.xml)")
    parser.add_argument("--blue-tree", default=None, help="tree A: blue unless the colours are swapped")
    parser.add_argument("--red-tree", default=None, help="tree B: red unless the colours are swapped")
    parser.add_argument("--json", metavar="FILE", default=None, help="write every result as one JSON object")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.set_defaults(func=batch)


def _colour_mode(args: argparse.Namespace) -> str:
    return "swap" if args.swap_colours else "alternate" if args.alternate_colours else "fixed"


def _progress(err: TextIO) -> Callable[[GameOutcome, int, int], None]:
    def report(outcome: GameOutcome, finished: int, total: int) -> None:
        g = outcome.game
        head = f"[{finished}/{total}] seed {g.seed} {g.blue} blue vs {g.red} red:"
        if outcome.result is None:
            print(f"{head} failed: {(outcome.error or '').splitlines()[0]}", file=err, flush=True)
            return
        r = outcome.result
        print(f"{head} {r.score['blue']}:{r.score['red']}  ({r.sim_s:.0f} s simulated in {outcome.wall_s:.1f} s)",
              file=err, flush=True)
    return report


def batch(args: argparse.Namespace) -> int:
    """The ``batch`` command: 0 all played, 1 a game failed (or could not start), 130 Ctrl-C."""
    err = sys.stderr
    tree_a = args.blue_tree or args.tree
    tree_b = args.red_tree or args.tree
    problem = tree_problem(args)
    if problem is not None:
        print(f"soccerbt batch: {problem}", file=err)
        return 1
    base = MatchConfig(team_size=args.team_size, field=args.field, duration_s=args.seconds, half_s=args.half,
                       gc_version=getattr(args, "gc_version", 12))
    games = plan_games(base, args.seeds, tree_a, tree_b, _colour_mode(args))
    trees = {"A": tree_a or str(default_tree_path()), "B": tree_b or str(default_tree_path())}
    try:  # a broken tree is reported once, before any worker starts
        Match(games[0].config)
    except Exception as exc:
        print(f"soccerbt batch: {exc}", file=err)
        return 1
    if args.json:
        problem = check_output_path(args.json, [tree_a, tree_b])
        if problem is not None:
            print(f"soccerbt batch: {problem} (--json)", file=err)
            return 2
    jobs = args.jobs or default_jobs()
    wall_start = time.perf_counter()
    interrupted = False
    terminated: list[int] = []

    def on_sigterm(signum: int, _frame: object) -> None:
        # stop like Ctrl-C: the pool's workers are terminated at once, finished games kept
        terminated.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        outcomes = run_batch(games, jobs, None if args.quiet else _progress(err))
    except BatchInterrupted as stop:
        outcomes = stop.outcomes
        interrupted = True
        why = "terminated" if terminated else "interrupted"
        print(f"soccerbt batch: {why}: {len(outcomes)} of {len(games)} games finished", file=err)
    finally:
        signal.signal(signal.SIGTERM, previous)
    wall_s = time.perf_counter() - wall_start
    for line in table_lines(outcomes, trees):
        print(line)
    sim_s = sum(o.result.sim_s for o in outcomes if o.result is not None)
    print(f"{len(outcomes)} games, {sim_s:.0f} s simulated in {wall_s:.1f} s on {min(jobs, len(games))} "
          f"process(es)", file=err)
    if args.json:
        summary = batch_json(outcomes, trees, _colour_mode(args),
                             {"seeds": args.seeds, "complete": not interrupted})
        try:
            write_atomically(Path(args.json), json.dumps(summary, indent=1) + "\n")
        except OSError as exc:
            print(f"soccerbt batch: {args.json}: not written ({exc.strerror or exc})", file=err)
            return 2
    if interrupted:
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    return 1 if any(o.result is None for o in outcomes) else 0

