"""World simulator: walking, head, falls, collisions, ball, kicks, goals, determinism."""
from __future__ import annotations

import math

import pytest

from soccerbt.world import (
    BallKicked,
    BallOut,
    BallTouched,
    BodyConfig,
    GoalScored,
    KickRequest,
    NoiseConfig,
    Pose2D,
    RobotCommand,
    RobotFell,
    RobotId,
    RobotLimits,
    RobotStoodUp,
    Team,
    World,
    WorldConfig,
)

B1, B2, R1 = RobotId(Team.BLUE, 1), RobotId(Team.BLUE, 2), RobotId(Team.RED, 1)


def perfect_world(**overrides: object) -> World:
    return World(WorldConfig.perfect(**overrides), seed=0)


_ORIGIN = Pose2D(0.0, 0.0, 0.0)


def one_robot(world: World, pose: Pose2D = _ORIGIN, rid: RobotId = B1) -> RobotId:
    world.add_robot(rid, pose)
    world.place_ball(0.0, 4.0)  # out of the way
    return rid


# --- walking -------------------------------------------------------------------------------


def test_half_metre_per_second_for_two_seconds_travels_one_metre_exactly_without_noise():
    w = perfect_world()
    rid = one_robot(w)
    w.set_command(rid, RobotCommand(vx_mps=0.5))
    w.run(1.0)  # reach the speed (acceleration limit 1.5 m/s^2)
    x0 = w.robots[rid].x_m
    w.run(2.0)
    assert w.robots[rid].x_m - x0 == pytest.approx(1.0, abs=1e-9)
    assert w.robots[rid].y_m == pytest.approx(0.0, abs=1e-12)
    assert w.robots[rid].vx_mps == 0.5


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_half_metre_per_second_for_two_seconds_travels_about_one_metre_with_noise(seed):
    w = World(WorldConfig(), seed=seed)
    rid = one_robot(w)
    w.set_command(rid, RobotCommand(vx_mps=0.5))
    w.run(1.0)
    start = w.robots[rid].pose
    w.run(2.0)
    travelled = w.robots[rid].pose.distance_to(start.x_m, start.y_m)
    falls = w.robots[rid].falls
    if falls == 0:  # a spontaneous fall is possible, if rare
        assert 0.9 < travelled < 1.1
        assert travelled != pytest.approx(1.0, abs=1e-6)  # the noise is there


def test_acceleration_is_limited_from_rest():
    w = perfect_world()
    rid = one_robot(w)
    w.set_command(rid, RobotCommand(vx_mps=1.0, vy_mps=0.3, vtheta_radps=1.0))
    w.step()
    r = w.robots[rid]
    assert r.vx_mps == pytest.approx(0.015)  # 1.5 m/s^2 * 10 ms
    assert r.vy_mps == pytest.approx(0.010)
    assert r.vtheta_radps == pytest.approx(0.040)
    # the ramp from 0 to 0.5 m/s takes a third of a second: distance 1.0 - 0.0833 in 2 s
    w2 = perfect_world()
    one_robot(w2)
    w2.set_command(rid, RobotCommand(vx_mps=0.5))
    w2.run(2.0)
    assert w2.robots[rid].x_m == pytest.approx(1.0 - 0.5 * 0.5 / 1.5 / 2.0, abs=0.005)


def test_walking_follows_the_robot_frame_and_turns():
    w = perfect_world()
    rid = one_robot(w, Pose2D(0.0, 0.0, math.pi / 2.0))
    w.set_command(rid, RobotCommand(vx_mps=0.4))
    w.run(3.0)
    r = w.robots[rid]
    assert abs(r.x_m) < 1e-9 and r.y_m > 1.0  # facing +y
    w.set_command(rid, RobotCommand(vtheta_radps=1.0))
    theta0 = r.theta_rad
    w.run(2.0)
    # ramp 0.25 s at 4 rad/s^2: 2.0 - 0.125 rad turned (deceleration from 0.4 m/s moves it a bit)
    turned = (r.theta_rad - theta0) % (2 * math.pi)
    assert turned == pytest.approx(2.0 - 0.125, abs=0.01)


def test_excessive_speeds_are_clamped_to_the_t1_limits_and_counted():
    w = perfect_world()
    rid = one_robot(w)
    w.set_command(rid, RobotCommand(vx_mps=5.0, vy_mps=-3.0, vtheta_radps=9.0, head_pan_rad=4.0))
    assert w.robots[rid].commands_clamped == 1
    w.run(2.0)
    r = w.robots[rid]
    assert (r.vx_mps, r.vy_mps, r.vtheta_radps) == (1.2, -0.4, 1.5)
    assert r.head_pan_rad == 1.1
    w.set_command(rid, RobotCommand(vx_mps=-2.0))
    w.run(2.0)
    assert r.vx_mps == -0.5  # slower backwards
    w.set_command(rid, RobotCommand(vx_mps=0.3))
    assert r.commands_clamped == 2  # a command within the limits is not counted


@pytest.mark.parametrize("field_name, value", [
    ("vx_mps", math.nan), ("vy_mps", math.inf), ("vtheta_radps", -math.inf),
    ("head_pan_rad", math.nan), ("head_tilt_rad", math.inf),
])
def test_non_finite_commands_are_rejected_naming_robot_and_field_and_change_nothing(field_name, value):
    w = perfect_world()
    rid = one_robot(w)
    w.set_command(rid, RobotCommand(vx_mps=0.4, head_tilt_rad=0.5))
    w.run(1.0)
    before = w.snapshot()
    with pytest.raises(ValueError, match=rf"blue1: RobotCommand\.{field_name} must be finite"):
        w.set_command(rid, RobotCommand(**{field_name: value}))
    assert w.snapshot() == before
    w.run(1.0)
    assert w.robots[rid].vx_mps == 0.4  # the previous command still runs


def test_bad_kick_and_non_numbers_are_rejected():
    w = perfect_world()
    rid = one_robot(w)
    with pytest.raises(ValueError, match=r"blue1: RobotCommand\.kick\.strength must be finite"):
        w.set_command(rid, RobotCommand(kick=KickRequest(0.0, math.nan)))
    with pytest.raises(TypeError, match=r"blue1: RobotCommand\.vx_mps must be a number, got 'fast'"):
        w.set_command(rid, RobotCommand(vx_mps="fast"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expects a RobotCommand"):
        w.set_command(rid, (0.1, 0.0, 0.0))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"kick must be a KickRequest"):
        w.set_command(rid, RobotCommand(kick=1.0))  # type: ignore[arg-type]
    w.set_command(rid, RobotCommand(kick=KickRequest(3.0, 7.0)))  # clamped: sideways at most, strength 1
    assert w.robots[rid]._kick == (math.pi / 2.0, 1.0)
    assert w.robots[rid].commands_clamped == 1


def test_unknown_robot_is_a_key_error_with_a_clear_message():
    w = perfect_world()
    one_robot(w)
    with pytest.raises(KeyError, match=r"unknown robot red3 \(robots in the world: blue1\)"):
        w.set_command(RobotId(Team.RED, 3), RobotCommand())
    with pytest.raises(KeyError, match="unknown robot"):
        w.observe(RobotId(Team.RED, 3))
    with pytest.raises(ValueError, match="already in the world"):
        w.add_robot(B1, Pose2D())
    with pytest.raises(ValueError, match=r"pose\.x_m must be finite"):
        w.add_robot(B2, Pose2D(math.nan, 0.0, 0.0))
    assert list(w.robots) == [B1]


def test_head_moves_at_limited_speed_within_joint_limits():
    w = perfect_world()
    rid = one_robot(w)
    w.set_command(rid, RobotCommand(head_pan_rad=0.9, head_tilt_rad=2.0))
    w.run(0.1)
    r = w.robots[rid]
    assert r.head_pan_rad == pytest.approx(0.3)  # 3 rad/s
    assert r.head_tilt_rad == pytest.approx(0.3)
    w.run(0.5)
    assert r.head_pan_rad == pytest.approx(0.9)
    assert r.head_tilt_rad == pytest.approx(1.2)  # joint limit


# --- falls and standing up --------------------------------------------------------------------


def test_fallen_robot_cannot_walk_until_it_stood_up():
    w = perfect_world()
    rid = one_robot(w)
    w.knock_over(rid)
    assert [type(e) for e in w.events.drain()] == [RobotFell]
    w.set_command(rid, RobotCommand(vx_mps=0.8))
    w.run(5.0)
    r = w.robots[rid]
    assert (r.x_m, r.y_m, r.fallen) == (0.0, 0.0, True)
    assert w.observe(rid).fallen
    w.set_command(rid, RobotCommand(vx_mps=0.8, stand_up=True))
    w.step()
    assert r.standing_up and r.fallen
    w.run(2.9)
    assert r.fallen and r.x_m == 0.0  # standing up takes 3 s
    w.run(0.11)
    assert not r.fallen and not r.standing_up
    assert [type(e) for e in w.events.drain()] == [RobotStoodUp]
    w.run(1.0)
    assert r.x_m > 0.3  # walks again with the standing command
    assert not w.observe(rid).fallen


def test_stand_up_only_when_commanded_unless_auto_stand_up():
    w = perfect_world()
    rid = one_robot(w)
    w.knock_over(rid)
    w.run(20.0)
    assert w.robots[rid].fallen
    auto = perfect_world(body=BodyConfig(auto_stand_up=True, auto_stand_up_delay_s=2.0, stand_up_duration_s=3.0))
    one_robot(auto)
    auto.knock_over(rid)
    auto.run(4.95)
    assert auto.robots[rid].fallen
    auto.run(0.1)
    assert not auto.robots[rid].fallen


def test_failed_stand_up_leaves_the_robot_down_and_it_may_retry():
    w = World(WorldConfig.perfect().with_(noise=NoiseConfig.perfect().__class__(
        **{**NoiseConfig.perfect().__dict__, "stand_up_failure_probability": 1.0})), seed=3)
    rid = one_robot(w)
    w.knock_over(rid)
    w.set_command(rid, RobotCommand(stand_up=True))
    w.run(4.0)
    r = w.robots[rid]
    assert r.fallen and not r.standing_up
    w.set_command(rid, RobotCommand(stand_up=True))
    w.run(0.6)
    assert r.standing_up  # the retry is accepted after min_lying_s


def _noise(**changes: float) -> NoiseConfig:
    values = dict(NoiseConfig.perfect().__dict__)
    values.update(changes)
    return NoiseConfig(**values)


def test_robots_fall_on_their_own_only_when_the_rate_is_not_zero():
    w = World(WorldConfig(noise=_noise(spontaneous_fall_rate_per_s=2.0)), seed=5)
    rid = one_robot(w)
    w.set_command(rid, RobotCommand(vx_mps=0.3, vtheta_radps=0.5, stand_up=True))
    fell = 0
    for _ in range(1000):
        w.step()
        fell += sum(isinstance(e, RobotFell) for e in w.events.drain())
        if w.robots[rid].fallen:
            w.set_command(rid, RobotCommand(vx_mps=0.3, vtheta_radps=0.5, stand_up=True))
    assert fell >= 1 and w.robots[rid].falls == fell
    quiet = perfect_world()
    one_robot(quiet)
    quiet.set_command(rid, RobotCommand(vx_mps=0.3, vtheta_radps=0.5))
    quiet.run(60.0)
    assert quiet.robots[rid].falls == 0


# --- collisions -------------------------------------------------------------------------------


def test_robots_push_each_other_apart_and_may_fall():
    w = perfect_world()
    w.add_robot(B1, Pose2D(-1.0, 0.0, 0.0))
    w.add_robot(R1, Pose2D(1.0, 0.0, math.pi))
    w.place_ball(0.0, 4.0)
    for rid in (B1, R1):
        w.set_command(rid, RobotCommand(vx_mps=0.6))
    min_gap = math.inf
    for _ in range(400):
        w.step()
        a, b = w.robots[B1], w.robots[R1]
        min_gap = min(min_gap, math.hypot(a.x_m - b.x_m, a.y_m - b.y_m))
    assert min_gap == pytest.approx(2 * w.config.body.radius_m, abs=0.02)
    assert w.robots[B1].x_m == pytest.approx(-w.config.body.radius_m, abs=0.02)  # symmetric shove
    assert w.robots[B1].falls == 0  # no random falls in a perfect world
    rough = World(WorldConfig(noise=_noise(collision_fall_probability_per_mps=10.0)), seed=1)
    rough.add_robot(B1, Pose2D(-1.0, 0.0, 0.0))
    rough.add_robot(R1, Pose2D(1.0, 0.0, math.pi))
    rough.place_ball(0.0, 4.0)
    for rid in (B1, R1):
        rough.set_command(rid, RobotCommand(vx_mps=0.6))
    rough.run(3.0)
    fell = [e.robot for e in rough.events.drain() if isinstance(e, RobotFell)]
    assert sorted(fell) == [B1, R1]  # 10 per m/s at 1.2 m/s approach: certain


def test_picked_up_robot_stops_ignores_commands_is_no_obstacle_and_is_put_down_standing():
    w = perfect_world()
    w.add_robot(B1, Pose2D(0.0, 0.0, 0.0))
    w.add_robot(B2, Pose2D(-1.0, 0.0, 0.0))
    w.place_ball(0.0, 4.0)
    w.set_command(B1, RobotCommand(vx_mps=0.5))
    w.run(1.0)
    w.knock_over(B1)
    w.remove_robot(B1)
    r = w.robots[B1]
    x_removed = r.x_m
    w.set_command(B1, RobotCommand(vx_mps=0.5))
    w.set_command(B2, RobotCommand(vx_mps=0.5))
    w.run(4.0)
    assert r.x_m == x_removed and r.vx_mps == 0.0
    assert w.robots[B2].x_m > x_removed + 0.5  # walked straight through where it stood
    w.place_robot(B1, Pose2D(3.0, -2.0, 1.0))
    assert (r.pose, r.fallen, r.removed, r.vx_mps) == (Pose2D(3.0, -2.0, 1.0), False, False, 0.0)
    w.run(1.0)
    assert r.pose == Pose2D(3.0, -2.0, 1.0)  # still: the old command was dropped


# --- ball -------------------------------------------------------------------------------------


def test_ball_decelerates_as_configured_and_stops():
    w = perfect_world()
    w.place_ball(-5.0, 0.0)
    w.set_ball_velocity(2.0, 0.0)
    w.run(1.0)
    assert w.ball.vx_mps == pytest.approx(2.0 - 0.8)
    assert w.ball.x_m == pytest.approx(-5.0 + 2.0 - 0.4)  # v0 t - a t^2 / 2
    w.run(2.0)
    assert (w.ball.vx_mps, w.ball.vy_mps) == (0.0, 0.0)
    assert w.ball.x_m == pytest.approx(-5.0 + 2.0 ** 2 / (2 * 0.8))  # v0^2 / 2a
    x = w.ball.x_m
    w.run(1.0)
    assert w.ball.x_m == x


def test_rolling_deceleration_is_a_parameter():
    from soccerbt.world import BallConfig
    w = perfect_world(ball=BallConfig(rolling_deceleration_mps2=0.4))
    w.place_ball(-5.0, 0.0)
    w.set_ball_velocity(0.0, 1.0)
    w.run(4.0)
    assert w.ball.y_m == pytest.approx(1.0 / 0.8)
    assert w.ball.speed_mps == 0.0


def test_ball_between_the_posts_is_a_goal_and_stays_in_the_net():
    w = perfect_world()
    w.place_ball(6.5, 0.5)
    w.set_ball_velocity(3.0, 0.0)
    w.run(2.0)
    events = w.events.drain()
    goals = [e for e in events if isinstance(e, GoalScored)]
    assert len(goals) == 1 and goals[0].goal_at_positive_x and goals[0].last_touch is None
    assert not any(isinstance(e, BallOut) for e in events)
    assert 7.0 < w.ball.x_m <= 7.0 + 0.6 - 0.11 + 1e-9  # stopped by the back of the net
    assert not w.ball.in_play
    w.run(2.0)
    assert w.events.drain() == []  # reported once
    w.place_ball(0.0, 0.0)
    assert w.ball.in_play


def test_own_goal_side_and_last_touch():
    w = perfect_world()
    w.add_robot(R1, Pose2D(-5.0, 0.0, math.pi))
    w.place_ball(-5.45, 0.0)
    w.set_command(R1, RobotCommand(kick=KickRequest(0.0, 0.6)))
    w.run(2.0)
    goals = [e for e in w.events.drain() if isinstance(e, GoalScored)]
    assert len(goals) == 1 and not goals[0].goal_at_positive_x and goals[0].last_touch == R1


def test_ball_beside_a_post_is_out_over_the_goal_line_not_a_goal():
    w = perfect_world()
    w.place_ball(6.5, 1.6)
    w.set_ball_velocity(3.0, 0.0)
    w.run(2.0)
    events = w.events.drain()
    assert not any(isinstance(e, GoalScored) for e in events)
    outs = [e for e in events if isinstance(e, BallOut)]
    assert len(outs) == 1
    assert (outs[0].line, outs[0].x_m) == ("goal", 7.0)
    assert outs[0].y_m == pytest.approx(1.6)


def test_ball_over_the_touch_line_reports_where_it_crossed():
    w = perfect_world()
    w.place_ball(1.0, 4.0)
    w.set_ball_velocity(1.0, 1.0)
    w.run(2.0)
    outs = [e for e in w.events.drain() if isinstance(e, BallOut)]
    assert len(outs) == 1 and outs[0].line == "touch" and outs[0].y_m == 4.5
    assert outs[0].x_m == pytest.approx(1.0 + 0.5 + 0.11, abs=0.02)  # wholly over: centre at 4.61


def test_ball_bounces_off_a_goal_post():
    w = perfect_world()
    post_x, post_y = 7.0, 1.3
    w.place_ball(6.0, post_y)
    w.set_ball_velocity(2.0, 0.0)
    w.run(1.0)
    assert w.ball.vx_mps < 0.0  # came back
    assert w.ball.x_m < post_x - 0.16
    assert not any(isinstance(e, GoalScored) for e in w.events.drain())


def test_ball_bounces_off_a_standing_robot():
    w = perfect_world()
    w.add_robot(B1, Pose2D(0.0, 0.0, 0.0))
    w.place_ball(-2.0, 0.0)
    w.set_ball_velocity(2.0, 0.0)
    back = 0.0
    for _ in range(150):
        w.step()
        back = min(back, w.ball.vx_mps)
    # arrives at sqrt(2^2 - 2 * 0.8 * 1.67) = 1.15 m/s, leaves at restitution 0.3 of that
    contact_speed = math.sqrt(4.0 - 2 * 0.8 * (2.0 - 0.33))
    assert back == pytest.approx(-0.3 * contact_speed, abs=0.02)
    assert w.ball.x_m < -0.33
    events = w.events.drain()
    assert [type(e) for e in events] == [BallTouched]


@pytest.mark.parametrize("robot_speed_mps", [0.3, 0.6, 0.9])
def test_walking_robot_pushes_the_ball_forward_faster_when_it_walks_faster(robot_speed_mps):
    w = perfect_world()
    w.add_robot(B1, Pose2D(-2.0, 0.0, 0.0))
    w.place_ball(-1.0, 0.0)
    w.set_command(B1, RobotCommand(vx_mps=robot_speed_mps))
    top = 0.0
    for _ in range(300):
        w.step()
        top = max(top, w.ball.vx_mps)
    gain = w.config.body.foot_push_gain
    assert top == pytest.approx(robot_speed_mps * gain, rel=0.02)
    assert w.ball.last_touch == B1
    assert any(isinstance(e, BallTouched) and e.robot == B1 for e in w.events.drain())


def _kick_world(ball_x: float, direction: float = 0.0, strength: float = 1.0, seed: int = 0,
                noise: NoiseConfig | None = None) -> World:
    w = World(WorldConfig(noise=noise if noise is not None else NoiseConfig.perfect()), seed=seed)
    w.add_robot(B1, Pose2D(0.0, 0.0, 0.0))
    w.place_ball(ball_x, 0.0)
    w.set_command(B1, RobotCommand(kick=KickRequest(direction, strength)))
    w.step()
    return w


def test_kick_in_reach_sends_the_ball_with_strength_and_direction():
    w = _kick_world(0.35)
    assert w.ball.speed_mps == pytest.approx(4.5 - 0.8 * 0.01)  # rolled one step already
    assert math.atan2(w.ball.vy_mps, w.ball.vx_mps) == pytest.approx(0.0)
    assert [type(e) for e in w.events.drain()] == [BallTouched, BallKicked]
    assert w.robots[B1].kicks == 1 and w.is_kicking(B1)
    w2 = _kick_world(0.35, direction=0.5, strength=0.5)
    assert math.atan2(w2.ball.vy_mps, w2.ball.vx_mps) == pytest.approx(0.5)
    assert w2.ball.speed_mps == pytest.approx(0.5 * 4.5 * (0.5 + 0.5 * math.cos(0.5)) - 0.008)


def test_kick_out_of_reach_misses_and_the_request_is_used_once():
    w = _kick_world(1.0)
    assert w.ball.speed_mps == 0.0 and w.robots[B1].kicks == 0 and w.robots[B1].kick_misses == 1
    assert w.events.drain() == []
    w.run(2.0)
    assert w.robots[B1].kick_misses == 1


def test_kick_has_speed_and_direction_noise():
    noise = _noise(kick_speed_rel_sigma=0.1, kick_direction_sigma_rad=0.08)
    speeds, dirs = [], []
    for seed in range(20):
        w = _kick_world(0.35, seed=seed, noise=noise)
        speeds.append(w.ball.speed_mps)
        dirs.append(math.atan2(w.ball.vy_mps, w.ball.vx_mps))
    mean = sum(speeds) / len(speeds)
    assert mean == pytest.approx(4.5, rel=0.1)
    assert max(speeds) - min(speeds) > 0.3
    assert max(abs(d) for d in dirs) > 0.03 and max(abs(d) for d in dirs) < 0.4


def test_robot_stands_still_while_kicking():
    w = perfect_world()
    w.add_robot(B1, Pose2D(0.0, 0.0, 0.0))
    w.place_ball(0.35, 0.0)
    w.set_command(B1, RobotCommand(vx_mps=0.5, kick=KickRequest()))
    w.run(0.3)
    assert w.robots[B1].x_m == 0.0
    w.run(1.0)
    assert w.robots[B1].x_m > 0.1


# --- odometry and determinism -----------------------------------------------------------------


def test_perfect_odometry_follows_the_walk_and_noisy_odometry_drifts():
    w = perfect_world()
    rid = one_robot(w, Pose2D(2.0, 1.0, math.pi / 2.0))
    w.set_command(rid, RobotCommand(vx_mps=0.5, vtheta_radps=0.3))
    w.run(5.0)
    truth = w.robots[rid].pose
    local = Pose2D(2.0, 1.0, math.pi / 2.0)
    ex, ey = local.inverse_transform_point(truth.x_m, truth.y_m)
    odo = w.observe(rid).odometry
    assert (odo.x_m, odo.y_m) == (pytest.approx(ex, abs=1e-9), pytest.approx(ey, abs=1e-9))
    assert odo.theta_rad == pytest.approx(truth.theta_rad - math.pi / 2.0, abs=1e-9)
    assert w.observe(rid).imu_yaw_rad == pytest.approx(odo.theta_rad, abs=1e-9)
    noisy = World(WorldConfig(noise=_noise(odometry_scale_sigma=0.05, walk_speed_rel_sigma=0.05)), seed=2)
    one_robot(noisy, local)
    noisy.set_command(rid, RobotCommand(vx_mps=0.5, vtheta_radps=0.3))
    noisy.run(5.0)
    truth = noisy.robots[rid].pose
    ex, ey = local.inverse_transform_point(truth.x_m, truth.y_m)
    odo = noisy.observe(rid).odometry
    assert 0.005 < math.hypot(odo.x_m - ex, odo.y_m - ey) < 0.5


def _scripted_run(seed: int, seconds: float = 6.0) -> World:
    w = World(WorldConfig(noise=_noise(**NoiseConfig().__dict__)), seed=seed)
    ids = [RobotId(Team.BLUE, 1), RobotId(Team.BLUE, 2), RobotId(Team.RED, 1), RobotId(Team.RED, 2)]
    for k, rid in enumerate(ids):
        w.add_robot(rid, Pose2D(-2.0 + k, (-1.0) ** k, k * 0.7))
    w.place_ball(0.0, 0.0)
    for step in range(int(seconds / w.dt_s)):
        if step % 50 == 0:
            for k, rid in enumerate(ids):
                w.set_command(rid, RobotCommand(vx_mps=0.6, vy_mps=0.1 * k, vtheta_radps=math.sin(step + k),
                                                head_pan_rad=0.5 * math.cos(step), head_tilt_rad=0.4,
                                                kick=KickRequest() if step % 150 == 0 else None, stand_up=True))
        w.step()
        for rid in ids:
            w.observe(rid)
    return w


def test_same_seed_same_world_bit_for_bit_and_other_seeds_differ():
    a, b, c = _scripted_run(7), _scripted_run(7), _scripted_run(8)
    assert a.snapshot() == b.snapshot()
    assert a.digest() == b.digest()
    for rid in a.robots:
        assert a.observe(rid) == b.observe(rid)
    assert a.snapshot() != c.snapshot()
    assert a.digest() != c.digest()


def test_time_is_whole_steps_of_dt():
    w = World(WorldConfig(dt_s=0.01))
    for _ in range(1000):
        w.step()
    assert w.t_s == 10.0 and w.step_count == 1000
    with pytest.raises(ValueError, match="dt_s"):
        WorldConfig(dt_s=0.0)


# --- referee hooks, edges -----------------------------------------------------------------------


def test_place_ball_rejects_bad_positions_and_keeps_the_ball():
    w = perfect_world()
    w.place_ball(1.0, 2.0)
    with pytest.raises(ValueError, match="place_ball: position must be finite"):
        w.place_ball(math.nan, 0.0)
    with pytest.raises(ValueError, match="off the carpet"):
        w.place_ball(9.0, 0.0)
    assert (w.ball.x_m, w.ball.y_m) == (1.0, 2.0)
    with pytest.raises(ValueError, match="finite"):
        w.set_ball_velocity(math.inf, 0.0)


def test_robots_do_not_walk_through_goal_posts_or_off_the_carpet():
    w = perfect_world()
    w.add_robot(B1, Pose2D(6.0, 1.3, 0.0))  # straight at the left post of the +x goal
    w.add_robot(B2, Pose2D(0.0, 4.0, math.pi / 2.0))  # toward the edge of the carpet (y = 5.5)
    w.place_ball(-3.0, 0.0)
    w.set_command(B1, RobotCommand(vx_mps=0.5))
    w.set_command(B2, RobotCommand(vx_mps=0.8))
    w.run(5.0)
    post_gap = math.hypot(w.robots[B1].x_m - 7.0, w.robots[B1].y_m - 1.3)
    assert post_gap >= 0.22 + 0.05 - 1e-9
    assert w.robots[B2].y_m == pytest.approx(4.5 + 1.0 - 0.22)


def test_ball_stops_at_the_edge_of_the_carpet():
    w = perfect_world()
    w.place_ball(0.0, 4.0)
    w.set_ball_velocity(0.0, 4.0)
    w.run(3.0)
    assert w.ball.y_m == 5.5 and w.ball.speed_mps == 0.0
    outs = [e for e in w.events.drain() if isinstance(e, BallOut)]
    assert [o.line for o in outs] == ["touch"]


def test_events_name_the_robot_that_touched_last_before_the_ball_went_out():
    w = perfect_world()
    w.add_robot(R1, Pose2D(2.0, 3.9, math.pi / 2.0))
    w.place_ball(2.0, 4.25)
    w.set_command(R1, RobotCommand(kick=KickRequest(0.0, 0.3)))
    w.run(2.0)
    events = w.events.drain()
    assert [type(e) for e in events] == [BallTouched, BallKicked, BallOut]
    assert events[-1].last_touch == R1 and events[-1].line == "touch"


# --- repeated commands (World.command_state's fast path) ----------------------------------


def test_a_repeated_command_is_clamped_and_counted_each_time_like_a_new_one():
    w = perfect_world()
    rid = one_robot(w)
    r = w.robots[rid]
    too_fast = RobotCommand(vx_mps=5.0, vtheta_radps=-9.0, head_pan_rad=0.3)
    for _ in range(3):
        w.set_command(rid, too_fast)  # the same object again
        w.set_command(rid, RobotCommand(vx_mps=5.0, vtheta_radps=-9.0, head_pan_rad=0.3))  # equal values
    assert r.commands_clamped == 6
    assert (r._cvx, r._cvt, r._pan_target) == (1.2, -1.5, 0.3)
    within = RobotCommand(vx_mps=0.4, head_pan_rad=0.3)
    for _ in range(3):
        w.set_command(rid, within)
    assert r.commands_clamped == 6  # within the limits: not counted, however often repeated
    w.set_command(rid, RobotCommand(vx_mps=0.4, head_pan_rad=0.3, kick=KickRequest(3.0, 7.0)))
    assert r.commands_clamped == 7 and r._kick == (math.pi / 2.0, 1.0)  # a kick is checked in full
    w.set_command(rid, within)
    assert r.commands_clamped == 7  # the walk part was not clamped


def test_a_command_object_changed_after_use_is_checked_again():
    w = perfect_world()
    rid = one_robot(w)
    command = RobotCommand(vx_mps=0.4)
    w.set_command(rid, command)
    command.vx_mps = 9.0  # RobotCommand is mutable: same object, new value
    w.set_command(rid, command)
    assert w.robots[rid]._cvx == 1.2 and w.robots[rid].commands_clamped == 1
    command.vy_mps = math.nan
    before = w.snapshot()
    with pytest.raises(ValueError, match=r"blue1: RobotCommand\.vy_mps must be finite"):
        w.set_command(rid, command)
    assert w.snapshot() == before


def test_a_repeated_command_after_placing_or_removing_the_robot_or_new_limits():
    w = perfect_world()
    rid = one_robot(w)
    r = w.robots[rid]
    walk = RobotCommand(vx_mps=0.5, vtheta_radps=0.2)
    w.set_command(rid, walk)
    w.place_robot(rid, Pose2D(1.0, 0.0, 0.0))  # the referee's put-down clears the walk target
    assert r._cvx == 0.0
    w.set_command(rid, RobotCommand(vx_mps=0.5, vtheta_radps=0.2))
    assert (r._cvx, r._cvt) == (0.5, 0.2)  # the same values again walk again
    w.remove_robot(rid)
    w.set_command(rid, walk)
    w.set_command(rid, RobotCommand(vx_mps=0.5, stand_up=True))
    w.set_command(rid, RobotCommand(vx_mps=0.5, stand_up=True))
    assert not r._stand_up_request and r._cvx == 0.5 and r.commands_clamped == 0  # ignored while off the field
    r.limits = RobotLimits(max_vx_forward_mps=0.3)  # a slower robot: the same command clamps now
    w.place_robot(rid, Pose2D(1.0, 0.0, 0.0))
    w.set_command(rid, walk)
    r.limits = RobotLimits(max_vx_forward_mps=0.2)
    w.set_command(rid, walk)
    assert r._cvx == 0.2 and r.commands_clamped == 2


def test_a_repeated_stand_up_request_is_kept_and_ints_equal_to_the_floats_work_the_same():
    w = perfect_world()
    rid = one_robot(w)
    r = w.robots[rid]
    w.set_command(rid, RobotCommand(vx_mps=0.5))
    w.step()
    w.set_command(rid, RobotCommand(vx_mps=0.5, stand_up=True))
    assert r._stand_up_request
    w.set_command(rid, RobotCommand(vx_mps=1, vy_mps=0))  # ints: converted and remembered as floats
    w.set_command(rid, RobotCommand(vx_mps=1, vy_mps=0))
    assert r._cvx == 1.0 and type(r._cvx) is float and r.commands_clamped == 0
    with pytest.raises(TypeError, match=r"blue1: RobotCommand\.vy_mps must be a number"):
        w.set_command(rid, RobotCommand(vx_mps=1.0, vy_mps="0"))


def test_repeating_commands_every_step_gives_the_same_world_as_setting_them_once():
    def run(repeat: bool) -> World:
        w = World(WorldConfig(), seed=3)
        ids = [B1, B2, R1]
        for k, rid in enumerate(ids):
            w.add_robot(rid, Pose2D(-2.0 + 1.5 * k, 0.5 * k, 0.3 * k))
        w.place_ball(0.0, 0.0)
        for step in range(400):
            if step % 100 == 0:
                commands = [RobotCommand(vx_mps=0.5 + 0.1 * k, vtheta_radps=2.0 * math.sin(step + k),
                                         head_pan_rad=0.4, head_tilt_rad=0.5) for k in range(3)]
                for rid, c in zip(ids, commands, strict=False):
                    w.set_command(rid, c)
            elif repeat:
                for rid, c in zip(ids, commands, strict=False):
                    w.set_command(rid, RobotCommand(c.vx_mps, c.vy_mps, c.vtheta_radps, c.head_pan_rad,
                                                    c.head_tilt_rad))
            w.step()
            for rid in ids:
                w.observe(rid)
        return w

    once, repeated = run(False), run(True)
    for r in once.robots.values():
        r.commands_clamped = 0  # the only difference: repeated clamped commands are counted again
    for r in repeated.robots.values():
        r.commands_clamped = 0
    assert once.snapshot() == repeated.snapshot()


def test_odometry_of_a_standing_robot_is_reused_and_of_a_walking_one_renewed():
    w = perfect_world()
    rid = one_robot(w)
    w.step()
    first = w.observe(rid).odometry
    w.step()
    assert w.observe(rid).odometry is first  # nothing moved: the same (frozen) pose
    w.set_command(rid, RobotCommand(vx_mps=0.5))
    w.step()
    moved = w.observe(rid).odometry
    assert moved.x_m > 0.0 and moved == w.robots[rid].odometry
    w.set_command(rid, RobotCommand())
    w.run(1.0)
    w.observe(rid)
    w.step()
    assert w.observe(rid).odometry == w.robots[rid].odometry
