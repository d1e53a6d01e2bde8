"""The HL v12 codec and the return packets: a fixture built byte by byte from the reference,
round trips, the traps of real traffic, and property tests over arbitrary bytes."""
from __future__ import annotations

import dataclasses
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soccerbt.gamecontroller.protocol import (
    DROPBALL,
    DROPBALL_JAVA,
    HL_PACKET_SIZE,
    GameControlData,
    GameState,
    HslReturnData,
    PacketError,
    Penalty,
    ReturnData,
    ReturnMessage,
    RobotInfo,
    SecondaryState,
    SubState,
    TeamInfo,
    decode,
    decode_return,
    encode,
    encode_return,
)


def build_fixture() -> bytes:
    """An HL v12 packet written field by field at the reference's offsets (not with encode)."""
    buf = bytearray(HL_PACKET_SIZE)
    buf[0:4] = b"RGme"
    struct.pack_into("<H", buf, 4, 12)
    buf[6] = 201  # packet_number
    buf[7] = 3  # players_per_team
    buf[8] = 1  # game_type playoff
    buf[9] = 3  # PLAYING
    buf[10] = 0  # second half
    buf[11] = 128  # kick_off_team: Java's dropped ball
    buf[12] = 9  # THROW_IN
    buf[13:17] = bytes([7, 1, 0, 0])  # team 7 takes it, GET_READY
    buf[17] = 0
    struct.pack_into("<H", buf, 18, 0xFFFF)
    struct.pack_into("<h", buf, 20, -12)  # secs_remaining, negative in real stoppage time
    struct.pack_into("<h", buf, 22, -1)

    def team(offset: int, number: int, color: int, score: int, players: list[tuple[int, ...]]) -> None:
        buf[offset] = number
        buf[offset + 1] = color
        buf[offset + 2] = score
        buf[offset + 3] = 2  # penalty_shot
        struct.pack_into("<H", buf, offset + 4, 0x0105)  # single_shots
        buf[offset + 6] = 9  # coach_sequence
        buf[offset + 7:offset + 7 + 5] = b"hello"  # coach_message[253]
        buf[offset + 260:offset + 266] = bytes([15, 0, 0, 0, 0, 0])  # coach RobotInfo
        for j in range(11):
            values = players[j] if j < len(players) else (14, 0, 0, 0, 0, 0)
            buf[offset + 266 + 6 * j:offset + 272 + 6 * j] = bytes(values)

    # second half: the block of team 7 comes first even though it is "our" second team
    team(24, 7, 1, 2, [(0, 0, 0, 0, 0, 1), (34, 9, 1, 0, 0, 0), (0, 0, 0, 1, 1, 0)])
    team(24 + 332, 3, 0, 5, [(0, 0, 0, 0, 0, 1), (31, 255, 0, 0, 0, 0)])
    return bytes(buf)


def test_fixture_decodes_to_reference_values() -> None:
    p = decode(build_fixture())
    assert (p.version, p.packet_number, p.players_per_team, p.game_type) == (12, 201, 3, 1)
    assert p.state == GameState.PLAYING and p.first_half == 0
    assert p.kick_off_team == DROPBALL_JAVA
    assert p.secondary_state == SecondaryState.THROW_IN
    assert p.secondary_state_info == (7, SubState.GET_READY, 0, 0)
    assert p.drop_in_team == 0 and p.drop_in_time == 0xFFFF
    assert p.secs_remaining == -12 and p.secondary_time == -1
    t7, t3 = p.teams
    assert (t7.team_number, t7.team_color, t7.score, t7.penalty_shot, t7.single_shots, t7.coach_sequence) == (
        7, 1, 2, 2, 0x0105, 9)
    assert t7.coach_message == b"hello"
    assert t7.coach == RobotInfo(15, 0, 0, 0, 0, 0)
    assert t7.players[0] == RobotInfo(0, 0, 0, 0, 0, 1)
    assert t7.players[1] == RobotInfo(Penalty.PICKUP_OR_INCAPABLE, 9, 1, 0, 0, 0)
    assert t7.players[2].yellow_card_count == 1 and t7.players[2].red_card_count == 1
    assert all(pl.penalty == Penalty.SUBSTITUTE for pl in t7.players[3:])
    assert t3.team_number == 3 and t3.score == 5
    assert t3.players[1] == RobotInfo(Penalty.PHYSICAL_CONTACT, 255, 0, 0, 0, 0)
    # found by number, never by index
    assert p.team(3) is t3 and p.team(7) is t7 and p.team(4) is None
    assert p.opponent_of(3) is t7 and p.team_index(7) == 0
    assert t7.player(2) is t7.players[1] and t7.player(12) is None and t7.player(0) is None


def test_fixture_reencodes_byte_for_byte() -> None:
    raw = build_fixture()
    assert encode(decode(raw)) == raw


def _packet(**kw) -> GameControlData:
    return dataclasses.replace(GameControlData(), **kw)


@pytest.mark.parametrize("state", list(GameState))
def test_round_trip_every_state(state: GameState) -> None:
    p = _packet(state=int(state), packet_number=17)
    raw = encode(p)
    assert len(raw) == HL_PACKET_SIZE and raw[9] == int(state)
    assert decode(raw) == p


@pytest.mark.parametrize("secondary", list(SecondaryState))
@pytest.mark.parametrize("sub", list(SubState))
def test_round_trip_every_secondary_and_sub_state(secondary: SecondaryState, sub: SubState) -> None:
    p = _packet(state=int(GameState.PLAYING), secondary_state=int(secondary), secondary_state_info=(2, int(sub), 0, 0))
    raw = encode(p)
    assert raw[12] == int(secondary) and raw[13:17] == bytes([2, int(sub), 0, 0])
    assert decode(raw) == p


@pytest.mark.parametrize("penalty", list(Penalty))
def test_round_trip_every_penalty(penalty: Penalty) -> None:
    players = tuple(RobotInfo(int(penalty), j, 0, 0, 0, 0) for j in range(11))
    teams = (TeamInfo(1, 0, players=players), TeamInfo(2, 1))
    p = _packet(teams=teams)
    q = decode(encode(p))
    assert q == p
    assert [pl.penalty for pl in q.teams[0].players] == [int(penalty)] * 11
    assert [pl.secs_till_unpenalised for pl in q.teams[0].players] == list(range(11))


@pytest.mark.parametrize("kick_off", [0, 1, 2, DROPBALL_JAVA, DROPBALL])
def test_kick_off_team_values_survive(kick_off: int) -> None:
    assert decode(encode(_packet(kick_off_team=kick_off))).kick_off_team == kick_off


@pytest.mark.parametrize("secs", [-32768, -600, -1, 0, 1, 600, 32767])
def test_times_are_signed(secs: int) -> None:
    raw = encode(_packet(secs_remaining=secs, secondary_time=-secs if secs > -32768 else 0))
    assert struct.unpack_from("<h", raw, 20)[0] == secs
    q = decode(raw)
    assert q.secs_remaining == secs


def test_unknown_codes_survive_decoding() -> None:
    p = _packet(state=9, secondary_state=42, secondary_state_info=(1, 7, 3, 4), game_type=200)
    assert decode(encode(p)) == p


@pytest.mark.parametrize("field_name, value, message", [
    ("secs_remaining", 40000, "secs_remaining"),
    ("state", 256, "state"),
    ("packet_number", -1, "packet_number"),
    ("secondary_state_info", (0, 300, 0, 0), "secondary_state_info[1]"),
])
def test_encode_rejects_out_of_range_fields_by_name(field_name: str, value: object, message: str) -> None:
    with pytest.raises(PacketError, match=message.replace("[", r"\[").replace("]", r"\]")):
        encode(_packet(**{field_name: value}))


def test_encode_rejects_bad_shapes() -> None:
    with pytest.raises(PacketError, match="teams"):
        encode(_packet(teams=(TeamInfo(1),)))
    with pytest.raises(PacketError, match="players"):
        encode(_packet(teams=(TeamInfo(1, players=(RobotInfo(),) * 3), TeamInfo(2))))
    with pytest.raises(PacketError, match="coach_message"):
        encode(_packet(teams=(TeamInfo(1, coach_message=b"x" * 254), TeamInfo(2))))
    with pytest.raises(PacketError, match="players\\[0\\].penalty"):
        encode(_packet(teams=(TeamInfo(1, players=(RobotInfo(penalty=999),) + (RobotInfo(),) * 10), TeamInfo(2))))


@pytest.mark.parametrize("data, kind", [
    (b"", "short"),
    (b"RGme", "short"),
    (b"XXXX" + bytes(684), "header"),
    (b"RGrt\x02\x01\x02\x02", "header"),
    (b"RGme\x0c" + bytes(49), "spl"),  # SPL 2019: 54 bytes, uint8 version 12
    (b"RGme\x0f" + bytes(113), "spl"),
    (b"RGme\x13" + bytes(192), "size"),  # HSL v19 is 198 bytes, not 197
    (b"RGme\x14" + bytes(154), "size"),  # HSL v20 is 158 bytes, not 159
    (b"RGme\x14" + bytes(193), "size"),  # a v19 length with the v20 version byte
    (b"RGme\x13" + bytes(153), "size"),
    (b"RGme\x15" + bytes(153), "version"),
    (b"RGme\x0c" + bytes(153), "size"),  # 158 bytes with v12's version: a short HL packet
    (b"RGrt\x14" + bytes(153), "header"),
    (b"RGme\x0c\x00" + bytes(600), "size"),
    (b"RGme\x0c\x01" + bytes(682), "version"),  # version 0x010c as uint16
    (b"RGme\x0b\x00" + bytes(682), "version"),
])
def test_decode_dispatches_on_length_and_version(data: bytes, kind: str) -> None:
    with pytest.raises(PacketError) as info:
        decode(data)
    assert info.value.kind == kind


@pytest.mark.parametrize("thing", [None, "RGme", 12, [1, 2, 3], object()])
def test_decode_of_non_bytes_is_a_packet_error(thing: object) -> None:
    with pytest.raises(PacketError):
        decode(thing)  # type: ignore[arg-type]


def test_decode_accepts_bytearray_and_memoryview() -> None:
    raw = build_fixture()
    assert decode(bytearray(raw)) == decode(raw) == decode(memoryview(raw))


# --- property tests (no deadline: tests never race a clock) ---------------------------------

PROPERTY = settings(deadline=None, max_examples=300)

_VALID = build_fixture()


def _decode_or_packet_error(data: bytes) -> GameControlData | None:
    try:
        return decode(data)
    except PacketError:
        return None  # anything else propagates and fails the test


@PROPERTY
@given(st.binary(max_size=1500))
def test_random_bytes_only_give_packet_error(data: bytes) -> None:
    _decode_or_packet_error(data)


@PROPERTY
@given(st.binary(min_size=HL_PACKET_SIZE - 6, max_size=HL_PACKET_SIZE - 6))
def test_random_bodies_with_a_valid_header_decode_and_reencode_exactly(body: bytes) -> None:
    raw = b"RGme\x0c\x00" + body
    p = decode(raw)
    assert encode(p) == _strip_coach_padding(raw, p)


def _strip_coach_padding(raw: bytes, p: GameControlData) -> bytes:
    """decode drops trailing NULs of coach_message; the padded re-encoding equals the input
    only where those bytes were NULs: rebuild the expected bytes with them zeroed."""
    buf = bytearray(raw)
    for i, team in enumerate(p.teams):
        start = 24 + 332 * i + 7
        buf[start + len(team.coach_message):start + 253] = bytes(253 - len(team.coach_message))
    return bytes(buf)


@PROPERTY
@given(st.integers(min_value=0, max_value=HL_PACKET_SIZE))
def test_truncated_packets_only_give_packet_error(n: int) -> None:
    result = _decode_or_packet_error(_VALID[:n])
    assert (result is not None) == (n == HL_PACKET_SIZE)


@PROPERTY
@given(st.lists(st.integers(min_value=0, max_value=HL_PACKET_SIZE * 8 - 1), min_size=1, max_size=8))
def test_bit_flipped_packets_decode_or_give_packet_error(bits: list[int]) -> None:
    buf = bytearray(_VALID)
    for b in bits:
        buf[b // 8] ^= 1 << (b % 8)
    result = _decode_or_packet_error(bytes(buf))
    header_intact = buf[:6] == _VALID[:6]
    assert (result is not None) == header_intact


@PROPERTY
@given(st.binary(min_size=1, max_size=64), st.integers(min_value=0, max_value=800))
def test_extended_packets_give_packet_error(extra: bytes, cut: int) -> None:
    assert _decode_or_packet_error(_VALID + extra) is None
    assert _decode_or_packet_error(_VALID[:cut] + extra) is None or len(_VALID[:cut] + extra) == HL_PACKET_SIZE


# --- return packets ------------------------------------------------------------------------


def test_hl_return_packet_is_team_then_player() -> None:
    raw = encode_return(ReturnData(team=12, player=3, message=ReturnMessage.ALIVE))
    assert raw == b"RGrt" + bytes([2, 12, 3, 2])
    assert decode_return(raw) == ReturnData(12, 3, 2, 2)


@pytest.mark.parametrize("message", list(ReturnMessage))
def test_return_round_trip_every_message(message: ReturnMessage) -> None:
    assert decode_return(encode_return(ReturnData(5, 2, int(message)))).message == message


def test_hsl_return_packet_is_player_then_team() -> None:
    data = HslReturnData(player=2, team=9, fallen=1, pose_x_mm=1500.0, pose_y_mm=-250.0, pose_theta_rad=0.5,
                         ball_age_s=-1.0, ball_x_mm=10.0, ball_y_mm=20.0)
    raw = encode_return(data)
    assert len(raw) == 32 and raw[:8] == b"RGrt" + bytes([4, 2, 9, 1])
    assert struct.unpack_from("<3ff2f", raw, 8) == (1500.0, -250.0, 0.5, -1.0, 10.0, 20.0)
    assert decode_return(raw) == data


@PROPERTY
@given(st.binary(max_size=64))
def test_return_decode_only_gives_packet_error(data: bytes) -> None:
    try:
        r = decode_return(data)
    except PacketError:
        return
    assert data[:4] == b"RGrt" and len(data) in (8, 32)
    assert encode_return(r) == data or isinstance(r, HslReturnData)


def test_encode_return_rejects_out_of_range() -> None:
    with pytest.raises(PacketError):
        encode_return(ReturnData(team=300, player=1))
