"""flight_logs lists a shared folder as it is while other brains trim it: only files named as the
recorder names them, one robot's when asked, and a file that vanishes meanwhile is passed over."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from soccerbt.robot import flight
from soccerbt.robot.flight import flight_logs


def _log(folder: Path, name: str, mtime_ns: int) -> Path:
    path = folder / name
    path.write_bytes(b"x")
    os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def test_a_file_that_vanishes_while_listed_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    older = _log(tmp_path, "blue1-20260101-000000-10-000.mcap", 1_000)
    gone = _log(tmp_path, "blue1-20260101-000000-11-000.mcap", 2_000)
    red = _log(tmp_path, "red1-20260101-000000-12-000.mcap", 3_000)
    (tmp_path / "notes.txt").write_text("not a flight log")
    real_lstat = Path.lstat

    def lstat(self: Path) -> os.stat_result:
        if self == gone:  # another brain's trim deletes it between the listing and the look
            self.unlink()
        return real_lstat(self)

    monkeypatch.setattr(flight.Path, "lstat", lstat)
    assert flight_logs(tmp_path) == [older, red]
    assert flight_logs(tmp_path, "blue1") == [older]
    assert flight_logs(tmp_path / "nowhere") == []
