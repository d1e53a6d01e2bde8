"""Helpers for the DDS scenarios (run inside a fresh network namespace by ``run_in_netns``)."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).parent


def wait_for(condition: Callable[[], bool], timeout_s: float, poll_s: float = 0.005) -> float | None:
    """Seconds until ``condition()`` held, or None if it did not within ``timeout_s``."""
    start = time.monotonic()
    while True:
        if condition():
            return time.monotonic() - start
        if time.monotonic() - start > timeout_s:
            return None
        time.sleep(poll_s)


def emit(result: dict[str, Any]) -> None:
    """A JSON line on stdout (the last one is the scenario's result)."""
    print(json.dumps(result), flush=True)


class Child:
    """A scenario process started from another (same namespace); its JSON lines are read by a
    thread so that waiting for one never blocks on a pipe."""

    def __init__(self, script: str, *args: str, python: str | None = None) -> None:
        self.proc = subprocess.Popen([python or sys.executable, str(HERE / script), *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.stderr = ""
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.lines.put(json.loads(line))
        self.lines.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def next_json(self, timeout_s: float) -> dict[str, Any]:
        """The next JSON line the child prints; {"error": ...} if it ends or stays silent."""
        try:
            item = self.lines.get(timeout=timeout_s)
        except queue.Empty:
            item = None
        if item is None:
            return {"error": f"no JSON line from {self.proc.args[1]} (exit {self.proc.poll()}): {self.stderr[-2000:]}"}
        return item

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(text)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def finish(self, timeout_s: float = 10.0) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
