"""The MCAP replay log: a small tree with known statuses recorded and read back exactly, the
text tools (--tree, --json, --transitions, --find, diff, --btlog, --verify), cut files."""
from __future__ import annotations

import json
import os
import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from soccerbt.log.format import ReplayError
from soccerbt.log.reader import McapLog
from soccerbt.log.writer import make_recorder
from soccerbt.match import Match, MatchConfig
from soccerbt.resim.verify import verify_log
from soccerbt.tools.replay import tree_tools as tt
from soccerbt.tools.replay.log_diff import diff_logs

SMALL_TREE = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="top">
      <Script code="marker := 1"/>
      <SubTree ID="Inner" name="inner" _autoremap="true"/>
      <SetVelocity name="stand" x="0" y="0" theta="0" _skipIf="true"/>
      <Sleep name="wait" msec="30"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Inner">
    <Script code="inner_count := 2"/>
  </BehaviorTree>
</root>
"""


def _record(tmp_path: Path, name: str, seconds: float, tree: Path | None = None, seed: int = 1) -> Path:
    cfg = MatchConfig(seed=seed, duration_s=seconds, team_size=1,
                      blue_tree=str(tree) if tree else None, red_tree=str(tree) if tree else None,
                      idle_teams=("red",))
    match = Match(cfg)
    out = tmp_path / name
    recorder = make_recorder(out, match)
    match.run(seconds)
    recorder.finish(match.result())
    return out


@pytest.fixture(scope="module")
def small_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("small")
    tree = tmp / "small.xml"
    tree.write_text(SMALL_TREE)
    return _record(tmp, "small.mcap", 0.5, tree)


def test_a_small_tree_reads_back_with_known_statuses(small_log: Path) -> None:
    log = McapLog.open(small_log)
    assert log.robots == ["blue1"] and log.last_step == 50 and not log.warnings
    names = {row["uid"]: row["name"] for row in log.tree("blue1", 1)["nodes"]}
    assert names == {1: "top", 2: "Script", 3: "inner", 4: "Script", 5: "stand", 6: "wait"}
    first = log.step_view(1).ticks["blue1"]
    # the parent goes RUNNING first; the scripts succeed; the subtree finishes; Sleep starts
    assert [(u, p, n) for u, p, n in first.transitions] == [
        (1, 0, 1), (2, 0, 2), (3, 0, 1), (4, 0, 2), (4, 2, 0), (3, 1, 2), (6, 0, 1)]
    assert first.skipped == [5]
    assert first.ticked == [2, 4, 3, 5, 6, 1]  # in the order their ticks returned
    assert first.blackboard["marker"] == [1, 2] and first.blackboard["inner_count"][1] == 4
    second = log.step_view(2).ticks["blue1"]
    assert second.transitions == [] and second.ticked == [6, 1]  # Sleep still RUNNING: no change
    # 30 ms later Sleep succeeds: every child reset before the Sequence's own transition
    fourth = log.step_view(4).ticks["blue1"]
    assert fourth.transitions == [(6, 1, 2), (2, 2, 0), (3, 2, 0), (6, 2, 0), (1, 1, 2), (1, 2, 0)]
    state = log.robot_state("blue1", 2)
    assert state.statuses == {1: 1, 2: 2, 3: 2, 4: 0, 5: 0, 6: 1} and state.tick == 2


def test_tree_text_and_json(small_log: Path) -> None:
    log = McapLog.open(small_log)
    state = log.robot_state("blue1", 1)
    lines = tt.tree_lines(state, 0.01)
    assert lines[1] == "* top (Sequence) #1: RUNNING"
    assert "~   stand (SetVelocity) #5: SKIPPED" in lines  # ticked, skipped by its _skipIf
    assert any(line.startswith("! marker = 1  (node #2 Script)") for line in lines)
    obj = tt.tree_json(state, 0.01)
    assert obj["tick"] == 1 and obj["t"] == 0.01
    assert obj["nodes"][0] == {"uid": 1, "path": "top", "name": "top", "status": "RUNNING", "ticked": True,
                               "did": "ran", "reason": None, "reason_tick": None, "ports": []}
    assert obj["nodes"][3]["path"] == "inner/Script::4" and obj["blackboard"]["inner_count"] == 2


def test_cli_tree_json_tick_and_transitions(small_log: Path) -> None:
    run = [sys.executable, "-m", "soccerbt", "replay", str(small_log), "--robot", "blue1"]
    out = subprocess.run(run + ["--tick", "4", "--tree", "--json"], capture_output=True, text=True, check=True)
    obj = json.loads(out.stdout)
    assert obj["tick"] == 4 and obj["nodes"][0]["status"] == "IDLE" and obj["nodes"][5]["ticked"] is True
    out = subprocess.run(run + ["--node", "wait", "--transitions"], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[:3] == ["t=0.01s tick 1 wait #6: IDLE -> RUNNING", "t=0.04s tick 4 wait #6: RUNNING -> SUCCESS",
                         "t=0.04s tick 4 wait #6: SUCCESS -> IDLE"]
    bad = subprocess.run(run[:-2] + ["--robot", "blue9", "--tree"], capture_output=True, text=True)
    assert bad.returncode == 2 and "no robot 'blue9'" in bad.stderr and "Traceback" not in bad.stderr


def test_find_lists_time_ranges(small_log: Path) -> None:
    log = McapLog.open(small_log)
    ranges = tt.find_ranges(log, "blue1: wait == SUCCESS")
    assert [(k0, k1) for _t0, _t1, k0, k1 in ranges][:3] == [(4, 4), (8, 8), (12, 12)]
    assert tt.find_ranges(log, "blue1: marker == 1")[0][2:] == (1, 50)
    with pytest.raises(ValueError):
        tt.find_ranges(log, "no robot here")


def test_btlog_export_decodes_field_by_field(small_log: Path, tmp_path: Path) -> None:
    log = McapLog.open(small_log)
    out = tmp_path / "blue1.btlog"
    count, _notes = tt.export_btlog(log, "blue1", out)
    data = out.read_bytes()
    assert data[:18] == b"BTCPP4-FileLogger2" and data[18] == 1
    (xml_len,) = struct.unpack_from("<i", data, 19)
    root = etree.fromstring(data[23:23 + xml_len])
    trees = root.findall("BehaviorTree")
    assert [(t.get("ID"), t.get("_fullpath")) for t in trees] == [("Main", ""), ("Inner", "inner")]
    uids = sorted(int(e.get("_uid")) for e in root.iter() if e.get("_uid"))
    assert uids == [1, 2, 3, 4, 5, 6]
    sub = trees[0].find(".//SubTree")
    assert sub.get("ID") == "Inner" and sub.get("_fullpath") == "inner"
    (first_ts,) = struct.unpack_from("<q", data, 23 + xml_len)
    records = data[31 + xml_len:]
    assert first_ts == 0 and len(records) == 9 * count and count > 0
    t_us = int.from_bytes(records[0:6], "little")
    uid, status = struct.unpack_from("<HB", records, 6)
    assert (t_us, uid, status) == (10_000, 1, 1)


# BT.CPP 4.10's BehaviorTreeFactory registers these (src/bt_factory.cpp), and its FileLogger2
# writes their models in every .btlog (WriteTreeToXML with the built-in models)
BTCPP_BUILTINS = {
    "Fallback": "Control", "AsyncFallback": "Control", "Sequence": "Control", "AsyncSequence": "Control",
    "SequenceWithMemory": "Control", "Parallel": "Control", "ParallelAll": "Control",
    "ReactiveSequence": "Control", "ReactiveFallback": "Control", "IfThenElse": "Control",
    "WhileDoElse": "Control", "TryCatch": "Control", "Inverter": "Decorator",
    "RetryUntilSuccessful": "Decorator", "KeepRunningUntilFailure": "Decorator", "Repeat": "Decorator",
    "Timeout": "Decorator", "Delay": "Decorator", "RunOnce": "Decorator", "ForceSuccess": "Decorator",
    "ForceFailure": "Decorator", "AlwaysSuccess": "Action", "AlwaysFailure": "Action", "Script": "Action",
    "ScriptCondition": "Condition", "SetBlackboard": "Action", "Sleep": "Action", "UnsetBlackboard": "Action",
    "SubTree": "SubTree", "Precondition": "Decorator", "Switch2": "Control", "Switch3": "Control",
    "Switch4": "Control", "Switch5": "Control", "Switch6": "Control", "LoopInt": "Decorator",
    "LoopBool": "Decorator", "LoopDouble": "Decorator", "LoopString": "Decorator",
    "WasEntryUpdated": "Action", "SkipUnlessUpdated": "Decorator", "WaitValueUpdate": "Decorator",
}


def test_btlog_node_model_lists_the_builtins_as_btcpp_does(small_log: Path, tmp_path: Path) -> None:
    out = tmp_path / "model.btlog"
    tt.export_btlog(McapLog.open(small_log), "blue1", out)
    data = out.read_bytes()
    (xml_len,) = struct.unpack_from("<i", data, 19)
    model = etree.fromstring(data[23:23 + xml_len]).find("TreeNodesModel")
    kinds = {e.get("ID"): e.tag for e in model}
    ids = [e.get("ID") for e in model]
    assert ids == sorted(ids)  # BT.CPP orders them by ID (a std::map)
    assert {i: kinds[i] for i in BTCPP_BUILTINS} == BTCPP_BUILTINS  # every built-in, used or not
    sleep = model.find("Action[@ID='Sleep']/input_port[@name='msec']")
    assert sleep is not None and sleep.get("type") == "unsigned int"
    parallel = model.find("Control[@ID='Parallel']/input_port[@name='success_count']")
    assert parallel.get("default") == "-1" and parallel.text  # defaults and descriptions as BT.CPP's
    # the tree's own type (a soccer node) with its registered, typed ports; nothing else
    assert set(kinds) == set(BTCPP_BUILTINS) | {"SetVelocity"}
    assert {p.get("name") for p in model.find("Action[@ID='SetVelocity']")} >= {"x", "y", "theta"}


def test_diff_identical_and_one_attribute_changed(tmp_path: Path) -> None:
    tree = tmp_path / "t.xml"
    tree.write_text(SMALL_TREE)
    a = _record(tmp_path, "a.mcap", 0.3, tree)
    b = _record(tmp_path, "b.mcap", 0.3, tree)
    assert diff_logs(McapLog.open(a), McapLog.open(b)) == []
    tree.write_text(SMALL_TREE.replace('msec="30"', 'msec="50"'))
    c = _record(tmp_path, "c.mcap", 0.3, tree)
    lines = diff_logs(McapLog.open(a), McapLog.open(c))
    assert any("first difference at step 4 " in line for line in lines)
    assert any("blue1 tick 4 statuses" in line for line in lines)
    head = next(line for line in lines if line.startswith("first difference"))
    assert head.endswith(f"A = {a} / B = {c}:")  # the columns are labelled
    assert any(
        line.startswith("  blue1 tick 4 statuses (#uid:from>to): A #6:R>S") and line.endswith(" / B ") for line in lines
    )
    cli = [sys.executable, "-m", "soccerbt", "replay", "diff"]
    assert subprocess.run(cli + [str(a), str(b)], capture_output=True).returncode == 0
    assert subprocess.run(cli + [str(a), str(c)], capture_output=True).returncode == 1


def test_verify_reproduces_a_fresh_log(tmp_path: Path) -> None:
    tree = tmp_path / "t.xml"
    tree.write_text(SMALL_TREE)
    log_path = _record(tmp_path, "v.mcap", 0.3, tree)
    ok, lines = verify_log(McapLog.open(log_path))
    assert ok, lines
    tree.write_text(SMALL_TREE.replace("marker := 1", "marker := 2"))
    ok, lines = verify_log(McapLog.open(log_path))
    assert not ok and "changed since the run" in lines[0]


def test_a_log_cut_anywhere_opens_up_to_its_last_whole_chunk(tmp_path: Path) -> None:
    tree = tmp_path / "t.xml"
    tree.write_text(SMALL_TREE)
    cfg = MatchConfig(seed=2, duration_s=3.0, team_size=1, blue_tree=str(tree), red_tree=str(tree),
                      idle_teams=("red",))
    match = Match(cfg)
    whole = tmp_path / "whole.mcap"
    from soccerbt.log.writer import McapRecorder

    rec = McapRecorder(whole, chunk_bytes=8_000)
    rec.on_start(match)
    match.observers.append(rec)
    match.run(3.0)
    rec.finish(match.result())
    full = McapLog.open(whole)
    data = whole.read_bytes()
    rng = random.Random(5)
    opened = 0
    for cut in sorted(rng.sample(range(len(data) // 10, len(data) - 1), 12)):
        part = tmp_path / f"cut{cut}.mcap"
        part.write_bytes(data[:cut])
        try:
            log = McapLog.open(part)
        except ReplayError as exc:
            assert "no readable chunk" in str(exc) or "soccerbt header" in str(exc)
            continue
        opened += 1
        whole_chunks = [c for c in full.chunks if c.offset + c.length <= cut]
        assert len(log.chunks) == len(whole_chunks)
        last = max(v.step for v in log.steps())
        assert log.warnings and last >= whole_chunks[-1].end_step - 1
        assert log.robot_state("blue1", last).statuses == full.robot_state("blue1", last).statuses
    assert opened >= 8


def test_a_damaged_header_chunk_is_named(small_log: Path, tmp_path: Path) -> None:
    # a damaged chunk elsewhere is skipped (test_replay_recovery.py); the first holds the header
    data = bytearray(small_log.read_bytes())
    ref = McapLog.open(small_log).chunks[0]
    data[ref.offset + 200] ^= 0xFF  # inside the compressed payload
    bad = tmp_path / "bad.mcap"
    bad.write_bytes(bytes(data))
    with pytest.raises(ReplayError, match="the first chunk, which holds the header, is damaged"):
        McapLog.open(bad)


def test_not_an_mcap_file(tmp_path: Path) -> None:
    p = tmp_path / "x.mcap"
    p.write_text("hello")
    with pytest.raises(ReplayError, match="not an MCAP file"):
        McapLog.open(p)
    with pytest.raises(ReplayError, match="no such file"):
        McapLog.open(tmp_path / "missing.mcap")


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    a = _record(tmp_path, "s1.mcap", 0.5)
    b = _record(tmp_path, "s2.mcap", 0.5)
    assert a.read_bytes() == b.read_bytes()


def test_hot_reload_mid_run_is_recorded_with_its_time(tmp_path: Path) -> None:
    tree = tmp_path / "r.xml"
    tree.write_text(SMALL_TREE)
    cfg = MatchConfig(seed=3, duration_s=3.0, team_size=1, blue_tree=str(tree), red_tree=str(tree),
                      idle_teams=("red",))
    match = Match(cfg)
    out = tmp_path / "reload.mcap"
    rec = make_recorder(out, match)
    match.run(1.5)
    tree.write_text(SMALL_TREE.replace('<Sleep name="wait" msec="30"/>', '<AlwaysSuccess name="done"/>'))
    os.utime(tree, (1e9, 2e9))
    match.run(1.5)
    rec.finish(match.result())
    log = McapLog.open(out)
    loads = log.loads("blue1")
    assert [ld["reason"] for ld in loads] == ["load", "reload"]
    step = loads[1]["step"]
    assert 150 < step <= 260
    second = log.tree("blue1", 2)
    assert [row["name"] for row in second["nodes"]][-1] == "done"
    state = log.robot_state("blue1", step)
    assert 6 in state.ticked and state.statuses[1] == 0
    assert log.robot_state("blue1", step - 1).tree["nodes"][-1]["name"] == "wait"


HALT_TREE = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="top">
      <RunOnce><Script name="init" code="n := 0"/></RunOnce>
      <ReactiveSequence name="guard">
        <Script name="count" code="n += 1"/>
        <ScriptCondition name="early" code="n &lt; 3"/>
        <Sleep name="wait" msec="1000"/>
      </ReactiveSequence>
    </Sequence>
  </BehaviorTree>
</root>
"""


def test_a_running_node_halted_to_idle_within_one_tick(tmp_path: Path) -> None:
    tree = tmp_path / "halt.xml"
    tree.write_text(HALT_TREE)
    log = McapLog.open(_record(tmp_path, "halt.mcap", 0.05, tree))
    names = {row["name"]: row["uid"] for row in log.tree("blue1", 1)["nodes"]}
    wait, guard, early = names["wait"], names["guard"], names["early"]
    second = log.step_view(2).ticks["blue1"]
    assert (wait, 1, 1) not in second.transitions and wait in second.ticked  # still RUNNING
    third = log.step_view(3).ticks["blue1"]
    # n reaches 3: the condition (reset to IDLE while Sleep ran, as BT.CPP's ReactiveSequence
    # does) fails, the ReactiveSequence resets its children in order (Sleep halted: RUNNING ->
    # IDLE), then fails itself; all in tick 3
    order = [(u, p, n) for u, p, n in third.transitions if u in (wait, guard, early)]
    assert order == [(early, 0, 3), (early, 3, 0), (wait, 1, 0), (guard, 1, 3), (guard, 3, 0)]
    assert log.robot_state("blue1", 3).statuses[wait] == 0
    assert third.blackboard["n"][0] == 3.0


def _close(a: object, b: object) -> bool:
    """Equal, floats within f32 precision (lists element by element)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
        return abs(a - b) <= 1e-5 * max(1.0, abs(b))
    return a == b


def _plain(value: object) -> object:
    """A live blackboard value as the log renders it, floats left unrounded."""
    from soccerbt.log.writer import json_value
    from soccerbt.world.types import Pose2D

    if isinstance(value, float):
        return value
    if isinstance(value, Pose2D):
        return [value.x_m, value.y_m, value.theta_rad]
    if isinstance(value, tuple) and value and all(isinstance(v, float) for v in value):
        return list(value)
    if isinstance(value, tuple) and value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
        return [list(v) for v in value]
    return json_value(value)


def test_the_blackboard_read_back_equals_the_live_one_at_every_sampled_step(tmp_path: Path) -> None:
    match = Match(MatchConfig(seed=4, duration_s=12.0, team_size=2))
    out = tmp_path / "bb.mcap"
    recorder = make_recorder(out, match)
    live: dict[tuple[str, int], dict[str, object]] = {}

    class Sample:
        def on_step(self, m: Match) -> None:
            if m.steps % 97 == 0:
                for rid, agent in m.agents.items():
                    live[(str(rid), m.steps)] = {k: _plain(v) for k, v in agent.blackboard.items()}

    match.observers.append(Sample())
    match.run(12.0)
    recorder.finish(match.result())
    log = McapLog.open(out)
    assert len(live) >= 40
    for (robot, step), expected in live.items():
        # the Mapping view lists the entries holding a value; the log keeps empty ones as null
        got = {k: v[0] for k, v in log.robot_state(robot, step).blackboard.items() if v[0] is not None}
        assert set(got) == set(expected), (robot, step)
        bad = [k for k in expected if not _close(got[k], expected[k])]
        assert not bad, (robot, step, [(k, got[k], expected[k]) for k in bad[:3]])


RESET_TREE = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <RunOnce><Script code="count := 0"/></RunOnce>
      <Script code="count += 1"/>
      <UnsetBlackboard key="fresh"/>
      <Script code="fresh := count * 10"/>
    </Sequence>
  </BehaviorTree>
</root>
"""


def test_an_entry_removed_and_made_again_in_one_tick_is_followed(tmp_path: Path) -> None:
    tree = tmp_path / "reset.xml"
    tree.write_text(RESET_TREE)
    log = McapLog.open(_record(tmp_path, "reset.mcap", 0.3, tree))
    for step in (1, 2, 7, 30):
        bb = log.robot_state("blue1", step).blackboard
        assert bb["fresh"][0] == bb["count"][0] * 10 == step * 10.0, step


def test_a_keyframe_float_reads_as_the_f32_change_of_the_same_value() -> None:
    from array import array

    from soccerbt.log import format as lf
    from soccerbt.log.tick_encode import keyframe_value as _keyframe_value

    value = 0.074735335  # to 7 digits 0.07473533, through an f32 (0.074735336) 0.07473534
    changed = lf.nice_value(array("f", (value,))[0])
    assert _keyframe_value(value) == changed == 0.07473534
    assert _keyframe_value((value, -0.212322)) == [changed, -0.212322]
