"""The truth beside a robot's estimate, for the replay's text tools (``--tree``, ``--json``,
``--find``).

A simulated match's log holds the truth of every step (``/match/step``: the ball, every robot's
pose, fallen and removed, in the world frame). A robot's estimates (``ball_field``,
``robot_pose_field`` on its blackboard) are in its team's field frame, +x toward the goal it
attacks; ``RobotTruth`` gives the truth in that same frame (the sides change at half time and in
a shoot-out: ``side_changes``), with how far each estimate is off. A robot's own log (``brain``'s
flight recorder, ``sim --serve``'s brains) knows no truth: its header says ``"truth":
"estimate"`` and ``TruthFrames.note`` says so instead.

In ``--find`` the truth reads as ``truth.ball.x``, ``truth.ball.y``, ``truth.ball.vx``,
``truth.ball.vy``, ``truth.ball.speed``, ``truth.x``, ``truth.y``, ``truth.theta``,
``truth.fallen``, ``truth.ball_error`` and ``truth.pose_error`` (``FIND_NAMES``; metres, m/s,
radians; an error is -1 where the robot has no estimate).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from soccerbt.log.reader import McapLog, RobotState, StepView

__all__ = ["RobotTruth", "TruthFrames", "side_changes", "FIND_NAMES", "find_variable", "robot_truth"]

_ROBOT = re.compile(r"(blue|red)\d+")

# --find's truth names -> RobotTruth.find_values keys
FIND_NAMES = ("truth.ball.x", "truth.ball.y", "truth.ball.vx", "truth.ball.vy", "truth.ball.speed", "truth.x",
              "truth.y", "truth.theta", "truth.fallen", "truth.ball_error", "truth.pose_error")


def find_variable(name: str) -> str:
    """The script variable that stands for a --find truth name ("truth.ball.x" -> "_truth_ball_x_")."""
    return "_" + name.replace(".", "_") + "_"


def side_changes(events: list[dict[str, Any]], blue_first: bool) -> tuple[list[int], list[bool]]:
    """The steps where the sides change and whether blue attacks +x from each: the second half
    (and the second extra half) swap them, extra time starts with the first half's sides, and in
    a penalty shoot-out every shot's kicking team attacks +x."""
    steps: list[int] = []
    blue_positive: list[bool] = []
    for e in events:
        kind, detail = e.get("kind"), str(e.get("detail", ""))
        if kind == "half":
            value = blue_first if detail.startswith("extra time") else not blue_first
        elif kind == "shot":
            value = e.get("team") == "blue"
        else:
            continue
        steps.append(int(e["step"]))
        blue_positive.append(value)
    return steps, blue_positive


def _xy(value: Any) -> tuple[float, ...] | None:
    """A blackboard value as floats (a list of numbers), else None."""
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                  for v in value):
        return tuple(float(v) for v in value)
    return None


@dataclass(frozen=True)
class RobotTruth:
    """Where the ball and one robot really were after a step, in the robot's team frame (+x
    toward the goal it attacks), and its estimates of both (None: it had none)."""

    robot: str
    ball_xy_m: tuple[float, float]
    ball_velocity_mps: tuple[float, float]
    pose: tuple[float, float, float]          # x m, y m, theta rad
    fallen: bool
    removed: bool
    ball_estimate_xy_m: tuple[float, float] | None
    pose_estimate: tuple[float, float, float] | None

    @property
    def ball_error_m(self) -> float | None:
        """How far the robot's ball estimate is from the ball (None: no estimate)."""
        if self.ball_estimate_xy_m is None:
            return None
        ex, ey = self.ball_estimate_xy_m
        return math.hypot(ex - self.ball_xy_m[0], ey - self.ball_xy_m[1])

    @property
    def pose_error_m(self) -> float | None:
        """How far the robot's pose estimate is from where it stood (None: no estimate)."""
        if self.pose_estimate is None:
            return None
        return math.hypot(self.pose_estimate[0] - self.pose[0], self.pose_estimate[1] - self.pose[1])

    def lines(self) -> list[str]:
        """The truth as ``--tree`` prints it, each estimate beside it."""
        bx, by = self.ball_xy_m
        vx, vy = self.ball_velocity_mps
        ball = f"truth: ball ({bx:.2f}, {by:.2f}) rolling {math.hypot(vx, vy):.2f} m/s ({vx:.2f}, {vy:.2f})"
        if self.ball_estimate_xy_m is not None:
            ex, ey = self.ball_estimate_xy_m
            ball += f"; estimate ({ex:.2f}, {ey:.2f}), {self.ball_error_m:.2f} m off"
        else:
            ball += "; no estimate"
        x, y, theta = self.pose
        state = " fallen" if self.fallen else ""
        state += " removed" if self.removed else ""
        me = f"truth: {self.robot} at ({x:.2f}, {y:.2f}, {theta:.2f} rad){state}"
        if self.pose_estimate is not None:
            ex, ey, et = self.pose_estimate
            me += f"; estimate ({ex:.2f}, {ey:.2f}, {et:.2f} rad), {self.pose_error_m:.2f} m off"
        return [ball + f"  ({self.robot}'s field frame: +x toward the goal it attacks)", me]

    def as_json(self) -> dict[str, Any]:
        """``--json``'s "truth": values rounded to the millimetre (f32 in the log)."""
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 3)

        return {
            "frame": "team", "ball": {"x": r(self.ball_xy_m[0]), "y": r(self.ball_xy_m[1]),
                                      "vx": r(self.ball_velocity_mps[0]), "vy": r(self.ball_velocity_mps[1])},
            "robot": {"x": r(self.pose[0]), "y": r(self.pose[1]), "theta": r(self.pose[2]),
                      "fallen": self.fallen, "removed": self.removed},
            "ball_error_m": r(self.ball_error_m), "pose_error_m": r(self.pose_error_m),
        }

    def find_values(self) -> dict[str, float | bool]:
        """The values of ``FIND_NAMES``, by script variable (``find_variable``)."""
        vx, vy = self.ball_velocity_mps
        values: dict[str, float | bool] = {
            "truth.ball.x": self.ball_xy_m[0], "truth.ball.y": self.ball_xy_m[1], "truth.ball.vx": vx,
            "truth.ball.vy": vy, "truth.ball.speed": math.hypot(vx, vy), "truth.x": self.pose[0],
            "truth.y": self.pose[1], "truth.theta": self.pose[2], "truth.fallen": self.fallen,
            "truth.ball_error": -1.0 if self.ball_error_m is None else self.ball_error_m,
            "truth.pose_error": -1.0 if self.pose_error_m is None else self.pose_error_m,
        }
        return {find_variable(k): v for k, v in values.items()}


class TruthFrames:
    """Turns a log's world-frame truth into each robot's team frame, step by step."""

    def __init__(self, log: McapLog) -> None:
        self.log = log
        self.available = log.header.get("truth") != "estimate"
        blue_first = bool(log.header.get("blue_attacks_positive_x_first_half", True))
        self._blue_first = blue_first
        self._steps, self._blue_positive = side_changes(log.events, blue_first)

    def note(self, robot: str) -> str:
        """Why there is no truth beside ``robot``'s estimates."""
        return (f"{robot}'s log holds no truth: it is a robot's own log (its estimates are all it knew); "
                "a simulated match's log has the truth")

    def attacks_positive_x(self, robot: str, step: int) -> bool:
        """Whether ``robot``'s team attacks +x (world) in ``step``."""
        blue = self._blue_first
        for at, value in zip(self._steps, self._blue_positive, strict=True):
            if at > step:
                break
            blue = value
        m = _ROBOT.fullmatch(robot)
        return blue if m is None or m.group(1) == "blue" else not blue

    def of(self, robot: str, view: StepView, blackboard: dict[str, list[Any]]) -> RobotTruth | None:
        """The truth of ``robot`` after ``view``'s step beside its estimates on ``blackboard``
        ({key: [value, writer]}); None when the log holds no truth or not this robot's."""
        if not self.available or robot not in self.log.robots:
            return None
        k = self.log.robots.index(robot)
        truth = view.truth
        if k >= len(truth.robots):
            return None
        sign = 1.0 if self.attacks_positive_x(robot, view.step) else -1.0
        x, y, theta, fallen, removed = truth.robots[k]
        bx, by, vx, vy = truth.ball
        theta_team = theta if sign > 0 else math.atan2(math.sin(theta + math.pi), math.cos(theta + math.pi))
        ball_est = _xy((blackboard.get("ball_field") or [None])[0])
        known = (blackboard.get("ball_location_known") or [None])[0]
        team_ball = (blackboard.get("tm_ball_pos_reliable") or [None])[0]
        if ball_est is not None and known is False and team_ball is not True:
            ball_est = None  # a remembered ball the robot does not believe in
        pose_est = _xy((blackboard.get("robot_pose_field") or [None])[0])
        return RobotTruth(
            robot, (sign * bx, sign * by), (sign * vx, sign * vy), (sign * x, sign * y, theta_team),
            bool(fallen), bool(removed),
            (ball_est[0], ball_est[1]) if ball_est is not None and len(ball_est) >= 2 else None,
            (pose_est[0], pose_est[1], pose_est[2]) if pose_est is not None and len(pose_est) >= 3 else None)


def robot_truth(log: McapLog, robot: str, step: int, state: RobotState) -> RobotTruth | str | None:
    """The truth beside ``robot``'s estimates after ``step`` (``state``: its state there), or
    why there is none (a robot's own log), or None (the step is missing)."""
    frames = TruthFrames(log)
    if not frames.available:
        return frames.note(robot)
    view = log.step_view(step) if log.first_step <= step <= log.last_step else None
    return None if view is None else frames.of(robot, view, state.blackboard)
