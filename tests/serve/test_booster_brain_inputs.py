"""The served messages against what robocup_demo's brain reads from them (issue 38), and the
kicks it makes: the camera sees what the T1's image shows (its ``camera_info``'s field of view)
and a ball at the feet in every frame, detections carry only the labels of Booster's detector,
the vision kick takes a ball as far as the brain hands it over, a walk-in that sends the ball off
is a kick, a fallen robot reports the planner indexes CheckAndStandUp waits for and gets up."""
from __future__ import annotations

import math

import pytest

from soccerbt.drivers.booster import loco
from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.transport import MemoryBus, MemoryTransport
from soccerbt.match import MatchConfig, run_match
from soccerbt.serve.endpoint import PLANNER_FALLEN, PLANNER_GETTING_UP, PLANNER_WALKING, VISUAL_KICK_RANGE_M
from soccerbt.serve.head_camera import FX_PX, FY_PX, IMAGE_HEIGHT_PX, IMAGE_WIDTH_PX
from soccerbt.serve.served import ServedMatch
from soccerbt.world.ball_motion import WALK_IN_KICK_SPEED_MPS
from soccerbt.world.config import CameraConfig, NoiseConfig, WorldConfig
from soccerbt.world.sim import World
from soccerbt.world.types import Pose2D, RobotCommand, RobotId, Team

BLUE1 = RobotId(Team.BLUE, 1)
# vision.yaml's detection_model.classnames: every label Booster's vision can send
VISION_CLASSES = {"Ball", "Goalpost", "Person", "LCross", "TCross", "XCross", "PenaltyPoint", "Opponent", "BRMarker"}


class Brain:
    """A loco client and the sensor topics on the in-process bus (what Booster's brain uses)."""

    def __init__(self, bus: MemoryBus, name: str = "blue1") -> None:
        t = MemoryTransport(bus)
        self.requests = t.publisher(f"LocoApiTopic/{name}Req", m.RpcReqMsg, "command")
        self.detections = t.subscription(f"/booster_soccer/detection/{name}", m.Detections, "sensor", depth=400)
        self.recovery = t.subscription(f"fall_down_recovery_state/{name}", m.RawBytesMsg, "sensor", depth=400)
        self._n = 0

    def call(self, api_id: int, body: str) -> None:
        self._n += 1
        self.requests.publish(m.RpcReqMsg(uuid=f"r{self._n}", header=loco.header_text(api_id), body=body))


def _served() -> tuple[ServedMatch, Brain]:
    bus = MemoryBus()
    served = ServedMatch(MatchConfig(team_size=1, seed=2), MemoryTransport(bus), refereed=False)
    return served, Brain(bus)


def _step(served: ServedMatch, brain: Brain, steps: int, *, pitch_rad: float = 0.35, yaw_rad: float = 0.0) -> None:
    """Steps with the brain holding the head and standing (a request every 0.1 s keeps it connected)."""
    for k in range(steps):
        if k % 10 == 0:
            brain.call(loco.API_ROTATE_HEAD, loco.rotate_head_body(pitch_rad, yaw_rad))
            brain.call(loco.API_MOVE, loco.move_body(0.0, 0.0, 0.0))
        served.match.step()


def test_a_served_robot_sees_what_the_t1_image_shows() -> None:
    served, brain = _served()
    camera = served.world.config.camera
    # the field of view of the served camera_info (Brain::depthCameraInfoCallback: 2 atan(w / 2 fx))
    assert camera.horizontal_fov_rad == pytest.approx(2 * math.atan(IMAGE_WIDTH_PX / 2 / FX_PX))
    assert camera.vertical_fov_rad == pytest.approx(2 * math.atan(IMAGE_HEIGHT_PX / 2 / FY_PX))
    assert math.degrees(camera.horizontal_fov_rad) == pytest.approx(94.9, abs=0.1)
    assert math.degrees(camera.vertical_fov_rad) == pytest.approx(99.2, abs=0.1)
    # a ball 0.5 m ahead of a robot looking down 0.35 rad, as Booster's READY does (MoveHead
    # pitch=0.35): in the image (the world's 70-degree camera saw the ground from 0.77 m only)
    served.world.place_robot(BLUE1, Pose2D(0.0, 0.0, 0.0))
    served.world.place_ball(0.5, 0.0)
    _step(served, brain, 100)
    balls = [o for d in brain.detections.take(400) for o in d.detected_objects if o.label == "Ball"]
    assert len(balls) > 10
    ball = balls[-1]
    assert ball.position_projection[0] == pytest.approx(0.5, abs=0.1)
    assert ball.confidence >= 50.0  # Brain::detectProcessBalls keeps ball_confidence_threshold 50 and up
    assert 0 <= ball.xmin < ball.xmax < IMAGE_WIDTH_PX and 0 <= ball.ymin < ball.ymax < IMAGE_HEIGHT_PX
    assert ball.ymax > IMAGE_HEIGHT_PX * 0.8  # near the feet: low in the image
    served.close()
    # a config that names a camera keeps it
    own = ServedMatch(MatchConfig(team_size=1, seed=2, camera=CameraConfig()), MemoryTransport(MemoryBus()),
                      refereed=False)
    assert own.world.config.camera == CameraConfig()
    own.close()


def test_a_ball_near_the_feet_is_in_every_frame() -> None:
    # Booster's brain remembers a ball for 2 s; one frame without it, nearer than robot_height
    # (0.8 m), and CamTrackBall asks for the head pitch asin(robot_height / range): NaN, sent as
    # "pitch": null. The world's camera missed a near ball in about one frame in ten.
    served, brain = _served()
    served.world.place_robot(BLUE1, Pose2D(0.0, 0.0, 0.0))
    served.world.place_ball(0.6, 0.05)
    _step(served, brain, 30, pitch_rad=0.45)  # robocup_demo's head_pitch_limit_up: pitch 0.45 at least
    brain.detections.take(400)
    _step(served, brain, 1000, pitch_rad=0.45)
    frames = brain.detections.take(400)
    assert len(frames) == 300 and not served.world.robots[BLUE1].fallen
    assert all(any(o.label == "Ball" and abs(o.position_projection[0] - 0.6) < 0.2 for o in f.detected_objects)
               for f in frames)
    served.close()


def test_detections_carry_only_the_labels_of_boosters_detector() -> None:
    served, brain = _served()
    # near the centre mark, looking at the centre circle: the world's camera reports it, Booster's
    # detector has no class for it
    served.world.place_robot(BLUE1, Pose2D(-1.5, 0.0, 0.0))
    circle_seen = 0
    for _ in range(10):
        _step(served, brain, 10, pitch_rad=0.5)
        circle_seen += any(d.kind == "centre_circle" for d in served.world.observe(BLUE1).detections)
    labels = {o.label for d in brain.detections.take(400) for o in d.detected_objects}
    assert circle_seen > 0 and labels and labels <= VISION_CLASSES
    assert {"XCross", "Ball"} <= labels  # the halfway line's crossings with the circle, the ball at the centre
    served.close()


def _walk_into_ball(vx_mps: float) -> tuple[int, float]:
    world = World(WorldConfig(noise=NoiseConfig.perfect()), seed=0)
    world.add_robot(BLUE1, Pose2D(0.0, 0.0, 0.0))
    world.place_ball(1.0, 0.0)
    fastest = 0.0
    for _ in range(300):  # walk in, stop once the ball moves (as Booster's Kick node does)
        world.set_command(BLUE1, RobotCommand(0.0 if fastest > 0.0 else vx_mps, 0.0, 0.0, 0.0, 0.0))
        world.step()
        fastest = max(fastest, world.ball.speed_mps)
    return world.robots[BLUE1].walk_in_kicks, fastest


def test_a_walk_in_that_sends_the_ball_off_is_a_kick() -> None:
    # Booster's Kick node walks into the ball at up to 0.8 m/s: the feet send it off at 1.2 m/s
    kicks, speed = _walk_into_ball(0.8)
    assert kicks == 1 and speed >= WALK_IN_KICK_SPEED_MPS == 1.0
    # a slow walk pushes the ball along: touched, not kicked
    kicks, speed = _walk_into_ball(0.3)
    assert kicks == 0 and 0.3 < speed < WALK_IN_KICK_SPEED_MPS


def test_soccerbts_own_kicks_stay_kick_motions() -> None:
    result = run_match(MatchConfig(team_size=2, seed=1, duration_s=60.0))
    for r in result.robots:
        assert r.kicks == r.kick_motions + r.walk_in_kicks
    # soccerbt's trees kick with kick motions; walk-ins do not swamp the count
    assert sum(r.kick_motions for r in result.robots) > 0
    assert sum(r.walk_in_kicks for r in result.robots) <= sum(r.kick_motions for r in result.robots)
    assert result.to_dict()["robots"][0].keys() >= {"kicks", "kick_motions", "walk_in_kicks", "stand_ups"}


def test_the_vision_kick_turns_to_a_ball_the_brain_handed_over() -> None:
    served, brain = _served()
    world = served.world
    # robocup_demo's config hands over a ball nearer than 4 m within 1.04 rad; RLVisionKick keeps
    # the kick running up to 5 m: the robot's own service must go for such a ball
    world.place_robot(BLUE1, Pose2D(0.0, 0.0, 0.0))
    world.place_ball(3.0 * math.cos(1.0), 3.0 * math.sin(1.0))
    brain.call(loco.API_VISUAL_KICK, loco.visual_kick_body(True))
    _step(served, brain, 100)
    robot = world.robots[BLUE1]
    assert robot.theta_rad > 0.5  # turned toward it
    _step(served, brain, 600)
    assert math.hypot(world.ball.x_m - robot.x_m, world.ball.y_m - robot.y_m) < 1.5 or robot.kicks > 0
    # beyond the service's reach nothing happens: the brain takes over (ball farther than 5 m)
    world.place_robot(BLUE1, Pose2D(0.0, 0.0, 0.0))
    world.place_ball(VISUAL_KICK_RANGE_M + 1.0, 0.0)
    _step(served, brain, 100)
    assert world.robots[BLUE1].pose.distance_to(0.0, 0.0) < 0.01
    served.close()


def test_a_fallen_robot_reports_the_planner_checkandstandup_waits_for_and_gets_up() -> None:
    served, brain = _served()
    served.world.knock_over(BLUE1)
    _step(served, brain, 100)
    brain.recovery.take(400)
    # CheckAndStandUp sends GetUp when the state is HAS_FALLEN and the planner index 1
    _step(served, brain, 20)
    states = [m.RecoveryState.from_bytes(r.msg) for r in brain.recovery.take(400)]
    assert states and all((s.state, s.current_planner_index) == (2, PLANNER_FALLEN) for s in states)
    # the brain's CheckAndStandUp: GetUp on (HAS_FALLEN, 1); a retry counted on reading 10; at
    # most retry_max_count (2) attempts (a stand-up fails now and then: the robot falls back)
    seen: list[tuple[int, int]] = []
    sent, armed = 0, True
    for _ in range(200):
        if armed and sent < 2 and (not seen or seen[-1] == (2, PLANNER_FALLEN)):
            brain.call(loco.API_GET_UP, loco.get_up_body())
            sent, armed = sent + 1, False
        _step(served, brain, 10)
        seen += [(s.state, s.current_planner_index)
                 for s in (m.RecoveryState.from_bytes(r.msg) for r in brain.recovery.take(400))]
        armed = armed or (3, PLANNER_GETTING_UP) in seen[-5:]
        if seen and seen[-1] == (0, PLANNER_WALKING):
            break
    # getting up (10), then ready and walking (8: CheckAndStandUp resets)
    assert (3, PLANNER_GETTING_UP) in seen and seen[-1] == (0, PLANNER_WALKING), seen[-10:]
    robot = served.world.robots[BLUE1]
    assert not robot.fallen and robot.stand_ups == 1 and served.endpoints[BLUE1].counters.get_ups == sent
    assert served.result().robots[0].stand_ups == 1
    served.close()


def test_the_odometers_heading_is_the_gyros() -> None:
    # robocup_demo trusts the odometer's theta to 1 degree between localizations (SelfLocate
    # trust_direction; the other locators move x and y only): it is the gyro's heading
    bus = MemoryBus()
    served = ServedMatch(MatchConfig(team_size=1, seed=5), MemoryTransport(bus), refereed=False)
    brain = Brain(bus)
    odometer = MemoryTransport(bus).subscription("/odometer_state/blue1", m.Odometer, "sensor", depth=5000)
    robot = served.world.robots[BLUE1]
    start = robot.pose
    for k in range(2000):  # 20 s walking a circle: forward 0.4 m/s, turning 0.5 rad/s
        if k % 10 == 0:
            brain.call(loco.API_MOVE, loco.move_body(0.4, 0.0, 0.5))
        served.match.step()
    last = odometer.take(5000)[-1]
    turned = math.remainder(robot.theta_rad - start.theta_rad, math.tau)
    assert abs(math.remainder(last.theta - turned, math.tau)) < 0.05  # the gyro's drift only
    # the legs' own belief of the heading is off by more (their turning scale error and slips)
    assert abs(math.remainder(robot.odometry.theta_rad - turned, math.tau)) > abs(math.remainder(last.theta - turned,
                                                                                                 math.tau))
    # the position: where the robot went, in its start frame, within the legs' errors
    c, s = math.cos(start.theta_rad), math.sin(start.theta_rad)
    dx, dy = robot.x_m - start.x_m, robot.y_m - start.y_m
    assert math.hypot(last.x - (c * dx + s * dy), last.y - (c * dy - s * dx)) < 0.1 * robot.distance_walked_m
    served.close()


def test_initial_lasts_as_long_as_asked() -> None:
    # Booster's brain localizes at its touch line in INITIAL (SelfLocateEnterField): a served
    # match can give it the time a GameController's operator would
    served = ServedMatch(MatchConfig(team_size=1, seed=2, gc_version=12), MemoryTransport(MemoryBus()),
                         gc_address="127.0.0.1", gc_port=9, gc_return_port=0, initial_s=5.0)
    states = []
    for _ in range(600):
        served.match.step()
        states.append((round(served.t_s, 2), served.match.referee.state))
    served.close()
    assert all(state == 0 for t, state in states if t < 5.0 - 1e-6)  # INITIAL
    assert all(state == 1 for t, state in states if 5.0 + 1e-6 < t < 6.0 - 1e-6)  # READY
    assert served.match.referee.config.initial_s == 5.0


def test_a_fall_ends_the_vision_kick() -> None:
    # CheckAndStandUp sends GetUp and leaves RLVisionKick without a ChangeMode: the robot that got
    # up walks as the brain's Moves say, not on with a kick the fall ended
    served, brain = _served()
    world = served.world
    world.place_robot(BLUE1, Pose2D(0.0, 0.0, 0.0))
    world.place_ball(3.0, 0.0)
    brain.call(loco.API_VISUAL_KICK, loco.visual_kick_body(True))
    _step(served, brain, 50)
    assert served.endpoints[BLUE1].visual_kick and world.robots[BLUE1].vx_mps > 0.1
    world.knock_over(BLUE1)
    _step(served, brain, 60)
    assert not served.endpoints[BLUE1].visual_kick
    for _ in range(20):  # GetUp until it stands (a stand-up fails now and then)
        if world.robots[BLUE1].fallen and not world.robots[BLUE1].standing_up:
            brain.call(loco.API_GET_UP, loco.get_up_body())
        _step(served, brain, 50)
        if not world.robots[BLUE1].fallen:
            break
    assert not world.robots[BLUE1].fallen
    for k in range(100):  # the brain walks backwards, away from the ball: the robot does
        if k % 10 == 0:
            brain.call(loco.API_MOVE, loco.move_body(-0.3, 0.0, 0.0))
        served.match.step()
    assert world.robots[BLUE1].vx_mps < -0.1
    served.close()
