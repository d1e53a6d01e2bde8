"""The GameController blackboard adapter: turns packets into the gc_* entries of one robot.

``GameControllerAdapter(team, player).apply(packet, now_s, blackboard)`` writes the entries of
the reference tables (HL v12: ``../shared/reference/gamecontroller.md``; HSL v19/v20: the last
table of ``../shared/reference/hsl-gamecontroller.md``) and returns the edges as events
(state changed, penalty started, goal, ...) for other adapters: a ``PenaltyStarted`` means the
robot was or will be picked up, so localization must treat its pose as lost.

It runs for every robot at 100 Hz in simulated matches, so it writes only entries that
changed and does nothing for a packet object it has already seen.

Every version writes the same keys. From an HSL packet (Booster's 2026 brain, with two rules
of our own): gc_game_sub_state_type is "TIMEOUT" during a timeout (gamePhase TIMEOUT), else
"FREE_KICK" for setPlay 1..6, else "NONE"; gc_game_sub_state is "STOP" while ``stopped``,
"GET_READY" otherwise during a set play, "NONE" outside one (HL v12 writes "" there); penalty
codes are read by their meaning in the packet's version (``hsl_protocol.penalty_meaning``), so
v20's MOTION_IN_STOP and CAUTIONED penalise like any other code. Keys only HSL fills have HL
v12 stand-ins: gc_stopped (a free kick in its STOP sub-state), gc_message_budget (-1).
"""
from __future__ import annotations

import math
from collections.abc import MutableMapping
from dataclasses import dataclass

from soccerbt.gamecontroller.hsl_protocol import (
    HSL_MAX_NUM_PLAYERS,
    GamePhase,
    HslControlData,
    SetPlay,
    penalty_meaning,
)
from soccerbt.gamecontroller.protocol import FREE_KICK_STATES, GameControlData, Penalty, SecondaryState

GAME_STATE_NAMES = ("INITIAL", "READY", "SET", "PLAY", "END")
SUB_STATE_NAMES = ("STOP", "GET_READY", "SET")
PHASE_NAMES = ("NORMAL", "PENALTYSHOOT", "OVERTIME", "TIMEOUT")
SET_PLAY_NAMES = {
    SecondaryState.DIRECT_FREEKICK: "DIRECT_FREEKICK",
    SecondaryState.INDIRECT_FREEKICK: "INDIRECT_FREEKICK",
    SecondaryState.PENALTYKICK: "PENALTY_KICK",
    SecondaryState.CORNER_KICK: "CORNER_KICK",
    SecondaryState.GOAL_KICK: "GOAL_KICK",
    SecondaryState.THROW_IN: "THROW_IN",
}
# HSL codes to the names the HL v12 entries use
HSL_PHASE_NAMES = {GamePhase.NORMAL: "NORMAL", GamePhase.PENALTY_SHOOT_OUT: "PENALTYSHOOT",
                   GamePhase.EXTRA_TIME: "OVERTIME", GamePhase.TIMEOUT: "TIMEOUT"}
HSL_SET_PLAY_NAMES = {
    SetPlay.DIRECT_FREE_KICK: "DIRECT_FREEKICK",
    SetPlay.INDIRECT_FREE_KICK: "INDIRECT_FREEKICK",
    SetPlay.PENALTY_KICK: "PENALTY_KICK",
    SetPlay.THROW_IN: "THROW_IN",
    SetPlay.GOAL_KICK: "GOAL_KICK",
    SetPlay.CORNER_KICK: "CORNER_KICK",
}
NO_MESSAGE_BUDGET = -1  # gc_message_budget of an HL v12 packet (no budget in that protocol)

# key -> (type, unit, meaning): the entries this adapter writes, for the blackboard schema.
GC_KEYS: dict[str, tuple[type, str, str]] = {
    "gc_game_state": (str, "", "INITIAL, READY, SET, PLAY or END"),
    "gc_game_sub_state_type": (str, "", "NONE, TIMEOUT or FREE_KICK"),
    "gc_game_sub_state": (str, "", "STOP, GET_READY or SET during a free kick, else empty"),
    "gc_game_phase": (str, "", "NORMAL, PENALTYSHOOT, OVERTIME or TIMEOUT"),
    "gc_set_play": (str, "", "the set play being taken (THROW_IN, GOAL_KICK, ...) or empty"),
    "gc_is_kickoff_side": (bool, "", "our team has the kick-off"),
    "gc_is_sub_state_kickoff_side": (bool, "", "our team takes the current set play"),
    "gc_is_under_penalty": (bool, "", "this player is penalised (substitutes included) or sent off"),
    "gc_score": (int, "goals", "our score"),
    "gc_opponent_score": (int, "goals", "the opponent's score"),
    "gc_secs_remaining": (int, "s", "game clock, signed"),
    "gc_secondary_time": (int, "s", "secondary clock (kick-off wait, set play, ready), signed"),
    "gc_connected": (bool, "", "a packet for our team arrived within the timeout"),
    # extras beyond Booster's keys
    "gc_penalty": (int, "", "this player's penalty code (0 none)"),
    "gc_secs_till_unpenalised": (int, "s", "time left of this player's penalty"),
    "gc_first_half": (bool, "", "the game is in its first half"),
    "gc_kick_off_team": (int, "", "team number with the kick-off (128/255: nobody)"),
    # HSL (2026-) entries, filled from HL v12 packets too
    "gc_real_game_sub_state": (str, "", "NONE or the set play (DIRECT_FREEKICK, ..., CORNER_KICK)"),
    "gc_stopped": (bool, "", "play is stopped while a set play is prepared"),
    "gc_penalty_name": (str, "", "this player's penalty by meaning in the packet's version (NONE, PICK_UP, ...)"),
    "gc_message_budget": (int, "messages", "team messages our team may still send (-1: HL v12, no budget)"),
    "gc_packet_version": (int, "", "version of the last packet for our team: 12, 19 or 20 (0: none yet)"),
}

DEFAULTS: dict[str, object] = {
    "gc_game_state": "INITIAL", "gc_game_sub_state_type": "NONE", "gc_game_sub_state": "",
    "gc_game_phase": "NORMAL", "gc_set_play": "", "gc_is_kickoff_side": False,
    "gc_is_sub_state_kickoff_side": False, "gc_is_under_penalty": False, "gc_score": 0,
    "gc_opponent_score": 0, "gc_secs_remaining": 0, "gc_secondary_time": 0, "gc_connected": False,
    "gc_penalty": 0, "gc_secs_till_unpenalised": 0, "gc_first_half": True, "gc_kick_off_team": 0,
    "gc_real_game_sub_state": "NONE", "gc_stopped": False, "gc_penalty_name": "NONE",
    "gc_message_budget": NO_MESSAGE_BUDGET, "gc_packet_version": 0,
}


# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GcEvent:
    """Base of the adapter's edge events; ``t_s`` is the ``now_s`` of the apply that saw it."""

    t_s: float


@dataclass(frozen=True, slots=True)
class ConnectionChanged(GcEvent):
    connected: bool


@dataclass(frozen=True, slots=True)
class StateChanged(GcEvent):
    """gc_game_state changed (``old`` is None on the first packet)."""

    old: str | None
    new: str


@dataclass(frozen=True, slots=True)
class SubStateChanged(GcEvent):
    """The sub-state type or the free-kick sub-state changed."""

    old_type: str
    new_type: str
    old_sub_state: str
    new_sub_state: str
    set_play: str
    ours: bool  # our team takes the set play


@dataclass(frozen=True, slots=True)
class KickOffChanged(GcEvent):
    kick_off_team: int
    ours: bool


@dataclass(frozen=True, slots=True)
class PenaltyStarted(GcEvent):
    """This player became penalised: it is (or will be) picked up; its pose is lost."""

    penalty: int
    secs_till_unpenalised: int


@dataclass(frozen=True, slots=True)
class PenaltyEnded(GcEvent):
    pass


@dataclass(frozen=True, slots=True)
class GoalScored(GcEvent):
    """A score went up. (Not the simulator's world event of the same name.)"""

    ours: bool
    score: int
    opponent_score: int


@dataclass(frozen=True, slots=True)
class HalfChanged(GcEvent):
    """first_half flipped: the teams switched sides."""

    first_half: bool


# --- the adapter ----------------------------------------------------------------------------


class GameControllerAdapter:
    """Writes one robot's gc_* entries from GameController packets.

    ``apply`` takes the packet that arrived since the last call, or None when nothing arrived
    (the same packet object again counts as nothing new). A packet that does not name our team
    changes nothing and does not count as a connection.
    """

    __slots__ = ("team", "player", "timeout_s", "_last_packet", "_last_rx_s", "_written", "_bb_id",
                 "_values", "_connected", "_seen_packet", "_dirty", "_signature")

    def __init__(self, team: int, player: int, timeout_s: float = 2.0) -> None:
        if not 0 <= team <= 255:
            raise ValueError(f"team number {team} out of range 0..255")
        if not 1 <= player <= HSL_MAX_NUM_PLAYERS:
            raise ValueError(f"player number {player} out of range 1..{HSL_MAX_NUM_PLAYERS}")
        self.team = team
        self.player = player
        self.timeout_s = timeout_s
        self._last_packet: GameControlData | HslControlData | None = None
        self._last_rx_s = -math.inf
        self._written: dict[str, object] = {}  # what we last wrote to the blackboard
        self._bb_id: int | None = None
        self._values: dict[str, object] = dict(DEFAULTS)  # the adapter's own view
        self._connected = False
        self._seen_packet = False  # a packet for our team arrived at least once
        self._dirty = True
        self._signature: tuple | None = None  # everything but the clocks of the last packet

    @property
    def entries(self) -> dict[str, object]:
        """The current gc_* values (a copy)."""
        return dict(self._values)

    def connected(self, now_s: float) -> bool:
        """A packet for our team arrived within ``timeout_s`` before ``now_s``."""
        return now_s - self._last_rx_s <= self.timeout_s

    def reset(self) -> None:
        """Forget everything (a new match): defaults are written on the next apply."""
        GameControllerAdapter.__init__(self, self.team, self.player, self.timeout_s)

    def apply(self, packet: GameControlData | HslControlData | None, now_s: float,
              blackboard: MutableMapping[str, object]) -> list[GcEvent]:
        """Update the gc_* entries of ``blackboard``; returns the edge events, in a fixed order:
        ConnectionChanged, StateChanged, SubStateChanged, KickOffChanged, HalfChanged,
        PenaltyStarted/PenaltyEnded, GoalScored (ours, then theirs)."""
        events: list[GcEvent] = []
        if self._bb_id != id(blackboard):  # a new blackboard: write everything once
            self._bb_id = id(blackboard)
            self._written = {}
            self._dirty = True
        if packet is not None and packet is not self._last_packet:
            self._last_packet = packet
            i = packet.team_index(self.team)
            if i is not None:
                self._last_rx_s = now_s
                me = packet.teams[i].player(self.player)
                if isinstance(packet, HslControlData):
                    budget = packet.teams[i].message_budget
                    signature = (packet.version, i, packet.state, packet.stopped, packet.game_phase,
                                 packet.set_play, packet.kicking_team, packet.first_half, packet.teams[0].score,
                                 packet.teams[1].score, me)
                else:
                    budget = NO_MESSAGE_BUDGET
                    signature = (i, packet.state, packet.secondary_state, packet.secondary_state_info,
                                 packet.kick_off_team, packet.first_half, packet.teams[0].score,
                                 packet.teams[1].score, me)
                if signature == self._signature:  # the usual case: only the clocks moved
                    v = self._values
                    if v["gc_secs_remaining"] != packet.secs_remaining \
                            or v["gc_secondary_time"] != packet.secondary_time \
                            or v["gc_message_budget"] != budget:
                        v["gc_secs_remaining"] = packet.secs_remaining
                        v["gc_secondary_time"] = packet.secondary_time
                        v["gc_message_budget"] = budget
                        self._dirty = True
                else:
                    self._signature = signature
                    if isinstance(packet, HslControlData):
                        self._update_hsl(packet, i, now_s, events)
                    else:
                        self._update(packet, i, now_s, events)
        connected = now_s - self._last_rx_s <= self.timeout_s
        if connected != self._connected:
            self._connected = connected
            self._values["gc_connected"] = connected
            self._dirty = True
            events.insert(0, ConnectionChanged(now_s, connected))
        if self._dirty:
            written = self._written
            for key, value in self._values.items():
                if written.get(key, _MISSING) != value:
                    blackboard[key] = value
                    written[key] = value
            self._dirty = False
        return events

    def _update(self, p: GameControlData, i: int, now_s: float, events: list[GcEvent]) -> None:
        """The entries of an HL v12 packet."""
        v = self._values
        old = self._snapshot()
        ours = p.teams[i]
        team = self.team

        state = p.state
        if 0 <= state < len(GAME_STATE_NAMES):  # unknown: keep the last
            v["gc_game_state"] = GAME_STATE_NAMES[state]
        sec = p.secondary_state
        info = p.secondary_state_info
        if sec in FREE_KICK_STATES:
            v["gc_game_sub_state_type"] = "FREE_KICK"
            v["gc_game_phase"] = "NORMAL"
            v["gc_set_play"] = v["gc_real_game_sub_state"] = SET_PLAY_NAMES[sec]
            if 0 <= info[1] < len(SUB_STATE_NAMES):
                v["gc_game_sub_state"] = SUB_STATE_NAMES[info[1]]
            elif old[1] != "FREE_KICK":  # unknown sub-state: keep the last, STOP when new
                v["gc_game_sub_state"] = "STOP"
        elif 0 <= sec < len(PHASE_NAMES):  # unknown secondary state: keep the last
            v["gc_game_sub_state_type"] = "TIMEOUT" if sec == SecondaryState.TIMEOUT else "NONE"
            v["gc_game_phase"] = PHASE_NAMES[sec]
            v["gc_set_play"] = ""
            v["gc_real_game_sub_state"] = "NONE"
            v["gc_game_sub_state"] = ""
        v["gc_stopped"] = v["gc_game_sub_state_type"] == "FREE_KICK" and v["gc_game_sub_state"] == "STOP"
        kick_off_team = p.kick_off_team
        v["gc_is_kickoff_side"] = kick_off_team == team
        v["gc_is_sub_state_kickoff_side"] = info[0] == team
        v["gc_kick_off_team"] = kick_off_team
        me = ours.player(self.player)  # None: a player number beyond v12's 11
        penalty = me.penalty if me is not None else 0
        v["gc_penalty"] = penalty
        try:
            v["gc_penalty_name"] = Penalty(penalty).name
        except ValueError:
            v["gc_penalty_name"] = f"UNKNOWN_{penalty}"
        v["gc_secs_till_unpenalised"] = me.secs_till_unpenalised if me is not None else 0
        v["gc_is_under_penalty"] = me is not None and (penalty != 0 or me.red_card_count > 0)
        v["gc_message_budget"] = NO_MESSAGE_BUDGET
        v["gc_packet_version"] = p.version
        self._common(p, i, now_s, old, events)

    def _update_hsl(self, p: HslControlData, i: int, now_s: float, events: list[GcEvent]) -> None:
        """The entries of an HSL v19/v20 packet (the last table of hsl-gamecontroller.md)."""
        v = self._values
        old = self._snapshot()
        team = self.team
        state = p.state
        if 0 <= state < len(GAME_STATE_NAMES):  # unknown: keep the last
            v["gc_game_state"] = GAME_STATE_NAMES[state]
        phase = HSL_PHASE_NAMES.get(p.game_phase)
        if phase is not None:  # unknown: keep the last
            v["gc_game_phase"] = phase
        set_play = HSL_SET_PLAY_NAMES.get(p.set_play)
        stopped = p.stopped != 0
        if p.game_phase == GamePhase.TIMEOUT:  # our rule: Booster shows a timeout as NONE
            v["gc_game_sub_state_type"] = "TIMEOUT"
        else:
            v["gc_game_sub_state_type"] = "NONE" if set_play is None else "FREE_KICK"
        v["gc_set_play"] = set_play or ""
        v["gc_real_game_sub_state"] = set_play or "NONE"
        free_kick = set_play is not None
        v["gc_game_sub_state"] = ("STOP" if stopped else "GET_READY") if free_kick else "NONE"
        v["gc_stopped"] = stopped
        kicking_team = p.kicking_team
        v["gc_is_kickoff_side"] = kicking_team == team
        v["gc_is_sub_state_kickoff_side"] = free_kick and kicking_team == team
        v["gc_kick_off_team"] = kicking_team
        me = p.teams[i].player(self.player)
        penalty = me.penalty if me is not None else 0
        meaning = penalty_meaning(p.version, penalty)
        v["gc_penalty"] = penalty
        v["gc_penalty_name"] = meaning
        v["gc_secs_till_unpenalised"] = me.secs_till_unpenalised if me is not None else 0
        v["gc_is_under_penalty"] = meaning != "NONE"  # MOTION_IN_STOP, CAUTIONED, unknown codes too
        v["gc_message_budget"] = p.teams[i].message_budget
        v["gc_packet_version"] = p.version
        self._common(p, i, now_s, old, events)

    def _snapshot(self) -> tuple:
        v = self._values
        return (v["gc_game_state"], v["gc_game_sub_state_type"], v["gc_game_sub_state"], v["gc_kick_off_team"],
                v["gc_first_half"], v["gc_is_under_penalty"], v["gc_score"], v["gc_opponent_score"])

    def _common(self, p: GameControlData | HslControlData, i: int, now_s: float, old: tuple,
                events: list[GcEvent]) -> None:
        """The entries both families fill alike, then the edge events."""
        v = self._values
        first = not self._seen_packet
        self._seen_packet = True
        old_state, old_type, old_sub, old_kick_off, old_first_half, old_penalised, old_score, \
            old_opponent_score = old
        first_half = p.first_half != 0
        v["gc_first_half"] = first_half
        score = p.teams[i].score
        opponent_score = p.teams[1 - i].score
        v["gc_score"] = score
        v["gc_opponent_score"] = opponent_score
        v["gc_secs_remaining"] = p.secs_remaining
        v["gc_secondary_time"] = p.secondary_time
        self._dirty = True
        team = self.team
        kick_off_team = v["gc_kick_off_team"]
        penalised = v["gc_is_under_penalty"]

        new_state = v["gc_game_state"]
        if first or new_state != old_state:
            events.append(StateChanged(now_s, None if first else old_state, new_state))
        if old_type != v["gc_game_sub_state_type"] or old_sub != v["gc_game_sub_state"]:
            events.append(SubStateChanged(now_s, old_type, v["gc_game_sub_state_type"], old_sub,
                                          v["gc_game_sub_state"], v["gc_set_play"],
                                          v["gc_is_sub_state_kickoff_side"]))
        if first or kick_off_team != old_kick_off:
            events.append(KickOffChanged(now_s, kick_off_team, kick_off_team == team))
        if not first and first_half != old_first_half:
            events.append(HalfChanged(now_s, first_half))
        if penalised and not old_penalised:
            events.append(PenaltyStarted(now_s, v["gc_penalty"], v["gc_secs_till_unpenalised"]))
        elif old_penalised and not penalised:
            events.append(PenaltyEnded(now_s))
        if not first:
            if score > old_score:
                events.append(GoalScored(now_s, True, score, opponent_score))
            if opponent_score > old_opponent_score:
                events.append(GoalScored(now_s, False, score, opponent_score))


_MISSING = object()
