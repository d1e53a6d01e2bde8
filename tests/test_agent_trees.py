"""Agent with the real XML engine and soccer nodes: commands, node exceptions, hot reload."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from soccerbt.agent import Agent
from soccerbt.nodes import ActionNode
from soccerbt.nodes.soccer import register_soccer_nodes
from soccerbt.nodes.soccer.context import RobotContext
from soccerbt.services.world_model import WorldModel
from soccerbt.trees import TreeFactory, TreeLoadError
from soccerbt.world.field import Field
from soccerbt.world.types import Observations, Pose2D, RobotCommand, RobotId, Team

FIELD = Field.adult_size()
ROBOT = RobotId(Team.RED, 3)


class Driver:
    def __init__(self) -> None:
        self.commands: list[RobotCommand] = []

    def sense(self) -> Observations:
        return Observations(0.0, False, (), Pose2D(), 0.0, False, 0.0, 0.0)

    def act(self, command: RobotCommand) -> None:
        self.commands.append(command)


class Explode(ActionNode):
    """Raises when the blackboard says so (a node with a bug)."""

    @classmethod
    def provided_ports(cls):
        return []

    def update(self):
        import py_trees

        if self.context.bb_get("explode", False):
            raise ZeroDivisionError("a bug in a node")
        return py_trees.common.Status.SUCCESS


def tree_xml(body: str) -> str:
    return f'<root BTCPP_format="4">\n  <BehaviorTree ID="MainTree">\n{body}\n  </BehaviorTree>\n</root>\n'


WALK = tree_xml('    <Sequence>\n      <Explode/>\n      <SetVelocity x="0.4" y="0" theta="0.1"/>\n    </Sequence>')


def build(tmp_path: Path, text: str = WALK) -> tuple[Agent, Driver, Path]:
    path = tmp_path / "walk.xml"
    path.write_text(text)
    os.utime(path, ns=(10**9, 10**9))
    factory = TreeFactory()
    register_soccer_nodes(factory)
    factory.register_node_type("Explode", Explode)
    context = RobotContext(robot=ROBOT, field=FIELD, clock=lambda: 0.0, world_model=WorldModel(FIELD, Team.RED))
    driver = Driver()

    def load(p: Path):
        return factory.create_tree_from_file(p, context=context)

    return Agent(ROBOT, driver, context, path, load), driver, path


def test_a_real_tree_drives_the_robot(tmp_path: Path) -> None:
    agent, driver, _ = build(tmp_path)
    cmd = agent.step(0.01)
    assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps) == (pytest.approx(0.4), 0.0, pytest.approx(0.1))
    assert agent.last_status.name == "SUCCESS"
    assert driver.commands == [cmd]


def test_a_raising_node_is_reported_with_its_path_and_the_robot_stops(tmp_path: Path) -> None:
    agent, _, _ = build(tmp_path)
    agent.step(0.01)
    agent.blackboard["explode"] = True
    for k in range(2, 6):
        cmd = agent.step(k * 0.01)
        assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps) == (0.0, 0.0, 0.0)
    assert len(agent.events) == 1 and agent.events[0].kind == "node_exception"
    (path,) = agent.node_exceptions
    assert "Explode" in path and agent.node_exceptions[path] == 4
    assert "a bug in a node" in agent.events[0].message
    agent.blackboard["explode"] = False
    assert agent.step(0.06).vx_mps == pytest.approx(0.4)


def test_hot_reload_with_the_engine_keeps_the_tree_on_a_located_error(tmp_path: Path) -> None:
    agent, _, path = build(tmp_path)
    agent.step(0.01)
    broken = WALK.replace('<SetVelocity x="0.4"', '<SetVelocityy x="0.4"')
    path.write_text(broken)
    os.utime(path, ns=(2 * 10**9, 2 * 10**9))
    result = agent.reload_tree_if_changed()
    assert result is not None and not result.reloaded
    assert result.error.startswith(f"{path.resolve()}:5:") or result.error.startswith(f"{path}:5:")
    assert "SetVelocityy" in result.error
    assert agent.step(0.02).vx_mps == pytest.approx(0.4)  # the old tree still runs
    path.write_text(WALK.replace('x="0.4"', 'x="0.7"'))
    os.utime(path, ns=(3 * 10**9, 3 * 10**9))
    assert agent.reload_tree_if_changed().reloaded
    assert agent.step(0.03).vx_mps == pytest.approx(0.7)


def test_a_broken_tree_at_start_raises_the_located_error(tmp_path: Path) -> None:
    with pytest.raises(TreeLoadError) as err:
        build(tmp_path, tree_xml("    <Sequence>\n      <NoSuchNode/>\n    </Sequence>"))
    assert err.value.line == 4 and "NoSuchNode" in str(err.value)
