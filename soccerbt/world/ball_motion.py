"""The ball's motion: rolling, the robots' feet and bodies, the posts and the nets, and the lines it
crosses.

``BallMotion(field, config, dt_s)`` holds what a world's ball physics reads and never changes;
``step(ball, on_field, rng, events, t_prev, t)`` moves the ball by one step of the simulator
(``soccerbt.world.sim.World.step`` calls it after the robots and their collisions): it rolls
with a constant deceleration (``BallConfig``), is pushed by a walking robot's feet (with the
push's direction noise drawn from the world's ``rng``) and bounces off robots, posts and nets,
stops at the carpet's edge, and reports ``BallTouched``, ``GoalScored`` and ``BallOut`` to the
world's ``events``. A walking robot whose feet send the ball off at ``WALK_IN_KICK_SPEED_MPS`` or
more at the start of a contact has kicked it by walking in (``RobotState.walk_in_kicks``, one per
contact): Booster's own Kick node kicks so, walking into the ball at up to 0.8 m/s. 1.0 m/s is the
speed of a ball that then rolls 0.6 m (at the default 0.8 m/s^2): a push that leaves the feet, not
a dribble (a robot walking in at 0.67 m/s or faster gives it, with the feet's gain of 1.5). The
ball stays on the ground: kicks do not lift it, so every ball between the posts is under the
crossbar. Plain Python over a few robots, as the rest of the step.
"""
from __future__ import annotations

import math

import numpy as np

from soccerbt.world.bodies import BallState, RobotState
from soccerbt.world.config import WorldConfig
from soccerbt.world.field import Field
from soccerbt.world.types import BallOut, BallTouched, EventLog, GoalScored

__all__ = ["BallMotion", "WALK_IN_KICK_SPEED_MPS"]

WALK_IN_KICK_SPEED_MPS = 1.0  # the ball speed a walking robot's feet must give it to count as a kick
_WALK_IN_KICK_SPEED2 = WALK_IN_KICK_SPEED_MPS * WALK_IN_KICK_SPEED_MPS

_FRONT_COS = math.cos(math.radians(60.0))  # the feet push the ball within +-60 deg of heading
_TOUCH_EVENT_GAP_S = 0.5  # a dribbling robot reports one touch per this interval


class BallMotion:
    """The ball physics of one world (see the module docstring)."""

    def __init__(self, field: Field, config: WorldConfig, dt_s: float) -> None:
        self.field = field
        self.config = config
        self.dt_s = dt_s
        self._carpet_x_m = field.half_length_m + field.border_strip_m  # the ball stops at the carpet's edge
        self._carpet_y_m = field.half_width_m + field.border_strip_m

    def step(self, ball: BallState, on_field: list[RobotState], rng: np.random.Generator, events: EventLog,
             t_prev: float, t: float) -> None:
        """Move the ball by one step: it rolls, meets the robots on the field (``on_field``), the posts
        and the nets, and stops at the carpet's edge; touches, goals and ball-out go to ``events``."""
        dt = self.dt_s
        cfg = self.config
        px, py = ball.x_m, ball.y_m
        vx, vy = ball.vx_mps, ball.vy_mps
        if vx != 0.0 or vy != 0.0:
            speed = math.sqrt(vx * vx + vy * vy)
            decel = cfg.ball.rolling_deceleration_mps2
            new_speed = speed - decel * dt
            if new_speed <= 0.0:  # stops within this step, after v^2 / 2a
                travel = speed * speed / (2.0 * decel)
                ball.x_m += vx / speed * travel
                ball.y_m += vy / speed * travel
                vx = vy = 0.0
            else:
                ball.x_m += vx * (0.5 * (speed + new_speed) / speed) * dt
                ball.y_m += vy * (0.5 * (speed + new_speed) / speed) * dt
                k = new_speed / speed
                vx *= k
                vy *= k
            ball.vx_mps, ball.vy_mps = vx, vy
        self._robots(ball, on_field, rng, events, t)
        f = self.field
        # the two calls below do nothing away from the goals and inside the lines: not made then
        if abs(ball.x_m) >= f.half_length_m - 0.5:
            self._posts_and_nets(ball, px, py)
        rb = ball.radius_m
        if ball.in_play and (abs(ball.x_m) > f.half_length_m + rb or abs(ball.y_m) > f.half_width_m + rb):
            self._out(ball, events, t, px, py)
        lx, ly = self._carpet_x_m, self._carpet_y_m
        if abs(ball.x_m) > lx or abs(ball.y_m) > ly:  # the carpet ends: the ball stops there
            ball.x_m = max(-lx, min(lx, ball.x_m))
            ball.y_m = max(-ly, min(ly, ball.y_m))
            ball.vx_mps = ball.vy_mps = 0.0

    def _robots(self, ball: BallState, on_field: list[RobotState], rng: np.random.Generator, events: EventLog,
                t: float) -> None:
        body = self.config.body
        reach = body.radius_m + ball.radius_m
        reach2 = reach * reach
        contacts = ball._contacts
        new_contacts: set[int] | None = None
        for r in on_field:
            dx = ball.x_m - r.x_m
            if dx >= reach or dx <= -reach:
                continue
            dy = ball.y_m - r.y_m
            d2 = dx * dx + dy * dy
            if d2 >= reach2:
                continue
            if new_contacts is None:
                new_contacts = set()
            new_contacts.add(r._index)
            d = math.sqrt(d2)
            nx, ny = (dx / d, dy / d) if d > 1e-9 else (math.cos(r.theta_rad), math.sin(r.theta_rad))
            ball.x_m, ball.y_m = r.x_m + nx * reach, r.y_m + ny * reach
            vrx, vry = r._wvx, r._wvy  # zero for a fallen robot
            vr_n = vrx * nx + vry * ny
            vb_n = ball.vx_mps * nx + ball.vy_mps * ny
            if vb_n >= vr_n:  # already separating
                continue
            new_n = vr_n - body.ball_restitution * (vb_n - vr_n)
            pushed = False
            if (not r.fallen and vr_n > 0.0
                    and nx * math.cos(r.theta_rad) + ny * math.sin(r.theta_rad) > _FRONT_COS):
                push = vr_n * body.foot_push_gain
                if push > new_n:
                    new_n = push
                    pushed = True
            tx, ty = ball.vx_mps - vb_n * nx, ball.vy_mps - vb_n * ny
            bvx, bvy = tx + new_n * nx, ty + new_n * ny
            sigma = self.config.noise.push_direction_sigma_rad
            if pushed and sigma:
                ang = float(rng.standard_normal()) * sigma
                c, s = math.cos(ang), math.sin(ang)
                bvx, bvy = c * bvx - s * bvy, s * bvx + c * bvy
            ball.vx_mps, ball.vy_mps = bvx, bvy
            if pushed and r._index not in contacts and bvx * bvx + bvy * bvy >= _WALK_IN_KICK_SPEED2:
                r.walk_in_kicks += 1
            if (r._index not in contacts
                    and (ball.last_touch != r.robot_id or t - ball._last_touch_t_s >= _TOUCH_EVENT_GAP_S)):
                events.events.append(BallTouched(t, r.robot_id))
            ball.last_touch = r.robot_id
            ball._last_touch_t_s = t
        if new_contacts is not None:
            ball._contacts = new_contacts
        elif contacts:
            ball._contacts = set()

    def _posts_and_nets(self, ball: BallState, px: float, py: float) -> None:
        f = self.field
        rb = ball.radius_m
        hx = f.half_length_m
        if abs(ball.x_m) < hx - 0.5:  # (step calls only when it is not)
            return
        post_r = f.goal_post_diameter_m / 2.0
        reach = rb + post_r
        e = self.config.ball.post_restitution
        for qx, qy in f.goal_posts:
            dx, dy = ball.x_m - qx, ball.y_m - qy
            d2 = dx * dx + dy * dy
            if d2 < reach * reach:
                d = math.sqrt(d2)
                nx, ny = (dx / d, dy / d) if d > 1e-9 else (-math.copysign(1.0, qx), 0.0)
                ball.x_m, ball.y_m = qx + nx * reach, qy + ny * reach
                vn = ball.vx_mps * nx + ball.vy_mps * ny
                if vn < 0.0:
                    ball.vx_mps -= (1.0 + e) * vn * nx
                    ball.vy_mps -= (1.0 + e) * vn * ny
        half_goal = f.goal_width_m / 2.0
        if not ball._in_goal:
            # entering the goal mouth: the centre crosses the goal line between the posts
            if abs(ball.x_m) > hx and abs(px) <= hx:
                denom = ball.x_m - px
                frac = (math.copysign(hx, ball.x_m) - px) / denom if denom else 1.0
                if abs(py + frac * (ball.y_m - py)) < half_goal - post_r:
                    ball._in_goal = True
        if ball._in_goal:
            en = self.config.ball.net_restitution
            sign = 1.0 if ball.x_m > 0.0 else -1.0
            back = hx + f.goal_depth_m - rb
            if abs(ball.x_m) > back:
                ball.x_m = sign * back
                if ball.vx_mps * sign > 0.0:
                    ball.vx_mps = -en * ball.vx_mps
            side = half_goal - post_r - rb
            if abs(ball.y_m) > side and abs(ball.x_m) > hx:
                ball.y_m = math.copysign(side, ball.y_m)
                if ball.vy_mps * ball.y_m > 0.0:
                    ball.vy_mps = -en * ball.vy_mps
            if abs(ball.x_m) < hx:
                ball._in_goal = False

    def _out(self, ball: BallState, events: EventLog, t: float, px: float, py: float) -> None:
        """Report a goal or a ball-out once the ball is wholly over a line."""
        f = self.field
        rb = ball.radius_m
        gx = f.half_length_m + rb
        gy = f.half_width_m + rb
        x, y = ball.x_m, ball.y_m
        if abs(x) > gx:
            line_x = math.copysign(gx, x)
            frac = (line_x - px) / (x - px) if x != px else 1.0
            frac = min(1.0, max(0.0, frac))
            yc = py + frac * (y - py)
            if abs(yc) <= gy:
                ball.in_play = False
                if abs(yc) < f.goal_width_m / 2.0:
                    events.events.append(GoalScored(t, x > 0.0, ball.last_touch))
                else:
                    events.events.append(BallOut(t, "goal", math.copysign(f.half_length_m, x), yc,
                                                      ball.last_touch))
                return
        if abs(y) > gy:
            line_y = math.copysign(gy, y)
            frac = (line_y - py) / (y - py) if y != py else 1.0
            frac = min(1.0, max(0.0, frac))
            xc = px + frac * (x - px)
            ball.in_play = False
            events.events.append(BallOut(t, "touch", xc, math.copysign(f.half_width_m, y), ball.last_touch))
