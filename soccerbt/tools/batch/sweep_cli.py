"""``soccerbt sweep``: the same matches for each value of some node ports, and the best tree.

``--param NODE.PORT=VALUES`` (repeatable): NODE is a node's XML ``name`` or its node ID, PORT
one of its input ports; VALUES a list (``0.6,0.8,1.0``), a range with a step for the grid
(``0.5:1.5:0.25``) or a range for ``--random N`` (``0.5:1.5``). The grid of every combination
is the default; ``--random N`` draws N combinations (``--random-seed``). Each combination of
``--tree`` (default: our game.xml) plays ``--seeds`` against ``--opponent-tree`` (default: the
tree as given) with the match, colour and runner options of ``batch``. The table has a line per
combination: its values, games, won-drawn-lost, goals, the share of points (win 1, draw 1/2;
Wilson interval) and the goal difference per game with its 95% t interval (none, and why, when
no goal was scored or every game had the same difference); ``*`` marks the best (highest share
of points, then goal difference). A legend follows, and a warning when less than half of the
simulated time was PLAYING (a short ``--seconds`` is mostly set-up). ``--best-out FILE.xml``
writes the tree with the best values (only those attributes differ from the input); ``--json
FILE`` every combination's statistics and the time in PLAYING.
Exit 0, 1 when a tree is broken or a game failed, 2 for bad options, 130 on Ctrl-C.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import time
from pathlib import Path

from soccerbt.cli.match_options import add_match_shape_arguments, shape_from_args
from soccerbt.cli.outputs import check_output_path, same_file, tree_inputs, write_atomically
from soccerbt.match import Match
from soccerbt.tools.batch.batch import BatchInterrupted, GameOutcome, default_jobs, plan_games, play_time
from soccerbt.tools.batch.batch_cli import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    ProgressBar,
    _colour_mode,
    _count_of,
    _seeds,
    add_runner_arguments,
    runner_problem,
    use_progress_bar,
)
from soccerbt.tools.batch.batch_pool import BackendError, default_game_timeout_s
from soccerbt.tools.batch.stats import POINTS_DEFINITION, RECORD_LEGEND, HeadToHead, PlayTime
from soccerbt.tools.batch.sweep import (
    MAX_COMBINATIONS,
    ComboResult,
    Param,
    SweepError,
    TreeEditor,
    best,
    combinations,
    combo_text,
    parse_param,
    plan_best,
    run_sweep,
    tree_or_default,
    write_best,
)
from soccerbt.trees import TreeLoadError
from soccerbt.trees.plugins import PluginError


def _param(text: str) -> Param:
    try:
        return parse_param(text)
    except SweepError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _random_count(text: str) -> int:
    value = _count_of("--random")(text)
    if value > MAX_COMBINATIONS:
        raise argparse.ArgumentTypeError(f"--random must be at most {MAX_COMBINATIONS:,}, got {text!r}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``soccerbt sweep``."""
    parser.add_argument("--param", type=_param, action="append", required=True, metavar="NODE.PORT=VALUES",
                        help="a port to sweep: NODE is a node's name or ID; VALUES 0.6,0.8,1.0 (a list), "
                             "0.5:1.5:0.25 (a range with a step) or 0.5:1.5 (a range, with --random)")
    parser.add_argument("--random", type=_random_count, default=None, metavar="N",
                        help=f"draw N random combinations instead of the whole grid (at most {MAX_COMBINATIONS:,})")
    parser.add_argument("--random-seed", type=int, default=0, help="seed of the random draws (default 0)")
    parser.add_argument("--tree", default=None, help="the tree being tuned (default: our game.xml)")
    parser.add_argument("--opponent-tree", default=None, help="the opponent's tree (default: the tree as given)")
    parser.add_argument("--seeds", type=_seeds, default=[0], help="seeds of every combination: 0-9, 1,4,7 (default 0)")
    parser.add_argument("--jobs", type=_count_of("jobs"), default=None, help="workers (default: the CPU count)")
    colours = parser.add_mutually_exclusive_group()
    colours.add_argument("--swap-colours", action="store_true", help="play every seed with the tuned tree on each side")
    colours.add_argument("--alternate-colours", action="store_true", help="swap the sides of odd seeds")
    add_match_shape_arguments(parser)
    add_runner_arguments(parser)
    parser.add_argument("--best-out", metavar="FILE", default=None,
                        help="write the tree with the best combination to FILE (never over an input)")
    parser.add_argument("--json", metavar="FILE", default=None, help="write every combination's statistics")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.set_defaults(func=sweep)


def _interval(h: HeadToHead) -> tuple[str, str]:
    if h.games == 0:
        return "-", "-"
    points = f"{h.points_share * 100:3.0f}% ({h.points_low * 100:.0f}-{h.points_high * 100:.0f}%)"
    return points, h.goal_diff_text(short=True)


LEGEND = (f"W-D-L: the tuned tree's games {RECORD_LEGEND}; points: its share of the points ({POINTS_DEFINITION}) "
          "with a Wilson interval; goal difference: its mean per game with a t interval, none when there were no "
          "goals (no evidence either way) or every game had the same difference (no spread)")


def table_lines(results: list[ComboResult], params: list[Param], top: ComboResult | None) -> list[str]:
    """A line per combination: values, record, points share and goal difference with intervals;
    then the legend, and a warning when the games were mostly set-up (little PLAYING)."""
    widths = [max(len(p.key), *(len(r.combo[p]) for r in results)) for p in params]
    head = "  ".join(f"{p.key:<{w}}" for p, w in zip(params, widths, strict=False))
    lines = [f"  {'#':>3}  {head}  {'games':>5}  {'W-D-L':>8}  {'goals':>7}  {'points (95% CI)':<16}  "
             f"goal difference per game (95% CI)"]
    for r in results:
        h = r.stats
        values = "  ".join(f"{r.combo[p]:<{w}}" for p, w in zip(params, widths, strict=False))
        points, diff = _interval(h)
        mark = "*" if r is top else " "
        failed = f"  ({r.failed} failed)" if r.failed else ""
        lines.append(f"{mark} {r.index:>3}  {values}  {h.games:>5}  {f'{h.wins}-{h.draws}-{h.losses}':>8}  "
                     f"{f'{h.goals_for}:{h.goals_against}':>7}  {points:<16}  {diff}{failed}")
    lines.append(LEGEND)
    warning = _all_play_time(results)
    if warning is not None and warning.warning is not None:
        lines.append(warning.warning)
    return lines


def _all_play_time(results: list[ComboResult]) -> PlayTime | None:
    """The PLAYING time of every game of the sweep."""
    return play_time(o for r in results for o in r.outcomes)


def _verdict(results: list[ComboResult], top: ComboResult) -> str:
    """Whether the best's points interval is clear of the others'."""
    close = [r.index for r in results if r is not top and r.stats.games and r.stats.points_high >= top.stats.points_low]
    if not close:
        return "its points interval is clear of every other combination's"
    shown = ", ".join(f"#{k}" for k in close[:8]) + (" ..." if len(close) > 8 else "")
    return f"its points interval overlaps that of {shown}: more seeds would tell them apart"


def sweep(args: argparse.Namespace) -> int:
    """The ``sweep`` command."""
    err = sys.stderr
    tree = tree_or_default(args.tree)
    for path, flag in ((tree, "--tree"), (Path(args.opponent_tree) if args.opponent_tree else None, "--opponent-tree")):
        if path is not None and not path.is_file():
            print(f"soccerbt sweep: {path}: {'is a directory' if path.is_dir() else 'no such tree file'} ({flag})",
                  file=err)
            return 1
    problem = runner_problem(args)
    if problem is not None:
        print(f"soccerbt sweep: {problem}", file=err)
        return 2
    keys = [p.key for p in args.param]
    if len(set(keys)) != len(keys):
        print(f"soccerbt sweep: a --param is given twice: {sorted(k for k in set(keys) if keys.count(k) > 1)[0]}",
              file=err)
        return 2
    try:
        editor = TreeEditor(tree, node_plugins=args.nodes)
        for p in args.param:
            editor.matches(p)
        combos = combinations(args.param, args.random, args.random_seed)
    except (TreeLoadError, PluginError) as exc:
        print(f"soccerbt sweep: {exc}", file=err)
        return 1
    except SweepError as exc:
        print(f"soccerbt sweep: {exc}", file=err)
        return 2
    inputs = [str(tree), *tree_inputs(args.opponent_tree or str(tree))]
    planned: list[Path] = []
    try:
        if args.best_out:
            planned = [target for _rel, target in plan_best(editor, combos[0], Path(args.best_out), inputs)]
    except SweepError as exc:
        print(f"soccerbt sweep: {exc}", file=err)
        return 2
    if args.json:
        problem = check_output_path(args.json, [*inputs, *(f.path for f in editor.files)])
        if problem is not None:
            print(f"soccerbt sweep: {problem} (--json)", file=err)
            return 2
        for target in planned:
            if same_file(args.json, target):
                flag = "--best-out" if target == planned[0] else f"--best-out (its include {target})"
                print(f"soccerbt sweep: {args.json}: given to both {flag} and --json", file=err)
                return 2
    base = shape_from_args(args)
    colours = _colour_mode(args)
    with tempfile.TemporaryDirectory(prefix="soccerbt-sweep-check-") as tmp:
        try:  # a value the loader refuses is reported once, before any worker starts
            first = editor.write_variant(Path(tmp), combos[0])
            Match(plan_games(base, [args.seeds[0]], str(first), args.opponent_tree or str(tree), colours)[0].config)
        except Exception as exc:
            print(f"soccerbt sweep: {combo_text(combos[0])}: {exc}", file=err)
            return 1
    total = len(combos) * len(plan_games(base, args.seeds, None, None, colours))
    jobs = args.jobs or default_jobs()
    print(f"soccerbt sweep: {len(combos)} combination(s) x {total // len(combos)} game(s) = {total} games",
          file=err)
    bar = ProgressBar(total, 0, err) if use_progress_bar(args, err) else None

    def on_done(outcome: GameOutcome, finished: int, all_games: int) -> None:
        if bar is not None:
            bar.done(outcome)
        elif not args.quiet or outcome.result is None:
            r = outcome.result
            what = f"{r.score['blue']}:{r.score['red']}" if r else f"failed: {(outcome.error or '').splitlines()[0]}"
            print(f"[{finished}/{all_games}] seed {outcome.game.seed} {outcome.game.blue} blue: {what}", file=err,
                  flush=True)

    def on_retry(game, reason: str) -> None:  # noqa: ANN001 - a BatchGame
        line = f"soccerbt sweep: seed {game.seed}: {reason}; playing it again"
        bar.write(line) if bar is not None else print(line, file=err)

    terminated: list[int] = []

    def on_sigterm(signum: int, _frame: object) -> None:
        terminated.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    wall_start = time.perf_counter()
    try:
        results = run_sweep(editor, combos, base, args.seeds, args.opponent_tree, colours, jobs, on_done=on_done,
                            backend=args.backend, address=args.address, on_retry=on_retry,
                            game_timeout_s=args.game_timeout or default_game_timeout_s(base))
    except BatchInterrupted as stop:
        if bar is not None:
            bar.close()
            bar = None
        print(f"soccerbt sweep: {'terminated' if terminated else 'interrupted'}: {len(stop.outcomes)} of {total} "
              "games finished; no best tree written", file=err)
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    except BackendError as exc:
        print(f"soccerbt sweep: {exc}", file=err)
        return 2
    finally:
        if bar is not None:
            bar.close()
        signal.signal(signal.SIGTERM, previous)
    top = best(results)
    for line in table_lines(results, args.param, top):
        print(line)
    print(f"{total} games in {time.perf_counter() - wall_start:.1f} s", file=err)
    status = 1 if any(r.failed for r in results) else 0
    if top is None:
        print("no combination has a game played: no best", file=err)
        return 1
    print(f"best: #{top.index} {combo_text(top.combo)}: {top.stats.sentence()}; {_verdict(results, top)}")
    if args.best_out:
        try:
            written = write_best(editor, top.combo, args.best_out, inputs)
        except (SweepError, OSError) as exc:
            print(f"soccerbt sweep: {exc}", file=err)
            return 2
        problems = editor.factory.validate_file(written[0])
        for p in problems:
            print(f"soccerbt sweep: {p}", file=err)
        print(f"soccerbt sweep: best tree written to {', '.join(map(str, written))}", file=err)
        status = status or (1 if problems else 0)
    if args.json:
        summary = {"tree": str(tree), "opponent": args.opponent_tree or str(tree), "seeds": args.seeds,
                   "colours": colours, "params": keys, "search": "random" if args.random else "grid",
                   "combinations": [r.to_dict() for r in results], "best": top.index}
        played = _all_play_time(results)
        summary["play_time"] = None if played is None else played.to_dict()
        try:
            write_atomically(Path(args.json), json.dumps(summary, indent=1) + "\n")
        except OSError as exc:
            print(f"soccerbt sweep: {args.json}: not written ({exc.strerror or exc}) (--json)", file=err)
            return 2
    return status
