"""The topic table and the in-memory transport (no DDS)."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster import topics
from soccerbt.drivers.booster.connect import open_transport
from soccerbt.drivers.booster.topics import QOS, TOPICS, QosProfile, dds_topic_name, robot_topic, ros_topic_name
from soccerbt.drivers.booster.transport import (
    MemoryBus,
    MemoryTransport,
    Publisher,
    Subscription,
    Transport,
    TransportError,
    memory_bus,
)


def _load_samples() -> Any:
    spec = importlib.util.spec_from_file_location("booster_test_samples", Path(__file__).parent / "samples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SAMPLES = _load_samples().SAMPLES


# --- topics -------------------------------------------------------------------------------------

def test_robot_names_follow_robocup_demo() -> None:
    assert robot_topic("/odometer_state", "blue1") == "/odometer_state/blue1"
    assert robot_topic("/booster_soccer/detection", "blue1") == "/booster_soccer/detection/blue1"
    assert robot_topic("fall_down_recovery_state", "red_2") == "fall_down_recovery_state/red_2"
    assert robot_topic("LocoApiTopicReq", "blue1") == "LocoApiTopic/blue1Req"
    assert robot_topic("LocoApiTopicResp", "blue1") == "LocoApiTopic/blue1Resp"
    assert robot_topic("LocoApiTopicReq", "") == "LocoApiTopicReq"
    assert robot_topic("/low_state") == "/low_state"
    with pytest.raises(ValueError, match="robot name"):
        robot_topic("/odometer_state", "blue/1")


def test_topic_table_plain_and_suffixed_names() -> None:
    plain = {key: spec.name() for key, spec in TOPICS.items()}
    assert plain == {
        "detections": "/booster_soccer/detection", "line_segments": "/booster_soccer/line_segments",
        "odometer": "/odometer_state", "low_state": "/low_state", "head_pose": "/head_pose",
        "fall_down": "/fall_down", "recovery_state": "fall_down_recovery_state",
        "remote_controller": "/remote_controller_state", "loco_request": "LocoApiTopicReq",
        "loco_response": "LocoApiTopicResp", "clock": "/clock",
    }
    assert TOPICS["odometer"].dds_name() == "rt/odometer_state"
    assert TOPICS["loco_request"].dds_name("blue1") == "rt/LocoApiTopic/blue1Req"
    assert TOPICS["recovery_state"].dds_name("blue1") == "rt/fall_down_recovery_state/blue1"
    assert TOPICS["clock"].name("blue1") == "/clock"
    assert TOPICS["odometer"].message_type is m.Odometer
    assert TOPICS["recovery_state"].message_type is m.RawBytesMsg
    assert {spec.qos for spec in TOPICS.values()} <= set(QOS)
    assert topics.topic("fall_down").message_type is m.FallDownState
    with pytest.raises(ValueError, match="unknown topic"):
        topics.topic("nope")


def test_dds_names() -> None:
    assert dds_topic_name("/odometer_state/blue1") == "rt/odometer_state/blue1"
    assert dds_topic_name("LocoApiTopicReq") == "rt/LocoApiTopicReq"
    assert ros_topic_name("rt/odometer_state") == "/odometer_state"
    assert ros_topic_name("DCPSParticipant") is None
    for bad in ("", "/", "a//b", "a/", "/1abc", "a b", "a-b"):
        with pytest.raises(ValueError, match="not a valid ROS 2 topic name"):
            dds_topic_name(bad)


def test_qos_kinds_as_the_sdk_and_robocup_demo_need() -> None:
    assert QOS["sensor"].reader == QosProfile(reliable=False, transient_local=False, depth=1)  # the SDK's readers
    assert QOS["sensor"].writer.reliable  # robocup_demo's readers are reliable
    assert QOS["command"].writer == QosProfile(reliable=True, transient_local=True, depth=1)  # the SDK's writer
    assert QOS["command"].reader == QosProfile(reliable=True, transient_local=False, depth=1)
    assert QOS["response"].reader.reliable and not QOS["response"].reader.transient_local
    assert not QOS["clock"].reader.reliable
    assert QOS["sensor"].reader_with_depth(4).depth == 4
    with pytest.raises(ValueError, match="depth"):
        QOS["sensor"].reader_with_depth(0)
    with pytest.raises(ValueError, match="unknown QoS kind 'fast'"):
        topics.qos_kind("fast")


def test_light_imports_do_not_load_cyclonedds() -> None:
    code = ("import sys; import soccerbt.drivers.booster, soccerbt.drivers.booster.messages, "
            "soccerbt.drivers.booster.topics, soccerbt.drivers.booster.transport, "
            "soccerbt.drivers.booster.fastdds_relay; "
            "print(sorted(n for n in sys.modules if n.startswith(('cyclonedds', 'rclpy', 'booster_robotics'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# --- memory transport ----------------------------------------------------------------------------

def test_memory_transport_is_a_transport() -> None:
    t = MemoryTransport()
    assert isinstance(t, Transport)
    assert isinstance(t.publisher("/x", m.Odometer, "sensor"), Publisher)
    assert isinstance(t.subscription("/x", m.Odometer, "sensor"), Subscription)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: type(s).__name__)
def test_memory_round_trip_of_every_type(sample: Any) -> None:
    bus = MemoryBus()
    a, b = MemoryTransport(bus), MemoryTransport(bus)
    sub = b.subscription("/soccerbt_test/topic", type(sample), "reliable", depth=4)
    pub = a.publisher("/soccerbt_test/topic", type(sample), "reliable")
    pub.publish(sample)
    got = sub.take()
    assert got == [sample]
    assert got[0] is not sample  # it went through its bytes
    assert (sub.received, sub.dropped) == (1, 0)


def test_memory_keep_last_order_and_bounded_take() -> None:
    bus = MemoryBus()
    a, b = MemoryTransport(bus), MemoryTransport(bus)
    pub = a.publisher("/odometer_state/blue1", m.Odometer, "sensor")
    shallow = b.subscription("/odometer_state/blue1", m.Odometer, "sensor", depth=3)
    deep = b.subscription("/odometer_state/blue1", m.Odometer, "sensor", depth=10)
    default = b.subscription("/odometer_state/blue1", m.Odometer, "sensor")
    for i in range(10):
        pub.publish(m.Odometer(x=float(i)))
    assert [o.x for o in shallow.take()] == [7.0, 8.0, 9.0]
    assert [o.x for o in default.take()] == [9.0]
    assert [o.x for o in deep.take(max_samples=4)] == [0.0, 1.0, 2.0, 3.0]
    assert [o.x for o in deep.take(0)] == []
    assert [o.x for o in deep.take(100)] == [4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    assert deep.take() == []
    assert deep.received == 10


def test_memory_matching_by_topic_type_and_qos() -> None:
    bus = MemoryBus()
    a, b = MemoryTransport(bus), MemoryTransport(bus)
    pub = a.publisher("LocoApiTopic/blue1Req", m.RpcReqMsg, "command")
    assert pub.matched() == 0
    server = b.subscription("LocoApiTopic/blue1Req", m.RpcReqMsg, "command", depth=64)
    other_type = b.subscription("LocoApiTopic/blue1Req", m.RpcRespMsg, "command")
    other_topic = b.subscription("LocoApiTopicReq", m.RpcReqMsg, "command")
    assert pub.matched() == 1
    assert (server.matched(), other_type.matched(), other_topic.matched()) == (1, 0, 0)
    pub.publish(m.RpcReqMsg(uuid="u", header='{"api_id":2001}', body="{}"))
    assert [r.uuid for r in server.take()] == ["u"]
    assert other_type.take() == [] and other_topic.take() == []
    from soccerbt.drivers.booster.transport import _compatible

    assert not _compatible(QosProfile(False, False, 1), QosProfile(True, False, 1))  # reliable reader, BE writer
    assert not _compatible(QosProfile(True, False, 1), QosProfile(True, True, 1))  # TL reader, volatile writer
    assert _compatible(QosProfile(True, True, 1), QosProfile(False, False, 1))


def test_memory_bad_bytes_are_counted_never_raised() -> None:
    t = MemoryTransport()
    sub = t.subscription("/low_state", m.LowState, "sensor", depth=8)
    good = SAMPLES[[type(s) for s in SAMPLES].index(m.LowState)]
    assert t.inject("/low_state", b"") == 1
    t.inject("/low_state", b"\x00\x01\x00\x00\xff\xff\xff\x7f")
    t.inject("/low_state", good.encode()[:-5])
    t.inject("/low_state", good.encode())
    t.inject("/low_state", m.Odometer().encode())  # another type's bytes
    got = sub.take()
    assert got == [good]
    assert (sub.received, sub.dropped) == (1, 4)
    assert "LowState" in sub.last_error


def test_memory_close() -> None:
    bus = MemoryBus()
    a, b = MemoryTransport(bus), MemoryTransport(bus)
    pub = a.publisher("/fall_down", m.FallDownState, "sensor")
    sub = b.subscription("/fall_down", m.FallDownState, "sensor")
    assert pub.matched() == 1
    b.close()
    b.close()  # twice is fine
    assert pub.matched() == 0
    pub.publish(m.FallDownState())  # nobody listens: nothing happens
    a.close()
    with pytest.raises(TransportError, match="closed"):
        pub.publish(m.FallDownState())
    with pytest.raises(TransportError, match="closed"):
        a.subscription("/fall_down", m.FallDownState, "sensor")
    assert bus.topics() == {}
    assert sub.take() == []


def test_memory_refuses_wrong_use() -> None:
    t = MemoryTransport()
    pub = t.publisher("/odometer_state", m.Odometer, "sensor")
    with pytest.raises(TypeError, match="expected a Odometer"):
        pub.publish(m.Pose())
    with pytest.raises(TypeError, match="not a message class"):
        t.publisher("/x", dict, "sensor")
    with pytest.raises(ValueError, match="unknown QoS kind"):
        t.publisher("/x", m.Odometer, "fast")
    with pytest.raises(ValueError, match="not a valid ROS 2 topic name"):
        t.subscription("bad name", m.Odometer, "sensor")
    with pytest.raises(ValueError, match="depth"):
        t.subscription("/x", m.Odometer, "sensor", depth=0)


def test_open_transport() -> None:
    a = open_transport("memory", domain=7)
    b = open_transport("memory", domain=7, interface="lo")
    assert isinstance(a, MemoryTransport) and a.bus is b.bus is memory_bus(7)
    assert open_transport("memory", domain=8).bus is not a.bus
    bus = MemoryBus()
    assert open_transport("memory", bus=bus).bus is bus
    with pytest.raises(ValueError, match="unknown transport kind 'zenoh'"):
        open_transport("zenoh")
    with pytest.raises(TypeError, match="unknown options"):
        open_transport("memory", fastdds_compat=True)
    a.close()
    b.close()
