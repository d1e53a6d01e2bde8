"""Head-to-head statistics of a batch: is tree A stronger than tree B, and how sure are we?

Pure arithmetic, no matches: ``wilson_interval`` (a share with its Wilson score interval),
``t_interval`` (a mean with its Student t interval) and ``head_to_head``, which turns the scores
of the games from A's side ``(A goals, B goals)`` into wins, draws, losses, goals, the mean goal
difference with its t interval, the share of points and the win share with their Wilson
intervals, and a plain sentence. The points share is A's points over the games played, a win
worth 1 point and a draw 1/2 (``POINTS_DEFINITION``); its Wilson interval never collapses to a
point, even when every game is drawn. A difference is significant when the interval of the
points share excludes an even match (one half).

An interval of zero width would read as certainty, so the goal difference has none when it
cannot be estimated, and says why (``HeadToHead.goal_diff_no_interval``): no goals in any game
(no evidence either way), one game, or the same difference in every game (no spread). Given the
games' simulated and PLAYING seconds, ``play_time_warning`` says when less than half the time
was PLAYING: a match spends its first ~26 s in INITIAL, READY and SET, so a short ``--seconds``
measures mostly the set-up.

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

__all__ = ["wilson_interval", "t_interval", "HeadToHead", "head_to_head", "statistics_lines", "PlayTime",
           "play_time_warning", "POINTS_DEFINITION", "RECORD_LEGEND", "MIN_PLAYING_SHARE"]

POINTS_DEFINITION = "win 1, draw 1/2"  # the points share: points over games
RECORD_LEGEND = "won-drawn-lost"  # what "3-1-2" means wherever a record is written short
MIN_PLAYING_SHARE = 0.5  # less PLAYING than this share of the simulated time: warned


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
    play_time: PlayTime | None = None  # the games' PLAYING seconds, when they report them

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def record(self) -> str:
        """"3-1-2": won-drawn-lost (``RECORD_LEGEND``)."""
        return f"{self.wins}-{self.draws}-{self.losses}"

    @property
    def goal_diff_no_interval(self) -> str | None:
        """Why the goal difference has no interval ("no games", "no goals", "one game", "no
        spread"), or None when it has one."""
        if self.games == 0:
            return "no games"
        if self.goals_for + self.goals_against == 0:
            return "no goals"
        if self.games == 1:
            return "one game"
        if self.goal_diff_low is None:
            return "no spread"
        return None

    def goal_diff_text(self, short: bool = False) -> str:
        """The goal difference per game with its interval, or why it has none. `short`: for a
        table column ("+0.35 (-0.06 to +0.76)", "no goals", "+1.00 (no spread)")."""
        why = self.goal_diff_no_interval
        n = self.games
        if short:
            if why in ("no games", "no goals"):
                return "-" if why == "no games" else "no goals"
            mean = _signed(self.goal_diff_mean)
            if why is not None:
                return f"{mean} ({why})"
            return f"{mean} ({_signed(self.goal_diff_low)} to {_signed(self.goal_diff_high)})"
        if why == "no games":
            return "goal difference per game: no games"
        if why == "no goals":
            return (f"goal difference per game: no goals in {n} game{'s' if n != 1 else ''}: no evidence either "
                    "way (no interval)")
        if why == "one game":
            return f"goal difference per game {_signed(self.goal_diff_mean)} (one game: no interval)"
        if why == "no spread":
            return (f"goal difference per game {_signed(self.goal_diff_mean)}, the same in all {n} games: no spread "
                    "to estimate an interval from (no interval; not a certainty)")
        level = f"{self.confidence * 100:g}%"
        return (f"goal difference per game {_signed(self.goal_diff_mean)}, {level} CI {_signed(self.goal_diff_low)} "
                f"to {_signed(self.goal_diff_high)} (t, {n - 1} df)")

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
                "record": self.record, "record_legend": RECORD_LEGEND,
                "goal_difference": {"mean": self.goal_diff_mean, "low": self.goal_diff_low,
                                    "high": self.goal_diff_high, "method": "t",
                                    "no_interval": self.goal_diff_no_interval, "text": self.goal_diff_text()},
                "points_share": {"share": self.points_share, "points": self.points, "low": self.points_low,
                                 "high": self.points_high, "method": "wilson", "definition": POINTS_DEFINITION},
                "win_share": {"share": self.win_share, "low": self.win_low, "high": self.win_high,
                              "method": "wilson"},
                "play_time": None if self.play_time is None else self.play_time.to_dict(),
                "significant": self.significant, "stronger": self.stronger, "sentence": self.sentence()}


def _pct(share: float | None, sign: bool = True) -> str:
    if share is None:
        return "-"
    return f"{share * 100:.0f}%" if sign else f"{share * 100:.0f}"


def head_to_head(scores: Iterable[tuple[int, int]], a: str = "A", b: str = "B",
                 confidence: float = 0.95, play_time: PlayTime | None = None) -> HeadToHead:
    """The statistics of games scored ``(a's goals, b's goals)``; `play_time`: their PLAYING
    seconds, when known (``PlayTime.of``)."""
    scores = list(scores)
    n = len(scores)
    wins = sum(x > y for x, y in scores)
    draws = sum(x == y for x, y in scores)
    mean, low, high = t_interval([x - y for x, y in scores], confidence)
    if low is not None and low == high:  # no spread: a zero-width interval would read as certainty
        low = high = None
    points = wins + 0.5 * draws
    p_low, p_high = wilson_interval(points, n, confidence)
    w_low, w_high = wilson_interval(wins, n, confidence)
    return HeadToHead(a, b, n, wins, draws, n - wins - draws, sum(x for x, _ in scores), sum(y for _, y in scores),
                      confidence, mean, low, high, points / n if n else None, p_low, p_high,
                      wins / n if n else None, w_low, w_high, play_time)


@dataclass(frozen=True)
class PlayTime:
    """The simulated and PLAYING seconds of the games that report their time per game state."""

    games: int
    sim_s: float
    playing_s: float

    @classmethod
    def of(cls, times: Iterable[tuple[float, float | None]]) -> PlayTime | None:
        """From ``(sim_s, playing_s)`` per game (playing_s None: not reported, left out); None
        when no game reports it."""
        known = [(sim, playing) for sim, playing in times if playing is not None]
        if not known:
            return None
        return cls(len(known), math.fsum(s for s, _ in known), math.fsum(p for _, p in known))

    @property
    def playing_share(self) -> float | None:
        return self.playing_s / self.sim_s if self.sim_s > 0 else None

    @property
    def warning(self) -> str | None:
        return play_time_warning(self)

    def to_dict(self) -> dict[str, Any]:
        share = self.playing_share
        return {"games": self.games, "sim_s": round(self.sim_s, 2), "playing_s": round(self.playing_s, 2),
                "playing_share": None if share is None else round(share, 4), "warning": self.warning}


def play_time_warning(play: PlayTime | None, min_share: float = MIN_PLAYING_SHARE) -> str | None:
    """A warning when less than `min_share` of the games' simulated time was PLAYING (the rest is
    set-up: INITIAL, READY, SET, and again after each goal), with the --seconds that would leave
    at least that share; None otherwise or when not known."""
    if play is None or play.games == 0 or play.sim_s <= 0:
        return None
    share = play.playing_share or 0.0
    if share >= min_share:
        return None
    per_game_s = play.sim_s / play.games
    playing_per_game_s = play.playing_s / play.games
    other_s = per_game_s - playing_per_game_s
    # the set-up does not grow with the match: `other_s` of set-up leaves min_share of PLAYING
    # from other_s / (1 - min_share) seconds on (rounded up to ten)
    enough_s = max(10, math.ceil(other_s / (1.0 - min_share) / 10.0) * 10)
    return (f"warning: only {share * 100:.0f}% of the simulated time was PLAYING ({playing_per_game_s:.1f} of "
            f"{per_game_s:.1f} s per game); the rest ({other_s:.1f} s a game) is set-up (INITIAL, READY, SET before "
            f"the kick-off and after each goal): these games say little about play; give --seconds {enough_s} or "
            f"more, or play whole matches")


def _signed(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}"


def statistics_lines(h: HeadToHead) -> list[str]:
    """The statistics under the batch's table: record, goal difference, shares, the sentence."""
    level = f"{h.confidence * 100:g}%"
    lines = [f"{h.a} against {h.b}: {h.games} games, {h.wins} won, {h.draws} drawn, {h.losses} lost, "
             f"goals {h.goals_for}:{h.goals_against}"]
    if h.games == 0:
        return [*lines, h.sentence()]
    lines.append(h.goal_diff_text())
    lines.append(f"points share {h.points_share * 100:.1f}% ({h.points:g} of {h.games} points: {POINTS_DEFINITION}), "
                 f"{level} CI {h.points_low * 100:.1f}-{h.points_high * 100:.1f}% (Wilson); win share "
                 f"{h.win_share * 100:.1f}%, {level} CI {h.win_low * 100:.1f}-{h.win_high * 100:.1f}%")
    warning = play_time_warning(h.play_time)
    if warning is not None:
        lines.append(warning)
    lines.append(h.sentence())
    return lines
