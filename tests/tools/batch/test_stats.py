"""The batch statistics against known values: Wilson score intervals, Student t intervals, and
tree A against tree B with its sentence, including the edge cases (no games, one game, all
draws, all wins, all losses); no zero-width interval printed as if it were certain (no goals, no
spread), the won-drawn-lost legend, and the warning when little of the time was PLAYING."""
from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest
from scipy import stats as scipy_stats

from soccerbt.__main__ import main
from soccerbt.match import MatchConfig, MatchResult
from soccerbt.tools.batch.batch import BatchGame, GameOutcome, batch_json, comparison, play_time
from soccerbt.tools.batch.batch_cli import ProgressBar
from soccerbt.tools.batch.batch_store import result_from_dict
from soccerbt.tools.batch.stats import (
    PlayTime,
    head_to_head,
    play_time_warning,
    statistics_lines,
    t_interval,
    wilson_interval,
)
from soccerbt.tools.batch.sweep import ComboResult, parse_param
from soccerbt.tools.batch.sweep_cli import table_lines as sweep_table_lines


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
    assert lines[2].startswith("points share 60.0% (3 of 5 points: win 1, draw 1/2), 95% CI ")
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
    assert (draws.goal_diff_low, draws.goal_diff_high) == (None, None)  # no goals: no zero-width interval
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


# --- issue 40: honest intervals, the legend, the time in PLAYING ---------------------------------------


def test_four_goalless_draws_have_a_wilson_points_interval_and_no_goal_difference_interval() -> None:
    h = head_to_head([(0, 0)] * 4)
    # the points share (win 1, draw 1/2): 2 of 4 points, Wilson 95%: 0.5 -/+ 0.35 exactly here
    # (z^2 / n = 0.96: centre 0.5, half width z * sqrt(0.0625 + 0.06) / 1.96 = 0.35)
    assert h.points == 2.0 and h.points_share == 0.5
    assert (h.points_low, h.points_high) == wilson_interval(2, 4)
    assert (round(h.points_low, 4), round(h.points_high, 4)) == (0.15, 0.85)
    assert h.points_high - h.points_low == pytest.approx(0.7, abs=1e-4)
    # no goals: no evidence either way, and no interval at all (not +0.00 to +0.00)
    assert h.goal_diff_mean == 0.0 and (h.goal_diff_low, h.goal_diff_high) == (None, None)
    assert h.goal_diff_no_interval == "no goals"
    lines = statistics_lines(h)
    assert lines == [
        "A against B: 4 games, 0 won, 4 drawn, 0 lost, goals 0:0",
        "goal difference per game: no goals in 4 games: no evidence either way (no interval)",
        "points share 50.0% (2 of 4 points: win 1, draw 1/2), 95% CI 15.0-85.0% (Wilson); win share 0.0%, "
        "95% CI 0.0-49.0%",
        "no significant difference after 4 games (A 50% of points, 95% CI 15-85%)",
    ]
    assert "+0.00 to +0.00" not in "\n".join(lines)
    d = h.to_dict()
    # the keys scripts read are all there; new ones added
    assert d["goal_difference"] == {"mean": 0.0, "low": None, "high": None, "method": "t", "no_interval": "no goals",
                                    "text": lines[1]}
    assert d["points_share"]["method"] == "wilson" and d["points_share"]["definition"] == "win 1, draw 1/2"
    assert d["points_share"]["low"] == h.points_low and d["points_share"]["high"] == h.points_high
    assert d["record"] == "0-4-0" and d["record_legend"] == "won-drawn-lost" and d["play_time"] is None
    assert h.goal_diff_text(short=True) == "no goals"


def test_the_same_goal_difference_in_every_game_has_no_interval_either() -> None:
    h = head_to_head([(1, 0)] * 5)
    assert h.goal_diff_mean == 1.0 and (h.goal_diff_low, h.goal_diff_high) == (None, None)
    assert h.goal_diff_no_interval == "no spread"
    assert statistics_lines(h)[1] == ("goal difference per game +1.00, the same in all 5 games: no spread to "
                                      "estimate an interval from (no interval; not a certainty)")
    assert h.goal_diff_text(short=True) == "+1.00 (no spread)"
    assert h.to_dict()["goal_difference"]["no_interval"] == "no spread"
    # a single goalless game is "no goals" too; a single game with goals "one game"
    assert head_to_head([(0, 0)]).goal_diff_no_interval == "no goals"
    assert head_to_head([(2, 1)]).goal_diff_text(short=True) == "+1.00 (one game)"
    # with spread: the t interval, and no reason
    spread = head_to_head([(1, 0), (0, 0), (2, 0)])
    assert spread.goal_diff_no_interval is None and spread.goal_diff_low < 1.0 < spread.goal_diff_high
    assert spread.to_dict()["goal_difference"]["no_interval"] is None


def test_no_printed_interval_has_zero_width() -> None:
    for scores in ([(0, 0)] * 3, [(1, 1)] * 3, [(2, 0)] * 3, [(0, 1)] * 6, [(1, 0)], [(0, 0)]):
        h = head_to_head(scores)
        assert h.points_high > h.points_low and h.win_high > h.win_low, scores
        assert h.goal_diff_low is None or h.goal_diff_high > h.goal_diff_low, scores


def _result(sim_s: float, state_s: dict[str, float] | None, score: tuple[int, int] = (0, 0)) -> MatchResult:
    return MatchResult(seed=0, sim_s=sim_s, score={"blue": score[0], "red": score[1]}, goals=(), robots=(),
                       errors=(), trees={}, finished=False, state_s=state_s)


def test_a_short_batch_warns_that_it_was_mostly_set_up() -> None:
    game = BatchGame(0, False, MatchConfig(duration_s=30.0))
    setup = {"INITIAL": 2.0, "READY": 21.36, "SET": 3.0}
    outcomes = [GameOutcome(game, _result(30.0, {**setup, "PLAYING": 3.64})) for _ in range(4)]
    played = play_time(outcomes)
    assert played == PlayTime(4, 120.0, pytest.approx(14.56))
    assert played.playing_share == pytest.approx(0.1213, abs=1e-4)
    # 26.36 s of set-up a game: half of the time PLAYING from 52.7 s on, rounded up to 60
    assert played.warning == (
        "warning: only 12% of the simulated time was PLAYING (3.6 of 30.0 s per game); the rest (26.4 s a game) "
        "is set-up (INITIAL, READY, SET before the kick-off and after each goal): these games say little about "
        "play; give --seconds 60 or more, or play whole matches")
    h = comparison(outcomes)
    lines = statistics_lines(h)
    assert lines[-2] == played.warning and lines[-1] == h.sentence()
    stats = batch_json(outcomes, {"A": "a.xml", "B": "b.xml"}, "fixed")["statistics"]
    assert stats["play_time"] == {"games": 4, "sim_s": 120.0, "playing_s": 14.56, "playing_share": 0.1213,
                                  "warning": played.warning}
    # half the time PLAYING or more: no warning
    long_games = [GameOutcome(game, _result(120.0, {**setup, "PLAYING": 93.64}))] * 2
    assert play_time(long_games).warning is None
    assert not any(line.startswith("warning:") for line in statistics_lines(comparison(long_games)))
    # games that do not report their time per state (stored by an earlier soccerbt) are left out
    assert play_time([GameOutcome(game, _result(30.0, None))]) is None
    assert comparison([GameOutcome(game, _result(30.0, None))]).to_dict()["play_time"] is None
    assert play_time_warning(None) is None


def test_the_sweep_table_has_a_legend_no_zero_width_goal_interval_and_the_warning() -> None:
    game = BatchGame(0, False, MatchConfig(duration_s=30.0))
    param = parse_param("Chase.vx_limit=0.5,0.9")
    short = {"INITIAL": 2.0, "READY": 21.36, "SET": 3.0, "PLAYING": 3.64}
    draws = [GameOutcome(game, _result(30.0, short)) for _ in range(4)]
    wins = [GameOutcome(game, _result(30.0, short, (1, 0))) for _ in range(4)]
    results = [ComboResult(0, {param: "0.5"}, draws, comparison(draws)),
               ComboResult(1, {param: "0.9"}, wins, comparison(wins))]
    lines = sweep_table_lines(results, [param], results[1])
    assert lines[0].split()[:4] == ["#", "Chase.vx_limit", "games", "W-D-L"]
    assert lines[1].split()[2:] == ["4", "0-4-0", "0:0", "50%", "(15-85%)", "no", "goals"]
    assert lines[2].split()[4:] == ["4-0-0", "4:0", "100%", "(51-100%)", "+1.00", "(no", "spread)"]
    assert lines[3].startswith("W-D-L: the tuned tree's games won-drawn-lost; points: its share of the points "
                               "(win 1, draw 1/2) with a Wilson interval; goal difference: ")
    assert lines[4] == play_time(draws + wins).warning and lines[4].startswith("warning: only 12% ")


def test_a_tiny_batch_reports_its_time_per_state_and_warns(tmp_path: Path, capsys) -> None:
    out = tmp_path / "b.json"
    assert main(["batch", "--seeds", "0", "--seconds", "3", "--team-size", "1", "--field", "kid", "--jobs", "1",
                 "--quiet", "--no-progress", "--json", str(out)]) == 0
    stdout = capsys.readouterr().out.splitlines()
    summary = json.loads(out.read_text())
    state_s = summary["games"][0]["result"]["state_s"]
    # three seconds: INITIAL (2 s), then READY; no PLAYING yet
    assert state_s == {"INITIAL": 2.0, "READY": 1.0}
    # a stored game keeps it; one stored by an earlier soccerbt has none (and is left out of play_time)
    stored = summary["games"][0]["result"]
    assert result_from_dict(stored).state_s == state_s
    assert result_from_dict({k: v for k, v in stored.items() if k != "state_s"}).state_s is None
    stats = summary["statistics"]
    assert stats["play_time"]["playing_share"] == 0.0 and stats["play_time"]["warning"].startswith(
        "warning: only 0% of the simulated time was PLAYING (0.0 of 3.0 s per game)")
    assert stats["goal_difference"]["no_interval"] == "no goals" and stats["goal_difference"]["low"] is None
    assert stdout[-2] == stats["play_time"]["warning"] and stdout[-1] == stats["sentence"]
    assert "goal difference per game: no goals in 1 game: no evidence either way (no interval)" in stdout


def test_the_progress_bar_writes_a_record_with_its_legend() -> None:
    bar = ProgressBar(3, 0, io.StringIO())
    game = BatchGame(0, False, MatchConfig(duration_s=30.0))
    for score in ((0, 0), (2, 1)):
        bar.done(GameOutcome(game, _result(30.0, None, score)))
    assert bar.bar.postfix == "A 1-1-0 (won-drawn-lost)"
    bar.close()
