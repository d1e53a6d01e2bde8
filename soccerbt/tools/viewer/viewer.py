"""The pygame field viewer: watches a lock-step match, paces it to real time, lets people poke it.

The viewer observes; the match owns time. ``Pacer`` turns wall-clock time into a number of
lock-step steps (real time times a speed factor, or as fast as possible), ``Viewer`` runs the
window: drawing, selection, click-to-go, ball dragging, layer keys, screenshots, pause and
single step. Anything that plays a match can be watched through the ``SceneSource`` protocol.
The window opens centred, no larger than the desktop (``fit_to_desktop``), and can be resized:
``layout(size)`` sizes the side panel and the field from the window's size, and the text with
the window's height (``render.ui_scale``). A tree that failed to hot-reload is marked by a
persistent band under the banner (robots, file, the error's first line) until a good version
loads; T or a click on the band shows the whole error, wrapped. With ``--groot``
(``use_step_worker``) the steps run in a worker thread (``stepping``): while a robot's tick waits
at a Groot2 breakpoint the window keeps drawing and handling keys, and a band says who waits where.
"""
from __future__ import annotations

import io
import math
import os
import sys
import time
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pygame

from soccerbt.cli.display import display_available
from soccerbt.cli.outputs import write_atomically
from soccerbt.tools.viewer.match_source import MatchSceneSource
from soccerbt.tools.viewer.render import (
    ALL_LAYERS,
    DEFAULT_LAYERS,
    LAYER_KEYS,
    ROBOT_RADIUS_M,
    FieldRenderer,
    draw_band,
    draw_help,
    draw_side_panel,
    draw_text_box,
    draw_toasts,
    ui_scale,
)
from soccerbt.tools.viewer.scene import Notice, Scene, StaleTree
from soccerbt.tools.viewer.stepping import STEP_POLL_S, BreakpointPause, StepWorker
from soccerbt.world.field import Field

SPEED_STEPS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 20.0, math.inf)
LIVE_KEYS = (
    ("P / PAUSE", "pause / run"), ("N or .", "one step (paused; the banner shows the step)"),
    ("+ / -", "speed 0.1x .. 20x, max"), ("TAB", "next robot; click a robot: select it"),
    ("click the field", "send the selected robot there; drag the ball; right click: deselect"),
    ("F1-F7, F8", "layers (F7 labels and legend), all layers"), ("V", "mirror the view (red's side)"),
    ("F12", "screenshot"), ("arrows, Q/E, C, K, S, F", "keyboard pad: drive the selected robot"),
    ("SPACE / RETURN", "emergency stop / release"),
    ("T, click the STALE TREE band", "a tree that did not reload: its whole error (again: closes)"),
    ("H or ?", "this help"), ("ESC, CTRL+Q", "quit"),
)
MIN_WINDOW_PX = (800, 480)           # a window is never laid out smaller
DESKTOP_MARGIN_PX = (16, 72)         # left free of the desktop: the window's frame, a task bar
MIN_SPEED, MAX_SPEED = 0.1, 20.0
_MOUSE_EVENTS = frozenset({pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION, pygame.MOUSEWHEEL})


class SceneSource(Protocol):
    """What the viewer needs from a running match."""

    field: Field
    dt_s: float

    def step(self) -> None: ...
    def scene(self, selected: str | None) -> Scene: ...
    def place_ball(self, x_m: float, y_m: float) -> None: ...
    def send_robot_to(self, key: str, x_m: float, y_m: float) -> None: ...
    def finished(self) -> bool: ...


@dataclass
class Pacer:
    """How many lock-step steps a frame owes: wall time times ``speed`` (inf: as fast as possible).

    The viewer draws at the display's rate and runs, between two frames, the steps the wall
    time since the last frame owes at the asked speed. ``max_wall_per_frame_s`` bounds the time
    a frame spends stepping, so the window stays responsive; steps a frame could not run stay
    owed (up to ``max_backlog_wall_s`` of wall time's worth) and run in the next frames. When
    the machine cannot keep up the backlog is dropped and the match runs slower than asked: the
    banner shows the achieved speed (``RateMeter``).
    """

    dt_s: float
    speed: float = 1.0
    paused: bool = False
    max_wall_per_frame_s: float = 1.0 / 20.0
    max_backlog_wall_s: float = 0.25
    _debt_s: float = 0.0
    _single_steps: int = 0

    def set_speed(self, speed: float) -> None:
        """Real-time factor in [0.1, 20], or math.inf for as fast as possible."""
        if math.isnan(speed) or speed <= 0.0:
            raise ValueError(f"speed must be positive, got {speed}")
        self.speed = speed if math.isinf(speed) else min(MAX_SPEED, max(MIN_SPEED, speed))
        self._debt_s = 0.0

    def faster(self) -> None:
        self.set_speed(next((s for s in SPEED_STEPS if s > self.speed), SPEED_STEPS[-1]))

    def slower(self) -> None:
        self.set_speed(next((s for s in reversed(SPEED_STEPS) if s < self.speed), SPEED_STEPS[0]))

    def toggle_pause(self) -> None:
        self.paused = not self.paused
        self._debt_s = 0.0

    def single_step(self) -> None:
        """Ask for one step now (meant for when paused)."""
        self._single_steps += 1

    def steps_due(self, wall_elapsed_s: float) -> int:
        """Steps to run for ``wall_elapsed_s`` of wall time since the last frame (not for inf)."""
        steps = self._single_steps
        self._single_steps = 0
        if self.paused or math.isinf(self.speed):
            return steps
        self._debt_s = min(self._debt_s + max(0.0, wall_elapsed_s) * self.speed,
                           self.max_backlog_wall_s * self.speed)
        whole = int(self._debt_s / self.dt_s + 1e-9)
        self._debt_s -= whole * self.dt_s
        return steps + whole

    def owe(self, steps: int) -> None:
        """``steps`` of what ``steps_due`` gave did not run this frame: owe them (bounded)."""
        if steps > 0 and not self.paused and not math.isinf(self.speed):
            self._debt_s = min(self._debt_s + steps * self.dt_s, self.max_backlog_wall_s * self.speed)

    @property
    def label(self) -> str:
        if self.paused:
            return "paused"
        return "max speed" if math.isinf(self.speed) else f"x{self.speed:g}"


class RateMeter:
    """Achieved speed (simulated seconds per wall second) and frames per second over the last
    ``window_s`` of wall time."""

    def __init__(self, window_s: float = 1.0) -> None:
        self.window_s = window_s
        self._frames: deque[tuple[float, float]] = deque()  # (wall_s, simulated seconds so far)
        self._sim_s = 0.0

    def note(self, wall_s: float, simulated_s: float) -> None:
        """A frame drawn at ``wall_s`` after ``simulated_s`` more simulated seconds."""
        self._sim_s += simulated_s
        self._frames.append((wall_s, self._sim_s))
        while len(self._frames) > 2 and wall_s - self._frames[1][0] >= self.window_s:
            self._frames.popleft()

    def _span(self) -> float:
        return self._frames[-1][0] - self._frames[0][0] if len(self._frames) >= 2 else 0.0

    @property
    def speed(self) -> float | None:
        span = self._span()
        return (self._frames[-1][1] - self._frames[0][1]) / span if span > 0 else None

    @property
    def fps(self) -> float | None:
        span = self._span()
        return (len(self._frames) - 1) / span if span > 0 else None


TOAST_S = 4.0  # how long a notice stays (errors twice as long); it fades out in its last second


@dataclass
class ViewerState:
    """What the person has chosen: selection, layers, view side, dragging."""

    selected: str | None = None
    layers: set[str] = field(default_factory=lambda: set(DEFAULT_LAYERS))
    mirrored: bool = False
    dragging_ball: bool = False
    show_help: bool = False
    show_tree_error: bool = False  # the whole error of a tree that did not reload (T, a click on its band)


class Viewer:
    """A window on a ``SceneSource``. ``run()`` loops until the window closes or the match ends.

    ``event_handlers`` lets the caller add keys (the keyboard pad, the emergency stop); they get
    each KEYDOWN/KEYUP event first and return True when they consumed it (ESC and Ctrl+Q quit
    before them). ``clock`` is the wall clock (seconds; tests give a fake one).
    """

    PANEL_WIDTH_PX = 330            # the side panel at the default size; ``layout`` scales it
    PANEL_FRACTION = 0.25           # of the window's width, within PANEL_LIMITS_PX
    PANEL_LIMITS_PX = (240, 420)

    def __init__(self, source: SceneSource, size_px: tuple[int, int] = (1300, 760), speed: float = 1.0,
                 screenshot_dir: Path = Path("."),
                 event_handlers: list[Callable[[pygame.event.Event], bool]] | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.source = source
        self.size_px = size_px
        self.pacer = Pacer(dt_s=source.dt_s)
        self.pacer.set_speed(speed)
        self.meter = RateMeter()
        self.clock = clock
        self.state = ViewerState()
        self.panel_width_px = self.PANEL_WIDTH_PX
        self.renderer = FieldRenderer(source.field, (size_px[0] - self.PANEL_WIDTH_PX, size_px[1]))
        self.layout(size_px)
        self.screenshot_dir = screenshot_dir
        self.event_handlers = list(event_handlers or [])
        self.frames = 0
        self.steps_run = 0
        self.on_select: Callable[[str | None], None] | None = None  # told of every new selection
        self.toasts: list[tuple[Notice, float]] = []  # (notice, wall time it appeared)
        self.quit_requested = False
        self.frame_wait: Callable[[int], None] | None = None  # instead of pygame's clock (tests)
        self._last_scene: Scene | None = None
        self._screen: pygame.Surface | None = None
        self._estop_seen: str | None = None
        self._last_frame_s: float | None = None
        self.stale_rects: list[pygame.Rect] = []  # where the last frame drew the stale-tree bands
        # --groot: steps in a worker thread, the window alive while a tick waits at a breakpoint
        self.pause: BreakpointPause | None = None
        self.worker: StepWorker | None = None
        self.release_waiting: Callable[[], None] | None = None  # lets a waiting breakpoint go (quitting)
        self.pause_band: pygame.Rect | None = None  # where the last frame drew the breakpoint's band

    # --- layout -----------------------------------------------------------------------------

    @classmethod
    def panel_width_for(cls, width_px: int) -> int:
        """The side panel's width in a window ``width_px`` wide."""
        lo, hi = cls.PANEL_LIMITS_PX
        return max(lo, min(hi, int(width_px * cls.PANEL_FRACTION)))

    @classmethod
    def field_size_for(cls, size_px: tuple[int, int]) -> tuple[int, int]:
        """The field's drawing area (banner included) in a window of ``size_px``."""
        return (size_px[0] - cls.panel_width_for(size_px[0]), size_px[1])

    def layout(self, size_px: tuple[int, int]) -> None:
        """Lay the window out for ``size_px`` (at least MIN_WINDOW_PX): the panel's width, the
        field's scale; called at start and whenever the window is resized."""
        size_px = (max(MIN_WINDOW_PX[0], int(size_px[0])), max(MIN_WINDOW_PX[1], int(size_px[1])))
        mirrored = self.renderer.mirrored
        self.size_px = size_px
        self.panel_width_px = self.panel_width_for(size_px[0])
        self.renderer = FieldRenderer(self.source.field, self.field_size_for(size_px), mirrored=mirrored,
                                      scale=ui_scale(size_px[1]))

    def open_window(self, caption: str) -> pygame.Surface:
        """Open the (resizable) window, sized to fit the desktop and centred on it."""
        pygame.display.init()
        pygame.font.init()
        pygame.display.set_caption(caption)
        os.environ.setdefault("SDL_VIDEO_CENTERED", "1")  # never placed off the screen's edge
        self.layout(fit_to_desktop(self.size_px))
        self._screen = pygame.display.set_mode(self.size_px, pygame.RESIZABLE)
        return self._screen

    def window_resized(self, event: pygame.event.Event) -> bool:
        """Follow a resize of the window (True when ``event`` was one)."""
        if event.type != pygame.VIDEORESIZE:
            return False
        self.layout((event.w, event.h))
        if self._screen is not None:
            self._screen = pygame.display.get_surface() or self._screen
            if self._screen.get_size() != self.size_px:  # below the minimum, or a driver that does not resize
                self._screen = pygame.display.set_mode(self.size_px, pygame.RESIZABLE)
        return True

    # --- notices ----------------------------------------------------------------------------

    def notify(self, text: str, level: str = "info", echo: bool = True) -> None:
        """Show ``text`` as a toast that fades after a few seconds (and print it on stderr)."""
        self.toasts.append((Notice(text, level, echo), self.clock()))
        del self.toasts[:-6]
        if echo:
            print(f"view: {text}", file=sys.stderr)

    def _toast_views(self) -> list[tuple[str, str, float]]:
        now = self.clock()
        views, kept = [], []
        for notice, born in self.toasts:
            life = TOAST_S * (2.0 if notice.level == "error" else 1.0)
            age = now - born
            if age < life:
                kept.append((notice, born))
                views.append((notice.text, notice.level, min(1.0, max(0.0, life - age))))
        self.toasts = kept
        return views

    def _collect_notices(self, scene: Scene) -> None:
        notices = getattr(self.source, "notices", None)
        if notices is not None:
            for notice in notices():
                self.notify(notice.text, notice.level, notice.echo)
        if scene.estop != self._estop_seen:
            if scene.estop is not None and self._estop_seen is None:
                # the stop's own logger has printed it on stderr already
                self.notify("EMERGENCY STOP engaged" + (f" ({scene.estop})" if scene.estop else ""), "error",
                            echo=False)
            elif scene.estop is None:
                self.notify("emergency stop released: robots move again", "ok", echo=False)
            self._estop_seen = scene.estop

    def status_line(self) -> str:
        """The view's own state, drawn at the bottom of the field: mirrored or not, layers on."""
        on = [f"{LAYER_KEYS[layer].upper()} {layer}" for layer in LAYER_KEYS if layer in self.state.layers]
        side = "MIRRORED view (V): red's side   " if self.state.mirrored else ""
        return side + "layers: " + (", ".join(on) if on else "none")

    # --- drawing (usable without a window) --------------------------------------------------

    def speed_text(self) -> str:
        """The asked speed, then the achieved speed and frames per second when measured; paused,
        the step number (a single step shows which step it reached)."""
        text = self.pacer.label
        if self.pacer.paused:
            steps = getattr(getattr(self.source, "match", None), "steps", None)
            if steps is not None:
                text += f"  step {steps}"
        speed, fps = self.meter.speed, self.meter.fps
        if speed is not None and fps is not None:
            text += f"  (real x{speed:.1f}, {fps:.0f} fps)"
        return text

    def render(self, surface: pygame.Surface) -> Scene:
        """Draw the current scene onto ``surface``; returns the scene drawn."""
        scene = self.source.scene(self.state.selected)
        self._collect_notices(scene)
        scene.speed_label = self.speed_text() + ("   MIRRORED" if self.state.mirrored else "")
        scene.status_line = self.status_line()
        self.renderer.set_mirrored(self.state.mirrored)
        self.renderer.draw(surface, scene, self.state.layers, self.state.selected)
        panel = pygame.Rect(self.size_px[0] - self.panel_width_px, 0, self.panel_width_px, self.size_px[1])
        draw_side_panel(surface, panel, scene, self.state.selected, self.renderer.font(),
                        self.renderer.font(small=True))
        field_rect = pygame.Rect(0, self.renderer.banner_height_px, *self.renderer.size_px)
        field_rect.height -= self.renderer.banner_height_px
        top = self.renderer.estop_rect().bottom if scene.estop is not None else field_rect.top
        self.stale_rects = self.draw_stale_trees(surface, scene.stale_trees, field_rect, top)
        paused_text = self.pause.band_text() if self.pause is not None else None
        self.pause_band = None
        if paused_text is not None:
            below = self.stale_rects[-1].bottom if self.stale_rects else top
            self.pause_band = draw_band(surface, pygame.Rect(field_rect.left, below, field_rect.width, 0), paused_text,
                                        "warn", self.renderer.font(small=True), max_lines=2)
        if self.state.show_help:
            draw_help(surface, field_rect, LIVE_KEYS, self.renderer.font(small=True))
        self.toast_rects = draw_toasts(surface, field_rect, self._toast_views(), self.renderer.font())
        self._last_scene = scene
        self.frames += 1
        return scene

    def draw_stale_trees(self, surface: pygame.Surface, stale: list[StaleTree], area: pygame.Rect,
                         top_px: int) -> list[pygame.Rect]:
        """The persistent mark of each tree that did not reload: a red band from ``top_px`` down
        (robots, file, the error's first line; T or a click: the whole error, wrapped over
        ``area``). Nothing, and the whole-error box closed, once every tree loads again."""
        if not stale:
            self.state.show_tree_error = False
            return []
        font = self.renderer.font(small=True)
        rects, y = [], top_px
        for item in stale:
            band = draw_band(surface, pygame.Rect(area.left, y, area.width, 0),
                             item.headline() + "   [T or click: the whole error]", "error", font, max_lines=2)
            rects.append(band)
            y = band.bottom
        if self.state.show_tree_error:
            text = "\n\n".join(f"{', '.join(t.robots)} run the last good version of {t.file}; since "
                                f"t={t.since_t_s:.1f}s its file on disk does not load:\n{t.error}" for t in stale)
            below = pygame.Rect(area.left, y, area.width, area.bottom - y)
            draw_text_box(surface, below, "tree reload failed: the running tree is not the file on disk "
                                          "(T or a click closes)", text, font)
        return rects

    def screenshot(self, path: Path | None = None) -> Path:
        """Render the current scene off-screen and save it as PNG."""
        surface = pygame.Surface(self.size_px)
        self.render(surface)
        if path is None:
            path = self.screenshot_dir / f"soccerbt-{self.frames:06d}.png"
        png = io.BytesIO()
        pygame.image.save(surface, png, "png")  # PNG whatever the name; written as every output is
        write_atomically(path, png.getvalue())
        return path

    # --- interaction --------------------------------------------------------------------------

    def robot_at(self, x_px: int, y_px: int) -> str | None:
        """The key of the robot drawn under a pixel, if any."""
        if self._last_scene is None:
            return None
        x_m, y_m = self.renderer.to_world(x_px, y_px)
        best, best_d = None, ROBOT_RADIUS_M * 1.6
        for robot in self._last_scene.robots:
            d = math.hypot(robot.pose.x_m - x_m, robot.pose.y_m - y_m)
            if not robot.removed and d <= best_d:
                best, best_d = robot.key, d
        return best

    def _near_ball(self, x_px: int, y_px: int) -> bool:
        if self._last_scene is None:
            return False
        x_m, y_m = self.renderer.to_world(x_px, y_px)
        bx, by = self._last_scene.ball
        return math.hypot(bx - x_m, by - y_m) <= max(0.3, self.source.field.ball_radius_m * 2)

    def _in_field_area(self, x_px: int) -> bool:
        return x_px < self.size_px[0] - self.panel_width_px

    def handle_event(self, event: pygame.event.Event) -> bool:
        """React to one pygame event; False when the viewer should close."""
        if event.type == pygame.QUIT:
            self.quit_requested = True
            return False
        if self.window_resized(event):
            return True
        selected_before = self.state.selected
        try:
            keep = self._dispatch(event)
        finally:
            if self.state.selected != selected_before and self.on_select is not None:
                self.on_select(self.state.selected)
        if not keep:
            self.quit_requested = True
        return keep

    def _dispatch(self, event: pygame.event.Event) -> bool:
        if _is_quit_key(event):
            return False  # before the keyboard pad: ESC and Ctrl+Q always close at once
        if event.type not in _MOUSE_EVENTS:
            for handler in self.event_handlers:
                if handler(event):
                    return True
        if event.type == pygame.KEYDOWN:
            return self._handle_key(event)
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self._in_field_area(event.pos[0]):
            if any(r.collidepoint(*event.pos) for r in self.stale_rects) or (
                    self.state.show_tree_error and self.stale_rects):
                self.state.show_tree_error = not self.state.show_tree_error  # the mark opens (and closes) the error
                return True
            if self._near_ball(*event.pos):
                self.state.dragging_ball = True
                return True
            hit = self.robot_at(*event.pos)
            if hit is not None:
                self.state.selected = hit
            elif self.state.selected is not None:
                self.source.send_robot_to(self.state.selected, *self.renderer.to_world(*event.pos))
            return True
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 3:
            self.state.selected = None
            return True
        if event.type == pygame.MOUSEMOTION and self.state.dragging_ball:
            self.source.place_ball(*self.renderer.to_world(*event.pos))
            return True
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self.state.dragging_ball:
            self.state.dragging_ball = False
            self.source.place_ball(*self.renderer.to_world(*event.pos))
            return True
        return True

    def _handle_key(self, event: pygame.event.Event) -> bool:
        name = pygame.key.name(event.key)
        for layer, key in LAYER_KEYS.items():
            if name == key:
                self.state.layers.symmetric_difference_update({layer})
                on = "on" if layer in self.state.layers else "off"
                self.notify(f"layer {layer} {on} ({key.upper()})", echo=False)
                return True
        if name in ("escape", "q"):  # Q when no keyboard pad took it (it turns the driven robot)
            return False
        if name == "f8":
            self.state.layers = set(ALL_LAYERS) if self.state.layers != set(ALL_LAYERS) else set(DEFAULT_LAYERS)
            self.notify("all layers on (F8)" if self.state.layers == set(ALL_LAYERS) else "default layers (F8)",
                        echo=False)
        elif name == "v":
            self.state.mirrored = not self.state.mirrored
            self.notify("view mirrored: looking from red's side (V)" if self.state.mirrored
                        else "view normal: blue's side on the left (V)")
        elif name == "f12":
            self.notify(f"screenshot saved: {self.screenshot()}", "ok")
        elif name in ("p", "pause"):
            self.pacer.toggle_pause()
        elif name in ("n", "."):
            self.pacer.single_step()
        elif name in ("=", "+", "]"):
            self.pacer.faster()
        elif name in ("-", "["):
            self.pacer.slower()
        elif name == "tab":
            self._cycle_selection()
        elif name == "h" or getattr(event, "unicode", "") == "?":
            self.state.show_help = not self.state.show_help
        elif name == "t":
            self.state.show_tree_error = not self.state.show_tree_error and bool(self.stale_rects)
        return True

    def _cycle_selection(self) -> None:
        if self._last_scene is None or not self._last_scene.robots:
            return
        keys = [r.key for r in self._last_scene.robots]
        if self.state.selected not in keys:
            self.state.selected = keys[0]
        else:
            self.state.selected = keys[(keys.index(self.state.selected) + 1) % len(keys)]

    # --- the loop -------------------------------------------------------------------------

    def advance(self, wall_elapsed_s: float) -> int:
        """Run the lock-step steps this frame owes (the ``Pacer`` says how many); returns how
        many ran. Stepping stops at the frame's wall budget, at the match's end, or at once
        when a quit was asked; and while a step waits at a Groot2 breakpoint (the time it
        waits owes no steps)."""
        done = 0
        if self.waiting_at_breakpoint:
            if not self._settle():
                self.pacer.steps_due(wall_elapsed_s)  # paused by Groot2: nothing owed meanwhile
                return 0
            done = 1  # the step that waited, finished now
        deadline = self.clock() + self.pacer.max_wall_per_frame_s
        stopped = False
        if math.isinf(self.pacer.speed) and not self.pacer.paused:
            due = self.pacer.steps_due(wall_elapsed_s) + done  # single steps asked
            while (done < due or self.clock() < deadline) and self._may_step():
                stopped = not self._step()
                done += 1
                if stopped:
                    break
        else:
            due = self.pacer.steps_due(wall_elapsed_s) + done
            while done < due and self._may_step():
                stopped = not self._step()
                done += 1
                if stopped or self.clock() > deadline:
                    break  # the rest stays owed: the next frames run it (if the machine can)
            if not self.quit_requested and not stopped:
                self.pacer.owe(due - done)
        if stopped:
            done -= 1  # counted when it finishes
        self.steps_run += done
        return done

    def _may_step(self) -> bool:
        return not self.quit_requested and not self.source.finished()

    def use_step_worker(self, pause: BreakpointPause, release_waiting: Callable[[], None] | None = None) -> None:
        """Run the steps in a worker thread (``stepping``): a step waiting at a breakpoint (as
        `pause` says) leaves the window drawing; `release_waiting` lets it go when the window quits."""
        self.pause = pause
        self.release_waiting = release_waiting
        self.worker = StepWorker(self.source.step)

    def _step(self) -> bool:
        """One step; False when it waits at a Groot2 breakpoint (it finishes in a later frame)."""
        if self.worker is None:
            self.source.step()
            return True
        self.worker.start()
        return self._settle()

    def _settle(self) -> bool:
        """Wait for the worker's step: True once it finished, False while it waits at a breakpoint."""
        assert self.worker is not None
        while not self.worker.wait(STEP_POLL_S):
            if self.pause is not None and self.pause.waiting is not None:
                return False
        return True

    @property
    def waiting_at_breakpoint(self) -> bool:
        """A step started and waits (at a Groot2 breakpoint): no other step runs until it ends."""
        return self.worker is not None and self.worker.busy

    def _frame_guard(self) -> AbstractContextManager[object]:
        """Held while drawing and handling events: a tick waiting at a breakpoint does not go on
        in the middle of them (``stepping``)."""
        return self.pause.lock if self.pause is not None else nullcontext()

    def finish_steps(self) -> None:
        """The worker's step ended (a waiting breakpoint let go) and its thread stopped."""
        if self.worker is None:
            return
        if self.worker.busy and self.release_waiting is not None:
            self.release_waiting()
        self.worker.close()
        self.worker = None

    def frame(self, surface: pygame.Surface) -> int:
        """One frame: run the steps owed since the last frame, then draw; steps run."""
        now = self.clock()
        steps = self.advance(0.0 if self._last_frame_s is None else now - self._last_frame_s)
        self._last_frame_s = now
        self.meter.note(now, steps * self.source.dt_s)
        with self._frame_guard():
            self.render(surface)
        return steps

    def run(self, fps: int = 60) -> None:
        """Open the window and loop until it is closed (ESC, Ctrl+Q, the window's close) or the
        match finishes. A quit ends the loop before any more step is run."""
        self.open_window("soccerbt")
        clock = pygame.time.Clock()
        self.quit_requested = False
        try:
            while True:
                with self._frame_guard():
                    for event in pygame.event.get():
                        if not self.handle_event(event):
                            break
                if self.quit_requested:
                    break
                self.frame(self._screen)
                if self.quit_requested:
                    break
                pygame.display.flip()
                if self.frame_wait is not None:
                    self.frame_wait(fps)
                else:
                    clock.tick(fps)
                if self.source.finished():
                    if pygame.display.get_driver() == "dummy":
                        break  # nobody can look at an off-screen window: do not wait for a close
                    if not self.pacer.paused:
                        self.pacer.toggle_pause()  # keep the final picture up until the window closes
        finally:
            self.finish_steps()
            pygame.display.quit()


def fit_to_desktop(wanted_px: tuple[int, int]) -> tuple[int, int]:
    """``wanted_px`` shrunk to the desktop (less DESKTOP_MARGIN_PX), never below MIN_WINDOW_PX;
    as wanted when the desktop's size is unknown (call after ``pygame.display.init``)."""
    try:
        sizes = pygame.display.get_desktop_sizes()
    except (pygame.error, AttributeError):
        sizes = []
    if not sizes:
        return wanted_px
    desk_w, desk_h = sizes[0]
    return (max(MIN_WINDOW_PX[0], min(wanted_px[0], desk_w - DESKTOP_MARGIN_PX[0])),
            max(MIN_WINDOW_PX[1], min(wanted_px[1], desk_h - DESKTOP_MARGIN_PX[1])))


def _is_quit_key(event: pygame.event.Event) -> bool:
    """ESC, or Ctrl+Q: they quit before the keyboard pad sees them (plain Q turns the robot)."""
    if event.type != pygame.KEYDOWN:
        return False
    key = getattr(event, "key", None)
    return key == pygame.K_ESCAPE or (key == pygame.K_q and bool(getattr(event, "mod", 0) & pygame.KMOD_CTRL))


# --- entry points for the command line -----------------------------------------------------------


def _match_source(match: object) -> SceneSource:
    return MatchSceneSource(match)  # type: ignore[arg-type]


def view_match(match: object, pads: object = None, *, speed: float = 1.0, size_px: tuple[int, int] = (1300, 760),
               selected: str | None = None, pause: BreakpointPause | None = None,
               release_waiting: Callable[[], None] | None = None) -> Viewer:
    """Open the window on a ``soccerbt.match.Match`` and run until it is closed.

    With `pause` (``--groot``: the publishers' on_breakpoint) the steps run in a worker thread and
    the window lives on while a tick waits at a breakpoint (``Viewer.use_step_worker``).

    With a ``PadManager`` (the match's, or ``pads``), pad events reach it and the keyboard
    drives the selected robot; the match's emergency stop is engaged by SPACE (through the
    keyboard pad when one is set up).
    """
    manager = pads if pads is not None else getattr(match, "pads", None)
    handlers: list[Callable[[pygame.event.Event], bool]] = []
    if manager is not None and hasattr(manager, "handle_event"):
        if hasattr(manager, "start"):
            manager.start()  # before the window: SDL reads the background-events hint here
        handlers.append(manager.handle_event)
    viewer = Viewer(_match_source(match), size_px=size_px, speed=speed, event_handlers=handlers)
    viewer.state.selected = selected
    if pause is not None:
        viewer.use_step_worker(pause, release_waiting)
    wire_field_relative_keys(viewer, match, getattr(manager, "keyboard", None))
    if manager is not None and hasattr(manager, "set_keyboard_robot"):
        viewer.on_select = manager.set_keyboard_robot
        if selected is not None:
            manager.set_keyboard_robot(selected)
    viewer.run()
    return viewer


def wire_field_relative_keys(viewer: Viewer, match: object, keyboard: object) -> None:
    """Give the keyboard pad (F: field-relative arrows) the heading of the robot it drives, as
    drawn (the simulator's truth, world frame), and whether the view is mirrored (V)."""
    if keyboard is None or not hasattr(keyboard, "heading_rad"):
        return

    def heading() -> float | None:
        key = getattr(keyboard, "robot", None)
        for rid, truth in getattr(getattr(match, "world", None), "robots", {}).items():
            if str(rid) == key:
                return None if truth.removed else truth.pose.theta_rad
        return None

    keyboard.heading_rad = heading
    keyboard.view_mirrored = lambda: viewer.state.mirrored


def prepare_pygame() -> None:
    """pygame's display and fonts ready for drawing; off-screen (SDL's dummy driver) when
    there is no display (what every screenshot command needs)."""
    if not display_available():
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    if not pygame.display.get_init():
        pygame.display.init()
    if not pygame.font.get_init():
        pygame.font.init()


def save_match_screenshot(match: object, path: str | Path, *, selected: str | None = None,
                          layers: set[str] | None = None, size_px: tuple[int, int] = (1300, 760)) -> Path:
    """Render the match as it is now into a PNG (works with SDL_VIDEODRIVER=dummy)."""
    if not pygame.display.get_init():
        pygame.display.init()
    if not pygame.font.get_init():
        pygame.font.init()
    viewer = Viewer(_match_source(match), size_px=size_px)
    viewer.state.selected = selected
    if layers is not None:
        viewer.state.layers = set(layers)
    return viewer.screenshot(Path(path))
