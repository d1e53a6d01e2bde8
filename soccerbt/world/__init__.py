"""The simulated world: field geometry, world types, the simulator (truth and time), sensors.

Imports nothing else of soccerbt. Truth lives here; robots see only what the sensors report.

- ``types``: poses, robot ids, commands, limits, events and observations (shared by everybody)
- ``field``: the HL field geometry and its landmarks
- ``config``: WorldConfig and its parts (noise, camera, body, ball)
- ``sim``: World, RobotState, BallState (the truth and the clock); on ``ball_motion`` (the ball's
  physics) and ``commands`` (a robot's command checked, clamped and stored)
- ``sensors``: the camera model

``World``, ``WorldConfig`` and the other simulator names are importable from here; they load
(with numpy) on first use.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from soccerbt.world.field import FeatureKind, Field, FieldFeature, LineSegment
from soccerbt.world.types import (
    BALL,
    ROBOT,
    BallKicked,
    BallOut,
    BallTouched,
    Detection,
    EventLog,
    GoalScored,
    KickRequest,
    Observations,
    Pose2D,
    RobotCommand,
    RobotFell,
    RobotId,
    RobotLimits,
    RobotStoodUp,
    Team,
    WorldEvent,
)

if TYPE_CHECKING:
    from soccerbt.world.config import BallConfig, BodyConfig, CameraConfig, NoiseConfig, WorldConfig
    from soccerbt.world.sim import BallState, RobotState, World

# The simulator and its numpy import load on first use: importing the shared types stays cheap.
_LAZY = {"World": "sim", "RobotState": "sim", "BallState": "sim", "WorldConfig": "config",
         "NoiseConfig": "config", "CameraConfig": "config", "BodyConfig": "config", "BallConfig": "config"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # deferred: start-up: numpy (about 0.13 s, the simulator's) stays out of soccerbt nodes and validate
    return getattr(importlib.import_module(f"soccerbt.world.{module}"), name)


__all__ = [
    "BALL", "ROBOT", "BallConfig", "BallKicked", "BallOut", "BallState", "BallTouched", "BodyConfig",
    "CameraConfig", "Detection", "EventLog", "FeatureKind", "Field", "FieldFeature", "GoalScored",
    "KickRequest", "LineSegment", "NoiseConfig", "Observations", "Pose2D", "RobotCommand", "RobotFell",
    "RobotId", "RobotLimits", "RobotState", "RobotStoodUp", "Team", "World", "WorldConfig", "WorldEvent",
]
