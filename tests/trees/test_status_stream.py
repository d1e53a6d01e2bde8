"""The engine's status stream: every status change, in BehaviorTree.CPP 4.10's logger order.

Each conformance trace carries the transitions BT.CPP's StatusChangeLogger saw (name, fullPath,
previous, new); `Tree.on_status_change` must report the same ones, in the same order, tick by
tick. Also: uids and full paths, removing callbacks, raw callbacks, skipped nodes.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from soccerbt.nodes import ActionNode
from soccerbt.nodes import observe as observe_module
from soccerbt.nodes.observe import is_observed
from soccerbt.nodes.status import NodeStatus
from soccerbt.trees import TreeFactory, TreeLoadError

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("_conformance", HERE / "test_conformance.py")
_conformance = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conformance)  # type: ignore[union-attr]
Scripted = _conformance.Scripted

ROOTS = [HERE / "conformance", HERE / "conformance_extra", HERE / "conformance_410"]
CASES = [(root, p.stem) for root in ROOTS for p in sorted((root / "cases").glob("*.xml"))]


@pytest.fixture(autouse=True, params=["compiled", "python"])
def watch_way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test both ways a tree is watched (soccerbt.nodes.observe): the compiled status slot
    (soccerbt.native) and the pure-Python subclass with its descriptor."""
    if request.param == "compiled" and observe_module._SLOT is None:
        pytest.skip("soccerbt.native not built here (tests/native checks it is wherever a compiler is)")
    monkeypatch.setattr(observe_module, "use_slot", request.param == "compiled")
    return request.param


def _transitions_of(root: Path, name: str) -> tuple[list, list]:
    """(expected, got): the transitions per tick of a recorded case and of our engine."""
    trace = json.loads((root / "traces" / f"{name}.json").read_text())
    factory = TreeFactory()
    factory.register_node_type("Scripted", Scripted)
    try:
        tree = factory.create_tree_from_file(str(root / "cases" / f"{name}.xml"))
    except TreeLoadError:
        assert trace.get("error_at") == "load"
        return [], []
    got_tick: list[list[str]] = []
    tree.on_status_change(lambda c: got_tick.append([c.name, c.path, c.previous.name, c.status.name]))
    expected, got = [], []
    for step in trace["ticks"]:
        got_tick.clear()
        try:
            tree.tick_exactly_once()
        except Exception:  # noqa: BLE001 - the conformance test checks errors; transitions up to it
            pass
        expected.append(step.get("transitions") or [])
        got.append(list(got_tick))
    return expected, got


@pytest.mark.parametrize("root,name", CASES, ids=[f"{r.name}/{n}" for r, n in CASES])
def test_transitions_match_btcpp_logger(root: Path, name: str) -> None:
    expected, got = _transitions_of(root, name)
    for tick, (exp, actual) in enumerate(zip(expected, got, strict=False), 1):
        assert actual == exp, f"tick {tick}"


def test_the_cases_hold_thousands_of_transitions() -> None:
    total = 0
    for root, name in CASES:
        trace = json.loads((root / "traces" / f"{name}.json").read_text())
        total += sum(len(t.get("transitions") or []) for t in trace["ticks"])
    assert total > 2500


XML = """
<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="top">
      <Scripted name="A" statuses="S"/>
      <SubTree ID="Sub" name="inner"/>
      <Scripted name="C" statuses="R,S" _skipIf="skip_c"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Sub">
    <Fallback>
      <Scripted name="B" statuses="F"/>
      <Scripted statuses="S"/>
    </Fallback>
  </BehaviorTree>
</root>
"""


def _tree():
    factory = TreeFactory()
    factory.register_node_type("Scripted", Scripted)
    tree = factory.create_tree_from_text(XML)
    tree.root_blackboard()["skip_c"] = False
    return tree


def test_uids_follow_creation_order_and_full_paths_name_subtrees() -> None:
    tree = _tree()
    rows = [(n.uid, n.full_path) for n in tree.nodes_by_uid()]
    assert rows == [
        (1, "top"), (2, "A"), (3, "inner"), (4, "inner/Fallback::4"), (5, "inner/B"),
        (6, "inner/Scripted::6"), (7, "C"),
    ]
    assert tree.node_by_uid(5).name == "B" and tree.node_by_uid(99) is None


def test_callback_objects_carry_uid_path_statuses_and_tick() -> None:
    tree = _tree()
    seen = []
    tree.on_status_change(seen.append)
    tree.tick_exactly_once()
    first = seen[0]
    assert (first.uid, first.path, first.previous, first.status, first.tick) == (
        1, "top", NodeStatus.IDLE, NodeStatus.RUNNING, 1)
    assert [(c.uid, c.status.name) for c in seen] == [
        (1, "RUNNING"), (2, "SUCCESS"), (3, "RUNNING"), (4, "RUNNING"), (5, "FAILURE"),
        (6, "SUCCESS"), (5, "IDLE"), (6, "IDLE"), (4, "SUCCESS"), (4, "IDLE"), (3, "SUCCESS"),
        (7, "RUNNING"),
    ]


def test_skipped_nodes_make_no_transition_and_go_to_the_skip_sink() -> None:
    tree = _tree()
    tree.root_blackboard()["skip_c"] = True
    seen, skipped = [], []
    tree.on_status_change(seen.append)
    tree.env.skip_sink = skipped
    assert tree.tick_exactly_once() is NodeStatus.SUCCESS
    assert 7 not in [c.uid for c in seen] and skipped == [7]


def test_removing_the_last_callback_restores_the_plain_classes() -> None:
    tree = _tree()
    classes = [type(n) for n in tree.nodes()]
    seen, raw = [], []
    h1 = tree.on_status_change(seen.append)
    h2 = tree.on_status_change(lambda node, prev, new: raw.append((node.uid, prev, new)), raw=True)
    assert all(is_observed(n) for n in tree.nodes())
    assert [type(n).__name__ for n in tree.nodes()] == [c.__name__ for c in classes]
    tree.tick_exactly_once()
    assert [(c.uid, c.previous, c.status) for c in seen] == raw
    h1.remove()
    h1.remove()  # idempotent
    tree.tick_exactly_once()
    assert len(raw) > len(seen)
    tree.remove_status_callback(h2)
    assert [type(n) for n in tree.nodes()] == classes and tree.env.status_observer is None
    before = len(raw)
    tree.tick_exactly_once()
    assert len(raw) == before


class _Halted(ActionNode):
    def update(self):
        from py_trees.common import Status
        return Status.RUNNING


def test_a_halt_resets_children_before_the_parent() -> None:
    factory = TreeFactory()
    factory.register_node_type("Forever", _Halted)
    tree = factory.create_tree_from_text(
        '<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence><Forever name="F"/></Sequence>'
        '</BehaviorTree></root>')
    seen = []
    tree.on_status_change(seen.append)
    tree.tick_exactly_once()
    seen.clear()
    tree.halt_tree()
    assert [(c.name, c.previous.name, c.status.name) for c in seen] == [
        ("F", "RUNNING", "IDLE"), ("Sequence", "RUNNING", "IDLE")]


def test_the_status_log_holds_uid_and_codes_in_order() -> None:
    tree = _tree()
    seen = []
    handle = tree.on_status_change(seen.append)
    log = tree.start_status_log()
    tree.tick_exactly_once()
    assert len(log) == 3 * len(seen)
    assert [tuple(log[i:i + 3]) for i in range(0, len(log), 3)] == [
        (c.uid, c.previous.code, c.status.code) for c in seen]
    tree.stop_status_log()
    log.clear()
    tree.tick_exactly_once()
    assert log == [] and all(is_observed(n) for n in tree.nodes())  # the callback still watches
    handle.remove()
    assert not any(is_observed(n) for n in tree.nodes())
