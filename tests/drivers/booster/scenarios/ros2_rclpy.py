"""rclpy (ROS 2 Jazzy from pip, rmw_fastrtps_cpp) sees the Cyclone side's topics with their ROS
names and types, receives its /clock and publishes one of its own. Prints the result."""
from __future__ import annotations

import sys
import time

import rclpy
from _common import emit, wait_for
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock


def main() -> None:
    wanted = set(sys.argv[1:])
    rclpy.init()
    node = rclpy.create_node("soccerbt_probe")
    topics: dict[str, list[str]] = {}

    def listed() -> bool:
        topics.update(dict(node.get_topic_names_and_types()))
        return wanted <= set(topics)

    listed_s = wait_for(listed, 10, poll_s=0.02)
    clocks: list[tuple[int, int]] = []
    node.create_subscription(Clock, "/clock", lambda c: clocks.append((c.clock.sec, c.clock.nanosec)),
                             QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT))
    publisher = node.create_publisher(Clock, "/clock", 10)
    wait_for(lambda: publisher.get_subscription_count() >= 2, 10)  # our reader and Cyclone's
    started = time.monotonic()
    while time.monotonic() - started < 10 and not any(sec == 42 for sec, _ in clocks):
        rclpy.spin_once(node, timeout_sec=0.05)
    message = Clock()
    message.clock.sec, message.clock.nanosec = 77, 123
    for _ in range(20):
        publisher.publish(message)
        rclpy.spin_once(node, timeout_sec=0.01)
    emit({"listed_s": listed_s, "topics": {k: v for k, v in topics.items() if k in wanted},
          "clock_from_cyclone": sorted({c for c in clocks if c[0] == 42}),
          "rmw": rclpy.get_rmw_implementation_identifier() if hasattr(rclpy, "get_rmw_implementation_identifier")
          else None})
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
