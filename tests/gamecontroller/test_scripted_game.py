"""The gc send script language: parsing, located errors, and the packet timeline."""
from __future__ import annotations

import pytest

from soccerbt.gamecontroller.protocol import DROPBALL, GameState, Penalty, SecondaryState, SubState
from soccerbt.gamecontroller.scripted_game import ScriptedGame, ScriptError, parse_script


def timeline(text: str, rate_hz: float = 2.0, **kw):
    game = ScriptedGame(parse_script(text, (1, 2)), 1, 2, **kw)
    return list(game.packets(rate_hz))


@pytest.mark.parametrize("text, line, column, message", [
    ("READY", 1, 1, "READY takes 1 argument, got 0"),
    ("READY 2 3", 1, 9, "READY takes 1 argument, got 2"),
    ("READY x", 1, 7, "duration (s): expected a number"),
    ("READY -1", 1, 7, "must be at least 0"),
    ("PLAYIN 5", 1, 1, "unknown statement 'PLAYIN'"),
    ("READY 1;\nSET 1; FREEKICK THROW 2 STOP 1", 2, 17, "unknown free kick 'THROW'"),
    ("READY 1; FREEKICK THROW_IN 2 WAIT 1", 1, 30, "unknown sub-state 'WAIT'"),
    ("READY 1; PENALTY 3 1 34", 1, 18, "team 3 does not play"),
    ("READY 1; PENALTY 1 12 34", 1, 20, "player 12 out of range"),
    ("READY 1; PENALTY 1 2 SLEEPY", 1, 22, "unknown penalty 'SLEEPY'"),
    ("READY 1; PENALTY 1 2 300", 1, 22, "penalty code 300 out of range"),
    ("READY 1; GOAL 1.5", 1, 15, "team: expected a whole number"),
    ("READY 1; CLOCK 40000", 1, 16, "clock 40000 out of range"),
    ("GOAL 1  # no timed statement", 1, 1, "the script sends nothing"),
    ("", 1, 1, "the script sends nothing"),
])
def test_errors_are_located(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(ScriptError) as info:
        parse_script(text, (1, 2), "game.txt")
    err = info.value
    assert (err.line, err.column) == (line, column)
    assert message in err.message
    assert str(err).startswith(f"game.txt:{line}:{column}: ")


def test_keywords_are_case_insensitive_and_comments_ignored() -> None:
    st = parse_script("ready 1 # walk in\nplay 2; freekick corner_kick 2 get_ready 1", (1, 2))
    assert [s.keyword for s in st] == ["READY", "PLAY", "FREEKICK"]
    assert st[2].args == (SecondaryState.CORNER_KICK, 2, SubState.GET_READY)


def test_timeline_of_a_game() -> None:
    pk = timeline("READY 1; SET 1; PLAYING 2; FREEKICK THROW_IN 2 STOP 1; PENALTY 2 3 34; GOAL 1; HALFTIME; "
                  "READY 0.5")
    times = [t for t, _ in pk]
    assert times == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0]
    assert [p.packet_number for _, p in pk] == list(range(11))
    states = [(p.state, p.secondary_state) for _, p in pk]
    assert states == [(1, 0)] * 2 + [(2, 0)] * 2 + [(3, 0)] * 4 + [(3, 9)] * 2 + [(1, 0)]
    # the clock runs in PLAYING only; the kick-off wait counts after SET
    assert [p.secs_remaining for _, p in pk[4:10]] == [600, 600, 599, 599, 598, 598]
    assert [p.secondary_time for _, p in pk[4:8]] == [10, 10, 9, 9]
    assert pk[8][1].secondary_state_info == (2, SubState.STOP, 0, 0) and pk[8][1].secondary_time == 1
    last = pk[-1][1]
    assert last.first_half == 0 and [t.team_number for t in last.teams] == [2, 1]  # blocks swap
    assert [t.score for t in last.teams] == [0, 1]
    assert last.kick_off_team == 2  # the team that conceded kicks off
    assert last.teams[0].players[2].penalty == Penalty.PICKUP_OR_INCAPABLE
    assert last.teams[0].players[2].secs_till_unpenalised == 10
    assert last.secs_remaining == 600  # the second half starts a new clock


def test_every_timed_statement_sends_at_least_once() -> None:
    pk = timeline("READY 0.1; SET 0; PLAYING 0.2", rate_hz=2.0)
    assert [(t, p.state) for t, p in pk] == [(0.0, 1), (0.1, 2), (0.1, 3)]


def test_penalties_count_down_and_lift() -> None:
    pk = timeline("PENALTY 1 2 SUBSTITUTE; PENALTY 1 3 INCAPABLE 1.5; PLAYING 3", players_per_team=3)
    pen = [(p.teams[0].players[1].penalty, p.teams[0].players[2].penalty, p.teams[0].players[2].secs_till_unpenalised)
           for _, p in pk]
    assert pen == [(14, 34, 2), (14, 34, 1), (14, 34, 1), (14, 0, 0), (14, 0, 0), (14, 0, 0)]
    assert all(p.teams[0].players[5].penalty == Penalty.SUBSTITUTE for _, p in pk)  # unused slots


def test_kick_off_timeout_phase_and_clock_statements() -> None:
    pk = timeline("KICKOFF DROPBALL; PHASE OVERTIME; CLOCK -5; PLAYING 1; TIMEOUT 2 1; UNPENALIZE 1 1; KICKOFF 2; "
                  "SET 0.5")
    p0, p2, p4 = pk[0][1], pk[2][1], pk[4][1]
    assert p0.kick_off_team == DROPBALL and p0.secondary_state == SecondaryState.OVERTIME
    assert p0.secs_remaining == -5 and pk[1][1].secs_remaining == -6
    assert p2.secondary_state == SecondaryState.TIMEOUT and p2.secondary_state_info[0] == 2
    assert p2.state == GameState.PLAYING and p2.secs_remaining == -6  # a timeout stops the clock
    assert p4.state == GameState.SET and p4.kick_off_team == 2


# --- HSL v19 / v20 packets -------------------------------------------------------------------

from soccerbt.gamecontroller.hsl_protocol import GamePhase, HslControlData, PenaltyV19, PenaltyV20, SetPlay  # noqa: E402
from soccerbt.gamecontroller.protocol import decode, encode  # noqa: E402


def hsl_timeline(text: str, version: int = 20, rate_hz: float = 1.0, **kw) -> list[HslControlData]:
    game = ScriptedGame(parse_script(text, (1, 2), version=version), 1, 2, version=version, **kw)
    out = [p for _, p in game.packets(rate_hz)]
    assert all(decode(encode(p)) == p for p in out)
    return out


@pytest.mark.parametrize("version", [19, 20])
def test_hsl_set_plays_and_stopped(version: int) -> None:
    pk = hsl_timeline("READY 1; SET 1; PLAYING 1; SETPLAY CORNER_KICK 2 STOPPED 1; SETPLAY CORNER_KICK 2 RESUMED 1; "
                      "FREEKICK DIRECT_FREE_KICK 1 STOP 1; FREEKICK PENALTYKICK 1 SET 1; PLAYING 1", version)
    assert all(p.version == version for p in pk)
    assert [(p.state, p.stopped, p.set_play, p.kicking_team) for p in pk] == [
        (GameState.READY, 0, SetPlay.NONE, 1), (GameState.SET, 0, SetPlay.NONE, 1),
        (GameState.PLAYING, 0, SetPlay.NONE, 1),
        (GameState.PLAYING, 1, SetPlay.CORNER_KICK, 2), (GameState.PLAYING, 0, SetPlay.CORNER_KICK, 2),
        (GameState.PLAYING, 1, SetPlay.DIRECT_FREE_KICK, 1), (GameState.PLAYING, 0, SetPlay.PENALTY_KICK, 1),
        (GameState.PLAYING, 0, SetPlay.NONE, 1)]
    assert pk[2].secondary_time == 10 and pk[3].secondary_time == 1


def test_hsl_timeout_phase_and_dropball() -> None:
    pk = hsl_timeline("PLAYING 1; TIMEOUT 2 1; PHASE EXTRA_TIME; KICKOFF DROPBALL; PLAYING 1; PHASE PENALTYSHOOT; "
                      "SET 1")
    assert (pk[1].state, pk[1].game_phase) == (GameState.INITIAL, GamePhase.TIMEOUT)
    assert (pk[2].game_phase, pk[2].kicking_team) == (GamePhase.EXTRA_TIME, 255)
    assert pk[3].game_phase == GamePhase.PENALTY_SHOOT_OUT


@pytest.mark.parametrize("version, name, code", [(20, "MOTION_IN_STOP", PenaltyV20.MOTION_IN_STOP),
                                                 (20, "CAUTIONED", PenaltyV20.CAUTIONED),
                                                 (19, "LOCAL_GAME_STUCK", PenaltyV19.LOCAL_GAME_STUCK),
                                                 (20, "6", PenaltyV20.PICK_UP)])
def test_hsl_penalties_by_version(version: int, name: str, code: int) -> None:
    pk = hsl_timeline(f"PENALTY 1 15 {name} 1.5; PLAYING 3", version, players_per_team=16)
    assert [p.teams[0].players[14].penalty for p in pk] == [code, code, 0]
    assert pk[0].teams[0].players[14].secs_till_unpenalised == 2
    substitute = PenaltyV19.SUBSTITUTE if version == 19 else PenaltyV20.SUBSTITUTE
    assert pk[0].teams[0].players[16].penalty == substitute and pk[0].teams[0].players[15].penalty == 0
    assert pk[0].teams[0].message_budget == 12000


@pytest.mark.parametrize("text, version, column, message", [
    ("PENALTY 1 2 MOTION_IN_STOP; PLAYING 1", 19, 13, "unknown v19 penalty 'MOTION_IN_STOP'"),
    ("PENALTY 1 21 PICK_UP; PLAYING 1", 20, 11, "player 21 out of range 1..20"),
    ("PENALTY 1 12 34; PLAYING 1", 12, 11, "player 12 out of range 1..11"),
    ("SETPLAY THROW_IN 2 PAUSED 1", 20, 20, "unknown set play flag 'PAUSED'"),
    ("SETPLAY KICK 2 STOPPED 1", 20, 9, "unknown set play 'KICK'"),
])
def test_hsl_script_errors_are_located(text: str, version: int, column: int, message: str) -> None:
    with pytest.raises(ScriptError) as info:
        parse_script(text, (1, 2), "g", version=version)
    assert info.value.column == column and message in info.value.message


def test_bad_versions_are_rejected() -> None:
    with pytest.raises(ValueError, match="version 18"):
        parse_script("READY 1", (1, 2), version=18)
    with pytest.raises(ValueError, match="players_per_team 12"):
        ScriptedGame(parse_script("READY 1", (1, 2)), 1, 2, players_per_team=12)
