"""tests/groot: the protocol client (groot_client.py, importable as ``groot_client_spec``) and a
free pair of loopback ports per test; every test skips without pyzmq (the groot extra)."""
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


def free_port_pair() -> int:
    """A port p with p and p + 1 free on 127.0.0.1 (as far as a bind can tell now)."""
    for _ in range(100):
        with socket.socket() as first:
            first.bind(("127.0.0.1", 0))
            port = first.getsockname()[1]
            if port >= 65535:
                continue
            with socket.socket() as second:
                try:
                    second.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
                return port
    raise RuntimeError("no free pair of ports")


@pytest.fixture
def port() -> int:
    return free_port_pair()
