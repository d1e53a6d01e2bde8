"""Helpers of the hostile-input tests (issue 28): running soccerbt under a memory cap, and MCAP
logs built byte by byte or rewritten from a real log with one thing changed.

Nothing here is a fixture file: every hostile log is made by the test that uses it, from a real
log recorded in the test run (``record_small``) or from records written here (``record``,
``chunk``, ``message``, ``channel``, ``attachment``), so that each can be regenerated and read.

Loaded by the tests with ``load_hostile()`` (the tests run with ``--import-mode=importlib``).
"""
from __future__ import annotations

import os
import resource
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent
MAGIC = b"\x89MCAP0\r\n"
SMALL_TREE = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="top">
      <Script code="marker := 1"/>
      <SubTree ID="Inner" name="inner" _autoremap="true"/>
      <Sleep name="wait" msec="30"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Inner">
    <Script code="inner_count := 2"/>
  </BehaviorTree>
</root>
"""


# --- running soccerbt -----------------------------------------------------------------------------


def _cap(mib: int) -> Callable[[], None]:
    def apply() -> None:
        limit = mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def soccerbt(*args: str, mem_mib: int = 1024, timeout: float = 120.0, cwd: Path | None = None,
             stdin: Any = subprocess.DEVNULL) -> subprocess.CompletedProcess:
    """``python -m soccerbt ARGS`` in a child with at most `mem_mib` MiB of address space; a
    child still running after `timeout` seconds (a hang) fails the test. Never a traceback."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "OPENBLAS_NUM_THREADS": "1",
           "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
    proc = subprocess.run([sys.executable, "-m", "soccerbt", *args], capture_output=True, text=True,
                          cwd=cwd or PROJECT_ROOT, preexec_fn=_cap(mem_mib), timeout=timeout, env=env, stdin=stdin)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return proc


# --- MCAP records ---------------------------------------------------------------------------------


def mcap_str(text: str | bytes) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("<I", len(data)) + data


def record(opcode: int, body: bytes) -> bytes:
    return struct.pack("<BQ", opcode, len(body)) + body


def header() -> bytes:
    return record(0x01, mcap_str("") + mcap_str("hostile test"))


def channel(cid: int, topic: str, encoding: str = "json") -> bytes:
    return record(0x04, struct.pack("<HH", cid, 0) + mcap_str(topic) + mcap_str(encoding) + struct.pack("<I", 0))


def message(cid: int, log_ns: int, data: bytes, seq: int = 0) -> bytes:
    return record(0x05, struct.pack("<HIQQ", cid, seq, log_ns, log_ns) + data)


def compress(records: bytes, compression: str) -> bytes:
    if compression == "zstd":
        import zstandard

        return zstandard.ZstdCompressor().compress(records)
    if compression == "lz4":
        import lz4.frame

        return lz4.frame.compress(records)
    return records


def chunk(records: bytes, start_ns: int = 0, end_ns: int = 0, compression: str = "zstd", *,
          usize: int | None = None, payload: bytes | None = None, crc: bool = True) -> bytes:
    """A chunk record holding `records` (or the given `payload`, compressed already), declaring
    `usize` bytes of records (default: the truth)."""
    data = compress(records, compression) if payload is None else payload
    size = len(records) if usize is None else usize
    check = zlib.crc32(records) if crc and payload is None else 0
    return record(0x06, struct.pack("<QQQI", start_ns, end_ns, size, check) + mcap_str(compression)
                  + struct.pack("<Q", len(data)) + data)


def attachment(name: str, data: bytes) -> bytes:
    return record(0x09, struct.pack("<QQ", 0, 0) + mcap_str(name) + mcap_str("application/json")
                  + struct.pack("<Q", len(data)) + data + struct.pack("<I", 0))


def footer() -> bytes:
    return record(0x02, struct.pack("<QQI", 0, 0, 0))


# --- a real log, taken apart and put together again -----------------------------------------------


@dataclass
class Msg:
    topic: str
    cid: int
    log_ns: int
    data: bytes


@dataclass
class Log:
    """A log's chunks as lists of raw channel/schema records and messages, and its index."""

    chunks: list[list[Any]]       # each: bytes (a channel or schema record, raw) or Msg
    ranges: list[tuple[int, int]]  # each chunk's start and end time
    index: bytes | None
    cids: dict[str, int]          # topic -> channel id

    def messages(self, topic: str | None = None) -> list[Msg]:
        return [m for c in self.chunks for m in c if isinstance(m, Msg) and (topic is None or m.topic == topic)]

    def write(self, path: Path, *, compression: str = "zstd", summary: bool = True,
              extra: list[bytes] = ()) -> Path:
        """The log as an MCAP file, its chunks compressed anew; `extra` records (crafted chunks)
        after the last chunk."""
        out = [MAGIC, header()]
        for items, (start, end) in zip(self.chunks, self.ranges, strict=False):
            records = b"".join(i if isinstance(i, bytes) else message(i.cid, i.log_ns, i.data) for i in items)
            out.append(chunk(records, start, end, compression))
        out += list(extra)
        if self.index is not None:
            out.append(attachment("soccerbt/index.json", self.index))
        if summary:
            out += [record(0x0F, struct.pack("<I", 0)), footer()]
        out.append(MAGIC)
        path.write_bytes(b"".join(out))
        return path


def read_log(path: Path) -> Log:
    """Take a log recorded by soccerbt apart (its chunks decompressed, records walked)."""
    import zstandard

    data = path.read_bytes()
    o = 8
    chunks, ranges, index, cids = [], [], None, {}
    while o + 9 <= len(data):
        op, length = struct.unpack_from("<BQ", data, o)
        body = data[o + 9:o + 9 + length]
        o += 9 + length
        if op == 0x06:
            start, end, usize, _crc = struct.unpack_from("<QQQI", body)
            (n,) = struct.unpack_from("<I", body, 28)
            comp = body[32:32 + n].decode()
            (plen,) = struct.unpack_from("<Q", body, 32 + n)
            payload = body[40 + n:40 + n + plen]
            records = zstandard.ZstdDecompressor().decompress(payload, max_output_size=usize) if comp else payload
            items: list[Any] = []
            r = 0
            while r + 9 <= len(records):
                rop, rlen = struct.unpack_from("<BQ", records, r)
                raw = records[r:r + 9 + rlen]
                rb = records[r + 9:r + 9 + rlen]
                if rop == 0x04:
                    cid, _sid = struct.unpack_from("<HH", rb)
                    (tn,) = struct.unpack_from("<I", rb, 4)
                    cids[rb[8:8 + tn].decode()] = cid
                    items.append(raw)
                elif rop == 0x05:
                    cid, _seq, log_ns, _pub = struct.unpack_from("<HIQQ", rb)
                    topic = next(t for t, c in cids.items() if c == cid)
                    items.append(Msg(topic, cid, log_ns, bytes(rb[22:])))
                else:
                    items.append(raw)
                r += 9 + rlen
            chunks.append(items)
            ranges.append((start, end))
        elif op == 0x09:
            n = struct.unpack_from("<I", body, 16)[0]
            name = body[20:20 + n].decode()
            o2 = 20 + n
            m = struct.unpack_from("<I", body, o2)[0]
            o2 += 4 + m
            (dlen,) = struct.unpack_from("<Q", body, o2)
            if name == "soccerbt/index.json":
                index = body[o2 + 8:o2 + 8 + dlen]
        elif op == 0x02:
            break
    return Log(chunks, ranges, index, cids)


def record_small(folder: Path, seconds: float = 0.5, seed: int = 1, name: str = "small.mcap",
                 tree_text: str = SMALL_TREE, chunk_bytes: int | None = None) -> Path:
    """A real log: one robot of blue playing a small tree (red idle), recorded in this process."""
    from soccerbt.log.writer import McapRecorder
    from soccerbt.match import Match, MatchConfig

    tree = folder / "small.xml"
    tree.write_text(tree_text)
    match = Match(MatchConfig(seed=seed, duration_s=seconds, team_size=1, blue_tree=str(tree), red_tree=str(tree),
                              idle_teams=("red",)))
    out = folder / name
    recorder = McapRecorder(out, **({"chunk_bytes": chunk_bytes} if chunk_bytes else {}))
    recorder.on_start(match)
    match.observers.append(recorder)
    match.run(seconds)
    recorder.finish(match.result())
    return out


def load_hostile() -> Any:  # noqa: D103 - the tests' loader (importlib mode)
    return sys.modules[__name__]


def lying_zstd_frame(data: bytes, claimed: int) -> bytes:
    """A zstd frame of `data` whose header claims `claimed` bytes of content (8-byte size field)."""
    import zstandard

    c = zstandard.ZstdCompressor(write_content_size=False, write_checksum=False).compress(data)
    fhd, wd = c[4], c[5]
    assert fhd & 0xE0 == 0, "expected no content size and no single segment"
    return c[:4] + bytes([0xC0 | (fhd & 0x3F), wd]) + struct.pack("<Q", claimed) + c[6:]


def zeros_frame(size: int, compression: str = "zstd", *, declared: bool = True) -> bytes:
    """A frame that decompresses to `size` zero bytes, made a MiB at a time (a bomb: small);
    `declared`: its header says how much (zstd)."""
    block = bytes(1 << 20)
    if compression == "zstd":
        import zstandard

        compressor = zstandard.ZstdCompressor(level=3, write_content_size=declared)
        obj = compressor.compressobj(size=size) if declared else compressor.compressobj()
        parts = [obj.compress(block) for _ in range(size >> 20)]
        return b"".join(parts) + obj.flush()
    import lz4.frame

    ctx = lz4.frame.create_compression_context()
    parts = [lz4.frame.compress_begin(ctx, source_size=size, block_size=lz4.frame.BLOCKSIZE_MAX4MB, block_linked=1)]
    parts += [lz4.frame.compress_chunk(ctx, block) for _ in range(size >> 20)]
    return b"".join(parts) + lz4.frame.compress_flush(ctx)
