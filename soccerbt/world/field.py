"""Field geometry of the HSL 2026 fields: dimensions, lines, goals and the features a camera sees.

The three fields of the Humanoid Soccer League (``../shared/reference/hsl-rules.md``):

- S, 9 x 6 m (``kid``: the old KidSize name), up to 7 players a team (Small division, advanced);
- M, 14 x 9 m (``adult``: the old AdultSize name, the default), up to 5 a team;
- L, 22 x 14 m, up to 5 a team (the Booster T1's Large division plays 5 v 5 there).

M keeps the AdultSize numbers soccerbt has always simulated (goal 2.6 m wide, penalty mark at
2.1 m), so that seeded default matches stay bit for bit what they were; the HSL draft gives
2.4 m and 2.0 m. S and L follow ``hsl-rules.md``.

The frame is a team frame: origin at the centre mark, +x toward the opponent goal, +y left.
The field is point-symmetric, so the same geometry serves the world frame and every team
frame. M (AdultSize) is the default.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from functools import cached_property


class FeatureKind(enum.Enum):
    """Kinds of landmarks a robot's camera can recognise."""

    GOAL_POST = "goal_post"
    L_CROSS = "L"
    T_CROSS = "T"
    X_CROSS = "X"
    PENALTY_MARK = "penalty_mark"
    CENTRE_CIRCLE = "centre_circle"  # seen as the circle's centre


@dataclass(frozen=True, slots=True)
class FieldFeature:
    """One landmark at a fixed field position."""

    kind: FeatureKind
    x_m: float
    y_m: float


@dataclass(frozen=True, slots=True)
class LineSegment:
    """A straight painted line between two points."""

    x0_m: float
    y0_m: float
    x1_m: float
    y1_m: float

    def distance_to(self, x_m: float, y_m: float) -> float:
        """Shortest distance from a point to this segment, metres."""
        dx, dy = self.x1_m - self.x0_m, self.y1_m - self.y0_m
        length_sq = dx * dx + dy * dy
        t = 0.0 if length_sq == 0.0 else ((x_m - self.x0_m) * dx + (y_m - self.y0_m) * dy) / length_sq
        t = min(1.0, max(0.0, t))
        return math.hypot(x_m - (self.x0_m + t * dx), y_m - (self.y0_m + t * dy))


@dataclass(frozen=True)
class Field:
    """Dimensions of one field size; derived lines and features are computed once."""

    name: str
    length_m: float
    width_m: float
    goal_width_m: float
    goal_depth_m: float
    crossbar_height_m: float
    goal_area_length_m: float
    goal_area_width_m: float
    penalty_area_length_m: float
    penalty_area_width_m: float
    penalty_mark_distance_m: float
    centre_circle_diameter_m: float
    border_strip_m: float
    ball_diameter_m: float
    players_per_team: int
    free_kick_distance_m: float
    line_width_m: float = 0.05
    goal_post_diameter_m: float = 0.10
    max_players_per_team: int = 5  # the most a division plays on this field (advanced)
    corner_arc_radius_m: float = 0.0  # painted arcs are no camera feature; kept for drawing

    @classmethod
    def adult_size(cls) -> Field:
        """The M field (14 x 9 m) with the AdultSize numbers; 3 v 3 by default, up to 5."""
        return cls("AdultSize", 14.0, 9.0, 2.6, 0.6, 1.8, 1.0, 4.0, 3.0, 6.0, 2.1, 3.0, 1.0,
                   0.22, 3, 1.5, max_players_per_team=5, corner_arc_radius_m=0.5)

    @classmethod
    def kid_size(cls) -> Field:
        """The S field (9 x 6 m) of ``hsl-rules.md``; 4 a side by default, up to 7."""
        return cls("KidSize", 9.0, 6.0, 1.8, 0.5, 1.3, 1.0, 3.0, 2.0, 4.0, 1.5, 1.5, 1.0,
                   0.15, 4, 0.75, max_players_per_team=7)

    @classmethod
    def large(cls) -> Field:
        """The L field (22 x 14 m) of ``hsl-rules.md``: the T1's 5 v 5 (the default here), FIFA 5
        ball, 12 cm lines, keep-away 2 m (half the centre circle's 4 m diameter)."""
        return cls("L", 22.0, 14.0, 2.6, 1.0, 1.9, 1.0, 5.0, 3.5, 7.0, 2.5, 4.0, 1.0,
                   0.22, 5, 2.0, line_width_m=0.12, max_players_per_team=5, corner_arc_radius_m=1.0)

    small = kid_size
    medium = adult_size

    NAMES = ("S", "M", "L")  # the HSL names; kid/KidSize and adult/AdultSize are aliases of S, M

    @classmethod
    def by_name(cls, name: str) -> Field:
        """'S' / 'kid' / 'KidSize', 'M' / 'adult' / 'AdultSize' or 'L' / 'large' (any case)."""
        key = name.strip().lower()
        if key not in ("s", "m", "l"):
            key = key.removesuffix("size")
        if key in ("s", "kid", "small"):
            return cls.kid_size()
        if key in ("m", "adult", "medium", "middle"):
            return cls.adult_size()
        if key in ("l", "large"):
            return cls.large()
        raise ValueError(f"unknown field size {name!r} (expected S, M or L; kid and adult name S and M)")

    # --- derived geometry ---------------------------------------------------------------
    # (cached: the simulator reads them at every step; the dataclass is frozen)

    @cached_property
    def half_length_m(self) -> float:
        return self.length_m / 2.0

    @cached_property
    def half_width_m(self) -> float:
        return self.width_m / 2.0

    @cached_property
    def centre_circle_radius_m(self) -> float:
        return self.centre_circle_diameter_m / 2.0

    @cached_property
    def ball_radius_m(self) -> float:
        return self.ball_diameter_m / 2.0

    @cached_property
    def goal_posts(self) -> tuple[tuple[float, float], ...]:
        """The four post centres: own goal (x < 0) left and right, then the opponent's."""
        hx, hg = self.half_length_m, self.goal_width_m / 2.0
        return ((-hx, hg), (-hx, -hg), (hx, hg), (hx, -hg))

    @cached_property
    def lines(self) -> tuple[LineSegment, ...]:
        """Every straight painted line (the centre circle is in ``centre_circle_radius_m``)."""
        hx, hy = self.half_length_m, self.half_width_m
        segs = [
            LineSegment(-hx, hy, hx, hy),  # touch lines
            LineSegment(-hx, -hy, hx, -hy),
            LineSegment(-hx, -hy, -hx, hy),  # goal lines
            LineSegment(hx, -hy, hx, hy),
            LineSegment(0.0, -hy, 0.0, hy),  # halfway line
        ]
        for sign in (-1.0, 1.0):
            gx = sign * hx
            for depth, half_w in ((self.goal_area_length_m, self.goal_area_width_m / 2.0),
                                  (self.penalty_area_length_m, self.penalty_area_width_m / 2.0)):
                ix = gx - sign * depth
                segs.append(LineSegment(gx, half_w, ix, half_w))
                segs.append(LineSegment(gx, -half_w, ix, -half_w))
                segs.append(LineSegment(ix, -half_w, ix, half_w))
        return tuple(segs)

    @cached_property
    def features(self) -> tuple[FieldFeature, ...]:
        """Every landmark a camera can recognise, with its field position."""
        hx, hy, r = self.half_length_m, self.half_width_m, self.centre_circle_radius_m
        out: list[FieldFeature] = [FieldFeature(FeatureKind.GOAL_POST, x, y) for x, y in self.goal_posts]
        for sx in (-1.0, 1.0):
            for sy in (-1.0, 1.0):
                out.append(FieldFeature(FeatureKind.L_CROSS, sx * hx, sy * hy))  # corners
                for depth, width in ((self.goal_area_length_m, self.goal_area_width_m),
                                     (self.penalty_area_length_m, self.penalty_area_width_m)):
                    out.append(FieldFeature(FeatureKind.L_CROSS, sx * (hx - depth), sy * width / 2.0))
                    out.append(FieldFeature(FeatureKind.T_CROSS, sx * hx, sy * width / 2.0))
            out.append(FieldFeature(FeatureKind.PENALTY_MARK, sx * (hx - self.penalty_mark_distance_m), 0.0))
        for sy in (-1.0, 1.0):
            out.append(FieldFeature(FeatureKind.T_CROSS, 0.0, sy * hy))  # halfway meets touch line
            out.append(FieldFeature(FeatureKind.X_CROSS, 0.0, sy * r))  # halfway crosses the circle
        out.append(FieldFeature(FeatureKind.CENTRE_CIRCLE, 0.0, 0.0))
        return tuple(out)

    def features_of(self, kind: FeatureKind) -> tuple[FieldFeature, ...]:
        """The landmarks of one kind."""
        return tuple(f for f in self.features if f.kind is kind)

    # --- helpers ------------------------------------------------------------------------

    def is_inside_field(self, x_m: float, y_m: float, margin_m: float = 0.0) -> bool:
        """Inside the outer lines, shrunk by ``margin_m`` (negative: grown)."""
        return abs(x_m) <= self.half_length_m - margin_m and abs(y_m) <= self.half_width_m - margin_m

    def is_inside_own_half(self, x_m: float, y_m: float) -> bool:
        """In the half with the own goal (x <= 0), inside the field."""
        return x_m <= 0.0 and self.is_inside_field(x_m, y_m)

    def is_inside_penalty_area(self, x_m: float, y_m: float, own: bool = True) -> bool:
        """Inside the own (x < 0) or the opponent penalty area."""
        gx = -self.half_length_m if own else self.half_length_m
        return (abs(x_m - gx) <= self.penalty_area_length_m and abs(y_m) <= self.penalty_area_width_m / 2.0
                and abs(x_m) <= self.half_length_m)

    def distance_to_nearest_line(self, x_m: float, y_m: float) -> float:
        """Distance to the nearest painted line, the centre circle included, metres."""
        best = abs(math.hypot(x_m, y_m) - self.centre_circle_radius_m)
        for seg in self.lines:
            best = min(best, seg.distance_to(x_m, y_m))
        return best

    def clamp_to_field(self, x_m: float, y_m: float, margin_m: float = 0.0) -> tuple[float, float]:
        """The nearest point inside the field shrunk by ``margin_m``."""
        lx, ly = self.half_length_m - margin_m, self.half_width_m - margin_m
        return min(lx, max(-lx, x_m)), min(ly, max(-ly, y_m))
