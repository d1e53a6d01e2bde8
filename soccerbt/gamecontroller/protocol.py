"""The RoboCup GameController wire protocol: Humanoid League v12 data packets (688 bytes) and
return packets (HL v2, 8 bytes; HSL status message v4, 32 bytes). ``decode`` is the one entry
for datagrams: it dispatches on the version byte and the length together, to HL v12 here or to
the Humanoid Soccer League's control messages v19/v20 (``hsl_protocol``); ``encode`` takes
either packet class.

What both families share (the header bytes, ``PacketError``, ``TeamColor``, ``TeamLookup``,
the status message's ``HslReturnData``) is in ``wire``, below both; every name stays importable
from here.

Field names are the snake_case of the C structs (``../shared/reference/gamecontroller.md``).
Decoded values stay plain ints, so that unknown codes survive and ``encode(decode(b)) == b``
for every well-formed packet; the IntEnums below compare equal to them. ``decode`` raises
only ``PacketError``, whatever the bytes.
"""
from __future__ import annotations

import enum
import struct
from dataclasses import dataclass, field, fields

from soccerbt.gamecontroller import hsl_protocol as _hsl
from soccerbt.gamecontroller.hsl_protocol import HslControlData

# shared with hsl_protocol, and importable from here as before (TeamColor re-exported)
from soccerbt.gamecontroller.wire import (
    HEADER,
    HSL_RETURN_SIZE,
    HSL_RETURN_VERSION,
    RETURN_HEADER,
    HslReturnData,
    PacketError,
    TeamLookup,
)
from soccerbt.gamecontroller.wire import TeamColor as TeamColor

# --- constants ------------------------------------------------------------------------------

DATA_PORT = 3838
RETURN_PORT = 3939
HL_VERSION = 12
HL_PACKET_SIZE = 688
HL_RETURN_VERSION = 2
HL_RETURN_SIZE = 8
MAX_NUM_PLAYERS = 11
COACH_MESSAGE_SIZE = 253
# kick_off_team values that name nobody (dropped ball): the Java GC sends 128, the 2025 one 255
DROPBALL_JAVA = 128
DROPBALL = 255
NO_DROP_IN_TIME = 0xFFFF


class GameState(enum.IntEnum):
    INITIAL = 0
    READY = 1
    SET = 2
    PLAYING = 3
    FINISHED = 4


class SecondaryState(enum.IntEnum):
    NORMAL = 0
    PENALTYSHOOT = 1
    OVERTIME = 2
    TIMEOUT = 3
    DIRECT_FREEKICK = 4
    INDIRECT_FREEKICK = 5
    PENALTYKICK = 6
    CORNER_KICK = 7
    GOAL_KICK = 8
    THROW_IN = 9


FREE_KICK_STATES = frozenset(range(SecondaryState.DIRECT_FREEKICK, SecondaryState.THROW_IN + 1))


class SubState(enum.IntEnum):
    """secondary_state_info[1] during a set play."""

    STOP = 0
    GET_READY = 1
    SET = 2


class Penalty(enum.IntEnum):
    NONE = 0
    SUBSTITUTE = 14
    MANUAL = 15
    BALL_MANIPULATION = 30
    PHYSICAL_CONTACT = 31
    ILLEGAL_ATTACK = 32
    ILLEGAL_DEFENSE = 33
    PICKUP_OR_INCAPABLE = 34
    SERVICE = 35
    UNKNOWN = 255


class GameType(enum.IntEnum):
    ROUND_ROBIN = 0
    PLAYOFF = 1
    DROP_IN = 2


class ReturnMessage(enum.IntEnum):
    MANUAL_PENALISE = 0
    MANUAL_UNPENALISE = 1
    ALIVE = 2
    GOALKEEPER = 3
    GAME_INTERRUPTION_READY = 4


# --- data classes ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RobotInfo:
    """One player (or the coach) of a team block, 6 bytes."""

    penalty: int = 0  # Penalty
    secs_till_unpenalised: int = 0
    number_of_warnings: int = 0
    yellow_card_count: int = 0
    red_card_count: int = 0
    goal_keeper: int = 0  # u8 used as a bool


def _default_players() -> tuple[RobotInfo, ...]:
    return (_ROBOT_ZERO,) * MAX_NUM_PLAYERS


@dataclass(frozen=True, slots=True)
class TeamInfo:
    """One team block, 332 bytes. ``players[j]`` is player number j + 1."""

    team_number: int = 0
    team_color: int = 0  # TeamColor
    score: int = 0
    penalty_shot: int = 0
    single_shots: int = 0
    coach_sequence: int = 0
    coach_message: bytes = b""
    coach: RobotInfo = field(default_factory=RobotInfo)
    players: tuple[RobotInfo, ...] = field(default_factory=_default_players)

    def player(self, number: int) -> RobotInfo | None:
        """The RobotInfo of a 1-based player number, or None when out of range."""
        if 1 <= number <= len(self.players):
            return self.players[number - 1]
        return None


def _default_teams() -> tuple[TeamInfo, TeamInfo]:
    return (TeamInfo(team_number=1, team_color=0),
            TeamInfo(team_number=2, team_color=1))


@dataclass(frozen=True, slots=True)
class GameControlData(TeamLookup):
    """One HL v12 data packet. Times are signed seconds (real packets carry negative ones)."""

    version: int = HL_VERSION
    packet_number: int = 0
    players_per_team: int = 4
    game_type: int = 0  # GameType
    state: int = 0  # GameState
    first_half: int = 1
    kick_off_team: int = 0
    secondary_state: int = 0  # SecondaryState
    secondary_state_info: tuple[int, int, int, int] = (0, 0, 0, 0)
    drop_in_team: int = 0
    drop_in_time: int = NO_DROP_IN_TIME
    secs_remaining: int = 0
    secondary_time: int = 0
    teams: tuple[TeamInfo, TeamInfo] = field(default_factory=_default_teams)


@dataclass(frozen=True, slots=True)
class ReturnData:
    """HL v2 return packet, robot to GameController: team before player."""

    team: int
    player: int
    message: int = 2  # ReturnMessage.ALIVE
    version: int = HL_RETURN_VERSION


_ROBOT_ZERO = RobotInfo()

# --- struct layouts (little-endian, no padding) ----------------------------------------------

_HEADER_FMT = "4sHBBBBBBB4BBHhh"  # 17 items, 24 bytes
_TEAM_FMT = f"BBBBHB{COACH_MESSAGE_SIZE}s" + "6B" * (1 + MAX_NUM_PLAYERS)  # 79 items, 332 bytes
_PACKET = struct.Struct("<" + _HEADER_FMT + _TEAM_FMT * 2)
_HEADER_STRUCT = struct.Struct("<" + _HEADER_FMT)
_TEAM = struct.Struct("<" + _TEAM_FMT)
_VERSION16 = struct.Struct("<H")
_RETURN = struct.Struct("<4sBBBB")
_HSL_RETURN = struct.Struct("<4sBBBB3ff2f")
assert _PACKET.size == HL_PACKET_SIZE and _RETURN.size == HL_RETURN_SIZE
assert _HEADER_STRUCT.size == 24 and _TEAM.size == 332
assert _HSL_RETURN.size == HSL_RETURN_SIZE

# Decoded RobotInfos are immutable and mostly repeat (zeros, substitutes): share them.
_robot_cache: dict[tuple[int, ...], RobotInfo] = {}
_ROBOT_CACHE_MAX = 4096


def _robot(values: tuple[int, ...]) -> RobotInfo:
    info = _robot_cache.get(values)
    if info is None:
        if len(_robot_cache) >= _ROBOT_CACHE_MAX:
            _robot_cache.clear()
        info = _robot_cache[values] = RobotInfo(*values)
    return info


def _team_from(v: tuple) -> TeamInfo:
    players = tuple(_robot(v[7 + 6 * j: 13 + 6 * j]) for j in range(1, 1 + MAX_NUM_PLAYERS))
    return TeamInfo(v[0], v[1], v[2], v[3], v[4], v[5], v[6].rstrip(b"\x00"), _robot(v[7:13]), players)


# Team blocks repeat from packet to packet (only scores, penalties and timers change): decode
# each distinct block once. Keyed by the block's raw bytes, so a hit is exact.
_team_cache: dict[bytes, TeamInfo] = {}
_TEAM_CACHE_MAX = 512


def _team_at(data: bytes, offset: int) -> TeamInfo:
    raw = bytes(data[offset:offset + _TEAM.size])
    info = _team_cache.get(raw)
    if info is None:
        if len(_team_cache) >= _TEAM_CACHE_MAX:
            _team_cache.clear()
        info = _team_cache[raw] = _team_from(_TEAM.unpack(raw))
    return info


def _classify(data: bytes) -> PacketError:
    """The error for a datagram that is not an HL v12 data packet: say what it looks like."""
    n = len(data)
    if n < 5:
        return PacketError(f"packet too short ({n} bytes)", "short")
    head = bytes(data[:4])
    if head == RETURN_HEADER:
        return PacketError(f"return packet ({n} bytes) where a data packet was expected", "header")
    if head != HEADER:
        return PacketError(f"bad header {head!r} (expected {HEADER!r})", "header")
    version8 = data[4]
    version16 = _VERSION16.unpack_from(data, 4)[0] if n >= 6 else version8
    if n == 54 and version8 == 12:
        return PacketError("SPL 2019 packet (v12, 54 bytes): not supported", "spl")
    if version8 in (14, 15, 16, 17, 18):
        return PacketError(f"SPL GameController3 packet (v{version8}, {n} bytes): not supported", "spl")
    if version8 in (19, 20):
        want = 198 if version8 == 19 else 158
        return PacketError(f"HSL v{version8} packet of {n} bytes (expected {want})", "size")
    if version16 == HL_VERSION:
        return PacketError(f"HL v12 packet of {n} bytes (expected {HL_PACKET_SIZE})", "size")
    return PacketError(f"unknown version {version16} ({n} bytes)", "version")


def decode(data: bytes) -> GameControlData | HslControlData:
    """A control packet from a datagram: HL v12 (688 bytes, uint16 version 12 at offset 4) as
    ``GameControlData``, HSL v19 (198 bytes) or v20 (158 bytes, uint8 version at 4) as
    ``HslControlData``. Anything else raises ``PacketError``."""
    try:
        n = len(data)
        if n != HL_PACKET_SIZE or data[:4] != HEADER or data[4] != HL_VERSION or data[5] != 0:
            if (n == 158 or n == 198) and data[4] == (19 if n == 198 else 20) and data[:4] == HEADER:
                return _hsl.decode_hsl(data)
            raise _classify(data)
        v = _HEADER_STRUCT.unpack_from(data)
        return GameControlData(
            v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9:13], v[13], v[14], v[15], v[16],
            (_team_at(data, _HEADER_STRUCT.size), _team_at(data, _HEADER_STRUCT.size + _TEAM.size)))
    except PacketError:
        raise
    except Exception as exc:  # bytes-likes of odd types, anything: one clean error
        raise PacketError(f"undecodable packet: {exc}", "malformed") from None


def _flatten_robot(out: list, info: RobotInfo) -> None:
    out += (info.penalty, info.secs_till_unpenalised, info.number_of_warnings,
            info.yellow_card_count, info.red_card_count, int(info.goal_keeper))


def encode(packet: GameControlData | HslControlData) -> bytes:
    """The bytes of a control packet: 688 for HL v12 (``GameControlData``), 198 or 158 for an
    ``HslControlData`` of version 19 or 20. Out-of-range fields raise a located ``PacketError``."""
    if isinstance(packet, _hsl.HslControlData):
        return _hsl.encode_hsl(packet)
    try:
        if len(packet.teams) != 2:
            raise PacketError(f"teams: expected 2 blocks, got {len(packet.teams)}", "value")
        if len(packet.secondary_state_info) != 4:
            raise PacketError("secondary_state_info: expected 4 values", "value")
        out: list = [HEADER, packet.version, packet.packet_number, packet.players_per_team,
                     packet.game_type, packet.state, int(packet.first_half), packet.kick_off_team,
                     packet.secondary_state, *packet.secondary_state_info, packet.drop_in_team,
                     packet.drop_in_time, packet.secs_remaining, packet.secondary_time]
        for i, team in enumerate(packet.teams):
            if len(team.players) != MAX_NUM_PLAYERS:
                raise PacketError(f"teams[{i}].players: expected {MAX_NUM_PLAYERS}, got {len(team.players)}",
                                  "value")
            msg = bytes(team.coach_message)
            if len(msg) > COACH_MESSAGE_SIZE:
                raise PacketError(f"teams[{i}].coach_message: {len(msg)} bytes (max {COACH_MESSAGE_SIZE})",
                                  "value")
            out += (team.team_number, team.team_color, team.score, team.penalty_shot,
                    team.single_shots, team.coach_sequence, msg)
            _flatten_robot(out, team.coach)
            for player in team.players:
                _flatten_robot(out, player)
        return _PACKET.pack(*out)
    except PacketError:
        raise
    except (struct.error, TypeError, AttributeError) as exc:
        raise PacketError(f"cannot encode: {_find_bad_field(packet) or exc}", "value") from None


_U8 = (0, 0xFF)
_RANGES = {"version": (0, 0xFFFF), "drop_in_time": (0, 0xFFFF), "secs_remaining": (-0x8000, 0x7FFF),
           "secondary_time": (-0x8000, 0x7FFF), "single_shots": (0, 0xFFFF)}


def _find_bad_field(packet: GameControlData) -> str | None:
    """The first field whose value does not fit its C type (for a located encode error)."""

    def check(obj: object, prefix: str) -> str | None:
        for f in fields(obj):
            value = getattr(obj, f.name)
            name = prefix + f.name
            if isinstance(value, (RobotInfo, TeamInfo)):
                bad = check(value, name + ".")
            elif isinstance(value, tuple):
                bad = None
                for k, item in enumerate(value):
                    if isinstance(item, (RobotInfo, TeamInfo)):
                        bad = check(item, f"{name}[{k}].")
                    elif not isinstance(item, int) or not 0 <= item <= 0xFF:
                        bad = f"{name}[{k}] = {item!r} out of range"
                    if bad:
                        break
            elif isinstance(value, (bytes, bytearray)):
                bad = None
            else:
                lo, hi = _RANGES.get(f.name, _U8)
                bad = None if isinstance(value, int) and lo <= value <= hi else (
                    f"{name} = {value!r} out of range [{lo}, {hi}]")
            if bad:
                return bad
        return None

    try:
        return check(packet, "")
    except Exception:  # a malformed object: the struct message will do
        return None


# --- return packets ----------------------------------------------------------------------


_STATUS_FLOATS = ("pose_x_mm", "pose_y_mm", "pose_theta_rad", "ball_age_s", "ball_x_mm", "ball_y_mm")


def _check_status(player: int, fallen: int, values: tuple[float, ...]) -> None:
    """What the HSL GameController checks before it accepts a status message v4."""
    if not 1 <= player <= 20:
        raise PacketError(f"status message: player = {player!r} out of range 1..20", "value")
    if fallen not in (0, 1):
        raise PacketError(f"status message: fallen = {fallen!r} (must be 0 or 1)", "value")
    for name, value in zip(_STATUS_FLOATS, values, strict=False):
        if value != value:
            raise PacketError(f"status message: {name} is NaN", "value")


def encode_return(data: ReturnData | HslReturnData) -> bytes:
    """The bytes of a return packet: HL v2 (8 bytes, team then player) or HSL v4 (32 bytes; a
    player outside 1..20, fallen other than 0/1 or a NaN raise ``PacketError``, as the GameController
    would drop it: build it with ``hsl_protocol.status_message``)."""
    try:
        if isinstance(data, HslReturnData):
            _check_status(data.player, data.fallen, (data.pose_x_mm, data.pose_y_mm, data.pose_theta_rad,
                                                     data.ball_age_s, data.ball_x_mm, data.ball_y_mm))
            return _HSL_RETURN.pack(RETURN_HEADER, data.version, data.player, data.team, int(data.fallen),
                                    data.pose_x_mm, data.pose_y_mm, data.pose_theta_rad, data.ball_age_s,
                                    data.ball_x_mm, data.ball_y_mm)
        return _RETURN.pack(RETURN_HEADER, data.version, data.team, data.player, data.message)
    except (struct.error, TypeError, AttributeError) as exc:
        raise PacketError(f"cannot encode return packet: {exc}", "value") from None


def decode_return(data: bytes) -> ReturnData | HslReturnData:
    """A return packet from its bytes (HL v2 or HSL v4, checked as the HSL GameController does);
    anything else raises ``PacketError``."""
    try:
        n = len(data)
        if n < 5 or data[:4] != RETURN_HEADER:
            raise PacketError(f"not a return packet ({n} bytes)", "header" if n >= 5 else "short")
        version = data[4]
        if version == HL_RETURN_VERSION and n == HL_RETURN_SIZE:
            _, version, team, player, message = _RETURN.unpack_from(data)
            return ReturnData(team, player, message, version)
        if version == HSL_RETURN_VERSION and n == HSL_RETURN_SIZE:
            _, version, player, team, fallen, x, y, th, age, bx, by = _HSL_RETURN.unpack(data)
            _check_status(player, fallen, (x, y, th, age, bx, by))
            return HslReturnData(player, team, fallen, x, y, th, age, bx, by, version)
        raise PacketError(f"return packet v{version} of {n} bytes: not supported", "version")
    except PacketError:
        raise
    except Exception as exc:
        raise PacketError(f"undecodable return packet: {exc}", "malformed") from None
