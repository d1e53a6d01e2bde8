"""The blackboard adapter: the gc_* entries of the reference table, edges as events, the
connection timeout, and the real-traffic traps (swapped blocks, substitutes, 128/255)."""
from __future__ import annotations

import dataclasses
from collections.abc import MutableMapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soccerbt.gamecontroller.adapter import (
    ConnectionChanged,
    GameControllerAdapter,
    GoalScored,
    HalfChanged,
    KickOffChanged,
    PenaltyEnded,
    PenaltyStarted,
    StateChanged,
    SubStateChanged,
)
from soccerbt.gamecontroller.protocol import (
    DROPBALL,
    DROPBALL_JAVA,
    GameControlData,
    GameState,
    Penalty,
    RobotInfo,
    SecondaryState,
    SubState,
    TeamInfo,
    decode,
    encode,
)

US, THEM = 5, 9


def team(number: int, score: int = 0, players: dict[int, RobotInfo] | None = None, ppt: int = 3) -> TeamInfo:
    """A team block with ``ppt`` players; the other slots carry the substitute penalty like real ones."""
    slots = []
    for n in range(1, 12):
        if players and n in players:
            slots.append(players[n])
        else:
            slots.append(RobotInfo() if n <= ppt else RobotInfo(penalty=Penalty.SUBSTITUTE))
    return TeamInfo(team_number=number, score=score, players=tuple(slots))


def packet(state: int = GameState.PLAYING, *, ours: TeamInfo | None = None, theirs: TeamInfo | None = None,
           swapped: bool = False, **kw) -> GameControlData:
    ours = ours or team(US)
    theirs = theirs or team(THEM)
    teams = (theirs, ours) if swapped else (ours, theirs)
    return dataclasses.replace(GameControlData(state=state, teams=teams, players_per_team=3), **kw)


@pytest.fixture
def adapter() -> GameControllerAdapter:
    return GameControllerAdapter(US, 2)


@pytest.mark.parametrize("state, name", [(0, "INITIAL"), (1, "READY"), (2, "SET"), (3, "PLAY"), (4, "END")])
def test_game_state_strings(adapter: GameControllerAdapter, state: int, name: str) -> None:
    bb: dict = {}
    adapter.apply(packet(state), 0.0, bb)
    assert bb["gc_game_state"] == name


def test_unknown_state_keeps_the_last(adapter: GameControllerAdapter) -> None:
    bb: dict = {}
    adapter.apply(packet(GameState.SET), 0.0, bb)
    events = adapter.apply(packet(7), 0.1, bb)
    assert bb["gc_game_state"] == "SET"
    assert not any(isinstance(e, StateChanged) for e in events)


@pytest.mark.parametrize("secondary, sub_type, phase, set_play", [
    (SecondaryState.NORMAL, "NONE", "NORMAL", ""),
    (SecondaryState.PENALTYSHOOT, "NONE", "PENALTYSHOOT", ""),  # not FREE_KICK (Booster's bug)
    (SecondaryState.OVERTIME, "NONE", "OVERTIME", ""),
    (SecondaryState.TIMEOUT, "TIMEOUT", "TIMEOUT", ""),
    (SecondaryState.DIRECT_FREEKICK, "FREE_KICK", "NORMAL", "DIRECT_FREEKICK"),
    (SecondaryState.INDIRECT_FREEKICK, "FREE_KICK", "NORMAL", "INDIRECT_FREEKICK"),
    (SecondaryState.PENALTYKICK, "FREE_KICK", "NORMAL", "PENALTY_KICK"),
    (SecondaryState.CORNER_KICK, "FREE_KICK", "NORMAL", "CORNER_KICK"),
    (SecondaryState.GOAL_KICK, "FREE_KICK", "NORMAL", "GOAL_KICK"),
    (SecondaryState.THROW_IN, "FREE_KICK", "NORMAL", "THROW_IN"),
])
def test_secondary_state_mapping(adapter: GameControllerAdapter, secondary: int, sub_type: str, phase: str,
                                 set_play: str) -> None:
    bb: dict = {}
    adapter.apply(packet(secondary_state=secondary, secondary_state_info=(THEM, SubState.GET_READY, 0, 0)), 0.0, bb)
    assert bb["gc_game_sub_state_type"] == sub_type
    assert bb["gc_game_phase"] == phase
    assert bb["gc_set_play"] == set_play
    assert bb["gc_game_sub_state"] == ("GET_READY" if sub_type == "FREE_KICK" else "")
    assert bb["gc_is_sub_state_kickoff_side"] is False


@pytest.mark.parametrize("sub, name", [(SubState.STOP, "STOP"), (SubState.GET_READY, "GET_READY"),
                                       (SubState.SET, "SET")])
def test_free_kick_sub_states(adapter: GameControllerAdapter, sub: int, name: str) -> None:
    bb: dict = {}
    adapter.apply(packet(secondary_state=SecondaryState.CORNER_KICK, secondary_state_info=(US, sub, 0, 0)), 0.0, bb)
    assert bb["gc_game_sub_state"] == name
    assert bb["gc_is_sub_state_kickoff_side"] is True


@pytest.mark.parametrize("kick_off, ours", [(US, True), (THEM, False), (DROPBALL_JAVA, False), (DROPBALL, False)])
def test_kick_off_side(adapter: GameControllerAdapter, kick_off: int, ours: bool) -> None:
    bb: dict = {}
    adapter.apply(packet(kick_off_team=kick_off), 0.0, bb)
    assert bb["gc_is_kickoff_side"] is ours
    assert bb["gc_kick_off_team"] == kick_off


def test_our_block_is_found_by_number_when_blocks_swap(adapter: GameControllerAdapter) -> None:
    bb: dict = {}
    penalised = {2: RobotInfo(penalty=Penalty.PICKUP_OR_INCAPABLE, secs_till_unpenalised=7)}
    first = packet(ours=team(US, 1, penalised), theirs=team(THEM, 3), first_half=1)
    adapter.apply(first, 0.0, bb)
    assert (bb["gc_score"], bb["gc_opponent_score"], bb["gc_is_under_penalty"]) == (1, 3, True)
    second = packet(ours=team(US, 1), theirs=team(THEM, 3, penalised), swapped=True, first_half=0)
    events = adapter.apply(second, 1.0, bb)
    assert (bb["gc_score"], bb["gc_opponent_score"], bb["gc_is_under_penalty"]) == (1, 3, False)
    assert bb["gc_first_half"] is False
    assert HalfChanged(1.0, False) in events and PenaltyEnded(1.0) in events


def test_substitute_slot_counts_as_under_penalty() -> None:
    bb: dict = {}
    GameControllerAdapter(US, 4).apply(packet(), 0.0, bb)  # player 4 of 3: a substitute slot (14)
    assert bb["gc_is_under_penalty"] is True and bb["gc_penalty"] == Penalty.SUBSTITUTE


def test_red_card_counts_as_under_penalty(adapter: GameControllerAdapter) -> None:
    bb: dict = {}
    adapter.apply(packet(ours=team(US, players={2: RobotInfo(red_card_count=1)})), 0.0, bb)
    assert bb["gc_is_under_penalty"] is True and bb["gc_penalty"] == 0


def test_negative_times_pass_through(adapter: GameControllerAdapter) -> None:
    bb: dict = {}
    adapter.apply(decode(encode(packet(secs_remaining=-42, secondary_time=-3))), 0.0, bb)
    assert (bb["gc_secs_remaining"], bb["gc_secondary_time"]) == (-42, -3)


def test_foreign_packet_changes_nothing(adapter: GameControllerAdapter) -> None:
    bb: dict = {}
    adapter.apply(packet(GameState.READY, ours=team(US, 2)), 0.0, bb)
    before = dict(bb)
    foreign = packet(GameState.PLAYING, ours=team(11, 4), theirs=team(12, 4))
    assert adapter.apply(foreign, 0.5, bb) == []
    assert bb == before
    # ...and does not keep the connection alive
    events = adapter.apply(foreign, 2.6, bb)
    assert events == [ConnectionChanged(2.6, False)] and bb["gc_connected"] is False


def test_connection_times_out_and_comes_back(adapter: GameControllerAdapter) -> None:
    bb: dict = {}
    assert adapter.apply(None, 0.0, bb) == []
    assert bb["gc_connected"] is False and bb["gc_game_state"] == "INITIAL"  # defaults before any packet
    p = packet()
    assert isinstance(adapter.apply(p, 1.0, bb)[0], ConnectionChanged)
    assert bb["gc_connected"] is True
    assert adapter.apply(None, 2.9, bb) == [] and bb["gc_connected"] is True
    assert adapter.apply(p, 3.1, bb) == [ConnectionChanged(3.1, False)]  # same object: nothing new
    assert bb["gc_connected"] is False
    assert adapter.apply(packet(), 3.2, bb)[0] == ConnectionChanged(3.2, True)


def test_same_object_is_skipped(adapter: GameControllerAdapter) -> None:
    class CountingDict(dict):
        writes = 0

        def __setitem__(self, key: str, value: object) -> None:
            CountingDict.writes += 1
            super().__setitem__(key, value)

    bb = CountingDict()
    p = packet()
    adapter.apply(p, 0.0, bb)
    after_first = CountingDict.writes
    assert after_first >= 13
    for k in range(10):
        assert adapter.apply(p, 0.01 * k, bb) == []
    assert CountingDict.writes == after_first
    # a new packet with only the clock changed writes only the clock
    adapter.apply(dataclasses.replace(p, secs_remaining=p.secs_remaining - 1), 0.2, bb)
    assert CountingDict.writes == after_first + 1


def test_new_blackboard_gets_every_entry(adapter: GameControllerAdapter) -> None:
    p = packet(GameState.SET)
    a: dict = {}
    b: dict = {}
    adapter.apply(p, 0.0, a)
    adapter.apply(None, 0.1, b)
    assert a == b and b["gc_game_state"] == "SET"


def test_edge_events_in_order(adapter: GameControllerAdapter) -> None:
    bb: MutableMapping = {}
    ev = adapter.apply(packet(GameState.READY, kick_off_team=THEM), 0.0, bb)
    assert ev == [ConnectionChanged(0.0, True), StateChanged(0.0, None, "READY"), KickOffChanged(0.0, THEM, False)]
    assert adapter.apply(packet(GameState.SET, kick_off_team=THEM), 1.0, bb) == [StateChanged(1.0, "READY", "SET")]
    ev = adapter.apply(packet(GameState.PLAYING, kick_off_team=THEM, secondary_state=SecondaryState.THROW_IN,
                              secondary_state_info=(US, SubState.STOP, 0, 0)), 2.0, bb)
    assert ev == [StateChanged(2.0, "SET", "PLAY"),
                  SubStateChanged(2.0, "NONE", "FREE_KICK", "", "STOP", "THROW_IN", True)]
    pen = {2: RobotInfo(penalty=Penalty.ILLEGAL_DEFENSE, secs_till_unpenalised=10)}
    ev = adapter.apply(packet(GameState.PLAYING, kick_off_team=THEM, ours=team(US, 1, pen), theirs=team(THEM, 1)),
                       3.0, bb)
    assert ev == [SubStateChanged(3.0, "FREE_KICK", "NONE", "STOP", "", "", False),
                  PenaltyStarted(3.0, Penalty.ILLEGAL_DEFENSE, 10),
                  GoalScored(3.0, True, 1, 1), GoalScored(3.0, False, 1, 1)]
    ev = adapter.apply(packet(GameState.READY, kick_off_team=US, ours=team(US, 1), theirs=team(THEM, 1)), 4.0, bb)
    assert ev == [StateChanged(4.0, "PLAY", "READY"), KickOffChanged(4.0, US, True), PenaltyEnded(4.0)]


def test_first_packet_with_penalty_means_pose_lost(adapter: GameControllerAdapter) -> None:
    pen = {2: RobotInfo(penalty=Penalty.PICKUP_OR_INCAPABLE, secs_till_unpenalised=30)}
    ev = adapter.apply(packet(ours=team(US, players=pen)), 0.0, {})
    assert PenaltyStarted(0.0, Penalty.PICKUP_OR_INCAPABLE, 30) in ev
    assert not any(isinstance(e, GoalScored) for e in ev)  # a score on connecting is not a goal


def test_bad_numbers_are_rejected() -> None:
    with pytest.raises(ValueError, match="player"):
        GameControllerAdapter(1, 0)
    with pytest.raises(ValueError, match="player"):
        GameControllerAdapter(1, 21)  # HSL numbers players 1..20
    with pytest.raises(ValueError, match="team"):
        GameControllerAdapter(256, 1)


def test_keys_and_defaults_agree_with_the_blackboard_schema() -> None:
    schema = pytest.importorskip("soccerbt.blackboard.schema")
    from soccerbt.gamecontroller.adapter import DEFAULTS, GC_KEYS

    written = sorted(k if isinstance(k, str) else k.name for k in schema.keys_written_by("gamecontroller"))
    assert written == sorted(DEFAULTS) == sorted(GC_KEYS)
    for key, value in DEFAULTS.items():
        assert schema.SCHEMA[key].default == value, key
        assert schema.SCHEMA[key].type is GC_KEYS[key][0], key


_small_packets = st.builds(
    lambda state, sec, info0, info1, ko, fh, s_us, s_them, pen, secs, red, clock, swapped: packet(
        state, ours=team(US, s_us, {2: RobotInfo(pen, secs, 0, 0, red, 0)}), theirs=team(THEM, s_them),
        swapped=swapped, secondary_state=sec, secondary_state_info=(info0, info1, 0, 0), kick_off_team=ko,
        first_half=fh, secs_remaining=clock, secondary_time=-clock),
    st.integers(0, 4), st.integers(0, 9), st.sampled_from([US, THEM, 0]), st.integers(0, 2),
    st.sampled_from([US, THEM, DROPBALL_JAVA]), st.integers(0, 1), st.integers(0, 3), st.integers(0, 3),
    st.sampled_from([0, 14, 34]), st.integers(0, 10), st.integers(0, 1), st.integers(-5, 600), st.booleans())


@settings(deadline=None, max_examples=200)
@given(st.lists(_small_packets, min_size=1, max_size=12))
def test_entries_after_a_sequence_equal_a_fresh_adapter_on_the_last_packet(seq: list[GameControlData]) -> None:
    adapter = GameControllerAdapter(US, 2)
    bb: dict = {}
    for k, p in enumerate(seq):
        adapter.apply(p, 0.1 * k, bb)
    fresh: dict = {}
    GameControllerAdapter(US, 2).apply(seq[-1], 0.0, fresh)
    assert bb == fresh


# --- HSL v19 / v20 packets: the last table of hsl-gamecontroller.md --------------------------

from soccerbt.gamecontroller.hsl_protocol import (  # noqa: E402
    GamePhase,
    HslControlData,
    HslRobotInfoV19,
    HslRobotInfoV20,
    HslTeamInfo,
    PenaltyV19,
    PenaltyV20,
    SetPlay,
)

HSL_ROBOT = {19: HslRobotInfoV19, 20: HslRobotInfoV20}


def hsl(version: int = 20, *, penalty: int = 0, player: int = 2, swapped: bool = False, scores=(0, 0),
        budget: int = 11000, **kw) -> HslControlData:
    cls = HSL_ROBOT[version]
    ours = HslTeamInfo(US, score=scores[0], message_budget=budget,
                       players=tuple(cls(penalty if j + 1 == player else 0, 7 if j + 1 == player and penalty else 0)
                                     for j in range(20)))
    theirs = HslTeamInfo(THEM, 1, score=scores[1], players=(cls(),) * 20)
    teams = (theirs, ours) if swapped else (ours, theirs)
    return dataclasses.replace(HslControlData(version=version, teams=teams), **kw)


def entries(p, player: int = 2) -> dict:
    bb: dict = {}
    GameControllerAdapter(US, player).apply(p, 0.0, bb)
    return bb


@pytest.mark.parametrize("version", [19, 20])
@pytest.mark.parametrize("state, name", list(zip(range(5), ("INITIAL", "READY", "SET", "PLAY", "END"), strict=False)))
def test_hsl_game_state(version: int, state: int, name: str) -> None:
    bb = entries(hsl(version, state=state))
    assert bb["gc_game_state"] == name and bb["gc_packet_version"] == version and bb["gc_connected"] is True


@pytest.mark.parametrize("version", [19, 20])
@pytest.mark.parametrize("set_play, name", [
    (SetPlay.DIRECT_FREE_KICK, "DIRECT_FREEKICK"), (SetPlay.INDIRECT_FREE_KICK, "INDIRECT_FREEKICK"),
    (SetPlay.PENALTY_KICK, "PENALTY_KICK"), (SetPlay.THROW_IN, "THROW_IN"), (SetPlay.GOAL_KICK, "GOAL_KICK"),
    (SetPlay.CORNER_KICK, "CORNER_KICK")])
@pytest.mark.parametrize("stopped, sub", [(1, "STOP"), (0, "GET_READY")])
@pytest.mark.parametrize("kicking, ours", [(US, True), (THEM, False)])
def test_hsl_set_plays(version: int, set_play: int, name: str, stopped: int, sub: str, kicking: int,
                       ours: bool) -> None:
    bb = entries(hsl(version, state=GameState.PLAYING, set_play=set_play, stopped=stopped, kicking_team=kicking))
    assert bb["gc_game_sub_state_type"] == "FREE_KICK"
    assert bb["gc_real_game_sub_state"] == name and bb["gc_set_play"] == name
    assert bb["gc_game_sub_state"] == sub and bb["gc_stopped"] is bool(stopped)
    assert bb["gc_is_sub_state_kickoff_side"] is ours and bb["gc_is_kickoff_side"] is ours
    assert bb["gc_kick_off_team"] == kicking


@pytest.mark.parametrize("kicking", [US, THEM, 255])
def test_hsl_no_set_play(kicking: int) -> None:
    bb = entries(hsl(state=GameState.READY, kicking_team=kicking))
    assert (bb["gc_game_sub_state_type"], bb["gc_real_game_sub_state"], bb["gc_game_sub_state"], bb["gc_set_play"]) \
        == ("NONE", "NONE", "NONE", "")
    assert bb["gc_is_kickoff_side"] is (kicking == US)  # kick-off: setPlay NONE with kickingTeam
    assert bb["gc_is_sub_state_kickoff_side"] is False and bb["gc_stopped"] is False


@pytest.mark.parametrize("version", [19, 20])
def test_hsl_timeout_is_a_timeout(version: int) -> None:
    bb = entries(hsl(version, state=GameState.INITIAL, game_phase=GamePhase.TIMEOUT, kicking_team=US))
    assert bb["gc_game_state"] == "INITIAL"
    assert bb["gc_game_sub_state_type"] == "TIMEOUT" and bb["gc_game_phase"] == "TIMEOUT"
    assert bb["gc_game_sub_state"] == "NONE"


@pytest.mark.parametrize("phase, name", [(GamePhase.NORMAL, "NORMAL"), (GamePhase.PENALTY_SHOOT_OUT, "PENALTYSHOOT"),
                                         (GamePhase.EXTRA_TIME, "OVERTIME")])
def test_hsl_game_phase_uses_the_v12_names(phase: int, name: str) -> None:
    bb = entries(hsl(game_phase=phase))
    assert bb["gc_game_phase"] == name and bb["gc_game_sub_state_type"] == "NONE"


@pytest.mark.parametrize("version, code", [(19, p) for p in PenaltyV19] + [(20, p) for p in PenaltyV20])
def test_hsl_penalties_by_meaning(version: int, code) -> None:
    bb = entries(hsl(version, penalty=int(code)))
    assert bb["gc_penalty"] == int(code) and bb["gc_penalty_name"] == code.name
    assert bb["gc_is_under_penalty"] is (code.name != "NONE")  # MOTION_IN_STOP and CAUTIONED too
    assert bb["gc_secs_till_unpenalised"] == (7 if int(code) else 0)


def test_hsl_v20_codes_are_not_read_as_v19() -> None:
    # code 11 is SUBSTITUTE in v19 and CAUTIONED in v20; 3 is LOCAL_GAME_STUCK / MOTION_IN_STOP
    assert entries(hsl(19, penalty=11))["gc_penalty_name"] == "SUBSTITUTE"
    assert entries(hsl(20, penalty=11))["gc_penalty_name"] == "CAUTIONED"
    assert entries(hsl(20, penalty=3))["gc_penalty_name"] == "MOTION_IN_STOP"
    bb = entries(hsl(20, penalty=99))
    assert bb["gc_penalty_name"] == "UNKNOWN_99" and bb["gc_is_under_penalty"] is True


def test_hsl_players_beyond_eleven() -> None:
    bb = entries(hsl(penalty=int(PenaltyV20.PICK_UP), player=17), player=17)
    assert bb["gc_is_under_penalty"] is True and bb["gc_penalty_name"] == "PICK_UP"
    assert entries(packet(), player=17)["gc_is_under_penalty"] is False  # v12 has no slot 17


@pytest.mark.parametrize("swapped", [False, True])
def test_hsl_scores_half_and_budget(swapped: bool) -> None:
    bb = entries(hsl(scores=(3, 1), swapped=swapped, first_half=0, secs_remaining=-5, secondary_time=30))
    assert (bb["gc_score"], bb["gc_opponent_score"]) == (3, 1)
    assert bb["gc_first_half"] is False
    assert (bb["gc_secs_remaining"], bb["gc_secondary_time"]) == (-5, 30)
    assert bb["gc_message_budget"] == 11000


def test_v12_fills_the_hsl_keys() -> None:
    bb = entries(packet(secondary_state=SecondaryState.CORNER_KICK, secondary_state_info=(US, SubState.STOP, 0, 0)))
    assert bb["gc_real_game_sub_state"] == "CORNER_KICK" and bb["gc_stopped"] is True
    assert bb["gc_message_budget"] == -1 and bb["gc_packet_version"] == 12 and bb["gc_penalty_name"] == "NONE"
    bb = entries(packet())
    assert bb["gc_real_game_sub_state"] == "NONE" and bb["gc_stopped"] is False
    pen = {2: RobotInfo(penalty=Penalty.PICKUP_OR_INCAPABLE)}
    assert entries(packet(ours=team(US, players=pen)))["gc_penalty_name"] == "PICKUP_OR_INCAPABLE"


def test_hsl_events_and_clock_only_updates() -> None:
    adapter = GameControllerAdapter(US, 2)
    bb: dict = {}
    ev = adapter.apply(hsl(state=GameState.PLAYING, secs_remaining=100), 0.0, bb)
    assert StateChanged(0.0, None, "PLAY") in ev
    ev = adapter.apply(hsl(state=GameState.PLAYING, secs_remaining=99, budget=10999), 0.5, bb)
    assert ev == [] and bb["gc_secs_remaining"] == 99 and bb["gc_message_budget"] == 10999
    ev = adapter.apply(hsl(state=GameState.PLAYING, set_play=SetPlay.GOAL_KICK, stopped=1, kicking_team=THEM), 1.0, bb)
    assert SubStateChanged(1.0, "NONE", "FREE_KICK", "NONE", "STOP", "GOAL_KICK", False) in ev
    ev = adapter.apply(hsl(state=GameState.PLAYING, penalty=int(PenaltyV20.MOTION_IN_STOP)), 1.5, bb)
    assert PenaltyStarted(1.5, int(PenaltyV20.MOTION_IN_STOP), 7) in ev
    ev = adapter.apply(hsl(state=GameState.PLAYING, scores=(1, 0)), 2.0, bb)
    assert PenaltyEnded(2.0) in ev and GoalScored(2.0, True, 1, 0) in ev
    # a switch to v12 in the same match still works
    ev = adapter.apply(packet(state=GameState.SET, ours=team(US, score=1)), 2.5, bb)
    assert StateChanged(2.5, "PLAY", "SET") in ev and bb["gc_packet_version"] == 12
    assert adapter.apply(hsl(kicking_team=THEM, teams=(HslTeamInfo(1), HslTeamInfo(2))), 3.0, bb) == []


def test_hsl_packet_from_bytes() -> None:
    bb = entries(decode(encode(hsl(19, state=GameState.PLAYING, set_play=SetPlay.THROW_IN, kicking_team=US))))
    assert bb["gc_game_sub_state"] == "GET_READY" and bb["gc_is_sub_state_kickoff_side"] is True
