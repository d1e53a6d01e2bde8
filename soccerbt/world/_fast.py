"""Fast constructors for the frozen world types built at every step (observations, poses,
detections).

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``; calling the
slot descriptors directly does the same work in about half the time, which matters for objects
built thousands of times per simulated second. The results are ordinary instances (equal to
and indistinguishable from those the constructors make); tests/world/test_fast.py checks the
field lists, so a field added to a type fails loudly here instead of being left unset.
"""
from __future__ import annotations

from soccerbt.world.types import Detection, Observations, Pose2D, Team

_new = object.__new__

OBSERVATION_FIELDS = ("t_s", "camera_frame", "detections", "odometry", "imu_yaw_rad", "fallen",
                      "head_pan_rad", "head_tilt_rad")
DETECTION_FIELDS = ("kind", "x_m", "y_m", "confidence", "team")
POSE_FIELDS = ("x_m", "y_m", "theta_rad")

_o = [Observations.__dict__[name].__set__ for name in OBSERVATION_FIELDS]
_d = [Detection.__dict__[name].__set__ for name in DETECTION_FIELDS]
_p = [Pose2D.__dict__[name].__set__ for name in POSE_FIELDS]
# for hot code that builds these inline, sparing a call (the camera, World.observe_state)
DETECTION_SETTERS = tuple(_d)
OBSERVATION_SETTERS = tuple(_o)
POSE_SETTERS = tuple(_p)


def make_observations(t_s: float, camera_frame: bool, detections: tuple[Detection, ...], odometry: Pose2D,
                      imu_yaw_rad: float, fallen: bool, head_pan_rad: float, head_tilt_rad: float,
                      _o0=_o[0], _o1=_o[1], _o2=_o[2], _o3=_o[3], _o4=_o[4], _o5=_o[5], _o6=_o[6],
                      _o7=_o[7]) -> Observations:
    obs = _new(Observations)
    _o0(obs, t_s)
    _o1(obs, camera_frame)
    _o2(obs, detections)
    _o3(obs, odometry)
    _o4(obs, imu_yaw_rad)
    _o5(obs, fallen)
    _o6(obs, head_pan_rad)
    _o7(obs, head_tilt_rad)
    return obs


def make_detection(kind: str, x_m: float, y_m: float, confidence: float, team: Team | None,
                   _d0=_d[0], _d1=_d[1], _d2=_d[2], _d3=_d[3], _d4=_d[4]) -> Detection:
    det = _new(Detection)
    _d0(det, kind)
    _d1(det, x_m)
    _d2(det, y_m)
    _d3(det, confidence)
    _d4(det, team)
    return det


def make_pose(x_m: float, y_m: float, theta_rad: float, _p0=_p[0], _p1=_p[1], _p2=_p[2]) -> Pose2D:
    pose = _new(Pose2D)
    _p0(pose, x_m)
    _p1(pose, y_m)
    _p2(pose, theta_rad)
    return pose
