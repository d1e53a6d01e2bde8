"""``--groot [HOST:]PORT``: a Groot2Publisher for every robot of a match that runs a tree.

Robot i of the match's robots in the order of ``--json``'s robots list (sorted: blue1, blue2,
..., red1, ...) is served at PORT + 2i (requests) and PORT + 2i + 1 (notifications), the two
ports BT.CPP's publisher binds; a robot without a tree (an idle team) keeps its pair unused, so
a robot's ports do not depend on which teams play. HOST is 127.0.0.1 unless given: the ports are
unauthenticated (docs/groot.md). A robot whose tree is reloaded keeps its ports; Groot2 sees the
new tree's UUID.

In a lock-step match (``run``, ``view``) every robot is ticked in the match's thread, so a
breakpoint reached by one robot stands the whole match still until Groot2 unlocks it (or stops
asking for 5 s). A brain of its own (``soccerbt brain``: `serve_brain`) is served at PORT and
stands while a breakpoint waits: its driver holds the robot still (Move 0, head held) from the
moment the tick stops until it goes on. Knows the match only through its ``world.robots`` and
``agents``, a brain through its agent and driver (duck-typed).
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from soccerbt.groot.publisher import DEFAULT_HOST, DEFAULT_PORT, Groot2Publisher
from soccerbt.groot.sockets import GrootUnavailable

__all__ = ["GrootEndpoint", "GrootUnavailable", "parse_groot", "add_groot_argument", "robot_ports", "serve_match",
           "serve_brain", "close_all", "PAUSED_REASON"]

PAUSED_REASON = "Groot2 breakpoint"  # the driver's hold while a brain's tick waits at a breakpoint

MAX_PORT = 65535


@dataclass(frozen=True)
class GrootEndpoint:
    """Where one robot's tree is served."""

    robot: str
    host: str
    port: int

    @property
    def publisher_port(self) -> int:
        return self.port + 1

    def to_json(self) -> dict[str, Any]:
        return {"robot": self.robot, "host": self.host, "port": self.port, "publisher_port": self.port + 1}


def parse_groot(text: str) -> tuple[str, int]:
    """"PORT" or "HOST:PORT" (ValueError otherwise)."""
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host = DEFAULT_HOST
    if not host:
        raise ValueError(f"--groot {text!r}: empty host")
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"--groot {text!r}: the port must be a number") from None
    if not 1 <= port < MAX_PORT:
        raise ValueError(f"--groot {text!r}: the port must be within 1..{MAX_PORT - 1}")
    return host, port


def _groot_type(text: str) -> tuple[str, int]:
    try:
        return parse_groot(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_groot_argument(parser: argparse.ArgumentParser) -> None:
    """``--groot [[HOST:]PORT]`` (the commands that play a match)."""
    parser.add_argument("--groot", type=_groot_type, nargs="?", const=(DEFAULT_HOST, DEFAULT_PORT), default=None,
                        metavar="[HOST:]PORT",
                        help=f"serve each robot's tree to Groot2's monitor (BT.CPP 4.10's protocol; needs "
                             f"soccerbt[groot]): robot i of the --json robots list at PORT+2i (default "
                             f"{DEFAULT_PORT}) and PORT+2i+1; binds 127.0.0.1 unless HOST is given; "
                             "unauthenticated: anyone who reaches the port reads the blackboards and can "
                             "pause the match")


def robot_ports(robots: list[str], port: int) -> dict[str, int]:
    """Robot name -> its request port (robot i at port + 2i)."""
    return {robot: port + 2 * i for i, robot in enumerate(robots)}


def serve_match(match: Any, host: str, port: int, *, err: TextIO | None = None,
                on_breakpoint: Callable[[str, int, bool], None] | None = None,
                **options: Any) -> tuple[list[Groot2Publisher], list[GrootEndpoint]]:
    """Start a publisher for every robot of `match` with a tree; say where on `err`.

    GrootUnavailable (nothing left running) when pyzmq is missing, a port is out of range or
    cannot be bound. `options` go to every Groot2Publisher (clock, max_heartbeat_delay_s...);
    `on_breakpoint(robot, uid, waiting)` is told when a robot's tick waits at a breakpoint."""
    robots = [str(r) for r in sorted(match.world.robots)]
    ports = robot_ports(robots, port)
    if robots and ports[robots[-1]] + 1 > MAX_PORT:
        raise GrootUnavailable(f"--groot {port}: {len(robots)} robots need ports up to "
                               f"{ports[robots[-1]] + 1}, above {MAX_PORT}")
    agents = {str(rid): agent for rid, agent in match.agents.items()}
    factory = getattr(match, "factory", None)
    if factory is not None and "manifests" not in options:  # every model the factory holds, as BT.CPP writes
        options["manifests"] = factory.manifests()
    publishers: list[Groot2Publisher] = []
    endpoints: list[GrootEndpoint] = []
    try:
        for robot in robots:
            agent = agents.get(robot)
            if agent is None or not hasattr(agent.tree, "subtrees"):
                continue
            callback = None
            if on_breakpoint is not None:
                callback = _robot_callback(on_breakpoint, robot)
            publisher = Groot2Publisher(agent.tree, ports[robot], host=host, on_breakpoint=callback, **options)
            publishers.append(publisher)
            endpoints.append(GrootEndpoint(robot, host, ports[robot]))
            listeners = getattr(agent, "tree_listeners", None)
            if listeners is not None:
                listeners.append(_follow_reloads(publisher))
    except GrootUnavailable:
        close_all(publishers)
        raise
    if err is not None:
        for endpoint in endpoints:
            print(f"Groot2: {endpoint.robot} at {endpoint.host}:{endpoint.port} "
                  f"(notifications {endpoint.publisher_port})", file=err)
        if host not in ("127.0.0.1", "localhost", "::1"):
            print(f"Groot2: bound to {host}: unauthenticated, anyone who reaches these ports can read "
                  "the blackboards and pause the match", file=err)
    return publishers, endpoints


def serve_brain(agent: Any, driver: Any, robot: str, host: str, port: int, *, err: TextIO | None = None,
                **options: Any) -> tuple[Groot2Publisher, GrootEndpoint]:
    """A publisher for one brain's tree at `port`; while its tick waits at a breakpoint the
    driver holds the robot still (`hold_while_paused`). GrootUnavailable when it cannot start."""
    publisher = Groot2Publisher(agent.tree, port, host=host, on_breakpoint=hold_while_paused(driver), **options)
    listeners = getattr(agent, "tree_listeners", None)
    if listeners is not None:
        listeners.append(_follow_reloads(publisher))
    endpoint = GrootEndpoint(robot, host, port)
    if err is not None:
        print(f"Groot2: {robot} at {host}:{port} (notifications {port + 1})", file=err)
        if host not in ("127.0.0.1", "localhost", "::1"):
            print(f"Groot2: bound to {host}: unauthenticated, anyone who reaches these ports can read "
                  "the blackboard and stop the robot's brain", file=err)
    return publisher, endpoint


def hold_while_paused(driver: Any) -> Callable[[int, bool], None]:
    """A publisher's `on_breakpoint` for a robot: told in the ticking thread just before the tick
    waits, it has the driver send the stop and hold (``driver.hold``); when the tick goes on it
    releases that hold only (an emergency stop's hold stays)."""

    def paused(uid: int, waiting: bool) -> None:
        hold = getattr(driver, "hold", None)
        if hold is None:
            return
        if waiting:
            if driver.held is None:
                hold(PAUSED_REASON)
        elif driver.held == PAUSED_REASON:
            driver.release()

    return paused


def _robot_callback(callback: Callable[[str, int, bool], None], robot: str) -> Callable[[int, bool], None]:
    return lambda uid, waiting: callback(robot, uid, waiting)


def _follow_reloads(publisher: Groot2Publisher) -> Callable[[Any, Any, Any], None]:
    """An agent's tree listener: a reloaded tree is served in place of the old one."""

    def swapped(agent: Any, old_tree: Any, new_tree: Any) -> None:
        if hasattr(new_tree, "subtrees"):
            publisher.set_tree(new_tree)

    return swapped


def close_all(publishers: list[Groot2Publisher]) -> None:
    """Stop every publisher (their hooks removed, a waiting breakpoint released)."""
    for publisher in publishers:
        publisher.close()
