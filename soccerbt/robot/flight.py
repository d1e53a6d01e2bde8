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

The robot never stops playing because of its log: when a write fails (a full disk, a folder made
unwritable or removed, a rotation that cannot open its next file) the recorder says so once,
closes what it has (readable up to its last whole chunk) and the brain plays on without a log; it
tries the folder again every ``RETRY_S`` of brain time, in a new segment, and says when it records
again. Two brains may share a folder: a brain trims only its own robot's flight logs, and files
that vanish while the folder is listed (another brain's trim) are passed over.
"""
from __future__ import annotations

import logging
import os
import re
import stat
import time
from pathlib import Path
from typing import Any

from soccerbt.robot.recording import BrainRecorder

__all__ = ["FlightRecorder", "default_log_dir", "flight_logs"]

_log = logging.getLogger("soccerbt.brain")

CHUNK_BYTES = 16 * 1024  # about 2 s of one robot's log: what a kill or a power cut may cost
SIZE_CHECK_STEPS = 100  # once a second of brain time: the file's size looked at, whole chunks flushed
RETRY_S = 5.0  # after a failed write, the folder is tried again this often (brain time)
_NAME = re.compile(r"^[A-Za-z0-9_]+-\d{8}-\d{6}-\d+-\d{3}\.mcap$")


def default_log_dir() -> Path:
    """``$XDG_STATE_HOME/soccerbt/logs``, else ``~/.local/state/soccerbt/logs``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "soccerbt" / "logs"


def flight_logs(folder: Path, robot: str | None = None) -> list[Path]:
    """The flight logs in ``folder`` (files named as the recorder names them; with ``robot``, only
    that robot's), oldest first. A file that vanishes while the folder is listed is passed over."""
    try:
        names = [p for p in folder.iterdir() if _NAME.match(p.name)]
    except OSError:
        return []
    entries = []
    for p in names:
        if robot is not None and not p.name.startswith(f"{robot}-"):
            continue
        try:
            st = p.lstat()
        except OSError:  # gone since the listing (another brain's trim)
            continue
        if stat.S_ISREG(st.st_mode):
            entries.append((st.st_mtime_ns, p.name, p))
    return [p for _, _, p in sorted(entries)]


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
        self.failures = 0  # writes that failed (each ended a segment)
        self._retry_at_s: float | None = None  # while failing: when the folder is tried again
        self._failing = False  # said once; cleared when a new segment has flushed
        self._flushed = False
        self._carried_reasons: dict[str, dict[int, tuple[int, str]]] | None = None  # for the next segment
        self._open()

    @property
    def path(self) -> Path:
        """The file being written."""
        return self.files[-1]

    def _open(self) -> None:
        path = self.folder / f"{self.run_name}-{self.segment:03d}.mcap"
        # each segment counts its steps from 1 (a log starts at step 1); the header says where in
        # the run it starts
        try:
            self._current = BrainRecorder(path, self.runner, self.spec, chunk_bytes=CHUNK_BYTES,
                                          header_extra={"flight_run": self.run_name, "segment": self.segment,
                                                        "segment_start_s": round(self.runner.now_s, 3),
                                                        "segment_first_brain_step": self._steps + 1},
                                          reasons_before=self._carried_reasons)
        except OSError:  # not even its header could be written: no file is left behind
            try:
                path.unlink()
            except OSError:
                pass
            raise
        self.files.append(path)
        self._flushed = False  # until a flush of this segment succeeds
        self._trim()

    def on_step(self, runner: Any) -> None:
        self._steps += 1
        current = self._current
        if current is None:
            if self._retry_at_s is not None and runner.now_s >= self._retry_at_s:
                self._retry(runner)
            return
        try:
            current.on_step(runner)
            if self._steps % SIZE_CHECK_STEPS != 0:
                return
            if current.size_bytes() >= self.max_file_bytes:
                # the next segment goes on from this one: its keyframes keep the reasons given before
                self._carried_reasons = current.recorder.latest_reasons()
                current.finish()
                self._current = None
                self.segment += 1
                self._open()
                return
            current.flush()  # whole chunks reach the operating system: a killed brain's log keeps them
            self._flushed = True
            if self._failing:
                self._failing = False
                _log.warning("flight log %s: recording again", current.path)
            if runner.now_s >= self._next_sync_s:
                self._next_sync_s = runner.now_s + self.sync_period_s
                current.sync()
        except OSError as exc:  # a full disk, a folder gone: never a reason to stop the robot
            self._fail(runner, exc)

    def _fail(self, runner: Any, exc: OSError) -> None:
        """A write failed: close what there is, play on without a log, try again later."""
        current, self._current = self._current, None
        self._carried_reasons = None  # what nodes said while nothing recorded is unknown: none carried
        if current is not None:
            current.abandon()
            if not self._flushed:  # not even its header reached the disk: nothing to read, gone
                try:
                    current.path.unlink()
                    self.files.remove(current.path)
                except (OSError, ValueError):
                    pass
        self.failures += 1
        self._retry_at_s = runner.now_s + RETRY_S
        if not self._failing:
            self._failing = True
            where = current.path if current is not None else self.folder
            _log.error("flight log %s: cannot write (%s): the brain plays on without its log; the folder is "
                       "tried again every %g s", where, exc.strerror or exc, RETRY_S)

    def _retry(self, runner: Any) -> None:
        """A new segment after a failure (said when it has flushed), or another try later."""
        self._retry_at_s = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.segment += 1
            self._open()
        except OSError as exc:
            self._fail(runner, exc)

    def _trim(self) -> None:
        """Delete this robot's oldest flight logs until they hold at most ``max_folder_bytes``
        (another robot's brain sharing the folder keeps its own)."""
        logs = [p for p in flight_logs(self.folder, str(self.spec.robot)) if p != self.path]
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
        """Finish the file being written (summary and index); a failure is said, never raised."""
        current, self._current = self._current, None
        if current is None:
            return
        try:
            current.finish()
        except OSError as exc:
            current.abandon()
            _log.error("flight log %s: cannot finish (%s): it opens up to its last whole chunk", current.path,
                       exc.strerror or exc)
