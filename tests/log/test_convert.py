"""JSON-lines logs of earlier versions, converted once into MCAP (``soccerbt replay convert``).

The old writer is gone; ``tests/data/logs/jsonl_v1_2v2.jsonl.gz`` is a log it wrote (seed 5, 2 v 2, 7 s
across half time with a short half). A converted log holds what the old one held, value for
value: times, poses, ball, GameController state and score, root statuses, commands, blackboards,
events and the summary; the viewer, ``--info``, ``--robot`` and ``--screenshot`` open it, and the
tree tools say it has no node data. Bad and cut logs: located errors (exit 2, nothing written),
a cut end converts up to its last whole record with a warning.
"""
from __future__ import annotations

import gzip
import json
import math
import os
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from soccerbt.__main__ import main  # noqa: E402
from soccerbt.log import convert as cv  # noqa: E402
from soccerbt.log import format as lf  # noqa: E402
from soccerbt.log.format import ReplayError  # noqa: E402
from soccerbt.log.reader import NO_NODE_DATA, McapLog  # noqa: E402
from soccerbt.tools.replay.mcap_view import McapReplaySource, McapViewer  # noqa: E402
from soccerbt.tools.viewer.render import BALL, TEAM_COLOURS, FieldRenderer  # noqa: E402
from soccerbt.world.types import Pose2D, Team, from_team_frame  # noqa: E402

OLD = Path(__file__).parents[1] / "data" / "logs" / "jsonl_v1_2v2.jsonl.gz"
F32 = 1e-5  # the truth is f32 in MCAP: a few metres to about 5e-7


def _records(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def old() -> tuple[dict, list[dict], dict]:
    """The old log's header, step records and end record."""
    records = _records(OLD)
    assert records[0]["type"] == "header" and records[-1]["type"] == "end"
    return records[0], [r for r in records if r["type"] == "step"], records[-1]


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("convert") / "run.mcap"
    assert main(["replay", "convert", str(OLD), str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def log(converted: Path) -> McapLog:
    return McapLog.open(converted)


def test_the_header_keeps_the_match_and_says_what_the_log_is(old, log: McapLog) -> None:
    header = old[0]
    h = log.header
    assert log.warnings == []
    assert (h["seed"], h["field"], h["team_size"], h["dt_s"]) == (5, "AdultSize", 2, 0.01)
    assert log.robots == header["robots"] == ["blue1", "blue2", "red1", "red2"]
    assert {team: tree["path"] for team, tree in h["trees"].items()} == header["trees"]
    assert h["blue_attacks_positive_x_first_half"] is True
    assert h["node_data"] is False and not log.node_data
    assert h["converted_from"] == {"format": "soccerbt JSON lines", "version": 1, "file": str(OLD)}
    assert (log.first_step, log.last_step, log.duration_s) == (1, 700, 7.0)


def test_every_step_holds_the_recorded_truth_status_and_command(old, log: McapLog) -> None:
    steps = old[1]
    views = list(log.steps())
    assert [v.step for v in views] == list(range(1, 701))
    for record, view in zip(steps, views, strict=True):
        truth = view.truth
        assert truth.t_s == record["t"]  # exact: a double
        assert truth.ball == pytest.approx(record["ball"], abs=F32)
        assert truth.gc == tuple(record["gc"])  # state, set play, sub-state, score blue, score red
        for key, pose, tick in zip(log.robots, truth.robots, (view.ticks[k] for k in log.robots), strict=False):
            row = record["robots"][key]
            assert pose[:3] == pytest.approx(row[:3], abs=F32)
            assert pose[3:] == (row[3], row[4])
            assert lf.status_name(tick.root) == record["status"][key]
            assert tick.tick == view.step and tick.transitions == [] and tick.ticked == []
            assert tick.command[:5] == pytest.approx(row[5:10], abs=F32)
            kick = row[10]
            if kick is None:
                assert math.isnan(tick.command[5]) and math.isnan(tick.command[6])
            else:
                assert tick.command[5:] == pytest.approx(kick, abs=F32)
            assert tick.blackboard == {k: [v, "unknown"] for k, v in record.get("bb", {}).get(key, {}).items()}


def test_a_robots_blackboard_at_a_step_is_the_old_logs_exactly(old, log: McapLog) -> None:
    steps = old[1]
    board: dict = {}
    want = {}
    for i, record in enumerate(steps[:260]):
        board.update(record.get("bb", {}).get("red2", {}))
        if i + 1 in (1, 2, 99, 100, 101, 250):  # around a keyframe (every 100 steps)
            want[i + 1] = dict(board)
    for step, expected in want.items():
        state = log.robot_state("red2", step)
        assert {k: v[0] for k, v in state.blackboard.items()} == expected
        assert {v[1] for v in state.blackboard.values()} == {"unknown"}
        assert state.tree["nodes"] == [] and state.statuses == {}


def test_events_and_the_summary_are_the_old_logs(old, log: McapLog) -> None:
    steps, end = old[1], old[2]
    recorded = [(round(r["t"] / 0.01), e) for r in steps for e in r.get("events", [])]
    assert len(log.events) == len(recorded) == 15
    for event, (step, want) in zip(log.events, recorded, strict=False):
        assert event["step"] == step
        assert {k: event[k] for k in want} == want
    assert [e["kind"] for e in log.events].count("half") == 1
    assert log.summary_result() == end["result"]


def test_scenes_are_the_old_logs_in_the_world_frame_on_both_halves(old, log: McapLog) -> None:
    steps = old[1]
    half = next(i + 1 for i, r in enumerate(steps) for e in r.get("events", []) if e["kind"] == "half")
    source = McapReplaySource(log)
    boards: dict[str, dict] = {key: {} for key in log.robots}
    for i, record in enumerate(steps):
        for key in log.robots:
            boards[key].update(record.get("bb", {}).get(key, {}))
        step = i + 1
        if step not in (250, half - 1, half + 1, 650, 700):
            continue
        source.seek(step)
        scene = source.scene(None)
        assert scene.t_s == record["t"] and scene.ball == pytest.approx(record["ball"][:2], abs=F32)
        assert (scene.banner.score_blue, scene.banner.score_red) == tuple(record["gc"][3:5])
        assert scene.banner.first_half is (step < half)
        blue_positive = step < half
        for robot in scene.robots:
            row, board = record["robots"][robot.key], boards[robot.key]
            assert (robot.pose.x_m, robot.pose.y_m) == pytest.approx(row[:2], abs=F32)
            assert (robot.role, robot.decision) == (board["player_role"], board["decision"])
            attack = blue_positive if robot.team is Team.BLUE else not blue_positive
            want = from_team_frame(Pose2D(*board["robot_pose_field"]), attack)
            assert (robot.estimate.x_m, robot.estimate.y_m) == pytest.approx((want.x_m, want.y_m), abs=1e-9)


def test_info_robot_and_the_window_open_a_converted_log(converted: Path, old, capsys) -> None:
    assert main(["replay", str(converted), "--info"]) == 0
    out = capsys.readouterr().out
    assert "seed 5 field AdultSize 2 v 2, 700 steps (7.0 s)" in out
    assert f"converted from {OLD} (JSON lines): no node data, root statuses only" in out
    assert "score {'blue': 0, 'red': 0}" in out
    assert main(["replay", str(converted), "--robot", "red1", "--from", "1", "--to", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 101 and lines[0].startswith("t=1.00s tick 100 root SUCCESS transitions 0 bb {")
    changes = old[1][100]["bb"]["red1"]
    key = sorted(changes)[0]
    assert json.dumps({key: [changes[key], "unknown"]}, separators=(",", ":"))[1:-1] in lines[1]
    assert main(["replay", str(converted), "--at", "6.8", "--speed", "20", "--select", "red2"]) == 0


def test_a_screenshot_draws_the_old_logs_truth(converted: Path, old, tmp_path: Path) -> None:
    out = tmp_path / "frame.png"
    assert main(["replay", str(converted), "--screenshot", str(out), "--at", "2.5", "--select", "blue1"]) == 0
    image = pygame.image.load(str(out))
    renderer = FieldRenderer(McapReplaySource(McapLog.open(converted)).field,
                             McapViewer.field_size_for(image.get_size()))
    step = old[1][249]

    def pixel(x_m: float, y_m: float) -> tuple[int, int, int]:
        return tuple(image.get_at(renderer.to_px(x_m, y_m)))[:3]

    assert pixel(*step["ball"][:2]) == BALL
    for key, values in step["robots"].items():
        team = Team.BLUE if key.startswith("blue") else Team.RED
        assert pixel(values[0], values[1] + 0.17) == TEAM_COLOURS[team]


@pytest.mark.parametrize("options", [
    ["--robot", "blue1", "--tree"], ["--robot", "blue1", "--tick", "5", "--json"],
    ["--robot", "blue1", "--node", "Root", "--transitions"], ["--find", "blue1: decision == 'kick'"],
    ["--robot", "blue1", "--btlog", "{tmp}/x.btlog"], ["--verify"],
])
def test_the_tree_tools_say_a_converted_log_holds_no_node_data(converted: Path, tmp_path: Path, capsys,
                                                                 options: list[str]) -> None:
    assert main(["replay", str(converted), *(o.format(tmp=tmp_path) for o in options)]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == f"{converted}: {NO_NODE_DATA}"
    assert NO_NODE_DATA.startswith("holds no node data: it was converted from a JSON-lines log")
    assert captured.out == "" and not (tmp_path / "x.btlog").exists()


def test_diff_says_a_converted_log_holds_no_node_data(converted: Path, capsys) -> None:
    assert main(["replay", "diff", str(converted), str(converted)]) == 2
    assert "holds no node data" in capsys.readouterr().err


def test_replay_of_an_old_log_says_to_convert_it(capsys) -> None:
    assert main(["replay", str(OLD), "--info"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (f"soccerbt replay: {OLD}: a JSON-lines replay log of an earlier soccerbt; replay reads "
                           f"MCAP logs only: convert it once with soccerbt replay convert {OLD} "
                           f"{OLD.parent / 'jsonl_v1_2v2.mcap'}")


@pytest.mark.parametrize("command", [["run", "--headless"], ["view"]])  # view: SDL's dummy display
def test_record_writes_mcap_only_and_refuses_a_json_lines_name_before_playing(tmp_path: Path, capsys,
                                                                             command: list[str]) -> None:
    for name in ("run.jsonl.gz", "run.jsonl", "run.log"):
        assert main([*command, "--seconds", "600", "--record", str(tmp_path / name)]) == 2
        captured = capsys.readouterr()
        old_format = ("; JSON-lines logs are no longer written (an old one converts with: soccerbt replay convert "
                      "OLD.jsonl NEW.mcap)") if "jsonl" in name else ""
        assert captured.err == (f"soccerbt {command[0]}: {tmp_path / name}: the replay log is an MCAP file: its name "
                                f"must end in .mcap (e.g. {tmp_path / 'run.mcap'}){old_format} (--record)\n")
        assert captured.out == "" and not (tmp_path / name).exists()


# --- the command's checks, and bad or cut logs ---------------------------------------------------------


def test_convert_refuses_bad_outputs_and_writes_nothing(tmp_path: Path, capsys) -> None:
    plain = tmp_path / "old.mcap"  # a JSON-lines log under an MCAP name
    plain.write_bytes(gzip.decompress(OLD.read_bytes()))
    cases = [
        ([str(OLD), str(tmp_path / "new.jsonl")], 2, "the converted log is MCAP: its name must end in .mcap"),
        ([str(plain), str(plain)], 2, "would overwrite an input file"),
        ([str(OLD), str(tmp_path / "no" / "new.mcap")], 2, "does not exist"),
        ([str(OLD)], 1, "give the old log and the new one"),
    ]
    for args, code, message in cases:
        assert main(["replay", "convert", *args]) == code
        assert message in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.mcap"]
    # a plain (not gzip) old log converts the same; an existing output is replaced, as every output is
    out = tmp_path / "new.mcap"
    out.write_bytes(b"old")
    assert main(["replay", "convert", str(plain), str(out)]) == 0
    assert McapLog.open(out).last_step == 700
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.mcap", "old.mcap"]  # no temporary left
    assert main(["replay", "convert", str(out), str(tmp_path / "again.mcap")]) == 2
    assert f"already of the current log format ({lf.FORMAT_VERSION}): nothing to convert" in capsys.readouterr().err


def test_goals_and_the_score_without_an_end_record(tmp_path: Path) -> None:
    path = tmp_path / "goals.jsonl"
    header = {"type": "header", "version": 1, "seed": 3, "field": "KidSize", "team_size": 1, "dt_s": 0.01,
              "trees": {"blue": "a.xml", "red": "b.xml"}, "robots": ["blue1", "red1"]}
    rows = [json.dumps(header)]
    for k in range(1, 4):
        step = {"type": "step", "t": k / 100, "ball": [0.0, 0.0, 0.0, 0.0],
                "robots": {"blue1": [-1, 0, 0, 0, 0], "red1": [1, 0, 3.14, 0, 0]}, "gc": [3, 0, 0, k // 2, 0],
                "status": {"blue1": "RUNNING", "red1": "EXCEPTION"}}
        if k == 2:
            step["events"] = [{"kind": "goal", "detail": "blue 1:0", "t": 0.02, "team": "blue", "robot": "blue1"}]
        rows.append(json.dumps(step))
    path.write_text("\n".join(rows) + "\n")
    done = cv.convert_log(path, tmp_path / "goals.mcap")
    assert (done.steps, done.events) == (3, 1)
    assert done.warnings == [f"{path}: no end record (the run was stopped before it finished)"]
    log = McapLog.open(tmp_path / "goals.mcap")
    views = list(log.steps())
    assert [v.truth.gc[3:] for v in views] == [(0, 0), (1, 0), (1, 0)]  # the score
    assert log.events == [{"kind": "goal", "detail": "blue 1:0", "t": 0.02, "team": "blue", "robot": "blue1",
                           "node_path": None, "step": 2}]
    assert [lf.status_name(views[0].ticks[k].root) for k in ("blue1", "red1")] == ["RUNNING", "EXCEPTION"]
    assert views[0].ticks["blue1"].command[:5] == (0.0,) * 5 and log.summary_result() is None
    assert log.header["trees"] == {"blue": {"path": "a.xml", "files": []}, "red": {"path": "b.xml", "files": []}}


HEADER = ('{"type":"header","version":1,"seed":0,"field":"AdultSize","team_size":1,"dt_s":0.01,'
          '"robots":["blue1","red1"]}')
STEP = ('{{"type":"step","t":{t},"ball":[0,0,0,0],"robots":{{"blue1":[-1,0,0,0,0],"red1":[1,0,0,0,0]}},'
        '"gc":[0,0,0,0,0]}}')


@pytest.mark.parametrize(("text", "where", "what"), [
    (HEADER + "\n" + STEP.format(t=0.01) + "\nnot json\n", ":3", "not a JSON record"),
    (HEADER.replace('"version":1', '"version":7') + "\n", ":1", "log version 7 is not supported"),
    (STEP.format(t=0.01) + "\n", ":1", "the first record must be the header"),
    (HEADER.replace('"AdultSize"', '"Huge"') + "\n", ":1", "unknown field size 'Huge'"),
    (HEADER.replace('"blue1"', '"green1"') + "\n", ":1", "robot 'green1' is not named like blue1"),
    (HEADER + "\n" + STEP.format(t=0.01).replace('"red1":[1,0,0,0,0]', '"red2":[1,0,0,0,0]') + "\n", ":2",
     "robot red1 (listed in the header) is missing"),
    (HEADER + "\n" + STEP.format(t=0.01).replace('"ball":[0,0,0,0]', '"ball":"here"') + "\n", ":2",
     "'ball' must be a list"),
    (HEADER + "\n" + STEP.format(t=0.01).replace('"gc":[0,0,0,0,0]', '"gc":[0,0,0,99999,0]') + "\n", ":2",
     "'gc' must be a list of 5 integers"),
    (HEADER + "\n" + STEP.format(t=0.02) + "\n" + STEP.format(t=0.01) + "\n", ":3", "time goes backwards"),
    (HEADER + "\n" + STEP.format(t=0.01) + '\n{"type":"frame"}\n', ":3", "unknown record type 'frame'"),
    (HEADER + "\n" + STEP.format(t=0.01) + '\n{"type":"end"}\n' + STEP.format(t=0.02) + "\n", ":4",
     "a 'step' record after the end record"),
    (HEADER + "\n", "", "no step records"),
    ("", "", "empty file"),
])
def test_bad_logs_give_a_located_error_exit_2_and_write_nothing(tmp_path: Path, capsys, text: str, where: str,
                                                               what: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(ReplayError) as err:
        cv.convert_log(path, tmp_path / "x.mcap")
    assert str(err.value).startswith(f"{path}{where}: ") and what in str(err.value)
    assert main(["replay", "convert", str(path), str(tmp_path / "new.mcap")]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == str(err.value)  # one line, no traceback
    assert captured.out == "" and sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_files_that_are_not_logs(tmp_path: Path, capsys) -> None:
    fake = tmp_path / "fake.jsonl.gz"
    fake.write_text(HEADER + "\n")
    with pytest.raises(ReplayError, match=r"fake\.jsonl\.gz: not a gzip file"):
        cv.convert_log(fake, tmp_path / "x.mcap")
    with pytest.raises(ReplayError, match=r"missing\.jsonl: no such file"):
        cv.convert_log(tmp_path / "missing.jsonl", tmp_path / "x.mcap")
    with pytest.raises(ReplayError, match="is a directory"):
        cv.convert_log(tmp_path, tmp_path / "x.mcap")
    assert main(["replay", "convert", str(tmp_path / "missing.jsonl"), str(tmp_path / "x.mcap")]) == 2
    assert capsys.readouterr().err.strip() == f"{tmp_path / 'missing.jsonl'}: no such file"
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    assert capsys.readouterr().err.strip() == f"{tmp_path / 'missing.jsonl'}: no such file"


def test_a_line_longer_than_the_limit_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(cv, "MAX_LINE_BYTES", 4096)
    path = tmp_path / "long.jsonl"
    path.write_text(HEADER + "\n" + STEP.format(t=0.01)[:-1] + ',"pad":"' + "x" * 5000 + '"}\n')
    with pytest.raises(ReplayError, match=r"long\.jsonl:2: a line longer than 4096 bytes"):
        cv.convert_log(path, tmp_path / "x.mcap")


def test_a_truncated_gzip_converts_up_to_the_last_whole_record(old, tmp_path: Path, capsys) -> None:
    steps = old[1]
    cut = tmp_path / "cut.jsonl.gz"
    data = OLD.read_bytes()
    cut.write_bytes(data[: len(data) * 6 // 10])
    assert main(["replay", "convert", str(cut), str(tmp_path / "cut.mcap")]) == 0
    err = capsys.readouterr().err
    assert f"warning: {cut}: the gzip stream is cut short (truncated file)" in err
    log = McapLog.open(tmp_path / "cut.mcap")
    views = list(log.steps())
    assert 100 < len(views) < len(steps)
    for view in (views[0], views[len(views) // 2], views[-1]):
        record = steps[view.step - 1]
        assert view.truth.t_s == record["t"] and view.truth.gc == tuple(record["gc"])


def test_a_log_cut_in_the_middle_of_a_line_keeps_the_whole_records(tmp_path: Path) -> None:
    lines = gzip.decompress(OLD.read_bytes()).split(b"\n")
    whole = 1 + 250  # the header and 250 steps
    plain = tmp_path / "cut.jsonl"
    plain.write_bytes(b"\n".join(lines[:whole]) + b"\n" + lines[whole][: len(lines[whole]) // 2])
    done = cv.convert_log(plain, tmp_path / "cut.mcap")
    assert done.steps == 250 and len(done.warnings) == 1
    assert done.warnings[0].startswith(f"{plain}:{whole + 1}: the last record is cut short (not a JSON record")
    assert McapLog.open(tmp_path / "cut.mcap").last_step == 250


def test_a_damaged_line_in_the_middle_is_an_error_not_a_warning(tmp_path: Path) -> None:
    lines = gzip.decompress(OLD.read_bytes()).split(b"\n")
    lines[40] = lines[40][:30]  # a line broken inside the file, not at its end
    bad = tmp_path / "mid.jsonl"
    bad.write_bytes(b"\n".join(lines))
    with pytest.raises(ReplayError, match=r"mid\.jsonl:41: not a JSON record"):
        cv.convert_log(bad, tmp_path / "x.mcap")
    assert not (tmp_path / "x.mcap").exists()


def test_a_flipped_bit_in_a_gzip_log_keeps_the_records_before_it(old, tmp_path: Path) -> None:
    data = bytearray(OLD.read_bytes())
    data[len(data) // 2] ^= 0x10
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(bytes(data))
    done = cv.convert_log(bad, tmp_path / "bad.mcap")
    assert 50 < done.steps < len(old[1])
    # where the flip lands decides whether zlib notices it or inflates garbage: either way the
    # damage is named and the records before it are kept (gzip checks its CRC only at the end)
    assert any(word in w for w in done.warnings for word in ("damaged", "corrupt", "cut short"))
    whole = McapLog.open(tmp_path / "bad.mcap")
    good = tmp_path / "good.mcap"
    cv.convert_log(OLD, good)
    assert [v.truth for v in whole.steps(1, 50)] == [v.truth for v in McapLog.open(good).steps(1, 50)]
