"""When the simulated referee sends a GameController packet.

``PacketSchedule.due(referee, t_s, robots)`` returns the packet's bytes when one is due: at the
GameController's rate (the referee's ``poll_packet``, 2 Hz), and at once when the game situation
changed (state, set play, sub-state, kicking team, half, score, who is penalised, and what an HSL
referee shows: the delayed PLAYING, the ``stopped`` flag). The embedded match decodes the bytes
for its agents; the served simulator sends them over UDP. The same bytes either way.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["PacketSchedule"]


class PacketSchedule:
    """The packets of one referee (see the module docstring); ``sent`` counts them."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self.sent = 0

    def due(self, referee: Any, t_s: float, robots: Iterable[Any]) -> bytes | None:
        ref = referee
        key = (ref.state, ref.secondary_state, ref.sub_state, ref.set_play_team, ref.kick_off_team,
               ref.first_half, tuple(sorted(ref.scores.items(), key=lambda kv: kv[0].value)),
               tuple(sorted(rid for rid in robots if ref.is_penalized(rid))))
        situation = getattr(ref, "packet_situation", None)  # HSL: shown state, stopped, kicking team
        if situation is not None:
            key += situation()
        if ref.poll_packet(t_s) is None and key == self._key:
            return None
        self._key = key
        self.sent += 1
        return ref.packet_bytes()
