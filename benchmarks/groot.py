"""What Groot2's monitor costs a match: CPU with ``--groot`` and a client polling statuses.

A 3 v 3 match paced to real time (as Groot2 watches it) runs for ``--seconds`` of wall time in
three ways, interleaved ``--repeats`` times: without Groot2; with a publisher per robot and
nobody connected; with a publisher per robot and one client (a separate process, so its own
CPU is not counted) asking every robot's STATUS at ``--hz`` (Groot2's monitor polls at about
20 Hz). Prints the process CPU per simulated second (every thread: the server threads
included) as medians, and the overhead against the match without Groot2 (goal: under 5 %).

Run:  .venv/bin/python benchmarks/groot.py [--seconds 8] [--repeats 3] [--hz 20] [--robots 1]
"""
from __future__ import annotations

import argparse
import multiprocessing
import random
import socket
import statistics
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from soccerbt.groot.robots import close_all, serve_match  # noqa: E402
from soccerbt.match import Match, MatchConfig  # noqa: E402


def _free_ports(count: int = 12) -> int:
    """A port p with p .. p + count - 1 free on 127.0.0.1 (a robot takes two)."""
    while True:
        base = random.randrange(20000, 60000)
        try:
            for port in range(base, base + count):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base


def _poller(ports: list[int], hz: float, stop: object) -> None:
    """Groot2's polling: every robot's STATUS at `hz` (in a process of its own)."""
    import zmq  # deferred: optional dependency (the groot extra), in the child process only

    ctx = zmq.Context()
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


def _run(mode: str, seconds: float, hz: float, robots: int) -> float:
    """CPU seconds per simulated second of a real-time match in `mode`."""
    match = Match(MatchConfig(team_size=3, seed=1))
    publishers: list = []
    poller = None
    stop = multiprocessing.Event()
    if mode != "off":
        publishers, endpoints = serve_match(match, "127.0.0.1", _free_ports())
        if mode == "polled":
            poller = multiprocessing.Process(target=_poller, args=([e.port for e in endpoints][:robots], hz, stop))
            poller.start()
    for _ in range(100):  # warm up (first ticks, the poller's connections)
        match.step()
    cpu0, wall0, sim0 = time.process_time(), time.perf_counter(), match.world.t_s
    while time.perf_counter() - wall0 < seconds:
        match.step()
        ahead = (match.world.t_s - sim0) - (time.perf_counter() - wall0)
        if ahead > 0:
            time.sleep(ahead)
    cpu = time.process_time() - cpu0
    sim = match.world.t_s - sim0
    stop.set()
    if poller is not None:
        poller.join()
    close_all(publishers)
    return cpu / sim


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="wall seconds per run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--hz", type=float, default=20.0, help="the client's STATUS requests per second per robot")
    parser.add_argument("--robots", type=int, default=1, help="the robots the client polls (of 6)")
    args = parser.parse_args()
    results: dict[str, list[float]] = {"off": [], "served": [], "polled": []}
    for _ in range(args.repeats):
        for mode in results:
            results[mode].append(_run(mode, args.seconds, args.hz, args.robots))
    base = statistics.median(results["off"])
    print("mode     cpu s per sim s  overhead")
    for mode, values in results.items():
        med = statistics.median(values)
        print(f"{mode:<8} {med:15.4f}  {100.0 * (med - base) / base:+7.1f} %")
    print(f"goal: a client polling {args.robots} robot(s)' statuses at {args.hz:g} Hz costs under 5 % of the "
          "match's CPU")


if __name__ == "__main__":
    main()
