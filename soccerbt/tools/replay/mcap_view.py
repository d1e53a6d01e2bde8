"""The pygame replay window for MCAP replay logs: the field on the left, the whole tree on the right.

``McapReplaySource`` (``mcap_source``, re-exported here) is the viewer's ``SceneSource`` on an
``McapLog``: its position is a step, its scenes, robot states and searches are built there.

``view_mcap(log)`` opens the window. Keys: SPACE pause; RIGHT/LEFT one tick (pauses), with
SHIFT 1 s, CTRL 10 s, ALT 60 s; PAGE DOWN/UP 10 s; + / - speed (0.01 .. 20); HOME / END (a
live stream: HOME the oldest step buffered, END the newest, and playing follows the live edge
from there); R reconnects a live stream; T a stale tree's whole error;
TAB next robot (the tree follows); N / SHIFT+N next / previous change of the selected node's
result (a node that returns and is reset in every tick changes when it returns something else or
stops); E / SHIFT+E next / previous event (a notice names it; hovering the timeline lists the
events and bookmarks under the mouse); B bookmark the step (a notice confirms it); H or ? the
keys; C fold / unfold the selected subtree;
UP / DOWN or the mouse wheel scroll the tree (over the blackboard: the blackboard); Q / ESC quit
(ESC first closes the search box, then the key history, then the search).
/ or CTRL+F opens the search box over the tree (typing edits it, BACKSPACE deletes, ESC cancels,
RETURN runs it, RETURN again: the next match). ``robot: condition`` (a ":" in it) is a condition
as in ``soccerbt replay --find`` (tree_tools.find_ranges): its ranges show on the timeline and the
position jumps to the first range at or after it; M / SHIFT+M next / previous range. Other text
selects the next node of the selected robot's tree whose name, ID or path holds it.
Click a robot to select it, a tree row to select the node, a blackboard row for that key's
history (again: off), the timeline to seek.
``save_mcap_screenshot(log, path)`` renders one frame off-screen into a PNG.

On a live stream (``soccerbt.live.client.LiveLog``: ``log.live``) the banner says ``LIVE`` at
the edge or how far behind it the position is, and a persistent band under the banner says when
the stream stopped: "stream ended" (the source said goodbye; its last steps are there) or
"stream lost: why" (the connection closed without a goodbye, or nothing was heard for 2 s), with
"R to reconnect"; R connects again in the background (the window keeps drawing) and, once the new
stream can be shown, follows its live edge. A robot whose tree failed to hot-reload has the
same persistent mark as in the live viewer (T or a click: the whole error).
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pygame

from soccerbt.log import format as lf
from soccerbt.log.format import ReplayError
from soccerbt.log.reader import McapLog
from soccerbt.tools.replay.mcap_source import McapReplaySource, _event_text
from soccerbt.tools.replay.search import ConditionError, resolve_nodes
from soccerbt.tools.replay.tree_tools import find_ranges
from soccerbt.tools.viewer.render import (
    PANEL_BG,
    TEXT,
    draw_band,
    draw_help,
    draw_toasts,
    elide_middle,
    ui_scale,
    wrap_text,
)
from soccerbt.tools.viewer.scene import Scene
from soccerbt.tools.viewer.tree_panel import TreePanel
from soccerbt.tools.viewer.viewer import Pacer, Viewer

__all__ = ["McapReplaySource", "McapViewer", "SearchBox", "view_mcap", "save_mcap_screenshot", "SPEEDS"]

SPEEDS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
_EVENT_COLOURS = {"goal": (255, 230, 0), "state": (200, 200, 200), "kick_off": (120, 200, 255)}
_BOOKMARK = (0, 230, 230)
_RANGE_BAND = (200, 90, 220)
_SEARCH_BG = (30, 33, 44)
_SEARCH_ERROR = (255, 90, 90)
_SEARCH_NOTE = (255, 180, 80)
REPLAY_KEYS = (
    ("SPACE", "pause / play"), ("RIGHT / LEFT", "one tick (SHIFT 1 s, CTRL or PAGE 10 s, ALT 1 min)"),
    ("+ / -", "speed 0.01x .. 20x"),
    ("HOME / END", "first / last tick; live: the oldest buffered tick / the newest, then follow the live edge"),
    ("click the timeline", "seek there (live: stops following the edge; END follows again)"),
    ("R", "live: reconnect (after the stream ended or was lost)"),
    ("T, click the STALE TREE band", "a tree that did not reload: its whole error (again: closes)"),
    ("TAB", "next robot's tree; click a robot or a tree row to select"),
    ("N / SHIFT+N", "selected node: next / previous change of its result"),
    ("E / SHIFT+E", "next / previous event (hover the timeline for labels)"),
    ("B", "bookmark this tick"), ("/ or CTRL+F", "search a node, or ROBOT: condition"),
    ("M / SHIFT+M", "next / previous search range"), ("C", "fold / unfold the selected subtree"),
    ("UP / DOWN, wheel", "scroll the tree"), ("F1-F7", "layers (F7 labels and legend)"),
    ("H or ?", "this help"), ("Q / ESC", "quit"),
)
FOLLOW_SLACK_S = 1.5  # following the live edge, the position is never further behind it than this
_SEARCH_FOUND = (150, 200, 255)
_SEARCH_DIM = (140, 145, 160)


def _is_condition(text: str) -> bool:
    """A ":" makes a condition ("blue2: decision == 'kick'"); a node path's "::" does not."""
    return ":" in text.replace("::", "")


@dataclass
class SearchBox:
    """The viewer's search: the box's text and what the last run found (see the module docstring)."""

    text: str = ""
    editing: bool = False                 # keys go to the box
    fresh: bool = False                   # the text is the last one, selected: typing replaces it
    visible: bool = False                 # the box is drawn (also after a run, with its result)
    ran: str | None = None                # the text of the last run (None: nothing run yet)
    note: str = ""                        # the result line of a node search, or an error
    error: bool = False                   # note is an error (drawn red)
    found: bool = False                   # note names a node found (else: nothing found)
    condition: str | None = None          # the condition whose ranges are shown
    ranges: list[tuple[float, float, int, int]] = field(default_factory=list)  # as find_ranges gives
    range_steps: list[tuple[int, int]] = field(default_factory=list)           # the same, as steps
    matches: list[int] = field(default_factory=list)                           # node uids
    match_index: int = -1
    match_robot: str | None = None        # the robot whose tree the matches are of


class _McapPacer(Pacer):
    """The viewer's pacer with the replay's speeds (0.01 .. 20, no "max")."""

    def set_speed(self, speed: float) -> None:
        if math.isnan(speed) or speed <= 0.0:
            raise ValueError(f"speed must be positive, got {speed}")
        self.speed = min(SPEEDS[-1], max(SPEEDS[0], speed))
        self._debt_s = 0.0

    def faster(self) -> None:
        self.set_speed(next((s for s in SPEEDS if s > self.speed + 1e-9), SPEEDS[-1]))

    def slower(self) -> None:
        self.set_speed(next((s for s in reversed(SPEEDS) if s < self.speed - 1e-9), SPEEDS[0]))

    def steps_due(self, wall_elapsed_s: float) -> int:
        steps, self._single_steps = self._single_steps, 0
        if self.paused:
            return steps
        # the base caps the debt at a few frames' worth, which at x0.01 never reaches one step
        self._debt_s = min(self._debt_s + wall_elapsed_s * self.speed, max(self.dt_s, 0.15 * self.speed))
        whole = int(self._debt_s / self.dt_s + 1e-9)
        self._debt_s -= whole * self.dt_s
        return steps + whole


class McapViewer(Viewer):
    """The field (left, with a timeline below) and the ``TreePanel`` (right) on a McapReplaySource."""

    PANEL_WIDTH_PX = 470            # the tree panel at the default size; ``layout`` scales it
    PANEL_FRACTION = 0.36
    PANEL_LIMITS_PX = (380, 680)
    TIMELINE_PX = 26                # at the base text size; ``timeline_px_for`` scales it with the window
    SEARCH_NOTE_LINES = 3           # the search box's result wraps on at most this many lines

    def __init__(self, source: McapReplaySource, size_px: tuple[int, int] = (1480, 820), speed: float = 1.0) -> None:
        super().__init__(source, size_px=size_px)
        self.replay = source
        self.pacer = _McapPacer(dt_s=source.dt_s)
        self.pacer.set_speed(speed)
        self.panel = TreePanel(scale=self.renderer.scale)
        self.following = self.live                  # playing follows the live edge (END: again)
        self.reconnecting: threading.Thread | None = None
        self.reconnect_error = ""                    # why the last reconnect failed ("" : it did not)
        self._reconnected: list[object] = []         # the reconnect's result: a log, or why it failed
        self.opened_logs: list[McapLog] = []         # connected by this window (R): closed with it
        self._closing = False
        self.live_band: pygame.Rect | None = None    # where the last frame drew the stream's state
        self.bookmarks: list[int] = []
        self.search = SearchBox()
        self.show_help = False                       # H or ?: the keys over the field
        self.hover: tuple[int, int] | None = None    # the mouse over the timeline: its events' labels
        self.state.selected = source.log.robots[0] if source.log.robots else None
        # told after every frame's move (replay --groot: the served robot follows the position)
        self.on_frame: Callable[[McapReplaySource], None] | None = None

    # --- layout -----------------------------------------------------------------------------

    @classmethod
    def timeline_px_for(cls, height_px: int) -> int:
        """The timeline's height in a window ``height_px`` tall (it grows with the text)."""
        return int(round(cls.TIMELINE_PX * ui_scale(height_px)))

    @classmethod
    def field_size_for(cls, size_px: tuple[int, int]) -> tuple[int, int]:
        """The field's area: left of the tree panel, above the timeline."""
        return (size_px[0] - cls.panel_width_for(size_px[0]), size_px[1] - cls.timeline_px_for(size_px[1]))

    def layout(self, size_px: tuple[int, int]) -> None:
        """As the viewer's, and the tree panel's text follows the window's height."""
        super().layout(size_px)
        panel = getattr(self, "panel", None)  # None while the base class's __init__ lays out
        if panel is not None:
            panel.set_scale(self.renderer.scale)

    @property
    def search_px(self) -> int:
        """The search box's height: its line and its result's lines."""
        return (1 + max(1, len(self._search_note_lines()))) * self.panel.font.get_linesize() + 8

    def _search_note_lines(self) -> list[str]:
        """The search result wrapped to the box (at most SEARCH_NOTE_LINES, the last elided)."""
        note, _colour = self._search_result()
        if not note:
            return []
        font, width = self.panel.font, self.panel_width_px - 10
        lines = wrap_text(note, font, width)
        if len(lines) > self.SEARCH_NOTE_LINES:
            rest = " ".join(line.strip() for line in lines[self.SEARCH_NOTE_LINES - 1:])
            lines = lines[:self.SEARCH_NOTE_LINES - 1] + [elide_middle(rest, font, width)]
        return lines

    @property
    def panel_rect(self) -> pygame.Rect:
        return pygame.Rect(self.size_px[0] - self.panel_width_px, 0, self.panel_width_px, self.size_px[1])

    @property
    def search_rect(self) -> pygame.Rect:
        """The search box, over the top of the panel (the tree is drawn below it while it shows)."""
        r = self.panel_rect
        return pygame.Rect(r.left, r.top, r.width, self.search_px)

    @property
    def tree_panel_rect(self) -> pygame.Rect:
        """Where the TreePanel draws: the panel, less the search box while it shows."""
        r = self.panel_rect
        if not self.search.visible:
            return r
        search_px = self.search_px
        return pygame.Rect(r.left, r.top + search_px, r.width, r.height - search_px)

    @property
    def timeline_rect(self) -> pygame.Rect:
        w = self.size_px[0] - self.panel_width_px
        h = self.timeline_px_for(self.size_px[1])
        return pygame.Rect(0, self.size_px[1] - h, w, h)

    def _x_of(self, step: int) -> int:
        r, log = self.timeline_rect, self.replay.log
        span = max(1, log.last_step - log.first_step)
        return r.left + 6 + int((step - log.first_step) / span * (r.width - 12))

    def _step_of(self, x_px: int) -> int:
        r, log = self.timeline_rect, self.replay.log
        frac = (x_px - r.left - 6) / max(1, r.width - 12)
        return log.first_step + int(round(frac * (log.last_step - log.first_step)))

    # --- drawing ------------------------------------------------------------------------------

    def render(self, surface: pygame.Surface) -> Scene:
        source = self.replay
        scene = source.scene(self.state.selected)
        scene.speed_label = f"{'paused' if self.pacer.paused else 'playing'} x{self.pacer.speed:g}  " \
                            f"step {source.position}/{source.log.last_step}{self.live_tag()}"
        self.renderer.set_mirrored(self.state.mirrored)
        self.renderer.draw(surface, scene, self.state.layers, self.state.selected)
        self._draw_timeline(surface)
        if self.state.selected is not None:
            state = source.robot_state(self.state.selected)
            if state.missing is not None:
                title = f"{self.state.selected}  step {source.position}  state unknown: steps missing before it"
            elif source.log.node_data:
                title = (f"{self.state.selected}  step {source.position}  tick {state.tick}  "
                         f"({len(state.tree['nodes'])} nodes)")
            else:  # converted from JSON lines: the root status, no nodes
                root = state.record.root if state.record is not None else 0
                title = (f"{self.state.selected}  step {source.position}  root {lf.status_name(root)}  "
                         "(no node data: converted from JSON lines)")
            key = self.panel.history_key
            history = source.key_history(self.state.selected, key) if key is not None else None
            self.panel.draw(surface, self.tree_panel_rect, state, title, history)
        else:
            surface.fill(PANEL_BG, self.panel_rect)
        if self.search.visible:
            self._draw_search(surface)
        field_rect = pygame.Rect(0, self.renderer.banner_height_px, self.size_px[0] - self.panel_width_px,
                                 self.timeline_rect.top - self.renderer.banner_height_px)
        top = field_rect.top
        status = self.live_status()
        self.live_band = None
        if status is not None:
            self.live_band = draw_band(surface, pygame.Rect(field_rect.left, top, field_rect.width, 0), status[0],
                                       status[1], self.renderer.font(), max_lines=3)
            top = self.live_band.bottom
        self.stale_rects = self.draw_stale_trees(surface, scene.stale_trees, field_rect, top)
        if self.hover is not None:
            self._draw_hover(surface)
        if self.show_help:
            draw_help(surface, field_rect, REPLAY_KEYS, self.renderer.font(small=True))
        self.toast_rects = draw_toasts(surface, field_rect, self._toast_views(), self.renderer.font())
        self._last_scene = scene
        self.frames += 1
        return scene

    def timeline_labels(self, x_px: int, reach_px: int = 5) -> list[str]:
        """The labels of the events and bookmarks drawn within ``reach_px`` of ``x_px`` on the
        timeline (what hovering shows)."""
        out = [_event_text(e) for e in self.replay.log.events if abs(self._x_of(int(e["step"])) - x_px) <= reach_px]
        out += [
            f"t={s * self.replay.dt_s:.2f}s bookmark" for s in self.bookmarks if abs(self._x_of(s) - x_px) <= reach_px
        ]
        return out

    def _draw_hover(self, surface: pygame.Surface) -> None:
        """The labels of the timeline's marks under the mouse, in a box above the timeline."""
        labels = self.timeline_labels(self.hover[0])[:8]
        if not labels:
            return
        font = self.renderer.font(small=True)
        h = font.get_linesize()
        w = max(font.size(t)[0] for t in labels) + 10
        r = self.timeline_rect
        box = pygame.Rect(0, 0, w, len(labels) * h + 6)
        box.bottomleft = (min(max(0, self.hover[0] - w // 2), r.right - w), r.top - 2)
        pygame.draw.rect(surface, PANEL_BG, box)
        pygame.draw.rect(surface, (90, 95, 110), box, 1)
        for i, text in enumerate(labels):
            surface.blit(font.render(text, True, TEXT), (box.left + 5, box.top + 3 + i * h))

    def _draw_timeline(self, surface: pygame.Surface) -> None:
        r = self.timeline_rect
        surface.fill(PANEL_BG, r)
        mid = r.centery
        for first, last in self.search.range_steps:  # under the line and the marks: they stay readable
            x0 = self._x_of(first)
            pygame.draw.rect(surface, _RANGE_BAND, (x0, r.top + 6, max(2, self._x_of(last) - x0 + 1), r.height - 12))
        pygame.draw.line(surface, (90, 95, 110), (r.left + 6, mid), (r.right - 6, mid), 3)
        pygame.draw.line(surface, (150, 170, 220), (r.left + 6, mid), (self._x_of(self.replay.position), mid), 3)
        for event in self.replay.log.events:
            x = self._x_of(int(event["step"]))
            pygame.draw.line(surface, _EVENT_COLOURS.get(event.get("kind"), (255, 160, 60)), (x, r.top + 5),
                             (x, r.bottom - 5), 1)
        for step in self.bookmarks:
            x = self._x_of(step)
            pygame.draw.polygon(surface, _BOOKMARK, [(x - 4, r.top + 2), (x + 4, r.top + 2), (x, r.top + 9)])
        x = self._x_of(self.replay.position)
        pygame.draw.rect(surface, TEXT, (x - 2, r.top + 3, 5, r.height - 6))

    def _search_result(self) -> tuple[str, tuple[int, int, int]]:
        """The box's second line and its colour."""
        box = self.search
        if box.note:
            return box.note, _SEARCH_ERROR if box.error else _SEARCH_FOUND if box.found else _SEARCH_NOTE
        if box.ran is not None and box.ran == box.condition:
            n = len(box.range_steps)
            inside = self._range_index()
            if inside is None:
                return f"{n} ranges  (M / SHIFT+M: next / previous)", _RANGE_BAND
            t0, t1 = box.ranges[inside][:2]
            return f"{n} ranges, in {inside + 1}/{n}: t={t0:.2f}-{t1:.2f}s  (M / SHIFT+M)", _RANGE_BAND
        if box.editing:
            return "RETURN: search   ESC: cancel   robot: condition  or a node name", _SEARCH_DIM
        return "", _SEARCH_DIM

    def _draw_search(self, surface: pygame.Surface) -> None:
        r = self.search_rect
        font, box = self.panel.font, self.search
        surface.fill(_SEARCH_BG, r)
        pygame.draw.rect(surface, _RANGE_BAND if box.editing else (70, 75, 90), r, 1)
        width = r.width - 10
        text = "/" + box.text + ("_" if box.editing and not box.fresh else "")
        while font.size(text)[0] > width and len(text) > 4:  # a long text: show its end (the cursor)
            text = "..." + text[4:]
        img = font.render(text, True, TEXT)
        if box.editing and box.fresh:  # selected: the next character replaces it
            surface.fill((60, 80, 130), (r.left + 5 + font.size("/")[0], r.top + 2,
                                         img.get_width() - font.size("/")[0], font.get_linesize()))
        surface.blit(img, (r.left + 5, r.top + 3))
        _note, colour = self._search_result()
        for i, line in enumerate(self._search_note_lines(), start=1):  # wrapped, not cut
            surface.blit(font.render(line, True, colour), (r.left + 5, r.top + 3 + i * font.get_linesize()))

    # --- a live stream ------------------------------------------------------------------------

    @property
    def live(self) -> bool:
        """Whether the log is a live stream (``replay --connect``)."""
        return bool(getattr(self.replay.log, "live", False))

    def live_tag(self) -> str:
        """The banner's word on the live stream: LIVE at the edge, how far behind it, or stopped."""
        if not self.live:
            return ""
        log = self.replay.log
        if log.closed:
            return "   STREAM LOST" if getattr(log, "end", None) == "lost" else "   STREAM ENDED"
        behind_s = (log.last_step - self.replay.position) * self.replay.dt_s
        if self.following and not self.pacer.paused:
            return "   LIVE"
        return f"   {behind_s:.1f} s behind live (END: follow)"

    def live_status(self) -> tuple[str, str] | None:
        """(text, level) of the persistent band on the live stream's state; None while it streams
        (or for a file)."""
        if not self.live:
            return None
        log = self.replay.log
        where = f"{getattr(log, 'host', '?')}:{getattr(log, 'port', '?')}"
        if self.reconnecting is not None:
            return f"reconnecting to {where} ... (waiting for a keyframe of every robot)", "info"
        if self.reconnect_error:
            return f"reconnect to {where} failed: {self.reconnect_error}   R to try again", "error"
        if not log.closed:
            return None
        last = f"step {log.last_step}, t={log.last_step * self.replay.dt_s:.2f} s"
        if getattr(log, "end", None) == "lost":
            return (f"STREAM LOST: {log.reason or 'the connection closed'}. The last step received is shown "
                    f"({last}).   R to reconnect", "error")
        return f"STREAM ENDED: {log.reason or 'the source closed it'} (last {last}).   R to reconnect", "warn"

    def follow_live(self) -> None:
        """Jump to the newest step and keep following the edge as steps arrive (playing)."""
        self.replay.seek(self.replay.log.last_step)
        if self.pacer.paused:
            self.pacer.toggle_pause()
        self.following = True

    def advance(self, wall_elapsed_s: float) -> int:
        """The steps the frame owes; following the live edge, never more than FOLLOW_SLACK_S
        behind it (a stream faster than the asked speed is caught up with)."""
        self.poll_reconnect()
        done = super().advance(wall_elapsed_s)
        if self.following:
            log = self.replay.log
            if self.pacer.paused or not self.live:
                self.following = False
            elif (log.last_step - self.replay.position) * self.replay.dt_s > FOLLOW_SLACK_S:
                self.replay.seek(log.last_step)
        return done

    def reconnect(self) -> bool:
        """Connect again to the live stream's address, in the background (the window keeps
        drawing; the band says so); False when this is no live stream or a reconnect runs."""
        log = self.replay.log
        if not self.live or self.reconnecting is not None or not hasattr(log, "reconnect"):
            return False
        self.reconnect_error = ""
        result: list[object] = []

        def work() -> None:
            try:
                got: object = log.reconnect()
            except ReplayError as exc:
                got = exc.message or str(exc)
            except OSError as exc:
                got = str(exc)
            if self._closing and not isinstance(got, str):
                got.close()  # the window closed meanwhile
            result.append(got)

        self._reconnected = result
        self.reconnecting = threading.Thread(target=work, name="soccerbt-reconnect", daemon=True)
        self.reconnecting.start()
        return True

    def poll_reconnect(self) -> None:
        """Take the background reconnect's result once it is there: the new stream, or why not."""
        if self.reconnecting is None or self.reconnecting.is_alive():
            return
        self.reconnecting = None
        got = self._reconnected[0] if self._reconnected else "no answer"
        if isinstance(got, str):
            self.reconnect_error = got
            self.notify(f"reconnect failed: {got}", "error", echo=False)
            return
        self.adopt(got)  # type: ignore[arg-type]

    def adopt(self, log: McapLog) -> None:
        """Show ``log`` (a new connection) in place of the current one, following its live edge."""
        old = self.replay.log
        self.replay = self.source = McapReplaySource(log)  # type: ignore[assignment]
        self.opened_logs.append(log)
        if self.state.selected not in log.robots:
            self.state.selected = log.robots[0] if log.robots else None
        self.bookmarks = []
        self.clear_search()
        self.pacer.dt_s = self.replay.dt_s
        self.layout(self.size_px)  # the new match may play on another field
        self.follow_live()
        if old is not log:
            old.close()
        self.notify(f"reconnected to {getattr(log, 'host', '?')}:{getattr(log, 'port', '?')}: following live", "ok",
                    echo=False)

    def close_logs(self) -> None:
        """Close the logs this window connected itself (a reconnect still under way closes its own)."""
        self._closing = True
        for log in self.opened_logs:
            log.close()

    # --- searching ----------------------------------------------------------------------------

    def open_search(self) -> None:
        """Start editing the box; the last text stays, selected as in a browser's find bar: typing
        replaces it, BACKSPACE edits it (a typo in a condition), RETURN runs it again."""
        box = self.search
        box.editing = box.visible = True
        box.fresh = bool(box.text)

    def run_search(self) -> None:
        """Run the box's text: a condition (ranges) or a node name (select, reveal); RETURN on the
        same text again goes to the next match."""
        box = self.search
        text = box.text.strip()
        box.editing = False
        if not text:
            self.clear_search()
            return
        again = text == box.ran and not box.error
        box.visible, box.ran, box.note, box.error, box.found = True, text, "", False, False
        if _is_condition(text):
            if again and text == box.condition:
                self.next_range(forward=True)
            else:
                self._run_condition(text)
        else:
            self._run_node_search(text, again)

    def _run_condition(self, text: str) -> None:
        box, log = self.search, self.replay.log
        notes: list[str] = []
        try:
            ranges = find_ranges(log, text, notes)
        except Exception as exc:  # noqa: BLE001 - a bad condition, an unknown robot: say so, keep running
            # one line: a script error's last line says what is wrong (its first repeats the text);
            # a ReplayError's path is the viewer's own log
            lines = [ln.strip() for ln in str(exc).replace(f"{log.path}: ", "").splitlines() if ln.strip()]
            if isinstance(exc, ConditionError) and lines:
                lines = lines[:1]  # its first line says what is wrong and where; then the caret
            box.note, box.error = f"error: {lines[-1] if lines else type(exc).__name__}", True
            return
        box.condition, box.ranges = text, ranges
        box.range_steps = [(log.step_at(t0), log.step_at(t1)) for t0, t1, _k0, _k1 in ranges]
        if notes:  # an ambiguous name: say so (the ranges hold where any of its nodes does)
            box.note = f"{len(ranges)} ranges; note: {notes[0]}"
        if box.range_steps and self._range_index() is None:
            # the first range after the position (inside one: stay), else round to the first of all
            position = self.replay.position
            self._pause()
            self.replay.seek(next((a for a, _b in box.range_steps if a > position), box.range_steps[0][0]))

    def _run_node_search(self, text: str, again: bool) -> None:
        box, robot = self.search, self.state.selected
        if robot is None:
            box.note, box.error = "select a robot first (TAB)", True
            return
        state = self.replay.robot_state(robot)
        if again and box.match_robot == robot and box.matches:
            box.match_index = (box.match_index + 1) % len(box.matches)
        else:
            box.matches, box.match_robot, box.match_index = self.panel.find_nodes(state, text), robot, 0
        if not box.matches:
            box.note = f"no node of {robot} matches {text!r}"
            box.ran = None  # RETURN again searches again (after TAB the tree may differ)
            return
        uid = box.matches[box.match_index]
        self.panel.reveal(uid, state)
        node = self.panel.shape(state.tree).by_uid[uid]
        box.found = True
        shared = sum(1 for u in box.matches if self.panel.shape(state.tree).by_uid[u].get("name") == node.get("name"))
        same = f"  ({shared} nodes named {node.get('name')}: #UID or a path picks one)" if shared > 1 else ""
        box.note = f"node {box.match_index + 1}/{len(box.matches)}: {node.get('name')} #{uid}  (RETURN: next){same}"

    def _range_index(self) -> int | None:
        """The index of the range holding the position, if any."""
        position = self.replay.position
        return next((i for i, (a, b) in enumerate(self.search.range_steps) if a <= position <= b), None)

    def next_range(self, forward: bool = True) -> None:
        """Seek to the start of the next range (or the previous one wholly before the position)."""
        steps, position = self.search.range_steps, self.replay.position
        if forward:
            target = next((a for a, _b in steps if a > position), None)
        else:
            target = next((a for a, b in reversed(steps) if b < position), None)
        if target is not None:
            self._pause()
            self.replay.seek(target)

    def clear_search(self) -> None:
        self.search = SearchBox()

    def _search_key(self, event: pygame.event.Event) -> bool:
        """A key while the box is being edited: all of them go to the box."""
        box = self.search
        key, mod, char = event.key, getattr(event, "mod", 0), getattr(event, "unicode", "")
        if key == pygame.K_ESCAPE:  # cancel the edit: back to the last run's text, or no box
            box.editing = False
            if box.ran is None and not box.note:
                box.visible = False
            else:
                box.text = box.ran or box.text
        elif key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.run_search()
        elif key == pygame.K_BACKSPACE:
            box.text = "" if mod & pygame.KMOD_CTRL else box.text[:-1]
        elif key == pygame.K_u and mod & pygame.KMOD_CTRL:
            box.text = ""
        elif char and char.isprintable() and not mod & pygame.KMOD_CTRL:
            box.text = char if box.fresh else box.text + char
        box.fresh = False
        return True

    # --- events -------------------------------------------------------------------------------

    def _dispatch(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.KEYDOWN:
            if self.search.editing:
                return self._search_key(event)
            handled = self._mcap_key(event)
            return handled if handled is not None else self._handle_key(event)
        if event.type == pygame.MOUSEMOTION:
            self.hover = event.pos if self.timeline_rect.collidepoint(*event.pos) else None
            return True
        if event.type == pygame.MOUSEWHEEL:
            x, y = pygame.mouse.get_pos()
            tree = self.tree_panel_rect
            if tree.collidepoint(x, y) and y > tree.top + tree.height * self.panel.tree_fraction:
                self.panel.scroll_blackboard(-3 * event.y)
            else:
                self.panel.scroll(-3 * event.y)
            return True
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            x, y = event.pos
            if self.timeline_rect.collidepoint(x, y):
                self.following = False
                self.replay.seek(self._step_of(x))
            elif any(r.collidepoint(x, y) for r in self.stale_rects) or (
                    self.state.show_tree_error and self.stale_rects and x < self.panel_rect.left):
                self.state.show_tree_error = not self.state.show_tree_error
            elif self.search.visible and self.search_rect.collidepoint(x, y):
                self.open_search()
            elif self.panel_rect.collidepoint(x, y) and self.state.selected is not None:
                self.panel.click(x, y, self.replay.robot_state(self.state.selected))
            else:
                hit = self.robot_at(x, y)
                if hit is not None:
                    self._select(hit)
        return True

    def _select(self, robot: str) -> None:
        if robot != self.state.selected:
            self.state.selected = robot
            self.panel.offset = 0  # same tree shape, other robot: the uid selection stays meaningful

    def _pause(self) -> None:
        self.following = False
        if not self.pacer.paused:
            self.pacer.toggle_pause()

    def _mcap_key(self, event: pygame.event.Event) -> bool | None:
        """True/False when the key is one of the replay's (False: quit), None to pass it on."""
        key, mod = event.key, getattr(event, "mod", 0)
        src, shift = self.replay, bool(mod & pygame.KMOD_SHIFT)
        robots = src.log.robots
        if key == pygame.K_ESCAPE and self.panel.history_key is not None:
            self.panel.history_key = None
        elif key == pygame.K_ESCAPE and (self.search.visible or self.search.range_steps):
            self.clear_search()
        elif key in (pygame.K_q, pygame.K_ESCAPE):
            return False
        elif key == pygame.K_h or getattr(event, "unicode", "") == "?":  # ? before /: SHIFT+/ on many keyboards
            self.show_help = not self.show_help
        elif key == pygame.K_SLASH or key == pygame.K_KP_DIVIDE or getattr(event, "unicode", "") == "/" or (
                key == pygame.K_f and mod & pygame.KMOD_CTRL):
            self.open_search()
        elif key in (pygame.K_RETURN, pygame.K_KP_ENTER) and self.search.visible:
            self.run_search()
        elif key == pygame.K_m and self.search.range_steps:
            self.next_range(forward=not shift)
        elif key == pygame.K_SPACE:
            self.pacer.toggle_pause()
            self.following = self.following and not self.pacer.paused
        elif key in (pygame.K_RIGHT, pygame.K_LEFT):
            sign = 1 if key == pygame.K_RIGHT else -1
            self.following = False
            if mod & pygame.KMOD_ALT:
                src.jump(sign * 60.0)
            elif mod & pygame.KMOD_CTRL:
                src.jump(sign * 10.0)
            elif shift:
                src.jump(sign * 1.0)
            else:
                self._pause()
                src.step(sign)
        elif key in (pygame.K_PAGEDOWN, pygame.K_PAGEUP):
            self.following = False
            src.jump(10.0 if key == pygame.K_PAGEDOWN else -10.0)
        elif key in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS):
            self.pacer.faster()
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
            self.pacer.slower()
        elif key == pygame.K_HOME:
            self.following = False
            src.seek(src.log.first_step)
        elif key == pygame.K_END:
            if self.live and not src.log.closed:
                self.follow_live()  # the newest step, and on with the steps as they arrive
            else:
                src.seek(src.log.last_step)
                self._pause()
        elif key == pygame.K_r and self.live:
            self.reconnect()
        elif key == pygame.K_t:
            self.state.show_tree_error = not self.state.show_tree_error and bool(self.stale_rects)
        elif key == pygame.K_TAB and robots:
            i = robots.index(self.state.selected) if self.state.selected in robots else -1
            self._select(robots[(i + (-1 if shift else 1)) % len(robots)])
        elif key == pygame.K_n and self.state.selected is not None and self.panel.selected is not None:
            found = src.find_transition(self.state.selected, self.panel.selected, forward=not shift)
            if found is not None:
                self._pause()
                src.seek(found)
                self.notify(f"#{self.panel.selected}: its result changes at t={found * src.dt_s:.2f}s (step {found})",
                            echo=False)
            else:
                self.notify(
                    f"#{self.panel.selected}: no {'later' if not shift else 'earlier'} change", "warn", echo=False
                )
        elif key == pygame.K_e:
            found = src.find_event(forward=not shift)
            if found is not None:
                self._pause()
                src.seek(found)
                self.notify("event: " + "; ".join(_event_text(e) for e in src.events_at(found)), echo=False)
            else:
                self.notify(f"no {'later' if not shift else 'earlier'} event", "warn", echo=False)
        elif key == pygame.K_b:
            if src.position not in self.bookmarks:
                self.bookmarks.append(src.position)
                self.notify(f"bookmark added at t={src.t_s:.2f}s (step {src.position}); "
                            f"{len(self.bookmarks)} bookmark(s)", "ok", echo=False)
            else:
                self.notify(f"already bookmarked: t={src.t_s:.2f}s", echo=False)
        elif key == pygame.K_c and self.state.selected is not None and self.panel.selected is not None:
            self.panel.toggle(self.panel.selected, src.robot_state(self.state.selected))
        elif key in (pygame.K_UP, pygame.K_DOWN):
            self.panel.scroll(-3 if key == pygame.K_UP else 3)
        else:
            return None
        return True

    def run(self, fps: int = 60) -> None:
        """Loop until Q / ESC / the window closes; playback pauses at the end of the log (of a
        live stream: once it has stopped)."""
        try:
            run_replay_window(self, fps)
        finally:
            self.close_logs()


def run_replay_window(viewer: McapViewer, fps: int = 60) -> None:
    """The window loop of the replay viewer: events, pacing, drawing, until Q / ESC / the window
    closes. At the end of the log playback pauses (an off-screen window closes instead: nobody
    can press a key)."""
    viewer.open_window(f"soccerbt replay {viewer.replay.log.path.name}")
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
        if viewer.on_frame is not None:
            viewer.on_frame(viewer.replay)
        at_end = viewer.replay.finished()
        log = viewer.replay.log
        if at_end and not viewer.pacer.paused and (not getattr(log, "live", False) or log.closed) \
                and viewer.reconnecting is None:
            viewer.pacer.toggle_pause()  # a live log (replay --connect) grows: playing follows its edge
        viewer.render(viewer._screen)
        pygame.display.flip()
        if at_end and off_screen:
            break
        clock.tick(fps)
    pygame.display.quit()


def _init_pygame() -> None:
    # deferred: start-up: the live viewer's module (pygame) only when a window opens
    from soccerbt.tools.viewer.viewer import prepare_pygame

    prepare_pygame()


def _prepared(log: McapLog, at_s: float | None, select: str | None, speed: float = 1.0) -> McapViewer:
    source = McapReplaySource(log)
    if at_s is not None:
        source.seek_time(at_s)
    viewer = McapViewer(source, speed=speed)
    if select is not None:
        log.check_robot(select)
        viewer.state.selected = select
    return viewer


def view_mcap(log: McapLog, at_s: float | None = None, speed: float = 1.0, select: str | None = None,
              paused: bool = False, on_frame: Callable[[McapReplaySource], None] | None = None) -> int:
    """Open the replay window on ``log`` (keys: module docstring); 0 when closed. ``on_frame``
    is told the source after every frame's move (``replay --groot``)."""
    _init_pygame()
    viewer = _prepared(log, at_s, select, speed)
    viewer.pacer.paused = paused
    viewer.on_frame = on_frame
    viewer.run()
    return 0


def save_mcap_screenshot(log: McapLog, path: str | Path, at_s: float | None = None,
                         select: str | None = None, node: str | None = None) -> Path:
    """The frame at ``at_s`` (default: the last step) as PNG, rendered off-screen; ``node`` (a
    name, #UID or path of the selected robot's tree: the first node it names) is selected, so
    that the details show its reason and ports."""
    _init_pygame()
    viewer = _prepared(log, log.duration_s if at_s is None else at_s, select)
    viewer.pacer.paused = True
    if node is not None and select is not None:
        state = viewer.source.robot_state(select)
        rows = resolve_nodes(state.tree, node)
        if not rows:
            raise ReplayError(log.path, None, f"{select}'s tree has no node {node!r}")
        viewer.panel.reveal(rows[0]["uid"], state)
    return viewer.screenshot(Path(path))
