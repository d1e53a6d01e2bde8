"""The replay log: recording overhead, log size, opening, seeking, deriving and the tree panel.

Prints, in one run (medians; CPU seconds of this process, the fair measure on a shared machine):
  - recording overhead: the same seeded 3 v 3 match stepped without and with the MCAP recorder,
    alternated --repeats times (goal: the default recording at most +15% CPU), with the compiled
    hot paths (soccerbt.native) and with their pure-Python twins (SOCCERBT_NATIVE=0, in a child
    process): the default, full recording (every node's status, the blackboard with its
    writers, the reasons, the commands, the scene and the brains' inputs), the opt-in
    inputs-only recording (--record-mode inputs), and the engine's status stream alone (every
    tree watched through Tree.start_status_log, nothing written); as medians, as medians of each
    repeat's ratio to its own unrecorded run, and interleaved (an unrecorded, a full and an
    inputs-only copy of the match stepped in turn in one process, each step's CPU charged to its
    copy: the steadiest figure on a noisy machine);
  - log size per robot-minute of the default recording (goal: at most 0.8 MB), and what each
    channel takes of it;
  - opening a whole match log (goal: under 2 s for a 20-minute 3 v 3 match: --seconds 1200);
  - seeking to a random step and rebuilding one robot's tree and blackboard there (goal: 50 ms);
  - drawing the tree panel for Booster's game tree (stub leaves, the PLAY branch; goal 5 ms);
  - the brains' inputs (/match/inputs, what --rerun feeds): recording with and without them;
  - the live stream (--live): the match with a stream nobody watches, with one client reading
    everything (in another process: its CPU is not counted, the server's threads are), and
    recording and streaming at once, against the match alone (needs foxglove-sdk: the live extra);
  - reading an inputs-only log (--record-mode inputs): every brain re-run (derived) as it opens,
    in one process and in one per core, against the match's own time.

    python benchmarks/replay.py                  # a 300 s match
    python benchmarks/replay.py --seconds 1200   # a whole 20-minute match (takes minutes)
    python benchmarks/replay.py --only live      # only the inputs' and the live stream's costs
    python benchmarks/replay.py --only overhead --instructions   # the overhead in instructions
    python benchmarks/replay.py --only size      # the log's size, channel by channel, opening, seeking
    python benchmarks/replay.py --only derive    # reading an inputs-only log

The CPU time of a match varies by several percent from run to run on a shared machine, more than
some of the costs measured here. ``--instructions`` counts instructions instead (valgrind's
callgrind, Debian's ``valgrind``; deterministic: one run of each is enough, about a minute each):
each mode runs for 3 s and for 0.5 s after the same warm-up, and the difference is the cost of
2.5 simulated seconds, imports and warm-up left out.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soccerbt.log.reader import McapLog  # noqa: E402
from soccerbt.log.writer import make_recorder  # noqa: E402
from soccerbt.match import Match, MatchConfig  # noqa: E402

BOOSTER = ROOT.parent / "shared" / "booster"


class _Drain:
    """Empties the status logs every step: the status stream's cost without a recorder."""

    def __init__(self, logs: list[list]) -> None:
        self.logs = logs

    def on_step(self, match: Match) -> None:
        for log in self.logs:
            log.clear()


def _match_cpu_s(mode: str, seconds: float, seed: int, out: Path) -> float:
    match = Match(MatchConfig(seed=seed, duration_s=seconds + 5.0))
    recorder = None
    if mode == "record":
        recorder = make_recorder(out, match)
    elif mode == "inputs":  # the inputs-only log (--record-mode inputs: an opt-in)
        recorder = make_recorder(out, match, node_data=False)
    elif mode == "stream":
        match.observers.append(_Drain([a.tree.start_status_log() for a in match.agents.values()]))
    match.run(2.0)  # warm-up: imports, first plans, the first chunk
    start = time.process_time()
    match.run(seconds)
    cpu = time.process_time() - start
    if recorder is not None:
        recorder.finish(match.result())
    return cpu


def _interleaved_cpu_s(seconds: float, seed: int, folder: Path) -> dict[str, float]:
    """CPU seconds of three copies of one seeded 3 v 3 stepped in turn, step by step, in this
    process: unrecorded, the inputs-only recording and the default, full one. Each step's CPU time is
    charged to its copy, so a slower or faster spell of the machine falls on all three alike
    (they share the caches too, which makes every step slower than a match alone: the ratios
    are the figure). The objects of the warm-up are frozen out of the collector's scans (gc.freeze),
    so that one copy's collections do not walk the others' objects."""
    import gc

    matches = {}
    recorders = []
    for mode in ("plain", "inputs", "full"):
        match = Match(MatchConfig(seed=seed, duration_s=seconds + 5.0))
        if mode != "plain":
            recorders.append((make_recorder(folder / f"{mode}.mcap", match, node_data=mode == "full"), match))
        matches[mode] = match
    for match in matches.values():
        match.run(2.0)
    gc.collect()
    gc.freeze()
    spent = dict.fromkeys(matches, 0)
    order = list(matches.items())
    clock = time.process_time_ns
    for i in range(int(round(seconds / 0.01))):
        for mode, match in order if i % 2 == 0 else order[::-1]:  # each goes first every other step
            start = clock()
            match.step()
            spent[mode] += clock() - start
    for recorder, match in recorders:
        recorder.finish(match.result())
    gc.unfreeze()
    return {mode: ns / 1e9 for mode, ns in spent.items()}


def _live_cpu_s(mode: str, seconds: float, seed: int, out: Path) -> float:
    """CPU seconds of a 3 v 3 match: "plain", "record", "record-no-inputs" (the brains' inputs
    left out), "live-idle" (streamed, no client), "live-client" (one client in another process
    reading everything), "record+live" (recorded and streamed to one client)."""
    import subprocess

    from soccerbt.live.server import LiveStream, live_recorder

    match = Match(MatchConfig(seed=seed, duration_s=seconds + 5.0))
    recorder = stream = client = None
    if mode == "record-no-inputs":
        for agent in match.agents.values():
            agent.spec = None  # no brain description: the recorder leaves the inputs out
    if mode in ("live-idle", "live-client", "record+live"):
        stream = LiveStream("127.0.0.1", 0)
    if mode in ("record", "record-no-inputs", "record+live"):
        recorder = make_recorder(out, match, tap=stream.tap if stream is not None else None)
    elif stream is not None:
        recorder = live_recorder(match, stream)
    if mode in ("live-client", "record+live"):
        code = ("import sys; from soccerbt.live.ws_client import FoxgloveClient, ConnectionClosed\n"
                "c = FoxgloveClient('127.0.0.1', int(sys.argv[1]), timeout_s=None)\n"
                "try:\n    for _ in c.events(): pass\nexcept (ConnectionClosed, OSError): pass\n")
        client = subprocess.Popen([sys.executable, "-c", code, str(stream.port)], cwd=ROOT)
        time.sleep(1.5)  # connected before the warm-up's first messages
    match.run(2.0)  # warm-up: imports, first plans, the first chunk
    start = time.process_time()
    match.run(seconds)
    cpu = time.process_time() - start
    if recorder is not None:
        recorder.finish(match.result())
    if stream is not None:
        stream.close()
    if client is not None:
        client.wait(30)
    return cpu


def live_costs(seconds: float, repeats: int) -> None:
    modes = ("plain", "record-no-inputs", "record", "live-idle", "live-client", "record+live")
    runs: dict[str, list[float]] = {mode: [] for mode in modes}
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            for mode in modes:
                out = Path(tmp) / f"{mode}.mcap"
                runs[mode].append(_live_cpu_s(mode, seconds, 1, out))
                if out.exists():
                    sizes[mode] = out.stat().st_size
    base = statistics.median(runs["plain"])
    print(f"inputs and live stream, 3 v 3, {seconds:g} s simulated, median of {repeats} (CPU s of this process):")
    for mode, values in runs.items():
        med = statistics.median(values)
        print(f"  {mode:17s} {med:7.2f} s  x{med / base:5.3f}  ({', '.join(f'{v:.2f}' for v in values)})")
    rec, no_inputs = statistics.median(runs["record"]), statistics.median(runs["record-no-inputs"])
    print(f"  the brains' inputs: +{(rec / no_inputs - 1) * 100:.1f}% CPU over recording without them, log "
          f"{sizes.get('record-no-inputs', 0) / 1e6:.2f} -> {sizes.get('record', 0) / 1e6:.2f} MB")
    idle, one = statistics.median(runs["live-idle"]), statistics.median(runs["live-client"])
    both = statistics.median(runs["record+live"])
    print(
        f"  live stream: +{(idle / base - 1) * 100:.1f}% with no client, +{(one / base - 1) * 100:.1f}% with one "
        f"client (over the match alone); recording and streaming +{(both / base - 1) * 100:.1f}%"
    )


def _child_cpu_s(mode: str, seconds: float, native: bool) -> float:
    """_match_cpu_s in a child process, with or without the compiled hot paths (chosen at import)."""
    import subprocess

    env = dict(os.environ, SOCCERBT_NATIVE="1" if native else "0")
    out = subprocess.run([sys.executable, __file__, "--one", mode, "--overhead-seconds", str(seconds)],
                         env=env, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def _child_instructions(mode: str, seconds: float, native: bool) -> int:
    """Instructions (callgrind's Ir) of a child process running `mode` for `seconds` after the warm-up."""
    import re
    import subprocess

    env = dict(os.environ, SOCCERBT_NATIVE="1" if native else "0", PYTHONHASHSEED="0")
    run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
                          "--one", mode, "--overhead-seconds", str(seconds)],
                         env=env, cwd=ROOT, check=True, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count: {run.stderr[-500:]}")
    return int(found.group(1))


def overhead_instructions() -> None:
    """The recording overhead in instructions: each mode at 3 s minus at 0.5 s (see the docstring)."""
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    from soccerbt.native import recording

    if shutil.which("valgrind") is None:
        print("recording overhead in instructions: not measured (no valgrind: apt-get install valgrind)")
        return
    modes = {"plain": ("plain", True), "stream": ("stream", True), "record": ("record", True),
             "inputs": ("inputs", True), "record-python": ("record", False)}
    with ThreadPoolExecutor(max_workers=2) as pool:  # two children at once (a core each)
        jobs = {(mode, sec): pool.submit(_child_instructions, what, sec, native)
                for mode, (what, native) in modes.items() for sec in (3.0, 0.5)}
        ir = {mode: jobs[(mode, 3.0)].result() - jobs[(mode, 0.5)].result() for mode in modes}
    print(f"recording overhead in instructions, 3 v 3, 2.5 s simulated (callgrind; soccerbt.native "
          f"{'built' if recording is not None else 'NOT built'}):")
    _report(ir, {mode: f"{value / 1e6:8.1f} M" for mode, value in ir.items()}, ir["plain"], "{:+.1f}")


def overhead(seconds: float, repeats: int) -> None:
    """Every mode in a child process of its own (the same start for each: imports, caches)."""
    from soccerbt.native import recording

    modes = {"plain": ("plain", True), "stream": ("stream", True), "record": ("record", True),
             "inputs": ("inputs", True), "plain-python": ("plain", False), "record-python": ("record", False)}
    runs: dict[str, list[float]] = {mode: [] for mode in modes}
    order = list(modes)
    for r in range(repeats):  # each repeat starts one mode later: no mode always runs first
        for mode in order[r % len(order):] + order[:r % len(order)]:
            what, native = modes[mode]
            runs[mode].append(_child_cpu_s(what, seconds, native))
    med = {mode: statistics.median(values) for mode, values in runs.items()}
    print(f"recording overhead, 3 v 3, {seconds:g} s simulated, median of {repeats} (CPU s; "
          f"soccerbt.native {'built' if recording is not None else 'NOT built: both rows are Python'}):")
    _report(
        med,
        {mode: f"{med[mode]:7.2f} s  ({', '.join(f'{v:.2f}' for v in values)})" for mode, values in runs.items()},
        med["plain"],
        "{:+.0f}",
        python_base=med["plain-python"],
    )
    # the machine's speed drifts over minutes: each repeat's runs against that repeat's own unrecorded run
    paired = {
        mode: statistics.median(
            runs[mode][r] / runs["plain-python" if mode.endswith("python") else "plain"][r] for r in range(repeats)
        )
        for mode in ("stream", "record", "inputs", "record-python")
    }
    print("  paired (each repeat's run over the same repeat's unrecorded one, median): " + ", ".join(
        f"{mode} {(ratio - 1) * 100:+.0f}%" for mode, ratio in paired.items()) + " (the default recording: record)")
    interleaved(seconds, repeats)


def interleaved(seconds: float, repeats: int) -> None:
    """The recording overhead with the copies stepped in turn (``_interleaved_cpu_s``), each
    repeat in a child process of its own: the steadiest CPU figure on a noisy machine."""
    import json
    import subprocess

    ratios: dict[str, list[float]] = {"inputs": [], "full": []}
    for _ in range(repeats):
        out = subprocess.run([sys.executable, __file__, "--one", "interleaved", "--overhead-seconds", str(seconds)],
                             cwd=ROOT, check=True, capture_output=True, text=True).stdout
        cpu = json.loads(out.splitlines()[-1])
        for mode in ratios:
            ratios[mode].append(cpu[mode] / cpu["plain"])
    print(f"  interleaved (the three stepped in turn in one process, {repeats} processes, median): the default, "
          f"full recording {(statistics.median(ratios['full']) - 1) * 100:+.1f}% "
          f"({', '.join(f'{(r - 1) * 100:+.1f}' for r in ratios['full'])}; goal at most +15%), the inputs-only "
          f"opt-in {(statistics.median(ratios['inputs']) - 1) * 100:+.1f}%")


def _report(values: dict[str, float], shown: dict[str, str], base: float, pct: str,
            python_base: float | None = None) -> None:
    """Each mode's figure and ratio to `base`, then the overheads (the Python recorder's against
    `python_base` when given, else `base`)."""
    for mode, text in shown.items():
        print(f"  {mode:13s} {text}  x{values[mode] / base:5.3f}")
    python = values["record-python"] / (python_base or base) - 1
    print(f"  status stream alone {pct.format((values['stream'] / base - 1) * 100)}%; the default, full recording: "
          f"compiled {pct.format((values['record'] / base - 1) * 100)}% (goal at most +15%), pure Python "
          f"{pct.format(python * 100)}%; the inputs-only opt-in {pct.format((values['inputs'] / base - 1) * 100)}%")


def record(seconds: float, path: Path) -> float:
    match = Match(MatchConfig(seed=1, duration_s=seconds))
    recorder = make_recorder(path, match)
    start = time.perf_counter()
    while not match.finished():
        match.step()
    recorder.finish(match.result())
    return time.perf_counter() - start


def channel_sizes(path: Path) -> None:
    """What each channel of a log takes of its size: its messages compressed on their own in
    1 MiB runs (zstd level 3, as the log's chunks), and the MCAP framing and index of its
    messages (31 bytes a message record, 16 of index)."""
    import zstandard

    log = McapLog.open(path)
    data: dict[str, list[bytes]] = {}
    for topic, _step, payload in log.messages(0, None):
        data.setdefault(topic if not topic.startswith("/robots/") else "/robots/*/" + topic.rsplit("/", 1)[1],
                        []).append(payload)
    robot_minutes = len(log.robots) * log.duration_s / 60.0
    z = zstandard.ZstdCompressor(level=3)
    print("  by channel (MB per robot-minute: its messages zstd-compressed, + framing and index):")
    for topic, messages in sorted(data.items(), key=lambda kv: -sum(map(len, kv[1]))):
        packed, run = 0, b""
        for m in messages:
            run += m
            if len(run) > 1 << 20:
                packed, run = packed + len(z.compress(run)), b""
        packed += len(z.compress(run)) if run else 0
        print(f"    {topic:24s} {len(messages):7d} messages  {packed / 1e6 / robot_minutes:6.3f} "
              f"+ {47 * len(messages) / 1e6 / robot_minutes:5.3f}")


def opening_and_seeking(path: Path, repeats: int) -> None:
    size = path.stat().st_size
    opens = []
    for _ in range(repeats):
        start = time.perf_counter()
        log = McapLog.open(path)
        opens.append(time.perf_counter() - start)
    robot_minutes = len(log.robots) * log.duration_s / 60.0
    print(f"log: {size / 1e6:.1f} MB, {log.last_step} steps, {len(log.robots)} robots, {len(log.chunks)} chunks")
    print(f"  size per robot-minute: {size / 1e6 / robot_minutes:.3f} MB (goal 0.8)")
    channel_sizes(path)
    print(f"  open: {statistics.median(opens) * 1e3:.1f} ms median of {repeats} (goal 2 s)")
    rng = random.Random(7)
    seeks = []
    for _ in range(30):
        fresh = McapLog.open(path)  # cold: no decoded chunk cached
        step = rng.randint(1, log.last_step)
        robot = rng.choice(log.robots)
        start = time.perf_counter()
        fresh.robot_state(robot, step)
        fresh.step_view(step)
        seeks.append(time.perf_counter() - start)
    print(f"  seek to a random step (one robot's tree and blackboard, the step's truth): "
          f"median {statistics.median(seeks) * 1e3:.1f} ms, max {max(seeks) * 1e3:.1f} ms (goal 50 ms)")


def deriving(seconds: float, repeats: int) -> None:
    """An inputs-only log (--record-mode inputs) of a `seconds` 3 v 3: the match recorded, then
    read (one robot's tree at the end), derived as it opens: in one process, then in one per
    core (derive_procs)."""
    import io

    from soccerbt.resim.derive import derived_for_reading
    from soccerbt.resim.derive_procs import PROCESSES_ENV, default_processes

    def read(path: Path) -> float:
        start = time.perf_counter()
        log = derived_for_reading(McapLog.open(path), None, io.StringIO())
        log.robot_state(log.robots[0], log.last_step)
        log.close()
        return time.perf_counter() - start

    cores = default_processes(6)
    runs: dict[str, list[float]] = {"play": [], "one": [], "cores": []}
    saved = os.environ.get(PROCESSES_ENV)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for k in range(repeats):
                path = Path(tmp) / f"inputs{k}.mcap"
                match = Match(MatchConfig(seed=1, duration_s=seconds))
                recorder = make_recorder(path, match, node_data=False)
                start = time.perf_counter()
                match.run(seconds)
                runs["play"].append(time.perf_counter() - start)
                recorder.finish(match.result())
                os.environ[PROCESSES_ENV] = "1"
                runs["one"].append(read(path))
                os.environ[PROCESSES_ENV] = str(cores)
                runs["cores"].append(read(path))
        finally:
            if saved is None:
                os.environ.pop(PROCESSES_ENV, None)
            else:
                os.environ[PROCESSES_ENV] = saved
    play, one, many = (statistics.median(runs[k]) for k in ("play", "one", "cores"))
    print(f"reading an inputs-only log (the opt-in), 3 v 3, {seconds:g} s simulated, median of {repeats} (wall s):")
    print(f"  the match recorded           {play:6.2f} s")
    print(f"  reading it, 1 process        {one:6.2f} s  x{one / play:5.2f} of the match  (every brain re-run)")
    print(f"  reading it, {cores} processes      {many:6.2f} s  x{many / play:5.2f} of the match, "
          f"{one / many:4.2f} times faster than in 1")


def tree_panel(frames: int) -> None:
    if not (BOOSTER / "trees" / "game.xml").exists():
        print("tree panel: ../shared/booster missing, skipped")
        return
    import pygame

    from soccerbt.log.reader import RobotState
    from soccerbt.nodes.stubs import register_stub_nodes
    from soccerbt.tools.viewer.tree_panel import TreePanel
    from soccerbt.trees import TreeFactory
    from soccerbt.trees.structure import describe_tree

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from tick import PLAY

    factory = TreeFactory()
    register_stub_nodes(factory, BOOSTER / "nodes.json")
    tree = factory.create_tree_from_file(str(BOOSTER / "trees" / "game.xml"))
    bb = tree.root_blackboard()
    for key, value in PLAY.items():
        bb[key] = value
    log = tree.start_status_log()
    tree.tick_exactly_once()
    tree.tick_exactly_once()
    description = describe_tree(tree)
    statuses = {n.uid: n.node_status.code for n in tree.nodes()}
    state = RobotState("blue1", 2, description, statuses, ticked=[n.uid for n in tree.env.ticked],
                       blackboard={k: [v, "adapter"] for k, v in PLAY.items()}, changed=["decision"])
    pygame.init()
    surface = pygame.Surface((480, 820))
    panel = TreePanel()
    times = []
    for expand in (False, True):
        if expand:  # every subtree unfolded: the most rows
            panel.opened = {row["uid"] for row in description["nodes"] if row["kind"] == "SubTree"}
        for _ in range(frames):
            start = time.perf_counter()
            panel.draw(surface, surface.get_rect(), state)
            times.append(time.perf_counter() - start)
    print(f"tree panel, Booster's game tree ({len(description['nodes'])} nodes, {len(log) // 3} transitions "
          f"in two ticks): median {statistics.median(times) * 1e3:.2f} ms a frame over {len(times)} frames "
          f"(goal 5 ms)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="match length for the log (default 300)")
    parser.add_argument("--overhead-seconds", type=float, default=30.0,
                        help="simulated seconds per overhead run (default 30)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--log", type=Path, default=None, help="use this MCAP log instead of recording one")
    parser.add_argument("--only", choices=("live", "overhead", "derive", "size"), default=None,
                        help="only the inputs' and live stream's costs, only the recording overhead, only "
                             "reading an inputs-only log, or only the log's size, opening and seeking")
    parser.add_argument("--derive-seconds", type=float, default=60.0,
                        help="simulated seconds of the inputs-only log read (default 60)")
    parser.add_argument("--instructions", action="store_true",
                        help="with --only overhead: count instructions (valgrind) instead of timing")
    parser.add_argument("--one", choices=("plain", "stream", "record", "inputs", "interleaved"), default=None,
                        help=argparse.SUPPRESS)  # one overhead run: its CPU seconds (overhead's child)
    args = parser.parse_args()
    if args.one is not None:
        with tempfile.TemporaryDirectory() as tmp:
            if args.one == "interleaved":
                import json

                print(json.dumps(_interleaved_cpu_s(args.overhead_seconds, 1, Path(tmp))))
            else:
                print(_match_cpu_s(args.one, args.overhead_seconds, 1, Path(tmp) / "o.mcap"))
        return 0
    if args.only == "derive":
        deriving(args.derive_seconds, args.repeats)
        return 0
    if args.only == "size":
        with tempfile.TemporaryDirectory() as tmp:
            path = args.log or Path(tmp) / "match.mcap"
            if args.log is None:
                wall = record(args.seconds, path)
                print(f"recorded a {args.seconds:g} s match in {wall:.1f} s wall")
            opening_and_seeking(path, args.repeats)
        return 0
    if args.only == "overhead":
        if args.instructions:
            overhead_instructions()
        else:
            overhead(args.overhead_seconds, args.repeats)
        return 0
    try:
        import foxglove  # noqa: F401
    except ImportError:
        print("live stream: not measured (pip install -e '.[live]')")
    else:
        live_costs(args.overhead_seconds, args.repeats)
    if args.only == "live":
        return 0
    overhead(args.overhead_seconds, args.repeats)
    deriving(args.derive_seconds, args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.log
        if path is None:
            path = Path(tmp) / "match.mcap"
            wall = record(args.seconds, path)
            print(f"recorded a {args.seconds:g} s match in {wall:.1f} s wall")
        opening_and_seeking(path, args.repeats)
    tree_panel(100)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
