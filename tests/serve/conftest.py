"""Fixtures for the served simulator's tests: every scenario (``scenarios/<name>.py``) runs in a
network namespace of its own (``tests/netns.py``), with the simulator, the brains and the peers
it starts; the pytest process never opens DDS."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any, Callable

import pytest


def _netns() -> Any:
    module = sys.modules.get("soccerbt_tests_netns")
    if module is None:
        spec = importlib.util.spec_from_file_location("soccerbt_tests_netns", Path(__file__).parents[1] / "netns.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["soccerbt_tests_netns"] = module
        spec.loader.exec_module(module)
    return module


_ns = _netns()
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
    """One run of ``scenarios/takeover.py`` at real time (test_takeover.py and
    test_bad_input.py read it)."""
    return scenario("takeover", "1", timeout_s=180)
