"""CycloneTransport on DDS: every scenario runs in a fresh network namespace (``run_in_netns``),
never in the pytest process. The vendor SDK and rclpy are the real peers, as on a robot."""
from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.topics import TOPICS

if importlib.util.find_spec("cyclonedds") is None:
    pytest.skip("cyclonedds is not installed (pip install 'soccerbt[robot]')", allow_module_level=True)


def _load_samples() -> Any:
    spec = importlib.util.spec_from_file_location("booster_test_samples", Path(__file__).parent / "samples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SAMPLES = _load_samples().SAMPLES
ROBOT = "blue1"


def test_configuration_and_type_descriptions() -> None:
    from soccerbt.drivers.booster.cyclone import cyclone_config, idl_type  # imports cyclonedds, opens nothing

    assert cyclone_config() == '<CycloneDDS><Domain Id="any"></Domain></CycloneDDS>'
    assert '<NetworkInterface name="lo"/>' in cyclone_config("lo")
    # on loopback: a well-known port and an announcement to localhost's (ROS_LOCALHOST_ONLY peers)
    assert "<ParticipantIndex>auto</ParticipantIndex>" in cyclone_config("lo")
    assert '<Peer address="127.0.0.1"/>' in cyclone_config("127.0.0.1")
    assert "<Discovery>" not in cyclone_config("eth0")
    assert '<NetworkInterface address="127.0.0.1"/>' in cyclone_config("127.0.0.1")
    relay = cyclone_config("lo", peers=("127.0.0.1:40000",), spdp_interval_s=1.0)
    assert '<Peers><Peer address="127.0.0.1:40000"/></Peers>' in relay and "<SPDPInterval>1000ms" in relay
    for bad in ('lo"/><x', "", "a" * 65):
        with pytest.raises(ValueError, match="interface"):
            cyclone_config(bad)
    detections = idl_type(m.Detections)
    assert detections.__idl_typename__ == "vision_interface::msg::dds_::Detections_"
    assert list(detections.__annotations__) == ["header", "detected_objects", "radar_x", "radar_y", "corner_pos"]
    assert idl_type(m.Detections) is detections
    low = idl_type(m.LowState)
    assert low.__idl_typename__ == "booster_interface::msg::dds_::LowState_"


def round_trip_items() -> list[dict[str, Any]]:
    """One sample of every type, on the robot's topic of that type (suffixed) or a test topic."""
    by_type = {spec.message_type: spec for spec in TOPICS.values()}
    items, seen = [], set()
    for sample in SAMPLES:
        cls = type(sample)
        if cls in seen:
            continue
        seen.add(cls)
        spec = by_type.get(cls)
        topic, qos = (spec.name(ROBOT), spec.qos) if spec else (f"/soccerbt_test/{cls.__name__}", "reliable")
        items.append({"topic": topic, "type": cls.__name__, "qos": qos, "hex": sample.encode().hex(), "sample": sample})
    return items


def test_round_trip_of_every_type_between_two_processes(scenario: Callable[..., Any]) -> None:
    items = round_trip_items()
    assert len(items) == len(m.MESSAGE_TYPES)
    spec = {"items": [{k: v for k, v in i.items() if k != "sample"} for i in items]}
    result = scenario("roundtrip", stdin=json.dumps(spec))
    sub = result["sub"]
    assert "error" not in sub, sub
    topics = {i["topic"] for i in items}
    assert {"/odometer_state/blue1", "/booster_soccer/detection/blue1", "LocoApiTopic/blue1Req",
            "LocoApiTopic/blue1Resp", "fall_down_recovery_state/blue1", "/clock"} <= topics
    assert result["pub_matched"] == {t: 1 for t in topics}
    assert sub["matched"] == {t: 1 for t in topics}
    for item in items:
        received = [type(item["sample"]).decode(bytes.fromhex(h)) for h in sub["got"][item["topic"]]]
        assert received == [item["sample"]], item["topic"]
    assert (sub["received"], sub["dropped"]) == (len(items), 0)


def test_endpoints_depth_take_bad_samples_and_errors(scenario: Callable[..., Any]) -> None:
    r = scenario("endpoints")
    assert r["pub_matched"] == 3 and r["sub_matched"] == [1, 1, 1]
    # keep last: depth 3 keeps the last three, oldest first; take is bounded and never waits
    assert r["shallow"] == [7.0, 8.0, 9.0]
    assert r["own"] == [9.0]
    assert r["deep_first4"] == [0.0, 1.0, 2.0, 3.0]
    assert r["deep_rest"] == [4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    assert r["deep_empty"] == [] and r["take0"] == []
    assert r["received"] == [10, 3, 1]
    assert r["sensor_last"] == [[1, True]]
    # bad samples: Cyclone refuses invalid CDR at the writer; what it accepts and we refuse is counted
    codes = r["write_codes"]
    assert codes["bad_utf8"] == 0 and codes["too_many_objects"] == 0
    assert codes["garbage"] < 0 and codes["no_nul"] < 0
    assert r["requests"] == ["good"] and r["requests_dropped"] == 1
    assert "RpcReqMsg.uuid: string is not UTF-8" in r["requests_last_error"]
    assert r["detections"] == [1] and r["detections_dropped"] == 1
    assert "declared length 257 exceeds the limit of 256" in r["detections_last_error"]
    # waits block until a sample is ready or the timeout passes (then False)
    assert r["wait_empty"][0] is False and r["wait_empty"][1] >= 0.04 and r["waiter_empty"] is False
    assert r["wait_sample"] is True and r["waiter_sample"] is True and r["woken_by"] == ["wake"]
    assert r["waiter_drained"] is False
    assert "already used with Odometer, not Pose" in r["type_conflict"]
    assert "unknown QoS kind 'nonsense'" in r["bad_qos"]
    assert r["after_close_matched"] is True
    assert "closed" in r["publish_after_close"] and r["take_after_close"] == []
    assert r["cost_ms"]["frames_not_one"] == 0


def _sdk_available() -> str | None:
    if importlib.util.find_spec("booster_robotics_sdk_python") is None:
        return "booster_robotics_sdk_python is not installed (the dev extra, Linux x86-64 and aarch64 only)"
    return None


def test_vendor_sdk_against_cyclone(scenario: Callable[..., Any]) -> None:
    reason = _sdk_available()
    if reason:
        pytest.skip(reason)
    r = scenario("sdk_interop", timeout_s=90)
    sdk, robot = r["sdk"], r["robot"]
    assert sdk is not None and "error" not in sdk, r
    assert "error" not in robot, robot
    got = sdk["got"]
    assert got["odometer"][0] == [1.5, -0.75, 0.25]
    assert got["fall_down"][0] == [2, True]
    low = got["low_state"][0]
    assert (low["rpy"], low["gyro"], low["acc"], low["parallel"]) == ([0.125, -0.25, 1.5], [0.0, 0.5, -1.0],
                                                                      [0.0, 0.0, 9.75], 0)
    assert low["serial"] == [[1, 0.5 * i, 0.25, 40, i, [0, 500]] for i in range(3)]
    assert got["remote"][0] == {"event": 1536, "lx": -0.5, "ly": 0.25, "a": True, "b": False, "start": True,
                                "hat_u": True, "reserved": 1}
    # B1LocoClient.Move(0.3, 0.1, 0.2) twice: both answered (the SDK returns None on success)
    assert [mv["ok"] for mv in sdk["moves"]] == [True, True], sdk["moves"]
    assert [mv["value"] for mv in sdk["moves"]] == [None, None]
    assert len(robot["requests"]) == 2
    for request in robot["requests"]:
        header = json.loads(request["header"])
        body = json.loads(request["body"])
        assert header == {"api_id": 2001, "call_mode": 0, "req_id": request["uuid"]}
        assert body == pytest.approx({"vx": 0.3, "vy": 0.1, "vyaw": 0.2}, abs=1e-6)
    assert robot["dropped"] == 0
    assert robot["matched"] == {"odometer": 1, "fall_down": 1, "low_state": 1, "remote_controller": 1}
    relay = robot["relay"]
    assert relay["malformed"] == 0 and relay["forwarded"] >= 1 and relay["fastdds_participants"] == 1


def _ros2_python() -> str | None:
    configured = os.environ.get("SOCCERBT_ROS2_PYTHON")
    if configured:
        return configured
    if importlib.util.find_spec("rclpy") is not None and importlib.util.find_spec("rosgraph_msgs") is not None:
        return sys.executable
    return None


def test_ros2_sees_our_names_and_types(scenario: Callable[..., Any]) -> None:
    ros_python = _ros2_python()
    if ros_python is None:
        pytest.skip("rclpy is not installed (the ros2 extra) and SOCCERBT_ROS2_PYTHON is not set")
    r = scenario("ros2_names", ros_python, timeout_s=90)
    ros, cyclone = r["rclpy"], r["cyclone"]
    assert ros is not None and "error" not in ros, r
    assert "error" not in cyclone, cyclone
    assert ros["topics"] == {
        "/booster_soccer/detection/blue1": ["vision_interface/msg/Detections"],
        "/booster_soccer/line_segments/blue1": ["vision_interface/msg/LineSegments"],
        "/odometer_state/blue1": ["booster_interface/msg/Odometer"],
        "/low_state/blue1": ["booster_interface/msg/LowState"],
        "/head_pose/blue1": ["geometry_msgs/msg/Pose"],
        "/fall_down/blue1": ["booster_interface/msg/FallDownState"],
        "/fall_down_recovery_state/blue1": ["booster_interface/msg/RawBytesMsg"],
        "/remote_controller_state/blue1": ["booster_interface/msg/RemoteControllerState"],
        "/LocoApiTopic/blue1Req": ["booster_msgs/msg/RpcReqMsg"],
        "/LocoApiTopic/blue1Resp": ["booster_msgs/msg/RpcRespMsg"],
        "/clock": ["rosgraph_msgs/msg/Clock"],
    }
    assert ros["clock_from_cyclone"] == [[42, 500]]  # rclpy decoded our /clock
    assert [77, 123] in cyclone["heard"]  # and we decoded rclpy's
    assert cyclone["dropped"] == 0


def test_a_second_participant_on_the_remote_controller_topic_is_ignored(scenario: Callable[..., Any]) -> None:
    r = scenario("second_remote")
    assert r["engaged_by_intruder"] is False and r["engaged_by_robot"] is True
    assert r["released_by_intruder"] is False and r["intruder_drives"] is False and r["refused"] == 3
    assert r["released_by_robot"] is True
    # the robot's remote service gone and silent for the stated time: the next publisher is heard
    assert r["second_heard_at_once"] is False
    assert r["second_heard_after_silence"] is True and r["lock_moves"] == 1
