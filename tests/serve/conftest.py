"""Fixtures for the served simulator's tests: every scenario (``scenarios/<name>.py``) runs in a
network namespace of its own (``tests/netns.py``), with the simulator, the brains and the peers
it starts; the pytest process never opens DDS."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Callable

import pytest
import soccerbt_tests_netns as _ns  # noqa: E402 - registered by tests/conftest.py

SCENARIOS = Path(__file__).parent / "scenarios"
run_scenario = _ns.scenario_runner(SCENARIOS)

if importlib.util.find_spec("cyclonedds") is None:  # these serve over DDS: the robot extra
    collect_ignore = ["test_vendor_sdk.py", "test_match.py", "test_takeover.py", "test_bad_input.py",
                      "test_ros2_names.py"]


@pytest.fixture(scope="session")
def scenario() -> Callable[..., Any]:
    """Run ``scenarios/<name>.py`` in a fresh network namespace and return the JSON it printed
    (session scope: a module's tests can share one run through a fixture of their own)."""
    return run_scenario


@pytest.fixture(scope="session")
def takeover(scenario: Callable[..., Any]) -> dict[str, Any]:
    """One run of ``scenarios/takeover.py`` at real time (test_takeover.py reads it: keep its
    readers in that one file, as the suite runs a file's tests in one worker)."""
    return scenario("takeover", "1", timeout_s=180)
