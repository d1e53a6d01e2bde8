"""The --connect client's and the --live server's limits against hostile peers (issue 39), timed.

- how long the client takes to give up on a server that trickles its WebSocket handshake a byte at
  a time (the connect timeout is the limit; the tests assert only that it gave up and said why);
- subscribing to every channel of one advertise of 4,096 channels (a set: linear), against the
  membership scan the client used before (``cid in dict.values()``: quadratic);
- the client's memory when a server floods one second with 1 MiB messages: the process's peak
  resident size before and after, with the byte budget given (``--buffer-mb``);
- what the --live server's connection gate costs: the CPU of a streamed 3 v 3 match with one
  client through the gate and straight to foxglove-sdk's server, interleaved (``--gate-runs``).

Prints figures (medians of ``--repeats``).
"""
from __future__ import annotations

import argparse
import resource
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "live"))

from test_hostile_stream import HostileServer, _advertise, _header_bytes, _message  # noqa: E402

from soccerbt.live.client import LiveLog  # noqa: E402
from soccerbt.live.ws_client import ConnectionClosed, FoxgloveClient  # noqa: E402
from soccerbt.log import format as lf  # noqa: E402
from soccerbt.log.format import ReplayError  # noqa: E402


def give_up_s(timeout_s: float) -> float:
    stop = threading.Event()

    def trickle(conn: object) -> None:
        for byte in b"HTTP/1.1 101 Switching Protocols\r\n" * 20:
            if stop.wait(0.2):
                return
            conn.sendall(bytes((byte,)))  # type: ignore[attr-defined]

    server = HostileServer(trickle, handshake=False)
    start = time.perf_counter()
    try:
        FoxgloveClient("127.0.0.1", server.port, timeout_s=timeout_s)
    except ConnectionClosed:
        pass
    took = time.perf_counter() - start
    stop.set()
    server.join()
    return took


def subscribe_s(n: int) -> tuple[float, float]:
    ids = list(range(1, n + 1))
    subscribed: dict[int, int] = {}
    start = time.perf_counter()
    for cid in ids:  # what FoxgloveClient.subscribe does now
        if cid in subscribed:
            continue
        subscribed[cid] = cid
    linear = time.perf_counter() - start
    subscriptions: dict[int, int] = {}
    start = time.perf_counter()
    for cid in ids:  # what it did before
        if cid in subscriptions.values():
            continue
        subscriptions[cid] = cid
    quadratic = time.perf_counter() - start
    return linear, quadratic


def flood_peak_mb(cap_mb: int, messages: int) -> tuple[float, float, str]:
    header = _header_bytes()
    megabyte = b"x" * (1 << 20)

    def flood(conn: object) -> None:
        conn.sendall(_advertise([(1, lf.HEADER_TOPIC), (2, "/junk")]))  # type: ignore[attr-defined]
        conn.recv(4096)  # type: ignore[attr-defined]
        conn.sendall(_message(1, 0, header))  # type: ignore[attr-defined]
        for _ in range(messages):
            conn.sendall(_message(2, 10_000_000, megabyte))  # type: ignore[attr-defined]

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    server = HostileServer(flood)
    why = ""
    try:
        LiveLog.connect("127.0.0.1", server.port, wait_s=30.0, max_buffer_bytes=cap_mb << 20)
    except ReplayError as exc:
        why = str(exc)
    server.join()
    return before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, why


def gate_cost(runs: int, seconds: float) -> tuple[list[float], list[float]]:
    """CPU seconds of a streamed match with one client, through the gate and without it."""
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import replay as bench

    import soccerbt.live.server as server

    class NoGate:  # the client reaches the SDK's server directly
        def __init__(self, host: str, port: int, upstream_port: int, **_kw: object) -> None:
            self.port, self.refused = upstream_port, 0

        def close(self) -> None:
            return None

    gate = server.ConnectionGate
    through, straight = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            for cls, out in ((gate, through), (NoGate, straight)):
                server.ConnectionGate = cls  # type: ignore[misc]
                out.append(bench._live_cpu_s("live-client", seconds, 1, Path(tmp) / "x.mcap"))
    server.ConnectionGate = gate  # type: ignore[misc]
    return through, straight


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--gate-runs", type=int, default=5, help="streamed matches each way (0: none)")
    args = parser.parse_args()
    for timeout_s in (1.0, 2.0):
        runs = [give_up_s(timeout_s) for _ in range(args.repeats)]
        print(f"handshake trickled a byte every 0.2 s: gave up after {statistics.median(runs):.2f} s "
              f"(timeout {timeout_s:g} s; before: never, while bytes kept coming)")
    for n in (4096, 16384):
        runs = [subscribe_s(n) for _ in range(args.repeats)]
        lin, quad = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        print(f"subscribing to {n} channels: {lin * 1000:.2f} ms (before: {quad * 1000:.0f} ms, x{quad / lin:.0f})")
    before, after, why = flood_peak_mb(64, 1500)
    print(f"1,500 messages of 1 MiB in one second, budget 64 MiB: peak RSS {before:.0f} -> {after:.0f} MB; "
          f"{why.split(': ', 1)[-1]}")
    if args.gate_runs:
        through, straight = gate_cost(args.gate_runs, 30.0)
        g, n = statistics.median(through), statistics.median(straight)
        print(f"--live with one client, 30 s 3 v 3: {g:.2f} s CPU through the gate, {n:.2f} s straight to the SDK "
              f"(x{g / n:.3f}; medians of {args.gate_runs}, interleaved)")


if __name__ == "__main__":
    main()
