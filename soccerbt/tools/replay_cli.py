"""``soccerbt replay FILE``: a recorded run (``soccerbt run --record``) tick by tick in the viewer.

The window draws the same field as ``soccerbt view`` from the log: truth poses, ball, each
robot's pose and ball estimate, role, decision and kick direction, the GameController banner
(state, set play, score, clock, penalties) with the replay's position, speed and pause state;
the side panel shows the selected robot's tree status, command and recent blackboard changes.

Keys: SPACE pause / resume; RIGHT / LEFT one tick forward / back (pauses); SHIFT+arrow 1 s,
CTRL+arrow or PAGE DOWN / PAGE UP 10 s forward / back; + / - playback speed (0.1 to 20);
HOME / END first / last tick; Q or ESC quit. Click a robot to select it, TAB the next one;
F1-F8 layers, V the other side, F12 a screenshot, as in the viewer.

Without a window: ``--info`` prints the header and a summary, ``--robot blue2 [--from S]
[--to S]`` prints that robot's records tick by tick, ``--screenshot OUT.png [--at T]`` saves
the frame at T (default: the last tick) off-screen. A bad log prints ``path:line: what is
wrong`` and exits 2; a log cut short replays up to its last whole record, with a warning.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import TextIO

import pygame

from soccerbt.tools.replay import ReplayError, ReplayLog, ReplaySceneSource, robot_lines, summary
from soccerbt.tools.run_cli import display_available
from soccerbt.tools.viewer import Pacer, Viewer, prepare_pygame

EXIT_BAD_LOG = 2
LOADING_NOTE_BYTES = 4_000_000  # files larger than this take a second or more: say so
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


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``soccerbt replay``."""
    parser.add_argument("file", metavar="FILE",
                        help="replay log written by soccerbt run --record (.mcap, or JSON lines .gz/plain); "
                             "'diff' compares two MCAP logs: soccerbt replay diff A.mcap B.mcap")
    parser.add_argument("other", metavar="B", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--tick", type=int, default=None, metavar="N",
                        help="with --robot: after the robot's N-th tick (from 1), instead of --at")
    parser.add_argument("--tree", action="store_true",
                        help="with --robot: the tree with each node's status and the blackboard at --at/--tick")
    parser.add_argument("--json", action="store_true", help="with --tree: one JSON object")
    parser.add_argument("--node", metavar="NAME", default=None,
                        help="with --robot and --transitions: the node (name, ID or path)")
    parser.add_argument("--transitions", action="store_true",
                        help="with --robot and --node: every status change of that node")
    parser.add_argument("--find", metavar="CONDITION", default=None,
                        help="time ranges where a condition holds, e.g. \"blue2: decision == 'kick'\"")
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
    parser.add_argument("--robot", metavar="ROBOT", default=None,
                        help="print ROBOT's per-tick records (pose, command, status, blackboard changes)")
    parser.add_argument("--from", dest="from_s", type=_seconds, default=None, metavar="SECONDS",
                        help="with --robot: first simulated second (default: the start)")
    parser.add_argument("--to", dest="to_s", type=_seconds, default=None, metavar="SECONDS",
                        help="with --robot: last simulated second (default: the end)")
    parser.set_defaults(func=replay)


def replay(args: argparse.Namespace) -> int:
    """The ``replay`` command: 0 done, 1 a usage problem (or ``diff``: the runs differ), 2 a bad log."""
    err = sys.stderr
    if args.file == "diff" or args.other:
        return _diff(args, err)
    from soccerbt.tools.outputs import check_output_path

    for path, flag in ((args.screenshot, "--screenshot"), (args.btlog, "--btlog")):
        if path:
            problem = check_output_path(path, [args.file])
            if problem is not None:
                print(f"soccerbt replay: {problem} ({flag})", file=err)
                return 2
    from soccerbt.tools.mcap_reader import is_mcap

    mcap_only = args.tree or args.node or args.transitions or args.find or args.btlog or args.verify \
        or args.tick is not None
    if is_mcap(args.file):
        return _replay_mcap(args, err)
    if mcap_only:
        print(f"soccerbt replay: {args.file}: --tree, --tick, --transitions, --find, --btlog and --verify need "
              "an MCAP log (soccerbt run --record FILE.mcap); JSON-lines logs keep root statuses only", file=err)
        return EXIT_BAD_LOG if os.path.exists(args.file) else 1
    if (args.from_s is not None or args.to_s is not None) and args.robot is None:
        print("soccerbt replay: --from/--to go with --robot", file=err)
        return 1
    big = _size_bytes(args.file) > LOADING_NOTE_BYTES
    if big:
        print(f"soccerbt replay: loading {args.file} ...", file=err, flush=True)
    wall_start = time.perf_counter()
    try:
        log = ReplayLog.load(args.file, warn=lambda text: print(f"warning: {text}", file=err))
    except ReplayError as exc:
        print(str(exc), file=err)
        return EXIT_BAD_LOG
    if big:
        print(f"soccerbt replay: {log.n} steps ({log.duration_s:.1f} s simulated) loaded in "
              f"{time.perf_counter() - wall_start:.1f} s, index {log.memory_bytes() / 1e6:.0f} MB", file=err)
    for key in (args.robot, args.select):
        if key is not None and key not in log.robots:
            print(f"soccerbt replay: no robot {key!r} in {args.file} (robots: {', '.join(log.robots)})", file=err)
            return 1
    if args.info:
        for line in summary(log):
            print(line)
        return 0
    if args.robot is not None:
        return _print_robot(log, args.robot, args.from_s, args.to_s, sys.stdout)
    source = ReplaySceneSource(log)
    at = args.at if args.at is not None else (log.duration_s if args.screenshot else None)
    if at is not None:
        if at > log.duration_s + 1e-9:
            print(f"warning: {args.file} ends at t={log.duration_s:.2f}s; showing the last tick", file=err)
        source.seek_time(at)
    if args.screenshot:
        saved = save_replay_screenshot(source, args.screenshot, selected=args.select)
        print(f"soccerbt replay: t={source.t_s:.2f}s saved to {saved}", file=err)
        return 0
    if not display_available():
        print("soccerbt replay: no display (set DISPLAY, or SDL_VIDEODRIVER=dummy; --info, --robot and "
              "--screenshot need none)", file=err)
        return 1
    viewer = ReplayViewer(source, speed=args.speed)
    viewer.state.selected = args.select
    if args.paused:
        viewer.pacer.paused = True
    viewer.run()
    return 0


def _diff(args: argparse.Namespace, err: TextIO) -> int:
    from soccerbt.tools.mcap_reader import McapLog
    from soccerbt.tools.tree_tools import diff_logs

    files = args.other if args.file == "diff" else [args.file, *args.other]
    if len(files) != 2:
        print("soccerbt replay diff: give two MCAP logs: soccerbt replay diff A.mcap B.mcap", file=err)
        return EXIT_BAD_LOG
    try:
        a, b = McapLog.open(files[0]), McapLog.open(files[1])
    except ReplayError as exc:
        print(str(exc), file=err)
        return EXIT_BAD_LOG
    lines = diff_logs(a, b)
    for w in a.warnings + b.warnings:
        print(f"warning: {w}", file=err)
    if not lines:
        print(f"identical: {files[0]} and {files[1]} ({a.last_step} steps)")
        return 0
    for line in lines:
        print(line)
    return 1 if any(not line.startswith("note:") for line in lines) else 0


def _replay_mcap(args: argparse.Namespace, err: TextIO) -> int:
    """The MCAP tools: --info, --tree/--json, --transitions, --find, --btlog, --verify, the viewer."""
    import json

    from soccerbt.tools import tree_tools as tt
    from soccerbt.tools.mcap_reader import McapLog

    try:
        log = McapLog.open(args.file)
        for w in log.warnings:
            print(f"warning: {w}", file=err)
        if args.robot is not None:
            log.check_robot(args.robot)
        if args.verify:
            ok, lines = tt.verify_log(log)
            for line in lines:
                print(line)
            return 0 if ok else 1
        if args.find is not None:
            try:
                ranges = tt.find_ranges(log, args.find)
            except ValueError as exc:
                print(f"soccerbt replay: {exc}", file=err)
                return 1
            for t0, t1, k0, k1 in ranges:
                print(f"{t0:.2f}-{t1:.2f}s  ticks {k0}-{k1}")
            print(f"{len(ranges)} range(s)", file=err)
            return 0
        needs_robot = args.tree or args.transitions or args.btlog or args.tick is not None
        if needs_robot and args.robot is None:
            print("soccerbt replay: --tree, --tick, --transitions and --btlog go with --robot ROBOT", file=err)
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
            for line in tt.transition_lines(log, args.robot, args.node, first, last):
                print(line)
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
            if args.json:
                print(json.dumps(tt.tree_json(state, t_s), separators=(",", ":")))
            else:
                for line in tt.tree_lines(state, t_s):
                    print(line)
            return 0
        if args.info:
            h = log.header
            print(f"{args.file}: soccerbt {h.get('soccerbt_version')} seed {h.get('seed')} field {h.get('field')} "
                  f"{h.get('team_size')} v {h.get('team_size')}, {log.last_step} steps ({log.duration_s:.1f} s)")
            for team, tree in h.get("trees", {}).items():
                print(f"  {team} tree {tree.get('path')} ({len(tree.get('files', []))} file(s))")
            result = log.summary_result()
            if result:
                print(f"  score {result.get('score')}")
            for ev in log.events:
                if ev.get("kind") in ("goal", "tree_reloaded", "node_exception", "penalty"):
                    print(f"  {ev.get('t'):.2f}s {ev.get('kind')} {ev.get('detail')}")
            return 0
        if args.robot is not None:
            first = log.step_at(args.from_s) if args.from_s is not None else log.first_step
            last = log.step_at(args.to_s) if args.to_s is not None else None
            for view in log.steps(first, last):
                rec = view.ticks[args.robot]
                print(f"t={view.truth.t_s:.2f}s tick {rec.tick} root {lf_status(rec.root)} "
                      f"transitions {len(rec.transitions)} bb {json.dumps(rec.blackboard, separators=(',', ':'))}")
            return 0
        return _view_mcap(log, args, err)
    except ReplayError as exc:
        print(str(exc), file=err)
        return EXIT_BAD_LOG
    except BrokenPipeError:  # the reader went away (| head): stop quietly, as text tools do
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - nothing more reaches the pipe
        except OSError:
            pass
        return 0
    except OSError as exc:
        print(f"soccerbt replay: {exc}", file=err)
        return EXIT_BAD_LOG


def lf_status(code: int) -> str:
    from soccerbt.tools.logformat import STATUS_NAMES

    return STATUS_NAMES[code] if code < len(STATUS_NAMES) else "EXCEPTION"


def _view_mcap(log, args: argparse.Namespace, err: TextIO) -> int:  # noqa: ANN001
    try:
        from soccerbt.tools import mcap_view
    except ImportError:
        print("soccerbt replay: the MCAP viewer is not available in this build", file=err)
        return 1
    if args.screenshot:
        saved = mcap_view.save_mcap_screenshot(log, args.screenshot, at_s=args.at, select=args.select)
        print(f"soccerbt replay: saved to {saved}", file=err)
        return 0
    if not display_available():
        print("soccerbt replay: no display (set DISPLAY, or SDL_VIDEODRIVER=dummy; the text tools need none)",
              file=err)
        return 1
    return mcap_view.view_mcap(log, at_s=args.at, speed=args.speed, select=args.select, paused=args.paused)


def _size_bytes(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _print_robot(log: ReplayLog, key: str, from_s: float | None, to_s: float | None, out: TextIO) -> int:
    count = 0
    for line in robot_lines(log, key, from_s, to_s):
        out.write(line)
        out.write("\n")
        count += 1
    if count == 0:
        print(f"soccerbt replay: no ticks between {from_s} and {to_s} s (the log covers "
              f"{log.t_s[0]:.2f}..{log.duration_s:.2f} s)", file=sys.stderr)
        return 1
    return 0


# --- the window -----------------------------------------------------------------------------------


class ReplayPacer(Pacer):
    """The viewer's pacer with the replay's label: paused or playing, speed, the log's length."""

    end_s: float = 0.0

    @property
    def label(self) -> str:
        state = "paused" if self.paused else "playing"
        return f"{state} x{self.speed:g}  of {self.end_s:.1f}s"

    def faster(self) -> None:
        super().faster()
        if math.isinf(self.speed):  # a replay has no "as fast as the simulation can"
            self.set_speed(MAX_SPEED)


class ReplayViewer(Viewer):
    """The field viewer on a ``ReplaySceneSource``, with the replay's keys (module docstring)."""

    JUMP_SHORT_S = 1.0
    JUMP_LONG_S = 10.0

    def __init__(self, source: ReplaySceneSource, size_px: tuple[int, int] = (1300, 760), speed: float = 1.0,
                 screenshot_dir: Path = Path(".")) -> None:
        super().__init__(source, size_px=size_px, speed=1.0, screenshot_dir=screenshot_dir)
        self.replay = source
        self.pacer = ReplayPacer(dt_s=source.dt_s)
        self.pacer.end_s = source.log.duration_s
        self.pacer.set_speed(min(speed, MAX_SPEED))

    def _dispatch(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.KEYDOWN:
            handled = self._replay_key(event)
            if handled is not None:
                return handled
            return self._handle_key(event)
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self._in_field_area(event.pos[0]):
            hit = self.robot_at(*event.pos)
            if hit is not None:
                self.state.selected = hit
            return True  # no ball dragging, no click-to-go: the log says what happened
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 3:
            self.state.selected = None
        return True

    def _pause(self) -> None:
        if not self.pacer.paused:
            self.pacer.toggle_pause()

    def _replay_key(self, event: pygame.event.Event) -> bool | None:
        """True/False when the key was a replay key (False: quit), None to pass it on."""
        key, mod = event.key, getattr(event, "mod", 0)
        source = self.replay
        if key in (pygame.K_q, pygame.K_ESCAPE):
            return False
        if key == pygame.K_SPACE:
            self.pacer.toggle_pause()
        elif key in (pygame.K_RIGHT, pygame.K_LEFT):
            sign = 1.0 if key == pygame.K_RIGHT else -1.0
            if mod & pygame.KMOD_SHIFT:
                source.jump(sign * self.JUMP_SHORT_S)
            elif mod & pygame.KMOD_CTRL:
                source.jump(sign * self.JUMP_LONG_S)
            else:
                self._pause()  # stepping is for a still picture
                source.step() if sign > 0 else source.step_back()
        elif key in (pygame.K_PAGEDOWN, pygame.K_PAGEUP):
            source.jump((1.0 if key == pygame.K_PAGEDOWN else -1.0) * self.JUMP_LONG_S)
        elif key in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS):
            self.pacer.faster()
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
            self.pacer.slower()
        elif key == pygame.K_HOME:
            source.seek(0)
        elif key == pygame.K_END:
            source.seek(source.log.n - 1)
            self._pause()
        else:
            return None
        return True

    def run(self, fps: int = 60) -> None:
        """Open the window and loop until Q / ESC / the window closes (run_replay_window)."""
        run_replay_window(self, fps)


def run_replay_window(viewer: Viewer, fps: int = 60) -> None:
    """The window loop of a replay viewer (JSON lines or MCAP): events, pacing, drawing, until Q /
    ESC / the window closes. At the end of the log playback pauses (an off-screen window closes
    instead: nobody can press a key)."""
    pygame.display.init()
    pygame.font.init()
    pygame.display.set_caption(f"soccerbt replay {viewer.replay.log.path.name}")  # type: ignore[attr-defined]
    screen = viewer._screen = pygame.display.set_mode(viewer.size_px)
    clock = pygame.time.Clock()
    off_screen = pygame.display.get_driver() == "dummy"
    last = time.perf_counter()
    running = True
    while running:
        for event in pygame.event.get():
            running = viewer.handle_event(event) and running
        now = time.perf_counter()
        viewer.advance(now - last)
        last = now
        at_end = viewer.replay.finished()  # type: ignore[attr-defined]
        if at_end and not viewer.pacer.paused:
            viewer.pacer.toggle_pause()
        viewer.render(screen)
        pygame.display.flip()
        if at_end and off_screen:
            break
        clock.tick(fps)
    pygame.display.quit()


def save_replay_screenshot(source: ReplaySceneSource, path: str | Path, *, selected: str | None = None,
                           size_px: tuple[int, int] = (1300, 760)) -> Path:
    """The frame at the source's position as PNG, off-screen (SDL's dummy driver without a display)."""
    prepare_pygame()
    viewer = ReplayViewer(source, size_px=size_px)
    viewer.pacer.paused = True
    viewer.state.selected = selected if selected is not None else (source.log.robots[0] if source.log.robots
                                                                   else None)
    return viewer.screenshot(Path(path))
