"""Our own soccer nodes: decisions and their hysteresis, kicks, positions that obey the laws."""
from __future__ import annotations

import math
import random

import pytest

from soccerbt.nodes.soccer import soccerbt_nodes as O
from soccerbt.nodes.soccer import soccerbt_positioning as P
from soccerbt.services.kick import KickPlanner
from soccerbt.services.planning import Role, is_legal_kickoff_position, kickoff_positions
from soccerbt.services.world_model import TeammateInfo
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, Team

from .helpers import make_node, make_robot, tick, velocity

FIELD = Field.adult_size()


def decide(r, node) -> str:
    tick(node)
    return r.bb["decision"]


def test_striker_decision_find_approach_kick_with_hold() -> None:
    r = make_robot()
    node = make_node(O.StrikerDecision, r, decision_out="{decision}", kick_hold="0.2")
    assert decide(r, node) == "find"
    r.scene(Pose2D(0.0, 0.0, 0.0), (2.0, 0.0))
    assert decide(r, node) == "approach"
    r.scene(Pose2D(0.0, 0.0, 0.0), (0.35, 0.02))
    assert decide(r, node) == "kick"
    r.scene(Pose2D(0.0, 0.0, 0.0), (0.5, 0.02), dt_s=0.1)  # out of reach, but within the hold
    assert decide(r, node) == "kick"
    r.scene(Pose2D(0.0, 0.0, 0.0), (0.5, 0.02), dt_s=0.15)
    assert decide(r, node) == "approach"
    # in reach but the planned direction is too far off the heading: approach (turn) first
    r.ctx.state.kick_dir_rad = 1.0
    r.scene(Pose2D(0.0, 0.0, 0.0), (0.35, 0.0), dt_s=0.5)
    assert decide(r, node) == "approach"


def test_kick_ball_kicks_relative_to_the_heading_with_the_distance_strength() -> None:
    r = make_robot()
    r.ctx.state.kick_dir_rad = 0.3
    r.ctx.state.kick_type = "shoot"
    r.ctx.memory["kick_target_xy"] = (7.0, 1.0)
    r.scene(Pose2D(4.0, 0.0, 0.1), (0.35, 0.0))
    r.ctx.set_velocity(0.2, 0.0, 0.0)
    tick(make_node(O.KickBall, r))
    kick = r.ctx.command.kick
    assert kick is not None and kick.direction_rad == pytest.approx(0.2) and kick.strength == 1.0
    assert velocity(r) == (0.0, 0.0, 0.0)
    # far from the goal: only as hard as needed to stop about 2 m short
    r2 = make_robot()
    r2.ctx.state.kick_dir_rad = 0.0
    r2.ctx.memory["kick_target_xy"] = (7.0, 0.0)
    r2.scene(Pose2D(-3.35, 0.0, 0.0), (0.35, 0.0))
    tick(make_node(O.KickBall, r2))
    assert r2.ctx.command.kick.strength == pytest.approx(math.sqrt(2 * 0.8 * 8.0) / 4.5)
    # out of reach: no kick
    r3 = make_robot()
    r3.scene(Pose2D(), (0.6, 0.0))
    tick(make_node(O.KickBall, r3))
    assert r3.ctx.command.kick is None


def test_kick_strength() -> None:
    assert O.kick_strength("block", (-5.0, 0.0), (-1.0, 0.0), FIELD) == 1.0
    assert O.kick_strength("shoot", (3.0, 0.0), (7.0, 0.0), FIELD) == 1.0
    assert O.kick_strength("shoot", (-3.0, 0.0), (7.0, 0.0), FIELD) == pytest.approx(math.sqrt(1.6 * 8.0) / 4.5)
    assert O.kick_strength("cross", (6.0, 3.0), (4.9, 0.0), FIELD) == pytest.approx(
        max(0.35, math.sqrt(1.6 * (math.hypot(1.1, 3.0) - 0.5)) / 4.5))


def test_plan_kick_aims_past_the_keeper_and_keeps_its_choice() -> None:
    r = make_robot(kick=KickPlanner(FIELD))
    node = make_node(O.PlanKick, r)
    # ball at (4, 0), an opponent keeper standing left of the goal centre at (6.6, 0.4)
    r.scene(Pose2D(3.0, 0.0, 0.0), (1.0, 0.0), robots=((3.6, 0.4, Team.RED),))
    tick(node)
    d = r.ctx.state.kick_dir_rad
    assert r.ctx.state.kick_type == "shoot" and d < 0.0  # the open side is to the right
    target_y = 4.0 * 0.0 + math.tan(d) * 3.0
    assert -1.3 < target_y < 0.0
    assert r.bb["kick_dir_rad"] == d
    # a few centimetres of ball motion do not change the aim
    r.see(Pose2D(3.0, 0.0, 0.0), (1.02, 0.01), robots=((3.6, 0.4, Team.RED),))
    tick(node)
    assert r.ctx.state.kick_dir_rad == d


def test_plan_kick_never_passes_back_from_the_goal_mouth() -> None:
    r = make_robot(kick=KickPlanner(FIELD))
    # ball right in front of a keeper who fills the goal: the planner would cross backwards
    r.scene(Pose2D(5.7, 0.2, 0.0), (0.5, 0.0), robots=((0.8, -0.2, Team.RED),))
    tick(make_node(O.PlanKick, r))
    assert r.ctx.state.kick_type == "shoot"
    assert math.cos(r.ctx.state.kick_dir_rad) > 0.3


def test_goalkeeper_decision_clears_near_balls_with_hysteresis() -> None:
    r = make_robot(1, "goal_keeper")
    node = make_node(O.GoalkeeperDecision, r, decision_in="{decision}", decision_out="{decision}",
                     clear_distance="2.0")
    assert decide(r, node) == "find"
    r.scene(Pose2D(-6.2, 0.0, 0.0), (1.5, 0.5))  # ball at (-4.7, 0.5): in the area, near
    assert decide(r, node) == "clear"
    r.scene(Pose2D(-6.2, 0.0, 0.0), (2.6, 0.0))  # 2.6 m: beyond 2.0 but within the 1.4x hold
    assert decide(r, node) == "clear"
    r.scene(Pose2D(-6.2, 0.0, 0.0), (3.5, 0.0))  # ball at (-2.7): out of the area
    assert decide(r, node) == "block"
    r.scene(Pose2D(-6.2, 0.0, 0.0), (2.6, 0.0))  # 2.6 m from block: no clear
    assert decide(r, node) == "block"


def roll_ball(r, start: tuple[float, float], velocity: tuple[float, float], frames: int, pose: Pose2D) -> None:
    """Camera frames (30 Hz) of a ball rolling from ``start`` at ``velocity`` (field frame)."""
    r.scene(pose, pose.inverse_transform_point(*start))
    for k in range(1, frames + 1):
        t = k / 30.0
        r.ball_at_field(start[0] + velocity[0] * t, start[1] + velocity[1] * t, pose, dt_s=1.0 / 30.0)


def ticks(r, node, n: int = O.SAVE_ENTER_TICKS) -> None:
    """``n`` ticks 10 ms apart (a save starts once a shot was seen in SAVE_ENTER_TICKS ticks)."""
    for k in range(n):
        if k:
            r.wait(0.01)
        tick(node)


def test_goalkeeper_decision_saves_shots_instead_of_clearing_them() -> None:
    keeper = Pose2D(-6.2, 0.0, 0.0)
    r = make_robot(1, "goal_keeper")
    node = make_node(O.GoalkeeperDecision, r, decision_in="{decision}", decision_out="{decision}",
                     clear_distance="2.0")
    # near and in the area, but rolling at 3 m/s into the goal mouth: meet it, do not walk to it
    roll_ball(r, (-4.0, 0.9), (-3.0, -0.3), 6, keeper)
    assert r.ctx.world_model.ball_velocity_field[0] < -2.0
    assert decide(r, node) != "save"  # one tick's shot may be a spike of the velocity estimate
    ticks(r, node, O.SAVE_ENTER_TICKS - 1)
    assert r.bb["decision"] == "save"
    # the same ball rolling wide of the post (and of the margin) is no shot: clear it
    roll_ball(r, (-4.5, 0.9), (-3.0, 1.5), 6, keeper)
    assert decide(r, node) == "clear"
    # a slow ball that stops short of the goal line is cleared as before
    roll_ball(r, (-4.0, 0.5), (-0.9, 0.0), 6, keeper)
    assert decide(r, node) == "clear"
    # a save needs the keeper's own sightings (the velocity comes from them): a teammate's ball
    # with a shot's velocity left in the world model is blocked, not saved
    r = make_robot(1, "goal_keeper")
    node = make_node(O.GoalkeeperDecision, r, decision_in="{decision}", decision_out="{decision}",
                     clear_distance="2.0")
    r.see(keeper)
    wm = r.ctx.world_model
    wm.team_ball_field, wm.tm_ball_pos_reliable = (-4.0, 0.9), True
    wm.ball_velocity_field = (-3.0, -0.3)
    assert not wm.ball_location_known and O.ball_view(r.ctx).known
    assert decide(r, node) == "block"


def test_goalkeeper_decision_says_why_no_shot_was_saved() -> None:
    """The keeper's reason rules out the higher rules with their values: why a rolling ball was
    no shot to save, then why it cleared (or blocked)."""
    keeper = Pose2D(-6.2, 0.0, 0.0)
    r = make_robot(1, "goal_keeper")
    node = make_node(O.GoalkeeperDecision, r, decision_in="{decision}", decision_out="{decision}",
                     clear_distance="2.0")
    node.env.reasons = {}
    # a slow ball in the area: too slow for a shot, in the area and near: clear
    roll_ball(r, (-4.6, 0.5), (-0.6, 0.0), 6, keeper)
    vx = r.ctx.world_model.ball_velocity_field[0]
    assert decide(r, node) == "clear"
    why = node.env.reasons[node.uid]
    x, y = O.ball_view(r.ctx).field_x_m, O.ball_view(r.ctx).field_y_m
    assert why.startswith(f"ball unknown -> find: no; shot -> save: ball rolling {abs(vx):.2f} m/s, vx {vx:.2f} > "
                          "-save_speed -1.00: no; in the area and near -> clear: ")
    assert why.endswith(f"ball ({x:.2f}, {y:.2f}) in the area + 0.3 m (x < -3.70, |y| < 3.30), ball_range "
                        f"{O.ball_view(r.ctx).range_m:.2f} < clear_distance 2.00: yes")
    # fast but wide of the post: the shot rule says where the ball heads; out of the area: block
    r = make_robot(1, "goal_keeper")
    node = make_node(O.GoalkeeperDecision, r, decision_in="{decision}", decision_out="{decision}",
                     clear_distance="2.0")
    node.env.reasons = {}
    roll_ball(r, (-1.0, 0.0), (-3.0, 2.0), 6, keeper)
    assert decide(r, node) == "block"
    why = node.env.reasons[node.uid]
    assert "shot -> save: ball heads for y " in why and "outside the goal mouth +-1.80: no" in why
    assert "in the area and near -> clear: ball (" in why and why.endswith("otherwise -> block")
    # a real shot, seen in fewer ticks than a save needs: the count is the reason
    r = make_robot(1, "goal_keeper")
    node = make_node(O.GoalkeeperDecision, r, decision_in="{decision}", decision_out="{decision}",
                     clear_distance="2.0")
    node.env.reasons = {}
    roll_ball(r, (-4.0, 0.9), (-3.0, -0.3), 6, keeper)
    assert decide(r, node) == "clear"
    assert f"shot -> save: a shot seen in 1 of {O.SAVE_ENTER_TICKS} consecutive ticks: no" in node.env.reasons[node.uid]
    ticks(r, node, O.SAVE_ENTER_TICKS - 1)
    assert r.bb["decision"] == "save"
    assert node.env.reasons[node.uid].startswith("ball unknown -> find: no; shot -> save: ball rolling ")


def test_shot_failure_agrees_with_the_shot_test() -> None:
    """``shot_failure`` is empty exactly when ``incoming_shot_y`` sees a shot (random balls)."""
    rng = random.Random(7)
    keeper = Pose2D(-6.2, 0.0, 0.0)
    r = make_robot(1, "goal_keeper")
    line_x = -7.0 + 0.8
    shots = 0
    for _ in range(400):
        r.scene(keeper, keeper.inverse_transform_point(rng.uniform(-7.5, 0.0), rng.uniform(-3.0, 3.0)))
        r.ctx.world_model.ball_velocity_field = (rng.uniform(-5.0, 1.0), rng.uniform(-2.0, 2.0))
        ball = O.ball_view(r.ctx)
        for speed, margin, decel in ((1.0, 0.5, 0.8), (0.6, 0.8, 0.0)):
            seen = O.incoming_shot_y(r.ctx, ball, line_x, speed, margin, decel) is not None
            why = O.shot_failure(r.ctx, ball, line_x, speed, "save_speed", margin, decel)
            assert seen == (why == ""), (ball, why)
            shots += seen
    assert 50 < shots < 750  # both verdicts were exercised


def test_goalkeeper_position_steps_sideways_into_the_shot() -> None:
    keeper = Pose2D(-6.2, 0.0, 0.0)
    r = make_robot(1, "goal_keeper")
    node = make_node(O.GoalkeeperPosition, r, dist_to_goalline="0.8")
    # standing on the ball-goal line: with the ball still the keeper holds its place
    r.scene(keeper, keeper.inverse_transform_point(-3.0, 0.0))
    tick(node)
    assert velocity(r)[:2] == pytest.approx((0.0, 0.0), abs=1e-6)
    # the ball rolls from (-3, 0) to cross the keeper's line 0.6 m to the left: step left within
    # SAVE_ENTER_TICKS ticks (30 ms)
    roll_ball(r, (-3.0, 0.0), (-3.0, 0.56), 5, keeper)
    ticks(r, node)
    vx, vy, _vth = velocity(r)
    assert vy == pytest.approx(0.4)  # full sideways speed (the port's vy_limit)
    assert abs(vx) < 0.2


@pytest.mark.parametrize("kicking_off", [True, False])
def test_go_to_kickoff_position_is_legal_for_every_player(kicking_off: bool) -> None:
    for number, role in ((1, "goal_keeper"), (2, "striker"), (3, "supporter")):
        r = make_robot(number, role)
        r.bb["gc_is_kickoff_side"] = kicking_off
        r.ctx.world_model.update_teammates([TeammateInfo(n, t_s=0.0, role=rl) for n, rl in
                                            ((1, "goal_keeper"), (2, "striker"), (3, "supporter")) if n != number], 0.0)
        node = make_node(O.GoToKickoffPosition, r)
        # walk the robot along its own commands from a touch line until it stands
        pose = Pose2D(-3.0, -4.5, math.pi / 2)
        for _ in range(3000):
            r.see(pose)
            tick(node)
            vx, vy, vth = velocity(r)
            if (vx, vy, vth) == (0.0, 0.0, 0.0):
                break
            pose = pose.compose(Pose2D(vx * 0.01, vy * 0.01, vth * 0.01))
        assert velocity(r) == (0.0, 0.0, 0.0), (number, role)
        assert is_legal_kickoff_position(pose, FIELD, kicking_off), (number, role, pose)
        expected = kickoff_positions(FIELD, [Role.STRIKER, Role.SUPPORTER], kicking_off)
        if role == "goal_keeper":
            assert pose.distance_to(-6.5, 0.0) < 0.3
        elif role == "striker":
            want = expected[0] if kicking_off else Pose2D(expected[0].x_m - 0.3, 0.0)
            assert pose.distance_to(want.x_m, want.y_m) < 0.3
        else:
            assert pose.distance_to(expected[1].x_m, expected[1].y_m) < 0.3


def test_kickoff_spot_follows_the_number_not_a_disputed_role() -> None:
    # robot 3 believes it strikes too (roles mid-negotiation): it still takes the supporter spot
    r = make_robot(3, "striker")
    r.ctx.world_model.update_teammates([TeammateInfo(2, t_s=0.0, role="striker"),
                                        TeammateInfo(1, t_s=0.0, role="goal_keeper")], 0.0)
    assert P._field_player_rank(r.ctx) == 1


def test_keep_away_pushes_targets_out_of_the_free_kick_circle() -> None:
    keep = FIELD.free_kick_distance_m + 0.6
    for ball in ((0.0, 0.0), (6.5, 4.3), (-6.8, -4.4), (3.0, 4.5)):
        for target in (Pose2D(ball[0] + 0.3, ball[1] - 0.2), Pose2D(*ball), Pose2D(ball[0] - 1.0, ball[1])):
            out = P._keep_away(target, ball, keep, FIELD)
            assert math.hypot(out.x_m - ball[0], out.y_m - ball[1]) >= keep - 1e-9, (ball, target, out)
            assert FIELD.is_inside_field(out.x_m, out.y_m, 0.29)


def test_free_kick_position_keeps_away_from_the_opponents_ball() -> None:
    r = make_robot()
    r.bb["gc_is_sub_state_kickoff_side"] = False
    node = make_node(O.FreeKickPosition, r)
    pose = Pose2D(2.5, 3.6, 0.0)  # 0.9 m from the ball at a throw-in spot: too close
    for _ in range(2000):
        r.see(pose, pose.inverse_transform_point(3.0, 4.4))
        tick(node)
        vx, vy, vth = velocity(r)
        if (vx, vy, vth) == (0.0, 0.0, 0.0):
            break
        pose = pose.compose(Pose2D(vx * 0.01, vy * 0.01, vth * 0.01))
    assert velocity(r) == (0.0, 0.0, 0.0)
    assert math.hypot(pose.x_m - 3.0, pose.y_m - 4.4) > FIELD.free_kick_distance_m + 0.3
    assert FIELD.is_inside_field(pose.x_m, pose.y_m)


def test_goto_runs_until_arrived_and_stops_when_halted() -> None:
    r = make_robot()
    node = make_node(O.GoTo, r, x="1.0", y="0.0", theta="0.0", tolerance="0.1")
    r.see(Pose2D())
    assert tick(node) == "RUNNING" and velocity(r)[0] > 0.0
    node.halt_node()
    assert velocity(r) == (0.0, 0.0, 0.0)
    r.see(Pose2D(0.95, 0.02, 0.05))
    assert tick(node) == "SUCCESS" and velocity(r) == (0.0, 0.0, 0.0)


def test_head_control_tracks_glances_and_scans() -> None:
    r = make_robot()
    node = make_node(O.HeadControl, r, glance_period="5.0", glance_duration="0.5")
    tick(node)  # no ball: scanning
    first = (r.ctx.command.head_pan_rad, r.ctx.command.head_tilt_rad)
    r.wait(0.7)
    tick(node)
    assert (r.ctx.command.head_pan_rad, r.ctx.command.head_tilt_rad) != first
    r.scene(Pose2D(), (3.0, 1.0))
    tick(node)  # a glance is due at once for a far ball
    assert (r.ctx.command.head_pan_rad, r.ctx.command.head_tilt_rad) == (0.0, 0.25)
    r.see(Pose2D(), (3.0, 1.0), dt_s=0.6)
    tick(node)
    assert r.ctx.command.head_pan_rad == pytest.approx(math.atan2(1.0, 3.0), abs=0.02)
    r.see(Pose2D(), (3.0, 1.0), dt_s=1.0)
    tick(node)  # no new glance before the period
    assert r.ctx.command.head_pan_rad == pytest.approx(math.atan2(1.0, 3.0), abs=0.02)


def test_search_ball_scans_then_turns() -> None:
    r = make_robot()
    node = make_node(O.SearchBall, r, turn_after="2.0", vtheta="0.7")
    tick(node)
    assert velocity(r) == (0.0, 0.0, 0.0)
    for _ in range(21):
        r.wait(0.1)
        tick(node)
    assert abs(velocity(r)[2]) == pytest.approx(0.7)


def test_throw_in_spot_behind_the_ball_stays_on_the_field() -> None:
    ball = (1.43, 4.5)
    spot = P._behind_ball_on_field(ball, -0.85, 0.7, FIELD)  # straight behind lies beyond the line
    assert FIELD.is_inside_field(spot.x_m, spot.y_m, -O.FIELD_KEEP_OUT_M)
    assert math.hypot(spot.x_m - ball[0], spot.y_m - ball[1]) == pytest.approx(0.7)
    assert abs(math.remainder(spot.theta_rad - math.atan2(ball[1] - spot.y_m, ball[0] - spot.x_m), math.tau)) < 1e-9
    inside = P._behind_ball_on_field((0.0, 0.0), 0.3, 0.7, FIELD)
    assert inside.theta_rad == pytest.approx(0.3)


def test_walking_never_heads_further_beyond_the_lines() -> None:
    from soccerbt.nodes.soccer.skills import stay_on_field

    r = make_robot()
    # 0.35 m beyond the left touch line, facing +y: the outward (forward) part is dropped
    vx, vy = stay_on_field(r.ctx, Pose2D(0.0, 4.85, math.pi / 2), 0.5, 0.2)
    assert vx == pytest.approx(0.0, abs=1e-12) and vy == pytest.approx(0.2)
    # walking back in is left alone; inside the field nothing changes
    assert stay_on_field(r.ctx, Pose2D(0.0, 4.85, math.pi / 2), -0.5, 0.0) == pytest.approx((-0.5, 0.0))
    assert stay_on_field(r.ctx, Pose2D(6.0, 4.0, 0.0), 0.5, 0.3) == (0.5, 0.3)


def test_approach_walks_through_a_contested_ball_and_lines_up_a_free_one() -> None:
    r = make_robot()
    r.ctx.state.kick_dir_rad = 0.0
    r.scene(Pose2D(0.0, 0.0, 0.0), (0.8, 0.0))
    tick(make_node(O.ApproachBall, r))
    free_vx = velocity(r)[0]
    assert 0.0 < free_vx <= 0.45  # closing in to the kick stand-off
    r2 = make_robot()
    r2.ctx.state.kick_dir_rad = 0.0
    r2.scene(Pose2D(0.0, 0.0, 0.0), (0.8, 0.0), robots=((1.4, 0.3, Team.RED),))
    tick(make_node(O.ApproachBall, r2))
    assert velocity(r2)[0] == pytest.approx(0.8)
    # a teammate near the ball is no reason to rush
    r3 = make_robot()
    r3.ctx.state.kick_dir_rad = 0.0
    r3.scene(Pose2D(0.0, 0.0, 0.0), (0.8, 0.0), robots=((1.4, 0.3, Team.BLUE),))
    tick(make_node(O.ApproachBall, r3))
    assert velocity(r3)[0] == pytest.approx(free_vx)


def test_free_kick_position_reports_the_kickers_spot_to_the_local_free_kick_phase() -> None:
    # our set play: the leading striker reports its spot behind the ball (valid, its distance);
    # nobody else reports (the phase of the others never reaches EXECUTE)
    for role, lead, ours, reports in (("striker", True, True, True), ("striker", False, True, False),
                                      ("goal_keeper", False, True, False), ("striker", True, False, False)):
        r = make_robot()
        r.bb["gc_is_sub_state_kickoff_side"] = ours
        r.bb["player_role"] = role
        r.bb["is_lead"] = lead
        r.bb["local_freekick_target_valid"] = False
        node = make_node(O.FreeKickPosition, r)
        pose = Pose2D(0.0, 0.0, 0.0)
        r.see(pose, pose.inverse_transform_point(2.0, 1.0))
        tick(node)
        assert bool(r.bb.get("local_freekick_target_valid", False)) is reports, (role, lead, ours)
        if reports:
            assert 0.5 < r.bb["local_freekick_target_error"] < 3.0


def test_striker_decision_hysteresis_and_reasons() -> None:
    r = make_robot()
    node = make_node(O.StrikerDecision, r, decision_out="{decision}")
    node.env.reasons = {}

    def step(ball, dt_s=0.01):
        if ball is None:
            r.wait(dt_s)
        else:
            r.scene(Pose2D(0.0, 0.0, 0.0), ball, dt_s=dt_s)  # exactly there (no smoothing)
        tick(node)
        return r.bb["decision"], node.env.reasons[node.uid]

    # every rule evaluated, in order, with its values and verdict, down to the one that held
    assert step((0.6, 0.0)) == ("approach", "ball unknown -> find: no; in reach -> kick: ball_x 0.60 >= reach 0.41: "
                                "no; kicking, in the reach + kick_margin 0.04 -> kick: not kicking: no; kick_hold -> "
                                "kick: no kick in reach within kick_hold: no; otherwise -> approach")
    decision, why = step((0.35, 0.02))
    assert decision == "kick" and why.startswith("ball unknown -> find: no; in reach -> kick: ball_x 0.35 in "
                                                 "0.29..0.41, |ball_y| 0.02 < 0.10") and why.endswith(": yes")
    for _ in range(30):  # kicking: the ball just outside the reach (0.43 m) keeps the kick, past kick_hold
        decision, why = step((0.43, 0.02))
    assert decision == "kick" and why.startswith("ball unknown -> find: no; in reach -> kick: ball_x 0.43 >= reach "
                                                 "0.41: no; kicking, in the reach + kick_margin 0.04 -> kick: ball_x "
                                                 "0.43 in 0.25..0.45")
    decision, why = step((0.47, 0.02))
    assert decision == "approach" and ("kicking, in the reach + kick_margin 0.04 -> kick: ball_x 0.47 >= reach 0.45: "
                                       "no; kick_hold -> kick: no kick in reach within kick_hold: no; otherwise -> "
                                       "approach") in why
    # a ball lost for less than lost_hold keeps the approach, then the search starts
    r.ctx.world_model.forget_ball()
    r.ctx.world_model.write_blackboard(r.bb)
    assert step(None) == ("approach", "ball lost -> keep approach: ball unknown for 0.01 s < lost_hold 0.30 after "
                          "approach: yes")
    for _ in range(40):
        decision, why = step(None)
    assert decision == "find"
    assert why == ("ball lost -> keep approach: last decision find: no; ball unknown -> find: not seen, no reliable "
                   "team ball: yes")


def test_kick_ball_closes_in_when_nearly_in_reach() -> None:
    r = make_robot()
    r.scene(Pose2D(0.0, 0.0, 0.0), (0.44, 0.0))
    tick(make_node(O.KickBall, r))
    assert r.ctx.command.kick is None and velocity(r)[0] > 0.0  # steps toward the ball, no kick yet
    r2 = make_robot()
    r2.scene(Pose2D(0.0, 0.0, 0.0), (0.44, 0.0))
    tick(make_node(O.KickBall, r2, close_in="0.0"))
    assert r2.ctx.command.kick is None and velocity(r2) == (0.0, 0.0, 0.0)


def test_head_control_says_where_it_looks_and_why() -> None:
    r = make_robot()
    node = make_node(O.HeadControl, r, glance_period="5.0", glance_duration="0.5", close_ball="1.5")
    node.env.reasons = {}
    tick(node)  # no ball: the scan
    assert node.env.reasons[node.uid] == ("ball unknown -> scan: 0.0 s into the scan: pose 1 of 6 (0.6 s each): "
                                          "pan 1.00 tilt 0.90: yes")
    r.scene(Pose2D(0.0, 0.0, 0.0), (3.0, 0.0))  # far: the first glance is due at once
    tick(node)
    assert node.env.reasons[node.uid] == ("ball unknown -> scan: no; far and a glance due -> glance at the field "
                                          "(landmarks): ball_range 3.00 > close_ball 1.50, glance 0.50 s more: pan "
                                          "0.00 tilt 0.25: yes")
    assert r.ctx.command.head_tilt_rad == pytest.approx(0.25)
    r.scene(Pose2D(0.0, 0.0, 0.0), (1.0, 0.0))  # close: track, and the reason says why no glance
    tick(node)
    why = node.env.reasons[node.uid]
    assert why.startswith("ball unknown -> scan: no; far and a glance due -> glance at the field (landmarks): "
                          "ball_range 1.00 <= close_ball 1.50: no; otherwise -> track the ball at (1.00, 0.00) seen: ")
    assert why.endswith(f"pan {r.ctx.command.head_pan_rad:.2f} tilt {r.ctx.command.head_tilt_rad:.2f}")
