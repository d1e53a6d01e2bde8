"""The visibility-graph path planner: obstacles, their inflation, and lazy A* among them.

Obstacles (robots, the goal frames with their posts, the ball when approaching it from the
wrong side) are inflated by the robot radius plus a clearance into convex polygons that
*enclose* the inflated circles (a regular polygon circumscribing the circle; shapely polygons
from ``inflated_polygons``). The planner keeps paths out of those polygons: a robot blocks the
circle around its polygon (one distance test per segment), a goal frame its exact polygon. It
searches a visibility graph with its own lazy A*: nodes ring each shape slightly outside it
(room for corner smoothing); from the node being expanded only (near-)tangent nodes are
candidates (only those can lie on a shortest path), and an edge's visibility is tested, in
plain Python, only when A* pops it. A penalty against passing the first obstacle of the
previous plan on the other side prevents dithering; corners are smoothed where the curve stays
free; the field bounds limit where the robot may walk. The goal frames are prepared once; the
scene, tangent candidates and visibility results are reused while the obstacles do not change.

Everything is in the team frame (own goal at negative x). soccerbt.services.navigation puts
the planner and the follower together.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from dataclasses import field as dc_field
from types import SimpleNamespace
from typing import Iterable, Protocol, Sequence, runtime_checkable

import numpy as np
from shapely.geometry import LineString, Polygon, box

from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D

__all__ = ["Obstacle", "Path", "PathPlanner", "Planner", "PlannerConfig", "VisibilityGraphPlanner",
           "inflate_circle", "robot_obstacles"]


@dataclass(frozen=True, slots=True)
class Obstacle:
    """A round obstacle on the ground (team frame). ``kind`` is "robot", "post", "ball"..."""

    x_m: float
    y_m: float
    radius_m: float
    kind: str = "robot"


def robot_obstacles(points_xy: Iterable[tuple[float, float]], radius_m: float = 0.25,
                    kind: str = "robot") -> list[Obstacle]:
    """Obstacles for robots seen at these positions (e.g. the world model's obstacle list)."""
    return [Obstacle(float(x), float(y), radius_m, kind) for x, y in points_xy]


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


@dataclass(frozen=True)
class Path:
    """A planned path. ``points`` is the smoothed polyline to follow (K, 2)."""

    points: np.ndarray
    waypoints: np.ndarray  # the unsmoothed visibility-graph corners, start and goal included
    length_m: float
    goal: Pose2D
    reached_goal: bool = True  # False when the goal was inside an obstacle and was moved
    passed_obstacle: tuple[float, float, int] | None = None  # first obstacle (x, y, side: +1 left)
    expansions: int = 0

    @property
    def end_xy(self) -> tuple[float, float]:
        return float(self.points[-1, 0]), float(self.points[-1, 1])

    def linestring(self) -> LineString:
        """The path as a shapely LineString (for checks and drawing)."""
        return LineString(self.points)


@runtime_checkable
class Planner(Protocol):
    """Anything that plans a collision-free path between two poses."""

    def plan(self, start: Pose2D, goal: Pose2D, obstacles: Iterable[Obstacle]) -> Path:
        """A path from start to goal around the obstacles (team frame)."""


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


class VisibilityGraphPlanner:
    """Visibility graph over inflated obstacles, searched with A* (implements ``Planner``)."""

    def __init__(self, field: Field, config: PlannerConfig | None = None) -> None:
        self.field = field
        self.config = config or PlannerConfig()
        c = self.config
        self.bound_x_m = field.half_length_m + c.bounds_margin_m
        self.bound_y_m = field.half_width_m + c.bounds_margin_m
        self._static = self._goal_frames() if c.include_goal_frames else []
        self._cos_half = math.cos(math.pi / c.polygon_sides)
        self._unit = inflate_circle(0.0, 0.0, self._cos_half, c.polygon_sides)  # corners at radius 1
        self._ring_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._ring_poly_template = np.repeat(np.arange(16), c.polygon_sides)
        self._unit_prev = np.roll(self._unit, 1, axis=0)
        self._unit_next = np.roll(self._unit, -1, axis=0)
        self._static_np = self._static_arrays()
        st = self._static_np
        self._scene: _Scene | None = None
        self._static_py = [
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
            self._build_scene([])
            self._static_keep = ~self._inside_any(st["nodes"], exclude=st["node_poly"])
            self._static_keep &= (np.abs(st["nodes"][:, 0]) <= self.bound_x_m) & (
                np.abs(st["nodes"][:, 1]) <= self.bound_y_m
            )
            self._scene = None
        self._side_memory: tuple[float, float, int, float, float] | None = None  # x, y, side, goal
        # (centre x, centre y, radius around all its graph nodes) per goal-frame shape
        self._static_rings = list(zip(st["cx"].tolist(), st["cy"].tolist(), st["r_ring"].tolist(), strict=False))
        # every graph node of each goal-frame shape (dropped ones too) and the unit ring corners,
        # as Python floats for the exact direct-path test
        self._static_nodes_py = [st["nodes"][st["node_poly"] == i].tolist() for i in range(st["cx"].shape[0])]
        self._unit_py = self._unit.tolist()

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
        polys = self._static
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

    def _build_scene(self, obstacles: Sequence[Obstacle]) -> _Scene:
        key = tuple((o.x_m, o.y_m, o.radius_m, o.kind) for o in obstacles)
        if self._scene is not None and self._scene.key == key:
            return self._scene  # nothing moved: reuse shapes, tangent candidates, visibility
        c = self.config
        st = self._static_np
        k = c.polygon_sides
        n_s = st["cx"].shape[0]
        n_d = len(obstacles)
        if n_d:
            ob = np.array([(o.x_m, o.y_m, o.radius_m) for o in obstacles], dtype=float)
            r = ob[:, 2] + c.robot_radius_m + c.clearance_m  # the inflated circle
            r_out = r / self._cos_half  # the circle around its polygon: what blocks
            # its nodes form a polygon around that circle, vertex_offset_m outside it
            r_vis = (r_out + c.vertex_offset_m) / self._cos_half
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
        self._scene = scene
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
                keep[sel] &= ~self._inside_any(nodes[sel], exclude=node_poly[sel])
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
            for _block, vis, _kind in self._static:
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

    def _inside_any(self, pts: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
        """(M,) whether each point lies strictly inside a blocking shape: a robot's circle
        around its polygon, a goal frame's polygon."""
        s = self._scene_for_query
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
    def _scene_for_query(self) -> _Scene:
        assert self._scene is not None
        return self._scene

    def _blocked(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """(S,) whether each segment p->q enters a blocking polygon."""
        s = self._scene_for_query
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

    # --- planning -----------------------------------------------------------------------

    def _escape(self, xy: np.ndarray) -> tuple[np.ndarray, bool]:
        """The point itself when free, else the nearest corner-ring point outside (radially)."""
        s = self._scene_for_query
        if s.py is None:
            s.py = self._python_geometry(s)
        moved = False
        for _ in range(4):
            if not self._point_blocked_py(s, float(xy[0]), float(xy[1])):  # _inside_any's twin
                break
            # push out of the polygon with the nearest centre, past its corner radius
            d = np.hypot(*(s.centres - xy).T)
            i = int(np.argmin(d - s.r_out))
            v = xy - s.centres[i]
            n = float(np.hypot(*v))
            v = v / n if n > 1e-9 else np.array([-1.0, 0.0])
            xy = s.centres[i] + v * (s.r_out[i] + self.config.vertex_offset_m)
            moved = True
        xy = np.array([np.clip(xy[0], -self.bound_x_m, self.bound_x_m),
                       np.clip(xy[1], -self.bound_y_m, self.bound_y_m)])
        return xy, moved

    def _tangent_candidates(self, s: _Scene, u_xy: np.ndarray, u_node: int) -> tuple[np.ndarray, np.ndarray]:
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

    def _python_geometry(self, s: _Scene) -> dict:
        """The scene as Python floats, for testing single segments without numpy overhead."""
        polys = list(self._static_py)
        n = s.n_static
        if s.cx.shape[0] > n:
            r_out = np.sqrt(s.r_out2[n:])
            polys.extend((x, y, r2, r2, ro, ()) for x, y, r2, ro in
                         zip(s.cx[n:].tolist(), s.cy[n:].tolist(), s.r_in2[n:].tolist(), r_out.tolist(), strict=False))
        return {"nx": s.nodes[:, 0].tolist(), "ny": s.nodes[:, 1].tolist(), "polys": polys}

    def _point_blocked_py(self, s: _Scene, x: float, y: float) -> bool:
        """Pure-Python twin of ``_inside_any`` for one point."""
        for cx, cy, r_in2, r_out2, _r_out, edges in s.py["polys"]:
            d2 = (x - cx) ** 2 + (y - cy) ** 2
            if d2 < r_in2:
                return True
            if d2 < r_out2 and edges and all(ex * (y - ay) - ey * (x - ax) > 1e-9 or abs(ex) + abs(ey) < 1e-12
                                             for ax, ay, ex, ey in edges):
                return True
        return False

    def _segment_blocked_py(self, s: _Scene, ax: float, ay: float, bx: float, by: float) -> bool:
        """Pure-Python twin of ``_blocked`` for one segment (cheaper than numpy for one)."""
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

    def plan(self, start: Pose2D, goal: Pose2D, obstacles: Iterable[Obstacle]) -> Path:
        """The shortest path (with the side-switch penalty) from start to goal, smoothed."""
        obstacles = [o for o in obstacles if o.radius_m >= 0.0 and math.isfinite(o.x_m) and math.isfinite(o.y_m)]
        for v in (start.x_m, start.y_m, goal.x_m, goal.y_m):
            if not math.isfinite(v):
                raise ValueError(f"plan: start and goal must be finite, got {start} -> {goal}")
        direct = self._direct_path(start, goal, obstacles)
        if direct is not None:
            return direct
        s = self._build_scene(obstacles)
        c = self.config
        if s.py is None:
            s.py = self._python_geometry(s)
        ends = np.array([[start.x_m, start.y_m], [goal.x_m, goal.y_m]])
        bx, by = self.bound_x_m, self.bound_y_m
        if (self._point_blocked_py(s, start.x_m, start.y_m) or self._point_blocked_py(s, goal.x_m, goal.y_m)
                or abs(start.x_m) > bx or abs(goal.x_m) > bx or abs(start.y_m) > by or abs(goal.y_m) > by):
            start_xy, _ = self._escape(ends[0])
            goal_xy, goal_moved = self._escape(ends[1])
        else:  # the usual case: both free
            start_xy, goal_xy, goal_moved = ends[0], ends[1], False
        prefix = [np.array([start.x_m, start.y_m])] if np.hypot(*(start_xy - [start.x_m, start.y_m])) > 1e-9 else []

        # side memory: which polygon was passed first last time, and on which side
        penalised_poly, kept_side = -1, 0
        mem = self._side_memory
        if mem is not None and math.hypot(mem[3] - goal_xy[0], mem[4] - goal_xy[1]) < c.same_goal_m:
            d = np.hypot(s.centres[:, 0] - mem[0], s.centres[:, 1] - mem[1])
            if d.size and float(d.min()) < c.same_obstacle_m:
                penalised_poly, kept_side = int(np.argmin(d)), mem[2]

        n_nodes = s.nodes.shape[0]
        goal_id = n_nodes  # index of the goal; -1 is the start
        if len(s.visible) > 20000:
            s.visible.clear()
        if s.py is None:
            s.py = self._python_geometry(s)
        nx_l, ny_l = s.py["nx"], s.py["ny"]
        sx, sy = float(start_xy[0]), float(start_xy[1])
        gx, gy = float(goal_xy[0]), float(goal_xy[1])

        def xy_of(i: int) -> tuple[float, float]:
            if i < 0:
                return sx, sy
            if i == goal_id:
                return gx, gy
            return nx_l[i], ny_l[i]

        local_visible: dict[tuple[int, int], bool] = {}

        def visible(a: int, b: int) -> bool:
            key = (a, b) if a < b else (b, a)
            cache = local_visible if (key[0] < 0 or key[1] == goal_id) else s.visible
            hit = cache.get(key)
            if hit is None:
                ax, ay = xy_of(a)
                bx, by = xy_of(b)
                hit = not self._segment_blocked_py(s, ax, ay, bx, by)
                cache[key] = hit
            return hit

        # lazy A*: an edge is pushed on the heap unchecked (its length is a lower bound) and
        # its visibility is tested only when it is popped; every tangent edge of every
        # expanded node is pushed, so the first valid pop of a node is its shortest path
        parent: dict[int, int] = {}
        heap: list[tuple[float, float, int, int]] = [(math.hypot(gx - sx, gy - sy), 0.0, -1, -2)]
        expansions = 0
        found = False
        pen_ctr = s.centres[penalised_poly] if penalised_poly >= 0 else None
        while heap:
            _f, g_u, u, par = heapq.heappop(heap)
            if u in parent:
                continue
            if par != -2 and not visible(par, u):
                continue
            parent[u] = par
            if u == goal_id:
                found = True
                break
            expansions += 1
            ux, uy = xy_of(u)
            heapq.heappush(heap, (g_u + math.hypot(gx - ux, gy - uy), g_u + math.hypot(gx - ux, gy - uy), goal_id, u))
            cached = s.neighbours.get(u) if u >= 0 else None
            if cached is None:
                cached = self._tangent_candidates(s, np.array([ux, uy]), u)
                if u >= 0:
                    s.neighbours[u] = cached
            idx, dist = cached
            if idx.size == 0:
                continue
            cost = g_u + dist
            if pen_ctr is not None:
                hit = s.node_poly[idx] == penalised_poly
                if hit.any():
                    w = s.nodes[idx[hit]]
                    side = np.sign(_cross(w[:, 0] - ux, w[:, 1] - uy, pen_ctr[0] - w[:, 0], pen_ctr[1] - w[:, 1]))
                    # arriving at the remembered obstacle on the other side costs extra
                    cost = cost.copy()
                    cost[hit] += np.where(side == -kept_side, c.side_switch_penalty_m, 0.0)
            h = np.hypot(s.nodes[idx, 0] - gx, s.nodes[idx, 1] - gy)
            for v, gv, fv in zip(idx.tolist(), cost.tolist(), (cost + h).tolist(), strict=False):
                if v not in parent:
                    heapq.heappush(heap, (fv, gv, v, u))
        if found:
            chain = [goal_id]
            while chain[-1] != -1:
                chain.append(parent[chain[-1]])
            chain.reverse()
            pts = [start_xy] + [s.nodes[i] for i in chain[1:-1]] + [goal_xy]
        else:
            pts = [start_xy]  # unreachable: stay (the follower will stand)
            goal_moved = True
        waypoints = np.array(prefix + pts)
        if waypoints.shape[0] == 1:
            waypoints = np.vstack([waypoints, waypoints])
        # remember the first obstacle passed and on which side
        passed = None
        if found and len(chain) > 2:
            first = chain[1]
            pi = int(s.node_poly[first])
            ctr = s.centres[pi]
            w, u_xy = s.nodes[first], start_xy
            side = 1 if _cross(w[0] - u_xy[0], w[1] - u_xy[1], ctr[0] - w[0], ctr[1] - w[1]) > 0 else -1
            passed = (float(ctr[0]), float(ctr[1]), side)
            self._side_memory = (float(ctr[0]), float(ctr[1]), side, float(goal_xy[0]), float(goal_xy[1]))
        elif found:
            self._side_memory = None
        points = self._smooth(waypoints)
        seg = np.diff(points, axis=0)
        length = float(np.hypot(seg[:, 0], seg[:, 1]).sum())
        return Path(points, waypoints, length, goal, reached_goal=not goal_moved,
                    passed_obstacle=passed, expansions=expansions)

    def _direct_path(self, start: Pose2D, goal: Pose2D, obstacles: Sequence[Obstacle]) -> Path | None:
        """The straight path when every shape's ring of graph nodes stays clearly away from the
        segment (None otherwise), found without building the scene.

        With every node more than ``_DIRECT_CLEARANCE_M`` off the segment, a detour over any
        node is longer by far more than rounding, so the search pops the goal first; the
        segment is free as well (each blocking shape lies inside its ring). The result is the
        search's, bit for bit; the scene of the previous plan stays for the next."""
        sx, sy, gx, gy = start.x_m, start.y_m, goal.x_m, goal.y_m
        bx, by = self.bound_x_m, self.bound_y_m
        if abs(sx) > bx or abs(gx) > bx or abs(sy) > by or abs(gy) > by:
            return None
        dx, dy = gx - sx, gy - sy
        dd = dx * dx + dy * dy
        inv = 1.0 / dd if dd > 1e-18 else 0.0
        margin = _DIRECT_CLEARANCE_M
        c = self.config
        grow = c.robot_radius_m + c.clearance_m
        k_ring = 1.0 / self._cos_half
        near_static: list[int] = []
        near_robots: list[Obstacle] = []
        for i, (cx, cy, r_ring) in enumerate(self._static_rings):
            rx, ry = cx - sx, cy - sy
            t = (rx * dx + ry * dy) * inv
            t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
            ex, ey = rx - t * dx, ry - t * dy
            lim = r_ring + margin
            if ex * ex + ey * ey <= lim * lim:
                near_static.append(i)
        for o in obstacles:
            # the radius of the robot's node ring (as _build_scene has it, to within rounding)
            r_ring = ((o.radius_m + grow) * k_ring + c.vertex_offset_m) * k_ring
            rx, ry = o.x_m - sx, o.y_m - sy
            t = (rx * dx + ry * dy) * inv
            t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
            ex, ey = rx - t * dx, ry - t * dy
            lim = r_ring + margin
            if ex * ex + ey * ey <= lim * lim:
                near_robots.append(o)
        if (near_static or near_robots) and not self._search_goes_direct(sx, sy, gx, gy, near_static, near_robots):
            return None
        self._side_memory = None
        ends = np.array([[start.x_m, start.y_m], [goal.x_m, goal.y_m]])
        seg = np.diff(ends, axis=0)
        return Path(ends.copy(), ends, float(_hypot(float(seg[0, 0]), float(seg[0, 1]))), goal,
                    reached_goal=True, passed_obstacle=None, expansions=1)

    def _search_goes_direct(self, sx: float, sy: float, gx: float, gy: float, near_static: list[int],
                            near_robots: list[Obstacle]) -> bool:
        """Whether the search would return the straight segment, when only these shapes' node
        rings come within ``_DIRECT_CLEARANCE_M`` of it (the others cannot matter, see
        ``_direct_path``): both ends and the segment are free of the near shapes (the same tests
        as the search's, on the same floats), and every node of a near shape costs more than
        the goal as the search computes both, so the goal pops first after the start."""
        c = self.config
        polys = [self._static_py[i] for i in near_static]
        rings: list[tuple[float, float, float]] = []  # (centre x, centre y, node radius) per robot
        for o in near_robots:
            # the same operations as _build_scene's arrays, on the same floats
            r = o.radius_m + c.robot_radius_m + c.clearance_m
            r_out = r / self._cos_half
            r2 = r_out * r_out - 1e-9
            polys.append((o.x_m, o.y_m, r2, r2, math.sqrt(r2), ()))
            rings.append((o.x_m, o.y_m, (r_out + c.vertex_offset_m) / self._cos_half))
        probe = SimpleNamespace(py={"polys": polys})  # all the point and segment tests read
        if (self._point_blocked_py(probe, sx, sy) or self._point_blocked_py(probe, gx, gy)
                or self._segment_blocked_py(probe, sx, sy, gx, gy)):
            return False
        f_goal = 0.0 + math.hypot(gx - sx, gy - sy)  # the goal's heap key after the start
        for i in near_static:
            for nx, ny in self._static_nodes_py[i]:
                if (0.0 + _hypot(nx - sx, ny - sy)) + _hypot(nx - gx, ny - gy) <= f_goal:
                    return False
        for cx, cy, rv in rings:
            for ux, uy in self._unit_py:
                nx, ny = cx + rv * ux, cy + rv * uy
                if (0.0 + _hypot(nx - sx, ny - sy)) + _hypot(nx - gx, ny - gy) <= f_goal:
                    return False
        return True

    def forget_side(self) -> None:
        """Drop the memory of which side the previous plan passed its first obstacle."""
        self._side_memory = None

    def _smooth(self, wp: np.ndarray) -> np.ndarray:
        """Round each corner with a quadratic Bezier where the curve stays free.

        The longest cut is tried first, then half of it, three times; a corner whose curve
        would enter a shape stays sharp. Few points: plain Python is cheaper than numpy.
        """
        c = self.config
        if wp.shape[0] < 3 or c.smoothing_max_cut_m <= 0.0:
            return wp.copy()
        s = self._scene_for_query
        if s.py is None:
            s.py = self._python_geometry(s)
        pts = wp.tolist()
        n_t = c.smoothing_samples + 2
        ts = [i / (n_t - 1) for i in range(n_t)]
        out = [pts[0]]
        for k in range(1, len(pts) - 1):
            (x0, y0), (x1, y1), (x2, y2) = pts[k - 1], pts[k], pts[k + 1]
            l_in, l_out = math.hypot(x1 - x0, y1 - y0), math.hypot(x2 - x1, y2 - y1)
            if l_in < 1e-9 or l_out < 1e-9:
                out.append(pts[k])
                continue
            ax, ay = (x1 - x0) / l_in, (y1 - y0) / l_in
            bx, by = (x2 - x1) / l_out, (y2 - y1) / l_out
            if ax * bx + ay * by > 0.9999:
                out.append(pts[k])
                continue
            cut = min(c.smoothing_max_cut_m, 0.5 * l_in, 0.5 * l_out)
            curve = None
            for _ in range(4):
                px, py = x1 - cut * ax, y1 - cut * ay
                qx, qy = x1 + cut * bx, y1 + cut * by
                cand = [[(1 - t) ** 2 * px + 2 * (1 - t) * t * x1 + t * t * qx,
                         (1 - t) ** 2 * py + 2 * (1 - t) * t * y1 + t * t * qy] for t in ts]
                if not any(
                    self._segment_blocked_py(s, p[0], p[1], q[0], q[1]) for p, q in zip(cand, cand[1:], strict=False)
                ):
                    curve = cand
                    break
                cut *= 0.5
            out.extend(curve if curve is not None else [pts[k]])
        out.append(pts[-1])
        res = np.array(out)
        keep = np.ones(res.shape[0], dtype=bool)
        keep[1:] = np.hypot(*np.diff(res, axis=0).T) > 1e-9
        return res[keep]

    # --- helpers for tests and the viewer -------------------------------------------------

    def inflated_polygons(self, obstacles: Iterable[Obstacle]) -> list[Polygon]:
        """The inflated obstacles as shapely polygons: the goal frames, then one regular
        polygon per robot enclosing its inflated circle. Paths never enter them."""
        obstacles = list(obstacles)
        out = [Polygon(block) for block, _vis, _kind in self._static]
        c = self.config
        for o in obstacles:
            out.append(Polygon(inflate_circle(o.x_m, o.y_m, o.radius_m + c.robot_radius_m + c.clearance_m,
                                              c.polygon_sides)))
        return out

    def graph_nodes(self, obstacles: Iterable[Obstacle]) -> np.ndarray:
        """The visibility-graph nodes (V, 2) for these obstacles (free, in bounds)."""
        return self._build_scene(list(obstacles)).nodes.copy()

    def segment_blocked(self, p: Sequence[float], q: Sequence[float], obstacles: Iterable[Obstacle]) -> bool:
        """Whether the straight segment p->q enters an inflated obstacle."""
        self._build_scene(list(obstacles))
        return bool(self._blocked(np.array([p], dtype=float), np.array([q], dtype=float))[0])


PathPlanner = VisibilityGraphPlanner  # the default planner

_DIRECT_CLEARANCE_M = 0.01  # a straight path this far from every graph node needs no search


def _ccw(pts: np.ndarray) -> np.ndarray:
    """Corners in counter-clockwise order."""
    x, y = pts[:, 0], pts[:, 1]
    area = 0.5 * float((x * np.roll(y, -1) - np.roll(x, -1) * y).sum())
    return pts if area > 0 else pts[::-1].copy()


def _hypot(x: float, y: float) -> float:
    """libm's hypot, as numpy's ``np.hypot`` computes it (``math.hypot`` rounds differently
    in the last bit now and then; this keeps seeded runs identical)."""
    return abs(complex(x, y))
