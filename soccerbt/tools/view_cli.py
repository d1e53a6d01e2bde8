"""``soccerbt view``: play a simulated match in the pygame field viewer.

The same match options as ``soccerbt run`` plus ``--speed`` (real-time factor, 0.1 to 20, or
``max``) and ``--select ROBOT``. The keyboard drives the selected robot (arrows robot-relative,
F toggles field-relative arrows, Q/E, C chase, K kick, 1/2/3 control state, S swap roles);
SPACE stops every robot, RETURN releases them.
Viewer keys: click a robot to select it, click the field to send it there, drag the ball;
P pause, N single step, +/- speed, V view from the other side, TAB next robot, F1-F7 layers
(estimates, particles, covariance, ball estimates, paths, kick, labels), F8 all layers,
F12 screenshot, ESC or Ctrl+Q quit at once. Toasts, a red band (emergency stop), markers
and the banner (real speed, fps, MIRRORED) say what happened. With ``--groot`` the match steps in
a worker thread: while a robot's tick waits at a Groot2 breakpoint the window keeps drawing and a
band says "blue2 paused at a Groot2 breakpoint on #12 KickBall".
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable

from soccerbt.cli.display import display_available
from soccerbt.cli.match_options import add_match_arguments, config_from_args
from soccerbt.cli.outputs import check_outputs
from soccerbt.cli.summary import print_summary
from soccerbt.drivers.gamepad import EmergencyStop, parse_robot_key
from soccerbt.drivers.keyboard import KeyboardPad
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
from soccerbt.tools.viewer.stepping import BreakpointPause


def parse_speed(text: str) -> float:
    """A real-time factor: a number in [0.1, 20], or "max" for as fast as possible."""
    if text.lower() in ("max", "inf", "fastest"):
        return math.inf
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"speed must be a number or 'max', got {text!r}") from None
    if not 0.1 <= value <= 20.0:
        raise argparse.ArgumentTypeError(f"speed must be within 0.1..20 (or 'max'), got {text!r}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``soccerbt view``: the match options of ``run``, plus the viewer's own."""
    add_match_arguments(parser)
    parser.add_argument("--speed", type=parse_speed, default=1.0,
                        help="real-time factor 0.1..20, or 'max' (default 1)")
    parser.add_argument("--select", metavar="ROBOT", default=None, help="robot selected at start, e.g. blue1")
    parser.add_argument("--record", metavar="FILE", default=None,
                        help="write the replay log FILE.mcap of what is watched")
    add_record_mode_argument(parser)
    add_live_argument(parser)
    add_groot_argument(parser)
    parser.set_defaults(func=view)


def build_viewer_match(args: argparse.Namespace):  # -> Match
    """A match wired for a person: pads, the keyboard on the selected robot, an emergency stop."""
    estop = EmergencyStop()
    manager = PadManager(estop=estop)
    manager.keyboard = KeyboardPad(estop=estop)
    if getattr(args, "pad", None):
        manager.assign(parse_robot_key(args.pad))
    return Match(config_from_args(args), pads=manager, estop=estop)


def node_namer(match: Match) -> Callable[[str, int], str]:
    """Names a robot's node by its uid (the breakpoint's band); "" when it has none."""

    def name_of(robot: str, uid: int) -> str:
        agent = {str(rid): a for rid, a in match.agents.items()}.get(robot)
        tree = getattr(agent, "tree", None)
        node = next((n for n in tree.nodes() if n.uid == uid), None) if tree is not None else None
        return node.name if node is not None else ""

    return name_of


def view(args: argparse.Namespace) -> int:
    """The ``view`` command: exit 0 when the window closes, 1 when the match cannot start."""
    # deferred: start-up: the viewer (pygame) only when the window opens
    from soccerbt.tools.viewer.viewer import view_match

    if not display_available():
        print("soccerbt view: no display (set DISPLAY, or SDL_VIDEODRIVER=dummy for an off-screen run)",
              file=sys.stderr)
        return 1
    problem = check_outputs(args, ("record",)) or record_mode_problem(args, bool(args.record))
    if problem is not None:
        print(f"soccerbt view: {problem}", file=sys.stderr)
        return 2
    try:
        match = build_viewer_match(args)
    except Exception as exc:  # a broken tree prints path:line: message
        print(f"soccerbt view: {exc}", file=sys.stderr)
        return 1
    if args.select is not None:
        try:
            match.agent(args.select)
        except KeyError as exc:
            print(f"soccerbt view: {exc.args[0]}", file=sys.stderr)
            return 1
    try:
        live, recorder = record_and_stream(match, args.record, args.live, sys.stderr, args.record_mode)
    except LiveUnavailable as exc:
        print(f"soccerbt view: --live: {exc}", file=sys.stderr)
        return 1
    publishers = []
    pause = None
    if args.groot is not None:
        pause = BreakpointPause(node_namer(match))
        try:
            publishers, _ = serve_match(match, *args.groot, err=sys.stderr, on_breakpoint=pause)
        except GrootUnavailable as exc:
            print(f"soccerbt view: --groot: {exc}", file=sys.stderr)
            if live is not None:
                live.close()
            return 1
    wall_start = time.perf_counter()
    try:
        view_match(match, speed=args.speed, selected=args.select, pause=pause,
                   release_waiting=lambda: [publisher.interrupt() for publisher in publishers])
    finally:
        close_all(publishers)
        result = match.result()
        if recorder is not None:
            recorder.finish(result)
            written = getattr(recorder, "written", lambda: None)()
            if written:
                print(f"soccerbt view: {written}", file=sys.stderr)
        if live is not None:
            live.close()
    print_summary(result, time.perf_counter() - wall_start, sys.stdout)
    return 0
