"""The MCAP tree replay: recording overhead, log size, opening, seeking and the tree panel.

Prints, in one run (medians; CPU seconds of this process, the fair measure on a shared machine):
  - recording overhead: the same seeded 3 v 3 match stepped without and with the MCAP recorder,
    alternated --repeats times (goal: at most +10% CPU), and the engine's status stream alone
    (every tree watched through Tree.start_status_log, nothing written);
  - log size per robot-minute (goal: at most 0.5 MB);
  - opening a whole match log (goal: under 2 s for a 20-minute 3 v 3 match: --seconds 1200);
  - seeking to a random step and rebuilding one robot's tree and blackboard there (goal: 50 ms);
  - drawing the tree panel for Booster's game tree (stub leaves, the PLAY branch; goal 5 ms).

    python benchmarks/replay.py                  # a 300 s match
    python benchmarks/replay.py --seconds 1200   # a whole 20-minute match (takes minutes)
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soccerbt.match import Match, MatchConfig  # noqa: E402
from soccerbt.tools.replay.mcap_reader import McapLog  # noqa: E402
from soccerbt.tools.replay.mcap_recorder import make_recorder  # noqa: E402

BOOSTER = ROOT.parent / "shared" / "booster"


class _Drain:
    """Empties the status logs every step: the status stream's cost without a recorder."""

    def __init__(self, logs: list[list]) -> None:
        self.logs = logs

    def on_step(self, match: Match) -> None:
        for log in self.logs:
            log.clear()


def _match_cpu_s(mode: str, seconds: float, seed: int, out: Path) -> float:
    match = Match(MatchConfig(seed=seed, duration_s=seconds + 5.0))
    recorder = None
    if mode == "record":
        recorder = make_recorder(out, match)
    elif mode == "stream":
        match.observers.append(_Drain([a.tree.start_status_log() for a in match.agents.values()]))
    match.run(2.0)  # warm-up: imports, first plans, the first chunk
    start = time.process_time()
    match.run(seconds)
    cpu = time.process_time() - start
    if recorder is not None:
        recorder.finish(match.result())
    return cpu


def overhead(seconds: float, repeats: int) -> None:
    runs: dict[str, list[float]] = {"plain": [], "stream": [], "record": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            for mode in runs:
                runs[mode].append(_match_cpu_s(mode, seconds, 1, Path(tmp) / "o.mcap"))
    base = statistics.median(runs["plain"])
    print(f"recording overhead, 3 v 3, {seconds:g} s simulated, median of {repeats} (CPU s):")
    for mode, values in runs.items():
        med = statistics.median(values)
        print(f"  {mode:7s} {med:7.2f} s  x{med / base:5.3f}  ({', '.join(f'{v:.2f}' for v in values)})")
    print(f"  status stream alone +{(statistics.median(runs['stream']) / base - 1) * 100:.0f}%, "
          f"whole recorder +{(statistics.median(runs['record']) / base - 1) * 100:.0f}% (goal +10%)")


def record(seconds: float, path: Path) -> float:
    match = Match(MatchConfig(seed=1, duration_s=seconds))
    recorder = make_recorder(path, match)
    start = time.perf_counter()
    while not match.finished():
        match.step()
    recorder.finish(match.result())
    return time.perf_counter() - start


def opening_and_seeking(path: Path, repeats: int) -> None:
    size = path.stat().st_size
    opens = []
    for _ in range(repeats):
        start = time.perf_counter()
        log = McapLog.open(path)
        opens.append(time.perf_counter() - start)
    robot_minutes = len(log.robots) * log.duration_s / 60.0
    print(f"log: {size / 1e6:.1f} MB, {log.last_step} steps, {len(log.robots)} robots, {len(log.chunks)} chunks")
    print(f"  size per robot-minute: {size / 1e6 / robot_minutes:.3f} MB (goal 0.5)")
    print(f"  open: {statistics.median(opens) * 1e3:.1f} ms median of {repeats} (goal 2 s)")
    rng = random.Random(7)
    seeks = []
    for _ in range(30):
        fresh = McapLog.open(path)  # cold: no decoded chunk cached
        step = rng.randint(1, log.last_step)
        robot = rng.choice(log.robots)
        start = time.perf_counter()
        fresh.robot_state(robot, step)
        fresh.step_view(step)
        seeks.append(time.perf_counter() - start)
    print(f"  seek to a random step (one robot's tree and blackboard, the step's truth): "
          f"median {statistics.median(seeks) * 1e3:.1f} ms, max {max(seeks) * 1e3:.1f} ms (goal 50 ms)")


def tree_panel(frames: int) -> None:
    if not (BOOSTER / "trees" / "game.xml").exists():
        print("tree panel: ../shared/booster missing, skipped")
        return
    import pygame

    from soccerbt.nodes.stubs import register_stub_nodes
    from soccerbt.tools.replay.mcap_reader import RobotState
    from soccerbt.tools.viewer.tree_panel import TreePanel
    from soccerbt.trees import TreeFactory
    from soccerbt.trees.structure import describe_tree

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from tick import PLAY

    factory = TreeFactory()
    register_stub_nodes(factory, BOOSTER / "nodes.json")
    tree = factory.create_tree_from_file(str(BOOSTER / "trees" / "game.xml"))
    bb = tree.root_blackboard()
    for key, value in PLAY.items():
        bb[key] = value
    log = tree.start_status_log()
    tree.tick_exactly_once()
    tree.tick_exactly_once()
    description = describe_tree(tree)
    statuses = {n.uid: n.node_status.code for n in tree.nodes()}
    state = RobotState("blue1", 2, description, statuses, ticked=[n.uid for n in tree.env.ticked],
                       blackboard={k: [v, "adapter"] for k, v in PLAY.items()}, changed=["decision"])
    pygame.init()
    surface = pygame.Surface((480, 820))
    panel = TreePanel()
    times = []
    for expand in (False, True):
        if expand:  # every subtree unfolded: the most rows
            panel.opened = {row["uid"] for row in description["nodes"] if row["kind"] == "SubTree"}
        for _ in range(frames):
            start = time.perf_counter()
            panel.draw(surface, surface.get_rect(), state)
            times.append(time.perf_counter() - start)
    print(f"tree panel, Booster's game tree ({len(description['nodes'])} nodes, {len(log) // 3} transitions "
          f"in two ticks): median {statistics.median(times) * 1e3:.2f} ms a frame over {len(times)} frames "
          f"(goal 5 ms)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="match length for the log (default 300)")
    parser.add_argument("--overhead-seconds", type=float, default=30.0,
                        help="simulated seconds per overhead run (default 30)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--log", type=Path, default=None, help="use this MCAP log instead of recording one")
    args = parser.parse_args()
    overhead(args.overhead_seconds, args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.log
        if path is None:
            path = Path(tmp) / "match.mcap"
            wall = record(args.seconds, path)
            print(f"recorded a {args.seconds:g} s match in {wall:.1f} s wall")
        opening_and_seeking(path, args.repeats)
    tree_panel(100)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
