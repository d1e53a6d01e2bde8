"""The referee on a fake world: the HL game flow, set plays, penalties, half time, packets."""
from __future__ import annotations

import math
import select

import pytest

from soccerbt.gamecontroller.hl_referee import Referee
from soccerbt.gamecontroller.protocol import GameState, Penalty, SecondaryState, SubState, decode
from soccerbt.gamecontroller.receiver import GameControllerReceiver
from soccerbt.gamecontroller.referee_broadcaster import RefereeBroadcaster
from soccerbt.gamecontroller.referee_common import RefereeConfig
from soccerbt.world.types import BallKicked, BallOut, BallTouched, GoalScored, Pose2D, RobotId, Team

BLUE1, BLUE2 = RobotId(Team.BLUE, 1), RobotId(Team.BLUE, 2)
RED1, RED2 = RobotId(Team.RED, 1), RobotId(Team.RED, 2)
DT = 0.1


class Driver:
    """Steps a referee in lock-step at DT, delivering scripted events at given times."""

    def __init__(self, world, config: RefereeConfig) -> None:
        self.world = world
        self.ref = Referee(world, config)
        self.step_no = 0
        self.packets = []

    @property
    def t(self) -> float:
        return round(self.step_no * DT, 6)

    def run_until(self, t_end: float, events: dict[float, list] | None = None, before_step=None) -> None:
        events = events or {}
        while self.t < t_end - 1e-9:
            self.step_no += 1
            t = self.t
            self.world.t_s = t
            if before_step:
                before_step(t)
            self.ref.step(t, events.get(round(t, 6), []))
            self.packets.append(decode(self.ref.packet_bytes()))  # the real bytes, decoded


def summary(p) -> tuple:
    scores = {tm.team_number: tm.score for tm in p.teams}
    return (GameState(p.state).name, SecondaryState(p.secondary_state).name, tuple(p.secondary_state_info[:2]),
            p.kick_off_team, scores[1], scores[2], p.first_half, tuple(tm.team_number for tm in p.teams))


def distinct(packets) -> list[tuple]:
    out = []
    for p in packets:
        s = summary(p)
        if not out or out[-1] != s:
            out.append(s)
    return out


def short_config(**kw) -> RefereeConfig:
    base = dict(half_duration_s=20.0, initial_s=1.0, set_s=2.0, half_time_break_s=3.0)
    base.update(kw)
    return RefereeConfig(**base)


def test_scripted_match_gives_states_sub_states_kick_off_and_scores_in_order(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, short_config())
    d.run_until(5.0, {5.0: [BallKicked(5.0, BLUE1)]})
    world.ball.x_m, world.ball.y_m = 2.0, 3.0
    d.run_until(15.0, {6.0: [BallOut(6.0, "touch", 3.0, 4.6, BLUE1)],
                       15.0: [BallTouched(14.9, RED1), GoalScored(15.0, False, RED1)]})
    assert world.calls.count(("place_ball", 3.0, 4.5 - world.field.ball_radius_m)) >= 1  # throw-in spot
    d.run_until(60.0)
    N, TI = "NORMAL", "THROW_IN"
    first, second = (1, 2), (2, 1)
    assert distinct(d.packets) == [
        ("INITIAL", N, (0, 0), 1, 0, 0, 1, first),
        ("READY", N, (0, 0), 1, 0, 0, 1, first),
        ("SET", N, (0, 0), 1, 0, 0, 1, first),
        ("PLAYING", N, (0, 0), 1, 0, 0, 1, first),
        ("PLAYING", TI, (2, SubState.STOP), 1, 0, 0, 1, first),
        ("PLAYING", TI, (2, SubState.GET_READY), 1, 0, 0, 1, first),
        ("PLAYING", TI, (2, SubState.SET), 1, 0, 0, 1, first),
        ("PLAYING", N, (0, 0), 1, 0, 0, 1, first),
        ("READY", N, (0, 0), 1, 0, 1, 1, first),  # red scored in the -x goal: blue kicks off
        ("SET", N, (0, 0), 1, 0, 1, 1, first),
        ("PLAYING", N, (0, 0), 1, 0, 1, 1, first),
        ("FINISHED", N, (0, 0), 1, 0, 1, 1, first),  # half time
        ("INITIAL", N, (0, 0), 2, 0, 1, 0, second),  # blocks swap, red kicks off
        ("READY", N, (0, 0), 2, 0, 1, 0, second),
        ("SET", N, (0, 0), 2, 0, 1, 0, second),
        ("PLAYING", N, (0, 0), 2, 0, 1, 0, second),
        ("FINISHED", N, (0, 0), 2, 0, 1, 0, second),
    ]
    assert d.ref.finished
    kinds = [(r.kind, r.detail) for r in d.ref.history if r.kind in ("state", "set_play", "goal", "half")]
    assert kinds[:6] == [("state", "INITIAL"), ("state", "READY"), ("state", "SET"), ("state", "PLAYING"),
                         ("set_play", "THROW_IN"), ("goal", "red 0:1")]
    assert [(g.team, g.last_touch, g.own_goal) for g in d.ref.goals] == [(Team.RED, RED1, False)]


def test_timings_of_the_flow(fake_world) -> None:
    world = fake_world.with_teams(1)
    d = Driver(world, short_config(ready_s=45.0))
    d.run_until(30.0)
    times: dict = {}
    for r in d.ref.history:  # the first half's times
        if r.kind == "state":
            times.setdefault((r.kind, r.detail), r.t_s)
    assert times[("state", "READY")] == pytest.approx(1.0)
    assert times[("state", "SET")] == pytest.approx(2.0)  # all placed and still for 1 s
    assert times[("state", "PLAYING")] == pytest.approx(4.0)
    assert times[("state", "FINISHED")] == pytest.approx(24.0)  # 20 s of PLAYING clock
    by_t = {round(i * DT + DT, 6): p for i, p in enumerate(d.packets)}
    assert by_t[1.5].secondary_time == 45  # READY counts its 45 s down
    assert [by_t[t].secondary_time for t in (4.0, 4.1, 5.0, 13.1, 14.0)] == [10, 10, 9, 1, 0]  # kick-off wait
    assert by_t[4.0].secs_remaining == 20 and by_t[14.0].secs_remaining == 10


def test_ready_lasts_45_s_when_a_robot_is_misplaced_and_set_moves_it(fake_world) -> None:
    world = fake_world.with_teams(1)
    world.robots[RED1].pose = Pose2D(-2.0, 1.0, 0.0)  # red in blue's half
    d = Driver(world, RefereeConfig(initial_s=0.0))
    d.run_until(46.0)
    states = [r for r in d.ref.history if r.kind == "state"]
    assert [(s.detail, round(s.t_s, 6)) for s in states[:3]] == [("INITIAL", 0.0), ("READY", 0.1), ("SET", 45.1)]
    placed = [c for c in world.calls if c[0] == "place_robot"]
    assert [c[1] for c in placed] == [RED1]
    pose = placed[0][2]
    assert pose.x_m > 0.0 and world.field.is_inside_field(pose.x_m, pose.y_m)  # red's own half (red attacks -x)
    assert math.hypot(pose.x_m, pose.y_m) >= world.field.centre_circle_radius_m


def test_defender_in_the_centre_circle_is_not_placed(fake_world) -> None:
    world = fake_world.with_teams(1)
    world.robots[RED1].pose = Pose2D(0.5, 0.0, math.pi)  # own half but inside the circle; blue kicks off
    world.robots[BLUE1].pose = Pose2D(-0.4, 0.0, 0.0)  # the kicker may stand in the circle
    d = Driver(world, short_config(illegal_ready_position="penalize", ready_s=5.0))
    d.run_until(7.0)
    assert d.ref.penalty_of(RED1) == Penalty.ILLEGAL_DEFENSE and not d.ref.is_penalized(BLUE1)


def _to_free_kick(world, d: Driver, out: BallOut) -> None:
    d.run_until(5.0)
    d.run_until(6.0, {6.0: [out]})


@pytest.mark.parametrize("line, x, y, touch, kind, team, spot", [
    # blue attacks +x in the first half
    ("goal", 7.1, 2.0, RED1, SecondaryState.CORNER_KICK, Team.BLUE, (7.0 - 0.11, 4.5 - 0.11)),
    ("goal", 7.1, -2.0, BLUE2, SecondaryState.GOAL_KICK, Team.RED, (6.0, -2.0)),
    ("goal", -7.1, -3.0, BLUE1, SecondaryState.CORNER_KICK, Team.RED, (-7.0 + 0.11, -4.5 + 0.11)),
    ("goal", -7.1, 1.0, None, SecondaryState.GOAL_KICK, Team.BLUE, (-6.0, 2.0)),
    ("touch", -3.0, -4.6, RED2, SecondaryState.THROW_IN, Team.BLUE, (-3.0, -4.5 + 0.11)),
    ("touch", 9.0, 4.6, BLUE1, SecondaryState.THROW_IN, Team.RED, (7.0 - 0.11, 4.5 - 0.11)),
    ("touch", 2.0, 4.6, None, SecondaryState.THROW_IN, Team.RED, (2.0, 4.5 - 0.11)),  # red defends +x
])
def test_ball_out_gives_the_right_set_play_at_the_right_spot(fake_world, line, x, y, touch, kind, team,
                                                             spot) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, short_config())
    _to_free_kick(world, d, BallOut(6.0, line, x, y, touch))
    p = d.packets[-1]
    assert p.secondary_state == kind
    assert p.secondary_state_info[:2] == (d.ref.team_number(team), SubState.STOP)
    assert (world.ball.x_m, world.ball.y_m) == pytest.approx(spot)


def test_free_kick_sub_state_timing(fake_world) -> None:
    world = fake_world.with_teams(1)
    d = Driver(world, short_config(half_duration_s=100.0))
    _to_free_kick(world, d, BallOut(6.0, "touch", 0.0, 4.6, BLUE1))
    # an opponent (blue) too close to the spot keeps GET_READY going for its full 15 s
    world.robots[BLUE1].pose = Pose2D(0.0, 3.6, 0.0)
    d.run_until(40.0)
    subs = [(r.detail, round(r.t_s, 6)) for r in d.ref.history if r.kind in ("sub_state", "set_play_end")]
    assert subs == [("GET_READY", 11.0), ("SET", 26.0), ("THROW_IN", 28.0)]
    # ...and is penalised when SET begins
    assert d.ref.history[[r.kind for r in d.ref.history].index("penalty")].robot == BLUE1
    by_t = {round(i * DT + DT, 6): p for i, p in enumerate(d.packets)}
    assert [by_t[t].secondary_time for t in (6.0, 10.1, 11.0, 25.1, 26.0)] == [5, 1, 15, 1, 2]
    assert by_t[26.5].teams[0].players[0].penalty == Penalty.ILLEGAL_DEFENSE


def test_goal_when_the_ball_is_not_in_play_does_not_count(fake_world) -> None:
    world = fake_world.with_teams(1)
    d = Driver(world, short_config())
    d.run_until(3.0, {3.0: [GoalScored(3.0, True, BLUE1)]})  # during SET
    assert d.ref.scores == {Team.BLUE: 0, Team.RED: 0}
    assert world.calls[-1] == ("place_ball", 0.0, 0.0)


def test_kick_off_ends_when_the_ball_moves(fake_world) -> None:
    world = fake_world.with_teams(1)
    d = Driver(world, short_config())
    d.run_until(5.0)
    assert d.ref.kick_off_pending and d.packets[-1].secondary_time == 9
    world.ball.x_m = 0.25
    d.run_until(5.1)
    assert not d.ref.kick_off_pending and d.packets[-1].secondary_time == 0
    assert d.ref.history[-1].kind == "restart_end" and d.ref.history[-1].detail == "ball moved"


def test_opponent_touch_does_not_end_the_kick_off_wait(fake_world) -> None:
    world = fake_world.with_teams(1)
    d = Driver(world, short_config())
    d.run_until(5.0, {5.0: [BallTouched(5.0, RED1)]})
    assert d.ref.kick_off_pending
    d.run_until(5.1, {5.1: [BallTouched(5.1, BLUE1)]})
    assert not d.ref.kick_off_pending


def test_removal_penalty_and_return_at_the_touch_line(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, short_config(half_duration_s=100.0))
    d.run_until(5.0)
    world.ball.y_m = 2.0
    assert d.ref.penalize(BLUE2, Penalty.PICKUP_OR_INCAPABLE)
    assert not d.ref.penalize(BLUE2)  # already penalised
    assert world.robots[BLUE2].removed and ("remove_robot", BLUE2) in world.calls
    d.run_until(5.1)
    pl = d.packets[-1].teams[0].players[1]
    assert (pl.penalty, pl.secs_till_unpenalised) == (Penalty.PICKUP_OR_INCAPABLE, 10)
    d.run_until(14.9)
    assert d.packets[-1].teams[0].players[1].secs_till_unpenalised == 1
    d.run_until(15.0)
    assert d.packets[-1].teams[0].players[1].penalty == 0
    pose = [c for c in world.calls if c[0] == "place_robot"][-1][2]
    assert not world.robots[BLUE2].removed
    assert pose.x_m < 0.0  # blue's own half
    assert pose.y_m == pytest.approx(-world.field.half_width_m)  # the touch line away from the ball (y > 0)
    assert pose.theta_rad == pytest.approx(math.pi / 2)  # facing into the field


def test_robot_fallen_too_long_is_incapable(fake_world) -> None:
    world = fake_world.with_teams(1)
    d = Driver(world, short_config(half_duration_s=100.0, incapable_fallen_s=5.0))
    d.run_until(5.0)
    world.robots[RED1].fallen = True
    d.run_until(9.9)
    assert not d.ref.is_penalized(RED1)
    d.run_until(10.1)
    assert d.ref.penalty_of(RED1) == Penalty.PICKUP_OR_INCAPABLE


def test_robot_leaving_the_field_is_removed(fake_world) -> None:
    world = fake_world.with_teams(1)
    d = Driver(world, short_config(half_duration_s=100.0))
    d.run_until(5.0)
    world.robots[BLUE1].pose = Pose2D(-3.0, 4.9, 0.0)  # inside the margin: fine
    d.run_until(5.5)
    assert not d.ref.is_penalized(BLUE1)
    world.robots[BLUE1].pose = Pose2D(-3.0, 5.2, 0.0)
    d.run_until(5.6)
    assert d.ref.is_penalized(BLUE1)


def test_penalty_clock_stands_still_at_half_time_and_penalties_end_with_the_half(fake_world) -> None:
    world = fake_world.with_teams(1)
    d = Driver(world, short_config(half_duration_s=5.0, half_time_break_s=5.0))
    d.run_until(8.5)
    assert d.ref.penalize(RED1, Penalty.BALL_MANIPULATION)
    d.run_until(9.5)
    assert d.ref.state == GameState.FINISHED and d.ref.is_penalized(RED1)
    d.run_until(14.5)
    assert not d.ref.is_penalized(RED1) and not world.robots[RED1].removed


def test_half_time_switches_sides(fake_world) -> None:
    world = fake_world.with_teams(2)
    d = Driver(world, short_config(half_duration_s=10.0))  # PLAYING 4-14, break to 17
    assert d.ref.attacks_positive_x(Team.BLUE) and not d.ref.attacks_positive_x(Team.RED)
    d.run_until(16.9)
    assert d.ref.first_half and d.ref.state == GameState.FINISHED
    d.run_until(17.0)
    assert not d.ref.first_half
    assert not d.ref.attacks_positive_x(Team.BLUE) and d.ref.attacks_positive_x(Team.RED)
    # robots were carried to their new own halves
    assert all(world.robots[r].pose.x_m > 0 for r in (BLUE1, BLUE2))
    assert all(world.robots[r].pose.x_m < 0 for r in (RED1, RED2))
    # a goal in the +x goal now counts for red
    d.run_until(25.0)
    assert d.ref.state == GameState.PLAYING
    d.run_until(25.1, {25.1: [GoalScored(25.1, True, RED2)]})
    assert d.ref.scores == {Team.BLUE: 0, Team.RED: 1} and d.ref.kick_off_team is Team.BLUE


def test_packets_substitutes_goalkeeper_and_numbers(fake_world) -> None:
    world = fake_world.with_teams(3)
    d = Driver(world, RefereeConfig(blue_team_number=17, red_team_number=23))
    p = d.ref.packet()
    assert p is d.ref.packet()  # same step: the same object
    assert p.players_per_team == 3 and [t.team_number for t in p.teams] == [17, 23]
    assert [t.team_color for t in p.teams] == [0, 1]
    assert [pl.penalty for pl in p.teams[0].players] == [0, 0, 0] + [Penalty.SUBSTITUTE] * 8
    assert [pl.goal_keeper for pl in p.teams[1].players[:3]] == [1, 0, 0]
    assert decode(d.ref.packet_bytes()) == p
    d.run_until(0.3)
    numbers = [q.packet_number for q in d.packets]
    assert p.packet_number == 0
    assert numbers == [1, 2, 3]  # packet_bytes() reused packet 0; then a new one each step
    assert d.ref.packet().packet_number == 3


def test_poll_packet_follows_the_2_hz_rate(fake_world) -> None:
    world = fake_world.with_teams(1)
    ref = Referee(world, short_config())
    got = []
    for k in range(1, 1001):  # 10 s at 100 Hz
        t = k * 0.01
        ref.step(t)
        p = ref.poll_packet(t)
        if p is not None:
            got.append((round(t, 2), p.packet_number))
    assert len(got) == 20
    assert [t for t, _ in got[:3]] == [0.01, 0.51, 1.01]
    assert [n for _, n in got] == list(range(20))


def test_config_is_validated() -> None:
    with pytest.raises(ValueError, match="illegal_ready_position"):
        RefereeConfig(illegal_ready_position="shoot")
    with pytest.raises(ValueError, match="different"):
        RefereeConfig(blue_team_number=3, red_team_number=3)


def test_broadcaster_sends_real_packets_on_loopback(fake_world) -> None:
    world = fake_world.with_teams(1)
    ref = Referee(world, short_config())
    with GameControllerReceiver(1, 1, host="127.0.0.1", port=0, send_alive=False) as rx, \
            RefereeBroadcaster(ref, "127.0.0.1", rx.port) as tx:
        sent = 0
        for k in range(1, 101):
            ref.step(k * 0.01)
            sent += tx.step()
        assert sent == 2 and tx.sent == 2
        for _ in range(100):
            rx.poll(0.0)
            if rx.counters.received == 2:
                break
            select.select([rx], [], [], 0.05)
        assert rx.counters.accepted == 2 and rx.latest.teams[0].team_number == 1
