"""Booster's node types on our services: commands, statuses, decisions, hysteresis, halting."""
from __future__ import annotations

import math

import pytest

from soccerbt.nodes.soccer import booster as B
from soccerbt.world.types import Detection, Pose2D

from .helpers import make_node, make_robot, tick, velocity


def test_set_velocity_writes_the_command_clamped_to_the_limits() -> None:
    r = make_robot()
    assert tick(make_node(B.SetVelocity, r, x="0.3", y="-0.1", theta="0.5")) == "SUCCESS"
    assert velocity(r) == pytest.approx((0.3, -0.1, 0.5))
    tick(make_node(B.SetVelocity, r, x="5", y="-5", theta="9"))
    lim = r.ctx.limits
    assert velocity(r) == pytest.approx((lim.max_vx_forward_mps, -lim.max_vy_mps, lim.max_vtheta_radps))
    tick(make_node(B.SetVelocity, r))  # defaults: stand
    assert velocity(r) == (0.0, 0.0, 0.0)


def test_move_head_sets_pan_from_yaw_and_tilt_from_pitch() -> None:
    r = make_robot()
    tick(make_node(B.MoveHead, r, pitch="0.35", yaw="-0.2"))
    assert (r.ctx.command.head_pan_rad, r.ctx.command.head_tilt_rad) == pytest.approx((-0.2, 0.35))


def test_cam_track_ball_points_at_a_seen_ball_and_drifts_to_a_remembered_one() -> None:
    r = make_robot()
    node = make_node(B.CamTrackBall, r)
    tick(node)
    assert (r.ctx.command.head_pan_rad, r.ctx.command.head_tilt_rad) == (0.0, 0.0)  # no ball: no move
    r.scene(Pose2D(), (2.0, 2.0))
    tick(node)
    assert r.ctx.command.head_pan_rad == pytest.approx(math.pi / 4)
    assert r.ctx.command.head_tilt_rad == pytest.approx(math.atan2(1.12, math.hypot(2, 2)))
    r.ctx.set_head(0.0, 0.0)
    r.wait(0.5)  # remembered, not seen: a small step toward it
    tick(node)
    assert 0.0 < r.ctx.command.head_pan_rad < 0.1


def test_cam_find_ball_steps_through_six_poses_one_a_second() -> None:
    r = make_robot()
    node = make_node(B.CamFindBall, r)
    seen = []
    for _ in range(70):
        r.wait(0.1)
        tick(node)
        pose = (round(r.ctx.command.head_tilt_rad, 3), round(r.ctx.command.head_pan_rad, 3))
        if not seen or seen[-1] != pose:
            seen.append(pose)
    assert len(seen) == 7 and seen[0] == seen[6]
    assert {p[0] for p in seen} == {1.0, 0.2} and {p[1] for p in seen} == {1.1, 0.0, -1.1}


def test_cam_fast_scan_runs_through_seven_poses_then_succeeds() -> None:
    r = make_robot()
    node = make_node(B.CamFastScan, r, msecs_interval="300")
    statuses, poses = [], set()
    for _ in range(40):
        statuses.append(tick(node))
        poses.add((r.ctx.command.head_pan_rad, r.ctx.command.head_tilt_rad))
        if statuses[-1] == "SUCCESS":
            break
        r.wait(0.1)
    assert statuses[-1] == "SUCCESS" and set(statuses[:-1]) == {"RUNNING"}
    assert len(poses) == 7
    assert 2.0 <= r.t_s <= 2.8  # seven intervals of 0.3 s (ticks every 0.1 s)


def test_cam_scan_field_sweeps_between_the_yaw_limits() -> None:
    r = make_robot()
    node = make_node(B.CamScanField, r, msec_cycle="4000")
    pans, tilts = [], set()
    for _ in range(40):
        r.wait(0.1)
        tick(node)
        pans.append(r.ctx.command.head_pan_rad)
        tilts.add(r.ctx.command.head_tilt_rad)
    assert min(pans) == pytest.approx(-0.8, abs=0.05) and max(pans) == pytest.approx(0.8, abs=0.05)
    assert tilts == {0.5, 0.2}


def test_stand_still_runs_for_msecs_and_stops_the_robot() -> None:
    r = make_robot()
    r.ctx.set_velocity(0.5, 0.0, 0.0)
    node = make_node(B.StandStill, r, msecs="300")
    assert tick(node) == "RUNNING" and velocity(r) == (0.0, 0.0, 0.0)
    r.wait(0.2)
    assert tick(node) == "RUNNING"
    r.wait(0.15)
    assert tick(node) == "SUCCESS"


def test_turn_on_spot_turns_until_the_odometry_says_so_and_halting_stops() -> None:
    r = make_robot()
    node = make_node(B.TurnOnSpot, r, rad="1.0")
    assert tick(node) == "RUNNING"
    assert velocity(r)[2] > 0.0
    for k in range(1, 5):
        r.see(odometry=Pose2D(0.0, 0.0, 0.2 * k))
        assert tick(node) == "RUNNING"
    r.see(odometry=Pose2D(0.0, 0.0, 0.95))
    assert tick(node) == "SUCCESS" and velocity(r) == (0.0, 0.0, 0.0)
    # towards_ball: turns to the ball's side (right here)
    r2 = make_robot()
    r2.scene(Pose2D(), (1.0, -1.0))
    node2 = make_node(B.TurnOnSpot, r2, rad="3.14", towards_ball="true")
    assert tick(node2) == "RUNNING" and velocity(r2)[2] < 0.0
    node2.halt_node()
    assert velocity(r2) == (0.0, 0.0, 0.0)


def test_turn_on_spot_gives_up_after_5_s() -> None:
    r = make_robot()
    node = make_node(B.TurnOnSpot, r, rad="3.0")
    assert tick(node) == "RUNNING"
    r.wait(5.05)
    assert tick(node) == "SUCCESS"


def test_robot_find_ball_turns_until_the_ball_is_seen() -> None:
    r = make_robot()
    node = make_node(B.RobotFindBall, r, vyaw_limit="0.8")
    assert tick(node) == "RUNNING" and velocity(r)[2] == pytest.approx(-0.8)
    r.scene(Pose2D(), (2.0, 0.5))
    assert tick(node) == "SUCCESS" and velocity(r) == (0.0, 0.0, 0.0)


def test_check_and_stand_up_requests_stand_up_with_retries_unless_penalised() -> None:
    r = make_robot()
    node = make_node(B.CheckAndStandUp, r)
    r.ctx.set_velocity(0.5, 0.0, 0.0)
    r.see(fallen=True)
    r.ctx.begin_tick()
    tick(node)
    assert r.ctx.command.stand_up and velocity(r) == (0.0, 0.0, 0.0)
    r.ctx.begin_tick()
    r.see(fallen=True)
    tick(node)
    assert not r.ctx.command.stand_up  # waits between attempts
    requests = 1
    for _ in range(20):
        r.see(fallen=True, dt_s=1.0)
        r.ctx.begin_tick()
        tick(node)
        requests += r.ctx.command.stand_up
    assert requests == 3  # the first try and two retries
    r.see(fallen=False)
    tick(node)
    assert r.ctx.state.stand_up_attempts == 0
    r.bb["gc_is_under_penalty"] = True
    r.see(fallen=True, dt_s=5.0)
    r.ctx.begin_tick()
    tick(node)
    assert not r.ctx.command.stand_up


@pytest.mark.parametrize("pose,expected_dir", [
    (Pose2D(6.8, 0.0, 0.0), math.pi), (Pose2D(-6.8, 0.0, 0.0), 0.0),
    (Pose2D(0.0, 5.2, 0.0), -math.pi / 2), (Pose2D(0.0, -5.2, math.pi / 2), math.pi / 2)])
def test_go_back_in_field_walks_inward(pose: Pose2D, expected_dir: float) -> None:
    r = make_robot()
    r.see(pose)
    tick(make_node(B.GoBackInField, r))
    vx, vy, _ = velocity(r)
    field_dir = pose.theta_rad + math.atan2(vy, vx)
    assert math.hypot(vx, vy) == pytest.approx(0.4)
    assert math.cos(field_dir - expected_dir) == pytest.approx(1.0)
    r.scene(Pose2D(0.0, 0.0, 0.0))
    tick(make_node(B.GoBackInField, r))
    assert velocity(r) == (0.0, 0.0, 0.0)


def decide(r, node_cls=B.StrikerDecide, **ports):
    node = make_node(node_cls, r, decision_out="{decision}", decision_in="{decision}", **ports)
    tick(node)
    return r.bb["decision"]


def test_striker_decide_find_assist_chase_with_hysteresis_kick_adjust() -> None:
    r = make_robot()
    r.ctx.config = B.__dict__["SoccerConfig"]() if "SoccerConfig" in B.__dict__ else r.ctx.config
    from dataclasses import replace

    r.ctx.config = replace(r.ctx.config, enable_auto_visual_kick=False)
    assert decide(r) == "find"
    r.scene(Pose2D(0.0, 0.0, 0.0), (3.0, 0.0))
    r.bb["is_lead"] = False
    assert decide(r) == "assist"
    r.bb["is_lead"] = True
    assert decide(r) == "chase"
    r.scene(Pose2D(2.05, 0.0, 0.0), (0.95, 0.0))  # inside the threshold, but we were chasing
    assert decide(r) == "chase"
    r.bb["decision"] = "adjust"
    assert decide(r) == "kick"  # close, in front, facing the goal through the ball
    r.ctx.state.kick_type = "cross"
    assert decide(r) == "cross"
    r.ctx.state.kick_type = "shoot"
    # ball close but the robot-to-ball direction misses the goal: adjust
    r.scene(Pose2D(2.0, 0.0, math.pi / 2), (0.8, 0.0))
    r.ctx.state.kick_dir_rad = math.atan2(-2.8, 4.0)
    r.bb["decision"] = "adjust"
    assert decide(r) == "adjust"


def test_striker_decide_auto_visual_kick_when_enabled_and_lead() -> None:
    r = make_robot()
    r.scene(Pose2D(0.0, 0.0, 0.0), (2.0, 0.2))
    assert r.ctx.config.enable_auto_visual_kick
    assert decide(r) == "auto_visual_kick"
    r.scene(Pose2D(0.0, 0.0, 0.0), (1.0, 3.0))  # too far off the heading
    assert decide(r) == "chase"


def test_goalie_decide_retreat_with_hysteresis_chase_kick_adjust() -> None:
    r = make_robot(1, "goal_keeper")
    assert decide(r, B.GoalieDecide) == "find"
    r.scene(Pose2D(-6.0, 0.0, 0.0), (6.5, 0.0))  # ball at x=0.5: the other half
    assert decide(r, B.GoalieDecide) == "retreat"
    r.scene(Pose2D(-6.0, 0.0, 0.0), (5.5, 0.0))  # x=-0.5: still retreat (hysteresis 1 m)
    assert decide(r, B.GoalieDecide) == "retreat"
    r.scene(Pose2D(-6.0, 0.0, 0.0), (4.5, 0.0))  # x=-1.5
    assert decide(r, B.GoalieDecide, chase_threshold="3.0") == "chase"
    r.scene(Pose2D(-6.0, 0.0, 0.0), (1.0, 0.5))
    assert decide(r, B.GoalieDecide, chase_threshold="3.0") == "kick"
    r.scene(Pose2D(-6.0, 0.0, 0.0), (-0.3, 0.5))  # the ball behind the keeper
    assert decide(r, B.GoalieDecide, chase_threshold="3.0") == "adjust"


def test_chase_walks_behind_the_ball_or_circles_round_it() -> None:
    r = make_robot()
    r.ctx.state.kick_dir_rad = 0.0
    r.scene(Pose2D(0.0, 0.0, 0.0), (2.0, 0.0))
    tick(make_node(B.Chase, r, vx_limit="0.9", vy_limit="0.2", vtheta_limit="1.0", dist="0.1", safe_dist="0.5"))
    vx, vy, vth = velocity(r)
    assert vx == pytest.approx(0.9, abs=0.05) and vy == 0.0 and abs(vth) < 0.05
    # on the wrong side of the ball: the target is beside it, so the robot turns away from it
    r2 = make_robot()
    r2.scene(Pose2D(3.0, 0.0, math.pi), (1.0, 0.0))  # ball at x=2, robot beyond it facing our goal
    tick(make_node(B.Chase, r2, safe_dist="0.5"))
    vx2, _vy2, vth2 = velocity(r2)
    assert abs(vth2) > 0.3 and vx2 < 0.6


def test_simple_chase_stops_inside_stop_dist_and_without_a_ball() -> None:
    r = make_robot()
    node = make_node(B.SimpleChase, r, stop_dist="0.5", vx_limit="1.5", vy_limit="0.1")
    r.ctx.set_velocity(0.3, 0.0, 0.0)
    tick(node)
    assert velocity(r) == (0.0, 0.0, 0.0)
    r.scene(Pose2D(), (2.0, 0.0))
    tick(node)
    assert velocity(r)[0] > 1.0
    r.scene(Pose2D(), (0.4, 0.2))
    tick(node)
    vx, vy, vth = velocity(r)
    assert (vx, vy) == (0.0, 0.0) and vth > 0.0


def test_adjust_moves_tangentially_around_the_ball() -> None:
    r = make_robot()
    r.ctx.state.kick_dir_rad = 0.0
    # ball 0.5 m to the left of a robot that faces it; the kick goes along +x
    r.scene(Pose2D(1.0, -0.5, math.pi / 2), (0.5, 0.0))
    tick(make_node(B.Adjust, r, turn_threshold="0.5", range="0.4", vx_limit="0.7", vy_limit="0.6",
                   vtheta_limit="1.5", vtheta_factor="1.5", tangential_speed_far="0.7", tangential_speed_near="0.15"))
    vx, vy, _ = velocity(r)
    # robot-to-ball points +y, the kick +x: it must move toward -x (behind the ball): robot frame +y
    assert vy > 0.05


def test_kick_walks_into_the_ball_then_ends_and_halting_stops() -> None:
    r = make_robot()
    r.scene(Pose2D(), (0.5, 0.0))
    node = make_node(B.Kick, r, speed_limit="0.8", min_msec_kick="500")
    assert tick(node) == "RUNNING"
    assert velocity(r) == pytest.approx((0.5, 0.0, 0.0))
    statuses = []
    for _ in range(200):
        r.scene(Pose2D(), (0.5, 0.0))
        statuses.append(tick(node))
        if statuses[-1] != "RUNNING":
            break
    assert statuses[-1] == "SUCCESS" and velocity(r) == (0.0, 0.0, 0.0)
    assert 1.0 < r.t_s < 1.3  # 0.5 s plus 0.5 m at 0.8 m/s
    assert max(statuses.count("RUNNING"), 1) > 50
    node2 = make_node(B.Kick, r)
    assert tick(node2) == "RUNNING"
    node2.halt_node()
    assert velocity(r) == (0.0, 0.0, 0.0)


def test_kick_ends_early_when_the_ball_moved_away() -> None:
    r = make_robot()
    r.scene(Pose2D(), (0.5, 0.0))
    node = make_node(B.Kick, r)
    assert tick(node) == "RUNNING"
    r.scene(Pose2D(), (0.9, 0.0))
    r.scene(Pose2D(), (0.9, 0.0))
    assert tick(node) == "SUCCESS"


def test_rl_vision_kick_runs_until_the_ball_is_lost_and_stops_on_halt() -> None:
    r = make_robot()
    r.scene(Pose2D(), (1.0, 0.0))
    node = make_node(B.RLVisionKick, r)
    assert tick(node) == "RUNNING" and velocity(r) == (0.0, 0.0, 0.0)
    for _ in range(60):
        r.scene(Pose2D(), (1.0, 0.0))
        assert tick(node) == "RUNNING"
    assert velocity(r)[0] > 0.0  # walking at the ball after the deceleration
    r.wait(2.5)  # the ball is forgotten: decelerate, then done
    assert tick(node) == "RUNNING" and velocity(r) == (0.0, 0.0, 0.0)
    r.wait(0.6)
    assert tick(node) == "SUCCESS"
    node2 = make_node(B.RLVisionKick, r)
    r.scene(Pose2D(), (1.0, 0.0))
    tick(node2)
    r.ctx.set_velocity(0.4, 0.0, 0.0)
    node2.halt_node()
    assert velocity(r) == (0.0, 0.0, 0.0)


def test_go_to_freekick_position_runs_until_placed() -> None:
    r = make_robot()
    r.ctx.state.kick_dir_rad = 0.0
    node = make_node(B.GoToFreekickPosition, r, side="attack")
    r.scene(Pose2D(0.0, 0.5, 0.0), (2.0, -0.5))  # ball at (2, 0): target (1.3, 0)
    assert tick(node) == "RUNNING"
    assert velocity(r)[0] > 0.0 and velocity(r)[1] < 0.0
    r.scene(Pose2D(1.35, 0.05, 0.02), (0.65, -0.05))
    assert tick(node) == "SUCCESS" and velocity(r) == (0.0, 0.0, 0.0)
    d = make_node(B.GoToFreekickPosition, r, side="defense")
    r.scene(Pose2D(1.35, 0.05, 0.02), (0.65, -0.05))
    assert tick(d) == "RUNNING"
    d.halt_node()
    assert velocity(r) == (0.0, 0.0, 0.0)


def test_go_to_ready_position_targets_by_role_and_kickoff() -> None:
    # standing exactly at the target: no motion; elsewhere: walking toward it
    for role, kickoff, target in (("striker", True, (-2.0, 0.0)), ("striker", False, (-3.0, 0.0)),
                                  ("goal_keeper", False, (-6.0, 0.0))):
        r = make_robot(2 if role == "striker" else 1, role)
        r.bb["gc_is_kickoff_side"] = kickoff
        r.scene(Pose2D(target[0], target[1], 0.0))
        r.ctx.set_velocity(0.3, 0.0, 0.0)
        tick(make_node(B.GoToReadyPosition, r))
        assert velocity(r) == (0.0, 0.0, 0.0), role
        r.scene(Pose2D(target[0] - 3.0, target[1], 0.0))
        tick(make_node(B.GoToReadyPosition, r))
        assert velocity(r)[0] > 0.0, role


def test_go_to_goal_blocking_position_stands_on_the_ball_goal_line() -> None:
    r = make_robot(1, "goal_keeper")
    # ball at (-2, 2): target x = -7 + 2.5 = -4.5, y = 2 * 2.5 / 5 = 1.0
    r.scene(Pose2D(-4.5, 1.0, math.atan2(1.0, 2.5)), (math.hypot(2.5, 1.0), 0.0))
    tick(make_node(B.GoToGoalBlockingPosition, r))
    assert velocity(r) == (0.0, 0.0, 0.0)
    r.scene(Pose2D(-4.5, -1.0, 0.0), (2.5, 3.0))
    tick(make_node(B.GoToGoalBlockingPosition, r, vx_limit="0.5", vy_limit="0.5"))
    assert velocity(r)[1] > 0.0


def test_self_locate_family_calls_the_localizer_rate_limited() -> None:
    r = make_robot()
    node = make_node(B.SelfLocate2T, r, msecs_interval="300", max_dist="3.0", max_drift="2.0")
    lm = (Detection("T", 2.0, 1.0), Detection("T", 2.0, -1.0))
    r.scene(Pose2D(), landmarks=lm)
    tick(node)
    r.scene(Pose2D(), landmarks=lm, dt_s=0.1)
    tick(node)
    calls = [c for c in r.loc.calls if c[0] == "relocalize_from"]
    assert calls == [("relocalize_from", "2T", 2, 3.0, 2.0, True)]
    assert r.bb["odom_calibrated"] is True
    r.scene(Pose2D(), landmarks=lm, dt_s=0.25)
    tick(node)
    assert len([c for c in r.loc.calls if c[0] == "relocalize_from"]) == 2
    tick(make_node(B.SelfLocate, r, mode="trust_direction"))
    assert ("trust_direction",) in r.loc.calls
    tick(make_node(B.CalibrateOdom, r, x="1", y="2", theta="0.5"))
    assert r.loc.pose == Pose2D(1.0, 2.0, 0.5)


# --- Booster's 2026 branch ------------------------------------------------------------------


def test_go_to_freekick_position_reports_its_target_to_the_local_freekick_phase() -> None:
    r = make_robot()
    node = make_node(B.GoToFreekickPosition, r, side="attack")
    r.scene(Pose2D(0.0, 0.5, 0.0), (2.0, -0.5))  # ball at (2, 0): target (1.3, 0)
    assert tick(node) == "RUNNING"
    assert r.bb["local_freekick_target_valid"] is True
    assert r.bb["local_freekick_target_error"] == pytest.approx(math.hypot(1.3, 0.5), abs=0.02)
    r.scene(Pose2D(1.35, 0.05, 0.02), (0.65, -0.05))
    assert tick(node) == "SUCCESS"
    assert r.bb["local_freekick_target_valid"] is True and r.bb["local_freekick_target_error"] < 0.2


def test_go_to_freekick_position_defends_the_opponents_goal_kick_without_a_ball() -> None:
    r = make_robot()
    r.bb["gc_real_game_sub_state"] = "GOAL_KICK"
    r.bb["gc_is_sub_state_kickoff_side"] = False
    r.scene(Pose2D(-2.0, 0.0, 0.0), None)
    node = make_node(B.GoToFreekickPosition, r, side="defense")
    assert tick(node) == "RUNNING"
    # the ball taken on the opponents' goal-area line: a fresh target 3 m from it toward our goal
    assert r.bb["local_freekick_target_valid"] is True
    assert velocity(r)[0] > 0.0
    r2 = make_robot()
    r2.scene(Pose2D(-2.0, 0.0, 0.0), None)  # not a goal kick: no ball, no valid target
    tick(make_node(B.GoToFreekickPosition, r2, side="defense"))
    assert r2.bb["local_freekick_target_valid"] is False


def test_robocup_walk_leaves_the_visual_kick_and_succeeds() -> None:
    r = make_robot()
    r.ctx.state.in_visual_kick = True
    assert tick(make_node(B.RobocupWalk, r)) == "SUCCESS"
    assert r.ctx.state.in_visual_kick is False


def test_go_to_freekick_position_defaults_follow_the_version() -> None:
    from soccerbt.nodes.soccer.versions import VERSION_DEFAULTS

    r = make_robot()
    assert make_node(B.GoToFreekickPosition, r).get_input("attack_dist") == pytest.approx(0.7)
    assert make_node(B.GoToFreekickPosition2026, r).get_input("attack_dist") == pytest.approx(0.6)
    assert make_node(B.GoToFreekickPosition2026, r).get_input("vx_limit") == pytest.approx(0.7)
    # auto: the context's version first (a tree not read from a file is "main")
    auto = make_node(B.GoToFreekickPositionAuto, r)
    assert auto.booster_version == "main" and auto.get_input("vx_limit") == pytest.approx(1.2)
    r.ctx.booster_version = "2026"
    auto = make_node(B.GoToFreekickPositionAuto, r)
    assert auto.booster_version == "2026" and auto.get_input("attack_dist") == pytest.approx(0.6)
    assert make_node(B.GoToFreekickPositionAuto, r, attack_dist=0.9).get_input("attack_dist") == pytest.approx(0.9)
    assert set(VERSION_DEFAULTS) == {"main", "2026"}


def reason_of(r, node_cls, **ports) -> tuple[str, str]:
    """(decision, reason) of one tick of a decision node while someone records reasons."""
    node = make_node(node_cls, r, decision_out="{decision}", decision_in="{decision}", **ports)
    node.env.reasons = {}
    tick(node)
    return r.bb["decision"], node.env.reasons[node.uid]


def test_booster_decisions_give_the_comparisons_robocup_demo_makes() -> None:
    from dataclasses import replace

    r = make_robot()
    r.ctx.config = replace(r.ctx.config, enable_auto_visual_kick=False)
    assert reason_of(r, B.StrikerDecide) == ("find", "ball unknown -> find: ball_location_known false and "
                                             "tm_ball_pos_reliable false: yes")
    r.scene(Pose2D(0.0, 0.0, 0.0), (3.0, 0.0))
    r.bb["is_lead"] = True
    assert reason_of(r, B.StrikerDecide) == ("chase", "ball unknown -> find: no; auto visual kick -> auto_visual_kick: "
                                             "enable_auto_visual_kick false: no; not the lead -> assist: is_lead "
                                             "true: no; far -> chase: ball_range 3.00 > chase_threshold 1.00: yes")
    r.scene(Pose2D(2.05, 0.0, 0.0), (0.95, 0.0))
    assert reason_of(r, B.StrikerDecide)[1].endswith(
        "far -> chase: ball_range 0.95 > chase_threshold 0.90 (x0.9 while chasing): yes")
    r.bb["decision"] = "adjust"
    decision, why = reason_of(r, B.StrikerDecide)
    assert decision == "kick" and ("far -> chase: ball_range 0.95 <= chase_threshold 1.00: no; aligned and close -> "
                                   "kick: angle good (dir_rb 0.00 in posts") in why and why.endswith(": yes")
    r.scene(Pose2D(2.0, 0.0, math.pi / 2), (0.8, 0.0))
    r.ctx.state.kick_dir_rad = math.atan2(-2.8, 4.0)
    r.bb["decision"] = "adjust"
    decision, why = reason_of(r, B.StrikerDecide)
    assert decision == "adjust" and "aligned and close -> kick: angle not good (dir_rb 1.57 outside posts" in why
    assert "kick dir not reached" in why and why.endswith("otherwise -> adjust")
    keeper = make_robot(1, "goal_keeper")
    keeper.scene(Pose2D(-6.0, 0.0, 0.0), (5.5, 0.0))
    keeper.bb["decision"] = "retreat"
    assert reason_of(keeper, B.GoalieDecide) == ("retreat", "ball unknown -> find: no; ball in the other half -> "
                                                 "retreat: ball_x -0.50 > -1.00 (-1 while retreating): yes")
    keeper.scene(Pose2D(-6.0, 0.0, 0.0), (3.0, 0.0))
    keeper.bb["decision"] = "chase"
    assert reason_of(keeper, B.GoalieDecide) == (
        "chase", "ball unknown -> find: no; ball in the other half -> retreat: ball_x -3.00 <= "
        "0.00: no; far -> chase: ball_range 3.00 > chase_threshold 0.90 (x0.9 while chasing): yes")


def test_calc_kick_dir_blocks_only_in_the_opponents_free_kick_as_robocup_demo() -> None:
    r = make_robot()
    r.scene(Pose2D(-5.0, 0.0, 0.0), (1.0, 0.5))  # ball at (-4, 0.5): deep in the own half
    node = make_node(B.CalcKickDir, r)
    node.env.reasons = {}
    tick(node)
    assert r.ctx.state.kick_type == "shoot"  # Booster's isDefensing: not the ball's position
    assert node.env.reasons[node.uid].startswith("goal opening ") and "; not defending -> shoot dir" in \
        node.env.reasons[node.uid]
    r.bb["gc_game_sub_state_type"] = "FREE_KICK"
    r.bb["gc_is_sub_state_kickoff_side"] = False
    tick(node)
    assert (
        r.ctx.state.kick_type == "block" and "opponents' free kick (defending) -> block" in node.env.reasons[node.uid]
    )


def test_booster_head_nodes_say_where_they_look() -> None:
    r = make_robot()
    track = make_node(B.CamTrackBall, r)
    track.env.reasons = {}
    tick(track)
    assert track.env.reasons[track.uid] == ("ball unknown -> hold the head: ball_location_known false and "
                                            "tm_ball_pos_reliable false: yes")
    r.scene(Pose2D(0.0, 0.0, 0.0), (2.0, 0.5))
    tick(track)
    cmd = r.ctx.command
    assert track.env.reasons[track.uid] == (f"ball unknown -> hold the head: no; ball detected -> look at it: ball "
                                            f"at (2.00, 0.50): yaw {cmd.head_pan_rad:.2f} pitch "
                                            f"{cmd.head_tilt_rad:.2f}: yes")
    scan = make_node(B.CamFastScan, r, msecs_interval="300")
    scan.env.reasons = {}
    tick(scan)
    assert scan.env.reasons[scan.uid] == "pose 1 of 7: yaw 1.10 pitch 0.80"
