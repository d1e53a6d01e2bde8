"""What ``--rerun`` compares: a robot's recorded ticks against a fresh brain's, tick by tick.

A comparison is a list of aspects (``ASPECTS``), each a name and a function that says, for one
tick, whether the log and the re-run differ there and how (a line): ``statuses`` (the root
status, every transition, the skipped and the ticked nodes, matched by node path when the trees
differ in structure), ``decisions`` (the blackboard's decision keys after the tick:
``decision``, ``kick_type`` and any key whose name holds "decision"), ``reasons`` (the reasons
the decision nodes gave in the tick, by node path) and ``commands`` (the command's seven
values, f32 as recorded). Per-robot channels the recorder writes besides the
tree and the keyframe (``/robots/NAME/X``) are compared too, message by message at each step, under the
aspect named by the channel (``channel_aspect``); a new aspect of the tick itself is one more
entry in ``ASPECTS``.

``Comparison.tick(step, t_s, recorded, rerun)`` counts the ticks where each aspect differs and
keeps the lines of the first tick that differs; ``report_lines`` says it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from soccerbt.log import format as lf
from soccerbt.log.reader import StepView

__all__ = ["Side", "Comparison", "ASPECTS", "DECISION_KEYS", "is_decision_key", "step_differences", "tree_notes"]

_NAMES = lf.STATUS_NAMES

DECISION_KEYS = ("decision", "kick_type")
_COMMAND_NAMES = ("vx", "vy", "vtheta", "head_pan", "head_tilt", "kick_dir", "kick_strength")
_SHOWN = 5  # nodes or keys named in one line


def is_decision_key(key: str) -> bool:
    return key in DECISION_KEYS or "decision" in key


@dataclass
class Side:
    """One side of the comparison (the log, or the re-run): its tree's node paths by uid, the
    decision keys' values after the latest tick, and this step's tick and channel messages."""

    name: str
    paths: list[str] = field(default_factory=list)      # uid - 1 -> path
    statuses: dict[int, int] = field(default_factory=dict)  # uid -> status code after the latest tick
    decisions: dict[str, Any] = field(default_factory=dict)
    tick: lf.TickRecord | None = None
    channels: dict[str, bytes] = field(default_factory=dict)  # kind -> this step's message

    def set_tree(self, tree: dict[str, Any]) -> None:
        self.paths = [row.get("path", row.get("name", "?")) for row in tree.get("nodes", [])]

    def set_keyframe(self, statuses: Any, bb: dict[str, list[Any]]) -> None:
        """A keyframe: every node's status (uid -> code, or a list in uid order) and the whole
        blackboard (the decision keys' values are kept)."""
        self.statuses = dict(statuses) if isinstance(statuses, dict) else dict(enumerate(statuses, 1))
        self.decisions = {k: v[0] for k, v in bb.items() if is_decision_key(k)}

    def apply(self, rec: lf.TickRecord) -> None:
        """This step's tick (its blackboard changes decoded)."""
        self.tick = rec
        for uid, _prev, new in rec.transitions:
            self.statuses[uid] = new
        for key, (value, writer) in rec.blackboard.items():
            if is_decision_key(key):
                if writer == "removed":
                    self.decisions.pop(key, None)
                else:
                    self.decisions[key] = value

    def path(self, uid: int) -> str:
        return self.paths[uid - 1] if 0 < uid <= len(self.paths) else f"#{uid}"


Aspect = Callable[[Side, Side, bool], "str | None"]


def _statuses(log: Side, new: Side, same_tree: bool) -> str | None:
    a, b = log.tick, new.tick
    if a is None or b is None:
        return None
    if same_tree:
        if a.root == b.root and a.transitions == b.transitions and a.skipped == b.skipped and a.ticked == b.ticked:
            return None
        ends_a, ends_b = _ends(a, log), _ends(b, new)
    else:
        pa, pb = log.path, new.path
        if (
            a.root == b.root
            and [(pa(u), p, n) for u, p, n in a.transitions] == [(pb(u), p, n) for u, p, n in b.transitions]
            and [pa(u) for u in a.skipped] == [pb(u) for u in b.skipped]
            and [pa(u) for u in a.ticked] == [pb(u) for u in b.ticked]
        ):
            return None
        ends_a, ends_b = _ends(a, log), _ends(b, new)
    parts = []
    if a.root != b.root:
        parts.append(f"root {lf.status_name(a.root)} in the log, {lf.status_name(b.root)} in the re-run")
    nodes = [p for p in dict.fromkeys([*ends_a, *ends_b]) if ends_a.get(p) != ends_b.get(p)]
    for p in nodes[:_SHOWN]:
        parts.append(f"{p} {ends_a.get(p, 'not ticked')} in the log, {ends_b.get(p, 'not ticked')} in the re-run")
    if len(nodes) > _SHOWN:
        parts.append(f"and {len(nodes) - _SHOWN} more nodes")
    if not parts:
        parts.append("the same end statuses, in another order or with other skipped or ticked nodes")
    return "; ".join(parts)


def _ends(rec: lf.TickRecord, side: Side) -> dict[str, str]:
    """Each node's part in a tick, by path: the status it reached (the last one before any
    reset), SKIPPED, or for a node ticked without a transition the status it kept."""
    out: dict[str, str] = {}
    path = side.path
    for uid in rec.ticked:
        out[path(uid)] = _name(side.statuses.get(uid, 0))
    for uid in rec.skipped:
        out[path(uid)] = "SKIPPED"
    reached: dict[int, int] = {}
    for uid, _prev, new in rec.transitions:
        if new != 0 or uid not in reached:
            reached[uid] = new
    for uid, code in reached.items():
        out[path(uid)] = _name(code)
    return out


def _name(code: int) -> str:
    return lf.STATUS_NAMES[code] if 0 <= code < len(lf.STATUS_NAMES) else str(code)


def _decisions(log: Side, new: Side, same_tree: bool) -> str | None:
    if log.decisions == new.decisions:
        return None
    keys = [k for k in sorted(set(log.decisions) | set(new.decisions)) if log.decisions.get(k) != new.decisions.get(k)]
    shown = [f"{k} {log.decisions.get(k)!r} in the log, {new.decisions.get(k)!r} in the re-run" for k in keys[:_SHOWN]]
    return "; ".join(shown)


def _commands(log: Side, new: Side, same_tree: bool) -> str | None:
    a, b = log.tick, new.tick
    if a is None or b is None or lf.same_command(a.command, b.command):
        return None
    return ", ".join(f"{n} {x:.4g} / {y:.4g}" for n, x, y in zip(_COMMAND_NAMES, a.command, b.command, strict=False)
                     if not lf.same_value(x, y)) + " (log / re-run)"


def _reasons(log: Side, new: Side, same_tree: bool) -> str | None:
    """The reasons the decision nodes gave in this tick (TreeNode.set_reason), by node path."""
    a, b = log.tick, new.tick
    if a is None or b is None:
        return None
    ra = {log.path(uid): text for uid, text in a.reasons.items()}
    rb = {new.path(uid): text for uid, text in b.reasons.items()}
    if ra == rb:
        return None
    nodes = [p for p in dict.fromkeys([*ra, *rb]) if ra.get(p) != rb.get(p)]
    shown = [f"{p} {ra.get(p, '(none)')!r} in the log, {rb.get(p, '(none)')!r} in the re-run" for p in nodes[:_SHOWN]]
    if len(nodes) > _SHOWN:
        shown.append(f"and {len(nodes) - _SHOWN} more nodes")
    return "; ".join(shown)


# the aspects of a tick, in the order they are reported; a new one is one more entry
ASPECTS: list[tuple[str, Aspect]] = [("statuses", _statuses), ("decisions", _decisions), ("reasons", _reasons),
                                     ("commands", _commands)]


def channel_aspect(kind: str) -> Aspect:
    """A per-robot channel (``/robots/NAME/<kind>``) compared message by message at each step."""
    def compare(log: Side, new: Side, same_tree: bool) -> str | None:
        a, b = log.channels.get(kind), new.channels.get(kind)
        if a == b:
            return None
        def shown(d: bytes | None) -> str:
            if d is None:
                return "none"
            text = d.decode("utf-8", "replace")
            return text if len(text) <= 80 else text[:77] + "..."
        return f"{shown(a)} in the log, {shown(b)} in the re-run"
    return compare


@dataclass
class Comparison:
    """The counts of differing ticks per aspect over the range, and the first differing tick."""

    same_tree: bool = True
    compared: int = 0
    first_step: int | None = None
    last_step: int | None = None
    counts: dict[str, int] = field(default_factory=dict)
    first: tuple[int, float, int, list[str]] | None = None   # step, t, tick, lines
    extra: list[str] = field(default_factory=list)           # channel kinds compared

    def tick(self, step: int, t_s: float, log: Side, new: Side) -> None:
        self.compared += 1
        if self.first_step is None:
            self.first_step = step
        self.last_step = step
        aspects = ASPECTS + [(kind, channel_aspect(kind)) for kind in self.extra]
        lines = []
        for name, aspect in aspects:
            what = aspect(log, new, self.same_tree)
            if what is not None:
                self.counts[name] = self.counts.get(name, 0) + 1
                lines.append(f"  {name}: {what}")
        if lines and self.first is None:
            self.first = (step, t_s, log.tick.tick if log.tick is not None else 0, lines)

    @property
    def differs(self) -> bool:
        return self.first is not None

    def report_lines(self, robot: str, dt_s: float) -> list[str]:
        if self.compared == 0:
            return [f"{robot}: no tick in the range: nothing compared"]
        t0, t1 = (self.first_step or 0) * dt_s, (self.last_step or 0) * dt_s
        span = f"t={t0:.2f}-{t1:.2f}s ({self.compared} ticks)"
        if self.first is None:
            return [
                f"{robot}: the re-run's statuses, decisions, reasons and commands are the log's at every tick of {span}"
            ]
        step, t_s, tick, lines = self.first
        out = [f"{robot}: first difference at t={t_s:.2f}s (step {step}, tick {tick}), log / re-run:", *lines]
        names = [name for name, _a in ASPECTS] + self.extra
        counts = ", ".join(
            f"{name} {self.counts.get(name, 0)} ({100.0 * self.counts.get(name, 0) / self.compared:.1f}%)"
            for name in names
        )
        out.append(f"{robot}: ticks that differ over {span}: {counts}")
        return out


# --- two decoded steps, as diff and --verify print them ------------------------------------

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
        for robot, ra, rb in zip(robots, va.truth.robots, vb.truth.robots, strict=False):
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


def _fmt(values: Any) -> str:
    return "(" + ", ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in values) + ")"


def _trans(rec: lf.TickRecord) -> str:
    return " ".join(f"#{u}:{_NAMES[p][0]}>{_NAMES[n][0]}" for u, p, n in rec.transitions[:8]) + (
        " ..." if len(rec.transitions) > 8 else "")


def tree_notes(robot: str, ta: dict[str, Any], tb: dict[str, Any]) -> list[str]:
    if ta["nodes"] == tb["nodes"]:
        return []
    changed = [f"#{x['uid']} {x['name']}" for x, y in zip(ta["nodes"], tb["nodes"], strict=False) if x != y]
    return [f"note: {robot}'s trees differ ({', '.join(changed[:5]) or 'node count'})"]

