"""The example's two nodes.

``BallCloserThan`` is a condition: SUCCESS while the robot knows where the ball is and it lies
nearer than the ``distance`` port (metres), FAILURE otherwise. It reads the world model, the
service that keeps the robot's belief of the ball.

``WalkToSpot`` is a stateful action: it walks to (``x``, ``y``) of the field in the team frame
(own goal at negative x), facing ``theta``, through the navigator (the path-planning service),
at most ``speed`` m/s. RUNNING while on its way, SUCCESS once within ``tolerance`` metres. Halted
(a guard above it turned false), it stops the robot: a halted node leaves nothing moving.

Both say why they decided what they did when someone records reasons (a replay log): the replay
shows the reason beside the node.
"""
from __future__ import annotations

import math

from soccerbt.nodes import ConditionNode, InputPort, NodeStatus, StatefulActionNode
from soccerbt.nodes.soccer.skills import ball_view, walk_to_pose

__all__ = ["BallCloserThan", "WalkToSpot"]


class BallCloserThan(ConditionNode):
    """SUCCESS while the ball is known and nearer than ``distance`` metres."""

    @classmethod
    def provided_ports(cls) -> list[InputPort]:
        return [InputPort("distance", float, "1.5", "how near the ball must be, metres")]

    def update(self) -> NodeStatus:
        limit_m = float(self.get_input("distance"))
        ball = ball_view(self.context)
        near = ball.known and ball.range_m < limit_m
        if self.explaining:  # builds the text only while a log records reasons
            self.set_reason(f"ball {ball.range_m:.1f} m away, limit {limit_m:.1f} m" if ball.known
                            else "ball not known")
        return NodeStatus.SUCCESS if near else NodeStatus.FAILURE


class WalkToSpot(StatefulActionNode):
    """Walk to a field spot (team frame); RUNNING until within ``tolerance``; halting stops."""

    @classmethod
    def provided_ports(cls) -> list[InputPort]:
        return [InputPort("x", float, "-3.0", "spot x, metres, team frame (own goal at negative x)"),
                InputPort("y", float, "0.0", "spot y, metres, team frame"),
                InputPort("theta", float, "0.0", "heading at the spot, radians (0: toward the opponent goal)"),
                InputPort("tolerance", float, "0.3", "close enough, metres"),
                InputPort("speed", float, "0.6", "fastest walk, m/s")]

    def on_start(self) -> NodeStatus:
        # the ports are read once per walk: a new spot needs the node to start again
        self._spot = (float(self.get_input("x")), float(self.get_input("y")), float(self.get_input("theta")))
        self._tolerance_m = float(self.get_input("tolerance"))
        self._speed_mps = float(self.get_input("speed"))
        return self.on_running()

    def on_running(self) -> NodeStatus:
        ctx = self.context
        x_m, y_m, theta_rad = self._spot
        pose = ctx.world_model.robot_pose_field
        remaining_m = math.hypot(x_m - pose.x_m, y_m - pose.y_m)
        if remaining_m <= self._tolerance_m:
            ctx.stop()
            if self.explaining:
                self.set_reason(f"at the spot ({x_m:.1f}, {y_m:.1f}): {remaining_m:.2f} m off")
            return NodeStatus.SUCCESS
        walk_to_pose(ctx, x_m, y_m, theta_rad, vx_limit=self._speed_mps, vy_limit=0.3 * self._speed_mps)
        if self.explaining:
            self.set_reason(f"walking to ({x_m:.1f}, {y_m:.1f}): {remaining_m:.1f} m to go")
        return NodeStatus.RUNNING

    def on_halted(self) -> None:
        self.context.stop()  # whoever halted us decides what comes next; until then, stand
