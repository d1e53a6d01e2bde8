"""What a robot plans its paths around: round ``Obstacle``s on the ground (team frame).

Plain data, no numpy: the nodes and the kick planner build obstacles without the path planner's
geometry (soccerbt.services.visibility_graph) loaded.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

__all__ = ["Obstacle", "robot_obstacles"]


@dataclass(frozen=True, slots=True)
class Obstacle:
    """A round obstacle on the ground (team frame). ``kind`` is "robot", "post", "ball"..."""

    x_m: float
    y_m: float
    radius_m: float
    kind: str = "robot"


def robot_obstacles(points_xy: Iterable[tuple[float, float]], radius_m: float = 0.25,
                    kind: str = "robot") -> list[Obstacle]:
    """Obstacles for robots seen at these positions (e.g. the world model's obstacle list)."""
    return [Obstacle(float(x), float(y), radius_m, kind) for x, y in points_xy]
