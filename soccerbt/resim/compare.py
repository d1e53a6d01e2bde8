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

``Comparison.tick(step, t_s, recorded, rerun)`` counts the ticks where each aspect differs,
keeps the lines of the first tick that differs, the first difference of each aspect with the node
it concerns (an aspect returns a ``Difference``: its text and that node), and the decision changes:
runs of consecutive ticks where a decision key holds one value in the log and another in the re-run
(``DecisionChange``); ``report_lines`` says it all. ``replay diff`` (``soccerbt.tools.replay.log_diff``)
compares two logs with the same aspects, one ``Comparison`` per robot, its sides named "A" and "B".
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from soccerbt.log import format as lf
from soccerbt.log.reader import StepView

__all__ = ["Side", "Comparison", "Difference", "DecisionChange", "ASPECTS", "DECISION_KEYS", "MAX_CHANGES",
           "is_decision_key", "step_differences", "truth_differences", "tree_notes", "blackboard_aspect",
           "channel_aspect"]

_NAMES = lf.STATUS_NAMES

DECISION_KEYS = ("decision", "kick_type")
_COMMAND_NAMES = ("vx", "vy", "vtheta", "head_pan", "head_tilt", "kick_dir", "kick_strength")
_SHOWN = 5  # nodes or keys named in one line
MAX_CHANGES = 20  # decision changes listed by default (--max-changes)
_BLACKBOARD_BUILTINS = frozenset({"Script", "SetBlackboard", "UnsetBlackboard"})  # actions that command nothing


def is_decision_key(key: str) -> bool:
    return key in DECISION_KEYS or "decision" in key


@dataclass
class Side:
    """One side of the comparison (the log, or the re-run): its tree's node paths by uid, the
    decision keys' values (and writers) after the latest tick, and this step's tick and channel
    messages. ``said`` is how the lines name it ("the log", "A"; empty: "the log" for the first
    side, "the re-run" for the second)."""

    name: str
    paths: list[str] = field(default_factory=list)      # uid - 1 -> path
    statuses: dict[int, int] = field(default_factory=dict)  # uid -> status code after the latest tick
    decisions: dict[str, Any] = field(default_factory=dict)
    tick: lf.TickRecord | None = None
    channels: dict[str, bytes] = field(default_factory=dict)  # kind -> this step's message
    said: str = ""
    kinds: list[str] = field(default_factory=list)       # uid - 1 -> (node kind, node ID)
    writers: dict[str, Any] = field(default_factory=dict)  # decision key -> its writer (node uid or adapter)

    def set_tree(self, tree: dict[str, Any]) -> None:
        self.paths = [row.get("path", row.get("name", "?")) for row in tree.get("nodes", [])]
        self.kinds = [f"{row.get('kind')}/{row.get('id')}" for row in tree.get("nodes", [])]

    def set_keyframe(self, statuses: Any, bb: dict[str, list[Any]]) -> None:
        """A keyframe: every node's status (uid -> code, or a list in uid order) and the whole
        blackboard (the decision keys' values and writers are kept)."""
        self.statuses = dict(statuses) if isinstance(statuses, dict) else dict(enumerate(statuses, 1))
        self.decisions = {k: v[0] for k, v in bb.items() if is_decision_key(k)}
        self.writers = {k: v[1] for k, v in bb.items() if is_decision_key(k) and len(v) > 1}

    def apply(self, rec: lf.TickRecord) -> None:
        """This step's tick (its blackboard changes decoded)."""
        self.tick = rec
        for uid, _prev, new in rec.transitions:
            self.statuses[uid] = new
        for key, (value, writer) in rec.blackboard.items():
            if is_decision_key(key):
                if writer == "removed":
                    self.decisions.pop(key, None)
                    self.writers.pop(key, None)
                else:
                    self.decisions[key] = value
                    self.writers[key] = writer

    def path(self, uid: int) -> str:
        return self.paths[uid - 1] if 0 < uid <= len(self.paths) else f"#{uid}"

    def uid_of(self, path: str) -> int | None:
        """The uid of the node at `path` (the first one), or None."""
        try:
            return self.paths.index(path) + 1
        except ValueError:
            return None

    def is_commanding_action(self, uid: int) -> bool:
        """An action node that may command the robot (not a blackboard built-in)."""
        if not 0 < uid <= len(self.kinds):
            return False
        kind, _sep, node_id = self.kinds[uid - 1].partition("/")
        return kind == "Action" and node_id not in _BLACKBOARD_BUILTINS


@dataclass(frozen=True)
class Difference:
    """How one aspect differs in one tick: the text, and the node it concerns ("node
    Main/decide #12", "written by node ... #12", "actions that ran ..."; None when no node does)."""

    text: str
    node: str | None = None


@dataclass
class DecisionChange:
    """A run of consecutive compared ticks in which decision `key` held `old` in the first side
    (the log, A) and `new` in the second (the re-run, B); `node` wrote it (as its first tick says)."""

    key: str
    old: Any
    new: Any
    node: str | None
    first: tuple[int, float, int]    # step, t_s, tick
    last: tuple[int, float, int]

    def text(self) -> str:
        (s0, t0, k0), (s1, t1, k1) = self.first, self.last
        when = f"t={t0:.2f}s (tick {k0})" if s0 == s1 else f"t={t0:.2f}-{t1:.2f}s (ticks {k0}-{k1})"
        by = f", {self.node}" if self.node else ""
        return f"{when} {self.key}: {_short_repr(self.old)} -> {_short_repr(self.new)}{by}"


Aspect = Callable[[Side, Side, bool], "str | Difference | None"]


def _said(log: Side, new: Side) -> tuple[str, str]:
    """How the lines name the two sides ("the log", "the re-run"; "A", "B")."""
    return log.said or "the log", new.said or "the re-run"


def _short(said: str) -> str:
    return said.removeprefix("the ")


def _node_text(path: str, log: Side, new: Side) -> str:
    """A node by path with its uid in each side ("node Main/decide #12"; "#12 / #13" when the
    trees number it differently)."""
    ua, ub = log.uid_of(path), new.uid_of(path)
    uids = [f"#{u}" for u in dict.fromkeys(u for u in (ua, ub) if u is not None)]
    return f"node {path} {' / '.join(uids)}".rstrip()


def _writer_text(writer: Any, side: Side) -> str | None:
    if isinstance(writer, int) and not isinstance(writer, bool):
        return f"written by node {side.path(writer)} #{writer}"
    if isinstance(writer, str) and writer:
        return f"written by the {writer} adapter"
    return None


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
    x, y = _said(log, new)
    parts = []
    if a.root != b.root:
        parts.append(f"root {lf.status_name(a.root)} in {x}, {lf.status_name(b.root)} in {y}")
    nodes = [p for p in dict.fromkeys([*ends_a, *ends_b]) if ends_a.get(p) != ends_b.get(p)]
    for p in nodes[:_SHOWN]:
        parts.append(f"{p} {ends_a.get(p, 'not ticked')} in {x}, {ends_b.get(p, 'not ticked')} in {y}")
    if len(nodes) > _SHOWN:
        parts.append(f"and {len(nodes) - _SHOWN} more nodes")
    if not parts:
        parts.append("the same end statuses, in another order or with other skipped or ticked nodes")
    # the node: the first whose part differs (the tree's order of the tick), else the root's
    node = _node_text(nodes[0], log, new) if nodes else (_node_text(log.path(1), log, new) if log.paths else None)
    return Difference("; ".join(parts), node)


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
    keys = _differing_decisions(log, new)
    x, y = _said(log, new)
    shown = [f"{k} {log.decisions.get(k)!r} in {x}, {new.decisions.get(k)!r} in {y}" for k in keys[:_SHOWN]]
    return Difference("; ".join(shown), _decision_writer(keys[0], log, new) if keys else None)


def _differing_decisions(log: Side, new: Side) -> list[str]:
    return [k for k in sorted(set(log.decisions) | set(new.decisions)) if log.decisions.get(k) != new.decisions.get(k)]


def _decision_writer(key: str, log: Side, new: Side) -> str | None:
    """Who wrote decision `key`: the second side's writer (the new tree's node), else the first's."""
    for side in (new, log):
        if key in side.decisions:
            text = _writer_text(side.writers.get(key), side)
            if text is not None:
                return text
    return None


def _commands(log: Side, new: Side, same_tree: bool) -> str | None:
    a, b = log.tick, new.tick
    if a is None or b is None or lf.same_command(a.command, b.command):
        return None
    x, y = _said(log, new)
    text = ", ".join(f"{n} {p:.4g} / {q:.4g}" for n, p, q in zip(_COMMAND_NAMES, a.command, b.command, strict=False)
                     if not lf.same_value(p, q)) + f" ({_short(x)} / {_short(y)})"
    # no node owns the command (the action nodes set it through the robot's context): name the
    # action nodes that ran in the tick, which built it
    ran_a, ran_b = _actions_ran(a, log), _actions_ran(b, new)
    node = (f"actions that ran (last first): {ran_a}" if ran_a == ran_b
            else f"actions that ran (last first): {ran_a} in {x}, {ran_b} in {y}")
    return Difference(text, node)


def _actions_ran(rec: lf.TickRecord, side: Side) -> str:
    skipped = set(rec.skipped)
    # the last action to run set the command last: it comes first
    order = [*(u for u, _p, _n in rec.transitions), *rec.ticked]
    uids = [u for u in reversed(list(dict.fromkeys(order)))
            if u not in skipped and side.is_commanding_action(u)]
    more = f" and {len(uids) - 3} more" if len(uids) > 3 else ""
    return ", ".join(f"{side.path(u)} #{u}" for u in uids[:3]) + more if uids else "none"


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
    x, y = _said(log, new)
    shown = [f"{p} {ra.get(p, '(none)')!r} in {x}, {rb.get(p, '(none)')!r} in {y}" for p in nodes[:_SHOWN]]
    if len(nodes) > _SHOWN:
        shown.append(f"and {len(nodes) - _SHOWN} more nodes")
    return Difference("; ".join(shown), _node_text(nodes[0], log, new))


def blackboard_aspect(log: Side, new: Side, same_tree: bool) -> Difference | None:
    """The tick's blackboard writes other than the decision keys' (value and writer), by key
    (``replay diff``'s aspect: a re-run's adapters write what the log's did)."""
    a, b = log.tick, new.tick
    if a is None or b is None:
        return None
    keys = [k for k in sorted(set(a.blackboard) | set(b.blackboard))
            if not is_decision_key(k) and a.blackboard.get(k) != b.blackboard.get(k)]
    if not keys:
        return None
    x, y = _said(log, new)
    shown = [f"{k} {_written(a.blackboard.get(k))} in {x}, {_written(b.blackboard.get(k))} in {y}"
             for k in keys[:_SHOWN]]
    if len(keys) > _SHOWN:
        shown.append(f"and {len(keys) - _SHOWN} more keys")
    first = b.blackboard.get(keys[0]) or a.blackboard.get(keys[0])
    side = new if keys[0] in b.blackboard else log
    return Difference("; ".join(shown), f"key {keys[0]} " + (_writer_text(first[1], side) or "") if first else None)


def _written(change: Any) -> str:
    if change is None:
        return "not written"
    value, writer = change
    if writer == "removed":
        return "removed"
    return f"{_short_repr(value)} by {writer if isinstance(writer, str) else f'#{writer}'}"


def _short_repr(value: Any) -> str:
    """A value as the lines show it: repr, cut at 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


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
        x, y = _said(log, new)
        return f"{shown(a)} in {x}, {shown(b)} in {y}"
    return compare


@dataclass
class Comparison:
    """The counts of differing ticks per aspect over the range, the first differing tick, the
    first difference of each aspect and the decision changes (all of them; the report lists the
    first ``max_changes``)."""

    same_tree: bool = True
    compared: int = 0
    first_step: int | None = None
    last_step: int | None = None
    counts: dict[str, int] = field(default_factory=dict)
    first: tuple[int, float, int, list[str]] | None = None   # step, t, tick, lines
    extra: list[str] = field(default_factory=list)           # channel kinds compared
    aspects: list[tuple[str, Aspect]] | None = None          # None: ASPECTS
    max_changes: int = MAX_CHANGES                           # decision changes the report lists
    firsts: dict[str, tuple[int, float, int, Difference]] = field(default_factory=dict)  # aspect -> step, t, tick
    changes: list[DecisionChange] = field(default_factory=list)   # closed runs, in the order they closed
    _open: dict[str, DecisionChange] = field(default_factory=dict)  # key -> the run the latest tick extends

    def names(self) -> list[str]:
        """The aspects compared, in report order (the tick's, then the channels)."""
        return [name for name, _a in (self.aspects if self.aspects is not None else ASPECTS)] + self.extra

    def tick(self, step: int, t_s: float, log: Side, new: Side) -> None:
        self.compared += 1
        if self.first_step is None:
            self.first_step = step
        self.last_step = step
        tick = log.tick.tick if log.tick is not None else 0
        aspects = (self.aspects if self.aspects is not None else ASPECTS) + [
            (kind, channel_aspect(kind)) for kind in self.extra]
        lines = []
        for name, aspect in aspects:
            what = aspect(log, new, self.same_tree)
            if what is None:
                continue
            found = what if isinstance(what, Difference) else Difference(what)
            self.counts[name] = self.counts.get(name, 0) + 1
            lines.append(f"  {name}: {found.text}")
            if name not in self.firsts:
                self.firsts[name] = (step, t_s, tick, found)
        if lines and self.first is None:
            self.first = (step, t_s, tick, lines)
        self._follow_decisions(step, t_s, tick, log, new)

    def same(self, step: int) -> None:
        """A tick both sides are known to agree on in every aspect, decisions included (``replay
        diff``: a step whose bytes are the same in both logs, not decoded)."""
        self.compared += 1
        if self.first_step is None:
            self.first_step = step
        self.last_step = step
        self._close_runs(set())

    def _follow_decisions(self, step: int, t_s: float, tick: int, log: Side, new: Side) -> None:
        """Extend or start a run for each decision key that differs; close the others."""
        keys = _differing_decisions(log, new)
        where = (step, t_s, tick)
        for key in keys:
            old, value = log.decisions.get(key), new.decisions.get(key)
            run = self._open.get(key)
            if run is not None and run.last[0] == step - 1 and run.old == old and run.new == value:
                run.last = where
                continue
            if run is not None:
                self.changes.append(run)
            self._open[key] = DecisionChange(key, old, value, _decision_writer(key, log, new), where, where)
        self._close_runs(set(keys))

    def _close_runs(self, keep: set[str]) -> None:
        for key in [k for k in self._open if k not in keep]:
            self.changes.append(self._open.pop(key))

    def decision_changes(self) -> list[DecisionChange]:
        """Every decision change, in time order (the runs still open included)."""
        return sorted([*self.changes, *self._open.values()], key=lambda c: (c.first[0], c.key))

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
        out.append(f"{robot}: ticks that differ over {span}: {self.count_text()}")
        out.append(f"{robot}: first difference of each kind, log / re-run:")
        out += self.kind_lines()
        out.append(f"{robot}: decision changes (log -> re-run): {len(self.decision_changes())}")
        out += self.change_lines()
        return out

    def count_text(self) -> str:
        """"statuses 18 (60.0%), decisions 0 (0.0%), ...": the ticks each aspect differs in."""
        return ", ".join(
            f"{name} {self.counts.get(name, 0)} ({100.0 * self.counts.get(name, 0) / max(self.compared, 1):.1f}%)"
            for name in self.names()
        )

    def kind_lines(self, prefix: str = "") -> list[str]:
        """A line per aspect: where it first differs (time, step, tick, the node) and how, or
        that it never does; `prefix` goes before the aspect's name (``diff``: the robot)."""
        out = []
        for name in self.names():
            first = self.firsts.get(name)
            if first is not None:
                step, t_s, tick, found = first
                node = f", {found.node}" if found.node else ""
                out.append(f"  {prefix}{name} at t={t_s:.2f}s (step {step}, tick {tick}){node}: {found.text}")
        same = [name for name in self.names() if name not in self.firsts]
        if same:  # one line for the kinds that never differ: a robot the change did not touch reads short
            out.append(f"  {prefix}{', '.join(same)}: the same at every tick")
        return out

    def change_lines(self, prefix: str = "") -> list[str]:
        """The first ``max_changes`` decision changes, a line each, and "... N more"."""
        changes = self.decision_changes()
        shown = changes[:max(self.max_changes, 0)]
        out = [f"  {prefix}{change.text()}" for change in shown]
        if len(changes) > len(shown):
            out.append(f"  ... {len(changes) - len(shown)} more (--max-changes N lists more)")
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
    out = truth_differences(robots, va, vb, labels)
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


def truth_differences(robots: list[str], va: StepView, vb: StepView, labels: tuple[str, str] = ("A", "B")) -> list[str]:
    """What differs in the truth of two decoded steps: the ball, then each robot's pose."""
    a, b = labels
    out: list[str] = []
    if va.truth != vb.truth:
        out.append(f"  truth ball (x, y, vx, vy): {a} {_fmt(va.truth.ball)} / {b} {_fmt(vb.truth.ball)}")
        for robot, ra, rb in zip(robots, va.truth.robots, vb.truth.robots, strict=False):
            if ra != rb:
                out.append(f"  truth {robot} (x, y, theta): {a} {_fmt(ra[:3])} / {b} {_fmt(rb[:3])}")
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

