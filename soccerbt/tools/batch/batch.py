"""Many seeded matches in parallel worker processes, and what they add up to.

``plan_games`` turns seeds and two trees (A, the blue tree option; B, the red one) into the
list of games, with colours fixed, swapped (every seed played twice, once per side) or
alternating (odd seeds swapped). ``run_batch`` plays them with ``soccerbt.match.run_match``
in worker processes or Ray tasks (``soccerbt.tools.batch.batch_pool``; in this process for one job)
and returns the outcomes in
plan order, so the results never depend on how many workers ran them or which finished
first. ``totals``, ``table_lines`` and ``batch_json`` summarise: per game the score and the
goals with their times; per tree wins, draws, losses, goals for and against. ``comparison``
gives tree A against tree B with intervals and the share of time in PLAYING
(``soccerbt.tools.batch.stats``); ``next_seeds`` the seeds
a batch that goes on until the difference is significant plays next.

Workers ignore SIGINT: on Ctrl-C the parent stops them and keeps the games that finished. A
worker that dies or hangs is retried once, then its game is reported failed.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from soccerbt.match import MatchConfig, MatchResult
from soccerbt.tools.batch.batch_pool import Job, JobResult, play_game, play_job, run_jobs
from soccerbt.tools.batch.stats import HeadToHead, PlayTime, head_to_head

__all__ = ["BatchGame", "GameOutcome", "BatchInterrupted", "TreeTotals", "parse_seeds", "plan_games", "run_batch",
           "totals", "table_lines", "batch_json", "game_json", "COLOUR_MODES", "default_jobs", "ab_scores",
           "comparison", "next_seeds", "play_time"]

COLOUR_MODES = ("fixed", "swap", "alternate")
MAX_SEEDS = 100_000  # a range this long is a typo, not a batch


@dataclass(frozen=True)
class BatchGame:
    """One game of a batch: its seed, whether tree B plays blue, and the full match config."""

    seed: int
    swapped: bool
    config: MatchConfig

    @property
    def blue(self) -> str:
        """The label of the tree playing blue: "A" or "B"."""
        return "B" if self.swapped else "A"

    @property
    def red(self) -> str:
        return "A" if self.swapped else "B"


@dataclass(frozen=True)
class GameOutcome:
    """What became of a game: its result, or the error that stopped it; wall time of its worker."""

    game: BatchGame
    result: MatchResult | None
    error: str | None = None
    wall_s: float = 0.0
    attempts: int = 1

    @property
    def failed(self) -> bool:
        """No result: the game could not start, or its worker died or hung on every attempt."""
        return self.result is None


@dataclass
class TreeTotals:
    """One tree's record over the batch."""

    label: str
    tree: str
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    goals_for: int = 0
    goals_against: int = 0
    as_blue: int = 0
    as_red: int = 0
    errors: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("label", "tree", "played", "wins", "draws", "losses", "goals_for",
                                               "goals_against", "as_blue", "as_red", "errors")}


def default_jobs() -> int:
    """The CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def parse_seeds(text: str) -> list[int]:
    """Seeds from "0-9", "1,4,7" or "0-3,10,20-22": ranges include both ends; each seed once, in order."""
    seeds: list[int] = []
    seen: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise ValueError(f"empty item in seed list {text!r}")
        low_text, sep, high_text = part.partition("-")
        try:
            low = int(low_text)
            high = int(high_text) if sep else low
        except ValueError:
            raise ValueError(f"{part!r} is not a seed or a range like 0-9") from None
        if low < 0 or high < low:
            raise ValueError(f"{part!r}: a range goes from a low seed to a higher one, both 0 or more")
        if len(seeds) + high - low + 1 > MAX_SEEDS:
            raise ValueError(f"more than {MAX_SEEDS} seeds in {text!r}")
        for seed in range(low, high + 1):
            if seed in seen:
                raise ValueError(f"seed {seed} is listed twice in {text!r}")
            seen.add(seed)
            seeds.append(seed)
    return seeds


def plan_games(base: MatchConfig, seeds: Iterable[int], tree_a: str | None, tree_b: str | None,
               colours: str = "fixed") -> list[BatchGame]:
    """The games to play: per seed tree A blue against tree B red; "swap" adds the same seed with
    the colours swapped, "alternate" swaps the colours of odd seeds."""
    if colours not in COLOUR_MODES:
        raise ValueError(f"colours must be one of {', '.join(COLOUR_MODES)}, got {colours!r}")
    games = []
    for seed in seeds:
        sides = [False, True] if colours == "swap" else [colours == "alternate" and seed % 2 == 1]
        for swapped in sides:
            blue, red = (tree_b, tree_a) if swapped else (tree_a, tree_b)
            games.append(BatchGame(seed, swapped, replace(base, seed=seed, blue_tree=blue, red_tree=red,
                                                          realtime=False)))
    return games


# --- the pool ---------------------------------------------------------------------------------------


class BatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a batch; ``outcomes`` holds the games that finished, in plan order."""

    def __init__(self, outcomes: list[GameOutcome]) -> None:
        super().__init__("batch interrupted")
        self.outcomes = outcomes


def run_batch(games: list[BatchGame], jobs: int,
              on_done: Callable[[GameOutcome, int, int], None] | None = None, *,
              backend: str = "process", address: str | None = None, game_timeout_s: float | None = None,
              retries: int = 1, record_paths: list[str | None] | None = None,
              on_retry: Callable[[BatchGame, str], None] | None = None,
              play: Callable[[MatchConfig, str | None], MatchResult] | None = None) -> list[GameOutcome]:
    """Play ``games`` on ``jobs`` workers; outcomes in ``games`` order.

    One job, the process backend and no ``game_timeout_s``: the games run here, one after the
    other. Otherwise ``soccerbt.tools.batch.batch_pool`` runs them in worker processes (``backend``
    "process") or as Ray tasks ("ray", on the cluster at ``address`` or a local one with
    ``jobs`` CPUs); a worker that dies or a game past ``game_timeout_s`` wall seconds is
    reported to ``on_retry(game, reason)`` and played again up to ``retries`` times, then
    comes back failed (``result`` None, ``error`` naming each attempt). ``record_paths[i]``
    records game i's replay log there. ``play(config, record_path)`` plays one game (default
    ``batch_pool.play_game``).

    ``on_done(outcome, finished, total)`` hears of each game as it finishes (in finishing
    order). On KeyboardInterrupt the workers are stopped and ``BatchInterrupted`` carries the
    outcomes so far.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be 1 or more, got {jobs}")
    if record_paths is not None and len(record_paths) != len(games):
        raise ValueError(f"{len(record_paths)} record paths for {len(games)} games")
    outcomes: dict[int, GameOutcome] = {}

    def done(res: JobResult) -> None:
        outcome = GameOutcome(games[res.index], res.result, res.error, res.wall_s, res.attempts)
        outcomes[res.index] = outcome
        if on_done is not None:
            on_done(outcome, len(outcomes), len(games))

    def retry(job: Job, reason: str) -> None:
        if on_retry is not None:
            on_retry(games[job.index], reason)

    job_list = [Job(i, g.config, record_paths[i] if record_paths else None) for i, g in enumerate(games)]
    try:
        if backend == "process" and game_timeout_s is None and (jobs == 1 or len(games) <= 1):
            for job in job_list:
                done(play_job(job, play or play_game))
        else:
            run_jobs(job_list, min(jobs, max(1, len(games))), done, backend=backend, address=address,
                     game_timeout_s=game_timeout_s, retries=retries, on_retry=retry, play=play)
    except KeyboardInterrupt:
        raise BatchInterrupted([outcomes[i] for i in sorted(outcomes)]) from None
    return [outcomes[i] for i in range(len(games))]


# --- summaries ----------------------------------------------------------------------------------------


def totals(outcomes: Iterable[GameOutcome], trees: dict[str, str]) -> dict[str, TreeTotals]:
    """Per tree label ("A", "B"): games, wins/draws/losses, goals for/against, colours played."""
    out = {label: TreeTotals(label, tree) for label, tree in trees.items()}
    for o in outcomes:
        for label, colour in ((o.game.blue, "blue"), (o.game.red, "red")):
            t = out[label]
            if o.result is None:
                t.errors += 1
                continue
            other = "red" if colour == "blue" else "blue"
            mine, theirs = o.result.score[colour], o.result.score[other]
            t.played += 1
            t.as_blue += colour == "blue"
            t.as_red += colour == "red"
            t.goals_for += mine
            t.goals_against += theirs
            t.wins += mine > theirs
            t.draws += mine == theirs
            t.losses += mine < theirs
    return out


def _goal_text(result: MatchResult) -> str:
    parts = []
    for g in result.goals:
        own = " og" if g.own_goal else ""
        parts.append(f"{g.t_s:.1f}s {g.team} ({g.scorer or '-'}{own})")
    return ", ".join(parts) if parts else "-"


def table_lines(outcomes: Iterable[GameOutcome], trees: dict[str, str]) -> list[str]:
    """The results table (a line per game, plan order) and the per-tree totals."""
    outcomes = list(outcomes)
    lines = [f"{'seed':>5}  {'blue':<4} {'red':<4} {'score':>5}  {'sim_s':>7}  goals (time, team, scorer)"]
    for o in outcomes:
        g = o.game
        if o.result is None:
            first = (o.error or "").splitlines()[0] if o.error else "failed"
            lines.append(f"{g.seed:>5}  {g.blue:<4} {g.red:<4} {'-':>5}  {'-':>7}  error: {first}")
            continue
        r = o.result
        score = f"{r.score['blue']}:{r.score['red']}"
        lines.append(f"{g.seed:>5}  {g.blue:<4} {g.red:<4} {score:>5}  {r.sim_s:7.1f}  {_goal_text(r)}")
    lines.append("")
    lines.append(f"{'tree':<4} {'games':>5} {'won':>4} {'drawn':>5} {'lost':>4} {'for':>4} {'against':>7} "
                 f"{'blue':>4} {'red':>4}  file")
    for t in totals(outcomes, trees).values():
        errors = f"  ({t.errors} failed)" if t.errors else ""
        lines.append(f"{t.label:<4} {t.played:>5} {t.wins:>4} {t.draws:>5} {t.losses:>4} {t.goals_for:>4} "
                     f"{t.goals_against:>7} {t.as_blue:>4} {t.as_red:>4}  {t.tree}{errors}")
    return lines


def ab_scores(outcomes: Iterable[GameOutcome]) -> list[tuple[int, int]]:
    """(A's goals, B's goals) of every game played, whatever the colours; failed games left out."""
    out = []
    for o in outcomes:
        if o.result is not None:
            score = o.result.score
            # swapped: B plays blue, so A's goals are red's
            out.append((score["red"], score["blue"]) if o.game.swapped else (score["blue"], score["red"]))
    return out


def play_time(outcomes: Iterable[GameOutcome]) -> PlayTime | None:
    """The simulated and PLAYING seconds of the games played that report their time per game
    state (a game stored by an earlier soccerbt does not), or None when none does."""
    return PlayTime.of((o.result.sim_s, o.result.playing_s) for o in outcomes if o.result is not None)


def comparison(outcomes: Iterable[GameOutcome], confidence: float = 0.95) -> HeadToHead:
    """Tree A against tree B over the games played: record, intervals, time in PLAYING, the sentence."""
    outcomes = list(outcomes)
    return head_to_head(ab_scores(outcomes), "A", "B", confidence, play_time(outcomes))


def next_seeds(played: list[int], count: int) -> list[int]:
    """``count`` more seeds, continuing from the last one given (``played[-1] + 1``, ...) and
    skipping any seed already played."""
    if count < 0:
        raise ValueError(f"count must be 0 or more, got {count}")
    seen = set(played)
    out: list[int] = []
    seed = played[-1] + 1 if played else 0
    while len(out) < count:
        if seed not in seen:
            out.append(seed)
        seed += 1
    return out


def game_json(outcome: GameOutcome) -> dict[str, Any]:
    """One game as JSON: seed, colours, result (None when it failed), error, attempts."""
    o = outcome
    return {"seed": o.game.seed, "blue": o.game.blue, "red": o.game.red,
            "result": o.result.to_dict() if o.result is not None else None, "error": o.error,
            "failed": o.failed, "attempts": o.attempts}


def batch_json(outcomes: Iterable[GameOutcome], trees: dict[str, str], colours: str,
               extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything as one JSON-ready object: trees, colours, games (result or error), totals,
    statistics (A against B)."""
    outcomes = list(outcomes)
    games = [game_json(o) for o in outcomes]
    out: dict[str, Any] = {"trees": dict(trees), "colours": colours, "games": games,
                           "totals": {k: v.to_dict() for k, v in totals(outcomes, trees).items()},
                           "statistics": comparison(outcomes).to_dict(),
                           "failed_games": sum(o.failed for o in outcomes)}
    if extra:
        out.update(extra)
    return out

