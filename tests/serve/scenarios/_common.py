"""Helpers for the served-simulator scenarios (run inside a fresh network namespace by
``run_in_netns``): ``wait_for`` and ``emit`` (shared with the Booster transport's scenarios),
``Proc`` (a soccerbt command or a script of this folder, its output read by threads),
``soccerbt()`` (the command line of the CLI), and ``walk_tree()`` (a tree that walks whatever
the game says)."""
from __future__ import annotations

import importlib.util
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ROOT = HERE.parents[2]


def _booster_common() -> Any:
    spec = importlib.util.spec_from_file_location("booster_scenarios_common",
                                                  ROOT / "tests/drivers/booster/scenarios/_common.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_booster = _booster_common()
wait_for = _booster.wait_for
emit = _booster.emit

TREES = HERE.parent / "trees"


def soccerbt(*args: str) -> list[str]:
    """The command line of ``soccerbt ARGS`` with this interpreter."""
    return [sys.executable, "-m", "soccerbt", *args]


def script(name: str, *args: str, python: str | None = None) -> list[str]:
    """The command line of a script of this folder."""
    return [python or sys.executable, str(HERE / name), *args]


class Proc:
    """A process of the scenario (same namespace): its stdout lines (JSON ones decoded) and its
    stderr are collected by threads, so waiting never blocks on a pipe."""

    def __init__(self, argv: list[str], *, stdin: bool = False, env: dict[str, str] | None = None) -> None:
        environment = dict(os.environ if env is None else env)
        environment.setdefault("PYTHONUNBUFFERED", "1")
        self.argv = argv
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
                                     cwd=str(ROOT))
        self.json: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.out_lines: list[str] = []
        self.err_lines: list[str] = []
        self._threads = [threading.Thread(target=self._read_out, daemon=True),
                         threading.Thread(target=self._read_err, daemon=True)]
        for t in self._threads:
            t.start()

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.out_lines.append(line)
            if line.startswith("{"):
                try:
                    self.json.put(json.loads(line))
                except ValueError:
                    pass
        self.json.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.err_lines.append(line)

    @property
    def stderr(self) -> str:
        return "".join(self.err_lines)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def next_json(self, timeout_s: float) -> dict[str, Any]:
        """The next JSON line printed; {"error": ...} when the process ends or stays silent."""
        try:
            item = self.json.get(timeout=timeout_s)
        except queue.Empty:
            item = None
        if item is None:
            return {"error": f"no JSON line from {' '.join(self.argv[:4])} (exit {self.proc.poll()}): "
                             f"{self.stderr[-3000:]}"}
        return item

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(text)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def signal(self, signum: int) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signum)

    def wait(self, timeout_s: float) -> int | None:
        """The exit code, or None if it still runs after ``timeout_s``."""
        try:
            return self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def finish(self, timeout_s: float = 10.0) -> int:
        """SIGTERM unless it ended; SIGKILL after ``timeout_s``; the exit code. Output read."""
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
        code = self.wait(timeout_s)
        if code is None:
            self.proc.kill()
            code = self.proc.wait()
        for t in self._threads:
            t.join(timeout=5)
        return code

    def last_json(self) -> dict[str, Any] | None:
        """The last JSON line printed (after ``finish``)."""
        for line in reversed(self.out_lines):
            if line.startswith("{"):
                try:
                    return json.loads(line)
                except ValueError:
                    continue
        return None


def tracebacks(text: str) -> list[str]:
    """The tracebacks in a process's stderr (first line of each, and the exception line)."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            tail = next((x for x in lines[i + 1:] if x and not x.startswith(" ")), "")
            out.append(tail)
    return out


def now() -> float:
    return time.monotonic()
