"""``soccerbt replay FOLDER``: the logs of a folder, one line each, read cheaply.

A flight recorder's folder (``soccerbt brain``) or any folder of match logs: for every
``*.mcap`` file, its time, robot, tree, duration and score when the log knows it. Nothing is
decompressed whole: a log's header comes from its first chunk, its duration from MCAP's summary
section (the statistics' last message time) or, in a log cut short, from the chunk records'
headers walked with small reads, and the score from the last chunk (the summary a finished run
writes, else the newest GameController state, looked for at most ``SCORE_CHUNKS`` chunks back).
A file that is no readable soccerbt log is listed with what is wrong, never a traceback.

What a listing may cost is bounded: at most ``MAX_FILES`` files, each read through at most two
chunks of at most ``MAX_CHUNK_BYTES`` (plus ``SCORE_CHUNKS`` small ones), and a summary section
of at most ``MAX_SUMMARY_BYTES``. Only regular files are opened (a link, a FIFO or a device is
listed as such, unopened), without blocking.

``list_folder(folder)`` gives ``LogEntry`` objects, ``entry_lines`` the text, ``entry_json`` the
``--json`` objects.
"""
from __future__ import annotations

import json
import os
import re
import stat
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from soccerbt.log import format as lf
from soccerbt.log.format import ShapeError
from soccerbt.log.mcap_chunks import MAGIC, _decompress

__all__ = ["LogEntry", "list_folder", "read_entry", "entry_lines", "entry_json", "MAX_FILES"]

MAX_FILES = 10_000               # files of one folder looked at (the newest names first are not guessed: by name)
MAX_CHUNK_BYTES = 8 << 20        # a chunk the listing decompresses (soccerbt writes 1 MiB, flight logs 16 KiB)
MAX_SUMMARY_BYTES = 16 << 20     # MCAP's summary section read at the end of a file
MAX_WALK_RECORDS = 1_000_000     # records walked in a file without a summary (16 KiB chunks: 16 GB)
SCORE_CHUNKS = 4                 # chunks looked through, from the last one back, for a score
_REC = struct.Struct("<BQ")
_TIMES = struct.Struct("<QQ")
_OP_HEADER, _OP_FOOTER, _OP_CHANNEL, _OP_MESSAGE, _OP_CHUNK = 0x01, 0x02, 0x04, 0x05, 0x06
_OP_CHUNK_INDEX, _OP_STATISTICS = 0x08, 0x0B
_FOOTER_BYTES = 9 + 20
_FLIGHT_NAME = re.compile(r"^(?P<robot>[A-Za-z0-9_]+)-(?P<date>\d{8})-(?P<time>\d{6})-\d+-(?P<segment>\d{3})\.mcap$")


@dataclass
class LogEntry:
    """One file of a folder: what the listing could read of it (``error`` when nothing)."""

    path: Path
    size_bytes: int = 0
    started: str = ""             # local time "YYYY-mm-dd HH:MM:SS"
    time_from: str = ""           # "name" (a flight log's name) or "modified" (the file's time)
    robot: str = ""
    robots: list[str] = field(default_factory=list)
    trees: dict[str, str] = field(default_factory=dict)   # team -> tree file
    source: str = ""              # "brain" or "match"
    segment: int | None = None
    duration_s: float | None = None
    score: dict[str, int] | None = None
    complete: bool = False        # MCAP's summary is there (the run ended cleanly)
    inputs: bool = False          # it holds the brains' inputs (soccerbt replay LOG --rerun can re-run it)
    error: str | None = None

    @property
    def tree(self) -> str:
        """The tree file names, one per playing team ("game.xml", or "a.xml / b.xml")."""
        names = list(dict.fromkeys(Path(p).name for p in self.trees.values()))
        return " / ".join(names)


class _Broken(Exception):
    """What is wrong with a file (listed, not raised further)."""


def list_folder(folder: str | Path) -> tuple[list[LogEntry], list[str]]:
    """The ``*.mcap`` files of ``folder`` (not its subfolders), oldest first, and notes (files
    left out). OSError when the folder cannot be read."""
    folder = Path(folder)
    names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".mcap"))
    notes = []
    if len(names) > MAX_FILES:
        notes.append(f"{folder}: {len(names):,} logs; listed the first {MAX_FILES:,} by name")
        names = names[:MAX_FILES]
    entries = [read_entry(folder / name) for name in names]
    entries.sort(key=lambda e: (e.started or "~", e.path.name))
    return entries, notes


def read_entry(path: Path) -> LogEntry:
    """One log's listing entry (``error`` set when it cannot be read)."""
    entry = LogEntry(path)
    try:
        st = os.lstat(path)
    except OSError as exc:
        entry.error = f"{path}: cannot read ({exc.strerror or exc})"
        return entry
    entry.size_bytes = st.st_size
    _when(entry, st)
    if stat.S_ISLNK(st.st_mode):
        entry.error = f"{path}: a symbolic link; not followed"
        return entry
    if not stat.S_ISREG(st.st_mode):
        entry.error = f"{path}: not a regular file (a FIFO, a device or a folder); not opened"
        return entry
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        entry.error = f"{path}: cannot read ({exc.strerror or exc})"
        return entry
    with os.fdopen(fd, "rb") as f:
        try:
            _read(entry, f, st.st_size)
        except _Broken as exc:
            entry.error = f"{path}: {exc}"
        except (OSError, ValueError, struct.error, MemoryError) as exc:
            entry.error = f"{path}: unreadable ({exc})"
    return entry


def _when(entry: LogEntry, st: os.stat_result) -> None:
    """The start time from a flight log's name, else the file's modification time."""
    m = _FLIGHT_NAME.match(entry.path.name)
    if m is not None:
        try:
            t = time.strptime(m["date"] + m["time"], "%Y%m%d%H%M%S")
            entry.started = time.strftime("%Y-%m-%d %H:%M:%S", t)
            entry.time_from = "name"
            return
        except ValueError:
            pass
    entry.started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(st.st_mtime))
    entry.time_from = "modified"


def _read(entry: LogEntry, f: Any, size: int) -> None:
    if f.read(8) != MAGIC:
        raise _Broken("not an MCAP file")
    chunks, complete, channels = _chunk_table(f, size)
    entry.complete = complete
    if not chunks:
        raise _Broken("no whole chunk: empty, or cut short before its first second")
    header = None
    for topic, _ns, data in _chunk_messages(f, chunks[0], channels):
        if topic == lf.HEADER_TOPIC:
            try:
                header = lf.check_header(lf.load_json(data, 1 << 20))
            except ShapeError as exc:
                raise _Broken(f"the header is damaged ({exc})") from None
            break
    if header is None or header.get("format") != lf.FORMAT:
        raise _Broken("not a soccerbt replay log (no soccerbt header in its first chunk)")
    entry.robots = list(header["robots"])
    entry.source = "brain" if header.get("source") == "brain" else "match"
    robot = header.get("robot")
    entry.robot = robot if isinstance(robot, str) and entry.source == "brain" else _robots_text(entry.robots)
    segment = header.get("segment")
    entry.segment = segment if isinstance(segment, int) and not isinstance(segment, bool) else None
    trees = header.get("trees") or {}
    for team, tree in trees.items():
        if isinstance(tree, dict) and not tree.get("idle") and isinstance(tree.get("path"), str):
            entry.trees[team] = tree["path"]
    entry.inputs = isinstance(header.get("inputs"), dict)
    entry.duration_s = round(max(c[3] for c in chunks) / 1e9, 3)
    entry.score = _score(f, chunks, channels)


def _robots_text(robots: list[str]) -> str:
    """"blue1" for one robot, "blue1, red1" for two, "6 robots" for more."""
    return ", ".join(robots) if len(robots) <= 2 else f"{len(robots)} robots"


def _chunk_table(f: Any, size: int) -> tuple[list[tuple[int, int, int, int]], bool, dict[int, str]]:
    """[(offset, length, start_ns, end_ns)] of the file's chunks, whether its summary is there,
    and the channels the summary names: from the summary's chunk indexes when the file ends with
    MCAP's footer, else by walking the records' headers (small reads, no data)."""
    channels: dict[int, str] = {}
    if size >= 8 + _FOOTER_BYTES + 8:
        f.seek(size - 8 - _FOOTER_BYTES)
        tail = f.read(_FOOTER_BYTES + 8)
        if tail[-8:] == MAGIC and tail[0] == _OP_FOOTER:
            summary_start = struct.unpack_from("<Q", tail, 9)[0]
            end = size - 8 - _FOOTER_BYTES
            if 8 < summary_start <= end and end - summary_start <= MAX_SUMMARY_BYTES:
                f.seek(summary_start)
                chunks = _summary_chunks(f.read(end - summary_start), size, channels)
                if chunks:
                    return chunks, True, channels
    return _walk(f, size), False, channels


def _summary_chunks(data: bytes, size: int, channels: dict[int, str]) -> list[tuple[int, int, int, int]]:
    """The chunk indexes (and channels) of MCAP's summary section."""
    out = []
    o = 0
    while o + 9 <= len(data):
        op, length = _REC.unpack_from(data, o)
        body = data[o + 9:o + 9 + length]
        o += 9 + length
        if len(body) != length:
            break
        if op == _OP_CHUNK_INDEX and length >= 32:
            start, end, offset, chunk_len = struct.unpack_from("<QQQQ", body, 0)
            if 8 <= offset and offset + chunk_len <= size:
                out.append((offset, chunk_len, start, end))
        elif op == _OP_CHANNEL and length >= 8:
            _channel(body, channels)
    out.sort()
    return out


def _walk(f: Any, size: int) -> list[tuple[int, int, int, int]]:
    """The whole chunk records of a file without a summary (a run cut short, or still running)."""
    out = []
    offset = 8
    for _ in range(MAX_WALK_RECORDS):
        if offset + 9 + 16 > size:
            break
        f.seek(offset)
        head = f.read(9 + 16)
        op, length = _REC.unpack_from(head, 0)
        if op == 0 or op > 0x10 or offset + 9 + length > size:
            break  # damage or a torn end: what came before is the log
        if op == _OP_CHUNK:
            start, end = _TIMES.unpack_from(head, 9)
            out.append((offset, 9 + length, start, end))
        elif op == _OP_FOOTER:
            break
        offset += 9 + length
    return out


def _channel(body: bytes, channels: dict[int, str]) -> None:
    cid = struct.unpack_from("<H", body, 0)[0]
    (n,) = struct.unpack_from("<I", body, 4)
    if n <= len(body) - 8:
        channels[cid] = body[8:8 + n].decode("utf-8", "replace")


def _chunk_messages(f: Any, chunk: tuple[int, int, int, int], channels: dict[int, str]) -> list[tuple[str, int, bytes]]:
    """The messages of one chunk as (topic, log time ns, data), decompressed within its declared
    size (at most MAX_CHUNK_BYTES); channels it declares are learnt."""
    offset, length = chunk[0], chunk[1]
    f.seek(offset + 9)
    body = f.read(min(length - 9, MAX_CHUNK_BYTES + 4096))
    if len(body) < 32:
        raise _Broken(f"the chunk at byte {offset} is cut short")
    usize = struct.unpack_from("<Q", body, 16)[0]
    if usize > MAX_CHUNK_BYTES:
        raise _Broken(f"the chunk at byte {offset} declares {usize:,} bytes (more than a listing reads)")
    (n,) = struct.unpack_from("<I", body, 28)
    compression = body[32:32 + n].decode("ascii", "replace")
    o = 32 + n
    (clen,) = struct.unpack_from("<Q", body, o)
    payload = body[o + 8:o + 8 + clen]
    if len(payload) != clen:
        raise _Broken(f"the chunk at byte {offset} is cut short")
    try:
        records = _decompress(compression, payload, usize)
    except ValueError as exc:
        raise _Broken(f"the chunk at byte {offset} is damaged ({exc})") from None
    out = []
    o = 0
    while o + 9 <= len(records):
        op, rlen = _REC.unpack_from(records, o)
        body = records[o + 9:o + 9 + rlen]
        o += 9 + rlen
        if len(body) != rlen:
            raise _Broken(f"the chunk at byte {offset} is damaged (a record runs past its end)")
        if op == _OP_CHANNEL and rlen >= 8:
            _channel(body, channels)
        elif op == _OP_MESSAGE and rlen >= 22:
            cid, _seq, log_ns = struct.unpack_from("<HIQ", body, 0)
            topic = channels.get(cid)
            if topic is not None:
                out.append((topic, log_ns, body[22:]))
    return out


def _score(f: Any, chunks: list[tuple[int, int, int, int]], channels: dict[int, str]) -> dict[str, int] | None:
    """The summary's score (a finished match or brain), else the newest GameController state's,
    from the last chunks (at most SCORE_CHUNKS); None when none of them says."""
    for chunk in reversed(chunks[-SCORE_CHUNKS:]):
        try:
            messages = _chunk_messages(f, chunk, channels)
        except _Broken:
            continue
        for topic, _ns, data in reversed(messages):
            try:
                if topic == lf.SUMMARY_TOPIC:
                    score = lf.check_summary(lf.load_json(data, 1 << 20)).get("score")
                    if isinstance(score, dict):
                        return {str(k): int(v) for k, v in score.items()}
                elif topic == lf.GC_TOPIC:
                    gc = lf.load_json(data, 1 << 16)
                    if not isinstance(gc, dict):
                        continue
                    blue, red = gc.get("score_blue"), gc.get("score_red")
                    if isinstance(blue, int) and isinstance(red, int):
                        return {"blue": blue, "red": red}
            except (ShapeError, AttributeError):
                continue
    return None


def _duration_text(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    m, s = divmod(int(round(seconds)), 60)
    return f"{m}:{s:02d}"


def entry_lines(entries: list[LogEntry]) -> list[str]:
    """The text listing: a header line, then one line per log (a broken one says what is wrong)."""
    rows = [("time", "robot", "tree", "duration", "score", "file")]
    broken = []
    for e in entries:
        if e.error is not None:
            broken.append(f"{e.started}  BROKEN  {e.error}")
            continue
        score = "-" if e.score is None else " ".join(f"{k} {v}" for k, v in e.score.items())
        name = e.path.name + ("" if e.complete else " (cut short or still written)")
        rows.append((e.started, e.robot, e.tree or "-", _duration_text(e.duration_s), score, name))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r[:5], widths, strict=False)) + "  " + r[5] for r in rows]
    return lines + broken


def entry_json(entry: LogEntry) -> dict[str, Any]:
    """One log as a ``--json`` object."""
    return {"file": str(entry.path), "time": entry.started or None, "time_from": entry.time_from or None,
            "robot": entry.robot or None, "robots": entry.robots, "tree": entry.tree or None, "trees": entry.trees,
            "source": entry.source or None, "segment": entry.segment, "duration_s": entry.duration_s,
            "score": entry.score, "complete": entry.complete, "inputs": entry.inputs, "size_bytes": entry.size_bytes,
            "error": entry.error}


_TOOL_OPTIONS = ("tree", "node", "transitions", "find", "btlog", "verify", "at", "screenshot", "info", "robot",
                 "from_s", "to_s", "tick", "select", "rerun", "out")


def list_command(args: Any, out: Any, err: Any) -> int:
    """``soccerbt replay FOLDER [--json]``: 0 listed (broken files included), 2 a folder that
    cannot be read or an option that needs one log."""
    used = [name for name in _TOOL_OPTIONS if getattr(args, name, None) not in (None, False)]
    if used:
        flag = "--" + used[0].replace("_s", "").replace("_", "-")
        print(f"soccerbt replay: {args.file} is a folder: it lists its logs (--json); {flag} needs one log file",
              file=err)
        return 2
    try:
        entries, notes = list_folder(args.file)
    except OSError as exc:
        print(f"soccerbt replay: {args.file}: cannot list ({exc.strerror or exc})", file=err)
        return 2
    for note in notes:
        print(f"note: {note}", file=err)
    if args.json:
        out.write(json.dumps([entry_json(e) for e in entries], separators=(",", ":")) + "\n")
        return 0
    if not entries:
        print(f"soccerbt replay: {args.file}: no .mcap logs", file=err)
        return 0
    for line in entry_lines(entries):
        print(line, file=out)
    return 0
