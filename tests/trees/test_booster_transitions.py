"""soccerbt's status stream on Booster's full trees, against BehaviorTree.CPP 4.8.2's loggers.

tests/trees/booster_transitions/ holds, per Booster tree set, the tree with its includes
resolved and its leaves' ports removed (CASE.xml) and the trace that
tools/btcpp_recorder/booster_transitions.py recorded in the real BT.CPP 4.8.2 (CASE.json): per
tick the blackboard values written before the tick, the root status, the leaf events and the
transitions [uid, fullPath, from, to] of FileLogger2/StdCoutLogger. Every Booster leaf is a
stateful action whose onStart/onRunning return the next letter of a status cycle per node id.
Here the same leaves and writes are replayed in soccerbt and every transition is compared.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from soccerbt.nodes import StatefulActionNode
from soccerbt.nodes.status import NodeStatus
from soccerbt.trees import TreeFactory

HERE = Path(__file__).resolve().parent / "booster_transitions"
CASES = sorted(p.stem for p in HERE.glob("*.json"))
LETTERS = {"S": NodeStatus.SUCCESS, "F": NodeStatus.FAILURE, "R": NodeStatus.RUNNING}


def _leaf_class(node_id: str, cycle: list[NodeStatus], events: list) -> type:
    def next_status(self):
        i = getattr(self, "_cursor", 0)
        self._cursor = i + 1
        status = cycle[i % len(cycle)]
        events.append(["tick", self.uid, status.name])
        return status

    def on_halted(self):
        events.append(["halt", self.uid])

    return type(node_id, (StatefulActionNode,), {"on_start": next_status, "on_running": next_status,
                                                  "on_halted": on_halted})


def replay(case: str, xml: str | None = None, factory: TreeFactory | None = None) -> tuple[dict, list]:
    """(BT.CPP's trace, soccerbt's ticks as [{"root", "error", "events", "transitions"}])."""
    trace = json.loads((HERE / f"{case}.json").read_text())
    events: list = []
    factory = factory or TreeFactory()
    for node_id, letters in trace["leaf_statuses"].items():
        cls = _leaf_class(node_id, [LETTERS[c] for c in letters.split(",")], events)
        factory.register_node_type(node_id, cls, ports=[], replace=True)
    tree = factory.create_tree_from_text(xml if xml is not None else (HERE / f"{case}.xml").read_text())
    transitions: list = []
    tree.on_status_change(lambda c: transitions.append([c.uid, c.path, c.previous.name, c.status.name]))
    bb = tree.root_blackboard()
    got = []
    for step in trace["ticks"]:
        for key, value in step["set"].items():
            bb.set(key, value)
        events.clear()
        transitions.clear()
        out: dict = {}
        try:
            out["root"] = tree.tick_exactly_once().name
        except Exception as exc:  # noqa: BLE001 - compared with BT.CPP's error below
            out["root"], out["error"] = None, str(exc)
        out["events"], out["transitions"] = list(events), list(transitions)
        got.append(out)
        if "error" in out or "error" in step:
            break
    return trace, got


def _first_difference(trace: dict, got: list, field: str) -> str | None:
    for step, mine in zip(trace["ticks"], got, strict=False):
        exp, act = step.get(field), mine.get(field)
        if exp == act:
            continue
        if isinstance(exp, list):
            for i, (a, b) in enumerate(zip(exp, act, strict=False)):
                if a != b:
                    return (f"tick {step['tick']} (set {step['set']}), {field}[{i}]: BT.CPP {a} / "
                            f"soccerbt {b}; BT.CPP before: {exp[max(0, i - 3):i]}")
            return (f"tick {step['tick']}: {field}: BT.CPP has {len(exp)}, soccerbt {len(act)}; "
                    f"extra: {exp[len(act):len(act) + 3] or act[len(exp):len(exp) + 3]}")
        return f"tick {step['tick']}: {field}: BT.CPP {exp!r} / soccerbt {act!r}"
    if len(got) != len(trace["ticks"]):
        return f"soccerbt ran {len(got)} ticks, BT.CPP {len(trace['ticks'])}"
    return None


def test_recorded_cases_exist() -> None:
    assert CASES, f"no recorded case in {HERE}"


@pytest.mark.parametrize("case", CASES)
def test_trace_is_consistent(case: str) -> None:
    """Every recorded transition names a node BT.CPP created, with its fullPath."""
    trace = json.loads((HERE / f"{case}.json").read_text())
    paths = {uid: path for uid, _name, path, _reg in trace["nodes"]}
    assert len(paths) == len(trace["nodes"])
    assert len(trace["ticks"]) == 300 and not any("error" in s for s in trace["ticks"])
    for step in trace["ticks"]:
        for uid, path, _from, _to in step["transitions"]:
            assert paths[uid] == path


@pytest.mark.parametrize("case", CASES)
def test_transitions_match_btcpp(case: str) -> None:
    trace, got = replay(case)
    total = sum(len(s["transitions"]) for s in trace["ticks"])
    assert total > 1000
    diff = _first_difference(trace, got, "transitions")
    assert diff is None, diff


@pytest.mark.parametrize("case", CASES)
def test_roots_and_leaf_events_match_btcpp(case: str) -> None:
    trace, got = replay(case)
    for field in ("root", "events"):
        diff = _first_difference(trace, got, field)
        assert diff is None, diff


BOOSTER = Path(__file__).resolve().parents[3] / "shared" / "booster"   # /work/shared/booster
ORIGINALS = {"game_trees": "trees", "game_trees_2026": "trees-2026"}


@pytest.mark.parametrize("case", [c for c in CASES if c in ORIGINALS])
def test_booster_original_xml_gives_the_same_transitions(case: str) -> None:
    """Booster's own game.xml (includes, ports, unescaped `&&`, Sleep 5 s) loaded by soccerbt with
    the stub ports of nodes.json: same transitions as the recorded, flattened copy."""
    tree_dir = BOOSTER / ORIGINALS[case]
    if not (tree_dir / "game.xml").exists():
        pytest.skip(f"{tree_dir} not available")
    from soccerbt.nodes.stubs import stub_node_types

    nodes_json = tree_dir / "nodes.json" if (tree_dir / "nodes.json").exists() else BOOSTER / "nodes.json"
    ports = {node_id: p for node_id, (_cls, p) in stub_node_types(nodes_json).items()}
    trace = json.loads((HERE / f"{case}.json").read_text())
    events: list = []
    factory = TreeFactory()
    for node_id, letters in trace["leaf_statuses"].items():
        cls = _leaf_class(node_id, [LETTERS[c] for c in letters.split(",")], events)
        factory.register_node_type(node_id, cls, ports=ports[node_id])
    tree = factory.create_tree_from_file(str(tree_dir / "game.xml"))
    got: list = []
    tree.on_status_change(lambda c: got.append([c.uid, c.path, c.previous.name, c.status.name]))
    bb = tree.root_blackboard()
    for step in trace["ticks"]:
        for key, value in step["set"].items():
            bb.set(key, value)
        got.clear()
        tree.tick_exactly_once()
        assert got == step["transitions"], f"tick {step['tick']}"
