"""tests/groot: the protocol client (groot_client.py, importable as ``groot_client_spec``) and a
free range of loopback ports per test; every test skips without pyzmq (the groot extra)."""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("zmq")

from soccerbt.groot.sockets import free_port_range  # noqa: E402 - after the skip

if "groot_client_spec" not in sys.modules:
    # the tests run in importlib mode (no package path): the client is registered by name here
    _spec = importlib.util.spec_from_file_location("groot_client_spec", Path(__file__).parent / "groot_client.py")
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["groot_client_spec"] = _module
    _spec.loader.exec_module(_module)


def free_ports(count: int = 12) -> int:
    """A port p with p .. p + count - 1 free on 127.0.0.1: a robot takes two, a 3 v 3 match
    twelve. Each pytest-xdist worker draws from a band of its own (below the ephemeral range), so
    that two workers never race for one range."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    low = 20000 + (index % 4) * 3000
    return free_port_range(count, low, low + 3000)


@pytest.fixture
def port() -> int:
    return free_ports()
