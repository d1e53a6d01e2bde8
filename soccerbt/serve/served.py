"""``ServedMatch``: the embedded simulator, its robots driven through their Booster interfaces.

A ``Match`` built with ``external=True`` (world and referee, no brains) gets one
``RobotEndpoint`` per robot; its robots see through the T1's head camera (``t1_camera()``: the
field of view of the image Booster's vision reads) unless the config names a camera. Each step,
before the world moves, every endpoint answers the loco requests that arrived and hands the robot
its command; after it, every robot's sensors are
published, then ``/clock`` (rosgraph_msgs/Clock, the simulated time). The referee's packets go
out over UDP as a GameController's do (broadcast to ``gc_address``:``gc_port``, 127.255.255.255
and 3838 by default: every brain on this host hears them), its return and status messages are
read on ``gc_return_port`` (the status messages' poses give each brain's localization error), and
the team messages the brains broadcast (ports 10000 + team number) are counted against each
team's message budget, as the GameController counts them.

``run(seconds)`` paces the steps to ``speed`` times real time (``math.inf``: as fast as it can);
a match that fell more than ``CATCH_UP_LIMIT_S`` behind goes on from where it is, without a burst
of steps (the brains follow ``/clock``: a burst would make them all miss their slots);
``wait_for_brains(robots, timeout_s)`` publishes the sensors and ``/clock`` of the first moment
until every named robot's brain has sent a request. ``result()`` is the match's summary with the
robots' localization error taken from what their brains reported, and ``brains()`` says per
robot whether a brain was connected.

With ``refereed=False`` (``--no-referee``) the referee stands still and sends nothing: only the
robots are served (driving one by hand or from a script). ``initial_s`` (``--initial-s``): the
seconds of INITIAL at the start of each half (None: the referee's 2 s). A real INITIAL lasts until
the GameController's operator starts READY, with the robots at their touch line; Booster's brain
localizes there (game.xml's INITIAL branch: CamScanField and SelfLocateEnterField, five markers
in one frame), and without that its odometry-only pose never lets it localize later.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import socket
import statistics
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from soccerbt.drivers.booster import messages as m
from soccerbt.gamecontroller.protocol import (
    DATA_PORT,
    RETURN_PORT,
    GameState,
    HslReturnData,
    PacketError,
    decode_return,
)
from soccerbt.gamecontroller.receiver import open_udp_socket
from soccerbt.match import Match, MatchConfig, MatchResult
from soccerbt.robot.team_udp import team_port
from soccerbt.serve.endpoint import RobotEndpoint
from soccerbt.serve.head_camera import t1_camera
from soccerbt.world.lines import LineCamera
from soccerbt.world.types import RobotId, Team, to_team_frame

__all__ = ["ServedMatch"]

_log = logging.getLogger("soccerbt.serve")

GC_BROADCAST = "127.255.255.255"
# a served match later than this behind real time goes on from now instead of catching up: at 1x
# two /clock ticks then never come closer than 6 ms apart (a brain on the simulated clock that is
# scheduled out for a few ms would otherwise find two slots gone); the cost is a match that slips
# behind the wall clock on a loaded machine (``real_time_factor``)
CATCH_UP_LIMIT_S = 0.004
_MAX_DATAGRAMS = 256  # per socket and step


def _drain(sock: socket.socket) -> list[bytes]:
    out = []
    for _ in range(_MAX_DATAGRAMS):
        try:
            out.append(sock.recv(2048))
        except (BlockingIOError, InterruptedError):
            break
        except OSError:  # an ICMP error left by a send: not fatal
            continue
    return out


class ServedMatch:
    """A match served over a Booster robot's interfaces (see the module docstring).

    ``plain``: the robot served under the plain topic names of a real robot (the vendor SDK
    and robocup_demo's brain connect to it unchanged); every other robot's topics carry its
    name as a suffix (``/odometer_state/blue1``).
    """

    def __init__(self, config: MatchConfig, transport: Any, *, plain: RobotId | None = None, refereed: bool = True,
                 gc_address: str = GC_BROADCAST, gc_port: int = DATA_PORT, gc_return_port: int = RETURN_PORT,
                 count_team_messages: bool = True, silence_stop_s: float = 0.5,
                 initial_s: float | None = None) -> None:
        if config.camera is None:  # a served robot is a T1: its camera sees what its image shows
            config = dataclasses.replace(config, camera=t1_camera())
        self.config = config
        self.transport = transport
        self.match = match = Match(config, external=True)
        match.refereed = refereed
        if initial_s is not None:  # INITIAL as long as a GameController's operator lets it last
            match.referee.config = dataclasses.replace(match.referee.config, initial_s=initial_s)
        self.world = match.world
        self.plain = plain
        if plain is not None and plain not in self.world.robots:
            known = ", ".join(str(r) for r in sorted(self.world.robots))
            raise ValueError(f"--plain {plain}: no such robot in this match (robots: {known})")

        camera = self.world.config.camera
        lines = LineCamera(match.field, camera)
        self.endpoints: dict[RobotId, RobotEndpoint] = {}
        for rid in sorted(self.world.robots):
            rng = np.random.default_rng([config.seed, 99, rid.team.value, rid.number])
            self.endpoints[rid] = RobotEndpoint(transport, rid, name="" if rid == plain else str(rid), camera=camera,
                                                line_camera=lines, rng=rng, silence_stop_s=silence_stop_s)
        self._clock = transport.publisher("/clock", m.Clock, "clock")
        # the robots' whistle detector (robocup_demo's 2026 brain reads it, one name for all robots):
        # "whistle_detected" when the referee whistles the kick-off, the moment it turns PLAYING
        self._whistle = transport.publisher("/whistle_detected", m.String, "reliable")
        self._referee_state: int | None = None
        self.whistles = 0
        self._m = m
        self.gc_address, self.gc_port = gc_address, gc_port
        self._gc_out = open_udp_socket() if refereed else None
        self._gc_returns = open_udp_socket("", gc_return_port) if refereed else None
        self._team_sockets: dict[Team, socket.socket] = {}
        if refereed and count_team_messages:
            for team in (Team.BLUE, Team.RED):
                self._team_sockets[team] = open_udp_socket("", team_port(match.referee.team_number(team)))
        self._count = getattr(match.referee, "count_team_messages", None)
        self._packets_seen = 0
        self.gc_packets_sent = 0
        self.gc_packets_waiting = 0  # of those, sent while waiting for the brains (a late one misses some)
        self.gc_send_errors = 0
        self.gc_returns = 0
        self.team_messages = {Team.BLUE: 0, Team.RED: 0}
        self._reported: dict[RobotId, list[float]] = {rid: [] for rid in self.world.robots}
        self._status_seen: set[RobotId] = set()
        self.steps_served = 0
        self.wall_s = 0.0  # wall time spent in run(), and the simulated time it covered
        self.simulated_s = 0.0
        self.measure_latency = False
        self.latency_poll_s = 0.0002
        self.latencies_s: list[float] = []
        self._request_waiter: Any = None
        self._published_wall_s = time.monotonic()
        match.pre_step.append(self._before_step)
        match.observers.append(self)

    @property
    def t_s(self) -> float:
        return self.match.t_s

    # --- one step ------------------------------------------------------------------------------

    def _before_step(self, match: Match) -> None:
        now = match.t_s
        world = self.world
        for rid, ep in self.endpoints.items():
            ep.serve_requests(now)
            world.set_command(rid, ep.command(now, world))

    def on_step(self, match: Match) -> None:
        """After the world stepped: packets out, messages in, sensors and the clock published."""
        if self._gc_out is not None and match.packets_sent != self._packets_seen and match.last_packet_bytes:
            self._packets_seen = match.packets_sent
            self._send_packet(match.last_packet_bytes)
        if self._gc_returns is not None:
            self._read_returns()
        for team, sock in self._team_sockets.items():
            n = len(_drain(sock))
            if n:
                self.team_messages[team] += n
                if self._count is not None:
                    self._count(team, n)
        self.publish_sensors()
        self.steps_served += 1

    def publish_sensors(self) -> None:
        """Every robot's sensors at the current moment, then ``/clock``."""
        world = self.world
        t = world.t_s
        for rid, ep in self.endpoints.items():
            state = world.robots[rid]
            ep.publish(world.observe(rid), t, state)
        m = self._m
        self._whistle_at_kick_off()
        self._published_wall_s = time.monotonic()
        self._clock.publish(m.Clock(clock=m.Time(sec=int(t), nanosec=int(round((t - int(t)) * 1e9)) % 1_000_000_000)))

    def _send_packet(self, data: bytes) -> None:
        """One GameController packet out (a failed send is counted and said once)."""
        assert self._gc_out is not None
        try:
            self._gc_out.sendto(data, (self.gc_address, self.gc_port))
            self.gc_packets_sent += 1
        except OSError as exc:
            self.gc_send_errors += 1
            if self.gc_send_errors == 1:
                _log.warning("GameController packets: cannot send to %s:%d (%s)", self.gc_address, self.gc_port, exc)

    def _whistle_at_kick_off(self) -> None:
        """``whistle_detected`` when the referee's own state turns from SET to PLAYING (the HSL
        GameController's packets show PLAYING 10 s later: robots that hear the whistle start then)."""
        state = getattr(self.match.referee, "state", None)
        if state == GameState.PLAYING and self._referee_state == GameState.SET:
            self._whistle.publish(self._m.String(data="whistle_detected"))
            self.whistles += 1
        self._referee_state = state

    def _read_returns(self) -> None:
        ref = self.match.referee
        numbers = {ref.team_number(team): team for team in (Team.BLUE, Team.RED)}
        for data in _drain(self._gc_returns):
            try:
                ret = decode_return(data)
            except PacketError:
                continue
            team = numbers.get(ret.team)
            if team is None:
                continue
            self.gc_returns += 1
            rid = RobotId(team, ret.player)
            if isinstance(ret, HslReturnData) and rid in self.world.robots:
                self._status_seen.add(rid)
                truth = self.world.robots[rid]
                if truth.removed or ref.is_penalized(rid):
                    continue
                true_team = to_team_frame(truth.pose, ref.attacks_positive_x(team))
                x, y = ret.pose_x_mm / 1000.0, ret.pose_y_mm / 1000.0
                if math.isfinite(x) and math.isfinite(y):
                    self._reported[rid].append(math.hypot(x - true_team.x_m, y - true_team.y_m))

    # --- running -------------------------------------------------------------------------------

    def wait_for_brains(self, robots: Iterable[RobotId], timeout_s: float, poll_s: float = 0.01,
                        stop: Any = None) -> set[RobotId]:
        """Publish the first moment's sensors and clock, and the GameController's packet twice a
        second (a brain such as Booster's sends nothing before it hears the GameController), until
        every robot in ``robots`` has a brain that sent a request (or ``timeout_s`` of wall time
        passed, or ``stop``, an Event, is set); the robots that have one."""
        wanted = set(robots)
        deadline = time.monotonic() + timeout_s
        connected: set[RobotId] = set()
        next_packet_s = time.monotonic()
        while True:
            if self._gc_out is not None and time.monotonic() >= next_packet_s:
                next_packet_s = time.monotonic() + 0.5
                sent = self.gc_packets_sent
                self._send_packet(self.match.referee.packet_bytes())
                self.gc_packets_waiting += self.gc_packets_sent - sent
            now = self.match.t_s
            for rid in wanted:
                if self.endpoints[rid].serve_requests(now):
                    connected.add(rid)
            if connected >= wanted or time.monotonic() >= deadline or (stop is not None and stop.is_set()):
                return connected
            self.publish_sensors()
            time.sleep(poll_s)

    def run(self, seconds: float | None = None, *, speed: float = 1.0, stop: Any = None) -> None:
        """Step until the match ends, ``seconds`` of simulated time passed, or ``stop`` (an Event)
        is set; paced to ``speed`` times real time (``math.inf``: unpaced).

        With ``measure_latency`` set, the pause between steps polls the robots' request topics
        every ``latency_poll_s`` and notes, per robot and step, the wall time from the step's
        sensors being published to the first request that arrived after them (``latencies_s``).
        """
        match = self.match
        end = None if seconds is None else match.t_s + seconds
        start_wall, start_t = time.monotonic(), match.t_s
        run_wall, run_t = start_wall, start_t
        while not match.finished() and (end is None or match.t_s < end - 1e-9):
            if stop is not None and stop.is_set():
                break
            match.step()
            if math.isfinite(speed):
                due = start_wall + (match.t_s - start_t) / speed
                if time.monotonic() - due > CATCH_UP_LIMIT_S:
                    # late by more than a couple of steps: go on from now, never in a burst (a
                    # burst of /clock ticks would make every brain miss its slots)
                    start_wall, start_t = time.monotonic(), match.t_s
                    due = start_wall
                if self.measure_latency:
                    self._poll_until(due)
                else:
                    ahead = due - time.monotonic()
                    if ahead > 0.0:
                        time.sleep(ahead)
        self.wall_s += time.monotonic() - run_wall
        self.simulated_s += match.t_s - run_t

    def _poll_until(self, due_wall_s: float) -> None:
        """Wait until ``due_wall_s``, noting when each robot's first request after the last
        publish arrives."""
        published = self._published_wall_s
        waiting = set(self.endpoints)
        for ep in self.endpoints.values():
            ep.first_arrival_wall_s = None
        if self._request_waiter is None and hasattr(self.transport, "waiter"):
            # block until a request arrives instead of polling every robot's topic 5000 times a
            # second: the measurement would otherwise take CPU from the brains it measures
            self._request_waiter = self.transport.waiter([ep.request_subscription for ep in self.endpoints.values()])
        waiter = self._request_waiter
        while True:
            now = time.monotonic()
            for rid, ep in self.endpoints.items():  # every topic drained: a waiter then blocks
                if ep.poll_requests(now) and rid in waiting:
                    self.latencies_s.append(ep.first_arrival_wall_s - published)
                    waiting.discard(rid)
            if now >= due_wall_s:
                return
            if waiter is not None:
                waiter.wait(due_wall_s - now)
            else:
                time.sleep(min(self.latency_poll_s, due_wall_s - now))

    # --- reporting -----------------------------------------------------------------------------

    def brains(self) -> dict[str, bool]:
        """Per robot: whether a brain ever drove it."""
        return {str(rid): ep.connected_once for rid, ep in self.endpoints.items()}

    def result(self) -> MatchResult:
        """The match's summary; localization errors from the poses the brains reported."""
        base = self.match.result()
        robots = []
        for r in base.robots:
            rid = next(rid for rid in self.world.robots if str(rid) == r.robot)
            errs = self._reported.get(rid, [])
            robots.append(dataclasses.replace(
                r, tree="brain" if self.endpoints[rid].connected_once else "none",
                loc_error_median_m=round(statistics.median(errs), 3) if errs else None,
                loc_error_mean_m=round(statistics.fmean(errs), 3) if errs else None))
        return dataclasses.replace(base, robots=tuple(robots))

    def close(self) -> None:
        for sock in (self._gc_out, self._gc_returns, *self._team_sockets.values()):
            if sock is not None:
                sock.close()
        self.transport.close()
