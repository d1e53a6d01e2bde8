"""The camera's fast frame pinned to a plain reference: same detections, same random numbers.

CameraModel.frame is written for speed (a landmark grid, per-frame target rows, one pass per
target, random numbers zipped from pre-drawn blocks, detections built through twins). The
reference below is the camera model written plainly: every landmark, then the ball, then the
other robots, for each standing robot in turn; the view test, the occlusion test, five random
numbers per target that passes both, the noise. Random scenes (crowds included, so robots hide
things) must give equal detection lists, in the same order, from equally seeded generators,
and leave both generators in the same state.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np
import pytest

from soccerbt.world import BALL, ROBOT, CameraConfig, Detection, FeatureKind, Field, NoiseConfig, Team
from soccerbt.world.sensors import _DRAW_BLOCK, CameraModel, ground_band_m


@dataclass
class Body:
    """What the camera reads of a robot."""

    x_m: float
    y_m: float
    theta_rad: float
    head_pan_rad: float
    head_tilt_rad: float
    fallen: bool
    team: Team
    _index: int


@dataclass
class Ball:
    x_m: float
    y_m: float


class ReferenceCamera:
    """The camera model, plainly (its false detections are CameraModel's own)."""

    def __init__(self, field: Field, camera: CameraConfig, noise: NoiseConfig) -> None:
        self.field, self.camera, self.noise = field, camera, noise
        self.model = CameraModel(field, camera, noise)  # for _false_detections only
        self.u: list[float] = []
        self.n: list[float] = []
        self.used = _DRAW_BLOCK
        self.blocks = 0  # blocks drawn so far

    def draw(self, rng: np.random.Generator) -> tuple[float, float, float, float, float]:
        """(miss, team, range normal, bearing error, confidence error) of the next target."""
        if self.used == _DRAW_BLOCK:
            self.u = rng.random(2 * _DRAW_BLOCK).tolist()
            self.n = rng.standard_normal(3 * _DRAW_BLOCK).tolist()
            self.used = 0
            self.blocks += 1
        k = self.used
        self.used += 1
        noise = self.noise
        return (self.u[2 * k], self.u[2 * k + 1], self.n[3 * k],
                self.n[3 * k + 1] * noise.bearing_sigma_rad, self.n[3 * k + 2] * noise.confidence_sigma)

    def frame(self, rng: np.random.Generator, robots: list[Body], ball: Ball) -> dict[int, list[Detection]]:
        cam, noise = self.camera, self.noise
        tan = math.tan(cam.horizontal_fov_rad / 2.0)
        min_r = max(cam.min_range_m, 1e-6)
        r_occ = cam.occluder_radius_m
        miss_per_m = noise.miss_at_max_range
        out: dict[int, list[Detection]] = {}
        for obs in robots:
            if obs.fallen:
                continue
            heading = obs.theta_rad + obs.head_pan_rad
            ch, sh = math.cos(heading), math.sin(heading)
            near, far = ground_band_m(cam, obs.head_tilt_rad)
            low = max(near, min_r)
            # targets: (x, y, tall, max range, kind, miss base, team), in detection order
            targets = []
            for f in self.field.features:
                post = f.kind is FeatureKind.GOAL_POST
                max_r = cam.goal_post_max_range_m if post else cam.feature_max_range_m
                targets.append((f.x_m, f.y_m, post, max_r, f.kind.value, noise.feature_miss_base, None))
            targets.append((ball.x_m, ball.y_m, False, cam.ball_max_range_m, BALL, noise.ball_miss_base, None))
            occluders = []
            for other in robots:
                if other is obs:
                    continue
                dx, dy = other.x_m - obs.x_m, other.y_m - obs.y_m
                fwd, lat = dx * ch + dy * sh, abs(dy * ch - dx * sh)
                if fwd > -r_occ and lat - fwd * tan <= r_occ * math.sqrt(1.0 + tan * tan):
                    occluders.append((dx, dy))
                    targets.append((other.x_m, other.y_m, True, cam.robot_max_range_m, ROBOT,
                                    noise.robot_miss_base, other.team))
            nearest2 = min((qx * qx + qy * qy for qx, qy in occluders), default=math.inf)
            ct, st = math.cos(obs.theta_rad), math.sin(obs.theta_rad)
            rows = []
            for tx, ty, tall, max_r, kind, miss0, team in targets:
                dx, dy = tx - obs.x_m, ty - obs.y_m
                fwd, lat = dx * ch + dy * sh, dy * ch - dx * sh
                d2 = dx * dx + dy * dy
                in_view = ((min_r if tall else low) <= fwd <= far and -(fwd * tan) <= lat <= fwd * tan
                           and d2 <= max_r * max_r)
                if not in_view:
                    continue
                if d2 > nearest2 - r_occ * r_occ and any(
                        (qx * dy - qy * dx) ** 2 < r_occ * r_occ * d2 and 0.0 < qx * dx + qy * dy < d2 * (1.0 - 1e-9)
                        for qx, qy in occluders):
                    continue  # hidden
                if noise.is_perfect:
                    rows.append(Detection(kind, dx * ct + dy * st, dy * ct - dx * st, 1.0, team))
                    continue
                u_miss, u_team, n_range, bearing_error, confidence_error = self.draw(rng)
                d = math.sqrt(d2)
                if u_miss < miss0 + miss_per_m / max_r * d and not (kind == BALL and d < cam.ball_sure_range_m):
                    continue
                x, y = dx * ct + dy * st, dy * ct - dx * st
                a = (noise.range_sigma_base_m / d + noise.range_sigma_rel) * n_range
                x, y = x + x * a - y * bearing_error, y + y * a + x * bearing_error
                closeness = 1.0 - 0.5 * d / max_r
                confidence = min(1.0, max(0.05, closeness + confidence_error))
                seen_team = team if u_team < noise.team_recognition_probability * closeness else None
                rows.append(Detection(kind, x, y, confidence, seen_team))
            if rows:
                out[obs._index] = rows
        standing = [r for r in robots if not r.fallen]
        if (
            standing
            and not noise.is_perfect
            and (noise.false_ball_per_frame > 0.0 or noise.false_feature_per_frame > 0.0)
        ):
            for r, u5 in zip(standing, rng.random((len(standing), 5)).tolist(), strict=False):
                near, far = ground_band_m(cam, r.head_tilt_rad)
                for det in self.model._false_detections(r, max(near, min_r), far, u5):  # type: ignore[arg-type]
                    out.setdefault(r._index, []).append(det)
        return out


def scene(rnd: random.Random, field: Field) -> tuple[list[Body], Ball]:
    """Robots anywhere on the carpet, half of them crowding around one spot now and then."""
    lx, ly = field.half_length_m + field.border_strip_m, field.half_width_m + field.border_strip_m
    spot = (rnd.uniform(-lx, lx), rnd.uniform(-ly, ly))
    robots = []
    for k in range(rnd.randint(1, 10)):
        if rnd.random() < 0.5:
            x, y = spot[0] + rnd.gauss(0.0, 0.8), spot[1] + rnd.gauss(0.0, 0.8)
        else:
            x, y = rnd.uniform(-lx, lx), rnd.uniform(-ly, ly)
        robots.append(Body(x, y, rnd.uniform(-math.pi, math.pi), rnd.uniform(-1.5, 1.5), rnd.uniform(-0.3, 1.3),
                           rnd.random() < 0.1, Team.BLUE if k % 2 else Team.RED, k))
    ball = Ball(spot[0] + rnd.gauss(0.0, 1.5), spot[1] + rnd.gauss(0.0, 1.5))
    return robots, ball


@pytest.mark.parametrize("field", [Field.adult_size(), Field.kid_size()], ids=["adult", "kid"])
@pytest.mark.parametrize(("noise", "camera"), [(NoiseConfig(), CameraConfig()), (NoiseConfig.perfect(), CameraConfig()),
                                               (NoiseConfig(false_ball_per_frame=0.3, false_feature_per_frame=0.3),
                                                CameraConfig()),
                                               (NoiseConfig(), CameraConfig(ball_sure_range_m=1.5))],
                         ids=["default", "perfect", "many-false", "sure-ball"])
def test_frames_equal_the_plain_reference(field: Field, noise: NoiseConfig, camera: CameraConfig):
    fast, plain = CameraModel(field, camera, noise), ReferenceCamera(field, camera, noise)
    rng_fast, rng_plain = np.random.default_rng(7), np.random.default_rng(7)
    rnd = random.Random(11)
    seen = 0
    for _ in range(1000):  # thousands of targets: the random-number block is refilled on the way
        robots, ball = scene(rnd, field)
        expected = plain.frame(rng_plain, robots, ball)
        assert fast.frame(rng_fast, robots, ball) == expected
        assert fast.draw_index == plain.used
        seen += sum(len(rows) for rows in expected.values())
    assert seen > 3000
    assert noise.is_perfect or plain.blocks >= 2
    assert rng_fast.bit_generator.state == rng_plain.bit_generator.state
