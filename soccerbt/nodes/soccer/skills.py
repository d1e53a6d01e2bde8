"""Shared motion and perception helpers of the soccer nodes (plain functions over a context).

Nodes stay thin by calling these: where the ball is (own sighting, else the team's), the
geometry of kicking (goal post angles, the robot-to-ball direction), walking to a pose (through
the context's navigator when there is one, else straight with a simple obstacle push), pointing
the head at a ground point. Everything is in the team frame (own goal at negative x); angles in
radians, distances in metres, times in simulated seconds.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

from soccerbt.services.obstacles import Obstacle
from soccerbt.world.types import Pose2D, wrap_angle_rad

if TYPE_CHECKING:
    from soccerbt.nodes.soccer.context import RobotContext

__all__ = ["BallView", "ball_view", "goal_post_angles", "angle_good_for_kick", "kick_window", "walk_to_pose",
           "head_angles_to", "clamp", "sigmoid_down", "nav_obstacles", "NavObstacles", "striker_rank",
           "dist_to_obstacle", "avoid_direction", "stay_on_field"]

_FAR_M = 1e9


def clamp(value: float, lo: float, hi: float) -> float:
    """``value`` limited to [lo, hi]."""
    return lo if value < lo else hi if value > hi else value


def sigmoid_down(x: float, slope: float = 3.0, offset: float = 1.0) -> float:
    """1 for small ``x``, falling to 0 around ``offset`` (a soft 'slow down when far off')."""
    z = slope * (x - offset)
    if z > 50.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(z))


class BallView(NamedTuple):
    """The ball as a node needs it this tick.

    ``known``: own sighting within the memory, or a reliable teammate ball; ``detected``: seen
    in the current camera frame; ``field``/``robot``: positions (team and robot frame);
    ``range_m``, ``yaw_rad``: polar in the robot frame; ``dir_rb_rad``: field direction from
    the robot to the ball. A named tuple: several nodes build one every tick, and a frozen
    dataclass of ten fields costs several times more to build.
    """

    known: bool
    own: bool
    detected: bool
    field_x_m: float
    field_y_m: float
    robot_x_m: float
    robot_y_m: float
    range_m: float
    yaw_rad: float
    dir_rb_rad: float


def ball_view(ctx: RobotContext) -> BallView:
    """The best ball estimate (own, else the team's) seen from the robot."""
    wm = ctx.world_model
    pose = wm.robot_pose_field
    own = wm.ball_location_known
    fb = wm.ball_field if own else (wm.team_ball_field if wm.tm_ball_pos_reliable else None)
    if fb is None:
        fb = wm.ball_field  # an old memory still beats nothing for pointing the head
    if fb is None:
        return BallView(False, False, False, 0.0, 0.0, 0.0, 0.0, _FAR_M, 0.0, 0.0)
    if own and wm.ball_robot is not None:
        rx, ry = wm.ball_robot
    else:
        rx, ry = pose.inverse_transform_point(fb[0], fb[1])
    known = own or wm.tm_ball_pos_reliable
    detected = wm.ball_detected(ctx.config.ball_detected_window_s)
    return BallView(known, own, detected, fb[0], fb[1], rx, ry, math.hypot(rx, ry), math.atan2(ry, rx),
                    math.atan2(fb[1] - pose.y_m, fb[0] - pose.x_m))


def goal_post_angles(ctx: RobotContext, from_x_m: float, from_y_m: float, margin_m: float = 0.0) -> tuple[float, float]:
    """Field directions from a point to the opponent goal's left and right posts, each moved
    ``margin_m`` inwards: (theta_left, theta_right)."""
    f = ctx.field
    hx, hg = f.half_length_m, f.goal_width_m / 2.0 - margin_m
    return (math.atan2(hg - from_y_m, hx - from_x_m), math.atan2(-hg - from_y_m, hx - from_x_m))


def kick_window(ctx: RobotContext, ball: BallView, margin_m: float = 0.3) -> tuple[float, float]:
    """The post angles (left, right) from the ball that ``angle_good_for_kick`` compares with:
    moved ``margin_m`` inwards, or 0.5 m when the goal spans less than 120 degrees from the ball
    (nearly always), as robocup_demo's Brain::isAngleGood."""
    left, right = goal_post_angles(ctx, ball.field_x_m, ball.field_y_m, margin_m)
    if left - right < math.pi / 3.0 * 2.0:
        left, right = goal_post_angles(ctx, ball.field_x_m, ball.field_y_m, 0.5)
    return left, right


def angle_good_for_kick(ctx: RobotContext, ball: BallView, margin_m: float = 0.3) -> bool:
    """Walking through the ball in the robot-to-ball direction sends it between the posts:
    right post < dir_rb < left post (``kick_window``; angles compared unwrapped, as Booster)."""
    left, right = kick_window(ctx, ball, margin_m)
    return right < ball.dir_rb_rad < left


def head_angles_to(ctx: RobotContext, x_robot_m: float, y_robot_m: float) -> tuple[float, float]:
    """(pan, tilt) that centre a ground point (robot frame) in the camera."""
    dist = max(0.05, math.hypot(x_robot_m, y_robot_m))
    return math.atan2(y_robot_m, x_robot_m), math.atan2(ctx.config.camera_height_m, dist)


class NavObstacles(Sequence):
    """The obstacle list of ``nav_obstacles``, built the first time it is read.

    The navigator reads obstacles only when it replans (every few ticks), while the walking
    nodes hand it their obstacles at every tick: building them lazily spares the other ticks.
    Read within the tick that made it (it reflects the world model when first read).
    """

    __slots__ = ("_build", "_items")

    def __init__(self, build: Callable[[], list]) -> None:
        self._build: Callable[[], list] | None = build
        self._items: list | None = None

    def _list(self) -> list:
        if self._items is None:
            self._items = self._build()  # type: ignore[misc]
            self._build = None
        return self._items

    def __iter__(self) -> Iterator:
        return iter(self._list())

    def __len__(self) -> int:
        return len(self._list())

    def __getitem__(self, index):
        return self._list()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, NavObstacles)):
            return self._list() == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"NavObstacles({self._list()!r})"


def nav_obstacles(ctx: RobotContext, include_ball: bool = False, ball_radius_m: float = 0.3,
                  extra: tuple = ()) -> NavObstacles:
    """Obstacles for the navigator: robots seen, teammates' reported poses, optionally the ball
    (a sequence built when first read: see ``NavObstacles``)."""

    def build() -> list:
        wm = ctx.world_model
        out = [Obstacle(x, y, 0.25, "robot") for x, y in wm.obstacle_points()]
        if include_ball:
            b = wm.best_ball_field()
            if b is not None:
                out.append(Obstacle(b[0], b[1], ball_radius_m, "ball"))
        out.extend(extra)
        return out

    return NavObstacles(build)


def dist_to_obstacle(ctx: RobotContext, direction_rad: float, corridor_m: float = 0.5) -> float:
    """Distance to the nearest obstacle within a corridor along a robot-frame direction."""
    wm = ctx.world_model
    pose = wm.robot_pose_field
    c, s = math.cos(direction_rad), math.sin(direction_rad)
    best = _FAR_M
    for x, y in wm.obstacle_points():
        rx, ry = pose.inverse_transform_point(x, y)
        along = c * rx + s * ry
        across = -s * rx + c * ry
        if along > 0.0 and abs(across) < corridor_m:
            best = min(best, along)
    return best


def avoid_direction(ctx: RobotContext, target_dir_rad: float, safe_dist_m: float) -> float:
    """The robot-frame direction nearest ``target_dir_rad`` that is free for ``safe_dist_m``."""
    for step in range(1, 10):
        for sign in (1.0, -1.0):
            d = target_dir_rad + sign * step * 0.2
            if dist_to_obstacle(ctx, d) >= safe_dist_m:
                return wrap_angle_rad(d)
    return wrap_angle_rad(target_dir_rad + math.pi / 2.0)


def walk_to_pose(ctx: RobotContext, x_m: float, y_m: float, theta_rad: float, *, vx_limit: float,
                 vy_limit: float, vtheta_limit: float = 1.0, avoid_obstacles: bool = True,
                 long_range_m: float = 1.0, turn_threshold_rad: float = 0.4,
                 obstacles: Sequence | None = None) -> float:
    """Command the velocity toward a field pose; returns the remaining distance.

    With a navigator (and ``avoid_obstacles``) it plans around the obstacles; otherwise far
    targets are approached facing them (turn first when the heading error exceeds
    ``turn_threshold_rad``) and near ones omnidirectionally while turning to ``theta_rad``.
    """
    wm = ctx.world_model
    pose = wm.robot_pose_field
    dist = pose.distance_to(x_m, y_m)
    nav = ctx.navigator
    if nav is not None and avoid_obstacles:
        obs = nav_obstacles(ctx) if obstacles is None else obstacles
        vx, vy, vth = nav.velocity_to(pose, Pose2D(x_m, y_m, theta_rad), obs, ctx.now_s(),
                                      vx_limit, vy_limit, vtheta_limit)
        vx, vy = stay_on_field(ctx, pose, vx, vy)
        ctx.set_velocity(clamp(vx, -vx_limit, vx_limit), clamp(vy, -vy_limit, vy_limit),
                         clamp(vth, -vtheta_limit, vtheta_limit))
        return dist
    rx, ry = pose.inverse_transform_point(x_m, y_m)
    if dist > long_range_m:
        heading_err = math.atan2(ry, rx)
        vth = clamp(2.0 * heading_err, -vtheta_limit, vtheta_limit)
        if abs(heading_err) > turn_threshold_rad:
            vx, vy = 0.2 * rx / dist * vx_limit, 0.0
        else:
            vx = min(vx_limit, dist) * math.cos(heading_err)
            vy = clamp(ry, -vy_limit, vy_limit) * 0.5
    else:
        vx, vy = 1.5 * rx, 1.5 * ry
        vth = clamp(2.0 * wrap_angle_rad(theta_rad - pose.theta_rad), -vtheta_limit, vtheta_limit)
    if avoid_obstacles:
        vx, vy = _repel(ctx, pose, vx, vy)
    vx, vy = stay_on_field(ctx, pose, vx, vy)
    ctx.set_velocity(clamp(vx, -vx_limit, vx_limit), clamp(vy, -vy_limit, vy_limit), vth)
    return dist


OFF_FIELD_LIMIT_M = 0.3  # the referee removes a robot 0.5 m beyond the lines


def stay_on_field(ctx: RobotContext, pose: Pose2D, vx: float, vy: float) -> tuple[float, float]:
    """Drop the outward part of a robot-frame velocity once the robot is more than
    ``OFF_FIELD_LIMIT_M`` beyond an outer line."""
    f = ctx.field
    c, s = math.cos(pose.theta_rad), math.sin(pose.theta_rad)
    fx, fy = c * vx - s * vy, s * vx + c * vy
    lim_x, lim_y = f.half_length_m + OFF_FIELD_LIMIT_M, f.half_width_m + OFF_FIELD_LIMIT_M
    if abs(pose.x_m) > lim_x and fx * pose.x_m > 0.0:
        fx = 0.0
    if abs(pose.y_m) > lim_y and fy * pose.y_m > 0.0:
        fy = 0.0
    return c * fx + s * fy, -s * fx + c * fy


def _repel(ctx: RobotContext, pose: Pose2D, vx: float, vy: float) -> tuple[float, float]:
    """Bend a velocity away from robots just ahead (the navigator-less fallback)."""
    speed = math.hypot(vx, vy)
    if speed < 1e-6:
        return vx, vy
    ux, uy = vx / speed, vy / speed
    for ox, oy in ctx.world_model.obstacle_points():
        rx, ry = pose.inverse_transform_point(ox, oy)
        d = math.hypot(rx, ry)
        if d < 1e-6 or d > 1.2:
            continue
        along = (rx * ux + ry * uy) / d
        if along <= 0.3:
            continue
        side = -1.0 if (ux * ry - uy * rx) > 0.0 else 1.0  # pass on the side away from it
        push = (1.2 - d) / 1.2 * along
        vx += side * -uy * speed * push
        vy += side * ux * speed * push
    return vx, vy


def striker_rank(ctx: RobotContext) -> int:
    """0 for the first of the team's active field players (by player number), 1 for the next..."""
    me = ctx.player_number
    role = ctx.bb_get("player_role", ctx.start_role)
    rank = 0
    for t in ctx.world_model.teammates.values():
        if t.penalised or t.number == me:
            continue
        if t.role and t.role != role:
            continue
        if t.number < me:
            rank += 1
    return rank
