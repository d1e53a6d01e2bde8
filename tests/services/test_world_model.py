"""WorldModel: ball memory and timeout, frames, ball_out, the ball belief's robustness to false
detections, obstacles, teammates' ball, wait_for_opponent_kickoff and penalty edges."""
from __future__ import annotations

import math

import numpy as np
import pytest

from soccerbt.services.world_model import TeammateInfo, WorldModel
from soccerbt.world.field import Field
from soccerbt.world.types import BALL, ROBOT, Detection, Observations, Pose2D, Team

_ORIGIN = Pose2D()


def obs(
    t_s: float, detections=(), odometry: Pose2D = _ORIGIN, camera: bool = True, fallen: bool = False
) -> Observations:
    return Observations(t_s=t_s, camera_frame=camera, detections=tuple(detections), odometry=odometry,
                        imu_yaw_rad=odometry.theta_rad, fallen=fallen, head_pan_rad=0.0, head_tilt_rad=0.0)


class FakeLocalizer:
    def __init__(self, pose: Pose2D, confidence: float = 0.9) -> None:
        self.pose = pose
        self._confidence = confidence

    def estimate(self) -> Pose2D:
        return self.pose

    def confidence(self) -> float:
        return self._confidence


def ball(x: float, y: float) -> Detection:
    return Detection(BALL, x, y, 0.9)


@pytest.fixture
def wm() -> WorldModel:
    return WorldModel(Field.adult_size(), Team.BLUE)


FRAME_S = 1.0 / 30.0  # the camera's frame period


def see_ball(wm: WorldModel, loc, t_s: float, x: float, y: float, frames: int = 3, **kw) -> None:
    """The ball seen at (x, y) (robot frame) in ``frames`` camera frames, the last at ``t_s``:
    enough to start a track (a ball never seen before is confirmed by three sightings)."""
    for k in range(frames - 1, -1, -1):
        t = round(t_s - k * FRAME_S, 6)
        wm.update(obs(t, [ball(x, y)], **kw), loc, t)


def test_ball_in_field_and_robot_frames(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D(-2.0, 1.0, math.pi / 2))
    see_ball(wm, loc, 0.0, 1.0, 0.5)
    assert wm.ball_location_known
    assert wm.ball_robot == pytest.approx((1.0, 0.5))
    assert wm.ball_field == pytest.approx((-2.5, 2.0))
    assert wm.ball_distance_m == pytest.approx(math.hypot(1.0, 0.5))
    assert wm.ball_bearing_rad == pytest.approx(math.atan2(0.5, 1.0))


def test_ball_memory_follows_odometry_and_times_out_after_2_s(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D(0.0, 0.0, 0.0))
    see_ball(wm, loc, 0.0, 2.0, 0.0)  # last seen at 0 s
    # the robot walks 1 m forward without seeing the ball: it stays put on the ground
    loc.pose = Pose2D(1.0, 0.0, 0.0)
    wm.update(obs(1.0, [], odometry=Pose2D(1.0, 0.0, 0.0)), loc, 1.0)
    assert wm.ball_robot == pytest.approx((1.0, 0.0))
    assert wm.ball_field == pytest.approx((2.0, 0.0))
    wm.update(obs(2.0, [], odometry=Pose2D(1.0, 0.0, 0.0)), loc, 2.0)
    assert wm.ball_location_known  # exactly 2 s: still known
    wm.update(obs(2.01, [], odometry=Pose2D(1.0, 0.0, 0.0)), loc, 2.01)
    assert not wm.ball_location_known
    assert wm.ball_age_s == pytest.approx(2.01)


def test_single_outlier_detection_is_ignored_but_a_confirmed_jump_is_taken(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D())
    see_ball(wm, loc, 0.0, 1.0, 0.0)
    wm.update(obs(0.033, [ball(4.0, 2.0)]), loc, 0.033)
    assert wm.ball_robot == pytest.approx((1.0, 0.0))
    wm.update(obs(0.066, [ball(4.0, 2.0)]), loc, 0.066)
    assert wm.ball_robot == pytest.approx((1.0, 0.0))  # two agreeing frames are not enough yet
    wm.update(obs(0.1, [ball(4.0, 2.0)]), loc, 0.1)
    assert wm.ball_robot == pytest.approx((4.0, 2.0))


def test_without_robust_ball_one_agreeing_frame_confirms_a_jump() -> None:
    """The model before the robust ball belief (``robust_ball=False``, kept for comparison)."""
    wm = WorldModel(Field.adult_size(), Team.BLUE, robust_ball=False)
    loc = FakeLocalizer(Pose2D())
    wm.update(obs(0.0, [ball(1.0, 0.0)]), loc, 0.0)
    assert wm.ball_location_known  # one sighting makes a track
    wm.update(obs(0.033, [ball(4.0, 2.0)]), loc, 0.033)
    assert wm.ball_robot == pytest.approx((1.0, 0.0))
    wm.update(obs(0.066, [ball(4.0, 2.0)]), loc, 0.066)
    assert wm.ball_robot == pytest.approx((4.0, 2.0))
    # and a single sighting after 0.5 s without the ball is taken at once, even 7 m away
    wm.update(obs(0.7, [ball(1.0, -4.0)]), loc, 0.7)
    assert wm.ball_robot == pytest.approx((1.0, -4.0))


# --- the ball belief and false detections ------------------------------------------------------


@pytest.mark.parametrize("unseen_s", [0.1, 1.0, 1.9])
def test_an_isolated_false_detection_7_m_away_does_not_move_the_belief(wm: WorldModel, unseen_s: float) -> None:
    # the ball 3 m ahead and to the right; a false ball 7.2 m from it, once, whether the ball
    # was seen just before or not for a while (it is still known: the timeout is 2 s)
    loc = FakeLocalizer(Pose2D(-2.0, 0.0, 0.0))
    see_ball(wm, loc, 1.0, 1.0, -3.0)
    t = round(1.0 + unseen_s, 6)
    wm.update(obs(t, [Detection(BALL, 5.0, 3.0, 0.4)]), loc, t)
    assert wm.ball_location_known
    assert wm.ball_robot == pytest.approx((1.0, -3.0))
    assert wm.ball_field == pytest.approx((-1.0, -3.0))
    assert wm.ball_velocity_field == (0.0, 0.0)
    assert wm.ball_age_s == pytest.approx(unseen_s)  # the false ball is no sighting of the ball
    t = round(t + FRAME_S, 6)
    wm.update(obs(t, [ball(1.0, -3.0)]), loc, t)  # the ball again: the track goes on
    assert wm.ball_robot == pytest.approx((1.0, -3.0)) and wm.ball_age_s == 0.0


def test_false_detections_make_no_ball_known_when_none_is(wm: WorldModel) -> None:
    """A searching robot sees a false ball now and then, each somewhere else: none is taken."""
    loc = FakeLocalizer(Pose2D())
    spots = [(5.0, 3.0), (2.0, -1.5), (4.0, 0.5), (1.0, 2.0), (5.5, -2.5), (3.0, 1.8)]
    for k, (x, y) in enumerate(spots):
        t = round(0.2 * k, 6)
        wm.update(obs(t, [Detection(BALL, x, y, 0.4)]), loc, t)
        assert not wm.ball_location_known and wm.ball_field is None


def test_a_ball_seen_with_noise_misses_and_false_detections_is_tracked_within_1_m(wm: WorldModel) -> None:
    """Seeded: the real ball, rolling slowly, in view one second out of two (the head scans),
    then seen in 70 % of the frames with 5 % range noise; a false ball anywhere in view but
    more than 2.5 m from the ball (nearer, it passes for a noisy sighting of it) in 5 % of all
    frames (five times the simulated camera's rate), as confident as the real one. The belief
    never strays 1 m from the ball."""
    rng = np.random.default_rng(7)
    loc = FakeLocalizer(Pose2D())
    worst = 0.0
    for k in range(300):  # 10 s at 30 Hz
        t = round(k * FRAME_S, 6)
        bx, by = 3.0 + 0.1 * t, -1.0 + 0.15 * t  # rolling at 0.18 m/s
        dets = []
        if int(t) % 2 == 0 and rng.random() < 0.7:
            n = 1.0 + 0.05 * rng.standard_normal()
            dets.append(ball(bx * n, by * n))
        if rng.random() < 0.05:
            r, a = rng.uniform(0.5, 6.0), rng.uniform(-0.8, 0.8)
            fx, fy = r * math.cos(a), r * math.sin(a)
            if math.hypot(fx - bx, fy - by) > 2.5:
                dets.append(Detection(BALL, fx, fy, 0.9))
        wm.update(obs(t, dets), loc, t)
        if wm.ball_location_known:
            worst = max(worst, math.hypot(wm.ball_field[0] - bx, wm.ball_field[1] - by))
    assert wm.ball_location_known and worst < 1.0


@pytest.mark.parametrize("missed", [False, True])
def test_a_ball_seen_consistently_at_a_new_place_is_taken_within_3_frames(wm: WorldModel, missed: bool) -> None:
    # a kick seen late, or the ball rolled while the robot looked away: the ball is 4 m from
    # the track, seen there frame after frame (or with a missed frame in between)
    loc = FakeLocalizer(Pose2D())
    see_ball(wm, loc, 0.0, 1.0, 0.0)
    t, hits = 0.0, 0
    for k in range(1, 5):
        t = round(k * FRAME_S, 6)
        if missed and k == 2:
            wm.update(obs(t), loc, t)
            continue
        wm.update(obs(t, [ball(3.0, 3.0)]), loc, t)
        hits += 1
        if hits < 3:
            assert wm.ball_robot == pytest.approx((1.0, 0.0))
        else:
            break
    assert wm.ball_robot == pytest.approx((3.0, 3.0)) and wm.ball_age_s == 0.0
    assert wm.ball_velocity_field == (0.0, 0.0)  # no velocity across the jump
    # the ball now rolls on from there: tracked, with a velocity
    for k in range(1, 10):
        t2 = round(t + k * FRAME_S, 6)
        wm.update(obs(t2, [ball(3.0 + 0.03 * k, 3.0)]), loc, t2)
    assert wm.ball_robot[0] == pytest.approx(3.27, abs=0.05) and wm.ball_velocity_field[0] > 0.5


def test_the_ball_is_lost_after_the_timeout_false_detections_or_not(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D())
    see_ball(wm, loc, 1.0, 2.0, 0.5)
    spots = [(5.0, -2.0), (1.5, 2.5), (4.0, 1.0)]
    t = 1.0
    while t < 3.5:
        t = round(t + 0.1, 6)
        k = int(round(t * 10))
        dets = [Detection(BALL, *spots[k % 3], 0.4)] if k % 4 == 0 else []  # a false ball now and then
        wm.update(obs(t, dets), loc, t)
        if t <= 3.0 + 1e-9:
            assert wm.ball_location_known and wm.ball_robot == pytest.approx((2.0, 0.5)), t
        else:
            assert not wm.ball_location_known, t
    assert wm.best_ball_field() is None
    # the ball seen again afterwards: known again after three frames
    see_ball(wm, loc, 4.0, 2.5, 0.0)
    assert wm.ball_location_known and wm.ball_robot == pytest.approx((2.5, 0.0))


def test_a_ball_placed_by_the_referee_for_a_set_play_is_reacquired(wm: WorldModel) -> None:
    # the ball went out 2 m ahead on the left; the referee puts it 4.5 m away for the throw-in
    # while the robot looks on: the old place is empty, the new one seen
    loc = FakeLocalizer(Pose2D(2.0, 1.0, 0.0))
    bb: dict = {**gc("PLAY")}
    run_game(wm, loc, 0.0, 1.0, bb, ball_at=lambda t: (2.0, 3.0))
    assert wm.ball_field == pytest.approx((4.0, 4.0))
    bb.update(gc("PLAY", "THROW_IN", set_play_ours=True))
    t = 1.0
    for _ in range(3):
        wm.update(obs(t, [ball(1.0, -1.0)]), loc, t)
        wm.write_blackboard(bb)
        t = round(t + FRAME_S, 6)
    assert wm.ball_field == pytest.approx((3.0, 0.0)) and bb["ball_field"] == pytest.approx((3.0, 0.0))
    assert bb["ball_location_known"] is True and bb["ball_velocity_field"] == (0.0, 0.0)
    # placed while unseen (the robot looked away), found 3 s later: the old belief has expired
    # and the ball at its new place is taken from three sightings
    run_game(wm, loc, t, t + 3.0, bb)
    assert not wm.ball_location_known
    see_ball(wm, loc, t + 3.1, 0.5, 2.0)
    assert wm.ball_location_known and wm.ball_field == pytest.approx((2.5, 3.0))


def test_after_a_penalty_the_ball_is_reacquired_from_scratch(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D())
    bb: dict = {**gc("PLAY", kickoff=True)}
    see_ball(wm, loc, 0.0, 1.0, 0.0)
    wm.update(obs(0.05, [Detection(BALL, 5.0, 2.0, 0.4)]), loc, 0.05)  # a candidate pending
    bb["gc_is_under_penalty"] = True
    wm.write_blackboard(bb)
    assert not wm.ball_location_known
    bb["gc_is_under_penalty"] = False
    wm.write_blackboard(bb)
    loc.pose = Pose2D(-3.0, -4.5, math.pi / 2)  # put back at the touch line
    wm.update(obs(30.0, [Detection(BALL, 5.0, 2.0, 0.4)]), loc, 30.0)  # no old candidate to confirm
    assert not wm.ball_location_known
    see_ball(wm, loc, 30.2, 4.5, 3.0)
    assert wm.ball_field == pytest.approx((-6.0, 0.0))


def test_ball_out_when_wholly_outside_the_lines(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D(6.0, 4.0, 0.0))
    r = wm.field.ball_radius_m
    see_ball(wm, loc, 0.0, 0.0, 0.5 + r - 0.02)  # ball centre at y=4.5+r-0.02
    assert wm.ball_location_known and not wm.ball_out
    wm.update(obs(0.1, [ball(0.0, 0.5 + r + 0.05)]), loc, 0.1)
    wm.update(obs(0.2, [ball(0.0, 0.5 + r + 0.05)]), loc, 0.2)
    assert wm.ball_out
    # a forgotten ball is not out
    wm.update(obs(3.0, []), loc, 3.0)
    assert not wm.ball_out


def test_fallen_robot_ignores_detections(wm: WorldModel) -> None:
    see_ball(wm, FakeLocalizer(Pose2D()), 0.0, 1.0, 0.0, fallen=True)
    assert wm.fallen and not wm.ball_location_known


def test_obstacles_merge_and_are_forgotten(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D(1.0, 0.0, 0.0))
    wm.update(obs(0.0, [Detection(ROBOT, 2.0, 0.0, 0.8, Team.RED)]), loc, 0.0)
    wm.update(obs(0.5, [Detection(ROBOT, 2.2, 0.1, 0.8, None), Detection(ROBOT, 1.0, -3.0, 0.8)]), loc, 0.5)
    assert len(wm.obstacles) == 2
    first = min(wm.obstacles, key=lambda o: o.y_m * -1)
    assert (first.x_m, first.y_m, first.hits, first.team) == (pytest.approx(3.2), pytest.approx(0.1), 2, Team.RED)
    wm.update(obs(1.9, []), loc, 1.9)
    assert len(wm.obstacles) == 2
    wm.update(obs(2.01, []), loc, 2.01)  # both last seen at 0.5 s; memory 1.5 s
    assert wm.obstacles == []


def test_teammates_ball_reliable_while_fresh(wm: WorldModel) -> None:
    wm.update(obs(10.0), FakeLocalizer(Pose2D()), 10.0)
    wm.update_teammates(
        [TeammateInfo(2, t_s=9.8, pose_field=Pose2D(1.0, 1.0), ball_field=(3.0, 1.0), ball_age_s=0.5)], 10.0
    )
    assert wm.tm_ball_pos_reliable and wm.team_ball_field == (3.0, 1.0)
    assert wm.best_ball_field() == (3.0, 1.0)
    assert wm.best_ball_robot() == pytest.approx((3.0, 1.0))
    assert (1.0, 1.0) in wm.obstacle_points()
    # a penalised or unlocalized teammate's ball is not used; an old one neither
    wm.update_teammates([TeammateInfo(2, t_s=10.0, ball_field=(3.0, 1.0), ball_age_s=0.0, penalised=True)], 10.0)
    assert not wm.tm_ball_pos_reliable
    wm.update_teammates([TeammateInfo(3, t_s=10.0, ball_field=(3.0, 1.0), ball_age_s=2.5)], 10.0)
    assert not wm.tm_ball_pos_reliable
    wm.update_teammates([TeammateInfo(3, t_s=10.0, ball_field=(3.0, 1.0), ball_age_s=1.0)], 10.0)
    assert wm.tm_ball_pos_reliable
    wm.update_teammates([], 11.5)  # the ball report has aged beyond 2 s
    assert not wm.tm_ball_pos_reliable


def gc(state="PLAY", sub_type="NONE", kickoff=False, set_play_ours=False, penalised=False, kick_off_team=5):
    return {"gc_game_state": state, "gc_game_sub_state_type": sub_type, "gc_is_kickoff_side": kickoff,
            "gc_is_sub_state_kickoff_side": set_play_ours, "gc_is_under_penalty": penalised,
            "gc_kick_off_team": kick_off_team}


def run_game(wm: WorldModel, loc, t0: float, t1: float, game: dict, ball_at=None) -> None:
    t = t0
    while t < t1 - 1e-9:
        dets = [ball(*ball_at(t))] if ball_at is not None else []
        wm.update(obs(t, dets), loc, t)
        wm.update_game(game)
        t = round(t + 0.1, 6)


def test_opponent_kickoff_waits_until_the_ball_moved(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D(-1.0, 0.0, 0.0))
    run_game(wm, loc, 0.0, 1.0, gc("SET"), ball_at=lambda t: (1.0, 0.0))
    assert not wm.wait_for_opponent_kickoff
    run_game(wm, loc, 1.0, 3.0, gc("PLAY"), ball_at=lambda t: (1.0, 0.0))
    assert wm.wait_for_opponent_kickoff
    # the ball rolls 0.3 m: released after a few consistent sightings
    run_game(wm, loc, 3.0, 3.2, gc("PLAY"), ball_at=lambda t: (1.3, 0.0))
    assert wm.wait_for_opponent_kickoff
    run_game(wm, loc, 3.2, 3.6, gc("PLAY"), ball_at=lambda t: (1.3, 0.0))
    assert not wm.wait_for_opponent_kickoff


def test_a_jump_of_the_pose_estimate_does_not_end_the_kickoff_wait(wm: WorldModel) -> None:
    # the ball lies still 1 m ahead; the localizer then jumps 0.5 m sideways (a relocalization):
    # the ball moves 0.5 m in the field frame but not in the odometry frame
    loc = FakeLocalizer(Pose2D(-1.0, 0.0, 0.0))
    run_game(wm, loc, 0.0, 1.0, gc("SET"), ball_at=lambda t: (1.0, 0.0))
    run_game(wm, loc, 1.0, 2.0, gc("PLAY"), ball_at=lambda t: (1.0, 0.0))
    assert wm.wait_for_opponent_kickoff
    loc.pose = Pose2D(-1.0, 0.5, 0.0)
    run_game(wm, loc, 2.0, 4.0, gc("PLAY"), ball_at=lambda t: (1.0, 0.0))
    assert wm.ball_field == pytest.approx((0.0, 0.5))
    assert wm.wait_for_opponent_kickoff


def test_a_stale_ball_memory_is_not_the_kickoff_wait_reference(wm: WorldModel) -> None:
    # the ball was last seen 3 m away long before the kick-off (the referee has since put it
    # on the centre mark): the first sighting during the wait is the reference
    loc = FakeLocalizer(Pose2D(-1.0, 0.0, 0.0))
    run_game(wm, loc, 0.0, 0.5, gc("SET"), ball_at=lambda t: (3.0, 0.0))
    run_game(wm, loc, 0.5, 3.0, gc("SET"))
    run_game(wm, loc, 3.0, 3.1, gc("PLAY"))
    run_game(wm, loc, 3.1, 5.0, gc("PLAY"), ball_at=lambda t: (1.0, 0.0))
    assert wm.wait_for_opponent_kickoff
    run_game(wm, loc, 5.0, 5.5, gc("PLAY"), ball_at=lambda t: (1.4, 0.0))  # now it rolls
    assert not wm.wait_for_opponent_kickoff


def test_opponent_kickoff_wait_ends_after_10_s(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D(-1.0, 0.0, 0.0))
    run_game(wm, loc, 0.0, 0.5, gc("SET"), ball_at=lambda t: (1.0, 0.0))
    run_game(wm, loc, 0.5, 10.4, gc("PLAY"), ball_at=lambda t: (1.0, 0.0))
    assert wm.wait_for_opponent_kickoff
    run_game(wm, loc, 10.4, 10.7, gc("PLAY"), ball_at=lambda t: (1.0, 0.0))
    assert not wm.wait_for_opponent_kickoff


@pytest.mark.parametrize(
    "game", [gc("PLAY", kickoff=True), gc("PLAY", kick_off_team=128), gc("PLAY", kick_off_team=255)]
)
def test_no_wait_on_our_kickoff_or_a_dropped_ball(wm: WorldModel, game: dict) -> None:
    loc = FakeLocalizer(Pose2D(-1.0, 0.0, 0.0))
    run_game(wm, loc, 0.0, 0.5, {**game, "gc_game_state": "SET"})
    run_game(wm, loc, 0.5, 1.0, game)
    assert not wm.wait_for_opponent_kickoff


def test_opponent_free_kick_waits_through_it_and_10_s_after(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D(-1.0, 0.0, 0.0))
    run_game(wm, loc, 0.0, 1.0, gc("PLAY", kickoff=True), ball_at=lambda t: (1.0, 0.0))
    assert not wm.wait_for_opponent_kickoff
    run_game(wm, loc, 1.0, 20.0, gc("PLAY", "FREE_KICK"), ball_at=lambda t: (2.0, 1.0))
    assert wm.wait_for_opponent_kickoff  # longer than 10 s, but still their set piece
    run_game(wm, loc, 20.0, 29.5, gc("PLAY", kickoff=True), ball_at=lambda t: (2.0, 1.0))
    assert wm.wait_for_opponent_kickoff
    run_game(wm, loc, 29.5, 30.5, gc("PLAY", kickoff=True), ball_at=lambda t: (2.0, 1.0))
    assert not wm.wait_for_opponent_kickoff
    # our own free kick: nobody of ours waits
    run_game(wm, loc, 30.5, 32.0, gc("PLAY", "FREE_KICK", set_play_ours=True), ball_at=lambda t: (2.0, 1.0))
    run_game(wm, loc, 32.0, 33.0, gc("PLAY", kickoff=True), ball_at=lambda t: (2.0, 1.0))
    assert not wm.wait_for_opponent_kickoff


def test_penalty_edge_resets_odom_calibrated_and_ball(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D(), confidence=0.9)
    bb: dict = {**gc("PLAY", kickoff=True)}
    see_ball(wm, loc, 0.0, 1.0, 0.0)
    wm.write_blackboard(bb)
    assert bb["odom_calibrated"] is True and bb["ball_location_known"] is True
    bb["gc_is_under_penalty"] = True
    wm.update(obs(0.01), loc, 0.01)
    wm.write_blackboard(bb)
    assert wm.penalty_started
    assert bb["odom_calibrated"] is False and bb["ball_location_known"] is False and bb["ball_field"] is None
    # confidence staying high does not re-calibrate by itself; a drop and a rise does
    wm.update(obs(0.02), loc, 0.02)
    wm.write_blackboard(bb)
    assert bb["odom_calibrated"] is False and not wm.penalty_started
    loc._confidence = 0.1
    wm.update(obs(0.03), loc, 0.03)
    wm.write_blackboard(bb)
    loc._confidence = 0.8
    wm.update(obs(0.04), loc, 0.04)
    wm.write_blackboard(bb)
    assert bb["odom_calibrated"] is True


class CountingDict(dict):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.writes: list[str] = []

    def __setitem__(self, key, value):
        self.writes.append(key)
        super().__setitem__(key, value)


def test_write_blackboard_writes_schema_keys_and_only_changes() -> None:
    from soccerbt.blackboard.schema import SCHEMA, check_value

    wm = WorldModel(Field.adult_size())
    bb = CountingDict(gc("INITIAL"))
    see_ball(wm, FakeLocalizer(Pose2D(1.0, 2.0, 0.5)), 0.0, 1.0, 0.0)
    wm.write_blackboard(bb)
    assert bb["ball_location_known"] is True
    for key in bb.writes:
        assert SCHEMA[key].writer == "world_model"
        check_value(key, bb[key])
    assert bb["robot_x_m"] == 1.0 and bb["robot_pose_field"] == Pose2D(1.0, 2.0, 0.5)
    bb.writes.clear()
    wm.update(obs(0.01, camera=False), FakeLocalizer(Pose2D(1.0, 2.0, 0.5)), 0.01)
    wm.write_blackboard(bb)
    assert sorted(bb.writes) == ["ball_age_s"]  # only the age changed


class CountingLocalizer:
    """Like the particle filter: only estimate() and confidence(), counted."""

    def __init__(self, pose: Pose2D) -> None:
        self.truth = pose
        self.estimates = 0

    def estimate(self) -> Pose2D:
        self.estimates += 1
        return self.truth

    def confidence(self) -> float:
        return 0.9


def test_pose_is_read_on_camera_frames_and_carried_by_odometry_between() -> None:
    wm = WorldModel(Field.adult_size())
    loc = CountingLocalizer(Pose2D(1.0, 1.0, math.pi / 2))
    wm.update(obs(0.0, odometry=Pose2D(5.0, 0.0, 0.0)), loc, 0.0)
    assert wm.robot_pose_field == Pose2D(1.0, 1.0, math.pi / 2) and loc.estimates == 1
    # 0.3 m forward and a quarter turn by odometry, no camera frame: the field pose follows
    wm.update(obs(0.01, camera=False, odometry=Pose2D(5.3, 0.0, 0.5)), loc, 0.01)
    assert loc.estimates == 1
    p = wm.robot_pose_field
    assert (p.x_m, p.y_m, p.theta_rad) == pytest.approx((1.0, 1.3, math.pi / 2 + 0.5))
    loc.truth = Pose2D(0.9, 1.35, 2.0)
    wm.update(obs(0.033, odometry=Pose2D(5.3, 0.0, 0.5)), loc, 0.033)
    assert loc.estimates == 2 and wm.robot_pose_field == Pose2D(0.9, 1.35, 2.0)


# --- Booster's 2026 local free-kick phase (soccerbt.services.freekick) --------------------


def test_world_model_writes_the_local_freekick_phase_and_clears_the_nodes_report() -> None:
    from soccerbt.blackboard.schema import default_blackboard_values
    from soccerbt.world.field import Field
    from soccerbt.world.types import Observations, Pose2D

    wm = WorldModel(Field.by_name("adult"))
    bb = default_blackboard_values()
    assert bb["local_freekick_phase"] == "NONE" and bb["local_freekick_use_custom"] is False

    def step(t: float, **gc) -> None:
        bb.update(gc)
        wm.update(Observations(t, False, (), Pose2D(1.0, 1.0, 0.0), 0.0, False, 0.0, 0.0), None, t)
        wm.write_blackboard(bb)

    hsl = dict(gc_game_state="PLAY", gc_game_sub_state_type="FREE_KICK", gc_real_game_sub_state="GOAL_KICK",
               gc_is_sub_state_kickoff_side=True, gc_packet_version=20)
    step(0.0, gc_stopped=True, gc_game_sub_state="STOP", **hsl)
    assert (bb["local_freekick_use_custom"], bb["local_freekick_phase"]) == (True, "WAIT_RESUME")
    step(0.5, gc_stopped=False, gc_game_sub_state="GET_READY")
    assert bb["local_freekick_phase"] == "PLACEMENT"
    t = 0.5
    while t < 1.5:  # standing: the positioning node reports the target reached every tick
        t = round(t + 0.1, 6)
        bb["local_freekick_target_valid"], bb["local_freekick_target_error"] = True, 0.1
        step(t)
        assert bb["local_freekick_target_valid"] is False  # the report is read, then cleared
    assert bb["local_freekick_move_stable"] is True
    assert bb["local_freekick_phase"] == "UNPLACEMENT"
    step(t + 1.0)
    assert bb["local_freekick_phase"] == "EXECUTE"
    step(t + 2.0, gc_game_sub_state_type="NONE", gc_real_game_sub_state="NONE", gc_game_sub_state="NONE")
    assert (bb["local_freekick_use_custom"], bb["local_freekick_phase"]) == (False, "NONE")
