"""Issue 28, item 1: ``replay --verify`` trusts nothing in the log. It reads only the files of the
configured trees (regular, bounded, that are trees), never a path the header alone names; it
checks the stored configuration against the command line's limits; it compares the re-run with
the log as it goes, so a log that claims more steps than it holds stops at once; and it says
what it refused. Each case runs the command under a memory cap."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import soccerbt_tests_hostile as H  # noqa: E402 - registered by tests/conftest.py

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return H.record_small(tmp_path_factory.mktemp("verify"), seconds=0.3)


def _header_changed(recorded: Path, out: Path, change, index=None) -> Path:
    log = H.read_log(recorded)
    m = log.messages("/soccerbt/header")[0]
    header = json.loads(m.data)
    change(header)
    m.data = json.dumps(header).encode()
    if index is not None:
        log.index = json.dumps(index(json.loads(log.index))).encode()
    return log.write(out)


def _verify(path: Path) -> Any:
    return H.soccerbt("replay", str(path), "--verify", mem_mib=1536, timeout=120)


def test_a_fresh_log_still_verifies(recorded: Path) -> None:
    proc = _verify(recorded)
    assert proc.returncode == 0 and proc.stdout == f"{recorded}: reproduces (30 steps, seed 1)\n", proc.stderr


@pytest.mark.parametrize("target", ["/dev/zero", "fifo", "/etc/passwd", "dir"])
def test_the_header_naming_other_files_is_refused_without_reading_them(recorded: Path, tmp_path: Path,
                                                                       target: str) -> None:
    if target == "fifo":
        target = str(tmp_path / "pipe.xml")
        os.mkfifo(target)  # opening it would wait for a writer forever
    elif target == "dir":
        target = str(tmp_path)
    if not os.path.exists(target):
        pytest.skip(f"{target} is not on this machine")

    def point_at_it(h: dict) -> None:  # the configured tree and its listed file: the target
        h["config"]["blue_tree"] = target
        h["trees"]["blue"] = {"path": target, "files": [{"path": target, "sha256": "0" * 64}], "idle": False}

    path = _header_changed(recorded, tmp_path / "named.mcap", point_at_it)
    proc = _verify(path)
    assert proc.returncode == 1, proc.stderr
    if target == "/etc/passwd":
        assert proc.stdout.startswith("refused: /etc/passwd: not a BehaviorTree.CPP tree (Error parsing the XML: ")
        assert proc.stdout.rstrip().endswith("verify reads only tree files")
    else:  # never opened: not a file the configured tree is
        assert proc.stdout == (f"refused: the header lists {os.path.realpath(target)} among the blue tree's files, "
                               f"but {target} does not include it; verify reads only the files of the configured "
                               "tree\n")


def test_a_listed_file_the_tree_does_not_include_is_never_read(recorded: Path, tmp_path: Path) -> None:
    def add(h: dict) -> None:
        h["trees"]["blue"]["files"].append({"path": "/dev/zero", "sha256": "0" * 64})

    path = _header_changed(recorded, tmp_path / "extra.mcap", add)
    proc = _verify(path)
    assert proc.returncode == 1
    assert proc.stdout.startswith("refused: the header lists /dev/zero among the blue tree's files")


@pytest.mark.parametrize("key,value,message", [
    ("particles", 10 ** 9, "config.particles 1000000000 is not 1..10,000 particles a robot"),
    ("team_size", "3", "config.team_size '3' is not 1..5 robots a team on that field"),
    ("team_size", 40, "config.team_size 40 is not 1..5 robots a team on that field"),
    ("half_s", float("nan"), "config.half_s nan is not a positive number of seconds"),
    ("seed", -1, "config.seed -1 is not a seed (0 or more)"),
    ("field", ["M"], "config.field ['M'] is no field (S, M or L)"),
    ("idle_teams", "red", "config.idle_teams is not a list of blue and red"),
    ("gc_version", 13, "config.gc_version 13 is not 12, 19 or 20"),
    ("blue_tree", 7, "config.blue_tree is not a file name"),
])
def test_a_stored_configuration_outside_the_command_lines_limits_is_refused(recorded: Path, tmp_path: Path, key: str,
                                                                            value: Any, message: str) -> None:
    def change(h: dict) -> None:
        h["config"][key] = value

    path = _header_changed(recorded, tmp_path / "cfg.mcap", change)
    proc = _verify(path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"{path}: refused to re-run: the header's {message}\n"


def test_a_log_claiming_endless_steps_and_halves_stops_where_it_ends(recorded: Path, tmp_path: Path) -> None:
    def endless(index: dict) -> dict:
        index["steps"] = 10 ** 12
        return index

    path = _header_changed(recorded, tmp_path / "endless.mcap", lambda h: None, endless)
    proc = _verify(path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == "the log ends before step 31: the re-run goes on"

    def long_halves(h: dict) -> None:
        h["config"]["half_s"] = 1e9

    path = _header_changed(recorded, tmp_path / "halves.mcap", long_halves, endless)
    proc = _verify(path)  # the clock shows another half: it differs at once, and stops there
    assert proc.returncode == 1
    assert "first difference at step 1 (t=0.01s), log / re-run:" in proc.stdout.splitlines()
