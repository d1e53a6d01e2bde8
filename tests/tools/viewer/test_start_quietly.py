"""The viewer starts without pygame's pkg_resources deprecation warning (issue 41)."""
from __future__ import annotations

import os
import subprocess
import sys


def test_the_viewer_starts_without_the_pkg_resources_warning() -> None:
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    done = subprocess.run([sys.executable, "-W", "default", "-m", "soccerbt", "view", "--seconds", "0.2",
                           "--speed", "max"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "final score" in done.stdout
    assert "pkg_resources" not in done.stderr, done.stderr
    assert "Warning" not in done.stderr, done.stderr
