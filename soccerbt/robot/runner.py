"""``BrainRunner``: one robot's agent stepped at 100 Hz on a clock, with its I/O around it.

Each step, in order: the driver takes what arrived (``poll``), the GameController receiver is
drained (the newest packet goes to the agent), the agent steps (sense, adapters, one tick, act;
team messages through the UDP link), the HSL status message is refreshed, the recorder looks.

Timing: step ``k`` is due at ``t0 + k * period_s`` on the brain's clock and must be finished by
the next slot. A step that finishes late, and every slot the loop could not run at all, counts
as a deadline miss; the loop never tries to catch up (it runs the next slot that is due). The
wall time of each step is kept for the statistics (p50, p99, max).

Safety: the emergency stop (the remote's BACK) holds the robot still through the driver until
it is released; an exception that escapes the agent (a bug outside the nodes: those fail their
node) holds the robot for that step and is logged once per distinct message; ``close()`` sends
the stop and closes the driver, the receiver, the team link and the log.
"""
from __future__ import annotations

import logging
import math
import threading
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BrainRunner", "StepStats", "percentile"]

_log = logging.getLogger("soccerbt.brain")

STATUS_PERIOD_S = 0.5  # the HSL status message's content is refreshed this often


def percentile(values: Any, q: float) -> float:
    """The ``q``-th percentile (0..100) by the nearest-rank method; nan when empty."""
    n = len(values)
    if n == 0:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * n))
    return ordered[min(n, rank) - 1]


@dataclass
class StepStats:
    """Steps run, deadline misses and the wall time of each step (seconds)."""

    steps: int = 0
    late_steps: int = 0  # finished after the next slot began
    skipped_slots: int = 0  # slots no step ran in
    exceptions: int = 0
    observer_failures: int = 0  # recorders taken off after they raised
    durations_s: array = field(default_factory=lambda: array("d"))

    @property
    def deadline_misses(self) -> int:
        return self.late_steps + self.skipped_slots

    def step_ms(self) -> dict[str, float | None]:
        d = self.durations_s

        def ms(v: float) -> float | None:
            return None if math.isnan(v) else round(v * 1000.0, 3)

        return {"p50": ms(percentile(d, 50)), "p99": ms(percentile(d, 99)), "max": ms(max(d) if d else math.nan)}

    def slowest(self, n: int = 5) -> list[tuple[int, float]]:
        """The ``n`` slowest steps: (step index from 0, milliseconds), slowest first."""
        d = self.durations_s
        order = sorted(range(len(d)), key=d.__getitem__, reverse=True)[:n]
        return [(i, round(d[i] * 1000.0, 3)) for i in order]

    def to_dict(self) -> dict[str, Any]:
        return {"steps": self.steps, "deadline_misses": self.deadline_misses, "late_steps": self.late_steps,
                "skipped_slots": self.skipped_slots, "exceptions": self.exceptions,
                "observer_failures": self.observer_failures, "step_ms": self.step_ms(),
                "slowest_steps": self.slowest()}


class BrainRunner:
    """Steps ``agent`` at ``period_s`` on ``clock`` (see the module docstring).

    ``driver`` is the agent's driver (``poll``, ``hold``, ``release``, ``stop``, ``close`` are
    used when it has them); ``gc`` a ``GameControllerReceiver`` or None; ``estop`` the
    ``EmergencyStop`` the agent and the pad share, or None; ``observers`` are called as
    ``observer(runner)`` after every step (the recorder).
    """

    def __init__(self, agent: Any, driver: Any, clock: Any, *, gc: Any = None, team_link: Any = None,
                 estop: Any = None, period_s: float = 0.01, observers: list[Callable[[BrainRunner], None]] | None = None
                 ) -> None:
        self.agent = agent
        self.driver = driver
        self.clock = clock
        self.gc = gc
        self.team_link = team_link
        self.estop = estop
        self.period_s = period_s
        self.observers = list(observers or ())
        self.stats = StepStats()
        self.stop_event = threading.Event()
        self.now_s = 0.0
        self.errors: list[str] = []
        self._errors_seen: set[str] = set()
        self._next_status_s = -math.inf
        self._closed = False

    # --- one step --------------------------------------------------------------------------------

    def step(self, now_s: float) -> None:
        """One cycle at brain time ``now_s`` (see the module docstring)."""
        started = time.perf_counter()
        self.now_s = now_s
        driver, agent = self.driver, self.agent
        poll = getattr(driver, "poll", None)
        if poll is not None:
            poll(now_s)
        if self.gc is not None:
            packet = self.gc.poll(now_s)
            if packet is not None:
                agent.receive_packet(packet)
        self._follow_estop()
        try:
            agent.step(now_s)
        except Exception as exc:  # a bug outside the nodes: stop the robot, keep the brain alive
            self.stats.exceptions += 1
            self._hold(f"exception in the brain: {type(exc).__name__}: {exc}")
        else:
            if getattr(driver, "held", None) is not None and self._held_for_exception:
                self._held_for_exception = False
                driver.release()
        if self.gc is not None and now_s >= self._next_status_s:
            self._next_status_s = now_s + STATUS_PERIOD_S
            self._update_status()
        for observer in self.observers:
            try:
                observer(self)
            except Exception as exc:  # a recorder's failure never stops the robot: that observer is off
                self._drop_observer(observer, exc)
        self.stats.durations_s.append(time.perf_counter() - started)
        self.stats.steps += 1

    _held_for_exception = False

    def _drop_observer(self, observer: Callable[[BrainRunner], None], exc: Exception) -> None:
        """An observer (a recorder) raised: said once, taken off; the brain plays on."""
        self.observers = [o for o in self.observers if o is not observer]
        self.stats.observer_failures += 1
        owner = getattr(observer, "__self__", observer)
        _log.error("%s: %s failed and is off (%s: %s); the brain plays on", getattr(self.agent, "name", "brain"),
                   type(owner).__name__, type(exc).__name__, exc)

    def _hold(self, reason: str) -> None:
        if reason not in self._errors_seen:
            self._errors_seen.add(reason)
            self.errors.append(f"t={self.now_s:.2f}s {reason}")
            _log.exception("%s: %s", getattr(self.agent, "name", "brain"), reason)
        hold = getattr(self.driver, "hold", None)
        if hold is not None:
            hold(reason)
            self._held_for_exception = True

    def _follow_estop(self) -> None:
        estop, driver = self.estop, self.driver
        if estop is None or not hasattr(driver, "hold"):
            return
        if estop.engaged and driver.held is None:
            driver.hold("emergency stop")
        elif not estop.engaged and driver.held == "emergency stop":
            driver.release()

    def _update_status(self) -> None:
        """What the HSL status message says: fallen, pose (mm), the ball relative to the robot."""
        wm = getattr(self.agent.context, "world_model", None)
        if wm is None:
            return
        pose = wm.robot_pose_field
        ball_age = -1.0
        bx = by = 0.0
        if wm.ball_location_known:
            ball_age = float(wm.ball_age_s)
            bx, by = pose.inverse_transform_point(*wm.ball_field)
        self.gc.update_status(fallen=bool(wm.fallen), pose_x_mm=pose.x_m * 1000.0, pose_y_mm=pose.y_m * 1000.0,
                              pose_theta_rad=pose.theta_rad, ball_age_s=ball_age, ball_x_mm=bx * 1000.0,
                              ball_y_mm=by * 1000.0)

    # --- the loop ----------------------------------------------------------------------------------

    def run(self, *, seconds: float | None = None, start_timeout_s: float | None = None) -> None:
        """Step until ``stop()`` (a signal handler calls it) or ``seconds`` of brain time passed.

        A simulated clock that has not started waits up to ``start_timeout_s`` (None: forever).
        """
        clock, period = self.clock, self.period_s
        if getattr(clock, "kind", "wall") == "sim":
            deadline = None if start_timeout_s is None else time.monotonic() + start_timeout_s
            while not clock.started:
                if self.stop_event.is_set() or (deadline is not None and time.monotonic() > deadline):
                    return
                time.sleep(0.005)
        t0 = clock.now_s()
        end = None if seconds is None else t0 + seconds
        k = 0
        while not self.stop_event.is_set():
            due = t0 + k * period
            now = clock.wait_until(due, self.stop_event)
            if now is None or (end is not None and now > end + 1e-9):
                break
            behind = int((now - due) / period + 1e-9)  # whole slots that passed without a step
            if behind > 0:
                self.stats.skipped_slots += behind
                k += behind
                due = t0 + k * period
            self.step(now)
            if clock.now_s() > due + period + 1e-9:
                self.stats.late_steps += 1
            k += 1

    def stop(self) -> None:
        """Ask the loop to end (safe from a signal handler or another thread)."""
        self.stop_event.set()

    def close(self) -> None:
        """The stop, then close the driver, the receiver, the team link (each once)."""
        if self._closed:
            return
        self._closed = True
        for part, method in ((self.driver, "close"), (self.gc, "close"), (self.team_link, "close")):
            fn = getattr(part, method, None) if part is not None else None
            if fn is None:
                continue
            try:
                fn()
            except Exception as exc:  # closing must go on: the robot's stop was sent first
                _log.warning("closing %s: %s", type(part).__name__, exc)
