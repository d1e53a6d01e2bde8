"""The Humanoid Soccer League (2026-) GameController wire protocol: control messages v19
(198 bytes, GameController v6) and v20 (158 bytes, GameController v7), and the robot's status
message v4 (32 bytes), as in ``../shared/reference/hsl-gamecontroller.md``.

Both control versions share an 18-byte common part (a **uint8** version at offset 4, unlike HL
v12's uint16) and differ in their RobotInfo: v19 has penalty, secsTillUnpenalised, warnings,
cautions (4 bytes); v20 drops warnings (3 bytes) and renumbers the penalty codes
(``PenaltyV19``, ``PenaltyV20``; ``penalty_meaning`` names a code in its version). Field names
are the snake_case of the C structs. Decoded values stay plain ints (unknown codes survive and
``encode_hsl(decode_hsl(b)) == b``); ``decode_hsl`` raises only ``PacketError``.

``soccerbt.gamecontroller.protocol.decode`` dispatches here on version and length; use it
rather than ``decode_hsl`` on datagrams from the network.
"""
from __future__ import annotations

import enum
import math
import struct
from dataclasses import dataclass, field, fields

from soccerbt.gamecontroller.wire import HEADER, HSL_RETURN_VERSION, HslReturnData, PacketError, TeamColor, TeamLookup

__all__ = [
    "HSL_V19", "HSL_V20", "HSL_VERSIONS", "HSL_PACKET_SIZES", "HSL_MAX_NUM_PLAYERS", "KICKING_TEAM_NONE",
    "CompetitionType", "GamePhase", "SetPlay", "PenaltyV19", "PenaltyV20", "HslRobotInfoV19", "HslRobotInfoV20",
    "HslTeamInfo", "HslControlData", "decode_hsl", "encode_hsl", "penalty_meaning", "penalty_enum",
    "status_message", "STATUS_DEFAULTS", "TeamColor",
]

HSL_V19 = 19
HSL_V20 = 20
HSL_VERSIONS = (HSL_V19, HSL_V20)
HSL_PACKET_SIZES = {HSL_V19: 198, HSL_V20: 158}
HSL_MAX_NUM_PLAYERS = 20
KICKING_TEAM_NONE = 255


class CompetitionType(enum.IntEnum):
    """The division (``competitionType``)."""

    SMALL = 0
    MIDDLE = 1
    LARGE = 2


class GamePhase(enum.IntEnum):
    NORMAL = 0
    PENALTY_SHOOT_OUT = 1
    EXTRA_TIME = 2
    TIMEOUT = 3


class SetPlay(enum.IntEnum):
    NONE = 0
    DIRECT_FREE_KICK = 1
    INDIRECT_FREE_KICK = 2
    PENALTY_KICK = 3
    THROW_IN = 4
    GOAL_KICK = 5
    CORNER_KICK = 6


class PenaltyV19(enum.IntEnum):
    """Penalty codes of control message v19 (GameController v6)."""

    NONE = 0
    ILLEGAL_POSITIONING = 1
    MOTION_IN_SET = 2
    LOCAL_GAME_STUCK = 3
    INCAPABLE_ROBOT = 4
    PICK_UP = 5
    BALL_HOLDING = 6
    LEAVING_THE_FIELD = 7
    PLAYING_WITH_ARMS_HANDS = 8
    PUSHING = 9
    SENT_OFF = 10
    SUBSTITUTE = 11


class PenaltyV20(enum.IntEnum):
    """Penalty codes of control message v20 (GameController v7): MOTION_IN_STOP (3) and
    CAUTIONED (11) are new, the codes after them moved up."""

    NONE = 0
    ILLEGAL_POSITIONING = 1
    MOTION_IN_SET = 2
    MOTION_IN_STOP = 3
    LOCAL_GAME_STUCK = 4
    INCAPABLE_ROBOT = 5
    PICK_UP = 6
    BALL_HOLDING = 7
    LEAVING_THE_FIELD = 8
    PLAYING_WITH_ARMS_HANDS = 9
    PUSHING = 10
    CAUTIONED = 11
    SENT_OFF = 12
    SUBSTITUTE = 13


_PENALTY_ENUMS: dict[int, type[enum.IntEnum]] = {HSL_V19: PenaltyV19, HSL_V20: PenaltyV20}


def penalty_enum(version: int) -> type[enum.IntEnum]:
    """The penalty code enum of a control message version (19 or 20)."""
    try:
        return _PENALTY_ENUMS[version]
    except KeyError:
        raise PacketError(f"no HSL penalty codes for version {version} (expected 19 or 20)", "version") from None


def penalty_meaning(version: int, code: int) -> str:
    """The name of a penalty code in its version ("PICK_UP", ...); ``UNKNOWN_<code>`` for codes
    the version does not define. Compare names, never codes, across versions."""
    enum_type = penalty_enum(version)
    try:
        return enum_type(code).name
    except ValueError:
        return f"UNKNOWN_{code}"


# --- data classes ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HslRobotInfoV19:
    """One player of a v19 team block (4 bytes). ``penalty`` is a ``PenaltyV19`` code."""

    penalty: int = 0
    secs_till_unpenalised: int = 0
    warnings: int = 0
    cautions: int = 0


@dataclass(frozen=True, slots=True)
class HslRobotInfoV20:
    """One player of a v20 team block (3 bytes). ``penalty`` is a ``PenaltyV20`` code."""

    penalty: int = 0
    secs_till_unpenalised: int = 0
    cautions: int = 0


HslRobotInfo = HslRobotInfoV19 | HslRobotInfoV20
_ROBOT_CLASSES: dict[int, type] = {HSL_V19: HslRobotInfoV19, HSL_V20: HslRobotInfoV20}


def _default_players_v20() -> tuple[HslRobotInfoV20, ...]:
    return (_ROBOT_ZERO_V20,) * HSL_MAX_NUM_PLAYERS


@dataclass(frozen=True, slots=True)
class HslTeamInfo:
    """One team block: 10 bytes then ``players[20]`` (``players[j]`` is player number j + 1).
    ``message_budget`` is the number of team messages the team may still send."""

    team_number: int = 0
    field_player_colour: int = 0  # TeamColor
    goalkeeper_colour: int = 0  # TeamColor
    goalkeeper: int = 0  # player number, 0 = none
    score: int = 0
    penalty_shot: int = 0
    single_shots: int = 0
    message_budget: int = 0
    players: tuple[HslRobotInfoV19 | HslRobotInfoV20, ...] = field(default_factory=_default_players_v20)

    def player(self, number: int) -> HslRobotInfoV19 | HslRobotInfoV20 | None:
        """The RobotInfo of a 1-based player number, or None when out of range."""
        if 1 <= number <= len(self.players):
            return self.players[number - 1]
        return None


def _default_teams() -> tuple[HslTeamInfo, HslTeamInfo]:
    return (HslTeamInfo(team_number=1, field_player_colour=TeamColor.BLUE),
            HslTeamInfo(team_number=2, field_player_colour=TeamColor.RED))


@dataclass(frozen=True, slots=True)
class HslControlData(TeamLookup):
    """One HSL control message (v19 or v20). Times are signed seconds. The players of both
    team blocks must be of the version's RobotInfo class (``HslRobotInfoV19`` or ``V20``)."""

    version: int = HSL_V20
    packet_number: int = 0
    players_per_team: int = 5
    competition_type: int = 0  # CompetitionType
    stopped: int = 0  # 1 = play is stopped while a set play is prepared
    game_phase: int = 0  # GamePhase
    state: int = 0  # GameState (same codes as HL v12)
    set_play: int = 0  # SetPlay
    first_half: int = 1
    kicking_team: int = KICKING_TEAM_NONE
    secs_remaining: int = 0
    secondary_time: int = 0
    teams: tuple[HslTeamInfo, HslTeamInfo] = field(default_factory=_default_teams)


_ROBOT_ZERO_V20 = HslRobotInfoV20()

# --- struct layouts (little-endian, no padding) ----------------------------------------------

_COMMON = struct.Struct("<4sBBBBBBBBBBhh")  # 13 items, 18 bytes
_TEAM_HEAD_FMT = "BBBBBBHH"  # 8 items, 10 bytes
_TEAMS = {v: struct.Struct("<" + _TEAM_HEAD_FMT + ("4B" if v == HSL_V19 else "3B") * HSL_MAX_NUM_PLAYERS)
          for v in HSL_VERSIONS}
_PACKETS = {v: struct.Struct("<" + _COMMON.format[1:] + (_TEAMS[v].format[1:]) * 2) for v in HSL_VERSIONS}
_ROBOT_SIZES = {HSL_V19: 4, HSL_V20: 3}
assert _COMMON.size == 18
assert _TEAMS[HSL_V19].size == 90 and _TEAMS[HSL_V20].size == 70
assert all(_PACKETS[v].size == HSL_PACKET_SIZES[v] for v in HSL_VERSIONS)

# The players of a block repeat from packet to packet (only penalties change now and then),
# while the block's head changes often (messageBudget counts every team message): decode each
# distinct players array once, keyed by version and raw bytes (a hit is exact).
_TEAM_HEAD = struct.Struct("<" + _TEAM_HEAD_FMT)
_PLAYERS = {v: struct.Struct("<" + _TEAMS[v].format[1 + len(_TEAM_HEAD_FMT):]) for v in HSL_VERSIONS}
_players_cache: dict[tuple[int, bytes], tuple] = {}
_robot_cache: dict[tuple[int, ...], object] = {}
_CACHE_MAX = 512


def _players_at(data: bytes, offset: int, version: int) -> tuple:
    layout = _PLAYERS[version]
    raw = bytes(data[offset:offset + layout.size])
    key = (version, raw)
    players = _players_cache.get(key)
    if players is None:
        v = layout.unpack(raw)
        width = _ROBOT_SIZES[version]
        cls = _ROBOT_CLASSES[version]
        out = []
        for j in range(0, width * HSL_MAX_NUM_PLAYERS, width):
            values = (version,) + v[j:j + width]
            robot = _robot_cache.get(values)
            if robot is None:
                if len(_robot_cache) >= 8 * _CACHE_MAX:
                    _robot_cache.clear()
                robot = _robot_cache[values] = cls(*values[1:])
            out.append(robot)
        if len(_players_cache) >= _CACHE_MAX:
            _players_cache.clear()
        players = _players_cache[key] = tuple(out)
    return players


def _team_at(data: bytes, offset: int, version: int) -> HslTeamInfo:
    return HslTeamInfo(*_TEAM_HEAD.unpack_from(data, offset), _players_at(data, offset + _TEAM_HEAD.size, version))


def decode_hsl(data: bytes) -> HslControlData:
    """An HSL control message (v19, 198 bytes; v20, 158 bytes). Anything else raises
    ``PacketError``."""
    try:
        n = len(data)
        version = data[4] if n > 4 else -1
        size = HSL_PACKET_SIZES.get(version)
        if size is None or n != size or data[:4] != HEADER:
            raise PacketError(f"not an HSL control message (v{version}, {n} bytes; expected v19 of 198 or "
                              f"v20 of 158 bytes with header {HEADER!r})", "size" if size else "version")
        c = _COMMON.unpack_from(data)
        team_size = _TEAMS[version].size
        return HslControlData(*c[1:], (_team_at(data, 18, version), _team_at(data, 18 + team_size, version)))
    except PacketError:
        raise
    except Exception as exc:  # bytes-likes of odd types, anything: one clean error
        raise PacketError(f"undecodable HSL packet: {exc}", "malformed") from None


def encode_hsl(packet: HslControlData) -> bytes:
    """The bytes of an HSL control message (its ``version`` chooses v19 or v20).
    Out-of-range fields and players of the wrong version raise a located ``PacketError``."""
    try:
        version = packet.version
        if version not in _PACKETS:
            raise PacketError(f"version = {version!r}: expected 19 or 20", "value")
        if len(packet.teams) != 2:
            raise PacketError(f"teams: expected 2 blocks, got {len(packet.teams)}", "value")
        cls = _ROBOT_CLASSES[version]
        out: list = [HEADER, version, packet.packet_number, packet.players_per_team, packet.competition_type,
                     packet.stopped, packet.game_phase, packet.state, packet.set_play, packet.first_half,
                     packet.kicking_team, packet.secs_remaining, packet.secondary_time]
        for i, team in enumerate(packet.teams):
            if len(team.players) != HSL_MAX_NUM_PLAYERS:
                raise PacketError(f"teams[{i}].players: expected {HSL_MAX_NUM_PLAYERS}, got {len(team.players)}",
                                  "value")
            out += (team.team_number, team.field_player_colour, team.goalkeeper_colour, team.goalkeeper,
                    team.score, team.penalty_shot, team.single_shots, team.message_budget)
            for j, p in enumerate(team.players):
                if type(p) is not cls:
                    raise PacketError(f"teams[{i}].players[{j}]: {type(p).__name__} in a v{version} packet "
                                      f"(expected {cls.__name__})", "value")
                if version == HSL_V19:
                    out += (p.penalty, p.secs_till_unpenalised, p.warnings, p.cautions)
                else:
                    out += (p.penalty, p.secs_till_unpenalised, p.cautions)
        return _PACKETS[version].pack(*out)
    except PacketError:
        raise
    except (struct.error, TypeError, AttributeError) as exc:
        raise PacketError(f"cannot encode HSL packet: {_find_bad_field(packet) or exc}", "value") from None


_RANGES = {"secs_remaining": (-0x8000, 0x7FFF), "secondary_time": (-0x8000, 0x7FFF),
           "single_shots": (0, 0xFFFF), "message_budget": (0, 0xFFFF)}


def _find_bad_field(packet: HslControlData) -> str | None:
    """The first field whose value does not fit its C type (for a located encode error)."""

    def check(obj: object, prefix: str) -> str | None:
        for f in fields(obj):
            value = getattr(obj, f.name)
            name = prefix + f.name
            if isinstance(value, tuple):
                for k, item in enumerate(value):
                    bad = check(item, f"{name}[{k}].") if hasattr(item, "__dataclass_fields__") else (
                        f"{name}[{k}] = {item!r} is not a dataclass")
                    if bad:
                        return bad
                continue
            lo, hi = _RANGES.get(f.name, (0, 0xFF))
            if not (isinstance(value, int) and lo <= value <= hi):
                return f"{name} = {value!r} out of range [{lo}, {hi}]"
        return None

    try:
        return check(packet, "")
    except Exception:  # a malformed object: the struct message will do
        return None


# --- status message v4 (robot -> GameController) --------------------------------------------

# What ``status_message`` sends in place of a non-finite value (the GameController drops a
# status message holding a NaN): pose 0 mm / 0 rad, ball age -1 s (never seen), ball 0 mm.
STATUS_DEFAULTS = {"pose_x_mm": 0.0, "pose_y_mm": 0.0, "pose_theta_rad": 0.0, "ball_age_s": -1.0,
                   "ball_x_mm": 0.0, "ball_y_mm": 0.0}
_F32_MAX = 3.4028234663852886e38


def _finite(value: float, default: float) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return default
    return value if math.isfinite(value) and abs(value) <= _F32_MAX else default


def status_message(team: int, player: int, *, fallen: bool, pose_x_mm: float = 0.0, pose_y_mm: float = 0.0,
                   pose_theta_rad: float = 0.0, ball_age_s: float = -1.0, ball_x_mm: float = 0.0,
                   ball_y_mm: float = 0.0) -> HslReturnData:
    """A status message v4 the GameController accepts: ``fallen`` becomes 0 or 1, every
    non-finite value its ``STATUS_DEFAULTS`` entry; a ball never seen (age negative or not
    finite) is sent as age -1 at 0, 0 mm. Pose: field frame, +x toward the opponent goal."""
    age = _finite(ball_age_s, -1.0)
    ball_x = _finite(ball_x_mm, STATUS_DEFAULTS["ball_x_mm"])
    ball_y = _finite(ball_y_mm, STATUS_DEFAULTS["ball_y_mm"])
    if age < 0 or ball_x != ball_x_mm or ball_y != ball_y_mm:  # unknown ball: say so, consistently
        age, ball_x, ball_y = -1.0, 0.0, 0.0
    return HslReturnData(player=player, team=team, fallen=1 if fallen else 0,
                         pose_x_mm=_finite(pose_x_mm, 0.0), pose_y_mm=_finite(pose_y_mm, 0.0),
                         pose_theta_rad=_finite(pose_theta_rad, 0.0), ball_age_s=age,
                         ball_x_mm=ball_x, ball_y_mm=ball_y, version=HSL_RETURN_VERSION)
