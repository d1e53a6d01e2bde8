"""Fixtures for the Booster transport tests: ``run_in_netns`` runs DDS code in a fresh network
namespace, so that nothing it sends can leave the machine (``tests/netns.py`` says how; the
serve tests use the same helpers).

The pytest process never opens DDS: each scenario (``scenarios/<name>.py``) runs inside its own
namespace and prints one JSON object as its last line of output; the test asserts on it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
import soccerbt_tests_netns as _ns  # noqa: E402 - registered by tests/conftest.py

SCENARIOS = Path(__file__).parent / "scenarios"
PROJECT_ROOT = _ns.PROJECT_ROOT
netns_prefix = _ns.netns_prefix
run_in_netns = _ns.run_in_netns
last_json = _ns.last_json
needs_module = _ns.needs_module


@pytest.fixture
def netns() -> Callable[..., Any]:
    """``run_in_netns`` (see ``tests/netns.py``)."""
    return run_in_netns


@pytest.fixture
def scenario() -> Callable[..., Any]:
    """Run ``scenarios/<name>.py`` in a fresh network namespace and return the JSON it printed."""
    return _ns.scenario_runner(SCENARIOS)
