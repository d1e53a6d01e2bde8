"""What a served robot's messages carry in image coordinates, as Booster's brain reads them
(issue 38): segment ends in pixels for every segment, detections' boxes, the camera's size and
intrinsics under the names each branch reads, and the planner index of the recovery state."""
from __future__ import annotations

import math

import pytest

from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.transport import MemoryBus, MemoryTransport
from soccerbt.match import MatchConfig
from soccerbt.serve.endpoint import PLANNER_FALLEN, PLANNER_GETTING_UP, PLANNER_WALKING, planner_index_of
from soccerbt.serve.head_camera import (
    CAMERA_INFO_TOPICS,
    CX_PX,
    CY_PX,
    FX_PX,
    IMAGE_HEIGHT_PX,
    IMAGE_WIDTH_PX,
    HeadCamera,
)
from soccerbt.serve.served import ServedMatch
from soccerbt.world.types import RobotId, Team

BLUE1 = RobotId(Team.BLUE, 1)


def test_the_projection_follows_the_head() -> None:
    camera = HeadCamera(1.1)
    tilt = math.atan2(1.1, 2.0)  # looking at the ground 2 m ahead
    u, v = camera.project(2.0, 0.0, 0.0, 0.0, tilt)
    # on the optical axis but for the camera's mounting (vision.yaml: about 4.3 degrees of yaw, a
    # few centimetres of offset): near the principal point, a little to its right
    assert 0 < u - CX_PX < FX_PX * math.tan(0.12) and abs(v - CY_PX) < 5.0
    left, _ = camera.project(2.0, 0.5, 0.0, 0.0, tilt)
    turned, _ = camera.project(2.0, 0.0, 0.0, 0.3, tilt)
    assert left < u < turned  # to the left of the robot: left in the image; head turned left: right
    assert camera.project(-2.0, 0.0, 0.0, 0.0, tilt) is None  # behind the camera
    near, far = camera.box("ball", 1.5, 0.0, 0.0, tilt), camera.box("ball", 3.0, 0.0, 0.0, tilt)
    assert (near[2] - near[0]) > (far[2] - far[0]) > 0  # a ball far away is smaller
    assert camera.box("ball", -2.0, 0.0, 0.0, tilt) == (0, 0, 0, 0)
    post = camera.box("goal_post", 4.0, 1.0, 0.0, tilt)
    assert post[3] - post[1] > 2 * (post[2] - post[0])  # a post is tall and thin
    assert planner_index_of(0) == PLANNER_WALKING == 8 and planner_index_of(2) == PLANNER_FALLEN == 1
    assert planner_index_of(3) == PLANNER_GETTING_UP == 10


def test_the_served_messages_carry_pixels_and_the_camera(monkeypatch: pytest.MonkeyPatch) -> None:
    bus = MemoryBus()
    served = ServedMatch(MatchConfig(team_size=1, seed=2), MemoryTransport(bus), refereed=False)
    brain = MemoryTransport(bus)
    lines = brain.subscription("/booster_soccer/line_segments/blue1", m.LineSegments, "sensor", depth=200)
    detections = brain.subscription("/booster_soccer/detection/blue1", m.Detections, "sensor", depth=200)
    infos = {topic: brain.subscription(f"{topic}/blue1", m.CameraInfo, "sensor", depth=10)
             for topic in CAMERA_INFO_TOPICS}
    recovery = brain.subscription("fall_down_recovery_state/blue1", m.RawBytesMsg, "sensor", depth=50)
    for _ in range(300):
        served.match.step()
    segments = lines.take(200)
    with_lines = [s for s in segments if s.coordinates]
    assert with_lines, "the robot saw no line in 3 s"
    for s in with_lines:  # every segment's ends in pixels, inside the image
        assert len(s.coordinates_uv) == len(s.coordinates)
        us, vs = s.coordinates_uv[0::2], s.coordinates_uv[1::2]
        assert all(0 <= u < IMAGE_WIDTH_PX for u in us) and all(0 <= v < IMAGE_HEIGHT_PX for v in vs)
    objects = [o for d in detections.take(200) for o in d.detected_objects]
    assert objects and all(o.xmax > o.xmin and o.ymax > o.ymin for o in objects)  # boxes, no zeros
    for topic, sub in infos.items():
        [info, *_] = sub.take(10)
        assert (info.width, info.height, info.k[0], info.k[2]) == (IMAGE_WIDTH_PX, IMAGE_HEIGHT_PX, FX_PX, CX_PX), topic
    states = [m.RecoveryState.from_bytes(r.msg) for r in recovery.take(50)]
    assert states and all(s.current_planner_index == PLANNER_WALKING for s in states if s.state == 0)
    served.close()


def test_the_whistle_is_heard_when_the_referee_turns_playing() -> None:
    bus = MemoryBus()
    served = ServedMatch(MatchConfig(team_size=1, seed=2), MemoryTransport(bus))
    brain = MemoryTransport(bus)
    whistle = brain.subscription("/whistle_detected", m.String, "reliable", depth=10)
    heard_at = []
    for _ in range(6000):  # INITIAL, READY, SET, then the kick-off's whistle
        served.match.step()
        if whistle.take(10):
            heard_at.append((served.match.referee.state, served.match.referee.shown_state))
        if heard_at:
            break
    served.close()
    assert served.whistles == 1
    # the referee plays; the HSL packets still show SET for the whistle's delay
    assert heard_at == [(3, 2)]


def test_the_gamecontroller_is_heard_while_the_clock_waits_for_a_brain() -> None:
    # Booster's brain sends nothing before it hears the GameController: the wait must not be silent
    import socket

    from soccerbt.gamecontroller.protocol import decode

    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.settimeout(0.1)
    served = ServedMatch(MatchConfig(team_size=1, seed=2, gc_version=12), MemoryTransport(MemoryBus()),
                         gc_address="127.0.0.1", gc_port=listener.getsockname()[1], gc_return_port=0)
    try:
        assert served.wait_for_brains([BLUE1], 1.2) == set()  # nobody came
        packets = []
        while True:
            try:
                packets.append(decode(listener.recv(4096)))
            except TimeoutError:
                break
    finally:
        served.close()
        listener.close()
    assert len(packets) >= 2 and all(p.state == 0 for p in packets)  # INITIAL, twice a second
    assert served.t_s == 0.0  # and the game clock did not run
