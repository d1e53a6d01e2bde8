"""The brain as a program: step time over DDS against in-process, latency, deadline misses.

Prints, in one run on this machine:

1. the step time of our brain in the embedded lock-step match (``Agent.step`` with the
   simulator's driver, 3 v 3 on M, ``--seconds`` of play): p50 and p99 over every robot's steps;
2. a served 3 v 3 match (``soccerbt sim --serve booster --spawn --speed 1``): six ``soccerbt
   brain`` processes over Cyclone DDS on the simulated clock, each step timed by the brain
   (take the inputs, GameController, the agent's step with its loco requests): the median of
   the brains' p50 and the worst brain's p99, against (1) as a ratio;
3. the latency from the simulator's publish of a step (sensors, then ``/clock``) to the first
   loco request that arrives after it, per robot and step (p50, p99);
4. the deadline misses of the six brains over the match (a step finished after its 10 ms, or
   a 10 ms slot without a step), as a share of their steps;
5. the same served match with every brain's flight recorder on (``sim --serve --spawn
   --brain-flight-logs DIR``: the full record, the default of ``soccerbt brain``), and the size of
   the flight logs per robot-minute.

Goals (issue 24, and 37 with the flight recorder on): p99 step under 5 ms, misses under 0.1%.
DDS opens in a network namespace of its own (the script re-runs itself under ``unshare -n``: root, or user namespaces),
so nothing leaves the machine.

    .venv/bin/python benchmarks/robot.py [--seconds 120] [--inprocess-seconds 60] [--seed 0] [--repeats 1]

With ``--repeats N`` the served match is played N times (seeds seed .. seed + N - 1) and the
figures are the medians over the runs (this machine is shared and noisy).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
_INSIDE = "SOCCERBT_BENCH_NETNS"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, -(-len(ordered) * q // 100))) - 1]


def in_process(seconds: float, seed: int) -> dict[str, float]:
    """Step times of every agent of an embedded 3 v 3 match, milliseconds."""
    from soccerbt.match import Match, MatchConfig

    match = Match(MatchConfig(team_size=3, seed=seed, duration_s=seconds))
    times: list[float] = []
    clock = time.perf_counter
    for agent in match.agents.values():
        original = agent.step

        def timed(t_s: float, _step=original) -> object:
            start = clock()
            out = _step(t_s)
            times.append(clock() - start)
            return out

        agent.step = timed  # type: ignore[method-assign]
    while not match.finished():
        match.step()
    return {"steps": len(times), "p50_ms": percentile(times, 50) * 1000, "p99_ms": percentile(times, 99) * 1000}


def served(seconds: float, seed: int, flight: bool = False) -> dict[str, object]:
    """A served 3 v 3 match with six brain processes at real time (`flight`: each brain's flight
    recorder on)."""
    tmp = Path(tempfile.mkdtemp(prefix="soccerbt-bench-robot-"))
    reports = tmp / "brains.json"
    cmd = [sys.executable, "-m", "soccerbt", "sim", "--serve", "booster", "--spawn", "--team-size", "3",
           "--seconds", str(seconds), "--seed", str(seed), "--speed", "1", "--measure-latency", "--quiet",
           "--json", "--brain-reports", str(reports), "--brain-logs", str(tmp / "logs")]
    if flight:
        cmd += ["--brain-flight-logs", str(tmp / "flight")]
    start = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=seconds * 3 + 180)
    wall = time.monotonic() - start
    if out.returncode != 0:
        raise SystemExit(f"served match failed ({out.returncode}):\n{out.stderr[-2000:]}")
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    brains = json.loads(reports.read_text())
    flight_bytes = sum(p.stat().st_size for p in (tmp / "flight").rglob("*.mcap")) if flight else 0
    shutil.rmtree(tmp, ignore_errors=True)
    return {"summary": summary, "brains": brains, "wall_s": wall, "flight_bytes": flight_bytes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="simulated seconds of the served match (120)")
    parser.add_argument("--inprocess-seconds", type=float, default=60.0, help="of the embedded match (60)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=1, help="served matches to play (the medians are printed)")
    args = parser.parse_args()
    if os.environ.get(_INSIDE) != "1":
        unshare = ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-rn"]
        env = dict(os.environ, **{_INSIDE: "1"})
        inner = " ".join(["ip link set lo up &&", "exec", sys.executable, *map(_quote, sys.argv)])
        raise SystemExit(subprocess.call([*unshare, "sh", "-c", inner], env=env))
    print(f"in-process: our trees 3 v 3 on M, {args.inprocess_seconds:g} s of play ...", flush=True)
    base = in_process(args.inprocess_seconds, args.seed)
    print(f"brain step, in-process (Agent.step, SimDriver): p50 {base['p50_ms']:.3f} ms, p99 {base['p99_ms']:.3f} ms "
          f"({base['steps']} steps)", flush=True)
    # the two modes alternate, run by run (the same seed each pair), so that a slow spell of the
    # machine falls on both alike
    runs: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    for k in range(args.repeats):
        for flight in (False, True):
            what = "flight recorders on" if flight else "no flight recorder"
            print(f"served {k + 1}/{args.repeats}: 3 v 3, six soccerbt brain processes over Cyclone DDS, "
                  f"{args.seconds:g} s at 1x, {what} ...", flush=True)
            runs[flight].append(_summarise(served(args.seconds, args.seed + k, flight), base, args.seconds))
    print()
    for flight, rows in runs.items():
        keys = ("p50_ms", "p99_ms", "latency_p50_ms", "latency_p99_ms", "miss_share", "flight_mb_per_robot_min")
        med = {key: statistics.median(r[key] for r in rows) for key in keys}
        label = "WITH the flight recorder (the full record)" if flight else "without a flight recorder"
        print(f"{label}: brain step over DDS (median of the brains' p50, worst brain's p99; median of {len(rows)} "
              f"runs): p50 {med['p50_ms']:.3f} ms, p99 {med['p99_ms']:.3f} ms; {med['p50_ms'] / base['p50_ms']:.2f}x "
              f"and {med['p99_ms'] / base['p99_ms']:.2f}x in-process; goal p99 < 5 ms: "
              f"{'met' if med['p99_ms'] < 5.0 else 'NOT met'}")
        print(f"  latency, simulator publish -> next loco request: p50 {med['latency_p50_ms']:.3f} ms, "
              f"p99 {med['latency_p99_ms']:.3f} ms")
        print(f"  deadline misses: {med['miss_share']:.3%} of the brains' steps; goal < 0.1%: "
              f"{'met' if med['miss_share'] < 0.001 else 'NOT met'}")
        if flight:
            print(f"  flight logs: {med['flight_mb_per_robot_min']:.3f} MB per robot-minute")
        print(flush=True)


def _summarise(run: dict[str, object], base: dict[str, float], seconds: float) -> dict[str, float]:
    """One served run's figures, printed, and returned for the medians."""
    brains = run["brains"]
    p50s = [b["step_ms"]["p50"] for b in brains.values() if b.get("step_ms", {}).get("p50") is not None]
    p99s = [b["step_ms"]["p99"] for b in brains.values() if b.get("step_ms", {}).get("p99") is not None]
    steps = sum(b.get("steps", 0) for b in brains.values())
    misses = sum(b.get("deadline_misses", 0) for b in brains.values())
    skipped = sum(b.get("skipped_slots", 0) for b in brains.values())
    late = sum(b.get("late_steps", 0) for b in brains.values())
    lat = run["summary"]["served"].get("latency_ms", {})
    score = run["summary"]["score"]
    med50, worst99 = (statistics.median(p50s), max(p99s)) if p50s and p99s else (float("nan"), float("nan"))
    share = misses / steps if steps else float("nan")
    print(f"  step p50 {med50:.3f} ms, p99 {worst99:.3f} ms ({med50 / base['p50_ms']:.2f}x, "
          f"{worst99 / base['p99_ms']:.2f}x in-process); latency p50 {lat.get('p50')} ms, p99 {lat.get('p99')} ms; "
          f"misses {misses} of {steps} ({share:.3%}: {late} late steps, {skipped} skipped slots); "
          f"blue {score['blue']} : {score['red']} red in {run['wall_s']:.0f} s "
          f"(real-time factor {run['summary']['served'].get('real_time_factor')})")
    for name, b in sorted(brains.items()):
        print(f"    {name}: {b['steps']} steps, p50 {b['step_ms']['p50']} ms, p99 {b['step_ms']['p99']} ms, "
              f"max {b['step_ms']['max']} ms, slowest {b.get('slowest_steps', [])[:3]}")
    return {"p50_ms": med50, "p99_ms": worst99, "latency_p50_ms": float(lat.get("p50") or "nan"),
            "latency_p99_ms": float(lat.get("p99") or "nan"), "miss_share": share,
            "flight_mb_per_robot_min": run["flight_bytes"] / 1e6 / (len(brains) * seconds / 60.0) if brains else 0.0}


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


if __name__ == "__main__":
    main()
