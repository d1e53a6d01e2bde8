"""--find refuses what it cannot match (issue 40, finding 2): a misspelled key, node, robot or
truth name, `=` where `==` was meant and a malformed expression each end in exit 2 with a
message with the nearest names, not in "0 range(s)"; the ranges of a name several nodes share
say which node held."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from soccerbt.log.reader import McapLog
from soccerbt.tools.replay.search import find_ranges, tree_keys

LOG = Path(__file__).resolve().parents[2] / "data" / "logs" / "mcap_v2_full_2v2.mcap"


@pytest.fixture(scope="module")
def log() -> McapLog:
    if not LOG.is_file():
        pytest.skip(f"{LOG} missing")
    return McapLog.open(LOG)


@pytest.mark.parametrize("condition, message", [
    ("blue1: decison == 'kick'", "blue1 has no node and no blackboard key 'decison'; did you mean 'decision'?"),
    ("blue1: StrikerDecison == SUCCESS",
     "blue1 has no node and no blackboard key 'StrikerDecison'; did you mean 'StrikerDecision'?"),
    ("blue1: decision = 'kick'", "'=' assigns; a condition compares (==, !=, <, >, <=, >=)"),
    ("blue1: x := 1", "':=' assigns"),
])
def test_what_cannot_match_is_refused_with_the_nearest_names(log: McapLog, condition: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        find_ranges(log, condition)
    assert message in str(caught.value)


def test_known_keys_nodes_and_strings_still_match(log: McapLog) -> None:
    # a key, a node, and a string that looks like an assignment: no refusal
    assert find_ranges(log, "blue1: ball_distance_m >= 0.0")
    find_ranges(log, "blue1: StrikerDecision == SUCCESS || decision == 'a = b'")


def test_the_keys_a_tree_names() -> None:
    tree = {"nodes": [{"ports": {"code": "marker := 1; @glob = 2; seen += x", "target": "{kick_target}"}},
                      {"ports": {"limit": "3"}, "conditions": {"_while": "go == true"}}]}
    assert tree_keys(tree) == {"marker", "glob", "seen", "kick_target"}


def _replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "soccerbt", "replay", str(LOG), *args], capture_output=True,
                          text=True)


@pytest.mark.parametrize("condition, message", [
    ("blue1: decison == 'kick'", "--find: column 8: blue1 has no node and no blackboard key 'decison'; did "
                                 "you mean 'decision'?"),
    ("blue1: GoalkeeperDecison == SUCCESS", "did you mean 'GoalkeeperDecision'"),
    ("blue1: decision = 'kick'", "'=' assigns"),
    ("blue1: truth.bal.x > 0", "no truth 'truth.bal.x'"),
    ("blue1: decision == ", "bad condition"),
])
def test_the_cli_exits_2_with_the_message(log: McapLog, condition: str, message: str) -> None:
    run = _replay("--find", condition)
    assert run.returncode == 2 and message in run.stderr and run.stdout == ""


def test_an_unknown_robot_exits_2_with_the_nearest(log: McapLog) -> None:
    run = _replay("--find", "bleu1: decision == 'kick'")
    assert run.returncode == 2
    assert run.stderr.strip().endswith("no robot 'bleu1' (robots: blue1, blue2, red1, red2); did you mean 'blue1'?")


def test_ranges_of_a_shared_name_say_which_node_held(log: McapLog) -> None:
    # HeadControl names several nodes of our tree: each range says which of them held
    state = log.robot_state("blue1", 300)
    rows = [row for row in state.tree["nodes"] if row["name"] == "HeadControl"]
    assert len(rows) > 1
    which: list[str] = []
    ranges = find_ranges(log, "blue1: HeadControl == SUCCESS", which=which)
    assert ranges and len(which) == len(ranges)
    paths = {f"#{row['uid']} {row['path']}" for row in rows}
    for text in which:
        assert text.startswith("HeadControl: #")
        assert set(text[len("HeadControl: "):].split(", ")) <= paths
    run = _replay("--find", "blue1: HeadControl == SUCCESS")
    assert run.returncode == 0 and "  (HeadControl: #" in run.stdout.splitlines()[0]
    # a node named once: no such note
    run = _replay("--find", "blue1: #1 == RUNNING")
    assert run.returncode == 0 and "(" not in run.stdout


def test_the_refusal_points_at_what_is_wrong(log: McapLog) -> None:
    run = _replay("--find", "blue1:  decison == 'kick'")
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "soccerbt replay: --find: column 9: blue1 has no node and no blackboard key 'decison'; did you mean "
        "'decision'?",
        "  blue1:  decison == 'kick'",
        "          ^"]
    run = _replay("--find", "blue1: ball_distance_m > 1 && decision = 'a = b'")
    assert run.returncode == 2 and run.stderr.splitlines()[-1] == "  " + " " * 39 + "^"
