"""HSL fields in matches: 5 v 5 on the L field, team sizes per field, the default 3 v 3 unchanged."""
from __future__ import annotations

import math

import pytest

from soccerbt.gamecontroller.referee_common import RefereeConfig
from soccerbt.match import BLUE_TEAM_NUMBER, RED_TEAM_NUMBER, Match, MatchConfig, run_match
from soccerbt.services.planning import is_legal_kickoff_position
from soccerbt.world.types import Team, to_team_frame

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

SET = 2  # GameController states
PLAYING = 3


def test_three_a_side_match_under_the_hl_referee_is_unchanged():
    """Seed 1, 10 s on the M field with the HL v12 referee: the figures measured before the HSL
    fields came in (the HSL referee, the default since, times its messages differently), updated
    when the ball belief stopped taking isolated false detections (issue 15: the robots no
    longer turn their heads to false balls, which moves every figure a little) and when the
    entry prior learnt the touch line each robot is put on (lower localization errors), and when
    the own half, not an unsettled heading, picked mirror twins after an entry and injection
    stopped reading the estimate of before the frame (issue 26.6: every filter draws
    differently)."""
    result = run_match(MatchConfig(seed=1, duration_s=10.0, gc_version=12))
    got = [(r.robot, r.distance_walked_m, r.falls, r.kicks, r.loc_error_mean_m) for r in result.robots]
    assert got == [("blue1", 5.271, 0, 0, 0.092), ("blue2", 5.15, 0, 0, 0.122), ("blue3", 5.838, 0, 0, 0.102),
                   ("red1", 5.312, 0, 0, 0.116), ("red2", 4.502, 0, 0, 0.054), ("red3", 5.778, 0, 0, 0.073)]
    assert result.score == {"blue": 0, "red": 0} and result.errors == ()


@pytest.mark.parametrize("gc_version", [12, 20])
def test_five_a_side_on_the_large_field_takes_legal_kickoff_positions_and_plays(gc_version):
    referee = RefereeConfig(blue_team_number=BLUE_TEAM_NUMBER, red_team_number=RED_TEAM_NUMBER,
                            players_per_team=5, ready_s=20.0, illegal_ready_position="ignore")
    # seed 2 had a robot localize on the mirrored touch line at entry until the entry prior
    # named the touch line the team puts it on; both referees
    match = Match(MatchConfig(field="L", team_size=5, seed=2, referee=referee, gc_version=gc_version))
    field = match.field
    assert field.length_m == 22.0 and len(match.agents) == 10
    while match.referee.state != SET:
        match.step()
    kicking = match.referee.kick_off_team
    for rid, robot in match.world.robots.items():
        pose = to_team_frame(robot.pose, match.referee.attacks_positive_x(rid.team))
        assert is_legal_kickoff_position(pose, field, rid.team is kicking, robot_radius_m=0.0), (rid, pose)
        if rid.team is not kicking:
            assert math.hypot(pose.x_m, pose.y_m) > field.centre_circle_radius_m, (rid, pose)
    roles = {rid: a.blackboard.get("player_role") for rid, a in match.agents.items()}
    for team in (Team.BLUE, Team.RED):
        team_roles = [r for rid, r in roles.items() if rid.team is team]
        assert team_roles.count("goal_keeper") == 1 and team_roles.count("striker") == 1
    while match.referee.state != PLAYING:
        match.step()
    match.run(5.0)
    for rid, robot in match.world.robots.items():
        assert not robot.removed and field.is_inside_field(robot.pose.x_m, robot.pose.y_m, -0.5), rid
    result = match.result()
    assert result.errors == ()
    assert all(r.node_exceptions == 0 for r in result.robots)


@pytest.mark.parametrize("field, size", [("L", 6), ("l", 6), ("M", 6), ("adult", 6), ("S", 8), ("kid", 8)])
def test_team_size_over_the_field_limit_is_refused(field, size):
    with pytest.raises(ValueError, match="team size"):
        MatchConfig(field=field, team_size=size)
    MatchConfig(field=field, team_size=size - 1)  # the limit itself is fine


def test_cli_refuses_too_many_robots_for_the_field(capsys):
    from soccerbt.__main__ import main

    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--headless", "--seconds", "1", "--field", "L", "--team-size", "6"])
    assert exit_info.value.code == 2
    assert "at most 5 robots a team on the L field" in capsys.readouterr().err
