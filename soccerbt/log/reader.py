"""Reading an MCAP replay log: chunk index, seeking, and each robot's tree and blackboard at a step.

``McapLog.open(path)`` walks the file's records (reading each chunk's header, never its data)
when the file is whole; a file cut short (a killed run) or damaged is walked the same way,
every intact chunk kept and each damaged one skipped and reported in ``warnings``. Nothing is
decoded until asked: ``steps(first, last)`` yields decoded step messages through the chunks that
hold them (a few decoded chunks are cached), ``robot_state(robot, step)`` rebuilds one robot's
tree statuses and blackboard after a step from the keyframe before it.

Records are parsed here (MCAP's record layout: opcode u8, length u64, fields little-endian), so
that damage is handled per chunk. Errors raise ``ReplayError`` (``path: what is wrong``).

A log is untrusted input (a file shared in a bug report). What it can cost is bounded:

- a chunk is decompressed by a stream that stops at the size the chunk record declares (at
  most ``MAX_CHUNK_BYTES``), whatever its zstd or lz4 frame claims, and is damaged when it
  produces more or less; it may hold at most ``MAX_CHUNK_RECORDS`` records, and only schema,
  channel and message records;
- ``budget``: when set (the command line sets ``BUDGET_RATIO``), the work one log object may do
  in all (bytes decompressed, and ``RECORD_COST`` for every record walked) is that many times
  the file's size (plus ``BUDGET_FLOOR``); past it a ``ReplayError`` says so (a decompression
  bomb spread over many chunks);
- reading after damage looks for the next chunk in a window moving forward, so the walk is
  linear in the file; a seek replays at most ``MAX_REPLAY_STEPS`` steps from a keyframe and looks
  for keyframes and key tables only that far back;
- every message is checked where it is read (``format.check_*``, the step decoders): a
  message of the wrong shape is damage, named, never a traceback.

Damage found after opening (a chunk that does not decode, a step that does not) is a gap: the
steps it held are missing. ``gaps`` lists them (``Gap``: first and last step, why); ``steps``
reports each to ``on_gap`` as it passes it; a robot's state is never rebuilt across one
(``robot_state`` raises ``ReplayError`` naming it), so no answer spans a gap.

A log converted from JSON lines (``node_data`` false) has no trees: ``tree`` gives an empty
one, so the viewer shows its truth and blackboards; ``require_node_data`` is the tree tools'
clear refusal.
"""
from __future__ import annotations

import io
import struct
import zlib
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

__all__ = ["McapLog", "KeyTables", "RobotState", "StepView", "Gap", "ReplayError", "is_mcap", "NO_NODE_DATA",
           "MAX_CHUNK_BYTES", "MAX_CHUNK_RECORDS", "MAX_REPLAY_STEPS", "BUDGET_RATIO", "apply_step",
           "step_messages"]

MAGIC = b"\x89MCAP0\r\n"
_OP_HEADER, _OP_FOOTER, _OP_SCHEMA, _OP_CHANNEL, _OP_MESSAGE, _OP_CHUNK = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06
_OP_ATTACHMENT, _OP_DATA_END = 0x09, 0x0F
_REC = struct.Struct("<BQ")
_CHUNK_HEAD = struct.Struct("<QQQI")
_TIMES = struct.Struct("<QQ")
_MESSAGE_HEAD = struct.Struct("<HIQQ")
MAX_CHUNK_BYTES = 64 << 20        # a chunk declaring or producing more is damage, not data
MAX_CHUNK_RECORDS = 50_000        # soccerbt's 1 MiB chunks hold at most about 11,000 (94-byte messages)
MAX_REPLAY_STEPS = 1000           # keyframes come every 100 steps: a seek replays at most this many
BUDGET_RATIO = 128                # the command line: work at most 128 times the file's size ...
BUDGET_FLOOR = 64 << 20           # ... plus 64 MiB (a pass over a soccerbt log costs 13 to 27 times)
RECORD_COST = 64                  # a record walked costs as much work as 64 bytes decompressed
_WINDOW = 1 << 18                 # reading ahead while walking records and after damage
_CACHE_BYTES = 128 << 20          # decoded chunks kept (at least one)
_CACHED_CHUNKS = 6
_MAX_SMALL_RECORD = 1 << 16       # a channel record read while walking
_TREES_CACHED = 64
NO_NODE_DATA = ("holds no node data: it was converted from a JSON-lines log, which kept each robot's root "
                "status only (and the truth, blackboard and events); the tree tools need a log recorded as "
                "MCAP (soccerbt run --record FILE.mcap)")
INPUTS_ONLY = ("holds its brains' inputs only (recorded with --record-mode inputs): derive the full log first, "
               "while the tree files are unchanged: soccerbt replay derive {path} FULL.mcap")
_EMPTY_TREE: dict[str, Any] = {"nodes": [], "subtrees": [], "load": 0}


def _nonblocking(path: str, flags: int) -> int:
    import os

    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))


def is_mcap(path: str | Path) -> bool:
    """Whether the file is a regular file starting with MCAP's magic bytes (never opens a FIFO
    or a device)."""
    try:
        import os
        import stat

        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
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


class _Reader:
    """Reads a file forward through a window: walking records costs one read per window."""

    def __init__(self, f: Any, size: int) -> None:
        self.f = f
        self.size = size
        self.start = 0
        self.data = b""

    def read(self, offset: int, n: int, ahead: int = 16384) -> bytes:
        end = offset + n
        if not (self.start <= offset and end <= self.start + len(self.data)):
            self.f.seek(offset)
            self.data = self.f.read(max(n, ahead))
            self.start = offset
        return self.data[offset - self.start:end - self.start]

    def peek(self, offset: int, at_least: int) -> bytes:
        """The window's bytes from `offset` on (at least `at_least` of them unless the file ends
        first): what is already read is used again, so scanning forward reads each byte once."""
        if not (self.start <= offset and offset + at_least <= self.start + len(self.data)):
            self.f.seek(offset)
            self.data = self.f.read(max(at_least, _WINDOW))
            self.start = offset
        return self.data[offset - self.start:]


class McapLog:
    """An MCAP replay log opened for seeking (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []
        self.chunks: list[_ChunkRef] = []
        self.topics: dict[int, str] = {}
        self.header: dict[str, Any] = {}
        self.index: dict[str, Any] | None = None
        self.gaps: list[Gap] = []
        self.budget: int | None = None          # work that may still be done (None: no limit)
        self.budget_ratio = BUDGET_RATIO
        self.dt_s = 0.01
        self.size = 0
        self.complete = False
        self.robots: list[str] = []
        self.format_version = lf.FORMAT_VERSION
        self._cache: OrderedDict[int, list[tuple[str, int, bytes]]] = OrderedDict()
        self._cache_bytes: dict[int, int] = {}
        self._damaged: dict[int, str] = {}
        self._file: Any = None
        self._trees: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
        self._tables: dict[tuple[str, int], list[str]] = {}
        self._unknown_channels = False
        self._channels_learnt = False
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

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _open(self, budget_ratio: int | None) -> None:
        import os
        import stat

        p = self.path
        try:
            st = os.stat(p)
        except FileNotFoundError:
            raise ReplayError(p, None, "no such file") from None
        except OSError as exc:
            raise ReplayError(p, None, f"cannot read ({exc.strerror or exc})") from None
        if stat.S_ISDIR(st.st_mode):
            raise ReplayError(p, None, "is a directory, not a replay log")
        if not stat.S_ISREG(st.st_mode):
            raise ReplayError(p, None, "not a regular file (a FIFO or a device); a replay log is a file")
        try:  # never blocks, even on a FIFO swapped in since the stat (it then reads as no log)
            self._file = open(p, "rb", opener=_nonblocking)
        except OSError as exc:
            raise ReplayError(p, None, f"cannot read ({exc.strerror or exc})") from None
        f = self._file
        if f.read(8) != MAGIC:
            raise ReplayError(p, None, "not an MCAP file (soccerbt run --record FILE.mcap writes one)")
        self.size = f.seek(0, 2)
        if budget_ratio is not None:
            self.budget = budget_ratio * self.size + BUDGET_FLOOR
            self.budget_ratio = budget_ratio
        self._scan()
        if not self.chunks:
            raise ReplayError(p, None, "no readable chunk: empty or damaged from the start")
        if not self.complete and not self.warnings:
            self.warnings.append(f"{p}: no summary at the end (the run did not finish cleanly); "
                                 "read every whole chunk")
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

    def _scan(self) -> None:
        """Walk the records from the start; keep chunks (and the index attachment)."""
        self.complete = False
        reader = _Reader(self._file, self.size)
        offset = 8
        size = self.size
        unpack_from, times = _REC.unpack_from, _TIMES.unpack_from
        chunks = self.chunks
        while offset + 9 <= size:
            at = offset - reader.start
            if not (0 <= at and at + 9 + _CHUNK_HEAD.size <= len(reader.data)):
                reader.read(offset, 9 + _CHUNK_HEAD.size)
                at = 0
            opcode, length = unpack_from(reader.data, at)  # in the window: no call, no copy
            end = offset + 9 + length
            if length > size or end > size:
                if opcode in (_OP_CHUNK, _OP_ATTACHMENT, _OP_MESSAGE):
                    self.warnings.append(f"{self.path}: cut short at byte {offset} of {size} "
                                         "(the last chunk is incomplete); read up to there")
                else:
                    resync = self._resync(reader, offset + 1)
                    if resync is not None:
                        self.warnings.append(f"{self.path}: damaged record at byte {offset}; skipped to {resync}")
                        offset = resync
                        continue
                    self.warnings.append(f"{self.path}: unreadable data from byte {offset}; read up to there")
                break
            if opcode == _OP_CHUNK:
                if len(reader.data) - at >= 9 + 16:
                    start_ns, end_ns = times(reader.data, at + 9)
                    chunks.append(_ChunkRef(offset, 9 + length, round(start_ns / 1e7), round(end_ns / 1e7)))
            elif opcode == _OP_ATTACHMENT:
                self._read_attachment(offset, length)
            elif opcode == _OP_CHANNEL and length <= _MAX_SMALL_RECORD:  # the summary repeats every channel
                self._read_channel(reader.read(offset + 9, length))
            elif opcode == _OP_FOOTER:
                self.complete = True
                break
            elif opcode == 0 or opcode > 0x10:
                resync = self._resync(reader, offset + 1)
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

    def _resync(self, reader: _Reader, start: int) -> int | None:
        """The offset of the next plausible chunk record at or after `start`, or None. Scans
        forward through the reader's window (each byte read once), so repeated damage costs a
        linear walk."""
        size = self.size
        pos = start
        while pos < size:
            block = reader.peek(pos, min(4096, size - pos))
            i = block.find(b"\x06")
            while 0 <= i < len(block) - 48:
                _op, length = _REC.unpack_from(block, i)
                if 28 < length <= size - (pos + i) - 9:
                    (clen,) = struct.unpack_from("<I", block, i + 9 + 28)
                    comp = block[i + 9 + 32:i + 9 + 32 + clen]
                    if clen <= 4 and comp in (b"zstd", b"lz4", b""):
                        return pos + i
                i = block.find(b"\x06", i + 1)
            if pos + len(block) >= size:
                return None
            pos += max(1, len(block) - 48)
        return None

    def _read_attachment(self, offset: int, length: int) -> None:
        f = self._file
        f.seek(offset + 9)
        small = length <= lf.MAX_JSON_BYTES + 4096
        body = f.read(length if small else 16 + 4 + 1024)  # a large one: its name only
        try:
            o = 16
            (n,) = struct.unpack_from("<I", body, o)
            name = body[o + 4:o + 4 + n].decode() if n <= 1024 else ""
            if name != lf.INDEX_ATTACHMENT:
                return
            if not small:
                self.warnings.append(f"{self.path}: the index attachment at byte {offset} is too large "
                                     f"({length:,} bytes); scanning instead")
                return
            o += 4 + n
            (n,) = struct.unpack_from("<I", body, o)
            o += 4 + n
            (n,) = struct.unpack_from("<Q", body, o)
            self.index = lf.load_json(body[o + 8:o + 8 + n])
        except (struct.error, UnicodeDecodeError, ShapeError) as exc:
            self.warnings.append(f"{self.path}: damaged attachment at byte {offset} ({exc}); scanning instead")

    # --- chunks ---------------------------------------------------------------------------------

    def _chunk(self, i: int) -> list[tuple[str, int, bytes]]:
        """The messages of chunk i as (topic, step, data); [] for a damaged chunk (warned once)."""
        cached = self._cache.get(i)
        if cached is not None:
            self._cache.move_to_end(i)
            return cached
        if i in self._damaged:
            return []
        ref = self.chunks[i]
        try:
            messages, usize = self._decode_chunk(ref)
            if self._unknown_channels and not self._channels_learnt:
                # a file without its summary: channels are declared in the chunk that first used
                # them, so learn them from every chunk once, then decode this one again
                self._channels_learnt = True
                for j in range(len(self.chunks)):
                    if j != i and j not in self._damaged:
                        try:
                            self._decode_chunk(self.chunks[j])
                        except (ValueError, struct.error, OSError, MemoryError):
                            pass
                messages, usize = self._decode_chunk(ref)
        except (ValueError, struct.error, OSError, MemoryError) as exc:
            if isinstance(exc, ReplayError):
                raise
            why = f"chunk at byte {ref.offset} is damaged ({exc})"
            self._damaged[i] = why
            self.warnings.append(f"{self.path}: {why}; skipped")
            return []
        self._cache[i] = messages
        self._cache_bytes[i] = usize
        while len(self._cache) > 1 and (len(self._cache) > _CACHED_CHUNKS
                                        or sum(self._cache_bytes.values()) > _CACHE_BYTES):
            old, _ = self._cache.popitem(last=False)
            del self._cache_bytes[old]
        return messages

    def _spend(self, n: int) -> None:
        if self.budget is None:
            return
        self.budget -= n
        if self.budget < 0:
            raise ReplayError(self.path, None, f"stopped reading: decompressing this log has cost more than "
                                               f"{self.budget_ratio} times its size (a decompression bomb?)")

    def _decode_chunk(self, ref: _ChunkRef) -> tuple[list[tuple[str, int, bytes]], int]:
        f = self._file
        f.seek(ref.offset + 9)
        head = f.read(min(ref.length - 9, _CHUNK_HEAD.size + 4 + 16 + 8))
        _s, _e, usize, crc = _CHUNK_HEAD.unpack_from(head)
        o = _CHUNK_HEAD.size
        (n,) = struct.unpack_from("<I", head, o)
        if n > 16:
            raise ValueError("unknown compression")
        compression = head[o + 4:o + 4 + n].decode("ascii", "replace")
        o += 4 + n
        (n,) = struct.unpack_from("<Q", head, o)
        if usize > MAX_CHUNK_BYTES:
            raise ValueError(f"declares {usize:,} bytes of records, more than {MAX_CHUNK_BYTES:,}")
        if n > ref.length - 9 - (o + 8) or n > usize + (usize >> 6) + 4096:
            raise ValueError(f"{n:,} compressed bytes for {usize:,} bytes of records")
        f.seek(ref.offset + 9 + o + 8)
        payload = f.read(n)
        if len(payload) != n:
            raise ValueError("cut short")
        self._spend(usize)
        records = _decompress(compression, payload, usize)
        if crc and zlib.crc32(records) != crc:
            raise ValueError("checksum mismatch")
        messages, count = self._records(records)
        self._spend(RECORD_COST * count)
        return messages, usize

    def _records(self, records: bytes) -> tuple[list[tuple[str, int, bytes]], int]:
        out: list[tuple[str, int, bytes]] = []
        mv = memoryview(records)
        o, end = 0, len(records)
        topics = self.topics
        dt_ns = self.dt_s * 1e9
        count = 0
        while o + 9 <= end:
            opcode, length = _REC.unpack_from(records, o)
            body_start = o + 9
            o = body_start + length
            if o > end:
                raise ValueError("record runs past the chunk")
            count += 1
            if count > MAX_CHUNK_RECORDS:
                raise ValueError(f"more than {MAX_CHUNK_RECORDS:,} records in one chunk")
            if opcode == _OP_MESSAGE:
                if length < _MESSAGE_HEAD.size:
                    raise ValueError("message record too short")
                cid, _seq, log_ns, _pub = _MESSAGE_HEAD.unpack_from(records, body_start)
                topic = topics.get(cid)
                if topic is None:
                    self._unknown_channels = True
                else:
                    out.append((topic, round(log_ns / dt_ns), bytes(mv[body_start + _MESSAGE_HEAD.size:o])))
            elif opcode == _OP_CHANNEL:
                cid, _sid = struct.unpack_from("<HH", records, body_start)
                (tn,) = struct.unpack_from("<I", records, body_start + 4)
                if tn > length - 8:
                    raise ValueError("channel record cut short")
                topics[cid] = bytes(mv[body_start + 8:body_start + 8 + tn]).decode()
            elif opcode != _OP_SCHEMA:
                raise ValueError(f"a record of kind {opcode:#04x} inside a chunk")
        if o != end:
            raise ValueError("trailing bytes after the last record")
        return out, count

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

    def step_groups(self, first_step: int = 0, last_step: int | None = None
                    ) -> Iterator[tuple[int, list[tuple[str, bytes]]]]:
        """(step, [(topic, data), ...]) of the messages of each step first..last in file order,
        grouped by their step (a step's tree and keyframe at a load, its truth, ticks, inputs,
        keyframes, GameController, events, scene and commands)."""
        current: int | None = None
        group: list[tuple[str, bytes]] = []
        for topic, step, data in self.messages(first_step, last_step):
            if step != current:
                if current is not None:
                    yield current, group
                current, group = step, []
            group.append((topic, data))
        if current is not None:
            yield current, group

    # --- what the log holds ---------------------------------------------------------------------

    @property
    def first_step(self) -> int:
        return 1

    @property
    def last_step(self) -> int:
        """The last step the log holds (the index says it; a log cut short: its last chunk's);
        0 for a log of no step (a flight log's segment opened as its brain stopped)."""
        if self.index is not None and isinstance(self.index.get("steps"), int):
            if self.index["steps"] or self.complete:
                return int(self.index["steps"])
        return max((c.end_step for c in self.chunks), default=0)

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
            raise ReplayError(self.path, None, f"no robot {robot!r} (robots: {', '.join(self.robots)})")

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


_ZSTD: list[Any] = []


def _zstd() -> Any:
    if not _ZSTD:
        import zstandard

        _ZSTD.append(zstandard.ZstdDecompressor())
    return _ZSTD[0]


def _decompress(compression: str, payload: bytes, usize: int) -> bytes:
    """A chunk's records: at most `usize` bytes are ever produced, whatever the frame claims (a
    zstd frame declaring more is refused unread; one declaring no size is read as a stream that
    stops after `usize` + 1 bytes); ValueError unless exactly `usize` come out."""
    if compression == "zstd":
        import zstandard

        try:
            declared = zstandard.frame_content_size(payload)
            if declared > usize:
                raise ValueError(f"its zstd frame declares {declared:,} bytes, more than the {usize:,} of the chunk")
            if declared >= 0:  # a buffer of the frame's size, at most the chunk's: zstd writes no further
                records = _zstd().decompress(payload, max_output_size=usize)
                if len(records) != usize:
                    raise ValueError(f"decompresses to {len(records):,} bytes, not the {usize:,} it declares")
                return records
            reader = _zstd().stream_reader(io.BytesIO(payload), read_across_frames=True)
            parts, got = [], 0
            while got <= usize:
                part = reader.read(usize + 1 - got)
                if not part:
                    break
                parts.append(part)
                got += len(part)
            records = b"".join(parts)
        except zstandard.ZstdError as exc:
            raise ValueError(f"zstd: {exc}") from None
    elif compression == "lz4":
        import lz4.frame

        try:
            d = lz4.frame.LZ4FrameDecompressor()
            records = d.decompress(payload, max_length=usize + 1)
        except RuntimeError as exc:
            raise ValueError(f"lz4: {exc}") from None
    elif compression == "":
        records = payload
    else:
        raise ValueError(f"unknown compression {compression!r}")
    if len(records) > usize:
        raise ValueError(f"decompresses to more than the {usize:,} bytes it declares")
    if len(records) < usize:
        raise ValueError(f"decompresses to {len(records):,} bytes, not the {usize:,} it declares")
    return records


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
