"""The local free-kick phase of Booster's 2026 brain (``local_freekick_*``), computed by us.

Booster's 2026 brain follows a set play taken inside PLAYING (HSL GameController: direct and
indirect free kick, penalty kick, throw-in, goal kick, corner kick with ``stopped`` while the
referee prepares it) through a per-robot phase that its trees read
(``../shared/reference/hsl-gamecontroller.md``, last table). ``LocalFreekickPhase`` computes it
from the gc_* entries the GameController adapter wrote and the robot's own state; the world
model runs it before every tick (``WorldModel.write_blackboard``), never the trees.

Rules:

- ``use_custom``: gc_game_state PLAY, gc_game_sub_state_type FREE_KICK and a set play
  (gc_real_game_sub_state not NONE). Otherwise the phase is NONE.
- Entering a set play (or a different one: another kind or kicking team) gives WAIT_RESUME;
  WAIT_RESUME also while ``gc_stopped``; once play resumed (not stopped), PLACEMENT.
- PLACEMENT -> UNPLACEMENT, kicking side only: the last tick's free-kick positioning node
  reported a valid target (``local_freekick_target_valid``) within ``reach_m`` (0.35 m,
  ``local_freekick_target_error``) and the robot stood still for ``still_s`` (0.8 s,
  ``local_freekick_move_stable``).
- UNPLACEMENT -> EXECUTE ``execute_delay_s`` (1 s) later: the trees then play the ball.
- HL v12 packets (our simulated referee, ``gc_packet_version`` 12) mapped to the same keys: the
  v12 SET sub-state is a freeze (UNPLACEMENT for everybody), and EXECUTE is never reached: in
  HL the GameController itself ends the set play after SET, and the trees play on from there.

The positioning nodes' report is per tick: after reading it the world model clears
``local_freekick_target_valid``, so a node that stopped running leaves no stale target.
Knows nothing of trees.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["LocalFreekickPhase", "PHASES"]

PHASES = ("NONE", "WAIT_RESUME", "PLACEMENT", "UNPLACEMENT", "EXECUTE")


class LocalFreekickPhase:
    """One robot's local free-kick phase (see the module docstring)."""

    def __init__(self, *, reach_m: float = 0.35, still_s: float = 0.8, execute_delay_s: float = 1.0,
                 still_pos_m: float = 0.02, still_theta_rad: float = 0.05) -> None:
        self.reach_m = reach_m
        self.still_s = still_s
        self.execute_delay_s = execute_delay_s
        self.still_pos_m = still_pos_m
        self.still_theta_rad = still_theta_rad
        self.reset()

    def reset(self) -> None:
        self.phase = "NONE"
        self.use_custom = False
        self._set_play: tuple | None = None  # (kind, ours) of the set play being followed
        self._unplaced_s: float | None = None
        self._anchor: tuple[float, float, float] | None = None
        self._still_since_s = 0.0
        self.now_s = 0.0

    # --- the robot's motion ---------------------------------------------------------------

    def update_motion(self, x_m: float, y_m: float, theta_rad: float, now_s: float, fallen: bool = False) -> None:
        """Feed the odometry: the robot is still while it stays within 2 cm and 0.05 rad."""
        self.now_s = now_s
        a = self._anchor
        if (fallen or a is None or math.hypot(x_m - a[0], y_m - a[1]) > self.still_pos_m
                or abs(math.remainder(theta_rad - a[2], math.tau)) > self.still_theta_rad):
            self._anchor = (x_m, y_m, theta_rad)
            self._still_since_s = now_s
            if fallen:
                self._anchor = None

    @property
    def move_stable(self) -> bool:
        """Still for ``still_s``."""
        return self._anchor is not None and self.now_s - self._still_since_s >= self.still_s - 1e-9

    # --- the phase ----------------------------------------------------------------------------

    def update(self, gc: Mapping[str, object], now_s: float, target_valid: bool = False,
               target_error_m: float = math.inf) -> str:
        """Advance the phase from the gc_* entries and the positioning nodes' last report."""
        self.now_s = now_s
        kind = str(gc.get("gc_real_game_sub_state", "NONE") or "NONE")
        self.use_custom = (gc.get("gc_game_state") == "PLAY" and gc.get("gc_game_sub_state_type") == "FREE_KICK"
                           and kind != "NONE")
        if not self.use_custom:
            self.phase = "NONE"
            self._set_play = None
            self._unplaced_s = None
            return self.phase
        ours = bool(gc.get("gc_is_sub_state_kickoff_side", False))
        hl_v12 = gc.get("gc_packet_version") == 12
        if self._set_play != (kind, ours):  # entering a set play
            self._set_play = (kind, ours)
            self.phase = "WAIT_RESUME"
            self._unplaced_s = None
            return self.phase
        stopped = bool(gc.get("gc_stopped", False))
        if stopped:
            self.phase = "WAIT_RESUME"
            self._unplaced_s = None
        elif gc.get("gc_game_sub_state") == "SET":  # HL v12: the freeze before the kick
            if self.phase != "UNPLACEMENT":
                self._unplaced_s = now_s
            self.phase = "UNPLACEMENT"
        elif self.phase == "WAIT_RESUME":
            self.phase = "PLACEMENT"
        elif self.phase == "PLACEMENT":
            if (ours and target_valid and target_error_m <= self.reach_m and self.move_stable):
                self.phase = "UNPLACEMENT"
                self._unplaced_s = now_s
        elif self.phase == "UNPLACEMENT":
            if (ours and not hl_v12 and self._unplaced_s is not None
                    and now_s - self._unplaced_s >= self.execute_delay_s - 1e-9):
                self.phase = "EXECUTE"
        return self.phase
