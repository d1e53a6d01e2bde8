"""``soccerbt replay diff A.mcap B.mcap``: where two recorded runs part.

Steps are matched by number. The first step whose decoded values differ is printed with what
differs there (the truth, and per robot the statuses, the blackboard, the command and the
reasons: ``soccerbt.resim.compare.step_differences``), each value labelled with its run (``A`` /
``B``). Then, over the whole runs, the first difference of each kind with its time and node (the
truth; per robot the aspects ``--rerun`` compares: statuses, decisions, reasons, commands, and
the tick's other blackboard writes), the decision changes (runs of ticks where a decision key
holds one value in A and another in B; the first ``max_changes`` listed) and how many steps
differ in each kind. Steps one log is missing (damage) are not compared, and said so.

Steps whose bytes are the same in both logs are not decoded while every robot's statuses and
decisions agree (before the runs part, the common case); where they part again after such a
stretch, both sides are read from the logs' keyframes (``McapLog.robot_state``).
"""
from __future__ import annotations

from soccerbt.log.format import ReplayError
from soccerbt.log.reader import Gap, McapLog, StepView, step_messages
from soccerbt.resim.compare import (
    ASPECTS,
    MAX_CHANGES,
    Comparison,
    Side,
    blackboard_aspect,
    step_differences,
    tree_notes,
    truth_differences,
)

__all__ = ["diff_logs", "MAX_CHANGES"]

_ASPECTS = [*ASPECTS, ("blackboard", blackboard_aspect)]  # a diff compares the adapters' writes too


class _Kinds:
    """Every robot's comparison of A and B (``compare.Comparison``, its sides named "A" and "B")
    and the truth's: what the lines after the first difference say."""

    def __init__(self, a: McapLog, b: McapLog, max_changes: int) -> None:
        self.a, self.b = a, b
        self.sides: dict[str, tuple[Side, Side]] = {}
        self.comparisons: dict[str, Comparison] = {}
        self.stale = True   # the sides lag the logs (steps not decoded): read them again before comparing
        self.truth_count = 0
        self.truth_first: tuple[int, float, list[str]] | None = None
        self.compared = 0
        self.first_step: int | None = None
        self.last_step: int | None = None
        for robot in a.robots:
            sa, sb = Side("A", said="A"), Side("B", said="B")
            sa.set_tree(a.tree(robot, 1))
            sb.set_tree(b.tree(robot, 1))
            self.sides[robot] = (sa, sb)
            self.comparisons[robot] = Comparison(same_tree=sa.paths == sb.paths, aspects=_ASPECTS,
                                                 max_changes=max_changes)

    def _count(self, step: int) -> None:
        self.compared += 1
        self.first_step = step if self.first_step is None else self.first_step
        self.last_step = step

    def can_skip(self) -> bool:
        """Whether a step whose bytes are the same in both logs may go undecoded: every robot's
        statuses and decisions agree (so the same tick leaves them agreeing)."""
        return self.stale or all(sa.statuses == sb.statuses and sa.decisions == sb.decisions
                                 for sa, sb in self.sides.values())

    def skip(self, step: int) -> None:
        self._count(step)
        self.stale = True
        for comparison in self.comparisons.values():
            comparison.same(step)

    def compare(self, step: int, va: StepView, vb: StepView) -> None:
        if self.stale:
            self._resync(step - 1)
        self._count(step)
        truth = truth_differences(self.a.robots, va, vb)
        if truth:
            self.truth_count += 1
            if self.truth_first is None:
                self.truth_first = (step, va.truth.t_s, truth)
        for robot, (sa, sb) in self.sides.items():
            sa.apply(va.ticks[robot])
            sb.apply(vb.ticks[robot])
            self.comparisons[robot].tick(step, va.truth.t_s, sa, sb)

    def _resync(self, step: int) -> None:
        """Each side's statuses and decisions after `step`, from its log's keyframes."""
        self.stale = False
        for robot, sides in self.sides.items():
            for log, side in zip((self.a, self.b), sides, strict=True):
                try:
                    state = log.robot_state(robot, max(step, 0))
                except (ReplayError, ValueError):
                    continue  # damage: the side keeps what it last knew (the gaps are said)
                side.set_keyframe(state.statuses, state.blackboard)

    def lines(self, dt_s: float) -> list[str]:
        if self.compared == 0:
            return []
        out = ["first difference of each kind, A / B:"]
        if self.truth_first is None:
            out.append("  truth: the same at every step")
        else:
            step, t_s, what = self.truth_first
            out.append(f"  truth at t={t_s:.2f}s (step {step}): {what[0].strip().removeprefix('truth ')}")
        for robot, comparison in self.comparisons.items():
            out += comparison.kind_lines(prefix=f"{robot} ")
        changes = sorted(((c, robot) for robot, comp in self.comparisons.items() for c in comp.decision_changes()),
                         key=lambda item: (item[0].first[0], item[1], item[0].key))
        limit = max(next(iter(self.comparisons.values())).max_changes if self.comparisons else MAX_CHANGES, 0)
        out.append(f"decision changes (A -> B): {len(changes)}")
        out += [f"  {robot} {change.text()}" for change, robot in changes[:limit]]
        if len(changes) > limit:
            out.append(f"  ... {len(changes) - limit} more (--max-changes N lists more)")
        t0, t1 = (self.first_step or 0) * dt_s, (self.last_step or 0) * dt_s
        out.append(f"steps that differ over t={t0:.2f}-{t1:.2f}s ({self.compared} steps compared): truth "
                   f"{self.truth_count} ({100.0 * self.truth_count / self.compared:.1f}%)")
        out += [f"  {robot}: {comparison.count_text()}" for robot, comparison in self.comparisons.items()]
        return out


def diff_logs(a: McapLog, b: McapLog, max_changes: int = MAX_CHANGES) -> list[str]:
    """[] when both runs are the same step by step; else what differs at the first step that
    differs (truth, and per robot: tree statuses, blackboard, command, reasons), then the first
    difference of each kind, the decision changes (the first `max_changes`) and the counts.
    Steps are matched by number: steps one log is missing (damage) are not compared, and said so."""
    a.require_node_data()
    b.require_node_data()
    notes: list[str] = []
    if a.robots != b.robots:
        return [f"the robots differ: {', '.join(a.robots)} / {', '.join(b.robots)}"]
    for robot in a.robots:
        notes += tree_notes(robot, a.tree(robot, 1), b.tree(robot, 1))
    kinds = _Kinds(a, b, max_changes)
    first: list[str] | None = None
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
        if data_a == data_b and a.format_version == b.format_version and kinds.can_skip():
            kinds.skip(step)
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
        kinds.compare(step, va, vb)
        if first is not None or (data_a == data_b and a.format_version == b.format_version):
            continue
        differences = step_differences(a.robots, va, vb)
        if not differences and a.format_version != b.format_version:
            continue  # the same values, written in two formats
        first = [f"first difference at step {step} (t={va.truth.t_s:.2f}s), A = {a.path} / B = {b.path}:"] + (
            differences or ["  the messages' bytes differ; their decoded values are the same"])
    for _ in it_a:  # to the end: the gaps after the last common step
        pass
    for _ in it_b:
        pass
    missing = _missing(a, gaps_a, b, gaps_b)
    length = [f"the runs differ in length: {a.last_step} / {b.last_step} steps"] if a.last_step != b.last_step else []
    if first is None:
        return notes + missing + length
    return notes + missing + first + kinds.lines(a.dt_s) + length


def _missing(a: McapLog, gaps_a: list[Gap], b: McapLog, gaps_b: list[Gap]) -> list[str]:
    return ([f"{a.path}: {g.text(a.dt_s)}; not compared" for g in gaps_a]
            + [f"{b.path}: {g.text(b.dt_s)}; not compared" for g in gaps_b])
