"""Head-to-head statistics of a batch: is tree A stronger than tree B, and how sure are we?

Pure arithmetic, no matches: ``wilson_interval`` (a share with its Wilson score interval),
``t_interval`` (a mean with its Student t interval) and ``head_to_head``, which turns the scores
of the games from A's side ``(A goals, B goals)`` into wins, draws, losses, goals, the mean goal
difference with its t interval, the share of points (win 1, draw 1/2) and the win share with
their Wilson intervals, and a plain sentence. A difference is significant when the interval of
the points share excludes an even match (one half).

Every game counts as one observation; with swapped colours the two games of a seed are not
quite independent, and stopping as soon as the interval excludes one half (``soccerbt batch
--until-significant``) looks at the data repeatedly, so read a just-significant result with care.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scipy import stats as _scipy_stats

__all__ = ["wilson_interval", "t_interval", "HeadToHead", "head_to_head", "statistics_lines"]


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return float(_scipy_stats.norm.ppf(0.5 + confidence / 2.0))


def wilson_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of the share ``successes / n``; successes may be fractional
    (points with a draw worth a half). No games: the whole of (0, 1)."""
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    z = _z(confidence)
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n))) / denom
    # the ends are exactly 0 and 1 when nothing or everything succeeded (not 0.9999999999999999)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def t_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float | None, float | None, float | None]:
    """(mean, low, high): the mean and its Student t interval (n - 1 degrees of freedom).
    No values: all None; one value: the mean and no interval (None, None); no spread: the
    mean three times."""
    _z(confidence)  # checks the confidence
    n = len(values)
    if n == 0:
        return None, None, None
    mean = math.fsum(values) / n
    if n == 1:
        return mean, None, None
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(_scipy_stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class HeadToHead:
    """Tree ``a`` against tree ``b`` over ``games`` games, from a's side."""

    a: str
    b: str
    games: int
    wins: int
    draws: int
    losses: int
    goals_for: int
    goals_against: int
    confidence: float
    goal_diff_mean: float | None
    goal_diff_low: float | None
    goal_diff_high: float | None
    points_share: float | None
    points_low: float
    points_high: float
    win_share: float | None
    win_low: float
    win_high: float

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def significant(self) -> bool:
        """The interval of the points share excludes an even match."""
        return self.games > 0 and (self.points_low > 0.5 or self.points_high < 0.5)

    @property
    def stronger(self) -> str | None:
        """The label of the significantly stronger tree, or None."""
        if not self.significant:
            return None
        return self.a if self.points_low > 0.5 else self.b

    def sentence(self) -> str:
        """"A is stronger than B: 62% of points, 95% CI 54-70%" or "no significant difference after 40 games"."""
        level = f"{self.confidence * 100:g}%"
        if self.games == 0:
            return "no games played: nothing to compare"
        if self.stronger is None:
            return (f"no significant difference after {self.games} game{'s' if self.games != 1 else ''} "
                    f"({self.a} {_pct(self.points_share)} of points, {level} CI "
                    f"{_pct(self.points_low, False)}-{_pct(self.points_high)})")
        if self.stronger == self.a:
            share, low, high, loser = self.points_share, self.points_low, self.points_high, self.b
        else:  # the Wilson interval is symmetric: B's share is 1 - A's
            share, low, high, loser = 1 - self.points_share, 1 - self.points_high, 1 - self.points_low, self.a
        return (f"{self.stronger} is stronger than {loser}: {_pct(share)} of points, {level} CI "
                f"{_pct(low, False)}-{_pct(high)} ({self.games} games)")

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "games": self.games, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "goals_for": self.goals_for, "goals_against": self.goals_against,
                "confidence": self.confidence,
                "goal_difference": {"mean": self.goal_diff_mean, "low": self.goal_diff_low,
                                    "high": self.goal_diff_high, "method": "t"},
                "points_share": {"share": self.points_share, "points": self.points, "low": self.points_low,
                                 "high": self.points_high, "method": "wilson"},
                "win_share": {"share": self.win_share, "low": self.win_low, "high": self.win_high,
                              "method": "wilson"},
                "significant": self.significant, "stronger": self.stronger, "sentence": self.sentence()}


def _pct(share: float | None, sign: bool = True) -> str:
    if share is None:
        return "-"
    return f"{share * 100:.0f}%" if sign else f"{share * 100:.0f}"


def head_to_head(scores: Iterable[tuple[int, int]], a: str = "A", b: str = "B",
                 confidence: float = 0.95) -> HeadToHead:
    """The statistics of games scored ``(a's goals, b's goals)``."""
    scores = list(scores)
    n = len(scores)
    wins = sum(x > y for x, y in scores)
    draws = sum(x == y for x, y in scores)
    mean, low, high = t_interval([x - y for x, y in scores], confidence)
    points = wins + 0.5 * draws
    p_low, p_high = wilson_interval(points, n, confidence)
    w_low, w_high = wilson_interval(wins, n, confidence)
    return HeadToHead(a, b, n, wins, draws, n - wins - draws, sum(x for x, _ in scores), sum(y for _, y in scores),
                      confidence, mean, low, high, points / n if n else None, p_low, p_high,
                      wins / n if n else None, w_low, w_high)


def _signed(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}"


def statistics_lines(h: HeadToHead) -> list[str]:
    """The statistics under the batch's table: record, goal difference, shares, the sentence."""
    level = f"{h.confidence * 100:g}%"
    lines = [f"{h.a} against {h.b}: {h.games} games, {h.wins} won, {h.draws} drawn, {h.losses} lost, "
             f"goals {h.goals_for}:{h.goals_against}"]
    if h.games == 0:
        return [*lines, h.sentence()]
    if h.goal_diff_low is None:
        diff = f"goal difference per game {_signed(h.goal_diff_mean)} (one game: no interval)"
    else:
        diff = (f"goal difference per game {_signed(h.goal_diff_mean)}, {level} CI {_signed(h.goal_diff_low)} "
                f"to {_signed(h.goal_diff_high)} (t, {h.games - 1} df)")
    lines.append(diff)
    lines.append(f"points share {h.points_share * 100:.1f}% ({h.points:g} of {h.games}), {level} CI "
                 f"{h.points_low * 100:.1f}-{h.points_high * 100:.1f}% (Wilson); win share "
                 f"{h.win_share * 100:.1f}%, {level} CI {h.win_low * 100:.1f}-{h.win_high * 100:.1f}%")
    lines.append(h.sentence())
    return lines
