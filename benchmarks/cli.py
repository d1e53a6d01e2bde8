"""Start-up time of the command line: `soccerbt --help`, `soccerbt validate` on Booster's game
tree and `soccerbt nodes --xml`, each in a fresh process (issue 16: under 0.3 s wall each).

Baselines measured in the same run, the same way: a bare interpreter, the import of the whole
match stack (``soccerbt.match``: scipy, shapely, pygame, the agent) and the old start-up, which
configured every command before parsing (``build_parser()`` with no argv). Each figure is the
median of --repeats fresh processes, the commands interleaved so that all see the same load.

Two columns: "source" compiles every module at each start (PYTHONDONTWRITEBYTECODE=1, as this
machine's environment is set up, so the worst case), "bytecode" reads a warm bytecode cache
(PYTHONPYCACHEPREFIX in a temporary folder, nothing written into the tree: as an installed
package starts).

    python benchmarks/cli.py [--repeats 5] [--booster ../shared/booster/trees/game.xml]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOSTER_GAME = ROOT.parent / "shared" / "booster" / "trees" / "game.xml"
GOAL_S = 0.3


def _wall_s(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 2):  # --help exits 0; an invalid tree would exit 1
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--booster", default=str(BOOSTER_GAME), help="Booster's game.xml")
    args = parser.parse_args()
    py = [sys.executable]
    commands: dict[str, list[str]] = {
        "python -c pass (interpreter)": py + ["-c", "pass"],
        "import soccerbt.match (baseline)": py + ["-c", "import soccerbt.match"],
        "all commands configured (old)": py + ["-c", "from soccerbt.__main__ import build_parser; "
                                                     "build_parser()"],
        "soccerbt --help": py + ["-m", "soccerbt", "--help"],
        "soccerbt validate game.xml": py + ["-m", "soccerbt", "validate", args.booster],
        "soccerbt nodes --xml": py + ["-m", "soccerbt", "nodes", "--xml"],
    }
    if not Path(args.booster).is_file():
        print(f"{args.booster} missing: validate skipped")
        del commands["soccerbt validate game.xml"]
    cache = tempfile.TemporaryDirectory(prefix="soccerbt-pyc-")
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    envs = {"source": {**base, "PYTHONDONTWRITEBYTECODE": "1"},
            "bytecode": {**base, "PYTHONPYCACHEPREFIX": cache.name}}
    print(f"median of {args.repeats} fresh processes; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}")
    with cache:
        for argv in commands.values():  # fill the bytecode cache
            _wall_s(argv, envs["bytecode"])
        walls = {(name, mode): [] for name in commands for mode in envs}
        for _ in range(args.repeats):
            for name, argv in commands.items():  # interleaved: every command sees the same load
                for mode, env in envs.items():
                    walls[name, mode].append(_wall_s(argv, env))
    med = {key: statistics.median(runs) for key, runs in walls.items()}
    baseline = {mode: med["import soccerbt.match (baseline)", mode] for mode in envs}
    print(f"{'':34} {'source':>8} {'(x match)':>10} {'bytecode':>9} {'(x match)':>10}")
    for name in commands:
        cells = " ".join(f"{med[name, mode]:7.3f}s {f'(x{med[name, mode] / baseline[mode]:.2f})':>10}"
                         for mode in envs)
        goal = ""
        if name.startswith("soccerbt "):
            met = {mode: "met" if med[name, mode] < GOAL_S else "MISSED" for mode in envs}
            goal = f"  goal < {GOAL_S} s: source {met['source']}, bytecode {met['bytecode']}"
        print(f"{name:34} {cells}{goal}")
    print("runs (source): " + "; ".join(f"{name.split(' (')[0]} " + " ".join(f"{w:.3f}" for w in walls[name, 'source'])
                                        for name in commands))

if __name__ == "__main__":
    main()
