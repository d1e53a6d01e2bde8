"""Camera, odometry and IMU as a robot sees them."""
from __future__ import annotations

import math
import statistics

import pytest

from soccerbt.world import (
    BALL,
    ROBOT,
    CameraConfig,
    FeatureKind,
    Field,
    NoiseConfig,
    Pose2D,
    RobotCommand,
    RobotId,
    Team,
    World,
    WorldConfig,
)
from soccerbt.world.sensors import ground_band_m

B1, B2, R1 = RobotId(Team.BLUE, 1), RobotId(Team.BLUE, 2), RobotId(Team.RED, 1)


def _noise(**changes: float) -> NoiseConfig:
    values = dict(NoiseConfig.perfect().__dict__)
    values.update(changes)
    return NoiseConfig(**values)


def seen(world: World, rid: RobotId, tilt: float = 0.3, pan: float = 0.0) -> list:
    """Detections of the next camera frame with the head at (pan, tilt)."""
    world.set_command(rid, RobotCommand(head_pan_rad=pan, head_tilt_rad=tilt))
    r = world.robots[rid]
    for _ in range(200):  # let the head arrive, then wait for a frame
        world.step()
        if (
            abs(r.head_tilt_rad - tilt) < 1e-12
            and abs(r.head_pan_rad - pan) < 1e-12
            and world.observe(rid).camera_frame
        ):
            return list(world.observe(rid).detections)
    raise AssertionError("no camera frame")


def of_kind(dets: list, kind: str) -> list:
    return [d for d in dets if d.kind == kind]


def perfect_world(**overrides: object) -> World:
    return World(WorldConfig.perfect(**overrides), seed=0)


def test_camera_delivers_thirty_frames_a_second():
    w = perfect_world()
    w.add_robot(B1, Pose2D())
    frames = 0
    for _ in range(300):
        w.step()
        obs = w.observe(B1)
        frames += obs.camera_frame
        if not obs.camera_frame:
            assert obs.detections == ()
    assert frames == 90
    assert w.observe(B1).t_s == 3.0


def test_ball_in_front_is_seen_exactly_in_the_robot_frame_without_noise():
    w = perfect_world()
    w.add_robot(B1, Pose2D(1.0, 1.0, math.pi / 2.0))
    w.place_ball(0.5, 3.0)  # 2 m ahead, 0.5 m to the right
    balls = of_kind(seen(w, B1), BALL)
    assert len(balls) == 1
    assert (balls[0].x_m, balls[0].y_m) == (pytest.approx(2.0), pytest.approx(0.5))
    assert balls[0].confidence == 1.0


def test_things_behind_the_camera_or_beyond_range_are_not_seen():
    w = perfect_world()
    w.add_robot(B1, Pose2D(0.0, 0.0, 0.0))
    w.place_ball(-2.0, 0.0)  # behind
    assert of_kind(seen(w, B1), BALL) == []
    w.place_ball(6.5, 0.0)  # 6.5 m: beyond the ball's 6 m range
    assert of_kind(seen(w, B1), BALL) == []
    w.place_ball(5.5, 0.0)
    assert len(of_kind(seen(w, B1), BALL)) == 1
    # features: only those in the horizontal field of view and range, from the centre facing +x
    dets = seen(w, B1)
    feats = [d for d in dets if d.kind not in (BALL, ROBOT)]
    for d in feats:
        assert d.x_m > 0.0 and abs(math.atan2(d.y_m, d.x_m)) <= math.pi / 4 + 1e-9
        limit = 9.0 if d.kind == FeatureKind.GOAL_POST.value else 6.0
        assert math.hypot(d.x_m, d.y_m) <= limit + 1e-9
    expected = []
    for f in w.field.features:
        dist = math.hypot(f.x_m, f.y_m)
        limit = 9.0 if f.kind is FeatureKind.GOAL_POST else 6.0
        if f.x_m > 0.0 and abs(f.y_m) <= f.x_m and 0.15 <= dist <= limit:
            expected.append((f.kind.value, f.x_m, f.y_m))
    got = [(d.kind, pytest.approx(d.x_m), pytest.approx(d.y_m)) for d in feats]
    assert sorted(expected) == sorted(got, key=lambda g: (g[0], g[1].expected, g[2].expected))
    kinds = {k for k, _, _ in expected}
    assert {"penalty_mark", "goal_post", "L"} <= kinds  # the 4.9 m mark, posts at 7.1 m, area corners
    # looking the other way the same features are behind
    back = seen(w, B1, pan=1.1)
    assert all(math.atan2(d.y_m, d.x_m) > 1.1 - math.pi / 4 - 1e-9 for d in back)


def test_head_tilt_limits_the_ground_seen():
    cam = CameraConfig()
    near, far = ground_band_m(cam, 1.0)
    assert near == 0.0  # the lower image edge is past the vertical: the feet are in view
    assert far == pytest.approx(1.1 / math.tan(1.0 - math.radians(35)))
    near, far = ground_band_m(cam, 0.5)
    assert near == pytest.approx(1.1 / math.tan(0.5 + math.radians(35)))
    assert far == math.inf  # the upper edge is above the horizon
    assert ground_band_m(cam, -0.7)[0] == math.inf  # looking up: no ground at all
    w = perfect_world()
    w.add_robot(B1, Pose2D(0.0, 0.0, 0.0))
    w.place_ball(4.0, 0.0)
    assert of_kind(seen(w, B1, tilt=1.0), BALL) == []  # beyond the lower image's far edge (2.9 m)
    assert len(of_kind(seen(w, B1, tilt=0.3), BALL)) == 1
    w.place_ball(0.5, 0.0)  # at the feet: below the image unless looking down
    assert of_kind(seen(w, B1, tilt=0.0), BALL) == []
    assert len(of_kind(seen(w, B1, tilt=1.0), BALL)) == 1


def test_occluded_objects_are_not_seen_and_the_occluder_is_seen_with_its_colour():
    w = perfect_world()
    w.add_robot(B1, Pose2D(0.0, 0.0, 0.0))
    w.add_robot(R1, Pose2D(1.5, 0.0, 0.0))
    w.add_robot(B2, Pose2D(4.0, -0.1, 0.0))  # behind the red robot too
    w.place_ball(3.0, 0.1)
    dets = seen(w, B1)
    assert of_kind(dets, BALL) == []
    assert [(r.team, pytest.approx(r.x_m), pytest.approx(r.y_m)) for r in of_kind(dets, ROBOT)] == [
        (Team.RED, 1.5, 0.0)]
    w.place_ball(3.0, 0.8)  # beside the red robot's shadow: seen
    assert [(b.x_m, b.y_m) for b in of_kind(seen(w, B1), BALL)] == [(pytest.approx(3.0), pytest.approx(0.8))]
    w.place_ball(3.0, 0.1)
    w.remove_robot(R1)  # picked up: no longer hides anything and is not seen
    dets = seen(w, B1)
    assert len(of_kind(dets, BALL)) == 1
    assert [(r.team, pytest.approx(r.x_m)) for r in of_kind(dets, ROBOT)] == [(Team.BLUE, 4.0)]
    for _ in range(10):  # a picked-up robot's camera sees nothing
        w.step()
        assert w.observe(R1).detections == ()


def test_fallen_robot_sees_nothing():
    w = perfect_world()
    w.add_robot(B1, Pose2D())
    w.place_ball(2.0, 0.0)
    assert len(of_kind(seen(w, B1), BALL)) == 1
    w.knock_over(B1)
    assert seen(w, B1) == []
    assert w.observe(B1).fallen


def test_noise_grows_with_distance_and_far_balls_are_missed_more():
    w = World(WorldConfig(noise=_noise(range_sigma_base_m=0.02, range_sigma_rel=0.06, bearing_sigma_rad=0.02,
                                       ball_miss_base=0.05, miss_at_max_range=0.35)), seed=4)
    w.add_robot(B1, Pose2D())
    w.set_command(B1, RobotCommand(head_tilt_rad=0.3))
    stats = {}
    for dist in (1.5, 5.0):
        w.place_ball(dist, 0.0)
        errors, frames, hits = [], 0, 0
        for _ in range(900):
            w.step()
            obs = w.observe(B1)
            if obs.camera_frame:
                frames += 1
                for d in of_kind(list(obs.detections), BALL):
                    hits += 1
                    errors.append(math.hypot(d.x_m - dist, d.y_m))
        stats[dist] = (statistics.fmean(errors), hits / frames)
    assert stats[5.0][0] > 2.5 * stats[1.5][0]
    assert 0.05 < stats[1.5][0] < 0.2 and 0.2 < stats[5.0][0] < 0.5
    assert stats[1.5][1] == pytest.approx(1 - 0.05 - 0.35 * 1.5 / 6, abs=0.07)
    assert stats[5.0][1] == pytest.approx(1 - 0.05 - 0.35 * 5.0 / 6, abs=0.07)


def test_false_detections_appear_when_configured():
    w = World(WorldConfig(noise=_noise(false_ball_per_frame=0.5)), seed=9)
    w.add_robot(B1, Pose2D(0.0, 0.0, math.pi))  # the ball is behind
    w.place_ball(2.0, 0.0)
    w.set_command(B1, RobotCommand(head_tilt_rad=0.3))
    frames = balls = 0
    for _ in range(600):
        w.step()
        obs = w.observe(B1)
        if obs.camera_frame:
            frames += 1
            for d in of_kind(list(obs.detections), BALL):
                balls += 1
                assert d.x_m > 0.0 and d.confidence < 0.6
    assert balls / frames == pytest.approx(0.5, abs=0.12)
    assert of_kind(seen(perfect_world_with_ball_behind(), B1), BALL) == []


def perfect_world_with_ball_behind() -> World:
    w = perfect_world()
    w.add_robot(B1, Pose2D(0.0, 0.0, math.pi))
    w.place_ball(2.0, 0.0)
    return w


def test_team_colour_is_sometimes_not_recognised_with_noise():
    w = World(WorldConfig(noise=_noise(team_recognition_probability=0.5)), seed=2)
    w.add_robot(B1, Pose2D())
    w.add_robot(R1, Pose2D(2.0, 0.0, 0.0))
    w.set_command(B1, RobotCommand(head_tilt_rad=0.3))
    teams = []
    for _ in range(600):
        w.step()
        obs = w.observe(B1)
        teams += [d.team for d in of_kind(list(obs.detections), ROBOT)]
    assert set(teams) == {Team.RED, None}


def test_kid_size_field_has_its_own_features_and_ball():
    w = World(WorldConfig.perfect(field=Field.kid_size()))
    assert w.ball.radius_m == 0.075
    w.add_robot(B1, Pose2D(0.0, 0.0, 0.0))
    posts = of_kind(seen(w, B1), FeatureKind.GOAL_POST.value)
    assert sorted((round(p.x_m, 6), round(p.y_m, 6)) for p in posts) == [(4.5, -0.9), (4.5, 0.9)]


def test_sensors_off_gives_frames_without_detections():
    w = World(WorldConfig.perfect(sensors=False))
    w.add_robot(B1, Pose2D())
    w.place_ball(2.0, 0.0)
    assert seen(w, B1) == []


def test_imu_yaw_drifts_with_its_bias_and_reports_falls():
    w = World(WorldConfig(noise=_noise(imu_yaw_bias_sigma_radps=0.01)), seed=3)
    w.add_robot(B1, Pose2D())
    w.run(100.0)
    yaw = w.observe(B1).imu_yaw_rad
    assert w.robots[B1].theta_rad == 0.0  # it stood still
    assert 1e-4 < abs(yaw) < 0.05 * 100.0  # bias times time, a few sigma at most
    assert not w.observe(B1).fallen
    w.knock_over(B1)
    w.step()
    assert w.observe(B1).fallen


def test_false_features_are_of_known_kinds():
    w = World(WorldConfig(noise=_noise(false_feature_per_frame=1.0)), seed=1)
    w.add_robot(B1, Pose2D(0.0, 4.0, math.pi / 2.0))  # looking off the field: no landmark in view
    w.place_ball(0.0, -3.0)
    assert seen(perfect_world_at(Pose2D(0.0, 4.0, math.pi / 2.0)), B1) == []
    w.set_command(B1, RobotCommand(head_tilt_rad=0.3))
    kinds, frames, count = set(), 0, 0
    for _ in range(300):
        w.step()
        obs = w.observe(B1)
        frames += obs.camera_frame
        count += len(obs.detections)
        kinds |= {d.kind for d in obs.detections}
    assert count == frames  # one false landmark per frame, nothing else
    assert len(kinds) >= 3 and kinds <= {k.value for k in FeatureKind}


def perfect_world_at(pose: Pose2D) -> World:
    w = perfect_world()
    w.add_robot(B1, pose)
    w.place_ball(0.0, -3.0)
    return w


def test_false_detections_come_after_the_true_ones_and_runs_repeat_exactly():
    def run(seed: int) -> list:
        w = World(WorldConfig(noise=_noise(false_feature_per_frame=1.0, false_ball_per_frame=0.3)), seed=seed)
        w.add_robot(B1, Pose2D(0.0, 0.0, 0.0))
        w.add_robot(R1, Pose2D(2.0, 0.5, math.pi))
        w.place_ball(1.5, -0.3)
        for rid in (B1, R1):
            w.set_command(rid, RobotCommand(head_tilt_rad=0.4))
        frames = []
        for _ in range(300):
            w.step()
            obs = w.observe(B1)
            if obs.camera_frame:
                frames.append(obs.detections)
        return frames

    frames = run(4)
    assert frames == run(4) and frames != run(5)
    truth = seen(perfect_world_with(R1, Pose2D(2.0, 0.5, math.pi), ball=(1.5, -0.3)), B1, tilt=0.4)
    for dets in frames:
        false_ones = [d for d in dets if d.confidence < 0.5 and d.team is None]  # false: 0.2..0.5
        assert dets[len(dets) - len(false_ones):] == tuple(false_ones)  # listed last
        assert len(dets) - len(false_ones) <= len(truth)


def perfect_world_with(rid: RobotId, pose: Pose2D, ball: tuple[float, float]) -> World:
    w = perfect_world()
    w.add_robot(B1, Pose2D(0.0, 0.0, 0.0))
    w.add_robot(rid, pose)
    w.place_ball(*ball)
    return w


def test_worlds_of_one_configuration_share_the_landmark_grid_and_see_alike():
    from soccerbt.world import sensors

    def run(config: WorldConfig) -> tuple[World, list]:
        w = World(config, seed=2)
        w.add_robot(B1, Pose2D(-2.0, 0.5, 0.3))
        w.add_robot(R1, Pose2D(2.0, -0.5, math.pi))
        w.place_ball(0.5, 0.0)
        w.set_command(B1, RobotCommand(vx_mps=0.3, vtheta_radps=0.4, head_pan_rad=0.6, head_tilt_rad=0.4))
        w.set_command(R1, RobotCommand(vx_mps=0.2, vtheta_radps=-0.3, head_tilt_rad=0.5))
        frames = []
        for _ in range(500):
            w.step()
            frames.append((w.observe(B1).detections, w.observe(R1).detections))
        return w, frames

    sensors._GRIDS.clear()
    cold, cold_frames = run(WorldConfig())  # computes the cells it visits
    warm, warm_frames = run(WorldConfig())  # an equal configuration: finds them computed
    assert warm._camera._grid is cold._camera._grid
    assert warm_frames == cold_frames and warm.digest() == cold.digest()
    other, _ = run(WorldConfig(camera=CameraConfig(feature_max_range_m=4.0)))
    assert other._camera._grid is not cold._camera._grid
