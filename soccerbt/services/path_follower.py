"""Path following: pure pursuit from a planned path to (vx, vy, vtheta) in the robot frame.

``PathFollower`` follows within speed and acceleration limits (``FollowerConfig``) and turns
to the goal heading at the end. Everything is in the team frame; times are simulated seconds.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from soccerbt.services.path_planner import Path, _hypot
from soccerbt.world.types import Pose2D, wrap_angle_rad

__all__ = ["FollowerConfig", "PathFollower"]


@dataclass(frozen=True)
class FollowerConfig:
    """Speed and acceleration limits (robot frame) and pure-pursuit gains."""

    vx_max_mps: float = 0.8
    vx_back_max_mps: float = 0.3
    vy_max_mps: float = 0.4
    vtheta_max_radps: float = 1.0
    ax_max_mps2: float = 1.0
    ay_max_mps2: float = 0.8
    atheta_max_radps2: float = 3.0
    lookahead_m: float = 0.5
    heading_gain: float = 2.5  # 1/s
    position_gain: float = 1.5  # 1/s, the final approach
    face_path_beyond_m: float = 1.0  # walk facing the path when the goal is farther than this
    turn_slowdown_rad: float = 1.0  # translation fades out as the heading error reaches this
    arrive_distance_m: float = 0.05




def _np_pairwise_sum(a: list[float], lo: int, n: int) -> float:
    """The sum of ``a[lo:lo + n]`` in numpy's pairwise order (bit-identical to ``ndarray.sum``)."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3, r4, r5, r6, r7 = a[lo:lo + 8]
        i, end = lo + 8, lo + n - n % 8
        while i < end:
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        for i in range(end, lo + n):
            res += a[i]
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _np_pairwise_sum(a, lo, n2) + _np_pairwise_sum(a, lo + n2, n - n2)


class _PathGeometry:
    """One path's segments as Python floats, computed once: the follower runs every tick on a
    path of a few dozen points, where numpy's per-call overhead dominates."""

    __slots__ = ("path", "px", "py", "dx", "dy", "dd", "root_dd", "seg_len", "cum", "n_seg", "end",
                 "_prefix")

    def __init__(self, path: Path) -> None:
        self.path = path
        pts = path.points
        self.px, self.py = pts[:, 0].tolist(), pts[:, 1].tolist()
        px, py = self.px, self.py
        self.end = (px[-1], py[-1])
        n = len(px) - 1
        self.n_seg = n
        self.dx = [px[i + 1] - px[i] for i in range(n)]
        self.dy = [py[i + 1] - py[i] for i in range(n)]
        self.dd = [max(dx * dx + dy * dy, 1e-18) for dx, dy in zip(self.dx, self.dy, strict=False)]
        self.root_dd = [math.sqrt(d) for d in self.dd]
        self.seg_len = [_hypot(dx, dy) for dx, dy in zip(self.dx, self.dy, strict=False)]
        cum = [0.0]
        acc = 0.0
        for length in self.seg_len:
            acc += length
            cum.append(acc)
        self.cum = cum
        self._prefix: dict[int, float] = {}

    def closest(self, x: float, y: float, progress: int) -> tuple[int, float, float]:
        """(segment index, parameter t, arc length) of the nearest point at or after
        ``progress`` (the first of equals)."""
        px, py, dx, dy, dd = self.px, self.py, self.dx, self.dy, self.dd
        lo = min(progress, self.n_seg - 1)
        best_k, best_d, best_t = -1, math.inf, 0.0
        for i in range(lo, self.n_seg):
            ax, ay, ex, ey = px[i], py[i], dx[i], dy[i]
            t = ((x - ax) * ex + (y - ay) * ey) / dd[i]
            if t < 0.0:
                t = 0.0
            elif t > 1.0:
                t = 1.0
            d = _hypot(ax + t * ex - x, ay + t * ey - y)
            if d < best_d or (d != d and best_d == best_d):  # numpy's argmin: the first NaN wins
                best_k, best_d, best_t = i, d, t
                if d != d:
                    break
        if best_k < 0:  # every distance infinite: argmin picks the first
            best_k = lo
            ax, ay, ex, ey = px[lo], py[lo], dx[lo], dy[lo]
            best_t = min(1.0, max(0.0, ((x - ax) * ex + (y - ay) * ey) / dd[lo]))
        k = best_k
        before = self._prefix.get(k)
        if before is None:
            before = self._prefix[k] = _np_pairwise_sum(self.root_dd, 0, k)
        return k, best_t, before + best_t * self.root_dd[k]


class PathFollower:
    """Pure pursuit with look-ahead; ``follow`` yields (vx, vy, vtheta) in the robot frame."""

    def __init__(self, config: FollowerConfig | None = None) -> None:
        self.config = config or FollowerConfig()
        self._last = (0.0, 0.0, 0.0)
        self._geo: _PathGeometry | None = None  # the path being followed, as Python floats
        self._progress = 0

    def reset(self) -> None:
        """Forget the previous command (the robot stands) and the progress along the path."""
        self._last = (0.0, 0.0, 0.0)
        self._geo: _PathGeometry | None = None  # the path being followed, as Python floats
        self._progress = 0

    def brake(self, dt_s: float) -> tuple[float, float, float]:
        """Slow the previous command toward standing, within the acceleration limits."""
        c = self.config
        dt = max(dt_s, 1e-3)
        lx, ly, lth = self._last

        def toward_zero(v: float, a: float) -> float:
            return math.copysign(max(0.0, abs(v) - a * dt), v)

        self._last = (toward_zero(lx, c.ax_max_mps2), toward_zero(ly, c.ay_max_mps2),
                      toward_zero(lth, c.atheta_max_radps2))
        return self._last

    def follow(self, pose: Pose2D, path: Path, goal_heading_rad: float, dt_s: float,
               vx_limit_mps: float | None = None, vy_limit_mps: float | None = None,
               vtheta_limit_radps: float | None = None) -> tuple[float, float, float]:
        """The velocity command for this tick (robot frame) toward the path's end."""
        c = self.config
        vx_max = c.vx_max_mps if vx_limit_mps is None else min(c.vx_max_mps, abs(vx_limit_mps))
        vy_max = c.vy_max_mps if vy_limit_mps is None else min(c.vy_max_mps, abs(vy_limit_mps))
        vth_max = c.vtheta_max_radps if vtheta_limit_radps is None else min(c.vtheta_max_radps, abs(vtheta_limit_radps))
        vx_back = min(c.vx_back_max_mps, vx_max)
        geo = self._geo
        if geo is None or geo.path is not path:
            geo = self._geo = _PathGeometry(path)
            self._progress = 0
        x, y = pose.x_m, pose.y_m
        ex, ey = geo.end
        to_end = _hypot(ex - x, ey - y)
        if geo.n_seg >= 1:
            k, _t, s = geo.closest(x, y, self._progress)
            self._progress = k
            seg_len, cum, px, py = geo.seg_len, geo.cum, geo.px, geo.py
            remaining = max(0.0, cum[-1] - s)
            s_look = min(cum[-1], s + c.lookahead_m)
            j = min(bisect.bisect_right(cum, s_look) - 1, len(seg_len) - 1)
            j = max(j, 0)
            tt = 0.0 if seg_len[j] < 1e-12 else (s_look - cum[j]) / seg_len[j]
            f = min(1.0, max(0.0, tt))
            tx, ty = px[j] + f * (px[j + 1] - px[j]), py[j] + f * (py[j + 1] - py[j])
            remaining = max(remaining, to_end if remaining < c.lookahead_m else 0.0)
        else:
            tx, ty, remaining = ex, ey, to_end
        if to_end < c.lookahead_m:
            tx, ty = ex, ey
        dvx, dvy = tx - x, ty - y
        dnorm = _hypot(dvx, dvy)
        # speed: capped for a smooth stop at the end, proportional in the last centimetres
        v = min(vx_max, math.sqrt(2.0 * 0.6 * c.ax_max_mps2 * remaining), c.position_gain * max(remaining, to_end))
        if to_end < c.arrive_distance_m:
            v = c.position_gain * to_end
        if dnorm > 1e-9:
            vf0, vf1 = dvx / dnorm * v, dvy / dnorm * v
        else:
            vf0 = vf1 = 0.0
        # heading: face the way we walk when far, the goal heading when near
        if to_end > c.face_path_beyond_m and dnorm > 1e-6:
            path_heading = math.atan2(dvy, dvx)
            w = min(1.0, (to_end - c.face_path_beyond_m) / c.face_path_beyond_m)
            target_heading = goal_heading_rad + w * wrap_angle_rad(path_heading - goal_heading_rad)
        else:
            target_heading = goal_heading_rad
        err = wrap_angle_rad(target_heading - pose.theta_rad)
        vth = c.heading_gain * err
        vth = math.copysign(min(abs(vth), math.sqrt(2.0 * 0.8 * c.atheta_max_radps2 * abs(err))), vth)
        vth = max(-vth_max, min(vth_max, vth))
        # into the robot frame; walking sideways is slow, so turn first when far off
        cos, sin = math.cos(pose.theta_rad), math.sin(pose.theta_rad)
        vx = cos * vf0 + sin * vf1
        vy = -sin * vf0 + cos * vf1
        if to_end > c.face_path_beyond_m:
            fade = max(0.0, 1.0 - abs(err) / c.turn_slowdown_rad)
            vx, vy = vx * (0.2 + 0.8 * fade), vy * (0.2 + 0.8 * fade)
        # elliptic speed limit keeps the direction
        vx_cap = vx_max if vx >= 0.0 else vx_back
        scale = math.hypot(vx / max(vx_cap, 1e-9), vy / max(vy_max, 1e-9))
        if scale > 1.0:
            vx, vy = vx / scale, vy / scale
        # acceleration limits against the previous command
        lx, ly, lth = self._last
        dt = max(dt_s, 1e-3)
        vx = lx + max(-c.ax_max_mps2 * dt, min(c.ax_max_mps2 * dt, vx - lx))
        vy = ly + max(-c.ay_max_mps2 * dt, min(c.ay_max_mps2 * dt, vy - ly))
        vth = lth + max(-c.atheta_max_radps2 * dt, min(c.atheta_max_radps2 * dt, vth - lth))
        self._last = (vx, vy, vth)
        return vx, vy, vth
