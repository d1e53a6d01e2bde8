"""The vendor SDK against CycloneTransport in one namespace: a Cyclone robot (sdk_robot.py) and the
SDK (sdk_client.py) as two processes. Prints {"robot": ..., "sdk": ...}."""
from __future__ import annotations

from _common import Child, emit


def main() -> None:
    robot = Child("sdk_robot.py")
    ready = robot.next_json(20)
    if "error" in ready:
        emit({"robot": ready, "sdk": None})
        return
    client = Child("sdk_client.py")
    initialized = client.next_json(40)
    if "error" in initialized:
        emit({"robot": None, "sdk": initialized})
        return
    loco_matched = robot.next_json(20)
    client.send("go\n")
    sdk_result = client.next_json(40)
    client.finish()
    robot.send("stop\n")
    robot_result = robot.next_json(10)
    robot.finish()
    emit({"robot": robot_result, "sdk": sdk_result, "ready": ready, "loco_matched": loco_matched})


if __name__ == "__main__":
    main()
