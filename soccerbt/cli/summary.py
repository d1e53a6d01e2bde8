"""What a command prints about a match: the progress line, the human summary, the ``--json`` object."""
from __future__ import annotations

from typing import Any, TextIO

from soccerbt.gamecontroller.protocol import GameState
from soccerbt.match import Match, MatchResult

__all__ = ["progress_line", "result_json", "print_summary"]


def progress_line(match: Match, wall_s: float) -> str:
    """One line: simulated time, game state, score, speed against real time."""
    ref = match.referee
    blue, red = (ref.scores[t] for t in sorted(ref.scores, key=lambda t: t.value))
    speed = match.t_s / wall_s if wall_s > 0 else float("inf")
    state = GameState(ref.state).name
    half = "1st" if ref.first_half else "2nd"
    return (f"t={match.t_s:7.1f}s  {half} half  {state:<8} blue {blue} : {red} red  "
            f"{speed:5.1f}x real time  errors {len(match.errors)}")


def result_json(result: MatchResult, wall_s: float) -> dict[str, Any]:
    """The ``--json`` summary object."""
    out = result.to_dict()
    out["wall_s"] = round(wall_s, 3)
    out["speed_x"] = round(result.sim_s / wall_s, 2) if wall_s > 0 else None
    return out


def print_summary(result: MatchResult, wall_s: float, out: TextIO) -> None:
    """The human summary of a run."""
    speed = result.sim_s / wall_s if wall_s > 0 else float("inf")
    print(f"final score: blue {result.score['blue']} : {result.score['red']} red  "
          f"({result.sim_s:.1f} s simulated in {wall_s:.1f} s, {speed:.1f}x real time, seed {result.seed})",
          file=out)
    for g in result.goals:
        who = g.scorer or "nobody"
        own = " (own goal)" if g.own_goal else ""
        print(f"  goal {g.team:<4} t={g.t_s:7.1f}s  by {who}{own}", file=out)
    if result.shoot_out is not None:
        for team, shots in result.shoot_out.items():
            marks = " ".join("o" if shot == "goal" else "x" for shot in shots)
            print(f"  shoot-out {team:<4} {marks}  ({shots.count('goal')} of {len(shots)})", file=out)
    print(f"  {'robot':<7} {'walked_m':>9} {'falls':>5} {'kicks':>5} {'pen':>4} {'loc_med_m':>9} "
          f"{'loc_mean_m':>10} {'exc':>4}", file=out)
    for r in result.robots:
        med = "-" if r.loc_error_median_m is None else f"{r.loc_error_median_m:.2f}"
        mean = "-" if r.loc_error_mean_m is None else f"{r.loc_error_mean_m:.2f}"
        print(f"  {r.robot:<7} {r.distance_walked_m:9.1f} {r.falls:5d} {r.kicks:5d} {r.penalties:4d} {med:>9} "
              f"{mean:>10} {r.node_exceptions:4d}", file=out)
    if result.errors:
        print(f"  errors ({len(result.errors)}):", file=out)
        for e in result.errors[:20]:
            print(f"    {e}", file=out)
        if len(result.errors) > 20:
            print(f"    ... {len(result.errors) - 20} more", file=out)
