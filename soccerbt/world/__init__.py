"""The simulated world: field geometry, world types, the simulator (truth and time), sensors.

Imports nothing else of soccerbt. Truth lives here; robots see only what the sensors report.

- ``types``: poses, robot ids, commands, limits, events and observations (shared by everybody)
- ``field``: the HL field geometry and its landmarks
- ``config``: WorldConfig and its parts (noise, camera, body, ball)
- ``sim``: World, RobotState, BallState (the truth and the clock)
- ``sensors``: the camera model
"""
from soccerbt.world.config import BallConfig, BodyConfig, CameraConfig, NoiseConfig, WorldConfig
from soccerbt.world.field import FeatureKind, Field, FieldFeature, LineSegment
from soccerbt.world.sim import BallState, RobotState, World
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

__all__ = [
    "BALL", "ROBOT", "BallConfig", "BallKicked", "BallOut", "BallState", "BallTouched", "BodyConfig",
    "CameraConfig", "Detection", "EventLog", "FeatureKind", "Field", "FieldFeature", "GoalScored",
    "KickRequest", "LineSegment", "NoiseConfig", "Observations", "Pose2D", "RobotCommand", "RobotFell",
    "RobotId", "RobotLimits", "RobotState", "RobotStoodUp", "Team", "World", "WorldConfig", "WorldEvent",
]
