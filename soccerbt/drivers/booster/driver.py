"""``BoosterDriver``: the Driver of a Booster robot (T1, K1) over its own interfaces.

In (through a ``Transport``: DDS on the robot, or the served simulator): vision detections and
field lines, the odometer, the low state (IMU, head joints), the fall-down state (the SDK's
``FallDownState`` or robocup_demo's ``fall_down_recovery_state`` bytes) and the remote
controller. ``poll(now_s)`` takes whatever arrived (bounded per topic) before each step;
``sense()`` then returns the same ``Observations`` the simulator's driver gives: a camera frame
when a new Detections message arrived, its detections in the robot frame, the odometry, the
IMU's yaw, the head angles, fallen, the field lines.

Out: ``act(command)`` turns the brain's command into loco requests with robocup_demo's JSON and
limits (``loco``): Move (sent when it changes, and every ``keepalive_s`` so the robot knows its
brain is alive), RotateHead (when it changes by more than ``head_deadband_rad``, and every
``keepalive_s``), GetUp for a stand-up request (at most every ``get_up_interval_s``), VisualKick
``{"start": true}`` for a kick, and ChangeMode walking ``visual_kick_hold_s`` after the last kick
request (robocup_demo leaves the visual kick so).

Safety: ``stop()`` sends Move 0, 0, 0 and RotateHead to where the head is (head still). The
driver stops the robot by itself, once, and says so once, when its inputs go stale (no odometer
or no low state for ``stale_after_s``); it resumes when both are fresh again. ``hold(reason)``
keeps the robot stopped whatever the brain commands (the emergency stop, an exception in the
brain) until ``release()``.
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

from soccerbt.drivers.booster import convert, loco
from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.remote import RemoteControllerDevice
from soccerbt.drivers.booster.topics import robot_topic
from soccerbt.drivers.booster.writer_lock import WriterLock
from soccerbt.world.types import Observations, Pose2D, RobotCommand, RobotId, RobotLimits

__all__ = ["BoosterDriver", "DriverCounters"]

_log = logging.getLogger(__name__)

_MAX_TAKE = 32  # samples per topic and poll: a flood is drained over several steps


@dataclass(slots=True)
class DriverCounters:
    """What the driver received, refused and sent."""

    detections: int = 0
    line_messages: int = 0
    odometer: int = 0
    low_state: int = 0
    fall_down: int = 0
    remote: int = 0
    remote_refused: int = 0  # remote controller states of a second publisher (WriterLock)
    bad_values: int = 0  # messages whose values were not finite (ignored)
    requests: int = 0
    responses: int = 0
    error_responses: int = 0
    stale_stops: int = 0


class BoosterDriver:
    """A Booster robot (see the module docstring). ``name`` is robocup_demo's robot name: the
    topic suffix ("" for the plain names of a real robot)."""

    def __init__(self, transport: Any, robot_id: RobotId, *, name: str = "", limits: RobotLimits | None = None,
                 booster_limits: loco.BoosterLimits | None = None, clock: Any = None, stale_after_s: float = 0.3,
                 keepalive_s: float = 0.1, head_deadband_rad: float = 0.005, get_up_interval_s: float = 2.0,
                 visual_kick_hold_s: float = 1.0, odom_factor: float = 1.0) -> None:
        self._m = m
        self.transport = transport
        self._robot_id = robot_id
        self.name = name
        self._limits = limits or RobotLimits.booster_t1()
        self.booster_limits = booster_limits or loco.BoosterLimits()
        self.stale_after_s = stale_after_s
        self.keepalive_s = keepalive_s
        self.head_deadband_rad = head_deadband_rad
        self.get_up_interval_s = get_up_interval_s
        self.visual_kick_hold_s = visual_kick_hold_s
        self.odom_factor = odom_factor
        self.counters = DriverCounters()
        self.convert_counters = convert.ConvertCounters()
        self.remote = RemoteControllerDevice()
        self.remote_lock = WriterLock(robot_topic("/remote_controller_state", name))
        sub = transport.subscription
        self._subs = {
            "detections": sub(robot_topic("/booster_soccer/detection", name), m.Detections, "sensor", depth=1),
            "lines": sub(robot_topic("/booster_soccer/line_segments", name), m.LineSegments, "sensor", depth=1),
            "odometer": sub(robot_topic("/odometer_state", name), m.Odometer, "sensor", depth=1),
            "low_state": sub(robot_topic("/low_state", name), m.LowState, "sensor", depth=1),
            "fall_down": sub(robot_topic("/fall_down", name), m.FallDownState, "sensor", depth=1),
            "recovery": sub(robot_topic("fall_down_recovery_state", name), m.RawBytesMsg, "sensor", depth=1),
            "remote": sub(robot_topic("/remote_controller_state", name), m.RemoteControllerState, "sensor", depth=8),
            "responses": sub(robot_topic("LocoApiTopicResp", name), m.RpcRespMsg, "response", depth=64),
        }
        self._requests = transport.publisher(robot_topic("LocoApiTopicReq", name), m.RpcReqMsg, "command")
        self.now_s = 0.0
        self._odometry = Pose2D()
        self._imu_yaw_rad = 0.0
        self._head = (0.0, 0.0)  # pan, tilt as measured
        self._fallen = False
        self._detections: tuple[Any, ...] = ()
        self._lines: tuple[tuple[float, float, float, float], ...] = ()
        self._new_frame = False
        self._odometer_s = -math.inf
        self._low_state_s = -math.inf
        self._stale = True
        self._stale_reported = False
        self._hold_reason: str | None = None
        self._stopped = False  # the last thing sent was a stop
        self._sent_move: tuple[float, float, float] | None = None
        self._sent_move_s = -math.inf
        self._sent_head: tuple[float, float] | None = None
        self._sent_head_s = -math.inf
        self._get_up_s = -math.inf
        self._kick_s = -math.inf
        self._in_visual_kick = False
        self.last_requests: list[tuple[int, str]] = []  # (api id, body) sent by the last act/stop

    # --- the Driver protocol -------------------------------------------------------------------

    @property
    def robot_id(self) -> RobotId:
        return self._robot_id

    @property
    def limits(self) -> RobotLimits:
        return self._limits

    def poll(self, now_s: float) -> None:
        """Take what arrived on every input topic (at most ``_MAX_TAKE`` samples each)."""
        self.now_s = now_s
        c = self.counters
        subs = self._subs
        frames = subs["detections"].take(_MAX_TAKE)
        if frames:
            c.detections += len(frames)
            self._detections = convert.detections_from_message(frames[-1], self.convert_counters)
            self._new_frame = True
        lines = subs["lines"].take(_MAX_TAKE)
        if lines:
            c.line_messages += len(lines)
            self._lines = convert.line_segments_from_message(lines[-1], self.convert_counters)
        for odo in subs["odometer"].take(_MAX_TAKE):
            x, y, th = float(odo.x), float(odo.y), float(odo.theta)
            if math.isfinite(x) and math.isfinite(y) and math.isfinite(th) and max(abs(x), abs(y)) < 1e6:
                self._odometry = Pose2D(x * self.odom_factor, y * self.odom_factor, th)
                self._odometer_s = now_s
                c.odometer += 1
            else:
                c.bad_values += 1
        for low in subs["low_state"].take(_MAX_TAKE):
            head = convert.head_from_low_state(low)
            yaw = convert.imu_yaw_from_low_state(low)
            if head is None or yaw is None:
                c.bad_values += 1
                continue
            self._head, self._imu_yaw_rad = head, yaw
            self._low_state_s = now_s
            c.low_state += 1
        for fall in subs["fall_down"].take(_MAX_TAKE):
            self._fallen = int(fall.fall_down_state) in convert.FALLEN_STATES
            c.fall_down += 1
        for raw in subs["recovery"].take(_MAX_TAKE):
            try:
                state = self._m.RecoveryState.from_message(raw)
            except self._m.MessageError:
                c.bad_values += 1
                continue
            self._fallen = state.state in convert.FALLEN_STATES
            c.fall_down += 1
        for state, writer in subs["remote"].take_with_writers(_MAX_TAKE):
            if state is None:  # that remote controller has gone: the next one heard is taken
                self.remote_lock.gone(writer)
            elif self.remote_lock.accept(writer, now_s):
                self.remote.update(state, writer)
                c.remote += 1
            else:  # a second publisher of the remote controller: never moves or frees the robot
                c.remote_refused += 1
        for resp in subs["responses"].take(64):
            c.responses += 1
            if '"status":0' not in resp.header.replace(" ", ""):
                c.error_responses += 1
        self._check_stale(now_s)

    def sense(self) -> Observations:
        frame, self._new_frame = self._new_frame, False
        pan, tilt = self._head
        return Observations(self.now_s, frame, self._detections if frame else (), self._odometry, self._imu_yaw_rad,
                            self._fallen, pan, tilt, self._lines if frame else ())

    def act(self, command: RobotCommand) -> None:
        """Send what ``command`` asks (see the module docstring); held or stale: stay stopped."""
        if self._hold_reason is not None or self._stale:
            if not self._stopped:
                self.stop()
            return
        self._stopped = False
        now = self.now_s
        self.last_requests = []
        lim = self.booster_limits
        move = lim.velocity(command.vx_mps, command.vy_mps, command.vtheta_radps)
        if move != self._sent_move or now - self._sent_move_s >= self.keepalive_s:
            self._send(loco.API_MOVE, loco.move_body(*move))
            self._sent_move, self._sent_move_s = move, now
        head = lim.head(command.head_tilt_rad, command.head_pan_rad)
        sent = self._sent_head
        if sent is None or max(abs(head[0] - sent[0]), abs(head[1] - sent[1])) > self.head_deadband_rad \
                or now - self._sent_head_s >= self.keepalive_s:
            self._send(loco.API_ROTATE_HEAD, loco.rotate_head_body(*head))
            self._sent_head, self._sent_head_s = head, now
        if command.stand_up and now - self._get_up_s >= self.get_up_interval_s:
            self._send(loco.API_GET_UP, loco.get_up_body())
            self._get_up_s = now
        if command.kick is not None:
            if not self._in_visual_kick:
                self._send(loco.API_VISUAL_KICK, loco.visual_kick_body(True))
                self._in_visual_kick = True
            self._kick_s = now
        elif self._in_visual_kick and now - self._kick_s >= self.visual_kick_hold_s:
            self._send(loco.API_CHANGE_MODE, loco.change_mode_body(loco.MODE_WALKING))
            self._in_visual_kick = False

    # --- safety ----------------------------------------------------------------------------------

    def stop(self) -> None:
        """Stand still now: Move 0, 0, 0 and the head held where it is (leaving a visual kick)."""
        self.last_requests = []
        if self._in_visual_kick:
            self._send(loco.API_CHANGE_MODE, loco.change_mode_body(loco.MODE_WALKING))
            self._in_visual_kick = False
        self._send(loco.API_MOVE, loco.move_body(0.0, 0.0, 0.0))
        self._sent_move, self._sent_move_s = (0.0, 0.0, 0.0), self.now_s
        if self._low_state_s > -math.inf:
            pan, tilt = self._head
            self._send(loco.API_ROTATE_HEAD, loco.rotate_head_body(tilt, pan))
            self._sent_head, self._sent_head_s = (tilt, pan), self.now_s
        self._stopped = True

    def hold(self, reason: str) -> None:
        """Keep the robot stopped (sends the stop now) until ``release()``."""
        if self._hold_reason is None:
            _log.warning("%s: holding the robot still: %s", self._robot_id, reason)
            self._hold_reason = reason
            self.stop()

    def release(self) -> None:
        if self._hold_reason is not None:
            _log.warning("%s: released (%s over)", self._robot_id, self._hold_reason)
            self._hold_reason = None

    def samples_dropped(self) -> int:
        """Samples of the input topics that did not decode (the transport counts them)."""
        return sum(sub.dropped for sub in self._subs.values())

    @property
    def held(self) -> str | None:
        return self._hold_reason

    @property
    def stale(self) -> bool:
        """The odometer or the low state is older than ``stale_after_s`` (or never came)."""
        return self._stale

    def _check_stale(self, now_s: float) -> None:
        stale = now_s - self._odometer_s > self.stale_after_s or now_s - self._low_state_s > self.stale_after_s
        if stale and not self._stale:
            self.counters.stale_stops += 1
            what = " and ".join(n for n, t in (("odometer", self._odometer_s), ("low state", self._low_state_s))
                                if now_s - t > self.stale_after_s)
            _log.warning("%s: no %s for %.1f s: standing still until the inputs return", self._robot_id, what,
                         self.stale_after_s)
            self._stale_reported = True
            self._stale = True
            self.stop()
        elif not stale and self._stale:
            if self._stale_reported:
                _log.warning("%s: inputs back: resuming", self._robot_id)
            self._stale = False

    # --- sending ---------------------------------------------------------------------------------

    def _send(self, api_id: int, body: str) -> None:
        m = self._m
        self._requests.publish(m.RpcReqMsg(uuid=loco.new_uuid(), header=loco.header_text(api_id), body=body))
        self.counters.requests += 1
        self.last_requests.append((api_id, body))

    def close(self) -> None:
        """Stop the robot and close the transport."""
        try:
            self.stop()
        finally:
            self.transport.close()

    def __repr__(self) -> str:
        return f"BoosterDriver({self._robot_id}, name={self.name!r})"
