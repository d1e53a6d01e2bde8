"""A brain whose flight-log folder fills up mid-match (run inside a private mount namespace with a
small tmpfs at argv[1]): the brain plays every step, the recorder says so once, records again
once there is room, and a --record file on the same full disk is taken off, said once.
Prints one JSON object."""
from __future__ import annotations

import argparse
import json
import logging
import math
import socket
import sys
from pathlib import Path

from soccerbt.brain_setup import BrainSpec
from soccerbt.drivers.booster.connect import open_transport
from soccerbt.log.reader import McapLog
from soccerbt.match import MatchConfig
from soccerbt.robot.cli import build_brain, configure
from soccerbt.robot.flight import FlightRecorder, flight_logs
from soccerbt.robot.recording import BrainRecorder
from soccerbt.serve.served import ServedMatch
from soccerbt.world.field import Field
from soccerbt.world.types import RobotId, Team


def free_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Said(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def main() -> None:
    disk = Path(sys.argv[1])
    said = Said()
    logging.getLogger("soccerbt").addHandler(said)
    folder = disk / "logs"
    folder.mkdir()
    other = folder / "red1-20200101-000000-1-000.mcap"  # another robot's brain shares the folder
    other.write_bytes(b"r" * 4096)
    filler = disk / "filler"
    filler.write_bytes(b"f" * (40 * 1024))  # leaves the log about 50 KiB
    robot = RobotId(Team.BLUE, 1)
    gc_port, ret_port, team_port = free_port(), free_port(), free_port()
    served = ServedMatch(MatchConfig(team_size=1, seed=3), open_transport("memory", domain=211), gc_port=gc_port,
                         gc_return_port=ret_port, count_team_messages=False)
    parser = argparse.ArgumentParser()
    configure(parser)
    args = parser.parse_args(["--robot", "blue1", "--name", "blue1", "--team-size", "1", "--no-record",
                              "--gc-port", str(gc_port), "--gc-return-port", str(ret_port),
                              "--team-address", "127.255.255.255", "--team-port", str(team_port), "--domain", "211"])
    args.transport = "memory"
    brain = build_brain(args, robot)
    spec = BrainSpec(robot=robot, field=Field.by_name("M"), team_size=1, tree_path=brain.agent.tree_path,
                     team_number=1, team_message_period_s=0.45)
    flight = FlightRecorder(folder, brain.runner, spec, max_file_bytes=1 << 20, max_folder_bytes=2 << 20)
    single = BrainRecorder(disk / "record.mcap", brain.runner, spec)  # --record on the same disk
    brain.runner.observers += [flight.on_step, single.on_step]
    start = served.match.world.robots[robot]
    start_xy = (start.x_m, start.y_m)
    room_at = None
    try:
        for step in range(1, 4001):
            served.match.step()
            brain.runner.step(served.t_s)
            if flight.failures and room_at is None and step >= 1500:
                filler.unlink()  # room again: the recorder is to find it within RETRY_S
                room_at = step
    finally:
        brain.runner.close()
        flight.finish()
        served.close()
    segments = []
    for path in flight_logs(folder, "blue1"):
        try:
            log = McapLog.open(path)
            segments.append({"segment": log.header["segment"], "first": log.header["segment_first_brain_step"],
                             "steps": log.last_step})
        except Exception as exc:  # noqa: BLE001 - reported to the test
            segments.append({"path": path.name, "error": str(exc)})
    print(json.dumps({"steps": brain.runner.stats.steps, "exceptions": brain.runner.stats.exceptions,
                      "observer_failures": brain.runner.stats.observer_failures,
                      "observers": len(brain.runner.observers), "failures": flight.failures, "room_at": room_at,
                      "said": said.lines, "segments": segments, "other_kept": other.exists(),
                      "walked_m": math.dist(start_xy, (served.match.world.robots[robot].x_m,
                                                       served.match.world.robots[robot].y_m))}))


if __name__ == "__main__":
    main()
