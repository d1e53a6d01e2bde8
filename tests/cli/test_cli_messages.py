"""Clear messages instead of tracebacks for the usual mistakes on the command line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from soccerbt.nodes.stubs import stub_node_types

SOCCERBT = [sys.executable, "-m", "soccerbt"]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(SOCCERBT + list(args), capture_output=True, text=True)


def test_a_negative_seed_names_the_option() -> None:
    out = _run("run", "--headless", "--seconds", "1", "--seed", "-1")
    assert out.returncode == 2 and "argument --seed: a seed is 0 or more, got -1" in out.stderr


def test_a_folder_given_as_the_tree_names_the_option_used(tmp_path: Path) -> None:
    out = _run("run", "--headless", "--seconds", "1", "--tree", str(tmp_path))
    assert out.returncode == 1 and f"{tmp_path}: is a directory, not a tree file (--tree)" in out.stderr
    out = _run("run", "--headless", "--seconds", "1", "--red-tree", str(tmp_path / "none.xml"))
    assert out.returncode == 1 and "no such tree file (--red-tree)" in out.stderr
    out = _run("batch", "--seeds", "0", "--tree", str(tmp_path))
    assert out.returncode == 1 and "is a directory, not a tree file (--tree)" in out.stderr


def test_a_pad_for_a_robot_not_in_the_match_is_refused() -> None:
    out = _run("run", "--headless", "--seconds", "1", "--pad", "red9")
    assert out.returncode == 1 and "--pad red9: no such robot in this match" in out.stderr
    assert "red3" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("content,message", [
    (None, "cannot read (No such file or directory)"),
    ('{"A":', ":1: not JSON"),
    ("[1, 2]", "expected an object of node types, got list"),
    ('{"Kick": {"ports": 3}}', "Kick: 'ports' must be a list"),
    ('{"Kick": {"ports": [{"direction": "input"}]}}', "Kick: every port needs a 'name'"),
    ('{"Kick": {"ports": [{"name": "x", "direction": "sideways"}]}}', "unknown direction 'sideways'"),
])
def test_a_bad_nodes_json_gives_one_located_message(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "nodes.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ValueError) as err:
        stub_node_types(path)
    assert str(err.value).startswith(str(path)) and message in str(err.value)


def test_a_good_nodes_json_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps({"Kick": {"base": "StatefulActionNode",
                                         "ports": [{"name": "speed", "direction": "input", "type": "double"}]}}))
    types = stub_node_types(path)
    assert list(types) == ["Kick"] and [p.name for p in types["Kick"][1]] == ["speed"]


def test_validate_with_a_bad_nodes_json_prints_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "nodes.json"
    bad.write_text("[1, 2]")
    tree = Path(__file__).resolve().parents[2] / "soccerbt/trees/xml/game.xml"
    for path in (bad, tmp_path / "missing.json"):
        out = _run("validate", "--nodes-json", str(path), str(tree))
        assert out.returncode == 1 and "Traceback" not in out.stderr
        assert out.stderr.strip().startswith(f"soccerbt: --nodes-json {path}")
