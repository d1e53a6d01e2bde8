"""A brain of its own (``soccerbt brain --groot``) stands while a breakpoint waits: its driver
sends the stop and holds the robot until the tick goes on; an emergency stop's hold is left
alone; a signal's interrupt() lets a waiting tick go. The brain runs in process on the
in-process transport (no DDS)."""
from __future__ import annotations

import argparse
import socket
import threading

import groot_client_spec as spec
import pytest

from soccerbt.groot.robots import PAUSED_REASON, serve_brain
from soccerbt.robot.cli import build_brain, configure
from soccerbt.world.types import RobotId, Team

BLUE1 = RobotId(Team.BLUE, 1)
JOIN_S = 60.0  # a safeguard against a hung test, not a time limit


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def brain(port):
    parser = argparse.ArgumentParser()
    configure(parser)
    args = parser.parse_args(["--robot", "blue1", "--name", "blue1", "--team-size", "1", "--no-record",
                              "--gc-port", str(free_udp_port()), "--gc-return-port", str(free_udp_port()),
                              "--team-address", "127.0.0.1", "--team-port", str(free_udp_port()), "--domain", "231",
                              "--groot", str(port)])
    args.transport = "memory"  # in-process only (not a choice of the command)
    built = build_brain(args, BLUE1)
    publisher, endpoint = serve_brain(built.agent, built.driver, "blue1", *args.groot,
                                      manifests=built.factory_manifests)
    client = spec.Client(endpoint.port)
    yield built, publisher, client
    client.close()
    publisher.close()
    built.runner.close()


def step_in_thread(runner, t_s: float) -> threading.Thread:
    thread = threading.Thread(target=runner.step, args=(t_s,), daemon=True)
    thread.start()
    return thread


def test_the_brain_stands_while_paused(brain) -> None:
    built, publisher, client = brain
    runner, driver = built.runner, built.driver
    stops = []
    real_stop = driver.stop
    driver.stop = lambda: (stops.append(runner.now_s), real_stop())
    runner.step(0.01)
    stops.clear()
    root = built.agent.tree.root.uid
    client.json_request(spec.HOOK_INSERT, spec.hook(root))
    thread = step_in_thread(runner, 0.02)
    assert client.notification()[1] == root
    assert thread.is_alive()
    assert driver.held == PAUSED_REASON and stops == [0.02]   # Move 0 sent, head held, robot held
    client.json_request(spec.BREAKPOINT_UNLOCK, {"uid": root, "position": 0, "desired_status": "SKIPPED",
                                                 "remove_when_done": True})
    thread.join(JOIN_S)
    assert not thread.is_alive() and driver.held is None
    # the models of the brain's factory: every node type it registered, as BT.CPP writes them
    xml = client.request(spec.FULLTREE).parts[0].decode()
    assert xml.count("<TreeNodesModel>") == 1 and len(built.factory_manifests) > 50


def test_an_emergency_stop_hold_stays(brain) -> None:
    built, publisher, client = brain
    runner, driver = built.runner, built.driver
    runner.estop.engage("test")
    runner.step(0.01)
    assert driver.held == "emergency stop"
    root = built.agent.tree.root.uid
    client.json_request(spec.HOOK_INSERT, spec.hook(root, once=True))
    thread = step_in_thread(runner, 0.02)
    client.notification()
    assert driver.held == "emergency stop"
    client.json_request(spec.BREAKPOINT_UNLOCK, {"uid": root, "position": 0, "desired_status": "SKIPPED",
                                                 "remove_when_done": True})
    thread.join(JOIN_S)
    assert driver.held == "emergency stop"


def test_interrupt_lets_a_waiting_tick_go(brain) -> None:
    built, publisher, client = brain
    runner = built.runner
    runner.step(0.01)
    client.json_request(spec.HOOK_INSERT, spec.hook(built.agent.tree.root.uid))
    thread = step_in_thread(runner, 0.02)
    client.notification()
    publisher.interrupt()   # what the brain's SIGINT handler does
    thread.join(JOIN_S)
    assert not thread.is_alive() and built.driver.held is None
