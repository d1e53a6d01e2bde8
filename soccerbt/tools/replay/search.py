"""Exact node references and ``--find`` conditions over a replay log.

A node is referred to (``--node``, ``--find``, the replay viewer's search) by:

- ``#UID``: that node (BT.CPP's uid, as ``--tree`` prints it);
- its full path (``AttackBall/KickBall``, ``inner/Script::4``): that node;
- its name, or (for ``--node``) its registration ID or the end of its path after a ``/``: every
  node that has it. A name several nodes share is ambiguous: it stands for all of them, and the
  tools say so (``ambiguity_note``).

A ``--find`` condition is ``ROBOT: EXPRESSION`` in BT.CPP's script language over the robot's
blackboard at each step, where a node reference stands for the node's status in that step
(IDLE 0, RUNNING 1, SUCCESS 2, FAILURE 3, SKIPPED 4; those names are defined): the status its
last transition of the step reached other than the reset to IDLE, SKIPPED when the step skipped
it, else the status it kept. A name several nodes share holds where the expression holds for any
of them. ``REF.reason`` is the reason the node gave in that step (``''`` when it gave none) and
``REF.reason ~ 'PATTERN'`` holds where that reason matches the regular expression PATTERN
(Python's ``re.search``: a plain word matches where the reason contains it), e.g.
``blue2: StrikerDecision.reason ~ 'ball_x .* >= reach'``.
"""
from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from soccerbt.blackboard import Blackboard, BlackboardError
from soccerbt.blackboard.schema import SCHEMA
from soccerbt.blackboard.script_compiler import ScriptSyntaxError, compile_script
from soccerbt.log import format as lf
from soccerbt.log.format import ReplayError
from soccerbt.log.reader import Gap, McapLog, RobotState, apply_step
from soccerbt.tools.replay.truth import FIND_NAMES, RobotTruth, TruthFrames, find_variable

__all__ = ["resolve_nodes", "ambiguity_note", "parse_condition", "Condition", "compile_condition", "find_ranges",
           "MAX_COMBINATIONS", "ConditionError"]

MAX_COMBINATIONS = 256   # an expression over shared names is tried for at most this many choices
_SKIPPED = lf.STATUS_CODES["SKIPPED"]
_NOTE_NODES = 4          # an ambiguity note lists this many nodes


def resolve_nodes(tree: dict[str, Any], ref: str, *, by_id: bool = True) -> list[dict[str, Any]]:
    """The rows of ``tree`` that ``ref`` names (see the module docstring), in uid order: one for
    ``#UID`` or a full path, every node of that name (with ``by_id``: or registration ID, or path
    ending in ``/ref``) otherwise; [] when none."""
    rows = tree["nodes"]
    ref = ref.strip()
    if ref.startswith("#") and ref[1:].isdigit():
        uid = int(ref[1:])
        return [row for row in rows if row["uid"] == uid]
    exact = [row for row in rows if row["path"] == ref]
    if exact:
        return exact[:1]
    if by_id:
        tail = "/" + ref
        return [row for row in rows if ref in (row["name"], row["id"]) or row["path"].endswith(tail)]
    return [row for row in rows if row["name"] == ref]


def ambiguity_note(robot: str, ref: str, rows: list[dict[str, Any]]) -> str | None:
    """"KickBall names 3 nodes of blue2's tree (#100 AttackBall/KickBall, ...): any of them
    counts; pick one with #UID or its path" (None when ``rows`` is one node or none)."""
    if len(rows) < 2:
        return None
    shown = ", ".join(f"#{row['uid']} {row['path']}" for row in rows[:_NOTE_NODES])
    more = f" and {len(rows) - _NOTE_NODES} more" if len(rows) > _NOTE_NODES else ""
    return (f"{ref} names {len(rows)} nodes of {robot}'s tree ({shown}{more}): any of them counts; "
            f"pick one with #UID or its path")


def parse_condition(text: str) -> tuple[str, str]:
    """"blue2: decision == 'kick'" -> ("blue2", "decision == 'kick'"); a path's "::" is no
    separator."""
    cut = re.search(r"(?<!:):(?!:)", text)
    if cut is None or not text[:cut.start()].strip() or not text[cut.end():].strip():
        raise ValueError(f"a condition reads 'ROBOT: EXPRESSION', got {text!r}")
    return text[:cut.start()].strip(), text[cut.end():].strip()


# a node reference in an expression: #uid, or a name or path (letters, digits, _, /, ::)
_REF = r"#\d+|[A-Za-z_@][\w]*(?:(?:/|::)[\w]+)*(?:::\d+)?"
_TOKENS = re.compile(rf"'[^']*'|(?P<ref>{_REF})(?P<reason>\s*\.\s*reason\b(?:\s*~\s*'(?P<pattern>[^']*)')?)?")
# an assignment of the script language: = := += -= *= /= (a condition only compares)
_ASSIGNMENT = re.compile(r":=|[+\-*/]=|(?<![=!<>])=(?!=)")


@dataclass
class _Slot:
    """One node reference of an expression: the variable standing for it and its nodes."""

    var: str
    ref: str
    uids: list[int]
    kind: str                         # "status", "reason" (the text) or "match" (a pattern)
    pattern: re.Pattern[str] | None = None


@dataclass
class Condition:
    """A compiled ``--find`` condition for one robot's tree (``compile_condition``)."""

    robot: str
    expression: str                   # as given
    script: Any                       # the compiled script, over the slots' variables
    slots: list[_Slot] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # ambiguity notes
    uses_truth: bool = False          # reads truth.* (truth.FIND_NAMES)
    matched: dict[str, int] = field(default_factory=dict)  # after holds(): a shared name -> the uid that held

    def holds(self, bb: Any, state: RobotState, reasons: dict[int, str], truth: RobotTruth | None = None) -> bool:
        """Whether the condition holds on ``bb`` (the robot's blackboard, already set) in the
        step of ``state``; ``reasons``: the reasons given in that step; ``truth``: the truth
        there, when the condition reads it (``uses_truth``)."""
        if self.uses_truth:
            if truth is None:
                return False
            for var, value in truth.find_values().items():
                _put(bb, var, value)
        skipped = state.skipped
        last, statuses = state.last_transition, state.statuses
        choices: list[tuple[_Slot, list[Any]]] = []
        matched = self.matched
        matched.clear()
        for slot in self.slots:
            values: list[Any]
            if slot.kind == "status":
                values = [_SKIPPED if uid in skipped else last.get(uid, statuses.get(uid, 0)) for uid in slot.uids]
            elif slot.kind == "reason":
                given = next((u for u in slot.uids if u in reasons), None)
                values = [reasons[given] if given is not None else ""]
                if given is not None and len(slot.uids) > 1:
                    matched[slot.ref] = given
            else:
                pattern = slot.pattern
                assert pattern is not None  # a "match" slot has its compiled pattern
                hit = next((u for u in slot.uids if u in reasons and pattern.search(reasons[u]) is not None), None)
                values = [hit is not None]
                if hit is not None and len(slot.uids) > 1:
                    matched[slot.ref] = hit
            if len(values) == 1:
                _put(bb, slot.var, values[0])
            else:
                choices.append((slot, values))
        if not choices:
            return _evaluate(self.script, bb)
        indices = [range(len(values)) for _slot, values in choices]
        for combo in itertools.islice(itertools.product(*indices), MAX_COMBINATIONS):
            for (slot, values), k in zip(choices, combo, strict=True):
                _put(bb, slot.var, values[k])
            if _evaluate(self.script, bb):
                for (slot, _values), k in zip(choices, combo, strict=True):
                    matched[slot.ref] = slot.uids[k]
                return True
        return False


def _evaluate(script: Any, bb: Any) -> bool:
    try:
        return bool(script.evaluate_bool(bb))
    except Exception:  # noqa: BLE001 - a key not yet written, a type the script refuses
        return False


def compile_condition(robot: str, expression: str, tree: dict[str, Any],
                      keys: Collection[str] | None = None) -> Condition:
    """Compile ``expression`` against ``robot``'s ``tree``: node references become variables
    (see the module docstring); ValueError for a bad expression, an unknown ``#UID``, path or
    ``.reason`` node, or names sharing too many nodes. With ``keys`` (the blackboard keys the
    robot has), a name that is neither a node, a key, a status nor true/false is refused too,
    with the nearest names, and so is an assignment (``=`` where ``==`` was meant)."""
    slots: dict[tuple[str, str, str], _Slot] = {}
    notes: list[str] = []
    paths = {row["path"] for row in tree["nodes"]}
    names = {row["name"] for row in tree["nodes"]}
    assignment = _ASSIGNMENT.search(re.sub(r"'[^']*'", "''", expression))
    if assignment is not None:
        raise ConditionError(f"bad condition {expression!r}: {assignment.group(0)!r} assigns; a condition compares "
                             "(==, !=, <, >, <=, >=)", assignment.group(0), assignment.start())
    known = None if keys is None else {*keys, *lf.STATUS_CODES, "true", "false"}
    expression_in = expression
    expression, uses_truth = _truth_names(expression)
    if known is not None and uses_truth:
        known |= {find_variable(name) for name in FIND_NAMES}

    def slot_for(ref: str, kind: str, pattern: str | None) -> str | None:
        explicit = ref.startswith("#") or ref in paths
        if kind == "status" and not explicit and ref not in names:
            return None  # a blackboard key (or an enum name): left as written
        rows = resolve_nodes(tree, ref, by_id=False)
        if not rows:
            raise ConditionError(f"{robot}'s tree has no node {ref!r}", ref)
        key = (ref, kind, pattern or "")
        if key not in slots:
            compiled = None
            if pattern is not None:
                try:
                    compiled = re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"bad pattern {pattern!r} after {ref}.reason ~: {exc}") from None
            slots[key] = _Slot(f"_ref{len(slots)}_", ref, [row["uid"] for row in rows], kind, compiled)
            note = ambiguity_note(robot, ref, rows)
            if note is not None and note not in notes:
                notes.append(note)
        return slots[key].var

    def replace(m: re.Match[str]) -> str:
        ref = m.group("ref")
        if ref is None:
            return m.group(0)  # a string literal
        if m.group("reason"):
            pattern = m.group("pattern")
            return slot_for(ref, "reason" if pattern is None else "match", pattern) or m.group(0)
        if ref.startswith("#") or ref in paths or ref in names:
            return slot_for(ref, "status", None) or ref
        if known is not None and ref.lstrip("@") not in known:
            near = difflib.get_close_matches(ref.lstrip("@"), sorted(known | names), n=3, cutoff=0.7)
            hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
            raise ConditionError(f"{robot} has no node and no blackboard key {ref!r}{hint}", ref)
        return ref

    rewritten = _TOKENS.sub(replace, expression)
    sizes = [len(s.uids) for s in slots.values() if s.kind == "status" and len(s.uids) > 1]
    total = 1
    for n in sizes:
        total *= n
    if total > MAX_COMBINATIONS:
        raise ValueError(f"the names of {expression!r} share {total} combinations of nodes (at most "
                         f"{MAX_COMBINATIONS}): pick nodes with #UID or their paths")
    try:
        script = compile_script(rewritten, dict(lf.STATUS_CODES))
    except ScriptSyntaxError as exc:
        raise ValueError(f"bad condition {expression_in!r}: {exc}") from None
    return Condition(robot, expression_in, script, list(slots.values()), notes, uses_truth)


_TRUTH = re.compile(r"'[^']*'|\btruth\.[A-Za-z_][\w.]*")


def _truth_names(expression: str) -> tuple[str, bool]:
    """``expression`` with each ``truth.NAME`` replaced by its variable, and whether it has one;
    ValueError for a truth name that is none of ``FIND_NAMES`` (with the nearest)."""
    used = False

    def replace(m: re.Match[str]) -> str:
        nonlocal used
        name = m.group(0)
        if name.startswith("'"):
            return name
        if name not in FIND_NAMES:
            near = difflib.get_close_matches(name, FIND_NAMES, n=2, cutoff=0.6)
            hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
            raise ConditionError(f"no truth {name!r} (truth names: {', '.join(FIND_NAMES)}){hint}", name)
        used = True
        return find_variable(name)

    return _TRUTH.sub(replace, expression), used


class ConditionError(ValueError):
    """A ``--find`` condition that cannot match; ``token`` (when known) is what is wrong in it, at
    ``offset`` in the expression (else its first occurrence), so that ``located`` can point at it."""

    def __init__(self, message: str, token: str | None = None, offset: int | None = None) -> None:
        super().__init__(message)
        self.token = token
        self.offset = offset

    def located(self, condition: str) -> ConditionError:
        """The same error saying where in ``condition`` (as the user wrote it) the token is: its
        column, then the condition with a caret under it."""
        if not self.token:
            return self
        _robot, sep, expr = condition.partition(":")
        start = len(condition) - len(expr.lstrip()) if sep else 0  # where the expression starts
        at = start + self.offset if self.offset is not None else condition.find(self.token, start)
        if at < 0:
            return self
        return ConditionError(f"column {at + 1}: {self}\n  {condition}\n  {' ' * at}^", self.token, self.offset)


_PORT_KEY = re.compile(r"\{@?(\w+)\}")
_SCRIPT_KEY = re.compile(r"@?([A-Za-z_]\w*)\s*(?::=|[+\-*/]?=(?!=))")


def tree_keys(tree: dict[str, Any]) -> set[str]:
    """The blackboard keys a tree's nodes name: ``{key}`` in a port, and what a script assigns."""
    keys: set[str] = set()
    for row in tree["nodes"]:
        for field_values in (row.get("ports") or {}, row.get("conditions") or {}):
            for value in field_values.values():
                if isinstance(value, str):
                    keys.update(_PORT_KEY.findall(value))
                    keys.update(_SCRIPT_KEY.findall(value))
    return keys


def _put(bb: Any, key: str, value: Any) -> None:
    """Set an entry of find's blackboard; a value of another type than before (a log's values
    are data) takes the entry over instead of raising."""
    try:
        bb.set(key, value)
    except BlackboardError:
        bb.unset(key)
        try:
            bb.set(key, value)
        except BlackboardError:
            pass


def find_ranges(log: McapLog, condition: str, notes: list[str] | None = None,
                which: list[str] | None = None) -> list[tuple[float, float, int, int]]:
    """The time ranges (first t, last t, first tick, last tick) where the condition holds;
    ``notes`` (when given) receives what the tools say about it (ambiguous names), ``which``
    (when given) for each range the nodes a name several nodes share stood for there
    ("KickBall: #100 AttackBall/KickBall"; "" when the condition names none such).

    A range never spans missing steps (``log.gaps``): it ends before them, and the condition is
    looked at again only from the next keyframe after them (or the next tree load), where the
    robot's state is known again. After a hot reload the condition is compiled again against the
    new tree."""
    log.require_node_data()
    robot, expr = parse_condition(condition)
    log.check_robot(robot)
    every = log.keyframe_steps
    state: RobotState | None = log.robot_state(robot, log.first_step - 1)
    # what the robot's blackboard holds, every schema key, and what its tree's ports and scripts name
    keys = {*state.blackboard, *SCHEMA, *tree_keys(state.tree)}
    try:
        compiled = compile_condition(robot, expr, state.tree, keys)
    except ConditionError as exc:
        raise exc.located(condition) from None
    tree_id = id(state.tree)
    if notes is not None:
        notes.extend(compiled.notes)
    frames = TruthFrames(log)
    if compiled.uses_truth and not frames.available:
        raise ValueError(frames.note(robot))
    bb = Blackboard()
    ranges: list[tuple[float, float, int, int]] = []
    open_range: list[Any] | None = None
    used: dict[str, dict[int, dict[str, Any]]] = {}   # shared name -> uid that held -> its tree

    def close(span: list[Any], nodes: dict[str, dict[int, dict[str, Any]]]) -> None:
        ranges.append(tuple(span))  # type: ignore[arg-type]
        if which is not None:
            which.append(_which_text(nodes))

    loads = {ld["step"]: ld["load"] for ld in log.loads(robot)}
    gaps: list[Gap] = []
    for view in log.steps(on_gap=gaps.append):
        if gaps:  # steps missing before this one: close the range, forget the state
            gaps.clear()
            if open_range is not None:
                close(open_range, used)
                open_range = None
            state = None
        if view.step in loads or (state is None and (view.step - 1) % every == 0):
            try:  # a load's keyframe is the step before it; after a gap, the periodic keyframes
                state = log.robot_state(robot, view.step, max_replay=1)
            except ReplayError:
                state = None
            if state is not None and id(state.tree) != tree_id:
                keys |= {*state.blackboard, *tree_keys(state.tree)}
                compiled = compile_condition(robot, expr, state.tree, keys)
                tree_id = id(state.tree)
                if notes is not None:
                    notes.extend(n for n in compiled.notes if n not in notes)
        elif state is not None:
            apply_step(state, view)
        if state is None:
            continue
        try:
            for key, (value, _w) in state.blackboard.items():
                bb.set(key, value if not isinstance(value, (list, dict)) else str(value))
        except BlackboardError:  # a value of another type than before: the entries take it over
            for key, (value, _w) in state.blackboard.items():
                _put(bb, key, value if not isinstance(value, (list, dict)) else str(value))
        rec = view.ticks[robot]
        truth = frames.of(robot, view, state.blackboard) if compiled.uses_truth else None
        holds = compiled.holds(bb, state, rec.reasons, truth)
        if holds:
            if open_range is None:
                open_range = [view.truth.t_s, view.truth.t_s, rec.tick, rec.tick]
                used = {}
            else:
                open_range[1], open_range[3] = view.truth.t_s, rec.tick
            for ref, uid in compiled.matched.items():
                used.setdefault(ref, {})[uid] = state.tree
        elif open_range is not None:
            close(open_range, used)
            open_range = None
    if open_range is not None:
        close(open_range, used)
    return ranges


def _which_text(nodes: dict[str, dict[int, dict[str, Any]]]) -> str:
    """"KickBall: #100 AttackBall/KickBall" for each shared name: the nodes that held in a range."""
    parts = []
    for ref, uids in nodes.items():
        shown = []
        for uid, tree in sorted(uids.items())[:_NOTE_NODES]:
            rows = tree["nodes"]
            path = rows[uid - 1]["path"] if 1 <= uid <= len(rows) else "?"
            shown.append(f"#{uid} {path}")
        more = f" and {len(uids) - _NOTE_NODES} more" if len(uids) > _NOTE_NODES else ""
        parts.append(f"{ref}: {', '.join(shown)}{more}")
    return "; ".join(parts)
