"""Evaluation time of compiled BT.CPP scripts on a Blackboard (the `_while`/`_skipIf` path).

For each of Booster's typical conditions it prints the median time of one
`CompiledScript.evaluate_bool(bb)` in microseconds, and the ratio to a baseline measured in the
same run: the same logic written by hand as a Python lambda over a plain dict (the fastest a
Python engine could possibly do). Also prints the compile time of each script and the cost of a
small assignment script. Goal: a 3-term `_while` condition in a few microseconds.

    python benchmarks/scripts.py [--repeat 7] [--number 20000]
"""
from __future__ import annotations

import argparse
import statistics
import timeit

from soccerbt.blackboard import Blackboard, compile_script

CONDITIONS = [
    ("control_state==1 || assist_kick || go_manual",
     lambda d: d["control_state"] == 1 or d["assist_kick"] or d["go_manual"]),
    ("player_role == 'striker'", lambda d: d["player_role"] == "striker"),
    ("decision!='find'", lambda d: d["decision"] != "find"),
    ("gc_game_sub_state_type=='FREE_KICK' && gc_game_state=='PLAY'",
     lambda d: d["gc_game_sub_state_type"] == "FREE_KICK" and d["gc_game_state"] == "PLAY"),
    ("!odom_calibrated", lambda d: not d["odom_calibrated"]),
    ("ball_distance_m < 0.5 && ball_location_known",
     lambda d: d["ball_distance_m"] < 0.5 and d["ball_location_known"]),
]
VALUES = {
    "control_state": 3, "assist_kick": False, "go_manual": False, "player_role": "striker",
    "decision": "chase", "gc_game_sub_state_type": "NONE", "gc_game_state": "PLAY",
    "odom_calibrated": True, "ball_distance_m": 1.2, "ball_location_known": True,
}


def median_us(fn, repeat: int, number: int) -> float:
    return statistics.median(timeit.repeat(fn, repeat=repeat, number=number)) / number * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=20000)
    args = parser.parse_args()

    root = Blackboard()
    for key, value in VALUES.items():
        root[key] = value
    bb = Blackboard(root, autoremap=True)  # a SubTree scope, as inside a Booster subtree
    plain = dict(VALUES)

    print(f"{'script':64s} {'eval us':>8s} {'dict us':>8s} {'ratio':>6s} {'compile us':>10s}")
    for src, baseline in CONDITIONS:
        script = compile_script(src)
        assert script.evaluate_bool(bb) == bool(baseline(plain)), src
        ours = median_us(lambda: script.evaluate_bool(bb), args.repeat, args.number)
        base = median_us(lambda: baseline(plain), args.repeat, args.number)
        comp = median_us(lambda: compile_script(src), 3, 200)
        print(f"{src:64s} {ours:8.2f} {base:8.2f} {ours / base:6.1f} {comp:10.1f}")

    assign = compile_script("n := 0; n += 1; s := 'v' .. n; r := n > 0 ? 1 : 2")
    local = Blackboard()
    t = median_us(lambda: assign(local), args.repeat, args.number // 4)
    print(f"{'4-statement assignment script':64s} {t:8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
