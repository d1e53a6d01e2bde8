"""Kick direction, approach pose and kickability."""
from __future__ import annotations

import math

import pytest

from soccerbt.services.kick import (
    KickConfig,
    KickPlanner,
    KickStrategy,
    approach_pose,
    ball_obstacle,
    goal_opening,
    is_kickable,
    on_wrong_side,
)
from soccerbt.services.navigation import Obstacle
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D

FIELD = Field.adult_size()
HX = FIELD.half_length_m


def test_open_goal_from_straight_ahead():
    lo, hi = goal_opening((4.0, 0.0), FIELD)[0]
    half_mouth = FIELD.goal_width_m / 2 - FIELD.goal_post_diameter_m / 2 - FIELD.ball_radius_m
    assert hi == pytest.approx(math.atan2(half_mouth, 3.0))
    assert lo == pytest.approx(-hi)
    choice = KickPlanner(FIELD).choose((4.0, 0.0))
    assert choice.kind == "shoot"
    assert choice.direction_rad == pytest.approx(0.0, abs=1e-12)
    assert choice.target_xy == pytest.approx((HX, 0.0))


def test_goalkeeper_shadow_sends_the_shot_into_the_wider_gap():
    keeper = Obstacle(HX - 0.3, 0.35, 0.25)  # a little to the left of the goal centre
    opening = goal_opening((4.0, 0.0), FIELD, [keeper])
    assert len(opening) == 2
    widest = opening[0]
    assert widest[1] - widest[0] > opening[1][1] - opening[1][0]
    choice = KickPlanner(FIELD).choose((4.0, 0.0), [keeper])
    assert choice.kind == "shoot" and choice.direction_rad < 0.0  # to the right, away from him
    # the chosen line clears the keeper by at least the ball radius
    d = abs(math.sin(math.atan2(0.35, HX - 0.3 - 4.0) - choice.direction_rad)) * math.hypot(HX - 4.3, 0.35)
    assert d > keeper.radius_m + FIELD.ball_radius_m
    # the goal target lies between the posts
    assert abs(choice.target_xy[1]) < FIELD.goal_width_m / 2


def test_robot_behind_the_ball_or_beside_the_goal_casts_no_shadow():
    behind = Obstacle(3.0, 0.0, 0.25)
    assert goal_opening((4.0, 0.0), FIELD, [behind]) == goal_opening((4.0, 0.0), FIELD)
    assert goal_opening((HX + 0.1, 0.0), FIELD) == []


def test_narrow_angle_near_the_goal_line_crosses_to_the_penalty_mark():
    choice = KickPlanner(FIELD).choose((HX - 0.3, 3.5))
    assert choice.kind == "cross"
    mark = (HX - FIELD.penalty_mark_distance_m, 0.0)
    assert choice.target_xy == pytest.approx(mark)
    assert choice.direction_rad == pytest.approx(math.atan2(mark[1] - 3.5, mark[0] - (HX - 0.3)))
    assert choice.open_angle_rad < KickConfig().cross_threshold_rad
    # a lower threshold makes the same position a shot
    assert KickPlanner(FIELD).choose((HX - 0.3, 3.5), cross_threshold_rad=0.01).kind == "shoot"


def test_a_crowded_goal_mouth_is_a_cross_but_not_from_the_penalty_mark_itself():
    wall = [Obstacle(HX - 0.4, y, 0.25) for y in (-1.0, -0.5, 0.0, 0.5, 1.0)]
    assert KickPlanner(FIELD).choose((3.0, 2.5), wall).kind == "cross"
    near_mark = KickPlanner(FIELD).choose((HX - FIELD.penalty_mark_distance_m - 0.2, 0.0), wall)
    assert near_mark.kind == "shoot"


def test_defence_clears_forward_and_away_from_an_opponent():
    kp = KickPlanner(FIELD)
    ball = (-5.5, 1.0)
    free = kp.choose(ball)
    assert free.kind == "block"
    assert abs(free.direction_rad) < math.pi / 2
    opponent = Obstacle(-4.5, 1.0, 0.25)  # straight ahead of the ball
    blocked = kp.choose(ball, [opponent])
    assert blocked.kind == "block"
    ahead = math.atan2(opponent.y_m - ball[1], opponent.x_m - ball[0])
    half_shadow = math.asin((opponent.radius_m + FIELD.ball_radius_m) / 1.0)
    assert abs(blocked.direction_rad - ahead) > half_shadow
    assert abs(blocked.direction_rad) < math.pi / 2
    assert isinstance(kp, KickStrategy)


def test_approach_pose_is_behind_the_ball_and_then_kickable():
    ball = (2.0, 1.0)
    direction = 0.5
    pose = approach_pose(ball, direction, 0.3)
    assert pose.theta_rad == pytest.approx(direction)
    assert pose.distance_to(*ball) == pytest.approx(0.3)
    bx, by = pose.inverse_transform_point(*ball)
    assert bx == pytest.approx(0.3) and by == pytest.approx(0.0, abs=1e-12)
    assert is_kickable(pose, ball, direction)
    kp = KickPlanner(FIELD)
    assert kp.is_kickable(kp.approach_pose(ball, direction), ball, direction)


@pytest.mark.parametrize("pose, ok", [
    (Pose2D(1.7, 1.0, 0.0), True),
    (Pose2D(1.7, 1.0, 0.35), False),  # turned too far from the kick direction
    (Pose2D(1.9, 1.0, 0.0), False),  # too close: the ball is under the robot
    (Pose2D(1.2, 1.0, 0.0), False),  # too far
    (Pose2D(1.7, 1.2, 0.0), False),  # ball too far to the side
    (Pose2D(2.3, 1.0, 0.0), False),  # ball behind
])
def test_is_kickable_cases(pose, ok):
    assert is_kickable(pose, (2.0, 1.0), 0.0) is ok


def test_wrong_side_makes_the_ball_an_obstacle():
    ball = (0.0, 0.0)
    assert on_wrong_side((0.5, 0.2), ball, 0.0)
    assert not on_wrong_side((-0.5, 0.2), ball, 0.0)
    kp = KickPlanner(FIELD)
    obs = kp.approach_obstacles(Pose2D(0.5, 0.0, math.pi), ball, 0.0)
    assert len(obs) == 1 and obs[0].kind == "ball"
    assert obs[0].radius_m == pytest.approx(ball_obstacle(ball, FIELD).radius_m)
    assert obs[0].radius_m > FIELD.ball_radius_m
    assert kp.approach_obstacles(Pose2D(-0.5, 0.0, 0.0), ball, 0.0) == []
