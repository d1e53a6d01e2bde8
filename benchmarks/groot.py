"""What Groot2's monitor costs a match: CPU with ``--groot`` and a client polling statuses.

A 3 v 3 match paced to real time (as Groot2 watches it) runs for ``--seconds`` of wall time in
four ways, interleaved ``--repeats`` times: without Groot2; without Groot2 but with the polling
client's process busy beside it (it asks a server of its own: what the machine's load alone
does to the match's CPU); with a publisher per robot and nobody connected; with a publisher
per robot and one client (a separate process, so its own CPU is not counted) asking the STATUS
of ``--robots`` robots (one: Groot2 watches one tree) at ``--hz`` (Groot2's monitor polls at
about 20 Hz). Prints the CPU per simulated second of the match's own thread (where the
status observers run) and of the process's other threads (the publishers' server threads and
ZeroMQ's I/O) as medians, and the total's overhead against the match without Groot2 (goal:
under 5 %).

Run:  .venv/bin/python benchmarks/groot.py [--seconds 8] [--repeats 3] [--hz 20] [--robots 1]
"""
from __future__ import annotations

import argparse
import multiprocessing
import statistics
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from soccerbt.groot.robots import close_all, serve_match  # noqa: E402
from soccerbt.groot.sockets import free_port_range  # noqa: E402
from soccerbt.match import Match, MatchConfig  # noqa: E402

# the client runs in a process started afresh: a forked child would inherit the publishers'
# ZeroMQ contexts, which libzmq does not allow
_SPAWN = multiprocessing.get_context("spawn")
WARM_UP_S = 6.0  # beyond the 5 s heartbeat


def _poller(ports: list[int], hz: float, stop: object, own_server: bool = False) -> None:
    """Groot2's polling: every robot's STATUS at `hz` (in a process of its own). With
    `own_server` the replies come from a thread of this process instead (the "neighbour" mode:
    the same load on the machine, nothing asked of the match)."""
    import threading  # deferred: the child process only

    import zmq  # deferred: optional dependency (the groot extra), in the child process only

    ctx = zmq.Context()
    if own_server:
        echo = ctx.socket(zmq.REP)
        ports = [echo.bind_to_random_port("tcp://127.0.0.1")]

        def answer() -> None:
            while True:
                try:
                    request = echo.recv_multipart()
                    echo.send_multipart([request[0] + bytes(16), bytes(405)])
                except zmq.ZMQError:  # the context ends (term() below): this thread closes its socket
                    echo.close(0)
                    return

        threading.Thread(target=answer, daemon=True).start()
    socks = []
    for port in ports:
        s = ctx.socket(zmq.REQ)
        s.connect(f"tcp://127.0.0.1:{port}")
        socks.append(s)
    period = 1.0 / hz
    next_t = time.monotonic()
    while not stop.is_set():  # type: ignore[attr-defined]
        for s in socks:
            s.send_multipart([bytes([2, ord("S")]) + struct.pack("<I", 1)])
            s.recv_multipart()
        next_t += period
        time.sleep(max(0.0, next_t - time.monotonic()))
    for s in socks:
        s.close(0)
    ctx.term()


def _run(mode: str, seconds: float, hz: float, robots: int) -> tuple[float, float]:
    """CPU seconds per simulated second of a real-time match in `mode`: the match's own thread,
    and every other thread of the process (the publishers' server threads, ZeroMQ's I/O)."""
    match = Match(MatchConfig(team_size=3, seed=1))
    publishers: list = []
    poller = None
    stop = _SPAWN.Event()
    if mode in ("served", "polled"):
        publishers, endpoints = serve_match(match, "127.0.0.1", free_port_range(12))
        if mode == "polled":
            poller = _SPAWN.Process(target=_poller, args=([e.port for e in endpoints][:robots], hz, stop))
            poller.start()
    if mode == "neighbour":
        poller = _SPAWN.Process(target=_poller, args=([0] * robots, hz, stop, True))
        poller.start()
    # warm up at real-time pace for longer than the heartbeat's delay: the publishers nobody asks
    # have stopped following their trees, as in a match Groot2 watches one robot of
    start, sim_start = time.perf_counter(), match.world.t_s
    while time.perf_counter() - start < WARM_UP_S:
        match.step()
        ahead = (match.world.t_s - sim_start) - (time.perf_counter() - start)
        if ahead > 0:
            time.sleep(ahead)
    cpu0, main0, wall0, sim0 = time.process_time(), time.thread_time(), time.perf_counter(), match.world.t_s
    while time.perf_counter() - wall0 < seconds:
        match.step()
        ahead = (match.world.t_s - sim0) - (time.perf_counter() - wall0)
        if ahead > 0:
            time.sleep(ahead)
    main = time.thread_time() - main0
    others = time.process_time() - cpu0 - main
    sim = match.world.t_s - sim0
    stop.set()
    if poller is not None:
        poller.join()
    close_all(publishers)
    return main / sim, others / sim


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="wall seconds per run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--hz", type=float, default=20.0, help="the client's STATUS requests per second per robot")
    parser.add_argument("--robots", type=int, default=1, help="the robots the client polls (of 6)")
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float]]] = {"off": [], "neighbour": [], "served": [], "polled": []}
    for _ in range(args.repeats):
        for mode in results:
            results[mode].append(_run(mode, args.seconds, args.hz, args.robots))
    base = statistics.median(m for m, _ in results["off"])
    print("CPU seconds per simulated second (medians): the match's thread, the other threads; the total's "
          "overhead against the match without Groot2")
    print("mode       match thread  other threads   overhead   runs (match thread + other threads)")
    for mode, values in results.items():
        main = statistics.median(m for m, _ in values)
        others = statistics.median(o for _, o in values)
        runs = " ".join(f"{m:.3f}+{o:.3f}" for m, o in values)
        print(f"{mode:<10} {main:12.4f} {others:14.4f} {100.0 * (main + others - base) / base:+9.1f} %   {runs}")
    print("the match thread varies from run to run with the machine's load (compare 'neighbour' with 'off'); "
          "the other threads are what the publishers themselves spend")
    print(f"goal: a client polling {args.robots} robot(s)' statuses at {args.hz:g} Hz costs under 5 % of the "
          "match's CPU")


if __name__ == "__main__":
    main()
