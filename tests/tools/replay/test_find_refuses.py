"""--find refuses what it cannot match (issue 40, finding 2): a misspelled key or node, and `=`
where `==` was meant, each end in a message with the nearest names, not in "0 range(s)"."""
from __future__ import annotations

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
