"""The path planner: lazy A* over the visibility graph, the side memory, smoothing.

The blocking shapes and the graph nodes around them are soccerbt.services.visibility_graph's;
the planner keeps paths out of those shapes. It searches the graph with its own lazy A*: from
the node being expanded only (near-)tangent nodes are candidates (only those can lie on a
shortest path), and an edge's visibility is tested, in plain Python, only when A* pops it. A
penalty against passing the first obstacle of the previous plan on the other side prevents
dithering; corners are smoothed where the curve stays free; the field bounds limit where the
robot may walk. A straight path clearly away from every shape is found without the search (the
same path, bit for bit).

Everything is in the team frame (own goal at negative x). soccerbt.services.navigation puts
the planner and the follower together.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Iterable, Protocol, Sequence, runtime_checkable

import numpy as np
from shapely.geometry import LineString, Polygon

from soccerbt.services.obstacles import Obstacle
from soccerbt.services.visibility_graph import PlannerConfig, VisibilityGraph, _cross, inflate_circle
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D

__all__ = ["Path", "PathPlanner", "Planner", "VisibilityGraphPlanner"]


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


class VisibilityGraphPlanner:
    """Visibility graph over inflated obstacles, searched with A* (implements ``Planner``)."""

    def __init__(self, field: Field, config: PlannerConfig | None = None) -> None:
        self.field = field
        self.config = config or PlannerConfig()
        self.graph = VisibilityGraph(field, self.config)
        self.bound_x_m, self.bound_y_m = self.graph.bound_x_m, self.graph.bound_y_m
        self._side_memory: tuple[float, float, int, float, float] | None = None  # x, y, side, goal

    # --- planning -----------------------------------------------------------------------

    def _escape(self, xy: np.ndarray) -> tuple[np.ndarray, bool]:
        """The point itself when free, else the nearest corner-ring point outside (radially)."""
        s = self.graph.scene_for_query
        if s.py is None:
            s.py = self.graph.python_geometry(s)
        moved = False
        for _ in range(4):
            if not self.graph.point_blocked_py(s, float(xy[0]), float(xy[1])):  # inside_any's twin
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

    def plan(self, start: Pose2D, goal: Pose2D, obstacles: Iterable[Obstacle]) -> Path:
        """The shortest path (with the side-switch penalty) from start to goal, smoothed."""
        obstacles = [o for o in obstacles if o.radius_m >= 0.0 and math.isfinite(o.x_m) and math.isfinite(o.y_m)]
        for v in (start.x_m, start.y_m, goal.x_m, goal.y_m):
            if not math.isfinite(v):
                raise ValueError(f"plan: start and goal must be finite, got {start} -> {goal}")
        direct = self._direct_path(start, goal, obstacles)
        if direct is not None:
            return direct
        s = self.graph.build(obstacles)
        c = self.config
        if s.py is None:
            s.py = self.graph.python_geometry(s)
        ends = np.array([[start.x_m, start.y_m], [goal.x_m, goal.y_m]])
        bx, by = self.bound_x_m, self.bound_y_m
        if (self.graph.point_blocked_py(s, start.x_m, start.y_m) or self.graph.point_blocked_py(s, goal.x_m, goal.y_m)
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
            s.py = self.graph.python_geometry(s)
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
                hit = not self.graph.segment_blocked_py(s, ax, ay, bx, by)
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
                cached = self.graph.tangent_candidates(s, np.array([ux, uy]), u)
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
        k_ring = 1.0 / self.graph.cos_half
        near_static: list[int] = []
        near_robots: list[Obstacle] = []
        for i, (cx, cy, r_ring) in enumerate(self.graph.static_rings):
            rx, ry = cx - sx, cy - sy
            t = (rx * dx + ry * dy) * inv
            t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
            ex, ey = rx - t * dx, ry - t * dy
            lim = r_ring + margin
            if ex * ex + ey * ey <= lim * lim:
                near_static.append(i)
        for o in obstacles:
            # the radius of the robot's node ring (as VisibilityGraph.build has it, to within rounding)
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
        polys = [self.graph.static_py[i] for i in near_static]
        rings: list[tuple[float, float, float]] = []  # (centre x, centre y, node radius) per robot
        for o in near_robots:
            # the same operations as VisibilityGraph.build's arrays, on the same floats
            r = o.radius_m + c.robot_radius_m + c.clearance_m
            r_out = r / self.graph.cos_half
            r2 = r_out * r_out - 1e-9
            polys.append((o.x_m, o.y_m, r2, r2, math.sqrt(r2), ()))
            rings.append((o.x_m, o.y_m, (r_out + c.vertex_offset_m) / self.graph.cos_half))
        probe = SimpleNamespace(py={"polys": polys})  # all the point and segment tests read
        if (self.graph.point_blocked_py(probe, sx, sy) or self.graph.point_blocked_py(probe, gx, gy)
                or self.graph.segment_blocked_py(probe, sx, sy, gx, gy)):
            return False
        f_goal = 0.0 + math.hypot(gx - sx, gy - sy)  # the goal's heap key after the start
        for i in near_static:
            for nx, ny in self.graph.static_nodes_py[i]:
                if (0.0 + _hypot(nx - sx, ny - sy)) + _hypot(nx - gx, ny - gy) <= f_goal:
                    return False
        for cx, cy, rv in rings:
            for ux, uy in self.graph.unit_py:
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
        s = self.graph.scene_for_query
        if s.py is None:
            s.py = self.graph.python_geometry(s)
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
                    self.graph.segment_blocked_py(s, p[0], p[1], q[0], q[1])
                    for p, q in zip(cand, cand[1:], strict=False)
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
        out = [Polygon(block) for block, _vis, _kind in self.graph.static]
        c = self.config
        for o in obstacles:
            out.append(Polygon(inflate_circle(o.x_m, o.y_m, o.radius_m + c.robot_radius_m + c.clearance_m,
                                              c.polygon_sides)))
        return out

    def graph_nodes(self, obstacles: Iterable[Obstacle]) -> np.ndarray:
        """The visibility-graph nodes (V, 2) for these obstacles (free, in bounds)."""
        return self.graph.build(list(obstacles)).nodes.copy()

    def segment_blocked(self, p: Sequence[float], q: Sequence[float], obstacles: Iterable[Obstacle]) -> bool:
        """Whether the straight segment p->q enters an inflated obstacle."""
        self.graph.build(list(obstacles))
        return bool(self.graph.blocked(np.array([p], dtype=float), np.array([q], dtype=float))[0])


PathPlanner = VisibilityGraphPlanner  # the default planner

_DIRECT_CLEARANCE_M = 0.01  # a straight path this far from every graph node needs no search


def _hypot(x: float, y: float) -> float:
    """libm's hypot, as numpy's ``np.hypot`` computes it (``math.hypot`` rounds differently
    in the last bit now and then; this keeps seeded runs identical)."""
    return abs(complex(x, y))
