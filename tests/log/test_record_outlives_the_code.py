"""A log is a record: read with a soccerbt whose behaviour changed since the run, every tick's
tree, blackboard and reasons come out as they were recorded.

A match is recorded; soccerbt is copied and a threshold changed in the copy (KickBall's stand-off
behind the ball, as a team would tune it); the copy plays the match differently (``--verify``
finds the first difference), yet every reader of the copy (``--tree --json`` at ticks before and
after the behaviour parts, ``--find``, ``--transitions``, ``--info``) prints what the unchanged
soccerbt prints, byte for byte: nothing is re-run to read a log. The copy's source digest is not
the one the log names.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import soccerbt
from soccerbt.__main__ import main
from soccerbt.log.reader import McapLog

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

PACKAGE = Path(soccerbt.__file__).resolve().parent
THRESHOLD = ("KICK_STAND_OFF_M = 0.35", "KICK_STAND_OFF_M = 0.40")


def _soccerbt(code: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m soccerbt ARGS`` with the soccerbt in `code` first on the path (None: this one)."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    return subprocess.run([sys.executable, "-m", "soccerbt", *args], capture_output=True, text=True, env=env,
                          cwd=code or PACKAGE.parent, timeout=300)


@pytest.fixture(scope="module")
def changed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a 35 s log of seed 2, a copy of soccerbt with the threshold changed)."""
    folder = tmp_path_factory.mktemp("outlives")
    trees = folder / "trees"  # outside the package: the copy plays the same tree files
    shutil.copytree(PACKAGE / "trees" / "xml", trees)
    log = folder / "match.mcap"
    assert main(["run", "--headless", "--quiet", "--seconds", "35", "--seed", "2", "--tree", str(trees / "game.xml"),
                 "--record", str(log)]) == 0
    code = folder / "code"
    shutil.copytree(PACKAGE, code / "soccerbt", ignore=shutil.ignore_patterns("__pycache__"))
    ours = code / "soccerbt" / "nodes" / "soccer" / "soccerbt_nodes.py"
    text = ours.read_text()
    assert THRESHOLD[0] in text
    ours.write_text(text.replace(*THRESHOLD))
    return log, code


def test_the_changed_copy_plays_differently(changed: tuple[Path, Path]) -> None:
    log, code = changed
    again = _soccerbt(code, "replay", str(log), "--verify")
    assert again.returncode == 1 and again.stdout.startswith("first difference at step "), again.stderr
    assert _soccerbt(None, "replay", str(log), "--verify").returncode == 0
    probe = subprocess.run([sys.executable, "-c", "import json, soccerbt.log.software as s; "
                            "print(json.dumps([s.__file__, s.software()['source_digest']]))"],
                           capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(code)), cwd=code,
                           check=True)
    where, digest = json.loads(probe.stdout)
    assert where.startswith(str(code)) and digest != McapLog.open(log).header["software"]["source_digest"]


@pytest.mark.parametrize("args", [
    ["--robot", "blue2", "--at", "12", "--tree", "--json"],   # before the changed behaviour shows
    ["--robot", "blue2", "--at", "29", "--tree", "--json"],   # after it
    ["--robot", "blue3", "--at", "34.5", "--tree"],
    ["--find", "blue2: decision == 'kick' || ApproachBall == RUNNING"],
    ["--robot", "blue2", "--node", "StrikerDecision", "--transitions"],
    ["--info"],
])
def test_every_reader_of_the_changed_copy_prints_the_record(changed: tuple[Path, Path], args: list[str]) -> None:
    log, code = changed
    mine, theirs = _soccerbt(None, "replay", str(log), *args), _soccerbt(code, "replay", str(log), *args)
    assert mine.returncode == theirs.returncode == 0, theirs.stderr
    assert theirs.stdout == mine.stdout and len(mine.stdout) > 40
    assert "deriv" not in theirs.stderr  # nothing re-run to read it
    if "--json" in args:
        tree = json.loads(theirs.stdout)
        assert any(node["reason"] for node in tree["nodes"]) and tree["blackboard"]
