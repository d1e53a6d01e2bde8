"""BrainRunner: the 100 Hz loop's timing statistics, deadline misses and safety holds."""
from __future__ import annotations

import threading

import pytest

from soccerbt.drivers.gamepad import EmergencyStop
from soccerbt.robot.runner import BrainRunner, percentile


class StepClock:
    """A clock that advances only when told (each ``wait_until`` jumps to the due time, plus
    ``lag`` for the listed steps: a late wake-up)."""

    kind = "wall"

    def __init__(self) -> None:
        self.t = 0.0
        self.lag: dict[int, float] = {}
        self.calls = 0
        self.step_cost: dict[int, float] = {}

    def now_s(self) -> float:
        return self.t

    def wait_until(self, t_s: float, stop: threading.Event) -> float | None:
        if stop.is_set():
            return None
        self.calls += 1
        self.t = max(self.t, t_s) + self.lag.get(self.calls, 0.0)
        return self.t


class FakeAgent:
    def __init__(self, clock: StepClock, fail_at: set[int] | None = None) -> None:
        self.clock = clock
        self.steps: list[float] = []
        self.fail_at = fail_at or set()
        self.packets: list[object] = []
        self.name = "blue2"

    def step(self, t_s: float) -> None:
        self.steps.append(t_s)
        self.clock.t += self.clock.step_cost.get(len(self.steps), 0.0)
        if len(self.steps) in self.fail_at:
            raise RuntimeError(f"boom {len(self.steps)}")

    def receive_packet(self, packet: object) -> None:
        self.packets.append(packet)


class FakeDriver:
    def __init__(self) -> None:
        self.held: str | None = None
        self.polls = 0
        self.events: list[str] = []

    def poll(self, now_s: float) -> None:
        self.polls += 1

    def hold(self, reason: str) -> None:
        if self.held is None:
            self.held = reason
            self.events.append(f"hold {reason}")

    def release(self) -> None:
        if self.held is not None:
            self.events.append(f"release {self.held}")
            self.held = None

    def close(self) -> None:
        self.events.append("close")


def test_steps_run_every_period_and_stop_after_the_time() -> None:
    clock = StepClock()
    agent, driver = FakeAgent(clock), FakeDriver()
    runner = BrainRunner(agent, driver, clock)
    runner.run(seconds=0.1)
    assert agent.steps == pytest.approx([0.01 * k for k in range(11)])
    assert runner.stats.steps == 11 and driver.polls == 11
    assert runner.stats.deadline_misses == 0
    assert len(runner.stats.durations_s) == 11


def test_late_wake_ups_skip_slots_and_slow_steps_count_as_misses() -> None:
    clock = StepClock()
    clock.lag = {3: 0.025}  # the third wake-up comes 25 ms late: slots 2 and 3 are lost
    clock.step_cost = {6: 0.015}  # the sixth step takes 15 ms: it ends after its deadline
    agent = FakeAgent(clock)
    runner = BrainRunner(agent, FakeDriver(), clock)
    runner.run(seconds=0.1)
    assert runner.stats.skipped_slots == 2
    assert runner.stats.late_steps >= 1
    assert runner.stats.deadline_misses == runner.stats.skipped_slots + runner.stats.late_steps
    # it keeps going, one step per slot at most: never a burst to catch up
    slots = [int(t / 0.01 + 1e-6) for t in agent.steps]
    assert all(b > a for a, b in zip(slots, slots[1:], strict=False))
    assert 2 not in slots and 3 not in slots


def test_an_exception_in_the_brain_holds_the_robot_until_a_step_succeeds() -> None:
    clock = StepClock()
    agent, driver = FakeAgent(clock, fail_at={3, 4}), FakeDriver()
    runner = BrainRunner(agent, driver, clock)
    runner.run(seconds=0.06)
    assert runner.stats.exceptions == 2
    assert driver.events[0].startswith("hold exception in the brain: RuntimeError: boom 3")
    assert driver.events[1].startswith("release exception in the brain")
    assert len(runner.errors) == 2  # each distinct message reported once
    assert agent.steps and runner.stats.steps == 7


def test_the_emergency_stop_holds_until_released() -> None:
    clock = StepClock()
    estop = EmergencyStop()
    agent, driver = FakeAgent(clock), FakeDriver()
    runner = BrainRunner(agent, driver, clock, estop=estop)
    runner.step(0.0)
    assert driver.held is None
    estop.engage("test")
    runner.step(0.01)
    assert driver.held == "emergency stop"
    runner.step(0.02)
    estop.release()
    runner.step(0.03)
    assert driver.held is None
    assert driver.events == ["hold emergency stop", "release emergency stop"]


def test_close_closes_every_part_once() -> None:
    clock = StepClock()
    driver = FakeDriver()

    class Part:
        closed = 0

        def close(self) -> None:
            Part.closed += 1

    runner = BrainRunner(FakeAgent(clock), driver, clock, gc=Part(), team_link=Part())
    runner.close()
    runner.close()
    assert driver.events == ["close"] and Part.closed == 2


def test_stop_ends_the_loop_from_another_thread() -> None:
    clock = StepClock()
    agent = FakeAgent(clock)
    runner = BrainRunner(agent, FakeDriver(), clock)
    original = agent.step

    def step(t_s: float) -> None:
        original(t_s)
        if len(agent.steps) == 5:
            runner.stop()

    agent.step = step  # type: ignore[method-assign]
    runner.run()
    assert len(agent.steps) == 5


def test_percentile_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile([], 50) != percentile([], 50)  # nan
