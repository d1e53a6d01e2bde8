"""``soccerbt replay diff A.mcap B.mcap``: where two recorded runs part.

Steps are matched by number; the first step whose decoded values differ is printed with what
differs there (the truth, and per robot the statuses, the blackboard, the command and the
reasons: ``soccerbt.resim.compare.step_differences``), each value labelled with its run (``A`` /
``B``). Steps one log is missing (damage) are not compared, and said so.
"""
from __future__ import annotations

from soccerbt.log.reader import Gap, McapLog, step_messages
from soccerbt.resim.compare import step_differences, tree_notes

__all__ = ["diff_logs"]


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
        notes += tree_notes(robot, a.tree(robot, 1), b.tree(robot, 1))
    gaps_a: list[Gap] = []
    gaps_b: list[Gap] = []
    it_a, it_b = step_messages(a, gaps_a), step_messages(b, gaps_b)
    na, nb = next(it_a, None), next(it_b, None)
    while na is not None and nb is not None:
        if na[0] != nb[0]:  # one log lacks the other's step: its gap says which
            na, nb = (next(it_a, None), nb) if na[0] < nb[0] else (na, next(it_b, None))
            continue
        step, data_a = na
        data_b = nb[1]
        na, nb = next(it_a, None), next(it_b, None)
        if data_a == data_b and a.format_version == b.format_version:
            continue
        try:
            va = a.view_of(data_a, step)
        except ValueError as exc:
            gaps_a.append(a._gap(step, step, None, f"step {step} unreadable ({exc})"))
            continue
        try:
            vb = b.view_of(data_b, step)
        except ValueError as exc:
            gaps_b.append(b._gap(step, step, None, f"step {step} unreadable ({exc})"))
            continue
        differences = step_differences(a.robots, va, vb)
        if not differences and a.format_version != b.format_version:
            continue  # the same values, written in two formats
        return notes + _missing(a, gaps_a, b, gaps_b) + [
            f"first difference at step {step} (t={va.truth.t_s:.2f}s), A = {a.path} / B = {b.path}:"
        ] + (differences or ["  the messages' bytes differ; their decoded values are the same"])
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
