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
from soccerbt.tools.viewer import Pacer, Viewer

EXIT_BAD_LOG = 2
LOADING_NOTE_BYTES = 4_000_000  # files larger than this take a second or more: say so
MIN_SPEED, MAX_SPEED = 0.1, 20.0


def parse_speed(text: str) -> float:
    """A playback speed: a real-time factor in [0.1, 20]."""
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
    parser.add_argument("file", metavar="FILE", help="replay log written by soccerbt run --record (.gz or plain)")
    parser.add_argument("--at", type=_seconds, default=None, metavar="SECONDS",
                        help="start position in simulated seconds (default: the start; --screenshot: the end)")
    parser.add_argument("--speed", type=parse_speed, default=1.0, help="playback speed 0.1..20 (default 1)")
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
    """The ``replay`` command: 0 done, 1 a usage problem, 2 a bad log."""
    err = sys.stderr
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
        """Open the window and loop until Q / ESC / the window closes. At the end of the log
        playback pauses (an off-screen window closes instead: nobody can press a key)."""
        pygame.display.init()
        pygame.font.init()
        pygame.display.set_caption(f"soccerbt replay {self.replay.log.path.name}")
        self._screen = pygame.display.set_mode(self.size_px)
        clock = pygame.time.Clock()
        off_screen = pygame.display.get_driver() == "dummy"
        last = time.perf_counter()
        running = True
        while running:
            for event in pygame.event.get():
                running = self.handle_event(event) and running
            now = time.perf_counter()
            self.advance(now - last)
            last = now
            at_end = self.replay.finished()
            if at_end and not self.pacer.paused:
                self.pacer.toggle_pause()
            self.render(self._screen)
            pygame.display.flip()
            if at_end and off_screen:
                break
            clock.tick(fps)
        pygame.display.quit()


def save_replay_screenshot(source: ReplaySceneSource, path: str | Path, *, selected: str | None = None,
                           size_px: tuple[int, int] = (1300, 760)) -> Path:
    """The frame at the source's position as PNG, off-screen (SDL's dummy driver without a display)."""
    if not display_available():
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    if not pygame.display.get_init():
        pygame.display.init()
    if not pygame.font.get_init():
        pygame.font.init()
    viewer = ReplayViewer(source, size_px=size_px)
    viewer.pacer.paused = True
    viewer.state.selected = selected if selected is not None else (source.log.robots[0] if source.log.robots
                                                                   else None)
    return viewer.screenshot(Path(path))
