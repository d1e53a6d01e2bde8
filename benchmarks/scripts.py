"""Evaluation time of compiled BT.CPP scripts on a Blackboard (the `_while`/`_skipIf` path).

For each of Booster's typical conditions it prints the median time of one evaluation as the
nodes run it (`CompiledScript.condition(bb)`, i.e. evaluate_bool) in microseconds, read from a
SubTree scope with `_autoremap` (as inside Booster's subtrees) and from the root blackboard,
and the ratio to a baseline measured in the same run: the same logic written by hand as a
Python lambda over a plain dict (the fastest a Python engine could possibly do). Also prints
the compile time of each script and the cost of a small assignment script. Goals: a 3-term
`_while` condition in a few microseconds; a SubTree scope no slower than the root.

    python benchmarks/scripts.py [--repeat 7] [--number 20000]
"""
from __future__ import annotations

import argparse
import statistics
import time
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
    """Median CPU time of one call (process_time: other processes on shared cores do not count)."""
    runs = timeit.repeat(fn, repeat=repeat, number=number, timer=time.process_time)
    return statistics.median(runs) / number * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--number", type=int, default=20000)
    args = parser.parse_args()

    root = Blackboard()
    for key, value in VALUES.items():
        root[key] = value
    bb = Blackboard(root, autoremap=True)  # a SubTree scope, as inside a Booster subtree
    plain = dict(VALUES)

    print(f"{'script':64s} {'sub us':>7s} {'root us':>7s} {'dict us':>7s} {'sub/dict':>8s} "
          f"{'sub/root':>8s} {'compile us':>10s}")
    for src, baseline in CONDITIONS:
        script = compile_script(src)
        assert script.condition(bb) == script.condition(root) == bool(baseline(plain)), src
        ours = median_us(lambda: script.condition(bb), args.repeat, args.number)
        at_root = median_us(lambda: script.condition(root), args.repeat, args.number)
        base = median_us(lambda: baseline(plain), args.repeat, args.number)
        comp = median_us(lambda: compile_script(src), 3, 200)
        print(f"{src:64s} {ours:7.2f} {at_root:7.2f} {base:7.2f} {ours / base:8.1f} "
              f"{ours / at_root:8.2f} {comp:10.1f}")

    assign = compile_script("n := 0; n += 1; s := 'v' .. n; r := n > 0 ? 1 : 2")
    local = Blackboard()
    t = median_us(lambda: assign(local), args.repeat, args.number // 4)
    print(f"{'4-statement assignment script':64s} {t:8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
