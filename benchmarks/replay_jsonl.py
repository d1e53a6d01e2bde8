"""JSON-lines replay logs (the format before MCAP): loading into the replay index, memory, seeking, frame rate.

Figures (medians of --repeats runs, each loader in a fresh process for its peak memory):
  - read once: decompress and json-parse every line (the floor any loader pays), baseline;
  - naive: ``list(replay_frames(path))``, every step record kept as dicts;
  - index: ``ReplayLog.load(path)`` (numpy arrays + compressed chunks), time, peak RSS and the
    bytes the index holds;
  - seek: a random step's scene through the index, against re-reading the log up to that step
    (what a replay without an index does for every step back);
  - frames per second of the replay window (off-screen): playing at x1 with a robot selected,
    and jumping to random positions.

    python benchmarks/replay.py --log run.jsonl.gz     # a log you recorded
    python benchmarks/replay.py --seconds 300          # records a 300 s match first
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

_LOADERS = {
    "read once": "from soccerbt.tools.replay import _Lines\nfor _, raw in _Lines(path): json.loads(raw)",
    "naive": "from soccerbt.tools.recorder import replay_frames\nframes = list(replay_frames(path))",
    "index": "from soccerbt.tools.replay import ReplayLog\nlog = ReplayLog.load(path)\n"
             "extra['index_MB'] = log.memory_bytes() / 1e6\nextra['steps'] = log.n",
}
_CHILD = """
import json, resource, sys, time
from pathlib import Path
path = Path(sys.argv[1])
extra = {{}}
import soccerbt.tools.replay, soccerbt.tools.recorder
before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
{code}
wall = time.perf_counter() - start
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"wall_s": wall, "rss_MB": (peak_kb - before_kb) / 1e3, **extra}}))
"""


def _record(seconds: float, path: Path) -> None:
    from soccerbt.match import Match, MatchConfig
    from soccerbt.tools.recorder import Recorder

    recorder = Recorder(path)
    match = Match(MatchConfig(seed=1, duration_s=seconds), observers=[recorder])
    while not match.finished():
        match.step()
    recorder.finish(match.result())


def _load_in_child(name: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD.format(code=_LOADERS[name]), str(path)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, default=None, help="a replay log (default: record one)")
    parser.add_argument("--seconds", type=float, default=300.0, help="length of the match to record")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--naive", action="store_true", help="also measure the naive list of dicts (slow, big)")
    parser.add_argument("--frames", type=int, default=300)
    args = parser.parse_args()
    path = args.log
    if path is None:
        path = Path(tempfile.mkdtemp()) / "bench.jsonl.gz"
        start = time.perf_counter()
        _record(args.seconds, path)
        print(f"recorded {args.seconds:.0f} s to {path} in {time.perf_counter() - start:.1f} s")
    print(f"log {path}: {path.stat().st_size / 1e6:.1f} MB on disk")

    loaders = ["read once", "index"] + (["naive"] if args.naive else [])
    figures: dict[str, dict[str, float]] = {}
    for name in loaders:
        runs = [_load_in_child(name, path) for _ in range(args.repeats)]
        figures[name] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    base = figures["read once"]["wall_s"]
    for name in loaders:
        f = figures[name]
        extra = "".join(f"  {k} {v:.0f}" if k == "steps" else f"  {k} {v:.1f}" for k, v in f.items()
                        if k not in ("wall_s", "rss_MB"))
        print(f"load {name:<10} {f['wall_s']:6.2f} s (x{f['wall_s'] / base:.2f} of read once)  "
              f"peak RSS +{f['rss_MB']:.0f} MB{extra}")

    from soccerbt.tools.recorder import replay_frames
    from soccerbt.tools.replay import ReplayLog, ReplaySceneSource
    from soccerbt.tools.replay_cli import ReplayViewer

    log = ReplayLog.load(path)
    source = ReplaySceneSource(log)
    rng = random.Random(1)
    targets = [rng.randrange(log.n) for _ in range(50)]
    seek_s = []
    log.record(0)  # warm-up; each later target is a fresh chunk
    for i in targets:
        start = time.perf_counter()
        source.seek(i)
        source.scene("blue2")
        seek_s.append(time.perf_counter() - start)
    naive_s = []
    for i in targets[:3]:  # re-reading up to the step: what a log without an index costs per step back
        start = time.perf_counter()
        for k, _ in enumerate(replay_frames(path)):
            if k == i:
                break
        naive_s.append(time.perf_counter() - start)
    bare_s = []
    for i in targets:
        start = time.perf_counter()
        source.seek(i)
        source.scene(None)
        bare_s.append(time.perf_counter() - start)
    print(f"seek to a random step + scene, nobody selected: {statistics.median(bare_s) * 1e3:.3f} ms")
    print(f"seek to a random step + scene: index {statistics.median(seek_s) * 1e3:.2f} ms, "
          f"re-reading the log {statistics.median(naive_s) * 1e3:.0f} ms "
          f"(x{statistics.median(naive_s) / statistics.median(seek_s):.0f})")

    import pygame

    pygame.display.init()
    pygame.font.init()
    viewer = ReplayViewer(source)
    viewer.state.selected = "blue2"
    surface = pygame.Surface(viewer.size_px)
    for label, move in (("playing x1, blue2 selected", lambda: viewer.advance(1.0 / 60.0)),
                        ("random jumps, blue2 selected", lambda: source.seek(rng.randrange(log.n)))):
        fps = []
        for _ in range(args.repeats):
            source.seek(log.n // 3)
            viewer.pacer.paused = False
            start = time.perf_counter()
            for _ in range(args.frames):
                move()
                viewer.render(surface)
            fps.append(args.frames / (time.perf_counter() - start))
        print(f"frames per second, {label}: {statistics.median(fps):.0f}")


if __name__ == "__main__":
    main()
