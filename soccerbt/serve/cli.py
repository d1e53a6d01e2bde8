"""``soccerbt sim --serve booster``: the simulator as a team of Booster robots.

::

    soccerbt sim --serve booster [the match options of run] [--plain ROBOT] [--no-referee]
                 [--speed K] [--spawn [--groot [[HOST:]PORT]]] [--view] [--seconds S] [--json]

Every robot of the match is served under its Booster interfaces (topics suffixed with its name;
``--plain ROBOT`` serves one under the plain names of a real robot, for the vendor SDK and
robocup_demo's brain). The referee's packets go over UDP on this host; ``--no-referee`` serves
the robots only. Real time by default, ``--speed K`` K times faster; ``/clock`` carries the
simulated time. ``--spawn`` starts one ``soccerbt brain`` per robot with its team's tree, waits
for them to connect (``--wait-brains``), stops them at the end and prints the summary of ``run``,
each robot with its brain's report. ``--view`` opens the field viewer on the served match.
``--spawn --groot [[HOST:]PORT]`` has each spawned brain serve its tree to Groot2 (robot i of the
``--json`` robots list at PORT + 2i, as ``soccerbt run``): said at start and under ``groot`` in
``--json``.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from soccerbt.cli.arguments import port_number, positive_float
from soccerbt.cli.match_options import add_match_arguments, config_from_args
from soccerbt.cli.outputs import check_outputs, write_atomically
from soccerbt.cli.summary import print_summary, progress_line, result_json
from soccerbt.drivers.booster.connect import open_transport
from soccerbt.drivers.gamepad import parse_robot_key
from soccerbt.groot.robots import GrootEndpoint, add_groot_argument
from soccerbt.live.server import LiveUnavailable, add_live_argument, open_live
from soccerbt.live.server import live_recorder as make_live_recorder
from soccerbt.robot.cli import add_transport_arguments
from soccerbt.robot.runner import percentile
from soccerbt.serve.served import ServedMatch
from soccerbt.serve.spawn import brain_command, groot_endpoints, spawn_brains

Viewer = Callable[[Any, float], None]  # opens a window on a match at a speed; returns when it closes

__all__ = ["configure", "run"]

SERVES = ("booster",)


def _speed(text: str) -> float:
    if text.strip().lower() == "max":
        return math.inf
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a speed is a positive number or max, got {text!r}") from None
    if not (math.isfinite(value) and 0.0 < value <= 100.0):
        raise argparse.ArgumentTypeError(f"a speed is a number in (0, 100] or max, got {text!r}")
    return value


def configure(parser: argparse.ArgumentParser, viewer: Viewer | None = None) -> None:
    """Arguments of ``soccerbt sim``; `viewer` (``view(match, speed)``, given from above, where the
    viewer lives) adds ``--view``."""
    parser.add_argument("--serve", choices=SERVES, required=True, help="the robot interfaces to serve (booster)")
    add_match_arguments(parser)
    add_transport_arguments(parser)
    parser.add_argument("--plain", metavar="ROBOT", default=None,
                        help="serve ROBOT (e.g. blue1) under the plain topic names of a real robot; the game "
                             "clock waits for its brain's first request (--wait-brains)")
    parser.add_argument("--no-fastdds-relay", action="store_true",
                        help="with --plain: no relay for FastDDS peers (the vendor SDK's FastDDS 2.13 needs it; "
                             "ROS 2 Jazzy's FastDDS 2.14 is matched without it)")
    parser.add_argument("--no-referee", action="store_true", help="serve the robots only: no GameController")
    parser.add_argument("--speed", type=_speed, default=1.0, help="times real time (default 1; max: unpaced)")
    parser.add_argument("--spawn", action="store_true", help="start one soccerbt brain per robot")
    if viewer is not None:
        parser.add_argument("--view", action="store_true", help="open the field viewer on the served match")
    parser.add_argument("--json", action="store_true", help="print one summary object on stdout")

    add_live_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument("--gc-port", type=port_number, default=3838, help="GameController packets go here (3838)")
    parser.add_argument("--gc-return-port", type=port_number, default=3939, help="return/status messages (3939)")
    parser.add_argument("--gc-address", default="127.255.255.255",
                        help="where the GameController packets are broadcast (default 127.255.255.255: this host)")
    parser.add_argument("--wait-brains", type=positive_float, default=60.0, metavar="S",
                        help="with --spawn or --plain: wait up to S wall seconds for every brain before kick-off "
                             "(60)")
    parser.add_argument("--initial-s", type=positive_float, default=None, metavar="S",
                        help="INITIAL lasts S simulated seconds at the start of each half (default: the referee's "
                             "2 s); Booster's brain localizes at its touch line then (20 s gives it time)")
    parser.add_argument("--brain-logs", metavar="DIR", default=None,
                        help="with --spawn: write each brain's stderr to DIR/ROBOT.log")
    parser.add_argument("--brain-flight-logs", metavar="DIR", default=None,
                        help="with --spawn: each brain records its flight log into DIR/ROBOT (default: none)")
    parser.add_argument("--measure-latency", action="store_true",
                        help="measure the wall time from each step's sensors to the brains' next request "
                             "(polls between steps; the summary gives p50, p99)")
    parser.add_argument("--brain-reports", metavar="FILE", default=None,
                        help="with --spawn: write every brain's whole exit report (JSON) to FILE")
    add_groot_argument(parser)  # with --spawn: the spawned brains serve their trees (soccerbt brain --groot)
    parser.set_defaults(func=partial(run, viewer=viewer))


def run(args: argparse.Namespace, viewer: Viewer | None = None) -> int:
    err = sys.stderr

    problem = check_outputs(args, ("brain_reports",))
    if problem is not None:
        print(f"soccerbt sim: {problem}", file=err)
        return 2
    plain = None
    if args.plain is not None:
        try:
            plain = parse_robot_key(args.plain)
        except (ValueError, KeyError) as exc:
            print(f"soccerbt sim: --plain {args.plain}: {exc}", file=err)
            return 2
    if args.groot is not None and not args.spawn:
        print("soccerbt sim: --groot goes with --spawn (the served robots' brains run elsewhere: give a brain of "
              "your own --groot)", file=err)
        return 2
    if args.groot is not None and importlib.util.find_spec("zmq") is None:
        print("soccerbt sim: --groot: Groot2 needs pyzmq: pip install 'soccerbt[groot]'", file=err)
        return 1
    if args.pad:
        print("soccerbt sim: --pad is not served yet: drive a served robot through its remote controller topic "
              "or the vendor SDK", file=err)
        return 2
    try:
        config = config_from_args(args)
    except (OSError, ValueError) as exc:
        print(f"soccerbt sim: {exc}", file=err)
        return 2
    try:
        relay = args.fastdds_compat or (plain is not None and not args.no_fastdds_relay)
        options = {"fastdds_compat": True} if relay else {}
        transport = open_transport(args.transport, domain=args.domain, interface=args.interface, **options)
    except Exception as exc:
        print(f"soccerbt sim: cannot open the {args.transport} transport: {exc}", file=err)
        return 1
    try:
        served = ServedMatch(config, transport, plain=plain, refereed=not args.no_referee, gc_address=args.gc_address,
                             gc_port=args.gc_port, gc_return_port=args.gc_return_port, initial_s=args.initial_s)
    except Exception as exc:
        transport.close()
        print(f"soccerbt sim: {exc}", file=err)
        return 1
    served.measure_latency = args.measure_latency
    live = live_recorder = None
    if args.live is not None:  # the served match's field, GameController and events (its brains run elsewhere)

        try:
            live = open_live(args.live, err, name="soccerbt sim")
        except LiveUnavailable as exc:
            served.close()
            print(f"soccerbt sim: --live: {exc}", file=err)
            return 1
        live_recorder = make_live_recorder(served.match, live, header_extra={"source": "served"})
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    brains: dict[Any, Any] = {}
    groot: dict[Any, GrootEndpoint] = {}
    wall_start = time.monotonic()
    try:
        waited: list[Any] = []
        if args.spawn:
            try:
                brains, groot = _spawn(args, served, config, err)
            except ValueError as exc:  # --groot's ports past 65535 (nothing started yet)
                print(f"soccerbt sim: {exc}", file=err)
                return 2
            waited += list(brains)
        if served.plain is not None:  # a brain of your own on the plain robot: the clock waits for it too
            waited.append(served.plain)
            if not args.quiet:
                print(f"soccerbt sim: waiting up to {args.wait_brains:g} s for a brain on {served.plain} (plain "
                      "names)", file=err)
        if waited:
            connected = served.wait_for_brains(waited, args.wait_brains, stop=stop)
            missing = [str(r) for r in waited if r not in connected]
            if missing and not args.quiet:
                print(f"soccerbt sim: no brain connected for {', '.join(missing)} within {args.wait_brains:g} s; "
                      "playing on", file=err)
                for r in brains:  # a spawned brain that exited says why
                    if r not in connected and not brains[r].alive():
                        print(f"  {r}: exited with {brains[r].process.returncode}: {brains[r].stderr_tail()}",
                              file=err)
        if not args.quiet:
            names = ", ".join(f"{ep.name or '(plain)'}" for ep in served.endpoints.values())
            print(f"soccerbt sim: serving {len(served.endpoints)} robots ({names}) on DDS domain {args.domain}, "
                  f"speed {'max' if math.isinf(args.speed) else args.speed}", file=err)
        if viewer is not None and getattr(args, "view", False):
            viewer(served.match, args.speed if math.isfinite(args.speed) else 20.0)
        else:
            _run_with_progress(served, args, stop, err)
    finally:
        reports = {rid: proc.stop() for rid, proc in brains.items()}
        served.close()
        if live is not None:
            live_recorder.finish(None)
            live.close()
    wall_s = time.monotonic() - wall_start
    if args.brain_reports:
        try:
            write_atomically(
                Path(args.brain_reports), json.dumps({str(r): rep for r, rep in reports.items()}, indent=1)
            )
        except OSError as exc:
            print(f"soccerbt sim: {args.brain_reports}: brain reports not written ({exc})", file=err)
    result = served.result()
    connected_once = served.brains()
    if args.json:
        summary = result_json(result, wall_s)
        for robot in summary["robots"]:
            report = reports.get(_rid(served, robot["robot"]), {})
            robot["brain"] = {"connected": connected_once.get(robot["robot"], False),
                              "steps": report.get("steps", 0), "deadline_misses": report.get("deadline_misses", 0),
                              "step_ms": report.get("step_ms", {"p50": None, "p99": None, "max": None})}
        if args.groot is not None:
            summary["groot"] = [endpoint.to_json() for endpoint in groot.values()]
        summary["served"] = {
            "gc_packets": served.gc_packets_sent,
            "gc_packets_waiting": served.gc_packets_waiting,
            "gc_returns": served.gc_returns,
            "team_messages": {t.name.lower(): n for t, n in served.team_messages.items()},
            "requests": {str(rid): ep.counters.requests for rid, ep in served.endpoints.items()},
            "bad_requests": sum(ep.counters.bad_requests + ep.counters.unknown_api for ep in served.endpoints.values()),
            "undecodable_requests": sum(ep.counters.dropped for ep in served.endpoints.values()),
            # each robot's requests by kind, and those of a second writer it ignored (WriterLock)
            "loco": {str(rid): {"moves": c.moves, "head_moves": c.head_moves, "get_ups": c.get_ups,
                                "mode_changes": c.mode_changes, "visual_kicks": c.visual_kicks,
                                "other_writers": c.not_locked}
                     for rid, c in ((rid, ep.counters) for rid, ep in served.endpoints.items())},
            "whistles": served.whistles,
            # simulated seconds per wall second while stepping (1.0 at --speed 1 when
            # the machine kept up; less when the match had to slip)
            "real_time_factor": round(served.simulated_s / served.wall_s, 4) if served.wall_s else None,
        }
        if args.measure_latency:
            lat = served.latencies_s
            summary["served"]["latency_ms"] = {
                "samples": len(lat), "p50": round(percentile(lat, 50) * 1000, 3) if lat else None,
                "p99": round(percentile(lat, 99) * 1000, 3) if lat else None}
        json.dump(summary, sys.stdout, separators=(",", ":"))
        sys.stdout.write("\n")
    else:
        print_summary(result, wall_s, sys.stdout)
        with_brain = [name for name, c in connected_once.items() if c]
        print(f"  brains connected: {', '.join(with_brain) if with_brain else 'none'}", file=sys.stdout)
        for rid, report in reports.items():
            if report:
                ms = report.get("step_ms", {})
                print(f"  brain {rid}: {report.get('steps', 0)} steps, {report.get('deadline_misses', 0)} deadline "
                      f"misses, step p50 {ms.get('p50')} ms, p99 {ms.get('p99')} ms, max {ms.get('max')} ms",
                      file=sys.stdout)
    return 0


def _rid(served: Any, name: str) -> Any:
    return next((rid for rid in served.endpoints if str(rid) == name), None)


def _spawn(args: argparse.Namespace, served: Any, config: Any,
           err: Any) -> tuple[dict[Any, Any], dict[Any, GrootEndpoint]]:
    """The brains started, and where each serves its tree to Groot2 (--groot)."""
    match = served.match
    commands = {}
    spawned = [rid for rid in sorted(served.endpoints) if rid != served.plain]  # plain: a brain of your own
    groot = groot_endpoints(match.world.robots, spawned, *args.groot) if args.groot is not None else {}
    for rid in spawned:
        commands[rid] = brain_command(
            rid, config.tree_of(rid.team), field_name=config.field, team_size=match.team_size, half_s=config.half_s,
            team_number=match.referee.team_number(rid.team), seed=config.seed, domain=args.domain,
            interface=args.interface, gc_port=args.gc_port, gc_return_port=args.gc_return_port,
            team_address=args.gc_address,
            flight_logs=Path(args.brain_flight_logs) / str(rid) if args.brain_flight_logs else None,
            node_plugins=config.node_plugins, groot=groot.get(rid))
    log_dir = Path(args.brain_logs) if args.brain_logs else Path(tempfile.mkdtemp(prefix="soccerbt-brains-"))
    if not args.quiet:
        print(f"soccerbt sim: starting {len(commands)} brains (logs in {log_dir})", file=err)
    for endpoint in groot.values():  # said whatever --quiet: where to point Groot2
        print(f"Groot2: {endpoint.robot}'s brain at {endpoint.host}:{endpoint.port} "
              f"(notifications {endpoint.publisher_port})", file=err)
    if groot and args.groot[0] not in ("127.0.0.1", "localhost", "::1"):
        print(f"Groot2: bound to {args.groot[0]}: unauthenticated, anyone who reaches these ports can read the "
              "blackboards and stop the brains", file=err)
    return spawn_brains(commands, log_dir=log_dir), groot


def _run_with_progress(served: Any, args: argparse.Namespace, stop: threading.Event, err: Any) -> None:
    step_s = 10.0
    start = time.monotonic()
    while not stop.is_set() and not served.match.finished():
        left = None if args.seconds is None else args.seconds - served.t_s
        if left is not None and left <= 1e-9:
            break
        served.run(step_s if left is None else min(step_s, left), speed=args.speed, stop=stop)
        if not args.quiet:
            print(progress_line(served.match, time.monotonic() - start), file=err, flush=True)
