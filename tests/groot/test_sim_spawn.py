"""``soccerbt sim --serve booster --spawn --groot PORT``: each spawned brain is started with
``--groot HOST:PORT+2i`` (robot i of the --json robots list), said at start and under ``groot``
in --json. In process, over the in-memory transport (no DDS), the brains' processes faked (their
command lines kept): what a brain does with --groot is tests/groot/test_brain.py's."""
from __future__ import annotations

import argparse
import json
import signal
from pathlib import Path

import pytest

from soccerbt.serve import cli as sim_cli
from soccerbt.serve.spawn import brain_command, groot_endpoints
from soccerbt.world.types import RobotId, Team


class FakeBrain:
    def __init__(self, command: list[str]) -> None:
        self.command = command

    def alive(self) -> bool:
        return False

    def stop(self) -> dict:
        return {}

    def stderr_tail(self) -> str:
        return ""


def _sim(argv: list[str], monkeypatch, capsys) -> tuple[int, dict[str, list[str]], str, str]:
    started: dict[str, list[str]] = {}

    def spawn(commands, log_dir=None):  # noqa: ANN001, ANN202
        started.update({str(r): cmd for r, cmd in commands.items()})
        return {r: FakeBrain(cmd) for r, cmd in commands.items()}

    monkeypatch.setattr(sim_cli, "spawn_brains", spawn)
    monkeypatch.setattr(signal, "signal", lambda *a: None)  # the test runner keeps its handlers
    parser = argparse.ArgumentParser()
    sim_cli.configure(parser)
    args = parser.parse_args(["--serve", "booster", *argv])
    args.transport = "memory"  # in-process only (not a choice of the command)
    code = args.func(args)
    out = capsys.readouterr()
    return code, started, out.out, out.err


def test_spawned_brains_get_their_groot_ports(monkeypatch, capsys, tmp_path) -> None:
    code, started, out, err = _sim(["--spawn", "--groot", "1800", "--team-size", "2", "--no-referee",
                                    "--seconds", "0.05", "--wait-brains", "0.01", "--speed", "max", "--json",
                                    "--quiet", "--brain-logs", str(tmp_path), "--domain", "203"],
                                   monkeypatch, capsys)
    assert code == 0
    robots = ["blue1", "blue2", "red1", "red2"]
    assert sorted(started) == robots
    for i, robot in enumerate(robots):
        cmd = started[robot]
        assert cmd[cmd.index("--groot") + 1] == f"127.0.0.1:{1800 + 2 * i}"
        assert f"Groot2: {robot}'s brain at 127.0.0.1:{1800 + 2 * i} (notifications {1801 + 2 * i})" in err
    summary = json.loads(out)
    assert [r["robot"] for r in summary["robots"]] == robots
    assert summary["groot"] == [{"robot": r, "host": "127.0.0.1", "port": 1800 + 2 * i, "publisher_port": 1801 + 2 * i}
                                for i, r in enumerate(robots)]


def test_groot_without_spawn_is_refused(monkeypatch, capsys) -> None:
    code, started, _out, err = _sim(["--groot", "--no-referee", "--seconds", "0.05"], monkeypatch, capsys)
    assert code == 2 and not started and "--groot goes with --spawn" in err


def test_the_plain_robot_keeps_its_pair_unused() -> None:
    robots = [RobotId(Team.BLUE, 1), RobotId(Team.BLUE, 2), RobotId(Team.RED, 1)]
    endpoints = groot_endpoints(robots, [robots[0], robots[2]], "127.0.0.1", 1667)
    assert {str(r): e.port for r, e in endpoints.items()} == {"blue1": 1667, "red1": 1671}
    with pytest.raises(ValueError, match="above 65535"):
        groot_endpoints(robots, robots, "127.0.0.1", 65532)  # red1 would need 65536 and 65537
    cmd = brain_command(robots[0], tmp := Path("t.xml"), field_name="kid", team_size=1,
                        half_s=600.0, team_number=1, seed=1, domain=0, interface=None, gc_port=3838,
                        gc_return_port=3939, team_address="127.255.255.255", groot=endpoints[robots[0]])
    assert cmd[-2:] == ["--groot", "127.0.0.1:1667"] and str(tmp) in cmd
    assert "--groot" not in brain_command(robots[0], tmp, field_name="kid", team_size=1, half_s=600.0,
                                          team_number=1, seed=1, domain=0, interface=None, gc_port=3838,
                                          gc_return_port=3939, team_address="127.255.255.255")
