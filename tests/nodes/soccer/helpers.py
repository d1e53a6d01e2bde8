"""The fake robot of the soccer-node tests: ``soccerbt.testing`` (public, for a team's tests too)."""
from __future__ import annotations

from soccerbt.testing import FakeRobot as Robot
from soccerbt.testing import PoseLocalizer, make_node, make_robot, tick, velocity

__all__ = ["Robot", "PoseLocalizer", "make_node", "make_robot", "tick", "velocity"]
