"""tests/groot: the protocol client (groot_client.py, importable as ``groot_client_spec``) and a
free range of loopback ports per test; every test skips without pyzmq (the groot extra)."""
from __future__ import annotations

import importlib.util
import socket
import sys
from pathlib import Path

import pytest

pytest.importorskip("zmq")

if "groot_client_spec" not in sys.modules:
    # the tests run in importlib mode (no package path): the client is registered by name here
    _spec = importlib.util.spec_from_file_location("groot_client_spec", Path(__file__).parent / "groot_client.py")
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["groot_client_spec"] = _module
    _spec.loader.exec_module(_module)


def free_ports(count: int = 12) -> int:
    """A port p with p .. p + count - 1 free on 127.0.0.1 (as far as a bind can tell now): a
    robot takes two, a 3 v 3 match twelve."""
    for _ in range(200):
        with socket.socket() as first:
            first.bind(("127.0.0.1", 0))
            base = first.getsockname()[1]
        if base + count > 65535:
            continue
        try:
            for port in range(base, base + count):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise RuntimeError("no free range of ports")


@pytest.fixture
def port() -> int:
    return free_ports()
