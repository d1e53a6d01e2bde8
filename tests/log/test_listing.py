"""``soccerbt replay FOLDER``: a folder's logs listed from their headers and summaries, a log cut
short and broken files listed as such, ``--json``."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from soccerbt.log.listing import entry_lines, list_folder
from soccerbt.log.writer import McapRecorder
from soccerbt.match import Match, MatchConfig


def _record(path: Path, seconds: float, extra: dict | None = None) -> Path:
    match = Match(MatchConfig(seed=1, duration_s=seconds, team_size=1, idle_teams=("red",)))
    rec = McapRecorder(path, chunk_bytes=4_000, header_extra=extra)
    rec.on_start(match)
    match.observers.append(rec)
    match.run(seconds)
    rec.finish(match.result())
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("logs")
    whole = _record(d / "match.mcap", 2.0)
    # a brain's flight log (its name gives the start time; its header the robot)
    _record(d / "blue1-20261203-101500-42-000.mcap", 1.0,
            {"source": "brain", "robot": "blue1", "truth": "estimate", "segment": 0})
    data = whole.read_bytes()
    (d / "cut.mcap").write_bytes(data[:int(len(data) * 0.6)])   # a power cut
    (d / "broken.mcap").write_bytes(b"\x89MCAP0\r\n" + b"\x00" * 64)
    (d / "empty.mcap").write_bytes(b"")
    (d / "notes.txt").write_text("not a log")
    os.mkfifo(d / "fifo.mcap")
    return d


def test_a_folder_lists_each_log_cheaply(folder: Path) -> None:
    entries, notes = list_folder(folder)
    by_name = {e.path.name: e for e in entries}
    assert set(by_name) == {"match.mcap", "blue1-20261203-101500-42-000.mcap", "cut.mcap", "broken.mcap",
                            "empty.mcap", "fifo.mcap"} and notes == []
    match = by_name["match.mcap"]
    assert match.error is None and match.complete and match.duration_s == pytest.approx(2.0)
    assert match.robot == "blue1" and match.tree == "game.xml" and match.score == {"blue": 0, "red": 0}
    flight = by_name["blue1-20261203-101500-42-000.mcap"]
    assert flight.started == "2026-12-03 10:15:00" and flight.time_from == "name"
    assert flight.source == "brain" and flight.segment == 0 and flight.duration_s == pytest.approx(1.0)
    cut = by_name["cut.mcap"]
    assert cut.error is None and not cut.complete and 0.3 < cut.duration_s < 2.0
    assert "not a soccerbt" in by_name["broken.mcap"].error or "no whole chunk" in by_name["broken.mcap"].error
    assert "not an MCAP file" in by_name["empty.mcap"].error
    assert "not a regular file" in by_name["fifo.mcap"].error
    lines = entry_lines(entries)
    assert lines[0].split()[:5] == ["time", "robot", "tree", "duration", "score"]
    assert any("match.mcap" in line and "0:02" in line and "blue 0 red 0" in line for line in lines)
    assert sum("BROKEN" in line for line in lines) == 3


def test_the_command_lists_a_folder_as_text_and_json(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from soccerbt.__main__ import main

    assert main(["replay", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "cut.mcap (cut short or still written)" in out and "BROKEN" in out
    assert main(["replay", str(folder), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert isinstance(rows, list) and len(rows) == 6
    match = next(r for r in rows if r["file"].endswith("/match.mcap"))
    assert match["robots"] == ["blue1"] and match["duration_s"] == pytest.approx(2.0) and match["error"] is None
    assert match["inputs"]  # recorded with the brains' inputs: it can be re-run
    assert main(["replay", str(folder), "--robot", "blue1"]) == 2
    assert "needs one log file" in capsys.readouterr().err
