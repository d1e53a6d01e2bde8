"""Record BehaviorTree.CPP 4.10's Groot2 replies for the cases in cases/ (tests/groot's reference).

For each ``cases/NAME.xml`` the tree is served by BT.CPP's own Groot2Publisher (``serve_tree``,
built from serve_tree.cpp against a BT.CPP 4.10 with its Groot2 interface) and a scripted client
sends every request type at known ticks (`steps`: the full tree, statuses and blackboards before
and after ticks, recording and transitions, hooks inserted, dumped, removed, disabled, a REPLACE
hook and a breakpoint reached and unlocked, and the refusals). Each step and the reply's parts
(hex) go to ``tests/groot/btcpp410/NAME.json``; tests/groot/test_btcpp410.py replays the same
steps against soccerbt and compares the bytes (all but the tree's UUID, and the wall-clock times
of recording).

A case of cases.json with a ``booster`` version (``booster_game``, ``booster_game_2026``) serves
Booster's game tree instead: ``tree`` under $BOOSTER_DIR (default ../shared/booster beside the
repository) with its ``<include>``s written into one text (every BehaviorTree once, in include
order, the attributes' raw ``&&`` kept), its leaves the stubs serve_tree registers for that
version (gen_booster_nodes.py: nodes.json's ports with their C++ types and defaults; a
SyncActionNode SUCCESS, a StatefulActionNode RUNNING then SUCCESS), and its blackboard driven by
``sets``: before tick N the root blackboard's keys are set with their C++ types (``set`` steps,
which the replay does in soccerbt).

Usage: python tools/btcpp_recorder/groot410/record.py BUILD/serve_tree [NAME...]
"""
from __future__ import annotations

import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import zmq

HERE = Path(__file__).resolve().parent
OUT = HERE.parents[2] / "tests" / "groot" / "btcpp410"
WAIT_MS = 20000
BOOSTER_DIR = Path(os.environ.get("BOOSTER_DIR", HERE.parents[3] / "shared" / "booster"))
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_INCLUDE = re.compile(r"""<include\s+path\s*=\s*"([^"]*)"\s*/>""")
_TREE = re.compile(r"<BehaviorTree\b.*?</BehaviorTree>", re.S)


def inline_includes(path: Path, seen: set[Path] | None = None) -> list[str]:
    """The BehaviorTree elements of `path` and of the files it includes (relative to it), each
    file once, the included ones first: what BT.CPP's parser registers from the file. Text-level
    so that Booster's raw `&&` in attributes stays as the file has it (no XML library takes it)."""
    seen = set() if seen is None else seen
    path = path.resolve()
    if path in seen:
        return []
    seen.add(path)
    text = _COMMENT.sub("", path.read_text())
    trees = []
    for include in _INCLUDE.findall(text):
        trees += inline_includes(path.parent / include, seen)
    return trees + _TREE.findall(text)


def booster_xml(tree: str) -> str:
    """Booster's `tree` (under BOOSTER_DIR) as one XML text, MainTree its main tree."""
    body = "\n".join("  " + t for t in inline_includes(BOOSTER_DIR / tree))
    return f'<root BTCPP_format="4" main_tree_to_execute="MainTree">\n{body}\n</root>\n'


def free_port() -> int:
    while True:
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
        try:
            with socket.socket() as b:
                b.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue


def header(kind: str, unique_id: int) -> bytes:
    return bytes([2, ord(kind)]) + struct.pack("<I", unique_id)


def uids_of(xml: bytes) -> dict[str, int]:
    """name -> uid of the nodes in a FULLTREE reply."""
    from lxml import etree

    root = etree.fromstring(xml)
    return {e.get("name") or e.get("_fullpath"): int(e.get("_uid")) for e in root.iter() if e.get("_uid")}


def hook(uid: int, mode: int = 0, position: int = 0, desired: str = "SKIPPED", once: bool = False) -> str:
    return json.dumps({"enabled": True, "uid": uid, "mode": mode, "once": once, "desired_status": desired,
                       "position": position})


class Recorder:
    def __init__(self, binary: str, xml: Path, library: str | None = None,
                 sets: dict[str, list[list[str]]] | None = None) -> None:
        self.port = free_port()
        extra = [f"booster:{library}"] if library else []
        self.proc = subprocess.Popen([binary, str(xml), str(self.port), *extra], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.sets = sets or {}  # tick number (from 1) -> [key, C++ type, value] set before it
        self.ticks = 0
        assert self.proc.stdout.readline().strip() == "ready"
        self.ctx = zmq.Context()
        self.req = self.ctx.socket(zmq.REQ)
        self.req.setsockopt(zmq.RCVTIMEO, WAIT_MS)
        self.req.connect(f"tcp://127.0.0.1:{self.port}")
        self.sub = self.ctx.socket(zmq.SUB)
        self.sub.setsockopt(zmq.RCVTIMEO, WAIT_MS)
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        self.sub.connect(f"tcp://127.0.0.1:{self.port + 1}")
        self.steps: list[dict[str, Any]] = []
        self.next_id = 1000

    def request(self, parts: list[bytes], note: str) -> list[bytes]:
        self.req.send_multipart(parts)
        reply = self.req.recv_multipart()
        self.steps.append({"do": "request", "note": note, "parts": [p.hex() for p in parts],
                           "reply": [p.hex() for p in reply]})
        return reply

    def ask(self, kind: str, body: str | None = None, note: str = "") -> list[bytes]:
        self.next_id += 1
        parts = [header(kind, self.next_id)]
        if body is not None:
            parts.append(body.encode())
        return self.request(parts, note or kind)

    def set_before_tick(self) -> None:
        """The blackboard keys the case sets before the coming tick, each a ``set`` step."""
        self.ticks += 1
        for key, cpp_type, value in self.sets.get(str(self.ticks), []):
            self.proc.stdin.write(f"set {key} {cpp_type} {value}\n")
            self.proc.stdin.flush()
            assert self.proc.stdout.readline().strip() == "set"
            self.steps.append({"do": "set", "key": key, "type": cpp_type, "value": value})

    def tick(self) -> str:
        self.set_before_tick()
        self.proc.stdin.write("tick\n")
        self.proc.stdin.flush()
        status = self.proc.stdout.readline().split()[1]
        self.steps.append({"do": "tick", "status": status})
        return status

    def tick_until_breakpoint(self) -> int:
        self.set_before_tick()
        self.proc.stdin.write("tick\n")
        self.proc.stdin.flush()
        first, uid = self.sub.recv_multipart()
        self.steps.append({"do": "tick_until_breakpoint", "notification": [first[:2].hex(), uid.decode()]})
        return int(uid)

    def await_tick(self) -> str:
        status = self.proc.stdout.readline().split()[1]
        self.steps.append({"do": "await_tick", "status": status})
        return status

    def close(self) -> None:
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait()
        self.req.close(0)
        self.sub.close(0)
        self.ctx.term()


def run_steps(r: Recorder, blackboards: str, hooked: str) -> None:
    """The script every case runs (see the module docstring); `hooked` names a node every tick
    reaches (the hooks' and the breakpoint's)."""
    uids = uids_of(r.ask("T")[1])
    first_leaf = uids[hooked]
    r.ask("S", note="statuses before any tick")
    r.ask("B", blackboards, note="blackboards before any tick")
    r.ask("r", "start", note="recording starts (the reply is the wall-clock time)")
    r.tick()
    r.ask("S", note="statuses after tick 1")
    r.ask("B", blackboards, note="blackboards after tick 1")
    r.ask("t", note="transitions of tick 1")
    r.ask("t", note="no transitions left")
    r.tick()
    r.ask("S", note="statuses after tick 2")
    r.ask("r", "stop")
    r.ask("t", note="transitions of tick 2")
    r.ask("I", f"[{hook(first_leaf, mode=1, desired='SUCCESS')},{hook(1, mode=1, position=1, desired='FAILURE')}]",
          note="two REPLACE hooks")
    r.ask("I", hook(65000), note="a hook on no node")
    r.ask("D", note="hooks dump")
    r.tick()
    r.ask("S", note="statuses after the REPLACE hooks")
    r.ask("R", json.dumps({"uid": 1, "position": 1}), note="remove the POST hook")
    r.ask("R", json.dumps({"uid": 1, "position": 1}), note="remove it again: refused")
    r.ask("X", note="disable all hooks")
    r.ask("D", note="hooks dump, disabled")
    r.tick()
    r.ask("S", note="statuses with disabled hooks")
    r.ask("A", note="remove all hooks")
    r.ask("D", note="hooks dump, empty")
    r.ask("I", hook(first_leaf, mode=0), note="a breakpoint")
    r.tick_until_breakpoint()
    r.ask("S", note="statuses while the breakpoint waits")
    r.ask("U", json.dumps({"uid": first_leaf, "position": 0, "desired_status": "FAILURE", "remove_when_done": True}),
          note="unlock with FAILURE, once")
    r.await_tick()
    r.ask("S", note="statuses after the breakpoint")
    r.ask("D", note="hooks dump after the one-shot breakpoint")
    r.ask("U", json.dumps({"uid": first_leaf, "position": 0, "desired_status": "SUCCESS", "remove_when_done": False}),
          note="unlock a hook that is gone: refused")
    some = sorted(uids.values())[:4]
    r.ask("I", "[" + ",".join(hook(uid, mode=1) for uid in some[:3]) + "]",
          note="three PRE hooks that let their nodes run (SKIPPED)")
    r.ask("I", hook(some[0], mode=1, position=1), note="and a POST one")
    r.ask("D", note="hooks dump: the maps' order")
    r.ask("R", json.dumps({"uid": some[1], "position": 0}), note="remove the middle one")
    r.ask("I", hook(some[3], mode=1), note="insert another")
    r.ask("D", note="hooks dump after an erase and an insertion")
    r.tick()
    r.ask("A", note="remove all hooks")
    r.ask("B", blackboards, note="blackboards at the end")
    r.ask("B", "nobody", note="a blackboard that does not exist")
    r.request([b"short"], note="a wrong header")
    r.request([header("N", 7)], note="BREAKPOINT_REACHED as a request: not recognized")
    r.request([header("Z", 8)], note="an unknown type")
    r.request([header("B", 9)], note="BLACKBOARD without its second part")
    r.ask("I", '{"enabled":true,"uid":1}', note="a hook without its fields")
    r.ask("I", hook(1, desired="MAYBE"), note="a hook with a bad status")


def main() -> None:
    binary = sys.argv[1]
    settings = json.loads((HERE / "cases" / "cases.json").read_text())
    names = sys.argv[2:] or sorted(settings)
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names:
        setting = settings[name]
        library = setting.get("booster")
        with tempfile.TemporaryDirectory() as scratch:
            if library:
                xml = Path(scratch) / f"{name}.xml"
                xml.write_text(booster_xml(setting["tree"]))
            else:
                xml = HERE / "cases" / f"{name}.xml"
            text = xml.read_text()
            recorder = Recorder(binary, xml, library, setting.get("sets"))
            try:
                run_steps(recorder, setting["blackboards"], setting["hook"])
            finally:
                recorder.close()
        case = {"case": name, "xml": text, "recorded_with": "BehaviorTree.CPP 4.10.0 Groot2Publisher",
                "steps": recorder.steps}
        if library:
            # what the replay registers: soccerbt's Booster library of that version, as stubs
            case["booster"] = library
        (OUT / f"{name}.json").write_text(json.dumps(case, indent=1) + "\n")
        print(f"{name}: {len(recorder.steps)} steps")


if __name__ == "__main__":
    main()
