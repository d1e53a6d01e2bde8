"""The batch statistics against known values: Wilson score intervals, Student t intervals, and
tree A against tree B with its sentence, including the edge cases (no games, one game, all
draws, all wins, all losses)."""
from __future__ import annotations

import json
import math

import pytest
from scipy import stats as scipy_stats

from soccerbt.tools.batch.stats import head_to_head, statistics_lines, t_interval, wilson_interval


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    # all or nothing: the closed forms n / (n + z^2) and z^2 / (n + z^2)
    z2 = 1.959963984540054 ** 2
    assert wilson_interval(10, 10) == (pytest.approx(10 / (10 + z2)), 1.0)
    assert wilson_interval(0, 10) == (0.0, pytest.approx(z2 / (10 + z2)))
    # symmetric: the interval of n - x is one minus that of x
    lo2, hi2 = wilson_interval(2, 10)
    assert (lo2, hi2) == (pytest.approx(1 - high), pytest.approx(1 - low))
    # an even share is centred on one half; fractional successes (draws worth a half) are fine
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(1 - hi) and round(lo, 4) == 0.2366
    lo, hi = wilson_interval(7.5, 10)
    assert lo < 0.75 < hi and (round(lo, 4), round(hi, 4)) == (0.4422, 0.9191)
    # another level: 99% is wider
    lo99, hi99 = wilson_interval(8, 10, 0.99)
    assert lo99 < 0.4902 and hi99 > 0.9433


def test_wilson_interval_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for bad in ((-1, 10), (11, 10), (0, -1)):
        with pytest.raises(ValueError, match="successes"):
            wilson_interval(*bad)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 2, 1.5)


def test_t_interval_known_values() -> None:
    # mean 3, sd sqrt(2.5), t(0.975, 4 df) = 2.776445: 3 -/+ 1.963243
    mean, low, high = t_interval([1, 2, 3, 4, 5])
    assert mean == 3.0
    assert (round(low, 4), round(high, 4)) == (1.0368, 4.9632)
    values = [2, -1, 0, 3, 1, 1, -2, 0]
    mean, low, high = t_interval(values)
    ref = scipy_stats.t.interval(0.95, len(values) - 1, loc=sum(values) / len(values),
                                 scale=scipy_stats.sem(values))
    assert mean == 0.5 and (low, high) == (pytest.approx(ref[0]), pytest.approx(ref[1]))
    # by hand: mean 0.5, squared deviations 18, sd = sqrt(18 / 7), half width = 2.364624 * sd / sqrt(8)
    assert high - mean == pytest.approx(2.364624 * math.sqrt(18 / 7) / math.sqrt(8), rel=1e-6)


def test_t_interval_edges() -> None:
    assert t_interval([]) == (None, None, None)
    assert t_interval([2]) == (2.0, None, None)
    assert t_interval([1, 1, 1]) == (1.0, 1.0, 1.0)  # no spread, no width


def test_head_to_head_record_and_sentence() -> None:
    scores = [(2, 1), (0, 0), (0, 1), (3, 0), (1, 1)]
    h = head_to_head(scores)
    assert (h.games, h.wins, h.draws, h.losses, h.goals_for, h.goals_against) == (5, 2, 2, 1, 6, 3)
    assert h.points == 3.0 and h.points_share == 0.6 and h.win_share == 0.4
    assert (h.points_low, h.points_high) == wilson_interval(3, 5)
    assert (h.goal_diff_mean, h.goal_diff_low, h.goal_diff_high) == t_interval([1, 0, -1, 3, 0])
    assert not h.significant and h.stronger is None
    assert h.sentence().startswith("no significant difference after 5 games (A 60% of points, 95% CI ")
    d = h.to_dict()
    json.dumps(d)
    assert d["points_share"]["share"] == 0.6 and d["goal_difference"]["method"] == "t"
    assert d["significant"] is False and d["sentence"] == h.sentence()
    lines = statistics_lines(h)
    assert lines[0] == "A against B: 5 games, 2 won, 2 drawn, 1 lost, goals 6:3"
    assert lines[1].startswith("goal difference per game +0.60, 95% CI -") and lines[1].endswith("(t, 4 df)")
    assert lines[2].startswith("points share 60.0% (3 of 5), 95% CI ")
    assert lines[-1] == h.sentence()


def test_head_to_head_edges() -> None:
    none = head_to_head([])
    assert (none.games, none.points_share, none.goal_diff_mean, none.significant) == (0, None, None, False)
    assert (none.points_low, none.points_high) == (0.0, 1.0)
    assert none.sentence() == "no games played: nothing to compare"
    assert statistics_lines(none)[-1] == none.sentence()
    json.dumps(none.to_dict())

    one = head_to_head([(1, 0)])
    assert one.goal_diff_low is None and not one.significant
    assert "one game: no interval" in statistics_lines(one)[1]
    assert one.sentence().startswith("no significant difference after 1 game (")

    draws = head_to_head([(0, 0)] * 40)
    assert draws.points_share == 0.5 and draws.win_share == 0.0 and not draws.significant
    assert (draws.goal_diff_low, draws.goal_diff_high) == (0.0, 0.0)
    assert draws.sentence() == "no significant difference after 40 games (A 50% of points, 95% CI 35-65%)"

    wins = head_to_head([(1, 0)] * 10)
    assert wins.significant and wins.stronger == "A" and wins.points_high == 1.0
    assert wins.sentence() == "A is stronger than B: 100% of points, 95% CI 72-100% (10 games)"

    losses = head_to_head([(0, 2)] * 10, a="ours", b="booster")
    assert losses.stronger == "booster"
    assert losses.sentence() == "booster is stronger than ours: 100% of points, 95% CI 72-100% (10 games)"


def test_the_issue_example() -> None:
    # 40 games, 21 won, 8 drawn, 11 lost: 25 of 40 points
    h = head_to_head([(1, 0)] * 21 + [(0, 0)] * 8 + [(0, 1)] * 11)
    assert h.points_share == 0.625 and not h.significant  # 47-76%: 40 games are not enough for 62%
    h = head_to_head([(1, 0)] * 105 + [(0, 0)] * 40 + [(0, 1)] * 55)  # 200 games, the same shares
    assert h.sentence() == "A is stronger than B: 62% of points, 95% CI 56-69% (200 games)"
