"""Navigation: plan a path around the obstacles and follow it, replanning when needed.

``Navigator`` follows at every tick and replans when an obstacle moves onto the path (checked
every ``replan_period_s``), when the goal moves, or when the path is ``max_path_age_s`` old.
The planner (A* over the visibility graph) lives in path_planner, the inflated obstacles and the
graph in visibility_graph, the obstacles in obstacles, the pure-pursuit follower in
path_follower; this module re-exports them, so
``from soccerbt.services.navigation import ...`` gives the whole navigation API.

Everything is in the team frame (own goal at negative x); times are simulated seconds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from soccerbt.services.obstacles import Obstacle, robot_obstacles
from soccerbt.services.path_follower import FollowerConfig, PathFollower
from soccerbt.services.path_planner import Path, PathPlanner, Planner, VisibilityGraphPlanner
from soccerbt.services.visibility_graph import PlannerConfig, inflate_circle
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
    "robot_obstacles",
]


@dataclass(frozen=True)
class NavigatorConfig:
    # every replan_period_s the path is checked against the obstacles as they are now, and
    # replanned when one lies on it (robots walk under 0.2 m in that time) or when it is
    # max_path_age_s old (a shorter way may have opened); a goal that moves more than
    # goal_moved_m replans early. A plan is the costliest part of a walking tick (about
    # 0.4 ms against 20 us for the check), so these rates set much of the brain's cost
    replan_period_s: float = 0.2
    max_path_age_s: float = 1.0
    path_clearance_m: float = 0.25  # an obstacle closer than its radius plus this blocks the path
    goal_moved_m: float = 0.1  # replan early when the goal moves more than this ...
    # ... but not sooner than this after the previous plan: goals derived from a noisy ball
    # estimate move a little at every camera frame, and those moves caused two plans in three
    goal_moved_min_period_s: float = 0.1
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
        self._last_check_s = -math.inf
        self._last_now_s: float | None = None
        self._goal: Pose2D | None = None
        self._segments: list[tuple[float, float, float, float]] = []  # the path's, as floats

    def reset(self) -> None:
        """Forget the path and the previous command (e.g. after a fall or a penalty)."""
        self.path = None
        self.arrived = False
        self._last_plan_s = -math.inf
        self._last_check_s = -math.inf
        self._last_now_s = None
        self._goal = None
        self.follower.reset()

    def velocity_to(self, pose: Pose2D, goal_pose: Pose2D, obstacles: Iterable[Obstacle], now_s: float,
                    vx_limit_mps: float | None = None, vy_limit_mps: float | None = None,
                    vtheta_limit_radps: float | None = None) -> tuple[float, float, float]:
        """(vx, vy, vtheta) in the robot frame to walk to ``goal_pose``.

        Once arrived (within ``arrive_distance_m`` and ``arrive_theta_rad``; it stays arrived
        until the error doubles) the command brakes to zero within the acceleration limits.
        ``obstacles`` is iterated only when the navigator checks its path or replans (every
        ``replan_period_s``, one tick in twenty, and when the goal moves): a generator that
        builds the obstacles on demand saves building them on the other ticks.
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
        since_s = now_s - self._last_plan_s
        replan = self.path is None or self._goal is None or (
            since_s >= c.goal_moved_min_period_s - 1e-9
            and self._goal.distance_to(goal_pose.x_m, goal_pose.y_m) > c.goal_moved_m)
        if not replan and now_s - self._last_check_s >= c.replan_period_s - 1e-9:
            self._last_check_s = now_s
            replan = since_s >= c.max_path_age_s - 1e-9 or self._path_blocked(pose, obstacles)
        if replan:
            path = self.path = self.planner.plan(pose, goal_pose, obstacles)
            self._last_plan_s = self._last_check_s = now_s
            self._goal = goal_pose
            self.plans += 1
            xs, ys = path.points[:, 0].tolist(), path.points[:, 1].tolist()
            self._segments = list(zip(xs, ys, xs[1:], ys[1:], strict=False))
        return self.follower.follow(pose, self.path, goal_pose.theta_rad, dt, vx_limit_mps, vy_limit_mps,
                                    vtheta_limit_radps)

    def _path_blocked(self, pose: Pose2D, obstacles: Iterable[Obstacle]) -> bool:
        """Whether an obstacle now lies on the current path: closer to a segment than its
        radius plus ``path_clearance_m``. An obstacle the robot stands in does not count (the
        planner leads out of it at the next plan anyway)."""
        margin = self.config.path_clearance_m
        rx, ry = pose.x_m, pose.y_m
        segments = self._segments
        for ob in obstacles:
            ox, oy = ob.x_m, ob.y_m
            r = ob.radius_m + margin
            r2 = r * r
            if (rx - ox) ** 2 + (ry - oy) ** 2 < r2:
                continue
            for ax, ay, bx, by in segments:
                dx, dy = bx - ax, by - ay
                dd = dx * dx + dy * dy
                t = ((ox - ax) * dx + (oy - ay) * dy) / dd if dd > 1e-18 else 0.0
                t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
                ex, ey = ax + t * dx - ox, ay + t * dy - oy
                if ex * ex + ey * ey < r2:
                    return True
        return False
