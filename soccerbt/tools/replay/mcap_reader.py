"""Reading an MCAP replay log: chunk index, seeking, and each robot's tree and blackboard at a step.

``McapLog.open(path)`` reads the summary (chunk index, index attachment) when the file is
whole; a file cut short (a killed run) or damaged is scanned record by record instead, every
intact chunk kept and each damaged one skipped and reported in ``warnings``. Nothing is decoded
until asked: ``steps(first, last)`` yields decoded step messages through the chunks that hold
them (a few decoded chunks are cached), ``robot_state(robot, step)`` rebuilds one robot's tree
statuses and blackboard after a step from the keyframe before it.

Records are parsed here (MCAP's record layout: opcode u8, length u64, fields little-endian), so
that damage is handled per chunk. Errors raise ``ReplayError`` (``path: what is wrong``).

A log converted from JSON lines (``node_data`` false) has no trees: ``tree`` gives an empty
one, so the viewer shows its truth and blackboards; ``require_node_data`` is the tree tools'
clear refusal.
"""
from __future__ import annotations

import json
import struct
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from soccerbt.tools.replay import logformat as lf
from soccerbt.tools.replay.logformat import ReplayError

__all__ = ["McapLog", "RobotState", "StepView", "ReplayError", "is_mcap", "NO_NODE_DATA"]

MAGIC = b"\x89MCAP0\r\n"
_OP_HEADER, _OP_FOOTER, _OP_SCHEMA, _OP_CHANNEL, _OP_MESSAGE, _OP_CHUNK = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06
_OP_ATTACHMENT, _OP_DATA_END = 0x09, 0x0F
_REC = struct.Struct("<BQ")
_CHUNK_HEAD = struct.Struct("<QQQI")
_MESSAGE_HEAD = struct.Struct("<HIQQ")
_MAX_CHUNK_BYTES = 256 << 20       # larger claims are damage, not data
_CACHED_CHUNKS = 6
NO_NODE_DATA = ("holds no node data: it was converted from a JSON-lines log, which kept each robot's root "
                "status only (and the truth, blackboard and events); the tree tools need a log recorded as "
                "MCAP (soccerbt run --record FILE.mcap)")
_EMPTY_TREE: dict[str, Any] = {"nodes": [], "subtrees": [], "load": 0}


def is_mcap(path: str | Path) -> bool:
    """Whether the file starts with MCAP's magic bytes."""
    try:
        with open(path, "rb") as f:
            return f.read(8) == MAGIC
    except OSError:
        return False


@dataclass(slots=True)
class _ChunkRef:
    offset: int           # of the chunk record (its opcode)
    length: int           # of the whole record
    start_step: int
    end_step: int


@dataclass(slots=True)
class StepView:
    """One decoded step: the truth and each robot's tick record (robot name -> TickRecord)."""

    step: int
    truth: lf.TruthRecord
    ticks: dict[str, lf.TickRecord]


@dataclass
class RobotState:
    """A robot's tree after a step: the tree description, every node's status (uid -> code),
    the nodes ticked and skipped in that step, the root blackboard {key: [value, writer]} and
    the keys changed in that step, the step's tick record."""

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

    @property
    def tick(self) -> int:
        return self.record.tick if self.record is not None else self.keyframe_tick


class McapLog:
    """An MCAP replay log opened for seeking (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []
        self.chunks: list[_ChunkRef] = []
        self.topics: dict[int, str] = {}
        self.header: dict[str, Any] = {}
        self.index: dict[str, Any] | None = None
        self._cache: OrderedDict[int, list[tuple[str, int, bytes]]] = OrderedDict()
        self._file: Any = None
        self._trees: dict[tuple[str, int], dict[str, Any]] = {}
        self._tables: dict[tuple[str, int], list[str]] = {}
        self._unknown_channels = False
        self._channels_learnt = False
        self._summary: dict[str, Any] | None = None

    # --- opening --------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path) -> McapLog:
        log = cls(Path(path))
        log._open()
        return log

    def _open(self) -> None:
        p = self.path
        try:
            self._file = open(p, "rb")
        except FileNotFoundError:
            raise ReplayError(p, None, "no such file") from None
        except IsADirectoryError:
            raise ReplayError(p, None, "is a directory, not a replay log") from None
        except OSError as exc:
            raise ReplayError(p, None, f"cannot read ({exc.strerror or exc})") from None
        f = self._file
        if f.read(8) != MAGIC:
            raise ReplayError(p, None, "not an MCAP file (soccerbt run --record FILE.mcap writes one)")
        self.size = f.seek(0, 2)
        self._scan()
        if not self.chunks:
            raise ReplayError(p, None, "no readable chunk: empty or damaged from the start")
        if not self.complete and not self.warnings:
            self.warnings.append(f"{p}: no summary at the end (the run did not finish cleanly); "
                                 "read every whole chunk")
        first = self._chunk(0)
        for topic, _step, data in first:
            if topic == lf.HEADER_TOPIC:
                self.header = json.loads(data)
                break
        if self.header.get("format") != lf.FORMAT:
            if not first and self.warnings:  # the header's chunk did not decode: say so
                raise ReplayError(p, None, "the first chunk, which holds the header, is damaged; "
                                           "nothing can be replayed without it")
            raise ReplayError(p, None, "not a soccerbt replay log (no soccerbt header)")
        self.dt_s = float(self.header.get("dt_s", 0.01))
        for ref in self.chunks:  # the scan assumed 10 ms steps
            ref.start_step = round(ref.start_step * 0.01 / self.dt_s)
            ref.end_step = round(ref.end_step * 0.01 / self.dt_s)
        self.robots: list[str] = list(self.header.get("robots", []))
        if self.index is None:
            self.index = self._scan_index()

    def _scan(self) -> None:
        """Walk the records from the start; keep chunks (and the index attachment)."""
        self.complete = False
        f = self._file
        offset = 8
        size = self.size
        while offset + 9 <= size:
            f.seek(offset)
            head = f.read(9)
            opcode, length = _REC.unpack(head)
            end = offset + 9 + length
            if length > size or end > size:
                if opcode in (_OP_CHUNK, _OP_ATTACHMENT, _OP_MESSAGE):
                    self.warnings.append(f"{self.path}: cut short at byte {offset} of {size} "
                                         "(the last chunk is incomplete); read up to there")
                else:
                    resync = self._resync(offset + 1)
                    if resync is not None:
                        self.warnings.append(f"{self.path}: damaged record at byte {offset}; skipped to {resync}")
                        offset = resync
                        continue
                    self.warnings.append(f"{self.path}: unreadable data from byte {offset}; read up to there")
                break
            if opcode == _OP_CHUNK:
                ref = self._chunk_ref(offset, 9 + length)
                if ref is not None:
                    self.chunks.append(ref)
            elif opcode == _OP_ATTACHMENT:
                self._read_attachment(offset, length)
            elif opcode == _OP_CHANNEL and length <= 1 << 16:  # the summary repeats every channel
                f.seek(offset + 9)
                self._read_channel(f.read(length))
            elif opcode == _OP_FOOTER:
                self.complete = True
                break
            elif opcode == 0 or opcode > 0x10:
                resync = self._resync(offset + 1)
                self.warnings.append(f"{self.path}: damaged record at byte {offset}"
                                     + (f"; skipped to {resync}" if resync is not None else ""))
                if resync is None:
                    break
                offset = resync
                continue
            offset = end

    def _read_channel(self, body: bytes) -> None:
        try:
            cid, _sid = struct.unpack_from("<HH", body, 0)
            (tn,) = struct.unpack_from("<I", body, 4)
            self.topics[cid] = body[8:8 + tn].decode()
        except (struct.error, UnicodeDecodeError):
            self.warnings.append(f"{self.path}: a damaged channel record; skipped")

    def _resync(self, start: int) -> int | None:
        """The offset of the next plausible chunk record after damage, or None."""
        f = self._file
        f.seek(start)
        data = f.read(min(self.size - start, 64 << 20))
        pos = 0
        while True:
            i = data.find(b"\x06", pos)
            if i < 0 or i + 9 + 28 + 4 > len(data):
                return None
            _op, length = _REC.unpack_from(data, i)
            if 28 < length <= self.size - (start + i) - 9:
                (clen,) = struct.unpack_from("<I", data, i + 9 + 28)
                comp = data[i + 9 + 32:i + 9 + 32 + clen]
                if clen <= 4 and comp in (b"zstd", b"lz4", b""):
                    return start + i
            pos = i + 1

    def _chunk_ref(self, offset: int, length: int) -> _ChunkRef | None:
        f = self._file
        f.seek(offset + 9)
        head = f.read(_CHUNK_HEAD.size)
        if len(head) < _CHUNK_HEAD.size:
            return None
        start_ns, end_ns, _usize, _crc = _CHUNK_HEAD.unpack(head)
        return _ChunkRef(offset, length, lf.step_of_ns(start_ns, 0.01), lf.step_of_ns(end_ns, 0.01))

    def _read_attachment(self, offset: int, length: int) -> None:
        f = self._file
        f.seek(offset + 9)
        body = f.read(length)
        try:
            o = 16
            (n,) = struct.unpack_from("<I", body, o)
            name = body[o + 4:o + 4 + n].decode()
            o += 4 + n
            (n,) = struct.unpack_from("<I", body, o)
            o += 4 + n
            (n,) = struct.unpack_from("<Q", body, o)
            data = body[o + 8:o + 8 + n]
            if name == lf.INDEX_ATTACHMENT:
                self.index = json.loads(data)
        except (struct.error, UnicodeDecodeError, ValueError):
            self.warnings.append(f"{self.path}: damaged attachment at byte {offset}; scanning instead")

    # --- chunks ---------------------------------------------------------------------------------

    def _chunk(self, i: int) -> list[tuple[str, int, bytes]]:
        """The messages of chunk i as (topic, step, data); [] for a damaged chunk (warned once)."""
        cached = self._cache.get(i)
        if cached is not None:
            self._cache.move_to_end(i)
            return cached
        ref = self.chunks[i]
        try:
            messages = self._decode_chunk(ref)
            if self._unknown_channels and not self._channels_learnt:
                # a file without its summary: channels are declared in the chunk that first used
                # them, so learn them from every chunk once, then decode this one again
                self._channels_learnt = True
                for j in range(len(self.chunks)):
                    if j != i:
                        try:
                            self._decode_chunk(self.chunks[j])
                        except (ValueError, struct.error, OSError, UnicodeDecodeError, MemoryError):
                            pass
                messages = self._decode_chunk(ref)
        except (ValueError, struct.error, OSError, UnicodeDecodeError, MemoryError) as exc:
            self.warnings.append(f"{self.path}: chunk at byte {ref.offset} is damaged ({exc}); skipped")
            messages = []
        self._cache[i] = messages
        if len(self._cache) > _CACHED_CHUNKS:
            self._cache.popitem(last=False)
        return messages

    def _decode_chunk(self, ref: _ChunkRef) -> list[tuple[str, int, bytes]]:
        f = self._file
        f.seek(ref.offset + 9)
        body = f.read(ref.length - 9)
        _s, _e, usize, crc = _CHUNK_HEAD.unpack_from(body)
        o = _CHUNK_HEAD.size
        (n,) = struct.unpack_from("<I", body, o)
        compression = body[o + 4:o + 4 + n].decode()
        o += 4 + n
        (n,) = struct.unpack_from("<Q", body, o)
        payload = body[o + 8:o + 8 + n]
        if usize > _MAX_CHUNK_BYTES:
            raise ValueError("implausible chunk size")
        if compression == "zstd":
            import zstandard

            try:
                records = zstandard.ZstdDecompressor().decompress(payload, max_output_size=usize)
            except zstandard.ZstdError as exc:
                raise ValueError(f"zstd: {exc}") from None
        elif compression == "lz4":
            import lz4.frame

            try:
                records = lz4.frame.decompress(payload)
            except RuntimeError as exc:
                raise ValueError(f"lz4: {exc}") from None
        elif compression == "":
            records = payload
        else:
            raise ValueError(f"unknown compression {compression!r}")
        if crc and zlib.crc32(records) != crc:
            raise ValueError("checksum mismatch")
        out: list[tuple[str, int, bytes]] = []
        mv = memoryview(records)
        o, end = 0, len(records)
        topics = self.topics
        dt_ns = getattr(self, "dt_s", 0.01) * 1e9
        while o + 9 <= end:
            opcode, length = _REC.unpack_from(records, o)
            body_start = o + 9
            o = body_start + length
            if o > end:
                raise ValueError("record runs past the chunk")
            if opcode == _OP_MESSAGE:
                cid, _seq, log_ns, _pub = _MESSAGE_HEAD.unpack_from(records, body_start)
                topic = topics.get(cid)
                if topic is None:
                    self._unknown_channels = True
                else:
                    out.append((topic, round(log_ns / dt_ns), bytes(mv[body_start + _MESSAGE_HEAD.size:o])))
            elif opcode == _OP_CHANNEL:
                cid, _sid = struct.unpack_from("<HH", records, body_start)
                (tn,) = struct.unpack_from("<I", records, body_start + 4)
                topics[cid] = bytes(mv[body_start + 8:body_start + 8 + tn]).decode()
        return out

    def _chunks_for(self, first_step: int, last_step: int) -> list[int]:
        return [i for i, c in enumerate(self.chunks) if c.end_step >= first_step and c.start_step <= last_step]

    def messages(self, first_step: int = 0, last_step: int | None = None,
                 topics: set[str] | None = None) -> Iterator[tuple[str, int, bytes]]:
        """Messages with first_step <= step <= last_step, in file order."""
        last = self.last_step if last_step is None else last_step
        for i in self._chunks_for(first_step, last):
            for topic, step, data in self._chunk(i):
                if first_step <= step <= last and (topics is None or topic in topics):
                    yield topic, step, data

    # --- what the log holds ---------------------------------------------------------------------

    @property
    def first_step(self) -> int:
        return 1

    @property
    def last_step(self) -> int:
        if self.index is not None and self.index.get("steps"):
            return int(self.index["steps"])
        return max((c.end_step for c in self.chunks), default=0)

    @property
    def duration_s(self) -> float:
        return self.last_step * self.dt_s

    def step_at(self, t_s: float) -> int:
        """The last step at or before simulated time t_s (clamped to the log)."""
        return max(self.first_step, min(self.last_step, int(round(t_s / self.dt_s + 1e-6))))

    def _scan_index(self) -> dict[str, Any]:
        """Events and tree loads by a full pass (a log without its index attachment)."""
        events, loads = [], []
        last = 0
        for i in range(len(self.chunks)):
            for topic, step, data in self._chunk(i):
                last = max(last, step)
                if topic == lf.EVENTS_TOPIC:
                    events.append(json.loads(data))
                elif topic.endswith("/tree"):
                    robot = lf.robot_of_topic(topic)
                    msg = json.loads(data)
                    loads.append({"robot": robot[0] if robot else "", "t": msg.get("t"), "step": msg.get("step"),
                                  "reason": msg.get("reason"), "load": msg.get("load")})
        last_step = 0
        for i in reversed(range(len(self.chunks))):
            steps = [s for topic, s, _d in self._chunk(i) if topic == lf.STEP_TOPIC]
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
            for _topic, _step, data in self.messages(self.last_step, self.last_step + 1, {lf.SUMMARY_TOPIC}):
                self._summary = json.loads(data)
        return self._summary

    @property
    def node_data(self) -> bool:
        """Whether the log holds every node's transitions (False: converted from JSON lines)."""
        return bool(self.header.get("node_data", True))

    def require_node_data(self) -> None:
        """ReplayError (``path: holds no node data ...``) for a log converted from JSON lines."""
        if not self.node_data:
            raise ReplayError(self.path, None, NO_NODE_DATA)

    def check_robot(self, robot: str) -> None:
        if robot not in self.robots:
            raise ReplayError(self.path, None, f"no robot {robot!r} (robots: {', '.join(self.robots)})")

    def tree(self, robot: str, load: int) -> dict[str, Any]:
        """The description of `robot`'s `load`-th tree (1: the first)."""
        if not self.node_data:
            return _EMPTY_TREE
        key = (robot, load)
        cached = self._trees.get(key)
        if cached is None:
            entry = next((ld for ld in self.loads(robot) if ld.get("load") == load), None)
            step = entry["step"] if entry else self.first_step
            topic = lf.tree_topic(robot)
            for _t, _s, data in self.messages(step, step, {topic}):
                msg = json.loads(data)
                if msg.get("load") == load:
                    cached = msg
                    break
            if cached is None:
                raise ReplayError(self.path, None, f"the tree of {robot} (load {load}) is missing")
            self._trees[key] = cached
        return cached

    # --- steps and states -----------------------------------------------------------------------

    def decode_step(self, data: bytes, tables: dict[str, list[str]] | None = None) -> StepView:
        """A step message decoded; blackboard changes with the robots' key tables (`tables`,
        by default those in force at the step, looked up)."""
        parts = lf.split_parts(data)
        truth = lf.decode_truth(parts[0])
        if tables is None:
            tables = {robot: self.key_table(robot, truth.step) for robot in self.robots}
        ticks = {robot: lf.decode_tick(part, tables.get(robot)) for robot, part in zip(self.robots, parts[1:])}
        return StepView(truth.step, truth, ticks)

    def steps(self, first_step: int = 1, last_step: int | None = None) -> Iterator[StepView]:
        """Decoded steps first..last, in order (key tables followed as they change)."""
        tables = {robot: self.key_table(robot, first_step) for robot in self.robots}
        table_topics = {}
        for robot in self.robots:
            table_topics[lf.keys_topic(robot)] = robot
            table_topics[lf.keyframe_topic(robot)] = robot
        for topic, step, data in self.messages(first_step, last_step, {lf.STEP_TOPIC, *table_topics}):
            if topic != lf.STEP_TOPIC:
                try:
                    keys = json.loads(data).get("keys")
                except ValueError:
                    keys = None
                if keys is not None:
                    tables[table_topics[topic]] = keys
                continue
            try:
                yield self.decode_step(data, tables)
            except ValueError as exc:
                self.warnings.append(f"{self.path}: step {step} unreadable ({exc}); skipped")

    def step_view(self, step: int) -> StepView | None:
        return next(self.steps(step, step), None)

    def key_changes(self, robot: str, key: str, first_step: int, last_step: int) -> list[tuple[int, Any, Any]]:
        """(step, value, writer) of every change of `robot`'s blackboard `key` in the steps
        first..last, decoding only that robot's part, and its values only where the key changed."""
        self.check_robot(robot)
        k = 1 + self.robots.index(robot)
        keys_topic, kf_topic = lf.keys_topic(robot), lf.keyframe_topic(robot)
        table = self.key_table(robot, first_step)
        index = table.index(key) if key in table else -1
        out: list[tuple[int, Any, Any]] = []
        for topic, step, data in self.messages(first_step, last_step, {lf.STEP_TOPIC, keys_topic, kf_topic}):
            if topic != lf.STEP_TOPIC:
                keys = json.loads(data).get("keys")
                if keys is not None:
                    table = keys
                    index = table.index(key) if key in table else -1
                continue
            if index < 0:
                continue
            try:
                rec = lf.decode_tick(lf.split_parts(data)[k])
                if index not in rec.changed_indexes():
                    continue
                entry = lf.decode_changes(rec.changes, table).get(key)
            except (ValueError, IndexError):
                continue
            if entry is not None:
                out.append((step, entry[0], entry[1]))
        return out

    def key_table(self, robot: str, step: int) -> list[str]:
        """`robot`'s blackboard key table in force at `step` (from the latest /keys message or
        keyframe before it)."""
        cached = self._tables.get((robot, step))
        if cached is not None:
            return cached
        keys_topic, kf_topic = lf.keys_topic(robot), lf.keyframe_topic(robot)
        best: tuple[int, list[str]] | None = None
        for i in reversed(self._chunks_for(0, step)):
            for topic, _s, data in self._chunk(i):
                if topic == keys_topic:
                    msg = json.loads(data)
                    valid = msg["from_step"]
                elif topic == kf_topic:
                    msg = json.loads(data)
                    valid = msg["after_step"] + 1
                else:
                    continue
                if valid <= step and "keys" in msg and (best is None or valid >= best[0]):
                    best = (valid, msg["keys"])
            if best is not None:
                break
        table = best[1] if best is not None else []
        if len(self._tables) > 4096:
            self._tables.clear()
        self._tables[(robot, step)] = table
        return table

    def _keyframe_before(self, robot: str, step: int) -> dict[str, Any] | None:
        topic = lf.keyframe_topic(robot)
        chunk_ids = self._chunks_for(0, step)
        for i in reversed(chunk_ids):
            best = None
            for t, _s, data in self._chunk(i):
                if t == topic:
                    msg = json.loads(data)
                    if msg["after_step"] <= step:
                        best = msg
            if best is not None:
                return best
        return None

    def robot_state(self, robot: str, step: int) -> RobotState:
        """`robot`'s tree statuses and blackboard after `step` (see RobotState)."""
        self.check_robot(robot)
        step = max(self.first_step - 1, min(step, self.last_step))
        # the keyframe before the step, so that the step itself is applied (its ticked nodes)
        kf = self._keyframe_before(robot, step - 1 if step >= self.first_step else step)
        if kf is None:
            raise ReplayError(self.path, None, f"no keyframe of {robot} before step {step}")
        tree = self.tree(robot, kf.get("load", 1))
        uids = [row["uid"] for row in tree["nodes"]]
        state = RobotState(robot, kf["after_step"], tree, dict(zip(uids, kf["statuses"])),
                           blackboard={k: list(v) for k, v in kf["blackboard"].items()})
        state.keyframe_tick = kf.get("tick", 0)
        for view in self.steps(kf["after_step"] + 1, step):
            apply_step(state, view)
        state.step = step
        return state


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
