"""ROS 2 sees the served topics: ``soccerbt sim --serve booster --no-referee --team-size 1`` and
rclpy (ros2_graph.py, run by the Python given as the first argument). The second argument is
the robot served under the plain names (``--plain``), or "-" for none; the rest are the topic
names to wait for. Prints {"rclpy", "sim", "sim_exit"}."""
from __future__ import annotations

import sys

from _common import Proc, emit, script, soccerbt


def main() -> None:
    ros_python, plain, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
    sim = Proc(soccerbt("sim", "--serve", "booster", "--no-referee", "--team-size", "1", "--seconds", "600", "--json",
                        "--quiet", *(["--plain", plain, "--wait-brains", "0.1"] if plain != "-" else [])))
    ros = Proc(script("ros2_graph.py", *wanted, python=ros_python))
    result = ros.next_json(60)
    ros.finish(5)
    code = sim.finish(15)
    emit({"rclpy": result, "sim": sim.last_json(), "sim_exit": code, "sim_stderr": sim.stderr[-2000:],
          "ros_stderr": ros.stderr[-2000:]})


if __name__ == "__main__":
    main()
