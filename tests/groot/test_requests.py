"""Every request type of BT.CPP 4.10's Groot2 protocol answered by soccerbt's publisher, checked
by a client written from the protocol (groot_client.py) over 127.0.0.1: the reply headers, the
tree XML and its uids, the statuses after known ticks, the blackboards, the hooks' requests,
recording and transitions, and the refusals."""
from __future__ import annotations

import struct

import groot_client_spec as spec
import pytest
from lxml import etree

from soccerbt.groot import Groot2Publisher
from soccerbt.trees import TreeFactory

XML = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="seq">
      <Script name="init" code="flag:=true; speed:=1.5; label:='go'; count:=3"/>
      <SubTree ID="Sub" name="inner" count="{count}"/>
      <KeepRunningUntilFailure name="keep">
        <AlwaysSuccess name="ok"/>
      </KeepRunningUntilFailure>
      <AlwaysFailure name="never"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Sub">
    <Script name="sub_script" code="local:=-7"/>
  </BehaviorTree>
</root>"""

IDLE, RUNNING, SUCCESS, FAILURE = 0, 1, 2, 3
IDLE_FROM = 10  # a node back to IDLE shows 10 + the status it left


class Clock:
    def __init__(self) -> None:
        self.us = 1_000_000

    def __call__(self) -> int:
        return self.us


@pytest.fixture
def served(port):
    tree = TreeFactory().create_tree_from_text(XML)
    wall = Clock()
    publisher = Groot2Publisher(tree, port, wall_clock_us=wall)
    client = spec.Client(port)
    yield tree, publisher, client, wall
    client.close()
    publisher.close()


def uid_of(tree, name: str) -> int:
    return next(n.uid for n in tree.nodes() if n.name == name)


def test_reply_header_echoes_the_request_and_carries_the_tree_uuid(served) -> None:
    tree, publisher, client, _ = served
    first = client.request(spec.STATUS)
    second = client.request(spec.FULLTREE)
    assert first.protocol == 2 and second.protocol == 2
    assert first.tree_uuid == second.tree_uuid and len(first.tree_uuid) == 16
    assert first.tree_uuid[6] >> 4 == 4 and first.tree_uuid[8] >> 6 == 0b10  # a version 4 UUID


def test_full_tree_has_every_uid_and_the_models(served) -> None:
    tree, _, client, _ = served
    xml = client.request(spec.FULLTREE).parts[0]
    root = etree.fromstring(xml)
    uids = sorted(int(e.get("_uid")) for e in root.iter() if e.get("_uid") is not None)
    assert uids == sorted(n.uid for n in tree.nodes())
    named = {e.get("name"): int(e.get("_uid")) for e in root.iter() if e.get("_uid") is not None}
    assert named["keep"] == uid_of(tree, "keep") and named["sub_script"] == uid_of(tree, "sub_script")
    assert [b.get("_fullpath") for b in root.findall("BehaviorTree")] == ["", "inner"]
    subtree = root.find(".//SubTree")
    assert subtree.get("ID") == "Sub" and subtree.get("_fullpath") == "inner" and subtree.get("count") == "{count}"
    models = {m.get("ID") for m in root.find("TreeNodesModel")}
    assert {"Sequence", "KeepRunningUntilFailure", "Script", "SubTree", "AlwaysFailure"} <= models
    # TinyXML2's layout: four spaces a level, a newline after the root
    text = xml.decode()
    assert text.startswith('<root BTCPP_format="4">\n    <BehaviorTree ID="Main" _fullpath="">\n')
    assert text.endswith("</root>\n")


def test_statuses_after_known_ticks(served) -> None:
    tree, _, client, _ = served
    names = ["seq", "init", "inner", "sub_script", "keep", "ok", "never"]
    uid = {name: uid_of(tree, name) for name in names}
    assert client.statuses() == {u: IDLE for u in uid.values()}
    tree.tick_exactly_once()
    got = client.statuses()
    assert {name: got[uid[name]] for name in names} == {
        "seq": RUNNING, "init": SUCCESS, "inner": SUCCESS, "sub_script": IDLE_FROM + SUCCESS,
        "keep": RUNNING, "ok": IDLE_FROM + SUCCESS, "never": IDLE}
    tree.halt_tree()
    got = client.statuses()
    assert {name: got[uid[name]] for name in names} == {
        "seq": IDLE_FROM + RUNNING, "init": IDLE_FROM + SUCCESS, "inner": IDLE_FROM + SUCCESS,
        "sub_script": IDLE_FROM + SUCCESS, "keep": IDLE_FROM + RUNNING, "ok": IDLE_FROM + SUCCESS, "never": IDLE}
    # the buffer lists the nodes subtree by subtree, each uid as uint16 little-endian
    body = client.request(spec.STATUS).parts[0]
    order = [struct.unpack("<H", body[i:i + 2])[0] for i in range(0, len(body), 3)]
    assert order == [n.uid for s in tree.subtrees for n in s.nodes]


def test_blackboards_hold_the_keys(served) -> None:
    tree, _, client, _ = served
    tree.tick_exactly_once()
    tree.root_blackboard()["pose"] = object()          # no JSON converter: null, as in BT.CPP
    tree.root_blackboard()["ranges"] = [0.5, 2.0]
    got = client.blackboards("Main;inner")
    assert list(got) == ["Main", "ROOT", "inner"]      # sorted keys (nlohmann's std::map)
    assert got["Main"] == {"count": 3, "flag": 1, "label": "go", "pose": None, "ranges": [0.5, 2.0],
                           "speed": 1.5}               # a bool is an integer in BT.CPP's Any
    assert got["ROOT"] == got["Main"]                  # a subtree's root blackboard is exported too
    assert got["inner"] == {"local": -7}               # its own keys only (count is remapped)
    assert client.blackboards("nobody") is None
    assert client.blackboards("ROOT") is None          # a name, not a subtree: nothing
    assert client.blackboards("inner;;Main;") == got   # splitString's empty names match nothing


def test_hook_requests(served) -> None:
    tree, _, client, _ = served
    never, ok = uid_of(tree, "never"), uid_of(tree, "ok")
    assert client.hooks() == []
    client.json_request(spec.HOOK_INSERT, spec.hook(never, mode=1, desired="SUCCESS"))
    client.json_request(spec.HOOK_INSERT, [spec.hook(ok, position=1), spec.hook(9999)])  # 9999: no node
    assert client.hooks() == [spec.hook(never, mode=1, desired="SUCCESS"), spec.hook(ok, position=1)]
    assert client.request(spec.HOOKS_DUMP).parts[0].startswith(b'[{"desired_status":"SUCCESS","enabled":true,')
    client.request(spec.DISABLE_ALL_HOOKS)
    assert [h["enabled"] for h in client.hooks()] == [False, False]
    client.json_request(spec.HOOK_REMOVE, {"uid": ok, "position": 1})
    assert [h["uid"] for h in client.hooks()] == [never]
    with pytest.raises(spec.Refused, match="Node ID not found"):
        client.json_request(spec.HOOK_REMOVE, {"uid": ok, "position": 1})
    client.json_request(spec.BREAKPOINT_UNLOCK, {"uid": never, "position": 0, "desired_status": "FAILURE",
                                                 "remove_when_done": True})
    assert client.hooks()[0]["desired_status"] == "FAILURE" and client.hooks()[0]["once"] is True
    with pytest.raises(spec.Refused, match="Node ID not found"):
        client.json_request(spec.BREAKPOINT_UNLOCK, {"uid": ok, "position": 0, "desired_status": "SUCCESS",
                                                     "remove_when_done": False})
    client.request(spec.REMOVE_ALL_HOOKS)
    assert client.hooks() == []
    with pytest.raises(spec.Refused, match="Cannot convert this to NodeStatus: MAYBE"):
        client.json_request(spec.HOOK_INSERT, spec.hook(never, desired="MAYBE"))
    with pytest.raises(spec.Refused, match="key 'once' not found"):
        client.json_request(spec.HOOK_INSERT, {"enabled": True, "uid": never, "position": 0})


def test_recording_and_transitions(served) -> None:
    tree, _, client, wall = served
    assert client.request(spec.TOGGLE_RECORDING, "start").parts == [b"1000000"]
    wall.us += 2500
    tree.tick_exactly_once()
    body = client.request(spec.GET_TRANSITIONS).parts[0]
    assert len(body) % 9 == 0
    records = [(int.from_bytes(body[i:i + 6], "little"), struct.unpack("<H", body[i + 6:i + 8])[0], body[i + 8])
               for i in range(0, len(body), 9)]
    assert {t for t, _, _ in records} == {2500}
    seq, keep, ok = uid_of(tree, "seq"), uid_of(tree, "keep"), uid_of(tree, "ok")
    assert (seq, RUNNING) == records[0][1:]
    assert [(u, s) for _, u, s in records if u in (keep, ok)] == [(keep, RUNNING), (ok, SUCCESS), (ok, IDLE)]
    assert client.request(spec.GET_TRANSITIONS).parts == [b""]  # taken by the first request
    assert client.request(spec.TOGGLE_RECORDING, "stop").parts == []
    tree.tick_exactly_once()
    assert client.request(spec.GET_TRANSITIONS).parts == [b""]


def test_refusals(served) -> None:
    _, publisher, client, _ = served
    assert client.raw([b"short"]) == [b"error", b"wrong request header"]
    assert client.raw([spec.header(b"N", 1)]) == [b"error", b"Request not recognized"]
    assert client.raw([spec.header(b"Z", 1)]) == [b"error", b"Request not recognized"]
    for kind in (spec.BLACKBOARD, spec.HOOK_INSERT, spec.HOOK_REMOVE, spec.BREAKPOINT_UNLOCK,
                 spec.TOGGLE_RECORDING):
        assert client.raw([spec.header(kind, 7)]) == [b"error", b"must be 2 parts message"]
    reply = client.raw([spec.header(spec.HOOK_INSERT, 7), b"not json"])
    assert reply[0] == b"error" and b"parse error" in reply[1]
    # nlohmann's type errors name JSON's kinds: a string where the uid's number goes
    reply = client.raw([spec.header(spec.BREAKPOINT_UNLOCK, 8),
                        b'{"uid": "3", "position": 0, "desired_status": "SUCCESS", "remove_when_done": false}'])
    assert reply == [b"error", b"[json.exception.type_error.302] type must be number, but is string"]
    reply = client.raw([spec.header(spec.BREAKPOINT_UNLOCK, 9), b'[1, 2]'])
    assert reply == [b"error", b"[json.exception.type_error.304] cannot use at() with array"]
    # the server goes on answering
    assert client.request(spec.STATUS).parts[0]


def test_every_request_type_is_answered(served) -> None:
    tree, _, client, _ = served
    bodies = {spec.BLACKBOARD: "Main", spec.HOOK_INSERT: '{"enabled":true,"uid":1,"mode":1,"once":false,'
              '"desired_status":"SKIPPED","position":0}', spec.HOOK_REMOVE: '{"uid":1,"position":0}',
              spec.BREAKPOINT_UNLOCK: None, spec.TOGGLE_RECORDING: "start"}
    answered = []
    for kind in spec.ALL_TYPES:
        if kind == spec.BREAKPOINT_UNLOCK:
            client.json_request(spec.HOOK_INSERT, spec.hook(1))
            reply = client.request(kind, '{"uid":1,"position":0,"desired_status":"SUCCESS","remove_when_done":true}')
        else:
            reply = client.request(kind, bodies.get(kind))
        assert reply.type == kind
        answered.append(kind)
    assert len(answered) == 11
