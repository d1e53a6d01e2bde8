"""Booster's localization nodes: the SelfLocate family (rate-limited relocalization from a
hypothesis), odometry calibration and RobocupWalk.

Part of Booster's node library (soccerbt.nodes.soccer.booster has the registry and the shared
conventions).
"""
from __future__ import annotations

from soccerbt.nodes.soccer._base import SUCCESS, SoccerSyncNode
from soccerbt.nodes.soccer._base import booster_input as _in
from soccerbt.world.types import Pose2D

_DOUBLE, _BOOL, _STRING = float, bool, str  # the C++ port types of nodes.json


# --- localization ----------------------------------------------------------------------------


def _calibrated_if_confident(ctx) -> None:
    loc = ctx.localizer
    if loc is None:
        return
    conf = loc.confidence() if callable(getattr(loc, "confidence", None)) else 0.0
    wm_threshold = getattr(ctx.world_model, "calibrated_confidence", 0.6)
    if conf >= wm_threshold:
        ctx.bb_set("odom_calibrated", True)


class _RateLimited(SoccerSyncNode):
    """A localization node that acts at most every ``msecs_interval``."""

    def setup_state(self) -> None:
        self._last_s = -1e9

    def due(self) -> bool:
        now = self.context.now_s()
        if (now - self._last_s) * 1000.0 < self.port_float("msecs_interval"):
            return False
        self._last_s = now
        return True


class SelfLocate(_RateLimited):
    """Localization hints: ``trust_direction`` (keep the believed heading's side),
    ``enter_field`` (own-half prior), ``face_forward`` (facing the opponent goal)."""

    @classmethod
    def provided_ports(cls):
        return [_in("mode", _STRING, "enter_field"), _in("msecs_interval", _DOUBLE, "10000")]

    def update(self):
        ctx = self.context
        loc = ctx.localizer
        if loc is None or not self.due():
            return SUCCESS
        mode = str(self.get_input("mode"))
        if mode == "trust_direction" and hasattr(loc, "trust_direction"):
            loc.trust_direction()
        elif mode == "enter_field" and hasattr(loc, "resolve_mirror"):
            loc.resolve_mirror(own_half=True)
        elif mode == "face_forward" and hasattr(loc, "resolve_mirror"):
            loc.resolve_mirror(heading_rad=0.0)
        _calibrated_if_confident(ctx)
        return SUCCESS


class SelfLocateEnterField(_RateLimited):
    """Robots entering from the touch line: own-half prior; set odom_calibrated when confident."""

    @classmethod
    def provided_ports(cls):
        return [_in("msecs_interval", _DOUBLE, "1000")]

    def update(self):
        ctx = self.context
        loc = ctx.localizer
        if loc is None or not self.due():
            return SUCCESS
        if not bool(ctx.bb_get("odom_calibrated", False)) and hasattr(loc, "resolve_mirror"):
            loc.resolve_mirror(own_half=True)
        _calibrated_if_confident(ctx)
        return SUCCESS


class _SelfLocateFrom(_RateLimited):
    """Reset the localization from one feature combination of the current camera frame."""

    MODE = ""

    @classmethod
    def provided_ports(cls):
        return [_in("msecs_interval", _DOUBLE, "1000"), _in("max_dist", _DOUBLE, "2.0"),
                _in("max_drift", _DOUBLE, "1.0"), _in("validate", _BOOL, "true")]

    def update(self):
        ctx = self.context
        loc = ctx.localizer
        wm = ctx.world_model
        if loc is None or not hasattr(loc, "relocalize_from") or not wm.landmarks:
            return SUCCESS
        if ctx.now_s() - wm.last_frame_s > 0.05 or not self.due():
            return SUCCESS
        pose = loc.relocalize_from(self.MODE, wm.landmarks, max_dist_m=self.port_float("max_dist"),
                                   max_drift_m=self.port_float("max_drift"),
                                   validate=bool(self.get_input("validate")))
        if pose is not None:
            ctx.bb_set("odom_calibrated", True)
        return SUCCESS


class SelfLocate1M(_SelfLocateFrom):
    """From the centre mark (with an X crossing when seen)."""

    MODE = "1M"


class SelfLocate2X(_SelfLocateFrom):
    """From the two X crossings of the halfway line and the centre circle."""

    MODE = "2X"


class SelfLocate2T(_SelfLocateFrom):
    """From two T crossings."""

    MODE = "2T"


class SelfLocateLT(_SelfLocateFrom):
    """From an L and a T crossing."""

    MODE = "LT"


class SelfLocatePT(_SelfLocateFrom):
    """From a penalty mark and a T crossing."""

    MODE = "PT"


class SelfLocateBorder(_SelfLocateFrom):
    """From features on the outer lines (corners, T crossings, goal posts)."""

    MODE = "border"


class CalibrateOdom(SoccerSyncNode):
    """Believe the pose (x, y, theta) and mark the odometry calibrated."""

    @classmethod
    def provided_ports(cls):
        return [_in("x", _DOUBLE, "0"), _in("y", _DOUBLE, "0"), _in("theta", _DOUBLE, "0")]

    def update(self):
        ctx = self.context
        if ctx.localizer is not None and hasattr(ctx.localizer, "reset_to"):
            ctx.localizer.reset_to(Pose2D(self.port_float("x"), self.port_float("y"), self.port_float("theta")))
        ctx.bb_set("odom_calibrated", True)
        return SUCCESS


class RobocupWalk(SoccerSyncNode):
    """Booster 2026: switch the locomotion to the soccer walking mode and leave the learned
    kick. The simulated robot has one gait: it only ends a visual kick in progress; SUCCESS."""

    @classmethod
    def provided_ports(cls):
        return []

    def update(self):
        ctx = self.context
        ctx.state.in_visual_kick = False
        ctx.logger.debug("RobocupWalk: soccer walking mode")
        return SUCCESS
