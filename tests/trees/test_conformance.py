"""BehaviorTree.CPP 4.10 ground truth: every recorded case replays identically.

The cases in conformance/ are a copy of ../shared/conformance/btcpp (data). The checking logic
is the one of that folder's check.py: root status, ordered leaf ticks and halts, root
blackboard after every tick, load errors and tick errors at the same tick. When ../shared is
present its own check.py runs on its own cases too.
"""
from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest
from py_trees.common import Status

from soccerbt.nodes import ActionNode, InputPort
from soccerbt.trees import TreeFactory, TreeLoadError

HERE = Path(__file__).resolve().parent / "conformance"
EVENTS: list[list[str]] = []
LETTERS = {"S": Status.SUCCESS, "F": Status.FAILURE, "R": Status.RUNNING}


class Scripted(ActionNode):
    """Returns the next scripted status on every tick; the last one repeats."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("statuses", str, default="S")]

    def update(self):
        seq = getattr(self, "_seq", None)
        if seq is None:
            seq = [LETTERS[c.strip()] for c in str(self.get_input("statuses")).split(",") if c.strip()]
            self._seq, self._cursor = seq, 0
        status = seq[min(self._cursor, len(seq) - 1)]
        self._cursor += 1
        EVENTS.append(["tick", self.name, status.name])
        return status

    def on_halted(self):
        EVENTS.append(["halt", self.name])


def _same_value(expected: dict, actual: object) -> bool:
    value, kind = expected.get("value"), expected.get("type", "")
    if value is None:
        return True
    if kind in ("long", "int", "double", "float", "unsigned int", "unsigned long"):
        if isinstance(actual, str):
            try:
                actual = float(actual)
            except ValueError:
                return False
        if not isinstance(actual, (int, float, bool)):
            return False
        return math.isclose(float(value), float(actual), rel_tol=1e-9, abs_tol=1e-6)
    return str(actual) == value


def run_case(root: Path, name: str) -> str | None:
    trace = json.loads((root / "traces" / f"{name}.json").read_text())
    factory = TreeFactory()
    factory.register_node_type("Scripted", Scripted)
    EVENTS.clear()
    try:
        tree = factory.create_tree_from_file(str(root / "cases" / f"{name}.xml"))
    except TreeLoadError as exc:
        return None if trace.get("error_at") == "load" else f"load failed: {exc}"
    if trace.get("error_at") == "load":
        return f"loaded, but BT.CPP rejects it: {trace['error']}"
    for step in trace["ticks"]:
        EVENTS.clear()
        try:
            status = tree.tick_exactly_once()
        except Exception as exc:  # noqa: BLE001
            if step.get("error") is not None:
                return None
            return f"tick {step['tick']} raised {type(exc).__name__}: {exc}"
        if step.get("error") is not None:
            return f"tick {step['tick']} returned {status.name}, BT.CPP raised"
        if status.name != step["root"]:
            return f"tick {step['tick']}: root {status.name}, expected {step['root']}"
        if EVENTS != step["events"]:
            return f"tick {step['tick']}: events {EVENTS}, expected {step['events']}"
        bb = tree.root_blackboard()
        for key, entry in step["blackboard"].items():
            if entry.get("value") is None:
                continue
            if key not in bb:
                return f"tick {step['tick']}: blackboard key {key!r} missing"
            if not _same_value(entry, bb[key]):
                return f"tick {step['tick']}: blackboard {key!r} = {bb[key]!r}, expected {entry}"
    return None


CASES = sorted(c["case"] for c in json.loads((HERE / "index.json").read_text()))


def test_the_copy_holds_the_whole_visible_set():
    assert len(CASES) == 36
    assert all((HERE / "cases" / f"{c}.xml").is_file() for c in CASES)


@pytest.mark.parametrize("name", CASES)
def test_case_matches_btcpp(name):
    assert run_case(HERE, name) is None


def test_shared_check_py_passes_on_its_own_cases(shared_dir, capsys):
    folder = shared_dir / "conformance" / "btcpp"
    spec = importlib.util.spec_from_file_location("btcpp_check", folder / "check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    scripted = module._make_scripted()
    names = sorted(c["case"] for c in json.loads((folder / "index.json").read_text()))
    failures = {n: why for n in names if (why := module.run_case(n, folder, scripted))}
    assert failures == {}
    assert len(names) >= 36


def test_a_wrong_engine_would_fail_the_runner(monkeypatch):
    # the runner is not vacuous: flip one leaf status and the trace no longer matches
    monkeypatch.setitem(LETTERS, "S", Status.FAILURE)
    assert run_case(HERE, "sequence_failure_restart") is not None


INDEX = {c["case"]: c for c in json.loads((HERE / "index.json").read_text())}


@pytest.mark.parametrize("name", [n for n in CASES if INDEX[n].get("roots_tickOnce")
                                  and INDEX[n].get("error_tickOnce_at") is None])
def test_tick_once_roots_match_btcpp(name):
    # index.json also records the root statuses of BT.CPP's tickOnce() (wake-ups followed)
    factory = TreeFactory()
    factory.register_node_type("Scripted", Scripted)
    tree = factory.create_tree_from_file(str(HERE / "cases" / f"{name}.xml"))
    expected = INDEX[name]["roots_tickOnce"]
    assert [tree.tick_once().name for _ in expected] == expected
