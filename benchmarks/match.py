"""Match speed: simulated seconds per wall second of a match (3 v 3 on M by default), headless, full stack.

Plays the first ``--seconds`` of a match (default 300: READY, kick-off, play, free kicks) of our
trees against our trees (every robot with its tree, localization, world model, navigation, team
messages and GameController packets), and the same for Booster's trees when ../shared is
present, in ``--segments`` parts; prints the median part and the whole run, by the wall clock
and by this process's CPU seconds (the fairer figure on a busy machine), against a baseline
measured in the same run: the world and the referee alone (statues, no brains). ``--full``
plays a whole match (two 10-minute halves) of our trees instead: the goal's own measure, a
20-minute match in 2 minutes. Then a cProfile breakdown of where the full stack's time goes,
by area. Goal: >= 10x real time on one core (issue 16 asks 30x). ``--field S|M|L`` and
``--team-size N`` choose the field and the team size (e.g. ``--field L --team-size 5``: the T1's
5 v 5 on the 22 x 14 m field).

``--suite`` prints one line per match shape instead, simulated seconds per CPU second only (the
figure to compare on a busy machine), each the median of ``--repeats`` runs of ``--seconds``
(``--full``: whole matches): our trees 3 v 3 on M, Booster's trees 3 v 3 on M (when
../shared is present) and our trees 5 v 5 on L.

    .venv/bin/python benchmarks/match.py [--seconds 300] [--segments 10] [--full] [--no-profile]
        [--field M] [--team-size 3]
    .venv/bin/python benchmarks/match.py --suite [--seconds 120] [--repeats 3] [--full]
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

# one core: OpenBLAS worker threads would spin on the other one (the brain's products are small)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
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


def segment_speeds(config: MatchConfig, seconds: float, segments: int) -> tuple[list[tuple[float, float]], Match]:
    """Play ``seconds`` in ``segments`` equal parts: (simulated s per wall s, per CPU s) of each."""
    match = Match(config)
    part_s = seconds / segments
    speeds = []
    for _ in range(segments):
        if match.finished():
            break
        start_sim, start, start_cpu = match.t_s, time.perf_counter(), time.process_time()
        match.run(part_s)
        sim = match.t_s - start_sim
        speeds.append((sim / (time.perf_counter() - start), sim / max(time.process_time() - start_cpu, 1e-9)))
    return speeds, match


def summary(speeds: list[tuple[float, float]], part_s: float) -> tuple[float, float, float, float]:
    """Median part and whole run (total simulated over total wall or CPU seconds)."""
    wall = [w for w, _c in speeds]
    cpu = [c for _w, c in speeds]
    whole_wall = len(wall) * part_s / sum(part_s / w for w in wall)
    whole_cpu = len(cpu) * part_s / sum(part_s / c for c in cpu)
    return statistics.median(wall), statistics.median(cpu), whole_wall, whole_cpu


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


def cpu_speed(config: MatchConfig, seconds: float) -> float:
    """Simulated seconds per CPU second of one match of ``seconds`` (setup not counted)."""
    match = Match(config)
    start_sim, start_cpu = match.t_s, time.process_time()
    match.run(seconds)
    return (match.t_s - start_sim) / max(time.process_time() - start_cpu, 1e-9)


def suite(seconds: float, repeats: int) -> None:
    """Our trees 3 v 3 on M, Booster's 3 v 3 on M, ours 5 v 5 on L: median CPU speed of each."""
    # issue 16's goals: ours 30x, Booster's 25x, 5 v 5 on L 15x (simulated s per CPU s)
    shapes = [("our trees 3 v 3, M field", MatchConfig(seed=1), 30.0)]
    if BOOSTER.is_file():
        shapes.append(("Booster's trees 3 v 3, M field",
                       MatchConfig(seed=1, blue_tree=str(BOOSTER), red_tree=str(BOOSTER)), 25.0))
    shapes.append(("our trees 5 v 5, L field", MatchConfig(seed=1, field="L", team_size=5), 15.0))
    print(f"{seconds:.0f} simulated s per match from kick-off READY, median of {repeats} (seed 1), "
          "simulated seconds per CPU second:")
    for label, config, goal_x in shapes:
        speeds = sorted(cpu_speed(config, seconds) for _ in range(repeats))
        n = config.players_per_team()
        per_tick_us = 1e6 * 0.01 / (statistics.median(speeds) * 2 * n)
        print(f"  {label:<32} {statistics.median(speeds):6.2f} x real time per CPU second "
              f"(runs {', '.join(f'{v:.2f}' for v in speeds)}; {per_tick_us:.0f} us per robot per "
              f"10 ms step); goal {goal_x:.0f}x: {'met' if statistics.median(speeds) >= goal_x else 'NOT met'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="simulated seconds per match (default 300)")
    parser.add_argument("--segments", type=int, default=10)
    parser.add_argument("--full", action="store_true", help="a whole match (two 10-minute halves) of our trees")
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--field", default="adult", help="HSL field S, M or L (kid, adult: S, M; default M)")
    parser.add_argument("--team-size", type=int, default=None, help="robots per team (default: the field's)")
    parser.add_argument("--suite", action="store_true",
                        help="our trees 3 v 3, Booster's 3 v 3 and ours 5 v 5 on L: CPU speed only")
    parser.add_argument("--repeats", type=int, default=3, help="runs per shape with --suite (median)")
    args = parser.parse_args()
    if args.suite:
        suite(1200.0 if args.full else args.seconds, args.repeats)
        return 0
    shape = {"field": args.field, "team_size": args.team_size}
    try:
        probe = MatchConfig(**shape)
    except ValueError as exc:
        parser.error(str(exc))
    seconds = 1200.0 if args.full else args.seconds
    segments = 20 if args.full else args.segments
    part_s = seconds / segments

    n = probe.players_per_team()
    field = probe.field_geometry()
    print(f"{n} v {n} on the {args.field} field ({field.length_m:g} x {field.width_m:g} m), headless, "
          f"{seconds:.0f} simulated s from kick-off READY in {segments} parts of {part_s:.0f} s")
    base, _ = segment_speeds(MatchConfig(seed=1, idle_teams=("blue", "red"), **shape), seconds, segments)
    base_x = summary(base, part_s)
    print(f"  {'baseline (world + referee, no brains)':<38} {base_x[2]:8.1f} x real time (whole run, wall), "
          f"{base_x[3]:.1f} x per CPU second")
    runs = [("our trees v our trees", MatchConfig(seed=1, **shape))]
    if BOOSTER.is_file() and not args.full:
        runs.append(("Booster's trees v Booster's", MatchConfig(seed=1, blue_tree=str(BOOSTER), red_tree=str(BOOSTER),
                                                                **shape)))
    for label, config in runs:
        speeds, match = segment_speeds(config, seconds, segments)
        med_wall, med_cpu, whole_wall, whole_cpu = summary(speeds, part_s)
        print(f"  {label:<38} whole run {whole_wall:6.2f} x real time (wall), {whole_cpu:6.2f} x per CPU second; "
              f"median part {med_wall:.2f} / {med_cpu:.2f}; parts (CPU) {min(c for _w, c in speeds):.1f}"
              f"..{max(c for _w, c in speeds):.1f}; {whole_cpu / base_x[3]:.3f} of baseline")
        per_tick_us = 1e6 / (whole_cpu * len(match.agents) / match.dt_s)
        print(f"  {'':<38} = {per_tick_us:.0f} us of CPU per robot per 10 ms step; goal 10x: "
              f"{'met' if whole_cpu >= 10 else 'NOT met'} per CPU second, "
              f"{'met' if whole_wall >= 10 else 'NOT met'} on the wall clock")
    if not args.no_profile:
        print("where the full stack's time goes (our trees, cProfile tottime by area, 10 s of play):")
        for area, share in profile_breakdown(MatchConfig(seed=1, **shape), warmup_s=20.0, seconds=10.0):
            if share >= 0.005:
                print(f"  {share * 100:5.1f} %  {area}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
