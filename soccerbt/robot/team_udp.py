"""Team messages over UDP, as robots exchange them on the field.

``encode_team_message`` / ``decode_team_message``: a compact binary form of ``TeamMessage``
(48 bytes; the HSL allows 512) with a magic and version, the team number and colour, the
player number, the role, the pose and ball in the team frame (float32), the ball's age, the
cost to the ball and the newest person's role choice. Times do not cross the wire as clock
readings (two robots' clocks differ): a role choice travels as its age, and the receiver
stamps a message with its own clock when it arrives.

``UdpTeamLink``: the team link of one robot (``register``, ``send``, ``receive`` as the
simulated ``TeamLink``): it broadcasts to ``address``:``10000 + team number`` and listens on
that port (SO_REUSEADDR and SO_REUSEPORT, so several brains on one host share it; broadcast
delivers to each). A datagram that does not decode, names another team or comes from this
robot is dropped and counted; at most ``max_per_receive`` datagrams are read per call so a
flood cannot starve the brain.
"""
from __future__ import annotations

import logging
import math
import struct
from dataclasses import dataclass

from soccerbt.gamecontroller.receiver import open_udp_socket
from soccerbt.services.planning import Role, RoleChoice, TeamMessage
from soccerbt.world.types import Pose2D, RobotId, Team

__all__ = ["TEAM_PORT_BASE", "TeamWireError", "UdpTeamLink", "decode_team_message", "encode_team_message",
           "team_port"]

_log = logging.getLogger(__name__)

TEAM_PORT_BASE = 10000  # HSL: team messages go to port 10000 + team number
MAGIC = b"SBTm"
VERSION = 1
_ROLES = (Role.STRIKER, Role.GOALKEEPER, Role.SUPPORTER, Role.DEFENDER)
_ROLE_CODE = {role: i for i, role in enumerate(_ROLES)}
# magic, version, team number, colour, player, flags, role, pose x y theta, ball x y, ball age,
# cost, choice age, choice goalkeeper, choice striker (0: none)
_FORMAT = struct.Struct("<4sBBBBBB3f2f3fBB")
MESSAGE_BYTES = _FORMAT.size
_ACTIVE, _POSE, _BALL, _CHOICE, _CHOICE_LIVE = 1, 2, 4, 8, 16
_MAX_PLAYER = 20
_MAX_ABS_M = 1000.0  # a coordinate beyond a kilometre is no field position
_MAX_RECEIVE = 64


class TeamWireError(ValueError):
    """A datagram that is no team message of ours."""


def team_port(team_number: int) -> int:
    """The UDP port of a team's messages: 10000 + its GameController team number."""
    return TEAM_PORT_BASE + int(team_number)


def encode_team_message(message: TeamMessage, team_number: int, now_s: float) -> bytes:
    """The datagram of ``message`` sent at ``now_s`` (the brain's clock)."""
    flags = _ACTIVE if message.active else 0
    px = py = pt = 0.0
    if message.pose is not None:
        flags |= _POSE
        px, py, pt = message.pose.x_m, message.pose.y_m, message.pose.theta_rad
    bx = by = 0.0
    if message.ball_xy is not None:
        flags |= _BALL
        bx, by = message.ball_xy
    choice = message.role_choice
    choice_age = 0.0
    gk = st = 0
    if choice is not None:
        flags |= _CHOICE | (_CHOICE_LIVE if choice.live else 0)
        choice_age = max(0.0, now_s - choice.t_s)
        gk = choice.goalkeeper or 0
        st = choice.striker or 0
    return _FORMAT.pack(MAGIC, VERSION, team_number & 0xFF, message.sender.team.value, message.sender.number,
                        flags, _ROLE_CODE[message.role], px, py, pt, bx, by, message.ball_age_s,
                        message.cost_to_ball_s, choice_age, gk, st)


def decode_team_message(data: bytes, now_s: float) -> tuple[int, TeamMessage]:
    """(team number, message) of a datagram received at ``now_s``; ``TeamWireError`` for
    anything else (wrong size, magic or version, numbers out of range, non-finite poses)."""
    if len(data) != MESSAGE_BYTES:
        raise TeamWireError(f"{len(data)} bytes, a team message has {MESSAGE_BYTES}")
    (magic, version, team_number, colour, player, flags, role, px, py, pt, bx, by, ball_age, cost, choice_age,
     gk, st) = _FORMAT.unpack(data)
    if magic != MAGIC:
        raise TeamWireError("not a soccerbt team message (magic)")
    if version != VERSION:
        raise TeamWireError(f"team message version {version}, expected {VERSION}")
    if colour not in (0, 1) or not 1 <= player <= _MAX_PLAYER or role >= len(_ROLES):
        raise TeamWireError(f"colour {colour}, player {player} or role {role} out of range")
    if gk > _MAX_PLAYER or st > _MAX_PLAYER:
        raise TeamWireError("role choice names a player out of range")
    pose = None
    if flags & _POSE:
        if not all(math.isfinite(v) and abs(v) <= _MAX_ABS_M for v in (px, py, pt)):
            raise TeamWireError("pose not finite or off any field")
        pose = Pose2D(px, py, pt)
    ball = None
    if flags & _BALL:
        if not all(math.isfinite(v) and abs(v) <= _MAX_ABS_M for v in (bx, by)):
            raise TeamWireError("ball not finite or off any field")
        ball = (bx, by)
    if math.isnan(ball_age) or math.isnan(cost) or not math.isfinite(choice_age):
        raise TeamWireError("ball age, cost or choice age not a number")
    choice = None
    if flags & _CHOICE:
        choice = RoleChoice(now_s - max(0.0, choice_age), gk or None, st or None, live=bool(flags & _CHOICE_LIVE))
    message = TeamMessage(RobotId(Team(colour), player), pose, ball, max(0.0, ball_age), max(0.0, cost),
                          _ROLES[role], now_s, bool(flags & _ACTIVE), choice)
    return team_number, message


@dataclass(slots=True)
class TeamLinkCounters:
    """What a ``UdpTeamLink`` saw and did."""

    sent: int = 0
    send_errors: int = 0
    received: int = 0  # teammates' messages handed to the brain
    own: int = 0  # this robot's own broadcasts heard back
    foreign: int = 0  # well-formed, another team
    dropped: int = 0  # did not decode


class UdpTeamLink:
    """Team messages of one robot over UDP (see the module docstring).

    ``address``: where messages are broadcast ("255.255.255.255" on a field network,
    "127.255.255.255" for brains on one host). ``port`` None: ``10000 + team_number``.
    """

    def __init__(self, team_number: int, *, address: str = "255.255.255.255", port: int | None = None,
                 bind_host: str = "", max_per_receive: int = _MAX_RECEIVE) -> None:
        if not 0 <= team_number <= 255:
            raise ValueError(f"team number {team_number} out of range 0..255")
        self.team_number = team_number
        self.address = address
        self.port = team_port(team_number) if port is None else int(port)
        self.max_per_receive = max_per_receive
        self.counters = TeamLinkCounters()
        self._robot: RobotId | None = None
        self._sock = open_udp_socket(bind_host, self.port)

    @property
    def sent(self) -> int:
        return self.counters.sent

    def register(self, robot: RobotId) -> None:
        """The robot this link belongs to (its own broadcasts are not handed back)."""
        self._robot = robot

    def send(self, message: TeamMessage, now_s: float) -> None:
        try:
            self._sock.sendto(encode_team_message(message, self.team_number, now_s), (self.address, self.port))
            self.counters.sent += 1
        except OSError as exc:  # a missing route must not stop the brain
            self.counters.send_errors += 1
            if self.counters.send_errors == 1:
                _log.warning("team messages: cannot send to %s:%d (%s)", self.address, self.port, exc)

    def receive(self, robot: RobotId, now_s: float) -> list[TeamMessage]:
        """The teammates' messages that arrived since the last call, stamped ``now_s``."""
        out: list[TeamMessage] = []
        c = self.counters
        for _ in range(self.max_per_receive):
            try:
                data = self._sock.recv(1024)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                c.dropped += 1
                break
            try:
                team_number, message = decode_team_message(data, now_s)
            except TeamWireError:
                c.dropped += 1
                continue
            if team_number != self.team_number or message.sender.team is not robot.team:
                c.foreign += 1
            elif message.sender == robot:
                c.own += 1
            else:
                c.received += 1
                out.append(message)
        return out

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> UdpTeamLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
