"""The path planner's visibility graph: inflated obstacles, the graph nodes around them, and the
geometric tests of its search.

Obstacles (robots, the goal frames with their posts, the ball when approaching it from the
wrong side) are inflated by the robot radius plus a clearance into convex polygons that
*enclose* the inflated circles (a regular polygon circumscribing the circle; shapely polygons
from the planner's ``inflated_polygons``). A robot blocks the circle around its polygon (one
distance test per segment), a goal frame its exact polygon. Graph nodes ring each shape
slightly outside it (room for corner smoothing); nodes inside another shape or out of bounds
are dropped. ``VisibilityGraph.build(obstacles)`` makes the scene of a set of obstacles (the
goal frames are prepared once; the scene, its tangent candidates and visibility results are
reused while the obstacles do not change); ``tangent_candidates`` gives the (near-)tangent
nodes from a point, ``blocked`` and ``inside_any`` test segments and points with numpy, and
``segment_blocked_py`` and ``point_blocked_py`` are their plain-Python twins for one segment or
point (the same floats, cheaper for one). The search itself is soccerbt.services.path_planner's.

Everything is in the team frame (own goal at negative x).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Sequence

import numpy as np
from shapely.geometry import box

from soccerbt.services.obstacles import Obstacle
from soccerbt.world.field import Field

__all__ = ["PlannerConfig", "VisibilityGraph", "inflate_circle"]


def inflate_circle(x_m: float, y_m: float, radius_m: float, sides: int = 8,
                   phase_rad: float = 0.0) -> np.ndarray:
    """Corners (sides, 2), counter-clockwise, of a regular polygon that encloses the circle.

    The polygon circumscribes the circle: its edges touch it, its corners lie at
    ``radius_m / cos(pi / sides)``.
    """
    if sides < 3:
        raise ValueError(f"a polygon needs at least 3 sides, got {sides}")
    r_corner = radius_m / math.cos(math.pi / sides)
    ang = phase_rad + (np.arange(sides) + 0.5) * (2.0 * math.pi / sides)
    return np.stack([x_m + r_corner * np.cos(ang), y_m + r_corner * np.sin(ang)], axis=1)


@dataclass(frozen=True)
class PlannerConfig:
    """Geometry and cost parameters of the visibility-graph planner."""

    robot_radius_m: float = 0.25
    clearance_m: float = 0.05  # kept on top of the robot radius
    polygon_sides: int = 8
    vertex_offset_m: float = 0.02  # graph nodes this far outside the blocking shapes (room to smooth)
    side_switch_penalty_m: float = 0.3  # metres of path; jitter of a few cm costs far less
    same_obstacle_m: float = 0.5  # an obstacle that moved less is the same one
    same_goal_m: float = 1.0  # side memory only holds while the goal stays about the same
    include_goal_frames: bool = True
    goal_frame_thickness_m: float = 0.1
    bounds_margin_m: float = 0.7  # how far beyond the outer lines the robot may walk
    smoothing_max_cut_m: float = 0.35
    smoothing_samples: int = 6


@dataclass
class _Scene:
    """The blocking shapes of one set of obstacles, with the graph nodes around them.

    P shapes: the goal frames first (convex polygons, tested exactly), then one circle per
    robot (the circle around its inflated polygon). V graph nodes.
    """

    key: tuple
    n_static: int  # the first n_static shapes are goal-frame polygons
    cx: np.ndarray  # (P,) centres
    cy: np.ndarray
    r_in2: np.ndarray  # (P,) squared radius inside which a point surely is blocked
    r_out2: np.ndarray  # (P,) squared radius outside which a point surely is free
    r_ring: np.ndarray  # (P,) radius of a circle around the shape's graph nodes
    r_out: np.ndarray  # (P,) radius of the circle around the blocking shape
    ax: np.ndarray  # (n_static, K) goal-frame corners and edges per axis, counter-clockwise
    ay: np.ndarray
    ex: np.ndarray
    ey: np.ndarray
    nodes: np.ndarray  # (V, 2) graph nodes (pushed-out corners)
    node_poly: np.ndarray  # (V,) shape index of each node
    node_prev: np.ndarray  # (V, 2) the neighbouring node on the same ring, either side
    node_next: np.ndarray
    node_band: np.ndarray  # (V,) width of the band between a node's ring and its shape
    robots: list[tuple[float, float, float]]  # (x, y, inflated radius) per robot shape
    node_loose: np.ndarray | None = None  # (V,) nodes exempt from the tangent rule (or None)
    neighbours: dict[int, tuple[np.ndarray, np.ndarray]] = dc_field(default_factory=dict)
    visible: dict[tuple[int, int], bool] = dc_field(default_factory=dict)  # node pairs tested
    py: dict | None = None  # the geometry as Python floats (built on first use)
    _centres: np.ndarray | None = None

    @property
    def centres(self) -> np.ndarray:
        """(P, 2) shape centres (built once per scene; read-only)."""
        if self._centres is None:
            self._centres = np.stack([self.cx, self.cy], axis=1)
        return self._centres


def _cross(ax, ay, bx, by):
    return ax * by - ay * bx


class VisibilityGraph:
    """The blocking shapes of the goal frames and of a set of obstacles, with the graph nodes
    around them and the tests the search runs on them (see the module docstring)."""

    def __init__(self, field: Field, config: PlannerConfig) -> None:
        self.field = field
        self.config = c = config
        self.bound_x_m = field.half_length_m + c.bounds_margin_m
        self.bound_y_m = field.half_width_m + c.bounds_margin_m
        self.static = self._goal_frames() if c.include_goal_frames else []
        self.cos_half = math.cos(math.pi / c.polygon_sides)
        self._unit = inflate_circle(0.0, 0.0, self.cos_half, c.polygon_sides)  # corners at radius 1
        self._ring_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._ring_poly_template = np.repeat(np.arange(16), c.polygon_sides)
        self._unit_prev = np.roll(self._unit, 1, axis=0)
        self._unit_next = np.roll(self._unit, -1, axis=0)
        self._static_np = self._static_arrays()
        st = self._static_np
        self.scene: _Scene | None = None  # the scene of the latest obstacles (``build``)
        self.static_py = [
            (
                float(st["cx"][i]),
                float(st["cy"][i]),
                float(st["r_in2"][i]),
                float(st["r_out2"][i]),
                float(st["r_out"][i]),
                tuple(
                    zip(
                        st["ax"][i].tolist(),
                        st["ay"][i].tolist(),
                        st["ex"][i].tolist(),
                        st["ey"][i].tolist(),
                        strict=False,
                    )
                ),
            )
            for i in range(st["cx"].shape[0])
        ]
        # goal-frame nodes inside another goal frame or out of bounds: known once
        self._static_keep = np.ones(st["nodes"].shape[0], dtype=bool)
        if self._static_keep.size:
            self.build([])
            self._static_keep = ~self.inside_any(st["nodes"], exclude=st["node_poly"])
            self._static_keep &= (np.abs(st["nodes"][:, 0]) <= self.bound_x_m) & (
                np.abs(st["nodes"][:, 1]) <= self.bound_y_m
            )
            self.scene = None
        # (centre x, centre y, radius around all its graph nodes) per goal-frame shape
        self.static_rings = list(zip(st["cx"].tolist(), st["cy"].tolist(), st["r_ring"].tolist(), strict=False))
        # every graph node of each goal-frame shape (dropped ones too) and the unit ring corners,
        # as Python floats for the exact direct-path test
        self.static_nodes_py = [st["nodes"][st["node_poly"] == i].tolist() for i in range(st["cx"].shape[0])]
        self.unit_py = self._unit.tolist()

    # --- geometry -----------------------------------------------------------------------

    def _goal_frames(self) -> list[tuple[np.ndarray, np.ndarray, str]]:
        """Posts, side nets and back net of both goals as inflated convex polygons."""
        f, c = self.field, self.config
        grow = c.robot_radius_m + c.clearance_m
        t = c.goal_frame_thickness_m / 2.0
        hx, hg, depth = f.half_length_m, f.goal_width_m / 2.0, f.goal_depth_m
        out = []
        for sx in (-1.0, 1.0):
            rects = [
                (hx - t, hg - t, hx + depth + t, hg + t),  # side net with its post
                (hx - t, -hg - t, hx + depth + t, -hg + t),
                (hx + depth - t, -hg - t, hx + depth + t, hg + t),  # back net
            ]
            for x0, y0, x1, y1 in rects:
                if sx < 0:
                    x0, x1 = -x1, -x0
                poly = box(x0, y0, x1, y1).buffer(grow, join_style="mitre")
                vis = poly.buffer(c.vertex_offset_m, join_style="mitre")
                out.append((_ccw(np.asarray(poly.exterior.coords)[:-1]),
                            _ccw(np.asarray(vis.exterior.coords)[:-1]), "goal"))
        return out

    def _static_arrays(self) -> dict[str, np.ndarray]:
        """The goal frames' arrays, computed once."""
        polys = self.static
        n_p = len(polys)
        k = max((p[0].shape[0] for p in polys), default=1)
        ax = np.zeros((n_p, k))
        ay = np.zeros((n_p, k))
        ex = np.zeros((n_p, k))
        ey = np.zeros((n_p, k))
        nodes, node_poly, prev, nxt = [], [], [], []
        centres = np.zeros((n_p, 2))
        r_in = np.zeros(n_p)
        r_out = np.zeros(n_p)
        r_ring = np.zeros(n_p)
        for i, (block, vis, _kind) in enumerate(polys):
            m = block.shape[0]
            e = np.roll(block, -1, axis=0) - block
            ax[i, :m], ay[i, :m] = block[:, 0], block[:, 1]
            ax[i, m:], ay[i, m:] = block[-1, 0], block[-1, 1]  # padding: zero-length edges
            ex[i, :m], ey[i, :m] = e[:, 0], e[:, 1]
            ctr = block.mean(axis=0)
            centres[i] = ctr
            r_out[i] = float(np.hypot(*(block - ctr).T).max())
            r_ring[i] = float(np.hypot(*(vis - ctr).T).max())
            r_in[i] = float((np.abs(_cross(e[:, 0], e[:, 1], ctr[0] - block[:, 0], ctr[1] - block[:, 1]))
                             / np.hypot(e[:, 0], e[:, 1])).min())
            nodes.append(vis)
            node_poly.append(np.full(vis.shape[0], i))
            prev.append(np.roll(vis, 1, axis=0))
            nxt.append(np.roll(vis, -1, axis=0))
        empty = np.zeros((0, 2))
        return {
            "ax": ax, "ay": ay, "ex": ex, "ey": ey, "cx": centres[:, 0].copy(), "cy": centres[:, 1].copy(),
            "r_in2": r_in * r_in - 1e-9, "r_out2": r_out * r_out, "r_out": r_out, "r_ring": r_ring,
            "nodes": np.concatenate(nodes) if nodes else empty,
            "node_poly": np.concatenate(node_poly) if node_poly else np.zeros(0, dtype=int),
            "prev": np.concatenate(prev) if prev else empty,
            "next": np.concatenate(nxt) if nxt else empty,
            "band": np.full(sum(n.shape[0] for n in nodes), 1.5 * self.config.vertex_offset_m),
        }

    def build(self, obstacles: Sequence[Obstacle]) -> _Scene:
        key = tuple((o.x_m, o.y_m, o.radius_m, o.kind) for o in obstacles)
        if self.scene is not None and self.scene.key == key:
            return self.scene  # nothing moved: reuse shapes, tangent candidates, visibility
        c = self.config
        st = self._static_np
        k = c.polygon_sides
        n_s = st["cx"].shape[0]
        n_d = len(obstacles)
        if n_d:
            ob = np.array([(o.x_m, o.y_m, o.radius_m) for o in obstacles], dtype=float)
            r = ob[:, 2] + c.robot_radius_m + c.clearance_m  # the inflated circle
            r_out = r / self.cos_half  # the circle around its polygon: what blocks
            # its nodes form a polygon around that circle, vertex_offset_m outside it
            r_vis = (r_out + c.vertex_offset_m) / self.cos_half
            rv = r_vis[:, None, None]
            ctr = ob[:, None, 0:2]
            r2 = r_out * r_out - 1e-9
            cx = np.concatenate([st["cx"], ob[:, 0]])
            cy = np.concatenate([st["cy"], ob[:, 1]])
            r_in2 = np.concatenate([st["r_in2"], r2])
            r_out2 = np.concatenate([st["r_out2"], r2])
            r_ring = np.concatenate([st["r_ring"], r_vis])
            r_out_a = np.concatenate([st["r_out"], r_out])
            nodes = np.concatenate([st["nodes"], (ctr + rv * self._unit).reshape(-1, 2)])
            prev = np.concatenate([st["prev"], (ctr + rv * self._unit_prev).reshape(-1, 2)])
            nxt = np.concatenate([st["next"], (ctr + rv * self._unit_next).reshape(-1, 2)])
            node_poly = np.concatenate([st["node_poly"], n_s + self._ring_poly(n_d)])
            band = np.concatenate([st["band"], np.repeat(r_vis - r_out, k)])
            robots = list(zip(ob[:, 0].tolist(), ob[:, 1].tolist(), r.tolist(), strict=False))
        else:
            cx, cy, r_in2, r_out2 = st["cx"], st["cy"], st["r_in2"], st["r_out2"]
            r_ring, r_out_a = st["r_ring"], st["r_out"]
            nodes, prev, nxt, node_poly, band = st["nodes"], st["prev"], st["next"], st["node_poly"], st["band"]
            robots = []
        scene = _Scene(key, n_s, cx, cy, r_in2, r_out2, r_ring, r_out_a, st["ax"], st["ay"], st["ex"], st["ey"],
                       nodes, node_poly, prev, nxt, band, robots)
        self.scene = scene
        # nodes inside another shape or out of bounds can never be visited; the goal frames'
        # own overlaps are known, the robots' are tested only where circles overlap at all
        n_sn = st["nodes"].shape[0]
        keep = np.empty(nodes.shape[0], dtype=bool)
        keep[:n_sn] = self._static_keep
        dyn = nodes[n_sn:]
        keep[n_sn:] = (np.abs(dyn[:, 0]) <= self.bound_x_m) & (np.abs(dyn[:, 1]) <= self.bound_y_m)
        if n_d:
            gap = np.hypot(ob[:, None, 0] - cx, ob[:, None, 1] - cy) - (r_out[:, None] + r_ring)
            gap[np.arange(n_d), np.arange(n_s, n_s + n_d)] = 1.0
            di, pj = np.nonzero(gap < 0.0)  # shape pj's nodes may lie inside robot circle di
            if di.size:
                involved = np.zeros(cx.shape[0], dtype=bool)
                involved[di + n_s] = True
                involved[pj] = True
                sel = np.nonzero(involved[node_poly])[0]
                keep[sel] &= ~self.inside_any(nodes[sel], exclude=node_poly[sel])
        if not keep.all():
            # a node next to a dropped one lies where shapes overlap: the union's boundary
            # turns there, so the tangent rule of its own ring does not apply
            prev_idx, next_idx = self._ring_neighbours(n_sn, n_d)
            scene.node_loose = (~keep[prev_idx] | ~keep[next_idx])[keep]
            scene.nodes, scene.node_poly = nodes[keep], node_poly[keep]
            scene.node_prev, scene.node_next = prev[keep], nxt[keep]
            scene.node_band = band[keep]
        return scene

    def _ring_poly(self, n: int) -> np.ndarray:
        """Robot index of each robot node (n robots, polygon_sides nodes each)."""
        if self._ring_poly_template.shape[0] < n * self.config.polygon_sides:
            self._ring_poly_template = np.repeat(np.arange(2 * n), self.config.polygon_sides)
        return self._ring_poly_template[: n * self.config.polygon_sides]

    def _ring_neighbours(self, n_static_nodes: int, n_robots: int) -> tuple[np.ndarray, np.ndarray]:
        """Index of each node's previous and next node on its ring (before dropping nodes)."""
        cached = self._ring_cache.get(n_robots)
        if cached is None:
            prev_parts, next_parts, offset = [], [], 0
            for _block, vis, _kind in self.static:
                m = vis.shape[0]
                prev_parts.append(offset + (np.arange(m) - 1) % m)
                next_parts.append(offset + (np.arange(m) + 1) % m)
                offset += m
            k = self.config.polygon_sides
            base = n_static_nodes + k * np.arange(n_robots)[:, None]
            ring = np.arange(k)[None, :]
            prev_parts.append((base + (ring - 1) % k).ravel())
            next_parts.append((base + (ring + 1) % k).ravel())
            cached = (np.concatenate(prev_parts), np.concatenate(next_parts))
            if len(self._ring_cache) < 64:
                self._ring_cache[n_robots] = cached
        return cached

    def inside_any(self, pts: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
        """(M,) whether each point lies strictly inside a blocking shape: a robot's circle
        around its polygon, a goal frame's polygon."""
        s = self.scene_for_query
        m = pts.shape[0]
        if s.cx.shape[0] == 0 or m == 0:
            return np.zeros(m, dtype=bool)
        d2 = (pts[:, 0:1] - s.cx) ** 2 + (pts[:, 1:2] - s.cy) ** 2  # (M, P)
        sure = d2 < s.r_in2
        near = d2 < s.r_out2
        if exclude is not None:
            rows = np.arange(m)
            sure[rows, exclude] = False
            near[rows, exclude] = False
        inside = sure.any(axis=1)
        mi, pi = np.nonzero(near & ~sure)
        if mi.size:
            ax, ay, ex, ey = s.ax[pi], s.ay[pi], s.ex[pi], s.ey[pi]  # (A, K)
            qx, qy = pts[mi, 0:1], pts[mi, 1:2]
            cr = ex * (qy - ay) - ey * (qx - ax)
            degenerate = (np.abs(ex) + np.abs(ey)) < 1e-12
            hit = ((cr > 1e-9) | degenerate).all(axis=1)  # corners are counter-clockwise
            inside[mi[hit]] = True
        return inside

    @property
    def scene_for_query(self) -> _Scene:
        assert self.scene is not None
        return self.scene

    def blocked(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """(S,) whether each segment p->q enters a blocking polygon."""
        s = self.scene_for_query
        n_seg = p.shape[0]
        if s.cx.shape[0] == 0 or n_seg == 0:
            return np.zeros(n_seg, dtype=bool)
        # cheap circle tests first: distance from each polygon centre to each segment
        px, py = p[:, 0:1], p[:, 1:2]
        dx, dy = q[:, 0:1] - px, q[:, 1:2] - py
        inv_dd = 1.0 / np.maximum(dx * dx + dy * dy, 1e-18)
        rx, ry = s.cx - px, s.cy - py  # (S, P)
        t = (rx * dx + ry * dy) * inv_dd
        np.maximum(t, 0.0, out=t)
        np.minimum(t, 1.0, out=t)
        rx -= t * dx
        ry -= t * dy
        dist2 = rx * rx + ry * ry
        blocked = (dist2 < s.r_in2).any(axis=1)
        si, pi = np.nonzero((dist2 < s.r_out2) & ~blocked[:, None])
        if si.size:
            # exact test against the polygon's edges: proper crossings only
            ax, ay, ex, ey = s.ax[pi], s.ay[pi], s.ex[pi], s.ey[pi]  # (A, K)
            qx, qy = dx[si], dy[si]  # (A, 1)
            ax = ax - px[si]
            ay = ay - py[si]
            o1 = qx * ay - qy * ax  # side of corner a from the segment
            o2 = o1 + (qx * ey - qy * ex)  # side of corner b = a + e
            o3 = ey * ax - ex * ay  # side of p from the edge
            o4 = o3 + (ex * qy - ey * qx)  # side of q = p + d
            hit = ((o1 * o2 < 0.0) & (o3 * o4 < 0.0)).any(axis=1)
            blocked[si[hit]] = True
        return blocked

    def tangent_candidates(self, s: _Scene, u_xy: np.ndarray, u_node: int) -> tuple[np.ndarray, np.ndarray]:
        """Graph nodes u may walk to along (near-)tangent lines: (indices, distances).

        Visibility is not tested here: the lazy A* tests an edge when it pops it."""
        nodes = s.nodes
        dx = nodes[:, 0] - u_xy[0]
        dy = nodes[:, 1] - u_xy[1]
        # tangent at the target: both polygon neighbours of w on the same side of u->w
        c1 = dx * (s.node_prev[:, 1] - u_xy[1]) - dy * (s.node_prev[:, 0] - u_xy[0])
        c2 = dx * (s.node_next[:, 1] - u_xy[1]) - dy * (s.node_next[:, 0] - u_xy[0])
        dist = np.hypot(dx, dy)
        # (near-)tangent: a neighbour on the wrong side by less than the band between the node
        # ring and the blocking shape still counts, as the segment may cut through that band
        ok = (c1 * c2 >= -1e-12) | (np.minimum(np.abs(c1), np.abs(c2)) <= s.node_band * dist)
        # from inside a polygon's ring of nodes (close to it, or to an overlapping neighbour)
        # no node of that ring is tangent: keep them all, the segment test decides
        ring = (s.cx - u_xy[0]) ** 2 + (s.cy - u_xy[1]) ** 2 < s.r_ring * s.r_ring
        if ring.any():
            ok |= ring[s.node_poly]
        if s.node_loose is not None:
            ok |= s.node_loose
        if u_node >= 0 and not (s.node_loose is not None and s.node_loose[u_node]):
            # leaving a polygon corner: the line must also be tangent there
            pu, nu = s.node_prev[u_node], s.node_next[u_node]
            c3 = dx * (pu[1] - u_xy[1]) - dy * (pu[0] - u_xy[0])
            c4 = dx * (nu[1] - u_xy[1]) - dy * (nu[0] - u_xy[0])
            ok &= (c3 * c4 >= -1e-12) | (np.minimum(np.abs(c3), np.abs(c4)) <= s.node_band[u_node] * dist)
        if u_node >= 0:
            ok[u_node] = False
        idx = np.nonzero(ok)[0]
        return idx, dist[idx]

    def python_geometry(self, s: _Scene) -> dict:
        """The scene as Python floats, for testing single segments without numpy overhead."""
        polys = list(self.static_py)
        n = s.n_static
        if s.cx.shape[0] > n:
            r_out = np.sqrt(s.r_out2[n:])
            polys.extend((x, y, r2, r2, ro, ()) for x, y, r2, ro in
                         zip(s.cx[n:].tolist(), s.cy[n:].tolist(), s.r_in2[n:].tolist(), r_out.tolist(), strict=False))
        return {"nx": s.nodes[:, 0].tolist(), "ny": s.nodes[:, 1].tolist(), "polys": polys}

    def point_blocked_py(self, s: _Scene, x: float, y: float) -> bool:
        """Pure-Python twin of ``inside_any`` for one point."""
        for cx, cy, r_in2, r_out2, _r_out, edges in s.py["polys"]:
            d2 = (x - cx) ** 2 + (y - cy) ** 2
            if d2 < r_in2:
                return True
            if d2 < r_out2 and edges and all(ex * (y - ay) - ey * (x - ax) > 1e-9 or abs(ex) + abs(ey) < 1e-12
                                             for ax, ay, ex, ey in edges):
                return True
        return False

    def segment_blocked_py(self, s: _Scene, ax: float, ay: float, bx: float, by: float) -> bool:
        """Pure-Python twin of ``blocked`` for one segment (cheaper than numpy for one)."""
        dx, dy = bx - ax, by - ay
        dd = dx * dx + dy * dy
        inv = 1.0 / dd if dd > 1e-18 else 0.0
        lo_x, hi_x = (ax, bx) if ax < bx else (bx, ax)
        lo_y, hi_y = (ay, by) if ay < by else (by, ay)
        for cx, cy, r_in2, r_out2, r_out, edges in s.py["polys"]:
            if cx + r_out < lo_x or cx - r_out > hi_x or cy + r_out < lo_y or cy - r_out > hi_y:
                continue
            rx, ry = cx - ax, cy - ay
            t = (rx * dx + ry * dy) * inv
            t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
            ex_, ey_ = rx - t * dx, ry - t * dy
            d2 = ex_ * ex_ + ey_ * ey_
            if d2 < r_in2:
                return True
            if d2 < r_out2 and edges:
                for px, py, qx, qy in edges:
                    o1 = dx * (py - ay) - dy * (px - ax)
                    o2 = o1 + (dx * qy - dy * qx)
                    o3 = qy * (px - ax) - qx * (py - ay)
                    o4 = o3 + (qx * dy - qy * dx)
                    if o1 * o2 < 0.0 and o3 * o4 < 0.0:
                        return True
        return False


def _ccw(pts: np.ndarray) -> np.ndarray:
    """Corners in counter-clockwise order."""
    x, y = pts[:, 0], pts[:, 1]
    area = 0.5 * float((x * np.roll(y, -1) - np.roll(x, -1) * y).sum())
    return pts if area > 0 else pts[::-1].copy()
