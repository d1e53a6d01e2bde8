"""rclpy (ROS 2 Jazzy, rmw_fastrtps_cpp) looks at the ROS graph: the topics and types it lists
once every name given as an argument is there (20 s at most), and the simulated time it reads
from ``/clock``. Run with the ROS 2 Python. Prints one JSON object."""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import rclpy  # noqa: E402
from _common import emit, wait_for  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402


def main() -> None:
    wanted = set(sys.argv[1:])
    rclpy.init()
    node = rclpy.create_node("soccerbt_served_probe")
    topics: dict[str, list[str]] = {}

    def listed() -> bool:
        topics.clear()
        topics.update(dict(node.get_topic_names_and_types()))
        return wanted <= set(topics)

    listed_s = wait_for(listed, 20, poll_s=0.05)
    clocks: list[float] = []
    node.create_subscription(Clock, "/clock", lambda c: clocks.append(c.clock.sec + c.clock.nanosec * 1e-9),
                             QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT))
    started = time.monotonic()
    while time.monotonic() - started < 10 and len(clocks) < 20:
        rclpy.spin_once(node, timeout_sec=0.05)
    emit({"listed_s": listed_s, "topics": topics, "clock": [clocks[0], clocks[-1]] if clocks else [],
          "clock_samples": len(clocks)})
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
