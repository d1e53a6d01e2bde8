"""How fast the simulated world runs: simulated seconds per wall second, no brains attached.

3 v 3 on the AdultSize field and 4 v 4 on the KidSize field, robots walking scripted
commands (changed every second, kicks now and then, standing up after falls, the ball put
back when it goes out). Three ways, medians of a few repeats:

- baseline: truth only (``WorldConfig.sensors=False``), ``step()`` only
- sensors: camera on, ``step()`` only (every frame computed, nobody reads it)
- sensors + drivers: as a match runs it, every robot's ``SimDriver.sense()`` and ``act()``
  (the same command again) at every step

Run: ``.venv/bin/python benchmarks/world.py [--seconds 30] [--repeats 3]``.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from soccerbt.drivers.sim import SimDriver  # noqa: E402
from soccerbt.world import (  # noqa: E402
    Field,
    KickRequest,
    Pose2D,
    RobotCommand,
    RobotId,
    Team,
    World,
    WorldConfig,
)


def make_world(field: Field, per_team: int, sensors: bool, seed: int = 1) -> tuple[World, list[RobotId]]:
    world = World(WorldConfig(field=field, sensors=sensors), seed=seed)
    ids = []
    for team in Team:
        sign = -1.0 if team is Team.BLUE else 1.0
        for n in range(1, per_team + 1):
            rid = RobotId(team, n)
            world.add_robot(rid, Pose2D(sign * (0.8 + 0.9 * n), 1.2 * (n - per_team / 2.0),
                                        0.0 if sign < 0 else math.pi))
            ids.append(rid)
    world.place_ball(0.0, 0.0)
    return world, ids


def scripted_command(k: int, second: int) -> RobotCommand:
    """A deterministic walk for robot k in this second: forward, sideways, turning, head sweep."""
    phase = 0.7 * k + 1.3 * second
    return RobotCommand(vx_mps=0.3 + 0.4 * (1 + math.sin(phase)) / 2, vy_mps=0.15 * math.cos(2 * phase),
                        vtheta_radps=0.8 * math.sin(1.7 * phase), head_pan_rad=0.8 * math.sin(phase),
                        head_tilt_rad=0.4 + 0.2 * math.cos(phase),
                        kick=KickRequest(0.0, 0.8) if (k + second) % 3 == 0 else None, stand_up=True)


def run(field: Field, per_team: int, seconds: float, sensors: bool, drive: bool) -> tuple[float, float, dict]:
    """One run: (simulated s per wall s, simulated s per CPU s of this process, tallies)."""
    world, ids = make_world(field, per_team, sensors)
    drivers = [SimDriver(world, rid) for rid in ids]
    steps_per_second = int(round(1.0 / world.dt_s))
    n_seconds = int(seconds)
    start = time.perf_counter()
    cpu_start = time.process_time()
    for second in range(n_seconds):
        commands = [scripted_command(k, second) for k in range(len(ids))]
        for driver, command in zip(drivers, commands):
            driver.act(command)
        walk_only = [RobotCommand(c.vx_mps, c.vy_mps, c.vtheta_radps, c.head_pan_rad, c.head_tilt_rad)
                     for c in commands]  # a brain repeats its walk, not its kick
        for _ in range(steps_per_second):
            world.step()
            if drive:
                for driver, command in zip(drivers, walk_only):
                    driver.sense()
                    driver.act(command)
        if not world.ball.in_play:
            world.place_ball(0.0, 0.0)
        world.events.drain()
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    stats = {"falls": sum(r.falls for r in world.robots.values()),
             "kicks": sum(r.kicks for r in world.robots.values()),
             "walked_m": sum(r.distance_walked_m for r in world.robots.values())}
    return n_seconds / wall, n_seconds / cpu, stats


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="simulated seconds per run")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"world benchmark: {args.seconds:.0f} simulated s per run, median of {args.repeats}, one core"
          f" (load average {_load()}: other processes slow the wall figures)")
    for label, field, per_team in (("3v3 AdultSize", Field.adult_size(), 3), ("4v4 KidSize", Field.kid_size(), 4)):
        results: dict[str, float] = {}
        cpu_results: dict[str, float] = {}
        for mode, sensors, drive in (("baseline (truth only, step)", False, False),
                                     ("sensors on, step", True, False),
                                     ("sensors on, step + drivers", True, True)):
            rates, cpu_rates, stats = [], [], {}
            for _ in range(args.repeats):
                rate, cpu_rate, stats = run(field, per_team, args.seconds, sensors, drive)
                rates.append(rate)
                cpu_rates.append(cpu_rate)
            results[mode] = statistics.median(rates)
            cpu_results[mode] = statistics.median(cpu_rates)
            base = results["baseline (truth only, step)"]
            print(f"  {label:14s} {mode:32s} {results[mode]:6.0f} x real time (wall), "
                  f"{cpu_results[mode]:6.0f} x per CPU second; {results[mode] / base:4.2f} of baseline"
                  f"  [{stats['walked_m']:.0f} m walked, {stats['kicks']} kicks, {stats['falls']} falls]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
