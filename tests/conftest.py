"""Shared test fixtures: where ../shared/ is, and a headless SDL for pygame."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = PROJECT_ROOT.parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """The ../shared/ folder; tests that need it skip cleanly when it is absent."""
    if not SHARED_DIR.is_dir():
        pytest.skip("../shared/ is not present")
    return SHARED_DIR
