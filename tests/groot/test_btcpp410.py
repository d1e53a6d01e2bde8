"""soccerbt's Groot2 replies against BehaviorTree.CPP 4.10's own, byte for byte.

tests/groot/btcpp410/NAME.json holds a tree and the steps a scripted client took with BT.CPP's
Groot2Publisher serving it (tools/btcpp_recorder/groot410/record.py): each request's parts and
BT.CPP's reply, the ticks and their results, a breakpoint reached and unlocked. The same steps are
replayed here against soccerbt serving the same tree, with the client of groot_client.py. Every
reply must be the same bytes, except the tree's UUID (random in both), the wall-clock time that
TOGGLE_RECORDING "start" returns and the times of GET_TRANSITIONS' records.

The Booster cases (``"booster": VERSION``) serve Booster's game tree with stubs of its node types
(BT.CPP's from nodes.json's port declarations, see groot410/gen_booster_nodes.py): soccerbt
registers SyncStub or StatefulStub (the same statuses) under each id of its Booster library of
that version, with the ports soccerbt's own Booster nodes declare, so the node models of FULLTREE
check those declarations (C++ type names and defaults) against BT.CPP's. Their ``set`` steps set
the root blackboard's keys with the C++ types the recorder used.
"""
from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import groot_client_spec as spec
import pytest

from soccerbt.groot import Groot2Publisher
from soccerbt.nodes.node_kinds import StatefulActionNode
from soccerbt.nodes.soccer.booster import booster_node_types
from soccerbt.nodes.stubs import StatefulStub, SyncStub
from soccerbt.trees import TreeFactory

CASES = sorted((Path(__file__).parent / "btcpp410").glob("*.json"))
JOIN_S = 60.0  # a safeguard against a hung test, not a time limit
# the recorder's `set TYPE` (a C++ type of the root blackboard's entry) as the Python value
SET_TYPES = {"bool": lambda text: text == "true", "int": int, "double": float, "string": str}


def booster_factory(version: str) -> TreeFactory:
    """Built-ins and Booster's node types of `version` as stubs with soccerbt's own port
    declarations: what the recorder's factory holds, with soccerbt's C++ type names."""
    factory = TreeFactory()
    for node_id, cls in booster_node_types(version).items():
        stub = StatefulStub if issubclass(cls, StatefulActionNode) else SyncStub
        factory.register_node_type(node_id, stub, ports=cls.provided_ports())
    return factory


def _differences(step: dict, got: list[bytes]) -> str | None:
    want = [bytes.fromhex(p) for p in step["reply"]]
    if want[0] == b"error" or got[0] == b"error":
        return None if want == got else f"want {want!r}, got {got!r}"
    if len(want) != len(got):
        return f"want {len(want)} parts, got {len(got)}: {got!r}"
    if want[0][:6] != got[0][:6] or len(got[0]) != 22:
        return f"header: want {want[0][:6].hex()}, got {got[0].hex()}"
    kind = chr(want[0][1])
    for index, (w, g) in enumerate(zip(want[1:], got[1:], strict=True), start=1):
        if kind == "r":  # the publisher's wall-clock time in microseconds
            if not g.isdigit():
                return f"recording start: not a time: {g!r}"
        elif kind == "t":  # 9-byte records: the time (6 bytes) differs, uid and status must not
            if len(w) != len(g) or any(w[i + 6:i + 9] != g[i + 6:i + 9] for i in range(0, len(w), 9)):
                return f"transitions: want {w.hex()}, got {g.hex()}"
        elif w != g:
            at = next((i for i, (a, b) in enumerate(zip(w, g, strict=False)) if a != b), min(len(w), len(g)))
            return (f"part {index} differs at byte {at} (lengths {len(w)}, {len(g)}): "
                    f"want ...{w[max(0, at - 60):at + 60]!r}..., got ...{g[max(0, at - 60):at + 60]!r}...")
    return None


@pytest.mark.skipif(not CASES, reason="no recorded BT.CPP 4.10 replies (tools/btcpp_recorder/groot410)")
@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_replies_are_btcpp410s(path: Path, port: int) -> None:
    case = json.loads(path.read_text())
    if "booster" in case:
        factory = booster_factory(case["booster"])
        tree = factory.create_tree_from_text(case["xml"])
        publisher = Groot2Publisher(tree, port, manifests=factory.manifests())
    else:
        tree = TreeFactory().create_tree_from_text(case["xml"])
        publisher = Groot2Publisher(tree, port)
    client = spec.Client(port)
    problems: list[str] = []
    ticking: dict = {}
    try:
        for number, step in enumerate(case["steps"]):
            what = f"step {number} ({step.get('note', step['do'])})"
            if step["do"] == "request":
                got = client.raw([bytes.fromhex(p) for p in step["parts"]])
                problem = _differences(step, got)
                if problem:
                    problems.append(f"{what}: {problem}")
            elif step["do"] == "set":
                tree.root_blackboard().set(step["key"], SET_TYPES[step["type"]](step["value"]))
            elif step["do"] == "tick":
                status = tree.tick_exactly_once().name
                if status != step["status"]:
                    problems.append(f"{what}: the tick returned {status}, BT.CPP {step['status']}")
            elif step["do"] == "tick_until_breakpoint":
                thread = threading.Thread(target=lambda: ticking.setdefault("status", tree.tick_exactly_once()),
                                          daemon=True)
                ticking.clear()
                thread.start()
                ticking["thread"] = thread
                first, uid = client.sub.recv_multipart()
                if [first[:2].hex(), uid.decode()] != step["notification"]:
                    problems.append(f"{what}: notification {first[:2].hex()} {uid!r}, BT.CPP {step['notification']}")
            elif step["do"] == "await_tick":
                ticking["thread"].join(JOIN_S)
                if ticking["status"].name != step["status"]:
                    problems.append(f"{what}: the tick returned {ticking['status'].name}, BT.CPP {step['status']}")
    finally:
        client.close()
        publisher.close()
    assert not problems, "\n".join(problems)


BOOSTER_CASES = [p for p in CASES if p.stem.startswith("booster_")]
BOOSTER_TREES = {"main": "trees", "2026": "trees-2026"}


@pytest.mark.skipif(not BOOSTER_CASES, reason="no recorded Booster cases (tools/btcpp_recorder/groot410)")
@pytest.mark.parametrize("path", BOOSTER_CASES, ids=[p.stem for p in BOOSTER_CASES])
def test_booster_cases_hold_boosters_trees_unmodified(path: Path, shared_dir: Path) -> None:
    """Every BehaviorTree of a Booster case is one of its version's files, character for
    character (the recorder only wrote the includes into one text), and each of those files'
    trees is in the case: the replies were recorded on Booster's own tree."""
    case = json.loads(path.read_text())
    trees = re.findall(r"<BehaviorTree\b.*?</BehaviorTree>", case["xml"], re.S)
    folder = shared_dir / "booster" / BOOSTER_TREES[case["booster"]]
    sources = {re.search(r'ID="([^"]*)"', t).group(1): t
               for f in sorted(folder.rglob("*.xml"))
               for t in re.findall(r"<BehaviorTree\b.*?</BehaviorTree>", re.sub(r"<!--.*?-->", "", f.read_text(),
                                                                                 flags=re.S), re.S)}
    assert trees and {re.search(r'ID="([^"]*)"', t).group(1) for t in trees} == set(sources)
    for tree in trees:
        assert tree == sources[re.search(r'ID="([^"]*)"', tree).group(1)]
