"""``soccerbt run``: play a simulated match with our trees (or any others), headless or viewed.

Without ``--headless`` the pygame viewer opens when a display exists (DISPLAY or
WAYLAND_DISPLAY, or an explicit SDL_VIDEODRIVER) and the viewer module is installed; otherwise
the match runs headless. Headless runs print a progress line to stderr and a final summary
(score, goals with times, per robot: distance walked, falls, kicks, penalties, localization
error, node exceptions); ``--json`` prints one summary object on stdout instead. The match
itself never reads the wall clock; only this tool measures ``wall_s`` and paces ``--realtime``.

This command sits on top of ``soccerbt.tools``: it plays the match, opens the viewer
(``tools.viewer``) and records the log (``tools.replay``); the options and summaries it shares
with the other commands are in ``tools.cli``.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from typing import Any, TextIO

from soccerbt.cli.display import display_available, pygame_error
from soccerbt.cli.match_options import add_match_arguments, config_from_args
from soccerbt.cli.outputs import check_outputs
from soccerbt.cli.summary import print_summary, progress_line, result_json
from soccerbt.drivers.gamepad import parse_robot_key
from soccerbt.drivers.pad_devices import PadManager
from soccerbt.groot.robots import GrootUnavailable, add_groot_argument, close_all, serve_match
from soccerbt.live.server import (
    LiveUnavailable,
    add_live_argument,
    add_record_mode_argument,
    record_and_stream,
    record_mode_problem,
)
from soccerbt.match import Match

PROGRESS_PERIOD_S = 10.0  # simulated seconds between progress lines


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``soccerbt run``."""
    parser.add_argument("--headless", action="store_true", help="no viewer, as fast as possible")
    add_match_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one summary object on stdout")
    parser.add_argument("--record", metavar="FILE", default=None,
                        help="write the replay log, an MCAP file: its name ends in .mcap (every node, for "
                             "soccerbt replay; another name is refused before the match, exit 2)")
    add_record_mode_argument(parser)
    parser.add_argument("--realtime", action="store_true", help="pace a headless run to simulated time")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument("--screenshot", metavar="PNG", default=None,
                        help="save the viewer's picture of the last moment as PNG (works headless)")
    add_live_argument(parser)
    add_groot_argument(parser)
    parser.set_defaults(func=run)


def _viewer_entry() -> Any:
    """The viewer's match entry point (``view_match(match, ...)``), or None when absent."""
    try:
        module = importlib.import_module("soccerbt.tools.viewer.viewer")
    except ImportError:
        return None
    return getattr(module, "view_match", None)


def run(args: argparse.Namespace) -> int:
    """The ``run`` command; exit code 0, 1 when the match could not start, 2 a bad output path."""
    err = sys.stderr
    problem = check_outputs(args, ("record", "screenshot")) or record_mode_problem(args, bool(args.record))
    if problem is not None:
        print(f"soccerbt run: {problem}", file=err)
        return 2
    try:
        config = config_from_args(args)
        pads, pad_robots = _pads(args.pad)
        match = Match(config, pads=pads, pad_robots=pad_robots)
    except Exception as exc:  # a broken tree prints path:line: message
        print(f"soccerbt run: {exc}", file=err)
        return 1
    for robot in pad_robots or ():
        if robot not in match.agents:
            print(f"soccerbt run: --pad {args.pad}: no such robot in this match "
                  f"(robots: {', '.join(str(r) for r in match.agents)})", file=err)
            return 1
    try:
        live, recorder = record_and_stream(match, args.record, args.live, err, args.record_mode)
    except LiveUnavailable as exc:
        print(f"soccerbt run: --live: {exc}", file=err)
        return 1
    publishers, endpoints = [], []
    if args.groot is not None:
        try:
            publishers, endpoints = serve_match(match, *args.groot, err=err)
        except GrootUnavailable as exc:
            print(f"soccerbt run: --groot: {exc}", file=err)
            if live is not None:
                live.close()
            return 1
    wall_start = time.perf_counter()
    view = None if args.headless or not display_available() else _viewer_entry()
    try:
        if view is not None:
            view(match, pads=pads)
        else:
            if not args.headless and not args.json and not args.quiet:
                print("soccerbt run: no display or viewer: running headless", file=err)
            _run_headless(match, pads, realtime=args.realtime, progress=None if args.quiet else err)
    except KeyboardInterrupt:
        print(f"soccerbt run: interrupted at t={match.t_s:.1f}s", file=err)
    wall_s = time.perf_counter() - wall_start
    close_all(publishers)  # a breakpoint cannot be waiting: this thread ticked the match
    result = match.result()
    if recorder is not None:
        recorder.finish(result)
        written = getattr(recorder, "written", lambda: None)()
        if written:
            print(f"soccerbt run: {written}", file=err)
    if live is not None:
        live.close()
    if getattr(args, "screenshot", None):
        try:
            _save_screenshot(match, args.screenshot, err)
        except (OSError, pygame_error()) as exc:  # an optional output: the summary still prints
            print(f"soccerbt run: {args.screenshot}: screenshot not saved ({exc})", file=err)
    if args.json:
        summary = result_json(result, wall_s)
        if endpoints:
            summary["groot"] = [endpoint.to_json() for endpoint in endpoints]
        json.dump(summary, sys.stdout, indent=None, separators=(",", ":"))
        sys.stdout.write("\n")
    else:
        print_summary(result, wall_s, sys.stdout)
    return 0


def _save_screenshot(match: Match, path: str, err: TextIO) -> None:
    """Render the final moment off-screen (SDL's dummy driver when there is no display)."""
    if not display_available():
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    # deferred: start-up: the viewer (pygame) only for a screenshot
    from soccerbt.tools.viewer.viewer import save_match_screenshot

    saved = save_match_screenshot(match, path, selected=next((str(r) for r in match.agents), None))
    print(f"soccerbt run: screenshot saved to {saved}", file=err)


def _pads(robot_text: str | None) -> tuple[Any, Any]:
    if robot_text is None:
        return None, None

    robot = parse_robot_key(robot_text)
    manager = PadManager()
    manager.assign(robot)
    return manager, {robot}


def _run_headless(match: Match, pads: Any, realtime: bool, progress: TextIO | None) -> None:
    start = time.perf_counter()
    next_report = PROGRESS_PERIOD_S
    while not match.finished():
        match.step()
        if pads is not None and match.steps % 2 == 0:
            pads.pump()  # no viewer owns pygame's queue: read the pad events here
        t = match.t_s
        if realtime:
            ahead = t - (time.perf_counter() - start)
            if ahead > 0.0:
                time.sleep(ahead)
        if progress is not None and t >= next_report - 1e-9:
            next_report += PROGRESS_PERIOD_S
            print(progress_line(match, time.perf_counter() - start), file=progress, flush=True)
