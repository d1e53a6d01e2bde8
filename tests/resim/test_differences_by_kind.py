"""Issue 40, "Differences by kind": after a threshold edit in a tree, ``--rerun`` and ``replay diff``
print the first difference of each kind (statuses, decisions, reasons, commands, ...) with its
time and node, and list the decision changes (time, old -> new, the key, the node that wrote it)
up to ``--max-changes``, with the counts as before.

The tree counts its ticks in a blackboard entry (``n``: 1..9, 0, 1, ...) and decides ``kick``
while ``n < 3``: editing the threshold to 5 makes the decision differ at the ticks where n is 3
or 4 (ticks 3-4, 13-14, ...), which the tree's own scripts decide, whatever the robot senses.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from soccerbt.__main__ import main
from soccerbt.log.writer import make_recorder
from soccerbt.match import Match, MatchConfig

COUNTING_TREE = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="top">
      <RunOnce><Script name="start" code="n := 0"/></RunOnce>
      <Script name="count" code="n := n >= 9 ? 0 : n + 1"/>
      <Script name="decide" code="decision := n &lt; 3 ? 'kick' : 'wait'"/>
      <SetVelocity x="0.1" y="0" theta="0" _while="decision == 'kick'"/>
    </Sequence>
  </BehaviorTree>
</root>
"""
THRESHOLD = ("n &lt; 3", "n &lt; 5")   # the edit: kick while n < 5 instead of n < 3

FIRST_DECISION = ("decisions at t=0.03s (step 3, tick 3), written by node decide #5: "
                  "decision 'wait' in {a}, 'kick' in {b}")
FIRST_STATUS = ("statuses at t=0.03s (step 3, tick 3), node SetVelocity::6 #6: "
                "SetVelocity::6 SKIPPED in {a}, SUCCESS in {b}")


def _change(k: int) -> str:
    """The k-th decision change (from 0): ticks 10k+3 and 10k+4, 'wait' in the log, 'kick' re-run."""
    k0, k1 = 10 * k + 3, 10 * k + 4
    return f"t={k0 / 100:.2f}-{k1 / 100:.2f}s (ticks {k0}-{k1}) decision: 'wait' -> 'kick', written by node decide #5"


def _record(path: Path, seconds: float, tree: Path) -> Path:
    match = Match(MatchConfig(seed=1, duration_s=seconds, team_size=1, blue_tree=str(tree), idle_teams=("red",)))
    recorder = make_recorder(path, match)
    match.run(seconds)
    recorder.finish(match.result())
    return path


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("by_kind")
    old, new = folder / "old.xml", folder / "new.xml"
    old.write_text(COUNTING_TREE)
    new.write_text(COUNTING_TREE.replace(*THRESHOLD))
    assert new.read_text() != old.read_text()
    return old, new


@pytest.fixture(scope="module")
def logs(trees: tuple[Path, Path]) -> dict[str, Path]:
    """0.3 s (three decision changes) and 2.5 s (25) of each tree."""
    old, new = trees
    return {f"{name}{seconds}": _record(old.parent / f"{name}{seconds}.mcap", seconds, tree)
            for name, tree in (("old", old), ("new", new)) for seconds in (0.3, 2.5)}


def _out(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_rerun_prints_the_first_decision_change_after_a_threshold_edit(
        trees: tuple[Path, Path], logs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _old, new = trees
    assert main(["replay", str(logs["old0.3"]), "--robot", "blue1", "--rerun", "--tree", str(new)]) == 1
    lines = _out(capsys)
    # today's lines, unchanged: the first differing tick with every aspect there, then the counts
    assert lines[1:5] == [
        "blue1: first difference at t=0.03s (step 3, tick 3), log / re-run:",
        "  statuses: SetVelocity::6 SKIPPED in the log, SUCCESS in the re-run",
        "  decisions: decision 'wait' in the log, 'kick' in the re-run",
        "blue1: ticks that differ over t=0.01-0.30s (30 ticks): statuses 6 (20.0%), decisions 6 (20.0%), "
        "reasons 0 (0.0%), commands 0 (0.0%)",
    ]
    # then each kind's first difference with its time and node, and the decision changes
    assert lines[5:] == [
        "blue1: first difference of each kind, log / re-run:",
        "  " + FIRST_STATUS.format(a="the log", b="the re-run"),
        "  " + FIRST_DECISION.format(a="the log", b="the re-run"),
        "  reasons, commands: the same at every tick",
        "blue1: decision changes (log -> re-run): 3",
        *("  " + _change(k) for k in range(3)),
    ]


def test_diff_prints_the_first_difference_of_each_kind_between_two_trees(
        logs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = logs["old0.3"], logs["new0.3"]
    assert main(["replay", "diff", str(a), str(b)]) == 1
    lines = _out(capsys)
    assert lines[0] == "note: blue1's trees differ (#5 decide)"
    assert lines[1] == f"first difference at step 3 (t=0.03s), A = {a} / B = {b}:"
    start = lines.index("first difference of each kind, A / B:")
    assert lines[start + 1:] == [
        "  truth: the same at every step",
        "  blue1 " + FIRST_STATUS.format(a="A", b="B"),
        "  blue1 " + FIRST_DECISION.format(a="A", b="B"),
        "  blue1 reasons, commands, blackboard: the same at every tick",
        "decision changes (A -> B): 3",
        *("  blue1 " + _change(k) for k in range(3)),
        "steps that differ over t=0.01-0.30s (30 steps compared): truth 0 (0.0%)",
        "  blue1: statuses 6 (20.0%), decisions 6 (20.0%), reasons 0 (0.0%), commands 0 (0.0%), blackboard 0 (0.0%)",
    ]
    # the same log twice: nothing of the above
    assert main(["replay", "diff", str(a), str(a)]) == 0
    assert _out(capsys) == [f"identical: {a} and {a} (30 steps)"]


def test_the_decision_changes_are_listed_up_to_a_limit(
        trees: tuple[Path, Path], logs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _old, new = trees
    rerun = ["replay", str(logs["old2.5"]), "--robot", "blue1", "--rerun", "--tree", str(new)]
    assert main(rerun) == 1  # the default: 20 of the 25
    lines = _out(capsys)
    head = lines.index("blue1: decision changes (log -> re-run): 25")
    assert lines[head + 1:] == [*("  " + _change(k) for k in range(20)), "  ... 5 more (--max-changes N lists more)"]
    assert main([*rerun, "--max-changes", "2"]) == 1
    lines = _out(capsys)
    assert lines[lines.index("blue1: decision changes (log -> re-run): 25") + 1:] == [
        "  " + _change(0), "  " + _change(1), "  ... 23 more (--max-changes N lists more)"]
    assert main([*rerun, "--max-changes", "30"]) == 1
    lines = _out(capsys)
    assert lines[-1] == "  " + _change(24) and not any(line.startswith("  ... ") for line in lines)
    # diff: the same limit over the two logs; 0 lists none and counts them all
    assert main(["replay", "diff", str(logs["old2.5"]), str(logs["new2.5"]), "--max-changes", "0"]) == 1
    lines = _out(capsys)
    at = lines.index("decision changes (A -> B): 25")
    assert lines[at + 1] == "  ... 25 more (--max-changes N lists more)"
    assert lines[at + 2].startswith("steps that differ over t=0.01-2.50s (250 steps compared)")
    assert "  blue1 " + FIRST_DECISION.format(a="A", b="B") in lines
    with pytest.raises(SystemExit):
        main([*rerun, "--max-changes", "-1"])
    assert "expected 0 or more" in capsys.readouterr().err
