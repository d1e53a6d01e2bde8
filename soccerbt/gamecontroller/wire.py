"""What the two GameController packet families share on the wire, below both codecs.

``protocol`` (HL v12, the return packets, and ``decode``/``encode`` for every version) and
``hsl_protocol`` (HSL v19/v20 and the status message) both import this module; neither imports
the other's internals back (``protocol`` dispatches to ``hsl_protocol``). Here: the header
bytes, the HSL status message's version, size and data class, the team colours,
``PacketError`` and ``TeamLookup`` (finding a team's block by its number). ``protocol``
re-exports every name, so ``from soccerbt.gamecontroller.protocol import PacketError`` works.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

__all__ = ["HEADER", "RETURN_HEADER", "HSL_RETURN_VERSION", "HSL_RETURN_SIZE", "TeamColor", "PacketError",
           "TeamLookup", "HslReturnData"]

HEADER = b"RGme"
RETURN_HEADER = b"RGrt"
HSL_RETURN_VERSION = 4
HSL_RETURN_SIZE = 32


class TeamColor(enum.IntEnum):
    BLUE = 0
    RED = 1
    YELLOW = 2
    BLACK = 3
    WHITE = 4
    GREEN = 5
    ORANGE = 6
    PURPLE = 7
    BROWN = 8
    GRAY = 9


class PacketError(ValueError):
    """A datagram that is not a packet soccerbt understands. ``kind`` names the reason
    (``short``, ``header``, ``spl``, ``version``, ``size``, ``value``, ``malformed``) for counting."""

    def __init__(self, message: str, kind: str = "malformed") -> None:
        super().__init__(message)
        self.kind = kind


class TeamLookup:
    """Finding a team's block in a control message by its number (HL and HSL alike)."""

    __slots__ = ()
    teams: tuple

    def team_index(self, team_number: int) -> int | None:
        """0 or 1: where the team's block is (it moves at half-time), None if absent."""
        teams = self.teams
        if teams[0].team_number == team_number:
            return 0
        if teams[1].team_number == team_number:
            return 1
        return None

    def team(self, team_number: int) -> Any:
        """The block of a team, found by its number (never by index)."""
        i = self.team_index(team_number)
        return None if i is None else self.teams[i]

    def opponent_of(self, team_number: int) -> Any:
        """The other block when ``team_number`` plays in this packet, else None."""
        i = self.team_index(team_number)
        return None if i is None else self.teams[1 - i]

    def names_team(self, team_number: int) -> bool:
        return self.team_index(team_number) is not None


@dataclass(frozen=True, slots=True)
class HslReturnData:
    """HSL v4 return packet (32 bytes): player before team, pose and ball in millimetres."""

    player: int
    team: int
    fallen: int = 0
    pose_x_mm: float = 0.0
    pose_y_mm: float = 0.0
    pose_theta_rad: float = 0.0
    ball_age_s: float = -1.0
    ball_x_mm: float = 0.0
    ball_y_mm: float = 0.0
    version: int = HSL_RETURN_VERSION
