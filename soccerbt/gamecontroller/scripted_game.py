"""A small script language for scripted games (``soccerbt gc send``), and its packet timeline.

Statements are separated by ``;`` or new lines; ``#`` starts a comment; keywords are
case-insensitive. Timed statements last the given seconds and send packets; the others
change the game at once, before the next timed statement.

    INITIAL|READY|SET|PLAYING|PLAY|FINISHED|END <secs>   the game state for <secs>
    FREEKICK <kind> <team> STOP|GET_READY|SET <secs>     a set play in PLAYING; kind: THROW_IN,
                                                         GOAL_KICK, CORNER_KICK, DIRECT_FREEKICK,
                                                         INDIRECT_FREEKICK, PENALTYKICK
    SETPLAY <kind> <team> STOPPED|RESUMED <secs>         an HSL set play in PLAYING: stopped = 1
                                                         while the ball is placed, 0 once resumed
                                                         (HL v12 packets: sub-state STOP/GET_READY)
    TIMEOUT <team> <secs>                                a timeout (HL v12: secondary state TIMEOUT;
                                                         HSL: state INITIAL, gamePhase TIMEOUT)
    PENALTY <team> <player> <code|name> [<secs>]         e.g. PENALTY 2 3 34 (10 s by default;
                                                         SUBSTITUTE and MANUAL last until lifted)
    UNPENALIZE <team> <player>
    GOAL <team>                                          score; the other team kicks off next
    KICKOFF <team>|DROPBALL                              who kicks off (DROPBALL sends 255)
    PHASE NORMAL|PENALTYSHOOT|OVERTIME                   the game phase from now on (HSL names
                                                         PENALTY_SHOOT_OUT, EXTRA_TIME work too)
    CLOCK <secs>                                         set secs_remaining (may be negative)
    HALFTIME                                             second half: the team blocks swap order

Example: ``READY 5; SET 3; PLAYING 60; FREEKICK THROW_IN 2 STOP 3; PENALTY 2 3 34; GOAL 1``.

One script sends HL v12 or HSL v19/v20 packets (``ScriptedGame(version=...)``). Set-play kinds
take either family's names (THROW_IN, PENALTYKICK or PENALTY_KICK, DIRECT_FREEKICK or
DIRECT_FREE_KICK, ...). In HSL packets a FREEKICK's STOP is ``stopped = 1`` and GET_READY or SET
is ``stopped = 0`` (HSL has no SET sub-state); ``kickingTeam`` is the set play's team during a
set play, the kick-off team otherwise. Penalty names and codes are those of the version given to
``parse_script`` (HL v12: 34 or PICKUP_OR_INCAPABLE; v20: 6 or PICK_UP; names are resolved per
version); players are numbered 1..11 (v12) or 1..20 (HSL); unused slots carry the version's
SUBSTITUTE code.
The game clock runs in PLAYING (free kicks included); secondary_time counts down what is left
of READY, a free-kick sub-state, a timeout, and the 10 s kick-off wait after SET.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from soccerbt.gamecontroller.hsl_protocol import (
    HSL_MAX_NUM_PLAYERS,
    HSL_VERSIONS,
    GamePhase,
    HslControlData,
    HslRobotInfoV19,
    HslRobotInfoV20,
    HslTeamInfo,
    SetPlay,
    penalty_enum,
)
from soccerbt.gamecontroller.protocol import (
    DROPBALL,
    HL_VERSION,
    MAX_NUM_PLAYERS,
    GameControlData,
    GameState,
    Penalty,
    RobotInfo,
    SecondaryState,
    SubState,
    TeamColor,
    TeamInfo,
)


class ScriptError(ValueError):
    """A bad script, located: prints as ``source:line:column: message``."""

    def __init__(self, source: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{source}:{line}:{column}: {message}")
        self.source = source
        self.line = line
        self.column = column
        self.message = message


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Statement:
    """One parsed statement: its keyword (upper case) and arguments, with its location."""

    keyword: str
    args: tuple
    line: int
    column: int
    duration_s: float | None = None  # timed statements only


_STATES = {"INITIAL": GameState.INITIAL, "READY": GameState.READY, "SET": GameState.SET,
           "PLAYING": GameState.PLAYING, "PLAY": GameState.PLAYING, "FINISHED": GameState.FINISHED,
           "END": GameState.FINISHED}
_KINDS = {name: SecondaryState[name] for name in ("THROW_IN", "GOAL_KICK", "CORNER_KICK", "DIRECT_FREEKICK",
                                                  "INDIRECT_FREEKICK", "PENALTYKICK")}
_KINDS["PENALTY_KICK"] = SecondaryState.PENALTYKICK
_KINDS["DIRECT_FREE_KICK"] = SecondaryState.DIRECT_FREEKICK
_KINDS["INDIRECT_FREE_KICK"] = SecondaryState.INDIRECT_FREEKICK
_SUBS = {s.name: s for s in SubState}
_SETPLAY_FLAGS = {"STOPPED": SubState.STOP, "STOP": SubState.STOP, "RESUMED": SubState.GET_READY,
                  "RUNNING": SubState.GET_READY}
_PHASES = {"NORMAL": SecondaryState.NORMAL, "PENALTYSHOOT": SecondaryState.PENALTYSHOOT,
           "OVERTIME": SecondaryState.OVERTIME, "PENALTY_SHOOT_OUT": SecondaryState.PENALTYSHOOT,
           "EXTRA_TIME": SecondaryState.OVERTIME}
_PENALTY_ALIASES = {"INCAPABLE": Penalty.PICKUP_OR_INCAPABLE, "PICKUP": Penalty.PICKUP_OR_INCAPABLE}
_KEYWORDS = sorted(set(_STATES) | {"FREEKICK", "SETPLAY", "TIMEOUT", "PENALTY", "UNPENALIZE", "GOAL", "KICKOFF",
                                   "PHASE", "CLOCK", "HALFTIME"})
# HL v12 secondary states to their HSL counterparts
_HSL_SET_PLAY = {SecondaryState.DIRECT_FREEKICK: SetPlay.DIRECT_FREE_KICK,
                 SecondaryState.INDIRECT_FREEKICK: SetPlay.INDIRECT_FREE_KICK,
                 SecondaryState.PENALTYKICK: SetPlay.PENALTY_KICK, SecondaryState.THROW_IN: SetPlay.THROW_IN,
                 SecondaryState.GOAL_KICK: SetPlay.GOAL_KICK, SecondaryState.CORNER_KICK: SetPlay.CORNER_KICK}
_HSL_PHASE = {SecondaryState.NORMAL: GamePhase.NORMAL, SecondaryState.PENALTYSHOOT: GamePhase.PENALTY_SHOOT_OUT,
              SecondaryState.OVERTIME: GamePhase.EXTRA_TIME}
SCRIPT_VERSIONS = (HL_VERSION, *HSL_VERSIONS)
HSL_MESSAGE_BUDGET = 12000  # the 2026 configs' team message budget per game
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")


def _tokenize(text: str) -> list[list[Token]]:
    """Statements as lists of tokens (split on ';' and new lines, '#' comments dropped)."""
    statements: list[list[Token]] = []
    for line_no, line in enumerate(text.splitlines() or [""], start=1):
        line = line.split("#", 1)[0]
        current: list[Token] = []
        for m in re.finditer(r";|[^\s;]+", line):
            if m.group() == ";":
                if current:
                    statements.append(current)
                current = []
            else:
                current.append(Token(m.group(), line_no, m.start() + 1))
        if current:
            statements.append(current)
    return statements


def _max_players(version: int) -> int:
    return MAX_NUM_PLAYERS if version == HL_VERSION else HSL_MAX_NUM_PLAYERS


def parse_script(text: str, teams: tuple[int, int], source: str = "<script>",
                 version: int = HL_VERSION) -> list[Statement]:
    """Parse a script for a game between ``teams`` (team numbers) sent as packets of ``version``
    (12, 19 or 20: it decides penalty names and player numbers); raises ``ScriptError``."""
    if version not in SCRIPT_VERSIONS:
        raise ValueError(f"packet version {version} not supported (expected 12, 19 or 20)")
    out: list[Statement] = []
    max_players = _max_players(version)
    if version == HL_VERSION:
        penalty_names: dict = {p.name: p for p in Penalty} | _PENALTY_ALIASES
    else:
        penalty_names = {p.name: p for p in penalty_enum(version)}

    def error(tok: Token, message: str) -> ScriptError:
        return ScriptError(source, tok.line, tok.column, message)

    def number(tok: Token, what: str, *, integer: bool = False, minimum: float | None = 0.0) -> float:
        if not _NUMBER.match(tok.text):
            raise error(tok, f"{what}: expected a number, got {tok.text!r}")
        value = float(tok.text)
        if integer and value != int(value):
            raise error(tok, f"{what}: expected a whole number, got {tok.text!r}")
        if minimum is not None and value < minimum:
            raise error(tok, f"{what}: must be at least {minimum:g}, got {tok.text}")
        return int(value) if integer else value

    def team(tok: Token) -> int:
        n = number(tok, "team", integer=True)
        if n not in teams:
            raise error(tok, f"team {n} does not play (teams: {teams[0]}, {teams[1]})")
        return n

    def choice(tok: Token, options: dict, what: str):
        key = tok.text.upper()
        if key not in options:
            raise error(tok, f"unknown {what} {tok.text!r} (expected one of {', '.join(options)})")
        return options[key]

    for toks in _tokenize(text):
        head, args = toks[0], toks[1:]
        kw = head.text.upper()
        arity = {
            "FREEKICK": (4, 4),
            "SETPLAY": (4, 4),
            "TIMEOUT": (2, 2),
            "PENALTY": (3, 4),
            "UNPENALIZE": (2, 2),
            "GOAL": (1, 1),
            "KICKOFF": (1, 1),
            "PHASE": (1, 1),
            "CLOCK": (1, 1),
            "HALFTIME": (0, 0),
        }.get(kw, (1, 1) if kw in _STATES else None)
        if arity is None:
            raise error(head, f"unknown statement {head.text!r} (expected one of {', '.join(_KEYWORDS)})")
        lo, hi = arity
        if not lo <= len(args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            where = args[hi] if len(args) > hi else head
            raise error(where, f"{kw} takes {want} argument{'s' if hi != 1 else ''}, got {len(args)}")
        loc = (head.line, head.column)
        if kw in _STATES:
            out.append(Statement(kw, (_STATES[kw],), *loc, number(args[0], "duration (s)")))
        elif kw == "FREEKICK":
            kind = choice(args[0], _KINDS, "free kick")
            sub = choice(args[2], _SUBS, "sub-state")
            out.append(Statement(kw, (kind, team(args[1]), sub), *loc, number(args[3], "duration (s)")))
        elif kw == "SETPLAY":  # stored as the FREEKICK it is in a v12 packet
            kind = choice(args[0], _KINDS, "set play")
            sub = choice(args[2], _SETPLAY_FLAGS, "set play flag")
            out.append(Statement("FREEKICK", (kind, team(args[1]), sub), *loc, number(args[3], "duration (s)")))
        elif kw == "TIMEOUT":
            out.append(Statement(kw, (team(args[0]),), *loc, number(args[1], "duration (s)")))
        elif kw == "PENALTY":
            tm = team(args[0])
            player = number(args[1], "player", integer=True, minimum=1)
            if player > max_players:
                raise error(args[1], f"player {player} out of range 1..{max_players}")
            code_tok = args[2]
            if _NUMBER.match(code_tok.text):
                code = number(code_tok, "penalty code", integer=True)
                if code > 255:
                    raise error(code_tok, f"penalty code {code} out of range 0..255")
            else:
                code = int(choice(code_tok, penalty_names, "penalty" if version == HL_VERSION
                                  else f"v{version} penalty"))
            secs = number(args[3], "penalty seconds") if len(args) == 4 else None
            out.append(Statement(kw, (tm, player, code, secs), *loc))
        elif kw == "UNPENALIZE":
            player = number(args[1], "player", integer=True, minimum=1)
            if player > max_players:
                raise error(args[1], f"player {player} out of range 1..{max_players}")
            out.append(Statement(kw, (team(args[0]), player), *loc))
        elif kw == "GOAL":
            out.append(Statement(kw, (team(args[0]),), *loc))
        elif kw == "KICKOFF":
            if args[0].text.upper() in ("DROPBALL", "NONE"):
                out.append(Statement(kw, (DROPBALL,), *loc))
            else:
                out.append(Statement(kw, (team(args[0]),), *loc))
        elif kw == "PHASE":
            out.append(Statement(kw, (choice(args[0], _PHASES, "phase"),), *loc))
        elif kw == "CLOCK":
            secs = number(args[0], "clock (s)", integer=True, minimum=-32768)
            if secs > 32767:
                raise error(args[0], f"clock {secs} out of range -32768..32767")
            out.append(Statement(kw, (secs,), *loc))
        else:  # HALFTIME
            out.append(Statement(kw, (), *loc))
    if not any(s.duration_s is not None for s in out):
        raise ScriptError(source, 1, 1, "the script sends nothing: it needs at least one timed statement "
                                        "(e.g. READY 5)")
    return out


@dataclass
class _Game:
    """The mutable game of a script run."""

    teams: list[int]
    scores: dict[int, int]
    kick_off: int
    clock_s: float
    first_half: bool = True
    phase: int = SecondaryState.NORMAL
    penalties: dict[tuple[int, int], tuple[int, float]] = field(default_factory=dict)  # -> (code, until_s)
    state: int = GameState.INITIAL
    after_set: bool = False  # the PLAYING statement right after SET runs the kick-off wait


class ScriptedGame:
    """The packets of a parsed script, with the times (seconds from the start) to send them:
    ``GameControlData`` for ``version`` 12, ``HslControlData`` for 19 and 20 (parse the script
    with the same version)."""

    def __init__(self, statements: list[Statement], team: int, opponent: int, players_per_team: int = 4,
                 half_s: float = 600.0, kickoff_wait_s: float = 10.0, version: int = HL_VERSION) -> None:
        if team == opponent:
            raise ValueError("team and opponent need different numbers")
        if version not in SCRIPT_VERSIONS:
            raise ValueError(f"packet version {version} not supported (expected 12, 19 or 20)")
        if not 1 <= players_per_team <= _max_players(version):
            raise ValueError(f"players_per_team {players_per_team} out of range 1..{_max_players(version)} "
                             f"for v{version}")
        self.version = version
        self.statements = statements
        self.team = team
        self.opponent = opponent
        self.players_per_team = players_per_team
        self.half_s = half_s
        self.kickoff_wait_s = kickoff_wait_s

    @property
    def duration_s(self) -> float:
        return sum(s.duration_s or 0.0 for s in self.statements)

    def packets(self, rate_hz: float = 2.0) -> Iterator[tuple[float, GameControlData | HslControlData]]:
        """(send time, packet) pairs: ``rate_hz`` during each timed statement, at least one each."""
        if rate_hz <= 0:
            raise ValueError("rate_hz must be positive")
        period = 1.0 / rate_hz
        g = _Game([self.team, self.opponent], {self.team: 0, self.opponent: 0}, self.team, self.half_s)
        t0 = 0.0
        number = 0
        for st in self.statements:
            if st.duration_s is None:
                self._instant(g, st, t0)
                continue
            duration = st.duration_s
            k = 0
            while True:
                local = k * period
                if k > 0 and local >= duration - 1e-9:
                    break
                yield t0 + local, self._packet(g, st, t0 + local, local, number)
                number += 1
                k += 1
            state = self._state_of(st, g)
            if state == GameState.PLAYING and st.keyword != "TIMEOUT":  # a timeout stops the clock
                g.clock_s -= duration
            g.after_set = state == GameState.SET
            g.state = state
            t0 += duration

    @staticmethod
    def _state_of(st: Statement, g: _Game) -> int:
        """The game state a timed statement sends (a timeout keeps the state it interrupts)."""
        if st.keyword in _STATES:
            return st.args[0]
        return GameState.PLAYING if st.keyword == "FREEKICK" else g.state

    def _instant(self, g: _Game, st: Statement, t_s: float) -> None:
        kw, a = st.keyword, st.args
        if kw == "PENALTY":
            team, player, code, secs = a
            if code == Penalty.NONE:
                g.penalties.pop((team, player), None)
                return
            if secs is None:
                if self.version == HL_VERSION:
                    lasting = code in (Penalty.SUBSTITUTE, Penalty.MANUAL)
                else:
                    codes = penalty_enum(self.version)
                    lasting = code in (codes["SUBSTITUTE"], codes["SENT_OFF"])
                secs = math.inf if lasting else 10.0
            g.penalties[(team, player)] = (code, t_s + secs)
        elif kw == "UNPENALIZE":
            g.penalties.pop(a, None)
        elif kw == "GOAL":
            g.scores[a[0]] += 1
            g.kick_off = self.opponent if a[0] == self.team else self.team
        elif kw == "KICKOFF":
            g.kick_off = a[0]
        elif kw == "PHASE":
            g.phase = a[0]
        elif kw == "CLOCK":
            g.clock_s = float(a[0])
        elif kw == "HALFTIME":
            g.first_half = False
            g.teams.reverse()
            g.clock_s = self.half_s

    def _packet(self, g: _Game, st: Statement, t_s: float, local_s: float,
                number: int) -> GameControlData | HslControlData:
        left = st.duration_s - local_s
        secondary = g.phase
        info = (0, 0, 0, 0)
        secondary_time = 0
        state = self._state_of(st, g)
        if st.keyword == "FREEKICK":
            kind, team, sub = st.args
            secondary, info = kind, (team, int(sub), 0, 0)
            secondary_time = math.ceil(left - 1e-9)
        elif st.keyword == "TIMEOUT":
            secondary, info = SecondaryState.TIMEOUT, (st.args[0], 0, 0, 0)
            secondary_time = math.ceil(left - 1e-9)
        elif state == GameState.READY:
            secondary_time = math.ceil(left - 1e-9)
        elif state == GameState.PLAYING and g.after_set:
            secondary_time = max(0, math.ceil(self.kickoff_wait_s - local_s - 1e-9))
        running = state == GameState.PLAYING and st.keyword != "TIMEOUT"
        clock = g.clock_s - local_s if running else g.clock_s
        secs_remaining = max(-32768, min(32767, math.ceil(clock - 1e-9) if clock > 0 else math.floor(clock)))
        if self.version != HL_VERSION:
            return self._hsl_packet(g, st, t_s, number, state, secs_remaining, min(32767, secondary_time))
        teams = tuple(self._team(g, n, t_s) for n in g.teams)
        return GameControlData(
            packet_number=number & 0xFF, players_per_team=self.players_per_team, state=int(state),
            first_half=1 if g.first_half else 0, kick_off_team=g.kick_off, secondary_state=int(secondary),
            secondary_state_info=info,
            secs_remaining=secs_remaining, secondary_time=min(32767, secondary_time), teams=teams)

    def _hsl_packet(self, g: _Game, st: Statement, t_s: float, number: int, state: int, secs_remaining: int,
                    secondary_time: int) -> HslControlData:
        set_play, stopped, kicking = SetPlay.NONE, 0, g.kick_off
        phase = _HSL_PHASE.get(g.phase, GamePhase.NORMAL)
        if st.keyword == "FREEKICK":
            kind, kicking, sub = st.args
            set_play = _HSL_SET_PLAY[kind]
            stopped = 1 if sub == SubState.STOP else 0
        elif st.keyword == "TIMEOUT":  # the official GameController: INITIAL with gamePhase TIMEOUT
            state, phase = GameState.INITIAL, GamePhase.TIMEOUT
        teams = tuple(self._hsl_team(g, n, t_s) for n in g.teams)
        return HslControlData(
            version=self.version, packet_number=number & 0xFF, players_per_team=self.players_per_team,
            stopped=stopped, game_phase=int(phase), state=int(state), set_play=int(set_play),
            first_half=1 if g.first_half else 0, kicking_team=kicking, secs_remaining=secs_remaining,
            secondary_time=secondary_time, teams=teams)

    def _penalty_of(self, g: _Game, number: int, p: int, t_s: float) -> tuple[int, int] | None:
        """(code, secs_till_unpenalised) of a player, or None; lifts served penalties."""
        pen = g.penalties.get((number, p))
        if pen is not None and t_s >= pen[1]:  # served: lifted automatically
            del g.penalties[(number, p)]
            return None
        if pen is None:
            return None
        left = pen[1] - t_s
        return pen[0], 0 if math.isinf(left) else max(0, min(255, math.ceil(left - 1e-9)))

    def _hsl_team(self, g: _Game, number: int, t_s: float) -> HslTeamInfo:
        substitute = int(penalty_enum(self.version)["SUBSTITUTE"])
        cls = HslRobotInfoV19 if self.version == 19 else HslRobotInfoV20
        players = []
        for p in range(1, HSL_MAX_NUM_PLAYERS + 1):
            pen = self._penalty_of(g, number, p, t_s)
            if pen is not None:
                players.append(cls(pen[0], pen[1]))
            elif p > self.players_per_team:
                players.append(cls(substitute))
            else:
                players.append(cls())
        ours = number == self.team
        colour = TeamColor.BLUE if ours else TeamColor.RED
        keeper_colour = TeamColor.YELLOW if ours else TeamColor.BLACK
        return HslTeamInfo(team_number=number, field_player_colour=int(colour), goalkeeper_colour=int(keeper_colour),
                           goalkeeper=1, score=g.scores[number], message_budget=HSL_MESSAGE_BUDGET,
                           players=tuple(players))

    def _team(self, g: _Game, number: int, t_s: float) -> TeamInfo:
        players = []
        for p in range(1, MAX_NUM_PLAYERS + 1):
            pen = self._penalty_of(g, number, p, t_s)
            if pen is not None:
                players.append(RobotInfo(pen[0], pen[1], goal_keeper=1 if p == 1 else 0))
            elif p > self.players_per_team:
                players.append(RobotInfo(int(Penalty.SUBSTITUTE)))
            else:
                players.append(RobotInfo(goal_keeper=1 if p == 1 else 0))
        color = 0 if number == self.team else 1
        return TeamInfo(team_number=number, team_color=color, score=g.scores[number], players=tuple(players))

