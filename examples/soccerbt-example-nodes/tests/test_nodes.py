"""The example's nodes, one at a time, on soccerbt's fake robot (``soccerbt.testing``): what each
returns, the walk it commands, the reason it gives, and that a halt leaves the robot standing."""
from __future__ import annotations

from soccerbt_example_nodes import SWEEPER_TREE, BallCloserThan, WalkToSpot, register_nodes

from soccerbt.testing import make_node, make_robot, reason, tick, velocity
from soccerbt.trees import TreeFactory
from soccerbt.world.types import Pose2D


def test_ball_closer_than_follows_the_ball_and_says_why() -> None:
    robot = make_robot()
    node = make_node(BallCloserThan, robot, explain=True, distance=1.5)
    robot.scene(Pose2D(0.0, 0.0, 0.0), ball_robot=(1.0, 0.0))
    assert tick(node) == "SUCCESS"
    assert reason(node) == "ball 1.0 m away, limit 1.5 m"
    robot.scene(Pose2D(0.0, 0.0, 0.0), ball_robot=(2.5, 0.0))
    assert tick(node) == "FAILURE"
    assert reason(node) == "ball 2.5 m away, limit 1.5 m"


def test_ball_closer_than_fails_when_the_ball_is_unknown() -> None:
    robot = make_robot()
    node = make_node(BallCloserThan, robot, explain=True)
    robot.see(Pose2D(0.0, 0.0, 0.0))
    assert tick(node) == "FAILURE"
    assert reason(node) == "ball not known"


def test_walk_to_spot_walks_until_there_then_stands() -> None:
    robot = make_robot()
    node = make_node(WalkToSpot, robot, explain=True, x=-3.0, y=0.0, tolerance=0.3, speed=0.6)
    robot.see(Pose2D(0.0, 0.0, 3.14159))  # 3 m from the spot, facing it
    assert tick(node) == "RUNNING"
    vx, _vy, _vtheta = velocity(robot)
    assert 0.0 < vx <= 0.6  # toward the spot, within the speed port
    assert reason(node) == "walking to (-3.0, 0.0): 3.0 m to go"
    robot.see(Pose2D(-2.9, 0.05, 3.14159))
    assert tick(node) == "SUCCESS"
    assert velocity(robot) == (0.0, 0.0, 0.0)
    assert reason(node).startswith("at the spot (-3.0, 0.0)")


def test_a_halted_walk_stops_the_robot() -> None:
    robot = make_robot()
    node = make_node(WalkToSpot, robot, x=2.0, y=1.0)
    robot.see(Pose2D(0.0, 0.0, 0.0))
    assert tick(node) == "RUNNING"
    assert velocity(robot) != (0.0, 0.0, 0.0)
    node.halt_node()
    assert velocity(robot) == (0.0, 0.0, 0.0)


def test_the_sweeper_tree_loads_with_the_nodes_registered() -> None:
    from soccerbt.nodes.soccer import register_soccer_nodes
    from soccerbt.trees.plugins import NodeRegistrar

    factory = TreeFactory()
    register_soccer_nodes(factory)
    register_nodes(NodeRegistrar(factory, "example"))
    assert factory.validate_file(SWEEPER_TREE) == []
