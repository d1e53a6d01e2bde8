"""Converting a JSON-lines log of an earlier soccerbt into MCAP (``soccerbt replay convert``).

The JSON-lines writer is gone, so without ``--log`` the benchmark builds old logs from the one
the tests keep (``tests/tools/replay/data/jsonl_v1_2v2.jsonl.gz``, 7 s of 2 v 2), its steps
repeated with shifted times to ``--seconds`` and to twice that: the conversion's time should
double and its memory stay flat (it streams: one line and each robot's blackboard in memory).

Figures (medians of --repeats runs, each conversion in a fresh process for its peak memory):
wall time, steps per second, peak RSS over the interpreter's, the sizes in and out; then
opening the converted log and rebuilding a robot's blackboard at random steps.

    python benchmarks/replay_convert.py                      # 300 s and 600 s built from the fixture
    python benchmarks/replay_convert.py --log old.jsonl.gz   # a log you kept
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "tools" / "replay" / "data" / "jsonl_v1_2v2.jsonl.gz"
_CHILD = """
import json, resource, sys, time
before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
from soccerbt.log.convert import convert_log
start = time.perf_counter()
done = convert_log(sys.argv[1], sys.argv[2])
wall = time.perf_counter() - start
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"wall_s": wall, "rss_MB": (peak_kb - before_kb) / 1e3, "steps": done.steps}))
"""


def build_old_log(seconds: float, path: Path) -> None:
    """An old log of `seconds`: the fixture's steps again and again, times shifted (no end record)."""
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    header, steps = records[0], [r for r in records if r["type"] == "step"]
    span = steps[-1]["t"]
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(json.dumps(header, separators=(",", ":")) + "\n")
        k = 0
        while k * span < seconds - 1e-9:
            for step in steps:
                t = round(step["t"] + k * span, 3)
                if t > seconds + 1e-9:
                    break
                out.write(json.dumps({**step, "t": t}, separators=(",", ":")) + "\n")
            k += 1


def convert_in_child(old: Path, new: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(old), str(new)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(old: Path, repeats: int) -> None:
    from soccerbt.log.reader import McapLog

    new = old.with_name(old.name.split(".")[0] + ".mcap")
    runs = [convert_in_child(old, new) for _ in range(repeats)]
    wall = statistics.median(r["wall_s"] for r in runs)
    rss = statistics.median(r["rss_MB"] for r in runs)
    steps = runs[0]["steps"]
    print(f"{old.name}: {steps} steps, {old.stat().st_size / 1e6:.1f} MB -> {new.stat().st_size / 1e6:.1f} MB MCAP; "
          f"convert {wall:.2f} s ({steps / wall:.0f} steps/s), peak RSS +{rss:.0f} MB")
    start = time.perf_counter()
    log = McapLog.open(new)
    opened = time.perf_counter() - start
    rng = random.Random(1)
    times = []
    for _ in range(20):
        step = rng.randrange(log.first_step, log.last_step + 1)
        start = time.perf_counter()
        log.robot_state(log.robots[0], step)
        times.append(time.perf_counter() - start)
    print(
        f"  open {opened * 1e3:.1f} ms, a robot's blackboard at a random step {statistics.median(times) * 1e3:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--log", type=Path, default=None, help="an old JSON-lines log (default: built from the fixture)"
    )
    parser.add_argument("--seconds", type=float, default=300.0, help="length of the built log (and twice that)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.log is not None:
        measure(args.log, args.repeats)
        return
    folder = Path(tempfile.mkdtemp())
    for seconds in (args.seconds, 2 * args.seconds):
        old = folder / f"old{seconds:.0f}.jsonl.gz"
        build_old_log(seconds, old)
        measure(old, args.repeats)


if __name__ == "__main__":
    main()
