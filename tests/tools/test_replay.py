"""Replay: the log index gives back exactly what was recorded, stepping and seeking both ways,
scenes in the world frame across half time, the replay keys, PNGs, --info, --robot, and bad or
cut logs (located errors, exit 2; a cut end replays up to the last whole record)."""
from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pygame
import pytest

from soccerbt.__main__ import main
from soccerbt.gamecontroller.referee import RefereeConfig
from soccerbt.match import Match, MatchConfig, MatchResult
from soccerbt.tools.match_source import MatchSceneSource
from soccerbt.tools.recorder import Recorder, read_log
from soccerbt.tools.render import BALL, GRASS, GRASS_DARK, LINE, TEAM_COLOURS, FieldRenderer
from soccerbt.tools.replay import CHUNK_STEPS, ReplayError, ReplayLog, ReplaySceneSource, robot_lines, summary
from soccerbt.tools.replay_cli import ReplayViewer, save_replay_screenshot
from soccerbt.tools.scene import Scene
from soccerbt.world.types import Team

# a short half so that the recording crosses half time (the teams change ends)
REFEREE = RefereeConfig(players_per_team=2, initial_s=0.2, ready_s=1.0, set_s=0.5, half_duration_s=3.0,
                        half_time_break_s=0.5)
SECONDS = 7.0


LIVE_STEPS = (250, 650, 700)  # where the fixture keeps the live viewer's scene (both halves)


class _LiveScenes:
    """An observer keeping the live match's viewer scenes at a few steps, to compare with the replay."""

    def __init__(self) -> None:
        self.source: MatchSceneSource | None = None
        self.scenes: dict[int, Scene] = {}

    def on_step(self, match: Match) -> None:
        if match.steps in LIVE_STEPS:
            if self.source is None:
                self.source = MatchSceneSource(match, show_particles=False)
            self.scenes[match.steps - 1] = self.source.scene(None)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, MatchResult, list[dict], dict[int, Scene]]:
    """A 7 s match of 2 v 2 recorded to .jsonl.gz, its result, the raw step records and the live
    viewer's scenes at LIVE_STEPS (keyed by step index)."""
    path = tmp_path_factory.mktemp("replay") / "run.jsonl.gz"
    recorder = Recorder(path)
    live = _LiveScenes()
    match = Match(MatchConfig(seed=5, team_size=2, duration_s=SECONDS, referee=REFEREE, particles=100),
                  observers=[recorder, live])
    while not match.finished():
        match.step()
    result = match.result()
    recorder.finish(result)
    steps = [r for r in read_log(path) if r["type"] == "step"]
    return path, result, steps, live.scenes


@pytest.fixture(scope="module")
def log(recorded) -> ReplayLog:
    return ReplayLog.load(recorded[0])


def _assert_scene_is_record(source: ReplaySceneSource, record: dict) -> None:
    scene = source.scene(None)
    assert scene.t_s == record["t"]
    assert scene.ball == tuple(record["ball"][:2])
    for robot in scene.robots:
        x, y, th, fallen, removed = record["robots"][robot.key][:5]
        assert (robot.pose.x_m, robot.pose.y_m, robot.pose.theta_rad) == (x, y, th)  # exact, not approx
        assert (robot.fallen, robot.removed) == (bool(fallen), bool(removed))
    assert (scene.banner.score_blue, scene.banner.score_red) == tuple(record["gc"][3:5])


def test_the_index_holds_every_step_in_order(recorded, log: ReplayLog) -> None:
    _, result, steps, _ = recorded
    assert log.n == len(steps) == 700
    assert log.warnings == []
    assert log.robots == ["blue1", "blue2", "red1", "red2"]
    assert log.t_s[0] == 0.01 and log.duration_s == result.sim_s == SECONDS
    assert log.header["blue_attacks_positive_x_first_half"] is True
    for i in (0, 1, CHUNK_STEPS - 1, CHUNK_STEPS, 399, log.n - 1):
        assert log.record(i) == steps[i]


def test_stepping_forward_then_back_gives_exactly_the_recorded_poses(recorded, log: ReplayLog) -> None:
    steps = recorded[2]
    source = ReplaySceneSource(log)
    for i in range(300):
        assert source.index == i
        _assert_scene_is_record(source, steps[i])
        source.step()
    for i in range(300, -1, -1):  # backward across two chunk boundaries
        assert source.index == i
        _assert_scene_is_record(source, steps[i])
        source.step_back()
    assert source.index == 0  # clamped at the start
    source.seek(log.n + 50)
    assert source.finished() and source.index == log.n - 1


def test_seeking_by_time(recorded, log: ReplayLog) -> None:
    steps = recorded[2]
    source = ReplaySceneSource(log)
    source.seek_time(5.0)
    assert source.t_s == 5.0
    _assert_scene_is_record(source, steps[499])
    source.jump(-1.0)
    assert source.t_s == 4.0
    source.jump(0.004)  # less than a tick still moves one tick
    assert source.t_s == 4.01
    source.seek_time(0.0)
    assert source.index == 0
    source.seek_time(99.0)
    assert source.index == log.n - 1


def test_blackboard_at_a_step_is_the_sum_of_the_changes_before_it(recorded, log: ReplayLog) -> None:
    steps = recorded[2]
    board: dict = {}
    expected = {}
    for i, step in enumerate(steps[:CHUNK_STEPS * 2 + 10]):
        board.update(step.get("bb", {}).get("red2", {}))
        if i in (0, 5, CHUNK_STEPS, CHUNK_STEPS + 1, CHUNK_STEPS * 2 + 9):
            expected[i] = dict(board)
    for i, want in expected.items():
        assert log.blackboard_at(i, "red2") == want
    with pytest.raises(KeyError, match="no robot 'red9'"):
        log.blackboard_at(0, "red9")


def test_scenes_equal_the_live_viewers_on_both_halves(recorded, log: ReplayLog) -> None:
    steps, live = recorded[2], recorded[3]
    halves = [i for i, s in enumerate(steps) for e in s.get("events", []) if e["kind"] == "half"]
    assert len(halves) == 1 and LIVE_STEPS[0] < halves[0] < LIVE_STEPS[1]  # the recording crosses half time
    source = ReplaySceneSource(log)
    for i, want in live.items():
        source.seek(i)
        assert source.blue_attacks_positive_x() is (i < halves[0])
        got = source.scene(None)
        assert got.t_s == pytest.approx(want.t_s) and got.ball == pytest.approx(want.ball, abs=1e-4)
        for robot, other in zip(got.robots, want.robots, strict=True):
            assert robot.key == other.key
            assert (robot.pose.x_m, robot.pose.y_m) == pytest.approx((other.pose.x_m, other.pose.y_m), abs=1e-4)
            assert (robot.role, robot.decision, robot.penalised) == (other.role, other.decision, other.penalised)
            # the estimates: team frame in the log, drawn in the world frame as the viewer draws them
            e, o = robot.estimate, other.estimate
            assert (e.x_m, e.y_m) == pytest.approx((o.x_m, o.y_m), abs=1e-3)
            assert math.remainder(e.theta_rad - o.theta_rad, 2 * math.pi) == pytest.approx(0.0, abs=1e-3)
            if other.ball_estimate is None:
                assert robot.ball_estimate is None
            else:
                assert robot.ball_estimate == pytest.approx(other.ball_estimate, abs=1e-3)
        b, w = got.banner, want.banner
        assert (b.state, b.sub_state, b.score_blue, b.score_red, b.first_half) == \
            (w.state, w.sub_state, w.score_blue, w.score_red, w.first_half)


def test_the_selected_robot_panel_lists_status_command_and_recent_changes(recorded, log: ReplayLog) -> None:
    steps = recorded[2]
    source = ReplaySceneSource(log)
    source.seek(250)
    scene = source.scene("blue2")
    assert scene.tree_lines[0].name == "game.xml (root)"
    assert scene.tree_lines[0].status == steps[250]["status"]["blue2"]
    vx = steps[250]["robots"]["blue2"][5]
    assert scene.tree_lines[1].name.startswith(f"cmd vx {vx:+.2f}")
    names = [name for name, _ in scene.blackboard_changes]
    assert len(names) == len(set(names)) > 0
    # the newest change comes first: an entry changed at step 250 itself
    assert names[0] in steps[250]["bb"]["blue2"]


def test_replay_keys_move_the_position(recorded, log: ReplayLog) -> None:
    pygame.display.init()
    source = ReplaySceneSource(log)
    viewer = ReplayViewer(source, size_px=(1000, 600))

    def key(k: int, mod: int = 0) -> bool:
        return viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=k, mod=mod, unicode="", scancode=0))

    source.seek(100)
    assert not viewer.pacer.paused
    assert key(pygame.K_RIGHT) and source.index == 101 and viewer.pacer.paused  # stepping pauses
    key(pygame.K_LEFT)
    key(pygame.K_LEFT)
    assert source.index == 99
    key(pygame.K_RIGHT, pygame.KMOD_LSHIFT)
    assert source.index == 199  # 1 s
    key(pygame.K_LEFT, pygame.KMOD_LSHIFT)
    assert source.index == 99
    key(pygame.K_PAGEDOWN)
    assert source.index == 699  # 10 s, clamped at the end
    key(pygame.K_PAGEUP)
    assert source.index == 0
    key(pygame.K_END)
    assert source.index == log.n - 1
    key(pygame.K_HOME)
    assert source.index == 0
    key(pygame.K_SPACE)
    assert not viewer.pacer.paused
    assert viewer.advance(0.105) == 10 and source.index == 10  # playback at x1: 10 ms of log per 10 ms
    key(pygame.K_PLUS)
    assert viewer.pacer.speed == 2.0
    for _ in range(12):
        key(pygame.K_PLUS)
    assert viewer.pacer.speed == 20.0  # capped: no "max" in a replay
    key(pygame.K_MINUS)
    assert viewer.pacer.speed == 8.0
    # a click selects a robot; it never sends one anywhere
    surface = pygame.Surface(viewer.size_px)
    scene = viewer.render(surface)
    red1 = scene.robot("red1")
    assert "x8" in scene.speed_label and "playing" in scene.speed_label
    viewer.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1,
                                           pos=viewer.renderer.to_px(red1.pose.x_m, red1.pose.y_m)))
    assert viewer.state.selected == "red1"
    assert key(pygame.K_q) is False and key(pygame.K_ESCAPE) is False


def test_a_screenshot_draws_the_field_at_the_time_asked(recorded, tmp_path: Path, capsys) -> None:
    path, _, steps, _ = recorded
    out = tmp_path / "frame.png"
    assert main(["replay", str(path), "--screenshot", str(out), "--at", "2.5", "--select", "blue1"]) == 0
    assert "t=2.50s" in capsys.readouterr().err
    image = pygame.image.load(str(out))
    assert image.get_size() == (1300, 760)
    renderer = FieldRenderer(ReplayLog.load(path).field, (1300 - ReplayViewer.PANEL_WIDTH_PX, 760))
    step = steps[249]

    def pixel(x_m: float, y_m: float) -> tuple[int, int, int]:
        return tuple(image.get_at(renderer.to_px(x_m, y_m)))[:3]

    assert pixel(*step["ball"][:2]) == BALL
    for key, values in step["robots"].items():
        if not values[3]:  # a fallen robot is grey
            team = Team.BLUE if key.startswith("blue") else Team.RED
            assert pixel(values[0], values[1] + 0.17) == TEAM_COLOURS[team]
    f = renderer.field
    assert pixel(f.half_length_m, f.half_width_m * 0.7) == LINE  # the goal line at the far end
    assert pixel(f.half_length_m / 2.0, f.half_width_m + 0.3) in (GRASS, GRASS_DARK)  # beyond the touch line


def test_the_frames_of_two_times_differ_and_match_their_own_scene(log: ReplayLog, tmp_path: Path) -> None:
    source = ReplaySceneSource(log)
    source.seek_time(1.0)
    first = save_replay_screenshot(source, tmp_path / "a.png")
    source.seek_time(6.0)
    second = save_replay_screenshot(source, tmp_path / "b.png")
    a, b = pygame.image.load(str(first)), pygame.image.load(str(second))
    assert pygame.image.tobytes(a, "RGB") != pygame.image.tobytes(b, "RGB")


def test_info_prints_the_header_and_the_match_result(recorded, capsys) -> None:
    path, result, _, _ = recorded
    assert main(["replay", str(path), "--info"]) == 0
    out = capsys.readouterr().out
    assert "seed:      5" in out
    assert f"duration:  {result.sim_s:.2f} s simulated, 700 steps" in out
    assert f"score:     blue {result.score['blue']} : {result.score['red']} red" in out
    assert f"goals:     {len(result.goals)}" in out
    assert "robots:    blue1 blue2 red1 red2" in out
    assert "half 1" in out  # the events counted
    assert "finished:  no" in out


def test_info_lists_goals_from_the_events_without_an_end_record(tmp_path: Path) -> None:
    path = tmp_path / "goals.jsonl"
    header = {"type": "header", "version": 1, "seed": 3, "field": "KidSize", "team_size": 1, "dt_s": 0.01,
              "trees": {"blue": "a.xml", "red": "b.xml"}, "robots": ["blue1", "red1"]}
    rows = [json.dumps(header)]
    for k in range(1, 4):
        step = {"type": "step", "t": k / 100, "ball": [0.0, 0.0, 0.0, 0.0],
                "robots": {"blue1": [-1, 0, 0, 0, 0], "red1": [1, 0, 3.14, 0, 0]}, "gc": [3, 0, 0, k // 2, 0]}
        if k == 2:
            step["events"] = [{"kind": "goal", "detail": "blue 1:0", "t": 0.02, "team": "blue", "robot": "blue1"}]
        rows.append(json.dumps(step))
    path.write_text("\n".join(rows) + "\n")
    log = ReplayLog.load(path)
    text = "\n".join(summary(log))
    assert "score:     blue 1 : 0 red" in text
    assert "goals:     1\n  t=    0.02s  blue  by blue1" in text
    assert "finished:  unknown (no end record)" in text
    assert log.warnings == [f"{path}: no end record (the run was stopped before it finished)"]


def test_robot_prints_its_ticks_between_from_and_to(recorded, capsys) -> None:
    path, _, steps, _ = recorded
    assert main(["replay", str(path), "--robot", "red1", "--from", "1", "--to", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("# red1 blackboard at t=1.000s: {")
    ticks = lines[2:]
    assert len(ticks) == 101
    first = steps[99]
    x, y, th = first["robots"]["red1"][:3]
    assert ticks[0].startswith(f"    1.000  ({x:+.3f}, {y:+.3f}, {th:+.3f})")
    assert ticks[-1].startswith("    2.000")
    assert ticks[0].rstrip().endswith(first["status"]["red1"])  # no changes printed on the first tick
    second_changes = steps[100]["bb"]["red1"]
    name = sorted(second_changes)[0]
    assert f"{name}={json.dumps(second_changes[name], separators=(',', ':'))}" in ticks[1]
    assert main(["replay", str(path), "--robot", "green7"]) == 1
    assert "no robot 'green7'" in capsys.readouterr().err


def test_the_window_plays_to_the_end_and_closes_off_screen(recorded) -> None:
    path = recorded[0]
    assert main(["replay", str(path), "--at", "6.8", "--speed", "20", "--select", "red2"]) == 0


# --- bad and cut logs -----------------------------------------------------------------------------------

HEADER = ('{"type":"header","version":1,"seed":0,"field":"AdultSize","team_size":1,"dt_s":0.01,'
          '"robots":["blue1","red1"]}')
STEP = ('{{"type":"step","t":{t},"ball":[0,0,0,0],"robots":{{"blue1":[-1,0,0,0,0],"red1":[1,0,0,0,0]}},'
        '"gc":[0,0,0,0,0]}}')


@pytest.mark.parametrize(("text", "where", "what"), [
    (HEADER + "\n" + STEP.format(t=0.01) + "\nnot json\n", ":3", "not a JSON record"),
    (HEADER.replace('"version":1', '"version":7') + "\n", ":1", "log version 7 is not supported"),
    (STEP.format(t=0.01) + "\n", ":1", "the first record must be the header"),
    (HEADER.replace('"AdultSize"', '"Huge"') + "\n", ":1", "unknown field size 'Huge'"),
    (HEADER + "\n" + STEP.format(t=0.01).replace('"red1":[1,0,0,0,0]', '"red2":[1,0,0,0,0]') + "\n", ":2",
     "robot red1 (listed in the header) is missing"),
    (HEADER + "\n" + STEP.format(t=0.01).replace('"ball":[0,0,0,0]', '"ball":"here"') + "\n", ":2",
     "'ball' must be a list"),
    (HEADER + "\n" + STEP.format(t=0.02) + "\n" + STEP.format(t=0.01) + "\n", ":3", "time goes backwards"),
    (HEADER + "\n" + STEP.format(t=0.01) + '\n{"type":"frame"}\n', ":3", "unknown record type 'frame'"),
    (HEADER + "\n", "", "no step records"),
    ("", "", "empty file"),
])
def test_bad_logs_give_a_located_error_and_exit_2(tmp_path: Path, capsys, text: str, where: str, what: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(ReplayError) as err:
        ReplayLog.load(path)
    assert str(err.value).startswith(f"{path}{where}: ") and what in str(err.value)
    assert main(["replay", str(path), "--info"]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == str(err.value)  # one line, no traceback
    assert captured.out == ""


def test_files_that_are_not_logs(tmp_path: Path, capsys) -> None:
    fake = tmp_path / "fake.jsonl.gz"
    fake.write_text(HEADER + "\n")
    with pytest.raises(ReplayError, match=r"fake\.jsonl\.gz: not a gzip file"):
        ReplayLog.load(fake)
    with pytest.raises(ReplayError, match=r"missing\.jsonl: no such file"):
        ReplayLog.load(tmp_path / "missing.jsonl")
    with pytest.raises(ReplayError, match="is a directory"):
        ReplayLog.load(tmp_path)
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    assert capsys.readouterr().err.strip() == f"{tmp_path / 'missing.jsonl'}: no such file"


def test_a_truncated_gzip_replays_up_to_the_last_whole_record(recorded, tmp_path: Path, capsys) -> None:
    path, _, steps, _ = recorded
    data = path.read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) * 6 // 10])
    warnings: list[str] = []
    log = ReplayLog.load(cut, warn=warnings.append)
    assert 100 < log.n < len(steps)
    assert len(warnings) >= 1 and "cut short" in warnings[-1] and str(cut) in warnings[-1]
    for i in (0, log.n // 2, log.n - 1):
        assert log.record(i) == steps[i]
    source = ReplaySceneSource(log)
    source.seek(log.n - 1)
    _assert_scene_is_record(source, steps[log.n - 1])
    assert main(["replay", str(cut), "--info"]) == 0
    captured = capsys.readouterr()
    assert "warning:" in captured.err and f"{log.n} steps" in captured.out


def test_a_log_cut_in_the_middle_of_a_line_keeps_the_whole_records(recorded, tmp_path: Path) -> None:
    path, _, steps, _ = recorded
    text = gzip.decompress(path.read_bytes())
    lines = text.split(b"\n")
    whole = 1 + 250  # the header and 250 steps
    plain = tmp_path / "cut.jsonl"
    plain.write_bytes(b"\n".join(lines[:whole]) + b"\n" + lines[whole][: len(lines[whole]) // 2])
    log = ReplayLog.load(plain)
    assert log.n == 250
    assert len(log.warnings) == 1
    assert log.warnings[0].startswith(f"{plain}:{whole + 1}: the last record is cut short (not a JSON record")
    assert log.record(249) == steps[249]
    # the same cut, compressed and with the gzip stream cut too
    cut_gz = tmp_path / "cut2.jsonl.gz"
    cut_gz.write_bytes(gzip.compress(plain.read_bytes())[:-9])
    log2 = ReplayLog.load(cut_gz)
    assert log2.n <= 250 and log2.record(log2.n - 1) == steps[log2.n - 1]
    assert any("gzip stream is cut short" in w for w in log2.warnings)


def test_a_damaged_line_in_the_middle_is_an_error_not_a_warning(recorded, tmp_path: Path) -> None:
    path = recorded[0]
    lines = gzip.decompress(path.read_bytes()).split(b"\n")
    lines[40] = lines[40][:30]  # a line broken inside the file, not at its end
    bad = tmp_path / "mid.jsonl"
    bad.write_bytes(b"\n".join(lines))
    with pytest.raises(ReplayError, match=r"mid\.jsonl:41: not a JSON record"):
        ReplayLog.load(bad)


def test_robot_lines_for_an_empty_range(log: ReplayLog) -> None:
    assert list(robot_lines(log, "blue1", 5.0, 4.0)) == []
