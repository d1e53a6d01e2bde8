"""Team planning: roles from team messages, supporter positions, set-piece positions, team link.

- ``TeamMessage``: what a robot broadcasts (pose, ball estimate and its age, its cost to reach
  the ball, its role, the time). ``cost_to_ball`` estimates that cost in seconds.
- ``RoleAssigner``: every robot runs the same deterministic rule on the same messages, so they
  agree: the designated goalkeeper keeps the goal (when it is missing and the team has two
  robots or more, the field player nearest the own goal covers it); of the others the lowest
  cost becomes striker, with hysteresis (a challenger must be clearly cheaper, for a while) so
  roles do not flip on noise; of the rest, in teams of four or more (5 v 5 on the L field, up
  to 7 on S), about half defend (those nearest the own goal, with hysteresis) and the others
  support. Three robots keep a goalkeeper, a striker and a supporter. A person's
  ``RoleChoice`` (the viewer's S, a pad's LT+Y), carried in the messages, overrides the
  negotiation for its goalkeeper and striker until a newer choice withdraws or replaces it.
- ``assign_positions``: ``scipy.optimize.linear_sum_assignment`` over walking distances, with
  a bonus for keeping the previous assignment; ``supporter_targets`` and ``defender_targets``
  propose the spots, scaled to the field (S, M or L).
- Set pieces that obey the HL laws: ``kickoff_positions`` (own half; outside the centre
  circle unless kicking off), ``free_kick_position`` (defenders keep
  ``field.free_kick_distance_m``), ``goalkeeper_blocking_position``; against a shot,
  ``shot_crossing_y`` (where a rolling ball crosses the keeper's line) and
  ``goalkeeper_save_position``.
- ``TeamLink``: a simulated message link with delay, jitter and loss, driven by simulated time
  and a seeded ``numpy.random.Generator``.

Everything is in the team frame (own goal at negative x).
"""
from __future__ import annotations

import enum
import functools
import heapq
import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np
from scipy.optimize import linear_sum_assignment

from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, RobotId, wrap_angle_rad

__all__ = [
    "Role",
    "RoleAssigner",
    "RoleChoice",
    "RoleConfig",
    "RolePolicy",
    "TeamLink",
    "TeamMessage",
    "assign_positions",
    "cost_to_ball",
    "defender_targets",
    "free_kick_position",
    "goalkeeper_blocking_position",
    "goalkeeper_save_position",
    "is_legal_kickoff_position",
    "kickoff_positions",
    "shot_crossing_y",
    "shot_crossing",
    "supporter_targets",
]


class Role(str, enum.Enum):
    """Player roles; the values are Booster's ``player_role`` strings."""

    STRIKER = "striker"
    GOALKEEPER = "goal_keeper"
    SUPPORTER = "supporter"
    DEFENDER = "defender"  # teams of four or more: between the ball and the own goal


@dataclass(frozen=True, slots=True)
class RoleChoice:
    """A person's choice of roles for a team: ``goalkeeper`` keeps the goal and ``striker``
    strikes, whatever the costs say, until a newer choice (higher ``t_s``) replaces it.

    Either number may be None (no robot pinned to that role: the negotiation fills it).
    ``live`` False withdraws the choice (a robot of the pair was penalised): the negotiation
    decides every role again, the designated goalkeeper back in goal.
    """

    t_s: float
    goalkeeper: int | None
    striker: int | None
    live: bool = True


@dataclass(frozen=True, slots=True)
class TeamMessage:
    """One broadcast of a robot to its team (team frame, simulated seconds).

    ``active`` is false while the sender is penalised, fallen or not localized: it then takes
    no role. ``ball_age_s`` is the age of its ball sighting at ``timestamp_s``. ``role_choice``
    is the newest person's role choice the sender knows (None: none was made).
    """

    sender: RobotId
    pose: Pose2D | None
    ball_xy: tuple[float, float] | None
    ball_age_s: float
    cost_to_ball_s: float
    role: Role
    timestamp_s: float
    active: bool = True
    role_choice: RoleChoice | None = None

    @property
    def number(self) -> int:
        return self.sender.number


def cost_to_ball(pose: Pose2D, ball_xy: tuple[float, float] | None, kick_dir_rad: float = 0.0,
                 speed_mps: float = 0.6, turn_radps: float = 1.0, wrong_side_s: float = 2.0,
                 ball_age_s: float = 0.0, max_ball_age_s: float = 5.0) -> float:
    """Seconds to reach the ball ready to kick along ``kick_dir_rad``; inf without a ball.

    Walking distance at ``speed_mps``, the turn to face the ball, a penalty when the robot
    stands on the wrong side of the ball (it must walk around), and the ball's age.
    """
    if ball_xy is None or ball_age_s > max_ball_age_s:
        return math.inf
    dx, dy = ball_xy[0] - pose.x_m, ball_xy[1] - pose.y_m
    dist = math.hypot(dx, dy)
    turn = abs(wrap_angle_rad(math.atan2(dy, dx) - pose.theta_rad)) if dist > 0.3 else 0.0
    along = -(dx * math.cos(kick_dir_rad) + dy * math.sin(kick_dir_rad))
    wrong = wrong_side_s if along > -0.1 and dist > 0.3 else 0.0
    return dist / speed_mps + turn / turn_radps + wrong + ball_age_s


@dataclass(frozen=True)
class RoleConfig:
    goalkeeper_number: int = 1  # the designated goalkeeper
    message_timeout_s: float = 2.0  # older messages mean the sender is gone
    striker_hysteresis_s: float = 1.0  # a challenger must be this much cheaper
    striker_hysteresis_ratio: float = 0.8  # ... and cost at most this fraction of the striker's
    striker_switch_hold_s: float = 0.5  # ... for this long without a break
    keeper_substitute_hysteresis_m: float = 1.0
    defenders: int | None = None  # None: auto, half the non-strikers (rounded up) when two or more
    defender_hysteresis_m: float = 1.0  # a defender stays one unless another is this much deeper

    def defender_count(self, others: int) -> int:
        """How many of ``others`` field players (neither goalkeeper nor striker) defend."""
        if self.defenders is not None:
            return max(0, min(others, self.defenders))
        return (others + 1) // 2 if others >= 2 else 0


@runtime_checkable
class RolePolicy(Protocol):
    """Anything that maps the team's messages to roles."""

    def assign(self, messages: Iterable[TeamMessage], now_s: float) -> dict[int, Role]:
        """Role by player number for every active robot."""


class RoleAssigner:
    """Deterministic role assignment with hysteresis (implements ``RolePolicy``).

    Feed it every fresh message, the robot's own included (``assign``), or the own message and
    the teammates' (``update``). It remembers the previous striker and goalkeeper substitute.
    ``choice`` (a live ``RoleChoice``, set by the team adapter) pins the goalkeeper (it replaces
    the designated one) and the striker while they are active.
    """

    def __init__(self, field: Field, config: RoleConfig | None = None) -> None:
        self.field = field
        self.config = config or RoleConfig()
        self.striker: int | None = None
        self.keeper_substitute: int | None = None
        self.defenders: frozenset[int] = frozenset()
        self.roles: dict[int, Role] = {}
        self._challenger: tuple[int, float] | None = None  # (number, since when)
        self._now_s = 0.0
        self.choice: RoleChoice | None = None
        # why the last striker was chosen, as facts (formatted only when read: ``reason``)
        self._why: tuple = ()

    def reason(self) -> str:
        """Why the last ``assign`` chose its striker: the costs (seconds to the ball) it compared
        and the hysteresis; "" before any assignment."""
        why = self._why
        if not why:
            return ""
        kind = why[0]
        if kind == "pinned":
            return f"striker #{why[1]} pinned by a person's role choice"
        if kind == "cheapest":
            return f"striker #{why[1]}: cheapest to the ball, {why[2]:.2f} s"
        if kind == "lost":
            return f"striker #{why[1]} ({why[2]:.2f} s) replaces #{why[3]}, which cannot reach the ball"
        c = self.config
        if kind == "switch":
            return (f"striker #{why[1]} ({why[2]:.2f} s) replaces #{why[3]} ({why[4]:.2f} s): cheaper by more than "
                    f"{c.striker_hysteresis_s:.1f} s and x{c.striker_hysteresis_ratio:.1f} for "
                    f"{c.striker_switch_hold_s:.1f} s")
        return (f"striker #{why[1]} kept ({why[2]:.2f} s): #{why[3]} ({why[4]:.2f} s) is not cheaper by "
                f"{c.striker_hysteresis_s:.1f} s and x{c.striker_hysteresis_ratio:.1f} for "
                f"{c.striker_switch_hold_s:.1f} s")

    def assign(self, messages: Iterable[TeamMessage], now_s: float) -> dict[int, Role]:
        """Roles by player number; inactive or silent robots get none."""
        c = self.config
        self._now_s = now_s
        latest: dict[int, TeamMessage] = {}
        for m in messages:
            if now_s - m.timestamp_s > c.message_timeout_s or m.timestamp_s > now_s + 1e-9:
                continue
            old = latest.get(m.number)
            if old is None or m.timestamp_s > old.timestamp_s:
                latest[m.number] = m
        active = {n: m for n, m in sorted(latest.items()) if m.active}
        roles: dict[int, Role] = {}
        if not active:
            self.roles = roles
            return roles
        field_players = dict(active)
        choice = self.choice if self.choice is not None and self.choice.live else None
        designated = choice.goalkeeper if choice is not None else c.goalkeeper_number
        keeper = designated if designated in active else None
        if keeper is None and len(active) >= 2:
            keeper = self._substitute_keeper(active)
        else:
            self.keeper_substitute = None
        if keeper is not None:
            roles[keeper] = Role.GOALKEEPER
            field_players.pop(keeper)
        if field_players:
            if choice is not None and choice.striker in field_players:
                striker = choice.striker  # pinned by a person: no cost can take it away
                self._challenger = None
                self._why = ("pinned", striker)
            else:
                striker = self._striker(field_players)
            roles[striker] = Role.STRIKER
            others = {n: m for n, m in field_players.items() if n != striker}
            self.defenders = self._defenders(others)
            for n in field_players:
                roles.setdefault(n, Role.DEFENDER if n in self.defenders else Role.SUPPORTER)
        elif keeper is not None and len(active) == 1:
            pass  # the goalkeeper alone keeps the goal
        self.striker = next((n for n, r in roles.items() if r is Role.STRIKER), None)
        self.roles = roles
        return roles

    def update(self, own: TeamMessage, teammates: Iterable[TeamMessage], now_s: float) -> Role:
        """The own role given the own message and the teammates' (SUPPORTER when inactive)."""
        roles = self.assign([own, *teammates], now_s)
        return roles.get(own.number, Role.SUPPORTER)

    def _striker(self, players: Mapping[int, TeamMessage]) -> int:
        c = self.config
        best = min(players, key=lambda n: (players[n].cost_to_ball_s, n))
        current = self.striker
        if current is None or current not in players:
            # nobody remembered: trust a claim in the messages before the raw minimum
            claims = [n for n, m in players.items() if m.role is Role.STRIKER]
            if len(claims) == 1:
                current = claims[0]
        if current is None or current not in players or current == best:
            self._challenger = None
            self._why = ("cheapest", best, players[best].cost_to_ball_s)
            return best
        cur_cost = players[current].cost_to_ball_s
        new_cost = players[best].cost_to_ball_s
        if math.isinf(cur_cost) and not math.isinf(new_cost):
            self._challenger = None
            self._why = ("lost", best, new_cost, current)
            return best
        if new_cost < cur_cost - c.striker_hysteresis_s and new_cost < cur_cost * c.striker_hysteresis_ratio:
            # a challenger must stay clearly cheaper for a while: one noisy message is not enough
            if self._challenger is None or self._challenger[0] != best:
                self._challenger = (best, self._now_s)
            if self._now_s - self._challenger[1] >= c.striker_switch_hold_s - 1e-9:
                self._challenger = None
                self._why = ("switch", best, new_cost, current, cur_cost)
                return best
        else:
            self._challenger = None
        self._why = ("kept", current, cur_cost, best, new_cost)
        return current

    def _defenders(self, players: Mapping[int, TeamMessage]) -> frozenset[int]:
        """The field players nearest the own goal; the previous defenders get a bonus."""
        count = self.config.defender_count(len(players))
        if count == 0:
            return frozenset()
        goal_x = -self.field.half_length_m
        bonus = self.config.defender_hysteresis_m

        def depth(n: int) -> float:
            p = players[n].pose
            d = math.inf if p is None else math.hypot(p.x_m - goal_x, p.y_m)
            return d - bonus if n in self.defenders else d

        return frozenset(sorted(players, key=lambda n: (depth(n), n))[:count])

    def _substitute_keeper(self, players: Mapping[int, TeamMessage]) -> int:
        goal_x = -self.field.half_length_m

        def dist(n: int) -> float:
            p = players[n].pose
            return math.inf if p is None else math.hypot(p.x_m - goal_x, p.y_m)

        best = min(players, key=lambda n: (dist(n), n))
        cur = self.keeper_substitute
        if cur is not None and cur in players and dist(best) > dist(cur) - self.config.keeper_substitute_hysteresis_m:
            best = cur
        self.keeper_substitute = best
        return best


# --- positions ------------------------------------------------------------------------------


def assign_positions(poses: Sequence[Pose2D], targets: Sequence[Pose2D],
                     previous: Sequence[int] | None = None, keep_bonus_m: float = 0.5) -> list[int]:
    """For each robot the index of its target (-1 when there are fewer targets than robots).

    Minimises the total walking distance (``scipy.optimize.linear_sum_assignment``); keeping
    the previous target (``previous[i]``) is worth ``keep_bonus_m`` so that nearly equal
    assignments do not swap from one call to the next.
    """
    n, m = len(poses), len(targets)
    if n == 0 or m == 0:
        return [-1] * n
    cost = np.empty((n, m))
    for i, p in enumerate(poses):
        for j, t in enumerate(targets):
            cost[i, j] = math.hypot(t.x_m - p.x_m, t.y_m - p.y_m)
    if previous is not None:
        for i, j in enumerate(previous[:n]):
            if 0 <= j < m:
                cost[i, j] -= keep_bonus_m
    rows, cols = linear_sum_assignment(cost)
    out = [-1] * n
    for i, j in zip(rows.tolist(), cols.tolist(), strict=False):
        out[i] = j
    return out


def _face(x_m: float, y_m: float, look_xy: tuple[float, float]) -> Pose2D:
    return Pose2D(x_m, y_m, math.atan2(look_xy[1] - y_m, look_xy[0] - x_m))


def supporter_targets(ball_xy: tuple[float, float], field: Field, n: int,
                      behind_m: float = 2.5, wing_m: float = 2.0) -> list[Pose2D]:
    """``n`` supporting spots facing the ball: behind it toward the own goal, the far wing, then
    (three or more: 5 v 5, 7 v 7) defensive spots between the ball and the own goal
    (``defender_targets``, ``(n - 1) // 2`` of them) and the near wing."""
    bx, by = ball_xy
    hx, hy = field.half_length_m - 0.5, field.half_width_m - 0.5
    gx = -field.half_length_m
    dx, dy = gx - bx, -by
    d = math.hypot(dx, dy) or 1.0
    spots = [(bx + behind_m * dx / d, by + behind_m * dy / d)]
    side = -1.0 if by > 0 else 1.0
    spots.append((bx + 1.0, by + side * wing_m * 1.5))  # the far wing, slightly ahead
    if n >= 3:  # bigger teams keep some robots back (never reached with three players)
        spots.extend((p.x_m, p.y_m) for p in defender_targets(ball_xy, field, (n - 1) // 2))
    spots.append((bx - 1.0, by - side * wing_m))  # the near wing, slightly behind
    spots.append((bx - 2 * behind_m, 0.0))
    out = []
    for k in range(n):
        x, y = spots[k % len(spots)]
        if k >= len(spots):
            y += (k // len(spots)) * 0.8
        x, y = min(hx, max(-hx, x)), min(hy, max(-hy, y))
        out.append(_face(x, y, ball_xy))
    return out


def defender_targets(ball_xy: tuple[float, float], field: Field, n: int,
                     spacing_m: float | None = None) -> list[Pose2D]:
    """``n`` defending spots facing the ball: across the line from the own goal's centre to the
    ball, 40 % of the way out but never inside the own penalty area (the goalkeeper's) nor
    within a metre of the ball when there is room, ``spacing_m`` apart (default: three quarters
    of the goal width, at least 1.5 m); inside the field."""
    if n <= 0:
        return []
    gx = -field.half_length_m
    bx, by = ball_xy
    dx, dy = bx - gx, by
    dist = math.hypot(dx, dy)
    ux, uy = (dx / dist, dy / dist) if dist > 1e-6 else (1.0, 0.0)
    min_depth = field.penalty_area_length_m + 0.5
    depth = max(min_depth, min(0.4 * dist, dist - 1.0))
    spacing = spacing_m if spacing_m is not None else max(1.5, 0.75 * field.goal_width_m)
    cx, cy = gx + depth * ux, depth * uy
    out = []
    for k in range(n):
        off = (k - (n - 1) / 2.0) * spacing
        x, y = field.clamp_to_field(cx - uy * off, cy + ux * off, 0.3)
        out.append(_face(x, y, ball_xy))
    return out


def kickoff_positions(field: Field, roles: Sequence[Role], we_kick_off: bool,
                      robot_radius_m: float = 0.25) -> list[Pose2D]:
    """Legal kick-off poses, one per role in order, all facing the opponent goal.

    Goalkeeper on the own goal line's front; striker at the ball when kicking off, otherwise
    just outside the centre circle; the others on six spots scaled to the field (S, M, L): two
    wings at half the own half, two backs at two thirds (in front of the penalty area), two
    forward wings near the touch lines (clear of the centre circle). Supporters take the wings
    first, defenders the backs first; with supporters only the spots go in that order (three
    players use the first two, as always).
    """
    # the nodes ask every tick with the same few arguments: computed once per combination
    return list(_kickoff_positions(field, tuple(roles), bool(we_kick_off), float(robot_radius_m)))


@functools.lru_cache(maxsize=256)
def _kickoff_positions(field: Field, roles: tuple[Role, ...], we_kick_off: bool,
                       robot_radius_m: float) -> tuple[Pose2D, ...]:
    hx, hy, r_cc = field.half_length_m, field.half_width_m, field.centre_circle_radius_m
    out: list[Pose2D] = []
    back_x = max(-2.0 * hx / 3.0, -hx + field.penalty_area_length_m + robot_radius_m + 0.2)
    spots = [(-hx / 2.0, hy / 2.0), (-hx / 2.0, -hy / 2.0),  # wings
             (back_x, hy / 5.0), (back_x, -hy / 5.0),  # backs
             (-hx / 4.0, 3.0 * hy / 4.0), (-hx / 4.0, -3.0 * hy / 4.0)]  # forward wings
    used: set[int] = set()
    order = {Role.DEFENDER: (2, 3, 0, 1, 4, 5)}
    default_order = (0, 1, 4, 5, 2, 3) if Role.DEFENDER in roles else (0, 1, 2, 3, 4, 5)
    strikers = 0
    extra = 0
    for role in roles:
        if role is Role.GOALKEEPER:
            out.append(Pose2D(-hx + 0.5, 0.0, 0.0))
        elif role is Role.STRIKER and strikers == 0:
            strikers += 1
            if we_kick_off:
                out.append(Pose2D(-(field.ball_radius_m + robot_radius_m + 0.1), 0.0, 0.0))
            else:
                out.append(Pose2D(-(r_cc + robot_radius_m + 0.3), 0.0, 0.0))
        else:
            free = [k for k in order.get(role, default_order) if k not in used]
            if free:
                used.add(free[0])
                x, y = spots[free[0]]
            else:  # more than eight players: a row across the own half
                extra += 1
                x, y = -hx / 3.0, hy * (0.9 - 0.3 * (extra % 7))
            out.append(Pose2D(x, y, 0.0))
    return tuple(out)


def is_legal_kickoff_position(pose: Pose2D, field: Field, kicking_off: bool,
                              robot_radius_m: float = 0.25) -> bool:
    """Own half, inside the field, and outside the centre circle unless kicking off."""
    if not field.is_inside_own_half(pose.x_m, pose.y_m):
        return False
    if pose.x_m > -robot_radius_m and not kicking_off:
        return False
    if not kicking_off and math.hypot(pose.x_m, pose.y_m) < field.centre_circle_radius_m + robot_radius_m:
        return False
    return True


def free_kick_position(ball_xy: tuple[float, float], field: Field, attacking: bool,
                       kick_dir_rad: float = 0.0, attack_dist_m: float = 0.7,
                       defense_dist_m: float = 1.9, robot_radius_m: float = 0.25,
                       margin_m: float = 0.2) -> Pose2D:
    """Where to stand for a free kick.

    Attacking: ``attack_dist_m`` behind the ball along the kick direction, facing it.
    Defending: between the ball and the own goal, at least ``field.free_kick_distance_m`` plus
    the robot radius and a margin from the ball (and ``defense_dist_m``), inside the field,
    facing the ball.
    """
    bx, by = ball_xy
    if attacking:
        c, s = math.cos(kick_dir_rad), math.sin(kick_dir_rad)
        return Pose2D(bx - attack_dist_m * c, by - attack_dist_m * s, wrap_angle_rad(kick_dir_rad))
    dist = max(defense_dist_m, field.free_kick_distance_m + robot_radius_m + margin_m)
    base = math.atan2(-by, -field.half_length_m - bx)
    lim_x, lim_y = field.half_length_m - robot_radius_m, field.half_width_m - robot_radius_m
    for k in range(0, 19):
        for sign in ((1.0,) if k == 0 else (1.0, -1.0)):
            a = base + sign * k * math.radians(10.0)
            x, y = bx + dist * math.cos(a), by + dist * math.sin(a)
            if abs(x) <= lim_x and abs(y) <= lim_y:
                return _face(x, y, ball_xy)
    x, y = field.clamp_to_field(bx - dist, by, robot_radius_m)
    return _face(x, y, ball_xy)


def goalkeeper_blocking_position(ball_xy: tuple[float, float], field: Field,
                                 dist_to_goalline_m: float = 1.0) -> Pose2D:
    """On the line from the ball to the own goal centre, ``dist_to_goalline_m`` in front of the
    goal line, clamped to the own penalty area and never beyond the ball; facing the ball."""
    gx = -field.half_length_m
    bx, by = ball_xy
    dx, dy = bx - gx, by
    d = math.hypot(dx, dy)
    if d < 1e-6:
        return Pose2D(gx + dist_to_goalline_m, 0.0, 0.0)
    ux, uy = dx / d, dy / d
    t = dist_to_goalline_m / ux if ux > 1e-3 else field.penalty_area_width_m / 2.0
    t = min(t, max(0.0, d - 0.5))
    x, y = gx + t * ux, t * uy
    x = min(max(x, gx + 0.2), gx + field.penalty_area_length_m)
    half = field.penalty_area_width_m / 2.0
    y = min(half, max(-half, y))
    return _face(x, y, ball_xy)


def shot_crossing(ball_xy: tuple[float, float], ball_velocity: tuple[float, float], line_x_m: float,
                  min_speed_mps: float = 1.0, deceleration_mps2: float = 0.8) -> tuple[float | None, str]:
    """Where a ball rolling toward the own goal crosses the line x = ``line_x_m``: (the y there,
    "") or (None, why not): "slow" (it moves toward the own goal slower than ``min_speed_mps``),
    "behind" (it is already behind the line) or "stops" (rolling at ``deceleration_mps2`` it
    stops before the line)."""
    bx, by = ball_xy
    vx, vy = ball_velocity
    if vx > -min_speed_mps:
        return None, "slow"
    if bx <= line_x_m:
        return None, "behind"
    speed = math.hypot(vx, vy)
    # the path to the line, and whether the ball still rolls when it gets there
    t_straight = (line_x_m - bx) / vx
    path_m = speed * t_straight
    if speed * speed < 2.0 * deceleration_mps2 * path_m:
        return None, "stops"
    return by + vy * t_straight, ""


def shot_crossing_y(ball_xy: tuple[float, float], ball_velocity: tuple[float, float], line_x_m: float,
                    min_speed_mps: float = 1.0, deceleration_mps2: float = 0.8) -> float | None:
    """``shot_crossing``'s y, or None."""
    return shot_crossing(ball_xy, ball_velocity, line_x_m, min_speed_mps, deceleration_mps2)[0]


def goalkeeper_save_position(ball_xy: tuple[float, float], crossing_y_m: float, field: Field,
                             dist_to_goalline_m: float = 0.8, margin_m: float = 0.2) -> Pose2D:
    """Where the goalkeeper meets a shot that crosses its line (``dist_to_goalline_m`` in front
    of the goal line) at ``crossing_y_m``: that point, no wider than the goal plus ``margin_m``,
    facing the ball."""
    half = field.goal_width_m / 2.0 + margin_m
    y = min(half, max(-half, crossing_y_m))
    return _face(-field.half_length_m + dist_to_goalline_m, y, ball_xy)


# --- team link --------------------------------------------------------------------------------


class TeamLink:
    """A simulated team-message link: every message reaches each teammate after a delay, or is
    lost. Driven by simulated time; deterministic given the Generator."""

    def __init__(self, rng: np.random.Generator, delay_s: float = 0.05, jitter_s: float = 0.03,
                 loss_probability: float = 0.1) -> None:
        if not 0.0 <= loss_probability <= 1.0:
            raise ValueError(f"loss_probability must be within 0..1, got {loss_probability}")
        if delay_s < 0.0 or jitter_s < 0.0:
            raise ValueError(f"delay_s and jitter_s must not be negative, got {delay_s}, {jitter_s}")
        self.rng = rng
        self.delay_s = delay_s
        self.jitter_s = jitter_s
        self.loss_probability = loss_probability
        self._members: set[RobotId] = set()
        self._queues: dict[RobotId, list[tuple[float, int, TeamMessage]]] = {}
        self._seq = 0
        self.sent = 0
        self.lost = 0
        self.delivered = 0

    def register(self, robot: RobotId) -> None:
        """Let ``robot`` receive its team's messages from now on."""
        self._members.add(robot)
        self._queues.setdefault(robot, [])

    def send(self, message: TeamMessage, now_s: float) -> None:
        """Broadcast to the sender's registered teammates (each copy may be lost)."""
        self.sent += 1
        for robot in sorted(self._members):
            if robot == message.sender or robot.team is not message.sender.team:
                continue
            if self.rng.random() < self.loss_probability:
                self.lost += 1
                continue
            arrive = now_s + self.delay_s + (self.rng.uniform(0.0, self.jitter_s) if self.jitter_s else 0.0)
            self._seq += 1
            heapq.heappush(self._queues[robot], (arrive, self._seq, message))

    def receive(self, robot: RobotId, now_s: float) -> list[TeamMessage]:
        """The messages that arrived at ``robot`` by ``now_s``, in arrival order."""
        q = self._queues.get(robot)
        if q is None:
            raise KeyError(f"{robot} is not registered on this team link")
        out = []
        while q and q[0][0] <= now_s:
            out.append(heapq.heappop(q)[2])
        self.delivered += len(out)
        return out
