"""Where the games of a batch run: worker processes of our own, or Ray tasks.

``run_jobs(jobs, workers, ...)`` plays ``Job``s (an index, a match config, where to record its
replay log or None) and hands each ``JobResult`` to ``on_result`` as it finishes. Both backends
watch for two failures of the machinery rather than of the game: a worker that dies (a crash,
the kernel's OOM killer, a lost Ray node) and a game that runs past ``game_timeout_s`` of wall
time (a hang). Either is reported through ``on_retry`` and the game is played again, once by
default (``retries``); a game that fails again comes back with ``error`` naming every attempt,
never dropped. A game that cannot start (a broken tree) is not retried: it would fail the same
way.

The process backend keeps ``workers`` long-lived processes (fork where there is fork), each
fed one game at a time over a pipe, so that a dead or hung worker is known, killed and replaced
without losing the others. The Ray backend (``backend="ray"``) imports ray only when chosen:
a local Ray instance with ``workers`` CPUs, or the cluster at ``address``; at most as many
tasks are in flight as there are workers, so that a game's timeout counts from its start.

On KeyboardInterrupt (Ctrl-C, or SIGTERM turned into one by the CLI) every worker is
terminated (killed after ``STOP_GRACE_S``), a Ray instance started here is shut down, and the
exception goes on to the caller.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import wait as wait_ready
from pathlib import Path
from typing import Any

from soccerbt.cli.outputs import open_exclusive
from soccerbt.log.writer import make_recorder
from soccerbt.match import Match, MatchConfig, MatchResult
from soccerbt.trees import TreeLoadError

__all__ = ["Job", "JobResult", "BACKENDS", "play_game", "play_job", "run_jobs", "BackendError", "RayMissing",
           "RAY_MISSING", "default_game_timeout_s", "STOP_GRACE_S", "import_ray", "worker_signals"]

BACKENDS = ("process", "ray")
RAY_MISSING = "ray is not installed: pip install 'soccerbt[ray]'"
STOP_GRACE_S = 2.0  # a terminated worker gets this long before it is killed


class BackendError(RuntimeError):
    """The backend cannot run games: ray missing, or no Ray cluster at the address."""


class RayMissing(BackendError):
    """The Ray backend was asked for and ray is not installed."""


@dataclass(frozen=True)
class Job:
    """One game to play: its index in the plan, its config, where to record it (or None)."""

    index: int
    config: MatchConfig
    record_path: str | None = None


@dataclass(frozen=True)
class JobResult:
    """What became of a job: the result or the error, the wall time of its last attempt, and
    how many attempts it took."""

    index: int
    result: MatchResult | None
    error: str | None
    wall_s: float
    attempts: int = 1


def default_game_timeout_s(config: MatchConfig) -> float:
    """Wall seconds after which a game counts as hung: two minutes plus its simulated length
    (a whole match: two halves and the break), so a game must run at least at real-time speed.
    Matches run about ten times faster than real time on one core."""
    sim_s = config.duration_s if config.duration_s is not None else 2.0 * config.half_s + 60.0
    return 120.0 + sim_s


def play_game(config: MatchConfig, record_path: str | None = None) -> MatchResult:
    """Play a match headless (``run_match``), recording its replay log to ``record_path`` when
    given. The log is written under a temporary name (created exclusively, unpredictable) and
    renamed over ``record_path`` when the match is over, so a killed worker leaves no file that
    looks complete."""
    match = Match(config)
    recorder = None
    if record_path is not None:
        final = Path(record_path)
        partial, stream = open_exclusive(final.parent, final.stem, ".partial" + final.suffix)
        recorder = make_recorder(str(partial), match, guarded=True, stream=stream)
    try:
        while not match.finished():
            match.step()
    except Exception as exc:  # as run_match: keep the partial result, the batch goes on
        match.errors.append(f"t={match.t_s:.2f}s crash: {type(exc).__name__}: {exc}\n"
                            + "".join(traceback.format_tb(exc.__traceback__)[-3:]))
    result = match.result()
    if recorder is not None:
        recorder.finish(result)
        os.replace(partial, final)
    return result


Play = Callable[[MatchConfig, "str | None"], MatchResult]


def play_job(job: Job, play: Play) -> JobResult:
    """One game in a worker. Never raises: a game that cannot start (a broken tree) comes back
    as its error."""
    start = time.perf_counter()
    try:
        result = play(job.config, job.record_path)
    except Exception as exc:  # TreeLoadError prints path:line: message
        text = str(exc) or type(exc).__name__
        if not isinstance(exc, (TreeLoadError, OSError, ValueError)):  # else a bug: keep where it was
            text = f"{type(exc).__name__}: {text}\n" + "".join(traceback.format_tb(exc.__traceback__)[-3:])
        return JobResult(job.index, None, text, time.perf_counter() - start)
    return JobResult(job.index, result, None, time.perf_counter() - start)


def _failure_text(reasons: list[str]) -> str:
    if len(reasons) == 1:
        return reasons[0]
    return "; ".join(f"attempt {k}: {r}" for k, r in enumerate(reasons, 1))


class _Attempts:
    """The bookkeeping shared by the backends: what is left to play and the failures so far."""

    def __init__(self, jobs: list[Job], retries: int, on_result: Callable[[JobResult], None],
                 on_retry: Callable[[Job, str], None] | None) -> None:
        self.todo: deque[Job] = deque(jobs)
        self.retries = retries
        self.reasons: dict[int, list[str]] = {}
        self.on_result = on_result
        self.on_retry = on_retry

    def finished(self, res: JobResult) -> None:
        attempts = len(self.reasons.get(res.index, ())) + 1
        self.on_result(JobResult(res.index, res.result, res.error, res.wall_s, attempts))

    def failed(self, job: Job, reason: str, wall_s: float) -> None:
        """The worker of `job` died or hung: play it again, or report it failed."""
        reasons = self.reasons.setdefault(job.index, [])
        reasons.append(reason)
        if len(reasons) <= self.retries:
            if self.on_retry is not None:
                self.on_retry(job, reason)
            self.todo.appendleft(job)
            return
        self.on_result(JobResult(job.index, None, _failure_text(reasons), wall_s, len(reasons)))


def run_jobs(jobs: list[Job], workers: int, on_result: Callable[[JobResult], None], *,
             backend: str = "process", address: str | None = None, game_timeout_s: float | None = None,
             retries: int = 1, on_retry: Callable[[Job, str], None] | None = None,
             play: Play | None = None) -> None:
    """Play `jobs` on `workers` workers of `backend`; `on_result` hears of each as it finishes.

    `game_timeout_s` None: no timeout. `play(config, record_path)` plays one game (default
    ``play_game``; tests inject failures through it)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if workers < 1:
        raise ValueError(f"workers must be 1 or more, got {workers}")
    if retries < 0:
        raise ValueError(f"retries must be 0 or more, got {retries}")
    if game_timeout_s is not None and not game_timeout_s > 0:
        raise ValueError(f"the game timeout must be positive, got {game_timeout_s}")
    attempts = _Attempts(jobs, retries, on_result, on_retry)
    if backend == "ray":
        _run_ray(attempts, workers, address, game_timeout_s, play)
    else:
        if address is not None:
            raise ValueError("an address goes with the ray backend")
        _run_processes(attempts, workers, game_timeout_s, play or play_game)


# --- worker processes -------------------------------------------------------------------------------


def worker_signals() -> None:
    """In a worker: Ctrl-C reaches the whole process group, only the parent acts on it; and a
    forked worker inherits the parent's handlers: SDL (pygame, initialised by a viewer or a pad
    in the same process) catches SIGTERM to post a quit event, and terminating the worker would
    then wait forever for one that never dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _worker_main(conn: Any, play: Play) -> None:
    worker_signals()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        conn.send(play_job(job, play))


def _context() -> Any:
    # fork starts workers in milliseconds and shares the imported modules; spawn where there is no fork
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


class _Worker:
    """A worker process, the parent's end of its pipe, and the game it is playing."""

    def __init__(self, ctx: Any, play: Play) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, play), daemon=True, name="soccerbt-batch")
        self.proc.start()
        child.close()
        self.job: Job | None = None
        self.started = 0.0

    def give(self, job: Job) -> None:
        self.job = job
        self.started = time.monotonic()
        self.conn.send(job)

    def stop(self, kill: bool = False) -> None:
        if self.proc.is_alive():
            self.proc.kill() if kill else self.proc.terminate()

    def close(self) -> None:
        self.conn.close()


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"the worker was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"the worker was killed by signal {-code}"
    return f"the worker crashed (exit code {code})"


def _stop_all(workers: list[_Worker]) -> None:
    """Terminate every worker; kill those still there after STOP_GRACE_S; reap them all."""
    for w in workers:
        w.stop()
    deadline = time.monotonic() + STOP_GRACE_S
    for w in workers:
        w.proc.join(max(0.0, deadline - time.monotonic()))
        if w.proc.is_alive():
            w.stop(kill=True)
            w.proc.join(1.0)
        w.close()


def _run_processes(attempts: _Attempts, workers: int, timeout_s: float | None, play: Play) -> None:
    ctx = _context()
    pool: list[_Worker] = []
    try:
        while attempts.todo or any(w.job is not None for w in pool):
            for w in [w for w in pool if w.job is None and not w.proc.is_alive()]:
                _stop_all([w])  # died between games: replaced below
                pool.remove(w)
            for w in pool:  # feed idle workers
                if w.job is None and attempts.todo:
                    w.give(attempts.todo.popleft())
            while attempts.todo and len(pool) < workers:
                w = _Worker(ctx, play)
                pool.append(w)
                w.give(attempts.todo.popleft())
            busy = [w for w in pool if w.job is not None]
            wait_s = None
            if timeout_s is not None:
                now = time.monotonic()
                wait_s = max(0.0, min(w.started + timeout_s for w in busy) - now)
            ready = set(wait_ready([w.conn for w in busy] + [w.proc.sentinel for w in busy], wait_s))
            now = time.monotonic()
            for w in busy:
                job = w.job
                assert job is not None
                reason = None
                if w.conn in ready or w.proc.sentinel in ready:
                    try:
                        if w.conn.poll():
                            res = w.conn.recv()
                            w.job = None
                            attempts.finished(res)
                            continue
                    except (EOFError, OSError):
                        pass
                    w.proc.join(1.0)
                    reason = _exit_text(w.proc.exitcode)
                elif timeout_s is not None and now - w.started >= timeout_s:
                    reason = f"no result after {timeout_s:g} s of wall time (--game-timeout): the worker was stopped"
                if reason is None:
                    continue
                _stop_all([w])
                pool.remove(w)
                attempts.failed(job, reason, now - w.started)
        for w in pool:  # all done: let the workers leave by themselves
            try:
                w.conn.send(None)
            except OSError:
                pass
        for w in pool:
            w.proc.join(STOP_GRACE_S)
    finally:
        _stop_all(pool)


# --- Ray ----------------------------------------------------------------------------------------------


def import_ray() -> Any:
    """ray, or RayMissing with the line that installs it."""
    try:
        # deferred: optional dependency (ray, the ray extra)
        import ray
    except ImportError:
        raise RayMissing(RAY_MISSING) from None
    return ray


def _ray_play(job: Job) -> JobResult:
    return play_job(job, play_game)


def _run_ray(attempts: _Attempts, workers: int, address: str | None, timeout_s: float | None,
             play: Play | None) -> None:
    ray = import_ray()

    started_here = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING,
                                   "include_dashboard": False}
        try:
            if address is not None:
                ray.init(address=address, **options)
            else:
                ray.init(num_cpus=workers, **options)
        except Exception as exc:  # a bad address, no cluster there, a version mismatch
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            raise BackendError(f"cannot start or join {where}: {type(exc).__name__}: {exc}") from None
        started_here = True
    # never more tasks in flight than CPUs: a queued task's timeout would run while it waits
    workers = max(1, min(workers, int(ray.cluster_resources().get("CPU", workers))))
    if play is None:
        remote = ray.remote(num_cpus=1, max_retries=0)(_ray_play)
    else:  # a test's play function
        remote = ray.remote(num_cpus=1, max_retries=0)(lambda job: play_job(job, play))
    in_flight: dict[Any, tuple[Job, float]] = {}
    try:
        while attempts.todo or in_flight:
            while attempts.todo and len(in_flight) < workers:
                job = attempts.todo.popleft()
                in_flight[remote.remote(job)] = (job, time.monotonic())
            wait_s = None
            if timeout_s is not None:
                wait_s = max(0.0, min(t for _, t in in_flight.values()) + timeout_s - time.monotonic())
            done, _ = ray.wait(list(in_flight), num_returns=1, timeout=wait_s)
            now = time.monotonic()
            for ref in done:
                job, started = in_flight.pop(ref)
                try:
                    attempts.finished(ray.get(ref))
                except ray.exceptions.RayError as exc:  # a dead worker or node; play_job never raises
                    attempts.failed(job, f"the Ray worker failed ({type(exc).__name__})", now - started)
            if timeout_s is not None:
                for ref, (job, started) in list(in_flight.items()):
                    if now - started >= timeout_s:
                        ray.cancel(ref, force=True)  # kills the worker process
                        del in_flight[ref]
                        attempts.failed(job, f"no result after {timeout_s:g} s of wall time (--game-timeout): "
                                             "the Ray worker was stopped", now - started)
    finally:
        for ref in in_flight:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001 - stopping anyway
                pass
        if started_here:
            ray.shutdown()
