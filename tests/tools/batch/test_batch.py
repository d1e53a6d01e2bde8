"""Batch runs: seed lists, colour plans, the same results whatever the number of workers (and
the same as run_match called directly, and on Ray when it is installed), totals per tree, A
against B with its statistics, the command's table and JSON, --until-significant, broken trees,
an interrupted batch that stops its workers, a crashed or hung worker retried once then reported
failed, and the --out folder a rerun resumes from."""
from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from soccerbt.__main__ import main
from soccerbt.gamecontroller.referee_common import RefereeConfig
from soccerbt.match import GoalSummary, MatchConfig, MatchResult, run_match
from soccerbt.tools.batch.batch import (
    BatchGame,
    BatchInterrupted,
    GameOutcome,
    ab_scores,
    batch_json,
    comparison,
    next_seeds,
    parse_seeds,
    plan_games,
    run_batch,
    table_lines,
    totals,
)

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

# quick to PLAYING, so that short matches already differ from seed to seed
FAST = RefereeConfig(players_per_team=2, initial_s=0.2, ready_s=1.0, set_s=0.5)
BASE = MatchConfig(team_size=2, duration_s=4.0, referee=FAST, particles=100)
BROKEN_TREE = '<root BTCPP_format="4">\n<BehaviorTree ID="Main">\n<Nope/>\n</BehaviorTree>\n</root>\n'


def test_seed_lists_and_ranges() -> None:
    assert parse_seeds("0-9") == list(range(10))
    assert parse_seeds("1,4,7") == [1, 4, 7]
    assert parse_seeds("0-3, 10,20-22") == [0, 1, 2, 3, 10, 20, 21, 22]
    assert parse_seeds("5") == [5]
    for bad, what in (("3-1", "low seed"), ("a", "not a seed"), ("1,,2", "empty item"), ("1,0-2", "listed twice"),
                      ("-1", "not a seed"), ("0-999999", "more than")):
        with pytest.raises(ValueError, match=what):
            parse_seeds(bad)


def test_colour_plans() -> None:
    fixed = plan_games(BASE, [0, 1], "a.xml", "b.xml")
    assert [(g.seed, g.blue, g.config.blue_tree, g.config.red_tree) for g in fixed] == [
        (0, "A", "a.xml", "b.xml"), (1, "A", "a.xml", "b.xml")]
    swap = plan_games(BASE, [0, 1], "a.xml", "b.xml", "swap")
    assert [(g.seed, g.blue, g.red, g.config.blue_tree) for g in swap] == [
        (0, "A", "B", "a.xml"), (0, "B", "A", "b.xml"), (1, "A", "B", "a.xml"), (1, "B", "A", "b.xml")]
    alternate = plan_games(BASE, [4, 5, 6], "a.xml", "b.xml", "alternate")
    assert [(g.seed, g.blue, g.config.red_tree) for g in alternate] == [
        (4, "A", "b.xml"), (5, "B", "a.xml"), (6, "A", "b.xml")]
    assert all(g.config.seed == g.seed and g.config.duration_s == 4.0 for g in swap)
    with pytest.raises(ValueError, match="colours must be one of"):
        plan_games(BASE, [0], None, None, "random")


@pytest.fixture(scope="module")
def two_seeds() -> tuple[list[BatchGame], list[GameOutcome], list[GameOutcome]]:
    games = plan_games(BASE, [3, 4], None, None, "swap")
    return games, run_batch(games, jobs=1), run_batch(games, jobs=2)


def test_results_do_not_depend_on_the_number_of_workers(two_seeds) -> None:
    games, one, two = two_seeds
    assert [o.game for o in one] == [o.game for o in two] == games  # plan order, not finishing order
    assert all(o.error is None for o in one + two)
    assert [o.result for o in one] == [o.result for o in two]
    # and the seeds really play different matches (else equality above proves little)
    walked = {o.game.seed: o.result.robot("blue2").distance_walked_m for o in one}
    assert walked[3] != walked[4]


def test_batch_results_equal_run_match_called_directly(two_seeds) -> None:
    games, one, _ = two_seeds
    for game, outcome in zip(games, one, strict=True):
        assert run_match(game.config) == outcome.result
        assert outcome.result.seed == game.seed and outcome.result.sim_s == 4.0


def _result(seed: int, blue: int, red: int) -> MatchResult:
    goals = tuple(GoalSummary(10.0 + k, "blue", "blue2", False, True) for k in range(blue)) + tuple(
        GoalSummary(50.0 + k, "red", "red1", k == 0, True) for k in range(red))
    return MatchResult(seed=seed, sim_s=60.0, score={"blue": blue, "red": red}, goals=goals, robots=(), errors=(),
                       trees={"blue": "a", "red": "b"}, finished=False)


def test_totals_follow_each_tree_across_colours() -> None:
    games = plan_games(BASE, [0, 1], "a.xml", "b.xml", "swap")
    # seed 0: A blue wins 2:1, B blue draws 0:0; seed 1: A blue loses 0:1, B blue wins 3:0
    scores = [(2, 1), (0, 0), (0, 1), (3, 0)]
    outcomes = [GameOutcome(g, _result(g.seed, *s)) for g, s in zip(games, scores, strict=True)]
    outcomes.append(GameOutcome(BatchGame(2, False, BASE), None, "x.xml:3: unknown node 'Nope'"))
    t = totals(outcomes, {"A": "a.xml", "B": "b.xml"})
    a, b = t["A"], t["B"]
    assert (a.played, a.wins, a.draws, a.losses, a.goals_for, a.goals_against) == (4, 1, 1, 2, 2, 5)
    assert (b.played, b.wins, b.draws, b.losses, b.goals_for, b.goals_against) == (4, 2, 1, 1, 5, 2)
    assert (a.as_blue, a.as_red, b.as_blue, b.as_red) == (2, 2, 2, 2)
    assert a.errors == b.errors == 1
    lines = table_lines(outcomes, {"A": "a.xml", "B": "b.xml"})
    assert lines[1].split()[:4] == ["0", "A", "B", "2:1"]
    assert "10.0s blue (blue2), 11.0s blue (blue2), 50.0s red (red1 og)" in lines[1]
    assert lines[5].endswith("error: x.xml:3: unknown node 'Nope'")
    assert lines[-2].split()[:7] == ["A", "4", "1", "1", "2", "2", "5"]
    summary = batch_json(outcomes, {"A": "a.xml", "B": "b.xml"}, "swap")
    assert summary["totals"]["B"]["wins"] == 2 and summary["games"][4]["error"].startswith("x.xml:3:")
    json.dumps(summary)  # JSON-ready
    # A against B, from A's side whatever the colours; the failed game left out
    assert ab_scores(outcomes) == [(2, 1), (0, 0), (0, 1), (0, 3)]
    h = comparison(outcomes)
    assert (h.games, h.wins, h.draws, h.losses, h.goals_for, h.goals_against) == (4, 1, 1, 2, 2, 5)
    assert h.points_share == 0.375 and not h.significant
    assert summary["statistics"] == h.to_dict()
    assert summary["statistics"]["sentence"].startswith("no significant difference after 4 games")


def test_next_seeds_continue_from_the_last_one_given() -> None:
    assert next_seeds([0, 1, 2], 3) == [3, 4, 5]
    assert next_seeds([5, 2], 3) == [3, 4, 6]  # from the last one, skipping seeds already played
    assert next_seeds([], 2) == [0, 1] and next_seeds([7], 0) == []
    with pytest.raises(ValueError):
        next_seeds([1], -1)


def test_the_command_prints_the_same_table_for_any_jobs(tmp_path: Path, capsys) -> None:
    argv = ["batch", "--seeds", "0-1", "--seconds", "2", "--team-size", "1", "--field", "kid", "--swap-colours"]
    assert main([*argv, "--jobs", "1", "--json", str(tmp_path / "one.json")]) == 0
    out_one, err_one = capsys.readouterr()
    assert main([*argv, "--jobs", "2", "--json", str(tmp_path / "two.json")]) == 0
    out_two, err_two = capsys.readouterr()
    assert out_one == out_two
    lines = out_one.splitlines()
    assert [line.split()[:3] for line in lines[1:5]] == [["0", "A", "B"], ["0", "B", "A"], ["1", "A", "B"],
                                                         ["1", "B", "A"]]
    assert sum(line.startswith("[") for line in err_one.splitlines()) == 4  # a progress line per game
    assert "[4/4] seed" in err_two
    one = json.loads((tmp_path / "one.json").read_text())
    two = json.loads((tmp_path / "two.json").read_text())
    assert one == two
    assert [g["seed"] for g in one["games"]] == [0, 0, 1, 1]
    assert one["totals"]["A"]["played"] == 4 and one["totals"]["A"]["as_blue"] == 2
    assert one["games"][0]["result"]["sim_s"] == 2.0 and one["complete"] is True
    # the statistics under the totals, and in the JSON
    assert "A against B: 4 games," in out_one
    # two seconds: no goals, so no interval ("no evidence either way"), as the JSON says too
    assert one["statistics"]["goal_difference"]["text"] in lines
    assert any(line.startswith("goal difference per game") for line in lines)
    assert any(line.startswith("points share ") and "(Wilson)" in line for line in lines)
    assert lines[-1] == one["statistics"]["sentence"]
    assert one["statistics"]["games"] == 4 and "until_significant" not in one["statistics"]


TINY = ["batch", "--seconds", "1", "--team-size", "1", "--field", "kid", "--jobs", "1", "--quiet"]


def test_until_significant_stops_at_the_cap_when_the_trees_are_the_same(tmp_path: Path, capsys) -> None:
    out = tmp_path / "until.json"
    assert main([*TINY, "--seeds", "0-1", "--until-significant", "--max-games", "4", "--json", str(out)]) == 0
    stdout, err = capsys.readouterr()
    assert "round 1: no significant difference after 2 games" in err and "playing seeds 2-3 (2 more games)" in err
    assert "stopping at --max-games 4" in err
    summary = json.loads(out.read_text())
    assert [(g["seed"], g["blue"], g["red"]) for g in summary["games"]] == [(s, "A", "B") for s in range(4)]
    assert all(set(g["result"]["score"]) == {"blue", "red"} for g in summary["games"])  # the shape kept
    assert summary["seeds"] == [0, 1, 2, 3] and summary["complete"] is True
    stats = summary["statistics"]
    assert stats["games"] == 4 and stats["significant"] is False and stats["stronger"] is None
    assert stats["until_significant"] == {"max_games": 4, "rounds": 2, "stopped": "max_games"}
    assert stats["points_share"]["low"] < 0.5 < stats["points_share"]["high"]
    assert stdout.splitlines()[-1] == stats["sentence"] and stats["sentence"].startswith(
        "no significant difference after 4 games")


def test_until_significant_extra_seeds_follow_the_colours_rule(tmp_path: Path, capsys) -> None:
    out = tmp_path / "alt.json"
    # one seed a round (one job); seeds continue from 5; odd seeds swapped
    assert main([*TINY, "--seeds", "5", "--alternate-colours", "--until-significant", "--max-games", "3",
                 "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert [(g["seed"], g["blue"]) for g in summary["games"]] == [(5, "B"), (6, "A"), (7, "B")]
    assert summary["statistics"]["until_significant"]["rounds"] == 3
    # swapped colours play a seed twice: a cap of 3 leaves room for one more seed only
    assert main([*TINY, "--seeds", "0", "--swap-colours", "--until-significant", "--max-games", "3",
                 "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert [(g["seed"], g["blue"]) for g in summary["games"]] == [(0, "A"), (0, "B")]
    capsys.readouterr()
    assert main([*TINY, "--seeds", "0", "--max-games", "3"]) == 2
    assert "--max-games goes with --until-significant" in capsys.readouterr().err


def test_a_broken_tree_stops_the_batch_before_it_starts(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text(BROKEN_TREE)
    assert main(["batch", "--seeds", "0-3", "--seconds", "1", "--red-tree", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad.name}:3:" in err and "Nope" in err
    assert main(["batch", "--seeds", "0", "--tree", str(tmp_path / "missing.xml")]) == 1
    assert "missing.xml: no such tree file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["batch", "--seeds", "4-2"])


def test_a_game_that_cannot_start_comes_back_as_its_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text(BROKEN_TREE)
    games = plan_games(MatchConfig(team_size=1, duration_s=0.5), [0, 1], None, str(bad))
    outcomes = run_batch(games, jobs=2)
    assert [o.result for o in outcomes] == [None, None]
    assert all(o.error.startswith(f"{bad}:3:") or o.error.startswith(f"{bad.resolve()}:3:") for o in outcomes)


def test_an_interrupted_batch_keeps_what_finished_and_stops_its_workers() -> None:
    games = plan_games(MatchConfig(team_size=1, field="kid", duration_s=1.0), [0, 1, 2, 3, 4, 5], None, None)
    seen: list[int] = []

    def stop_after_the_first(outcome: GameOutcome, finished: int, total: int) -> None:
        seen.append(outcome.game.seed)
        raise KeyboardInterrupt  # what Ctrl-C raises in the parent

    with pytest.raises(BatchInterrupted) as stop:
        run_batch(games, jobs=2, on_done=stop_after_the_first)
    assert [o.game.seed for o in stop.value.outcomes] == seen and len(seen) == 1
    assert stop.value.outcomes[0].result is not None
    assert multiprocessing.active_children() == []  # the pool's workers are gone


# --- issue 17: backends, failures, the output folder ---------------------------------------------------

import functools  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import replace  # noqa: E402

from soccerbt.tools.batch import batch_pool  # noqa: E402
from soccerbt.tools.batch.batch_pool import RayMissing, play_game  # noqa: E402

TINY_GAMES = plan_games(MatchConfig(team_size=1, field="kid", duration_s=1.0), [0, 1, 2, 3], None, None)


def _failing_play(marker_dir: str, config: MatchConfig, record_path: str | None = None) -> MatchResult:
    """Seed 1 crashes on its first attempt only, seed 2 on every attempt, seed 3 hangs."""
    if config.seed == 1:
        marker = Path(marker_dir) / "seed1-crashed"
        if not marker.exists():
            marker.write_text("once")
            os._exit(3)
    if config.seed == 2:
        os._exit(3)
    if config.seed == 3:
        time.sleep(60)
    return play_game(config, record_path)


def test_a_crashed_or_hung_worker_is_reported_retried_once_then_failed(tmp_path: Path) -> None:
    retried: list[tuple[int, str]] = []
    outcomes = run_batch(TINY_GAMES, jobs=2, game_timeout_s=1.0, play=functools.partial(_failing_play, str(tmp_path)),
                         on_retry=lambda game, reason: retried.append((game.seed, reason)))
    assert [o.game.seed for o in outcomes] == [0, 1, 2, 3]  # none dropped, plan order
    assert outcomes[0].result == run_match(TINY_GAMES[0].config) and outcomes[0].attempts == 1
    assert outcomes[1].result == run_match(TINY_GAMES[1].config) and outcomes[1].attempts == 2  # retried once
    assert sorted(retried) == [(1, "the worker crashed (exit code 3)"), (2, "the worker crashed (exit code 3)"),
                               (3, "no result after 1 s of wall time (--game-timeout): the worker was stopped")]
    crashed, hung = outcomes[2], outcomes[3]
    assert crashed.failed and crashed.attempts == 2
    assert crashed.error == "attempt 1: the worker crashed (exit code 3); attempt 2: the worker crashed (exit code 3)"
    assert hung.failed and hung.attempts == 2 and hung.error.count("no result after 1 s") == 2
    assert multiprocessing.active_children() == []  # the hung worker was stopped, the others left
    summary = batch_json(outcomes, {"A": "a.xml", "B": "a.xml"}, "fixed")
    assert summary["failed_games"] == 2 and summary["statistics"]["games"] == 2
    assert [(g["seed"], g["failed"], g["attempts"]) for g in summary["games"]] == [
        (0, False, 1), (1, False, 2), (2, True, 2), (3, True, 2)]


def _always_crash(config: MatchConfig, record_path: str | None = None) -> MatchResult:
    if config.seed == 1:
        os._exit(5)
    return play_game(config, record_path)


OUT_ARGS = ["batch", "--seeds", "0-1", "--seconds", "1", "--team-size", "1", "--field", "kid", "--jobs", "2",
            "--quiet"]


def test_a_game_whose_worker_fails_twice_is_in_the_json_and_the_summary(tmp_path: Path, capsys,
                                                                       monkeypatch) -> None:
    monkeypatch.setattr(batch_pool, "play_game", _always_crash)  # workers fork after this
    out = tmp_path / "out"
    assert main([*OUT_ARGS, "--out", str(out), "--json", str(tmp_path / "all.json")]) == 1
    err = capsys.readouterr().err
    assert "seed 1 A blue vs B red: the worker crashed (exit code 5); playing it again" in err
    assert "1 game(s) failed: seeds 1 (A blue)" in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary == json.loads((tmp_path / "all.json").read_text())
    assert summary["failed_games"] == 1 and summary["totals"]["A"]["errors"] == 1
    failed = summary["games"][1]
    assert (failed["seed"], failed["failed"], failed["attempts"], failed["result"]) == (1, True, 2, None)
    assert json.loads((out / "seed-0001-A-blue-B-red.json").read_text())["failed"] is True


def test_out_folder_resumes_skipping_finished_games_and_replays_half_written_ones(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main([*OUT_ARGS, "--out", str(out), "--record"]) == 0
    first_err = capsys.readouterr().err
    assert "2 games (2 played now)" in first_err
    names = sorted(p.name for p in out.iterdir())
    assert names == [".soccerbt-batch.lock", "seed-0000-A-blue-B-red.json", "seed-0000-A-blue-B-red.mcap",
                     "seed-0001-A-blue-B-red.json", "seed-0001-A-blue-B-red.mcap",
                     "summary.json"]  # no temporary file left (the lock stays: batch_store.LOCK_NAME)
    summary = (out / "summary.json").read_text()
    game0 = out / "seed-0000-A-blue-B-red.json"
    stamp = game0.stat().st_mtime_ns
    # a rerun plays nothing and writes the same summary
    assert main([*OUT_ARGS, "--out", str(out), "--record"]) == 0
    err = capsys.readouterr().err
    assert "2 of 2 games already in" in err and "2 games (0 played now)" in err
    assert (out / "summary.json").read_text() == summary and game0.stat().st_mtime_ns == stamp
    # a half-written game file does not count: that game is played again, the summary is the same
    text = game0.read_text()
    game0.write_text(text[: len(text) // 2])
    assert main([*OUT_ARGS, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{game0}: not whole JSON" in err and "2 games (1 played now)" in err
    assert (out / "summary.json").read_text() == summary and json.loads(game0.read_text())["seed"] == 0
    # the folder of another batch is refused before anything is played
    assert main([*OUT_ARGS[:4], "2", *OUT_ARGS[5:], "--out", str(out)]) == 2
    assert "a game of another batch (other match options" in capsys.readouterr().err
    # --record needs --out; --address needs ray
    assert main([*OUT_ARGS, "--record"]) == 2
    assert "--record goes with --out DIR" in capsys.readouterr().err
    assert main([*OUT_ARGS, "--address", "auto"]) == 2
    assert "--address goes with --backend ray" in capsys.readouterr().err


def test_ray_missing_gives_the_line_that_installs_it(monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    with pytest.raises(RayMissing, match=r"ray is not installed: pip install 'soccerbt\[ray\]'"):
        run_batch(TINY_GAMES[:2], jobs=2, backend="ray")
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else find_spec(name, *a))
    assert main([*OUT_ARGS, "--backend", "ray"]) == 2
    assert "soccerbt batch: ray is not installed: pip install 'soccerbt[ray]'" in capsys.readouterr().err


def test_help_and_a_process_batch_import_neither_ray_nor_tqdm() -> None:
    probe = ("import contextlib, io, sys\n"
             "from soccerbt.__main__ import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    try:\n        main(['--help'])\n    except SystemExit:\n        pass\n"
             "    helped = sorted({'ray', 'tqdm', 'scipy'} & set(sys.modules))\n"
             "    code = main(['batch', '--seconds', '0.5', '--team-size', '1', '--jobs', '1', '--quiet'])\n"
             "print(helped, code, sorted({'ray', 'tqdm'} & set(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "[] 0 []"


def _descendants(pid: int) -> list[str]:
    """The live processes below `pid` (from /proc): "pid name"."""
    parents: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            name, rest = stat[stat.index("(") + 1: stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
            if rest[0] != "Z":
                parents[int(entry.name)] = (int(rest[1]), name)
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        for child, (parent, name) in parents.items():
            if parent == current:
                out.append(f"{child} {name}")
                todo.append(child)
    return out


@pytest.mark.ray
def test_ray_plays_the_same_games_and_stops_on_ctrl_c_without_orphans() -> None:
    pytest.importorskip("ray")
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc")
    games = TINY_GAMES
    long_games = plan_games(replace(TINY_GAMES[0].config, duration_s=600.0), [7, 8], None, None)
    before = set(_descendants(os.getpid()))
    seen: list[GameOutcome] = []
    raised_at: list[float] = []

    def stop_after_the_short_games(outcome: GameOutcome, finished: int, total: int) -> None:
        seen.append(outcome)
        if len(seen) == len(games):
            raised_at.append(time.monotonic())
            raise KeyboardInterrupt  # what Ctrl-C raises in the parent

    with pytest.raises(BatchInterrupted) as stop:  # ray local with 2 CPUs, started and shut down by the batch
        run_batch(games + long_games, jobs=2, backend="ray", on_done=stop_after_the_short_games,
                  game_timeout_s=120.0)
    stopped = time.monotonic()
    assert stopped - raised_at[0] < 10.0  # tasks cancelled, the local instance shut down
    # the same games as one by one, in plan order
    assert [o.result for o in stop.value.outcomes] == [run_match(g.config) for g in games]
    while set(_descendants(os.getpid())) - before and time.monotonic() < stopped + 5.0:
        time.sleep(0.2)
    assert set(_descendants(os.getpid())) - before == set()  # no orphan: ray's processes are gone
