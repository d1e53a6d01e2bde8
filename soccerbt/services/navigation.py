"""Navigation: obstacle inflation, a visibility-graph planner with A*, and a pure-pursuit follower.

Obstacles (robots, goal posts and the goal frames, the ball when approaching it from the wrong
side) are circles or convex shapes inflated by the robot radius into convex polygons that
*enclose* the inflated circles (a regular polygon circumscribing the circle), so a path that
stays outside the polygons keeps the full clearance. The planner searches a visibility graph
with its own A*: nodes are the polygon corners pushed slightly outwards (room for corner
smoothing), edges are computed lazily from the node being expanded and pruned to tangent
lines (only those can be on a shortest path). A penalty against passing the first obstacle of
the previous plan on the other side prevents dithering; corners are smoothed where the
smoothed curve stays free; the field bounds limit where the robot may walk. Obstacle geometry
and vertex neighbourhoods are reused between replans when nothing changed.

``PathFollower`` turns a path into (vx, vy, vtheta) in the robot frame with pure pursuit,
within speed and acceleration limits, turning to the goal heading at the end. ``Navigator``
plans and follows once per tick, replanning at most every ``replan_period_s``.

Everything is in the team frame (own goal at negative x); times are simulated seconds.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field as dc_field
from typing import Iterable, Protocol, Sequence, runtime_checkable

import numpy as np
from shapely.geometry import LineString, Polygon, box

from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, wrap_angle_rad

__all__ = [
    "Navigator",
    "NavigatorConfig",
    "Obstacle",
    "Path",
    "PathFollower",
    "FollowerConfig",
    "PathPlanner",
    "Planner",
    "PlannerConfig",
    "VisibilityGraphPlanner",
    "inflate_circle",
]


@dataclass(frozen=True, slots=True)
class Obstacle:
    """A round obstacle on the ground (team frame). ``kind`` is "robot", "post", "ball"..."""

    x_m: float
    y_m: float
    radius_m: float
    kind: str = "robot"


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
    """The inflated polygons of one set of obstacles, with the graph nodes around them."""

    key: tuple
    corners: np.ndarray  # (P, K, 2) blocking polygons, padded by repeating the last corner
    edges: np.ndarray  # (P, K, 2) corner k to corner k+1
    centres: np.ndarray  # (P, 2)
    r_in: np.ndarray  # (P,) radius of a circle inside the polygon (0 when unknown)
    r_out: np.ndarray  # (P,) radius of a circle around the polygon
    r_ring: np.ndarray  # (P,) radius of a circle around the polygon's graph nodes
    nodes: np.ndarray  # (V, 2) graph nodes (pushed-out corners)
    node_poly: np.ndarray  # (V,) polygon index of each node
    node_prev: np.ndarray  # (V, 2) the neighbouring node on the polygon, either side
    node_next: np.ndarray
    kinds: list[str]
    neighbours: dict[tuple, tuple[np.ndarray, np.ndarray, float]] = dc_field(default_factory=dict)
    # the same geometry split for the segment test: centres (P,), squared radii (P,),
    # corners and edges per axis (P, K)
    node_band: np.ndarray = dc_field(default_factory=lambda: np.zeros(0))  # (V,) ring - shape, metres
    node_loose: np.ndarray | None = None  # (V,) nodes exempt from the tangent rule (or None)
    cx: np.ndarray = dc_field(default_factory=lambda: np.zeros(0))
    cy: np.ndarray = dc_field(default_factory=lambda: np.zeros(0))
    r_in2: np.ndarray = dc_field(default_factory=lambda: np.zeros(0))
    r_out2: np.ndarray = dc_field(default_factory=lambda: np.zeros(0))
    ax: np.ndarray = dc_field(default_factory=lambda: np.zeros((0, 0)))
    ay: np.ndarray = dc_field(default_factory=lambda: np.zeros((0, 0)))
    ex: np.ndarray = dc_field(default_factory=lambda: np.zeros((0, 0)))
    ey: np.ndarray = dc_field(default_factory=lambda: np.zeros((0, 0)))


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
        self._static_np = self._static_arrays()
        self._static_keep = np.ones(self._static_np["nodes"].shape[0], dtype=bool)
        if self._static_keep.size:
            self._scene = None
            self._build_scene_static_check()
        self._scene: _Scene | None = None
        self._side_memory: tuple[float, float, int, float, float] | None = None  # x, y, side, goal

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
        """The goal frames' polygon arrays, computed once."""
        k = self.config.polygon_sides
        polys = self._static
        n_p = len(polys)
        corners = np.zeros((n_p, k, 2))
        nodes, node_poly, prev, nxt, prev_idx, next_idx = [], [], [], [], [], []
        offset = 0
        for i, (block, vis, _kind) in enumerate(polys):
            m = block.shape[0]
            mv = vis.shape[0]
            prev_idx.append(offset + (np.arange(mv) - 1) % mv)
            next_idx.append(offset + (np.arange(mv) + 1) % mv)
            offset += mv
            if m > k:
                raise ValueError(f"goal frame polygon with {m} corners exceeds polygon_sides={k}")
            corners[i, :m] = block
            corners[i, m:] = block[-1]  # padding: zero-length edges never cross anything
            nodes.append(vis)
            node_poly.append(np.full(vis.shape[0], i))
            prev.append(np.roll(vis, 1, axis=0))
            nxt.append(np.roll(vis, -1, axis=0))
        centres = np.array([p[0].mean(axis=0) for p in polys]).reshape(-1, 2)
        r_out = np.array([float(np.hypot(*(p[0] - ctr).T).max()) for p, ctr in zip(polys, centres)])
        r_ring = np.array([float(np.hypot(*(p[1] - ctr).T).max()) for p, ctr in zip(polys, centres)])
        r_in = np.zeros(n_p)
        for i, (block, _vis, _kind) in enumerate(polys):
            e = np.roll(block, -1, axis=0) - block
            ctr = centres[i]
            r_in[i] = float((np.abs(_cross(e[:, 0], e[:, 1], ctr[0] - block[:, 0], ctr[1] - block[:, 1]))
                             / np.hypot(e[:, 0], e[:, 1])).min())
        empty = np.zeros((0, 2))
        return {
            "corners": corners, "centres": centres, "r_in": r_in, "r_out": r_out, "r_ring": r_ring,
            "nodes": np.concatenate(nodes) if nodes else empty,
            "node_poly": np.concatenate(node_poly) if node_poly else np.zeros(0, dtype=int),
            "prev": np.concatenate(prev) if prev else empty,
            "next": np.concatenate(nxt) if nxt else empty,
            "prev_idx": np.concatenate(prev_idx) if prev_idx else np.zeros(0, dtype=int),
            "next_idx": np.concatenate(next_idx) if next_idx else np.zeros(0, dtype=int),
        }

    def _build_scene_static_check(self) -> None:
        """Which goal-frame nodes lie inside another goal-frame polygon (computed once)."""
        scene = self._build_scene([])
        st = self._static_np
        self._static_keep = ~self._inside_any(st["nodes"], exclude=st["node_poly"])
        del scene
        self._scene = None

    def _build_scene(self, obstacles: Sequence[Obstacle]) -> _Scene:
        key = tuple((o.x_m, o.y_m, o.radius_m, o.kind) for o in obstacles)
        if self._scene is not None and self._scene.key == key:
            return self._scene  # nothing moved: reuse polygons and vertex neighbourhoods
        c = self.config
        st = self._static_np
        k = c.polygon_sides
        n_s = st["corners"].shape[0]
        if obstacles:
            ob = np.array([(o.x_m, o.y_m, o.radius_m) for o in obstacles], dtype=float)
            r = ob[:, 2] + c.robot_radius_m + c.clearance_m  # inscribed radius of each polygon
            r_out = r / self._cos_half
            # a robot blocks its whole circumscribed circle (which holds its polygon), so the
            # segment test is one distance per pair; its nodes circumscribe that circle
            r_vis = (r_out + c.vertex_offset_m) / self._cos_half
            corners = ob[:, None, 0:2] + r_out[:, None, None] * self._unit[None, :, :]
            vis = ob[:, None, 0:2] + r_vis[:, None, None] * self._unit[None, :, :]
            n_d = ob.shape[0]
            all_corners = np.concatenate([st["corners"], corners])
            centres = np.concatenate([st["centres"], ob[:, 0:2]])
            r_in_a = np.concatenate([st["r_in"], r])
            r_out_a = np.concatenate([st["r_out"], r_out])
            r_ring_a = np.concatenate([st["r_ring"], r_vis])
            nodes = np.concatenate([st["nodes"], vis.reshape(-1, 2)])
            node_poly = np.concatenate([st["node_poly"], np.repeat(np.arange(n_s, n_s + n_d), k)])
            prev = np.concatenate([st["prev"], np.roll(vis, 1, axis=1).reshape(-1, 2)])
            nxt = np.concatenate([st["next"], np.roll(vis, -1, axis=1).reshape(-1, 2)])
            base = st["nodes"].shape[0] + k * np.arange(n_d)[:, None]
            ring_k = np.arange(k)[None, :]
            prev_idx = np.concatenate([st["prev_idx"], (base + (ring_k - 1) % k).ravel()])
            next_idx = np.concatenate([st["next_idx"], (base + (ring_k + 1) % k).ravel()])
        else:
            all_corners, centres, r_in_a, r_out_a = st["corners"], st["centres"], st["r_in"], st["r_out"]
            r_ring_a = st["r_ring"]
            nodes, node_poly, prev, nxt = st["nodes"], st["node_poly"], st["prev"], st["next"]
            prev_idx, next_idx = st["prev_idx"], st["next_idx"]
        edges = np.roll(all_corners, -1, axis=1) - all_corners
        scene = _Scene(key, all_corners, edges, centres, r_in_a, r_out_a, r_ring_a, nodes, node_poly, prev, nxt,
                       [p[2] for p in self._static] + [o.kind for o in obstacles])
        scene.cx, scene.cy = centres[:, 0].copy(), centres[:, 1].copy()
        r_sure = r_in_a.copy()
        r_sure[n_s:] = r_out_a[n_s:]  # robots: the circle around the polygon blocks
        scene.r_in2 = r_sure * r_sure - 1e-9
        scene.r_out2 = r_out_a * r_out_a
        scene.ax, scene.ay = all_corners[..., 0].copy(), all_corners[..., 1].copy()
        scene.ex, scene.ey = edges[..., 0].copy(), edges[..., 1].copy()
        band = np.full(centres.shape[0], 1.5 * c.vertex_offset_m)
        band[n_s:] = r_ring_a[n_s:] - r_out_a[n_s:]
        scene.node_band = band[node_poly]
        self._scene = scene
        # nodes inside another polygon or out of bounds can never be visited; the goal frames'
        # own overlaps are known, the robots' are tested only when circles overlap at all
        keep = (np.abs(nodes[:, 0]) <= self.bound_x_m) & (np.abs(nodes[:, 1]) <= self.bound_y_m)
        n_static_nodes = st["nodes"].shape[0]
        keep[:n_static_nodes] &= self._static_keep
        if centres.shape[0] > n_s:
            gap = np.hypot(centres[n_s:, None, 0] - centres[None, :, 0], centres[n_s:, None, 1] - centres[None, :, 1])
            gap -= r_out_a[n_s:, None] + r_ring_a[None, :]
            gap[np.arange(centres.shape[0] - n_s), np.arange(n_s, centres.shape[0])] = 1.0
            di, pj = np.nonzero(gap < 0.0)  # polygon pj's nodes may lie inside robot polygon di
            if di.size:
                involved = np.zeros(centres.shape[0], dtype=bool)
                involved[di + n_s] = True
                involved[pj] = True
                sel = np.nonzero(involved[node_poly])[0]
                keep[sel] &= ~self._inside_any(nodes[sel], exclude=node_poly[sel])
        if not keep.all():
            # a node next to a swallowed one lies where shapes overlap: the union's boundary
            # turns there, so the tangent rule of its own ring does not apply
            scene.node_loose = (~keep[prev_idx] | ~keep[next_idx])[keep]
            scene.nodes, scene.node_poly = nodes[keep], node_poly[keep]
            scene.node_prev, scene.node_next = prev[keep], nxt[keep]
            scene.node_band = scene.node_band[keep]
        return scene

    def _inside_any(self, pts: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
        """(M,) whether each point lies strictly inside a blocking shape: a robot's circle
        around its polygon, a goal frame's polygon."""
        s = self._scene_for_query
        m = pts.shape[0]
        if s.corners.shape[0] == 0 or m == 0:
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
        if s.corners.shape[0] == 0 or n_seg == 0:
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
        moved = False
        for _ in range(4):
            inside = self._inside_any(xy[None, :])
            if not inside[0]:
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

    def _neighbours(self, s: _Scene, u_xy: np.ndarray, u_node: int,
                    goal_xy: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """Graph nodes visible from u along tangent lines (indices, distances), and the
        distance to the goal when it is visible from u (inf otherwise)."""
        nodes = s.nodes
        dx = nodes[:, 0] - u_xy[0]
        dy = nodes[:, 1] - u_xy[1]
        # tangent at the target: both polygon neighbours of w on the same side of u->w
        c1 = dx * (s.node_prev[:, 1] - u_xy[1]) - dy * (s.node_prev[:, 0] - u_xy[0])
        c2 = dx * (s.node_next[:, 1] - u_xy[1]) - dy * (s.node_next[:, 0] - u_xy[0])
        # (near-)tangent: a neighbour on the wrong side by less than the band between the node
        # ring and the blocking shape still counts, as the segment may cut through that band
        slack = s.node_band * np.hypot(dx, dy)
        ok = (c1 * c2 >= -1e-12) | (np.minimum(np.abs(c1), np.abs(c2)) <= slack)
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
            ok &= (c3 * c4 >= -1e-12) | (np.minimum(np.abs(c3), np.abs(c4)) <= s.node_band[u_node] * np.hypot(dx, dy))
        if u_node >= 0:
            ok[u_node] = False
        idx = np.nonzero(ok)[0]
        # one segment test for the candidates and the goal together
        targets = np.concatenate([nodes[idx], goal_xy[None, :]])
        free = ~self._blocked(np.broadcast_to(u_xy, targets.shape), targets)
        goal_dist = float(np.hypot(*(goal_xy - u_xy))) if free[-1] else math.inf
        idx = idx[free[:-1]]
        return idx, np.hypot(dx[idx], dy[idx]), goal_dist

    def plan(self, start: Pose2D, goal: Pose2D, obstacles: Iterable[Obstacle]) -> Path:
        """The shortest path (with the side-switch penalty) from start to goal, smoothed."""
        obstacles = [o for o in obstacles if o.radius_m >= 0.0 and math.isfinite(o.x_m) and math.isfinite(o.y_m)]
        for v in (start.x_m, start.y_m, goal.x_m, goal.y_m):
            if not math.isfinite(v):
                raise ValueError(f"plan: start and goal must be finite, got {start} -> {goal}")
        s = self._build_scene(obstacles)
        c = self.config
        ends = np.array([[start.x_m, start.y_m], [goal.x_m, goal.y_m]])
        if self._inside_any(ends).any() or (np.abs(ends) > [self.bound_x_m, self.bound_y_m]).any():
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
        goal_key = (float(goal_xy[0]), float(goal_xy[1]))  # cached visibility depends on it
        if len(s.neighbours) > 4096:
            s.neighbours.clear()
        g = {-1: 0.0}
        parent: dict[int, int] = {}
        closed: set[int] = set()
        heap = [(float(np.hypot(*(goal_xy - start_xy))), 0.0, -1)]
        expansions = 0
        found = False
        if penalised_poly >= 0:
            in_poly = s.node_poly == penalised_poly
        while heap:
            _f, g_u, u = heapq.heappop(heap)
            if u in closed:
                continue
            if u == goal_id:
                found = True
                break
            closed.add(u)
            expansions += 1
            u_xy = start_xy if u < 0 else s.nodes[u]
            key = (u, goal_key)
            cached = s.neighbours.get(key) if u >= 0 else None
            if cached is None:
                cached = self._neighbours(s, u_xy, u, goal_xy)
                if u >= 0:
                    s.neighbours[key] = cached
            idx, dist, goal_dist = cached
            if goal_dist < math.inf:  # the direct line to the goal is free
                g_new = g_u + goal_dist
                if g_new < g.get(goal_id, math.inf):
                    g[goal_id] = g_new
                    parent[goal_id] = u
                    heapq.heappush(heap, (g_new, g_new, goal_id))
            if idx.size == 0:
                continue
            cost = g_u + dist
            if penalised_poly >= 0:
                hit = in_poly[idx]
                if hit.any():
                    w = s.nodes[idx[hit]]
                    ctr = s.centres[penalised_poly]
                    side = np.sign(_cross(w[:, 0] - u_xy[0], w[:, 1] - u_xy[1], ctr[0] - w[:, 0], ctr[1] - w[:, 1]))
                    # arriving at the remembered obstacle on the other side costs extra
                    extra = np.where(side == -kept_side, c.side_switch_penalty_m, 0.0)
                    cost = cost.copy()
                    cost[hit] += extra
            h = np.hypot(s.nodes[idx, 0] - goal_xy[0], s.nodes[idx, 1] - goal_xy[1])
            for v, gv, hv in zip(idx.tolist(), cost.tolist(), h.tolist()):
                if v in closed or gv >= g.get(v, math.inf):
                    continue
                g[v] = gv
                parent[v] = u
                heapq.heappush(heap, (gv + hv, gv, v))
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

    def forget_side(self) -> None:
        """Drop the memory of which side the previous plan passed its first obstacle."""
        self._side_memory = None

    def _smooth(self, wp: np.ndarray) -> np.ndarray:
        """Round each corner with a quadratic Bezier where the curve stays free.

        Every corner is tried at once with the longest cut; corners whose curve would enter a
        polygon are retried with half the cut, three times, then left sharp.
        """
        c = self.config
        if wp.shape[0] < 3 or c.smoothing_max_cut_m <= 0.0:
            return wp.copy()
        seg = np.diff(wp, axis=0)
        seg_len = np.hypot(seg[:, 0], seg[:, 1])
        corner = wp[1:-1]  # (C, 2)
        l_in, l_out = seg_len[:-1], seg_len[1:]
        ok_len = (l_in > 1e-9) & (l_out > 1e-9)
        a = seg[:-1] / np.maximum(l_in, 1e-9)[:, None]
        b = seg[1:] / np.maximum(l_out, 1e-9)[:, None]
        todo = ok_len & ((a * b).sum(axis=1) < 0.9999)  # straight-through corners need nothing
        cut = np.minimum(c.smoothing_max_cut_m, 0.5 * np.minimum(l_in, l_out))
        ts = np.linspace(0.0, 1.0, c.smoothing_samples + 2)
        w0, w1, w2 = (1 - ts) ** 2, 2 * (1 - ts) * ts, ts ** 2
        n_t = ts.size
        curves: dict[int, np.ndarray] = {}
        for _ in range(4):
            idx = np.nonzero(todo)[0]
            if idx.size == 0:
                break
            p0 = corner[idx] - cut[idx, None] * a[idx]
            p2 = corner[idx] + cut[idx, None] * b[idx]
            pts = (w0[None, :, None] * p0[:, None, :] + w1[None, :, None] * corner[idx][:, None, :]
                   + w2[None, :, None] * p2[:, None, :])  # (I, T, 2)
            blocked = self._blocked(pts[:, :-1].reshape(-1, 2), pts[:, 1:].reshape(-1, 2))
            bad = blocked.reshape(idx.size, n_t - 1).any(axis=1)
            for j, k in enumerate(idx.tolist()):
                if not bad[j]:
                    curves[k] = pts[j]
            todo[idx[~bad]] = False
            cut[idx[bad]] *= 0.5
        out = [wp[:1]]
        for k in range(corner.shape[0]):
            out.append(curves[k] if k in curves else corner[k:k + 1])
        out.append(wp[-1:])
        pts = np.concatenate(out)
        keep = np.ones(pts.shape[0], dtype=bool)
        keep[1:] = np.hypot(*np.diff(pts, axis=0).T) > 1e-9
        return pts[keep]

    # --- helpers for tests and the viewer -------------------------------------------------

    def inflated_polygons(self, obstacles: Iterable[Obstacle]) -> list[Polygon]:
        """The blocking polygons (shapely) for these obstacles, goal frames included."""
        s = self._build_scene(list(obstacles))
        out = []
        for i in range(s.corners.shape[0]):
            pts = s.corners[i]
            keep = np.ones(pts.shape[0], dtype=bool)
            keep[1:] = np.hypot(*np.diff(pts, axis=0).T) > 1e-12
            out.append(Polygon(pts[keep]))
        return out

    def graph_nodes(self, obstacles: Iterable[Obstacle]) -> np.ndarray:
        """The visibility-graph nodes (V, 2) for these obstacles (free, in bounds)."""
        return self._build_scene(list(obstacles)).nodes.copy()

    def segment_blocked(self, p: Sequence[float], q: Sequence[float], obstacles: Iterable[Obstacle]) -> bool:
        """Whether the straight segment p->q enters an inflated obstacle."""
        self._build_scene(list(obstacles))
        return bool(self._blocked(np.array([p], dtype=float), np.array([q], dtype=float))[0])


PathPlanner = VisibilityGraphPlanner  # the default planner


def _ccw(pts: np.ndarray) -> np.ndarray:
    """Corners in counter-clockwise order."""
    x, y = pts[:, 0], pts[:, 1]
    area = 0.5 * float((x * np.roll(y, -1) - np.roll(x, -1) * y).sum())
    return pts if area > 0 else pts[::-1].copy()


# --- following --------------------------------------------------------------------------


@dataclass(frozen=True)
class FollowerConfig:
    """Speed and acceleration limits (robot frame) and pure-pursuit gains."""

    vx_max_mps: float = 0.8
    vx_back_max_mps: float = 0.3
    vy_max_mps: float = 0.4
    vtheta_max_radps: float = 1.0
    ax_max_mps2: float = 1.0
    ay_max_mps2: float = 0.8
    atheta_max_radps2: float = 3.0
    lookahead_m: float = 0.5
    heading_gain: float = 2.5  # 1/s
    position_gain: float = 1.5  # 1/s, the final approach
    face_path_beyond_m: float = 1.0  # walk facing the path when the goal is farther than this
    turn_slowdown_rad: float = 1.0  # translation fades out as the heading error reaches this
    arrive_distance_m: float = 0.05


class PathFollower:
    """Pure pursuit with look-ahead; ``follow`` yields (vx, vy, vtheta) in the robot frame."""

    def __init__(self, config: FollowerConfig | None = None) -> None:
        self.config = config or FollowerConfig()
        self._last = (0.0, 0.0, 0.0)
        self._path_id = -1
        self._progress = 0

    def reset(self) -> None:
        """Forget the previous command (the robot stands) and the progress along the path."""
        self._last = (0.0, 0.0, 0.0)
        self._path_id = -1
        self._progress = 0

    def brake(self, dt_s: float) -> tuple[float, float, float]:
        """Slow the previous command toward standing, within the acceleration limits."""
        c = self.config
        dt = max(dt_s, 1e-3)
        lx, ly, lth = self._last

        def toward_zero(v: float, a: float) -> float:
            return math.copysign(max(0.0, abs(v) - a * dt), v)

        self._last = (toward_zero(lx, c.ax_max_mps2), toward_zero(ly, c.ay_max_mps2),
                      toward_zero(lth, c.atheta_max_radps2))
        return self._last

    def _closest(self, pts: np.ndarray, xy: np.ndarray) -> tuple[int, float, float]:
        """(segment index, parameter t, arc length) of the nearest point at or after progress."""
        a = pts[:-1]
        d = np.diff(pts, axis=0)
        dd = np.maximum((d * d).sum(axis=1), 1e-18)
        t = np.clip(((xy - a) * d).sum(axis=1) / dd, 0.0, 1.0)
        proj = a + t[:, None] * d
        dist = np.hypot(*(proj - xy).T)
        lo = min(self._progress, len(dist) - 1)
        k = lo + int(np.argmin(dist[lo:]))
        seg_len = np.sqrt(dd)
        s = float(seg_len[:k].sum() + t[k] * seg_len[k])
        return k, float(t[k]), s

    def follow(self, pose: Pose2D, path: Path, goal_heading_rad: float, dt_s: float,
               vx_limit_mps: float | None = None, vy_limit_mps: float | None = None,
               vtheta_limit_radps: float | None = None) -> tuple[float, float, float]:
        """The velocity command for this tick (robot frame) toward the path's end."""
        c = self.config
        vx_max = c.vx_max_mps if vx_limit_mps is None else min(c.vx_max_mps, abs(vx_limit_mps))
        vy_max = c.vy_max_mps if vy_limit_mps is None else min(c.vy_max_mps, abs(vy_limit_mps))
        vth_max = c.vtheta_max_radps if vtheta_limit_radps is None else min(c.vtheta_max_radps, abs(vtheta_limit_radps))
        vx_back = min(c.vx_back_max_mps, vx_max)
        if id(path) != self._path_id:
            self._path_id, self._progress = id(path), 0
        pts = path.points
        xy = np.array([pose.x_m, pose.y_m])
        end = pts[-1]
        to_end = float(np.hypot(*(end - xy)))
        if pts.shape[0] >= 2:
            k, _t, s = self._closest(pts, xy)
            self._progress = k
            seg_len = np.hypot(*np.diff(pts, axis=0).T)
            cum = np.concatenate([[0.0], np.cumsum(seg_len)])
            remaining = max(0.0, float(cum[-1]) - s)
            s_look = min(float(cum[-1]), s + c.lookahead_m)
            j = min(int(np.searchsorted(cum, s_look, side="right")) - 1, len(seg_len) - 1)
            j = max(j, 0)
            tt = 0.0 if seg_len[j] < 1e-12 else (s_look - cum[j]) / seg_len[j]
            target = pts[j] + min(1.0, max(0.0, tt)) * (pts[j + 1] - pts[j])
            remaining = max(remaining, to_end if remaining < c.lookahead_m else 0.0)
        else:
            target, remaining = end, to_end
        if to_end < c.lookahead_m:
            target = end
        dvec = target - xy
        dnorm = float(np.hypot(*dvec))
        # speed: capped for a smooth stop at the end, proportional in the last centimetres
        v = min(vx_max, math.sqrt(2.0 * 0.6 * c.ax_max_mps2 * remaining), c.position_gain * max(remaining, to_end))
        if to_end < c.arrive_distance_m:
            v = c.position_gain * to_end
        vf = (dvec / dnorm * v) if dnorm > 1e-9 else np.zeros(2)
        # heading: face the way we walk when far, the goal heading when near
        if to_end > c.face_path_beyond_m and dnorm > 1e-6:
            path_heading = math.atan2(dvec[1], dvec[0])
            w = min(1.0, (to_end - c.face_path_beyond_m) / c.face_path_beyond_m)
            target_heading = goal_heading_rad + w * wrap_angle_rad(path_heading - goal_heading_rad)
        else:
            target_heading = goal_heading_rad
        err = wrap_angle_rad(target_heading - pose.theta_rad)
        vth = c.heading_gain * err
        vth = math.copysign(min(abs(vth), math.sqrt(2.0 * 0.8 * c.atheta_max_radps2 * abs(err))), vth)
        vth = max(-vth_max, min(vth_max, vth))
        # into the robot frame; walking sideways is slow, so turn first when far off
        cos, sin = math.cos(pose.theta_rad), math.sin(pose.theta_rad)
        vx = cos * vf[0] + sin * vf[1]
        vy = -sin * vf[0] + cos * vf[1]
        if to_end > c.face_path_beyond_m:
            fade = max(0.0, 1.0 - abs(err) / c.turn_slowdown_rad)
            vx, vy = vx * (0.2 + 0.8 * fade), vy * (0.2 + 0.8 * fade)
        # elliptic speed limit keeps the direction
        vx_cap = vx_max if vx >= 0.0 else vx_back
        scale = math.hypot(vx / max(vx_cap, 1e-9), vy / max(vy_max, 1e-9))
        if scale > 1.0:
            vx, vy = vx / scale, vy / scale
        # acceleration limits against the previous command
        lx, ly, lth = self._last
        dt = max(dt_s, 1e-3)
        vx = lx + max(-c.ax_max_mps2 * dt, min(c.ax_max_mps2 * dt, vx - lx))
        vy = ly + max(-c.ay_max_mps2 * dt, min(c.ay_max_mps2 * dt, vy - ly))
        vth = lth + max(-c.atheta_max_radps2 * dt, min(c.atheta_max_radps2 * dt, vth - lth))
        self._last = (vx, vy, vth)
        return vx, vy, vth


# --- plan + follow ------------------------------------------------------------------------


@dataclass(frozen=True)
class NavigatorConfig:
    replan_period_s: float = 0.1
    goal_moved_m: float = 0.1  # replan at once when the goal moves more than this
    arrive_distance_m: float = 0.1
    arrive_theta_rad: float = 0.1
    leave_factor: float = 2.0  # arrived stays true until the error grows this much


class Navigator:
    """Plans and follows once per tick: ``velocity_to`` is all a walking node needs."""

    def __init__(self, field: Field, planner: Planner | None = None,
                 follower: PathFollower | None = None, config: NavigatorConfig | None = None) -> None:
        self.field = field
        self.planner: Planner = planner or VisibilityGraphPlanner(field)
        self.follower = follower or PathFollower()
        self.config = config or NavigatorConfig()
        self.path: Path | None = None
        self.arrived = False
        self.plans = 0
        self._last_plan_s = -math.inf
        self._last_now_s: float | None = None
        self._goal: Pose2D | None = None

    def reset(self) -> None:
        """Forget the path and the previous command (e.g. after a fall or a penalty)."""
        self.path = None
        self.arrived = False
        self._last_plan_s = -math.inf
        self._last_now_s = None
        self._goal = None
        self.follower.reset()

    def velocity_to(self, pose: Pose2D, goal_pose: Pose2D, obstacles: Iterable[Obstacle], now_s: float,
                    vx_limit_mps: float | None = None, vy_limit_mps: float | None = None,
                    vtheta_limit_radps: float | None = None) -> tuple[float, float, float]:
        """(vx, vy, vtheta) in the robot frame to walk to ``goal_pose``.

        Once arrived (within ``arrive_distance_m`` and ``arrive_theta_rad``; it stays arrived
        until the error doubles) the command brakes to zero within the acceleration limits.
        """
        c = self.config
        dt = 0.01 if self._last_now_s is None else max(0.0, now_s - self._last_now_s)
        self._last_now_s = now_s
        dist = pose.distance_to(goal_pose.x_m, goal_pose.y_m)
        dth = abs(wrap_angle_rad(goal_pose.theta_rad - pose.theta_rad))
        if self.arrived:
            self.arrived = dist <= c.arrive_distance_m * c.leave_factor and dth <= c.arrive_theta_rad * c.leave_factor
        else:
            self.arrived = dist <= c.arrive_distance_m and dth <= c.arrive_theta_rad
        if self.arrived:
            return self.follower.brake(dt)
        goal_moved = self._goal is None or self._goal.distance_to(goal_pose.x_m, goal_pose.y_m) > c.goal_moved_m
        if self.path is None or goal_moved or now_s - self._last_plan_s >= c.replan_period_s - 1e-9:
            self.path = self.planner.plan(pose, goal_pose, obstacles)
            self._last_plan_s = now_s
            self._goal = goal_pose
            self.plans += 1
        return self.follower.follow(pose, self.path, goal_pose.theta_rad, dt, vx_limit_mps, vy_limit_mps,
                                    vtheta_limit_radps)
