"""The brain's clock when it runs as a program: the wall clock, or a simulator's ``/clock``.

``WallClock``: seconds since the brain started (``time.monotonic``: never jumps).
``SimClock``: ROS 2's convention for simulators: the newest ``rosgraph_msgs/Clock`` sample on
``/clock`` is the time; it stands still while the simulator does. It waits on the subscription
when that can block (``wait(timeout_s)``), else polls it. Both have ``now_s()`` and
``wait_until(t_s, stop)`` (returns the time reached, or None when ``stop`` was set first).
"""
from __future__ import annotations

import math
import threading
import time
from typing import Any

__all__ = ["SimClock", "WallClock"]


class WallClock:
    """Monotonic seconds since construction."""

    kind = "wall"

    def __init__(self) -> None:
        self._t0 = time.monotonic()

    def now_s(self) -> float:
        return time.monotonic() - self._t0

    def wait_until(self, t_s: float, stop: threading.Event) -> float | None:
        while True:
            if stop.is_set():
                return None
            now = self.now_s()
            if now >= t_s:
                return now
            # sleep the rest (short chunks keep the stop responsive)
            time.sleep(min(0.05, t_s - now))


class SimClock:
    """The newest ``/clock`` sample (``subscription.take()`` gives ``Clock`` messages)."""

    kind = "sim"

    def __init__(self, subscription: Any, poll_s: float = 0.0005) -> None:
        self._sub = subscription
        self._poll_s = poll_s
        self._now_s = -math.inf
        self.samples = 0

    def _update(self) -> None:
        for sample in self._sub.take(256):
            stamp = sample.clock
            t = stamp.sec + stamp.nanosec * 1e-9
            if math.isfinite(t) and t > self._now_s:  # a clock never runs backwards
                self._now_s = t
            self.samples += 1

    @property
    def started(self) -> bool:
        """A sample arrived (before it, the time is unknown)."""
        self._update()
        return self._now_s > -math.inf

    def now_s(self) -> float:
        self._update()
        return self._now_s if self._now_s > -math.inf else 0.0

    def wait_until(self, t_s: float, stop: threading.Event) -> float | None:
        # a subscription that can block until a sample arrives (Cyclone's) wakes the brain the
        # moment the tick comes, without polling; short waits keep the stop responsive
        block = getattr(self._sub, "wait", None)
        while True:
            if stop.is_set():
                return None
            self._update()
            if self._now_s >= t_s - 1e-9:
                return self._now_s
            if block is not None:
                block(0.05)
            else:
                time.sleep(self._poll_s)
