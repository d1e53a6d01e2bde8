"""Text tools on an MCAP replay log: the tree at a tick, a node's transitions, conditions over
time, the first difference between two runs, Groot2's .btlog export, and re-running a log.

These back ``soccerbt replay FILE --tree/--json``, ``--node NAME --transitions``, ``--find``,
``soccerbt replay diff A B``, ``--btlog OUT`` and ``--verify`` (see soccerbt.tools.replay.replay_cli).
Conditions use BT.CPP's script language (soccerbt.blackboard.script) over the robot's blackboard
at each step, where a node's name stands for its status in that step (IDLE 0, RUNNING 1,
SUCCESS 2, FAILURE 3, SKIPPED 4; the enums IDLE ... SKIPPED are defined): the status its last
transition of the step reached other than the reset to IDLE, SKIPPED when the step skipped it,
else the status it kept. A log converted from JSON lines holds no node data: every tool here
refuses it with a ``ReplayError`` that says so (``McapLog.require_node_data``).
"""
from __future__ import annotations

import struct
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from soccerbt.tools.cli.outputs import write_atomically
from soccerbt.tools.replay import logformat as lf
from soccerbt.tools.replay.logformat import ReplayError
from soccerbt.tools.replay.mcap_reader import McapLog, RobotState, apply_step

__all__ = ["tree_lines", "tree_json", "transition_lines", "find_ranges", "diff_logs", "export_btlog",
           "verify_log", "step_of_tick", "parse_condition"]

_NAMES = lf.STATUS_NAMES


def step_of_tick(log: McapLog, robot: str, tick: int) -> int:
    """The step whose tick record of `robot` has tick number `tick` (Agent.ticks, from 1)."""
    first = log.step_view(log.first_step)
    if first is None or robot not in first.ticks:
        raise ReplayError(log.path, None, f"no tick of {robot} in the log")
    last = log.step_view(log.last_step)
    top = last.ticks[robot].tick if last is not None else 0
    if not first.ticks[robot].tick <= tick <= top:
        raise ReplayError(log.path, None, f"{robot} has no tick {tick} (ticks {first.ticks[robot].tick}..{top})")
    guess = tick - first.ticks[robot].tick + first.step
    view = log.step_view(guess) if log.first_step <= guess <= log.last_step else None
    if view is not None and view.ticks[robot].tick == tick:
        return guess
    for view in log.steps():  # ticks and steps part only where a robot was added late
        if view.ticks[robot].tick == tick:
            return view.step
    raise ReplayError(log.path, None, f"{robot} has no tick {tick} (ticks 1..{top})")


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


def tree_lines(state: RobotState, t_s: float) -> list[str]:
    """The tree as text: each node's status after the step, '*' for the nodes the step ticked,
    then the blackboard ('!' marks the entries the step changed)."""
    ticked = set(state.ticked)
    skipped = set(state.skipped)
    out = [f"{state.robot} tick {state.tick} at t={t_s:.2f}s (step {state.step}); * ticked in this tick"]
    for depth, row in _walk(state.tree):
        uid = row["uid"]
        status = "SKIPPED" if uid in skipped else _NAMES[state.statuses.get(uid, 0)]
        reached = state.last_transition.get(uid)
        if uid in ticked and status == "IDLE" and reached is not None:
            status = f"IDLE (returned {_NAMES[reached]}, then reset)"
        mark = "*" if uid in ticked else " "
        label = row["name"] if row["name"] == row["id"] else f"{row['name']} ({row['id']})"
        out.append(f"{mark} {'  ' * depth}{label} #{uid}: {status}")
    out.append("blackboard:")
    changed = set(state.changed)
    for key in sorted(state.blackboard):
        value, writer = state.blackboard[key]
        out.append(f"{'!' if key in changed else ' '} {key} = {value!r}  ({_writer_text(writer, state)})")
    return out


def _writer_text(writer: Any, state: RobotState) -> str:
    if isinstance(writer, int):
        row = next((r for r in state.tree["nodes"] if r["uid"] == writer), None)
        return f"node #{writer} {row['name']}" if row else f"node #{writer}"
    return str(writer)


def tree_json(state: RobotState, t_s: float) -> dict[str, Any]:
    """{"t", "tick", "nodes": [{"uid", "path", "name", "status", "ticked"}], "blackboard"}; a
    node's status is the new status of its last transition (IDLE when it has none)."""
    ticked = set(state.ticked)
    nodes = [{"uid": row["uid"], "path": row["path"], "name": row["name"],
              "status": _NAMES[state.statuses.get(row["uid"], 0)], "ticked": row["uid"] in ticked}
             for row in state.tree["nodes"]]
    return {"t": round(t_s, 6), "tick": state.tick, "nodes": nodes,
            "blackboard": {k: v[0] for k, v in sorted(state.blackboard.items())},
            "writers": {k: v[1] for k, v in sorted(state.blackboard.items())}}


def _matches(row: dict[str, Any], name: str) -> bool:
    return name in (row["name"], row["id"], row["path"]) or row["path"].endswith("/" + name)


def transition_lines(log: McapLog, robot: str, node: str, from_step: int = 1,
                     to_step: int | None = None) -> Iterator[str]:
    """Every status change of the nodes named `node` (name, ID or path), with time and tick."""
    log.require_node_data()
    log.check_robot(robot)
    load = 0
    uids: dict[int, str] = {}
    loads = {ld["step"]: ld["load"] for ld in log.loads(robot)}
    for view in log.steps(from_step, to_step):
        new_load = loads.get(view.step)
        if new_load is not None or load == 0:
            load = new_load or max((ld["load"] for ld in log.loads(robot) if ld["step"] <= view.step), default=1)
            tree = log.tree(robot, load)
            uids = {row["uid"]: row["path"] for row in tree["nodes"] if _matches(row, node)}
            if not uids:
                raise ReplayError(log.path, None, f"{robot}'s tree has no node {node!r}")
        rec = view.ticks[robot]
        for uid, prev, new in rec.transitions:
            if uid in uids:
                yield (f"t={view.truth.t_s:.2f}s tick {rec.tick} {uids[uid]} #{uid}: "
                       f"{_NAMES[prev]} -> {_NAMES[new]}")


def parse_condition(text: str) -> tuple[str, str]:
    """"blue2: decision == 'kick'" -> ("blue2", "decision == 'kick'")."""
    robot, sep, expr = text.partition(":")
    if not sep or not robot.strip() or not expr.strip():
        raise ValueError(f"a condition reads 'ROBOT: EXPRESSION', got {text!r}")
    return robot.strip(), expr.strip()


def find_ranges(log: McapLog, condition: str) -> list[tuple[float, float, int, int]]:
    """The time ranges (first t, last t, first tick, last tick) where the condition holds."""
    from soccerbt.blackboard import Blackboard
    from soccerbt.blackboard.script import ScriptSyntaxError, compile_script

    log.require_node_data()
    robot, expr = parse_condition(condition)
    log.check_robot(robot)
    enums = dict(lf.STATUS_CODES)
    try:
        script = compile_script(expr, enums)
    except ScriptSyntaxError as exc:
        raise ValueError(f"bad condition {expr!r}: {exc}") from None
    state = log.robot_state(robot, log.first_step - 1)
    names = {row["uid"]: row["name"] for row in state.tree["nodes"]}
    bb = Blackboard()
    ranges: list[tuple[float, float, int, int]] = []
    open_range: list[Any] | None = None
    loads = {ld["step"]: ld["load"] for ld in log.loads(robot)}
    for view in log.steps():
        if view.step in loads:
            state = log.robot_state(robot, view.step)
            names = {row["uid"]: row["name"] for row in state.tree["nodes"]}
        else:
            apply_step(state, view)
        for key, (value, _w) in state.blackboard.items():
            bb.set(key, value if not isinstance(value, list) else str(value))
        skipped = set(state.skipped)
        for uid, name in names.items():
            code = lf.STATUS_CODES["SKIPPED"] if uid in skipped else state.last_transition.get(
                uid, state.statuses.get(uid, 0))
            bb.set(name, code)
        try:
            holds = bool(script.evaluate_bool(bb))
        except Exception:  # noqa: BLE001 - a key not yet written, a type the script refuses
            holds = False
        rec = view.ticks[robot]
        if holds:
            if open_range is None:
                open_range = [view.truth.t_s, view.truth.t_s, rec.tick, rec.tick]
            else:
                open_range[1], open_range[3] = view.truth.t_s, rec.tick
        elif open_range is not None:
            ranges.append(tuple(open_range))  # type: ignore[arg-type]
            open_range = None
    if open_range is not None:
        ranges.append(tuple(open_range))  # type: ignore[arg-type]
    return ranges


def diff_logs(a: McapLog, b: McapLog) -> list[str]:
    """[] when both runs are the same step by step; else what differs at the first step that
    differs (truth, and per robot: tree statuses, blackboard, command)."""
    a.require_node_data()
    b.require_node_data()
    notes: list[str] = []
    if a.robots != b.robots:
        return [f"the robots differ: {', '.join(a.robots)} / {', '.join(b.robots)}"]
    for robot in a.robots:
        ta, tb = a.tree(robot, 1), b.tree(robot, 1)
        if ta["nodes"] != tb["nodes"]:
            changed = [f"#{x['uid']} {x['name']}" for x, y in zip(ta["nodes"], tb["nodes"]) if x != y]
            notes.append(f"note: {robot}'s trees differ ({', '.join(changed[:5]) or 'node count'})")
    it_a, it_b = a.messages(topics={lf.STEP_TOPIC}), b.messages(topics={lf.STEP_TOPIC})
    for (_ta, step_a, data_a), (_tb, step_b, data_b) in zip(it_a, it_b):
        if data_a == data_b:
            continue
        va, vb = a.decode_step(data_a), b.decode_step(data_b)
        out = notes + [f"first difference at step {step_a} (t={va.truth.t_s:.2f}s):"]
        if va.truth != vb.truth:
            out.append(f"  truth: ball {_fmt(va.truth.ball)} / {_fmt(vb.truth.ball)}")
            for robot, ra, rb in zip(a.robots, va.truth.robots, vb.truth.robots):
                if ra != rb:
                    out.append(f"  truth {robot}: {_fmt(ra[:3])} / {_fmt(rb[:3])}")
        for robot in a.robots:
            ra, rb = va.ticks[robot], vb.ticks[robot]
            if ra.transitions != rb.transitions:
                out.append(f"  {robot} tick {ra.tick} statuses: {_trans(ra)} / {_trans(rb)}")
            if ra.blackboard != rb.blackboard:
                keys = sorted(set(ra.blackboard) | set(rb.blackboard))
                for key in keys:
                    x, y = ra.blackboard.get(key), rb.blackboard.get(key)
                    if x != y:
                        out.append(f"  {robot} blackboard {key}: {x} / {y}")
            if ra.command != rb.command and not all(_same_float(x, y) for x, y in zip(ra.command, rb.command)):
                out.append(f"  {robot} command: {_fmt(ra.command)} / {_fmt(rb.command)}")
        return out
    if a.last_step != b.last_step:
        return notes + [f"the runs differ in length: {a.last_step} / {b.last_step} steps"]
    return []


def _same_float(x: float, y: float) -> bool:
    return x == y or (x != x and y != y)


def _fmt(values: Any) -> str:
    return "(" + ", ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in values) + ")"


def _trans(rec: lf.TickRecord) -> str:
    return " ".join(f"#{u}:{_NAMES[p][0]}>{_NAMES[n][0]}" for u, p, n in rec.transitions[:8]) + (
        " ..." if len(rec.transitions) > 8 else "")


def export_btlog(log: McapLog, robot: str, out: Path) -> tuple[int, list[str]]:
    """Write `robot`'s run in BT.CPP's FileLogger2 format; (records written, warnings).

    Groot2 shows one tree per file: a run with hot reloads exports its first tree up to the
    first reload. Times: first_ts is 0 (simulated time), each record's offset in microseconds.
    """
    from soccerbt.trees.structure import logger_xml

    log.require_node_data()
    log.check_robot(robot)
    if not str(out).endswith(".btlog"):
        raise ValueError(f"{out}: a .btlog file name must end in .btlog (Groot2 requires it)")
    warnings = []
    tree = log.tree(robot, 1)
    xml = logger_xml(tree).encode("utf-8")
    reloads = [ld["step"] for ld in log.loads(robot) if ld.get("load", 1) > 1]
    stop = min(reloads) - 1 if reloads else log.last_step
    if reloads:
        warnings.append(f"{robot}'s tree was reloaded at step {min(reloads)}: exported up to there")
    records = bytearray()
    count = 0
    for view in log.steps(log.first_step, stop):
        t_us = round(view.truth.t_s * 1e6)
        for uid, _prev, new in view.ticks[robot].transitions:
            records += (t_us & 0xFFFFFFFFFFFF).to_bytes(6, "little") + struct.pack("<HB", uid, new)
            count += 1
    head = b"".join((b"BTCPP4-FileLogger2", struct.pack("<B", 1), struct.pack("<i", len(xml)), xml,
                     struct.pack("<q", 0)))
    write_atomically(out, (head, bytes(records)))
    return count, warnings


def verify_log(log: McapLog) -> tuple[bool, list[str]]:
    """Re-run the match from the log's seed, configuration and tree files (their hashes checked
    first) and compare step by step. (reproduces, messages)."""
    from soccerbt.match import Match, MatchConfig
    from soccerbt.tools.replay.mcap_recorder import file_hashes, make_recorder

    log.require_node_data()
    header = log.header
    cfg = header.get("config") or {}
    if not cfg.get("reproducible", False):
        return False, ["the log's match used a custom noise or referee configuration: cannot re-run it"]
    for team, tree in header.get("trees", {}).items():
        for entry in tree.get("files", []):
            now = file_hashes([Path(entry["path"])])[0]["sha256"]
            if now != entry["sha256"]:
                return False, [f"{entry['path']}: changed since the run (SHA-256 differs); cannot verify ({team})"]
    config = MatchConfig(team_size=cfg.get("team_size"), field=cfg.get("field", "adult"), seed=cfg.get("seed", 0),
                         duration_s=log.last_step * log.dt_s, half_s=cfg.get("half_s", 600.0),
                         blue_tree=cfg.get("blue_tree"), red_tree=cfg.get("red_tree"),
                         idle_teams=tuple(cfg.get("idle_teams", ())), particles=cfg.get("particles", 300))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "verify.mcap"
        match = Match(config)
        recorder = make_recorder(out, match)
        while match.steps < log.last_step and not match.finished():
            match.step()
        recorder.finish(match.result())
        again = McapLog.open(out)
        differences = diff_logs(log, again)
    if differences:
        return False, differences
    return True, [f"{log.path}: reproduces ({log.last_step} steps, seed {cfg.get('seed')})"]
