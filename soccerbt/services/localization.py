"""Self-localization: a particle filter over field features, in the team frame.

``Localizer`` is the Protocol the rest of the brain talks to; ``ParticleFilter`` implements it
with numpy: an odometry motion model with noise, landmark likelihoods with data association by
kind and nearest distance, systematic resampling, sensor-based particle injection when the
observations stop fitting (kidnap recovery, augmented-MCL style), and the priors a real game
gives to break the field's point symmetry (own half at kick-off, entry from the touch lines,
trust in the believed heading; after an entry the own half, not the heading, decides until the
robot could have left its own half). ``relocalize_from`` serves the SelfLocate* node family: a reset
from a particular pair of features (centre mark, two X, two T, L+T, penalty mark+T, border).

Detections are in the robot frame (x forward, y left, metres). Landmark kinds are the
``FeatureKind`` values of ``soccerbt.world.field``; ``LINE_POINT`` ("line_point") is an extra
kind for a point seen on any painted line (straight lines and the centre circle). Everything is
deterministic given the ``numpy.random.Generator`` handed in; nothing reads the wall clock.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from soccerbt.services.field_distances import LINE_POINT, DistanceGrids, distance_grids
from soccerbt.world.field import FeatureKind, Field
from soccerbt.world.types import Detection, Pose2D, wrap_angle_rad

__all__ = [
    "LINE_POINT",
    "Localizer",
    "ParticleFilter",
    "ParticleFilterConfig",
    "RelocalizeMode",
    "mirror_pose",
]

_TWO_PI = 2.0 * math.pi


def mirror_pose(pose: Pose2D) -> Pose2D:
    """The pose that sees exactly the same field (point symmetry about the centre mark)."""
    return Pose2D(-pose.x_m, -pose.y_m, wrap_angle_rad(pose.theta_rad + math.pi))


def _wrap(a: np.ndarray) -> np.ndarray:
    """Angles into [-pi, pi): ``(a + pi) % 2pi - pi``, bit for bit. When every shifted angle
    already lies in [0, 2pi) the remainder returns it unchanged (fmod is exact there), so the
    slow floating-point remainder is skipped: the usual case for particle headings."""
    t = a + math.pi
    if t.size and t.min() >= 0.0 and t.max() < _TWO_PI:  # NaN fails both tests
        t -= math.pi
        return t
    t %= _TWO_PI
    t -= math.pi
    return t


@runtime_checkable
class Localizer(Protocol):
    """What the brain needs from a self-localization algorithm (team frame)."""

    def predict(self, odometry_delta: Pose2D) -> None:
        """Move the belief by the odometry step (robot frame) since the previous call."""

    def update(self, detections: Sequence[Detection]) -> None:
        """Weigh the belief by one camera frame of detections (robot frame)."""

    def estimate(self) -> Pose2D:
        """The most likely pose."""

    def covariance(self) -> np.ndarray:
        """3x3 covariance of (x_m, y_m, theta_rad) around the estimate."""

    def confidence(self) -> float:
        """0..1: how much the estimate can be trusted (drives odom_calibrated)."""

    def reset_to(self, pose: Pose2D, std: tuple[float, float, float] = (0.1, 0.1, 0.05)) -> None:
        """Forget everything and believe ``pose`` with Gaussian spread ``std``."""


class RelocalizeMode(enum.Enum):
    """Feature combinations the SelfLocate* nodes relocalize from (value = Booster suffix)."""

    CENTRE = "1M"  # centre mark / circle, with an X crossing when seen (else the heading is kept)
    TWO_X = "2X"
    TWO_T = "2T"
    L_T = "LT"
    PENALTY_T = "PT"  # penalty mark and a T crossing
    BORDER = "border"  # features on the outer lines: corners, T crossings, goal posts

    @classmethod
    def parse(cls, value: RelocalizeMode | FeatureKind | str) -> RelocalizeMode:
        """Accepts a mode, a FeatureKind (CENTRE_CIRCLE, X, T, L, PENALTY_MARK) or a name."""
        if isinstance(value, RelocalizeMode):
            return value
        if isinstance(value, FeatureKind):
            by_kind = {FeatureKind.CENTRE_CIRCLE: cls.CENTRE, FeatureKind.X_CROSS: cls.TWO_X,
                       FeatureKind.T_CROSS: cls.TWO_T, FeatureKind.L_CROSS: cls.L_T,
                       FeatureKind.PENALTY_MARK: cls.PENALTY_T, FeatureKind.GOAL_POST: cls.BORDER}
            return by_kind[value]
        key = str(value).strip().lower()
        for mode in cls:
            if key in (mode.value.lower(), mode.name.lower()):
                return mode
        aliases = {"1m": cls.CENTRE, "centre_circle": cls.CENTRE, "center": cls.CENTRE,
                   "centre_mark": cls.CENTRE}
        if key in aliases:
            return aliases[key]
        raise ValueError(f"unknown relocalization mode {value!r} "
                         f"(expected one of {[m.value for m in cls]})")


_MODE_KINDS: dict[RelocalizeMode, tuple[tuple[str, str], ...]] = {
    RelocalizeMode.CENTRE: (("centre_circle", "X"),),
    RelocalizeMode.TWO_X: (("X", "X"),),
    RelocalizeMode.TWO_T: (("T", "T"),),
    RelocalizeMode.L_T: (("L", "T"),),
    RelocalizeMode.PENALTY_T: (("penalty_mark", "T"),),
    RelocalizeMode.BORDER: (("L", "T"), ("T", "T"), ("L", "L"), ("goal_post", "goal_post"),
                            ("goal_post", "T"), ("goal_post", "L")),
}


@dataclass(frozen=True, slots=True)
class ParticleFilterConfig:
    """Tunable noise and recovery parameters (defaults suit the simulator's sensor model)."""

    # motion model: standard deviations of the odometry error
    trans_noise_per_m: float = 0.10  # metres of error per metre walked
    trans_noise_per_rad: float = 0.02  # metres of error per radian turned
    rot_noise_per_rad: float = 0.08  # radians of error per radian turned
    rot_noise_per_m: float = 0.05  # radians of error per metre walked
    trans_noise_per_step_m: float = 0.003  # keeps the cloud alive when standing still
    rot_noise_per_step_rad: float = 0.003
    # observation model: isotropic position error of a detection on the ground
    obs_sigma_m: float = 0.08  # at zero range
    obs_sigma_per_m: float = 0.06  # growth with range (distance and bearing errors)
    obs_gate_sigmas: float = 3.0  # an association worse than this counts as an outlier
    max_detection_range_m: float = 8.0
    # resampling and recovery
    resample_ess_ratio: float = 0.5
    alpha_slow: float = 0.05
    alpha_fast: float = 0.5
    fit_floor: float = 0.25  # mean per-detection fit below this injects particles
    inject_ratio: float = 0.7  # short-term fit below this fraction of the long-term injects
    max_inject_fraction: float = 0.25
    inject_min_detections: int = 2
    inject_keep_heading_side: bool = True  # injected mirror twins follow the believed heading
    # after an entry prior (touch line, own half) the own half, not the believed heading, picks
    # the mirror twin of injected particles and of trust_direction for as long as the own half
    # is known: until the robot has walked (odometry path) as far as its estimate is from the
    # halfway line, i.e. could have left its own half. Right after such a reset the "believed
    # heading" is that of an arbitrary mode of the prior (either touch line faces the other
    # way), and a few frames later that of an estimate fed by one or two ambiguous features;
    # trusting it turned the true pose into its mirror (issue 26.6).
    # False: the heading side from the first camera frame on (the behaviour before)
    entry_own_half_until_settled: bool = True
    # while the long-term fit stays above this the robot is taken as not kidnapped: a poor
    # frame is a misread or an ambiguous view (a symmetric set of corners looks the same from
    # the other half), so only candidates near the estimate are injected
    global_inject_below_slow_fit: float = 0.4
    local_inject_m: float = 1.0
    local_inject_rad: float = 0.5
    # confidence: spread at which confidence halves
    confidence_xy_std_m: float = 0.35
    confidence_theta_std_rad: float = 0.25
    # the field area particles may occupy (border strip included)
    border_m: float = 1.0


class ParticleFilter:
    """Monte Carlo localization over field features; implements ``Localizer``."""

    def __init__(self, field: Field, n_particles: int = 500,
                 rng: np.random.Generator | None = None,
                 config: ParticleFilterConfig | None = None) -> None:
        if n_particles < 10:
            raise ValueError(f"n_particles must be at least 10, got {n_particles}")
        self.field = field
        self.n = int(n_particles)
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.config = config or ParticleFilterConfig()
        self._landmarks: dict[str, np.ndarray] = {}
        for kind in FeatureKind:
            pts = [(f.x_m, f.y_m) for f in field.features_of(kind)]
            self._landmarks[kind.value] = np.array(pts, dtype=float).reshape(-1, 2)
        segs = np.array([(s.x0_m, s.y0_m, s.x1_m, s.y1_m) for s in field.lines], dtype=float)
        self._seg_p0 = segs[:, 0:2]
        self._seg_d = segs[:, 2:4] - segs[:, 0:2]
        self._seg_len_sq = np.maximum((self._seg_d ** 2).sum(axis=1), 1e-12)
        self._border_kinds = {"L", "T", "goal_post"}
        hx, hy = field.half_length_m, field.half_width_m
        self._border_landmarks: dict[str, np.ndarray] = {
            "L": np.array([(sx * hx, sy * hy) for sx in (-1, 1) for sy in (-1, 1)], dtype=float),
            "T": self._landmarks["T"],
            "goal_post": self._landmarks["goal_post"],
        }
        self.particles_xyt = np.zeros((self.n, 3))
        self.log_weights = np.zeros(self.n)
        self._w_slow: float | None = None
        self._w_fast: float | None = None
        self._fit = 0.0  # smoothed per-detection fit 0..1 of the latest frames
        self._cache: tuple[Pose2D, np.ndarray, float] | None = None
        self._seed: Pose2D | None = None  # the previous estimate, moved by odometry
        # the cached summary's estimate has not become the seed yet: only the robot's own
        # reads (estimate, confidence) advance the seed, so that an observer's read
        # (covariance, particles: the viewer) leaves the filter's future unchanged
        self._seed_pending = False
        self._grids: DistanceGrids | None = None  # the likelihood field, built on first use
        # (particles, (cos, sin, x, y)) of _particle_terms; None whenever the particles moved
        self._terms: tuple[np.ndarray, tuple[np.ndarray, ...]] | None = None
        self.updates = 0
        self.injected_total = 0
        # the belief comes from an entry prior (own half) and has not settled yet: the own half
        # resolves mirror twins (see ParticleFilterConfig.entry_own_half_until_settled)
        self._entry_unsettled = False
        self._entry_walked_m = 0.0  # odometry path since the entry reset
        self.reset_uniform()

    # --- priors and resets ------------------------------------------------------------

    def _set(self, xyt: np.ndarray) -> None:
        xyt[:, 2] = _wrap(xyt[:, 2])
        self.particles_xyt = xyt
        self.log_weights = np.zeros(self.n)
        self._cache = None
        self._terms = None
        self._seed = None
        self._w_slow = self._w_fast = None
        self._fit = 0.0
        self._entry_unsettled = False  # the entry resets set it again after this
        self._entry_walked_m = 0.0

    def _uniform(self, n: int, x_lo: float, x_hi: float) -> np.ndarray:
        hy = self.field.half_width_m + self.config.border_m
        out = np.empty((n, 3))
        out[:, 0] = self.rng.uniform(x_lo, x_hi, n)
        out[:, 1] = self.rng.uniform(-hy, hy, n)
        out[:, 2] = self.rng.uniform(-math.pi, math.pi, n)
        return out

    def reset_uniform(self) -> None:
        """No idea at all: particles anywhere on the field and border, any heading."""
        hx = self.field.half_length_m + self.config.border_m
        self._set(self._uniform(self.n, -hx, hx))

    def reset_own_half(self) -> None:
        """Somewhere in the own half (x <= 0), any heading: the kick-off prior."""
        hx = self.field.half_length_m
        self._set(self._uniform(self.n, -hx, 0.0))
        self._entry_unsettled = self.config.entry_own_half_until_settled

    def prepare(self) -> None:
        """Compute the likelihood grids now rather than at the first camera frame (about 80 ms
        once per field and process: a brain on a robot must not miss its first deadlines)."""
        if self._grids is None:
            self._grids = distance_grids(self.field, self.config.border_m)

    def reset_touch_line_entry(self, position_std_m: float = 0.25,
                               heading_std_rad: float = 0.2, side: float | None = None) -> None:
        """On either touch line of the own half, facing into the field (entering robots); on
        one (``side`` +1: y > 0, -1: y < 0) when the robot knows where it was put down, as at
        the start of a game, where the team places its robots."""
        hx, hy = self.field.half_length_m, self.field.half_width_m
        either = np.where(self.rng.random(self.n) < 0.5, 1.0, -1.0)
        side = either if side is None else np.full(self.n, 1.0 if side > 0 else -1.0)
        xyt = np.empty((self.n, 3))
        xyt[:, 0] = self.rng.uniform(-hx, 0.0, self.n)
        xyt[:, 1] = side * hy + self.rng.normal(0.0, position_std_m, self.n)
        xyt[:, 2] = -side * (math.pi / 2.0) + self.rng.normal(0.0, heading_std_rad, self.n)
        self._set(xyt)
        self._entry_unsettled = self.config.entry_own_half_until_settled

    @property
    def entry_unsettled(self) -> bool:
        """True from an entry reset (touch line, own half) until the robot could have left its
        own half: the own half, not the believed heading, then resolves mirror twins."""
        return self._entry_unsettled

    def _settle_entry(self) -> None:
        """End the entry phase once the robot has walked as far as its estimate is from the
        halfway line: from then on it may be in the opponent half, and the believed heading
        resolves mirror twins again."""
        if self._entry_unsettled and self._entry_walked_m >= -self.estimate().x_m:
            self._entry_unsettled = False

    def reset_to(self, pose: Pose2D, std: tuple[float, float, float] = (0.1, 0.1, 0.05)) -> None:
        """Believe ``pose`` with Gaussian spread ``std`` (x_m, y_m, theta_rad)."""
        xyt = np.empty((self.n, 3))
        xyt[:, 0] = pose.x_m + self.rng.normal(0.0, std[0], self.n)
        xyt[:, 1] = pose.y_m + self.rng.normal(0.0, std[1], self.n)
        xyt[:, 2] = pose.theta_rad + self.rng.normal(0.0, std[2], self.n)
        self._set(xyt)

    def resolve_mirror(self, heading_rad: float | None = None, own_half: bool = False) -> int:
        """Flip every particle to its mirror twin when the twin fits the prior better.

        The mirror twin sees exactly the same field, so this keeps every weight valid. With
        ``heading_rad`` a particle whose heading is more than 90 degrees off is flipped; with
        ``own_half`` (and no heading) particles in the opponent half are flipped. Returns how
        many flipped.
        """
        xyt = self.particles_xyt
        flip = np.zeros(self.n, dtype=bool)
        if heading_rad is not None:
            flip |= np.abs(_wrap(xyt[:, 2] - heading_rad)) > math.pi / 2.0
        elif own_half:
            flip |= xyt[:, 0] > 0.0
        if flip.any():
            xyt[flip, 0:2] *= -1.0
            xyt[flip, 2] = _wrap(xyt[flip, 2] + math.pi)
            self._cache = None
            self._terms = None
            self._seed = None
        return int(flip.sum())

    def trust_direction(self, heading_rad: float | None = None, std_rad: float = 0.35) -> None:
        """Keep the hypothesis consistent with the heading the robot believes.

        ``heading_rad`` defaults to the current estimate's heading (Booster's
        ``SelfLocate mode="trust_direction"``). Mirror twins are flipped onto the believed side
        and the particles are weighed by a Gaussian of width ``std_rad`` around the heading.
        Without ``heading_rad`` while an entry prior has not settled (``entry_unsettled``) there
        is no believed heading yet, only a mode of the prior (the two touch lines face opposite
        ways): mirror twins are flipped into the own half instead and nothing is weighed.
        """
        if heading_rad is None and self._entry_unsettled:
            self.resolve_mirror(own_half=True)
            return
        if heading_rad is None:
            heading_rad = self.estimate().theta_rad
        self.resolve_mirror(heading_rad=heading_rad)
        err = _wrap(self.particles_xyt[:, 2] - heading_rad)
        self.log_weights = self.log_weights - 0.5 * (err / std_rad) ** 2
        self._normalise()
        self._cache = None

    # --- motion and measurement -------------------------------------------------------

    def predict(self, odometry_delta: Pose2D) -> None:
        """Move every particle by the odometry step (robot frame) plus sampled noise."""
        c = self.config
        dx, dy, dth = odometry_delta.x_m, odometry_delta.y_m, odometry_delta.theta_rad
        dist = math.hypot(dx, dy)
        s_t = c.trans_noise_per_m * dist + c.trans_noise_per_rad * abs(dth) + c.trans_noise_per_step_m
        s_r = c.rot_noise_per_rad * abs(dth) + c.rot_noise_per_m * dist + c.rot_noise_per_step_rad
        noise = self.rng.standard_normal((self.n, 3))
        ndx = dx + noise[:, 0] * s_t
        ndy = dy + noise[:, 1] * s_t
        xyt = self.particles_xyt
        # half the rotation before the translation: the usual midpoint odometry model
        th_mid = xyt[:, 2] + 0.5 * dth
        cos, sin = np.cos(th_mid), np.sin(th_mid)
        xyt[:, 0] += cos * ndx - sin * ndy
        xyt[:, 1] += sin * ndx + cos * ndy
        xyt[:, 2] = _wrap(xyt[:, 2] + dth + noise[:, 2] * s_r)
        self._cache = None
        self._terms = None
        if self._seed is not None:
            self._seed = self._seed.compose(odometry_delta)
        if self._entry_unsettled:
            self._entry_walked_m += dist

    def _group(self, detections: Sequence[Detection]) -> dict[str, np.ndarray]:
        groups: dict[str, list[tuple[float, float]]] = {}
        max_r = self.config.max_detection_range_m
        for d in detections:
            kind = d.kind.value if isinstance(d.kind, FeatureKind) else d.kind
            if kind not in self._landmarks and kind != LINE_POINT:
                continue  # ball, robots and unknown kinds say nothing about the pose
            if not (math.isfinite(d.x_m) and math.isfinite(d.y_m)):
                continue
            if d.x_m * d.x_m + d.y_m * d.y_m > max_r * max_r:
                continue
            if kind != LINE_POINT and self._landmarks[kind].shape[0] == 0:
                continue
            groups.setdefault(kind, []).append((d.x_m, d.y_m))
        return {k: np.array(v, dtype=float) for k, v in groups.items()}

    def _squared_errors(self, xyt: np.ndarray, kind: str, det: np.ndarray,
                        cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
        """(N, M) squared distance of each detection (mapped by each particle) to its match."""
        px = xyt[:, 0:1] + cos[:, None] * det[None, :, 0] - sin[:, None] * det[None, :, 1]
        py = xyt[:, 1:2] + sin[:, None] * det[None, :, 0] + cos[:, None] * det[None, :, 1]
        if kind == LINE_POINT:
            # nearest painted line: straight segments and the centre circle
            rx = px[:, :, None] - self._seg_p0[None, None, :, 0]
            ry = py[:, :, None] - self._seg_p0[None, None, :, 1]
            t = (rx * self._seg_d[:, 0] + ry * self._seg_d[:, 1]) / self._seg_len_sq
            np.clip(t, 0.0, 1.0, out=t)
            ex = rx - t * self._seg_d[:, 0]
            ey = ry - t * self._seg_d[:, 1]
            best = (ex * ex + ey * ey).min(axis=2)
            circ = np.hypot(px, py) - self.field.centre_circle_radius_m
            return np.minimum(best, circ * circ)
        lm = self._landmarks[kind]
        ex = px[:, :, None] - lm[None, None, :, 0]
        ey = py[:, :, None] - lm[None, None, :, 1]
        return (ex * ex + ey * ey).min(axis=2)

    def _log_likelihood(self, xyt: np.ndarray, groups: dict[str, np.ndarray]) -> tuple[np.ndarray, int]:
        """Per-particle log-likelihood (sum over detections, each clipped at the gate).

        All detections are mapped into the field by every particle at once; the squared
        distance to the nearest landmark of the detection's kind is read from precomputed
        grids (a likelihood field), so the cost is O(particles x detections). At the sizes of
        a game (a few hundred particles, one to three detections) numpy's per-call overhead is
        the cost, so the work is laid out for few calls: one row per detection, the
        per-detection factors folded into scalars or columns.
        """
        c = self.config
        grids = self._grids
        if grids is None:
            grids = self._grids = distance_grids(self.field, c.border_m)
        if len(groups) == 1:
            (kind, det), = groups.items()
            offsets: np.ndarray | int = grids.offset[kind]
        else:
            kinds = list(groups)
            det = np.concatenate([groups[k] for k in kinds])
            offsets = np.repeat(np.array([grids.offset[k] for k in kinds], dtype=np.intp),
                                [groups[k].shape[0] for k in kinds])[:, None]
        m = det.shape[0]
        inv_cell = 1.0 / grids.cell_m
        gate = -0.5 * c.obs_gate_sigmas ** 2
        # cos and sin of the particles' headings and their grid coordinates (cos and sin are
        # the costliest numpy calls here); the detections scaled to grid cells
        cos, sin, px, py = self._particle_terms(xyt, grids)
        if m == 1:
            dx, dy = float(det[0, 0]), float(det[0, 1])
            scale = -0.5 / (c.obs_sigma_m ** 2 + c.obs_sigma_per_m ** 2 * (dx * dx + dy * dy))
            dx *= inv_cell
            dy *= inv_cell
        else:
            scale = -0.5 / (c.obs_sigma_m ** 2 + c.obs_sigma_per_m ** 2 * (det * det).sum(axis=1, keepdims=True))
            dx, dy = det[:, 0:1] * inv_cell, det[:, 1:2] * inv_cell
        gx = cos * dx
        gx -= sin * dy
        gx += px
        gy = sin * dx
        gy += cos * dy
        gy += py
        ix = gx.astype(np.intp)  # np.clip costs three times a maximum and a minimum here
        np.maximum(ix, 0, out=ix)
        np.minimum(ix, grids.nx - 1, out=ix)
        iy = gy.astype(np.intp)
        np.maximum(iy, 0, out=iy)
        np.minimum(iy, grids.ny - 1, out=iy)
        ix *= grids.ny
        ix += iy
        ix += offsets
        per = grids.flat.take(ix) * scale  # float32 squared distances, float64 terms
        np.maximum(per, gate, out=per)
        return (per if m == 1 else per.sum(axis=0)), m

    def _particle_terms(self, xyt: np.ndarray,
                        grids: DistanceGrids) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """cos and sin of the headings and the grid coordinates (x, y in cells) of ``xyt``.

        While the robot stands there is no predict between camera frames, so the filter's own
        particles are weighed several times unchanged: their terms are kept until the
        particles move (every change to them clears ``_terms``)."""
        own = xyt is self.particles_xyt
        terms = self._terms
        if own and terms is not None and terms[0] is xyt:
            return terms[1]
        inv_cell = 1.0 / grids.cell_m
        th = xyt[:, 2]
        out = (np.cos(th), np.sin(th), (xyt[:, 0] - grids.x0_m) * inv_cell, (xyt[:, 1] - grids.y0_m) * inv_cell)
        if own:
            self._terms = (xyt, out)
        return out

    def update(self, detections: Sequence[Detection]) -> None:
        """Weigh the particles by one frame of detections, resample, inject when lost."""
        groups = self._group(detections)
        if not groups:
            return
        c = self.config
        loglik, count = self._log_likelihood(self.particles_xyt, groups)
        self.log_weights = self.log_weights + loglik
        self._normalise()
        # the weights changed: an estimate read before this frame is stale (the injection below
        # reads the estimate; a stale one once picked mirror twins by the heading of the prior's
        # other touch line, issue 26.6)
        self._cache = None
        self.updates += 1
        # per-detection fit in (0, 1] of the hypotheses that survive this frame: the
        # geometric-mean likelihood under the posterior weights (stray injected particles do
        # not drag it down; a kidnap does, since then no particle fits)
        weights = np.exp(self.log_weights)
        fit = float(weights @ np.exp(loglik / count))
        if self._w_slow is None or self._w_fast is None:
            self._w_slow = self._w_fast = fit
        else:
            self._w_slow += c.alpha_slow * (fit - self._w_slow)
            self._w_fast += c.alpha_fast * (fit - self._w_fast)
        self._fit = self._w_fast
        inject = 0.0
        if count >= c.inject_min_detections:
            # augmented MCL with a dead band: only a clear drop of the short-term fit injects
            ratio = self._w_fast / max(self._w_slow, 1e-12)
            inject = (c.inject_ratio - ratio) / c.inject_ratio
            if fit < c.fit_floor:
                inject = max(inject, c.max_inject_fraction * (1.0 - fit / c.fit_floor))
            inject = min(max(inject, 0.0), c.max_inject_fraction)
        n_inject = int(round(inject * self.n))
        w = weights  # the log-weights did not change since
        ess = 1.0 / float((w * w).sum())
        if ess < c.resample_ess_ratio * self.n or n_inject > 0:
            self._resample(w)
            if n_inject > 0:
                self._inject(groups, n_inject)
        self._cache = None
        if self._entry_unsettled:
            self._settle_entry()

    def _normalise(self) -> None:
        lw = self.log_weights - self.log_weights.max()
        lw -= math.log(float(np.exp(lw).sum()))
        self.log_weights = lw

    def _resample(self, w: np.ndarray) -> None:
        """Systematic resampling: one random offset, N evenly spaced pointers."""
        positions = (self.rng.random() + np.arange(self.n)) / self.n
        cumulative = np.cumsum(w)
        cumulative[-1] = 1.0
        idx = np.searchsorted(cumulative, positions)
        self.particles_xyt = self.particles_xyt[idx]
        self._terms = None
        self._cache = None
        self.log_weights = np.full(self.n, -math.log(self.n))

    # --- sensor-based pose candidates (injection and relocalization) -------------------

    def _pair_candidates(self, kind_a: str, det_a: np.ndarray, kind_b: str, det_b: np.ndarray,
                         landmarks: dict[str, np.ndarray] | None = None) -> np.ndarray:
        """Poses (K, 3) that map a detection pair onto a landmark pair of the same kinds."""
        lms = landmarks or self._landmarks
        la, lb = lms.get(kind_a), lms.get(kind_b)
        if la is None or lb is None or la.size == 0 or lb.size == 0 or det_a.size == 0 or det_b.size == 0:
            return np.zeros((0, 3))
        if det_a is det_b and det_a.shape[0] < 2:
            return np.zeros((0, 3))  # one detection paired with itself: no pair is 0.3 m long
        # all detection pairs (i, j) and landmark pairs (p, q), broadcast to (I, J, P, Q)
        dv = det_b[None, :, :] - det_a[:, None, :]  # (I, J, 2)
        lv = lb[None, :, :] - la[:, None, :]  # (P, Q, 2)
        d_len = np.hypot(dv[..., 0], dv[..., 1])
        l_len = np.hypot(lv[..., 0], lv[..., 1])
        tol = 0.15 + 0.08 * np.maximum(np.hypot(det_a[:, None, 0], det_a[:, None, 1]),
                                       np.hypot(det_b[None, :, 0], det_b[None, :, 1]))
        ok = (np.abs(d_len[:, :, None, None] - l_len[None, None, :, :]) < tol[:, :, None, None])
        ok &= (d_len[:, :, None, None] > 0.3) & (l_len[None, None, :, :] > 0.3)
        i, j, p, q = np.nonzero(ok)
        if i.size == 0:
            return np.zeros((0, 3))
        theta = np.arctan2(lv[p, q, 1], lv[p, q, 0]) - np.arctan2(dv[i, j, 1], dv[i, j, 0])
        cos, sin = np.cos(theta), np.sin(theta)
        # the position that maps the pair's midpoint onto the landmarks' midpoint
        mx = 0.5 * (det_a[i, 0] + det_b[j, 0])
        my = 0.5 * (det_a[i, 1] + det_b[j, 1])
        lx = 0.5 * (la[p, 0] + lb[q, 0])
        ly = 0.5 * (la[p, 1] + lb[q, 1])
        x = lx - (cos * mx - sin * my)
        y = ly - (sin * mx + cos * my)
        return np.stack([x, y, _wrap(theta)], axis=1)

    def _candidates(self, groups: dict[str, np.ndarray]) -> np.ndarray:
        kinds = sorted(k for k in groups if k != LINE_POINT)
        out = []
        for ai, ka in enumerate(kinds):
            for kb in kinds[ai:]:
                cands = self._pair_candidates(ka, groups[ka], kb, groups[kb])
                if ka == kb and cands.size:
                    pass  # a same-kind pair appears in both orders: harmless duplicates
                out.append(cands)
        return np.concatenate(out) if out else np.zeros((0, 3))

    def _inject(self, groups: dict[str, np.ndarray], n_inject: int) -> None:
        """Replace random particles with poses the current detections suggest."""
        cands = self._candidates(groups)
        if cands.shape[0] > 0:
            # a pose off the field and its border is no pose of a robot in play: a pair of
            # noisy far detections (or one landmark seen twice) can map there
            hx = self.field.half_length_m + self.config.border_m
            hy = self.field.half_width_m + self.config.border_m
            cands = cands[(np.abs(cands[:, 0]) <= hx) & (np.abs(cands[:, 1]) <= hy)]
        if cands.shape[0] > 0:
            # keep only candidates that explain the whole frame reasonably well
            ll, count = self._log_likelihood(cands, groups)
            good = ll / count > -0.5 * self.config.obs_gate_sigmas ** 2 * 0.5
            if good.any():
                cands = cands[good]
            if self._entry_unsettled:
                # no believed heading yet: the twin in the own half is the one the prior allows
                flip = cands[:, 0] > 0.0
                cands[flip, 0:2] *= -1.0
                cands[flip, 2] += math.pi
            elif self.config.inject_keep_heading_side and self._fit > 0.0:
                heading = self.estimate().theta_rad
                flip = np.abs(_wrap(cands[:, 2] - heading)) > math.pi / 2.0
                cands[flip, 0:2] *= -1.0
                cands[flip, 2] += math.pi
        c = self.config
        if self._w_slow is not None and self._w_slow >= c.global_inject_below_slow_fit:
            est = self.estimate()
            near = ((np.hypot(cands[:, 0] - est.x_m, cands[:, 1] - est.y_m) <= c.local_inject_m)
                    & (np.abs(_wrap(cands[:, 2] - est.theta_rad)) <= c.local_inject_rad))
            cands = cands[near]
            if cands.shape[0] == 0:
                return  # nothing near: no kidnap to recover from, and nothing to refresh
        if cands.shape[0] > 0:
            pick = self.rng.integers(0, cands.shape[0], n_inject)
            new = cands[pick] + self.rng.normal(0.0, 1.0, (n_inject, 3)) * np.array([0.1, 0.1, 0.05])
        else:
            hx = self.field.half_length_m + self.config.border_m
            new = self._uniform(n_inject, -hx, hx)
        new[:, 2] = _wrap(new[:, 2])
        slots = self.rng.choice(self.n, n_inject, replace=False)
        self.particles_xyt[slots] = new
        self._terms = None
        self.injected_total += n_inject
        self._cache = None

    def relocalize_from(self, mode: RelocalizeMode | FeatureKind | str,
                        detections: Sequence[Detection], max_dist_m: float = 2.0,
                        max_drift_m: float | None = 1.0, validate: bool = True,
                        std: tuple[float, float, float] = (0.05, 0.05, 0.03)) -> Pose2D | None:
        """Reset the belief from particular features, as Booster's SelfLocate* nodes do.

        Uses only detections of the mode's kinds within ``max_dist_m``. A pair of features
        gives the full pose; the centre mark alone gives the position with the current
        heading. Of the candidate poses, the one nearest the current estimate wins (this also
        resolves the mirror); it must lie within ``max_drift_m`` of the estimate (None: any).
        With ``validate`` every landmark detection of the frame must fit the new pose.
        Returns the new pose, or None (belief unchanged) when nothing fits.
        """
        mode = RelocalizeMode.parse(mode)
        near = [d for d in detections if d.x_m * d.x_m + d.y_m * d.y_m <= max_dist_m * max_dist_m]
        groups = self._group(near)
        current = self.estimate()
        landmarks = self._border_landmarks if mode is RelocalizeMode.BORDER else self._landmarks
        cands: list[np.ndarray] = []
        for ka, kb in _MODE_KINDS[mode]:
            if ka in groups and kb in groups:
                cands.append(self._pair_candidates(ka, groups[ka], kb, groups[kb], landmarks))
        if mode is RelocalizeMode.CENTRE and "centre_circle" in groups:
            th = current.theta_rad
            c, s = math.cos(th), math.sin(th)
            det = groups["centre_circle"]
            cands.append(np.stack([-(c * det[:, 0] - s * det[:, 1]), -(s * det[:, 0] + c * det[:, 1]),
                                   np.full(det.shape[0], th)], axis=1))
        all_c = np.concatenate(cands) if cands else np.zeros((0, 3))
        if all_c.shape[0] == 0:
            return None
        drift = np.hypot(all_c[:, 0] - current.x_m, all_c[:, 1] - current.y_m)
        if max_drift_m is not None:
            keep = drift <= max_drift_m
            all_c, drift = all_c[keep], drift[keep]
            if all_c.shape[0] == 0:
                return None
        # score = how well each candidate explains every landmark of the frame (normalised
        # residuals) plus a prior pulling toward the current estimate
        full = self._group(detections)
        full.pop(LINE_POINT, None)
        cos, sin = np.cos(all_c[:, 2]), np.sin(all_c[:, 2])
        norm_err = []
        for kind, det in full.items():
            d2 = self._squared_errors(all_c, kind, det, cos, sin)  # (K, M)
            r = np.hypot(det[:, 0], det[:, 1])
            norm_err.append(np.sqrt(d2) / (0.05 + 0.05 * r))
        err = np.concatenate(norm_err, axis=1)
        sigma_drift = 0.5 * max_drift_m if max_drift_m is not None else 5.0
        dth = np.abs(_wrap(all_c[:, 2] - current.theta_rad))
        score = (err ** 2).mean(axis=1) + (drift / max(sigma_drift, 1e-3)) ** 2 + (dth / 1.0) ** 2
        k = int(np.argmin(score))
        if validate and float(err[k].max()) > 3.0:
            return None
        best = all_c[k]
        pose = Pose2D(float(best[0]), float(best[1]), wrap_angle_rad(float(best[2])))
        self.reset_to(pose, std)
        self._fit = 1.0  # the features just fitted: count as a good frame
        self._w_slow = self._w_fast = 1.0
        return pose

    # --- outputs ----------------------------------------------------------------------

    def _summary(self) -> tuple[Pose2D, np.ndarray, float]:
        """(estimate, covariance, confidence) of the current particles, from the current seed;
        cached until the particles or weights change. Never moves the seed (``_advance`` does)."""
        if self._cache is not None:
            return self._cache
        w = np.exp(self.log_weights)
        w /= w.sum()
        # the estimate is the weighted mean of one cluster (within 1 m and 0.8 rad of a seed):
        # a mean over two mirror twins would be nowhere. The seed is the previous estimate
        # moved by odometry while that cluster keeps at least half the weight, else the
        # heaviest cell of a coarse (0.5 m, 0.5 m, 45 deg) histogram.
        seed = self._seed
        cluster = self._cluster(seed, w, 0.5) if seed is not None else None
        if seed is None or cluster is None:
            seed = self._histogram_seed(w)
            cluster = self._cluster(seed, w, 0.0)
        assert cluster is not None  # the heaviest cell's own particles are in its cluster
        wr, dev, mass = cluster
        # the offsets from the seed lie within 0.8 rad in heading, so their plain weighted
        # mean and spread need no wrapping
        mean = wr @ dev
        est = Pose2D(seed.x_m + float(mean[0]), seed.y_m + float(mean[1]),
                     wrap_angle_rad(seed.theta_rad + float(mean[2])))
        self._seed_pending = True
        # covariance of that cluster; the weight elsewhere (a mirror twin, stray injected
        # particles) lowers the confidence instead
        cov = (dev * wr[:, None]).T @ dev - np.outer(mean, mean)
        cov = 0.5 * (cov + cov.T)
        c = self.config
        var_x, var_y, var_t = cov.diagonal().tolist()
        xy_std = math.sqrt(max(0.0, var_x + var_y))
        th_std = math.sqrt(max(0.0, var_t))
        spread = math.exp(-math.log(2.0) * ((xy_std / c.confidence_xy_std_m) ** 2
                                            + (th_std / c.confidence_theta_std_rad) ** 2))
        fit = min(1.0, max(0.0, self._fit / 0.6))
        conf = max(0.0, min(1.0, spread * fit * min(1.0, mass / 0.8)))
        self._cache = (est, cov, conf)
        return self._cache

    def _cluster(self, seed: Pose2D, w: np.ndarray,
                 min_mass: float) -> tuple[np.ndarray, np.ndarray, float] | None:
        """The particles within 1 m and 0.8 rad of ``seed``: their weights normalised over the
        cluster, their offsets (K, 3) from the seed, and the cluster's share of the weight;
        None when that share is below ``min_mass`` (or nothing)."""
        dev = self.particles_xyt - (seed.x_m, seed.y_m, seed.theta_rad)
        dev[:, 2] = _wrap(dev[:, 2])
        dx, dy, dt = dev[:, 0], dev[:, 1], dev[:, 2]
        near = dx * dx + dy * dy < 1.0
        near &= np.abs(dt) < 0.8
        if near.all():  # the usual case: the cluster is the whole cloud, no copies needed
            wn = w
        else:
            wn, dev = w[near], dev[near]
        mass = float(wn.sum())
        if mass < min_mass or mass <= 0.0:
            return None
        return wn / mass, dev, mass

    def _histogram_seed(self, w: np.ndarray) -> Pose2D:
        """The weighted mean of the heaviest cell of a (0.5 m, 0.5 m, 45 deg) histogram."""
        xyt = self.particles_xyt
        hx = self.field.half_length_m + self.config.border_m + 1.0
        hy = self.field.half_width_m + self.config.border_m + 1.0
        nx, ny, nt = int(2 * hx / 0.5) + 1, int(2 * hy / 0.5) + 1, 8
        ix = np.clip(((xyt[:, 0] + hx) * 2.0).astype(int), 0, nx - 1)
        iy = np.clip(((xyt[:, 1] + hy) * 2.0).astype(int), 0, ny - 1)
        it = np.clip(((xyt[:, 2] + math.pi) * (nt / _TWO_PI)).astype(int), 0, nt - 1)
        cell = (ix * ny + iy) * nt + it
        hist = np.bincount(cell, weights=w, minlength=nx * ny * nt)
        in_seed = cell == int(np.argmax(hist))
        ws = w[in_seed]
        total = float(ws.sum())
        sx = float(ws @ xyt[in_seed, 0]) / total
        sy = float(ws @ xyt[in_seed, 1]) / total
        st = math.atan2(float(ws @ np.sin(xyt[in_seed, 2])), float(ws @ np.cos(xyt[in_seed, 2])))
        return Pose2D(sx, sy, st)

    def _advance(self) -> tuple[Pose2D, np.ndarray, float]:
        """The summary, its estimate made the seed of the next one: what the robot's own reads
        do (the seed tracks the estimates the robot acted on, moved by odometry)."""
        summary = self._summary()
        if self._seed_pending:
            self._seed = summary[0]
            self._seed_pending = False
        return summary

    def estimate(self) -> Pose2D:
        """The most likely pose: the weighted mean of the strongest particle cluster (the
        robot's read: the next estimate's cluster is sought around this one)."""
        return self._advance()[0]

    def covariance(self) -> np.ndarray:
        """3x3 weighted covariance of (x, y, theta) of the estimate's particle cluster; an
        observer's read (the viewer): it changes nothing of the filter."""
        return self._summary()[1].copy()

    def confidence(self) -> float:
        """0..1 from the cluster's spread and weight and how well recent detections fitted
        (the robot's read, as ``estimate``)."""
        return self._advance()[2]

    def particles(self) -> np.ndarray:
        """A copy of the particles, N x 3 (x_m, y_m, theta_rad), for the viewer."""
        return self.particles_xyt.copy()

    def weights(self) -> np.ndarray:
        """Normalised particle weights (N,)."""
        w = np.exp(self.log_weights)
        return w / w.sum()
