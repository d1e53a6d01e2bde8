"""Match speed: simulated seconds per wall second of a 3 v 3 AdultSize match, headless, full stack.

Prints the median speed over segments of a match of our trees against our trees (every robot
with its tree, localization, world model, navigation, team messages and GameController
packets), the same for Booster's trees when ../shared is present, against a baseline measured
in the same run: the world and the referee alone (statues, no brains). Then a cProfile
breakdown of where the full stack's time goes, by area. Goal: >= 10x real time on one core.

    .venv/bin/python benchmarks/match.py [--seconds 30] [--segments 3] [--no-profile]
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soccerbt.match import Match, MatchConfig  # noqa: E402

BOOSTER = ROOT.parent / "shared" / "booster" / "trees" / "game.xml"

# path fragment -> area, first match wins (for the profile breakdown)
AREAS = (
    ("soccerbt/nodes/soccer/", "soccer nodes"),
    ("soccerbt/nodes/", "tree engine (nodes, controls, ports)"),
    ("soccerbt/trees/", "tree engine (nodes, controls, ports)"),
    ("soccerbt/blackboard/", "blackboard and scripts"),
    ("soccerbt/services/localization", "localization"),
    ("soccerbt/services/navigation", "navigation"),
    ("soccerbt/services/world_model", "world model"),
    ("soccerbt/services/", "kick and planning"),
    ("soccerbt/world/sensors", "simulator: camera"),
    ("soccerbt/world/", "simulator: world"),
    ("soccerbt/gamecontroller/", "gamecontroller (referee, adapter, codec)"),
    ("soccerbt/drivers/", "drivers"),
    ("soccerbt/agent", "agent"),
    ("soccerbt/match", "match loop"),
    ("numpy", "numpy internals"),
    ("dataclasses", "dataclasses.replace"),
)


def segment_speeds(config: MatchConfig, seconds: float, segments: int) -> tuple[list[float], Match]:
    """Play ``seconds`` in ``segments`` equal parts; simulated/wall seconds of each part."""
    match = Match(config)
    part_s = seconds / segments
    speeds = []
    for _ in range(segments):
        start_sim, start = match.t_s, time.perf_counter()
        match.run(part_s)
        speeds.append((match.t_s - start_sim) / (time.perf_counter() - start))
    return speeds, match


def area_of(filename: str) -> str:
    for fragment, area in AREAS:
        if fragment in filename:
            return area
    return "other (python builtins, py_trees, ...)"


def profile_breakdown(config: MatchConfig, warmup_s: float, seconds: float) -> list[tuple[str, float]]:
    match = Match(config)
    match.run(warmup_s)
    profiler = cProfile.Profile()
    profiler.enable()
    match.run(seconds)
    profiler.disable()
    stats = pstats.Stats(profiler)
    totals: dict[str, float] = {}
    for (filename, _line, _name), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        area = area_of(filename)
        totals[area] = totals.get(area, 0.0) + tottime
    whole = sum(totals.values())
    return sorted(((a, t / whole) for a, t in totals.items()), key=lambda kv: -kv[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="simulated seconds per match (default 30)")
    parser.add_argument("--segments", type=int, default=3)
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args()

    print(f"3 v 3 AdultSize, headless, {args.seconds:.0f} simulated s from kick-off READY, "
          f"median of {args.segments} segments")
    base, _ = segment_speeds(MatchConfig(seed=1, idle_teams=("blue", "red")), args.seconds, args.segments)
    base_x = statistics.median(base)
    print(f"  baseline (world + referee, no brains): {base_x:8.1f} x real time")
    runs = [("our trees v our trees", MatchConfig(seed=1))]
    if BOOSTER.is_file():
        runs.append(("Booster's trees v Booster's", MatchConfig(seed=1, blue_tree=str(BOOSTER), red_tree=str(BOOSTER))))
    for label, config in runs:
        speeds, match = segment_speeds(config, args.seconds, args.segments)
        x = statistics.median(speeds)
        print(f"  {label:<38} {x:8.2f} x real time  ({x / base_x:.3f} of baseline; "
              f"segments {', '.join(f'{s:.2f}' for s in speeds)}; goal 10x: {'met' if x >= 10 else 'NOT met'})")
        per_tick_us = 1e6 / (x * len(match.agents) / match.dt_s)
        print(f"  {'':<38} = {per_tick_us:.0f} us of wall time per robot per 10 ms step")
    if not args.no_profile:
        print("where the full stack's time goes (our trees, cProfile tottime by area, 10 s of play):")
        for area, share in profile_breakdown(MatchConfig(seed=1), warmup_s=20.0, seconds=10.0):
            if share >= 0.005:
                print(f"  {share * 100:5.1f} %  {area}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
