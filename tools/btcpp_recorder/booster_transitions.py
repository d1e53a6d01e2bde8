#!/usr/bin/env python3
"""Record BehaviorTree.CPP 4.8.2's status-change stream on Booster's trees with scripted leaves.

Run with the interpreter that has behaviortreepy 0.1.4 (see README.md), NOT the project's venv:

    /tmp/btpy/v/bin/python tools/btcpp_recorder/booster_transitions.py \
        [--booster /work/shared/booster] [--out tests/trees/booster_transitions] [--ticks 300]

For each tree set (`trees` = Booster's game.xml, `trees-2026` = the 2026 one) it

* resolves the `<include>`s of game.xml into one XML text (every BehaviorTree once, in include
  order; control nodes, decorators, SubTrees, `_while`/`_skipIf`... untouched);
* replaces every Booster leaf (a node id of nodes.json) by a scripted stateful action of the same
  id: its port attributes are removed (behaviortreepy registers Python actions without ports), and
  every instance returns, on start and on running, the next letter of a status cycle derived from
  a seeded RNG per node id (S, F, R);
* sets `Sleep msec` to one hour so that the only timed node never fires during a run (it then
  behaves the same in BT.CPP and in soccerbt, whatever the speed of the machine);
* writes the resulting XML (`CASE.xml`), then ticks it `--ticks` times with tickExactlyOnce,
  setting before each tick a scripted set of blackboard values (game states, sub states, roles,
  decisions, flags; seeded RNG) and records, per tick, the values set, the root status, the leaf
  events and the transitions [uid, fullPath, from, to] seen by FileLogger2 and StdCoutLogger
  (`CASE.json`).

tests/trees/test_booster_transitions.py replays the same leaves and writes in soccerbt.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import record as rec  # noqa: E402  (the ctypes helpers and logger readers of record.py)

bt = rec.bt

SEED = 2025
BUILTINS = {"root", "BehaviorTree", "SubTree", "Sequence", "ReactiveSequence", "Fallback",
            "ReactiveFallback", "IfThenElse", "WhileDoElse", "RunOnce", "Script", "ScriptCondition",
            "Sleep", "Inverter", "ForceSuccess", "ForceFailure", "Parallel", "Repeat", "RetryUntilSuccessful"}
SLEEP_MSEC = "3600000"


# --------------------------------------------------------------------------- XML
def _parse(path: Path) -> ET.Element:
    # Booster writes `&&` unescaped in attributes (tinyxml2 accepts it, expat does not)
    text = re.sub(r"&(?![A-Za-z]+;|#[0-9]+;|#x[0-9A-Fa-f]+;)", "&amp;", path.read_text())
    return ET.fromstring(text)


def _collect_trees(path: Path, seen_files: set, trees: dict) -> None:
    path = path.resolve()
    if path in seen_files:
        return
    seen_files.add(path)
    root = _parse(path)
    for el in root:
        if el.tag == "include":
            _collect_trees(path.parent / el.get("path"), seen_files, trees)
        elif el.tag == "BehaviorTree":
            trees.setdefault(el.get("ID"), el)     # first definition wins (all copies are equal)


def resolve_includes(game_xml: Path) -> tuple[str, list[str]]:
    """One XML text with every BehaviorTree of game.xml and its includes; main tree first."""
    trees: dict[str, ET.Element] = {}
    _collect_trees(game_xml, set(), trees)
    main = _parse(game_xml).find("BehaviorTree").get("ID")
    order = [main] + [t for t in trees if t != main]
    out = ET.Element("root", {"BTCPP_format": "4", "main_tree_to_execute": main})
    for tid in order:
        out.append(trees[tid])
    ET.indent(out, "  ")
    return ET.tostring(out, encoding="unicode") + "\n", order


def scripted_xml(text: str, leaf_ids: set[str]) -> tuple[str, list[str]]:
    """Booster leaves without their ports, Sleep made one hour long; returns (xml, leaf ids used)."""
    root = ET.fromstring(text)
    used = []
    for el in root.iter():
        if el.tag in leaf_ids:
            for a in list(el.attrib):
                if not a.startswith("_") and a != "name":
                    del el.attrib[a]
            if el.tag not in used:
                used.append(el.tag)
        elif el.tag == "Sleep":
            el.set("msec", SLEEP_MSEC)
        elif el.tag not in BUILTINS:
            raise SystemExit(f"unknown node {el.tag!r}: neither a BT.CPP node nor a Booster leaf")
    return ET.tostring(root, encoding="unicode") + "\n", sorted(used)


def status_cycle(node_id: str) -> str:
    """Deterministic status cycle of a leaf id, e.g. "R,R,S,F,S"."""
    rng = random.Random(f"{SEED}:{node_id}")
    n = rng.randint(3, 8)
    return ",".join(rng.choices("SFR", weights=(5, 1, 3), k=n))


# --------------------------------------------------------------------------- blackboard script
FLAGS = ["odom_calibrated", "ball_location_known", "tm_ball_pos_reliable", "ball_out",
         "wait_for_opponent_kickoff", "gc_is_sub_state_kickoff_side", "assist_kick", "assist_chase",
         "go_manual", "gc_is_under_penalty", "local_freekick_use_custom"]
DECISIONS = ["find", "chase", "adjust", "kick", "assist", "auto_visual_kick", "cross", "retreat"]
SCENARIOS = [  # (weight, values)
    (3, {"control_state": 3, "go_manual": False, "gc_is_under_penalty": False,
         "gc_game_sub_state_type": "NONE", "gc_game_state": "INITIAL"}),
    (4, {"control_state": 3, "go_manual": False, "gc_is_under_penalty": False,
         "gc_game_sub_state_type": "NONE", "gc_game_state": "READY"}),
    (3, {"control_state": 3, "go_manual": False, "gc_is_under_penalty": False,
         "gc_game_sub_state_type": "NONE", "gc_game_state": "SET"}),
    (12, {"control_state": 3, "go_manual": False, "gc_is_under_penalty": False,
          "gc_game_sub_state_type": "NONE", "gc_game_state": "PLAY"}),
    (1, {"control_state": 3, "go_manual": False, "gc_is_under_penalty": False,
         "gc_game_sub_state_type": "NONE", "gc_game_state": "END"}),
    (6, {"control_state": 3, "go_manual": False, "gc_is_under_penalty": False,
         "gc_game_sub_state_type": "FREE_KICK", "gc_game_state": "PLAY"}),
    (1, {"control_state": 3, "go_manual": False, "gc_is_under_penalty": False,
         "gc_game_sub_state_type": "TIMEOUT", "gc_game_state": "INITIAL"}),
    (2, {"control_state": 3, "go_manual": False, "gc_is_under_penalty": True}),
    (1, {"control_state": 2}),
    (1, {"control_state": 1}),
    (1, {"control_state": 3, "go_manual": True}),
]
INITIAL = {"control_state": 3, "assist_kick": False, "go_manual": False, "assist_chase": False,
           "odom_calibrated": True, "gc_is_under_penalty": False, "gc_game_sub_state_type": "NONE",
           "gc_game_state": "INITIAL", "gc_game_sub_state": "STOP", "player_role": "striker",
           "ball_location_known": False, "tm_ball_pos_reliable": False, "decision": "find",
           "wait_for_opponent_kickoff": False, "ball_out": False,
           "gc_is_sub_state_kickoff_side": True, "local_freekick_use_custom": False,
           "local_freekick_phase": "WAIT_RESUME"}


def blackboard_script(n_ticks: int, seed: int) -> list[dict]:
    """Per tick, the keys (with their values) written before that tick; tick 1 writes them all."""
    rng = random.Random(seed)
    current = dict(INITIAL)
    out = [dict(INITIAL)]
    weights = [w for w, _ in SCENARIOS]
    for _ in range(1, n_ticks):
        new = {}
        if rng.random() < 0.12:
            new.update(rng.choices([s for _, s in SCENARIOS], weights=weights)[0])
            if rng.random() < 0.5:
                new["player_role"] = rng.choice(["striker", "goal_keeper"])
            new["gc_game_sub_state"] = rng.choice(["STOP", "GET_READY", "SET"])
            new["local_freekick_phase"] = rng.choice(["EXECUTE", "WAIT_RESUME", "PLACEMENT", "UNPLACEMENT"])
        if rng.random() < 0.25:
            new["decision"] = rng.choice(DECISIONS)
        for flag in FLAGS[:6]:
            if rng.random() < 0.06:
                new[flag] = not current[flag]
        for flag in ("assist_kick", "assist_chase", "local_freekick_use_custom"):
            if rng.random() < 0.03:
                new[flag] = not current[flag]
        new = {k: v for k, v in new.items() if current.get(k) != v}
        current.update(new)
        out.append(new)
    return out


def set_value(bb, key: str, value) -> None:
    if isinstance(value, bool):
        bb.set_bool(key, value)
    elif isinstance(value, int):
        bb.set_int(key, value)
    else:
        bb.set_string(key, value)


# --------------------------------------------------------------------------- recording
class Leaves:
    """Scripted leaves: per UID a cursor in the status cycle of the leaf id; the event log."""

    def __init__(self, cycles: dict[str, str]):
        self.cycles = {k: [rec.LETTERS[c] for c in v.split(",")] for k, v in cycles.items()}
        self.cursor: dict[int, int] = {}
        self.reg: dict[int, str] = {}
        self.events: list = []
        self.failure: str | None = None

    def tick(self, node):
        try:
            uid = node.uid()
            seq = self.cycles[self.reg[uid]]
            i = self.cursor.get(uid, 0)
            self.cursor[uid] = i + 1
            status = seq[i % len(seq)]
            self.events.append(["tick", uid, status.name])
            return status
        except Exception as exc:  # noqa: BLE001
            self.failure = f"leaf callback failed: {exc!r}"
            return bt.NodeStatus.FAILURE

    def halted(self, node):
        try:
            self.events.append(["halt", node.uid()])
        except Exception as exc:  # noqa: BLE001
            self.failure = f"halt callback failed: {exc!r}"


def record(xml_text: str, cycles: dict[str, str], writes: list[dict]) -> dict:
    leaves = Leaves(cycles)
    factory = bt.BehaviorTreeFactory()
    for node_id in cycles:
        factory.register_simple_stateful_action(node_id, leaves.tick, leaves.tick, leaves.halted)
    tree = factory.create_tree_from_text(xml_text)
    subtrees = rec.tree_subtrees(tree)
    nodes = {uid: (name, path, reg) for sub in subtrees for uid, name, path, reg in sub["nodes"]}
    leaves.reg = {uid: reg for uid, (_n, _p, reg) in nodes.items() if reg in cycles}
    root_bb = tree.root_blackboard()
    steps, counts, cout_lines = [], [], []
    log_path = tempfile.mktemp(suffix=".btlog")
    started = time.monotonic()
    with rec._CoutCapture() as cout:
        file_logger = bt.FileLogger(tree, log_path)
        cout_logger = bt.StdCoutLogger(tree)
        for n, values in enumerate(writes, 1):
            for key, value in values.items():
                set_value(root_bb, key, value)
            leaves.events = []
            step: dict = {"tick": n, "set": values}
            try:
                step["root"] = tree.tick_exactly_once().name
            except RuntimeError as exc:
                step["root"] = None
                step["error"] = str(exc)
            if leaves.failure:
                raise rec.RecorderError(leaves.failure)
            step["events"] = leaves.events
            leaves.events = []     # halts when the tree is destroyed belong to no tick
            lines = cout.new_lines()
            counts.append(len(lines))
            cout_lines.extend(lines)
            steps.append(step)
            if "error" in step:
                break
        elapsed = time.monotonic() - started
        cout_logger.set_enabled(False)
        del cout_logger
        deadline = time.monotonic() + 10.0
        while True:
            file_logger.flush()
            try:
                records = rec._read_file_logger(log_path)
            except (rec.RecorderError, rec.struct.error, FileNotFoundError):
                records = []
            if len(records) >= len(cout_lines) or time.monotonic() > deadline:
                break
            time.sleep(0.005)
        del file_logger
    os.unlink(log_path)
    if len(records) != len(cout_lines):
        raise rec.RecorderError(f"FileLogger2 saw {len(records)} transitions, StdCoutLogger {len(cout_lines)}")
    if elapsed > 3000:
        raise rec.RecorderError("the run took longer than a Sleep: not deterministic")
    pos = 0
    for step, count in zip(steps, counts, strict=False):
        transitions = []
        for (uid, new), (cname, prev, cnew) in zip(records[pos:pos + count], cout_lines[pos:pos + count], strict=False):
            name, path, _reg = nodes[uid]
            if (name, new) != (cname, cnew):
                raise rec.RecorderError(f"loggers disagree: {name} {new} vs {cname} {cnew}")
            transitions.append([uid, path, prev, new])
        step["transitions"] = transitions
        pos += count
    return {"nodes": [[uid, *nodes[uid]] for uid in sorted(nodes)], "ticks": steps}


def record_set(booster: Path, name: str, out_dir: Path, n_ticks: int, seed: int) -> None:
    tree_dir = booster / name
    nodes_json = tree_dir / "nodes.json"
    if not nodes_json.exists():
        nodes_json = booster / "nodes.json"
    leaf_ids = set(json.loads(nodes_json.read_text()))
    merged, tree_ids = resolve_includes(tree_dir / "game.xml")
    xml_text, used = scripted_xml(merged, leaf_ids)
    cycles = {node_id: status_cycle(node_id) for node_id in used}
    writes = blackboard_script(n_ticks, seed)
    case = f"game_{name.replace('-', '_')}"
    try:
        trace = record(xml_text, cycles, writes)
    except RuntimeError as exc:   # does not load in 4.8.2
        print(f"{name}: NOT RECORDED: {exc}")
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{case}.xml").write_text(xml_text)
    doc = {"case": case, "source": f"{tree_dir}/game.xml (includes resolved: {', '.join(tree_ids)})",
           "recorded_with": rec.RECORDED_WITH, "tick_method": "tickExactlyOnce",
           "leaf_statuses": cycles, "leaf_semantics": "StatefulActionNode: onStart and onRunning "
           "both return the next status of the instance's cycle (cursor per instance, wraps around)",
           "sleep_msec": SLEEP_MSEC, "seed": seed}
    doc.update(trace)
    text = json.dumps(doc, separators=(",", ":"))
    # one tick per line: readable diffs, small file
    text = text.replace(',{"tick":', ',\n{"tick":')
    (out_dir / f"{case}.json").write_text(text + "\n")
    n_tr = sum(len(s["transitions"]) for s in trace["ticks"])
    errs = [s["tick"] for s in trace["ticks"] if "error" in s]
    print(f"{name}: {len(trace['ticks'])} ticks, {n_tr} transitions, {len(trace['nodes'])} nodes"
          + (f", error at tick {errs[0]}: {trace['ticks'][-1]['error']}" if errs else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--booster", default="/work/shared/booster")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[2] / "tests/trees/booster_transitions"))
    parser.add_argument("--ticks", type=int, default=300)
    parser.add_argument("--sets", nargs="*", default=["trees", "trees-2026"])
    args = parser.parse_args()
    for i, name in enumerate(args.sets):
        record_set(Path(args.booster), name, Path(args.out), args.ticks, SEED + i)
    return 0


if __name__ == "__main__":
    sys.exit(main())
