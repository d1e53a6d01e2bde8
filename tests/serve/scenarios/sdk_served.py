"""The vendor SDK against ``soccerbt sim --serve booster --plain blue1 --no-referee
--team-size 1``: the simulator and the SDK (sdk_walker.py) in two processes of this namespace.
When the SDK is done, the simulator gets SIGTERM and prints its summary.
Prints {"sdk": ..., "sim": summary, "sim_exit": code}. Arguments: speed walk_s head_s pitch yaw."""
from __future__ import annotations

from _common import Proc, emit, script, soccerbt


def main() -> None:
    import sys

    speed, walk_s, head_s, pitch, yaw = sys.argv[1:6]
    sim = Proc(soccerbt("sim", "--serve", "booster", "--plain", "blue1", "--no-referee", "--team-size", "1",
                        "--speed", speed, "--seconds", "600", "--json", "--quiet", "--seed", "3"))
    sdk = Proc(script("sdk_walker.py", walk_s, head_s, pitch, yaw))
    result = sdk.next_json(60)
    sdk.finish(5)
    code = sim.finish(15)
    emit({"sdk": result, "sim": sim.last_json(), "sim_exit": code, "sim_stderr": sim.stderr[-3000:],
          "sdk_stderr": sdk.stderr[-2000:]})


if __name__ == "__main__":
    main()
