"""The viewer's steps in a thread of their own, so the window lives on while a step waits.

With ``soccerbt view --groot`` a robot's tick may stop at a Groot2 breakpoint, and in a lock-step
match that stops the whole step until Groot2 unlocks it. Stepped in the window's thread, the
window would freeze meanwhile. `StepWorker` runs each step in a worker thread and the window waits
for it, so nothing runs side by side while a step runs; only while the step waits at a breakpoint
(`BreakpointPause`, told by the publishers) does the window draw and handle keys.

`BreakpointPause.lock` keeps the two apart the other way: the window holds it while it draws and
handles events, and a breakpoint's tick takes it to say it goes on, so the tick never resumes in
the middle of a frame (the frame reads the match the tick changes).
"""
from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["StepWorker", "BreakpointPause", "STEP_POLL_S"]

STEP_POLL_S = 0.01   # while a step runs, the window looks this often whether it waits at a breakpoint


class BreakpointPause:
    """A publisher's `on_breakpoint(robot, uid, waiting)` for a viewed match (soccerbt.groot.robots
    serve_match): which robot waits at which node, and the lock that keeps ticks out of frames.
    `name_of(robot, uid)` names the node (the band says it)."""

    def __init__(self, name_of: Callable[[str, int], str] | None = None) -> None:
        self.lock = threading.Lock()
        self.name_of = name_of
        self.waiting: tuple[str, int, str] | None = None   # (robot, uid, node name)

    def __call__(self, robot: str, uid: int, waiting: bool) -> None:
        # in the ticking thread: the name looked up before the lock (nothing else runs then)
        name = self.name_of(robot, uid) if waiting and self.name_of is not None else ""
        with self.lock:
            self.waiting = (robot, uid, name) if waiting else None

    def band_text(self) -> str | None:
        """The band's text while a tick waits ("blue2 paused at a Groot2 breakpoint on #12 KickBall")."""
        waiting = self.waiting
        if waiting is None:
            return None
        robot, uid, name = waiting
        return (f"{robot} paused at a Groot2 breakpoint on #{uid}{' ' + name if name else ''}: the match "
                "waits until Groot2 unlocks it (or stops asking for 5 s)")


class StepWorker:
    """Runs `step()` in a worker thread, one step at a time (`start`, then `wait`)."""

    def __init__(self, step: Callable[[], None]) -> None:
        self._step = step
        self._go = threading.Event()
        self._done = threading.Event()
        self._done.set()
        self._error: BaseException | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="viewer-steps", daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        """A step started and not finished (running, or waiting at a breakpoint)."""
        return not self._done.is_set()

    def start(self) -> None:
        self._done.clear()
        self._go.set()

    def wait(self, timeout_s: float | None) -> bool:
        """Whether the step finished within `timeout_s` (None: until it does); its exception, if
        it raised, is raised here."""
        if not self._done.wait(timeout_s):
            return False
        error, self._error = self._error, None
        if error is not None:
            raise error
        return True

    def _run(self) -> None:
        while True:
            self._go.wait()
            self._go.clear()
            if self._closed:
                return
            try:
                self._step()
            except BaseException as exc:  # noqa: BLE001 - handed to the window's thread (wait)
                self._error = exc
            finally:
                self._done.set()

    def close(self) -> None:
        """End the thread once its step (if any) is over: release a waiting breakpoint first."""
        self._done.wait()
        self._closed = True
        self._go.set()
        self._thread.join()
