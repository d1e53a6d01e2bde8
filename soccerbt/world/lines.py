"""The field lines a robot's camera sees, as line segments in the robot frame.

A real robot's vision reports the painted lines it sees as segments (robocup_demo's
``LineSegments``). ``LineCamera.segments(pose, head_pan_rad, head_tilt_rad)`` gives the same
for a simulated robot: the ground the camera sees (the horizontal field of view around the
head's direction, between the near and far edges of the image on the ground, no farther than
the feature range) intersected with every straight line of the field and with the centre circle
(a polygon of ``circle_sides`` sides), each piece in the robot frame, its end points moved by
noise that grows with distance. Robots standing in front of a line do not hide it.

Only the served simulator uses it (``soccerbt sim --serve``); the embedded match's camera
reports landmarks, and its random numbers are not touched: the noise comes from the caller's
generator.
"""
from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from soccerbt.world.config import CameraConfig
from soccerbt.world.field import Field
from soccerbt.world.sensors import ground_band_m
from soccerbt.world.types import Pose2D

__all__ = ["LineCamera"]

Segment = tuple[float, float, float, float]


class LineCamera:
    """Visible line segments of one field for one camera (see the module docstring)."""

    def __init__(self, field: Field, camera: CameraConfig | None = None, *, max_range_m: float | None = None,
                 sigma_m: float = 0.02, sigma_per_m: float = 0.01, min_length_m: float = 0.1,
                 circle_sides: int = 24, arc_points: int = 9) -> None:
        self.field = field
        self.camera = camera or CameraConfig()
        self.max_range_m = self.camera.feature_max_range_m if max_range_m is None else max_range_m
        self.sigma_m = sigma_m
        self.sigma_per_m = sigma_per_m
        self.min_length_m = min_length_m
        self.arc_points = arc_points
        lines = [LineString([(s.x0_m, s.y0_m), (s.x1_m, s.y1_m)]) for s in field.lines]
        r = field.centre_circle_radius_m
        ring = [(r * math.cos(2 * math.pi * k / circle_sides), r * math.sin(2 * math.pi * k / circle_sides))
                for k in range(circle_sides + 1)]
        lines.extend(LineString(ring[k:k + 2]) for k in range(circle_sides))
        self._lines = np.array(lines, dtype=object)

    def view_polygon(self, pose: Pose2D, head_pan_rad: float, head_tilt_rad: float) -> Polygon | None:
        """The ground the camera sees, field frame; None when it sees no ground."""
        near, far = ground_band_m(self.camera, head_tilt_rad)
        near = max(near, self.camera.min_range_m)
        far = min(far, self.max_range_m)
        if not near < far:
            return None
        half = self.camera.horizontal_fov_rad / 2.0
        heading = pose.theta_rad + head_pan_rad
        angles = np.linspace(heading - half, heading + half, self.arc_points)
        outer = [(pose.x_m + far * math.cos(a), pose.y_m + far * math.sin(a)) for a in angles]
        inner = [(pose.x_m + near * math.cos(a), pose.y_m + near * math.sin(a)) for a in angles[::-1]]
        return Polygon(outer + inner)

    def segments(self, pose: Pose2D, head_pan_rad: float, head_tilt_rad: float,
                 rng: np.random.Generator | None = None) -> tuple[Segment, ...]:
        """The visible segments, robot frame (x0, y0, x1, y1), noisy when ``rng`` is given."""
        view = self.view_polygon(pose, head_pan_rad, head_tilt_rad)
        if view is None:
            return ()
        out: list[Segment] = []
        shapely.prepare(view)
        seen = self._lines[shapely.intersects(self._lines, view)]
        for piece in shapely.intersection(seen, view):
            for part in getattr(piece, "geoms", (piece,)):
                if part.geom_type != "LineString" or part.length < self.min_length_m:
                    continue
                (ax, ay), (bx, by) = part.coords[0], part.coords[-1]
                x0, y0 = pose.inverse_transform_point(ax, ay)
                x1, y1 = pose.inverse_transform_point(bx, by)
                if rng is not None:
                    s0 = self.sigma_m + self.sigma_per_m * math.hypot(x0, y0)
                    s1 = self.sigma_m + self.sigma_per_m * math.hypot(x1, y1)
                    n = rng.normal(0.0, 1.0, 4)
                    x0, y0, x1, y1 = x0 + s0 * n[0], y0 + s0 * n[1], x1 + s1 * n[2], y1 + s1 * n[3]
                out.append((x0, y0, x1, y1))
        return tuple(out)
