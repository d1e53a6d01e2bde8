"""ROS 2's naming of the served simulator: rclpy (the pip ROS 2 Jazzy packages; the Python of
``SOCCERBT_ROS2_PYTHON``, or this one when it has rclpy) lists every topic that ``soccerbt sim
--serve booster`` serves, under its ROS 2 name and type (each robot's suffixed names, and with
``--plain blue1`` the plain names of a real robot), and reads the simulated time on ``/clock``."""
from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any, Callable

import pytest

ROBOT_TOPICS = {  # every served robot's topics, by ROS 2 name (suffixed with the robot's name)
    "/booster_soccer/detection/{r}": "vision_interface/msg/Detections",
    "/booster_soccer/line_segments/{r}": "vision_interface/msg/LineSegments",
    "/odometer_state/{r}": "booster_interface/msg/Odometer",
    "/low_state/{r}": "booster_interface/msg/LowState",
    "/head_pose/{r}": "geometry_msgs/msg/Pose",
    "/fall_down/{r}": "booster_interface/msg/FallDownState",
    "/fall_down_recovery_state/{r}": "booster_interface/msg/RawBytesMsg",
    "/remote_controller_state/{r}": "booster_interface/msg/RemoteControllerState",
    "/LocoApiTopic/{r}Req": "booster_msgs/msg/RpcReqMsg",
    "/LocoApiTopic/{r}Resp": "booster_msgs/msg/RpcRespMsg",
    # the head camera's camera_info under the names robocup_demo's branches read
    "/StereoNetNode/rectified_image/{r}": "sensor_msgs/msg/CameraInfo",
    "/StereoNetNode/stereonet_depth/camera_info/{r}": "sensor_msgs/msg/CameraInfo",
    "/boostercamera/head/rgb/camera_info/{r}": "sensor_msgs/msg/CameraInfo",
    "/boostercamera/head/depth/camera_info/{r}": "sensor_msgs/msg/CameraInfo",
}


def _ros2_python() -> str | None:
    configured = os.environ.get("SOCCERBT_ROS2_PYTHON")
    if configured:
        return configured
    if importlib.util.find_spec("rclpy") is not None and importlib.util.find_spec("rosgraph_msgs") is not None:
        return sys.executable
    return None


def _plain(name: str) -> str:
    """A real robot's plain name: ``/odometer_state/{r}`` -> ``/odometer_state``,
    ``/LocoApiTopic/{r}Req`` -> ``/LocoApiTopicReq``."""
    return name.replace("/{r}", "")


@pytest.mark.parametrize("plain, discovery", [
    (None, {}), ("blue1", {}),
    # ROS 2 nodes that discover on localhost only (FastDDS by unicast to localhost's well-known
    # ports): the sim on the loopback interface takes such a port and announces itself there too
    ("blue1", {"ROS_LOCALHOST_ONLY": "1"}), ("blue1", {"ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}),
], ids=["suffixed", "plain-blue1", "plain-localhost-only", "plain-discovery-range-localhost"])
def test_rclpy_lists_the_served_topics_with_their_ros_types(scenario: Callable[..., Any], plain: str | None,
                                                            discovery: dict[str, str]) -> None:
    ros_python = _ros2_python()
    if ros_python is None:
        pytest.skip("rclpy is not installed (the ros2 extra) and SOCCERBT_ROS2_PYTHON is not set")
    expected = {(_plain(name) if robot == plain else name.format(r=robot)): ros_type
                for robot in ("blue1", "red1") for name, ros_type in ROBOT_TOPICS.items()}
    expected["/clock"] = "rosgraph_msgs/msg/Clock"
    expected["/whistle_detected"] = "std_msgs/msg/String"
    if plain:
        assert "/LocoApiTopicReq" in expected and "/odometer_state" in expected
    env = {k: v for k, v in os.environ.items() if k not in ("ROS_LOCALHOST_ONLY", "ROS_AUTOMATIC_DISCOVERY_RANGE")}
    r = scenario("ros2_served", ros_python, plain or "-", *sorted(expected), timeout_s=120, env={**env, **discovery})
    ros = r["rclpy"]
    assert "error" not in ros, r
    assert ros["listed_s"] is not None, (sorted(set(expected) - set(ros["topics"])), r["sim_stderr"])
    assert {name: ros["topics"][name] for name in expected} == {name: [t] for name, t in expected.items()}
    served = {n for n in ros["topics"] if n not in ("/rosout", "/parameter_events")}
    assert served == set(expected), sorted(served ^ set(expected))  # nothing else, nothing misnamed
    # rclpy decodes our /clock: the simulated time runs
    assert ros["clock_samples"] > 1 and ros["clock"][1] > ros["clock"][0] >= 0.0, ros
    assert r["sim_exit"] == 0 and r["sim"]["served"]["requests"] == {"blue1": 0, "red1": 0}
