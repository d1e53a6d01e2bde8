"""Drawing a ``Scene`` onto a pygame surface, to scale: field, robots, ball, estimates, banner.

``FieldRenderer`` maps world metres to pixels (optionally mirrored, to look from the red
team's side), caches the static field, and draws each layer when it is switched on. It never
opens a window: give it any surface (a window's or an off-screen one for PNG screenshots).
A fallen robot is a grey disc; a penalised one (removed by the referee) is drawn beside the
field, faded and crossed out; a robot a person drives or assists has an orange ring; a decision
label whose branch is not running in this tick (``SceneRobot.decision_stale``) reads "(kick?)" in
grey; a legend in the field's bottom-right corner explains the marks the frame shows.

Text scales with the window: ``ui_scale(height_px)`` is 1 up to 720 rows and grows with the
height beyond (1.5 at 1080), and the fonts, the banner and the bands follow it. Text that may
be long is never cut off silently: ``elide_middle`` keeps a name's start and end (a Booster
node's ``CamTrackBall`` part and its ``#uid``), ``wrap_text`` breaks text into lines (a long path
between its characters), ``draw_band`` draws a persistent, wrapped message band (a stream that
ended or was lost, a tree that did not reload) and ``draw_text_box`` a whole text, wrapped.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pygame

from soccerbt.tools.viewer.scene import Scene, SceneRobot
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, Team

GRASS = (34, 120, 50)
GRASS_DARK = (30, 108, 45)
LINE = (245, 245, 245)
GOAL_NET = (200, 200, 200)
BALL = (255, 140, 0)
TEAM_COLOURS = {Team.BLUE: (40, 100, 235), Team.RED: (225, 45, 45)}
ESTIMATE_COLOURS = {Team.BLUE: (150, 190, 255), Team.RED: (255, 165, 165)}
PARTICLE_COLOURS = {Team.BLUE: (120, 170, 255), Team.RED: (255, 130, 130)}
PATH = (250, 230, 60)
KICK = (255, 0, 200)
SELECTED = (255, 255, 0)
PANEL_BG = (25, 28, 34)
TEXT = (230, 230, 230)
STATUS_COLOURS = {
    "SUCCESS": (80, 210, 90),
    "FAILURE": (235, 70, 70),
    "RUNNING": (240, 200, 60),
    "SKIPPED": (120, 120, 140),
}
IDLE_COLOUR = (160, 160, 160)
ESTOP_BG = (200, 0, 0)  # the emergency-stop band under the banner
ESTOP_TEXT = (255, 255, 255)
GOTO = (0, 230, 255)  # click-to-go target marker
NOTICE_COLOURS = {"info": (60, 70, 90), "ok": (30, 120, 60), "warn": (170, 120, 0), "error": (170, 30, 30)}

ROBOT_RADIUS_M = 0.25
FALLEN = (90, 90, 90)         # a fallen robot's disc
PENALISED = (255, 90, 90)     # the cross over a penalised robot beside the field
CONTROL = (255, 170, 0)       # the ring of a robot a person drives (manual) or assists
STALE = (150, 150, 150)       # a decision written by a branch that is not running now
BENCH_SPACING_M = 0.7         # penalised robots stand this far apart beside the field

# The layers the viewer can toggle, with the key that toggles each one.
# (function keys, so that letters stay free for the keyboard pad)
LAYER_KEYS: dict[str, str] = {
    "estimates": "f1",
    "particles": "f2",
    "covariance": "f3",
    "ball_estimates": "f4",
    "paths": "f5",
    "kick": "f6",
    "labels": "f7",
}
DEFAULT_LAYERS = frozenset({"estimates", "ball_estimates", "paths", "kick", "labels", "covariance"})
ALL_LAYERS = frozenset(LAYER_KEYS)


BAND_COLOURS = {"info": (45, 70, 120), "ok": (30, 110, 60), "warn": (150, 100, 0), "error": (165, 25, 25)}
BASE_ROWS_PX = 720            # the window height the fonts are sized for; taller windows scale them
MAX_UI_SCALE = 3.0
ELLIPSIS = "..."


UI_SCALE_STEP = 0.25           # the scale moves in steps: fonts at a few sizes, a layout that holds still


def ui_scale(height_px: int) -> float:
    """The text's scale in a window ``height_px`` tall: 1 up to BASE_ROWS_PX, proportional above
    in steps of UI_SCALE_STEP (1.25 from 900 rows, 1.5 at 1080), at most MAX_UI_SCALE."""
    steps = int(height_px / BASE_ROWS_PX / UI_SCALE_STEP + 1e-9)
    return max(1.0, min(MAX_UI_SCALE, steps * UI_SCALE_STEP))


def elide_middle(text: str, font: pygame.font.Font, width_px: int) -> str:
    """``text`` with its middle replaced by "..." so that it fits ``width_px`` (start and end
    kept: a long node name or path stays recognisable); unchanged when it fits."""
    if font.size(text)[0] <= width_px:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the most characters kept, split between the start and the end
        mid = (lo + hi + 1) // 2
        head = (mid + 1) // 2
        if font.size(text[:head] + ELLIPSIS + text[len(text) - (mid - head):])[0] <= width_px:
            lo = mid
        else:
            hi = mid - 1
    head = (lo + 1) // 2
    return text[:head] + ELLIPSIS + text[len(text) - (lo - head):] if lo else ELLIPSIS


def wrap_text(text: str, font: pygame.font.Font, width_px: int, indent: str = "  ") -> list[str]:
    """``text`` in lines that fit ``width_px``: its own line breaks kept, broken at spaces, a word
    too long for a line (a path) broken between its characters; continuation lines indented.
    Nothing is cut."""
    width_px = max(width_px, font.size("MM")[0])
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if font.size(candidate)[0] <= width_px:
                line = candidate
                continue
            if line.strip():
                lines.append(line)
                line = indent + word
            else:
                line = candidate
            while font.size(line)[0] > width_px and len(line) > len(indent) + 1:
                cut = len(line) - 1  # the longest prefix that fits, at least one character
                while cut > len(indent) + 1 and font.size(line[:cut])[0] > width_px:
                    cut -= 1
                lines.append(line[:cut])
                line = indent + line[cut:]
        lines.append(line)
    return lines


def draw_band(surface: pygame.Surface, rect: pygame.Rect, text: str, level: str, font: pygame.font.Font,
              max_lines: int = 3) -> pygame.Rect:
    """A persistent message band across ``rect``'s width from its top: ``text`` wrapped (at most
    ``max_lines`` lines, the last one elided in the middle when more would be needed); returns
    the band drawn."""
    h = font.get_linesize()
    lines = wrap_text(text, font, rect.width - 16)
    if len(lines) > max_lines:
        lines = lines[:max_lines - 1] + [elide_middle(" ".join(ln.strip() for ln in lines[max_lines - 1:]), font,
                                                      rect.width - 16)]
    band = pygame.Rect(rect.left, rect.top, rect.width, len(lines) * h + 8)
    pygame.draw.rect(surface, BAND_COLOURS.get(level, BAND_COLOURS["info"]), band)
    for i, line in enumerate(lines):
        surface.blit(font.render(line, True, (255, 255, 255)), (band.left + 8, band.top + 4 + i * h))
    return band


def draw_text_box(surface: pygame.Surface, area: pygame.Rect, title: str, text: str,
                  font: pygame.font.Font) -> pygame.Rect:
    """``text`` in full, wrapped, in a box over ``area`` (as high as it needs, within ``area``),
    under ``title``; returns the box."""
    h = font.get_linesize()
    width = area.width - 24
    lines = wrap_text(text, font, width - 16)
    shown = lines[: max(1, (area.height - 24) // h - 1)]
    if len(shown) < len(lines):
        shown[-1] = f"... ({len(lines) - len(shown) + 1} more lines: widen the window)"
    box = pygame.Rect(area.left + 12, area.top + 12, width, (len(shown) + 1) * h + 12)
    shade = pygame.Surface(box.size, pygame.SRCALPHA)
    shade.fill((15, 17, 22, 240))
    surface.blit(shade, box)
    pygame.draw.rect(surface, (235, 90, 90), box, 1)
    surface.blit(font.render(elide_middle(title, font, width - 16), True, (150, 200, 255)), (box.left + 8, box.top + 5))
    for i, line in enumerate(shown, start=1):
        surface.blit(font.render(line, True, TEXT), (box.left + 8, box.top + 5 + i * h))
    return box


_FAR_PX = 1e6     # beyond this a point is not drawn where it is (pygame takes C ints)
_OFF_PX = 100_000  # where such a point is drawn: off every surface


class FieldRenderer:
    """Draws scenes of one field into a rectangle of ``field_size_px`` at the surface's top-left."""

    def __init__(self, field: Field, field_size_px: tuple[int, int], *, mirrored: bool = False,
                 banner_height_px: int | None = None, scale: float = 1.0) -> None:
        self.field = field
        self.scale = scale  # of the text (ui_scale): the fonts, the banner, the bands
        if banner_height_px is None:
            banner_height_px = int(round(34 * scale))
        self.banner_height_px = banner_height_px
        width_px, height_px = field_size_px
        self.size_px = (width_px, height_px)
        outer_x_m = field.length_m + 2.0 * field.border_strip_m
        outer_y_m = field.width_m + 2.0 * field.border_strip_m
        self.px_per_m = min(width_px / outer_x_m, (height_px - banner_height_px) / outer_y_m)
        self.centre_px = (width_px / 2.0, banner_height_px + (height_px - banner_height_px) / 2.0)
        self.mirrored = mirrored
        self._static: pygame.Surface | None = None
        self._font: pygame.font.Font | None = None
        self._small_font: pygame.font.Font | None = None
        self.label_rects: dict[str, pygame.Rect] = {}  # where the last frame put each robot's label

    # --- coordinates ---------------------------------------------------------------------

    def set_mirrored(self, mirrored: bool) -> None:
        """Look from the other side: the static field is symmetric, so only objects move."""
        self.mirrored = mirrored

    def to_px(self, x_m: float, y_m: float) -> tuple[int, int]:
        """World metres to surface pixels (+y up on screen). A NaN, infinite or huge value (a
        damaged log, a diverged estimate) lands far off the surface instead of raising."""
        if self.mirrored:
            x_m, y_m = -x_m, -y_m
        x_px = self.centre_px[0] + x_m * self.px_per_m
        y_px = self.centre_px[1] - y_m * self.px_per_m
        if not (-_FAR_PX < x_px < _FAR_PX and -_FAR_PX < y_px < _FAR_PX):  # NaN fails every test
            return (-_OFF_PX, -_OFF_PX)
        return (int(round(x_px)), int(round(y_px)))

    def to_world(self, x_px: float, y_px: float) -> tuple[float, float]:
        """Surface pixels back to world metres."""
        x_m = (x_px - self.centre_px[0]) / self.px_per_m
        y_m = (self.centre_px[1] - y_px) / self.px_per_m
        return (-x_m, -y_m) if self.mirrored else (x_m, y_m)

    def _screen_angle(self, theta_rad: float) -> float:
        if not math.isfinite(theta_rad):  # a damaged log: draw the heading as 0 rather than fail
            theta_rad = 0.0
        return theta_rad + math.pi if self.mirrored else theta_rad

    def _m(self, metres: float) -> int:
        return max(1, int(round(metres * self.px_per_m)))

    # --- fonts -----------------------------------------------------------------------------

    def font(self, small: bool = False) -> pygame.font.Font:
        if self._font is None:
            if not pygame.font.get_init():
                pygame.font.init()
            self._font = pygame.font.Font(None, int(round(22 * self.scale)))
            self._small_font = pygame.font.Font(None, int(round(17 * self.scale)))
        return self._small_font if small else self._font  # type: ignore[return-value]

    # --- static field ------------------------------------------------------------------------

    def _static_field(self) -> pygame.Surface:
        if self._static is not None:
            return self._static
        f = self.field
        surface = pygame.Surface(self.size_px)
        surface.fill(GRASS)
        # mowing stripes: purely cosmetic, one per metre of field length
        stripe_m = 1.0
        x_m = -f.half_length_m - f.border_strip_m
        while x_m < f.half_length_m + f.border_strip_m:
            if int(round((x_m + 100.0) / stripe_m)) % 2 == 0:
                left, _ = self.to_px(x_m, 0.0)
                right, _ = self.to_px(x_m + stripe_m, 0.0)
                pygame.draw.rect(surface, GRASS_DARK, (min(left, right), self.banner_height_px,
                                                       abs(right - left), self.size_px[1]))
            x_m += stripe_m
        line_px = max(1, self._m(f.line_width_m))
        for seg in f.lines:
            pygame.draw.line(surface, LINE, self.to_px(seg.x0_m, seg.y0_m), self.to_px(seg.x1_m, seg.y1_m), line_px)
        pygame.draw.circle(surface, LINE, self.to_px(0.0, 0.0), self._m(f.centre_circle_radius_m), line_px)
        for sx in (-1.0, 1.0):
            pygame.draw.circle(surface, LINE, self.to_px(sx * (f.half_length_m - f.penalty_mark_distance_m), 0.0),
                               max(2, line_px))
            # goal box behind the goal line
            gx = sx * f.half_length_m
            corners = [self.to_px(gx, f.goal_width_m / 2), self.to_px(gx + sx * f.goal_depth_m, f.goal_width_m / 2),
                       self.to_px(gx + sx * f.goal_depth_m, -f.goal_width_m / 2), self.to_px(gx, -f.goal_width_m / 2)]
            pygame.draw.lines(surface, GOAL_NET, False, corners, max(1, line_px))
        pygame.draw.circle(surface, LINE, self.to_px(0.0, 0.0), max(2, line_px))
        for x_m, y_m in f.goal_posts:
            pygame.draw.circle(surface, LINE, self.to_px(x_m, y_m), self._m(f.goal_post_diameter_m / 2.0) + 1)
        self._static = surface
        return surface

    # --- frame ----------------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, scene: Scene, layers: Iterable[str] = DEFAULT_LAYERS,
             selected: str | None = None) -> None:
        """Draw one frame of ``scene`` with the given layers; ``selected`` is a robot key."""
        layers = frozenset(layers)
        static = self._static_field()
        # the painted field is point-symmetric, so one cached image serves both views
        surface.blit(static, (0, 0))
        if "particles" in layers:
            self._draw_particles(surface, scene.robots)
        for robot in scene.robots:
            if robot.removed:
                continue
            if "paths" in layers and len(robot.path) >= 2:
                pygame.draw.lines(surface, PATH, False, [self.to_px(x, y) for x, y in robot.path], 2)
            if "covariance" in layers and robot.estimate is not None and robot.covariance is not None:
                self._draw_covariance(surface, robot)
            if "estimates" in layers and robot.estimate is not None:
                self._draw_robot_outline(surface, robot.estimate, ESTIMATE_COLOURS[robot.team])
            if "ball_estimates" in layers and robot.ball_estimate is not None:
                pygame.draw.circle(surface, ESTIMATE_COLOURS[robot.team], self.to_px(*robot.ball_estimate),
                                   self._m(self.field.ball_radius_m) + 1, 2)
        for robot in scene.robots:
            if not robot.removed:
                self._draw_robot(surface, robot, layers, robot.key == selected)
            else:
                self._draw_benched(surface, robot, robot.key == selected)
        pygame.draw.circle(surface, BALL, self.to_px(*scene.ball), max(3, self._m(self.field.ball_radius_m)))
        if scene.goto_targets:
            self._draw_goto_targets(surface, scene)
        if "labels" in layers:
            self._draw_labels(surface, scene.robots)
            self._draw_legend(surface, scene)
        self._draw_banner(surface, scene)
        if scene.estop is not None:
            self._draw_estop(surface, scene.estop)
        if scene.status_line:
            text = self.font(small=True).render(scene.status_line, True, TEXT)
            box = text.get_rect(bottomleft=(6, self.size_px[1] - 4)).inflate(8, 4)
            pygame.draw.rect(surface, PANEL_BG, box)
            surface.blit(text, text.get_rect(center=box.center))

    def estop_rect(self) -> pygame.Rect:
        """Where the emergency-stop band is drawn (right under the banner, full width)."""
        return pygame.Rect(0, self.banner_height_px, self.size_px[0], int(round(30 * self.scale)))

    def _draw_estop(self, surface: pygame.Surface, reason: str) -> None:
        rect = self.estop_rect()
        pygame.draw.rect(surface, ESTOP_BG, rect)
        text = "EMERGENCY STOP: every robot frozen" + (f" ({reason})" if reason else "") + \
            "   RETURN / pad START releases"
        label = self.font().render(text, True, ESTOP_TEXT)
        surface.blit(label, label.get_rect(center=rect.center))

    def _draw_goto_targets(self, surface: pygame.Surface, scene: Scene) -> None:
        """A ring with a cross at each pending click-to-go target, a thin line from its robot."""
        r = max(6, self._m(0.18))
        for key, (x_m, y_m) in scene.goto_targets.items():
            cx, cy = self.to_px(x_m, y_m)
            robot = scene.robot(key)
            if robot is not None and not robot.removed:
                pygame.draw.line(surface, GOTO, self.to_px(robot.pose.x_m, robot.pose.y_m), (cx, cy), 1)
            pygame.draw.circle(surface, GOTO, (cx, cy), r, 2)
            pygame.draw.line(surface, GOTO, (cx - r, cy - r), (cx + r, cy + r), 2)
            pygame.draw.line(surface, GOTO, (cx - r, cy + r), (cx + r, cy - r), 2)
            tag = self.font(small=True).render(key, True, GOTO)
            surface.blit(tag, tag.get_rect(midleft=(cx + r + 3, cy)))

    def _draw_labels(self, surface: pygame.Surface, robots: list[SceneRobot]) -> None:
        """Role/decision labels placed so that they overlap neither each other nor a robot:
        below the robot if free, else above, right, left, then further down."""
        radius_px = self._m(ROBOT_RADIUS_M)
        bodies = [pygame.Rect(0, 0, 2 * radius_px, 2 * radius_px) for r in robots if not r.removed]
        for body, robot in zip(bodies, [r for r in robots if not r.removed], strict=False):
            body.center = self.to_px(robot.pose.x_m, robot.pose.y_m)
        taken: list[pygame.Rect] = []
        self.label_rects = {}
        for robot in robots:
            if robot.removed:
                continue
            text = robot.role or ""
            if robot.decision:
                # a decision its branch no longer makes is shown as an old one, in grey
                text = f"{text} ({robot.decision}?)" if robot.decision_stale else f"{text} {robot.decision}"
                text = text.strip()
            if robot.control:
                text = f"{text} {robot.control.upper()}".strip()
            if robot.penalised:
                text = f"{text} PENALISED".strip()
            if not text:
                continue
            label = self.font(small=True).render(text, True, STALE if robot.decision_stale else TEXT)
            cx, cy = self.to_px(robot.pose.x_m, robot.pose.y_m)
            w, h = label.get_size()
            gap = radius_px + 2
            candidates = [pygame.Rect(cx - w // 2, cy + gap, w, h), pygame.Rect(cx - w // 2, cy - gap - h, w, h),
                          pygame.Rect(cx + gap, cy - h // 2, w, h), pygame.Rect(cx - gap - w, cy - h // 2, w, h)]
            candidates += [pygame.Rect(cx - w // 2, cy + gap + k * (h + 1), w, h) for k in range(1, 8)]
            candidates += [pygame.Rect(cx - w // 2, cy - gap - h - k * (h + 1), w, h) for k in range(1, 8)]
            place = next((c for c in candidates if c.collidelist(taken) < 0 and c.collidelist(bodies) < 0),
                         next((c for c in candidates if c.collidelist(taken) < 0), candidates[0]))
            backing = place.inflate(4, 0)
            shade = pygame.Surface(backing.size, pygame.SRCALPHA)
            shade.fill((0, 0, 0, 110))
            surface.blit(shade, backing)
            surface.blit(label, place)
            taken.append(place)
            self.label_rects[robot.key] = place

    def _draw_robot(self, surface: pygame.Surface, robot: SceneRobot, layers: frozenset[str],
                    selected: bool) -> None:
        centre = self.to_px(robot.pose.x_m, robot.pose.y_m)
        radius_px = self._m(ROBOT_RADIUS_M)
        colour = TEAM_COLOURS[robot.team]
        if selected:
            pygame.draw.circle(surface, SELECTED, centre, radius_px + 5, 3)
        if robot.control:  # a person drives or assists it: an orange ring
            pygame.draw.circle(surface, CONTROL, centre, radius_px + 9, 3)
        pygame.draw.circle(surface, colour if not robot.fallen else FALLEN, centre, radius_px)
        angle = self._screen_angle(robot.pose.theta_rad)
        nose = (centre[0] + int(radius_px * math.cos(angle)), centre[1] - int(radius_px * math.sin(angle)))
        pygame.draw.line(surface, (255, 255, 255), centre, nose, 3)
        number = self.font().render(str(robot.number), True, (255, 255, 255))
        surface.blit(number, number.get_rect(center=centre))
        if "kick" in layers and robot.kick_direction_rad is not None:
            kick_angle = self._screen_angle(robot.kick_direction_rad)
            length_px = radius_px * 3
            tip = (centre[0] + int(length_px * math.cos(kick_angle)), centre[1] - int(length_px * math.sin(kick_angle)))
            pygame.draw.line(surface, KICK, centre, tip, 2)
            pygame.draw.circle(surface, KICK, tip, 3)

    def bench_position(self, robot: SceneRobot) -> tuple[float, float]:
        """Where a penalised (removed) robot is drawn: beside the touch line at the bottom of the
        view, blue's to the left of the centre, red's to the right, by number."""
        f = self.field
        side = -1.0 if robot.team is Team.BLUE else 1.0
        if self.mirrored:
            side = -side
        y_m = -(f.half_width_m + 0.55 * f.border_strip_m)
        x_m = side * (0.8 + (robot.number - 1) * BENCH_SPACING_M)
        return (-x_m, -y_m) if self.mirrored else (x_m, y_m)

    def _draw_benched(self, surface: pygame.Surface, robot: SceneRobot, selected: bool) -> None:
        """A removed (penalised) robot beside the field: its disc, faded, crossed out."""
        centre = self.to_px(*self.bench_position(robot))
        radius_px = self._m(ROBOT_RADIUS_M)
        faded = tuple((c + 2 * g) // 3 for c, g in zip(TEAM_COLOURS[robot.team], GRASS, strict=False))
        if selected:
            pygame.draw.circle(surface, SELECTED, centre, radius_px + 5, 3)
        pygame.draw.circle(surface, faded, centre, radius_px)
        number = self.font().render(str(robot.number), True, (255, 255, 255))
        surface.blit(number, number.get_rect(center=centre))
        d = int(radius_px * 0.8)
        pygame.draw.line(surface, PENALISED, (centre[0] - d, centre[1] - d), (centre[0] + d, centre[1] + d), 3)
        pygame.draw.line(surface, PENALISED, (centre[0] - d, centre[1] + d), (centre[0] + d, centre[1] - d), 3)
        tag = self.font(small=True).render("PEN", True, PENALISED)
        surface.blit(tag, tag.get_rect(midleft=(centre[0] + radius_px + 3, centre[1])))

    LEGEND = (("fallen", "fallen"), ("penalised", "penalised (beside the field)"),
              ("control", "manual / assist"), ("stale", "(kick?) decision not being made now"))

    def legend_rect(self) -> pygame.Rect:
        """Where the legend goes: the bottom-right corner of the field's area."""
        font = self.font(small=True)
        h = font.get_linesize()
        w = max(font.size(text)[0] for _k, text in self.LEGEND) + 2 * h + 10
        return pygame.Rect(self.size_px[0] - w - 6, self.size_px[1] - len(self.LEGEND) * h - 10, w,
                           len(self.LEGEND) * h + 6)

    def _draw_legend(self, surface: pygame.Surface, scene: Scene) -> None:
        """What the marks mean, for the marks the scene shows (nothing when none shows)."""
        shown = {"fallen": any(r.fallen and not r.removed for r in scene.robots),
                 "penalised": any(r.removed for r in scene.robots),
                 "control": any(r.control for r in scene.robots),
                 "stale": any(r.decision and r.decision_stale for r in scene.robots)}
        items = [(k, t) for k, t in self.LEGEND if shown[k]]
        if not items:
            return
        font = self.font(small=True)
        h = font.get_linesize()
        rect = self.legend_rect()
        rect.height = len(items) * h + 6
        rect.bottom = self.size_px[1] - 4
        shade = pygame.Surface(rect.size, pygame.SRCALPHA)
        shade.fill((0, 0, 0, 150))
        surface.blit(shade, rect)
        y = rect.top + 3
        r = h // 2 - 1
        for key, text in items:
            c = (rect.left + 4 + r, y + h // 2)
            if key == "fallen":
                pygame.draw.circle(surface, FALLEN, c, r)
            elif key == "penalised":
                pygame.draw.line(surface, PENALISED, (c[0] - r, c[1] - r), (c[0] + r, c[1] + r), 2)
                pygame.draw.line(surface, PENALISED, (c[0] - r, c[1] + r), (c[0] + r, c[1] - r), 2)
            elif key == "control":
                pygame.draw.circle(surface, CONTROL, c, r, 2)
            surface.blit(font.render(text, True, STALE if key == "stale" else TEXT), (rect.left + 2 * r + 10, y))
            y += h

    def _draw_robot_outline(self, surface: pygame.Surface, pose: Pose2D, colour: tuple[int, int, int]) -> None:
        centre = self.to_px(pose.x_m, pose.y_m)
        radius_px = self._m(ROBOT_RADIUS_M)
        pygame.draw.circle(surface, colour, centre, radius_px, 2)
        angle = self._screen_angle(pose.theta_rad)
        nose = (centre[0] + int(radius_px * 1.4 * math.cos(angle)), centre[1] - int(radius_px * 1.4 * math.sin(angle)))
        pygame.draw.line(surface, colour, centre, nose, 2)

    def _draw_covariance(self, surface: pygame.Surface, robot: SceneRobot) -> None:
        cov_xy = np.asarray(robot.covariance, dtype=float)[:2, :2]
        if not np.all(np.isfinite(cov_xy)) or np.any(np.abs(cov_xy) > 1e6):
            return
        values, vectors = np.linalg.eigh(cov_xy)
        values = np.sqrt(np.clip(values, 0.0, None)) * 2.0  # two standard deviations
        angles = np.linspace(0.0, 2.0 * math.pi, 24, endpoint=False)
        unit = np.stack([np.cos(angles) * values[0], np.sin(angles) * values[1]])
        points = vectors @ unit
        assert robot.estimate is not None
        ex, ey = robot.estimate.x_m, robot.estimate.y_m
        polygon = [self.to_px(ex + dx, ey + dy) for dx, dy in points.T]
        if len(set(polygon)) >= 3:
            pygame.draw.polygon(surface, ESTIMATE_COLOURS[robot.team], polygon, 1)

    def _draw_particles(self, surface: pygame.Surface, robots: list[SceneRobot]) -> None:
        # per-pixel writes through a numpy view: thousands of particles cost one array op
        width_px, height_px = surface.get_size()
        pixels = pygame.surfarray.pixels3d(surface)
        try:
            for robot in robots:
                if robot.particles is None or robot.removed or len(robot.particles) == 0:
                    continue
                xy = np.asarray(robot.particles, dtype=float)[:, :2]
                xy = xy[np.all(np.abs(xy) < 1e4, axis=1)]  # NaN, infinite or far points drawn nowhere
                sign = -1.0 if self.mirrored else 1.0
                px = np.rint(self.centre_px[0] + sign * xy[:, 0] * self.px_per_m).astype(np.intp)
                py = np.rint(self.centre_px[1] - sign * xy[:, 1] * self.px_per_m).astype(np.intp)
                inside = (px >= 0) & (px < width_px - 1) & (py >= 0) & (py < height_px - 1)
                px, py = px[inside], py[inside]
                colour = PARTICLE_COLOURS[robot.team]
                for dx in (0, 1):  # 2x2 dots so that they can be seen
                    for dy in (0, 1):
                        pixels[px + dx, py + dy] = colour
        finally:
            del pixels

    def _draw_banner(self, surface: pygame.Surface, scene: Scene) -> None:
        b = scene.banner
        pygame.draw.rect(surface, PANEL_BG, (0, 0, self.size_px[0], self.banner_height_px))
        minutes, seconds = divmod(max(0, int(b.secs_remaining)), 60)
        sign = "-" if b.secs_remaining < 0 else ""
        parts = [f"BLUE {b.score_blue} : {b.score_red} RED", b.state]
        if b.sub_state:
            parts.append(b.sub_state)
        parts.append(f"clock {sign}{minutes:02d}:{seconds:02d}")
        if b.secondary_time:
            parts.append(f"({b.secondary_time}s)")
        parts.append("1st half" if b.first_half else "2nd half")
        if b.kick_off:
            parts.append(f"kick-off {b.kick_off}")
        if b.penalties:
            parts.append("pen: " + ", ".join(b.penalties))
        parts.append(f"sim t={scene.t_s:.1f}s")
        if scene.speed_label:
            parts.append(scene.speed_label)
        text = self.font().render("   ".join(parts), True, TEXT)
        if text.get_width() > self.size_px[0] - 12:  # a narrow window: the smaller font
            text = self.font(small=True).render("  ".join(parts), True, TEXT)
        surface.blit(text, (8, (self.banner_height_px - text.get_height()) // 2))


def draw_side_panel(surface: pygame.Surface, rect: pygame.Rect, scene: Scene, selected: str | None,
                    font: pygame.font.Font, small_font: pygame.font.Font) -> None:
    """The selected robot's tree (active branch, coloured by status) and changed entries."""
    pygame.draw.rect(surface, PANEL_BG, rect)
    x_px, y_px = rect.x + 8, rect.y + 8
    title = f"{selected}" if selected else "click a robot"
    surface.blit(font.render(elide_middle(title, font, rect.width - 16), True, TEXT), (x_px, y_px))
    y_px += font.get_linesize() + 4
    line_h = small_font.get_linesize()
    bottom_tree = rect.y + int(rect.height * 0.68)
    for line in scene.tree_lines:
        if y_px + line_h > bottom_tree:
            surface.blit(small_font.render("...", True, IDLE_COLOUR), (x_px, y_px))
            y_px += line_h
            break
        colour = STATUS_COLOURS.get(line.status, IDLE_COLOUR)
        indent = "  " * line.depth
        name = elide_middle(line.name, small_font, rect.right - 6 - x_px - small_font.size(indent)[0])
        text = small_font.render(indent + name, True, colour)
        surface.blit(text, (x_px, y_px))
        y_px += line_h
    y_px = max(y_px, bottom_tree) + 4
    surface.blit(font.render("blackboard changes", True, TEXT), (x_px, y_px))
    y_px += font.get_linesize()
    width_px = rect.right - 6 - x_px
    for key, value in scene.blackboard_changes:
        if y_px + line_h > rect.bottom - 4:
            break
        name = small_font.render(f"{elide_middle(key, small_font, width_px // 2)} = ", True, IDLE_COLOUR)
        surface.blit(name, (x_px, y_px))
        surface.blit(small_font.render(fit_text(value, small_font, width_px - name.get_width()), True, TEXT),
                     (x_px + name.get_width(), y_px))
        y_px += line_h


def fit_text(text: str, font: pygame.font.Font, width_px: int) -> str:
    """``text``, shortened with "..." so that it fits in ``width_px`` when rendered."""
    if font.size(text)[0] <= width_px:
        return text
    while text and font.size(text + "...")[0] > width_px:
        text = text[:-1]
    return text + "..."


def draw_help(surface: pygame.Surface, rect: pygame.Rect, keys: Iterable[tuple[str, str]],
              font: pygame.font.Font) -> pygame.Rect:
    """The keys of a window (key, what it does) in a box at the top-left of ``rect``; a text too
    wide for the box is wrapped under itself."""
    keys = list(keys)
    h = font.get_linesize()
    key_w = max(font.size(k)[0] for k, _t in keys) + 14
    w = min(rect.width - 16, key_w + max(font.size(t)[0] for _k, t in keys) + 20)
    rows = [(key, wrap_text(text, font, w - key_w - 20, indent="")) for key, text in keys]
    box = pygame.Rect(rect.left + 8, rect.top + 8, w, (sum(len(lines) for _k, lines in rows) + 1) * h + 10)
    shade = pygame.Surface(box.size, pygame.SRCALPHA)
    shade.fill((15, 17, 22, 225))
    surface.blit(shade, box)
    pygame.draw.rect(surface, (90, 95, 110), box, 1)
    surface.blit(font.render("keys (H or ? closes)", True, (150, 200, 255)), (box.left + 8, box.top + 5))
    y = box.top + 5 + h
    for key, lines in rows:
        surface.blit(font.render(key, True, (255, 230, 120)), (box.left + 8, y))
        for line in lines:
            surface.blit(font.render(line, True, TEXT), (box.left + 8 + key_w, y))
            y += h
    return box


def draw_toasts(surface: pygame.Surface, rect: pygame.Rect, toasts: list[tuple[str, str, float]],
                font: pygame.font.Font, max_lines: int = 3) -> list[pygame.Rect]:
    """Notices (text, level, opacity 0..1) stacked from the bottom of ``rect`` upward, newest at
    the bottom, each wrapped on at most ``max_lines`` lines; returns where each was drawn."""
    drawn = []
    y_px = rect.bottom - 30
    h = font.get_linesize()
    for text, level, opacity in reversed(toasts):
        lines = wrap_text(text, font, rect.width - 40)
        if len(lines) > max_lines:
            rest = " ".join(ln.strip() for ln in lines[max_lines - 1:])
            lines = lines[:max_lines - 1] + [elide_middle(rest, font, rect.width - 40)]
        labels = [font.render(line, True, TEXT) for line in lines]
        width = max(label.get_width() for label in labels)
        box = pygame.Rect(rect.x + 10 - 7, y_px - len(labels) * h - 4, width + 14, len(labels) * h + 8)
        shade = pygame.Surface(box.size, pygame.SRCALPHA)
        shade.fill((*NOTICE_COLOURS.get(level, NOTICE_COLOURS["info"]), int(235 * opacity)))
        surface.blit(shade, box)
        for i, label in enumerate(labels):
            label.set_alpha(int(255 * opacity))
            surface.blit(label, (box.left + 7, box.top + 4 + i * h))
        drawn.append(box)
        y_px = box.top - 4
        if y_px < rect.y + 80:
            break
    return drawn
