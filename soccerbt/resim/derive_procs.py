"""Deriving on several cores: some robots' brains stepped in forked processes.

``derive`` re-runs every robot's brain from its own part of the recorded inputs; the brains share
nothing, so ``spread`` forks a process for each further group of robots (robot k goes to group
k % n; group 0 stays in the deriving process). A child steps its brains over the same log
(opened again from its path), records them as they would be at home into a collector, and sends
each step's recorder messages back in batches through a pipe. In the parent a stand-in
(``RemoteBrain``) per robot plays them into a ``RerunRecording``, as its own recorder would have, so the
derive's steps, checks and output are the same as with every brain at home (tested byte for
byte). At scene steps the child also sends what the scene reads of each agent (its pose
estimate, its ball belief, its last command), which the stand-in's agent then answers.

Errors keep their places: an unreadable step in a child is raised where the parent reaches that
step, a ReplayError as it was raised, anything else as a RuntimeError carrying the child's
traceback. Children are killed and reaped when the derive ends, however it ends (``close``).
Forking needs ``os.fork`` (not on Windows: the derive then runs in one process).
"""
from __future__ import annotations

import os
import signal
import threading
import traceback
from collections import deque
from multiprocessing.connection import Pipe
from pathlib import Path
from typing import Any, Callable, Iterator

from soccerbt.log import format as lf
from soccerbt.log.format import ReplayError, ShapeError
from soccerbt.log.reader import McapLog
from soccerbt.resim.rerun import RerunRecording

__all__ = ["RemoteBrain", "default_processes", "inputs_in_order", "spread", "step_brains"]

BATCH_STEPS = 100  # steps a child sends at once
PROCESSES_ENV = "SOCCERBT_DERIVE_PROCESSES"


def default_processes(robots: int) -> int:
    """How many processes derive `robots` brains: one per core this process may run on, at most
    one per robot; 1 without ``os.fork`` or while other threads run (a fork copies no thread, and
    a lock one of them held would stay taken in the child); ``$SOCCERBT_DERIVE_PROCESSES`` (a
    number) chooses."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return 1
    text = os.environ.get(PROCESSES_ENV, "")
    try:
        wanted = int(text) if text else len(os.sched_getaffinity(0))
    except (ValueError, AttributeError):
        wanted = os.cpu_count() or 1
    return max(1, min(wanted, robots, 16))


class _Collect:
    """A child brain's recorder tap: its messages kept until they are sent."""

    def __init__(self) -> None:
        self.out: list[tuple[str, int, bytes]] = []

    def message(self, topic: str, step: int, data: bytes) -> None:
        self.out.append((topic, step, data))

    def take(self) -> list[tuple[str, int, bytes]]:
        out, self.out = self.out, []
        return out


def _beliefs_of(agent: Any) -> tuple[Any, Any, Any, Any]:
    """What the scene and the commands read of an agent (scene_update._beliefs, commands_json)."""
    bb = agent.blackboard
    return agent.pose_estimate(), bb.get("ball_location_known", False), bb.get("ball_field", None), agent.last_command


class _AgentView:
    """A remote brain's agent as the scene reads it, as of the last scene step."""

    def __init__(self) -> None:
        self.pose: Any = None
        self.blackboard: dict[str, Any] = {}
        self.last_command: Any = None

    def pose_estimate(self) -> Any:
        return self.pose

    def update(self, beliefs: tuple[Any, Any, Any, Any]) -> None:
        self.pose, known, ball, self.last_command = beliefs
        self.blackboard = {"ball_location_known": known, "ball_field": ball}


def inputs_in_order(log: Any) -> Iterator[tuple[int, bytes | None]]:
    """(step, its inputs message) of each step of `log` from 1 in order, then (the first step that
    is missing, None) where one is (damaged) and nothing after it."""
    expect = 1
    for step, group in log.step_groups(1, log.last_step):
        inputs = next((data for topic, data in group if topic == lf.INPUTS_TOPIC), None)
        if step != expect or inputs is None:
            yield expect, None
            return
        yield step, inputs
        expect = step + 1


def step_brains(brains: list[Any], records: dict[str, Any], step: int) -> None:
    """Every brain fed its inputs of a step (robot -> InputRecord, ``McapLog.inputs_of``) and
    recorded (ValueError for a robot the step holds no inputs of)."""
    for b in brains:
        rec = records.get(b.robot)
        if rec is None:
            raise ValueError(f"the step holds no inputs of {b.robot}")
        b.feed(rec, step)
        b.record()


def _child(path: Path, brains: list[Any], earlier: list[Path], robots: list[str],
           feed_segment: Callable[..., None], conn: Any) -> None:
    """The child's work (see the module docstring): the earlier segments, then the log."""
    try:
        for segment in earlier:
            feed_segment(segment, robots, brains)
        taps = [_Collect() for _ in brains]
        for b, tap in zip(brains, taps, strict=False):
            b.start(tap)
        conn.send(("start", [tap.take() for tap in taps]))
        batch: list[tuple[int, list[Any]]] = []
        log = McapLog.open(path)
        for step, data in inputs_in_order(log):
            if data is None:
                break  # the parent stops here too (the same log, read the same way)
            try:
                step_brains(brains, log.inputs_of(data), step)
            except (ValueError, ShapeError) as exc:
                conn.send(("steps", batch))
                conn.send(("bad", str(exc)))
                return
            scene = step % lf.SCENE_PERIOD_STEPS == 0
            batch.append(
                (
                    step,
                    [
                        (tap.take(), _beliefs_of(b.agent) if scene else None)
                        for b, tap in zip(brains, taps, strict=False)
                    ],
                )
            )
            if len(batch) >= BATCH_STEPS:
                conn.send(("steps", batch))
                batch = []
        conn.send(("steps", batch))
        conn.send(("end", None))
    except ReplayError as exc:
        conn.send(("replay", (str(exc.path), exc.line, exc.message)))
    except BaseException:  # noqa: BLE001 - said in the parent
        conn.send(("crash", traceback.format_exc()))


class _Group:
    """One forked child and what it sent that the parent has not used yet."""

    def __init__(self, path: Path, brains: list[Any], earlier: list[Path], robots: list[str],
                 feed_segment: Callable[..., None]) -> None:
        self.path = path
        reader, writer = Pipe(duplex=False)
        pid = os.fork()
        if pid == 0:  # the child: its work, then out at once (no atexit, no parent's cleanup)
            code = 0
            try:
                reader.close()
                _child(path, brains, earlier, robots, feed_segment, writer)
                writer.close()
            except BaseException:  # noqa: BLE001
                code = 1
            finally:
                os._exit(code)
        writer.close()
        self.pid: int | None = pid
        self.conn = reader
        self.start: list[Any] | None = None
        self.pending: deque[tuple[int, list[Any]]] = deque()
        self.step = -1
        self.results: list[Any] = []

    def _receive(self) -> tuple[str, Any]:
        try:
            kind, payload = self.conn.recv()
        except (EOFError, OSError):
            raise ReplayError(self.path, None, "a process deriving some of the robots ended early") from None
        if kind == "replay":
            raise ReplayError(*payload)
        if kind == "bad":
            raise ValueError(payload)
        if kind == "crash":
            raise RuntimeError(f"a process deriving some of the robots failed:\n{payload}")
        return kind, payload

    def started(self, index: int) -> list[tuple[str, int, bytes]]:
        if self.start is None:
            kind, payload = self._receive()
            if kind != "start":
                raise ReplayError(self.path, None, f"a deriving process sent {kind!r} before its start")
            self.start = payload
        return self.start[index]

    def result(self, step: int, index: int) -> tuple[list[tuple[str, int, bytes]], Any]:
        if self.step != step:
            while not self.pending:
                kind, payload = self._receive()
                if kind != "steps":
                    raise ReplayError(self.path, None, f"step {step}: a deriving process has no more steps")
                self.pending.extend(payload)
            self.step, self.results = self.pending.popleft()
            if self.step != step:
                raise ReplayError(self.path, None, f"step {step}: a deriving process sent step {self.step}")
        return self.results[index]

    def close(self) -> None:
        if self.pid is None:
            return
        pid, self.pid = self.pid, None
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        self.conn.close()


class RemoteBrain:
    """A robot whose brain steps in a child: its recorder's messages replayed into a ``RerunRecording``
    (what ``derive`` reads of a brain: ``k``, ``robot``, ``agent``, ``recording``, start/feed/record/close)."""

    def __init__(self, robot: str, k: int, group: _Group, index: int) -> None:
        self.robot, self.k = robot, k
        self.group, self.index = group, index
        self.agent = _AgentView()
        self.recording = RerunRecording(robot)
        self.step = -1

    def start(self) -> None:
        self.recording = RerunRecording(self.robot)
        for message in self.group.started(self.index):
            self.recording.message(*message)

    def feed(self, rec: Any, step: int) -> None:
        self.step = step  # the brain itself steps in the child

    def record(self) -> None:
        messages, beliefs = self.group.result(self.step, self.index)
        for message in messages:
            self.recording.message(*message)
        if beliefs is not None:
            self.agent.update(beliefs)

    def close(self) -> None:
        self.group.close()


def spread(log_path: Path, brains: list[Any], earlier: list[Path], robots: list[str],
           feed_segment: Callable[..., None], processes: int) -> list[Any]:
    """`brains` with those of groups 1.. (robot k in group k % `processes`) moved into forked
    children and replaced by ``RemoteBrain`` stand-ins, in the same order."""
    if processes <= 1 or len(brains) < 2:
        return brains
    out = list(brains)
    groups: list[_Group] = []
    try:
        for g in range(1, processes):
            group_brains = [b for b in brains if b.k % processes == g]
            if not group_brains:
                continue
            groups.append(_Group(log_path, group_brains, earlier, robots, feed_segment))
            for index, b in enumerate(group_brains):
                out[out.index(b)] = RemoteBrain(b.robot, b.k, groups[-1], index)
    except BaseException:  # a fork refused (no memory, a process limit): no child left behind
        for group in groups:
            group.close()
        raise
    return out
