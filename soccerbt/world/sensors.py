"""The head camera model: what each robot sees at one camera frame, for all robots at once.

One frame is computed for every standing robot together, vectorised with numpy over
(observer, target) pairs: field features, the ball and the other robots. A target is seen
when it lies in front of the camera within the horizontal field of view, inside the ground
band the head tilt leaves in the vertical field of view (tall things, robots and posts, need
only their base not to be beyond the far edge), within the kind's range, and not hidden
behind another robot. Noise then grows with distance: range and bearing errors, misses, the
confidence, the team colour recognised or not, and now and then a false detection.

Rows come out in the robot frame as ``(kind, x_m, y_m, confidence, team)``; the World turns
them into ``Detection`` objects only when a robot asks.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from soccerbt.world.config import CameraConfig, NoiseConfig
from soccerbt.world.field import FeatureKind, Field
from soccerbt.world.types import BALL, ROBOT, Team

if TYPE_CHECKING:  # the simulator imports this module; avoid the cycle at run time
    from soccerbt.world.sim import BallState, RobotState

Row = tuple[str, float, float, float, "Team | None"]

_OCCLUSION_MARGIN_M = 1e-6  # an occluder must be strictly nearer than the target


def ground_band_m(camera: CameraConfig, tilt_rad: float) -> tuple[float, float]:
    """Near and far forward distance of the ground the camera sees at this head tilt.

    Far is infinite when the upper image edge is at or above the horizon; near is infinite
    when even the lower edge looks above it (the camera sees no ground at all).
    """
    half_v = camera.vertical_fov_rad / 2.0
    h = camera.height_m
    low_edge = tilt_rad + half_v  # depression of the lower image edge
    high_edge = tilt_rad - half_v
    if low_edge <= 0.0:
        near = math.inf
    elif low_edge >= math.pi / 2.0:
        near = 0.0
    else:
        near = h / math.tan(low_edge)
    far = math.inf if high_edge <= 0.0 else (0.0 if high_edge >= math.pi / 2.0 else h / math.tan(high_edge))
    return near, far


class CameraModel:
    """Computes the detections of one camera frame for every robot of a world."""

    def __init__(self, field: Field, camera: CameraConfig, noise: NoiseConfig) -> None:
        self.field = field
        self.camera = camera
        self.noise = noise
        self.perfect = noise.is_perfect
        feats = field.features
        self._feature_kinds = sorted({f.kind.value for f in feats})
        self._static_x = np.array([f.x_m for f in feats])
        self._static_y = np.array([f.y_m for f in feats])
        self._static_kinds: list[str] = [f.kind.value for f in feats] + [BALL]
        max_r = [camera.goal_post_max_range_m if f.kind is FeatureKind.GOAL_POST else camera.feature_max_range_m
                 for f in feats] + [camera.ball_max_range_m]
        miss = [noise.feature_miss_base] * len(feats) + [noise.ball_miss_base]
        tall = [f.kind is FeatureKind.GOAL_POST for f in feats] + [False]
        self._static_max_r = np.array(max_r)
        self._static_miss = np.array(miss)
        self._static_tall = np.array(tall)
        self._n_static = len(self._static_kinds)  # features and the ball; robots follow
        self._per_m: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]] = {}
        self._tan_half_h = math.tan(camera.horizontal_fov_rad / 2.0)

    def _target_tables(self, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]:
        """Per-target max range squared, miss base, max range, tall flag and kind for m robots."""
        tables = self._per_m.get(m)
        if tables is None:
            max_r = np.concatenate((self._static_max_r, np.full(m, self.camera.robot_max_range_m)))
            miss = np.concatenate((self._static_miss, np.full(m, self.noise.robot_miss_base)))
            tall = np.concatenate((self._static_tall, np.ones(m, dtype=bool)))
            kinds = self._static_kinds + [ROBOT] * m
            tables = (max_r * max_r, miss, max_r, tall, kinds)
            self._per_m[m] = tables
        return tables

    def frame(self, rng: np.random.Generator, robots: list[RobotState], ball: BallState) -> dict[int, list[Row]]:
        """The detections of every standing robot on the field, keyed by robot index."""
        active = [r for r in robots if not r.removed]
        observers = [(k, r) for k, r in enumerate(active) if not r.fallen]
        if not observers:
            return {}
        cam = self.camera
        n_obs, m = len(observers), len(active)
        n_static = self._n_static
        max_r2, miss_base, max_r, tall, kinds = self._target_tables(m)
        rx = np.array([r.x_m for r in active])
        ry = np.array([r.y_m for r in active])
        tx = np.concatenate((self._static_x, (ball.x_m,), rx))
        ty = np.concatenate((self._static_y, (ball.y_m,), ry))
        ox = np.array([r.x_m for _, r in observers])
        oy = np.array([r.y_m for _, r in observers])
        oth = np.array([r.theta_rad for _, r in observers])
        head = oth + np.array([r.head_pan_rad for _, r in observers])
        bands = [ground_band_m(cam, r.head_tilt_rad) for _, r in observers]
        near = np.array([b[0] for b in bands])[:, None]
        far = np.array([b[1] for b in bands])[:, None]
        ch, sh = np.cos(head)[:, None], np.sin(head)[:, None]
        rel_x = tx[None, :] - ox[:, None]
        rel_y = ty[None, :] - oy[:, None]
        fwd = ch * rel_x + sh * rel_y
        lat = sh * rel_x - ch * rel_y  # right of the optical axis; the sign does not matter here
        d2 = rel_x * rel_x + rel_y * rel_y
        mask = ((fwd > 0.0) & (np.abs(lat) <= self._tan_half_h * fwd) & (d2 <= max_r2) & (fwd <= far)
                & ((fwd >= near) | tall) & (d2 >= cam.min_range_m * cam.min_range_m))
        own = [n_static + k for k, _ in observers]
        mask[np.arange(n_obs), own] = False  # nobody sees itself
        oi, ti = np.nonzero(mask)
        if oi.size == 0:
            return self._false_detections(rng, observers, {})
        cx, cy = rel_x[oi, ti], rel_y[oi, ti]
        cd = np.sqrt(d2[oi, ti])
        # occlusion: an active robot strictly between the camera and the target, near the ray
        orx = rx[None, :] - ox[oi][:, None]
        ory = ry[None, :] - oy[oi][:, None]
        inv_d = (1.0 / cd)[:, None]
        proj = (orx * cx[:, None] + ory * cy[:, None]) * inv_d
        perp = (orx * cy[:, None] - ory * cx[:, None]) * inv_d
        hidden = ((proj > 0.0) & (proj < cd[:, None] - _OCCLUSION_MARGIN_M)
                  & (np.abs(perp) < cam.occluder_radius_m)).any(axis=1)
        keep = ~hidden
        c_th, s_th = np.cos(oth)[oi], np.sin(oth)[oi]
        x_r = c_th * cx + s_th * cy
        y_r = c_th * cy - s_th * cx
        noise = self.noise
        if self.perfect:
            conf = np.ones_like(cd)
            team_ok = np.ones(cd.shape, dtype=bool)
        else:
            k_count = cd.size
            u = rng.random((2, k_count))
            n = rng.standard_normal((3, k_count))
            frac = cd / max_r[ti]
            keep &= u[0] >= miss_base[ti] + noise.miss_at_max_range * frac
            k = 1.0 + (noise.range_sigma_base_m + noise.range_sigma_rel * cd) * n[0] / cd
            delta = noise.bearing_sigma_rad * n[1]
            x_r, y_r = k * (x_r - y_r * delta), k * (y_r + x_r * delta)
            conf = np.clip(1.0 - 0.5 * frac + noise.confidence_sigma * n[2], 0.05, 1.0)
            team_ok = u[1] < noise.team_recognition_probability * (1.0 - 0.5 * frac)
        sel = np.nonzero(keep)[0]
        out: dict[int, list[Row]] = {}
        obs_index = [r._index for _, r in observers]
        teams: list[Team | None] = [None] * n_static + [r.team for r in active]
        for o, t, x, y, c, tm in zip(oi[sel].tolist(), ti[sel].tolist(), x_r[sel].tolist(), y_r[sel].tolist(),
                                     conf[sel].tolist(), team_ok[sel].tolist()):
            rows = out.get(obs_index[o])
            if rows is None:
                rows = out[obs_index[o]] = []
            rows.append((kinds[t], x, y, c, teams[t] if tm else None))
        return self._false_detections(rng, observers, out)

    def _false_detections(self, rng: np.random.Generator, observers: list[tuple[int, Any]],
                          out: dict[int, list[Row]]) -> dict[int, list[Row]]:
        """Now and then a ball or a field feature where there is none, somewhere in view."""
        noise = self.noise
        if self.perfect or (noise.false_ball_per_frame <= 0.0 and noise.false_feature_per_frame <= 0.0):
            return out
        cam = self.camera
        u = rng.random((len(observers), 5)).tolist()
        for (_, r), (u_ball, u_feat, u_dist, u_bearing, u_kind) in zip(observers, u):
            for hit, kind, max_range in ((u_ball < noise.false_ball_per_frame, BALL, cam.ball_max_range_m),
                                         (u_feat < noise.false_feature_per_frame, None, cam.feature_max_range_m)):
                if not hit:
                    continue
                near, far = ground_band_m(cam, r.head_tilt_rad)
                lo, hi = max(near, cam.min_range_m), min(far, max_range)
                if not lo < hi:
                    continue
                if kind is None:
                    kind = self._feature_kinds[min(len(self._feature_kinds) - 1, int(u_kind * len(self._feature_kinds)))]
                dist = lo + (hi - lo) * u_dist
                bearing = r.head_pan_rad + (u_bearing - 0.5) * cam.horizontal_fov_rad * 0.9
                out.setdefault(r._index, []).append(
                    (kind, dist * math.cos(bearing), dist * math.sin(bearing), 0.2 + 0.3 * u_kind, None))
        return out
