"""BoosterDriver over the in-process transport: what it senses, what it sends, how it stays safe."""
from __future__ import annotations

import json
import math

import pytest

from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.driver import BoosterDriver
from soccerbt.drivers.booster.remote import RemotePad
from soccerbt.drivers.booster.transport import MemoryBus, MemoryTransport
from soccerbt.drivers.gamepad import EmergencyStop
from soccerbt.world.types import BALL, ROBOT, KickRequest, RobotCommand, RobotId, Team

BLUE2 = RobotId(Team.BLUE, 2)


class Robot:
    """The robot's side of the topics (what a Booster robot publishes and hears)."""

    def __init__(self, bus: MemoryBus, name: str = "blue2") -> None:
        self.t = MemoryTransport(bus)
        sfx = f"/{name}" if name else ""
        pub = self.t.publisher
        self.odometer = pub(f"/odometer_state{sfx}", m.Odometer, "sensor")
        self.low_state = pub(f"/low_state{sfx}", m.LowState, "sensor")
        self.detections = pub(f"/booster_soccer/detection{sfx}", m.Detections, "sensor")
        self.lines = pub(f"/booster_soccer/line_segments{sfx}", m.LineSegments, "sensor")
        self.fall_down = pub(f"/fall_down{sfx}", m.FallDownState, "sensor")
        self.recovery = pub(f"fall_down_recovery_state{sfx}", m.RawBytesMsg, "sensor")
        self.remote = pub(f"/remote_controller_state{sfx}", m.RemoteControllerState, "sensor")
        req = f"LocoApiTopic/{name}Req" if name else "LocoApiTopicReq"
        self.requests = self.t.subscription(req, m.RpcReqMsg, "command", depth=256)

    def alive(self, x: float = 0.0, yaw: float = 0.0, pitch: float = 0.6, imu_yaw: float = 0.0) -> None:
        self.odometer.publish(m.Odometer(x=x, y=0.0, theta=0.0))
        motors = [m.MotorState(q=yaw), m.MotorState(q=pitch)]
        self.low_state.publish(m.LowState(imu_state=m.ImuState(rpy=[0.0, 0.0, imu_yaw]), motor_state_serial=motors))

    def sent(self) -> list[tuple[int, dict]]:
        out = []
        for r in self.requests.take(256):
            body = json.loads(r.body) if r.body else None
            out.append((json.loads(r.header)["api_id"], body))
        return out


@pytest.fixture()
def bus() -> MemoryBus:
    return MemoryBus()


def _driver(bus: MemoryBus, **kw: object) -> BoosterDriver:
    return BoosterDriver(MemoryTransport(bus), BLUE2, name="blue2", **kw)  # type: ignore[arg-type]


def test_sense_converts_the_robots_messages(bus: MemoryBus) -> None:
    robot, driver = Robot(bus), _driver(bus)
    robot.alive(x=1.25, yaw=0.3, pitch=0.7, imu_yaw=0.2)
    robot.detections.publish(m.Detections(detected_objects=[
        m.DetectedObject(label="Ball", confidence=87.0, position_projection=[2.0, -0.5, 0.0]),
        m.DetectedObject(label="Opponent", color="red", confidence=60.0, position_projection=[3.0, 1.0]),
        m.DetectedObject(label="LCross", confidence=50.0, position_projection=[4.0, 2.0]),
        m.DetectedObject(label="Ball", confidence=90.0, position_projection=[1.0]),  # robocup_demo would crash
        m.DetectedObject(label="Ball", confidence=90.0, position_projection=[float("nan"), 0.0]),
        m.DetectedObject(label="Ball", confidence=90.0, position_projection=[1e30, 0.0]),
        m.DetectedObject(label="Banana", confidence=90.0, position_projection=[1.0, 0.0]),
    ]))
    robot.lines.publish(m.LineSegments(coordinates=[1.0, -1.0, 1.0, 1.0, 2.0, 0.0, 3.0, math.inf]))
    driver.poll(5.0)
    obs = driver.sense()
    assert obs.t_s == 5.0 and obs.camera_frame
    assert [(d.kind, d.x_m, d.y_m, d.team) for d in obs.detections] == [
        (BALL, 2.0, -0.5, None), (ROBOT, 3.0, 1.0, Team.RED), ("L", 4.0, 2.0, None)]
    assert obs.detections[0].confidence == pytest.approx(0.87)
    assert driver.convert_counters.objects_dropped == 4
    assert obs.line_segments == ((1.0, -1.0, 1.0, 1.0),) and driver.convert_counters.segments_dropped == 1
    assert obs.odometry.x_m == 1.25
    assert (obs.head_pan_rad, obs.head_tilt_rad) == pytest.approx((0.3, 0.7))
    assert obs.imu_yaw_rad == pytest.approx(0.2) and not obs.fallen
    # the next step has no new frame: no detections, the odometry stays
    driver.poll(5.01)
    later = driver.sense()
    assert not later.camera_frame and later.detections == () and later.line_segments == ()


def test_fallen_from_either_fall_topic(bus: MemoryBus) -> None:
    robot, driver = Robot(bus), _driver(bus)
    robot.fall_down.publish(m.FallDownState(fall_down_state=m.FallDownState.HAS_FALLEN, is_recovery_available=True))
    driver.poll(0.0)
    assert driver.sense().fallen
    robot.recovery.publish(m.RecoveryState(0, False).to_message())  # robocup_demo's bytes: ready again
    driver.poll(0.01)
    assert not driver.sense().fallen
    robot.recovery.publish(m.RawBytesMsg(msg=b"\x09"))  # not a recovery state
    driver.poll(0.02)
    assert driver.counters.bad_values == 1 and not driver.sense().fallen


def test_commands_become_robocup_demo_requests(bus: MemoryBus) -> None:
    robot, driver = Robot(bus), _driver(bus)
    robot.alive()
    driver.poll(0.0)
    driver.act(RobotCommand(0.1, 0.0, -2.0, head_pan_rad=0.2, head_tilt_rad=0.9))
    assert robot.sent() == [(2001, {"vx": pytest.approx(0.3), "vy": 0.0, "vyaw": pytest.approx(-1.2)}),
                            (2004, {"pitch": pytest.approx(0.9), "yaw": pytest.approx(0.2)})]
    # the same command 10 ms later: nothing new; after the keep-alive period: Move and head again
    robot.alive()
    driver.poll(0.01)
    driver.act(RobotCommand(0.1, 0.0, -2.0, head_pan_rad=0.2, head_tilt_rad=0.9))
    assert robot.sent() == []
    robot.alive()
    driver.poll(0.11)
    driver.act(RobotCommand(0.1, 0.0, -2.0, head_pan_rad=0.2, head_tilt_rad=0.9))
    assert [api for api, _ in robot.sent()] == [2001, 2004]
    # a stand-up request: one GetUp, not one per tick
    for k in range(3):
        robot.alive()
        driver.poll(0.12 + 0.01 * k)
        driver.act(RobotCommand(stand_up=True, head_pan_rad=0.2, head_tilt_rad=0.9))
    sent = robot.sent()
    assert [api for api, _ in sent].count(2008) == 1


def test_a_kick_enters_the_visual_kick_and_walking_mode_ends_it(bus: MemoryBus) -> None:
    robot, driver = Robot(bus), _driver(bus, visual_kick_hold_s=0.5)
    t = 0.0
    for _ in range(3):
        robot.alive()
        driver.poll(t)
        driver.act(RobotCommand(kick=KickRequest(0.0, 1.0)))
        t += 0.01
    assert [body for api, body in robot.sent() if api == 2038] == [{"start": True}]
    robot.alive()
    driver.poll(t + 0.6)
    driver.act(RobotCommand())
    assert (2000, {"mode": 2}) in robot.sent()


def test_stale_inputs_stop_the_robot_once_and_resume(bus: MemoryBus, caplog: pytest.LogCaptureFixture) -> None:
    robot, driver = Robot(bus), _driver(bus, stale_after_s=0.3)
    robot.alive(yaw=0.1, pitch=0.5)
    driver.poll(0.0)
    driver.act(RobotCommand(0.5, 0.0, 0.0))
    assert robot.sent()[0] == (2001, {"vx": 0.5, "vy": 0.0, "vyaw": 0.0})
    t = 0.0
    for _ in range(60):  # 0.6 s without odometer or low state
        t += 0.01
        driver.poll(t)
        driver.act(RobotCommand(0.5, 0.0, 0.0))
    sent = robot.sent()
    stop = sent.index((2001, {"vx": 0.0, "vy": 0.0, "vyaw": 0.0}))
    moves = [r for r in sent[:stop] if r[0] == 2001]
    assert moves and all(r == (2001, {"vx": 0.5, "vy": 0.0, "vyaw": 0.0}) for r in moves)  # keep-alives until stale
    assert len(moves) in (2, 3)  # every 0.1 s until 0.3 s had passed
    assert sent[stop:] == [(2001, {"vx": 0.0, "vy": 0.0, "vyaw": 0.0}),
                           (2004, {"pitch": pytest.approx(0.5), "yaw": pytest.approx(0.1)})]  # once: stop, head still
    assert driver.stale and driver.counters.stale_stops == 1
    assert sum("standing still" in r.message for r in caplog.records) == 1
    robot.alive()
    driver.poll(t + 0.01)
    driver.act(RobotCommand(0.5, 0.0, 0.0))
    assert not driver.stale and robot.sent()[0] == (2001, {"vx": 0.5, "vy": 0.0, "vyaw": 0.0})


def test_hold_keeps_the_robot_still_until_released(bus: MemoryBus) -> None:
    robot, driver = Robot(bus), _driver(bus)
    robot.alive(pitch=0.6)
    driver.poll(0.0)
    driver.hold("emergency stop")
    assert [api for api, _ in robot.sent()] == [2001, 2004]
    for k in range(5):
        robot.alive()
        driver.poll(0.01 * (k + 1))
        driver.act(RobotCommand(1.0, 0.0, 0.0, kick=KickRequest()))
    assert robot.sent() == []
    driver.release()
    robot.alive()
    driver.poll(0.1)
    driver.act(RobotCommand(1.0, 0.0, 0.0))
    assert robot.sent()[0] == (2001, {"vx": 1.0, "vy": 0.0, "vyaw": 0.0})


def test_plain_names_for_a_real_robot(bus: MemoryBus) -> None:
    robot = Robot(bus, name="")
    driver = BoosterDriver(MemoryTransport(bus), BLUE2, name="")
    robot.alive(x=0.5)
    driver.poll(0.0)
    assert driver.sense().odometry.x_m == 0.5
    driver.act(RobotCommand())
    assert robot.sent()[0][0] == 2001  # on LocoApiTopicReq


def _remote(**kw: object) -> m.RemoteControllerState:
    return m.RemoteControllerState(**kw)  # type: ignore[arg-type]


def test_the_robots_remote_controller_drives_like_a_pad(bus: MemoryBus) -> None:
    robot, driver = Robot(bus), _driver(bus)
    estop = EmergencyStop()
    pad = RemotePad(driver.remote, estop=estop, robot="blue2")
    bb: dict[str, object] = {"control_state": 3, "player_role": "striker"}
    driver.poll(0.0)
    assert pad.update(0.0, bb) is None  # no remote state yet
    robot.remote.publish(_remote(ly=-1.0, rx=0.5))  # stick forward, turn right
    driver.poll(0.01)
    cmd = pad.update(0.01, bb)
    assert cmd is not None and cmd.vx_mps > 0.9 and cmd.vtheta_radps < 0.0 and bb["go_manual"] is True
    robot.remote.publish(_remote(lt=True, b=False))
    driver.poll(0.02)
    pad.update(0.02, bb)
    robot.remote.publish(_remote(lt=True, x=True))  # LT + X: control state 1
    driver.poll(0.03)
    assert pad.update(0.03, bb) is None and bb["control_state"] == 1 and bb["go_manual"] is False
    robot.remote.publish(_remote(lt=True, y=True))  # LT + Y: swap roles
    driver.poll(0.04)
    pad.update(0.04, bb)
    assert bb["player_role"] == "goal_keeper"
    robot.remote.publish(_remote(rb=True))
    driver.poll(0.05)
    pad.update(0.05, bb)
    assert bb["assist_kick"] is True
    robot.remote.publish(_remote(back=True))  # BACK: emergency stop
    driver.poll(0.06)
    pad.update(0.06, bb)
    assert estop.engaged
    robot.remote.publish(_remote(start=True))  # START releases it
    driver.poll(0.07)
    pad.update(0.07, bb)
    assert not estop.engaged


def test_a_second_remote_controller_publisher_neither_stops_nor_frees_nor_drives(
        bus: MemoryBus, caplog: pytest.LogCaptureFixture) -> None:
    # the robot's own remote controller, and a second participant publishing on the same topic
    robot, driver = Robot(bus), _driver(bus)
    intruder = MemoryTransport(bus).publisher("/remote_controller_state/blue2", m.RemoteControllerState, "sensor")
    estop = EmergencyStop()
    pad = RemotePad(driver.remote, estop=estop, robot="blue2")
    bb: dict[str, object] = {"control_state": 3, "player_role": "striker"}
    t = 0.0

    def step(publisher: object, **buttons: object) -> object:
        nonlocal t
        t = round(t + 0.01, 2)
        publisher.publish(_remote(**buttons))  # type: ignore[attr-defined]
        driver.poll(t)
        return pad.update(t, bb)

    step(robot.remote)  # the robot's remote is heard first: the lock is on it
    step(intruder, back=True)  # BACK from the intruder: not taken
    assert not estop.engaged
    assert step(intruder, ly=-1.0) is None and bb.get("go_manual") is not True  # its stick drives nothing
    step(robot.remote, back=True)  # the robot's own BACK engages
    assert estop.engaged
    step(intruder, start=True)  # the intruder's START cannot release it
    assert estop.engaged
    assert driver.counters.remote_refused == 3
    said = [r.getMessage() for r in caplog.records if "second writer" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("/remote_controller_state/blue2: samples of a second writer ignored")
    step(robot.remote, start=True)  # the one that engaged it releases it
    assert not estop.engaged


def test_the_remote_lock_moves_when_its_publisher_has_gone_but_a_stop_stays_its_owners(bus: MemoryBus) -> None:
    robot, driver = Robot(bus), _driver(bus)
    estop = EmergencyStop()
    pad = RemotePad(driver.remote, estop=estop, robot="blue2")
    bb: dict[str, object] = {"control_state": 3, "player_role": "striker"}
    robot.remote.publish(_remote(back=True))
    driver.poll(0.01)
    pad.update(0.01, bb)
    assert estop.engaged
    robot.t.close()  # the robot's remote service goes away (DDS: its writer is no longer alive)
    restarted = MemoryTransport(bus).publisher("/remote_controller_state/blue2", m.RemoteControllerState, "sensor")
    restarted.publish(_remote(start=True))
    driver.poll(0.02)
    pad.update(0.02, bb)
    assert driver.remote_lock.locked == restarted.writer_id  # the restarted service is heard
    assert estop.engaged and estop.refused_releases == 1  # but a stop is released only by its owner
    restarted.publish(_remote(ly=-1.0))
    driver.poll(0.03)
    assert pad.update(0.03, bb) is not None  # it drives (the stop keeps the robot still meanwhile)


def test_a_silent_publisher_loses_the_lock_after_the_stated_time(bus: MemoryBus) -> None:
    robot, driver = Robot(bus), _driver(bus)
    other = MemoryTransport(bus).publisher("/remote_controller_state/blue2", m.RemoteControllerState, "sensor")
    robot.remote.publish(_remote())
    driver.poll(1.0)
    other.publish(_remote())
    driver.poll(1.0 + driver.remote_lock.silence_s - 0.01)
    assert driver.remote_lock.locked == robot.remote.writer_id and driver.counters.remote_refused == 1
    other.publish(_remote())
    driver.poll(1.0 + driver.remote_lock.silence_s)
    assert driver.remote_lock.locked == other.writer_id and driver.remote_lock.moves == 1
