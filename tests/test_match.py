"""Match: lock-step order, determinism, the picklable summary, goals, node exceptions, replay
log, and the `soccerbt run` command. Short matches with a fast referee keep these quick."""
from __future__ import annotations

import json
import math
import pickle
from pathlib import Path

import pytest

from soccerbt.__main__ import main
from soccerbt.cli.display import display_available
from soccerbt.gamecontroller.protocol import GameState
from soccerbt.gamecontroller.referee_common import RefereeConfig
from soccerbt.log.reader import McapLog
from soccerbt.log.writer import make_recorder
from soccerbt.match import Match, MatchConfig, MatchResult, run_match
from soccerbt.world.types import RobotId, Team

FAST = RefereeConfig(players_per_team=3, initial_s=0.2, ready_s=1.0, set_s=0.5)


def fast(**kw) -> MatchConfig:
    return MatchConfig(referee=FAST, **kw)


def test_lock_step_world_then_referee_then_agents() -> None:
    match = Match(fast(duration_s=1.0, idle_teams=("red",)))
    assert [str(r) for r in match.agents] == ["blue1", "blue2", "blue3"]
    assert match.statues == [RobotId(Team.RED, n) for n in (1, 2, 3)]
    for k in range(1, 51):
        match.step()
        assert match.world.t_s == pytest.approx(k * 0.01)
        assert match.referee.t_s == match.world.t_s
        assert all(a.now_s == match.world.t_s and a.ticks == k for a in match.agents.values())
    # the referee went INITIAL -> READY at 0.2 s and every robot knows it from its packets
    assert match.referee.state == GameState.READY
    assert {a.blackboard["gc_game_state"] for a in match.agents.values()} == {"READY"}
    assert match.packets_sent >= 2  # at least the first packet and the READY change


def test_the_same_seed_gives_the_same_match_and_another_seed_another() -> None:
    digests = []
    for seed in (5, 5, 6):
        match = Match(fast(seed=seed, duration_s=3.0))
        match.run(3.0)
        digests.append(match.world.digest())
    assert digests[0] == digests[1] != digests[2]


def test_run_match_is_a_pure_function_with_a_picklable_result() -> None:
    config = fast(seed=3, duration_s=2.5, idle_teams=("red",))
    a, b = run_match(config), run_match(config)
    assert isinstance(a, MatchResult) and a == b
    assert pickle.loads(pickle.dumps(a)) == a
    assert pickle.loads(pickle.dumps(config)) == config
    assert a.sim_s == 2.5 and a.score == {"blue": 0, "red": 0} and not a.finished
    assert [r.robot for r in a.robots] == ["blue1", "blue2", "blue3", "red1", "red2", "red3"]
    assert a.trees["red"] == "idle" and a.trees["blue"].endswith("game.xml")
    blue = a.robot("blue2")
    assert blue.loc_error_median_m is not None and blue.loc_error_median_m < 1.0
    assert blue.distance_walked_m > 0.0  # READY: walking to its kick-off spot
    assert a.robot("red2").distance_walked_m == 0.0 and a.robot("red2").loc_error_mean_m is None
    json.dumps(a.to_dict())  # JSON-ready


def test_a_goal_is_summarised_with_time_scorer_and_score() -> None:
    match = Match(fast(seed=2, idle_teams=("red", "blue")))
    while match.referee.state != GameState.PLAYING:
        match.step()
    match.world.place_ball(match.field.half_length_m - 0.3, 0.5)
    match.world.set_ball_velocity(2.0, 0.0)
    match.run(1.0)
    result = match.result()
    assert result.score == {"blue": 1, "red": 0}
    (goal,) = result.goals
    assert goal.team == "blue" and goal.first_half and not goal.own_goal
    assert match.t_s - 1.0 < goal.t_s < match.t_s


def _factory_with_a_failing_node():
    from soccerbt.nodes import ActionNode
    from soccerbt.nodes.soccer import register_soccer_nodes
    from soccerbt.trees import TreeFactory

    class Broken(ActionNode):
        @classmethod
        def provided_ports(cls):
            return []

        def update(self):
            return 1 / 0

    factory = TreeFactory()
    register_soccer_nodes(factory)
    factory.register_node_type("Broken", Broken)
    return factory


def test_a_node_exception_stops_that_robot_and_the_match_goes_on(tmp_path: Path) -> None:
    tree = tmp_path / "broken.xml"
    tree.write_text('<root BTCPP_format="4"><BehaviorTree ID="Main"><Sequence>'
                    '<SetVelocity x="0.5"/><Broken/></Sequence></BehaviorTree></root>')
    match = Match(fast(duration_s=2.0, red_tree=str(tree)), tree_factory=_factory_with_a_failing_node())
    match.run(2.0)
    result = match.result()
    assert result.sim_s == 2.0
    for r in result.robots:
        if r.team == "red":
            assert r.node_exceptions == 200 and len(r.node_exception_paths) == 1
            assert "Broken" in r.node_exception_paths[0]
            assert r.distance_walked_m == 0.0  # stopped every tick, never walked
        else:
            assert r.node_exceptions == 0 and r.distance_walked_m > 0.0
    assert len(result.errors) == 3  # once per robot and node path
    assert all("ZeroDivisionError" in e and "Broken" in e for e in result.errors)


def test_a_missing_tree_is_a_clear_error_before_the_match(tmp_path: Path) -> None:
    from soccerbt.trees import TreeLoadError

    bad = tmp_path / "bad.xml"
    bad.write_text('<root BTCPP_format="4">\n<BehaviorTree ID="Main">\n<Nope/>\n</BehaviorTree>\n</root>\n')
    with pytest.raises(TreeLoadError) as err:
        Match(fast(blue_tree=str(bad)))
    assert str(err.value).startswith(f"{bad}:3:") or str(err.value).startswith(f"{bad.resolve()}:3:")


def test_the_replay_log_is_tick_by_tick_and_byte_for_byte_reproducible(tmp_path: Path) -> None:
    paths = []
    for k in range(2):
        path = tmp_path / f"run{k}.mcap"
        match = Match(fast(seed=9, duration_s=1.5))
        recorder = make_recorder(path, match)
        match.run(1.5)
        recorder.finish(match.result())
        paths.append(path)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    log = McapLog.open(paths[0])
    assert log.header["seed"] == 9 and len(log.header["robots"]) == 6
    steps = list(log.steps())
    assert len(steps) == 150 and [s.truth.t_s for s in steps[:2]] == [0.01, 0.02]
    assert set(log.robots) == {str(r) for r in match.agents}  # the first keyframe lists everything
    assert all("gc_game_state" in log.robot_state(robot, 0).blackboard for robot in log.robots)
    assert not any("gc_game_state" in s.ticks["blue1"].blackboard for s in steps[1:19])
    ready = next(s for s in steps if s.ticks["blue1"].blackboard.get("gc_game_state", [None])[0] == "READY")
    assert ready.truth.t_s == pytest.approx(0.2, abs=0.011)
    assert any(e["kind"] == "state" and e["detail"] == "READY" for e in log.events)
    assert log.summary_result()["sim_s"] == 1.5


def test_soccerbt_run_json_prints_one_summary_object(capsys) -> None:
    code = main(["run", "--headless", "--seconds", "1", "--seed", "4", "--json", "--team-size", "2"])
    out, err = capsys.readouterr()
    assert code == 0
    summary = json.loads(out)
    assert summary["score"] == {"blue": 0, "red": 0}
    assert summary["sim_s"] == 1.0 and summary["wall_s"] > 0.0
    assert summary["goals"] == [] and summary["errors"] == []
    assert [r["robot"] for r in summary["robots"]] == ["blue1", "blue2", "red1", "red2"]
    assert out.count("\n") == 1


def test_soccerbt_run_prints_progress_and_a_summary_and_records(capsys, tmp_path: Path) -> None:
    log = tmp_path / "run.mcap"
    code = main(["run", "--headless", "--seconds", "10", "--field", "kid", "--team-size", "1",
                 "--record", str(log)])
    out, err = capsys.readouterr()
    assert code == 0
    assert "t=   10.0s" in err and "x real time" in err  # the progress line
    assert out.startswith("final score: blue 0 : 0 red")
    assert "blue1" in out and "red1" in out
    assert sum(1 for _ in McapLog.open(log).steps()) == 1000


def test_soccerbt_run_reports_a_broken_tree_and_exits_1(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text('<root BTCPP_format="4">\n<BehaviorTree ID="Main">\n<Nope/>\n</BehaviorTree>\n</root>\n')
    assert main(["run", "--headless", "--seconds", "1", "--red-tree", str(bad)]) == 1
    _, err = capsys.readouterr()
    assert f"{bad.name}:3:" in err and "Nope" in err
    assert main(["run", "--headless", "--seconds", "1", "--tree", str(tmp_path / "missing.xml")]) == 1
    assert "missing.xml: no such tree file" in capsys.readouterr().err


def test_the_viewer_opens_only_with_a_display() -> None:
    assert not display_available({})
    assert display_available({"DISPLAY": ":0"})
    assert display_available({"WAYLAND_DISPLAY": "wayland-0"})
    assert display_available({"SDL_VIDEODRIVER": "dummy"})


def test_kid_size_plays_four_a_side_by_default() -> None:
    match = Match(MatchConfig(field="kid", duration_s=0.1))
    assert match.team_size == 4 and len(match.agents) == 8
    assert math.isclose(match.field.length_m, 9.0)


def test_editing_a_tree_during_a_match_swaps_it_for_every_robot_at_one_tick(tmp_path: Path, caplog) -> None:
    import logging
    import os

    caplog.set_level(logging.WARNING, logger="soccerbt.match")

    tree = tmp_path / "walk.xml"
    text = '<root BTCPP_format="4"><BehaviorTree ID="Main"><SetVelocity x="{x}"/></BehaviorTree></root>'
    tree.write_text(text.replace("{x}", "0.3"))
    os.utime(tree, ns=(10**9, 10**9))
    match = Match(fast(blue_tree=str(tree), idle_teams=("red",)))
    match.run(0.5)
    assert all(a.last_command.vx_mps == pytest.approx(0.3) for a in match.agents.values())
    tree.write_text(text.replace("{x}", "0.6").replace("<SetVelocity", "<SetVelocityy"))  # a typo first
    os.utime(tree, ns=(2 * 10**9, 2 * 10**9))
    match.run(0.6)
    assert [e.kind for e in match.agent_events] == ["tree_reload_failed"] * 3
    assert all(a.last_command.vx_mps == pytest.approx(0.3) for a in match.agents.values())  # still playing
    tree.write_text(text.replace("{x}", "0.6"))
    os.utime(tree, ns=(3 * 10**9, 3 * 10**9))
    match.run(1.0)
    reloads = [e for e in match.agent_events if e.kind == "tree_reloaded"]
    assert len(reloads) == 3 and len({e.t_s for e in reloads}) == 1  # the same tick boundary
    assert all(a.last_command.vx_mps == pytest.approx(0.6) for a in match.agents.values())
    assert len(match.result().errors) == 1  # the failed reload, once for the team, located
    assert all(f"{tree.name}:1:" in e and "SetVelocityy" in e for e in match.result().errors)
    # said once each on stderr, naming the file and every robot that uses it
    said = [r.getMessage() for r in caplog.records if r.name == "soccerbt.match"]
    team = "the blue team (blue1, blue2, blue3)"
    assert [m for m in said if m.startswith("tree reload failed")] == [
        next(m for m in said if m.startswith(f"tree reload failed for {team} (the running tree stays): {tree}:1:"))]
    assert [m for m in said if m.startswith("tree reloaded")] == [f"tree reloaded for {team}: {tree} (1 file(s))"]


def test_gc_version_chooses_the_referee_and_the_packets(capsys) -> None:
    from soccerbt.gamecontroller.hl_referee import Referee
    from soccerbt.gamecontroller.hsl_referee import HslReferee

    assert type(Match(fast(team_size=1, gc_version=12)).referee) is Referee
    assert type(Match(fast(team_size=1)).referee) is HslReferee  # the default: HSL, v20
    assert Match(fast(team_size=1)).referee.config.version == 20
    match = Match(fast(team_size=1, gc_version=20))
    assert isinstance(match.referee, HslReferee) and match.referee.config.ready_s == 1.0
    match.run(2.0)
    assert {a.blackboard["gc_packet_version"] for a in match.agents.values()} == {20}
    assert all(a.blackboard["gc_game_state"] == "SET" for a in match.agents.values())  # the delayed PLAYING
    assert match.referee.state == GameState.PLAYING
    ref = match.referee  # every message of the team links counts against the budget (not in INITIAL)
    for team, link in match.team_links.items():
        assert 0 < ref.messages_counted[team] <= link.sent
        assert ref.packet().team(ref.team_number(team)).message_budget == 12000 - ref.messages_counted[team]
    assert all(0 < a.blackboard["gc_message_budget"] < 12000 for a in match.agents.values())
    code = main(["run", "--headless", "--seconds", "2", "--seed", "3", "--json", "--team-size", "1",
                 "--gc-version", "19"])
    out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)["errors"] == []
    with pytest.raises(SystemExit):
        main(["run", "--headless", "--seconds", "1", "--gc-version", "18"])


def test_the_team_message_period_fits_the_hsl_message_budget() -> None:
    from soccerbt.agent import team_message_period_s

    # the 2026 budget of 12000 for a game of two 600 s halves, with half again for READY, SET
    # and stopped play: 3 v 3 sends every 0.45 s, 5 v 5 every 0.75 s; never faster than 10 Hz
    assert team_message_period_s(12000, 3, 600.0) == 0.45
    assert team_message_period_s(12000, 5, 600.0) == 0.75
    assert team_message_period_s(12000, 3, 60.0) == 0.1
    assert team_message_period_s(100, 3, 600.0) == 2.0 and team_message_period_s(0, 3, 600.0) == 2.0
    for size, half in ((3, 600.0), (5, 600.0), (7, 600.0), (1, 300.0)):
        period = team_message_period_s(12000, size, half)
        assert size * 2 * half * 1.5 / period <= 12000
    assert Match(fast(gc_version=12)).team_message_period_s == 0.1  # HL v12: no budget, 10 Hz as ever
    hsl = Match(MatchConfig(gc_version=20))
    assert hsl.team_message_period_s == 0.45
    assert {a.team.period_s for a in hsl.agents.values()} == {0.45}
    assert {a.team.message_timeout_s for a in hsl.agents.values()} == {2.0}
    big = Match(MatchConfig(gc_version=20, field="L", team_size=5, particles=50))
    assert {a.team.period_s for a in big.agents.values()} == {0.75}
    assert {a.team.message_timeout_s for a in big.agents.values()} == {3.0}
    forced = Match(fast(team_size=1, gc_version=20, team_message_period_s=0.2))
    assert {a.team.period_s for a in forced.agents.values()} == {0.2}
    with pytest.raises(ValueError):
        MatchConfig(team_message_period_s=0.0)


def test_a_ball_dragged_while_the_referee_places_it_goes_back_to_the_set_play_spot() -> None:
    from soccerbt.gamecontroller.protocol import SubState

    match = Match(MatchConfig(seed=5, duration_s=60.0, team_size=1, gc_version=20))
    while not (match.referee.state == GameState.PLAYING and match.t_s > 25.0):
        match.step()
    assert match.referee.award_free_kick(Team.BLUE, (1.0, -1.0))
    assert match.referee.sub_state == SubState.STOP
    match.place_ball(-3.0, 2.0)  # the viewer's drag, while the referee prepares the set play
    while match.referee.sub_state == SubState.STOP:
        match.step()
    ball = match.world.ball
    assert (round(ball.x_m, 6), round(ball.y_m, 6)) == (1.0, -1.0)
