"""A fake robot to test nodes with, for soccerbt's own tests and a team's (the node-writing guide).

``make_robot()`` gives a ``FakeRobot``: a real ``RobotContext`` and ``WorldModel`` on the adult
field, a localizer that reports the pose you set (``PoseLocalizer``), the blackboard with the
schema's defaults and a clock you move (``see``, ``wait``). ``make_node(cls, robot, **ports)``
builds one node bound to it with XML-like port values; ``tick(node)`` ticks it once and gives its
status name; ``velocity(robot)`` the walk command it set; ``reason(node)`` the reason it gave (a
node built with ``explain=True``: as when a log records reasons).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from soccerbt.blackboard import Blackboard
from soccerbt.blackboard.schema import default_blackboard_values
from soccerbt.nodes.node_config import NodeConfig, TreeEnv
from soccerbt.nodes.soccer.context import RobotContext
from soccerbt.services.world_model import WorldModel
from soccerbt.world.field import Field
from soccerbt.world.types import BALL, ROBOT, Detection, Observations, Pose2D, RobotId, RobotLimits, Team

__all__ = ["FakeRobot", "PoseLocalizer", "make_robot", "make_node", "tick", "velocity", "reason"]


class PoseLocalizer:
    """Reports a set pose with a set confidence; records the calls nodes make."""

    def __init__(self) -> None:
        self.pose = Pose2D()
        self.conf = 0.9
        self.calls: list[tuple] = []

    def estimate(self) -> Pose2D:
        return self.pose

    def confidence(self) -> float:
        return self.conf

    def trust_direction(self, heading_rad=None, std_rad=0.35):
        self.calls.append(("trust_direction",))

    def resolve_mirror(self, heading_rad=None, own_half=False):
        self.calls.append(("resolve_mirror", heading_rad, own_half))
        return 0

    def relocalize_from(self, mode, detections, max_dist_m=2.0, max_drift_m=1.0, validate=True):
        self.calls.append(("relocalize_from", str(mode), len(detections), max_dist_m, max_drift_m, validate))
        return self.pose

    def reset_to(self, pose, std=(0.1, 0.1, 0.05)):
        self.calls.append(("reset_to", pose))
        self.pose = pose


@dataclass
class FakeRobot:
    """A fake robot: ``ctx`` for the nodes, ``see()`` to feed its world model."""

    ctx: RobotContext
    loc: PoseLocalizer
    bb: Blackboard
    t_s: float = 0.0
    odometry: Pose2D = Pose2D()

    def see(self, pose: Pose2D | None = None, ball_robot: tuple[float, float] | None = None,
            robots: tuple = (), fallen: bool = False, landmarks: tuple = (), dt_s: float = 0.01,
            odometry: Pose2D | None = None) -> None:
        """Advance the clock by ``dt_s`` and give the world model one camera frame."""
        self.t_s = round(self.t_s + dt_s, 6)
        if pose is not None:
            self.loc.pose = pose
            if odometry is None:
                self.odometry = pose  # odometry frame = field frame: teleports stay consistent
        if odometry is not None:
            self.odometry = odometry
        dets = list(landmarks)
        if ball_robot is not None:
            dets.append(Detection(BALL, ball_robot[0], ball_robot[1], 0.9))
        dets += [Detection(ROBOT, x, y, 0.9, team) for x, y, team in robots]
        obs = Observations(self.t_s, True, tuple(dets), self.odometry, self.odometry.theta_rad, fallen, 0.0, 0.0)
        self.ctx.world_model.update(obs, self.loc, self.t_s)
        self.ctx.world_model.write_blackboard(self.bb)

    def scene(self, pose: Pose2D, ball_robot: tuple[float, float] | None = None, **kw) -> None:
        """A new scene: forget the remembered ball, then see this one from ``pose``."""
        self.ctx.world_model.forget_ball()
        self.see(pose, ball_robot, **kw)

    def ball_at_field(self, x_m: float, y_m: float, pose: Pose2D | None = None, dt_s: float = 0.01) -> None:
        """See the ball at a field position from the current (or given) pose."""
        pose = pose or self.loc.pose
        self.see(pose, pose.inverse_transform_point(x_m, y_m), dt_s=dt_s)

    def wait(self, dt_s: float) -> None:
        """Let time pass without a camera frame."""
        self.t_s = round(self.t_s + dt_s, 6)
        obs = Observations(self.t_s, False, (), self.odometry, self.odometry.theta_rad, False, 0.0, 0.0)
        self.ctx.world_model.update(obs, self.loc, self.t_s)
        self.ctx.world_model.write_blackboard(self.bb)


def make_robot(number: int = 2, role: str = "striker", kick=None, navigator=None) -> FakeRobot:
    field = Field.adult_size()
    loc = PoseLocalizer()
    bb = Blackboard()
    for k, v in default_blackboard_values().items():
        bb[k] = v
    bb["player_role"] = role
    holder: dict = {}
    robot_id = RobotId(Team.BLUE, number)
    ctx = RobotContext(robot=robot_id, field=field, clock=lambda: holder["r"].t_s,
                       # what a test shows the robot is what it believes: no confirmation of new
                       # ball sightings (the robust ball belief is tested in tests/services)
                       world_model=WorldModel(field, Team.BLUE, robust_ball=False), limits=RobotLimits(), localizer=loc,
                       navigator=navigator, kick=kick, blackboard=bb, start_role=role)
    robot = FakeRobot(ctx, loc, bb)
    holder["r"] = robot
    return robot


def make_node(cls: type, robot: FakeRobot, *, explain: bool = False, **ports: Any) -> Any:
    """A node of type ``cls`` bound to the robot, with XML-like string port values; with
    ``explain`` it gives reasons (``reason(node)``), as when a log records them."""
    cfg = NodeConfig()
    cfg.blackboard = robot.bb
    cfg.env = TreeEnv(clock=robot.ctx.now_s, context=robot.ctx)
    if explain:
        cfg.env.reasons = {}
    cfg.ports = {p.name: p for p in cls.provided_ports()}
    for name, value in ports.items():
        port = cfg.ports[name]
        target = cfg.input_ports if port.direction.value != "Output" else cfg.output_ports
        target[name] = (
            value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else repr(value)
        )
    return cls(cls.__name__, cfg)


def tick(node: Any) -> str:
    """One BT.CPP tick of ``node``; its status name ("SUCCESS", "FAILURE", "RUNNING", ...)."""
    return node.execute_tick().value


def velocity(robot: FakeRobot) -> tuple[float, float, float]:
    """The walk command the robot's nodes set: (vx m/s, vy m/s, vtheta rad/s)."""
    c = robot.ctx.command
    return (c.vx_mps, c.vy_mps, c.vtheta_radps)


def reason(node: Any) -> str | None:
    """The reason ``node`` gave at its last tick (built with ``make_node(..., explain=True)``)."""
    reasons = node.env.reasons
    return None if reasons is None else reasons.get(node.uid)
