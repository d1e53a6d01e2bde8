"""An MCAP file walked record by record: its chunks indexed by step, damage skipped, chunks decoded
within a work budget.

``McapChunks`` is the container half of a replay log (``soccerbt.log.reader.McapLog`` builds on
it). Opening walks the file's records (reading each chunk's header, never its data) when the file
is whole; a file cut short (a killed run) or damaged is walked the same way, every intact chunk
kept and each damaged one skipped and reported in ``warnings``. ``messages(first, last)`` yields
the messages of the steps first..last through the chunks that hold them (a few decoded chunks are
cached). Records are parsed here (MCAP's record layout: opcode u8, length u64, fields
little-endian), so that damage is handled per chunk.

A log is untrusted input (a file shared in a bug report). What reading its chunks can cost is
bounded:

- a chunk is decompressed by a stream that stops at the size the chunk record declares (at
  most ``MAX_CHUNK_BYTES``), whatever its zstd or lz4 frame claims, and is damaged when it
  produces more or less; it may hold at most ``MAX_CHUNK_RECORDS`` records, and only schema,
  channel and message records;
- ``budget``: when set (the command line sets ``BUDGET_RATIO``), the work one log object may do
  in all (bytes decompressed, and ``RECORD_COST`` for every record walked) is that many times
  the file's size (plus ``BUDGET_FLOOR``); past it a ``ReplayError`` says so (a decompression
  bomb spread over many chunks);
- reading after damage looks for the next chunk in a window moving forward, so the walk is
  linear in the file.
"""
from __future__ import annotations

import io
import os
import stat
import struct
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zstandard

from soccerbt.log import format as lf
from soccerbt.log.format import ReplayError, ShapeError

__all__ = ["McapChunks", "ChunkRef", "is_mcap", "MAGIC", "MAX_CHUNK_BYTES", "MAX_CHUNK_RECORDS", "BUDGET_RATIO",
           "BUDGET_FLOOR", "RECORD_COST"]

MAGIC = b"\x89MCAP0\r\n"
_OP_HEADER, _OP_FOOTER, _OP_SCHEMA, _OP_CHANNEL, _OP_MESSAGE, _OP_CHUNK = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06
_OP_ATTACHMENT, _OP_DATA_END = 0x09, 0x0F
_REC = struct.Struct("<BQ")
_CHUNK_HEAD = struct.Struct("<QQQI")
_TIMES = struct.Struct("<QQ")
_MESSAGE_HEAD = struct.Struct("<HIQQ")
MAX_CHUNK_BYTES = 64 << 20        # a chunk declaring or producing more is damage, not data
MAX_CHUNK_RECORDS = 50_000        # soccerbt's 1 MiB chunks hold at most about 11,000 (94-byte messages)
BUDGET_RATIO = 128                # the command line: work at most 128 times the file's size ...
BUDGET_FLOOR = 64 << 20           # ... plus 64 MiB (a pass over a soccerbt log costs 13 to 27 times)
RECORD_COST = 64                  # a record walked costs as much work as 64 bytes decompressed
_WINDOW = 1 << 18                 # reading ahead while walking records and after damage
_CACHE_BYTES = 128 << 20          # decoded chunks kept (at least one)
_CACHED_CHUNKS = 6
_MAX_SMALL_RECORD = 1 << 16       # a channel record read while walking


def _nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))


def is_mcap(path: str | Path) -> bool:
    """Whether the file is a regular file starting with MCAP's magic bytes (never opens a FIFO
    or a device)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as f:
            return f.read(8) == MAGIC
    except OSError:
        return False


@dataclass(slots=True)
class ChunkRef:
    """Where a chunk lies in the file and the steps it holds (a live log's: none in the file)."""

    offset: int           # of the chunk record (its opcode)
    length: int           # of the whole record
    start_step: int
    end_step: int


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


class McapChunks:
    """An MCAP file's chunks, indexed by step and decoded on demand (see the module docstring).

    ``chunks``: every intact chunk's place and steps; ``topics``: channel id -> topic;
    ``index``: the log's index attachment when the file holds one (None otherwise); ``dt_s``: the
    step length the steps of the messages are counted in; ``warnings``: the damage found."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []
        self.chunks: list[ChunkRef] = []
        self.topics: dict[int, str] = {}
        self.index: dict[str, Any] | None = None
        self.budget: int | None = None          # work that may still be done (None: no limit)
        self.budget_ratio = BUDGET_RATIO
        self.dt_s = 0.01
        self.size = 0
        self.complete = False
        self._cache: OrderedDict[int, list[tuple[str, int, bytes]]] = OrderedDict()
        self._cache_bytes: dict[int, int] = {}
        self._damaged: dict[int, str] = {}
        self._file: Any = None
        self._unknown_channels = False
        self._channels_learnt = False

    # --- opening --------------------------------------------------------------------------------

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _open_file(self, budget_ratio: int | None) -> None:
        """Open the file (a regular MCAP file, never blocking) and walk its records; `budget_ratio`:
        decompress at most that many times the file's size (plus BUDGET_FLOOR) over the object's
        life (None: no limit)."""
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
                    chunks.append(ChunkRef(offset, 9 + length, round(start_ns / 1e7), round(end_ns / 1e7)))
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

    def _decode_chunk(self, ref: ChunkRef) -> tuple[list[tuple[str, int, bytes]], int]:
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

    # --- the steps held ---------------------------------------------------------------------------

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


_ZSTD: list[Any] = []


def _zstd() -> Any:
    if not _ZSTD:
        _ZSTD.append(zstandard.ZstdDecompressor())
    return _ZSTD[0]


def _decompress(compression: str, payload: bytes, usize: int) -> bytes:
    """A chunk's records: at most `usize` bytes are ever produced, whatever the frame claims (a
    zstd frame declaring more is refused unread; one declaring no size is read as a stream that
    stops after `usize` + 1 bytes); ValueError unless exactly `usize` come out."""
    if compression == "zstd":
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
        # deferred: optional dependency (lz4: not one of soccerbt's; only a log with lz4 chunks needs it)
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
