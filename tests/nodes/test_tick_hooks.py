"""BT.CPP 4.10's injected pre/post tick callbacks (soccerbt.nodes.tick_hooks): where executeTick
calls them, what their results do, and that a node without them runs its class's method."""
from __future__ import annotations

from soccerbt.nodes.status import FAILURE, RUNNING, SKIPPED, SUCCESS
from soccerbt.nodes.tick_hooks import clear_tick_hooks, set_post_tick, set_pre_tick, tick_hooks
from soccerbt.trees import TreeFactory

XML = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="seq">
      <AlwaysFailure name="gate" _skipIf="skip == 1"/>
      <Script name="after" code="reached:=1" _onSuccess="done:=1"/>
    </Sequence>
  </BehaviorTree>
</root>"""


def build():
    tree = TreeFactory().create_tree_from_text(XML)
    tree.root_blackboard()["skip"] = 0
    nodes = {n.name: n for n in tree.nodes()}
    return tree, nodes


def test_pre_tick_result_replaces_the_tick() -> None:
    tree, nodes = build()
    calls = []
    set_pre_tick(nodes["gate"], lambda n: calls.append(n.name) or SUCCESS)
    assert tree.tick_exactly_once() is SUCCESS
    assert calls == ["gate"]
    set_pre_tick(nodes["gate"], lambda n: SKIPPED)     # neither SUCCESS nor FAILURE: the node runs
    assert tree.tick_exactly_once() is FAILURE


def test_preconditions_come_first_and_skip_the_pre_callback() -> None:
    tree, nodes = build()
    pre_calls, post_calls = [], []
    set_pre_tick(nodes["gate"], lambda n: pre_calls.append(1) or SUCCESS)
    set_post_tick(nodes["gate"], lambda n, st: post_calls.append(st) or st)
    tree.root_blackboard()["skip"] = 1
    assert tree.tick_exactly_once() is SUCCESS          # gate skipped, the script ran
    assert pre_calls == [] and post_calls == [SKIPPED]  # the post callback sees SKIPPED
    assert nodes["gate"].node_status.name == "IDLE"


def test_post_tick_replaces_the_result_after_the_post_conditions() -> None:
    tree, nodes = build()
    set_post_tick(nodes["after"], lambda n, st: FAILURE if st is SUCCESS else st)
    set_pre_tick(nodes["gate"], lambda n: SUCCESS)
    assert tree.tick_exactly_once() is FAILURE
    bb = tree.root_blackboard()
    assert "reached" in bb and "done" in bb            # _onSuccess ran on the tick's own SUCCESS


def test_pre_callback_not_called_on_a_completed_node() -> None:
    _, nodes = build()
    node = nodes["after"]
    node.set_status(SUCCESS)
    calls = []
    set_pre_tick(node, lambda n: calls.append(1) or FAILURE)
    assert node.execute_tick() is SUCCESS and calls == []


def test_running_is_stored_and_callbacks_removed_restore_the_class_method() -> None:
    tree, nodes = build()
    set_post_tick(nodes["after"], lambda n, st: RUNNING)  # not a completed status: ignored
    set_pre_tick(nodes["gate"], lambda n: SUCCESS)
    assert tree.tick_exactly_once() is SUCCESS
    assert tick_hooks(nodes["gate"])[0] is not None
    set_pre_tick(nodes["gate"], None)
    set_post_tick(nodes["after"], None)
    assert "execute_tick" not in nodes["gate"].__dict__ and "execute_tick" not in nodes["after"].__dict__
    assert tick_hooks(nodes["gate"]) == (None, None)
    assert tree.tick_exactly_once() is FAILURE
    set_pre_tick(nodes["gate"], lambda n: SUCCESS)
    clear_tick_hooks(nodes["gate"])
    assert tree.tick_exactly_once() is FAILURE


def test_a_watched_tree_reports_the_forced_status() -> None:
    tree, nodes = build()
    changes = []
    tree.on_status_change(lambda c: changes.append((c.name, c.status.name)))
    set_pre_tick(nodes["gate"], lambda n: SUCCESS)
    tree.tick_exactly_once()
    assert ("gate", "SUCCESS") in changes and ("after", "SUCCESS") in changes
