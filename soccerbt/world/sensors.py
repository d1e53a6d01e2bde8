"""The head camera model: what each robot sees at one camera frame, for all robots at once.

One frame is computed for every standing robot together, vectorised with numpy over
(observer, target) pairs: field features, the ball and the other robots. A target is seen
when it lies in front of the camera within the horizontal field of view, inside the ground
band the head tilt leaves in the vertical field of view (tall things, robots and posts, need
only their base not to be beyond the far edge), within the kind's range, and not hidden
behind another robot. Noise then grows with distance: range and bearing errors, misses, the
confidence, the team colour recognised or not, and now and then a false detection.

Detections come out in the robot frame, listed per robot; the World hands them over in
``Observations``.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from soccerbt.world.config import CameraConfig, NoiseConfig
from soccerbt.world.field import FeatureKind, Field
from soccerbt.world.types import BALL, ROBOT, Detection, Team

if TYPE_CHECKING:  # the simulator imports this module; avoid the cycle at run time
    from soccerbt.world.sim import BallState, RobotState

_DRAW_BLOCK = 2048  # candidates' random numbers drawn per generator call
_OCCLUSION_MARGIN = 1e-9  # an occluder must be strictly nearer than the target (fraction of d)


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
    """Computes the detections of one camera frame for every robot of a world.

    Positions are complex numbers (x + iy): one numpy call then moves or rotates both
    coordinates, which halves the number of calls (their overhead, not arithmetic, is the cost
    on arrays this small).
    """

    def __init__(self, field: Field, camera: CameraConfig, noise: NoiseConfig) -> None:
        self.field = field
        self.camera = camera
        self.noise = noise
        self.perfect = noise.is_perfect
        feats = field.features
        self._feature_kinds = sorted({f.kind.value for f in feats})
        self._static_pos = np.array([complex(f.x_m, f.y_m) for f in feats] + [0j])  # the ball last
        self._static_kinds: list[str] = [f.kind.value for f in feats] + [BALL]
        max_r = [camera.goal_post_max_range_m if f.kind is FeatureKind.GOAL_POST else camera.feature_max_range_m
                 for f in feats] + [camera.ball_max_range_m]
        miss = [noise.feature_miss_base] * len(feats) + [noise.ball_miss_base]
        tall = [f.kind is FeatureKind.GOAL_POST for f in feats] + [False]
        self._static_max_r = np.array(max_r)
        self._static_miss = np.array(miss)
        self._static_tall = np.array(tall)
        self._n_static = len(self._static_kinds)  # features and the ball; robots follow
        self._per_m: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str], np.ndarray]] = {}
        self._tan_half_h = math.tan(camera.horizontal_fov_rad / 2.0)
        self._min_range_m = max(camera.min_range_m, 1e-6)
        self._bands: dict[float, tuple[float, float]] = {}  # head tilt -> (lowest ground fwd, far fwd)
        self._uniforms: list[float] = []
        self._normals: list[float] = []
        self._draw_size = 0
        self._draw_next = 0
        self._lists_per_m: dict[int, tuple[list[float], list[float], list[float]]] = {}

    def _target_tables(self, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str], np.ndarray]:
        """Per target (features, ball, m robots): max range, miss base, miss per metre, tall flag,
        kind, and a position buffer whose static part is filled in."""
        tables = self._per_m.get(m)
        if tables is None:
            max_r = np.concatenate((self._static_max_r, np.full(m, self.camera.robot_max_range_m)))
            miss = np.concatenate((self._static_miss, np.full(m, self.noise.robot_miss_base)))
            tall = np.concatenate((self._static_tall, np.ones(m, dtype=bool)))
            kinds = self._static_kinds + [ROBOT] * m
            buffer = np.concatenate((self._static_pos, np.zeros(m, dtype=complex)))
            tables = (max_r, miss, self.noise.miss_at_max_range / max_r, tall, kinds, buffer)
            self._per_m[m] = tables
        return tables

    def _draws(self, rng: np.random.Generator, k: int) -> tuple[list[float], list[float], int]:
        """Room for k candidates: the uniform list (2 per candidate), the normal list (3 per
        candidate) and the first candidate's index. The lists are cut from blocks drawn in
        advance (one generator call per many frames; used in a fixed order: reproducible)."""
        start = self._draw_next
        if start + k > self._draw_size:  # a new block (the rest of the old one is not used)
            size = max(_DRAW_BLOCK, k)
            self._uniforms = rng.random(2 * size).tolist()
            self._normals = rng.standard_normal(3 * size).tolist()
            self._draw_size = size
            start = 0
        self._draw_next = start + k
        return self._uniforms, self._normals, start

    def _target_lists(self, m: int) -> tuple[list[float], list[float], list[float]]:
        lists = self._lists_per_m.get(m)
        if lists is None:
            _, miss, miss_per_m, _, _, _ = self._target_tables(m)
            max_r = self._target_tables(m)[0]
            lists = (miss.tolist(), miss_per_m.tolist(), max_r.tolist())
            self._lists_per_m[m] = lists
        return lists

    def _band(self, tilt_rad: float) -> tuple[float, float]:
        band = self._bands.get(tilt_rad)
        if band is None:
            near, far = ground_band_m(self.camera, tilt_rad)
            band = (max(near, self._min_range_m), far)
            if len(self._bands) > 4096:  # a sweeping head makes many tilts: keep the cache small
                self._bands.clear()
            self._bands[tilt_rad] = band
        return band

    def frame(self, rng: np.random.Generator, robots: list[RobotState],
              ball: BallState) -> dict[int, list[Detection]]:
        """The detections of every standing robot on the field, keyed by robot index."""
        active = [r for r in robots if not r.removed]
        observers = [(k, r) for k, r in enumerate(active) if not r.fallen]
        if not observers:
            return {}
        cam = self.camera
        m = len(active)
        n_static = self._n_static
        max_r, miss_base, miss_per_m, tall, kinds, targets = self._target_tables(m)
        pos = np.array([complex(r.x_m, r.y_m) for r in active])
        targets[n_static - 1] = complex(ball.x_m, ball.y_m)
        targets[n_static:] = pos
        cos, sin = math.cos, math.sin
        per_obs = []
        for _, r in observers:
            low, far = self._band(r.head_tilt_rad)
            head = r.theta_rad + r.head_pan_rad
            per_obs.append((complex(cos(head), -sin(head)), complex(cos(r.theta_rad), -sin(r.theta_rad)),
                            complex(r.x_m, r.y_m), complex(low, far)))
        geo = np.array(per_obs)  # (observers, 4) complex: head and body rotations, position, band
        opos = geo[:, 2:3]
        band = geo[:, 3:4]
        rel = targets - opos  # (observers, targets)
        relh = rel * geo[:, 0:1]  # in the head frame: real forward, imaginary left
        fwd = relh.real
        dist = np.abs(rel)
        if self._tan_half_h == 1.0:
            mask = np.abs(relh.imag) <= fwd
        else:
            mask = np.abs(relh.imag) <= fwd * self._tan_half_h
        mask &= dist <= max_r
        mask &= fwd <= band.imag
        # the minimum range (positive) also keeps every robot from seeing itself
        mask &= fwd >= np.where(tall, self._min_range_m, band.real)
        oi, ti = np.nonzero(mask)
        if oi.size == 0:
            return self._false_detections(rng, observers, {})
        crel = rel[oi, ti]
        cd = dist[oi, ti]
        if m > 1:
            # occlusion: every robot in the frame of the ray to the target, divided by the ray,
            # so that the target sits at 1: real part = fraction along the ray, imaginary part
            # = distance off the ray / d. Hidden behind a robot strictly between 0 and 1.
            q = (pos - opos[oi]) / crel[:, None]
            hidden = np.abs(q.real - 0.5) < 0.5 - _OCCLUSION_MARGIN
            hidden &= np.abs(q.imag) < (cam.occluder_radius_m / cd)[:, None]
            keep = ~hidden.any(axis=1)
        else:
            keep = np.ones(oi.size, dtype=bool)
        z = crel * geo[oi, 1]  # robot frame
        noise = self.noise
        obs_index = [r._index for _, r in observers]
        teams: list[Team | None] = [None] * n_static + [r.team for r in active]
        out: dict[int, list[Detection]] = {}
        if self.perfect:
            sel = np.flatnonzero(keep)
            zs = z[sel]
            for o, t, x, y in zip(oi[sel].tolist(), ti[sel].tolist(), zs.real.tolist(), zs.imag.tolist()):
                rows = out.get(obs_index[o])
                if rows is None:
                    rows = out[obs_index[o]] = []
                rows.append(Detection(kinds[t], x, y, 1.0, teams[t]))
            return out
        # Noise per candidate in plain Python: there are only a few dozen, and numpy calls on
        # arrays that small cost more than the arithmetic. Every candidate uses five numbers
        # (miss, team, range, bearing, confidence) whether seen or not: a fixed order of use.
        sel = np.flatnonzero(keep)
        zs = z[sel]
        k_count = sel.size
        uni, nor, j = self._draws(rng, k_count)
        miss_base_l, miss_per_m_l, max_r_l = self._target_lists(m)
        sb, sr, sbear, sc = (noise.range_sigma_base_m, noise.range_sigma_rel, noise.bearing_sigma_rad,
                             noise.confidence_sigma)
        p_team = noise.team_recognition_probability
        for o, t, x, y, d in zip(oi[sel].tolist(), ti[sel].tolist(), zs.real.tolist(), zs.imag.tolist(),
                                 cd[sel].tolist()):
            j2 = j + j
            if uni[j2] < miss_base_l[t] + miss_per_m_l[t] * d:
                j += 1
                continue
            j3 = j2 + j
            a = (sb / d + sr) * nor[j3]  # relative range error
            bb = sbear * nor[j3 + 1]  # bearing error
            x, y = x + x * a - y * bb, y + y * a + x * bb
            closeness = 1.0 - 0.5 * d / max_r_l[t]
            c = closeness + sc * nor[j3 + 2]
            c = 1.0 if c > 1.0 else (0.05 if c < 0.05 else c)
            rows = out.get(obs_index[o])
            if rows is None:
                rows = out[obs_index[o]] = []
            rows.append(Detection(kinds[t], x, y, c, teams[t] if uni[j2 + 1] < p_team * closeness else None))
            j += 1
        return self._false_detections(rng, observers, out)

    def _false_detections(self, rng: np.random.Generator, observers: list[tuple[int, Any]],
                          out: dict[int, list[Detection]]) -> dict[int, list[Detection]]:
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
                lo, far = self._band(r.head_tilt_rad)
                hi = min(far, max_range)
                if not lo < hi:
                    continue
                if kind is None:
                    kind = self._feature_kinds[min(len(self._feature_kinds) - 1, int(u_kind * len(self._feature_kinds)))]
                dist = lo + (hi - lo) * u_dist
                bearing = r.head_pan_rad + (u_bearing - 0.5) * cam.horizontal_fov_rad * 0.9
                out.setdefault(r._index, []).append(
                    Detection(kind, dist * math.cos(bearing), dist * math.sin(bearing), 0.2 + 0.3 * u_kind, None))
        return out
