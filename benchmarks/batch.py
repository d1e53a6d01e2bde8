"""Games per hour of ``soccerbt batch`` on 1 and 2 worker processes and on Ray with 2 CPUs.

Plays the same seeded games with ``run_batch(jobs=1)`` (the baseline, in this process), with 2
worker processes and, when ray is installed, as Ray tasks on a local instance with 2 CPUs
(started once, before the timed runs: its start and shutdown are reported apart). Each is run
--repeats times, interleaved so that all see the same background load; the figures are medians.
Prints games per hour, the scaling efficiency from 1 to 2 workers (the speed-up divided by 2),
Ray's overhead per game against the process pool (its wall time minus the pool's, per game,
warm workers) and whether every backend gave identical results. On a machine shared with other
work the efficiency is bounded by the free cores, not by the number of workers.

    python benchmarks/batch.py [--seeds 0-5] [--seconds 20] [--team-size 3] [--repeats 3] [--no-ray]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import time

from soccerbt.match import MatchConfig
from soccerbt.tools.batch.batch import parse_seeds, plan_games, run_batch


def _cpu_s() -> float:
    """CPU seconds of this process and of its finished children (the pool's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-5")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--team-size", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-ray", action="store_true", help="leave Ray out even when installed")
    args = parser.parse_args()
    games = plan_games(MatchConfig(team_size=args.team_size, duration_s=args.seconds), parse_seeds(args.seeds),
                       None, None)
    print(f"{len(games)} games of {args.seconds:.0f} s, {args.team_size} v {args.team_size}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    runs: dict[str, dict] = {"1 process": {"jobs": 1, "backend": "process"},
                             "2 processes": {"jobs": 2, "backend": "process"}}
    ray = None
    if not args.no_ray:
        try:
            import ray
        except ImportError:
            print("ray is not installed (pip install 'soccerbt[ray]'): Ray left out")
    if ray is not None:
        import logging

        start = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
        print(f"Ray: local instance with 2 CPUs started in {time.perf_counter() - start:.2f} s")
        runs["Ray, 2 CPUs"] = {"jobs": 2, "backend": "ray"}
    walls: dict[str, list[float]] = {name: [] for name in runs}
    cpus: dict[str, list[float]] = {name: [] for name in runs}
    results: dict[str, list] = {}
    for _ in range(args.repeats):
        for name, options in runs.items():
            cpu_start = _cpu_s()
            start = time.perf_counter()
            outcomes = run_batch(games, **options)
            walls[name].append(time.perf_counter() - start)
            cpus[name].append(_cpu_s() - cpu_start)
            results[name] = [o.result for o in outcomes]
    if ray is not None:
        start = time.perf_counter()
        ray.shutdown()
        print(f"Ray: shut down in {time.perf_counter() - start:.2f} s")
    median = {name: statistics.median(w) for name, w in walls.items()}
    for name, wall in median.items():
        cpu = "" if runs[name]["backend"] == "ray" else \
            f", CPU x{statistics.median(cpus[name]) / wall:.2f} of wall"
        print(f"{name:<12} {len(games) / wall * 3600:8.0f} games per hour  ({wall:6.2f} s median{cpu}; runs "
              + " ".join(f"{w:.2f}" for w in walls[name]) + ")")
    speed_up = median["1 process"] / median["2 processes"]
    print(f"scaling 1 -> 2 processes: x{speed_up:.2f}, efficiency {speed_up / 2 * 100:.0f}%")
    if ray is not None:
        overhead = (median["Ray, 2 CPUs"] - median["2 processes"]) / len(games)
        first = (walls["Ray, 2 CPUs"][0] - median["2 processes"]) / len(games)
        print(f"Ray overhead per game against 2 processes: {overhead * 1000:+.0f} ms (median run; first run with "
              f"cold workers {first * 1000:+.0f} ms), efficiency 1 -> 2 CPUs "
              f"{median['1 process'] / median['Ray, 2 CPUs'] / 2 * 100:.0f}%")
    same = all(r == results["1 process"] for r in results.values())
    print(f"identical results on every backend: {same}")


if __name__ == "__main__":
    main()
