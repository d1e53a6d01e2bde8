"""A robot's log (``soccerbt brain --record``) holds every input of its brain: re-run through its
recorded tree it reproduces every tick; the folder listing shows it with its score. The brains
run in process against a served match over the in-process transport (no DDS) and UDP on
127.0.0.1."""
from __future__ import annotations

import argparse
import json
import socket
from pathlib import Path

import pytest

from soccerbt.match import MatchConfig
from soccerbt.robot.cli import build_brain, configure
from soccerbt.serve.served import ServedMatch
from soccerbt.world.types import RobotId, Team

BLUE1 = RobotId(Team.BLUE, 1)


def _free_udp_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture(scope="module")
def brain_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from soccerbt.drivers.booster.connect import open_transport

    folder = tmp_path_factory.mktemp("brain")
    domain = 211
    gc_port, ret_port, team_port = _free_udp_port(), _free_udp_port(), _free_udp_port()
    served = ServedMatch(MatchConfig(team_size=1, seed=6), open_transport("memory", domain=domain),
                         gc_address="127.0.0.1", gc_port=gc_port, gc_return_port=ret_port, count_team_messages=False)
    parser = argparse.ArgumentParser()
    configure(parser)
    path = folder / "blue1.mcap"
    args = parser.parse_args(["--robot", "blue1", "--name", "blue1", "--team-size", "1", "--gc-port", str(gc_port),
                              "--gc-return-port", str(ret_port), "--team-address", "127.0.0.1",
                              "--team-port", str(team_port), "--domain", str(domain), "--record", str(path)])
    args.transport = "memory"  # in-process only (not a choice of the command)
    brain = build_brain(args, BLUE1)
    try:
        for _ in range(800):  # 8 s: the referee's packets arrive, the robot walks to its place
            served.match.step()
            brain.runner.step(served.t_s)
    finally:
        brain.runner.close()
        brain.recorder.finish()
        served.close()
    assert brain.gc.counters.accepted > 5
    return path


def test_a_robot_log_reruns_exactly(brain_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from soccerbt.__main__ import main

    assert main(["replay", str(brain_log), "--robot", "blue1", "--rerun"]) == 0
    out = capsys.readouterr().out
    assert "are the log's at every tick of" in out and "(800 ticks)" in out


def test_a_robot_log_is_listed_with_its_score(brain_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from soccerbt.__main__ import main

    assert main(["replay", str(brain_log.parent), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["robot"] == "blue1" and row["source"] == "brain" and row["complete"] and row["error"] is None
    assert row["score"] == {"blue": 0, "red": 0} and row["duration_s"] == pytest.approx(8.0, abs=0.05)


def test_a_brain_streams_live_beside_its_flight_recorder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The stream's recorder and the flight recorder watch one tree: neither takes the other's
    transitions (the flight log still re-runs exactly)."""
    pytest.importorskip("foxglove")
    import threading

    from soccerbt.live.ws_client import ConnectionClosed, FoxgloveClient
    from soccerbt.log import format as lf

    served, brain = _flight_brain(tmp_path, 212, 7, "--live", "127.0.0.1:0")
    client = FoxgloveClient("127.0.0.1", brain.live.port, timeout_s=None)
    got: list[str] = []

    def read() -> None:
        try:
            for event in client.events():
                if event[0] == "message":
                    got.append(event[1])
        except (ConnectionClosed, OSError):
            pass

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    _play(served, brain, 300)
    thread.join(30)
    assert brain.live_recorder is not None and brain.live.published > 200
    assert {lf.STEP_TOPIC, lf.SCENE_TOPIC} <= set(got)
    from soccerbt.__main__ import main

    (flight_log,) = brain.recorder.files
    assert main(["replay", str(flight_log), "--robot", "blue1", "--rerun"]) == 0
    assert "(300 ticks)" in capsys.readouterr().out


def test_a_brains_flight_log_is_a_record_that_also_reruns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``soccerbt brain``'s flight log holds every node as it happened (nothing to derive) and the
    brain's inputs, so that it re-runs exactly too."""
    from soccerbt.__main__ import main
    from soccerbt.log.reader import McapLog

    served, brain = _flight_brain(tmp_path, 213, 8)
    _play(served, brain, 300)
    (flight_log,) = brain.recorder.files
    log = McapLog.open(flight_log)
    assert log.node_data and "inputs" in log.header and log.header["source"] == "brain" and log.last_step == 300
    assert main(["replay", str(flight_log), "--robot", "blue1", "--rerun"]) == 0
    assert "(300 ticks)" in capsys.readouterr().out


def _flight_brain(folder: Path, domain: int, seed: int, *options: str) -> tuple[ServedMatch, object]:
    """A served 1 v 1 without a referee and blue1's brain with its flight recorder in `folder`,
    in process (the memory transport, UDP on 127.0.0.1); `options`: more of the brain's."""
    from soccerbt.drivers.booster.connect import open_transport

    served = ServedMatch(MatchConfig(team_size=1, seed=seed), open_transport("memory", domain=domain), refereed=False)
    parser = argparse.ArgumentParser()
    configure(parser)
    args = parser.parse_args(["--robot", "blue1", "--name", "blue1", "--team-size", "1", "--log-dir", str(folder),
                              "--gc-port", str(_free_udp_port()), "--team-address", "127.0.0.1",
                              "--team-port", str(_free_udp_port()), "--domain", str(domain), *options])
    args.transport = "memory"  # in-process only (not a choice of the command)
    return served, build_brain(args, BLUE1)


def _play(served: ServedMatch, brain: object, steps: int) -> None:
    """Step the match and the brain together, then close both (the logs finished)."""
    try:
        for _ in range(steps):
            served.match.step()
            brain.runner.step(served.t_s)  # type: ignore[attr-defined]
    finally:
        brain.runner.close()  # type: ignore[attr-defined]
        brain.recorder.finish()  # type: ignore[attr-defined]
        if getattr(brain, "live", None) is not None:
            brain.close_live()  # type: ignore[attr-defined]
        served.close()
