"""The UDP GameController receiver of one robot, with the alive return sender.

``GameControllerReceiver.poll(now_s)`` drains a non-blocking socket (it never blocks the brain),
decodes every datagram (HL v12, HSL v19 and v20 on the same port), keeps the newest packet
naming our team and counts the rest; while packets arrive it answers, about once a second, in
the family it hears, to the sender's address, port 3939: the HL v2 alive packet to an HL
GameController, the HSL status message v4 to an HSL one (fallen, pose, ball: feed them with
``update_status``; non-finite values are replaced, see ``hsl_protocol.status_message``).
Several robots on one host can listen on the same port (SO_REUSEADDR and
SO_REUSEPORT; the GameController broadcasts, so each socket gets every packet).
"""
from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from soccerbt.gamecontroller.hsl_protocol import HSL_MAX_NUM_PLAYERS, HSL_V19, HSL_V20, HslControlData, status_message
from soccerbt.gamecontroller.protocol import (
    DATA_PORT,
    RETURN_PORT,
    GameControlData,
    HslReturnData,
    PacketError,
    ReturnData,
    ReturnMessage,
    decode,
    encode_return,
)

log = logging.getLogger(__name__)

_RECV_BUFFER = 4096  # larger than any packet, so an oversized datagram shows as wrong size
_MAX_DRAIN = 256  # datagrams per poll: a flood cannot starve the brain
LOCK_RELEASE_S = 5.0  # the locked GameController silent this long: another sender is taken


@dataclass(slots=True)
class ReceiverCounters:
    """What the receiver saw. ``received`` counts every datagram read."""

    received: int = 0
    accepted: int = 0  # decoded and naming our team
    dropped_malformed: int = 0
    foreign: int = 0  # well-formed, but not naming our team
    not_allowed: int = 0  # from an address outside the allow-list
    not_locked: int = 0  # for our team, from another sender than the GameController locked onto
    lock_moves: int = 0  # the lock moved to another sender after the locked one fell silent
    hl_v12: int = 0  # well-formed packets of each family (ours and foreign)
    hsl_v19: int = 0
    hsl_v20: int = 0
    returns_sent: int = 0  # HL v2 alive packets and HSL v4 status messages
    status_sent: int = 0  # of which HSL v4 status messages
    send_errors: int = 0
    socket_errors: int = 0


def open_udp_socket(host: str = "", port: int | None = None) -> socket.socket:
    """A non-blocking UDP socket that may broadcast, bound to ``host``:``port`` (None: unbound,
    for sending only) with SO_REUSEADDR and SO_REUSEPORT, so that several programs on one host
    hear the same broadcast port (robots' GameController and team ports, the served simulator)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            except OSError:  # some kernels refuse it: SO_REUSEADDR still lets broadcast through
                pass
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        if port is not None:
            sock.bind((host, port))
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


class GameControllerReceiver:
    """Listens for GameController packets for one robot (team number, 1-based player number).

    ``clock`` gives the time used when ``poll``/``connected`` are called without ``now_s``
    (``time.monotonic`` by default; the brain passes its simulated time explicitly).
    ``allow``: GameController addresses accepted (None: any). Without an allow-list the receiver
    locks onto the first address whose packet names our team and ignores (counts, says once) the
    others' until the locked one has been silent for ``lock_release_s`` (a GameController restarted
    on another laptop is then taken): a spoofer on the field's network cannot replace the game's
    state, and the return messages go only to the locked sender. ``return_port`` is where the
    alive packet or status message goes (3939; tests use another); ``send_alive=False`` switches
    both off; ``alive_period_s`` is their period (the HSL GameController wants 0.5-2 s).
    """

    def __init__(self, team: int, player: int, host: str = "0.0.0.0", port: int = DATA_PORT,
                 timeout_s: float = 2.0, allow: Iterable[str] | None = None,
                 clock: Callable[[], float] = time.monotonic, return_port: int = RETURN_PORT,
                 send_alive: bool = True, alive_period_s: float = 1.0,
                 lock_release_s: float = LOCK_RELEASE_S) -> None:
        if not 0 <= team <= 255:
            raise ValueError(f"team number {team} out of range 0..255")
        if not 1 <= player <= HSL_MAX_NUM_PLAYERS:
            raise ValueError(f"player number {player} out of range 1..{HSL_MAX_NUM_PLAYERS}")
        self.team = team
        self.player = player
        self.timeout_s = timeout_s
        self.allow = None if allow is None else frozenset(allow)
        self.clock = clock
        self.return_port = return_port
        self.send_alive = send_alive
        self.alive_period_s = alive_period_s
        self.lock_release_s = lock_release_s
        self.locked_address: str | None = None  # the GameController trusted (no allow-list)
        self.counters = ReceiverCounters()
        self.latest: GameControlData | HslControlData | None = None  # newest packet for our team
        self.latest_address: tuple[str, int] | None = None
        self.last_rx_s = float("-inf")
        self._next_alive_s = float("-inf")
        self._logged_kinds: set[str] = set()
        self._alive_bytes = encode_return(ReturnData(team, player, ReturnMessage.ALIVE))
        self._status: HslReturnData = status_message(team, player, fallen=False)
        self._status_bytes: bytes | None = None  # encoded lazily, once per update_status
        self._sock: socket.socket | None = open_udp_socket(host, port)
        self.host, self.port = self._sock.getsockname()[:2]  # the bound port (0 picks one)

    # --- lifecycle ------------------------------------------------------------------------

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> GameControllerReceiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def fileno(self) -> int:
        """The socket's descriptor, for select() in a monitor loop."""
        if self._sock is None:
            raise ValueError("receiver is closed")
        return self._sock.fileno()

    # --- receiving ------------------------------------------------------------------------

    def poll(self, now_s: float | None = None) -> GameControlData | HslControlData | None:
        """Drain the socket without blocking. The newest packet for our team that arrived in
        this call, or None when none did (``latest`` keeps the newest ever)."""
        if now_s is None:
            now_s = self.clock()
        sock = self._sock
        if sock is None:
            return None
        c = self.counters
        newest: GameControlData | HslControlData | None = None
        for _ in range(_MAX_DRAIN):
            try:
                data, address = sock.recvfrom(_RECV_BUFFER)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as exc:
                # e.g. ECONNREFUSED left by an ICMP reply to our return packet: not fatal
                c.socket_errors += 1
                self._log_once("socket", f"receive error: {exc}")
                continue
            c.received += 1
            if self.allow is not None and address[0] not in self.allow:
                c.not_allowed += 1
                self._log_once("not_allowed", f"packet from {address[0]} ignored: not in the allow-list")
                continue
            try:
                packet = decode(data)
            except PacketError as exc:
                c.dropped_malformed += 1
                self._log_once(exc.kind, f"dropped packet from {address[0]}: {exc}")
                continue
            version = packet.version
            if version == HSL_V20:
                c.hsl_v20 += 1
            elif version == HSL_V19:
                c.hsl_v19 += 1
            else:
                c.hl_v12 += 1
            if not packet.names_team(self.team):
                c.foreign += 1
                continue
            if self.allow is None and not self._lock(address[0], now_s):
                c.not_locked += 1
                self._log_once("not_locked", f"packet from {address[0]} ignored: locked onto the GameController at "
                                             f"{self.locked_address} (another is taken once it has been silent "
                                             f"for {self.lock_release_s:g} s)")
                continue
            c.accepted += 1
            newest = packet
            self.latest_address = address
        if newest is not None:
            self.latest = newest
            self.last_rx_s = now_s
        if self.send_alive and self.latest_address is not None and self.connected(now_s) \
                and now_s >= self._next_alive_s:
            self._next_alive_s = now_s + self.alive_period_s
            if isinstance(self.latest, HslControlData):
                self.send_status()
            else:
                self.send_return(ReturnMessage.ALIVE)
        return newest

    def _lock(self, sender: str, now_s: float) -> bool:
        """Whether a packet for our team from ``sender`` is taken: the locked GameController's, the
        first sender's, or a new one's once the locked one has been silent for ``lock_release_s``."""
        locked = self.locked_address
        if locked == sender:
            return True
        if locked is None:
            self.locked_address = sender
            return True
        if now_s - self.last_rx_s >= self.lock_release_s:
            log.warning("GameController lock moved from %s to %s (silent for %.1f s)", locked, sender,
                         now_s - self.last_rx_s)
            self.locked_address = sender
            self.counters.lock_moves += 1
            return True
        return False

    def update_status(self, *, fallen: bool, pose_x_mm: float = 0.0, pose_y_mm: float = 0.0,
                      pose_theta_rad: float = 0.0, ball_age_s: float = -1.0, ball_x_mm: float = 0.0,
                      ball_y_mm: float = 0.0) -> HslReturnData:
        """What the next HSL status messages say: fallen, pose (field frame, +x toward the
        opponent goal, mm and rad), seconds since the ball was seen (-1: never) and the ball
        relative to the robot in mm. Non-finite values become the documented defaults
        (``hsl_protocol.STATUS_DEFAULTS``). Returns the message that will be sent."""
        self._status = status_message(self.team, self.player, fallen=fallen, pose_x_mm=pose_x_mm,
                                      pose_y_mm=pose_y_mm, pose_theta_rad=pose_theta_rad, ball_age_s=ball_age_s,
                                      ball_x_mm=ball_x_mm, ball_y_mm=ball_y_mm)
        self._status_bytes = None
        return self._status

    def send_status(self) -> bool:
        """Send the HSL status message v4 (see ``update_status``) to the last GameController seen."""
        if self._status_bytes is None:
            self._status_bytes = encode_return(self._status)
        if self._send(self._status_bytes):
            self.counters.status_sent += 1
            return True
        return False

    def connected(self, now_s: float | None = None) -> bool:
        """A packet for our team arrived within ``timeout_s``."""
        if now_s is None:
            now_s = self.clock()
        return now_s - self.last_rx_s <= self.timeout_s

    def send_return(self, message: int = ReturnMessage.ALIVE) -> bool:
        """Send an HL v2 return packet (team, player, message) to the last GameController seen
        (HL v2 numbers players 1..255: fine for 1..20)."""
        if self._sock is None or self.latest_address is None:
            return False
        data = self._alive_bytes if message == ReturnMessage.ALIVE else encode_return(
            ReturnData(self.team, self.player, message))
        return self._send(data)

    def _send(self, data: bytes) -> bool:
        if self._sock is None or self.latest_address is None:
            return False
        try:
            self._sock.sendto(data, (self.latest_address[0], self.return_port))
        except OSError as exc:
            self.counters.send_errors += 1
            self._log_once("send", f"cannot send return packet: {exc}")
            return False
        self.counters.returns_sent += 1
        return True

    def _log_once(self, kind: str, message: str) -> None:
        if kind not in self._logged_kinds:
            self._logged_kinds.add(kind)
            log.warning("%s (further ones are counted, not logged)", message)
