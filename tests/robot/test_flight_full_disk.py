"""The robot never stops playing because of its log (issue 39): a flight-log folder on a full
tmpfs, mounted in a private mount namespace, and a --record file on the same disk."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SCENARIO = Path(__file__).parent / "scenarios" / "full_disk.py"
ROOT = Path(__file__).resolve().parents[2]


def _in_mount_namespace(disk: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed")
    prefix = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-r", "-m"]
    inner = 'mount -t tmpfs -o size=160k tmpfs "$1" || exit 97; exec "$2" "$3" "$1"'
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([*prefix, "sh", "-c", inner, "sh", str(disk), sys.executable, str(SCENARIO)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=str(ROOT))
    if done.returncode == 97 or "unshare failed" in done.stderr:
        pytest.skip(f"no private mount namespace with a tmpfs here: {done.stderr.strip()[:200]}")
    return done


def test_a_full_disk_never_stops_the_brain(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    done = _in_mount_namespace(disk)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    out = json.loads(lines[-1])
    assert out["steps"] == 4000 and out["exceptions"] == 0  # every step played
    assert out["walked_m"] > 1.0  # and the robot played: it walked
    said = out["said"]
    full = [s for s in said if "cannot write (No space left on device): the brain plays on without its log" in s]
    again = [s for s in said if s.endswith(": recording again")]
    assert full and again  # said when the disk filled, and again when there was room
    assert len(full) <= len(again) + 1  # once per outage, not once per step
    assert out["failures"] >= 1 and out["room_at"] is not None
    # the segments left open on their own: the one cut by the full disk up to its last whole chunk,
    # the one after the room came back from where it started; no empty file is left behind
    assert all("error" not in s for s in out["segments"]), out["segments"]
    assert out["segments"][0]["first"] == 1
    assert any(s["first"] > out["room_at"] for s in out["segments"])
    # --record on the same disk: taken off and said once; the flight recorder stays on
    assert out["observer_failures"] == 1 and out["observers"] == 1
    assert sum("BrainRecorder failed and is off" in s for s in said) == 1
    assert out["other_kept"]  # another robot's flight log in the shared folder is not trimmed
