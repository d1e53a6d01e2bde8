"""Localization after a penalty: how often a robot re-entering at the touch line is still more
than 1.5 m off (or on the mirror pose) 10 s after it is back in play (issue 26, part 6).

Plays seeded matches (default seeds 1-4, 3 v 3 on the M field, the HSL v20 referee, our trees
on both sides, or Booster's 2026 trees for red with ``--red-tree``) and forces the penalties so
that the measure is deterministic and quick: once the game is PLAYING, every ``--every`` seconds
of PLAYING the next robot of a round robin over every robot of both teams is picked up
(``PICK_UP``) for ``--penalty-s`` seconds of penalty clock; the referee then puts it back where
the HSL rules say (its own half's touch line, facing the field). For every re-entry (the step the
robot is on the field again) the localization error is taken ``--after-s`` (10 s) later: the
distance between the robot's believed position (``Agent.pose_estimate()``, team frame) and the
truth (the world's pose in the team frame). A re-entry counts as *off* when the error is more
than ``--threshold`` (1.5 m), and as *mirror* when it is off and the estimate lies within the
threshold of the truth's point mirror (the pose that sees the same field). A re-entry whose
robot is penalised again, or whose match ends, before the measure is dropped. Matches run on
``--half-s`` halves (default 120 s), so penalties in the second half (sides swapped) count too.

Each variant plays the same seeds: ``before`` is the code as it was (``ParticleFilterConfig.
entry_own_half_until_settled`` false: right after the touch-line reset the heading of the
estimate, an arbitrary one of the prior's two touch lines, picks the mirror twin of injected
particles and of ``trust_direction``), ``after`` the fix (the default: the own half picks it
until the robot could have left its own half). The other half of the fix, the injection
reading the current estimate rather than the one of before the frame, is not switchable: for
the code as it was on main run this script from commit 45f99f6 (its ``before`` is main). Prints one line per
re-entry with ``--verbose``, then per variant the count of re-entries, how many are off, how
many on the mirror, and the median and 90th percentile of the error.

    .venv/bin/python benchmarks/reentry.py [--seeds 1 2 3 4] [--variants before after]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soccerbt.gamecontroller.protocol import GameState  # noqa: E402
from soccerbt.match import Match, MatchConfig  # noqa: E402
from soccerbt.services.localization import mirror_pose  # noqa: E402
from soccerbt.world.types import Pose2D, RobotId, to_team_frame  # noqa: E402

BOOSTER_2026 = "/work/shared/booster/trees-2026/game.xml"


@dataclass(frozen=True, slots=True)
class Reentry:
    """One robot back in play after a penalty, and its localization error ``after_s`` later."""

    seed: int
    robot: str
    t_back_s: float
    first_half: bool
    truth_at_entry: Pose2D  # team frame
    truth: Pose2D  # team frame, at the measure
    estimate: Pose2D  # team frame, at the measure
    confidence: float
    error_m: float
    mirror_error_m: float

    def off(self, threshold_m: float) -> bool:
        return self.error_m > threshold_m

    def on_mirror(self, threshold_m: float) -> bool:
        return self.off(threshold_m) and self.mirror_error_m <= threshold_m


def _apply_variant(match: Match, variant: str) -> None:
    """``before``: the code as it was (``entry_own_half_until_settled`` off: the believed heading
    resolves mirror twins from the first camera frame after an entry reset); ``after``: the fix
    (the default)."""
    fixed = variant == "after"
    for agent in match.agents.values():
        loc = agent.context.localizer
        loc.config = replace(loc.config, entry_own_half_until_settled=fixed)
        loc._entry_unsettled = loc._entry_unsettled and fixed  # the start-up reset read the default


def _team_pose(match: Match, rid: RobotId) -> Pose2D:
    return to_team_frame(match.world.robots[rid].pose, match.referee.attacks_positive_x(rid.team))


def play(seed: int, variant: str, *, half_s: float, every_s: float, penalty_s: float, after_s: float,
         red_tree: str | None) -> list[Reentry]:
    """One seeded match with forced penalties; the re-entries measured ``after_s`` after."""
    match = Match(MatchConfig(seed=seed, half_s=half_s, red_tree=red_tree))
    _apply_variant(match, variant)
    ref, world = match.referee, match.world
    order = sorted(match.agents, key=lambda r: (r.number, r.team.value))
    next_pick = 0
    playing_s = 0.0  # PLAYING time since the last forced penalty
    removed = {rid: world.robots[rid].removed for rid in match.agents}
    pending: dict[RobotId, tuple[float, bool, Pose2D]] = {}  # back at, first half, truth at entry
    out: list[Reentry] = []
    while not match.finished():
        match.step()
        t = match.t_s
        if ref.state == GameState.PLAYING and not ref.stopped:
            playing_s += match.dt_s
            if playing_s >= every_s:
                playing_s = 0.0
                for _ in range(len(order)):
                    rid = order[next_pick % len(order)]
                    next_pick += 1
                    if rid not in pending and not ref.is_penalized(rid) and not world.robots[rid].removed:
                        ref.penalize(rid, "PICK_UP", duration_s=penalty_s)
                        break
        for rid in match.agents:
            now_removed = world.robots[rid].removed
            if removed[rid] and not now_removed:
                pending[rid] = (t, ref.first_half, _team_pose(match, rid))
            elif now_removed and rid in pending:
                del pending[rid]  # penalised again before the measure
            removed[rid] = now_removed
        for rid, (t_back, first_half, entry) in list(pending.items()):
            if t < t_back + after_s - 1e-9:
                continue
            del pending[rid]
            truth = _team_pose(match, rid)
            est = match.agents[rid].pose_estimate()
            mirror = mirror_pose(truth)
            out.append(Reentry(seed, str(rid), t_back, first_half, entry, truth, est,
                               float(match.agents[rid].context.localizer.confidence()),
                               math.hypot(est.x_m - truth.x_m, est.y_m - truth.y_m),
                               math.hypot(est.x_m - mirror.x_m, est.y_m - mirror.y_m)))
    return out


def _pct(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--variants", nargs="+", default=["before", "after"], choices=["before", "after"])
    ap.add_argument("--half-s", type=float, default=120.0, help="length of each half (s of game clock)")
    ap.add_argument("--every-s", type=float, default=6.0, help="PLAYING time between forced penalties (s)")
    ap.add_argument("--penalty-s", type=float, default=5.0, help="penalty clock of each pick-up (s)")
    ap.add_argument("--after-s", type=float, default=10.0, help="the error is taken this long after re-entry (s)")
    ap.add_argument("--threshold", type=float, default=1.5, help="an error above this is 'off' (m)")
    ap.add_argument("--red-tree", default=None, help=f"red's tree (default ours; e.g. {BOOSTER_2026})")
    ap.add_argument("--verbose", action="store_true", help="one line per re-entry")
    args = ap.parse_args(argv)
    thr = args.threshold
    print(f"seeds {args.seeds}, halves of {args.half_s:.0f} s, a pick-up of {args.penalty_s:.0f} s every "
          f"{args.every_s:.0f} s of PLAYING, error {args.after_s:.0f} s after re-entry, red tree "
          f"{args.red_tree or 'ours'}")
    for variant in args.variants:
        started = time.perf_counter()
        rows: list[Reentry] = []
        for seed in args.seeds:
            got = play(seed, variant, half_s=args.half_s, every_s=args.every_s, penalty_s=args.penalty_s,
                       after_s=args.after_s, red_tree=args.red_tree)
            rows += got
            errs = [r.error_m for r in got]
            print(f"  {variant} seed {seed}: {len(got)} re-entries, {sum(r.off(thr) for r in got)} off, "
                  f"{sum(r.on_mirror(thr) for r in got)} mirror, median {_pct(errs, 0.5):.2f} m", flush=True)
            if args.verbose:
                for r in got:
                    e, tr, en = r.estimate, r.truth, r.truth_at_entry
                    print(f"    {r.robot:6s} back {r.t_back_s:6.1f}s {'1st' if r.first_half else '2nd'} entry "
                          f"({en.x_m:+.1f},{en.y_m:+.1f},{en.theta_rad:+.1f}) truth ({tr.x_m:+.1f},{tr.y_m:+.1f},"
                          f"{tr.theta_rad:+.1f}) est ({e.x_m:+.1f},{e.y_m:+.1f},{e.theta_rad:+.1f}) conf "
                          f"{r.confidence:.2f} err {r.error_m:.2f} m{' MIRROR' if r.on_mirror(thr) else ''}")
        errs = [r.error_m for r in rows]
        n = len(rows)
        off = sum(r.off(thr) for r in rows)
        mirror = sum(r.on_mirror(thr) for r in rows)
        print(f"{variant}: {n} re-entries, {off} more than {thr} m off at {args.after_s:.0f} s "
              f"({100.0 * off / max(n, 1):.1f}%), {mirror} on the mirror pose, median error "
              f"{_pct(errs, 0.5):.2f} m, p90 {_pct(errs, 0.9):.2f} m ({time.perf_counter() - started:.0f} s)",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
