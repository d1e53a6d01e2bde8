"""Validation functions for simulated matches: rules checked at every step of a seeded match.

A ``Rule`` is a predicate over the ``Match`` with a kind: ``always`` rules must never fail
while they apply, ``eventually`` rules must hold at some step. A predicate returns None when it
does not apply at this step, True when it holds, and False or a message string when it does not.
``play(match, seconds, rules, until=...)`` steps the match and checks every rule at every step;
``assert_rules(rules)`` fails the test with the first violations.

The predicates below read the truth of the world and the referee, never the robots' beliefs.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import pytest

from soccerbt.gamecontroller.protocol import GameState, SecondaryState, SubState
from soccerbt.match import Match
from soccerbt.world.types import RobotId, to_team_frame

SET_GRACE_S = 1.0  # robots get this long after SET begins to brake from walking speed
STILL_MPS = 0.05
STILL_RADPS = 0.2


@dataclass
class Rule:
    name: str
    kind: str  # "always" or "eventually"
    predicate: Callable[[Match], object]
    applied: int = 0
    held_at_s: float | None = None  # first time an eventually-rule held
    failures: list[str] = field(default_factory=list)

    def check(self, match: Match) -> None:
        if self.kind == "eventually" and self.held_at_s is not None:
            return
        verdict = self.predicate(match)
        if verdict is None:
            return
        self.applied += 1
        if verdict is True:
            if self.kind == "eventually":
                self.held_at_s = match.t_s
            return
        if self.kind == "always":
            message = verdict if isinstance(verdict, str) else "violated"
            self.failures.append(f"t={match.t_s:.2f}s {message}")

    @property
    def ok(self) -> bool:
        if self.kind == "always":
            return not self.failures
        return self.held_at_s is not None


def always(name: str, predicate: Callable[[Match], object]) -> Rule:
    return Rule(name, "always", predicate)


def eventually(name: str, predicate: Callable[[Match], object]) -> Rule:
    return Rule(name, "eventually", predicate)


def play(match: Match, seconds: float, rules: Iterable[Rule] = (),
         until: Callable[[Match], bool] | None = None) -> list[Rule]:
    """Step ``match`` for up to ``seconds`` of simulated time, checking every rule each step;
    stop early when ``until(match)`` holds."""
    rules = list(rules)
    end_s = match.t_s + seconds
    while match.t_s < end_s - 1e-9 and not match.finished():
        match.step()
        for rule in rules:
            rule.check(match)
        if until is not None and until(match):
            break
    return rules


def assert_rules(rules: Iterable[Rule], min_applied: int = 1) -> None:
    """Every always-rule held (and applied at least ``min_applied`` steps), every
    eventually-rule held at some step."""
    problems = []
    for rule in rules:
        if not rule.ok:
            detail = "; ".join(rule.failures[:5]) if rule.failures else "never held"
            problems.append(f"{rule.kind} '{rule.name}': {detail}")
        elif rule.kind == "always" and rule.applied < min_applied:
            problems.append(f"always '{rule.name}' never applied: the scenario did not test it")
    if problems:
        pytest.fail("\n".join(problems))


# --- views of the truth ----------------------------------------------------------------------


def active_robots(match: Match) -> list[RobotId]:
    """Robots on the field (not picked up)."""
    return [rid for rid, r in match.world.robots.items() if not r.removed]


def team_pose(match: Match, rid: RobotId):
    """A robot's true pose in its team's frame (own goal at negative x)."""
    return to_team_frame(match.world.robots[rid].pose, match.referee.attacks_positive_x(rid.team))


def in_state(match: Match, state: int) -> bool:
    return match.referee.state == state


def state_age_s(match: Match) -> float:
    """Seconds since the referee entered its current state (or set-play sub-state)."""
    return match.t_s - match.referee._phase_start_s


# --- the rules of the issue --------------------------------------------------------------------


def nobody_walks_during_set() -> Rule:
    def pred(match: Match) -> object:
        if not in_state(match, GameState.SET) or state_age_s(match) < SET_GRACE_S:
            return None
        for rid in active_robots(match):
            r = match.world.robots[rid]
            speed = math.hypot(r.vx_mps, r.vy_mps)
            if speed > STILL_MPS or abs(r.vtheta_radps) > STILL_RADPS:
                return f"{rid} walks during SET at {speed:.2f} m/s, {r.vtheta_radps:.2f} rad/s"
        return True

    return always("nobody walks during SET", pred)


def everyone_in_own_half_when_set_starts() -> Rule:
    """At the first step of SET every robot stands in its own half, and the robots of the
    team not kicking off stand outside the centre circle."""
    state = {"prev": None}

    def pred(match: Match) -> object:
        ref = match.referee
        prev, state["prev"] = state["prev"], ref.state
        if ref.state != GameState.SET or prev == GameState.SET:
            return None
        placed = [r for r in ref.history if r.kind == "placed" and r.t_s >= match.t_s - 1e-6]
        if placed:
            return f"the referee had to place {', '.join(str(r.robot) for r in placed)}"
        radius = match.field.centre_circle_radius_m
        for rid in active_robots(match):
            p = team_pose(match, rid)
            if p.x_m > 0.0 or not match.field.is_inside_field(p.x_m, p.y_m):
                return f"{rid} at ({p.x_m:.2f}, {p.y_m:.2f}) is not in its own half"
            if rid.team is not ref.kick_off_team and math.hypot(p.x_m, p.y_m) < radius:
                return f"{rid} of the defending team is inside the centre circle"
        return True

    return always("every robot in its own half when SET starts", pred)


def kick_off_opponents_wait() -> Rule:
    """During the kick-off wait the defending team stays out of the centre circle and does not
    touch the ball (the referee ends the wait when the kicking team plays the ball or 10 s pass)."""
    margin_m = 0.25  # the robot body may reach over the line a little

    def pred(match: Match) -> object:
        ref = match.referee
        if not (ref.state == GameState.PLAYING and ref.secondary_state == SecondaryState.NORMAL
                and ref.kick_off_pending and ref.kick_off_team is not None):
            return None
        if ref._restart_team is not ref.kick_off_team:
            return None  # a free-kick wait, not a kick-off
        radius = match.field.centre_circle_radius_m - margin_m
        for rid in active_robots(match):
            if rid.team is ref.kick_off_team:
                continue
            p = match.world.robots[rid].pose
            if math.hypot(p.x_m, p.y_m) < radius:
                return f"{rid} entered the centre circle before the kick-off was taken"
            if match.world.ball.last_touch == rid:
                return f"{rid} touched the ball before the kick-off was taken"
        return True

    return always("the kicking-off team's opponents wait", pred)


def opponents_keep_free_kick_distance(tolerance_m: float = 0.15) -> Rule:
    """When a set play reaches SET, every opponent of the taking team keeps the distance."""

    def pred(match: Match) -> object:
        ref = match.referee
        if not (ref.state == GameState.PLAYING and ref.secondary_state != SecondaryState.NORMAL
                and ref.sub_state == SubState.SET):
            return None
        bx, by = ref._spot
        need = match.field.free_kick_distance_m - tolerance_m
        for rid in active_robots(match):
            if rid.team is ref.set_play_team:
                continue
            p = match.world.robots[rid].pose
            d = math.hypot(p.x_m - bx, p.y_m - by)
            if d < need:
                return f"{rid} is {d:.2f} m from the ball at the free kick (needs {need + tolerance_m} m)"
        return True

    return always("opponents keep their distance at a free kick", pred)


def restart_after_goal_goes_to_the_conceding_team() -> Rule:
    """After each goal the referee enters READY with the kick-off for the team that conceded."""
    seen = {"goals": 0}

    def pred(match: Match) -> object:
        ref = match.referee
        if len(ref.goals) == seen["goals"]:
            return None
        seen["goals"] = len(ref.goals)
        goal = ref.goals[-1]
        if ref.state != GameState.READY:
            return f"after the goal the state is {GameState(ref.state).name}, not READY"
        if ref.kick_off_team is not goal.team.other:
            return f"{goal.team.name} scored but the kick-off went to {ref.kick_off_team}"
        return True

    return always("after a goal the conceding team kicks off", pred)


@pytest.fixture
def sim():
    """The helpers of this module, for the tests of tests/sim/."""
    import sys

    return sys.modules[__name__]

