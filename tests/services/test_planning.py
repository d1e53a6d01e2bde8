"""Roles, position assignment, set-piece positions and the simulated team link."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from soccerbt.services.planning import (
    Role,
    RoleAssigner,
    RolePolicy,
    TeamLink,
    TeamMessage,
    assign_positions,
    cost_to_ball,
    free_kick_position,
    goalkeeper_blocking_position,
    goalkeeper_save_position,
    is_legal_kickoff_position,
    kickoff_positions,
    shot_crossing_y,
    supporter_targets,
)
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, RobotId, Team

FIELD = Field.adult_size()
BLUE = Team.BLUE


def msg(number: int, cost: float, t: float, role: Role = Role.SUPPORTER, pose=None, active=True,
        team=BLUE) -> TeamMessage:
    return TeamMessage(RobotId(team, number), pose or Pose2D(-1.0 * number, 0.0, 0.0), (0.0, 0.0), 0.1,
                       cost, role, t, active)


def test_goalkeeper_is_designated_and_cheapest_field_player_strikes():
    roles = RoleAssigner(FIELD).assign([msg(1, 0.5, 0.0), msg(2, 4.0, 0.0), msg(3, 2.0, 0.0)], 0.0)
    assert roles == {1: Role.GOALKEEPER, 2: Role.SUPPORTER, 3: Role.STRIKER}
    assert isinstance(RoleAssigner(FIELD), RolePolicy)


def test_striker_hysteresis_keeps_roles_under_noise_and_switches_on_a_clear_change():
    rng = np.random.default_rng(1)
    ra = RoleAssigner(FIELD)
    strikers = []
    for k in range(200):
        t = k * 0.1
        # robot 2's true cost falls from 6 s to 2 s, robot 3 stays at 4 s; both noisy
        c2 = 6.0 - 4.0 * k / 199 + rng.normal(0, 0.3)
        c3 = 4.0 + rng.normal(0, 0.3)
        roles = ra.assign([msg(1, 9.0, t), msg(2, c2, t), msg(3, c3, t)], t)
        strikers.append(next(n for n, r in roles.items() if r is Role.STRIKER))
    switches = sum(1 for a, b in zip(strikers, strikers[1:], strict=False) if a != b)
    assert strikers[0] == 3 and strikers[-1] == 2
    assert switches == 1
    # the switch happened only once 2 was clearly cheaper (nominal costs cross at k = 100)
    first_2 = strikers.index(2)
    assert first_2 > 110
    # without hysteresis the same noise flips the striker many times
    rng = np.random.default_rng(1)
    from soccerbt.services.planning import RoleConfig
    plain = RoleAssigner(FIELD, RoleConfig(striker_hysteresis_s=0.0, striker_hysteresis_ratio=1.0,
                                            striker_switch_hold_s=0.0))
    flips, last = 0, None
    for k in range(200):
        t = k * 0.1
        c2 = 6.0 - 4.0 * k / 199 + rng.normal(0, 0.3)
        c3 = 4.0 + rng.normal(0, 0.3)
        roles = plain.assign([msg(1, 9.0, t), msg(2, c2, t), msg(3, c3, t)], t)
        s = next(n for n, r in roles.items() if r is Role.STRIKER)
        flips += last is not None and s != last
        last = s
    assert flips > 3


def test_every_robot_computes_the_same_roles():
    msgs = [msg(1, 3.0, 1.0), msg(2, 2.5, 1.0), msg(3, 2.4, 1.0)]
    results = [RoleAssigner(FIELD).update(m, [o for o in msgs if o is not m], 1.0) for m in msgs]
    assert results == [Role.GOALKEEPER, Role.SUPPORTER, Role.STRIKER]


def test_missing_goalkeeper_is_covered_and_stale_or_inactive_robots_get_no_role():
    ra = RoleAssigner(FIELD)
    near_goal = Pose2D(-5.0, 0.0, 0.0)
    far = Pose2D(1.0, 0.0, 0.0)
    roles = ra.assign([msg(1, 1.0, 0.0, active=False), msg(2, 1.0, 10.0, pose=far),
                       msg(3, 5.0, 10.0, pose=near_goal)], 10.0)
    assert roles == {2: Role.STRIKER, 3: Role.GOALKEEPER}
    # the goalkeeper's last message is 3 s old: it counts as gone too
    roles = RoleAssigner(FIELD).assign([msg(1, 1.0, 7.0), msg(2, 1.0, 10.0, pose=far),
                                        msg(3, 5.0, 10.0, pose=near_goal)], 10.0)
    assert 1 not in roles and roles[3] is Role.GOALKEEPER
    # alone on the field: a field player strikes, a lone goalkeeper keeps the goal
    assert RoleAssigner(FIELD).assign([msg(2, 1.0, 0.0)], 0.0) == {2: Role.STRIKER}
    assert RoleAssigner(FIELD).assign([msg(1, 1.0, 0.0)], 0.0) == {1: Role.GOALKEEPER}
    assert RoleAssigner(FIELD).assign([], 0.0) == {}


def test_a_striker_claim_is_honoured_by_a_fresh_assigner():
    msgs = [msg(1, 9.0, 0.0), msg(2, 3.0, 0.0, role=Role.STRIKER), msg(3, 2.5, 0.0)]
    assert RoleAssigner(FIELD).assign(msgs, 0.0)[2] is Role.STRIKER


def test_cost_to_ball():
    assert cost_to_ball(Pose2D(0, 0, 0), None) == math.inf
    facing = cost_to_ball(Pose2D(0, 0, 0), (1.2, 0.0), speed_mps=0.6)
    assert facing == pytest.approx(2.0)
    turned = cost_to_ball(Pose2D(0, 0, math.pi / 2), (1.2, 0.0), speed_mps=0.6, turn_radps=1.0)
    assert turned == pytest.approx(2.0 + math.pi / 2)
    wrong_side = cost_to_ball(Pose2D(2.4, 0, math.pi), (1.2, 0.0), kick_dir_rad=0.0, speed_mps=0.6)
    assert wrong_side == pytest.approx(2.0 + 2.0)
    assert cost_to_ball(Pose2D(0, 0, 0), (1.2, 0.0), ball_age_s=9.0) == math.inf


def test_assign_positions_is_optimal_and_sticky():
    rng = np.random.default_rng(3)
    for _ in range(20):
        poses = [Pose2D(*rng.uniform(-5, 5, 2), 0.0) for _ in range(4)]
        targets = [Pose2D(*rng.uniform(-5, 5, 2), 0.0) for _ in range(4)]
        got = assign_positions(poses, targets)
        total = sum(
            math.hypot(targets[j].x_m - p.x_m, targets[j].y_m - p.y_m) for p, j in zip(poses, got, strict=False)
        )
        best = min(
            sum(math.hypot(targets[j].x_m - p.x_m, targets[j].y_m - p.y_m) for p, j in zip(poses, perm, strict=False))
            for perm in itertools.permutations(range(4))
        )
        assert sorted(got) == [0, 1, 2, 3]
        assert total == pytest.approx(best)
    # two robots between two spots, nearly equal: the previous assignment is kept
    poses = [Pose2D(0.0, 0.01, 0.0), Pose2D(0.0, -0.01, 0.0)]
    targets = [Pose2D(1.0, -1.0, 0.0), Pose2D(1.0, 1.0, 0.0)]
    assert assign_positions(poses, targets) == [1, 0]
    assert assign_positions(poses, targets, previous=[0, 1]) == [0, 1]
    assert assign_positions(poses, targets[:1]).count(-1) == 1


def test_supporter_targets_are_inside_and_face_the_ball():
    ball = (2.0, 3.0)
    spots = supporter_targets(ball, FIELD, 3)
    assert len(spots) == 3
    for s in spots:
        assert FIELD.is_inside_field(s.x_m, s.y_m)
        assert s.theta_rad == pytest.approx(math.atan2(ball[1] - s.y_m, ball[0] - s.x_m))
    assert spots[0].x_m < ball[0]  # the first one backs up toward the own goal


@pytest.mark.parametrize("we_kick_off", [True, False])
def test_kickoff_positions_are_legal(we_kick_off):
    roles = [Role.GOALKEEPER, Role.STRIKER, Role.SUPPORTER, Role.SUPPORTER]
    poses = kickoff_positions(FIELD, roles, we_kick_off)
    assert len(poses) == 4
    for role, p in zip(roles, poses, strict=False):
        kicking = we_kick_off and role is Role.STRIKER
        assert is_legal_kickoff_position(p, FIELD, kicking), (role, p)
        assert p.theta_rad == 0.0
    striker = poses[1]
    inside_circle = math.hypot(striker.x_m, striker.y_m) < FIELD.centre_circle_radius_m
    assert inside_circle is we_kick_off
    assert poses[0].x_m < -FIELD.half_length_m + 1.0
    assert len({(p.x_m, p.y_m) for p in poses}) == 4
    assert not is_legal_kickoff_position(Pose2D(0.5, 0.0, 0.0), FIELD, True)


@pytest.mark.parametrize("ball", [(0.0, 0.0), (-6.5, 4.0), (-6.9, 0.0), (3.0, -4.4), (6.8, 4.4)])
def test_defending_free_kick_keeps_the_distance(ball):
    p = free_kick_position(ball, FIELD, attacking=False)
    assert math.hypot(p.x_m - ball[0], p.y_m - ball[1]) >= FIELD.free_kick_distance_m + 0.25
    assert FIELD.is_inside_field(p.x_m, p.y_m)
    assert p.theta_rad == pytest.approx(math.atan2(ball[1] - p.y_m, ball[0] - p.x_m))


def test_attacking_free_kick_stands_behind_the_ball():
    p = free_kick_position((1.0, 1.0), FIELD, attacking=True, kick_dir_rad=0.3, attack_dist_m=0.7)
    assert p.theta_rad == pytest.approx(0.3)
    bx, by = p.inverse_transform_point(1.0, 1.0)
    assert bx == pytest.approx(0.7) and by == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("ball", [(-2.0, 1.0), (-6.0, 3.0), (3.0, -2.0), (-6.9, -4.0)])
def test_goalkeeper_blocks_the_line_to_the_goal_inside_the_penalty_area(ball):
    p = goalkeeper_blocking_position(ball, FIELD, dist_to_goalline_m=1.0)
    assert FIELD.is_inside_penalty_area(p.x_m, p.y_m, own=True)
    gx = -FIELD.half_length_m
    cross = (ball[0] - gx) * p.y_m - ball[1] * (p.x_m - gx)
    if abs(p.y_m) < FIELD.penalty_area_width_m / 2 - 1e-9:  # not clamped: on the line
        assert cross == pytest.approx(0.0, abs=1e-9)
    assert p.theta_rad == pytest.approx(math.atan2(ball[1] - p.y_m, ball[0] - p.x_m))


def test_shot_crossing_y_where_a_rolling_ball_meets_a_line() -> None:
    # from (0, 0) at (-3, 0.6) m/s it reaches x = -5 after 5/3 s, 1.0 m to the left; rolling
    # 5.1 m of the 5.85 m it can roll at 0.8 m/s2
    assert shot_crossing_y((0.0, 0.0), (-3.0, 0.6), -5.0) == pytest.approx(1.0)
    assert shot_crossing_y((0.0, 0.0), (-1.5, 0.0), -5.0) is None  # stops after 1.4 m
    assert shot_crossing_y((0.0, 0.0), (-1.5, 0.0), -5.0, deceleration_mps2=0.2) == pytest.approx(0.0)
    assert shot_crossing_y((0.0, 0.0), (3.0, 0.0), -5.0) is None  # rolling away from the goal
    assert shot_crossing_y((0.0, 0.0), (-0.9, 0.0), -0.5) is None  # slower than min_speed_mps
    assert shot_crossing_y((0.0, 0.0), (-0.9, 0.0), -0.5, min_speed_mps=0.5) == pytest.approx(0.0)
    assert shot_crossing_y((-6.0, 0.0), (-3.0, 0.0), -5.0) is None  # already behind the line


def test_goalkeeper_save_position_meets_the_shot_on_the_keeper_line_within_the_goal() -> None:
    gx = -FIELD.half_length_m
    p = goalkeeper_save_position((-3.0, 1.0), 0.4, FIELD, dist_to_goalline_m=0.8)
    assert (p.x_m, p.y_m) == pytest.approx((gx + 0.8, 0.4))
    assert p.theta_rad == pytest.approx(math.atan2(1.0 - 0.4, -3.0 - (gx + 0.8)))
    wide = goalkeeper_save_position((-3.0, 1.0), 3.0, FIELD, dist_to_goalline_m=0.8)
    assert wide.y_m == pytest.approx(FIELD.goal_width_m / 2.0 + 0.2)  # no further than a post
    assert goalkeeper_save_position((-3.0, 1.0), -3.0, FIELD).y_m == pytest.approx(-wide.y_m)


def test_team_link_delay_loss_and_determinism():
    def run(seed):
        link = TeamLink(np.random.default_rng(seed), delay_s=0.05, jitter_s=0.02, loss_probability=0.2)
        a, b, c = RobotId(BLUE, 1), RobotId(BLUE, 2), RobotId(Team.RED, 1)
        for r in (a, b, c):
            link.register(r)
        got_b, got_a, got_c = [], [], []
        for k in range(2000):
            t = k * 0.01
            link.send(msg(1, 1.0, t), t)
            got_b += [(m.timestamp_s, t) for m in link.receive(b, t)]
            got_a += link.receive(a, t)
            got_c += link.receive(c, t)
        return link, got_a, got_b, got_c

    link, got_a, got_b, got_c = run(5)
    assert got_a == [] and got_c == []  # not to the sender, not to the other team
    delays = np.array([t - sent for sent, t in got_b])
    assert delays.min() >= 0.05 - 1e-9 and delays.max() <= 0.07 + 0.01 + 1e-9
    # 2000 copies, p = 0.2: the binomial's 4-sigma band is 400 +- 72
    assert 328 <= link.lost <= 472
    assert link.delivered + link.lost <= 2000 and link.delivered >= 2000 - link.lost - 8
    assert run(5)[2] == got_b
    assert run(6)[2] != got_b
    with pytest.raises(KeyError, match="not registered"):
        link.receive(RobotId(BLUE, 9), 0.0)
    with pytest.raises(ValueError, match="loss_probability"):
        TeamLink(np.random.default_rng(0), loss_probability=1.5)


# --- bigger teams: 5 v 5 on the L field, up to 7 on S ---------------------------------------------

LARGE = Field.large()


def test_five_players_get_one_goalkeeper_one_striker_two_defenders_one_supporter():
    from collections import Counter

    poses = {1: Pose2D(-10.0, 0.0, 0.0), 2: Pose2D(-1.0, 0.0, 0.0), 3: Pose2D(-8.0, 2.0, 0.0),
             4: Pose2D(-3.0, -4.0, 0.0), 5: Pose2D(-7.0, -1.0, 0.0)}
    costs = {1: 9.0, 2: 1.0, 3: 6.0, 4: 3.0, 5: 5.0}
    assigner = RoleAssigner(LARGE)
    roles = assigner.assign([msg(n, costs[n], 0.0, pose=poses[n]) for n in poses], 0.0)
    assert Counter(roles.values()) == {Role.GOALKEEPER: 1, Role.STRIKER: 1, Role.DEFENDER: 2, Role.SUPPORTER: 1}
    assert roles == {1: Role.GOALKEEPER, 2: Role.STRIKER, 3: Role.DEFENDER, 5: Role.DEFENDER, 4: Role.SUPPORTER}
    # a supporter a little deeper than a defender does not take its place (hysteresis) ...
    poses[4] = Pose2D(-7.5, -1.0, 0.0)
    roles = assigner.assign([msg(n, costs[n], 0.1, pose=poses[n]) for n in poses], 0.1)
    assert roles[4] is Role.SUPPORTER
    # ... a clearly deeper one does
    poses[4] = Pose2D(-9.0, -1.0, 0.0)
    roles = assigner.assign([msg(n, costs[n], 0.2, pose=poses[n]) for n in poses], 0.2)
    assert roles[4] is Role.DEFENDER and roles[5] is Role.SUPPORTER
    assert Counter(roles.values())[Role.GOALKEEPER] == 1 and Counter(roles.values())[Role.STRIKER] == 1


@pytest.mark.parametrize("size, defenders", [(3, 0), (4, 1), (5, 2), (7, 3)])
def test_defender_count_by_team_size(size, defenders):
    roles = RoleAssigner(Field.kid_size()).assign([msg(n, float(n), 0.0) for n in range(1, size + 1)], 0.0)
    assert sum(r is Role.DEFENDER for r in roles.values()) == defenders
    assert sum(r is Role.GOALKEEPER for r in roles.values()) == 1
    assert sum(r is Role.STRIKER for r in roles.values()) == 1


@pytest.mark.parametrize("field, size", [(Field.large(), 5), (Field.adult_size(), 5), (Field.kid_size(), 7)],
                         ids=["L5", "M5", "S7"])
@pytest.mark.parametrize("kicking", [True, False])
def test_kickoff_positions_for_bigger_teams_are_legal_and_apart(field, size, kicking):
    as_the_node_asks = [kickoff_positions(field, [Role.STRIKER] + [Role.SUPPORTER] * rank, kicking)[-1]
                        for rank in range(size - 1)]
    with_roles = kickoff_positions(field, [Role.GOALKEEPER, Role.STRIKER] + [Role.DEFENDER] * ((size - 1) // 2)
                                   + [Role.SUPPORTER] * (size - 2 - (size - 1) // 2), kicking)
    for poses in (as_the_node_asks, with_roles):
        for k, p in enumerate(poses):
            striker_kicking = kicking and p.x_m > -1.0
            assert is_legal_kickoff_position(p, field, striker_kicking), (k, p)
        for a, b in itertools.combinations(poses, 2):
            assert math.hypot(a.x_m - b.x_m, a.y_m - b.y_m) > 0.7
    gk = with_roles[0]
    assert field.is_inside_penalty_area(gk.x_m, gk.y_m)
    if field is LARGE or field.name == "L":  # defenders in front of the penalty area, deeper than the wings
        defenders = with_roles[2:4]
        assert all(-7.5 < d.x_m < -5.5 for d in defenders)


def test_kickoff_positions_of_three_players_are_the_old_ones():
    hx, hy = FIELD.half_length_m, FIELD.half_width_m
    poses = kickoff_positions(FIELD, [Role.GOALKEEPER, Role.STRIKER, Role.SUPPORTER, Role.SUPPORTER], False)
    assert [(p.x_m, p.y_m) for p in poses[2:]] == [(-hx / 2.0, hy / 2.0), (-hx / 2.0, -hy / 2.0)]


def test_defender_targets_between_ball_and_goal_scaled_to_the_field():
    from soccerbt.services.planning import defender_targets

    spots = defender_targets((0.0, 0.0), LARGE, 2)
    assert [round(p.x_m, 3) for p in spots] == [-6.6, -6.6]  # 40 % of the 11 m to the ball
    assert sorted(round(p.y_m, 3) for p in spots) == [-0.975, 0.975]  # 3/4 of the 2.6 m goal apart
    assert all(abs(p.theta_rad - math.atan2(-p.y_m, -p.x_m)) < 1e-9 for p in spots)  # facing the ball
    near = defender_targets((-9.0, 5.0), LARGE, 1)[0]  # a ball deep in the own half: outside the box
    assert not LARGE.is_inside_penalty_area(near.x_m, near.y_m)
    far = defender_targets((10.0, 0.0), LARGE, 1)[0]  # the team attacks: the defence moves up
    assert -3.0 < far.x_m < 0.0
    # 5 v 5: three supporters, one of them on a defensive spot; 3 v 3 keeps two spots as before
    five = supporter_targets((2.0, 1.0), LARGE, 3)
    assert five[2].x_m < -4.0 and five[0].x_m < 2.0
    assert supporter_targets((2.0, 1.0), FIELD, 2) == supporter_targets((2.0, 1.0), FIELD, 4)[:2]


def test_the_role_assigner_says_why_it_chose_its_striker() -> None:
    from soccerbt.services.planning import RoleAssigner
    from soccerbt.world.field import Field

    assigner = RoleAssigner(Field.adult_size())
    assert assigner.reason() == ""
    assigner._why = ("kept", 2, 3.4, 3, 2.9)
    text = assigner.reason()
    assert text.startswith("striker #2 kept (3.40 s): #3 (2.90 s) is not cheaper by 1.0 s")
    assigner._why = ("switch", 3, 1.2, 2, 3.4)
    assert "replaces #2 (3.40 s)" in assigner.reason()
