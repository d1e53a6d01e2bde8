"""``soccerbt batch``: play many seeded matches in parallel processes and tabulate them.

``--seeds 0-9`` (ranges and lists: ``0-3,10,20-22``) with ``--jobs N`` worker processes
(default: the CPU count). Tree A is ``--blue-tree`` (or ``--tree``, or our game.xml), tree B
``--red-tree``; ``--swap-colours`` plays every seed twice, once with each tree on each side,
``--alternate-colours`` swaps the sides of odd seeds. The match options are those of ``run``:
``--seconds`` (default: the whole match), ``--half``, ``--team-size``, ``--field``.

A progress line per finished match goes to stderr; then stdout gets the results table (seed,
colours, score, goals with times and scorers, in seed order) and the totals per tree (wins,
draws, losses, goals for and against), then tree A against tree B: the mean goal difference
with its 95% t interval (none, and why, when no goal was scored or every game had the same
difference: "no goals: no evidence either way"), the share of points (win 1, draw 1/2) and the
win share with Wilson intervals, a warning when less than half of the simulated time was
PLAYING (a short ``--seconds`` is mostly set-up: PLAYING starts about 26 s into a match), and a
sentence ("A is stronger than B: 62% of points, 95% CI 54-70%" or "no significant difference
after 40 games"). ``--until-significant`` plays more seeds, in rounds,
until the points interval excludes an even match or ``--max-games N`` (default 200) would be
passed; the extra seeds continue from the last one given, with the same colours rule.
``--json FILE`` writes every result and the statistics. The table does not depend on ``--jobs``.

``--backend ray`` runs the games as Ray tasks (a local instance with ``--jobs`` CPUs, or the
cluster at ``--address``); ``--game-timeout S`` stops a game's worker after S wall seconds; a
worker that dies or hangs is reported and its game played again once, then reported failed
(in the table, the JSON and the summary). ``--progress`` (default on a terminal without
``--quiet``) shows a bar instead of the lines: games finished, A's record ("A 3-1-2
(won-drawn-lost)"), time left.
``--out DIR`` writes each game as it finishes and ``summary.json`` (``soccerbt.tools.batch.batch_store``);
a rerun on DIR plays only what is missing; ``--record`` keeps each game's ``.mcap`` there.
Ctrl-C stops the workers, prints the games that finished, exit 130. Exit 1 when a game could
not be played (a broken tree: ``path:line: message``, or a failed worker), 2 for bad options.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from soccerbt.cli.match_options import add_match_shape_arguments, shape_from_args, tree_problem
from soccerbt.cli.outputs import check_output_path, same_file, tree_inputs, write_atomically
from soccerbt.match import Match, default_tree_path
from soccerbt.tools.batch.batch import (
    BatchGame,
    BatchInterrupted,
    GameOutcome,
    ab_scores,
    batch_json,
    comparison,
    default_jobs,
    next_seeds,
    parse_seeds,
    plan_games,
    run_batch,
    table_lines,
)
from soccerbt.tools.batch.batch_pool import BACKENDS, RAY_MISSING, BackendError, default_game_timeout_s
from soccerbt.tools.batch.batch_store import SUMMARY_NAME, GameStore, StoreConflict, batch_fingerprint, is_store_name
from soccerbt.tools.batch.stats import RECORD_LEGEND, statistics_lines

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
    add_runner_arguments(parser)
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="write a JSON file per game and summary.json to DIR (made if missing); a rerun "
                             "with the same DIR plays only the games not yet there")
    parser.add_argument("--record", action="store_true",
                        help="with --out: keep each game's replay log (.mcap) in DIR")
    parser.set_defaults(func=batch)


def add_runner_arguments(parser: argparse.ArgumentParser) -> None:
    """Where and how the games run: ``--backend``, ``--address``, ``--game-timeout``,
    ``--progress`` (shared by ``batch`` and ``sweep``)."""
    parser.add_argument("--backend", choices=BACKENDS, default="process",
                        help="run the games in worker processes (default) or as Ray tasks "
                             "(pip install 'soccerbt[ray]')")
    parser.add_argument("--address", metavar="ADDR", default=None,
                        help="with --backend ray: join the Ray cluster at ADDR (e.g. auto or 10.0.0.5:6379) "
                             "instead of starting a local one with --jobs CPUs; --jobs is then the number of games "
                             "at once (default: this machine's CPU count; at most the cluster's CPUs)")
    parser.add_argument("--game-timeout", type=_timeout, default=None, metavar="S",
                        help="wall seconds after which a game counts as hung: its worker is stopped and the "
                             "game played again once (default: 120 + the simulated seconds)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="a progress bar on stderr (finished games, A's won-drawn-lost, time left); "
                             "default: when stderr is a terminal and without --quiet")


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the game timeout is a number of seconds, got {text!r}") from None
    if not 0.0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"the game timeout must be a positive number of seconds, got {text!r}")
    return value


def runner_problem(args: argparse.Namespace) -> str | None:
    """Why the runner options cannot work (exit 2), or None: --address without ray, ray missing."""
    if args.address is not None and args.backend != "ray":
        return "--address goes with --backend ray"
    if args.backend == "ray" and importlib.util.find_spec("ray") is None:
        return RAY_MISSING
    return None


class ProgressBar:
    """A tqdm bar on stderr: games finished of all, A's record (won-drawn-lost), time left.
    ``write`` prints a line above it."""

    def __init__(self, total: int, done: int, err: TextIO) -> None:
        # deferred: start-up: tqdm only when the bar is shown
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=done, file=err, unit="game", dynamic_ncols=True, leave=True,
                        smoothing=0.1)
        self.wins = self.draws = self.losses = self.failed = 0

    def count(self, outcome: GameOutcome) -> None:
        if outcome.result is None:
            self.failed += 1
            return
        a, b = ab_scores([outcome])[0]
        self.wins += a > b
        self.draws += a == b
        self.losses += a < b

    def add_total(self, more: int) -> None:
        self.bar.total += more
        self.bar.refresh()

    def done(self, outcome: GameOutcome) -> None:
        self.count(outcome)
        failed = f" failed {self.failed}" if self.failed else ""
        self.bar.set_postfix_str(f"A {self.wins}-{self.draws}-{self.losses} ({RECORD_LEGEND}){failed}", refresh=False)
        self.bar.update(1)

    def write(self, line: str) -> None:
        self.bar.write(line, file=self.bar.fp)

    def close(self) -> None:
        self.bar.close()


def use_progress_bar(args: argparse.Namespace, err: TextIO) -> bool:
    """--progress / --no-progress, else a bar when stderr is a terminal and not --quiet."""
    if args.progress is not None:
        return bool(args.progress)
    return not args.quiet and err.isatty()


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


def _json_in_out(json_path: str, folder: str) -> str | None:
    """Why --json may not be written where it is (a file of the --out folder: a game, its log,
    the summary, the lock), or None."""

    target = Path(os.path.realpath(json_path))
    out = Path(folder)
    if out.is_dir() and target.parent == Path(os.path.realpath(out)) and is_store_name(target.name):
        return f"{json_path}: given to both --out (its file {target.name}) and --json"
    if out.is_dir():
        for entry in os.scandir(out):
            if is_store_name(entry.name) and same_file(json_path, entry.path):
                return f"{json_path}: given to both --out (its file {entry.name}) and --json"
    return None


def prepare_out(folder: str, inputs: list[str | Path | None]) -> str | None:
    """Make the --out folder when missing; why it cannot be used, or None."""
    path = Path(folder)
    if path.exists() and not path.is_dir():
        return f"{folder}: is not a folder (--out)"
    if not path.exists():
        problem = check_output_path(path, inputs)
        if problem is not None:
            return f"{problem} (--out)"
        try:
            path.mkdir()
        except OSError as exc:
            return f"{folder}: cannot make the folder ({exc.strerror or exc}) (--out)"
    problem = check_output_path(path / SUMMARY_NAME, inputs)
    return None if problem is None else f"{problem} (--out)"


class Reporter:
    """What the user sees while games finish: a line per game (stderr), or the progress bar;
    retries and failures always. Also saves each game in the --out folder."""

    def __init__(self, args: argparse.Namespace, err: TextIO, store: GameStore | None) -> None:
        self.err = err
        self.store = store
        self.quiet = args.quiet
        self.bar: ProgressBar | None = None
        self.want_bar = use_progress_bar(args, err)
        self.offset = 0
        self.save_errors: list[str] = []

    def start(self, total: int, done: int) -> None:
        if self.want_bar and self.bar is None:
            try:
                self.bar = ProgressBar(total, done, self.err)
            except ImportError:  # tqdm missing: lines instead
                self.want_bar = False

    def line(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text)
        else:
            print(text, file=self.err, flush=True)

    def on_retry(self, game: BatchGame, reason: str) -> None:
        self.line(f"soccerbt batch: seed {game.seed} {game.blue} blue vs {game.red} red: {reason}; playing it again")

    def on_done(self, outcome: GameOutcome, finished: int, total: int) -> None:
        if self.store is not None:
            try:
                self.store.save(outcome)
            except OSError as exc:
                self.save_errors.append(f"{self.store.game_path(outcome.game)}: not written ({exc.strerror or exc})")
        if self.bar is not None:
            self.bar.done(outcome)
            if outcome.result is None:
                self.line(f"soccerbt batch: seed {outcome.game.seed} failed: {(outcome.error or '').splitlines()[0]}")
        elif not self.quiet or outcome.result is None:
            _progress(self.err, self.offset)(outcome, finished, total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def batch(args: argparse.Namespace) -> int:
    """The ``batch`` command: 0 all played, 1 a game failed (or could not start), 2 bad options,
    130 Ctrl-C. The --out folder is locked while it runs."""
    stores: list[GameStore] = []
    try:
        return _batch(args, stores)
    finally:
        for store in stores:
            store.unlock()


def _batch(args: argparse.Namespace, stores: list[GameStore]) -> int:
    err = sys.stderr
    tree_a = args.blue_tree or args.tree
    tree_b = args.red_tree or args.tree
    problem = tree_problem(args)
    if problem is not None:
        print(f"soccerbt batch: {problem}", file=err)
        return 1
    base = shape_from_args(args)
    colours = _colour_mode(args)
    if args.max_games is not None and not args.until_significant:
        print("soccerbt batch: --max-games goes with --until-significant", file=err)
        return 2
    if args.record and not args.out:
        print("soccerbt batch: --record goes with --out DIR (the logs are kept in DIR)", file=err)
        return 2
    problem = runner_problem(args)
    if problem is not None:
        print(f"soccerbt batch: {problem}", file=err)
        return 2
    games = plan_games(base, args.seeds, tree_a, tree_b, colours)
    trees = {"A": tree_a or str(default_tree_path()), "B": tree_b or str(default_tree_path())}
    try:  # a broken tree is reported once, before any worker starts
        Match(games[0].config)
    except Exception as exc:
        print(f"soccerbt batch: {exc}", file=err)
        return 1
    inputs = tree_inputs(tree_a, tree_b)
    if args.json:
        problem = check_output_path(args.json, inputs)
        if problem is None and args.out:
            problem = _json_in_out(args.json, args.out)
        if problem is not None:
            print(f"soccerbt batch: {problem} (--json)", file=err)
            return 2
    store = None
    if args.out:
        problem = prepare_out(args.out, [*inputs, args.json])
        if problem is not None:
            print(f"soccerbt batch: {problem}", file=err)
            return 2
        store = GameStore(Path(args.out), batch_fingerprint(base, {"A": tree_a, "B": tree_b}), record=args.record)
        try:
            store.lock()
            stores.append(store)
        except StoreConflict as exc:
            print(f"soccerbt batch: {exc} (--out)", file=err)
            return 2
    jobs = args.jobs or default_jobs()
    timeout_s = args.game_timeout or default_game_timeout_s(base)
    reporter = Reporter(args, err, store)
    wall_start = time.perf_counter()
    interrupted = False
    terminated: list[int] = []

    def on_sigterm(signum: int, _frame: object) -> None:
        # stop like Ctrl-C: the workers are terminated at once, finished games kept
        terminated.append(signum)
        raise KeyboardInterrupt

    def play(pending: list[BatchGame]) -> list[GameOutcome]:
        """The games of a round: those in --out already, then the others played."""
        kept: dict[int, GameOutcome] = {}
        if store is not None:
            for k, g in enumerate(pending):
                outcome = store.load(g)
                if outcome is not None:
                    kept[k] = outcome
            for line in store.damaged:
                reporter.line(f"soccerbt batch: {line}")
            store.damaged.clear()
            if kept:
                reporter.line(f"soccerbt batch: {len(kept)} of {len(pending)} games already in {args.out}: "
                              "not played again")
        todo = [g for k, g in enumerate(pending) if k not in kept]
        if reporter.bar is None:
            reporter.start(len(games), len(outcomes) + len(kept))
        elif kept:
            reporter.bar.bar.update(len(kept))
        reporter.offset = len(outcomes) + len(kept)
        try:
            new = run_batch(todo, jobs, reporter.on_done, backend=args.backend, address=args.address,
                            game_timeout_s=timeout_s, on_retry=reporter.on_retry,
                            record_paths=[str(store.record_path(g)) for g in todo] if args.record else None)
        except BatchInterrupted as stop:
            played_now[0] += len(stop.outcomes)
            stop.outcomes = _merge(pending, kept, todo, stop.outcomes)
            raise
        played_now[0] += len(new)
        return _merge(pending, kept, todo, new)

    seeds = list(args.seeds)
    max_games = args.max_games or DEFAULT_MAX_GAMES
    per_seed = 2 if colours == "swap" else 1
    round_seeds = max(len(seeds), -(-jobs // per_seed))  # a round keeps every worker busy
    rounds, stopped = 0, None
    outcomes: list[GameOutcome] = []
    played_now = [0]
    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        pending = games
        while True:
            rounds += 1
            outcomes += play(pending)
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
                reporter.line(f"soccerbt batch: {so_far.sentence()}; stopping at --max-games {max_games}")
                break
            more = next_seeds(seeds, min(round_seeds, room))
            pending = plan_games(base, more, tree_a, tree_b, colours)
            reporter.line(f"soccerbt batch: round {rounds}: {so_far.sentence()}; playing seeds {_seed_text(more)} "
                          f"({len(pending)} more games)")
            if reporter.bar is not None:
                reporter.bar.add_total(len(pending))
            seeds += more
            games = games + pending
    except BatchInterrupted as stop:
        outcomes += stop.outcomes
        stopped = "interrupted"
        interrupted = True
        why = "terminated" if terminated else "interrupted"
        reporter.close()
        print(f"soccerbt batch: {why}: {len(outcomes)} of {len(games)} games finished", file=err)
    except (BackendError, StoreConflict) as exc:
        reporter.close()
        print(f"soccerbt batch: {exc}", file=err)
        return 2
    finally:
        reporter.close()
        signal.signal(signal.SIGTERM, previous)
    wall_s = time.perf_counter() - wall_start
    for line in reporter.save_errors:
        print(f"soccerbt batch: {line}", file=err)
    for line in table_lines(outcomes, trees):
        print(line)
    print()
    for line in statistics_lines(comparison(outcomes)):
        print(line)
    sim_s = sum(o.result.sim_s for o in outcomes if o.result is not None)
    where = f"{min(jobs, len(games))} process(es)" if args.backend == "process" else f"Ray ({jobs} workers)"
    print(f"{len(outcomes)} games ({played_now[0]} played now), {sim_s:.0f} s simulated in {wall_s:.1f} s on "
          f"{where}", file=err)
    failed = [o for o in outcomes if o.result is None]
    if failed:
        print(f"soccerbt batch: {len(failed)} game(s) failed: seeds "
              f"{', '.join(f'{o.game.seed} ({o.game.blue} blue)' for o in failed)}", file=err)
    summary = None
    if args.json or store is not None:
        summary = batch_json(outcomes, trees, _colour_mode(args),
                             {"seeds": seeds, "complete": not interrupted})
        if args.until_significant:
            summary["statistics"]["until_significant"] = {"max_games": max_games, "rounds": rounds,
                                                          "stopped": stopped}
    for path, flag in ((args.json, "--json"), (store.summary_path if store else None, "--out")):
        if path is None:
            continue
        try:
            if flag == "--out":
                store.save_summary(summary)  # a name of the batch's own folder: never through a link
            else:
                write_atomically(Path(path), json.dumps(summary, indent=1) + "\n")
        except OSError as exc:
            print(f"soccerbt batch: {path}: not written ({exc.strerror or exc}) ({flag})", file=err)
            return 2
    if interrupted:
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    return 1 if failed or reporter.save_errors else 0


def _merge(pending: list[BatchGame], kept: dict[int, GameOutcome], todo: list[BatchGame],
           played: list[GameOutcome]) -> list[GameOutcome]:
    """The outcomes of `pending` in plan order: those kept from --out and those played (which
    may be fewer than `todo` when interrupted)."""
    by_game = {id(o.game): o for o in played}
    out = []
    for k, g in enumerate(pending):
        if k in kept:
            out.append(kept[k])
        elif id(g) in by_game:
            out.append(by_game[id(g)])
    return out
