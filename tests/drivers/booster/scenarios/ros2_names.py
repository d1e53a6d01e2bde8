"""ROS 2 sees CycloneTransport's topics: the Cyclone side (ros2_cyclone.py) and rclpy
(ros2_rclpy.py, run by the Python given as the first argument). Prints {"cyclone", "rclpy"}."""
from __future__ import annotations

import sys

from _common import Child, emit


def main() -> None:
    ros_python = sys.argv[1]
    cyclone = Child("ros2_cyclone.py")
    ready = cyclone.next_json(20)
    if "error" in ready:
        emit({"cyclone": ready, "rclpy": None})
        return
    wanted = sorted(n if n.startswith("/") else "/" + n for k, n in ready["names"].items()
                    if k != "loco_request_reader")
    ros = Child("ros2_rclpy.py", *wanted, python=ros_python)
    ros_result = ros.next_json(40)
    ros.finish()
    cyclone.send("stop\n")
    cyclone_result = cyclone.next_json(10)
    cyclone.finish()
    emit({"cyclone": cyclone_result, "rclpy": ros_result, "names": ready["names"]})


if __name__ == "__main__":
    main()
