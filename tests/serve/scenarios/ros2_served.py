"""ROS 2 sees the served topics: ``soccerbt sim --serve booster --no-referee --team-size 1`` and
rclpy (ros2_graph.py, run by the Python given as the first argument). The second argument is
the robot served under the plain names (``--plain``), or "-" for none; the rest are the topic
names to wait for. Prints {"rclpy", "sim", "sim_exit"}."""
from __future__ import annotations

import sys

from _common import Proc, emit, script, soccerbt


def main() -> None:
    ros_python, plain, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
    # on the loopback interface (ROS 2 nodes that discover on localhost only find it there), the
    # plain robot without the relay for FastDDS 2.13 (Jazzy's FastDDS 2.14 matches without it), and
    # no waiting for a brain (this one only looks)
    plain_options = ["--plain", plain, "--wait-brains", "0.1", "--no-fastdds-relay"] if plain != "-" else []
    sim = Proc(soccerbt("sim", "--serve", "booster", "--no-referee", "--team-size", "1", "--seconds", "600", "--json",
                        "--quiet", "--interface", "lo", *plain_options))
    ros = Proc(script("ros2_graph.py", *wanted, python=ros_python))
    result = ros.next_json(60)
    ros.finish(5)
    code = sim.finish(15)
    emit({"rclpy": result, "sim": sim.last_json(), "sim_exit": code, "sim_stderr": sim.stderr[-2000:],
          "ros_stderr": ros.stderr[-2000:]})


if __name__ == "__main__":
    main()
