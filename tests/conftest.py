"""Shared test fixtures: where ../shared/ is, a headless SDL for pygame, and two helper modules
importable by every test module: ``tests/hostile.py`` (crafted hostile logs) as
``soccerbt_tests_hostile`` and ``tests/netns.py`` (DDS in a network namespace of its own) as
``soccerbt_tests_netns``."""
from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# a cache folder of this test process, removed at its exit: nothing a test runs lands in the
# user's ~/.cache
_CACHE_HOME = tempfile.mkdtemp(prefix="soccerbt-tests-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, True)

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = PROJECT_ROOT.parent / "shared"


def _register(name: str, file_name: str) -> None:
    # the tests run in importlib mode (no package path): a shared helper module is registered
    # once, here, before any test module is imported, and they import it by this name
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parent / file_name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


_register("soccerbt_tests_hostile", "hostile.py")
_register("soccerbt_tests_netns", "netns.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that runs a DDS scenario (the ``scenario`` fixture of tests/serve and
    tests/drivers/booster, directly or through another fixture) is marked ``dds``."""
    for item in items:
        if "scenario" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.dds)


@pytest.fixture
def shared_dir() -> Path:
    """The ../shared/ folder; tests that need it skip cleanly when it is absent."""
    if not SHARED_DIR.is_dir():
        pytest.skip("../shared/ is not present")
    return SHARED_DIR
