"""``soccerbt batch``: play many seeded matches in parallel processes and tabulate them.

``--seeds 0-9`` (ranges and lists: ``0-3,10,20-22``) with ``--jobs N`` worker processes
(default: the CPU count). Tree A is ``--blue-tree`` (or ``--tree``, or our game.xml), tree B
``--red-tree``; ``--swap-colours`` plays every seed twice, once with each tree on each side,
``--alternate-colours`` swaps the sides of odd seeds. The match options are those of ``run``:
``--seconds`` (default: the whole match), ``--half``, ``--team-size``, ``--field``.

A progress line per finished match goes to stderr; then stdout gets the results table (seed,
colours, score, goals with times and scorers, in seed order) and the totals per tree (wins,
draws, losses, goals for and against), then tree A against tree B: the mean goal difference
with its 95% t interval, the share of points (win 1, draw 1/2) and the win share with Wilson
intervals, and a sentence ("A is stronger than B: 62% of points, 95% CI 54-70%" or "no
significant difference after 40 games"). ``--until-significant`` plays more seeds, in rounds,
until the points interval excludes an even match or ``--max-games N`` (default 200) would be
passed; the extra seeds continue from the last one given, with the same colours rule.
``--json FILE`` writes every result and the statistics. The table does not depend on ``--jobs``. Ctrl-C stops the workers, prints the games that finished, exit 130.
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
from soccerbt.tools.batch import (BatchInterrupted, GameOutcome, batch_json, comparison, default_jobs, next_seeds,
                                  parse_seeds, plan_games, run_batch, table_lines)
from soccerbt.tools.outputs import check_output_path, write_atomically
from soccerbt.tools.run_cli import add_match_shape_arguments, tree_problem
from soccerbt.tools.stats import statistics_lines

EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, as a shell reports a process ended by it
DEFAULT_MAX_GAMES = 200


def _seeds(text: str) -> list[int]:
    try:
        return parse_seeds(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _count_of(what: str) -> Callable[[str], int]:
    """An argparse type: a whole number of 1 or more, errors naming `what`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a whole number, got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{what} must be 1 or more, got {text!r}")
        return value

    return parse


_jobs = _count_of("jobs")
_max_games = _count_of("max games")


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
    parser.add_argument("--until-significant", action="store_true",
                        help="play more seeds, in rounds, until the points share's 95%% interval excludes an even "
                             "match or --max-games is reached")
    parser.add_argument("--max-games", type=_max_games, default=None, metavar="N",
                        help=f"with --until-significant: play at most N games in all (default {DEFAULT_MAX_GAMES}; "
                             "the seeds given are always played)")
    parser.set_defaults(func=batch)


def _colour_mode(args: argparse.Namespace) -> str:
    return "swap" if args.swap_colours else "alternate" if args.alternate_colours else "fixed"


def _progress(err: TextIO, offset: int = 0) -> Callable[[GameOutcome, int, int], None]:
    """A line per finished game; ``offset`` games were played in earlier rounds."""
    def report(outcome: GameOutcome, finished: int, total: int) -> None:
        g = outcome.game
        head = f"[{offset + finished}/{offset + total}] seed {g.seed} {g.blue} blue vs {g.red} red:"
        if outcome.result is None:
            print(f"{head} failed: {(outcome.error or '').splitlines()[0]}", file=err, flush=True)
            return
        r = outcome.result
        print(f"{head} {r.score['blue']}:{r.score['red']}  ({r.sim_s:.0f} s simulated in {outcome.wall_s:.1f} s)",
              file=err, flush=True)
    return report


def _seed_text(seeds: list[int]) -> str:
    """[4, 5, 6, 9] -> "4-6,9"."""
    parts: list[str] = []
    start = prev = None
    for seed in [*seeds, None]:
        if start is not None and (seed is None or seed != prev + 1):
            parts.append(str(start) if start == prev else f"{start}-{prev}")
            start = None
        if seed is not None and start is None:
            start = seed
        prev = seed
    return ",".join(parts)


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
    colours = _colour_mode(args)
    if args.max_games is not None and not args.until_significant:
        print("soccerbt batch: --max-games goes with --until-significant", file=err)
        return 2
    games = plan_games(base, args.seeds, tree_a, tree_b, colours)
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

    seeds = list(args.seeds)
    max_games = args.max_games or DEFAULT_MAX_GAMES
    per_seed = 2 if colours == "swap" else 1
    round_seeds = max(len(seeds), -(-jobs // per_seed))  # a round keeps every worker busy
    rounds, stopped = 0, None
    outcomes: list[GameOutcome] = []
    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        pending = games
        while True:
            rounds += 1
            outcomes += run_batch(pending, jobs, None if args.quiet else _progress(err, len(outcomes)))
            if not args.until_significant:
                break
            so_far = comparison(outcomes)
            if so_far.significant:
                stopped = "significant"
                break
            if any(o.result is None for o in outcomes):
                stopped = "error"
                break
            room = (max_games - len(outcomes)) // per_seed
            if room <= 0:
                stopped = "max_games"
                print(f"soccerbt batch: {so_far.sentence()}; stopping at --max-games {max_games}", file=err)
                break
            more = next_seeds(seeds, min(round_seeds, room))
            pending = plan_games(base, more, tree_a, tree_b, colours)
            print(f"soccerbt batch: round {rounds}: {so_far.sentence()}; playing seeds {_seed_text(more)} "
                  f"({len(pending)} more games)", file=err)
            seeds += more
            games = games + pending
    except BatchInterrupted as stop:
        outcomes += stop.outcomes
        stopped = "interrupted"
        interrupted = True
        why = "terminated" if terminated else "interrupted"
        print(f"soccerbt batch: {why}: {len(outcomes)} of {len(games)} games finished", file=err)
    finally:
        signal.signal(signal.SIGTERM, previous)
    wall_s = time.perf_counter() - wall_start
    for line in table_lines(outcomes, trees):
        print(line)
    print()
    for line in statistics_lines(comparison(outcomes)):
        print(line)
    sim_s = sum(o.result.sim_s for o in outcomes if o.result is not None)
    print(f"{len(outcomes)} games, {sim_s:.0f} s simulated in {wall_s:.1f} s on {min(jobs, len(games))} "
          f"process(es)", file=err)
    if args.json:
        summary = batch_json(outcomes, trees, _colour_mode(args),
                             {"seeds": seeds, "complete": not interrupted})
        if args.until_significant:
            summary["statistics"]["until_significant"] = {"max_games": max_games, "rounds": rounds,
                                                          "stopped": stopped}
        try:
            write_atomically(Path(args.json), json.dumps(summary, indent=1) + "\n")
        except OSError as exc:
            print(f"soccerbt batch: {args.json}: not written ({exc.strerror or exc})", file=err)
            return 2
    if interrupted:
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    return 1 if any(o.result is None for o in outcomes) else 0

