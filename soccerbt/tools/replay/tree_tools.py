"""Text tools on an MCAP replay log: the tree at a tick, a node's transitions, conditions over
time and Groot2's .btlog export.

These back ``soccerbt replay FILE --tree/--json``, ``--node NAME --transitions``, ``--find``
and ``--btlog OUT`` (see soccerbt.tools.replay.replay_cli; ``--verify`` is
``soccerbt.resim.verify``; ``soccerbt replay diff A B`` is ``log_diff``).
Node references (``#UID``, a path, a name several nodes may share) and ``--find`` conditions
(BT.CPP's script language over the blackboard and the nodes' statuses and reasons) are in
``soccerbt.tools.replay.search``. ``--tree`` shows the reasons decision nodes gave
(``TreeNode.set_reason``). A log converted from JSON lines holds no node data: every tool here
refuses it with a ``ReplayError`` that says so (``McapLog.require_node_data``).
"""
from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from soccerbt.cli.outputs import write_atomically
from soccerbt.cli.values import short_value
from soccerbt.log import format as lf
from soccerbt.log.format import ReplayError
from soccerbt.log.port_values import ports_in_effect
from soccerbt.log.reader import Gap, McapLog, RobotState
from soccerbt.nodes.soccer import register_soccer_nodes
from soccerbt.tools.replay.search import ambiguity_note, find_ranges, parse_condition, resolve_nodes
from soccerbt.tools.replay.truth import RobotTruth
from soccerbt.trees.factory import TreeFactory
from soccerbt.trees.structure import logger_xml, manifest_models

__all__ = ["tree_lines", "tree_json", "transition_lines", "find_ranges", "export_btlog", "btlog_models",
           "step_of_tick", "parse_condition", "node_marks", "info_lines"]

_NAMES = lf.STATUS_NAMES
MAX_INDENT = 64   # deeper nodes are drawn at this depth with their depth written: lines stay short


def step_of_tick(log: McapLog, robot: str, tick: int) -> int:
    """The step whose tick record of `robot` has tick number `tick` (Agent.ticks, from 1)."""
    log.check_robot(robot)
    first = log.step_view(log.first_step)
    if first is not None:
        guess = tick - first.ticks[robot].tick + first.step
        view = log.step_view(guess) if log.first_step <= guess <= log.last_step else None
        if view is not None and view.ticks[robot].tick == tick:
            return guess
    low = high = None
    for view in log.steps():  # ticks and steps part only where a robot was added late, or after a gap
        got = view.ticks[robot].tick
        if got == tick:
            return view.step
        low = got if low is None else min(low, got)
        high = got if high is None else max(high, got)
    if low is None:
        raise ReplayError(log.path, None, f"no tick of {robot} in the log")
    missing = "; " + "; ".join(g.text(log.dt_s) for g in log.gaps[:3]) if log.gaps else ""
    raise ReplayError(log.path, None, f"{robot} has no tick {tick} in the log (ticks {low}..{high}){missing}")


def _children(tree: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for row in tree["nodes"]:
        out.setdefault(row["parent"], []).append(row)
    return out


def _walk(tree: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(depth, node) depth-first from the root, children in order."""
    kids = _children(tree)
    stack = [(0, row) for row in reversed(kids.get(0, []))]
    while stack:
        depth, row = stack.pop()
        yield depth, row
        stack.extend((depth + 1, child) for child in reversed(kids.get(row["uid"], [])))


def node_marks(state: RobotState) -> dict[int, str]:
    """uid -> what the node did in the step of ``state``: "ran" (ticked and not skipped),
    "skipped" (ticked, its pre-condition skipped it), "reset" (halted or reset to IDLE without
    being ticked); nodes the step did not touch are absent."""
    marks = {uid: "ran" for uid in state.ticked}
    for uid in state.skipped:
        marks[uid] = "skipped"
    rec = state.record
    if rec is not None and rec.tick == state.tick:
        for uid, _prev, new in rec.transitions:
            if new == 0 and uid not in marks:
                marks[uid] = "reset"
    return marks


_MARK = {"ran": "*", "skipped": "~", "reset": "x"}


def tree_lines(state: RobotState, t_s: float, truth: RobotTruth | str | None = None) -> list[str]:
    """The tree as text: the truth beside the robot's estimates (``truth``: or why there is none),
    each node's status after the step, marked by what the step did to it ('*' ran, '~' skipped
    by its pre-condition, 'x' reset without running), the reason a node gave for its decision
    (in this tick, or its latest with the tick it gave it in), its ports with the values in
    effect (``soccerbt.log.port_values``); then the blackboard ('!' marks the entries the step
    changed), values as the viewer shows them."""
    marks = node_marks(state)
    out = [f"{state.robot} tick {state.tick} at t={t_s:.2f}s (step {state.step}); * ran in this tick, "
           f"~ skipped, x reset without running"]
    if isinstance(truth, RobotTruth):
        out.extend(truth.lines())
    elif truth:
        out.append(f"truth: none ({truth})")
    for depth, row in _walk(state.tree):
        uid = row["uid"]
        mark = marks.get(uid)
        status = "SKIPPED" if mark == "skipped" else _NAMES[state.statuses.get(uid, 0)]
        reached = state.last_transition.get(uid)
        if mark == "ran" and status == "IDLE" and reached is not None:
            status = f"IDLE (returned {_NAMES[reached]}, then reset)"
        label = row["name"] if row["name"] == row["id"] else f"{row['name']} ({row['id']})"
        indent = "  " * depth if depth <= MAX_INDENT else "  " * MAX_INDENT + f"[depth {depth}] "
        line = f"{_MARK.get(mark or '', ' ')} {indent}{label} #{uid}: {status}"
        given = state.reasons.get(uid)
        if given is not None:
            tick, text = given
            line += f"  -- {text}" if tick == state.tick else f"  -- (tick {tick}) {text}"
        out.append(line)
        ports = ports_in_effect(row, state.blackboard)
        if ports:
            pad = " " * (len(indent) + 4)
            out.append(f"  {pad}ports: " + ", ".join(p.text() for p in ports))
    out.append("blackboard:")
    changed = set(state.changed)
    for key in sorted(state.blackboard):
        value, writer = state.blackboard[key]
        out.append(f"{'!' if key in changed else ' '} {key} = {short_value(value, None)}  "
                   f"({_writer_text(writer, state)})")
    return out


def _writer_text(writer: Any, state: RobotState) -> str:
    if isinstance(writer, int):
        nodes = state.tree["nodes"]  # numbered 1..n in order (format.check_tree)
        row = nodes[writer - 1] if 1 <= writer <= len(nodes) else None
        return f"node #{writer} {row['name']}" if row else f"node #{writer}"
    return str(writer)


def tree_json(state: RobotState, t_s: float, truth: RobotTruth | str | None = None) -> dict[str, Any]:
    """{"t", "tick", "truth", "nodes": [{"uid", "path", "name", "status", "ticked", "did",
    "reason", "reason_tick", "ports"}], "blackboard", "writers"}; a node's status is the new
    status of its last transition (IDLE when it has none); "did" is "ran", "skipped", "reset" or
    null (see ``node_marks``); "reason" the node's latest reason (null: none) and "reason_tick"
    the tick it gave it in (the tick itself: a reason of this tick); "ports" every port with the
    value in effect and where it came from (``PortValue.as_json``). "truth" is the truth beside
    the estimates (``RobotTruth.as_json``), or null with "truth_note" saying why."""
    ticked = set(state.ticked)
    marks = node_marks(state)
    nodes = []
    for row in state.tree["nodes"]:
        uid = row["uid"]
        given = state.reasons.get(uid)
        nodes.append({"uid": uid, "path": row["path"], "name": row["name"],
                      "status": _NAMES[state.statuses.get(uid, 0)], "ticked": uid in ticked,
                      "did": marks.get(uid), "reason": given[1] if given else None,
                      "reason_tick": given[0] if given else None,
                      "ports": [p.as_json() for p in ports_in_effect(row, state.blackboard)]})
    extra: dict[str, Any] = {"truth": truth.as_json() if isinstance(truth, RobotTruth) else None}
    if isinstance(truth, str):
        extra["truth_note"] = truth
    return {"t": round(t_s, 6), "tick": state.tick, **extra, "nodes": nodes,
            "blackboard": {k: v[0] for k, v in sorted(state.blackboard.items())},
            "writers": {k: v[1] for k, v in sorted(state.blackboard.items())}}


def _pattern_text(pattern: tuple[tuple[int, int], ...]) -> str:
    """A tick's transitions of one node as a chain ("IDLE -> SUCCESS -> IDLE"); a return and
    a reset in one tick reads as what it returned ("SUCCESS")."""
    if len(pattern) == 2 and pattern[0][0] == 0 and pattern[1] == (pattern[0][1], 0):
        return _NAMES[pattern[0][1]]
    chain = [_NAMES[pattern[0][0]]]
    for prev, new in pattern:
        if _NAMES[prev] != chain[-1]:
            chain.append(_NAMES[prev])
        chain.append(_NAMES[new])
    return " -> ".join(chain)


def transition_lines(log: McapLog, robot: str, node: str, from_step: int = 1,
                     to_step: int | None = None, *, raw: bool = False,
                     notes: list[str] | None = None) -> list[str]:
    """Every status change of the nodes ``node`` names (``search.resolve_nodes``: ``#UID``, a
    path, or every node with that name, ID or path end), with time and tick. Repeats collapse
    into runs: a node whose transitions are the same in consecutive ticks prints one line
    ("36.80-36.95 s ticks 3680-3695 KickBall #100: SUCCESS every tick (16 ticks)"); ``raw``
    prints one line per transition instead. ``notes`` receives the ambiguity note of a name
    several nodes share."""
    log.require_node_data()
    log.check_robot(robot)
    load = 0
    uids: dict[int, str] = {}
    loads = {ld["step"]: ld["load"] for ld in log.loads(robot)}
    gaps: list[Gap] = []
    items: list[tuple[int, int, str]] = []            # (step, order in its tick, line): sorted at the end
    runs: dict[int, list[Any]] = {}                   # uid -> [first, last, count, pattern, order]

    def close(uid: int) -> None:
        run = runs.pop(uid, None)
        if run is None:
            return
        (s0, t0, k0), (_s1, t1, k1), count, pattern, order = run
        path = uids.get(uid, f"#{uid}")
        if count == 1:
            for prev, new in pattern:
                items.append((s0, order, f"t={t0:.2f}s tick {k0} {path} #{uid}: {_NAMES[prev]} -> {_NAMES[new]}"))
        else:
            items.append((s0, order, f"{t0:.2f}-{t1:.2f} s ticks {k0}-{k1} {path} #{uid}: "
                                   f"{_pattern_text(pattern)} every tick ({count} ticks)"))

    for view in log.steps(from_step, to_step, on_gap=gaps.append):
        while gaps:
            gap = gaps.pop(0)
            for uid in list(runs):
                close(uid)
            items.append((gap.first, -1, f"{gap.text(log.dt_s)}: its transitions are unknown"))
        new_load = loads.get(view.step)
        if new_load is not None or load == 0:
            load = new_load or max((ld["load"] for ld in log.loads(robot) if ld["step"] <= view.step), default=1)
            tree = log.tree(robot, load)
            for uid in list(runs):
                close(uid)
            rows = resolve_nodes(tree, node)
            if not rows:
                raise ReplayError(log.path, None, f"{robot}'s tree has no node {node!r}")
            uids = {row["uid"]: row["path"] for row in rows}
            note = ambiguity_note(robot, node, rows)
            if notes is not None and note is not None and note not in notes:
                notes.append(note)
        rec = view.ticks[robot]
        mine: dict[int, list[tuple[int, int]]] = {}
        first_at: dict[int, int] = {}
        for k, (uid, prev, new) in enumerate(rec.transitions):
            if uid in uids:
                mine.setdefault(uid, []).append((prev, new))
                first_at.setdefault(uid, k)
        for uid in [u for u in runs if u not in mine]:
            close(uid)
        where = (view.step, view.truth.t_s, rec.tick)
        for uid, changes in mine.items():
            pattern = tuple(changes)
            run = runs.get(uid)
            if run is not None and not raw and run[3] == pattern and run[1][0] == view.step - 1:
                run[1] = where
                run[2] += 1
                continue
            close(uid)
            runs[uid] = [where, where, 1, pattern, first_at[uid]]
    for uid in list(runs):
        close(uid)
    for gap in gaps:
        items.append((gap.first, -1, f"{gap.text(log.dt_s)}: its transitions are unknown"))
    items.sort(key=lambda item: (item[0], item[1]))
    return [line for _s, _u, line in items]



def info_lines(log: McapLog) -> list[str]:
    """``replay --info``: the header, the trees, the score, the goals (who scored, when), then
    every event (GameController states, set plays, goals, falls, penalties, role changes, node
    exceptions, reloads) with its time, a line each."""
    h = log.header
    out = [f"{log.path}: soccerbt {h.get('soccerbt_version')} seed {h.get('seed')} field {h.get('field')} "
           f"{h.get('team_size')} v {h.get('team_size')}, {log.last_step} steps ({log.duration_s:.1f} s)"]
    for team, tree in h.get("trees", {}).items():
        out.append(f"  {team} tree {tree.get('path')} ({len(tree.get('files', []))} file(s))")
    if not log.node_data and "converted_from" in h:
        out.append(f"  converted from {h.get('converted_from', {}).get('file')} (JSON lines): no node data, "
                   "root statuses only")
    elif not log.node_data:
        out.append(f"  inputs only (--record-mode inputs): root statuses and commands; soccerbt replay derive "
                   f"{log.path} FULL.mcap writes every node's")
    if "derived_from" in h:
        out.append(f"  derived from {h['derived_from']} (its brains re-run from their inputs)")
    result = log.summary_result()
    if result:
        out.append(f"  score {result.get('score')}")
    goals = [ev for ev in log.events if ev.get("kind") == "goal"]
    out.append(f"  goals ({len(goals)}):" if goals else "  goals: none")
    for ev in goals:
        who = f" by {ev['robot']}" if ev.get("robot") else ""
        out.append(f"    t={_time(ev)} {ev.get('team') or ''} {ev.get('detail')}{who}".rstrip())
    out.append(f"  events ({len(log.events)}), t = simulated time:")
    for ev in log.events:
        where = f" {ev['robot']}" if ev.get("robot") and ev.get("robot") not in str(ev.get("detail")) else ""
        node = f" at {ev['node_path']}" if ev.get("node_path") else ""
        out.append(f"    t={_time(ev)} {ev.get('kind')}{where}: {ev.get('detail')}{node}")
    return out


def _time(ev: dict[str, Any]) -> str:
    t = ev.get("t")
    return f"{t:.2f}s" if isinstance(t, (int, float)) else "?"



def btlog_models(tree: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The TreeNodesModel of a ``.btlog`` as BT.CPP's FileLogger2 writes it (``WriteTreeToXML``
    with the built-in models): every built-in node type BT.CPP's factory registers (all 42, used
    by the tree or not) with its ports' types, defaults and descriptions, then the tree's own node
    types, from soccerbt's registration when it has that ID with the same kind, else with the ports
    the tree uses. Sorted by ID (``logger_xml``)."""
    factory = TreeFactory()
    register_soccer_nodes(factory, declare_keys=False)
    manifests = factory.manifests()
    models = manifest_models(manifests, [i for i, m in manifests.items() if m.builtin])
    for row in tree["nodes"]:
        node_id = row["id"]
        known = manifests.get(node_id)
        if known is not None and (known.builtin or known.kind == row["kind"]):
            if node_id not in models:
                models.update(manifest_models(manifests, [node_id]))
            continue
        # a type soccerbt does not register (or not as this kind): the ports the tree uses
        entry = models.setdefault(node_id, {"kind": row["kind"], "ports": []})
        names = {p["name"] for p in entry["ports"]}
        entry["ports"] += [{"name": k, "direction": "input_port", "type": ""}
                           for k in row.get("ports", {}) if k not in names]
    return models


def export_btlog(log: McapLog, robot: str, out: Path) -> tuple[int, list[str]]:
    """Write `robot`'s run in BT.CPP's FileLogger2 format; (records written, warnings).

    Groot2 shows one tree per file: a run with hot reloads exports its first tree up to the
    first reload. Times: first_ts is 0 (simulated time), each record's offset in microseconds.
    """
    log.require_node_data()
    log.check_robot(robot)
    if not str(out).endswith(".btlog"):
        raise ReplayError(out, None, "a Groot2 log's name must end in .btlog (Groot2 opens no other)")
    warnings = []
    tree = log.tree(robot, 1)
    try:
        xml = logger_xml(tree, btlog_models(tree)).encode("utf-8")
    except ValueError as exc:  # a name or value XML cannot hold (the log's tree is data, not checked XML)
        raise ReplayError(log.path, None, f"{robot}'s tree cannot be written as BT.CPP XML ({exc})") from None
    reloads = [ld["step"] for ld in log.loads(robot) if ld.get("load", 1) > 1]
    stop = min(reloads) - 1 if reloads else log.last_step
    if reloads:
        warnings.append(f"{robot}'s tree was reloaded at step {min(reloads)}: exported up to there")
    records = bytearray()
    count = 0
    gaps: list[Gap] = []
    for view in log.steps(log.first_step, stop, on_gap=gaps.append):
        t_us = round(view.truth.t_s * 1e6)
        for uid, _prev, new in view.ticks[robot].transitions:
            records += (t_us & 0xFFFFFFFFFFFF).to_bytes(6, "little") + struct.pack("<HB", uid, new)
            count += 1
    warnings += [f"{gap.text(log.dt_s)}: no transitions exported there" for gap in gaps]
    head = b"".join((b"BTCPP4-FileLogger2", struct.pack("<B", 1), struct.pack("<i", len(xml)), xml,
                     struct.pack("<q", 0)))
    write_atomically(out, (head, bytes(records)))
    return count, warnings


