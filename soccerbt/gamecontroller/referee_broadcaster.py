"""A referee's packets sent over UDP, as a real GameController sends them (broadcast by default)."""
from __future__ import annotations

import logging
import socket

from soccerbt.gamecontroller.hl_referee import Referee
from soccerbt.gamecontroller.protocol import DATA_PORT
from soccerbt.gamecontroller.referee_common import _next_due

__all__ = ["RefereeBroadcaster"]

log = logging.getLogger("soccerbt.gamecontroller.referee")  # one logger for the HL referee and its broadcaster


class RefereeBroadcaster:
    """Sends a referee's packets over UDP, like a real GameController (broadcast by default).

    Call ``step()`` from the match loop after ``referee.step``: it sends when a packet is due at
    ``rate_hz`` of simulated time. ``send()`` sends one now.
    """

    def __init__(self, referee: Referee, address: str = "255.255.255.255", port: int = DATA_PORT,
                 rate_hz: float | None = None) -> None:
        self.referee = referee
        self.address = address
        self.port = port
        self.rate_hz = rate_hz or referee.config.rate_hz
        self.sent = 0
        self.send_errors = 0
        self._next_due_s: float | None = None
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)

    def send(self) -> bool:
        try:
            self._sock.sendto(self.referee.packet_bytes(), (self.address, self.port))
        except OSError as exc:
            self.send_errors += 1
            if self.send_errors == 1:
                log.warning("cannot send GameController packet to %s:%d: %s", self.address, self.port, exc)
            return False
        self.sent += 1
        return True

    def step(self, t_s: float | None = None) -> bool:
        """Send if a packet is due; True when one was sent."""
        t = self.referee.t_s if t_s is None else t_s
        if self._next_due_s is not None and t < self._next_due_s - 1e-9:
            return False
        self._next_due_s = _next_due(self._next_due_s, t, 1.0 / self.rate_hz)
        return self.send()

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> RefereeBroadcaster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
