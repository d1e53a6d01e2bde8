"""Hooks over the protocol: a BREAKPOINT stops the tick until Groot2 unlocks it, a REPLACE hook
forces the node's result and what follows changes, a one-shot hook goes after its use, and
when Groot2 stops asking (5 s without a request, on an injected clock) every hook is disabled
and a waiting breakpoint released, then enabled again when requests return."""
from __future__ import annotations

import threading

import groot_client_spec as spec
import pytest

from soccerbt.groot import Groot2Publisher
from soccerbt.trees import TreeFactory

XML = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="seq">
      <AlwaysFailure name="gate"/>
      <Script name="after" code="reached:=true"/>
    </Sequence>
  </BehaviorTree>
</root>"""
JOIN_S = 20.0  # a safeguard against a hung test, not a time limit


class FakeClock:
    def __init__(self) -> None:
        self.s = 100.0

    def __call__(self) -> float:
        return self.s


@pytest.fixture
def served(port):
    tree = TreeFactory().create_tree_from_text(XML)
    clock = FakeClock()
    publisher = Groot2Publisher(tree, port, clock=clock)
    client = spec.Client(port)
    uids = {n.name: n.uid for n in tree.nodes()}
    yield tree, publisher, client, clock, uids
    client.close()
    publisher.close()


def tick_in_thread(tree):
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("status", tree.tick_exactly_once()), daemon=True)
    thread.start()
    return thread, result


def test_without_hooks_the_gate_fails(served) -> None:
    tree, _, _, _, _ = served
    assert tree.tick_exactly_once().name == "FAILURE"
    assert "reached" not in tree.root_blackboard()


def test_replace_hook_forces_the_result_and_what_follows(served) -> None:
    tree, _, client, _, uids = served
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["gate"], mode=1, desired="SUCCESS"))
    assert tree.tick_exactly_once().name == "SUCCESS"
    assert client.notification()[1] == uids["gate"]   # 4.10 announces a REPLACE hook too
    assert "reached" in tree.root_blackboard()   # the sequence went on past the gate
    assert tree.tick_exactly_once().name == "SUCCESS"   # the hook stays
    client.request(spec.REMOVE_ALL_HOOKS)
    assert tree.tick_exactly_once().name == "FAILURE"


def test_post_replace_hook_overrides_the_ticked_result(served) -> None:
    tree, _, client, _, uids = served
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["gate"], mode=1, position=1, desired="SUCCESS"))
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["after"], mode=1, position=1, desired="FAILURE"))
    assert tree.tick_exactly_once().name == "FAILURE"
    assert "reached" in tree.root_blackboard()   # the script ran; its SUCCESS was replaced
    got = client.statuses()
    assert got[uids["after"]] == 13 and got[uids["gate"]] == 12  # reset by the sequence's end


def test_one_shot_hook_goes_after_its_use(served) -> None:
    tree, _, client, _, uids = served
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["gate"], mode=1, desired="SUCCESS", once=True))
    assert tree.tick_exactly_once().name == "SUCCESS"
    assert client.hooks() == []
    assert tree.tick_exactly_once().name == "FAILURE"


def test_breakpoint_waits_until_unlocked(served) -> None:
    tree, publisher, client, _, uids = served
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["gate"]))
    thread, result = tick_in_thread(tree)
    assert client.notification()[1] == uids["gate"]
    assert thread.is_alive() and result == {}
    assert publisher.waiting_uid == uids["gate"]
    got = client.statuses()
    assert got[uids["seq"]] == 1 and got[uids["gate"]] == 0   # the sequence runs, the gate waits
    client.json_request(spec.BREAKPOINT_UNLOCK, {"uid": uids["gate"], "position": 0, "desired_status": "SUCCESS",
                                                 "remove_when_done": False})
    thread.join(JOIN_S)
    assert result["status"].name == "SUCCESS" and "reached" in tree.root_blackboard()
    assert publisher.waiting_uid is None
    # unlocked with neither SUCCESS nor FAILURE: the node runs itself
    thread, result = tick_in_thread(tree)
    assert client.notification()[1] == uids["gate"]
    client.json_request(spec.BREAKPOINT_UNLOCK, {"uid": uids["gate"], "position": 0, "desired_status": "IDLE",
                                                 "remove_when_done": True})
    thread.join(JOIN_S)
    assert result["status"].name == "FAILURE" and client.hooks() == []


def test_breakpoint_turned_into_replace_lets_the_tick_go(served) -> None:
    tree, _, client, _, uids = served
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["gate"]))
    thread, result = tick_in_thread(tree)
    client.notification()
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["gate"], mode=1, desired="SUCCESS"))
    thread.join(JOIN_S)
    assert result["status"].name == "SUCCESS"


def test_silence_releases_hooks_and_requests_enable_them_again(served) -> None:
    tree, publisher, client, clock, uids = served
    client.json_request(spec.HOOK_INSERT, [spec.hook(uids["gate"]),
                                           spec.hook(uids["after"], mode=1, desired="FAILURE")])
    thread, result = tick_in_thread(tree)
    client.notification()
    assert thread.is_alive()
    clock.s += 4.9
    assert publisher.check_heartbeat() is True and thread.is_alive()
    clock.s += 0.2                                      # 5.1 s without a request
    assert publisher.check_heartbeat() is False
    thread.join(JOIN_S)
    assert result["status"].name == "FAILURE"          # released: the gate ran itself
    assert [h["enabled"] for h in publisher.hooks_json()] == [False, False]
    assert tree.tick_exactly_once().name == "FAILURE"  # disabled hooks do nothing
    client.request(spec.STATUS)                        # Groot2 is back
    assert publisher.check_heartbeat() is True
    assert [h["enabled"] for h in client.hooks()] == [True, True]
    client.json_request(spec.HOOK_REMOVE, {"uid": uids["gate"], "position": 0})
    assert tree.tick_exactly_once().name == "FAILURE"  # gate fails on its own
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["gate"], mode=1, desired="SUCCESS"))
    assert tree.tick_exactly_once().name == "FAILURE"  # then "after" is forced to FAILURE (not run)
    assert "reached" not in tree.root_blackboard()


def test_a_waiting_breakpoint_notices_the_silence_itself(served) -> None:
    tree, publisher, client, clock, uids = served
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["gate"]))
    thread, result = tick_in_thread(tree)
    client.notification()
    clock.s += 6.0                                      # nobody asks: the waiting tick notices
    thread.join(JOIN_S)
    assert not thread.is_alive() and result["status"].name == "FAILURE"


def test_close_releases_a_waiting_breakpoint(served) -> None:
    tree, publisher, client, _, uids = served
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["gate"]))
    thread, result = tick_in_thread(tree)
    client.notification()
    publisher.close()
    thread.join(JOIN_S)
    assert result["status"].name == "FAILURE"
    assert all("execute_tick" not in n.__dict__ for n in tree.nodes())  # the tree is as before


def test_a_request_after_a_silence_enables_every_hook(served) -> None:
    tree, publisher, client, clock, uids = served
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["gate"], mode=1, desired="SUCCESS"))
    client.request(spec.DISABLE_ALL_HOOKS)
    assert [h["enabled"] for h in client.hooks()] == [False]
    clock.s += 6.0
    client.request(spec.STATUS)      # 4.10: the silence disabled every hook, the request enables them all
    assert [h["enabled"] for h in publisher.hooks_json()] == [True]
    assert tree.tick_exactly_once().name == "SUCCESS"


def test_an_unwatched_tree_is_not_followed_and_caught_up_when_asked(served) -> None:
    tree, publisher, client, clock, uids = served
    assert tree.env.status_observer is not None
    clock.s += 6.0
    assert publisher.check_heartbeat() is False
    assert tree.env.status_observer is None            # nobody asks: the ticks pay nothing
    tree.tick_exactly_once()
    got = client.statuses()                            # asked again: caught up from the nodes
    assert tree.env.status_observer is not None
    assert (got[uids["seq"]], got[uids["gate"]], got[uids["after"]]) == (13, 13, 0)
    tree.tick_exactly_once()
    assert client.statuses() == got


def test_beside_another_observer_the_publisher_keeps_watching(served) -> None:
    tree, publisher, client, clock, uids = served
    changes = []
    tree.on_status_change(changes.append)              # a recorder, say
    clock.s += 6.0
    publisher.check_heartbeat()
    tree.tick_exactly_once()
    assert changes and tree.env.status_observer is not None
    assert client.statuses()[uids["seq"]] == 13


def test_the_server_notices_a_silence_by_itself(served) -> None:
    tree, publisher, client, clock, uids = served
    client.json_request(spec.HOOK_INSERT, spec.hook(uids["gate"], mode=1, desired="SUCCESS"))
    clock.s += 6.0                                     # nobody asks, nothing ticks: the server looks each second
    waited = 0.0
    while tree.env.status_observer is not None and waited < JOIN_S:
        threading.Event().wait(0.05)
        waited += 0.05
    assert tree.env.status_observer is None
    assert [h["enabled"] for h in publisher.hooks_json()] == [False]
