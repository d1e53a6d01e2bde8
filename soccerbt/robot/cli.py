"""``soccerbt brain``: one robot's brain as a program, on a Booster robot or a served simulator.

::

    soccerbt brain --robot blue2 [--tree FILE] [--driver booster] [--name NAME] [--interface IF]
                   [--domain N] [--sim-time] [--record FILE.mcap] [--json]

The agent steps at 100 Hz on the wall clock, or on ROS 2's ``/clock`` with ``--sim-time``.
Team colour and player number come from the robot's name (``blue2``: blue, player 2, as in
``run``); the GameController team number is 1 for blue and 2 for red unless ``--team-number``
says otherwise (a real competition gives each team its number). The GameController is heard
on UDP (``--gc-port``, 3838), answered on ``--gc-return-port`` (3939); team messages are
broadcast to ``--team-address`` (255.255.255.255 on a field network) on port 10000 + team
number. SIGINT and SIGTERM stop the robot (Move 0, 0, 0, head still), close the log and exit.
At exit it prints the step time (p50, p99, max) and the deadline misses (``--json``: one object
on stdout).
"""
from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import time
from pathlib import Path
from typing import Any

from soccerbt.agent import team_message_period_s
from soccerbt.brain_setup import BrainSpec, build_agent, build_tree_factory, default_tree_path
from soccerbt.cli.arguments import field_name, int_in, port_number, positive_float, seed_value, team_size_value
from soccerbt.cli.match_options import FIELD_CHOICES
from soccerbt.cli.outputs import check_outputs
from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.connect import open_transport
from soccerbt.drivers.booster.driver import BoosterDriver
from soccerbt.drivers.booster.remote import RemotePad
from soccerbt.drivers.gamepad import EmergencyStop, parse_robot_key
from soccerbt.gamecontroller.receiver import GameControllerReceiver
from soccerbt.groot.robots import GrootUnavailable, add_groot_argument, serve_brain
from soccerbt.live.server import LiveWriter, add_live_argument, open_live
from soccerbt.robot.clock import SimClock, WallClock
from soccerbt.robot.flight import FlightRecorder, default_log_dir
from soccerbt.robot.recording import BrainRecorder
from soccerbt.robot.runner import BrainRunner
from soccerbt.robot.team_udp import UdpTeamLink
from soccerbt.trees.plugins import add_nodes_option
from soccerbt.world.field import Field
from soccerbt.world.types import Team

__all__ = ["configure", "run"]

DRIVERS = ("booster",)
TRANSPORTS = ("cyclone",)


_domain = int_in(0, 232, "DDS domain")
_team_number = int_in(1, 254, "team number")


def add_transport_arguments(parser: argparse.ArgumentParser) -> None:
    """How to reach the robots' DDS interfaces (shared by ``brain`` and ``sim --serve``)."""
    parser.add_argument("--domain", type=_domain, default=0, help="DDS domain id (default 0, as the robot)")
    parser.add_argument("--interface", default=None, metavar="IF",
                        help="network interface DDS uses (e.g. eth0, lo; default: the DDS default)")
    parser.add_argument("--transport", choices=TRANSPORTS, default="cyclone",
                        help="the DDS implementation (default cyclone)")
    parser.add_argument("--fastdds-compat", action="store_true",
                        help="let FastDDS 2.13 peers (the vendor SDK and the robot's services) discover us: "
                             "runs the discovery relay on this host")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--robot", required=True, help="which robot this brain is: blue1, red2, ...")
    parser.add_argument("--tree", default=None, help="XML tree (default: our game.xml)")
    add_nodes_option(parser)
    parser.add_argument("--driver", choices=DRIVERS, default="booster", help="the robot's interfaces (booster)")
    parser.add_argument("--name", default="",
                        help="robocup_demo's robot name: the suffix of every topic (default none: the plain names "
                             "of a real robot)")
    add_transport_arguments(parser)
    parser.add_argument("--sim-time", action="store_true", help="run on the /clock topic of a simulator")
    parser.add_argument("--record", metavar="FILE.mcap", default=None,
                        help="record the brain's log into this one file (MCAP) instead of the flight recorder's")
    parser.add_argument("--no-record", action="store_true", help="no flight recorder")
    parser.add_argument("--log-dir", metavar="DIR", default=None,
                        help="the flight recorder's folder (default $XDG_STATE_HOME/soccerbt/logs, else "
                             "~/.local/state/soccerbt/logs)")
    parser.add_argument("--log-file-mb", type=positive_float, default=64.0, metavar="MB",
                        help="a flight log this big is closed and the next one started (64)")
    parser.add_argument("--log-dir-mb", type=positive_float, default=1024.0, metavar="MB",
                        help="the oldest flight logs are deleted to keep the folder under this (1024)")
    parser.add_argument("--json", action="store_true", help="print one report object on stdout at exit")

    add_live_argument(parser)
    add_groot_argument(parser)
    parser.add_argument("--seconds", type=positive_float, default=None, help="stop after this much brain time")
    parser.add_argument("--field", type=field_name, choices=FIELD_CHOICES, default="adult", metavar="{S,M,L}",
                        help="the field (default M)")
    parser.add_argument(
        "--team-size", type=team_size_value, default=None, help="robots per team (default: the field's)"
    )
    parser.add_argument("--half", type=positive_float, default=600.0,
                        help="half length in seconds, for the team-message period that fits the budget (600)")
    parser.add_argument("--team-number", type=_team_number, default=None,
                        help="GameController team number (default: 1 blue, 2 red)")
    parser.add_argument("--team-message-period", type=positive_float, default=None, metavar="S",
                        help="seconds between team messages (default: what fits the HSL budget)")
    parser.add_argument("--seed", type=seed_value, default=0, help="seed of the localizer (default 0)")
    parser.add_argument("--gc-port", type=port_number, default=3838, help="GameController packets (default 3838)")
    parser.add_argument("--gc-allow", action="append", metavar="ADDR", default=None,
                        help="take GameController packets only from this address (repeatable); without it the "
                             "brain locks onto the first GameController it hears and ignores the others until "
                             "that one has been silent for 5 s")
    parser.add_argument(
        "--gc-return-port", type=port_number, default=3939, help="return/status messages (default 3939)"
    )
    parser.add_argument("--team-address", default="255.255.255.255",
                        help="where team messages are broadcast (default 255.255.255.255)")
    parser.add_argument("--team-port", type=port_number, default=None, help="team message port (default 10000 + team)")
    parser.add_argument("--stale-after", type=positive_float, default=0.3, metavar="S",
                        help="stand still when no odometer or low state came for S seconds (default 0.3)")
    parser.add_argument("--start-timeout", type=positive_float, default=None, metavar="S",
                        help="with --sim-time: give up when no /clock came within S seconds (default: wait)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The ``brain`` command: 0 after a clean stop, 1 when it could not start, 2 bad arguments."""
    err = sys.stderr
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s", stream=err)

    try:
        robot = parse_robot_key(args.robot)
    except (ValueError, KeyError) as exc:
        print(f"soccerbt brain: --robot {args.robot}: {exc}", file=err)
        return 2
    if args.tree is None:  # our game.xml: its files are inputs too

        args.tree = str(default_tree_path())
    if args.record:
        problem = check_outputs(args, ("record",))  # never over the tree or a file it includes
        if problem is not None:
            print(f"soccerbt brain: {problem}", file=err)
            return 2
    if args.tree is not None and not Path(args.tree).is_file():
        print(f"soccerbt brain: {args.tree}: no such tree file (--tree)", file=err)
        return 2
    try:
        brain = build_brain(args, robot)
    except Exception as exc:  # a broken tree prints path:line: message; DDS or sockets their error
        print(f"soccerbt brain: {exc}", file=err)
        return 1
    runner = brain.runner
    stop = runner.stop
    groot: Any = None
    if getattr(args, "groot", None) is not None:
        try:
            groot, endpoint = serve_brain(brain.agent, brain.driver, str(robot), *args.groot, err=err,
                                          manifests=brain.factory_manifests)
        except GrootUnavailable as exc:
            print(f"soccerbt brain: --groot: {exc}", file=err)
            runner.close()
            brain.close_live()
            return 1

    def on_signal(signum: int, frame: Any) -> None:
        stop()
        if groot is not None:  # a tick waiting at a breakpoint goes on, the loop ends
            groot.interrupt()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    wall = time.monotonic()
    try:
        runner.run(seconds=args.seconds, start_timeout_s=args.start_timeout)
    finally:
        if groot is not None:
            groot.close()
        runner.close()
        if brain.recorder is not None:
            try:
                brain.recorder.finish()
            except OSError as exc:  # --record's file on a full disk: said, and the report still comes
                print(f"soccerbt brain: {brain.recorder.path}: cannot finish the log ({exc.strerror or exc}); "
                      "it opens up to its last whole chunk", file=err)
        brain.close_live()
    report = brain.report(time.monotonic() - wall)
    if groot is not None:
        report["groot"] = endpoint.to_json()
    if args.json:
        sys.stdout.write(json.dumps(report, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    else:
        ms = report["step_ms"]
        print(f"soccerbt brain {report['robot']}: {report['steps']} steps, {report['deadline_misses']} deadline "
              f"misses, step p50 {ms['p50']} ms, p99 {ms['p99']} ms, max {ms['max']} ms", file=err)
    return 0


class Brain:
    """The parts of a running brain (built by ``build_brain``)."""

    def __init__(self, robot: Any, agent: Any, driver: Any, runner: Any, recorder: Any, team_link: Any,
                 gc: Any) -> None:
        self.robot, self.agent, self.driver, self.runner = robot, agent, driver, runner
        self.recorder, self.team_link, self.gc = recorder, team_link, gc
        self.live: Any = None            # the --live stream
        self.live_recorder: Any = None   # its recorder when the log's file recorder cannot feed it
        self.factory_manifests: Any = None  # the node models of the tree's factory (--groot's XML)

    def close_live(self) -> None:
        """Finish the live recorder and stop the stream (at exit)."""
        if self.live_recorder is not None:
            self.live_recorder.finish()
        if self.live is not None:
            self.live.close()

    def report(self, wall_s: float) -> dict[str, Any]:
        stats = self.runner.stats
        out: dict[str, Any] = {"robot": str(self.robot), "wall_s": round(wall_s, 3),
                               "brain_s": round(self.runner.now_s, 3), **stats.to_dict(),
                               "node_exceptions": self.agent.node_exception_count,
                               "errors": list(self.runner.errors)}
        d = self.driver.counters
        out["driver"] = {k: getattr(d, k) for k in d.__slots__}
        cc = self.driver.convert_counters  # detections and line segments refused, samples that did not decode
        out["driver"].update(objects_dropped=cc.objects_dropped, objects_over_limit=cc.objects_over_limit,
                             segments_dropped=cc.segments_dropped, samples_dropped=self.driver.samples_dropped())
        out["gc"] = {"accepted": self.gc.counters.accepted, "dropped": self.gc.counters.dropped_malformed,
                     "returns_sent": self.gc.counters.returns_sent}
        t = self.team_link.counters
        out["team"] = {"sent": t.sent, "received": t.received, "dropped": t.dropped}
        files = getattr(self.recorder, "files", None)
        out["logs"] = [str(p) for p in files] if files is not None else (
            [str(self.recorder.path)] if self.recorder is not None else [])
        return out


def build_brain(args: argparse.Namespace, robot: Any) -> Brain:
    """Transport, driver, clock, team link, GameController receiver, agent and runner."""
    field = Field.by_name(args.field)
    team_size = args.team_size or field.players_per_team
    factory = build_tree_factory(getattr(args, "nodes", None) or ())  # a plugin that fails stops the start here
    live = None
    if getattr(args, "live", None) is not None:  # first: a port that cannot be bound stops the start

        live = open_live(args.live, sys.stderr, name=f"soccerbt brain {robot}")
    if not 1 <= robot.number <= team_size:
        raise ValueError(f"--robot {robot}: player {robot.number} is not in a team of {team_size} (--team-size)")
    team_number = args.team_number or (1 if robot.team is Team.BLUE else 2)
    period = args.team_message_period or team_message_period_s(12000, team_size, args.half)
    options = {"fastdds_compat": True} if args.fastdds_compat else {}
    transport = open_transport(args.transport, domain=args.domain, interface=args.interface, **options)
    try:
        driver = BoosterDriver(transport, robot, name=args.name, stale_after_s=args.stale_after)
        if args.sim_time:
            clock: Any = SimClock(transport.subscription("/clock", m.Clock, "clock", depth=1))
        else:
            clock = WallClock()
        team_link = UdpTeamLink(team_number, address=args.team_address, port=args.team_port)
    except BaseException:
        transport.close()
        raise
    holder: dict[str, Any] = {}
    try:
        gc = GameControllerReceiver(team_number, robot.number, port=args.gc_port, return_port=args.gc_return_port,
                                    allow=args.gc_allow,
                                    clock=clock.now_s)
        estop = EmergencyStop()
        pad = RemotePad(driver.remote, estop=estop, robot=str(robot))
        spec = BrainSpec(robot=robot, field=field, team_size=team_size,
                         tree_path=Path(args.tree) if args.tree else default_tree_path(), team_number=team_number,
                         team_message_period_s=period, seed=args.seed)
        agent = build_agent(spec, driver, clock=lambda: holder["runner"].now_s, team_link=team_link, pad=pad,
                            estop=estop, factory=factory)
    except BaseException:
        team_link.close()
        transport.close()
        raise
    prepare = getattr(agent.context.localizer, "prepare", None)
    if prepare is not None:  # the one-off work of a first camera frame, before the first deadline
        prepare()
    runner = BrainRunner(agent, driver, clock, gc=gc, team_link=team_link, estop=estop)
    holder["runner"] = runner
    recorder: Any = None
    if args.record:
        recorder = BrainRecorder(args.record, runner, spec, tap=live.tap if live is not None else None)
    elif not args.no_record:
        folder = args.log_dir or default_log_dir()
        try:
            recorder = FlightRecorder(folder, runner, spec, max_file_bytes=int(args.log_file_mb * 1e6),
                                      max_folder_bytes=int(args.log_dir_mb * 1e6))
        except (OSError, ValueError) as exc:  # a robot plays on without its log, and says so
            logging.getLogger("soccerbt.brain").error("flight recorder off: %s: %s", folder, exc)
    if recorder is not None:
        runner.observers.append(recorder.on_step)
    brain = Brain(robot, agent, driver, runner, recorder, team_link, gc)
    brain.factory_manifests = factory.manifests()
    if live is not None:
        brain.live = live
        # the flight recorder's files rotate: the stream gets a recorder of its own
        if not args.record:
            brain.live_recorder = BrainRecorder("live.mcap", runner, spec, out=LiveWriter(live))
            runner.observers.append(brain.live_recorder.on_step)
    return brain
