"""Seeded matches of our own trees under the HSL referee (``MatchConfig(gc_version=20)``): the
kick-off through READY, SET and the delayed PLAYING (the packets show SET for 10 s after the
whistle: our robots stand, as robots without a whistle detector do), then a throw-in inside
PLAYING (``stopped`` while the ball is placed, then the set play, which the kicking team takes
once its kicker is placed: the local free-kick phase EXECUTE), without node errors; a timeout
and the team-message budget (every message of a team link counted, a team over budget loses its
goals); the team-message period that fits the budget."""
from __future__ import annotations

import dataclasses
import math

import pytest

from soccerbt.gamecontroller.hsl_referee import HslReferee, HslRefereeConfig
from soccerbt.gamecontroller.protocol import GameState, SecondaryState
from soccerbt.match import Match, MatchConfig
from soccerbt.world.types import Team

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

# leave wrong positions alone: the rules test what the robots do, not what the referee corrects;
# a short set play (15 s instead of the HSL 45 s: a kicker that fails would only make the test longer)
REFEREE = HslRefereeConfig(players_per_team=3, illegal_ready_position="ignore", illegal_set_play_position="ignore",
                           penalize_leaving_field=False, set_play_s=15.0)
STILL_MPS = 0.05
GRACE_S = 1.5  # to brake from walking speed once the packets say SET or stopped


def nobody_walks(match: Match, since_s: float) -> object:
    if match.t_s - since_s < GRACE_S:
        return None
    for rid, r in match.world.robots.items():
        if r.removed:
            continue
        speed = math.hypot(r.vx_mps, r.vy_mps)
        if speed > STILL_MPS:
            return f"{rid} walks at {speed:.2f} m/s"
    return True


def test_kick_off_with_the_delayed_playing_and_a_throw_in(sim) -> None:
    match = Match(MatchConfig(seed=21, gc_version=20, referee=REFEREE))
    ref = match.referee
    assert isinstance(ref, HslReferee)
    assert ref.config.set_play_s == 15.0 and ref.config.version == 20
    marks: dict[str, float] = {}

    def shown_set(m: Match) -> object:
        if ref.shown_state != GameState.SET:
            marks.pop("set", None)
            return None
        since = marks.setdefault("set", m.t_s)
        return nobody_walks(m, since)

    def stopped_still(m: Match) -> object:
        if not ref.stopped:
            marks.pop("stop", None)
            return None
        since = marks.setdefault("stop", m.t_s)
        return nobody_walks(m, since)

    robots_see_set_while_playing = sim.eventually("every robot sees SET during the delayed PLAYING", lambda m: (
        ref.delayed and ref.state == GameState.PLAYING
        and all(a.blackboard["gc_game_state"] == "SET" for a in m.agents.values())) or None)
    robots_see_stopped = sim.eventually("every robot sees the stopped throw-in", lambda m: (
        ref.stopped and all(a.blackboard["gc_stopped"] and a.blackboard["gc_real_game_sub_state"] == "THROW_IN"
                            and a.blackboard["gc_packet_version"] == 20 for a in m.agents.values())) or None)
    robots_see_resumed = sim.eventually("every robot sees the resumed throw-in", lambda m: (
        not ref.stopped and ref.secondary_state == SecondaryState.THROW_IN
        and all(a.blackboard["gc_game_sub_state"] == "GET_READY" and not a.blackboard["gc_stopped"]
                for a in m.agents.values())) or None)

    def only_the_kicking_team_executes(m: Match) -> object:
        executing = [rid for rid, a in m.agents.items() if a.blackboard["local_freekick_phase"] == "EXECUTE"]
        if not executing or ref.secondary_state == SecondaryState.NORMAL:
            return None
        return all(rid.team is ref.set_play_team for rid in executing) or f"{executing} execute"

    kicker_reaches_execute = sim.eventually("the kicking team's kicker reaches EXECUTE", lambda m: (
        ref.secondary_state == SecondaryState.THROW_IN and not ref.stopped
        and any(a.blackboard["local_freekick_phase"] == "EXECUTE" for rid, a in m.agents.items()
                if rid.team is ref.set_play_team)) or None)
    rules = [sim.always("nobody walks while the packets say SET", shown_set),
             sim.always("nobody walks while play is stopped", stopped_still),
             sim.always("only the kicking team executes", only_the_kicking_team_executes),
             robots_see_set_while_playing, robots_see_stopped, robots_see_resumed, kicker_reaches_execute]

    # the kick-off: READY, SET, then PLAYING shown as SET for 10 s, then the ball is free
    sim.play(match, 70.0, rules, until=lambda m: ref.state == GameState.PLAYING and not ref.delayed)
    assert ref.state == GameState.PLAYING and not ref.delayed
    assert [r.kind for r in ref.history if r.kind.startswith("delay")] == ["delay", "delay_end"]
    assert all(a.blackboard["gc_game_state"] == "PLAY" for a in match.agents.values())
    sim.play(match, 3.0, rules)

    # a throw-in: the ball rolls over the touch line
    hy = match.field.half_width_m
    match.world.place_ball(1.0, hy - 0.3)
    match.world.set_ball_velocity(0.0, 2.0)
    sim.play(match, 5.0, rules, until=lambda m: ref.secondary_state == SecondaryState.THROW_IN)
    assert ref.secondary_state == SecondaryState.THROW_IN and ref.stopped
    taker = ref.set_play_team
    sim.play(match, 30.0, rules, until=lambda m: ref.secondary_state == SecondaryState.NORMAL)
    assert ref.secondary_state == SecondaryState.NORMAL
    # taken by the kicking team (not run out): its kicker stood behind the ball, then played it
    assert [r.detail for r in ref.history if r.kind == "set_play_end"] == ["THROW_IN taken"]
    assert taker in (Team.BLUE, Team.RED)
    sim.play(match, 3.0, rules)
    sim.assert_rules(rules)
    result = match.result()
    assert not result.errors
    assert all(r.node_exceptions == 0 for r in result.robots), [r.node_exception_paths for r in result.robots]


def test_a_timeout_then_the_message_budget_runs_out(sim) -> None:
    # our robots send 10 messages a second each here (the period the budget would give, 2 s,
    # would take 150 s): 30 s of READY, SET and PLAYING
    budget = 900
    match = Match(MatchConfig(seed=22, gc_version=20, team_message_period_s=0.1,
                              referee=dataclasses.replace(REFEREE, message_budget=budget, timeout_s=5.0)))
    ref = match.referee
    assert isinstance(ref, HslReferee)
    assert ref.call_timeout(Team.RED)  # in INITIAL, before the first step

    def budget_counts_every_message(m: Match) -> object:
        for team, link in m.team_links.items():
            if ref.messages_counted[team] > link.sent:
                return f"{team.name} counted {ref.messages_counted[team]} of {link.sent} sent"
            if ref.message_budget[team] != max(0, budget - ref.messages_counted[team]):
                return f"{team.name} budget {ref.message_budget[team]} after {ref.messages_counted[team]}"
            if ref.illegal_communication[team] != (ref.messages_counted[team] > budget):
                return f"{team.name} illegal communication {ref.illegal_communication[team]}"
            if ref.illegal_communication[team] and ref.scores[team] != 0:
                return f"{team.name} scored over budget"
        return True

    def timeout_counts_nothing(m: Match) -> object:
        if not ref.in_timeout:
            return None
        return all(n == 0 for n in ref.messages_counted.values()) or "messages counted in a timeout"

    robots_see_timeout = sim.eventually("every robot sees the timeout", lambda m: (
        ref.in_timeout and all(a.blackboard["gc_game_sub_state_type"] == "TIMEOUT"
                               and a.blackboard["gc_game_state"] == "INITIAL" for a in m.agents.values())) or None)
    robots_see_budget = sim.eventually("every robot sees its team's budget shrink", lambda m: all(
        0 < a.blackboard["gc_message_budget"] < budget for a in m.agents.values()) or None)
    rules = [sim.always("the budget counts every team message", budget_counts_every_message),
             sim.always("nothing is counted in a timeout", timeout_counts_nothing),
             robots_see_timeout, robots_see_budget]
    sim.play(match, 5.0, rules, until=lambda m: not ref.in_timeout)
    assert not ref.in_timeout and ref.state == GameState.READY and ref.kick_off_team is Team.BLUE
    sim.play(match, 60.0, rules, until=lambda m: all(ref.illegal_communication.values()))
    assert all(ref.illegal_communication.values()) and ref.scores == {Team.BLUE: 0, Team.RED: 0}
    assert all(a.blackboard["gc_message_budget"] == 0 for a in match.agents.values())
    sim.assert_rules(rules)
    assert not match.result().errors


def test_our_trees_take_and_keep_penalty_shoot_out_shots(sim) -> None:
    """A knock-out match sent to the shoot-out: each shot's taker and keeper are put down
    where the rules put them, know where they stand (the shoot-out prior, not the own-half
    prior of robots entering the field), the taker stays still while the packets show SET and
    then plays the ball at the goal; the substitutes stay off the field."""
    from soccerbt.gamecontroller.hsl_knockout import SHOOT_OUT
    from soccerbt.world.types import to_team_frame

    match = Match(MatchConfig(seed=1, knockout=True, referee=REFEREE))
    ref = match.referee
    sim.play(match, 30.0, until=lambda m: m.referee.state == GameState.PLAYING)
    ref.start_shoot_out()
    assert ref.period == SHOOT_OUT

    def on_the_field(m: Match) -> object:
        if ref.shooter is None:
            return None if all(r.removed for r in m.world.robots.values()) else "a robot is on the field between shots"
        for rid, robot in m.world.robots.items():
            if robot.removed != (rid not in (ref.shooter, ref.keeper)):
                return f"{rid} removed={robot.removed}"
        return True

    def knows_where_it_stands(m: Match) -> object:
        if ref.shooter is None:
            return None
        for rid in (ref.shooter, ref.keeper):
            truth = to_team_frame(m.world.robots[rid].pose, ref.attacks_positive_x(rid.team))
            belief = m.agents[rid].blackboard["robot_pose_field"]
            error = math.hypot(belief.x_m - truth.x_m, belief.y_m - truth.y_m)
            if error > 0.6:
                return f"{rid} believes ({belief.x_m:.1f}, {belief.y_m:.1f}), is at ({truth.x_m:.1f}, {truth.y_m:.1f})"
        return True

    def waits_while_set_is_shown(m: Match) -> object:
        if ref.shooter is None or ref.shown_state != GameState.SET:
            return None
        robot = m.world.robots[ref.shooter]
        return math.hypot(robot.vx_mps, robot.vy_mps) <= STILL_MPS or f"{ref.shooter} walks in SET"

    rules = [sim.always("only the taker and the keeper are on the field", on_the_field),
             sim.always("taker and keeper know where they stand", knows_where_it_stands),
             sim.always("the taker waits while the packets show SET", waits_while_set_is_shown)]
    shots = lambda m: [r for r in m.referee.history if r.kind == "shot_end"]  # noqa: E731
    sim.play(match, 120.0, rules, until=lambda m: len(shots(m)) == 2)
    sim.assert_rules(rules)
    assert [r.team for r in shots(match)] == [Team.BLUE, Team.RED]
    assert shots(match)[0].detail.startswith("goal")  # blue2 scores against red1
    assert match.referee.shot_masks[Team.BLUE] == 1
    assert all(r.node_exceptions == 0 for r in match.result().robots)
