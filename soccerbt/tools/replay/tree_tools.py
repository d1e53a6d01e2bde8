"""Text tools on an MCAP replay log: the tree at a tick, a node's transitions, conditions over
time, the first difference between two runs, Groot2's .btlog export, and re-running a log.

These back ``soccerbt replay FILE --tree/--json``, ``--node NAME --transitions``, ``--find``,
``soccerbt replay diff A B``, ``--btlog OUT`` and ``--verify`` (see soccerbt.tools.replay.replay_cli).
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

from soccerbt.tools.cli.outputs import write_atomically
from soccerbt.tools.cli.values import short_value
from soccerbt.tools.replay import logformat as lf
from soccerbt.tools.replay.logformat import ReplayError
from soccerbt.tools.replay.mcap_reader import Gap, McapLog, RobotState, StepView
from soccerbt.tools.replay.search import ambiguity_note, find_ranges, parse_condition, resolve_nodes

__all__ = ["tree_lines", "tree_json", "transition_lines", "find_ranges", "diff_logs", "export_btlog", "btlog_models",
           "verify_log", "step_of_tick", "parse_condition", "node_marks", "info_lines"]

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


def tree_lines(state: RobotState, t_s: float) -> list[str]:
    """The tree as text: each node's status after the step, marked by what the step did to it
    ('*' ran, '~' skipped by its pre-condition, 'x' reset without running), the reason a node
    gave for its decision (in this tick, or its latest with the tick it gave it in); then the
    blackboard ('!' marks the entries the step changed), values as the viewer shows them."""
    marks = node_marks(state)
    out = [f"{state.robot} tick {state.tick} at t={t_s:.2f}s (step {state.step}); * ran in this tick, "
           f"~ skipped, x reset without running"]
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
    out.append("blackboard:")
    changed = set(state.changed)
    for key in sorted(state.blackboard):
        value, writer = state.blackboard[key]
        out.append(f"{'!' if key in changed else ' '} {key} = {short_value(value, None)}  "
                   f"({_writer_text(writer, state)})")
    return out


def _writer_text(writer: Any, state: RobotState) -> str:
    if isinstance(writer, int):
        nodes = state.tree["nodes"]  # numbered 1..n in order (logformat.check_tree)
        row = nodes[writer - 1] if 1 <= writer <= len(nodes) else None
        return f"node #{writer} {row['name']}" if row else f"node #{writer}"
    return str(writer)


def tree_json(state: RobotState, t_s: float) -> dict[str, Any]:
    """{"t", "tick", "nodes": [{"uid", "path", "name", "status", "ticked", "did", "reason",
    "reason_tick"}], "blackboard", "writers"}; a node's status is the new status of its last
    transition (IDLE when it has none); "did" is "ran", "skipped", "reset" or null (see
    ``node_marks``); "reason" the node's latest reason (null: none) and "reason_tick" the tick
    it gave it in (the tick itself: a reason of this tick)."""
    ticked = set(state.ticked)
    marks = node_marks(state)
    nodes = []
    for row in state.tree["nodes"]:
        uid = row["uid"]
        given = state.reasons.get(uid)
        nodes.append({"uid": uid, "path": row["path"], "name": row["name"],
                      "status": _NAMES[state.statuses.get(uid, 0)], "ticked": uid in ticked,
                      "did": marks.get(uid), "reason": given[1] if given else None,
                      "reason_tick": given[0] if given else None})
    return {"t": round(t_s, 6), "tick": state.tick, "nodes": nodes,
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


def _step_messages(log: McapLog, gaps: list[Gap]) -> Iterator[tuple[int, bytes]]:
    """(step, data) of the log's step messages in increasing order; the steps missing between
    and after them are added to `gaps` (and to ``log.gaps``)."""
    expect = log.first_step
    for _topic, step, data in log.messages(topics={lf.STEP_TOPIC}):
        if step < expect:
            continue
        if step > expect:
            gaps.append(log._gap(expect, step - 1, None))
        expect = step + 1
        yield step, data
    if expect <= log.last_step:
        gaps.append(log._gap(expect, log.last_step, None))


def step_differences(robots: list[str], va: StepView, vb: StepView, labels: tuple[str, str] = ("A", "B")) -> list[str]:
    """What differs between two decoded steps: the truth, and per robot the statuses, the
    blackboard, the command and the reasons (the lines of ``diff`` and ``--verify``); each value
    is labelled with its run (``labels``: "A" / "B", or "log" / "re-run"). Statuses read
    ``#uid:P>N`` (a transition from P to N: I IDLE, R RUNNING, S SUCCESS, F FAILURE), the
    truth and the command ``(x, y, theta)`` and ``(vx, vy, vtheta, pan, tilt, kick dir,
    strength)``."""
    a, b = labels
    out: list[str] = []
    if va.truth != vb.truth:
        out.append(f"  truth ball (x, y, vx, vy): {a} {_fmt(va.truth.ball)} / {b} {_fmt(vb.truth.ball)}")
        for robot, ra, rb in zip(robots, va.truth.robots, vb.truth.robots):
            if ra != rb:
                out.append(f"  truth {robot} (x, y, theta): {a} {_fmt(ra[:3])} / {b} {_fmt(rb[:3])}")
    for robot in robots:
        ra, rb = va.ticks[robot], vb.ticks[robot]
        if ra.transitions != rb.transitions:
            out.append(f"  {robot} tick {ra.tick} statuses (#uid:from>to): {a} {_trans(ra)} / {b} {_trans(rb)}")
        if ra.blackboard != rb.blackboard:
            keys = sorted(set(ra.blackboard) | set(rb.blackboard))
            for key in keys:
                x, y = ra.blackboard.get(key), rb.blackboard.get(key)
                if x != y:
                    out.append(f"  {robot} blackboard {key} [value, writer]: {a} {x} / {b} {y}")
        if not lf.same_command(ra.command, rb.command):
            out.append(f"  {robot} command (vx, vy, vtheta, pan, tilt, kick dir, strength): "
                       f"{a} {_fmt(ra.command)} / {b} {_fmt(rb.command)}")
        if ra.reasons != rb.reasons:
            for uid in sorted(set(ra.reasons) | set(rb.reasons)):
                x, y = ra.reasons.get(uid), rb.reasons.get(uid)
                if x != y:
                    out.append(f"  {robot} reason #{uid}: {a} {x!r} / {b} {y!r}")
    return out


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


def _tree_notes(robot: str, ta: dict[str, Any], tb: dict[str, Any]) -> list[str]:
    if ta["nodes"] == tb["nodes"]:
        return []
    changed = [f"#{x['uid']} {x['name']}" for x, y in zip(ta["nodes"], tb["nodes"]) if x != y]
    return [f"note: {robot}'s trees differ ({', '.join(changed[:5]) or 'node count'})"]


def diff_logs(a: McapLog, b: McapLog) -> list[str]:
    """[] when both runs are the same step by step; else what differs at the first step that
    differs (truth, and per robot: tree statuses, blackboard, command). Steps are matched by
    number: steps one log is missing (damage) are not compared, and said so."""
    a.require_node_data()
    b.require_node_data()
    notes: list[str] = []
    if a.robots != b.robots:
        return [f"the robots differ: {', '.join(a.robots)} / {', '.join(b.robots)}"]
    for robot in a.robots:
        notes += _tree_notes(robot, a.tree(robot, 1), b.tree(robot, 1))
    gaps_a: list[Gap] = []
    gaps_b: list[Gap] = []
    it_a, it_b = _step_messages(a, gaps_a), _step_messages(b, gaps_b)
    na, nb = next(it_a, None), next(it_b, None)
    while na is not None and nb is not None:
        if na[0] != nb[0]:  # one log lacks the other's step: its gap says which
            na, nb = (next(it_a, None), nb) if na[0] < nb[0] else (na, next(it_b, None))
            continue
        step, data_a = na
        data_b = nb[1]
        na, nb = next(it_a, None), next(it_b, None)
        if data_a == data_b:
            continue
        try:
            va = a.decode_step(data_a)
        except ValueError as exc:
            gaps_a.append(a._gap(step, step, None, f"step {step} unreadable ({exc})"))
            continue
        try:
            vb = b.decode_step(data_b)
        except ValueError as exc:
            gaps_b.append(b._gap(step, step, None, f"step {step} unreadable ({exc})"))
            continue
        return notes + _missing(a, gaps_a, b, gaps_b) + [
            f"first difference at step {step} (t={va.truth.t_s:.2f}s), A = {a.path} / B = {b.path}:"
        ] + step_differences(a.robots, va, vb)
    for _ in it_a:  # to the end: the gaps after the last common step
        pass
    for _ in it_b:
        pass
    missing = _missing(a, gaps_a, b, gaps_b)
    if a.last_step != b.last_step:
        return notes + missing + [f"the runs differ in length: {a.last_step} / {b.last_step} steps"]
    return notes + missing


def _missing(a: McapLog, gaps_a: list[Gap], b: McapLog, gaps_b: list[Gap]) -> list[str]:
    return ([f"{a.path}: {g.text(a.dt_s)}; not compared" for g in gaps_a]
            + [f"{b.path}: {g.text(b.dt_s)}; not compared" for g in gaps_b])


def _fmt(values: Any) -> str:
    return "(" + ", ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in values) + ")"


def _trans(rec: lf.TickRecord) -> str:
    return " ".join(f"#{u}:{_NAMES[p][0]}>{_NAMES[n][0]}" for u, p, n in rec.transitions[:8]) + (
        " ..." if len(rec.transitions) > 8 else "")


def btlog_models(tree: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The TreeNodesModel of a ``.btlog`` as BT.CPP's FileLogger2 writes it (``WriteTreeToXML``
    with the built-in models): every built-in node type BT.CPP's factory registers (all 42, used
    by the tree or not) with its ports' types, defaults and descriptions, then the tree's own node
    types, from soccerbt's registration when it has that ID with the same kind, else with the ports
    the tree uses. Sorted by ID (``logger_xml``)."""
    from soccerbt.trees.factory import TreeFactory
    from soccerbt.trees.structure import manifest_models

    factory = TreeFactory()
    try:
        from soccerbt.nodes.soccer import register_soccer_nodes

        register_soccer_nodes(factory, declare_keys=False)
    except ImportError:  # the soccer library is optional for the engine
        pass
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
    from soccerbt.trees.structure import logger_xml

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


MAX_PARTICLES = 10_000
_TEAMS = ("blue", "red")


def verify_config(log: McapLog) -> dict[str, Any]:
    """The match configuration stored in the log's header, checked against the command line's
    limits (a field soccerbt knows, 1..11 robots a team and no more than the field holds, a seed
    of 0 or more, a positive finite half, GameController 12, 19 or 20, at most MAX_PARTICLES
    particles a robot, ...); ReplayError naming what it refused."""
    from soccerbt.tools.cli.match_options import FIELD_CHOICES
    from soccerbt.world.field import Field

    cfg = log.header.get("config")
    if not isinstance(cfg, dict):
        raise ReplayError(log.path, None, "the header holds no match configuration: cannot re-run it")

    def refuse(key: str, why: str) -> ReplayError:
        return ReplayError(log.path, None, f"refused to re-run: the header's config.{key} {why}")

    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    def shown(v: Any) -> str:
        text = repr(v)
        return text if len(text) <= 40 else text[:37] + "..."

    out: dict[str, Any] = {}
    field_name = cfg.get("field", "adult")
    if not isinstance(field_name, str) or field_name.strip().lower() not in FIELD_CHOICES:
        raise refuse("field", f"{shown(field_name)} is no field (S, M or L)")
    out["field"] = field_name.strip().lower()
    size = cfg.get("team_size")
    limit = Field.by_name(out["field"]).max_players_per_team
    if size is not None and (not is_int(size) or not 1 <= size <= min(11, limit)):
        raise refuse("team_size", f"{shown(size)} is not 1..{min(11, limit)} robots a team on that field")
    out["team_size"] = size
    seed = cfg.get("seed", 0)
    if not is_int(seed) or not 0 <= seed < 1 << 64:
        raise refuse("seed", f"{shown(seed)} is not a seed (0 or more)")
    out["seed"] = seed
    half = cfg.get("half_s", 600.0)
    if not isinstance(half, (int, float)) or isinstance(half, bool) or not 0 < half < float("inf"):
        raise refuse("half_s", f"{shown(half)} is not a positive number of seconds")
    out["half_s"] = float(half)
    for team in _TEAMS:
        tree = cfg.get(f"{team}_tree")
        if tree is not None and (not isinstance(tree, str) or not tree or "\0" in tree):
            raise refuse(f"{team}_tree", "is not a file name")
        out[f"{team}_tree"] = tree
    idle = cfg.get("idle_teams", [])
    if not isinstance(idle, list) or any(t not in _TEAMS for t in idle) or len(set(idle)) != len(idle):
        raise refuse("idle_teams", "is not a list of blue and red")
    out["idle_teams"] = tuple(idle)
    particles = cfg.get("particles", 300)
    if not is_int(particles) or not 1 <= particles <= MAX_PARTICLES:
        raise refuse("particles", f"{shown(particles)} is not 1..{MAX_PARTICLES:,} particles a robot")
    out["particles"] = particles
    gc_version = cfg.get("gc_version", 20)
    if gc_version not in (12, 19, 20) or not is_int(gc_version):
        raise refuse("gc_version", f"{shown(gc_version)} is not 12, 19 or 20")
    out["gc_version"] = gc_version
    knockout = cfg.get("knockout", False)
    if not isinstance(knockout, bool) or (knockout and gc_version == 12):
        raise refuse("knockout", "is not true or false (true needs GameController 19 or 20)")
    out["knockout"] = knockout
    if not isinstance(cfg.get("reproducible", False), bool):
        raise refuse("reproducible", "is not true or false")
    return out


def verify_trees(log: McapLog, config: dict[str, Any], max_file_bytes: int | None = None) -> list[str]:
    """Check that the files a re-run would load are those the header names, unchanged. Reads
    only what the configured trees are (each tree and, recursively, its includes, as the loader
    finds them), only regular files, bounded, that parse as BehaviorTree.CPP trees; never a path
    the header alone names. [] when they match; else what was refused and why."""
    import hashlib
    import os

    from soccerbt.match import default_tree_path
    from soccerbt.trees.errors import TreeLoadError
    from soccerbt.trees.includes import default_max_file_bytes, tree_files
    from soccerbt.trees.xmlload import FileRefused, decode_xml_bytes, parse_xml_text, read_limited

    limit = max_file_bytes if max_file_bytes is not None else default_max_file_bytes()
    trees = log.header.get("trees") or {}
    for team in _TEAMS:
        if team in config["idle_teams"]:
            continue  # an idle team plays no tree
        configured = config[f"{team}_tree"] or str(default_tree_path())
        stored = trees.get(team)
        if not isinstance(stored, dict) or not stored.get("files"):
            return [f"refused to re-run: the header lists no tree files of {team}"]
        named = {os.path.realpath(e["path"]): e["sha256"] for e in stored["files"]}
        files = [Path(os.path.realpath(f)) for f in tree_files(configured, max_file_bytes=limit)]
        for f in files:
            if str(f) not in named:
                return [f"{f}: the {team} tree ({configured}) includes it but the log's header does not list it: "
                        f"the tree changed since the run; cannot verify"]
        extra = sorted(set(named) - {str(f) for f in files})
        if extra:
            return [f"refused: the header lists {extra[0]} among the {team} tree's files, but {configured} does not "
                    f"include it; verify reads only the files of the configured tree"]
        for f in files:
            try:
                raw = read_limited(f, limit)
                parse_xml_text(decode_xml_bytes(raw, str(f)), str(f), f.parent)
            except FileRefused as exc:
                return [f"refused: {f}: {exc.reason} (verify reads only tree files)"]
            except TreeLoadError as exc:
                return [f"refused: {f}: not a BehaviorTree.CPP tree ({exc.message}); verify reads only tree files"]
            if hashlib.sha256(raw).hexdigest() != named[str(f)]:
                return [f"{f}: changed since the run (SHA-256 differs); cannot verify ({team})"]
    return []


def verify_log(log: McapLog) -> tuple[bool, list[str]]:
    """Re-run the match from the log's seed, configuration and tree files (all checked first:
    ``verify_config``, ``verify_trees``) and compare it with the log step by step as it runs,
    stopping at the first step that differs. (reproduces, messages)."""
    import os

    from soccerbt.match import Match, MatchConfig
    from soccerbt.tools.replay.mcap_recorder import McapRecorder

    log.require_node_data()
    config = verify_config(log)
    if not log.header["config"].get("reproducible", False):
        return False, ["the log's match used a custom noise or referee configuration: cannot re-run it"]
    problems = verify_trees(log, config)
    if problems:
        return False, problems
    match = Match(MatchConfig(duration_s=log.last_step * log.dt_s, **config))
    if abs(match.dt_s - log.dt_s) > 1e-12:
        return False, [f"the log steps {log.dt_s:g} s, this soccerbt {match.dt_s:g} s: cannot re-run it"]
    gaps: list[Gap] = []
    steps = _step_messages(log, gaps)
    compare = _Compare(log, steps)
    with open(os.devnull, "wb") as sink:
        recorder = McapRecorder(log.path.with_suffix(".verify.mcap"), stream=sink, tap=compare.message)
        recorder.on_start(match)
        match.observers.append(recorder)
        while match.steps < log.last_step and not match.finished() and compare.going:
            match.step()
        recorder.close()
    for _ in steps:  # the gaps after the last compared step
        pass
    missing = [f"{log.path}: {g.text(log.dt_s)}; not compared" for g in gaps]
    if compare.lines:
        return False, compare.notes + missing + compare.lines
    if compare.ended is not None:
        return False, compare.notes + missing + [compare.ended]
    if match.steps < log.last_step:
        return False, compare.notes + missing + [f"the re-run ended at step {match.steps}, the log holds "
                                                 f"{log.last_step} steps"]
    if missing:
        return False, compare.notes + missing
    seed = log.header["config"].get("seed")
    return True, compare.notes + [f"{log.path}: reproduces ({log.last_step} steps, seed {seed})"]


class _Compare:
    """The re-run's messages (a recorder's tap) against the log's steps, as they come."""

    def __init__(self, log: McapLog, steps: Iterator[tuple[int, bytes]]) -> None:
        self.log = log
        self.steps = steps
        self.next = next(steps, None)
        self.going = True
        self.lines: list[str] = []
        self.notes: list[str] = []
        self.ended: str | None = None
        self.tables: dict[str, list[str]] = {}
        self.topics = {lf.keys_topic(r): r for r in log.robots} | {lf.keyframe_topic(r): r for r in log.robots}
        self.trees = {lf.tree_topic(r): r for r in log.robots}

    def message(self, topic: str, step: int, data: bytes) -> None:
        if not self.going:
            return
        if topic in self.topics:
            keys = lf.load_json(data).get("keys")
            if keys is not None:
                self.tables[self.topics[topic]] = keys
            return
        if topic in self.trees:
            robot = self.trees[topic]
            again = lf.load_json(data)
            if again.get("load") == 1:
                self.notes += _tree_notes(robot, self.log.tree(robot, 1), again)
            return
        if topic != lf.STEP_TOPIC:
            return
        while self.next is not None and self.next[0] < step:
            self.next = next(self.steps, None)
        if self.next is None:
            self.ended = f"the log ends before step {step}: the re-run goes on"
            self.going = False
            return
        if self.next[0] > step:
            return  # a step the log is missing: its gap says so
        mine = self.next[1]
        if mine == data:
            return
        self.going = False
        try:
            va = self.log.decode_step(mine)
        except ValueError as exc:
            self.lines = [f"step {step} of the log is unreadable ({exc})"]
            return
        vb = self.log.decode_step(data, dict(self.tables))
        self.lines = [f"first difference at step {step} (t={va.truth.t_s:.2f}s), log / re-run:",
                      *step_differences(self.log.robots, va, vb, ("log", "re-run"))]
