"""The robot context: everything a soccer node reaches through ``self.context``.

One ``RobotContext`` per robot, built by the agent and handed to the tree at creation
(``factory.create_tree_from_file(path, context=ctx)``), as Booster's nodes get their ``brain``.
Nothing in it is global: two robots in one process share nothing.

Fields (all frames are the *team* frame of ``soccerbt.world.types``: own goal at negative x):

============== =============================================================================
robot          ``RobotId`` (team colour + 1-based player number)
field          ``soccerbt.world.field.Field`` geometry of the match
clock          ``() -> float``: simulated seconds; nodes call ``ctx.now_s()``, never time.time()
world_model    ``soccerbt.services.world_model.WorldModel`` (robot pose, ball memory,
               obstacles, teammates), updated by the agent before each tick
command        ``RobotCommand`` being built this tick. Like Booster's robot client it *holds*:
               velocity and head angles persist until a node changes them; the one-shot parts
               (``kick``, ``stand_up``) are cleared by ``begin_tick()``
limits         ``soccerbt.world.types.RobotLimits`` or None; the velocity and head helpers
               clamp to it (the Booster T1's defaults when None)
localizer      localization service (``soccerbt.services`` ParticleFilter) or None
navigator      navigation service (path planner + follower) or None: nodes fall back to
               walking straight when it is missing
kick           kick planner (``soccerbt.services.kick``) or None
planning       role / position planner (``soccerbt.services.planning``) or None
team_link      the team-message link (``soccerbt.services.planning.TeamLink``) or None
blackboard     the tree's root blackboard (MutableMapping) once the agent sets it, else None
team_number    our GameController team number
team_size      robots per team in this match
start_role     "striker", "goal_keeper" or "supporter": the role before any negotiation
booster_version  "main" or "2026": the Booster node library version whose defaults this robot's
               version-dependent nodes take; None (default): each tree's own version
               (``soccerbt.nodes.soccer.versions``)
logger         ``logging.Logger`` for this robot
memory         a dict nodes may use to keep state across ticks *and* tree reloads
               (e.g. the last SelfLocate time); keys are prefixed by the node type
state          ``BrainState``: what Booster keeps in ``brain->data`` and several nodes share
               (kick direction and type from CalcKickDir, the free-kick flag, ...)
config         ``SoccerConfig``: tunables of Booster's brain config (auto visual kick, obstacle
               avoidance distances, stand-up retries, camera height)
============== =============================================================================

The agent's side of the contract, per step: update the localizer and the world model, write
the blackboard, ``ctx.begin_tick()``, ``tree.tick_exactly_once()``, then send
``ctx.command_snapshot()`` to the driver.

Node helpers (thin wrappers so nodes stay short): ``set_velocity`` (clamped to the limits),
``stop``, ``set_head`` (clamped to the head range), ``request_kick``, ``request_stand_up``,
``bb_get``.
"""
from __future__ import annotations

import logging
import math
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from dataclasses import field as _field  # for mypy, RobotContext's attribute `field` would hide it
from typing import TYPE_CHECKING, Any

from soccerbt.world.field import Field
from soccerbt.world.types import KickRequest, RobotCommand, RobotId

if TYPE_CHECKING:  # only for type checkers: keeps this module import-light
    from soccerbt.services.world_model import WorldModel

__all__ = [
    "RobotContext",
    "BrainState",
    "SoccerConfig",
    "DEFAULT_MAX_VX_MPS",
    "DEFAULT_MAX_VY_MPS",
    "DEFAULT_MAX_VTHETA_RADPS",
]

# Booster T1 walking limits (../shared/reference/field.md) used when no RobotLimits is given.
DEFAULT_MAX_VX_MPS = 1.2
DEFAULT_MIN_VX_MPS = -0.5
DEFAULT_MAX_VY_MPS = 0.4
DEFAULT_MAX_VTHETA_RADPS = 1.5
# Head joint range (rad): pan is yaw (+ left), tilt is pitch (+ down, as Booster's MoveHead).
HEAD_PAN_LIMIT_RAD = 1.1
HEAD_TILT_MIN_RAD = -0.35
HEAD_TILT_MAX_RAD = 1.2


def _limit(limits: Any, names: tuple[str, ...], default: float) -> float:
    """The first attribute of ``limits`` among ``names`` (limits objects differ in spelling)."""
    if limits is None:
        return default
    for name in names:
        value = getattr(limits, name, None)
        if value is not None:
            return float(value)
    return default


@dataclass(slots=True)
class BrainState:
    """State shared between nodes of one robot (Booster's ``brain->data`` fields)."""

    kick_dir_rad: float = 0.0  # team frame, chosen by CalcKickDir
    kick_type: str = "shoot"  # "shoot", "cross" or "block"
    is_freekick_kicking_off: bool = False
    stand_up_attempts: int = 0
    last_stand_up_s: float = -1e9
    in_visual_kick: bool = False


@dataclass(frozen=True, slots=True)
class SoccerConfig:
    """Tunables of the soccer nodes (the values of Booster's brain config where it has one)."""

    enable_auto_visual_kick: bool = True
    auto_visual_kick_dist_min_m: float = 0.2
    auto_visual_kick_dist_max_m: float = 4.0
    auto_visual_kick_angle_rad: float = 0.8
    avoid_during_chase: bool = True
    chase_avoid_safe_dist_m: float = 3.5
    avoid_during_kick: bool = False
    kick_avoid_safe_dist_m: float = 3.0
    stand_up_retry_max: int = 2
    stand_up_retry_interval_s: float = 4.0
    camera_height_m: float = 1.12  # the T1's head camera above the ground
    ball_detected_window_s: float = 0.15  # "seen in the current frame" (30 Hz camera)


@dataclass(eq=False)
class RobotContext:
    """What the soccer nodes of one robot see as ``self.context`` (see the module docstring)."""

    robot: RobotId
    field: Field
    clock: Callable[[], float]
    world_model: WorldModel
    command: RobotCommand = _field(default_factory=RobotCommand)
    limits: Any = None
    localizer: Any = None
    navigator: Any = None
    kick: Any = None
    planning: Any = None
    team_link: Any = None
    blackboard: MutableMapping[str, object] | None = None
    team_number: int = 0
    team_size: int = 3
    start_role: str = "striker"
    booster_version: str | None = None
    logger: logging.Logger | None = None
    memory: dict[str, object] = _field(default_factory=dict)
    state: BrainState = _field(default_factory=BrainState)
    config: SoccerConfig = _field(default_factory=SoccerConfig)
    _limits_cache: tuple | None = _field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.logger is None:
            self.logger = logging.getLogger(f"soccerbt.robot.{self.robot}")

    # --- identity and time ----------------------------------------------------------------

    @property
    def player_number(self) -> int:
        """1-based player number (as the GameController counts)."""
        return self.robot.number

    def now_s(self) -> float:
        """Simulated time in seconds."""
        return float(self.clock())

    # --- limits -----------------------------------------------------------------------------

    def _clamp_limits(self) -> tuple[float, float, float, float, float, float, float, float]:
        """(max vx, min vx, max vy, max vtheta, pan min, pan max, tilt min, tilt max) of the
        current ``limits``, worked out once per limits object (nodes clamp at every tick)."""
        lim = self.limits
        cached = self._limits_cache
        if cached is not None and cached[0] is lim:
            return cached[1]
        values = (_limit(lim, ("max_vx_forward_mps", "max_vx_mps"), DEFAULT_MAX_VX_MPS),
                  -abs(_limit(lim, ("max_vx_backward_mps", "min_vx_mps"), DEFAULT_MIN_VX_MPS)),
                  _limit(lim, ("max_vy_mps",), DEFAULT_MAX_VY_MPS),
                  _limit(lim, ("max_vtheta_radps",), DEFAULT_MAX_VTHETA_RADPS),
                  _limit(lim, ("head_pan_min_rad",), -HEAD_PAN_LIMIT_RAD),
                  _limit(lim, ("head_pan_max_rad",), HEAD_PAN_LIMIT_RAD),
                  _limit(lim, ("head_tilt_min_rad",), HEAD_TILT_MIN_RAD),
                  _limit(lim, ("head_tilt_max_rad",), HEAD_TILT_MAX_RAD))
        self._limits_cache = (lim, values)
        return values

    @property
    def max_vx_mps(self) -> float:
        return self._clamp_limits()[0]

    @property
    def min_vx_mps(self) -> float:
        """Most negative forward speed (walking backwards), a negative number."""
        return self._clamp_limits()[1]

    @property
    def max_vy_mps(self) -> float:
        return self._clamp_limits()[2]

    @property
    def max_vtheta_radps(self) -> float:
        return self._clamp_limits()[3]

    # --- the command ------------------------------------------------------------------------

    def begin_tick(self) -> None:
        """Clear the one-shot parts of the command (kick, stand up) before a tick."""
        self.command.kick = None
        self.command.stand_up = False

    def command_snapshot(self) -> RobotCommand:
        """A copy of the command, safe to hand to a driver."""
        c = self.command  # field by field: dataclasses.replace costs several times more
        return RobotCommand(c.vx_mps, c.vy_mps, c.vtheta_radps, c.head_pan_rad, c.head_tilt_rad,
                            c.kick, c.stand_up)

    def set_velocity(self, vx_mps: float, vy_mps: float, vtheta_radps: float) -> None:
        """Command a walking velocity in the robot frame, clamped to the robot's limits.

        Non-finite values stop the robot rather than reach the driver.
        """
        if not (math.isfinite(vx_mps) and math.isfinite(vy_mps) and math.isfinite(vtheta_radps)):
            assert self.logger is not None  # __post_init__ set it
            self.logger.warning("non-finite velocity (%r, %r, %r): stopping", vx_mps, vy_mps, vtheta_radps)
            vx_mps = vy_mps = vtheta_radps = 0.0
        cmd = self.command
        vx_hi, vx_lo, vy_lim, vt_lim = self._clamp_limits()[:4]
        cmd.vx_mps = min(vx_hi, max(vx_lo, float(vx_mps)))
        cmd.vy_mps = min(vy_lim, max(-vy_lim, float(vy_mps)))
        cmd.vtheta_radps = min(vt_lim, max(-vt_lim, float(vtheta_radps)))

    def stop(self) -> None:
        """Stand (zero walking velocity)."""
        self.command.vx_mps = 0.0
        self.command.vy_mps = 0.0
        self.command.vtheta_radps = 0.0

    @property
    def is_walking(self) -> bool:
        c = self.command
        return c.vx_mps != 0.0 or c.vy_mps != 0.0 or c.vtheta_radps != 0.0

    def set_head(self, pan_rad: float, tilt_rad: float) -> None:
        """Point the head: pan (yaw, + left) and tilt (pitch, + down), clamped to its range."""
        pan_lo, pan_hi, tilt_lo, tilt_hi = self._clamp_limits()[4:]
        if math.isfinite(pan_rad):
            self.command.head_pan_rad = min(pan_hi, max(pan_lo, float(pan_rad)))
        if math.isfinite(tilt_rad):
            self.command.head_tilt_rad = min(tilt_hi, max(tilt_lo, float(tilt_rad)))

    def request_kick(self, direction_rad: float, strength: float = 1.0) -> None:
        """Ask for an explicit kick action this tick (direction in the robot frame)."""
        self.command.kick = KickRequest(float(direction_rad), min(1.0, max(0.0, float(strength))))

    def request_stand_up(self) -> None:
        """Ask the robot to stand up this tick (after a fall)."""
        self.command.stand_up = True

    # --- blackboard -------------------------------------------------------------------------

    def bb_get(self, key: str, default: object = None) -> object:
        """A root blackboard entry, or ``default`` when absent or no blackboard is attached."""
        bb = self.blackboard
        if bb is None:
            return default
        try:
            return bb[key]
        except KeyError:
            return default

    def bb_set(self, key: str, value: object) -> None:
        """Write a root blackboard entry (ignored when no blackboard is attached)."""
        if self.blackboard is not None:
            self.blackboard[key] = value
