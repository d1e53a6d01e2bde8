"""A person's role swap (S, LT+Y) holds against the role negotiation (issue 15).

The rule: the swap holds until the person swaps again, or until a robot of the swapped pair is
penalised (the penalty withdraws the choice; the designated goalkeeper goes back in goal).
"""
from __future__ import annotations

import math

import pygame

from soccerbt.drivers.gamepad import ChordAction, ManualInput, apply_input
from soccerbt.drivers.keyboard import KeyboardPad
from soccerbt.drivers.pad_devices import PadManager
from soccerbt.match import Match, MatchConfig
from soccerbt.services.planning import Role, RoleAssigner, RoleChoice, TeamMessage
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, RobotId, Team

BLUE = ("blue1", "blue2", "blue3")


def roles(match: Match) -> dict[str, object]:
    return {name: match.agent(name).blackboard["player_role"] for name in BLUE}


def negotiated(match: Match) -> list[dict[int, Role]]:
    """Every blue robot's own view of the team's roles."""
    return [dict(match.agent(name).team.assigner.roles) for name in BLUE]


def run_checking(match: Match, seconds: float, expected: dict[str, str], settle_s: float | None = None) -> None:
    """Run ``seconds``; after ``settle_s`` (team messages travel; default two message periods:
    0.45 s each under the HSL budget) the roles must stay ``expected``."""
    if settle_s is None:
        settle_s = 2.0 * match.team_message_period_s + 0.05
    start = match.t_s
    while match.t_s < start + seconds - 1e-9:
        match.step()
        if match.t_s >= start + settle_s:
            assert {k: roles(match)[k] for k in expected} == expected, f"t={match.t_s:.2f}"


def swap(match: Match, name: str) -> None:
    apply_input(ManualInput(actions=[ChordAction.SWAP_ROLES]), match.agent(name).blackboard, match.t_s, name)


def test_swap_holds_for_seconds_and_swapping_again_brings_it_back() -> None:
    pygame.display.init()
    manager = PadManager()
    manager.keyboard = KeyboardPad()
    match = Match(MatchConfig(seed=1, duration_s=60.0), pads=manager)
    manager.set_keyboard_robot("blue2")
    match.run(3.0)
    assert roles(match)["blue1"] == "goal_keeper" and roles(match)["blue2"] == "striker"

    swap(match, "blue2")  # the striker goes in goal, the goalkeeper strikes
    match.step()
    assert roles(match)["blue2"] == "goal_keeper"  # at once on the robot the person drives
    run_checking(match, 4.0, {"blue1": "striker", "blue2": "goal_keeper"})
    for view in negotiated(match):  # every teammate's negotiation agrees
        assert view[2] is Role.GOALKEEPER and view[1] is Role.STRIKER

    # the keyboard's S, on the same robot: back to the first roles, and they hold too
    manager.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_s, mod=0))
    manager.handle_event(pygame.event.Event(pygame.KEYUP, key=pygame.K_s, mod=0))
    run_checking(match, 2.0, {"blue1": "goal_keeper", "blue2": "striker"})
    assert [e.kind for e in manager.drain_events()].count("swap_roles") == 1


def test_a_penalty_of_the_pair_withdraws_the_swap() -> None:
    match = Match(MatchConfig(seed=1, duration_s=60.0))
    match.run(3.0)
    swap(match, "blue2")
    run_checking(match, 1.0, {"blue1": "striker", "blue2": "goal_keeper"})
    blue2 = RobotId(Team.BLUE, 2)
    assert match.referee.penalize(blue2, duration_s=math.inf)
    run_checking(match, 1.5, {"blue1": "goal_keeper"}, settle_s=1.0)  # the goal is not left empty
    assert match.referee.unpenalize(blue2)
    run_checking(match, 1.5, {"blue1": "goal_keeper"})
    assert roles(match)["blue2"] != "goal_keeper"  # back from the penalty: negotiated again


def _message(number: int, x_m: float, cost_s: float, role: Role, t_s: float = 1.0) -> TeamMessage:
    return TeamMessage(RobotId(Team.BLUE, number), Pose2D(x_m, 0.0, 0.0), (0.0, 0.0), 0.0, cost_s, role, t_s)


def test_role_assigner_honours_a_live_choice_only() -> None:
    assigner = RoleAssigner(Field.adult_size())
    msgs = [_message(1, -4.0, 9.0, Role.GOALKEEPER), _message(2, -1.0, 1.0, Role.STRIKER),
            _message(3, -2.0, 5.0, Role.SUPPORTER)]
    assert assigner.assign(msgs, 1.0) == {1: Role.GOALKEEPER, 2: Role.STRIKER, 3: Role.SUPPORTER}
    assigner.choice = RoleChoice(1.0, goalkeeper=2, striker=1)
    assert assigner.assign(msgs, 1.1) == {2: Role.GOALKEEPER, 1: Role.STRIKER, 3: Role.SUPPORTER}
    assigner.choice = RoleChoice(1.2, goalkeeper=3, striker=None)  # a supporter went in goal
    got = assigner.assign(msgs, 1.2)
    # the previous goalkeeper is a field player; the striker stays the negotiation's (hysteresis)
    assert got[3] is Role.GOALKEEPER and {got[1], got[2]} == {Role.STRIKER, Role.SUPPORTER}
    assigner.choice = RoleChoice(1.3, None, None, live=False)  # withdrawn: the negotiation again
    assert assigner.assign(msgs, 1.3) == {1: Role.GOALKEEPER, 2: Role.STRIKER, 3: Role.SUPPORTER}
