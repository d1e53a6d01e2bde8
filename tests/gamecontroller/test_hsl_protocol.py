"""The HSL codec: control messages v19 (198 bytes) and v20 (158 bytes) built byte by byte from
the reference, round trips of every state, game phase, set play and penalty code of both
versions, dispatch beside HL v12, property tests over arbitrary bytes, and the status message v4."""
from __future__ import annotations

import dataclasses
import enum
import math
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soccerbt.gamecontroller.hsl_protocol import (
    HSL_MAX_NUM_PLAYERS,
    HSL_PACKET_SIZES,
    KICKING_TEAM_NONE,
    STATUS_DEFAULTS,
    CompetitionType,
    GamePhase,
    HslControlData,
    HslRobotInfoV19,
    HslRobotInfoV20,
    HslTeamInfo,
    PenaltyV19,
    PenaltyV20,
    SetPlay,
    decode_hsl,
    encode_hsl,
    penalty_enum,
    penalty_meaning,
    status_message,
)
from soccerbt.gamecontroller.protocol import (
    GameControlData,
    GameState,
    HslReturnData,
    PacketError,
    TeamColor,
    decode,
    decode_return,
    encode,
    encode_return,
)

ROBOT = {19: HslRobotInfoV19, 20: HslRobotInfoV20}
WIDTH = {19: 4, 20: 3}
TEAM_SIZE = {19: 90, 20: 70}


def build_fixture(version: int) -> bytes:
    """A control message written field by field at the reference's offsets (not with encode)."""
    buf = bytearray(HSL_PACKET_SIZES[version])
    buf[0:4] = b"RGme"
    buf[4] = version
    buf[5] = 77  # packetNumber
    buf[6] = 5  # playersPerTeam
    buf[7] = 2  # competitionType LARGE
    buf[8] = 1  # stopped
    buf[9] = 0  # gamePhase NORMAL
    buf[10] = 3  # PLAYING
    buf[11] = 4  # THROW_IN
    buf[12] = 0  # second half
    buf[13] = 7  # kickingTeam
    struct.pack_into("<h", buf, 14, -3)
    struct.pack_into("<h", buf, 16, 41)
    for i, (number, colour, keeper_colour, score, budget) in enumerate(((7, 1, 3, 2, 11234), (3, 0, 2, 5, 9))):
        t = 18 + TEAM_SIZE[version] * i
        buf[t:t + 6] = bytes([number, colour, keeper_colour, 1, score, 2])
        struct.pack_into("<HH", buf, t + 6, 0x0105, budget)
        for j in range(HSL_MAX_NUM_PLAYERS):
            p = t + 10 + WIDTH[version] * j
            sub = 11 if version == 19 else 13
            values = {19: [(0, 0, 0, 0), (5, 25, 1, 0), (0, 0, 2, 1)],
                      20: [(0, 0, 0), (6, 25, 0), (11, 0, 1)]}[version]
            row = values[j] if j < 3 else ((0,) * WIDTH[version] if j < 5 else (sub,) + (0,) * (WIDTH[version] - 1))
            buf[p:p + WIDTH[version]] = bytes(row)
    return bytes(buf)


@pytest.mark.parametrize("version", [19, 20])
def test_fixture_decodes_to_reference_values(version: int) -> None:
    raw = build_fixture(version)
    assert len(raw) == {19: 198, 20: 158}[version]
    p = decode(raw)
    assert isinstance(p, HslControlData)
    assert (p.version, p.packet_number, p.players_per_team, p.competition_type) == (
        version,
        77,
        5,
        CompetitionType.LARGE,
    )
    assert (p.stopped, p.game_phase, p.state, p.set_play) == (1, GamePhase.NORMAL, GameState.PLAYING, SetPlay.THROW_IN)
    assert (p.first_half, p.kicking_team, p.secs_remaining, p.secondary_time) == (0, 7, -3, 41)
    t7, t3 = p.teams
    assert (t7.team_number, t7.field_player_colour, t7.goalkeeper_colour, t7.goalkeeper, t7.score) == (7, 1, 3, 1, 2)
    assert (t7.penalty_shot, t7.single_shots, t7.message_budget) == (2, 0x0105, 11234)
    assert t3.team_number == 3 and t3.score == 5 and t3.message_budget == 9
    assert len(t7.players) == HSL_MAX_NUM_PLAYERS
    if version == 19:
        assert t7.players[1] == HslRobotInfoV19(PenaltyV19.PICK_UP, 25, 1, 0)
        assert t7.players[2] == HslRobotInfoV19(0, 0, 2, 1)
        assert all(pl.penalty == PenaltyV19.SUBSTITUTE for pl in t7.players[5:])
    else:
        assert t7.players[1] == HslRobotInfoV20(PenaltyV20.PICK_UP, 25, 0)
        assert t7.players[2] == HslRobotInfoV20(PenaltyV20.CAUTIONED, 0, 1)
        assert all(pl.penalty == PenaltyV20.SUBSTITUTE for pl in t7.players[5:])
    assert p.team(3) is t3 and p.opponent_of(3) is t7 and p.team(4) is None and p.team_index(7) == 0
    assert t7.player(20) is t7.players[19] and t7.player(21) is None and t7.player(0) is None
    assert encode(p) == raw == encode_hsl(decode_hsl(raw))


def hsl_packet(version: int = 20, players: dict[int, int] | None = None, **kw) -> HslControlData:
    cls = ROBOT[version]
    slots = tuple(cls(penalty=(players or {}).get(j + 1, 0), secs_till_unpenalised=j) for j in range(20))
    teams = (HslTeamInfo(1, 0, 2, 1, message_budget=12000, players=slots),
             HslTeamInfo(2, 1, 3, 1, players=(cls(),) * 20))
    return dataclasses.replace(HslControlData(version=version, teams=teams), **kw)


@pytest.mark.parametrize("version", [19, 20])
@pytest.mark.parametrize("state", list(GameState))
def test_round_trip_every_state(version: int, state: GameState) -> None:
    p = hsl_packet(version, state=int(state), packet_number=200)
    raw = encode(p)
    assert len(raw) == HSL_PACKET_SIZES[version] and raw[10] == int(state) and raw[4] == version
    assert decode(raw) == p


@pytest.mark.parametrize("version", [19, 20])
@pytest.mark.parametrize("phase", list(GamePhase))
def test_round_trip_every_game_phase(version: int, phase: GamePhase) -> None:
    p = hsl_packet(version, game_phase=int(phase))
    raw = encode(p)
    assert raw[9] == int(phase) and decode(raw) == p


@pytest.mark.parametrize("version", [19, 20])
@pytest.mark.parametrize("set_play", list(SetPlay))
@pytest.mark.parametrize("stopped", [0, 1])
def test_round_trip_every_set_play_and_stopped(version: int, set_play: SetPlay, stopped: int) -> None:
    p = hsl_packet(version, state=GameState.PLAYING, set_play=int(set_play), stopped=stopped, kicking_team=2)
    raw = encode(p)
    assert (raw[8], raw[11], raw[13]) == (stopped, int(set_play), 2)
    assert decode(raw) == p


@pytest.mark.parametrize("version, penalty", [(19, p) for p in PenaltyV19] + [(20, p) for p in PenaltyV20])
def test_round_trip_every_penalty_code(version: int, penalty: enum.IntEnum) -> None:
    p = hsl_packet(version, players={j: int(penalty) for j in range(1, 21)})
    q = decode(encode(p))
    assert q == p
    assert [pl.penalty for pl in q.teams[0].players] == [int(penalty)] * 20
    assert [pl.secs_till_unpenalised for pl in q.teams[0].players] == list(range(20))
    assert penalty_meaning(version, int(penalty)) == penalty.name


@pytest.mark.parametrize("competition", list(CompetitionType))
def test_round_trip_every_competition_type_and_colour(competition: CompetitionType) -> None:
    for colour in TeamColor:
        teams = (HslTeamInfo(1, int(colour), int(colour)), HslTeamInfo(2, 1, 1))
        p = hsl_packet(competition_type=int(competition), teams=teams)
        assert decode(encode(p)) == p


def test_penalty_codes_differ_between_versions_by_meaning() -> None:
    assert PenaltyV19.LOCAL_GAME_STUCK == 3 and PenaltyV20.MOTION_IN_STOP == 3
    assert PenaltyV19.SUBSTITUTE == 11 and PenaltyV20.CAUTIONED == 11 and PenaltyV20.SUBSTITUTE == 13
    for p19 in PenaltyV19:  # every v19 meaning exists in v20
        assert PenaltyV20[p19.name].name == p19.name
    assert penalty_meaning(19, 11) == "SUBSTITUTE" and penalty_meaning(20, 11) == "CAUTIONED"
    assert penalty_meaning(19, 12) == "UNKNOWN_12" and penalty_meaning(20, 200) == "UNKNOWN_200"
    assert penalty_enum(19) is PenaltyV19 and penalty_enum(20) is PenaltyV20
    with pytest.raises(PacketError, match="version 12"):
        penalty_enum(12)


@pytest.mark.parametrize("secs", [-32768, -1, 0, 600, 32767])
def test_times_are_signed(secs: int) -> None:
    raw = encode(hsl_packet(secs_remaining=secs, secondary_time=-1))
    assert struct.unpack_from("<hh", raw, 14) == (secs, -1)
    assert decode(raw).secs_remaining == secs


def test_unknown_codes_survive() -> None:
    p = hsl_packet(19, state=9, game_phase=8, set_play=77, competition_type=5, stopped=3,
                   kicking_team=KICKING_TEAM_NONE, players={3: 99})
    assert decode(encode(p)) == p


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"secs_remaining": 40000}, "secs_remaining"),
        ({"stopped": 256}, "stopped"),
        ({"teams": (HslTeamInfo(1),)}, "teams: expected 2"),
        (
            {"teams": (HslTeamInfo(1, players=(HslRobotInfoV20(),) * 11), HslTeamInfo(2))},
            r"teams\[0\].players: expected 20",
        ),
        ({"teams": (HslTeamInfo(1, message_budget=70000), HslTeamInfo(2))}, r"teams\[0\].message_budget"),
        (
            {"teams": (HslTeamInfo(1), HslTeamInfo(2, players=(HslRobotInfoV20(penalty=300),) * 20))},
            r"teams\[1\].players\[0\].penalty",
        ),
    ],
)
def test_encode_errors_are_located(kw: dict, message: str) -> None:
    with pytest.raises(PacketError, match=message):
        encode(hsl_packet(**kw))


def test_encode_rejects_other_versions_and_players_of_the_other_version() -> None:
    with pytest.raises(PacketError, match="version = 21"):
        encode(dataclasses.replace(hsl_packet(), version=21))
    with pytest.raises(PacketError, match=r"teams\[0\].players\[0\]: HslRobotInfoV20 in a v19 packet"):
        encode(HslControlData(version=19))


def test_v12_and_hsl_share_one_decode() -> None:
    assert isinstance(decode(encode(GameControlData())), GameControlData)
    assert isinstance(decode(build_fixture(19)), HslControlData)
    assert isinstance(decode(build_fixture(20)), HslControlData)
    with pytest.raises(PacketError) as info:
        decode_hsl(encode(GameControlData()))
    assert info.value.kind == "version"


# --- property tests (no deadline: tests never race a clock) ---------------------------------

PROPERTY = settings(deadline=None, max_examples=300)
U8 = st.integers(0, 255)
I16 = st.integers(-32768, 32767)
U16 = st.integers(0, 65535)


@st.composite
def packets(draw, version: int | None = None) -> HslControlData:
    v = draw(st.sampled_from([19, 20])) if version is None else version
    if v == 19:
        robot = st.builds(HslRobotInfoV19, U8, U8, U8, U8)
    else:
        robot = st.builds(HslRobotInfoV20, U8, U8, U8)
    team = st.builds(HslTeamInfo, U8, U8, U8, U8, U8, U8, U16, U16,
                     st.lists(robot, min_size=20, max_size=20).map(tuple))
    return HslControlData(v, draw(U8), draw(U8), draw(U8), draw(U8), draw(U8), draw(U8), draw(U8), draw(U8),
                          draw(U8), draw(I16), draw(I16), (draw(team), draw(team)))


@PROPERTY
@given(packets())
def test_random_valid_packets_round_trip(p: HslControlData) -> None:
    raw = encode(p)
    assert len(raw) == HSL_PACKET_SIZES[p.version]
    assert decode(raw) == p and encode(decode(raw)) == raw


def _decode_or_packet_error(data: bytes):
    try:
        return decode(data)
    except PacketError:
        return None  # anything else propagates and fails the test


@PROPERTY
@given(st.one_of(st.binary(max_size=400),
                 st.sampled_from([19, 20]).flatmap(lambda v: st.binary(min_size=HSL_PACKET_SIZES[v] - 5,
                                                                       max_size=HSL_PACKET_SIZES[v] - 5)
                                                   .map(lambda body, v=v: b"RGme" + bytes([v]) + body))))
def test_random_bytes_only_give_packet_error(data: bytes) -> None:
    result = _decode_or_packet_error(data)
    if result is not None:  # it decoded: it must be a well-formed HSL message and re-encode exactly
        assert encode(result) == data


@PROPERTY
@given(st.sampled_from([19, 20]), st.integers(min_value=0, max_value=200))
def test_truncated_packets_only_give_packet_error(version: int, n: int) -> None:
    valid = build_fixture(version)
    result = _decode_or_packet_error(valid[:n])
    assert (result is not None) == (n >= len(valid))


@PROPERTY
@given(st.sampled_from([19, 20]), st.binary(min_size=1, max_size=64))
def test_extended_packets_give_packet_error(version: int, extra: bytes) -> None:
    assert _decode_or_packet_error(build_fixture(version) + extra) is None


@PROPERTY
@given(st.sampled_from([19, 20]), st.lists(st.integers(min_value=0, max_value=157 * 8 - 1), min_size=1, max_size=8))
def test_bit_flipped_packets_decode_or_give_packet_error(version: int, bits: list[int]) -> None:
    valid = build_fixture(version)
    buf = bytearray(valid)
    for b in bits:
        buf[b // 8] ^= 1 << (b % 8)
    result = _decode_or_packet_error(bytes(buf))
    assert (result is not None) == (buf[:5] == valid[:5])


# --- status message v4 ----------------------------------------------------------------------


def test_status_message_layout_is_player_then_team() -> None:
    m = status_message(9, 2, fallen=True, pose_x_mm=1500.0, pose_y_mm=-250.0, pose_theta_rad=0.5, ball_age_s=1.5,
                       ball_x_mm=300.0, ball_y_mm=-20.0)
    raw = encode_return(m)
    assert len(raw) == 32 and raw[:8] == b"RGrt" + bytes([4, 2, 9, 1])
    assert struct.unpack_from("<3ff2f", raw, 8) == (1500.0, -250.0, 0.5, 1.5, 300.0, -20.0)
    assert decode_return(raw) == m


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 1e39])
def test_status_message_never_carries_nan(bad: float) -> None:
    m = status_message(1, 1, fallen=False, pose_x_mm=bad, pose_y_mm=bad, pose_theta_rad=bad, ball_age_s=2.0,
                       ball_x_mm=bad, ball_y_mm=5.0)
    assert (m.pose_x_mm, m.pose_y_mm, m.pose_theta_rad) == (0.0, 0.0, 0.0)
    assert (m.ball_age_s, m.ball_x_mm, m.ball_y_mm) == (-1.0, 0.0, 0.0)  # an unknown ball: never seen
    values = struct.unpack_from("<3ff2f", encode_return(m), 8)
    assert all(math.isfinite(x) for x in values)
    m = status_message(1, 1, fallen=False, ball_age_s=bad, ball_x_mm=100.0)
    assert (m.ball_age_s, m.ball_x_mm) == (STATUS_DEFAULTS["ball_age_s"], 0.0)


@pytest.mark.parametrize("fallen, byte", [(True, 1), (False, 0), (3, 1), (0, 0)])
def test_status_message_fallen_is_0_or_1(fallen: object, byte: int) -> None:
    assert encode_return(status_message(1, 1, fallen=fallen))[7] == byte  # type: ignore[arg-type]


@pytest.mark.parametrize("data, message", [
    (HslReturnData(player=1, team=1, fallen=2), "fallen = 2"),
    (HslReturnData(player=21, team=1), "player = 21"),
    (HslReturnData(player=0, team=1), "player = 0"),
    (HslReturnData(player=1, team=1, ball_age_s=math.nan), "ball_age_s is NaN"),
])
def test_encode_return_refuses_what_the_gamecontroller_drops(data: HslReturnData, message: str) -> None:
    with pytest.raises(PacketError, match=message):
        encode_return(data)


def test_decode_return_checks_as_the_gamecontroller() -> None:
    good = bytearray(encode_return(status_message(3, 4, fallen=False)))
    for offset, value in ((7, 2), (5, 0), (5, 21)):
        bad = bytearray(good)
        bad[offset] = value
        with pytest.raises(PacketError):
            decode_return(bytes(bad))
    bad = bytearray(good)
    struct.pack_into("<f", bad, 24, math.nan)
    with pytest.raises(PacketError, match="ball_x_mm is NaN"):
        decode_return(bytes(bad))


@PROPERTY
@given(st.booleans(), st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=6, max_size=6))
def test_any_status_values_encode_to_an_accepted_message(fallen: bool, values: list[float]) -> None:
    m = status_message(5, 20, fallen=fallen, pose_x_mm=values[0], pose_y_mm=values[1], pose_theta_rad=values[2],
                       ball_age_s=values[3], ball_x_mm=values[4], ball_y_mm=values[5])
    raw = encode_return(m)
    back = decode_return(raw)
    assert isinstance(back, HslReturnData) and back.fallen == int(fallen)
    assert all(math.isfinite(x) for x in struct.unpack_from("<3ff2f", raw, 8))
