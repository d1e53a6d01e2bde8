"""What every simulated referee shares: the world it referees, its configuration, its records.

``RefereeWorld`` (with ``RobotTruth`` and ``BallTruth``) is what a referee needs of the simulated
world (soccerbt.world.sim.World provides it); ``RefereeConfig`` holds team numbers, durations
(seconds) and the referee's decisions, HL 2025's by default (the HSL referee's config extends it);
``RefereeRecord`` and ``GoalRecord`` are what a referee decided, for logs, viewers and tests;
``_next_due`` is the packet timing the referee and its broadcaster share. The HL v12 referee is
``hl_referee.Referee``, the HSL one ``hsl_referee.HslReferee``; ``referee_factory.make_referee``
picks one.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, RobotId, Team

__all__ = ["BallTruth", "GoalRecord", "RefereeConfig", "RefereeRecord", "RefereeWorld", "RobotTruth"]

_EPS = 1e-9  # simulated times are sums of float steps: never lose a step to rounding

# --- what the referee needs of the world ---------------------------------------------------


class RobotTruth(Protocol):
    """The true state of one simulated robot."""

    @property
    def pose(self) -> Pose2D: ...  # world frame

    @property
    def fallen(self) -> bool: ...

    @property
    def removed(self) -> bool: ...


class BallTruth(Protocol):
    @property
    def x_m(self) -> float: ...

    @property
    def y_m(self) -> float: ...

    @property
    def vx_mps(self) -> float: ...

    @property
    def vy_mps(self) -> float: ...


class RefereeWorld(Protocol):
    """The simulated world as the referee sees it (soccerbt.world.sim.World provides it)."""

    @property
    def t_s(self) -> float: ...

    @property
    def field(self) -> Field: ...

    @property
    def robots(self) -> Mapping[RobotId, RobotTruth]: ...

    @property
    def ball(self) -> BallTruth: ...

    def place_ball(self, x_m: float, y_m: float) -> None:
        """Put the ball at rest at a world position."""

    def remove_robot(self, robot_id: RobotId) -> None:
        """Take a robot off the field (penalty)."""

    def place_robot(self, robot_id: RobotId, pose: Pose2D) -> None:
        """Put a robot (back) on the field, standing, at a world pose."""


# --- configuration and records ----------------------------------------------------------------


@dataclass
class RefereeConfig:
    """Team numbers, durations (seconds) and the referee's decisions. Defaults: HL 2025."""

    blue_team_number: int = 1
    red_team_number: int = 2
    players_per_team: int | None = None  # None: the highest player number in the world
    half_duration_s: float = 600.0
    initial_s: float = 2.0  # INITIAL before READY at the start of each half
    ready_s: float = 45.0
    set_s: float = 3.0
    kickoff_wait_s: float = 10.0  # the other team waits this long, or until the ball moved
    free_kick_stop_s: float = 5.0
    free_kick_get_ready_s: float = 15.0
    free_kick_set_s: float = 2.0
    removal_penalty_s: float = 10.0
    incapable_fallen_s: float = 20.0  # fallen this long: removal penalty (incapable, 34)
    half_time_break_s: float = 10.0
    placed_still_s: float = 1.0  # a placed robot stood still this long
    still_speed_mps: float = 0.05
    still_turn_radps: float = 0.2
    leave_field_margin_m: float = 0.5  # robot centre this far outside the lines: removed
    ball_moved_m: float = 0.2  # the ball is in play once moved this far from its spot
    first_kick_off: Team = Team.BLUE
    blue_attacks_positive_x_first_half: bool = True
    illegal_ready_position: str = "move"  # at SET: "move" (referee places it), "penalize", "ignore"
    illegal_set_play_position: str = "penalize"  # at a set play's SET: "penalize" or "ignore"
    penalize_fallen: bool = True
    penalize_leaving_field: bool = True
    relocate_at_half_time: bool = True  # carry robots to their new half's touch line
    goalkeeper_number: int = 1
    rate_hz: float = 2.0  # packets per second of poll_packet (the real GC's rate)
    game_type: int = 0

    def __post_init__(self) -> None:
        for name in ("illegal_ready_position", "illegal_set_play_position"):
            value = getattr(self, name)
            allowed = ("move", "penalize", "ignore") if name == "illegal_ready_position" else (
                "penalize", "ignore")
            if value not in allowed:
                raise ValueError(f"RefereeConfig.{name}: {value!r} (expected one of {', '.join(allowed)})")
        if self.blue_team_number == self.red_team_number:
            raise ValueError("RefereeConfig: blue and red need different team numbers")
        for name in ("blue_team_number", "red_team_number"):
            if not 0 <= getattr(self, name) <= 254 or getattr(self, name) in (128,):
                raise ValueError(f"RefereeConfig.{name}: {getattr(self, name)} is not a usable team number")
        if self.rate_hz <= 0:
            raise ValueError("RefereeConfig.rate_hz must be positive")


@dataclass(frozen=True, slots=True)
class RefereeRecord:
    """One decision of the referee, for logs, viewers and tests."""

    t_s: float
    kind: str  # state, set_play, sub_state, set_play_end, kick_off_end, goal, penalty, unpenalised, ...
    detail: str
    team: Team | None = None
    robot: RobotId | None = None


@dataclass(frozen=True, slots=True)
class GoalRecord:
    t_s: float
    team: Team  # who scored
    last_touch: RobotId | None
    own_goal: bool
    first_half: bool


def _next_due(due_s: float | None, t_s: float, period_s: float) -> float:
    """The next send time on a fixed grid; after a gap, restart the grid from now."""
    nxt = t_s + period_s if due_s is None else due_s + period_s
    return t_s + period_s if nxt <= t_s else nxt
