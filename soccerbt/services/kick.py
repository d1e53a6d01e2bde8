"""Kick planning: where to kick, where to stand to kick, and whether the ball is kickable now.

``KickPlanner.choose`` picks the kick direction in the team frame (own goal at negative x):

- ``"shoot"``: at the middle of the widest open part of the opponent goal mouth, as seen from
  the ball, after the angular shadows of obstacles (goalkeeper, defenders) are cut out;
- ``"cross"``: toward the opponent penalty mark when that opening is narrower than
  ``cross_threshold_rad`` (a wide angle near the goal line, or a crowded goal);
- ``"block"``: clear the ball away from the own goal when it lies in the own defensive zone,
  toward the most open direction forward.

Geometry helpers: ``goal_opening`` (the free angular intervals), ``approach_pose`` (the pose
behind the ball along the kick direction), ``is_kickable`` (ball within the foot's reach,
heading aligned), ``on_wrong_side`` and ``ball_obstacle`` (treat the ball as an obstacle while
walking around it to the approach pose). Pure functions of their inputs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence, runtime_checkable

from soccerbt.services.obstacles import Obstacle
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, wrap_angle_rad

__all__ = [
    "KickChoice",
    "KickConfig",
    "KickPlanner",
    "KickStrategy",
    "approach_pose",
    "ball_obstacle",
    "goal_opening",
    "is_kickable",
    "on_wrong_side",
]


@dataclass(frozen=True)
class KickConfig:
    """Reach of the kick and decision thresholds (defaults match the simulated T1)."""

    approach_distance_m: float = 0.35  # robot centre behind the ball centre when lined up
    reach_min_m: float = 0.15  # ball centre ahead of the robot centre, robot frame
    reach_max_m: float = 0.45
    lateral_reach_m: float = 0.12
    angle_tolerance_rad: float = 0.2
    cross_threshold_rad: float = 0.2  # a goal opening narrower than this: cross instead
    cross_min_distance_m: float = 1.0  # no cross when the ball is this close to the target
    block_zone_x_m: float | None = None  # ball behind this x: clear (default: -length/6)
    block_max_angle_rad: float = 1.2  # clearing directions within this of +x
    block_step_rad: float = math.radians(5.0)
    obstacle_range_m: float = 3.5  # obstacles farther than this do not shape a clearance
    wrong_side_margin_m: float = 0.05


@dataclass(frozen=True, slots=True)
class KickChoice:
    """A decided kick: field direction, what it aims at, and why."""

    direction_rad: float
    target_xy: tuple[float, float]
    kind: str  # "shoot", "cross" or "block"
    open_angle_rad: float  # width of the widest free part of the goal mouth (0 when none)


@runtime_checkable
class KickStrategy(Protocol):
    """Anything that decides a kick from the ball and the obstacles (team frame)."""

    def choose(self, ball_xy: tuple[float, float], obstacles: Iterable[Obstacle] = ()) -> KickChoice:
        """The kick to take from ``ball_xy``."""


def _shadows(ball_xy: tuple[float, float], obstacles: Iterable[Obstacle], ball_radius_m: float,
             max_range_m: float) -> list[tuple[float, float, float]]:
    """Angular shadows (centre angle, half width, distance) of obstacles seen from the ball."""
    out = []
    bx, by = ball_xy
    for ob in obstacles:
        d = math.hypot(ob.x_m - bx, ob.y_m - by)
        if d > max_range_m:
            continue
        reach = ob.radius_m + ball_radius_m
        half = math.pi / 2.0 if d <= reach else math.asin(reach / d)
        out.append((math.atan2(ob.y_m - by, ob.x_m - bx), half, d))
    return out


def goal_opening(ball_xy: tuple[float, float], field: Field, obstacles: Iterable[Obstacle] = (),
                 opponent_goal: bool = True) -> list[tuple[float, float]]:
    """The free angular intervals (lo_rad, hi_rad) of a goal mouth seen from the ball.

    The mouth is shrunk by the post and ball radii; obstacles between the ball and the goal
    line cut out their shadows. Widest first. Empty when the ball is on or behind that goal
    line.
    """
    bx, by = ball_xy
    sign = 1.0 if opponent_goal else -1.0
    gx = sign * field.half_length_m
    if sign * (gx - bx) <= 1e-6:
        return []
    half_mouth = field.goal_width_m / 2.0 - field.goal_post_diameter_m / 2.0 - field.ball_radius_m
    a1 = math.atan2(half_mouth - by, gx - bx)
    a2 = math.atan2(-half_mouth - by, gx - bx)
    # unwrap around the goal's direction so the interval does not straddle +-pi
    centre = math.atan2(-by, gx - bx)
    lo = centre + wrap_angle_rad(min(a1, a2, key=lambda a: wrap_angle_rad(a - centre)) - centre)
    hi = centre + wrap_angle_rad(max(a1, a2, key=lambda a: wrap_angle_rad(a - centre)) - centre)
    free = [(lo, hi)]
    goal_dist = math.hypot(gx - bx, by)
    for ang, half, d in _shadows(ball_xy, obstacles, field.ball_radius_m, goal_dist + 0.5):
        if d > goal_dist + 0.3:
            continue
        a = centre + wrap_angle_rad(ang - centre)
        s_lo, s_hi = a - half, a + half
        nxt = []
        for f_lo, f_hi in free:
            if s_hi <= f_lo or s_lo >= f_hi:
                nxt.append((f_lo, f_hi))
                continue
            if s_lo > f_lo:
                nxt.append((f_lo, s_lo))
            if s_hi < f_hi:
                nxt.append((s_hi, f_hi))
        free = nxt
    free.sort(key=lambda iv: iv[1] - iv[0], reverse=True)
    return [(wrap_angle_rad(a), wrap_angle_rad(a) + (b - a)) for a, b in free]


def approach_pose(ball_xy: tuple[float, float], kick_dir_rad: float, distance_m: float = 0.35) -> Pose2D:
    """The pose ``distance_m`` behind the ball along the kick direction, facing it."""
    c, s = math.cos(kick_dir_rad), math.sin(kick_dir_rad)
    return Pose2D(ball_xy[0] - distance_m * c, ball_xy[1] - distance_m * s, wrap_angle_rad(kick_dir_rad))


def is_kickable(robot_pose: Pose2D, ball_xy: tuple[float, float], kick_dir_rad: float,
                config: KickConfig | None = None) -> bool:
    """Whether a kick now sends the ball along ``kick_dir_rad``: ball in reach, heading aligned."""
    c = config or KickConfig()
    bx, by = robot_pose.inverse_transform_point(*ball_xy)
    aligned = abs(wrap_angle_rad(robot_pose.theta_rad - kick_dir_rad)) <= c.angle_tolerance_rad
    return aligned and c.reach_min_m <= bx <= c.reach_max_m and abs(by) <= c.lateral_reach_m


def on_wrong_side(robot_xy: tuple[float, float], ball_xy: tuple[float, float], kick_dir_rad: float,
                  margin_m: float = 0.05) -> bool:
    """The robot is level with or ahead of the ball along the kick direction (must go round)."""
    along = (robot_xy[0] - ball_xy[0]) * math.cos(kick_dir_rad) + (robot_xy[1] - ball_xy[1]) * math.sin(kick_dir_rad)
    return along > -margin_m


def ball_obstacle(ball_xy: tuple[float, float], field: Field, extra_m: float = 0.1) -> Obstacle:
    """The ball as an obstacle (kind "ball"), for walking around it to the approach pose."""
    return Obstacle(ball_xy[0], ball_xy[1], field.ball_radius_m + extra_m, "ball")


class KickPlanner:
    """Decides kicks on one field (implements ``KickStrategy``)."""

    def __init__(self, field: Field, config: KickConfig | None = None) -> None:
        self.field = field
        self.config = config or KickConfig()

    @property
    def block_zone_x_m(self) -> float:
        z = self.config.block_zone_x_m
        return -self.field.length_m / 6.0 if z is None else z

    def choose(self, ball_xy: tuple[float, float], obstacles: Iterable[Obstacle] = (),
               cross_threshold_rad: float | None = None) -> KickChoice:
        """Shoot, cross or block from ``ball_xy`` (see the module docstring)."""
        obstacles = list(obstacles)
        c, f = self.config, self.field
        thr = c.cross_threshold_rad if cross_threshold_rad is None else cross_threshold_rad
        if ball_xy[0] < self.block_zone_x_m:
            return self._block(ball_xy, obstacles)
        opening = goal_opening(ball_xy, f, obstacles)
        width = (opening[0][1] - opening[0][0]) if opening else 0.0
        hx = f.half_length_m
        mark = (hx - f.penalty_mark_distance_m, 0.0)
        near_mark = math.hypot(mark[0] - ball_xy[0], mark[1] - ball_xy[1]) < c.cross_min_distance_m
        if opening and (width >= thr or near_mark):
            lo, hi = opening[0]
            direction = wrap_angle_rad(0.5 * (lo + hi))
            # where that line meets the goal line
            dx = hx - ball_xy[0]
            ty = ball_xy[1] + dx * math.tan(direction) if abs(math.cos(direction)) > 1e-6 else 0.0
            return KickChoice(direction, (hx, ty), "shoot", width)
        if not near_mark:
            direction = math.atan2(mark[1] - ball_xy[1], mark[0] - ball_xy[0])
            return KickChoice(direction, mark, "cross", width)
        direction = math.atan2(-ball_xy[1], hx - ball_xy[0])
        return KickChoice(direction, (hx, 0.0), "shoot", width)

    def _block(self, ball_xy: tuple[float, float], obstacles: Sequence[Obstacle]) -> KickChoice:
        """Clear forward into the most open direction, away from the own goal."""
        c, f = self.config, self.field
        shadows = _shadows(ball_xy, obstacles, f.ball_radius_m, c.obstacle_range_m)
        best, best_score = 0.0, -math.inf
        n = int(c.block_max_angle_rad / c.block_step_rad)
        for i in range(-n, n + 1):
            a = i * c.block_step_rad
            clearance = min((max(0.0, abs(wrap_angle_rad(a - ang)) - half) for ang, half, _d in shadows),
                            default=math.pi)
            # prefer open, forward, and toward the wing the ball is already on
            score = min(clearance, 0.6) + 0.4 * math.cos(a) + 0.1 * math.copysign(1.0, ball_xy[1] or 1.0) * math.sin(a)
            if score > best_score:
                best, best_score = a, score
        dist = 4.0
        tx = min(f.half_length_m, ball_xy[0] + dist * math.cos(best))
        ty = max(-f.half_width_m, min(f.half_width_m, ball_xy[1] + dist * math.sin(best)))
        return KickChoice(best, (tx, ty), "block", 0.0)

    def approach_pose(self, ball_xy: tuple[float, float], kick_dir_rad: float) -> Pose2D:
        """The pose to line up the kick from (``KickConfig.approach_distance_m`` behind)."""
        return approach_pose(ball_xy, kick_dir_rad, self.config.approach_distance_m)

    def is_kickable(self, robot_pose: Pose2D, ball_xy: tuple[float, float], kick_dir_rad: float) -> bool:
        """See ``is_kickable``, with this planner's reach."""
        return is_kickable(robot_pose, ball_xy, kick_dir_rad, self.config)

    def approach_obstacles(self, robot_pose: Pose2D, ball_xy: tuple[float, float],
                           kick_dir_rad: float) -> list[Obstacle]:
        """[the ball as an obstacle] while the robot is on the wrong side of it, else []."""
        if on_wrong_side((robot_pose.x_m, robot_pose.y_m), ball_xy, kick_dir_rad, self.config.wrong_side_margin_m):
            return [ball_obstacle(ball_xy, self.field)]
        return []
