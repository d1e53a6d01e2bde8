"""The brain's flight recorder: a log per run in a folder, rotated by size, the folder capped.

``soccerbt brain`` records by default (``--no-record`` switches it off): into ``--log-dir``
(``$XDG_STATE_HOME/soccerbt/logs``, else ``~/.local/state/soccerbt/logs``) one MCAP file per run,
named ``ROBOT-YYYYmmdd-HHMMSS-PID-NNN.mcap``; a file that reaches ``max_file_bytes`` is finished
and the next segment (``-001``, ``-002``, ...) starts with its own header, tree and keyframe, so
that every file opens on its own (its steps count from 1; its header gives the brain time and
brain step it starts at). After each rotation, and at the start, the oldest of the
folder's flight logs (only files named like ours) are deleted until the folder holds at most
``max_folder_bytes``; the file being written is never deleted.

Chunks are small (``CHUNK_BYTES``), the file is flushed every second and synced to the disk every
``sync_period_s`` of brain time: after a kill or a power cut a log opens up to its last whole
chunk (the reader skips a torn end), losing a few seconds at most. On exit the file is finished cleanly (summary and
index).
"""
from __future__ import annotations

import logging
import os
import re
import time
from pathlib import Path
from typing import Any

from soccerbt.robot.recording import BrainRecorder

__all__ = ["FlightRecorder", "default_log_dir", "flight_logs"]

_log = logging.getLogger("soccerbt.brain")

CHUNK_BYTES = 16 * 1024  # about 2 s of one robot's log: what a kill or a power cut may cost
SIZE_CHECK_STEPS = 100  # once a second of brain time: the file's size looked at, whole chunks flushed
_NAME = re.compile(r"^[A-Za-z0-9_]+-\d{8}-\d{6}-\d+-\d{3}\.mcap$")


def default_log_dir() -> Path:
    """``$XDG_STATE_HOME/soccerbt/logs``, else ``~/.local/state/soccerbt/logs``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "soccerbt" / "logs"


def flight_logs(folder: Path) -> list[Path]:
    """The flight logs in ``folder`` (files named as the recorder names them), oldest first."""
    try:
        entries = [p for p in folder.iterdir() if _NAME.match(p.name) and p.is_file() and not p.is_symlink()]
    except OSError:
        return []
    return sorted(entries, key=lambda p: (p.stat().st_mtime_ns, p.name))


class FlightRecorder:
    """Records a brain into rotating files in ``folder`` (see the module docstring)."""

    def __init__(self, folder: str | Path, runner: Any, spec: Any, *, max_file_bytes: int = 64 << 20,
                 max_folder_bytes: int = 1 << 30, sync_period_s: float = 5.0) -> None:
        if max_file_bytes < CHUNK_BYTES * 4:
            raise ValueError(f"a flight log of {max_file_bytes} bytes is too small (at least {CHUNK_BYTES * 4})")
        if max_folder_bytes < max_file_bytes:
            raise ValueError("the log folder's cap must hold at least one whole log file")
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        if not self.folder.is_dir():
            raise NotADirectoryError(f"{self.folder}: not a folder")
        self.runner = runner
        self.spec = spec
        self.max_file_bytes = max_file_bytes
        self.max_folder_bytes = max_folder_bytes
        self.sync_period_s = sync_period_s
        self.run_name = f"{spec.robot}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        self.segment = 0
        self.files: list[Path] = []
        self.deleted: list[Path] = []
        self._current: BrainRecorder | None = None
        self._steps = 0
        self._next_sync_s = sync_period_s
        self._open()

    @property
    def path(self) -> Path:
        """The file being written."""
        return self.files[-1]

    def _open(self) -> None:
        path = self.folder / f"{self.run_name}-{self.segment:03d}.mcap"
        # each segment counts its steps from 1 (a log starts at step 1); the header says where in
        # the run it starts
        self._current = BrainRecorder(path, self.runner, self.spec, chunk_bytes=CHUNK_BYTES,
                                      header_extra={"flight_run": self.run_name, "segment": self.segment,
                                                    "segment_start_s": round(self.runner.now_s, 3),
                                                    "segment_first_brain_step": self._steps + 1})
        self.files.append(path)
        self._trim()

    def on_step(self, runner: Any) -> None:
        current = self._current
        if current is None:
            return
        current.on_step(runner)
        self._steps += 1
        if self._steps % SIZE_CHECK_STEPS != 0:
            return
        if current.size_bytes() >= self.max_file_bytes:
            current.finish()
            self.segment += 1
            self._open()
            return
        current.flush()  # whole chunks reach the operating system: a killed brain's log keeps them
        if runner.now_s >= self._next_sync_s:
            self._next_sync_s = runner.now_s + self.sync_period_s
            try:
                current.sync()
            except OSError as exc:  # a full disk must not stop the brain
                _log.warning("flight log %s: cannot sync (%s)", current.path, exc)

    def _trim(self) -> None:
        """Delete the oldest flight logs until the folder holds at most ``max_folder_bytes``."""
        logs = [p for p in flight_logs(self.folder) if p != self.path]
        sizes = {}
        for p in logs:
            try:
                sizes[p] = p.stat().st_size
            except OSError:
                continue
        total = sum(sizes.values()) + self.max_file_bytes  # room for the file being written
        for p in logs:
            if total <= self.max_folder_bytes:
                break
            try:
                p.unlink()
            except OSError as exc:
                _log.warning("flight log %s: cannot delete (%s)", p, exc)
                continue
            total -= sizes.get(p, 0)
            self.deleted.append(p)

    def finish(self) -> None:
        if self._current is not None:
            self._current.finish()
            self._current = None
