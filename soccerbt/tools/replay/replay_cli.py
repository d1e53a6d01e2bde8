"""``soccerbt replay FILE``: a recorded run (``soccerbt run --record FILE.mcap``) tick by tick.

Without options the replay window opens (``mcap_view``: the field as ``soccerbt view`` draws
it, the timeline, each robot's whole tree and blackboard; its keys are in that module's
docstring). Without a window: ``--info`` prints the header and a summary, ``--robot blue2
[--from S] [--to S]`` that robot's ticks, ``--screenshot OUT.png [--at T]`` saves the frame at T
(default: the last tick) off-screen; the tree tools ``--tree``/``--json``/``--tick``, ``--node
NAME --transitions``, ``--find CONDITION``, ``--btlog OUT`` and ``soccerbt replay diff A.mcap
B.mcap`` are in ``tree_tools`` and ``log_diff``; ``--verify`` is ``soccerbt.resim.verify``. ``soccerbt replay
FOLDER [--json]`` lists a folder's logs (``soccerbt.log.listing``); ``--robot R --rerun [--tree
NEW.xml] [--from S] [--to S] [--out NEW.mcap]`` re-runs a robot's brain on its recorded inputs
(``soccerbt.resim.rerun``); ``--connect HOST:PORT`` opens the viewer on a live stream
(``connect``); ``--robot R --groot [[HOST:]PORT]`` serves R's recorded tree to Groot2 as the
replay plays (``groot_replay``: the window, or headless without a display).

MCAP is the one log format, and every format soccerbt has written opens. ``soccerbt replay
convert OLD NEW.mcap`` writes an older log in the current format: a JSON-lines log of an earlier
soccerbt (``soccerbt.log.convert``; given to ``soccerbt replay`` such a log is refused with that
command line), or an MCAP log of format 1 (``soccerbt.log.upgrade``: for Foxglove and other MCAP
tools; soccerbt itself reads format 1 as it is). ``soccerbt replay derive LOG.mcap FULL.mcap``
writes the full log of one recorded with ``--record-mode inputs`` (``soccerbt.resim.derive``);
every other reader of such a log derives it as it opens it. (A log literally named ``diff``,
``convert`` or ``derive`` is given as ``./diff``.) Exit codes: 0 done, 1 a usage problem or
``diff``: the runs differ, 2 a bad log or output (``path: what is wrong``, one line); a log cut
short replays up to its last whole chunk, with a warning.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from soccerbt.cli.display import display_available
from soccerbt.cli.outputs import RECORD_SUFFIX, check_output_path, same_file, screenshot_name_problem, tree_inputs
from soccerbt.log import format as lf
from soccerbt.log.convert import convert_log, looks_like_jsonl
from soccerbt.log.format import ReplayError
from soccerbt.log.listing import list_command
from soccerbt.log.reader import BUDGET_RATIO, McapLog, is_mcap
from soccerbt.log.upgrade import upgrade_log
from soccerbt.tools.replay import tree_tools as tt
from soccerbt.tools.replay.connect import connect_command
from soccerbt.tools.replay.log_diff import MAX_CHANGES, diff_logs
from soccerbt.tools.replay.truth import robot_truth
from soccerbt.trees.errors import TreeLoadError
from soccerbt.trees.plugins import PluginError, add_nodes_option

EXIT_BAD_LOG = 2
MIN_SPEED, MAX_SPEED = 0.01, 20.0


def parse_speed(text: str) -> float:
    """A playback speed: a real-time factor in [0.01, 20]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"speed must be a number, got {text!r}") from None
    if not MIN_SPEED <= value <= MAX_SPEED:
        raise argparse.ArgumentTypeError(f"speed must be within {MIN_SPEED:g}..{MAX_SPEED:g}, got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not value >= 0.0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"expected a time of 0 s or more, got {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, got {text!r}")
    return value


def _groot_type(text: str) -> tuple[str, int]:
    # deferred: start-up: the Groot2 module (and the node registry it loads) only with --groot
    from soccerbt.tools.replay.groot_replay import groot_type

    return groot_type(text)


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``soccerbt replay``."""
    parser.add_argument("file", metavar="FILE", nargs="?", default=None,
                        help="MCAP replay log written by soccerbt run --record FILE.mcap (a folder: its logs "
                             "listed: time, robot, tree, duration, score); 'diff' compares two: "
                             "soccerbt replay diff A.mcap B.mcap; 'convert' turns a JSON-lines log of an earlier "
                             "soccerbt into MCAP: soccerbt replay convert OLD.jsonl[.gz] NEW.mcap; 'derive' "
                             "writes the full log of one recorded with --record-mode inputs: soccerbt replay "
                             "derive LOG.mcap FULL.mcap")
    parser.add_argument("other", metavar="B", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--tick", type=int, default=None, metavar="N",
                        help="with --robot: after the robot's N-th tick (from 1), instead of --at")
    parser.add_argument("--tree", nargs="?", const=True, default=False, metavar="NEW.xml",
                        help="with --robot: the tree with each node's status and the blackboard at --at/--tick; "
                             "with --rerun: the tree to re-run the robot's brain with (default: the recorded one)")
    parser.add_argument(
        "--rerun",
        action="store_true",
        help="with --robot: feed the robot's recorded inputs to a fresh brain (open loop) and report "
        "where its statuses, decisions, reasons and commands first differ (together, then each kind with its "
        "time and node), how often, and its decision changes; exit 1 if they do",
    )
    parser.add_argument("--max-changes", type=_count, default=MAX_CHANGES, metavar="N",
                        help=f"with --rerun and diff: list the first N decision changes (default {MAX_CHANGES}; "
                             "the rest are counted)")
    parser.add_argument("--out", metavar="NEW.mcap", default=None,
                        help="with --rerun: write the log with the robot's part re-run (for replay diff, the viewer)")
    parser.add_argument("--json", action="store_true", help="with --tree: one JSON object")
    parser.add_argument("--node", metavar="NAME", default=None,
                        help="with --robot and --transitions: the node: #UID or its path picks one; a name, ID "
                             "or path end names every node that has it")
    parser.add_argument("--transitions", action="store_true",
                        help="with --robot and --node: every status change of that node; repeats in "
                             "consecutive ticks collapse into runs")
    parser.add_argument("--raw", action="store_true",
                        help="with --transitions: one line per transition, no runs")
    parser.add_argument("--find", metavar="CONDITION", default=None,
                        help="time ranges where a condition holds, e.g. \"blue2: decision == 'kick'\", "
                             "\"blue2: KickBall == SUCCESS\", \"blue2: StrikerDecision.reason ~ 'reach'\"")
    parser.add_argument("--btlog", metavar="OUT.btlog", default=None,
                        help="with --robot: export BT.CPP's FileLogger2 format for Groot2")
    parser.add_argument("--verify", action="store_true",
                        help="re-run the match from the log and report the first step that differs")
    parser.add_argument("--at", type=_seconds, default=None, metavar="SECONDS",
                        help="start position in simulated seconds (default: the start; --screenshot: the end)")
    parser.add_argument("--speed", type=parse_speed, default=1.0, help="playback speed 0.01..20 (default 1)")
    parser.add_argument("--paused", action="store_true", help="open paused")
    parser.add_argument("--select", metavar="ROBOT", default=None, help="robot selected at start, e.g. blue2")
    parser.add_argument("--screenshot", metavar="PNG", default=None,
                        help="save the frame at --at (default: the last tick) as PNG and exit; no window needed")
    parser.add_argument("--info", action="store_true", help="print the header and a summary, no window")
    parser.add_argument("--connect", metavar="HOST:PORT", default=None,
                        help="open the replay viewer on a live stream (run, view, brain --live), following the "
                             "live edge; the last --buffer-minutes stay buffered (END returns to live)")
    parser.add_argument("--buffer-minutes", type=float, default=5.0, metavar="M",
                        help="with --connect: minutes of the stream kept to step back into (default 5)")
    parser.add_argument("--buffer-mb", type=float, default=512.0, metavar="MB",
                        help="with --connect: at most this much of the stream kept (the oldest seconds go first; "
                             "default 512)")
    # the const is soccerbt.groot's DEFAULT_HOST and DEFAULT_PORT (BT.CPP's), written out: start-up
    parser.add_argument("--groot", type=_groot_type, nargs="?", const=("127.0.0.1", 1667), default=None,
                        metavar="[HOST:]PORT",
                        help="with --robot: serve ROBOT's recorded tree, statuses and root blackboard to "
                             "Groot2's monitor at PORT (default 1667) as the replay plays: in the window (ROBOT "
                             "selected), or without a display headless at --speed from --at, then holding the "
                             "end until Ctrl+C; hook requests are refused; needs soccerbt[groot]; binds "
                             "127.0.0.1 unless HOST is given")
    parser.add_argument("--robot", metavar="ROBOT", default=None,
                        help="print ROBOT's per-tick records (pose, command, status, blackboard changes)")
    parser.add_argument("--from", dest="from_s", type=_seconds, default=None, metavar="SECONDS",
                        help="with --robot: first simulated second (default: the start)")
    parser.add_argument("--to", dest="to_s", type=_seconds, default=None, metavar="SECONDS",
                        help="with --robot: last simulated second (default: the end)")
    add_nodes_option(parser)  # a team's own nodes for the re-runs: --rerun, --verify, derive
    # the derive cache of soccerbt 0.1: accepted, no effect (a log is a record now; CHANGELOG 0.2.0)
    parser.add_argument("--cache-dir", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--cache-mb", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--no-cache", action="store_true", help=argparse.SUPPRESS)
    parser.set_defaults(func=replay)


def replay(args: argparse.Namespace) -> int:
    """The ``replay`` command: 0 done, 1 a usage problem (or ``diff``: the runs differ), 2 a bad log."""
    err = sys.stderr
    if args.connect is not None:
        return connect_command(args, err)
    if args.file is None and isinstance(args.tree, str) and not args.rerun:  # replay --tree LOG: --tree prints
        args.file, args.tree = args.tree, True
    if args.file is None:
        print("soccerbt replay: give a log (or a folder of logs): soccerbt replay FILE", file=err)
        return EXIT_BAD_LOG
    if isinstance(args.tree, str) and not args.rerun:
        print(f"soccerbt replay: --tree {args.tree}: a tree file goes with --rerun (--tree alone prints the tree)",
              file=err)
        return EXIT_BAD_LOG
    if args.out and not args.rerun:
        print("soccerbt replay: --out goes with --rerun", file=err)
        return EXIT_BAD_LOG
    if args.file == "convert":
        return _convert(args, err)
    if args.file == "derive":
        return _derive(args, err)
    if args.file == "diff" or args.other:
        return _diff(args, err)
    if os.path.isdir(args.file):  # a folder: its logs, one line each

        return list_command(args, sys.stdout, err)
    problem = _output_problem(args)
    if problem is not None:
        print(f"soccerbt replay: {problem}", file=err)
        return EXIT_BAD_LOG
    if args.from_s is not None and args.to_s is not None and args.from_s > args.to_s:
        print(f"soccerbt replay: --from {args.from_s:g} is after --to {args.to_s:g}: nothing to show", file=err)
        return 1

    if not is_mcap(args.file) and looks_like_jsonl(args.file):
        print(f"soccerbt replay: {args.file}: a JSON-lines replay log of an earlier soccerbt; replay reads MCAP "
              f"logs only: convert it once with soccerbt replay convert {args.file} {_mcap_name(args.file)}",
              file=err)
        return EXIT_BAD_LOG
    return _replay_mcap(args, err)


def _output_problem(args: argparse.Namespace) -> str | None:
    """Why --screenshot or --btlog cannot be written (checked before the log is read), or None:
    the name (.png, .btlog), the folder, the log itself, both naming one file."""
    if getattr(args, "out", None):
        tree = args.tree if isinstance(args.tree, str) else None
        problem = check_output_path(args.out, [args.file, *(tree_inputs(tree, default=False) if tree else [])],
                                    stream_ok=False)
        if problem is None and not args.out.endswith(RECORD_SUFFIX):
            problem = f"{args.out}: the re-run's log is MCAP: its name must end in {RECORD_SUFFIX}"
        if problem is not None:
            return f"{problem} (--out)"
    named = [(path, flag) for path, flag in ((args.screenshot, "--screenshot"), (args.btlog, "--btlog")) if path]
    for path, flag in named:
        problem = check_output_path(path, [args.file])
        if problem is None:
            problem = screenshot_name_problem(path) if flag == "--screenshot" else (
                None if path.endswith(".btlog") else
                f"{path}: a Groot2 log's name must end in .btlog (Groot2 opens no other)")
        if problem is not None:
            return f"{problem} ({flag})"
    if len(named) == 2 and same_file(named[0][0], named[1][0]):
        return f"{named[1][0]}: given to both --screenshot and --btlog"
    return None


def _mcap_name(path: str) -> str:
    """run.jsonl.gz -> run.mcap: the name convert suggests."""
    name = Path(path)
    for suffix in (".gz", ".jsonl", ".json"):
        if name.suffix == suffix:
            name = name.with_suffix("")
    return str(name.with_suffix(".mcap") if name.suffix else name.with_name(name.name + ".mcap"))


def _in_and_out(args: argparse.Namespace, err: TextIO, command: str, usage: str, what: str) -> tuple[str, str] | int:
    """(the log read, the MCAP log written) of ``replay convert`` and ``replay derive``, checked:
    two names, the output's a ``.mcap`` one that overwrites no input; else the exit code (said)."""
    if len(args.other) != 2:
        print(f"soccerbt replay {command}: give {usage}", file=err)
        return 1
    src, dst = args.other
    if not dst.endswith(RECORD_SUFFIX):
        print(f"soccerbt replay {command}: {dst}: the {what} log is MCAP: its name must end in {RECORD_SUFFIX}",
              file=err)
        return EXIT_BAD_LOG
    problem = check_output_path(dst, [src], stream_ok=False)
    if problem is not None:
        print(f"soccerbt replay {command}: {problem}", file=err)
        return EXIT_BAD_LOG
    return src, dst


def _convert(args: argparse.Namespace, err: TextIO) -> int:
    """``soccerbt replay convert OLD.jsonl[.gz] NEW.mcap``: 0 written, 1 a usage problem, 2 a
    bad old log or an output that cannot be written (nothing is written then)."""
    names = _in_and_out(args, err, "convert", "the old log and the new one: soccerbt replay convert "
                                              "OLD.jsonl[.gz] NEW.mcap", "converted")
    if isinstance(names, int):
        return names
    old, new = names
    if is_mcap(old):
        return _upgrade(old, new, err)
    try:
        done = convert_log(old, new)
    except ReplayError as exc:
        print(str(exc), file=err)
        return EXIT_BAD_LOG
    except OSError as exc:
        print(f"soccerbt replay convert: {new}: cannot write ({exc.strerror or exc})", file=err)
        return EXIT_BAD_LOG
    for w in done.warnings:
        print(f"warning: {w}", file=err)
    print(f"soccerbt replay convert: {old} -> {new}: {done.steps} steps ({done.duration_s:.2f} s simulated), "
          f"{done.events} events; no node data (root statuses, truth, blackboard, events)", file=err)
    return 0


def _upgrade(old: str, new: str, err: TextIO) -> int:
    """``soccerbt replay convert OLD.mcap NEW.mcap``: an MCAP log of an older format written in
    the current one; 0 written, 2 a log that is no older MCAP log or an output that cannot be
    written."""
    try:
        log = McapLog.open(old)
        if log.format_version == lf.FORMAT_VERSION:
            print(f"soccerbt replay convert: {old}: already of the current log format ({lf.FORMAT_VERSION}): "
                  "nothing to convert", file=err)
            return EXIT_BAD_LOG
        if log.format_version != 1:  # format 2 holds what format 3 does but the trees' defaults
            print(f"soccerbt replay convert: {old}: log format {log.format_version} is read as it is (its trees "
                  "lack only the ports' defaults, which no later tool can know): nothing to convert", file=err)
            return EXIT_BAD_LOG
        steps, notes = upgrade_log(log, Path(new))
    except ReplayError as exc:
        print(str(exc), file=err)
        return EXIT_BAD_LOG
    except OSError as exc:
        print(f"soccerbt replay convert: {new}: cannot write ({exc.strerror or exc})", file=err)
        return EXIT_BAD_LOG
    for note in notes:
        print(f"note: {note}", file=err)
    print(f"soccerbt replay convert: {old} (log format {log.format_version}) -> {new} (log format "
          f"{lf.FORMAT_VERSION}): {steps} steps", file=err)
    return 0


def _derive(args: argparse.Namespace, err: TextIO) -> int:
    """``soccerbt replay derive LOG FULL.mcap``: 0 written whole; 1 a usage problem, or written up
    to a step that did not reproduce (said, with why); 2 a log that cannot be derived or an output
    that cannot be written (nothing is written then)."""
    # deferred: start-up: the re-run modules import the brains (scipy, shapely: 0.6 s of the 1.0 s
    # `soccerbt replay --help` took with them at the top); reading a log needs none of them
    from soccerbt.resim.derive import derive_log

    names = _in_and_out(args, err, "derive", "the inputs-only log and the full one to write: soccerbt replay "
                                             "derive LOG.mcap FULL.mcap", "derived")
    if isinstance(names, int):
        return names
    src, dst = names
    try:
        log = McapLog.open(src)
        done = derive_log(log, Path(dst), node_plugins=args.nodes)
    except (ReplayError, TreeLoadError) as exc:
        print(str(exc), file=err)
        return EXIT_BAD_LOG
    except PluginError as exc:
        print(f"soccerbt replay derive: {exc}", file=err)
        return 2
    except OSError as exc:
        print(f"soccerbt replay derive: {exc.filename or dst}: {exc.strerror or exc}", file=err)
        return EXIT_BAD_LOG
    for note in done.notes:
        print(f"note: {note}", file=err)
    fed = f" (fed the run's earlier segments first: {', '.join(p.name for p in done.segments_fed)})" \
        if done.segments_fed else ""
    print(f"soccerbt replay derive: {src} -> {dst}: {done.steps} steps of {', '.join(done.robots)} re-run from their "
          f"inputs{fed}; every node's status, the blackboard and the reasons written", file=err)
    if done.stopped is not None:
        print(f"soccerbt replay derive: stopped at {done.stopped}", file=err)
        return 1
    return 0


def _readable(log, budget_ratio: int | None, err: TextIO, args: argparse.Namespace):  # noqa: ANN001, ANN202
    """`log`, or for an inputs-only log (``--record-mode inputs``) its full log derived now
    (``derive.derived_for_reading``: every reader works on it; lines on `err` say so)."""
    if log.node_data:  # a full record (every log since 0.2): nothing to derive
        return log
    # deferred: start-up: the re-run modules import the brains (scipy, shapely: 0.6 s of the 1.0 s
    # `soccerbt replay --help` took with them at the top); reading a full log needs none of them
    from soccerbt.resim.derive import derived_for_reading, is_inputs_only

    if not is_inputs_only(log):
        return log
    return derived_for_reading(log, budget_ratio, err, node_plugins=args.nodes)


def _diff(args: argparse.Namespace, err: TextIO) -> int:
    files = args.other if args.file == "diff" else [args.file, *args.other]
    if len(files) != 2:
        print("soccerbt replay diff: give two MCAP logs: soccerbt replay diff A.mcap B.mcap", file=err)
        return EXIT_BAD_LOG
    a = b = None
    try:
        a = _readable(McapLog.open(files[0], budget_ratio=BUDGET_RATIO), BUDGET_RATIO, err, args)
        b = _readable(McapLog.open(files[1], budget_ratio=BUDGET_RATIO), BUDGET_RATIO, err, args)
        lines = diff_logs(a, b, max_changes=args.max_changes)
    except (ReplayError, TreeLoadError) as exc:
        print(str(exc), file=err)
        for opened in (a, b):
            if opened is not None:
                opened.close()
        return EXIT_BAD_LOG
    for w in a.warnings + b.warnings:
        print(f"warning: {w}", file=err)
    if not lines:
        print(f"identical: {files[0]} and {files[1]} ({a.last_step} steps)")
        return 0
    for line in lines:
        print(line)
    return 1 if any(not line.startswith("note:") for line in lines) else 0


def _replay_mcap(args: argparse.Namespace, err: TextIO) -> int:
    """The MCAP tools: --info, --tree/--json, --transitions, --find, --btlog, --verify, the viewer;
    warnings found while working (damage found late) and the missing time ranges at the end."""
    log = None
    shown = 0

    def damage_found_while_working() -> None:  # say it, and what is missing
        for w in log.warnings[shown:]:
            print(f"warning: {w}", file=err)
        for gap in log.gaps:
            print(f"warning: {args.file}: {gap.text(log.dt_s)}", file=err)

    try:
        budget = None if _opens_window(args) else BUDGET_RATIO
        log = McapLog.open(args.file, budget_ratio=budget)
        if not args.info:  # --info tells what the log is; everything else reads node data
            log = _readable(log, budget, err, args)
        for w in log.warnings:
            print(f"warning: {w}", file=err)
        shown = len(log.warnings)
        code = _tools(log, args, err)
        damage_found_while_working()
        return code
    except (ReplayError, TreeLoadError) as exc:  # TreeLoadError: deriving an inputs-only log
        if log is not None:
            damage_found_while_working()
        print(str(exc), file=err)
        return EXIT_BAD_LOG
    except PluginError as exc:  # --nodes for a re-run
        print(f"soccerbt replay: {exc}", file=err)
        return 2
    except BrokenPipeError:  # the reader went away (| head): stop quietly, as text tools do
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - nothing more reaches the pipe
        except OSError:
            pass
        return 0
    except OSError as exc:
        print(f"soccerbt replay: {exc}", file=err)
        return EXIT_BAD_LOG
    finally:
        if log is not None:
            log.close()


def _opens_window(args: argparse.Namespace) -> bool:
    """Whether the command is the interactive viewer (no budget: a session seeks at will)."""
    if getattr(args, "groot", None) is not None:
        return True   # --robot R --groot: the window follows the robot (headless without a display)
    return not (args.tree or args.node or args.transitions or args.find or args.btlog or args.verify or args.rerun
                or args.tick is not None or args.info or args.robot is not None or args.screenshot)


def _tools(log, args: argparse.Namespace, err: TextIO) -> int:  # noqa: ANN001 - an McapLog
    """--info, --tree/--json, --transitions, --find, --btlog, --verify, --robot, the viewer."""

    if args.rerun:
        from soccerbt.resim.rerun import rerun_command  # deferred: start-up (as in _derive)

        return rerun_command(log, args, sys.stdout, err)
    if args.robot is not None:
        log.check_robot(args.robot)
    if args.groot is not None:
        return _groot(log, args, err)
    if args.tree or args.node or args.transitions or args.find or args.btlog or args.verify \
            or args.tick is not None:
        log.require_node_data()
    if args.verify:
        from soccerbt.resim.verify import verify_log  # deferred: start-up (as in _derive)

        ok, lines = verify_log(log, node_plugins=args.nodes)
        for line in lines:
            print(line)
        return 0 if ok else 1
    if args.find is not None:
        notes: list[str] = []
        which: list[str] = []
        try:
            ranges = tt.find_ranges(log, args.find, notes, which)
        except ReplayError:
            raise
        except ValueError as exc:  # a condition it cannot match: a usage error
            print(f"soccerbt replay: --find: {exc}", file=err)
            return 2
        for note in notes:
            print(f"note: {note}", file=err)
        for (t0, t1, k0, k1), nodes in zip(ranges, which, strict=True):
            print(f"{t0:.2f}-{t1:.2f}s  ticks {k0}-{k1}" + (f"  ({nodes})" if nodes else ""))
        print(f"{len(ranges)} range(s)", file=err)
        return 0
    needs_robot = args.tree or args.transitions or args.btlog or args.tick is not None
    if needs_robot and args.robot is None:
        print("soccerbt replay: --tree, --tick, --transitions and --btlog go with --robot ROBOT", file=err)
        return 1
    for value, flag in ((args.from_s, "--from"), (args.to_s, "--to")):
        if value is not None and value > log.duration_s + 1e-9 and (args.robot is not None or args.transitions):
            print(f"{args.file}: {flag} {value:g}s is after the end of the log ({log.duration_s:.2f}s)", file=err)
            return 1
    if args.btlog:
        count, notes = tt.export_btlog(log, args.robot, Path(args.btlog))
        for note in notes:
            print(f"warning: {note}", file=err)
        print(f"soccerbt replay: {count} transitions of {args.robot} written to {args.btlog}", file=err)
        return 0
    if args.transitions:
        if not args.node:
            print("soccerbt replay: --transitions needs --node NAME", file=err)
            return 1
        first = log.step_at(args.from_s) if args.from_s is not None else log.first_step
        last = log.step_at(args.to_s) if args.to_s is not None else None
        notes = []
        for line in tt.transition_lines(log, args.robot, args.node, first, last, raw=args.raw, notes=notes):
            print(line)
        for note in notes:
            print(f"note: {note}", file=err)
        return 0
    if args.tree or args.tick is not None or (args.robot is not None and args.at is not None):
        if args.tick is not None:
            step = tt.step_of_tick(log, args.robot, args.tick)
        else:
            at = args.at if args.at is not None else log.duration_s
            if at > log.duration_s + 1e-9:
                print(f"{args.file}: t={at:g}s is after the end of the log ({log.duration_s:.2f}s)", file=err)
                return 1
            step = log.step_at(at)
        state = log.robot_state(args.robot, step)
        t_s = step * log.dt_s
        truth = robot_truth(log, args.robot, step, state)
        if args.json:
            print(json.dumps(tt.tree_json(state, t_s, truth), separators=(",", ":")))
        else:
            for line in tt.tree_lines(state, t_s, truth):
                print(line)
        return 0
    if args.info:
        for line in tt.info_lines(log):
            print(line)
        return 0
    if args.robot is not None:
        first = log.step_at(args.from_s) if args.from_s is not None else log.first_step
        last = log.step_at(args.to_s) if args.to_s is not None else None
        gaps: list = []
        for view in log.steps(first, last, on_gap=gaps.append):
            while gaps:
                print(gaps.pop(0).text(log.dt_s))
            rec = view.ticks[args.robot]
            print(f"t={view.truth.t_s:.2f}s tick {rec.tick} root {lf.status_name(rec.root)} "
                  f"transitions {len(rec.transitions)} bb {json.dumps(rec.blackboard, separators=(',', ':'))}")
        for gap in gaps:
            print(gap.text(log.dt_s))
        return 0
    return _view_mcap(log, args, err)


def _groot(log, args: argparse.Namespace, err: TextIO) -> int:  # noqa: ANN001 - an McapLog
    """``--robot R --groot``: R served to Groot2 as the replay plays (``groot_replay``); 1 without
    --robot or the groot extra, or when the port cannot be bound."""
    # deferred: start-up: the Groot2 modules only with --groot
    from soccerbt.groot import GrootUnavailable
    from soccerbt.tools.replay import groot_replay
    from soccerbt.tools.replay.mcap_source import McapReplaySource

    if args.robot is None:
        print("soccerbt replay: --groot serves one robot: give --robot ROBOT", file=err)
        return 1
    log.require_node_data()
    host, port = args.groot
    try:
        publisher, _endpoint = groot_replay.serve_recorded(log, args.robot, host, port, err=err)
    except GrootUnavailable as exc:
        print(f"soccerbt replay: --groot: {exc}", file=err)
        return 1
    on_frame = groot_replay.follow(publisher, args.robot)
    try:
        if display_available():
            args.select = args.robot
            return _view_mcap(log, args, err, on_frame=on_frame)
        source = McapReplaySource(log)
        if args.at is not None:
            source.seek_time(args.at)
        print("soccerbt replay: no display: playing headless (Ctrl+C stops)", file=err)
        try:
            groot_replay.play_headless(source, on_frame, speed=args.speed, paused=args.paused)
        except KeyboardInterrupt:
            pass
        return 0
    finally:
        publisher.close()


def _view_mcap(log, args: argparse.Namespace, err: TextIO,  # noqa: ANN001
               on_frame: Callable[[Any], None] | None = None) -> int:
    try:
        # deferred: start-up: the viewer (pygame) only when a window opens
        from soccerbt.tools.replay import mcap_view
    except ImportError:
        print("soccerbt replay: the MCAP viewer is not available in this build", file=err)
        return 1
    if args.screenshot:
        saved = mcap_view.save_mcap_screenshot(log, args.screenshot, at_s=args.at, select=args.select, node=args.node)
        print(f"soccerbt replay: saved to {saved}", file=err)
        return 0
    if not display_available():
        print("soccerbt replay: no display (set DISPLAY, or SDL_VIDEODRIVER=dummy; the text tools need none)",
              file=err)
        return 1
    return mcap_view.view_mcap(log, at_s=args.at, speed=args.speed, select=args.select, paused=args.paused,
                               on_frame=on_frame)
