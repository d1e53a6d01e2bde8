"""Speed-up of ``soccerbt batch`` with worker processes against one process, same games.

Plays the same seeded games with ``run_batch(jobs=1)`` (the baseline, in this process) and
with ``--jobs`` workers, --repeats times each, interleaved, and prints the median wall times,
the ratio, the CPU seconds spent (this process and its workers: CPU close to wall times jobs
means the cores were free) and whether the results were identical. On a machine shared with
other work the ratio is bounded by the free cores, not by the number of jobs.

    python benchmarks/batch.py [--seeds 0-3] [--seconds 30] [--jobs 2] [--repeats 3]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import time

from soccerbt.match import MatchConfig
from soccerbt.tools.batch import parse_seeds, plan_games, run_batch


def _cpu_s() -> float:
    """CPU seconds of this process and of its finished children (the pool's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-3")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--team-size", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    games = plan_games(MatchConfig(team_size=args.team_size, duration_s=args.seconds), parse_seeds(args.seeds),
                       None, None)
    print(f"{len(games)} games of {args.seconds:.0f} s, {args.team_size} v {args.team_size}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    walls: dict[int, list[float]] = {1: [], args.jobs: []}
    cpus: dict[int, list[float]] = {1: [], args.jobs: []}
    results: dict[int, list] = {}
    for _ in range(args.repeats):
        for jobs in (1, args.jobs):  # interleaved, so that both see the same background load
            cpu_start = _cpu_s()
            start = time.perf_counter()
            outcomes = run_batch(games, jobs)
            walls[jobs].append(time.perf_counter() - start)
            cpus[jobs].append(_cpu_s() - cpu_start)
            results[jobs] = [o.result for o in outcomes]
    one, many = statistics.median(walls[1]), statistics.median(walls[args.jobs])
    sim_s = len(games) * args.seconds
    for jobs, wall in ((1, one), (args.jobs, many)):
        cpu = statistics.median(cpus[jobs])
        print(f"jobs {jobs}:  {wall:6.2f} s median ({sim_s / wall:5.1f} simulated s per wall s), CPU {cpu:6.2f} s "
              f"(x{cpu / wall:.2f} of wall)  runs " + " ".join(f"{w:.2f}" for w in walls[jobs]))
    print(f"speed-up x{one / many:.2f} with {args.jobs} jobs; identical results: {results[1] == results[args.jobs]}")


if __name__ == "__main__":
    main()
