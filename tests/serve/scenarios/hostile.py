"""Bad input to a running ``soccerbt brain --name blue1`` (wall clock, trees/walk.xml): this
scenario plays blue1's robot on Cyclone DDS (odometer and low state at 100 Hz, fall-down at
10 Hz, detections at 30 Hz, from a thread) and, phase by phase:

1. ``normal``: good samples only;
2. ``hostile``: NaN, infinite and huge odometer, low state and detections values, detections with
   fewer than two coordinates, unknown labels, NaN lines; loco responses with broken JSON; raw
   samples Cyclone accepts and our decoder refuses (a Detections of one object more than the cap, a label that
   is not UTF-8), garbage Cyclone refuses at the writer; a Pose on the odometer's topic;
3. ``flood``: thousands of Detections messages as fast as they go; ``big``: Detections at the cap of
   objects (the decoder's cap) one at a time;
4. ``quiet``: good samples only;
5. ``stale``: no odometer and no low state for 1 s (detections go on);
6. ``back``: good samples again.

The requests the brain sends are noted with their phase. Then SIGTERM; the brain's exit code,
report and stderr. Prints one JSON object."""
from __future__ import annotations

import json
import signal
import struct
import threading
import time

from _common import TREES, Proc, emit, soccerbt

from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.connect import open_transport
from soccerbt.drivers.booster.cyclone import ddspy_write
from soccerbt.drivers.booster.topics import TOPICS

NAME = "blue1"
NAN, INF = float("nan"), float("inf")
BIG_FRAMES = 3


def motors(q0: float = 0.0, q1: float = 0.5, n: int = 23) -> list[m.MotorState]:
    rest = [m.MotorState(q=0.0, temperature=40) for _ in range(max(0, n - 2))]
    return ([m.MotorState(q=q0, temperature=40), m.MotorState(q=q1, temperature=40)] + rest)[:n]


GOOD_ODOMETER = m.Odometer(x=0.5, y=0.25, theta=0.1)
GOOD_LOW = m.LowState(imu_state=m.ImuState(rpy=[0.0, 0.0, 0.1], gyro=[0.0, 0.0, 0.0], acc=[0.0, 0.0, 9.81]),
                      motor_state_serial=motors())
BALL = m.DetectedObject(label="Ball", confidence=90.0, position=[2.0, 0.1, 0.0], position_projection=[2.0, 0.1, 0.0])
GOOD_FRAME = m.Detections(detected_objects=[BALL], corner_pos=[0.0] * 10)
BAD_ODOMETERS = [m.Odometer(x=NAN, y=0.0, theta=0.0), m.Odometer(x=0.0, y=INF, theta=0.0),
                 m.Odometer(x=1e30, y=-1e30, theta=0.0), m.Odometer(x=0.0, y=0.0, theta=NAN)]
BAD_LOWS = [m.LowState(imu_state=GOOD_LOW.imu_state, motor_state_serial=motors(NAN, 0.5)),
            m.LowState(imu_state=GOOD_LOW.imu_state, motor_state_serial=motors(0.0, INF)),
            m.LowState(imu_state=m.ImuState(rpy=[0.0, 0.0, NAN]), motor_state_serial=motors()),
            m.LowState(imu_state=GOOD_LOW.imu_state, motor_state_serial=motors(n=1)),
            m.LowState(imu_state=m.ImuState(rpy=[INF, NAN, -INF]), motor_state_serial=motors(1e30, -1e30))]
HOSTILE_OBJECTS = [
    m.DetectedObject(label="Ball", confidence=90.0, position_projection=[1e30, 1e30]),
    m.DetectedObject(label="Ball", confidence=90.0, position_projection=[NAN, 0.0]),
    m.DetectedObject(label="Ball", confidence=90.0, position_projection=[0.0, -INF]),
    m.DetectedObject(label="Goalpost", confidence=90.0, position_projection=[1.0]),
    m.DetectedObject(label="Goalpost", confidence=90.0, position_projection=[]),
    m.DetectedObject(label="Ball", confidence=NAN, position_projection=[1.0, 0.0]),
    m.DetectedObject(label="Banana", confidence=90.0, position_projection=[1.0, 0.0]),
    m.DetectedObject(label="Opponent", color="\u2603" * 40, confidence=1e30, position_projection=[3.0, 1.0]),
]
HOSTILE_FRAME = m.Detections(detected_objects=HOSTILE_OBJECTS + [BALL], corner_pos=[NAN] * 3)
HOSTILE_LINES = m.LineSegments(coordinates=[NAN, 0.0, 1.0, 1.0, 1e30, 0.0, 0.0, 0.0, 1.0, 2.0])
BROKEN_RESPONSES = [m.RpcRespMsg(uuid="nope", header="{broken", body=""),
                    m.RpcRespMsg(uuid="", header="", body="\x00"),
                    m.RpcRespMsg(uuid="x" * 300, header='{"status": NaN}', body="[" * 2000),
                    m.RpcRespMsg(uuid="y", header='{"status": 400}', body="")]


def raw_refused_by_decoder() -> list[bytes]:
    """CDR that Cyclone accepts (well-formed for the type) and our decoder refuses."""
    full = m.Detections(detected_objects=[m.DetectedObject()] * m.MAX_DETECTED_OBJECTS).encode()
    objects = full[24:-12]  # after the header and the count, before the three empty float sequences
    size = len(objects) // m.MAX_DETECTED_OBJECTS
    too_many = full[:20] + struct.pack("<I", m.MAX_DETECTED_OBJECTS + 1) + objects + objects[:size] + full[-12:]
    labelled = m.Detections(detected_objects=[m.DetectedObject(label="QQ")]).encode()
    not_utf8 = labelled.replace(b"QQ\x00", b"\xff\xfe\x00")
    return [data + b"\0" * ((-len(data)) % 4) for data in (too_many, not_utf8)]


class Robot:
    """blue1's topics, published from a thread; requests noted with the phase they came in."""

    def __init__(self, transport) -> None:
        pub, t = transport.publisher, TOPICS
        self.odometer = pub(t["odometer"].name(NAME), m.Odometer, "sensor")
        self.low = pub(t["low_state"].name(NAME), m.LowState, "sensor")
        self.fall = pub(t["fall_down"].name(NAME), m.FallDownState, "sensor")
        self.detections = pub(t["detections"].name(NAME), m.Detections, "sensor")
        self.lines = pub(t["line_segments"].name(NAME), m.LineSegments, "sensor")
        self.responses = pub(t["loco_response"].name(NAME), m.RpcRespMsg, "response")
        self.requests = transport.subscription(t["loco_request"].name(NAME), m.RpcReqMsg, "command", depth=256)
        self.phase = "start"
        self.odometer_on = True
        self.hostile = False
        self.frames_on = True
        self.seen: list[tuple[str, float, int, str]] = []  # (phase, monotonic, api id, body)
        self.counts = {"odometer": 0, "bad_odometer": 0, "low": 0, "bad_low": 0, "frames": 0, "hostile_frames": 0,
                       "broken_responses": 0}
        self.error: str | None = None
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # reported: the scenario's own failure, not the brain's
            self.error = f"{type(exc).__name__}: {exc}"
            raise

    def _loop(self) -> None:
        i = 0
        next_t = time.monotonic()
        while not self.stop.is_set():
            i += 1
            c = self.counts
            with self.lock:
                if self.odometer_on:
                    if self.hostile and i % 2:
                        self.odometer.publish(BAD_ODOMETERS[i % len(BAD_ODOMETERS)])
                        self.low.publish(BAD_LOWS[i % len(BAD_LOWS)])
                        c["bad_odometer"] += 1
                        c["bad_low"] += 1
                    else:
                        self.odometer.publish(GOOD_ODOMETER)
                        self.low.publish(GOOD_LOW)
                        c["odometer"] += 1
                        c["low"] += 1
                if i % 10 == 0:
                    self.fall.publish(m.FallDownState(fall_down_state=0, is_recovery_available=False))
                if i % 3 == 0 and self.frames_on:
                    if self.hostile:
                        self.detections.publish(HOSTILE_FRAME)
                        self.lines.publish(HOSTILE_LINES)
                        c["hostile_frames"] += 1
                    else:
                        self.detections.publish(GOOD_FRAME)
                        c["frames"] += 1
                if self.hostile and i % 10 == 5:
                    for response in BROKEN_RESPONSES:
                        self.responses.publish(response)
                        c["broken_responses"] += 1
            for req in self.requests.take(256):
                try:
                    api = json.loads(req.header)["api_id"]
                except (ValueError, KeyError, TypeError):
                    api = -1
                self.seen.append((self.phase, time.monotonic(), api, req.body))
            next_t += 0.01
            time.sleep(max(0.0, next_t - time.monotonic()))


def main() -> None:
    out: dict[str, object] = {}
    transport = open_transport("cyclone", domain=0)
    robot = Robot(transport)
    robot.thread.start()
    brain = Proc(soccerbt("brain", "--robot", "blue1", "--name", NAME, "--tree", str(TREES / "walk.xml"),
                          "--team-size", "1", "--team-address", "127.255.255.255", "--json", "--no-record"))
    t0 = time.monotonic()
    while not robot.seen and time.monotonic() - t0 < 60 and brain.alive():
        time.sleep(0.02)
    out["connected_s"] = round(time.monotonic() - t0, 2) if robot.seen else None
    marks: dict[str, float] = {}

    def phase(name: str, seconds: float) -> None:
        robot.phase = name
        marks[name] = time.monotonic()
        time.sleep(seconds)

    phase("normal", 0.5)
    robot.hostile = True
    robot.phase = "hostile"
    marks["hostile"] = time.monotonic()
    # raw samples our decoder refuses; garbage Cyclone refuses at the writer; a wrong type
    codes = []
    for data in raw_refused_by_decoder():
        for _ in range(3):
            with robot.lock:
                codes.append(ddspy_write(robot.detections._ref, data))
            time.sleep(0.05)
    with robot.lock:
        garbage = [ddspy_write(robot.odometer._ref, b"\x00\x01\x00\x00" + b"\xff" * 3 + b"\0"),
                   ddspy_write(robot.detections._ref, b"\x00\x01\x00\x00\x10\x00\x00\x00garbage!")]
    out["raw_write_codes"] = {"decoder_refuses": codes, "garbage": garbage}
    other = open_transport("cyclone", domain=0)  # another participant: a Pose on the odometer's topic
    wrong = other.publisher(TOPICS["odometer"].name(NAME), m.Pose, "sensor")
    for _ in range(50):
        wrong.publish(m.Pose())
        time.sleep(0.01)
    time.sleep(max(0.0, 1.5 - (time.monotonic() - marks["hostile"])))
    robot.hostile = False

    # the flood: Detections as fast as they go (with a pause now and then for the sensor thread)
    robot.phase = "flood"
    marks["flood"] = time.monotonic()
    frame20 = m.Detections(detected_objects=[BALL] * 20, corner_pos=[0.0] * 10)
    flood = 0
    for _ in range(50):
        with robot.lock:
            for _ in range(100):
                robot.detections.publish(frame20)
                flood += 1
        time.sleep(0.002)
    flood_s = time.monotonic() - marks["flood"]
    # Detections at the decoder's cap of objects, one at a time so that the brain takes each
    robot.phase = "big"
    marks["big"] = time.monotonic()
    big = m.Detections(detected_objects=[BALL] * m.MAX_DETECTED_OBJECTS, corner_pos=[0.0] * 10)
    robot.frames_on = False  # each big frame is the newest when the brain takes it
    for _ in range(BIG_FRAMES):
        with robot.lock:
            robot.detections.publish(big)
        time.sleep(0.1)
    robot.frames_on = True
    out["flood"] = {"messages": flood, "s": round(flood_s, 3), "big": BIG_FRAMES}
    phase("quiet", 1.0)
    with robot.lock:
        robot.odometer_on = False
    phase("stale", 1.0)
    with robot.lock:
        robot.odometer_on = True
    phase("back", 1.0)
    out["alive_before_stop"] = brain.alive()
    brain.signal(signal.SIGTERM)
    out["exit"] = brain.wait(10)
    robot.stop.set()
    robot.thread.join(timeout=2)
    code = brain.finish(5)
    out["exit"] = code
    out["report"] = brain.last_json()
    out["stderr"] = brain.stderr[-4000:]
    out["counts"] = robot.counts
    out["robot_error"] = robot.error
    by_phase: dict[str, list] = {}
    for ph, t, api, body in robot.seen:
        by_phase.setdefault(ph, []).append([round(t - marks.get(ph, t), 3), api, body])
    out["requests"] = {ph: {"n": len(v), "apis": sorted({a for _, a, _ in v}), "first": v[:4], "last": v[-3:]}
                       for ph, v in by_phase.items()}
    stale = by_phase.get("stale", [])
    out["stale_moves"] = [[t, body] for t, api, body in stale if api == 2001]
    out["stale_requests"] = [[t, api] for t, api, _ in stale]
    back = by_phase.get("back", [])
    out["back_moves"] = [[t, body] for t, api, body in back if api == 2001][:3]
    other.close()
    transport.close()
    emit(out)


if __name__ == "__main__":
    main()
