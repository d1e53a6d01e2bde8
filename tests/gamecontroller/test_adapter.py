"""The blackboard adapter: the gc_* entries of the reference table, edges as events, the
connection timeout, and the real-traffic traps (swapped blocks, substitutes, 128/255)."""
from __future__ import annotations

import dataclasses
from collections.abc import MutableMapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soccerbt.gamecontroller.adapter import (ConnectionChanged, GameControllerAdapter, GoalScored, HalfChanged,
                                             KickOffChanged, PenaltyEnded, PenaltyStarted, StateChanged,
                                             SubStateChanged)
from soccerbt.gamecontroller.protocol import (DROPBALL, DROPBALL_JAVA, GameControlData, GameState, Penalty,
                                              RobotInfo, SecondaryState, SubState, TeamInfo, decode, encode)

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
        GameControllerAdapter(1, 12)
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
