"""The particle filter's likelihood field: squared distances to the nearest field feature.

``distance_grids(field, border_m)`` samples, for every ``FeatureKind`` of ``soccerbt.world.field``
and for ``LINE_POINT`` (a point seen on any painted line: the straight lines and the centre
circle), the squared distance to the nearest such feature on a fine grid, so that a particle's
landmark likelihood is a table lookup (``soccerbt.services.localization``).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from soccerbt.world.field import FeatureKind, Field

__all__ = ["LINE_POINT", "DistanceGrids", "distance_grids"]

LINE_POINT = "line_point"
"""Detection kind for a point seen on a painted line (not part of FeatureKind)."""


@dataclass(frozen=True)
class DistanceGrids:
    """Squared distance to the nearest landmark of each kind, sampled on a fine grid."""

    x0_m: float
    y0_m: float
    cell_m: float
    nx: int
    ny: int
    flat: np.ndarray  # all kinds one after another, float32
    offset: dict[str, int]


@functools.lru_cache(maxsize=8)
def distance_grids(field: Field, border_m: float, cell_m: float = 0.04) -> DistanceGrids:
    """The likelihood field of ``field``: per feature kind and for ``LINE_POINT``, the squared
    distance to the nearest one, on a ``cell_m`` grid over the field, its ``border_m`` strip and
    2 m more (cached: a match's robots share one)."""
    # the grid reaches 2 m beyond the particles' area: anything clipped to its edge is an
    # outlier anyway
    hx = field.half_length_m + border_m + 2.0
    hy = field.half_width_m + border_m + 2.0
    nx, ny = int(math.ceil(2 * hx / cell_m)) + 1, int(math.ceil(2 * hy / cell_m)) + 1
    xs = -hx + (np.arange(nx) + 0.5) * cell_m
    ys = -hy + (np.arange(ny) + 0.5) * cell_m
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    tables: list[np.ndarray] = []
    offset: dict[str, int] = {}
    for kind in FeatureKind:
        pts = [(f.x_m, f.y_m) for f in field.features_of(kind)]
        d2 = np.full(gx.shape, 1e6)
        for x, y in pts:
            d2 = np.minimum(d2, (gx - x) ** 2 + (gy - y) ** 2)
        offset[kind.value] = sum(t.size for t in tables)
        tables.append(d2.astype(np.float32).ravel())
    d = np.abs(np.hypot(gx, gy) - field.centre_circle_radius_m)
    for seg in field.lines:
        dx, dy = seg.x1_m - seg.x0_m, seg.y1_m - seg.y0_m
        t = np.clip(((gx - seg.x0_m) * dx + (gy - seg.y0_m) * dy) / max(dx * dx + dy * dy, 1e-12), 0.0, 1.0)
        d = np.minimum(d, np.hypot(gx - seg.x0_m - t * dx, gy - seg.y0_m - t * dy))
    offset[LINE_POINT] = sum(t.size for t in tables)
    tables.append((d * d).astype(np.float32).ravel())
    return DistanceGrids(-hx, -hy, cell_m, nx, ny, np.concatenate(tables), offset)
