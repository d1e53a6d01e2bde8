"""Reading a replay log: seeking, and each robot's tree and blackboard at a step.

``McapLog.open(path)`` opens the MCAP file and walks its chunks (``soccerbt.log.mcap_chunks``:
the container, its damage and its work budget), then reads and checks the header. Nothing is
decoded until asked: ``steps(first, last)`` yields decoded step messages through the chunks that
hold them, ``robot_state(robot, step)`` rebuilds one robot's tree statuses and blackboard after a
step from the keyframe before it. Errors raise ``ReplayError`` (``path: what is wrong``).

A log is untrusted input (a file shared in a bug report). Beside the container's bounds (see
``mcap_chunks``): a seek replays at most ``MAX_REPLAY_STEPS`` steps from a keyframe and looks
for keyframes and key tables only that far back; every message is checked where it is read
(``format.check_*``, the step decoders): a message of the wrong shape is damage, named, never a
traceback.

Damage found after opening (a chunk that does not decode, a step that does not) is a gap: the
steps it held are missing. ``gaps`` lists them (``Gap``: first and last step, why); ``steps``
reports each to ``on_gap`` as it passes it; a robot's state is never rebuilt across one
(``robot_state`` raises ``ReplayError`` naming it), so no answer spans a gap.

A log converted from JSON lines (``node_data`` false) has no trees: ``tree`` gives an empty
one, so the viewer shows its truth and blackboards; ``require_node_data`` is the tree tools'
clear refusal. Format 1's step messages are decoded here too (``decode_step``, ``KeyTables``:
its blackboard key tables).
"""
from __future__ import annotations

import difflib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from soccerbt import __version__
from soccerbt.log import format as lf
from soccerbt.log import format_v1 as v1
from soccerbt.log.format import ReplayError, ShapeError
from soccerbt.log.inputs import InputRecord, decode_inputs, decode_inputs_v1
from soccerbt.log.mcap_chunks import BUDGET_RATIO, MAX_CHUNK_BYTES, MAX_CHUNK_RECORDS, McapChunks, is_mcap

__all__ = ["McapLog", "KeyTables", "RobotState", "StepView", "Gap", "ReplayError", "is_mcap", "NO_NODE_DATA",
           "MAX_CHUNK_BYTES", "MAX_CHUNK_RECORDS", "MAX_REPLAY_STEPS", "BUDGET_RATIO", "apply_step",
           "step_messages"]

MAX_REPLAY_STEPS = 1000           # keyframes come every 100 steps: a seek replays at most this many
_TREES_CACHED = 64
NO_NODE_DATA = ("holds no node data: it was converted from a JSON-lines log, which kept each robot's root "
                "status only (and the truth, blackboard and events); the tree tools need a log recorded as "
                "MCAP (soccerbt run --record FILE.mcap)")
INPUTS_ONLY = ("holds its brains' inputs only (recorded with --record-mode inputs): derive the full log first, "
               "while the tree files are unchanged: soccerbt replay derive {path} FULL.mcap")
_EMPTY_TREE: dict[str, Any] = {"nodes": [], "subtrees": [], "load": 0}


@dataclass(slots=True)
class StepView:
    """One decoded step: the truth and each robot's tick record (robot name -> TickRecord)."""

    step: int
    truth: lf.TruthRecord
    ticks: dict[str, lf.TickRecord]


@dataclass(frozen=True, slots=True)
class Gap:
    """Steps first..last are missing from the log (a damaged chunk, an unreadable step)."""

    first: int
    last: int
    why: str

    def text(self, dt_s: float) -> str:
        t0, t1 = (self.first - 1) * dt_s, self.last * dt_s
        steps = f"step {self.first}" if self.first == self.last else f"steps {self.first}-{self.last}"
        return f"t={t0:.2f}-{t1:.2f}s ({steps}) missing: {self.why}"


@dataclass
class RobotState:
    """A robot's tree after a step: the tree description, every node's status (uid -> code),
    the nodes ticked and skipped in that step, the root blackboard {key: [value, writer]} and
    the keys changed in that step, the step's tick record, and each node's latest reason for
    what it decided (uid -> (tick, text): the tick it gave it in; logs without reasons: none)."""

    robot: str
    step: int
    tree: dict[str, Any]
    statuses: dict[int, int]
    ticked: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    blackboard: dict[str, list[Any]] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    record: lf.TickRecord | None = None
    last_transition: dict[int, int] = field(default_factory=dict)   # uid -> newest status code
    keyframe_tick: int = 0
    reasons: dict[int, tuple[int, str]] = field(default_factory=dict)
    missing: str | None = None      # set by a viewer when the state could not be rebuilt (why)

    @property
    def tick(self) -> int:
        return self.record.tick if self.record is not None else self.keyframe_tick


class McapLog(McapChunks):
    """An MCAP replay log opened for seeking (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.header: dict[str, Any] = {}
        self.gaps: list[Gap] = []
        self.robots: list[str] = []
        self.format_version = lf.FORMAT_VERSION
        self._trees: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
        self._tables: dict[tuple[str, int], list[str]] = {}
        self._summary: dict[str, Any] | None = None

    # --- opening --------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, budget_ratio: int | None = None) -> McapLog:
        """Open a log; `budget_ratio`: decompress at most that many times the file's size (plus
        BUDGET_FLOOR) over the log object's life (None: no limit, as the viewer needs)."""
        log = cls(Path(path))
        try:
            log._open(budget_ratio)
        except BaseException:
            log.close()
            raise
        return log

    def _open(self, budget_ratio: int | None) -> None:
        self._open_file(budget_ratio)
        p = self.path
        first = self._chunk(0)
        header = None
        for topic, _step, data in first:
            if topic == lf.HEADER_TOPIC:
                try:
                    header = lf.load_json(data, 1 << 20)
                except ShapeError as exc:
                    raise ReplayError(p, None, f"the header is not readable: {exc}") from None
                break
        if not isinstance(header, dict) or header.get("format") != lf.FORMAT:
            if not first and self._damaged:  # the header's chunk did not decode: say so
                raise ReplayError(p, None, "the first chunk, which holds the header, is damaged; "
                                           f"nothing can be replayed without it ({self._damaged.get(0)})")
            raise ReplayError(p, None, "not a soccerbt replay log (no soccerbt header)")
        version = header.get("format_version", 1)
        if type(version) is not int or version not in lf.READABLE_FORMATS:
            if type(version) is int and version > max(lf.READABLE_FORMATS):
                raise ReplayError(p, None, f"written by a newer soccerbt ({str(header.get('soccerbt_version'))[:40]}, "
                                           f"log format {version}); this soccerbt ({__version__}) reads log formats "
                                           f"{min(lf.READABLE_FORMATS)} to {max(lf.READABLE_FORMATS)}: update soccerbt")
            raise ReplayError(p, None, f"header: format_version: {str(version)[:40]!r} is no log format soccerbt "
                                       f"knows ({min(lf.READABLE_FORMATS)} to {max(lf.READABLE_FORMATS)})")
        self.format_version = version
        try:
            self.header = lf.check_header(header)
        except ShapeError as exc:
            raise ReplayError(p, None, str(exc)) from None
        self.dt_s = float(self.header.get("dt_s", 0.01))
        if self.dt_s != 0.01:  # the first chunk was decoded with 10 ms steps
            self._cache.clear()
            self._cache_bytes.clear()
        for ref in self.chunks:  # the walk assumed 10 ms steps
            ref.start_step = round(ref.start_step * 0.01 / self.dt_s)
            ref.end_step = round(ref.end_step * 0.01 / self.dt_s)
        self.robots = list(self.header["robots"])
        if self.index is not None:
            try:
                self.index = lf.check_index(self.index, self.robots)
            except ShapeError as exc:
                self.warnings.append(f"{p}: the index attachment is damaged ({exc}); scanning instead")
                self.index = None
        if self.index is None:
            self.index = self._scan_index()

    # --- what the log holds ---------------------------------------------------------------------

    @property
    def duration_s(self) -> float:
        return self.last_step * self.dt_s

    def step_at(self, t_s: float) -> int:
        """The last step at or before simulated time t_s (clamped to the log)."""
        if not t_s == t_s:
            return self.first_step
        t_s = max(0.0, min(t_s, (self.last_step + 1) * self.dt_s))
        return max(self.first_step, min(self.last_step, int(round(t_s / self.dt_s + 1e-6))))

    def _scan_index(self) -> dict[str, Any]:
        """Events and tree loads by a full pass (a log without its index attachment)."""
        events, loads = [], []
        last = 0
        known = set(self.robots)
        for i in range(len(self.chunks)):
            for topic, step, data in self._chunk(i):
                last = max(last, step)
                if topic == lf.EVENTS_TOPIC:
                    try:
                        events.append(lf.check_event(lf.load_json(data)))
                    except ShapeError as exc:
                        self.warnings.append(f"{self.path}: an event at step {step} is damaged ({exc}); skipped")
                elif topic.endswith("/tree"):
                    robot = lf.robot_of_topic(topic)
                    if robot is None or robot[0] not in known:
                        continue
                    try:
                        msg = lf.check_tree(lf.load_json(data))
                    except ShapeError as exc:
                        self.warnings.append(f"{self.path}: {robot[0]}'s tree at step {step} is damaged ({exc})")
                        continue
                    loads.append({"robot": robot[0], "t": msg.get("t"), "step": step,
                                  "reason": msg.get("reason"), "load": msg["load"]})
        last_step = 0
        for i in reversed(range(len(self.chunks))):
            steps = [s for topic, s, _d in self._chunk(i) if topic == self._step_topic]
            if steps:
                last_step = max(steps)
                break
        return {"events": events, "loads": loads, "steps": last_step or last}

    @property
    def events(self) -> list[dict[str, Any]]:
        return list((self.index or {}).get("events", []))

    def loads(self, robot: str) -> list[dict[str, Any]]:
        return [ld for ld in (self.index or {}).get("loads", []) if ld.get("robot") == robot]

    def summary_result(self) -> dict[str, Any] | None:
        if self._summary is None:
            for _topic, step, data in self.messages(self.last_step, self.last_step + 1, {lf.SUMMARY_TOPIC}):
                try:
                    self._summary = lf.check_summary(lf.load_json(data))
                except ShapeError as exc:
                    self.warnings.append(f"{self.path}: the summary at step {step} is damaged ({exc})")
        return self._summary

    @property
    def node_data(self) -> bool:
        """Whether the log holds every node's transitions (False: converted from JSON lines)."""
        return bool(self.header.get("node_data", True))

    def require_node_data(self) -> None:
        """ReplayError (``path: holds no node data ...``) for a log converted from JSON lines or
        recorded with ``--record-mode inputs`` (that one says how to derive it)."""
        if not self.node_data:
            if "inputs" in self.header and "converted_from" not in self.header:
                raise ReplayError(self.path, None, INPUTS_ONLY.format(path=self.path))
            raise ReplayError(self.path, None, NO_NODE_DATA)

    def check_robot(self, robot: str) -> None:
        if robot not in self.robots:
            near = difflib.get_close_matches(robot, self.robots, n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise ReplayError(self.path, None, f"no robot {robot!r} (robots: {', '.join(self.robots)}){hint}")

    def tree(self, robot: str, load: int) -> dict[str, Any]:
        """The description of `robot`'s `load`-th tree (1: the first), checked (format.check_tree)."""
        if not self.node_data:
            return _EMPTY_TREE
        key = (robot, load)
        cached = self._trees.get(key)
        if cached is None:
            entry = next((ld for ld in self.loads(robot) if ld.get("load") == load), None)
            step = entry["step"] if entry else self.first_step
            topic = lf.tree_topic(robot)
            problem = None
            for _t, _s, data in self.messages(step, step, {topic}):
                try:
                    msg = lf.check_tree(lf.load_json(data))
                except ShapeError as exc:
                    problem = str(exc)
                    continue
                if msg.get("load") == load:
                    cached = msg
                    break
            if cached is None:
                why = f"is damaged ({problem})" if problem else "is missing"
                raise ReplayError(self.path, None, f"the tree of {robot} (load {load}) {why}")
            self._trees[key] = cached
            if len(self._trees) > _TREES_CACHED:
                self._trees.popitem(last=False)
        else:
            self._trees.move_to_end(key)
        return cached

    # --- steps and states -----------------------------------------------------------------------

    @property
    def _step_topic(self) -> str:
        """The channel every step writes once (the same name in both formats)."""
        return lf.STEP_TOPIC

    def decode_step(self, data: bytes, tables: dict[str, list[str]] | None = None,
                    robots: list[str] | None = None) -> StepView:
        """A format-1 step message decoded; blackboard changes with the robots' key tables
        (`tables`, by default those in force at the step, looked up). `robots`: decode only these
        robots' ticks (default: all). ValueError for a message of the wrong shape (another number
        of robots, a status code out of range, ...)."""
        parts = v1.split_parts(data)
        if len(parts) != 1 + len(self.robots):
            raise ValueError(f"{len(parts) - 1} robots in the step, the header names {len(self.robots)}")
        truth = v1.decode_truth(parts[0])
        if len(truth.robots) != len(self.robots):
            raise ValueError(f"the truth holds {len(truth.robots)} robots, the header names {len(self.robots)}")
        if tables is None:
            tables = {robot: self.key_table(robot, truth.step) for robot in robots or self.robots}
        if robots is None:
            ticks = {
                robot: v1.decode_tick(part, tables.get(robot))
                for robot, part in zip(self.robots, parts[1:], strict=False)
            }
        else:
            ticks = {robot: v1.decode_tick(parts[1 + self.robots.index(robot)], tables.get(robot)) for robot in robots}
        return StepView(truth.step, truth, ticks)

    def view_of(self, raw: bytes, step: int, robots: list[str] | None = None) -> StepView:
        """Step `step`'s message (``step_messages``) decoded, in either format; ValueError for one
        of the wrong shape (or that says another step)."""
        view = self.decode_step(raw, robots=robots) if self.format_version == 1 else self._view_v2(raw, robots)
        if view.step != step:
            raise ValueError(f"its truth says step {view.step}")
        return view

    def _view_v2(self, data: bytes, robots: list[str] | None) -> StepView:
        wanted = self.robots if robots is None else robots
        truth, ticks = lf.decode_step(data, set(wanted))
        if len(truth.robots) != len(self.robots):
            raise ValueError(f"the truth holds {len(truth.robots)} robots, the header names {len(self.robots)}")
        missing = [robot for robot in wanted if robot not in ticks]
        if missing:
            raise ValueError(f"{missing[0]}'s tick is missing")
        return StepView(truth.step, truth, {robot: ticks[robot] for robot in wanted})

    def inputs_of(self, data: bytes) -> dict[str, InputRecord]:
        """Every brain's inputs of one ``/match/inputs`` message, by robot (a robot that had not
        stepped is absent); ValueError for one of the wrong shape."""
        if self.format_version == 1:
            return {
                robot: rec
                for robot, rec in zip(self.robots, decode_inputs_v1(data, len(self.robots)), strict=False)
                if rec is not None
            }
        return decode_inputs(data)

    def _gap(self, first: int, last: int, on_gap: Callable[[Gap], None] | None, why: str | None = None) -> Gap:
        hits = [self._damaged[i] for i, c in enumerate(self.chunks)
                if i in self._damaged and c.end_step >= first and c.start_step <= last]
        if hits:  # the damage says why, rather than what it left of a step
            why = "; ".join(hits[:3])
        elif why is None:
            why = "no step message in the log"
        gap = Gap(first, last, why)
        if not any(g.first <= first and last <= g.last for g in self.gaps):
            self.gaps.append(gap)
        if on_gap is not None:
            on_gap(gap)
        return gap

    def steps(self, first_step: int = 1, last_step: int | None = None,
              on_gap: Callable[[Gap], None] | None = None, robots: list[str] | None = None) -> Iterator[StepView]:
        """Decoded steps first..last, in order. Steps that are missing (a damaged chunk, an
        unreadable step) are gaps: recorded in ``gaps`` and handed to `on_gap` before the step
        after them (or at the end). `robots`: decode only these robots' ticks (default: all)."""
        if self.format_version == 1:  # a generator: nothing is read before the first step is asked for
            yield from self._gapped(*self._step_messages_v1(first_step, last_step, robots), first_step, last_step,
                                    on_gap)
            return
        messages = ((step, data) for _topic, step, data in self.messages(first_step, last_step, {lf.STEP_TOPIC}))
        yield from self._gapped(messages, lambda data: self._view_v2(data, robots), first_step, last_step, on_gap)

    def _step_messages_v1(self, first_step: int, last_step: int | None, robots: list[str] | None
                          ) -> tuple[Iterator[tuple[int, bytes]], Callable[[bytes], StepView]]:
        """Format 1's step messages and their decoder, the key tables followed as they change
        (the messages are read lazily: a step is decoded with the tables of the messages before it)."""
        tables = KeyTables(self, self.robots if robots is None else robots, first_step)

        def messages() -> Iterator[tuple[int, bytes]]:
            for topic, step, data in self.messages(first_step, last_step, {v1.STEP_TOPIC, *tables.topics}):
                if not tables.follow(topic, data):
                    yield step, data

        return messages(), lambda data: self.decode_step(data, tables.tables, robots)

    def _gapped(self, messages: Iterator[tuple[int, bytes]], decode: Callable[[bytes], StepView], first_step: int,
                last_step: int | None, on_gap: Callable[[Gap], None] | None) -> Iterator[StepView]:
        """The decoded steps of (step, message) pairs in order, the steps missing between them gaps."""
        expect = max(first_step, self.first_step)
        last = self.last_step if last_step is None else min(last_step, self.last_step)
        unreadable: dict[int, str] = {}
        for step, data in messages:
            if step < expect:
                continue  # out of order, or a step given twice: damage already passed
            try:
                view = decode(data)
                if view.step != step:
                    raise ValueError(f"its truth says step {view.step}")
            except ValueError as exc:
                unreadable[step] = str(exc)
                self.warnings.append(f"{self.path}: step {step} unreadable ({exc}); skipped")
                continue
            if step > expect:
                self._gap(expect, step - 1, on_gap, _why(unreadable, expect, step - 1))
            expect = step + 1
            yield view
        if expect <= last:
            self._gap(expect, last, on_gap, _why(unreadable, expect, last))

    def step_view(self, step: int) -> StepView | None:
        return next(self.steps(step, step), None)

    def key_changes(self, robot: str, key: str, first_step: int, last_step: int) -> list[tuple[int, Any, Any]]:
        """(step, value, writer) of every change of `robot`'s blackboard `key` in the steps
        first..last, decoding only that robot's ticks, and only those that name the key."""
        self.check_robot(robot)
        if self.format_version == 1:
            return self._key_changes_v1(robot, key, first_step, last_step)
        needle = key.encode("utf-8")
        wanted = {robot}
        out: list[tuple[int, Any, Any]] = []
        for _topic, step, data in self.messages(first_step, last_step, {lf.STEP_TOPIC}):
            if needle not in data:
                continue
            try:
                rec = lf.decode_step(data, wanted)[1].get(robot)
            except ValueError:
                continue
            entry = None if rec is None else rec.blackboard.get(key)
            if entry is not None:
                out.append((step, entry[0], entry[1]))
        return out

    def robot_ticks(self, robot: str, first_step: int, last_step: int) -> Iterator[tuple[int, lf.TickRecord]]:
        """(step, tick) of `robot`'s ticks first..last (without their blackboard changes in a
        format-1 log: no key table is followed); unreadable ticks are left out."""
        if self.format_version == 1:
            k = 1 + self.robots.index(robot)
            for _t, step, data in self.messages(first_step, last_step, {v1.STEP_TOPIC}):
                try:
                    yield step, v1.decode_tick(v1.split_parts(data)[k])
                except (ValueError, IndexError):
                    continue
            return
        wanted = {robot}
        for _t, step, data in self.messages(first_step, last_step, {lf.STEP_TOPIC}):
            try:
                rec = lf.decode_step(data, wanted)[1].get(robot)
            except ValueError:
                continue
            if rec is not None:
                yield step, rec

    def _key_changes_v1(self, robot: str, key: str, first_step: int, last_step: int) -> list[tuple[int, Any, Any]]:
        k = 1 + self.robots.index(robot)
        keys_topic, kf_topic = v1.keys_topic(robot), lf.keyframe_topic(robot)
        table = self.key_table(robot, first_step)
        index = table.index(key) if key in table else -1
        out: list[tuple[int, Any, Any]] = []
        for topic, step, data in self.messages(first_step, last_step, {v1.STEP_TOPIC, keys_topic, kf_topic}):
            if topic != v1.STEP_TOPIC:
                found = v1.table_of(data)
                if found is not None:
                    table = found[1]
                    index = table.index(key) if key in table else -1
                continue
            if index < 0:
                continue
            try:
                rec = v1.decode_tick(v1.split_parts(data)[k])
                if index not in v1.changed_indexes(rec.changes):
                    continue
                entry = v1.decode_changes(rec.changes, table).get(key)
            except (ValueError, IndexError):
                continue
            if entry is not None:
                out.append((step, entry[0], entry[1]))
        return out

    def key_table(self, robot: str, step: int) -> list[str]:
        """`robot`'s blackboard key table in force at `step` (from the latest /keys message or
        keyframe before it, looked for at most MAX_REPLAY_STEPS back): a format-1 log's; []
        in a format-2 log, whose changes name their keys."""
        if self.format_version != 1:
            return []
        cached = self._tables.get((robot, step))
        if cached is not None:
            return cached
        keys_topic, kf_topic = v1.keys_topic(robot), lf.keyframe_topic(robot)
        best: tuple[int, list[str]] | None = None
        for i in reversed(self._chunks_for(step - MAX_REPLAY_STEPS, step)):
            for topic, _s, data in self._chunk(i):
                if topic != keys_topic and topic != kf_topic:
                    continue
                found = v1.table_of(data)
                if found is not None and found[0] <= step and (best is None or found[0] >= best[0]):
                    best = found
            if best is not None:
                break
        table = best[1] if best is not None else []
        if len(self._tables) > 4096:
            self._tables.clear()
        self._tables[(robot, step)] = table
        return table

    def _keyframe_before(self, robot: str, step: int, max_replay: int = MAX_REPLAY_STEPS) -> dict[str, Any] | None:
        """The latest keyframe of `robot` with after_step <= `step`, at most `max_replay` steps
        before it (checked: format.check_keyframe); damaged ones are skipped and warned."""
        topic = lf.keyframe_topic(robot)
        for i in reversed(self._chunks_for(step - max_replay, step + 1)):
            # the latest first: a keyframe's time is its after_step (or the step after, at a load)
            for t, s, data in reversed(self._chunk(i)):
                if t != topic or s > step + 1:
                    continue
                if s < step - max_replay:
                    return None
                try:
                    msg = lf.check_keyframe(lf.load_json(data))
                except ShapeError as exc:
                    self.warnings.append(f"{self.path}: {robot}'s keyframe at step {s} is damaged ({exc}); skipped")
                    continue
                if msg["after_step"] <= step:
                    return msg if msg["after_step"] >= step - max_replay else None
        return None

    @property
    def keyframe_steps(self) -> int:
        """Steps between a robot's keyframes (the header's keyframe_steps, KEYFRAME_STEPS)."""
        every = self.header.get("keyframe_steps", lf.KEYFRAME_STEPS)
        return every if isinstance(every, int) and 1 <= every <= MAX_REPLAY_STEPS else lf.KEYFRAME_STEPS

    def robot_state(self, robot: str, step: int, max_replay: int = MAX_REPLAY_STEPS) -> RobotState:
        """`robot`'s tree statuses and blackboard after `step` (see RobotState); ReplayError when
        no keyframe lies at most `max_replay` steps before it, or steps between them are missing."""
        self.check_robot(robot)
        step = max(self.first_step - 1, min(step, self.last_step))
        # the keyframe before the step, so that the step itself is applied (its ticked nodes)
        kf = self._keyframe_before(robot, step - 1 if step >= self.first_step else step, max_replay)
        if kf is None:
            missing = [g for g in self.gaps if g.first <= step and g.last >= step - max_replay]
            why = f" ({missing[-1].text(self.dt_s)})" if missing else ""
            raise ReplayError(self.path, None, f"no keyframe of {robot} in the {max_replay} steps before "
                                               f"step {step}: its state there cannot be rebuilt{why}")
        tree = self.tree(robot, kf.get("load", 1))
        uids = [row["uid"] for row in tree["nodes"]]
        if self.node_data and len(kf["statuses"]) != len(uids):
            raise ReplayError(self.path, None, f"{robot}'s keyframe after step {kf['after_step']} holds "
                                               f"{len(kf['statuses'])} statuses for a tree of {len(uids)} nodes")
        state = RobotState(robot, kf["after_step"], tree, dict(zip(uids, kf["statuses"], strict=False)),
                           blackboard={k: list(v) for k, v in kf["blackboard"].items()})
        state.keyframe_tick = kf.get("tick", 0)
        state.reasons = {row[0]: (row[1], row[2]) for row in kf.get("reasons", ())}
        gaps: list[Gap] = []
        for view in self.steps(kf["after_step"] + 1, step, on_gap=gaps.append, robots=[robot]):
            if gaps:
                break
            apply_step(state, view)
        if gaps:
            raise ReplayError(self.path, None, f"{robot} after step {step}: {gaps[0].text(self.dt_s)}; the state "
                                               f"after the gap cannot be rebuilt from the keyframe before it")
        state.step = step
        return state


class KeyTables:
    """Format 1's blackboard key tables (its changes name a key by its index in the robot's
    table), followed through a log's messages in file order: a ``/robots/<robot>/keys`` message
    or a keyframe replaces its robot's table. ``tables``: each robot's table in force; ``topics``:
    the topics that carry them."""

    def __init__(self, log: McapLog, robots: list[str], step: int) -> None:
        self.tables = {robot: log.key_table(robot, step) for robot in robots}
        self.topics = {v1.keys_topic(r): r for r in robots} | {lf.keyframe_topic(r): r for r in robots}  # -> robot

    def follow(self, topic: str, data: bytes) -> bool:
        """True for a message that carries a key table (which then replaces its robot's)."""
        robot = self.topics.get(topic)
        if robot is None:
            return False
        found = v1.table_of(data)
        if found is not None:
            self.tables[robot] = found[1]
        return True


def _why(unreadable: dict[int, str], first: int, last: int) -> str | None:
    """Why steps first..last are missing when some of them were unreadable (else None: the
    damaged chunks say)."""
    bad = [s for s in unreadable if first <= s <= last]
    if not bad:
        return None
    return f"step {bad[0]} unreadable ({unreadable[bad[0]]})" + (f" and {len(bad) - 1} more" if len(bad) > 1 else "")



def apply_step(state: RobotState, view: StepView) -> None:
    """Move `state` forward by one decoded step."""
    rec = view.ticks.get(state.robot)
    state.step = view.step
    if rec is None:
        return
    statuses = state.statuses
    last = state.last_transition = {}
    for uid, _prev, new in rec.transitions:
        statuses[uid] = new
        if new != 0:
            last[uid] = new
    state.ticked = rec.ticked
    state.skipped = rec.skipped
    bb = state.blackboard
    for key, value in rec.blackboard.items():
        if value[1] == "removed":
            bb.pop(key, None)
        else:
            bb[key] = value
    state.changed = list(rec.blackboard)
    state.record = rec
    if rec.reasons:
        tick = rec.tick
        reasons = state.reasons
        for uid, text in rec.reasons.items():
            reasons[uid] = (tick, text)


def step_messages(log: McapLog, gaps: list[Gap]) -> Iterator[tuple[int, bytes]]:
    """(step, its step message) of the log's steps in increasing order, undecoded (either format:
    two equal messages are the same step; ``log.view_of(raw, step)`` decodes one). The steps
    missing between and after them are added to `gaps` (and to ``log.gaps``)."""
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
