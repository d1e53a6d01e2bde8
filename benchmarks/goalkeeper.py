"""Shots on goal: how many a goalkeeper lets in, with our tree and with Booster's.

Each seed plays a seeded 1 v 1 match on the M field (HSL referee v20) where the red robot is a
statue and the blue robot is the blue tree's goalkeeper (player 1). Once PLAYING runs with no
set play, the ball is put still at a random spot 3.5-8 m in front of blue's goal (up to 3 m
either side of the centre line) for 3 s, so that the keeper sees it and takes its place, then
given a random speed of 2.5-4.5 m/s toward a random point of the goal mouth (0.1 m inside the
posts). A shot counts as a goal when the referee scores it within 5 s; the game then restarts
by itself (kick-off) and the next shot waits for PLAYING again. A shot kept out is stopped where
the ball lies, so that it cannot roll out of play into the next one. The same seeds give every tree
the same shots (the shots' random numbers have their own generator).

By default three keepers: ours (the baseline), ours as it was before the saves (``save_speed``
1000 m/s on GoalkeeperDecision and GoalkeeperPosition, which never sees a shot, and
``dist_to_goalline`` 0.8 m: written with the sweep's ``TreeEditor`` to a temporary folder) and
Booster's 2026 keeper when ``../shared`` is there.

Prints, for each tree, the goals let in, the share with its 95% Wilson interval, the goals the
keeper touched last (the "own goals" of the match statistics), and the CPU time; then each
tree's share against the first tree's (the baseline, ours by default). Issue 17 found that
shots the keeper grazed made 9 of the 99 goals our 3 v 3 team conceded against Booster's 2026
trees (recorded as own goals).

    .venv/bin/python benchmarks/goalkeeper.py [--seeds 0-9] [--shots 10] [--tree A.xml --tree B.xml]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from soccerbt.gamecontroller.protocol import GameState, SecondaryState  # noqa: E402
from soccerbt.match import Match, MatchConfig, default_tree_path  # noqa: E402
from soccerbt.tools.batch.batch import parse_seeds  # noqa: E402
from soccerbt.tools.batch.stats import wilson_interval  # noqa: E402
from soccerbt.tools.batch.sweep import TreeEditor, parse_param, write_best  # noqa: E402
from soccerbt.world.types import RobotId, Team  # noqa: E402

BOOSTER_2026 = ROOT.parent / "shared" / "booster" / "trees-2026" / "game.xml"
KEEPER = RobotId(Team.BLUE, 1)
SHOT_WAIT_S = 5.0
_MAX_WAIT_STEPS = 12000  # 120 s of simulated time for the game to be back in open play


def _open_play(match: Match) -> bool:
    ref = match.referee
    return ref.state == GameState.PLAYING and ref.secondary_state == SecondaryState.NORMAL


def _wait_open_play(match: Match) -> bool:
    for _ in range(_MAX_WAIT_STEPS):
        if _open_play(match):
            return True
        match.step()
    return False


def shots_of_seed(tree: str, seed: int, shots: int) -> list[tuple[bool, bool] | None]:
    """(goal, last touched by the keeper) of each shot of one seed; None for a shot not taken
    (the referee stopped open play while the ball lay still: a keeper cleared it out)."""
    match = Match(MatchConfig(seed=seed, team_size=1, idle_teams=("red",), blue_tree=tree))
    rng = np.random.default_rng(10_000 + seed)  # the shots: the same for every tree
    field = match.field
    out: list[tuple[bool, bool] | None] = []
    if not _wait_open_play(match):
        return out
    match.run(12.0)  # the keeper walks to its goal
    for _ in range(shots):
        dist_m, y0_m = rng.uniform(3.5, 8.0), rng.uniform(-3.0, 3.0)
        aim_y_m = rng.uniform(-field.goal_width_m / 2.0 + 0.1, field.goal_width_m / 2.0 - 0.1)
        speed_mps = rng.uniform(2.5, 4.5)
        if not _wait_open_play(match):
            out.append(None)
            continue
        match.run(2.0)
        # blue's goal in the world frame (the teams change ends at half time)
        sign = -1.0 if match.referee.attacks_positive_x(Team.BLUE) else 1.0
        goal_x_m = sign * field.half_length_m
        x0_m = goal_x_m - sign * dist_m
        match.world.place_ball(x0_m, y0_m)
        match.run(3.0)
        if not _open_play(match):
            out.append(None)
            continue
        dx, dy = goal_x_m - x0_m, aim_y_m - y0_m
        d = math.hypot(dx, dy)
        match.world.set_ball_velocity(speed_mps * dx / d, speed_mps * dy / d)
        before = match.referee.scores[Team.RED]
        touched = False
        for _ in range(int(SHOT_WAIT_S / match.dt_s)):
            match.step()
            touched = touched or match.world.ball.last_touch == KEEPER
            if match.referee.scores[Team.RED] != before:
                break
        goal = match.referee.scores[Team.RED] != before
        out.append((goal, touched))
        if not goal and match.world.ball.in_play:
            match.world.set_ball_velocity(0.0, 0.0)  # no slow roll out of play into the next shot
    return out


BEFORE_SAVES = ("GoalkeeperDecision.save_speed=1000", "GoalkeeperPosition.save_speed=1000",
                "GoalkeeperPosition.dist_to_goalline=0.8")


def write_before_saves(folder: Path) -> str:
    """Our tree with the keeper as it was before the saves, in ``folder``."""
    editor = TreeEditor(default_tree_path())
    params = [parse_param(text) for text in BEFORE_SAVES]
    out = folder / "game.xml"
    write_best(editor, {p: p.values[0] for p in params}, out)
    return str(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0-9", help="seeds: 0-9, 1,4,7 (default 0-9)")
    parser.add_argument("--shots", type=int, default=10, help="shots per seed (default 10)")
    parser.add_argument("--tree", action="append", default=None,
                        help="a goalkeeper's tree, the first the baseline (repeatable; default: ours, ours "
                             "before the saves, Booster's 2026 when present)")
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    scratch = tempfile.TemporaryDirectory(prefix="soccerbt-goalkeeper-")
    if args.tree:
        trees = [(tree, tree) for tree in args.tree]
    else:
        trees = [("ours", str(default_tree_path())),
                 ("ours before the saves", write_before_saves(Path(scratch.name)))]
        if BOOSTER_2026.is_file():
            trees.append(("Booster 2026", str(BOOSTER_2026)))
    print(f"shots on goal: seeds {args.seeds}, {args.shots} a seed, 2.5-4.5 m/s from 3.5-8 m at the goal mouth")
    shares = []
    for label, tree in trees:
        start_cpu = time.process_time()
        taken = [r for seed in seeds for r in shots_of_seed(tree, seed, args.shots)]
        results = [r for r in taken if r is not None]
        n = len(results)
        goals = sum(g for g, _t in results)
        grazed = sum(g and t for g, t in results)
        lo, hi = wilson_interval(goals, n)
        share = goals / n if n else math.nan
        shares.append(share)
        print(f"  {label}: {goals} goals of {n} shots: {share:.1%} (95% CI {lo:.1%}-{hi:.1%}), "
              f"{grazed} of them touched last by the keeper; {len(taken) - n} not taken; "
              f"{time.process_time() - start_cpu:.0f} s CPU")
    for (label, _tree), share in zip(trees[1:], shares[1:], strict=False):
        if shares[0]:
            print(f"  {label}: {share / shares[0]:.2f}x the goals of {trees[0][0]}")
    scratch.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
