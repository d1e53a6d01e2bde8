"""One ``soccerbt brain`` process per robot of a served match.

``spawn_brains`` starts them (each with its team's tree, the robot's topic suffix, the
simulated clock, the referee's ports and the team-message address of this host, ``--json`` so
that it reports at exit); ``BrainProcess.stop`` sends SIGTERM, waits, then kills, and reads the
report the brain printed (steps, deadline misses, step times). A brain's stderr goes to a file
per robot in ``log_dir`` (or is discarded), so that a failed start can be shown.

With ``--groot [[HOST:]PORT]`` each brain serves its tree to Groot2 (``soccerbt brain --groot``):
robot i of the ``--json`` robots list at PORT + 2i (and PORT + 2i + 1), as ``soccerbt run`` places
them (`groot_endpoints`); a robot without a spawned brain (``--plain``) keeps its pair unused.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from soccerbt.groot.robots import MAX_PORT, GrootEndpoint, robot_ports
from soccerbt.world.types import RobotId

__all__ = ["BrainProcess", "brain_command", "spawn_brains", "groot_endpoints"]


def groot_endpoints(robots: Iterable[RobotId], spawned: Iterable[RobotId], host: str,
                    port: int) -> dict[RobotId, GrootEndpoint]:
    """Where each spawned brain serves its tree: robot i of the sorted `robots` (the ``--json``
    robots list) at `port` + 2i. ValueError when the last pair would pass port 65535."""
    ordered = sorted(robots)
    ports = robot_ports([str(r) for r in ordered], port)
    if ordered and ports[str(ordered[-1])] + 1 > MAX_PORT:
        raise ValueError(f"--groot {port}: {len(ordered)} robots need ports up to {ports[str(ordered[-1])] + 1}, "
                         f"above {MAX_PORT}")
    wanted = set(spawned)
    return {r: GrootEndpoint(str(r), host, ports[str(r)]) for r in ordered if r in wanted}


def brain_command(robot: RobotId, tree: Path, *, field_name: str, team_size: int, half_s: float, team_number: int,
                  seed: int, domain: int, interface: str | None, gc_port: int, gc_return_port: int,
                  team_address: str, extra: Sequence[str] = (), flight_logs: Path | None = None,
                  node_plugins: Sequence[str] = (), groot: GrootEndpoint | None = None) -> list[str]:
    """The command line of one robot's brain against a served match: its flight recorder off,
    or writing into `flight_logs` when given; a team's own nodes (``--nodes``) as the match has them;
    its tree served to Groot2 at `groot` when given."""
    cmd = [sys.executable, "-m", "soccerbt", "brain", "--robot", str(robot), "--name", str(robot), "--sim-time",
           "--tree", str(tree), "--field", field_name, "--team-size", str(team_size), "--half", repr(half_s),
           "--team-number", str(team_number), "--seed", str(seed), "--domain", str(domain),
           "--gc-port", str(gc_port), "--gc-return-port", str(gc_return_port), "--team-address", team_address,
           "--json", *(["--log-dir", str(flight_logs)] if flight_logs is not None else ["--no-record"])]
    if interface:
        cmd += ["--interface", interface]
    for spec in node_plugins:
        cmd += ["--nodes", spec]
    if groot is not None:
        cmd += ["--groot", f"{groot.host}:{groot.port}"]
    cmd += list(extra)
    return cmd


@dataclass
class BrainProcess:
    """A running brain and what it reported."""

    robot: RobotId
    command: list[str]
    process: subprocess.Popen
    stderr_path: Path | None = None
    report: dict[str, Any] = field(default_factory=dict)
    returncode: int | None = None

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout_s: float = 3.0) -> dict[str, Any]:
        """SIGTERM (the brain stops its robot and reports), then SIGKILL after ``timeout_s``."""
        p = self.process
        if p.poll() is None:
            try:
                p.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            out, _ = p.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
        self.returncode = p.returncode
        for line in reversed((out or "").splitlines()):
            line = line.strip()
            if line.startswith("{"):
                try:
                    self.report = json.loads(line)
                except ValueError:
                    continue
                break
        return self.report

    def stderr_tail(self, lines: int = 5) -> str:
        if self.stderr_path is None:
            return ""
        try:
            text = self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


def spawn_brains(commands: dict[RobotId, list[str]], *, log_dir: Path | None = None,
                 env: dict[str, str] | None = None) -> dict[RobotId, BrainProcess]:
    """Start every command (stdout piped for the report, stderr to ``log_dir/ROBOT.log``)."""
    out: dict[RobotId, BrainProcess] = {}
    environment = dict(os.environ if env is None else env)
    environment.setdefault("PYTHONUNBUFFERED", "1")
    for robot, cmd in commands.items():
        stderr_path = None
        if log_dir is not None:
            log_dir.mkdir(parents=True, exist_ok=True)
            stderr_path = log_dir / f"{robot}.log"
            err: Any = open(stderr_path, "w")
        else:
            err = subprocess.DEVNULL
        try:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL, text=True,
                                    env=environment)
        finally:
            if err is not subprocess.DEVNULL:
                err.close()
        out[robot] = BrainProcess(robot, cmd, proc, stderr_path)
    return out
