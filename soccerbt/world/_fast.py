"""Fast constructors for the frozen world types built at every step (observations, poses,
detections).

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, one call per
field. Each type here has a *twin*: a plain class with the same ``__slots__``, hence the same
memory layout, whose ``__init__`` stores the fields directly; assigning ``__class__`` then makes
the object an instance of the frozen type (Python allows it between classes of identical
layout). That builds an object in under half the constructor's time (and in about two thirds
of the time of setting the slot descriptors one call at a time), which matters for objects
built thousands of times per simulated second. Hot loops inline the two steps::

    det = DetectionTwin(kind, x_m, y_m, confidence, team)
    det.__class__ = Detection

The results are ordinary instances: of the frozen type itself, equal to and indistinguishable
from those the constructors make, frozen. A twin must list its type's fields in order: this
module checks it at import and tests/world/test_fast.py checks the field lists, so a field
added to a type fails loudly here instead of being left unset.
"""
from __future__ import annotations

from soccerbt.world.types import Detection, Observations, Pose2D, Team

OBSERVATION_FIELDS = ("t_s", "camera_frame", "detections", "odometry", "imu_yaw_rad", "fallen",
                      "head_pan_rad", "head_tilt_rad", "line_segments")
DETECTION_FIELDS = ("kind", "x_m", "y_m", "confidence", "team")
POSE_FIELDS = ("x_m", "y_m", "theta_rad")


class ObservationsTwin:
    """Observations' layout, mutable: build, then assign ``__class__ = Observations``."""

    __slots__ = OBSERVATION_FIELDS

    def __init__(self, t_s: float, camera_frame: bool, detections: tuple[Detection, ...], odometry: Pose2D,
                 imu_yaw_rad: float, fallen: bool, head_pan_rad: float, head_tilt_rad: float,
                 line_segments: tuple[tuple[float, float, float, float], ...] = ()) -> None:
        self.t_s = t_s
        self.camera_frame = camera_frame
        self.detections = detections
        self.odometry = odometry
        self.imu_yaw_rad = imu_yaw_rad
        self.fallen = fallen
        self.head_pan_rad = head_pan_rad
        self.head_tilt_rad = head_tilt_rad
        self.line_segments = line_segments


class DetectionTwin:
    """Detection's layout, mutable: build, then assign ``__class__ = Detection``."""

    __slots__ = DETECTION_FIELDS

    def __init__(self, kind: str, x_m: float, y_m: float, confidence: float, team: Team | None) -> None:
        self.kind = kind
        self.x_m = x_m
        self.y_m = y_m
        self.confidence = confidence
        self.team = team


class PoseTwin:
    """Pose2D's layout, mutable: build, then assign ``__class__ = Pose2D``."""

    __slots__ = POSE_FIELDS

    def __init__(self, x_m: float, y_m: float, theta_rad: float) -> None:
        self.x_m = x_m
        self.y_m = y_m
        self.theta_rad = theta_rad


for _twin, _frozen in ((ObservationsTwin, Observations), (DetectionTwin, Detection), (PoseTwin, Pose2D)):
    if _twin.__slots__ != _frozen.__slots__:  # the layouts would differ (or the fields be left unset)
        raise TypeError(f"{_twin.__name__} lists {_twin.__slots__}, {_frozen.__name__} has {_frozen.__slots__}")


def make_observations(t_s: float, camera_frame: bool, detections: tuple[Detection, ...], odometry: Pose2D,
                      imu_yaw_rad: float, fallen: bool, head_pan_rad: float, head_tilt_rad: float,
                      line_segments: tuple[tuple[float, float, float, float], ...] = ()) -> Observations:
    obs = ObservationsTwin(t_s, camera_frame, detections, odometry, imu_yaw_rad, fallen, head_pan_rad,
                           head_tilt_rad, line_segments)
    obs.__class__ = Observations  # type: ignore[assignment]
    return obs  # type: ignore[return-value]


def make_detection(kind: str, x_m: float, y_m: float, confidence: float, team: Team | None) -> Detection:
    det = DetectionTwin(kind, x_m, y_m, confidence, team)
    det.__class__ = Detection  # type: ignore[assignment]
    return det  # type: ignore[return-value]


def make_pose(x_m: float, y_m: float, theta_rad: float) -> Pose2D:
    pose = PoseTwin(x_m, y_m, theta_rad)
    pose.__class__ = Pose2D  # type: ignore[assignment]
    return pose  # type: ignore[return-value]
