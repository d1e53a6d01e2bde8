"""The replay reader on hostile logs of growing size: its cost must grow linearly with the file.

Builds crafted logs of 0.25 to 4 MB (a real one-robot log of 1 s, then the crafted part) and
times, in a child process each (CPU seconds, with a wall-clock cap), opening the log and reading
every step of it (``McapLog.open`` with the command line's budget, then ``steps()``):

  - zero:   chunks of a MiB of zeros, zstd-compressed to a few dozen bytes each (each walked
            record by record, 116,508 empty records, before issue 28);
  - junk:   damage everywhere: a byte that is no record, then a record that looks like a chunk,
            again and again (each resync re-read up to 64 MiB before issue 28);
  - tiny:   chunks of the most records a chunk may hold (50,000 tiny messages each);
  - bombs:  chunks of 60 MiB of well-formed records from a few KB each (stopped by the budget).

A linear reader shows about the same time per MB on every row of a kind. ``--root DIR`` times
another checkout's reader on the same files (the files are always made by this one), e.g. the
commit before issue 28, to show what it cost there.

    python benchmarks/replay_hostile.py
    python benchmarks/replay_hostile.py --root /path/to/old/checkout --cap 120
"""
from __future__ import annotations

import argparse
import os
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEP_NS = 10_000_000
MAGIC = b"\x89MCAP0\r\n"

MEASURE = """
import sys, time, resource
sys.path.insert(0, sys.argv[1])
from soccerbt.log.reader import McapLog
start = time.process_time()
try:
    try:
        log = McapLog.open(sys.argv[2], budget_ratio=128)
    except TypeError:  # a reader without a budget
        log = McapLog.open(sys.argv[2])
    n = sum(1 for _ in log.steps())
    what = f"{n} steps"
except ValueError as exc:
    what = "refused: " + str(exc).split(": ", 1)[1][:60]
print(f"{time.process_time() - start:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} {what}")
"""


def _str(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<I", len(data)) + data


def _record(op: int, body: bytes) -> bytes:
    return struct.pack("<BQ", op, len(body)) + body


def _chunk(records: bytes, compression: str = "", payload: bytes | None = None, usize: int | None = None) -> bytes:
    data = records if payload is None else payload
    return _record(0x06, struct.pack("<QQQI", STEP_NS, 100 * STEP_NS, len(records) if usize is None else usize,
                                     zlib.crc32(records) if payload is None else 0)
                   + _str(compression) + struct.pack("<Q", len(data)) + data)


def _base(folder: Path) -> tuple[bytes, int]:
    """A real log of 1 s (one robot), without its summary (the crafted part follows it), and the
    channel id of its events (where the crafted messages go)."""
    from soccerbt.log.reader import McapLog
    from soccerbt.log.writer import make_recorder
    from soccerbt.match import Match, MatchConfig

    path = folder / "base.mcap"
    match = Match(MatchConfig(seed=1, duration_s=1.0, team_size=1, idle_teams=("red",)))
    recorder = make_recorder(path, match)
    match.run(1.0)
    recorder.finish(match.result())
    data = path.read_bytes()
    o, end = 8, 8
    while o + 9 <= len(data):  # up to the last chunk (and its message indexes)
        op, length = struct.unpack_from("<BQ", data, o)
        if op in (0x06, 0x07):
            end = o + 9 + length
        if op == 0x0F:
            break
        o += 9 + length
    events = next(cid for cid, topic in McapLog.open(path).topics.items() if topic == "/events")
    return data[:end], events


def _crafted(kind: str, size: int, cid: int) -> bytes:
    import zstandard

    if kind == "zero":
        zeros = bytes(1 << 20)
        one = _chunk(zeros, "zstd", zstandard.ZstdCompressor().compress(zeros), len(zeros))
        return one * (size // len(one))
    if kind == "junk":
        fake = _record(0x06, struct.pack("<QQQI", 0, 0, 0, 0) + _str("") + struct.pack("<Q", 0) + bytes(4))
        return (b"\x00" + fake) * (size // (len(fake) + 1))
    if kind == "tiny":
        message = _record(0x05, struct.pack("<HIQQ", cid, 0, STEP_NS, STEP_NS))
        records = message * 50_000
        one = _chunk(records, "zstd", zstandard.ZstdCompressor().compress(records))
        return one * max(1, size // len(one))
    message = _record(0x05, struct.pack("<HIQQ", cid, 0, STEP_NS, STEP_NS) + b"x" * 300)
    records = message * ((60 << 20) // len(message))
    one = _chunk(records, "zstd", zstandard.ZstdCompressor().compress(records), len(records))
    return one * max(1, size // len(one))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose reader is timed")
    parser.add_argument("--cap", type=float, default=60.0, help="wall seconds per measurement (default 60)")
    parser.add_argument("--sizes", default="0.25,0.5,1,2,4", help="crafted megabytes (default 0.25,0.5,1,2,4)")
    parser.add_argument("--kinds", default="zero,junk,tiny,bombs")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    sizes = [float(s) for s in args.sizes.split(",")]
    print(f"reader of {args.root}: open + every step, CPU seconds (wall cap {args.cap:g} s), peak MB")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base, cid = _base(folder)
        for kind in args.kinds.split(","):
            print(f"{kind}:")
            for mb in sizes:
                path = folder / f"{kind}.mcap"
                path.write_bytes(base + _crafted(kind, int(mb * (1 << 20)), cid))
                file_mb = path.stat().st_size / (1 << 20)
                env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
                try:
                    out = subprocess.run(
                        [sys.executable, "-c", MEASURE, str(args.root), str(path)],
                        capture_output=True,
                        text=True,
                        timeout=args.cap,
                        env=env,
                    )
                    fields = out.stdout.split(maxsplit=2)
                    if out.returncode != 0 or len(fields) < 3:
                        print(f"  {file_mb:6.2f} MB  failed: {(out.stderr.strip().splitlines() or ['?'])[-1][:100]}")
                        continue
                    cpu, peak, what = float(fields[0]), int(fields[1]), fields[2].strip()
                    print(f"  {file_mb:6.2f} MB  {cpu:8.3f} s  {cpu / file_mb:7.3f} s/MB  peak {peak:5d} MB  {what}")
                except subprocess.TimeoutExpired:
                    print(f"  {file_mb:6.2f} MB  more than {args.cap:g} s (stopped)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
