"""Damaged replay logs load what is readable and say what they skipped."""
from __future__ import annotations

from pathlib import Path

from soccerbt.match import Match, MatchConfig
from soccerbt.tools.mcap_reader import McapLog
from soccerbt.tools.mcap_recorder import McapRecorder
from soccerbt.tools.recorder import Recorder
from soccerbt.tools.replay import ReplayLog


def test_a_flipped_bit_in_a_gzip_log_keeps_the_records_before_it(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl.gz"
    match = Match(MatchConfig(seed=1, duration_s=8.0, team_size=1, idle_teams=("red",)))
    recorder = Recorder(path)
    match.observers.append(recorder)
    match.run(8.0)
    recorder.finish(match.result())
    whole = ReplayLog.load(path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(bytes(data))
    warnings: list[str] = []
    log = ReplayLog.load(bad, warn=warnings.append)
    assert 50 < log.n < whole.n
    # where the flip lands decides whether zlib notices it or inflates garbage: either way the
    # damage is named and the records before it are kept; gzip's only check (its CRC) is at the
    # end, so the records inflated from the damaged block itself may differ: only those before
    # the damaged half of the file are certain
    assert any(word in w for w in warnings for word in ("damaged", "corrupt", "cut short"))
    assert [log.record(i) for i in range(50)] == [whole.record(i) for i in range(50)]


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
    after = victim.end_step + 50
    assert log.robot_state("blue1", after).statuses == whole.robot_state("blue1", after).statuses
