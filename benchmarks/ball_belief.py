"""Ball belief error: how often a robot's own ball estimate is more than 1 m from the true ball.

Plays seeded matches (default seeds 1-3, 120 s each, our trees against our trees, 3 v 3 on the
M field, the world's default noise, false detections included) and counts, over every robot and
every 10 ms tick where the robot believes it knows the ball (``ball_location_known``; penalised
robots and a ball out of play are left out), the share of ticks whose ball estimate (the world
model's ``ball_field``, converted from the team frame to the world frame) lies more than 1 m
(and more than 3 m) from the true ball. Prints per seed and overall, with the share of ticks
where the ball is believed known and the share of all ticks where it is known and within 1 m
(a model that just believed less would look better on the first figure, not on this one).

    .venv/bin/python benchmarks/ball_belief.py [--seeds 1 2 3] [--seconds 120] [--threshold 1.0]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soccerbt.match import Match, MatchConfig  # noqa: E402


def measure(seed: int, seconds: float, threshold_m: float) -> dict[str, float]:
    """Counts of one seeded match: ticks, known ticks, known ticks off by > threshold and > 3 m."""
    match = Match(MatchConfig(seed=seed, duration_s=seconds))
    world, ref = match.world, match.referee
    ticks = known = off = far = 0
    while not match.finished():
        match.step()
        ball = world.ball
        if not ball.in_play:
            continue
        for rid, agent in match.agents.items():
            if world.robots[rid].removed or ref.is_penalized(rid):
                continue
            ticks += 1
            wm = agent.context.world_model
            if not wm.ball_location_known or wm.ball_field is None:
                continue
            known += 1
            x, y = wm.ball_field
            if not ref.attacks_positive_x(rid.team):  # team frame -> world frame (a mirror)
                x, y = -x, -y
            err = math.hypot(x - ball.x_m, y - ball.y_m)
            if err > threshold_m:
                off += 1
            if err > 3.0:
                far += 1
    return {"ticks": ticks, "known": known, "off": off, "far": far}


def line(label: str, c: dict[str, float], threshold_m: float) -> str:
    known = max(c["known"], 1)
    return (f"{label:>8}  known {c['known'] / max(c['ticks'], 1):6.1%} of {c['ticks']} robot-ticks   "
            f"off > {threshold_m:g} m: {c['off'] / known:6.2%}   off > 3 m: {c['far'] / known:6.2%}   "
            f"known and within {threshold_m:g} m: {(c['known'] - c['off']) / max(c['ticks'], 1):6.1%} of ticks")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--threshold", type=float, default=1.0)
    args = ap.parse_args()
    total = {"ticks": 0, "known": 0, "off": 0, "far": 0}
    for seed in args.seeds:
        start = time.perf_counter()
        c = measure(seed, args.seconds, args.threshold)
        for k in total:
            total[k] += c[k]
        print(line(f"seed {seed}", c, args.threshold) + f"   ({time.perf_counter() - start:.0f} s)", flush=True)
    print(line("overall", total, args.threshold))


if __name__ == "__main__":
    main()
