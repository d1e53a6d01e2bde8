"""World types shared by the simulator, drivers, services, referee and viewer.

Poses, robot identities, the command a brain sends to its robot, and the events the
simulator reports to the referee. Frames: the *world* frame of the simulator has the blue
team's first-half goal at negative x; each team reasons in its own *team* frame, where its
own goal is always at negative x (``to_team_frame`` converts).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field


def wrap_angle_rad(angle_rad: float) -> float:
    """The angle folded into [-pi, pi)."""
    return (angle_rad + math.pi) % (2.0 * math.pi) - math.pi


@dataclass(frozen=True, slots=True)
class Pose2D:
    """A position and heading in some plane frame (metres, radians counter-clockwise)."""

    x_m: float = 0.0
    y_m: float = 0.0
    theta_rad: float = 0.0

    def transform_point(self, x_m: float, y_m: float) -> tuple[float, float]:
        """A point given in this pose's local frame, expressed in the parent frame."""
        c, s = math.cos(self.theta_rad), math.sin(self.theta_rad)
        return self.x_m + c * x_m - s * y_m, self.y_m + s * x_m + c * y_m

    def inverse_transform_point(self, x_m: float, y_m: float) -> tuple[float, float]:
        """A point given in the parent frame, expressed in this pose's local frame."""
        dx, dy = x_m - self.x_m, y_m - self.y_m
        c, s = math.cos(self.theta_rad), math.sin(self.theta_rad)
        return c * dx + s * dy, -s * dx + c * dy

    def compose(self, local: Pose2D) -> Pose2D:
        """This pose followed by a motion given in its local frame."""
        x_m, y_m = self.transform_point(local.x_m, local.y_m)
        return Pose2D(x_m, y_m, wrap_angle_rad(self.theta_rad + local.theta_rad))

    def distance_to(self, x_m: float, y_m: float) -> float:
        """Euclidean distance from this pose's position to a point, metres."""
        return math.hypot(x_m - self.x_m, y_m - self.y_m)


class Team(enum.Enum):
    """The two teams of a simulated match; the value is the GameController team colour."""

    BLUE = 0
    RED = 1

    @property
    def other(self) -> Team:
        return Team.RED if self is Team.BLUE else Team.BLUE

    def __lt__(self, other: object) -> bool:  # RobotId(order=True) sorts by team first
        if not isinstance(other, Team):
            return NotImplemented
        return self.value < other.value

    def __hash__(self) -> int:  # the same in every process (Enum hashes its name: randomised)
        return self.value


@dataclass(frozen=True, slots=True, order=True)
class RobotId:
    """One robot: its team and its player number (1-based, as the GameController counts)."""

    team: Team
    number: int

    def __str__(self) -> str:
        return f"{self.team.name.lower()}{self.number}"


def to_team_frame(pose: Pose2D, attacks_positive_x: bool) -> Pose2D:
    """A world-frame pose in the frame of a team (own goal at negative x)."""
    if attacks_positive_x:
        return pose
    return Pose2D(-pose.x_m, -pose.y_m, wrap_angle_rad(pose.theta_rad + math.pi))


def from_team_frame(pose: Pose2D, attacks_positive_x: bool) -> Pose2D:
    """A team-frame pose back in the world frame (the mirror is its own inverse)."""
    return to_team_frame(pose, attacks_positive_x)


@dataclass(frozen=True, slots=True)
class KickRequest:
    """A kick action: direction in the robot frame and strength 0..1 (1 = strongest kick)."""

    direction_rad: float = 0.0
    strength: float = 1.0


@dataclass(slots=True)
class RobotCommand:
    """What a brain asks of its robot for the next step. Velocities are in the robot frame."""

    vx_mps: float = 0.0
    vy_mps: float = 0.0
    vtheta_radps: float = 0.0
    head_pan_rad: float = 0.0
    head_tilt_rad: float = 0.0
    kick: KickRequest | None = None
    stand_up: bool = False


# --- events the simulator reports (the referee and the metrics read them) -----------------


@dataclass(frozen=True, slots=True)
class BallTouched:
    """A robot touched the ball (walked into it or kicked it)."""

    t_s: float
    robot: RobotId


@dataclass(frozen=True, slots=True)
class BallKicked:
    """A robot performed a kick action that hit the ball."""

    t_s: float
    robot: RobotId


@dataclass(frozen=True, slots=True)
class GoalScored:
    """The ball crossed a goal line between the posts and under the crossbar.

    ``goal_at_positive_x`` says which goal (world frame); ``last_touch`` may be None.
    """

    t_s: float
    goal_at_positive_x: bool
    last_touch: RobotId | None


@dataclass(frozen=True, slots=True)
class BallOut:
    """The ball left the field wholly over a touch line or a goal line (not a goal).

    ``line`` is "touch" or "goal"; ``x_m, y_m`` is where it crossed (world frame).
    """

    t_s: float
    line: str
    x_m: float
    y_m: float
    last_touch: RobotId | None


@dataclass(frozen=True, slots=True)
class RobotFell:
    """A robot fell (collision or on its own)."""

    t_s: float
    robot: RobotId


@dataclass(frozen=True, slots=True)
class RobotStoodUp:
    """A fallen robot finished standing up (it can walk again)."""

    t_s: float
    robot: RobotId


WorldEvent = BallTouched | BallKicked | GoalScored | BallOut | RobotFell | RobotStoodUp


@dataclass(slots=True)
class EventLog:
    """Events of one world step, drained by whoever consumes them."""

    events: list[WorldEvent] = field(default_factory=list)

    def drain(self) -> list[WorldEvent]:
        out, self.events = self.events, []
        return out


# --- what a robot senses (the Driver protocol hands these to the brain) -------------------

# Detection kinds: the FeatureKind values of soccerbt.world.field ("goal_post", "L", "T",
# "X", "penalty_mark", "centre_circle") plus these two.
BALL = "ball"
ROBOT = "robot"


@dataclass(frozen=True, slots=True)
class Detection:
    """One object the camera recognised, on the ground, in the robot frame (metres).

    ``team`` is set for robots when their colour was recognised; ``confidence`` is 0..1.
    """

    kind: str
    x_m: float
    y_m: float
    confidence: float = 1.0
    team: Team | None = None


@dataclass(frozen=True, slots=True)
class Observations:
    """Everything one robot senses at one step.

    ``camera_frame`` is true on the steps where the camera delivered a frame (30 Hz); only
    then ``detections`` holds anything. ``odometry`` is the integrated walking motion in the
    robot's own odometry frame (drifts); ``imu_yaw_rad`` is the gyro-integrated heading in that
    same frame. ``fallen`` is the IMU's verdict. ``line_segments`` are the field lines the
    camera saw, each ``(x0, y0, x1, y1)`` in the robot frame (metres): a real robot's vision
    reports them (the embedded simulator's camera model does not, and the localizer does not use
    them yet).
    """

    t_s: float
    camera_frame: bool
    detections: tuple[Detection, ...]
    odometry: Pose2D
    imu_yaw_rad: float
    fallen: bool
    head_pan_rad: float
    head_tilt_rad: float
    line_segments: tuple[tuple[float, float, float, float], ...] = ()


# --- what a robot can do (the Driver protocol exposes these as ``limits``) ----------------


@dataclass(frozen=True, slots=True)
class RobotLimits:
    """Walking and head limits of one robot; the defaults are the Booster T1's.

    Velocities are in the robot frame. Accelerations bound how fast the walking controller
    follows a new command. Head angles: pan (yaw) counter-clockwise positive, tilt (pitch)
    positive looking down, as in Booster's MoveHead.
    """

    max_vx_forward_mps: float = 1.2
    max_vx_backward_mps: float = 0.5
    max_vy_mps: float = 0.4
    max_vtheta_radps: float = 1.5
    max_ax_mps2: float = 1.5
    max_ay_mps2: float = 1.0
    max_atheta_radps2: float = 4.0
    head_pan_min_rad: float = -1.1
    head_pan_max_rad: float = 1.1
    head_tilt_min_rad: float = -0.35
    head_tilt_max_rad: float = 1.2
    head_pan_speed_radps: float = 3.0
    head_tilt_speed_radps: float = 3.0

    @classmethod
    def booster_t1(cls) -> RobotLimits:
        return cls()

    def clamp_velocity(self, vx_mps: float, vy_mps: float, vtheta_radps: float) -> tuple[float, float, float]:
        """The nearest velocity command within the speed limits (each axis on its own)."""
        return (min(self.max_vx_forward_mps, max(-self.max_vx_backward_mps, vx_mps)),
                min(self.max_vy_mps, max(-self.max_vy_mps, vy_mps)),
                min(self.max_vtheta_radps, max(-self.max_vtheta_radps, vtheta_radps)))

    def clamp_head(self, pan_rad: float, tilt_rad: float) -> tuple[float, float]:
        """The nearest head angles within the joint limits."""
        return (min(self.head_pan_max_rad, max(self.head_pan_min_rad, pan_rad)),
                min(self.head_tilt_max_rad, max(self.head_tilt_min_rad, tilt_rad)))
