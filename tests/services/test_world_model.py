"""WorldModel: ball memory and timeout, frames, ball_out, obstacles, teammates' ball,
wait_for_opponent_kickoff and penalty edges."""
from __future__ import annotations

import math

import pytest

from soccerbt.services.world_model import TeammateInfo, WorldModel
from soccerbt.world.field import Field
from soccerbt.world.types import BALL, ROBOT, Detection, Observations, Pose2D, Team


def obs(t_s: float, detections=(), odometry: Pose2D = Pose2D(), camera: bool = True, fallen: bool = False) -> Observations:
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


def test_ball_in_field_and_robot_frames(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D(-2.0, 1.0, math.pi / 2))
    wm.update(obs(0.0, [ball(1.0, 0.5)]), loc, 0.0)
    assert wm.ball_location_known
    assert wm.ball_robot == pytest.approx((1.0, 0.5))
    assert wm.ball_field == pytest.approx((-2.5, 2.0))
    assert wm.ball_distance_m == pytest.approx(math.hypot(1.0, 0.5))
    assert wm.ball_bearing_rad == pytest.approx(math.atan2(0.5, 1.0))


def test_ball_memory_follows_odometry_and_times_out_after_2_s(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D(0.0, 0.0, 0.0))
    wm.update(obs(0.0, [ball(2.0, 0.0)]), loc, 0.0)
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
    wm.update(obs(0.0, [ball(1.0, 0.0)]), loc, 0.0)
    wm.update(obs(0.033, [ball(4.0, 2.0)]), loc, 0.033)
    assert wm.ball_robot == pytest.approx((1.0, 0.0))
    wm.update(obs(0.066, [ball(4.0, 2.0)]), loc, 0.066)
    assert wm.ball_robot == pytest.approx((4.0, 2.0))


def test_ball_out_when_wholly_outside_the_lines(wm: WorldModel) -> None:
    loc = FakeLocalizer(Pose2D(6.0, 4.0, 0.0))
    r = wm.field.ball_radius_m
    wm.update(obs(0.0, [ball(0.0, 0.5 + r - 0.02)]), loc, 0.0)  # ball centre at y=4.5+r-0.02
    assert not wm.ball_out
    wm.update(obs(0.1, [ball(0.0, 0.5 + r + 0.05)]), loc, 0.1)
    wm.update(obs(0.2, [ball(0.0, 0.5 + r + 0.05)]), loc, 0.2)
    assert wm.ball_out
    # a forgotten ball is not out
    wm.update(obs(3.0, []), loc, 3.0)
    assert not wm.ball_out


def test_fallen_robot_ignores_detections(wm: WorldModel) -> None:
    wm.update(obs(0.0, [ball(1.0, 0.0)], fallen=True), FakeLocalizer(Pose2D()), 0.0)
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
    wm.update_teammates([TeammateInfo(2, t_s=9.8, pose_field=Pose2D(1.0, 1.0), ball_field=(3.0, 1.0), ball_age_s=0.5)], 10.0)
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


@pytest.mark.parametrize("game", [gc("PLAY", kickoff=True), gc("PLAY", kick_off_team=128), gc("PLAY", kick_off_team=255)])
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
    wm.update(obs(0.0, [ball(1.0, 0.0)]), loc, 0.0)
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
    wm.update(obs(0.0, [ball(1.0, 0.0)]), FakeLocalizer(Pose2D(1.0, 2.0, 0.5)), 0.0)
    wm.write_blackboard(bb)
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
