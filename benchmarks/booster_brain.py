"""Booster Robotics' own brain against a served robot: does it play, and how much?

Runs robocup_demo's ``brain_node`` and ``game_controller_node`` (ROS 2 C++, built unmodified by
``shared/tools/booster-brain/build.sh`` into ``/tmp/rosprobe/ws/install``) against ``soccerbt sim
--serve booster --plain blue1 --team-size 1 --json`` for ``--seconds`` of simulated play, every
process in ONE private network namespace (loopback only, a tmpfs on /dev/shm: the script re-runs
itself under ``unshare -n -m``, as root or with user namespaces), as the tools' README shows, plus
``--interface lo --no-fastdds-relay``: the brain, with env.sh's ``ROS_LOCALHOST_ONLY=1``, finds the
robot only so (``--as-readme`` leaves them out).
The GameController packets are HL v12 for Booster's main branch and HSL v20 for its 2026 branch
(``--branch``: which one the build in ``--install`` is).

Prints:

- the brain's exit status: still running at the end (then stopped with SIGINT) or exited by
  itself, with its code or signal (SIGSEGV, ...) and the last lines of its stderr; with
  ``--gdb`` the brain runs under ``gdb -batch -ex run -ex bt`` (SIGINT passed through to it) and
  the backtrace is printed;
- loco requests per simulated second, from the served side (the sim's ``--json``:
  ``served.requests`` of the robot, every request of the loco API: moves, head, mode, get-up,
  kicks), with the refused and undecodable ones;
- metres walked, kicks (kick motions and walk-ins apart), falls, get-ups (the robot's and the
  GetUp requests) and goals (the sim's ``--json``: the robot's summary and the score);
- localization successes and attempts as the brain's own log reports them (robocup_demo's
  ``src/brain/src/locator.cpp``: ``self_locate success: N``, ``SelfLocateEnterField ... left
  success: N ... right success N``, and ``/locate/KIND/success`` or ``/locate/KIND/fail``; a
  fail that only says the last success is younger than ``msecs_interval`` is throttling, not an
  attempt, and is counted apart), and when it localized: the first success, the longest time
  without one and the share of the time within 3 s of one (the log's time stamps);
- the wall seconds spent in each game state (and set play, and with the robot penalized), from
  the GameController packets themselves: a packet socket on the namespace's loopback reads them
  as they pass (it binds no port: Booster's game_controller_node holds 3838 alone), decoded by
  soccerbt's codec; each packet's state lasts until the next packet.

The sim waits up to 60 s (``--wait-brains``) for the brain's first loco request before its game
clock starts, sending the GameController's packets meanwhile (Booster's brain sends nothing before
it hears them). INITIAL then lasts ``--initial-s`` (20 s; the referee's own is 2 s): a real INITIAL
lasts until the GameController's operator starts READY, and Booster's brain localizes at its touch
line then (SelfLocateEnterField needs five markers in one frame; a brain that missed it never
localized in 90 s). If the brain exits before the match ends,
the match is stopped there (SIGINT: the sim still prints its summary) and the figures cover what
was played. The processes' logs stay in a folder of their own, printed at the end (``--logs DIR``
to choose it).

    .venv/bin/python benchmarks/booster_brain.py [--seconds 120] [--branch main|2026]
        [--install /tmp/rosprobe/ws/install] [--gdb] [--logs DIR] [--as-readme] [--sim-arg=ARG ...]
        [--brain-arg=ARG ...] [--initial-s 20]

Without the build (no brain_node or game_controller_node under ``--install``) it prints one line
``skipped: ...`` and exits 0.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soccerbt.gamecontroller.hsl_protocol import GamePhase, HslControlData, SetPlay  # noqa: E402
from soccerbt.gamecontroller.protocol import GameState, PacketError, SecondaryState, decode  # noqa: E402

_INSIDE = "SOCCERBT_BENCH_NETNS"
ROBOT = "blue1"  # the served robot under plain names; soccerbt's blue is GameController team 1
TEAM_NUMBER = 1
PLAYER_NUMBER = 1
GC_VERSIONS = {"main": 12, "2026": 20}
GC_PORT = 3838
# env.sh sets ROS_LOCALHOST_ONLY=1: FastDDS then discovers by unicast to localhost's well-known
# ports only, which the sim's participant takes on the loopback interface (docs/simulator.md); the
# FastDDS relay that --plain starts for the vendor SDK must be off, or the brain finds no robot
LOCALHOST_DISCOVERY = ("--interface", "lo", "--no-fastdds-relay")
# a real INITIAL lasts until the GameController's operator starts READY, the robots at their touch
# line; Booster's brain localizes there (SelfLocateEnterField: five markers in one frame), and a
# brain that did not never localizes later (its odometry-only pose misnames every marker): 20 s
# of it, where the referee's default is 2 s
INITIAL_S = 20.0
TAIL_LINES = 15

# locator.cpp's log lines (the main and 2026 branches log alike)
SELF_LOCATE = re.compile(r"self_locate success: (\d+)")
ENTER_FIELD = re.compile(r"SelfLocateEnterField .*?left success: (\d+) .*?right success (\d+)")
LOCATE_PATH = re.compile(r"/locate/(\w+)/(success|fail)(.*)")
THROTTLED = re.compile(r"msecs\(.*\) < interval")
# game_controller_node's: packets it passed to the brain, and those it refused
GC_HANDLED = re.compile(r"handle (?:v\d+ )?packet successfully")
GC_REFUSED = re.compile(r"invalid (?:length|version|header)|unsupported version|not in ip white list")


# --- the build and its environment -----------------------------------------------------------------


def build_problem(install: Path) -> str | None:
    """Why the build in `install` cannot be run, or None."""
    for exe in ("lib/brain/brain_node", "lib/game_controller/game_controller_node"):
        if not os.access(install / exe, os.X_OK):
            return f"no {install / exe} (build it with shared/tools/booster-brain/build.sh)"
    env_sh = install.parents[1] / "env.sh"
    if not env_sh.is_file():
        return f"no {env_sh} beside the build"
    for tool in ("unshare", "ip", "mount"):
        if shutil.which(tool) is None:
            return f"no {tool} on PATH (the processes run in a network namespace of their own)"
    return None


def ros_environment(install: Path) -> dict[str, str]:
    """This environment after sourcing the build's env.sh, with the workspace's install prefix."""
    env_sh = install.parents[1] / "env.sh"
    out = subprocess.run(["bash", "-c", f". {shlex.quote(str(env_sh))} >/dev/null && env -0"],
                         capture_output=True, check=True)
    env = dict(item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item)
    env["AMENT_PREFIX_PATH"] = f"{install}:{env.get('AMENT_PREFIX_PATH', '')}".rstrip(":")
    env["LD_LIBRARY_PATH"] = f"{install / 'lib'}:{env.get('LD_LIBRARY_PATH', '')}".rstrip(":")
    return env


def brain_command(install: Path, gdb: bool, extra: list[str] | tuple[str, ...] = ()) -> list[str]:
    """brain_node as the README runs it (Booster's launch file with sim:=true), or under gdb;
    ``extra``: more ROS arguments (``--log-level brain_node:=debug`` shows its decisions)."""
    vision = install.parents[1] / "vision_config"
    cmd = [str(install / "lib/brain/brain_node"), "--ros-args",
           "--params-file", str(install / "share/brain/config/config.yaml"),
           "-p", f"tree_file_path:={install / 'share/brain/behavior_trees/game.xml'}",
           "-p", f"game.team_id:={TEAM_NUMBER}", "-p", f"game.player_id:={PLAYER_NUMBER}",
           "-p", "use_sim_time:=true", "-p", "enable_com:=false",
           "-p", f"vision_config_path:={vision / 'vision.yaml'}",
           "-p", f"vision_config_local_path:={vision / 'vision_local.yaml'}", *extra]
    # under gdb, the SIGINT that ends the match goes through to the brain (rclcpp shuts down)
    # instead of stopping it as a crash would
    gdb_cmd = ["gdb", "-batch", "-ex", "handle SIGINT nostop noprint pass", "-ex", "run", "-ex", "bt", "--args"]
    return [*gdb_cmd, *cmd] if gdb else cmd


# --- the GameController packets, read off the loopback --------------------------------------------


class GcTap:
    """Reads the GameController packets on the namespace's loopback (a packet socket: no port is
    bound) and adds up the wall seconds of each game state, set play and penalty of the robot."""

    def __init__(self, port: int = GC_PORT) -> None:
        self.port = port
        self.packets = 0
        self.undecodable = 0
        self.versions: Counter[int] = Counter()
        self.state_s: defaultdict[str, float] = defaultdict(float)
        self.set_play_s: defaultdict[str, float] = defaultdict(float)
        self.penalized_s = 0.0
        self.first_s: float | None = None
        self.last_s: float | None = None
        self._last: tuple[str, str, bool] | None = None
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0800))  # IPv4, no link header
        self._sock.bind(("lo", 0))
        self._sock.settimeout(0.2)
        self._thread = threading.Thread(target=self._run, name="gc-tap", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                frame, addr = self._sock.recvfrom(65535)
            except TimeoutError:
                continue
            if addr[2] == socket.PACKET_OUTGOING:  # loopback shows every datagram twice
                continue
            payload = _udp_payload(frame, self.port)
            if payload is not None:
                self._packet(time.monotonic(), payload)

    def _packet(self, now: float, payload: bytes) -> None:
        try:
            p = decode(payload)
        except PacketError:
            self.undecodable += 1
            return
        self.packets += 1
        self.versions[p.version] += 1
        state = _name(GameState, p.state)
        if isinstance(p, HslControlData):
            extra = [_name(GamePhase, p.game_phase)] if p.game_phase else []
            extra += [_name(SetPlay, p.set_play)] if p.set_play else []
            set_play = "+".join(extra) or "none"
        else:
            set_play = _name(SecondaryState, p.secondary_state) if p.secondary_state else "none"
        team = p.team(TEAM_NUMBER)
        penalized = bool(team is not None and team.players[PLAYER_NUMBER - 1].penalty)
        if self._last is not None and self.last_s is not None:
            dt = now - self.last_s
            self.state_s[self._last[0]] += dt
            self.set_play_s[self._last[1]] += dt
            self.penalized_s += dt if self._last[2] else 0.0
        if self.first_s is None:
            self.first_s = now
        self.last_s, self._last = now, (state, set_play, penalized)


def _udp_payload(packet: bytes, port: int) -> bytes | None:
    """The payload of an IPv4 UDP datagram to `port`, else None."""
    if len(packet) < 28 or packet[0] >> 4 != 4 or packet[9] != 17:
        return None
    ihl = (packet[0] & 0x0F) * 4
    _, dst, length, _ = struct.unpack_from("!HHHH", packet, ihl)
    if dst != port:
        return None
    return bytes(packet[ihl + 8: ihl + length])


def _name(kind: Any, code: int) -> str:
    try:
        return str(kind(code).name)
    except ValueError:
        return f"{kind.__name__}({code})"


# --- the brain's log -----------------------------------------------------------------------------


def localization(log: str) -> dict[str, list[int]]:
    """Per locator node of the brain: [successes, attempts, throttled] from its log."""
    out: dict[str, list[int]] = {}

    def add(kind: str, ok: bool, throttled: bool = False) -> None:
        row = out.setdefault(kind, [0, 0, 0])
        if throttled:
            row[2] += 1
        else:
            row[0] += ok
            row[1] += 1

    for line in log.splitlines():
        if m := SELF_LOCATE.search(line):
            add("self_locate", m.group(1) != "0")
        elif m := ENTER_FIELD.search(line):
            add("enter_field", m.group(1) != "0" or m.group(2) != "0")
        elif m := LOCATE_PATH.search(line):
            add(m.group(1), m.group(2) == "success", bool(THROTTLED.search(m.group(3))))
    return out


LOG_TIME = re.compile(r"^\[\w+\] \[(\d+\.\d+)\]")
FRESH_S = 3.0  # a pose calibrated this recently counts as localized


def localization_times(log: str) -> dict[str, float] | None:
    """When the brain localized, from its log's time stamps (seconds, the log's clock): the first
    success after the first logged line, the longest time without one, and the share of the span
    within ``FRESH_S`` of a success; None without a success."""
    first = last = None
    successes: list[float] = []
    for line in log.splitlines():
        if not (t := LOG_TIME.match(line)):
            continue
        now = float(t.group(1))
        first = now if first is None else first
        last = now
        m = SELF_LOCATE.search(line) or ENTER_FIELD.search(line) or LOCATE_PATH.search(line)
        if m is None:
            continue
        ok = (m.re is LOCATE_PATH and m.group(2) == "success") or (
            m.re is not LOCATE_PATH and any(g != "0" for g in m.groups()))
        if ok:
            successes.append(now)
    if not successes or first is None or last is None or last <= first:
        return None
    gaps = [b - a for a, b in zip([first, *successes], [*successes, last], strict=True)]
    fresh = sum(min(b - a, FRESH_S) for a, b in zip(successes, [*successes[1:], last], strict=True))
    return {"first_s": successes[0] - first, "longest_gap_s": max(gaps), "fresh_share": fresh / (last - first)}


def tail(path: Path, n: int = TAIL_LINES) -> list[str]:
    lines = path.read_text(errors="replace").splitlines() if path.exists() else []
    return [line for line in lines if line.strip()][-n:]


def gdb_report(text: str) -> tuple[str, list[str]]:
    """How the program under gdb ended, and the backtrace (``#0 ...`` lines after the signal)."""
    end = "still running when gdb ended"
    trace: list[str] = []
    for line in text.splitlines():
        if "received signal" in line:
            end, trace = line.strip(), []
        elif m := re.search(r"\[Inferior \d+ \(process \d+\) (exited .*)\]", line):
            end = m.group(1)
        elif m := re.search(r"Program terminated with (signal .*)", line):
            end = m.group(1)
        elif line.startswith("#") and "received signal" in end:
            trace.append(line.rstrip())
    return end, trace


# --- one run ---------------------------------------------------------------------------------------


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGINT, wait_s: float = 15.0) -> None:
    """Ends one process this script started: `sig`, then SIGKILL after `wait_s`."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def gdb_inferior(gdb_pid: int) -> int | None:
    """The program gdb runs (its child), or None."""
    try:
        children = Path(f"/proc/{gdb_pid}/task/{gdb_pid}/children").read_text().split()
    except OSError:
        return None
    return int(children[0]) if children else None


def sim_args(args: argparse.Namespace) -> list[str]:
    """The sim's arguments past the README's command."""
    return [*(() if args.as_readme else LOCALHOST_DISCOVERY), "--initial-s", f"{args.initial_s:g}", *args.sim_arg]


def play(args: argparse.Namespace, logs: Path) -> dict[str, Any]:
    """One match inside the namespace: the sim, game_controller_node, the brain; their figures."""
    install = args.install
    env = ros_environment(install)
    env["ROS_LOG_DIR"] = str(logs / "ros")  # not ~/.ros/log
    sim_cmd = [str(args.soccerbt), "sim", "--serve", "booster", "--plain", ROBOT, "--team-size", "1",
               "--seconds", f"{args.seconds:g}", "--gc-version", str(GC_VERSIONS[args.branch]), "--json",
               *sim_args(args)]
    with contextlib.ExitStack() as files:
        out = {name: files.enter_context(open(logs / name, "wb"))
               for name in ("sim.json", "sim.err", "gc.out", "gc.err", "brain.out", "brain.err")}
        run = _match(args, env, sim_cmd, out)
    text = (logs / "sim.json").read_text().strip()
    gc_log = (logs / "gc.err").read_text(errors="replace") + (logs / "gc.out").read_text(errors="replace")
    brain_log = (logs / "brain.err").read_text(errors="replace") + (logs / "brain.out").read_text(errors="replace")
    run.update(summary=json.loads(text.splitlines()[-1]) if text else None,
               gc_handled=len(GC_HANDLED.findall(gc_log)), gc_refused=len(GC_REFUSED.findall(gc_log)),
               localization=localization(brain_log), localized=localization_times(brain_log))
    return run


def _match(args: argparse.Namespace, env: dict[str, str], sim_cmd: list[str], files: dict[str, Any]) -> dict[str, Any]:
    """Starts the three processes, waits for the match (or the brain's end), stops them all."""
    install = args.install
    tap = GcTap()
    start = time.monotonic()
    sim = subprocess.Popen(sim_cmd, stdout=files["sim.json"], stderr=files["sim.err"])
    gc = subprocess.Popen([str(install / "lib/game_controller/game_controller_node")], env=env,
                          stdout=files["gc.out"], stderr=files["gc.err"])
    brain = subprocess.Popen(brain_command(install, args.gdb, args.brain_arg), env=env, stdin=subprocess.DEVNULL,
                             stdout=files["brain.out"], stderr=files["brain.err"])
    brain_exit_s: float | None = None
    deadline = start + args.seconds * 2 + 180  # the sim waits up to 60 s for the brain's first request
    while sim.poll() is None and time.monotonic() < deadline:
        if brain_exit_s is None and brain.poll() is not None:
            brain_exit_s = time.monotonic() - start
            sim.send_signal(signal.SIGINT)  # nothing will drive the robot any more: end the match here
        time.sleep(0.2)
    timed_out = sim.poll() is None
    stop(sim)
    brain_alive = brain.poll() is None
    if brain_alive and args.gdb:
        inferior = gdb_inferior(brain.pid)
        if inferior is not None:
            os.kill(inferior, signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                brain.wait(20.0)
    stop(brain, signal.SIGTERM if args.gdb else signal.SIGINT, wait_s=20.0)
    stop(gc)
    tap.close()
    return {"sim_rc": sim.returncode, "timed_out": timed_out, "wall_s": time.monotonic() - start,
            "brain_rc": brain.returncode, "brain_alive": brain_alive, "brain_exit_s": brain_exit_s, "tap": tap}


# --- the report ------------------------------------------------------------------------------------


def report(args: argparse.Namespace, run: dict[str, Any], logs: Path) -> None:
    print(f"Booster's brain (robocup_demo {args.branch}, {args.install}) against soccerbt sim --serve booster "
          f"--plain {ROBOT} {shlex.join(sim_args(args))}, {args.seconds:g} s, "
          f"GameController v{GC_VERSIONS[args.branch]}"
          f"{', brain under gdb' if args.gdb else ''}")
    rc = run["brain_rc"]
    if args.gdb:
        end, trace = gdb_report((logs / "brain.out").read_text(errors="replace"))
        when = "at the end (stopped then)" if run["brain_alive"] else f"after {run['brain_exit_s']:.1f} s wall"
        print(f"brain (gdb): {end}, {when}; gdb exit {rc}")
        if trace:
            print("  backtrace:")
            for line in trace:
                print(f"    {line}")
    elif run["brain_alive"]:
        how = f"exit code {rc}" if rc is not None and rc >= 0 else f"{signal.Signals(-rc).name}"
        print(f"brain: still running when the match ended; stopped with SIGINT, then {how}")
    else:
        how = f"exit code {rc}" if rc >= 0 else f"signal {signal.Signals(-rc).name} ({-rc})"
        print(f"brain: EXITED by itself after {run['brain_exit_s']:.1f} s wall with {how}")
    if args.gdb or not run["brain_alive"]:
        print("  last lines of its stderr:")
        for line in tail(logs / "brain.err"):
            print(f"    {line[:300]}")
    s = run["summary"]
    if s is None:
        print(f"sim: no --json summary (exit {run['sim_rc']}{', timed out' if run['timed_out'] else ''}); "
              f"its stderr ends: {' | '.join(tail(logs / 'sim.err', 5))}")
        return
    served, sim_s = s["served"], s["sim_s"]
    robot = next((r for r in s["robots"] if r["robot"] == ROBOT), None)
    early = " (stopped early: the brain had exited)" if run["brain_exit_s"] is not None else ""
    print(f"match: {sim_s:.1f} simulated s in {s['wall_s']:.1f} wall s{early}, real-time factor "
          f"{served.get('real_time_factor')}; brain connected: {robot['brain']['connected'] if robot else '?'}; "
          f"score blue {s['score']['blue']} : {s['score']['red']} red")
    requests = served["requests"].get(ROBOT, 0)
    if isinstance(requests, dict):  # per-kind counters, if the sim reports them
        detail = ", ".join(f"{k} {v}" for k, v in requests.items())
        requests = requests.get("requests", sum(v for v in requests.values() if isinstance(v, int)))
        print(f"  served counters: {detail}")
    rate = requests / sim_s if sim_s else float("nan")
    print(f"loco requests: {requests} ({rate:.2f} per simulated s); refused {served.get('bad_requests')}, "
          f"undecodable {served.get('undecodable_requests')}")
    if robot is not None:
        goals = sum(1 for g in s["goals"] if g.get("scorer") == ROBOT and not g.get("own_goal"))
        loco_counts = served.get("loco", {}).get(ROBOT, {})
        print(f"{ROBOT}: walked {robot['distance_walked_m']:.2f} m, kicks {robot['kicks']} "
              f"({robot.get('kick_motions', '?')} kick motions, {robot.get('walk_in_kicks', '?')} walk-ins), "
              f"falls {robot['falls']}, got up {robot.get('stand_ups', '?')} (GetUp requests "
              f"{loco_counts.get('get_ups', '?')}), goals {goals}, penalties {robot['penalties']}")
    loc = run["localization"]
    ok, tries, throttled = (sum(row[i] for row in loc.values()) for i in range(3))
    kinds = ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(loc.items()))
    print(f"localization (brain log): {ok} successes of {tries} attempts{f' ({kinds})' if kinds else ''}; "
          f"{throttled} throttled by msecs_interval")
    if (times := run.get("localized")) is not None:
        print(f"  first success {times['first_s']:.1f} s into the brain's log, longest time without one "
              f"{times['longest_gap_s']:.1f} s, within {FRESH_S:.0f} s of one {100 * times['fresh_share']:.0f} % "
              f"of the time")
    tap: GcTap = run["tap"]
    versions = ", ".join(f"v{v} x{n}" for v, n in sorted(tap.versions.items())) or "none"
    span = (tap.last_s or 0.0) - (tap.first_s or 0.0)
    print(f"GameController: {tap.packets} packets on the wire ({versions}; {tap.undecodable} undecodable) over "
          f"{span:.1f} wall s; game_controller_node passed {run['gc_handled']} to the brain, refused "
          f"{run['gc_refused']}; the sim counted {served.get('gc_packets')} sent, {served.get('gc_returns')} returns")
    order = ("INITIAL", "READY", "SET", "PLAYING", "FINISHED")
    states = sorted(tap.state_s.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
    print("  wall s per game state: " + (", ".join(f"{k} {v:.1f}" for k, v in states) or "none"))
    plays = {k: v for k, v in tap.set_play_s.items() if k != "none"}
    print("  wall s per set play: " + (", ".join(f"{k} {v:.1f}" for k, v in sorted(plays.items())) or "none")
          + f"; {ROBOT} penalized {tap.penalized_s:.1f}")
    print(f"logs: {logs}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="simulated seconds of play (120)")
    parser.add_argument("--branch", choices=sorted(GC_VERSIONS), default="main",
                        help="the robocup_demo branch the build is of: main (HL v12 packets) or 2026 (HSL v20)")
    parser.add_argument("--install", type=Path, default=Path("/tmp/rosprobe/ws/install"),
                        help="the colcon install folder of the build (/tmp/rosprobe/ws/install)")
    parser.add_argument("--soccerbt", type=Path, default=ROOT / ".venv/bin/soccerbt",
                        help="the soccerbt with the robot extra (.venv/bin/soccerbt)")
    parser.add_argument("--as-readme", action="store_true",
                        help="run the sim as the tools' README does, without --interface lo --no-fastdds-relay "
                             "(with env.sh's ROS_LOCALHOST_ONLY=1 the brain then finds no robot)")
    parser.add_argument("--initial-s", type=float, default=INITIAL_S, metavar="S",
                        help=f"seconds of INITIAL before READY ({INITIAL_S:g}; the referee's own is 2)")
    parser.add_argument("--brain-arg", action="append", default=[], metavar="ARG",
                        help="one more ROS argument for brain_node, e.g. --brain-arg=--log-level "
                             "--brain-arg=brain_node:=debug (its decisions, head and recovery in brain.err)")
    parser.add_argument("--sim-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for soccerbt sim, e.g. --sim-arg=--interface --sim-arg=lo")
    parser.add_argument("--gdb", action="store_true", help="run brain_node under gdb and print its backtrace")
    parser.add_argument("--logs", type=Path, default=None, help="keep the processes' logs here (default: a new "
                                                                "temporary folder)")
    args = parser.parse_args()
    args.install = args.install.resolve()
    if os.environ.get(_INSIDE) != "1":
        problem = build_problem(args.install)
        if problem is None and args.gdb and shutil.which("gdb") is None:
            problem = "no gdb on PATH (--gdb)"
        if problem is None and not os.access(args.soccerbt, os.X_OK):
            problem = f"no {args.soccerbt} (install soccerbt with the robot extra)"
        if problem is not None:
            print(f"skipped: {problem}")
            return
        unshare = ["unshare", "-n", "-m"] if os.geteuid() == 0 else ["unshare", "-r", "-n", "-m"]
        inner = ("ip link set lo up && ip link set lo multicast on && mount -t tmpfs tmpfs /dev/shm && exec "
                 + shlex.join([sys.executable, *sys.argv]))
        raise SystemExit(subprocess.call([*unshare, "sh", "-c", inner], env=dict(os.environ, **{_INSIDE: "1"})))
    logs = args.logs or Path(tempfile.mkdtemp(prefix="booster-brain-"))
    logs.mkdir(parents=True, exist_ok=True)
    report(args, play(args, logs), logs)


if __name__ == "__main__":
    main()
