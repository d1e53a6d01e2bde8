"""Decision flicker: how often our robots change their mind, per robot and simulated minute.

Plays seeded matches (our trees as blue, ``--red-tree`` as red: by default Booster's 2026 trees
when ../shared holds them, else ours) and, after every step, reads each blue robot's
``decision`` (only in a tick that ran a node writing it: the value a branch that stopped running
left behind is no decision) and ``player_role`` from its blackboard. Prints per robot-minute (of
the robots on the field, penalised minutes left out):

- ``decision`` changes, and among them the short-lived ones: a decision that lasted less than
  0.5 s before the next change, with the pairs that change most; and the flicker proper: a
  short-lived decision followed by the one before it (A -> B -> A within 0.5 s: approach / kick /
  approach every few ticks, as the replay showed), not counting a short "kick" in which the robot
  did kick (the ball leaves: back to approach, as it should);
- ``player_role`` changes, and the roles that lasted less than 2 s.

Run it at two commits (the same seeds) to compare before and after a change of the
hysteresis:

    .venv/bin/python benchmarks/decisions.py [--seeds 0-3] [--seconds 120] [--red-tree FILE]
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soccerbt.match import Match, MatchConfig  # noqa: E402
from soccerbt.world.types import Team  # noqa: E402

BOOSTER_2026 = ROOT.parent / "shared" / "booster" / "trees-2026" / "game.xml"
SHORT_DECISION_S = 0.5
SHORT_ROLE_S = 2.0


def parse_seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


class Tally:
    """Changes of one blackboard key of one robot, with how long each value lasted."""

    def __init__(self, short_s: float) -> None:
        self.short_s = short_s
        self.value: object = None
        self.before: object = None      # the value before the current one
        self.since_s = 0.0
        self.acted = False              # the robot kicked while the current value held
        self.changes = 0
        self.short = 0
        self.flicker = 0                # A -> B -> A, B short-lived (and not a kick that kicked)
        self.short_pairs: collections.Counter[tuple[object, object]] = collections.Counter()
        self.flicker_pairs: collections.Counter[tuple[object, object]] = collections.Counter()

    def see(self, value: object, t_s: float, acted: bool = False) -> None:
        if value == self.value:
            self.acted = self.acted or acted
            return
        if self.value is not None and value is not None:
            self.changes += 1
            if t_s - self.since_s < self.short_s:
                self.short += 1
                self.short_pairs[(self.value, value)] += 1
                if value == self.before and not self.acted:
                    self.flicker += 1
                    self.flicker_pairs[(self.before, self.value)] += 1
        self.before = self.value
        self.value, self.since_s, self.acted = value, t_s, acted


def _writers(tree) -> frozenset[int]:
    """ids of the tree's nodes with an output port remapped to {decision}."""
    return frozenset(id(n) for n in tree.nodes() if "{decision}" in getattr(n.config, "output_ports", {}).values())


def play(seed: int, seconds: float, red_tree: str | None, field: str, team_size: int | None) -> dict:
    match = Match(MatchConfig(seed=seed, duration_s=seconds, red_tree=red_tree, field=field, team_size=team_size))
    ours = {rid: agent for rid, agent in match.agents.items() if rid.team is Team.BLUE}
    decisions = {rid: Tally(SHORT_DECISION_S) for rid in ours}
    roles = {rid: Tally(SHORT_ROLE_S) for rid in ours}
    on_field_s = 0.0
    writers: dict = {}
    while not match.finished():
        match.step()
        t = match.t_s
        for rid, agent in ours.items():
            bb = agent.blackboard
            if bb.get("gc_is_under_penalty"):
                decisions[rid].see(None, t)
                roles[rid].see(None, t)
                continue
            on_field_s += match.dt_s
            kicked = getattr(agent.last_command, "kick", None) is not None
            tree = agent.tree
            if writers.get(rid, (None,))[0] is not tree:
                writers[rid] = (tree, _writers(tree))
            deciding = any(id(n) in writers[rid][1] for n in tree.env.ticked)
            decisions[rid].see(bb.get("decision") if deciding else None, t, kicked)
            roles[rid].see(bb.get("player_role"), t)
    return {"minutes": on_field_s / 60.0, "decisions": list(decisions.values()), "roles": list(roles.values()),
            "score": dict((team.name.lower(), n) for team, n in match.referee.scores.items())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-3")
    parser.add_argument("--seconds", type=float, default=120.0, help="simulated seconds per match (default 120)")
    parser.add_argument("--red-tree", default=str(BOOSTER_2026) if BOOSTER_2026.is_file() else None)
    parser.add_argument("--field", default="M")
    parser.add_argument("--team-size", type=int, default=None)
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    minutes = 0.0
    dec = collections.Counter()
    role = collections.Counter()
    pairs: collections.Counter = collections.Counter()
    flickers: collections.Counter = collections.Counter()
    start = time.process_time()
    for seed in seeds:
        out = play(seed, args.seconds, args.red_tree, args.field, args.team_size)
        minutes += out["minutes"]
        for t in out["decisions"]:
            dec["changes"] += t.changes
            dec["short"] += t.short
            dec["flicker"] += t.flicker
            pairs.update(t.short_pairs)
            flickers.update(t.flicker_pairs)
        for t in out["roles"]:
            role["changes"] += t.changes
            role["short"] += t.short
            role["flicker"] += t.flicker
        print(f"seed {seed}: score {out['score']}, {out['minutes']:.1f} robot-minutes", file=sys.stderr)
    print(f"our trees (blue) against {args.red_tree or 'our trees'}: seeds {args.seeds}, {args.seconds:g} s each, "
          f"{minutes:.1f} robot-minutes on the field ({time.process_time() - start:.0f} CPU s)")
    print(f"  decision changes     {dec['changes'] / minutes:6.2f} per robot-minute, of them lasting "
          f"< {SHORT_DECISION_S} s: {dec['short'] / minutes:6.2f}")
    print("  most frequent short-lived changes: " + ", ".join(
        f"{a}->{b} {n / minutes:.2f}" for (a, b), n in pairs.most_common(5)))
    print(f"  decision flicker     {dec['flicker'] / minutes:6.2f} per robot-minute (A -> B -> A within "
          f"{SHORT_DECISION_S} s, no kick in B): " + ", ".join(
              f"{a}->{b}->{a} {n / minutes:.2f}" for (a, b), n in flickers.most_common(5)))
    print(
        f"  player_role changes  {role['changes'] / minutes:6.2f} per robot-minute, of them lasting "
        f"< {SHORT_ROLE_S} s: {role['short'] / minutes:6.2f}, flicker (A -> B -> A): {role['flicker'] / minutes:6.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
