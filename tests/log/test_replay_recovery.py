"""Damaged replay logs load what is readable and say what they skipped (a damaged JSON-lines log:
test_convert.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from soccerbt.log.reader import McapLog, ReplayError
from soccerbt.log.writer import McapRecorder
from soccerbt.match import Match, MatchConfig


def test_an_mcap_log_recovers_every_intact_chunk_around_a_damaged_one(tmp_path: Path) -> None:
    path = tmp_path / "run.mcap"
    match = Match(MatchConfig(seed=1, duration_s=6.0, team_size=1, idle_teams=("red",)))
    recorder = McapRecorder(path, chunk_bytes=20_000)
    recorder.on_start(match)
    match.observers.append(recorder)
    match.run(6.0)
    recorder.finish(match.result())
    whole = McapLog.open(path)
    assert len(whole.chunks) >= 5
    v = len(whole.chunks) // 2
    victim = whole.chunks[v]
    lost = {step for topic, step, _d in whole._chunk(v) if topic == "/match/step"}
    data = bytearray(path.read_bytes())
    data[victim.offset + victim.length - 50] ^= 0xFF  # inside its compressed records
    bad = tmp_path / "bad.mcap"
    bad.write_bytes(bytes(data))
    log = McapLog.open(bad)
    steps = [v.step for v in log.steps()]
    assert any("damaged" in w and str(victim.offset) in w for w in log.warnings)
    assert lost
    assert set(steps) == set(range(1, whole.last_step + 1)) - lost
    # no state is rebuilt across the gap: refused until the next keyframe, exact after it
    with pytest.raises(ReplayError, match=rf"steps {min(lost)}-{max(lost)}\) missing: chunk at byte {victim.offset} "
                                          r"is damaged .*cannot be rebuilt"):
        log.robot_state("blue1", victim.end_step + 1)
    after = (victim.end_step // 100 + 1) * 100 + 1
    assert log.robot_state("blue1", after).statuses == whole.robot_state("blue1", after).statuses
    assert [(g.first, g.last) for g in log.gaps] == [(min(lost), max(lost))]
