"""``soccerbt sim --serve booster --plain blue1`` with no brain of its own: the game clock waits
``--wait-brains`` for the plain robot's brain, says so, then plays on. Prints one JSON object."""
from __future__ import annotations

import time

from _common import Proc, emit, soccerbt


def main() -> None:
    started = time.monotonic()
    sim = Proc(soccerbt("sim", "--serve", "booster", "--plain", "blue1", "--no-referee", "--team-size", "1",
                        "--seconds", "2", "--speed", "max", "--wait-brains", "1.5", "--json", "--no-fastdds-relay"))
    sim.wait(60)  # it ends by itself after its two seconds
    code = sim.finish(5)
    emit({"sim": sim.last_json(), "sim_exit": code, "sim_stderr": sim.stderr[-3000:],
          "wall_s": time.monotonic() - started})


if __name__ == "__main__":
    main()
