"""Where what a served robot sees falls in its head camera's image, in pixels.

Booster's brain reads image coordinates beside the ground positions its vision reports: the ends
of each line segment (``LineSegments.coordinates_uv``, read for every segment), each detection's
bounding box (centred markers are trusted for localization; the head tracks the ball's box), and
the camera's image size from ``camera_info``. ``HeadCamera`` projects a point of the robot frame
(x forward, y left, z up, metres, from the ground under the robot) through the T1's head camera:

- intrinsics and mounting from robocup_demo's ``src/vision/config/vision.yaml`` (the d-robotics
  StereoNet rectified image): fx = fy = 206.445511 px, cx = 224.958221 px, cy = 242.717239 px,
  no distortion, and the camera-to-head transform ``extrin`` (camera x right, y down, z forward;
  head x forward, y left, z up);
- the head at ``height_m`` above the ground, turned by the pan and pitched down by the tilt the
  robot reports;
- the image size is not in vision.yaml (the camera reports it at run time in ``camera_info``): the
  principal point lies at the centre of a 450 x 485 px image, so that size is assumed, and the
  served ``camera_info`` says so to the brain (without one, Booster's brain assumes 1280 x 720, and
  boxes around the centre of the real image would read as off to one side).

What a served robot's camera sees follows the same image: ``t1_camera()`` is the world's camera
model with the field of view of those intrinsics over that image, 2 atan(225 / 206.4) = 94.9 deg
across and 2 atan(242.5 / 206.4) = 99.2 deg up and down (the world's default camera has 90 x 70
deg: a served robot looking down at 0.35 rad would not see a ball nearer than 0.77 m, where this
image shows the ground from 0.41 m; Booster's brain reads the same field of view from the served
``camera_info``, Brain::depthCameraInfoCallback). A ball in view nearer than
``BALL_SURE_RANGE_M`` (1.5 m: 30 px across and more in this image) is never missed: the world's
camera misses any ball in 5 % of its frames and more with distance, one frame at a time, and
Booster's brain turns a ball it remembers nearer than its ``robot_height`` but does not see in
this frame into a NaN head pitch (``asin(robot_height / range)`` in Brain::updateRelativePos, read
by CamTrackBall: the ``"pitch": null`` RotateHead requests of issue 38). Detection ranges, the
other misses and range noise stay the world's (``CameraConfig``, ``NoiseConfig``: no public
figures of Booster's detector).

Boxes: a ball is a sphere of radius 0.11 m; a field marker (L, T, X, penalty mark) a 0.3 m square on
the ground; a goal post 0.1 m wide and 0.8 m tall above the ground; a robot 0.4 m wide and 1.2 m tall.
The box is the bounding rectangle of the projected corners, clipped to the image; an object whose
points all lie behind the camera has none.
"""
from __future__ import annotations

import dataclasses
import math

from soccerbt.world.config import CameraConfig

__all__ = ["HeadCamera", "FX_PX", "FY_PX", "CX_PX", "CY_PX", "IMAGE_WIDTH_PX", "IMAGE_HEIGHT_PX",
           "CAMERA_INFO_TOPICS", "BALL_SURE_RANGE_M", "HORIZONTAL_FOV_RAD", "VERTICAL_FOV_RAD", "camera_info",
           "t1_camera"]

# where each branch of Booster's brain reads the head camera's camera_info (its config.yaml):
# main: image /StereoNetNode/rectified_image (sic: the image's own name), depth
# /StereoNetNode/stereonet_depth/camera_info; 2026: /boostercamera/head/rgb/camera_info and
# /boostercamera/head/depth/camera_info. The served robot publishes no image, so no name clashes.
CAMERA_INFO_TOPICS = ("/StereoNetNode/rectified_image", "/StereoNetNode/stereonet_depth/camera_info",
                      "/boostercamera/head/rgb/camera_info", "/boostercamera/head/depth/camera_info")

FX_PX, FY_PX = 206.445511, 206.445511
CX_PX, CY_PX = 224.958221, 242.717239
IMAGE_WIDTH_PX, IMAGE_HEIGHT_PX = 450, 485  # assumed: the principal point at the image's centre
BALL_SURE_RANGE_M = 1.5  # a ball this near and in view is always detected (see above)
HORIZONTAL_FOV_RAD = 2.0 * math.atan(IMAGE_WIDTH_PX / 2.0 / FX_PX)  # 94.9 deg
VERTICAL_FOV_RAD = 2.0 * math.atan(IMAGE_HEIGHT_PX / 2.0 / FY_PX)  # 99.2 deg
# vision.yaml's extrin: a point of the camera frame -> the head frame (rotation, then translation, metres)
_R_CAM_TO_HEAD = ((0.0753363073, 0.0190046262, 0.996977091),
                  (-0.99715662, -0.000328667404, 0.0753561407),
                  (0.00175978895, -0.999819338, 0.018925827))
_T_CAM_IN_HEAD = (-0.0122268423, 0.0440084077, -0.0283811111)
_MIN_DEPTH_M = 0.05

# (half width, height above the ground, kind of shape) of what a detection shows, metres
_SPHERE, _FLAT, _UPRIGHT = "sphere", "flat", "upright"
_SHAPES = {"ball": (0.11, 0.0, _SPHERE), "goal_post": (0.05, 0.8, _UPRIGHT), "robot": (0.2, 1.2, _UPRIGHT)}
_MARKER = (0.15, 0.0, _FLAT)


def t1_camera(base: CameraConfig | None = None) -> CameraConfig:
    """``base`` (the world's default camera) with the field of view of the T1's image and its sure
    range for a ball (see above)."""
    return dataclasses.replace(base if base is not None else CameraConfig(), horizontal_fov_rad=HORIZONTAL_FOV_RAD,
                               vertical_fov_rad=VERTICAL_FOV_RAD, ball_sure_range_m=BALL_SURE_RANGE_M)


class HeadCamera:
    """The T1's head camera at ``height_m`` (see the module docstring)."""

    def __init__(self, height_m: float) -> None:
        self.height_m = height_m

    def project(self, x_m: float, y_m: float, z_m: float, pan_rad: float,
                tilt_rad: float) -> tuple[float, float] | None:
        """The pixel (u right, v down) of a robot-frame point, or None behind the camera."""
        # robot frame -> head frame: undo the pan (about z), then the tilt (about y, positive down)
        dx, dy, dz = x_m, y_m, z_m - self.height_m
        cp, sp = math.cos(pan_rad), math.sin(pan_rad)
        hx, hy = cp * dx + sp * dy, -sp * dx + cp * dy
        ct, st = math.cos(tilt_rad), math.sin(tilt_rad)
        hx, hz = ct * hx - st * dz, st * hx + ct * dz
        # head frame -> camera frame: the transpose of the camera's rotation, after its offset
        px, py, pz = hx - _T_CAM_IN_HEAD[0], hy - _T_CAM_IN_HEAD[1], hz - _T_CAM_IN_HEAD[2]
        r = _R_CAM_TO_HEAD
        cx = r[0][0] * px + r[1][0] * py + r[2][0] * pz
        cy = r[0][1] * px + r[1][1] * py + r[2][1] * pz
        cz = r[0][2] * px + r[1][2] * py + r[2][2] * pz
        if cz < _MIN_DEPTH_M:
            return None
        return FX_PX * cx / cz + CX_PX, FY_PX * cy / cz + CY_PX

    def box(self, kind: str, x_m: float, y_m: float, pan_rad: float, tilt_rad: float) -> tuple[int, int, int, int]:
        """(xmin, ymin, xmax, ymax) of what a detection of ``kind`` at (x_m, y_m) shows, clipped to
        the image; all zeros when nothing of it is in front of the camera."""
        # the projected corners of the object's shape, their bounding rectangle
        half_m, height_m, shape = _SHAPES.get(kind, _MARKER)
        bearing = math.atan2(y_m, x_m)
        sx, sy = -math.sin(bearing) * half_m, math.cos(bearing) * half_m  # across the line of sight
        if shape == _SPHERE:
            points = [(x_m + sx, y_m + sy, half_m), (x_m - sx, y_m - sy, half_m),
                      (x_m, y_m, 0.0), (x_m, y_m, 2 * half_m)]
        elif shape == _FLAT:
            points = [(x_m + dx, y_m + dy, 0.0) for dx in (-half_m, half_m) for dy in (-half_m, half_m)]
        else:
            points = [(x_m + s * sx, y_m + s * sy, z) for s in (-1.0, 1.0) for z in (0.0, height_m)]
        pixels = [p for p in (self.project(x, y, z, pan_rad, tilt_rad) for x, y, z in points) if p is not None]
        if not pixels:
            return 0, 0, 0, 0
        us, vs = [u for u, _ in pixels], [v for _, v in pixels]
        xmin, xmax = _clip(min(us), IMAGE_WIDTH_PX), _clip(max(us), IMAGE_WIDTH_PX)
        ymin, ymax = _clip(min(vs), IMAGE_HEIGHT_PX), _clip(max(vs), IMAGE_HEIGHT_PX)
        return xmin, ymin, xmax, ymax


def _clip(value: float, size: int) -> int:
    return int(round(min(max(value, 0.0), size - 1)))


def camera_info(m: object, header: object) -> object:
    """The served camera's ``sensor_msgs/CameraInfo`` (``m``: soccerbt.drivers.booster.messages)."""
    k = [FX_PX, 0.0, CX_PX, 0.0, FY_PX, CY_PX, 0.0, 0.0, 1.0]
    p = [FX_PX, 0.0, CX_PX, 0.0, 0.0, FY_PX, CY_PX, 0.0, 0.0, 0.0, 1.0, 0.0]
    return m.CameraInfo(header=header, height=IMAGE_HEIGHT_PX, width=IMAGE_WIDTH_PX,  # type: ignore[attr-defined]
                        distortion_model="plumb_bob", d=[0.0] * 5, k=k, p=p)
