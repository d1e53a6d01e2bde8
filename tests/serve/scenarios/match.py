"""A match of processes: ``soccerbt sim --serve booster --spawn`` (the simulator and one
``soccerbt brain`` per robot), while this scenario listens, as one more player would, to the
GameController packets the referee broadcasts on this host (the game states they carry, in
order). Prints {"summary", "brains" (every brain's exit report), "states", "packets",
"sim_exit", "stderr"}. Arguments: the sim's options (team size, seconds, speed, seed...)."""
from __future__ import annotations

import json
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import Proc, emit, soccerbt

from soccerbt.gamecontroller.protocol import GameState, decode


def listen(port: int, states: list[list], counts: dict[str, int], stop: threading.Event) -> None:
    """Every packet on ``port``: ``states`` gets [state, wall seconds since the first packet] at
    each change of the game state."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("", port))
    sock.settimeout(0.2)
    first = None
    while True:
        try:
            data = sock.recv(2048)
        except TimeoutError:
            if stop.is_set():  # the simulator has ended and nothing is left to read
                break
            continue
        counts["packets"] += 1
        if first is None:
            first = time.monotonic()
        try:
            state = GameState(decode(data).state).name
        except Exception:  # counted, not ours to judge here
            counts["undecoded"] += 1
            continue
        if not states or states[-1][0] != state:
            states.append([state, round(time.monotonic() - first, 2)])
    sock.close()


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="soccerbt-serve-match-"))
    reports = tmp / "brains.json"
    states: list[list] = []
    counts = {"packets": 0, "undecoded": 0}
    stop = threading.Event()
    listener = threading.Thread(target=listen, args=(3838, states, counts, stop), daemon=True)
    listener.start()
    sim = Proc(soccerbt("sim", "--serve", "booster", "--spawn", "--json", "--quiet", "--brain-reports", str(reports),
                        "--brain-logs", str(tmp / "logs"), *sys.argv[1:]))
    code = sim.wait(300)
    if code is None:
        code = sim.finish(10)
    else:
        sim.finish(10)
    stop.set()
    listener.join(timeout=2)
    try:
        brains = json.loads(reports.read_text())
    except (OSError, ValueError) as exc:
        brains = {"error": str(exc)}
    logs = {p.stem: p.read_text(errors="replace")[-1500:] for p in sorted((tmp / "logs").glob("*.log"))}
    emit({"summary": sim.last_json(), "brains": brains, "states": states, "packets": counts, "sim_exit": code,
          "stderr": sim.stderr[-3000:], "brain_logs": logs})


if __name__ == "__main__":
    main()
