"""The command line imports only what a command needs (issue 16): `soccerbt --help`,
`soccerbt nodes --xml` and `soccerbt validate` start without scipy, shapely or pygame.

Each case runs the command in a fresh interpreter and then looks at ``sys.modules``: no timing.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("scipy", "shapely", "pygame")
ROOT = Path(__file__).resolve().parents[1]
GAME_TREES = [ROOT / "soccerbt" / "trees" / "xml" / "game.xml",
              ROOT.parent / "shared" / "booster" / "trees" / "game.xml"]  # ours, Booster's

_PROBE = """
import contextlib, io, json, sys
from soccerbt.__main__ import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:  # --help
        code = exc.code
heavy = sorted({name.split(".")[0] for name in sys.modules} & {%s})
sys.stderr.write(json.dumps({"code": code, "heavy": heavy, "out": out.getvalue()}))
""" % ", ".join(repr(h) for h in HEAVY)


def run_probe(*argv: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stderr.strip().splitlines()[-1])


def test_help_imports_no_heavy_module():
    result = run_probe("--help")
    assert result["code"] == 0
    assert result["heavy"] == []
    for name in ("run", "view", "validate", "nodes", "tree", "gc", "replay", "batch"):
        assert name in result["out"]  # every command is still listed


def test_nodes_xml_imports_no_heavy_module():
    result = run_probe("nodes", "--xml")
    assert result["code"] == 0
    assert result["heavy"] == []
    assert "<TreeNodesModel>" in result["out"]


@pytest.mark.parametrize("tree", GAME_TREES, ids=["ours", "booster"])
def test_validate_imports_no_heavy_module(tree):
    if not tree.is_file():
        pytest.skip(f"{tree} missing")
    result = run_probe("validate", str(tree))
    assert result["code"] == 0 and result["out"] == f"{tree}: ok\n"
    assert result["heavy"] == []


def test_command_help_configures_only_that_command():
    result = run_probe("validate", "--help")
    assert result["code"] == 0 and "--allow-any-include" in result["out"]
    assert result["heavy"] == []


def test_parser_without_argv_configures_every_command():
    from soccerbt.__main__ import build_parser

    parser = build_parser()
    args = parser.parse_args(["nodes", "--xml"])
    assert args.xml and callable(args.func)
