"""One simulated robot behind a Booster robot's interfaces (topics and loco service).

``RobotEndpoint`` owns a robot's publishers (names with the robot's suffix, or the plain names
of a real robot with ``name=""``) and its loco request subscription. Each step the served
match calls ``serve_requests(now_s)`` (take the requests, answer each on ``LocoApiTopicResp``
with the same uuid and ``{"status": N}``), ``command(now_s)`` (what the robot does now), and,
after the world stepped, ``publish(...)`` (the sensors: odometer and low state every step,
detections at the camera's 30 Hz, field lines on every ``publish_lines_every``-th frame (15 Hz:
clipping the field's lines to the view costs about 0.5 ms a robot), fall-down states and the
remote controller at 10 Hz and when they change).

The odometer (``/odometer_state``) turns the legs' steps by the gyro's heading, and its theta is
that heading (the IMU's yaw since start, ``Observations.imu_yaw_rad``: a slow gyro drift, not the
legs' turning error). The firmware is closed; robocup_demo's brain trusts the odometer's theta so:
it scales x and y by ``robot.odom_factor`` but takes theta as it is, and between two localizations
only its particle filter corrects theta, within 1 degree of the odometer's (SelfLocate
``trust_direction``; SelfLocate1M, 2T, PT, LT, 2X and Border move x and y only).

What the robot does with a request, as a Booster robot does it:

- Move: walks at (vx, vy, vyaw) until the next Move; in damping or prepare mode it stands.
- RotateHead: points the head (pitch, yaw).
- GetUp: a fallen robot stands up (the world's stand-up motion).
- ChangeMode: damping / prepare / walking / custom / soccer; walking leaves the visual kick.
- VisualKick ``{"start": true}``: the robot's own vision kick. Booster's firmware is closed; what
  is known is that the brain hands the approach to it (robocup_demo's RLVisionKick stops sending
  Move) and how far: its StrikerDecide hands over a ball nearer than
  ``RLVisionKick.autoVisualKickEnableDistMax`` (4.0 m in its config.yaml) within 1.3 x
  ``autoVisualKickEnableAngle`` (1.04 rad) of straight ahead, and RLVisionKick only takes it back
  when the ball is lost for 2 s, out, or farther than 5 m (brain_tree.cpp, RLVisionKick::onRunning).
  Assumed here: a ball within ``VISUAL_KICK_RANGE_M`` (5 m) is approached (turned to first, walked
  to once within 0.5 rad of straight ahead; at most 0.4 m/s forward, 0.2 m/s sideways, 1 rad/s
  turning, the brain's Move set aside meanwhile) and kicked forward once it lies at the feet;
  with a ball farther the brain's Move goes on. ``false`` (or ChangeMode walking) ends it, and so
  does a fall: the robot's own kick cannot go on lying down, and robocup_demo's CheckAndStandUp
  leaves RLVisionKick without a ChangeMode when it sends GetUp (``shouldExitRLVisionKick``), so a
  kick left on would set aside every Move of the brain after the robot got up.
- Anything else: status 404 (an api id this robot does not serve); broken JSON or values:
  status 400. Both are counted.

A brain that sends nothing for ``silence_stop_s`` (0.5 s) is gone: the robot stops walking and
holds its head where it is, until requests come again. A vision kick goes on meanwhile: the robot
runs it on its own, and robocup_demo's RLVisionKick sends nothing while it runs (its head follows
a centred ball without a request: CamTrackBall asks only when the ball is off centre).
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

from soccerbt.drivers.booster import loco
from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.convert import LABEL_OF_KIND, segments_to_coordinates
from soccerbt.drivers.booster.topics import robot_topic
from soccerbt.drivers.booster.writer_lock import WriterLock
from soccerbt.serve.head_camera import CAMERA_INFO_TOPICS, IMAGE_HEIGHT_PX, IMAGE_WIDTH_PX, HeadCamera, camera_info
from soccerbt.world.config import CameraConfig
from soccerbt.world.sensors import ground_band_m
from soccerbt.world.types import KickRequest, Observations, RobotCommand, RobotId

__all__ = ["EndpointCounters", "RobotEndpoint"]

T1_SERIAL_MOTORS = 23  # the T1's joints in the low state's serial list (head yaw and pitch first)
FALL_PUBLISH_PERIOD_S = 0.1
REMOTE_PUBLISH_PERIOD_S = 0.1
ANSWER_HOLD_S = 0.5  # an answer waits at most this long for the client's response reader
_FORWARD_KICK = KickRequest(0.0, 1.0)
_F32 = struct.Struct("<f")
# the low state's layout (CDR, little endian): 4 bytes of encapsulation header, the IMU (rpy,
# gyro, acc: 9 float32), the parallel motors' count (0), the serial motors' count, then 36 bytes a
# motor (mode int8, 3 pad, q dq ddq tau_est float32, temperature int8, 3 pad, lost uint32,
# reserve uint32[2]); checked against the generic encoding by the tests
_IMU_YAW = _F32
_IMU_YAW_AT = 4 + 2 * 4
_GYRO_Z_AT = 4 + 5 * 4
_MOTOR_BYTES = 36
_MOTOR0_Q_AT = 4 + 36 + 4 + 4 + 4
_LOW_STATE_TEMPLATE: bytes | None = None


def _low_state_template(m: Any) -> bytes:
    """The low state of a standing robot, every angle 0 (its bytes, computed once)."""
    global _LOW_STATE_TEMPLATE
    rest = m.MotorState(mode=0, q=0.0, dq=0.0, ddq=0.0, tau_est=0.0, temperature=40, lost=0, reserve=[0, 0])
    msg = m.LowState(imu_state=m.ImuState(rpy=[0.0, 0.0, 0.0], gyro=[0.0, 0.0, 0.0], acc=[0.0, 0.0, 9.81]),
                     motor_state_parallel=[], motor_state_serial=[rest] * T1_SERIAL_MOTORS)
    _LOW_STATE_TEMPLATE = msg.encode()
    return _LOW_STATE_TEMPLATE


def _f32(value: float) -> float:
    return _F32.unpack(_F32.pack(value))[0]


@dataclass(slots=True)
class EndpointCounters:
    """Requests a robot answered, refused, and what it published."""

    requests: int = 0
    moves: int = 0
    head_moves: int = 0
    get_ups: int = 0
    mode_changes: int = 0
    visual_kicks: int = 0
    bad_requests: int = 0  # status 400
    unknown_api: int = 0  # status 404
    dropped: int = 0  # samples the transport could not decode
    not_locked: int = 0  # requests of a second writer while the first drives the robot (WriterLock)
    published: int = 0


# the labels of Booster's detector (vision.yaml's classnames: Ball, Goalpost, Person, LCross, TCross,
# XCross, PenaltyPoint, Opponent, BRMarker) for what the world's camera reports; robots are
# Opponent (the brain counts Opponent as a robot, Person only with treat_person_as_robot)
LABEL_OF_VISION = {kind: label for kind, label in LABEL_OF_KIND.items() if label != "CenterCircle"}

# the vision kick's approach: a ball this near (assumed; see above: beyond 5 m the brain takes over)
VISUAL_KICK_RANGE_M = 5.0
VISUAL_KICK_WALK_BEARING_RAD = 0.5  # turned to within this, it walks in

# The robot's loco planner as robocup_demo's CheckAndStandUp reads it from the third byte of
# fall_down_recovery_state: it sends GetUp only when the robot HAS_FALLEN and the planner index is 1,
# counts a retry when it reads 10 after GetUp, and resets when the robot is ready in 8 or 20 (the
# walking planners). The firmware is closed: these are the values that code expects, mapped from
# the fall state (IS_READY: walking 8; IS_FALLING, HAS_FALLEN: 1, the fallen planner; IS_GETTING_UP: 10).
PLANNER_WALKING, PLANNER_FALLEN, PLANNER_GETTING_UP = 8, 1, 10


def planner_index_of(fall_state: int) -> int:
    """The planner index a T1 reports with a FallDownState value (see above)."""
    return PLANNER_GETTING_UP if fall_state == 3 else PLANNER_FALLEN if fall_state in (1, 2) else PLANNER_WALKING


class RobotEndpoint:
    """A simulated robot's interfaces (see the module docstring)."""

    def __init__(self, transport: Any, robot_id: RobotId, *, name: str, camera: Any, line_camera: Any = None,
                 rng: np.random.Generator | None = None, silence_stop_s: float = 0.5,
                 publish_lines_every: int = 2) -> None:
        self._m = m
        self.robot_id = robot_id
        self.name = name
        self.camera = camera
        self.line_camera = line_camera
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.silence_stop_s = silence_stop_s
        self.publish_lines_every = max(1, publish_lines_every)
        self.counters = EndpointCounters()
        pub = transport.publisher
        t = robot_topic
        self._odometer = pub(t("/odometer_state", name), m.Odometer, "sensor")
        self._low_state = pub(t("/low_state", name), m.LowState, "sensor")
        self._fall_down = pub(t("/fall_down", name), m.FallDownState, "sensor")
        self._recovery = pub(t("fall_down_recovery_state", name), m.RawBytesMsg, "sensor")
        self._remote = pub(t("/remote_controller_state", name), m.RemoteControllerState, "sensor")
        self._detections = pub(t("/booster_soccer/detection", name), m.Detections, "sensor")
        self._lines = pub(t("/booster_soccer/line_segments", name), m.LineSegments, "sensor")
        self._head_pose = pub(t("/head_pose", name), m.Pose, "sensor")
        self._responses = pub(t("LocoApiTopicResp", name), m.RpcRespMsg, "response")
        self._requests = transport.subscription(t("LocoApiTopicReq", name), m.RpcReqMsg, "command", depth=64)
        self.request_lock = WriterLock(t("LocoApiTopicReq", name))  # one brain drives the robot
        self._camera_info = [pub(t(topic, name), m.CameraInfo, "sensor") for topic in CAMERA_INFO_TOPICS]
        self._next_camera_info_s = -math.inf
        self.head_camera = HeadCamera(camera.height_m if camera is not None else CameraConfig().height_m)
        # what the robot is doing
        self.walk = (0.0, 0.0, 0.0)
        self.head: tuple[float, float] | None = None  # (pan, tilt) commanded; None: where it is
        self.mode = loco.MODE_WALKING
        self.visual_kick = False
        self._get_up = False
        self.last_request_s = -math.inf
        self.connected_once = False
        self._next_fall_s = -math.inf
        self._next_remote_s = -math.inf
        self._fall_state: tuple[int, bool] | None = None
        self._frames = 0
        self._odo_last: tuple[float, float, float, float] | None = None  # world odometry (x, y, theta), gyro yaw
        self._odo_xy = (0.0, 0.0)  # the odometer's position
        self.remote_state: Any = None  # a RemoteControllerState to publish instead of a neutral one
        self._pending: list[Any] = []  # requests taken by poll_requests, not carried out yet
        self._answers: list[tuple[float, Any]] = []  # (publish by, RpcRespMsg) held until matched
        self.first_arrival_wall_s: float | None = None  # when poll_requests first saw one since reset

    # --- requests ------------------------------------------------------------------------------

    @property
    def request_subscription(self) -> Any:
        """The subscription of this robot's loco requests."""
        return self._requests

    def poll_requests(self, wall_s: float) -> int:
        """Take the requests that arrived so far (carried out at the next ``serve_requests``),
        noting ``wall_s`` as their arrival; how many came."""
        samples = self._requests.take_with_writers(256)
        if samples:
            if self.first_arrival_wall_s is None:
                self.first_arrival_wall_s = wall_s
            self._pending.extend(samples)
        return sum(1 for req, _ in samples if req is not None)

    def serve_requests(self, now_s: float) -> int:
        """Carry out and answer every request that arrived; how many there were."""
        m, c = self._m, self.counters
        samples = self._pending + self._requests.take_with_writers(256)
        self._pending = []
        c.dropped = self._requests.dropped
        for req, writer in samples:
            if req is None:  # that brain has gone: the next one heard drives the robot
                self.request_lock.gone(writer)
                continue
            if not self.request_lock.accept(writer, now_s):  # a second participant's request: ignored
                c.not_locked += 1
                continue
            c.requests += 1
            self.last_request_s = now_s
            self.connected_once = True
            try:
                request = loco.parse_request(req.uuid, req.header, req.body)
            except loco.LocoRequestError as exc:
                if exc.status == loco.STATUS_UNKNOWN_API:
                    c.unknown_api += 1
                else:
                    c.bad_requests += 1
                self._answer(m.RpcRespMsg(uuid=req.uuid[:128], header='{"status":%d}' % exc.status, body=""),
                             now_s)
                continue
            self._carry_out(request)
            self._answer(m.RpcRespMsg(uuid=request.uuid, header='{"status":0}', body=""), now_s)
        self._flush_answers(now_s)
        return len(samples)

    def _answer(self, response: Any, now_s: float) -> None:
        self._answers.append((now_s + ANSWER_HOLD_S, response))

    def _flush_answers(self, now_s: float) -> None:
        """Publish the answers once a client's response reader matched (DDS matches a client's
        request writer and its response reader separately: an answer sent in between is lost,
        and the SDK then fails its call), or after ``ANSWER_HOLD_S`` regardless."""
        if not self._answers:
            return
        matched = self._responses.matched() > 0
        keep = []
        for due, response in self._answers:
            if matched or now_s >= due:
                self._responses.publish(response)
            else:
                keep.append((due, response))
        self._answers = keep[-256:]

    def _carry_out(self, request: loco.LocoRequest) -> None:
        c, v = self.counters, request.values
        api = request.api_id
        if api == loco.API_MOVE:
            c.moves += 1
            self.walk = (v["vx"], v["vy"], v["vyaw"])
        elif api == loco.API_ROTATE_HEAD:
            c.head_moves += 1
            self.head = (v["yaw"], v["pitch"])
        elif api == loco.API_GET_UP:
            c.get_ups += 1
            self._get_up = True
        elif api == loco.API_CHANGE_MODE:
            c.mode_changes += 1
            self.mode = v["mode"]
            if self.mode == loco.MODE_WALKING:
                self.visual_kick = False
        elif api == loco.API_VISUAL_KICK:
            c.visual_kicks += 1
            self.visual_kick = bool(v["start"])

    def connected(self, now_s: float) -> bool:
        """A brain sent a request within ``silence_stop_s``."""
        return now_s - self.last_request_s <= self.silence_stop_s

    def command(self, now_s: float, world: Any) -> RobotCommand:
        """What the robot does in the next step, from the requests so far."""
        state = world.robots[self.robot_id]
        if state.fallen:  # a fall ends the vision kick (see the module docstring)
            self.visual_kick = False
        pan, tilt = self.head if self.head is not None else (state.head_pan_rad, state.head_tilt_rad)
        if not self.connected(now_s):  # the brain is gone: stand, head where it is (a vision kick goes on)
            if not self.visual_kick:
                return RobotCommand(0.0, 0.0, 0.0, state.head_pan_rad, state.head_tilt_rad)
            self.walk = (0.0, 0.0, 0.0)
        vx, vy, vt = self.walk if self.mode in (loco.MODE_WALKING, loco.MODE_SOCCER, loco.MODE_CUSTOM) else (0.0,) * 3
        cmd = RobotCommand(vx, vy, vt, pan, tilt)
        if self._get_up:
            self._get_up = False
            cmd.stand_up = True
        if self.visual_kick and not world.is_kicking(self.robot_id):
            if self._ball_at_feet(world, state):
                cmd.kick = _FORWARD_KICK
            else:  # the service's approach (the brain's walk set aside) when the ball is within its reach
                approach = self._visual_kick_approach(world, state)
                if approach is not None:
                    cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps = approach
        return cmd

    @staticmethod
    def _visual_kick_approach(world: Any, state: Any) -> tuple[float, float, float] | None:
        """(vx, vy, vyaw) toward a ball within reach of the vision kick (turning to face it first);
        None for a ball beyond it (the brain's walk goes on)."""
        ball = world.ball
        bx, by = ball.x_m - state.x_m, ball.y_m - state.y_m
        c, s = math.cos(state.theta_rad), math.sin(state.theta_rad)
        fx, fy = c * bx + s * by, -s * bx + c * by
        bearing = math.atan2(fy, fx)
        if math.hypot(fx, fy) > VISUAL_KICK_RANGE_M:
            return None
        vx = min(0.4, max(0.0, 0.8 * fx)) if abs(bearing) < VISUAL_KICK_WALK_BEARING_RAD else 0.0  # face it first
        vy = min(0.2, max(-0.2, 1.0 * fy))
        return vx, vy, min(1.0, max(-1.0, 1.5 * bearing))

    @staticmethod
    def _ball_at_feet(world: Any, state: Any) -> bool:
        body = world.config.body
        ball = world.ball
        bx, by = ball.x_m - state.x_m, ball.y_m - state.y_m
        c, s = math.cos(state.theta_rad), math.sin(state.theta_rad)
        fx, fy = c * bx + s * by, -s * bx + c * by
        return 0.0 < fx <= body.radius_m + ball.radius_m + body.kick_reach_m and abs(fy) <= body.kick_lateral_reach_m

    # --- sensors -------------------------------------------------------------------------------

    def publish(self, obs: Observations, t_s: float, state: Any) -> None:
        """Publish what the robot senses after a step (``state``: the world's RobotState)."""
        m = self._m
        stamp = m.Time(sec=int(t_s), nanosec=int(round((t_s - int(t_s)) * 1e9)) % 1_000_000_000)
        x_m, y_m, theta_rad = self._odometer_pose(obs)
        self._odometer.publish(m.Odometer(x=x_m, y=y_m, theta=theta_rad))
        self._low_state.publish_encoded(self._low_state_bytes(obs, state))
        n = 2
        fall = self._fall_state_of(state)
        if fall != self._fall_state or t_s >= self._next_fall_s:
            self._fall_state = fall
            self._next_fall_s = t_s + FALL_PUBLISH_PERIOD_S
            self._fall_down.publish(m.FallDownState(fall_down_state=fall[0], is_recovery_available=fall[1]))
            self._recovery.publish(m.RecoveryState(fall[0], fall[1], planner_index_of(fall[0])).to_message())
            n += 2
        if t_s >= self._next_remote_s:
            self._next_remote_s = t_s + REMOTE_PUBLISH_PERIOD_S
            self._remote.publish(self.remote_state if self.remote_state is not None else _neutral_remote(m))
            n += 1
        if obs.camera_frame:
            header = m.Header(stamp=stamp, frame_id="base_link")
            self._detections.publish(self._detections_message(obs, header))
            self._frames += 1
            n += 1
            if self.line_camera is not None and self._frames % self.publish_lines_every == 0:
                segments = self.line_camera.segments(state.pose, obs.head_pan_rad, obs.head_tilt_rad, self.rng) \
                    if not obs.fallen else ()
                coordinates = segments_to_coordinates(segments)
                self._lines.publish(m.LineSegments(header=header, coordinates=coordinates,
                                                   coordinates_uv=self._segments_uv(coordinates, obs)))
                n += 1
            self._head_pose.publish(_head_pose(m, obs.head_pan_rad, obs.head_tilt_rad, self.camera.height_m))
            n += 1
        if t_s >= self._next_camera_info_s:  # the image's size and intrinsics, once a second
            self._next_camera_info_s = t_s + 1.0
            info = camera_info(m, m.Header(stamp=stamp, frame_id="head_camera"))
            for publisher in self._camera_info:
                publisher.publish(info)
            n += len(self._camera_info)
        self.counters.published += n

    def _odometer_pose(self, obs: Observations) -> tuple[float, float, float]:
        """The odometer's (x, y, theta): the legs' steps (the world's odometry, its scale error
        and slips included) turned by the gyro's heading, which is theta (see the module
        docstring)."""
        odo, yaw = obs.odometry, obs.imu_yaw_rad
        if self._odo_last is None:
            self._odo_last = (odo.x_m, odo.y_m, odo.theta_rad, yaw)
            self._odo_xy = (odo.x_m, odo.y_m)
        x0, y0, th0, yaw0 = self._odo_last
        dx, dy = odo.x_m - x0, odo.y_m - y0
        c, s = math.cos(th0), math.sin(th0)
        fwd, left = c * dx + s * dy, c * dy - s * dx  # the step in the body frame
        mid = yaw0 + 0.5 * math.remainder(yaw - yaw0, math.tau)
        c, s = math.cos(mid), math.sin(mid)
        x, y = self._odo_xy
        self._odo_xy = (x + c * fwd - s * left, y + s * fwd + c * left)
        self._odo_last = (odo.x_m, odo.y_m, odo.theta_rad, yaw)
        return self._odo_xy[0], self._odo_xy[1], yaw

    @staticmethod
    def _fall_state_of(state: Any) -> tuple[int, bool]:
        """FallDownState: IS_READY 0, IS_FALLING 1, HAS_FALLEN 2, IS_GETTING_UP 3."""
        if not state.fallen:
            return 0, False
        if getattr(state, "standing_up", False):
            return 3, False
        return 2, True

    def _low_state_message(self, obs: Observations, state: Any) -> Any:
        """The low state as a message (what ``_low_state_bytes`` encodes faster)."""
        m = self._m
        imu = m.ImuState(rpy=[0.0, 0.0, obs.imu_yaw_rad], gyro=[0.0, 0.0, float(getattr(state, "vtheta_radps", 0.0))],
                         acc=[0.0, 0.0, 9.81])
        motors = [m.MotorState(mode=0, q=q, dq=0.0, ddq=0.0, tau_est=0.0, temperature=40, lost=0, reserve=[0, 0])
                  for q in (obs.head_pan_rad, obs.head_tilt_rad)]
        rest = m.MotorState(mode=0, q=0.0, dq=0.0, ddq=0.0, tau_est=0.0, temperature=40, lost=0, reserve=[0, 0])
        motors.extend([rest] * (T1_SERIAL_MOTORS - 2))
        return m.LowState(imu_state=imu, motor_state_parallel=[], motor_state_serial=motors)

    def _low_state_bytes(self, obs: Observations, state: Any) -> bytes:
        """``_low_state_message(...).encode()``, from a template: the IMU's yaw and turn rate and
        the head motors' angles change, the 21 other joints stand still (100 Hz for every robot:
        encoding 23 motors each time cost a simulator more than its world)."""
        template = _LOW_STATE_TEMPLATE
        if template is None:
            template = _low_state_template(self._m)
        data = bytearray(template)
        _IMU_YAW.pack_into(data, _IMU_YAW_AT, obs.imu_yaw_rad)
        _IMU_YAW.pack_into(data, _GYRO_Z_AT, float(getattr(state, "vtheta_radps", 0.0)))
        _IMU_YAW.pack_into(data, _MOTOR0_Q_AT, obs.head_pan_rad)
        _IMU_YAW.pack_into(data, _MOTOR0_Q_AT + _MOTOR_BYTES, obs.head_tilt_rad)
        return bytes(data)

    def _segments_uv(self, coordinates: list[float], obs: Observations) -> list[float]:
        """Each segment end's pixel (u, v), as many numbers as ``coordinates`` (robocup_demo reads
        both for every segment); an end behind the camera (it cannot be: the segments are the ones
        the camera sees) would get the image's edge."""
        out: list[float] = []
        for i in range(0, len(coordinates) - 1, 2):
            uv = self.head_camera.project(coordinates[i], coordinates[i + 1], 0.0, obs.head_pan_rad, obs.head_tilt_rad)
            u, v = uv if uv is not None else (0.0, float(IMAGE_HEIGHT_PX - 1))
            out += [min(max(u, 0.0), IMAGE_WIDTH_PX - 1.0), min(max(v, 0.0), IMAGE_HEIGHT_PX - 1.0)]
        return out

    def _detections_message(self, obs: Observations, header: Any) -> Any:
        m = self._m
        objects = []
        for det in obs.detections:
            if det.kind not in LABEL_OF_VISION:  # the centre circle: no class of Booster's detector
                continue
            colour = det.team.name.lower() if det.team is not None else ""
            xmin, ymin, xmax, ymax = self.head_camera.box(det.kind, det.x_m, det.y_m, obs.head_pan_rad,
                                                          obs.head_tilt_rad)
            objects.append(m.DetectedObject(
                label=LABEL_OF_VISION[det.kind], color=colour, confidence=det.confidence * 100.0,
                xmin=xmin, ymin=ymin, xmax=xmax, ymax=ymax, target_uv=[(xmin + xmax) / 2.0, (ymin + ymax) / 2.0],
                received_pos=[], position=[det.x_m, det.y_m, 0.0],
                position_projection=[det.x_m, det.y_m, 0.0], position_cam=[], position_confidence=0))
        return m.Detections(header=header, detected_objects=objects, radar_x=[], radar_y=[],
                            corner_pos=self._corners(obs.head_tilt_rad))

    def _corners(self, tilt_rad: float) -> list[float]:
        """The image's corners and centre on the ground (robot frame, x y each), as robocup_demo's
        vision reports them: near left, near right... far corners at the feature range when the
        image reaches the horizon."""
        near, far = ground_band_m(self.camera, tilt_rad)
        limit = self.camera.feature_max_range_m
        near, far = min(near, limit), min(far, limit)
        half = self.camera.horizontal_fov_rad / 2.0
        pts = [(far, half), (far, -half), (near, -half), (near, half), ((near + far) / 2.0, 0.0)]
        out: list[float] = []
        for r, a in pts:
            out.extend((r * math.cos(a), r * math.sin(a)))
        return out


def _neutral_remote(m: Any) -> Any:
    return m.RemoteControllerState(event=0, lx=0.0, ly=0.0, rx=0.0, ry=0.0, a=False, b=False, x=False, y=False,
                                   lb=False, rb=False, lt=False, rt=False, ls=False, rs=False, back=False, start=False,
                                   hat_c=True, hat_u=False, hat_d=False, hat_l=False, hat_r=False, hat_lu=False,
                                   hat_ld=False, hat_ru=False, hat_rd=False, hat_pos=0)


def _head_pose(m: Any, pan_rad: float, tilt_rad: float, height_m: float) -> Any:
    """geometry_msgs/Pose of the head: at camera height, yawed by pan, pitched by tilt."""
    cy, sy = math.cos(pan_rad / 2.0), math.sin(pan_rad / 2.0)
    cp, sp = math.cos(tilt_rad / 2.0), math.sin(tilt_rad / 2.0)
    # q = yaw(pan) * pitch(tilt)
    return m.Pose(position=m.Point(x=0.0, y=0.0, z=height_m),
                  orientation=m.Quaternion(x=-sy * sp, y=cy * sp, z=sy * cp, w=cy * cp))
