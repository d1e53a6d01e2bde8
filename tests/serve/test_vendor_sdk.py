"""The vendor's own code against the served simulator: booster_robotics_sdk_python's
B1LocoClient and subscribers drive ``soccerbt sim --serve booster --plain blue1 --no-referee``
(two processes in a network namespace of their own)."""
from __future__ import annotations

import importlib.util
import math
from typing import Any, Callable

import pytest

PITCH, YAW = 0.6, 0.3


@pytest.fixture(scope="module")
def sdk_run(scenario: Callable[..., Any]) -> dict[str, Any]:
    if importlib.util.find_spec("booster_robotics_sdk_python") is None:
        pytest.skip("booster_robotics_sdk_python is not installed (the dev extra, Linux x86-64 and aarch64 only)")
    return scenario("sdk_served", "2", "2.0", "1.0", str(PITCH), str(YAW), timeout_s=120)


def test_move_walks_the_robot_forward_and_stops_it(sdk_run: dict[str, Any]) -> None:
    sdk, sim = sdk_run["sdk"], sdk_run["sim"]
    assert "error" not in sdk, sdk_run
    assert sdk_run["sim_exit"] == 0 and sim is not None, sdk_run["sim_stderr"]
    assert sdk["walk"]["failed"] == 0 and sdk["walk"]["ok"] > 5, sdk["walk"]
    assert sdk["stop"]["failed"] == 0, sdk["stop"]
    x0, y0, th0 = sdk["odometer_before"]
    x1, y1, _ = sdk["odometer_walked"]
    x2, y2, _ = sdk["odometer_stopped"]
    forward = x2 - x0
    assert forward > 0.2, sdk  # 0.3 m/s for 2 s of wall time at speed 2 (4 simulated s)
    assert abs(y2 - y0) < 0.25 * forward, sdk  # straight ahead
    # Move(0, 0, 0) stopped it: the odometer stands still once the robot has stopped
    stopping, stopped = sdk["odometer_stopping"], sdk["odometer_stopped"]
    assert math.hypot(stopped[0] - stopping[0], stopped[1] - stopping[1]) < 0.02, sdk
    # the simulator's truth: the distance it walked is what the SDK's odometer saw
    blue1 = next(r for r in sim["robots"] if r["robot"] == "blue1")
    assert blue1["distance_walked_m"] == pytest.approx(math.hypot(x2 - x0, y2 - y0), rel=0.25)
    assert blue1["brain"]["connected"] is True  # the SDK counts as blue1's brain


def test_rotate_head_turns_the_head_joints_of_the_low_state(sdk_run: dict[str, Any]) -> None:
    sdk = sdk_run["sdk"]
    assert sdk["head"]["failed"] == 0, sdk["head"]
    low = sdk["low_state"]
    assert low["serial"] == 23  # the T1's serial motors
    yaw, pitch = low["head_q"]  # serial motors 0 and 1: head yaw, head pitch
    before = sdk["head_before"]
    assert abs(yaw - YAW) < abs(before[0] - YAW) and abs(pitch - PITCH) < abs(before[1] - PITCH), (before, low)
    assert yaw == pytest.approx(YAW, abs=0.05) and pitch == pytest.approx(PITCH, abs=0.05), low


def test_fall_down_and_remote_controller_of_a_standing_robot(sdk_run: dict[str, Any]) -> None:
    sdk = sdk_run["sdk"]
    assert all(n > 0 for n in sdk["counts"].values()), sdk["counts"]
    assert sdk["fall_states"] == [[0, False]]  # IS_READY all along: it never fell
    assert len(sdk["remotes"]) == 1  # the remote controller is neutral all along
    remote = sdk["remote"]
    assert remote["axes"] == [0.0, 0.0, 0.0, 0.0] and not any(remote["buttons"]) and not any(remote["hats"])


def test_an_api_the_robot_does_not_serve_is_refused_and_counted(sdk_run: dict[str, Any]) -> None:
    sdk, sim = sdk_run["sdk"], sdk_run["sim"]
    wave = sdk["wave"]
    assert wave["ok"] is False and "404" in wave["error"], wave  # the SDK raises with the status
    assert sim["served"]["bad_requests"] == 1
    moves_and_heads = sdk["first_answer"]["attempts"] + sum(sdk[k]["ok"] + sdk[k]["failed"]
                                                            for k in ("walk", "stop", "head"))
    assert sim["served"]["requests"]["blue1"] >= moves_and_heads - len(sdk["first_answer"]["errors"]) + 1


def test_the_plain_robots_clock_waits_for_its_brain(scenario: Any) -> None:
    r = scenario("plain_waits", timeout_s=120)
    assert r["sim_exit"] == 0 and r["sim"] is not None, r["sim_stderr"]
    assert "waiting up to 1.5 s for a brain on blue1 (plain names)" in r["sim_stderr"]
    assert "no brain connected for blue1 within 1.5 s; playing on" in r["sim_stderr"]
    assert r["sim"]["sim_s"] == 2.0  # then the match was played
