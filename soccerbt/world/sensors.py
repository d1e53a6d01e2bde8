"""The head camera model: what each robot sees at one camera frame, for all robots at once.

One frame is computed for every standing robot together: field features, the ball and the
other robots are its targets. A target is seen
when it lies in front of the camera within the horizontal field of view, inside the ground
band the head tilt leaves in the vertical field of view (tall things, robots and posts, need
only their base not to be beyond the far edge), within the kind's range, and not hidden
behind another robot. Noise then grows with distance: range and bearing errors, misses, the
confidence, the team colour recognised or not, and now and then a false detection.

Detections come out in the robot frame, listed per robot; the World hands them over in
``Observations``. The frame loop is written for speed (CameraModel says how);
tests/world/test_camera_reference.py pins it to a plain version of the same model.
"""
from __future__ import annotations

import math
import operator
from collections.abc import Iterator
from itertools import chain, compress
from typing import TYPE_CHECKING

import numpy as np

from soccerbt.world._fast import DetectionTwin, make_detection
from soccerbt.world.config import CameraConfig, NoiseConfig
from soccerbt.world.field import FeatureKind, Field
from soccerbt.world.types import BALL, ROBOT, Detection, Team

if TYPE_CHECKING:
    from soccerbt.world.bodies import BallState, RobotState

_DRAW_BLOCK = 4096  # candidates' random numbers drawn per generator call
_CELL_M = 0.5  # landmark candidate grid: cell size
_INV_CELL = 1.0 / _CELL_M
_HEADING_BINS = 32  # and heading bins
_TWO_PI = 2.0 * math.pi
_BINS_PER_RAD = _HEADING_BINS / _TWO_PI
# what the camera may see, one row per target: x, y (world frame), tall (seen from the min
# range on, whatever the tilt), max range squared, (kind, max range, miss base, miss per
# metre, range within which it is never missed), team
_Target = tuple[float, float, bool, float, tuple[str, float, float, float, float], "Team | None"]
# the landmark grids (cell -> per heading bin, the landmark rows), one per configuration and
# shared by its worlds; a few kept (tests make many configurations)
_GRIDS: dict[tuple[Field, CameraConfig, NoiseConfig], dict[int, list[tuple[_Target, ...]]]] = {}
_GRIDS_KEPT = 16


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

    Plain Python: per robot only a few candidates remain once a grid of (cell, heading) lists
    has ruled out the landmarks that cannot be in view, and numpy calls on arrays that small
    cost more than they save (one numpy pass for all observers at once, bit-identical, was
    measured at 81-85 us per 3v3 frame and 91-101 us per 4v4 frame of benchmarks/world.py's
    scenes, when this loop took 48-52 and 95-99; it now takes a sixth less than then).

    What keeps the loop short: the grid is computed once per configuration and process (the
    worlds of a batch or of a benchmark's repeats share it); the ball's and the robots' target
    rows are built once per frame, not per observer; each target goes through view test,
    occlusion and noise in one pass, nothing kept in between; the occlusion test looks at the
    distance off the ray first (most occluders are off to one side); random numbers come from
    blocks drawn in advance, zipped column by column, with the bearing and confidence errors
    already scaled; detections are built through their twin (soccerbt.world._fast).
    """
    def __init__(self, field: Field, camera: CameraConfig, noise: NoiseConfig) -> None:
        self.field = field
        self.camera = camera
        self.noise = noise
        self.perfect = noise.is_perfect
        self._tan = math.tan(camera.horizontal_fov_rad / 2.0)
        self._min_r = max(camera.min_range_m, 1e-6)
        # one target row per landmark (the ball and the robots get theirs at each frame): x, y,
        # tall, max range squared, what a detection of it needs (kind, max range, miss base,
        # miss per metre), team
        self._static: list[_Target] = []
        for f in field.features:
            tall = f.kind is FeatureKind.GOAL_POST
            max_r = camera.goal_post_max_range_m if tall else camera.feature_max_range_m
            self._static.append((f.x_m, f.y_m, tall, max_r * max_r,
                                 (f.kind.value, max_r, noise.feature_miss_base, noise.miss_at_max_range / max_r,
                                  0.0), None))
        self._feature_kinds = sorted({f.kind.value for f in field.features})
        self._x0 = field.half_length_m + field.border_strip_m + 1.0
        self._y0 = field.half_width_m + field.border_strip_m + 1.0
        # the landmark grid of this configuration: each cell is computed once per process
        key = (field, camera, noise)
        grid = _GRIDS.get(key)
        if grid is None:
            if len(_GRIDS) >= _GRIDS_KEPT:
                _GRIDS.clear()
            grid = _GRIDS[key] = {}
        self._grid: dict[int, list[tuple[_Target, ...]]] = grid
        self._bands: dict[float, tuple[float, float]] = {}
        self._draws: Iterator[tuple[float, float, float, float, float]] = iter(())  # none left
        self._left: Iterator[float] = iter(())  # the block's first column: how many are left
        self._false_on = not self.perfect and (noise.false_ball_per_frame > 0.0 or noise.false_feature_per_frame > 0.0)
        bmax = camera.ball_max_range_m
        self._ball_max2 = bmax * bmax
        self._ball_info = (BALL, bmax, noise.ball_miss_base, noise.miss_at_max_range / bmax, camera.ball_sure_range_m)
        rmax = camera.robot_max_range_m
        self._robot_max2 = rmax * rmax
        self._robot_info = (ROBOT, rmax, noise.robot_miss_base, noise.miss_at_max_range / rmax, 0.0)

    @property
    def draw_index(self) -> int:
        """How many candidates used the current block of random numbers (for snapshots)."""
        return _DRAW_BLOCK - operator.length_hint(self._left)

    def _band(self, tilt_rad: float) -> tuple[float, float]:
        """(lowest forward distance seen on the ground, highest), cached per tilt."""
        band = self._bands.get(tilt_rad)
        if band is None:
            near, far = ground_band_m(self.camera, tilt_rad)
            band = (max(near, self._min_r), far)
            if len(self._bands) > 4096:
                self._bands.clear()
            self._bands[tilt_rad] = band
        return band

    def _candidates(self, x: float, y: float, heading: float) -> tuple[_Target, ...]:
        """Landmarks that may be in view from anywhere in this cell with any head heading in
        this bin (conservative: the exact test follows). Computed for all bins of a cell at
        once, the first time a robot stands in it."""
        ix = int((x + self._x0) * _INV_CELL)
        iy = int((y + self._y0) * _INV_CELL)
        bins = self._grid.get(ix * 4096 + iy)
        if bins is None:
            bins = self._grid[ix * 4096 + iy] = self._cell_candidates(ix, iy)
        return bins[int((heading % _TWO_PI) * _BINS_PER_RAD) % _HEADING_BINS]

    def _cell_candidates(self, ix: int, iy: int) -> list[tuple[_Target, ...]]:
        cx = (ix + 0.5) * _CELL_M - self._x0
        cy = (iy + 0.5) * _CELL_M - self._y0
        bin_w = _TWO_PI / _HEADING_BINS
        half_diag = _CELL_M * math.sqrt(0.5)
        fx = np.array([row[0] for row in self._static]) - cx
        fy = np.array([row[1] for row in self._static]) - cy
        max_r = np.array([row[4][1] for row in self._static])
        dist = np.hypot(fx, fy)
        # the bearing to a landmark varies by up to asin(half diagonal / distance) over the cell
        margin = np.arcsin(np.minimum(1.0, half_diag / np.maximum(dist, 1e-9)))
        bearing = np.arctan2(fy, fx)
        mids = (np.arange(_HEADING_BINS) + 0.5) * bin_w
        diff = np.abs((bearing[None, :] - mids[:, None] + math.pi) % _TWO_PI - math.pi)
        limit = math.atan(self._tan) + bin_w / 2.0 + margin + 1e-9
        ok = (diff <= limit[None, :]) | (dist <= half_diag)[None, :]
        ok &= (dist <= max_r + half_diag)[None, :]
        rows = self._static
        return [tuple(compress(rows, flags)) for flags in ok.tolist()]

    def _refill(self, rng: np.random.Generator) -> Iterator[tuple[float, float, float, float, float]]:
        """A new block of random numbers (one generator call per many frames), handed out one
        tuple per candidate: (miss uniform, team uniform, range normal, bearing error in rad,
        confidence error) - the last two already times their sigmas (numpy multiplies as
        Python does, bit for bit).

        Columns listed through the transposed blocks, then zipped: no tuple built in advance
        (the zip reuses its result once unpacked). The frame loop refills when it runs out;
        draw_index reads the first column's length.
        """
        noise = self.noise
        uniform = rng.random(2 * _DRAW_BLOCK).reshape(_DRAW_BLOCK, 2).T
        normal = rng.standard_normal(3 * _DRAW_BLOCK).reshape(_DRAW_BLOCK, 3).T
        normal[1] *= noise.bearing_sigma_rad
        normal[2] *= noise.confidence_sigma
        u_miss, u_team = uniform.tolist()
        self._left = iter(u_miss)
        self._draws = zip(self._left, u_team, *normal.tolist(), strict=False)
        return self._draws

    def frame(self, rng: np.random.Generator, active: list[RobotState],
              ball: BallState) -> dict[int, list[Detection]]:
        """The detections of every standing robot of ``active`` (the robots on the field, none
        removed), keyed by robot index.

        Every candidate that passes the view and occlusion tests uses five random numbers
        (miss, team, range, bearing, confidence) from blocks drawn in advance, whether it is
        then missed or not: a fixed order of use (per observer: landmarks, ball, robots), so
        runs are reproducible.
        """
        out: dict[int, list[Detection]] = {}
        cam = self.camera
        tan = self._tan
        min_r = self._min_r
        r_occ = cam.occluder_radius_m
        r_occ2 = r_occ * r_occ
        r_occ_cone = r_occ * math.sqrt(1.0 + tan * tan)  # footprint reaching into the view cone
        behind = -r_occ  # a robot this far behind the camera neither hides nor is seen
        inf = math.inf
        perfect = self.perfect
        noise = self.noise
        cos, sin, sqrt = math.cos, math.sin, math.sqrt
        sb, sr = noise.range_sigma_base_m, noise.range_sigma_rel
        p_team = noise.team_recognition_probability
        draws = self._draws  # the rest of the random-number block
        new_twin = object.__new__
        # the target rows of the ball and of the robots, built once per frame, not per observer
        ball_row = (ball.x_m, ball.y_m, False, self._ball_max2, self._ball_info, None)
        robot_max2, robot_info = self._robot_max2, self._robot_info
        others = [(r.x_m, r.y_m, r, (r.x_m, r.y_m, True, robot_max2, robot_info, r.team)) for r in active]
        bands, grid = self._bands, self._grid  # the caches of _band and _candidates, read inline
        x0, y0 = self._x0, self._y0
        observers = []  # the standing robots, in order: the false detections' turn
        for obs in active:
            if obs.fallen:
                continue
            observers.append(obs)
            ox, oy = obs.x_m, obs.y_m
            heading = obs.theta_rad + obs.head_pan_rad
            ch, sh = cos(heading), sin(heading)
            band = bands.get(obs.head_tilt_rad)
            low, far = band if band is not None else self._band(obs.head_tilt_rad)
            # the other robots first: every target's occlusion test needs the occluders (robots
            # whose footprint reaches into the field of view), which are also the robots that
            # may be seen, listed after the landmarks and the ball
            occluders = []
            later = [ball_row]
            nearest2 = inf  # squared distance of the nearest occluder
            for qx, qy, other, row in others:
                dx = qx - ox
                dy = qy - oy
                fwd = dx * ch + dy * sh
                if fwd <= behind or other is obs:
                    continue
                lat = dy * ch - dx * sh
                if lat < 0.0:
                    lat = -lat
                if lat - fwd * tan > r_occ_cone:
                    continue  # outside the cone
                d2 = dx * dx + dy * dy
                occluders.append((dx, dy))
                if d2 < nearest2:
                    nearest2 = d2
                later.append(row)
            # a target nearer than sqrt(nearest^2 - r^2) cannot be behind anyone
            clear2 = nearest2 - r_occ2
            bins = grid.get(int((ox + x0) * _INV_CELL) * 4096 + int((oy + y0) * _INV_CELL))
            candidates = (bins[int((heading % _TWO_PI) * _BINS_PER_RAD) % _HEADING_BINS] if bins is not None
                          else self._candidates(ox, oy, heading))
            ct, st = cos(obs.theta_rad), sin(obs.theta_rad)
            rows = []
            # each target in one pass, none kept in between: the view test (in front, inside the
            # ground band - tall targets need only their base not beyond its far edge - within
            # the horizontal field of view and the range), occlusion, then noise
            for fx, fy, tall, max_r2, info, team in chain(candidates, later):
                dx = fx - ox  # world-frame offset from the camera
                dy = fy - oy
                fwd = dx * ch + dy * sh
                if fwd < (min_r if tall else low) or fwd > far:
                    continue
                lat = dy * ch - dx * sh
                half_w = fwd * tan
                if not -half_w <= lat <= half_w:
                    continue
                d2 = dx * dx + dy * dy
                if d2 > max_r2:
                    continue
                if d2 > clear2:
                    # hidden: a robot's centre projects strictly between camera and target and
                    # lies within its radius of the ray (a robot target itself projects onto the
                    # target, along = d2: never its own occluder)
                    perp_max = r_occ2 * d2
                    hidden = False
                    for qx, qy in occluders:
                        # off the ray first: most occluders are off to one side of most targets
                        perp = qx * dy - qy * dx  # distance off the ray, times d
                        if perp * perp < perp_max:
                            along = qx * dx + qy * dy  # fraction along the ray, times d2
                            if 0.0 < along < d2 * (1.0 - 1e-9):
                                hidden = True
                                break
                    if hidden:
                        continue
                kind, max_r, miss0, miss_m, sure_m = info
                if perfect:
                    rows.append(make_detection(kind, dx * ct + dy * st, dy * ct - dx * st, 1.0, team))
                    continue
                try:
                    u_miss, u_team, n_range, b, c_error = next(draws)
                except StopIteration:  # the block is used up
                    draws = self._refill(rng)
                    u_miss, u_team, n_range, b, c_error = next(draws)
                d = sqrt(d2)
                if u_miss < miss0 + miss_m * d and d >= sure_m:
                    continue
                x = dx * ct + dy * st
                y = dy * ct - dx * st
                a = (sb / d + sr) * n_range
                x, y = x + x * a - y * b, y + y * a + x * b
                closeness = 1.0 - 0.5 * d / max_r
                c = closeness + c_error
                c = 1.0 if c > 1.0 else (0.05 if c < 0.05 else c)
                # make_detection inlined, its twin's __init__ too (each call costs a third of
                # building the detection)
                det = new_twin(DetectionTwin)
                det.kind = kind
                det.x_m = x
                det.y_m = y
                det.confidence = c
                det.team = team if u_team < p_team * closeness else None
                det.__class__ = Detection
                rows.append(det)
            if rows:
                out[obs._index] = rows
        if self._false_on:
            # now and then a ball or landmark where there is none, listed after the true ones:
            # five uniforms per standing robot, drawn once the frame's candidates took theirs
            if observers:
                p_ball, p_feature = noise.false_ball_per_frame, noise.false_feature_per_frame
                # one flat block: the same numbers as an (observers, 5) array, without a list
                # per observer
                u = rng.random(5 * len(observers)).tolist()
                k = 0
                for r in observers:
                    if u[k] < p_ball or u[k + 1] < p_feature:
                        low, far = self._band(r.head_tilt_rad)
                        false_rows = self._false_detections(r, low, far, u[k:k + 5])
                        if false_rows:
                            out.setdefault(r._index, []).extend(false_rows)
                    k += 5
        return out

    def _false_detections(self, r: RobotState, near_m: float, far_m: float,
                          u5: list[float]) -> list[Detection]:
        """A false ball and/or landmark somewhere in view of ``r``, from its five uniforms
        (ball?, landmark?, distance, bearing, kind and confidence)."""
        noise = self.noise
        cam = self.camera
        u_ball, u_feat, u_dist, u_bearing, u_kind = u5
        out: list[Detection] = []
        for hit, kind, max_range in ((u_ball < noise.false_ball_per_frame, BALL, cam.ball_max_range_m),
                                     (u_feat < noise.false_feature_per_frame, None, cam.feature_max_range_m)):
            if not hit:
                continue
            hi = min(far_m, max_range)
            if not near_m < hi:
                continue
            if kind is None:
                kind = self._feature_kinds[min(len(self._feature_kinds) - 1, int(u_kind * len(self._feature_kinds)))]
            dist = near_m + (hi - near_m) * u_dist
            bearing = r.head_pan_rad + (u_bearing - 0.5) * cam.horizontal_fov_rad * 0.9
            out.append(
                make_detection(kind, dist * math.cos(bearing), dist * math.sin(bearing), 0.2 + 0.3 * u_kind, None)
            )
        return out
