"""What a Booster robot's messages mean to the brain, and back.

Vision labels (robocup_demo's detector: ``Ball``, ``Goalpost``, ``Person``, ``Opponent``,
``LCross``, ``TCross``, ``XCross``, ``PenaltyPoint``) map onto the detection kinds of
``soccerbt.world`` (``ball``, ``goal_post``, ``robot``, ``L``, ``T``, ``X``, ``penalty_mark``);
``CenterCircle`` carries the centre circle our simulated camera reports. A detection's place is
its ``position_projection`` (x, y in the robot frame, metres: robocup_demo's brain uses it, not
the depth estimate), its confidence is a percentage on the wire (0..100) and 0..1 here; a robot's
team comes from the ``color`` the colour classifier writes ("blue"/"red", or a team number).
Anything not finite, farther than ``MAX_RANGE_M`` or with fewer than two coordinates is dropped
and counted; at most ``MAX_OBJECTS`` objects of one message are read.

Field lines: ``LineSegments.coordinates`` holds x0, y0, x1, y1 per segment in the robot frame.
The low state gives the head joints (serial motors 0 and 1: yaw and pitch, as robocup_demo
reads them) and the IMU; the fall-down state says whether the robot is down.

``detections_message`` and friends go the other way (the served simulator publishes what its
camera model saw in the robot's words).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from soccerbt.world.types import BALL, ROBOT, Detection, Team

__all__ = ["KIND_OF_LABEL", "LABEL_OF_KIND", "MAX_OBJECTS", "MAX_RANGE_M", "ConvertCounters", "FALLEN_STATES",
           "detections_from_message", "line_segments_from_message", "head_from_low_state", "team_of_colour"]

KIND_OF_LABEL = {"Ball": BALL, "Goalpost": "goal_post", "Person": ROBOT, "Opponent": ROBOT, "LCross": "L",
                 "TCross": "T", "XCross": "X", "PenaltyPoint": "penalty_mark", "CenterCircle": "centre_circle"}
LABEL_OF_KIND = {BALL: "Ball", "goal_post": "Goalpost", ROBOT: "Opponent", "L": "LCross", "T": "TCross",
                 "X": "XCross", "penalty_mark": "PenaltyPoint", "centre_circle": "CenterCircle"}
MAX_OBJECTS = 64  # per Detections message: more is a flood, not a camera frame
MAX_SEGMENTS = 128
MAX_RANGE_M = 30.0  # nothing on a field is farther from a robot on it
# FallDownState.fall_down_state: IS_READY 0, IS_FALLING 1, HAS_FALLEN 2, IS_GETTING_UP 3
FALLEN_STATES = frozenset({1, 2, 3})


@dataclass(slots=True)
class ConvertCounters:
    """Objects, segments and messages the conversion refused."""

    objects_dropped: int = 0  # not finite, too far, too few coordinates, unknown label
    objects_over_limit: int = 0  # beyond MAX_OBJECTS in one message
    segments_dropped: int = 0


def team_of_colour(colour: str) -> Team | None:
    """A robot's team from the classifier's colour text (None when it says nothing we know)."""
    text = colour.strip().lower()
    if text in ("blue", "0"):
        return Team.BLUE
    if text in ("red", "1"):
        return Team.RED
    return None


def _finite_xy(values: Sequence[float]) -> tuple[float, float] | None:
    if len(values) < 2:
        return None
    x, y = float(values[0]), float(values[1])
    if not (math.isfinite(x) and math.isfinite(y)) or math.hypot(x, y) > MAX_RANGE_M:
        return None
    return x, y


def detections_from_message(message: Any, counters: ConvertCounters | None = None) -> tuple[Detection, ...]:
    """The detections of a ``vision_interface/Detections`` message, robot frame, in order."""
    out: list[Detection] = []
    objects = message.detected_objects
    if counters is not None and len(objects) > MAX_OBJECTS:
        counters.objects_over_limit += len(objects) - MAX_OBJECTS
    for obj in objects[:MAX_OBJECTS]:
        kind = KIND_OF_LABEL.get(obj.label)
        xy = _finite_xy(obj.position_projection)
        confidence = float(obj.confidence)
        if kind is None or xy is None or not math.isfinite(confidence):
            if counters is not None:
                counters.objects_dropped += 1
            continue
        team = team_of_colour(obj.color) if kind == ROBOT else None
        out.append(Detection(kind, xy[0], xy[1], min(1.0, max(0.0, confidence / 100.0)), team))
    return tuple(out)


def line_segments_from_message(message: Any, counters: ConvertCounters | None = None
                               ) -> tuple[tuple[float, float, float, float], ...]:
    """The segments of a ``vision_interface/LineSegments`` message (x0, y0, x1, y1), robot frame."""
    coordinates = message.coordinates
    n = len(coordinates) // 4
    out = []
    for i in range(min(n, MAX_SEGMENTS)):
        x0, y0, x1, y1 = (float(v) for v in coordinates[4 * i:4 * i + 4])
        if all(math.isfinite(v) and abs(v) <= MAX_RANGE_M for v in (x0, y0, x1, y1)):
            out.append((x0, y0, x1, y1))
        elif counters is not None:
            counters.segments_dropped += 1
    if counters is not None and n > MAX_SEGMENTS:
        counters.segments_dropped += n - MAX_SEGMENTS
    return tuple(out)


def head_from_low_state(message: Any) -> tuple[float, float] | None:
    """(pan, tilt) of the head, radians, from the low state's serial motors 0 (yaw) and 1
    (pitch); None when the message has no such motors or their angles are not finite."""
    motors = message.motor_state_serial
    if len(motors) < 2:
        return None
    yaw, pitch = float(motors[0].q), float(motors[1].q)
    if not (math.isfinite(yaw) and math.isfinite(pitch)):
        return None
    return yaw, pitch


def imu_yaw_from_low_state(message: Any) -> float | None:
    """The IMU's yaw (rad), None when not finite."""
    rpy = message.imu_state.rpy
    if len(rpy) < 3 or not math.isfinite(float(rpy[2])):
        return None
    return float(rpy[2])


def label_of(detection: Detection) -> str:
    """The vision label a detection of this kind carries on a Booster robot."""
    return LABEL_OF_KIND.get(detection.kind, "Person")


def segments_to_coordinates(segments: Iterable[tuple[float, float, float, float]]) -> list[float]:
    """Flatten segments into ``LineSegments.coordinates``."""
    out: list[float] = []
    for seg in segments:
        out.extend(seg)
    return out
