"""Every log format soccerbt has written opens in this soccerbt (``tests/data/logs/README.md``).

- a JSON-lines log of the first soccerbt, through ``replay convert``;
- an MCAP log of format 1 (soccerbt 0.1), recorded in full: read as it is, every tool on it, and
  written in format 2 by ``replay convert`` with every decoded value the same;
- a format-1 log of the brains' inputs only (0.1's default): derived as it opens, by re-running
  the brains; a format-1 flight log's later segment, fed the run's earlier segments first, and
  refused with their names when they are gone;
- a format-2 log (soccerbt 0.2 and 0.3): read as it is, its ports as the XML wrote them;
- a format-3 log (this version's): read as it is, with the ports' defaults;
- a log of a format newer than this soccerbt's: refused, saying which.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from soccerbt import __version__
from soccerbt.__main__ import main
from soccerbt.log import format as lf
from soccerbt.log.reader import McapLog
from soccerbt.log.writer import LogWriter
from soccerbt.resim.derive import derive_log

DATA = Path(__file__).resolve().parents[1] / "data" / "logs"
JSONL = DATA / "jsonl_v1_2v2.jsonl.gz"
V1_FULL = DATA / "mcap_v1_full_2v2.mcap"
V1_INPUTS = DATA / "mcap_v1_inputs_2v2.mcap"
V1_FLIGHT = sorted((DATA / "flight_v1_inputs").glob("*.mcap"))
V2_FULL = DATA / "mcap_v2_full_2v2.mcap"
V3_FULL = DATA / "mcap_v3_full_2v2.mcap"


def test_the_logs_of_every_format_are_here() -> None:
    assert [p.exists() for p in (JSONL, V1_FULL, V1_INPUTS, V2_FULL, V3_FULL)] == [True] * 5 and len(V1_FLIGHT) == 3
    assert McapLog.open(V1_FULL).format_version == McapLog.open(V1_INPUTS).format_version == 1
    assert McapLog.open(V2_FULL).format_version == 2 and McapLog.open(V3_FULL).format_version == lf.FORMAT_VERSION == 3
    assert "software" not in McapLog.open(V1_FULL).header and McapLog.open(V2_FULL).header["software"]["soccerbt"]


def test_a_json_lines_log_converts_and_opens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "old.mcap"
    assert main(["replay", "convert", str(JSONL), str(out)]) == 0
    log = McapLog.open(out)
    assert log.format_version == lf.FORMAT_VERSION and log.last_step == 700 and log.header["converted_from"]
    assert log.robot_state("blue1", 300).blackboard["gc_game_state"][0] == "SET"


@pytest.mark.parametrize("path", [V1_FULL, V2_FULL, V3_FULL], ids=["format-1", "format-2", "format-3"])
def test_a_full_log_opens_and_every_tool_reads_it(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(path), "--robot", "blue1", "--at", "4.5", "--tree", "--json"]) == 0
    tree = json.loads(capsys.readouterr().out)
    assert tree["tick"] == 450 and len(tree["nodes"]) > 50 and tree["blackboard"]["gc_game_state"] == "READY"
    assert any(node["reason"] for node in tree["nodes"]) and any(isinstance(w, int) for w in tree["writers"].values())
    assert main(["replay", str(path), "--find", "blue2: gc_game_state == 'READY'"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("2.0")
    assert main(["replay", str(path), "--robot", "red1", "--node", "#1", "--transitions"]) == 0
    assert "RUNNING" in capsys.readouterr().out
    assert main(["replay", str(path), "--info"]) == 0
    assert "seed 5 field KidSize 2 v 2, 500 steps (5.0 s)" in capsys.readouterr().out


def test_a_format_1_log_written_in_format_2_holds_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "upgraded.mcap"
    assert main(["replay", "convert", str(V1_FULL), str(out)]) == 0
    upgraded = McapLog.open(out)
    assert upgraded.format_version == lf.FORMAT_VERSION and upgraded.header["upgraded_from"]["format_version"] == 1
    assert lf.STEP_TOPIC in upgraded.topics.values() and "/robots/blue1/keys" not in upgraded.topics.values()
    assert main(["replay", "diff", str(V1_FULL), str(out)]) == 0  # every step's values, as format 1 held them
    assert capsys.readouterr().out.startswith("identical:")
    a, b = McapLog.open(V1_FULL).robot_state("red2", 333), upgraded.robot_state("red2", 333)
    assert (a.statuses, a.blackboard, a.reasons) == (b.statuses, b.blackboard, b.reasons)


def test_a_format_1_inputs_only_log_is_derived_as_it_opens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Its brains are re-run with the tree files the log carries (their paths, of the checkout
    that wrote it, exist nowhere else). Either the re-run reproduces the whole log, or (once
    soccerbt's behaviour has changed since 0.1) it keeps the steps before the first that does
    not, saying that the log does not name the software that wrote it."""
    log = McapLog.open(V1_INPUTS)
    assert log.header["tree_files"]  # (the paths it names are of the checkout that wrote it)
    done = derive_log(log, tmp_path / "derived.mcap")
    derived = McapLog.open(tmp_path / "derived.mcap")
    assert derived.format_version == lf.FORMAT_VERSION and derived.header["upgraded_from"]["format_version"] == 1
    assert done.steps == derived.last_step > 0
    if done.stopped is None:
        assert done.steps == log.last_step == 500
    else:
        assert "the log does not say which software wrote it" in done.stopped
    truths = [v.truth for v in McapLog.open(V1_INPUTS).steps(1, done.steps)]
    assert truths == [v.truth for v in derived.steps()]  # the recorded world, as it was
    state = derived.robot_state("blue2", done.steps)
    assert state.tree["nodes"] and state.blackboard["gc_game_state"][0] in ("INITIAL", "READY")
    assert main(["replay", str(V1_INPUTS), "--robot", "blue2", "--tick", str(done.steps), "--tree"]) == 0
    assert f"blue2 tick {done.steps}" in capsys.readouterr().out


def test_a_format_1_flight_logs_later_segment_is_derived_from_the_segments_before_it(tmp_path: Path) -> None:
    later = McapLog.open(V1_FLIGHT[2])
    assert later.header["segment"] == 2 and later.node_data is False
    done = derive_log(later, tmp_path / "derived.mcap")
    assert [p.name for p in done.segments_fed] == [p.name for p in V1_FLIGHT[:2]]
    derived = McapLog.open(tmp_path / "derived.mcap")
    assert derived.last_step == done.steps > 100 and derived.robot_state("blue1", done.steps).tree["nodes"]
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(V1_FLIGHT[2], alone / V1_FLIGHT[2].name)  # the folder's cap deleted the first two
    with pytest.raises(lf.ReplayError, match=f"{V1_FLIGHT[0].name}, {V1_FLIGHT[1].name} are not beside it"):
        derive_log(McapLog.open(alone / V1_FLIGHT[2].name), tmp_path / "again.mcap")


def test_a_log_of_a_newer_format_is_refused_saying_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    newer = tmp_path / "newer.mcap"
    writer = LogWriter(newer)
    header = {**McapLog.open(V2_FULL).header, "format_version": lf.FORMAT_VERSION + 1, "soccerbt_version": "0.9.0"}
    writer.put(writer.channel(lf.HEADER_TOPIC, "header"), 0, lf.json_bytes(header))
    writer.finish(0, {"events": [], "loads": [], "steps": 0})
    assert main(["replay", str(newer), "--info"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"{newer}: written by a newer soccerbt (0.9.0, log format {lf.FORMAT_VERSION + 1}); this soccerbt "
        f"({__version__}) reads log formats 1 to {lf.FORMAT_VERSION}: update soccerbt")


def test_the_ports_of_each_format(capsys: pytest.CaptureFixture[str]) -> None:
    """Format 3 stores the ports the XML leaves out (their defaults) and where pointers resolve;
    a format-2 log shows its ports as written."""
    for path, has_defaults in ((V2_FULL, False), (V3_FULL, True)):
        assert main(["replay", str(path), "--robot", "blue1", "--at", "4.5", "--tree", "--json"]) == 0
        tree = json.loads(capsys.readouterr().out)
        sources = {port["source"] for node in tree["nodes"] for port in node["ports"]}
        assert ("default" in sources) is has_defaults and {"xml", "blackboard"} <= sources
        assert tree["truth"]["frame"] == "team"
