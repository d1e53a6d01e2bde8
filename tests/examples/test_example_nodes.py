"""examples/soccerbt-example-nodes installed as a team would install it: its entry point adds two
nodes that its sweeper tree plays a match with; the log names the plugin and holds what its nodes
did and why; a re-run finds the plugin installed, or says how to get it; a --nodes file reaches
batch workers and the replay's re-run and --verify."""
from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from soccerbt.log.reader import McapLog

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "soccerbt-example-nodes"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example installed into a folder of its own (from a copy: the checkout stays clean)."""
    base = tmp_path_factory.mktemp("example")
    source = base / "src"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    target = base / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                           "--no-index", "--target", str(target), str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (target / "soccerbt_example_nodes" / "trees" / "sweeper.xml").is_file()
    return target


def soccerbt(*argv: str, site: Path | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy"}
    env.pop("PYTHONPATH", None)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.run([sys.executable, "-m", "soccerbt", *argv], capture_output=True, text=True, env=env,
                          cwd=cwd)


@pytest.fixture(scope="module")
def sweeper_log(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    log = tmp_path_factory.mktemp("match") / "sweeper.mcap"
    tree = installed / "soccerbt_example_nodes" / "trees" / "sweeper.xml"
    done = soccerbt("run", "--headless", "--seconds", "30", "--field", "S", "--team-size", "2", "--seed", "1",
                    "--blue-tree", str(tree), "--record", str(log), "--json", site=installed)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["sim_s"] == 30.0
    assert all(r["node_exceptions"] == 0 for r in result["robots"])
    return log


def test_the_installed_plugin_is_listed_with_its_nodes(installed: Path) -> None:
    done = soccerbt("nodes", site=installed)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "Condition BallCloserThan(distance:double)  [plugin example]" in lines
    assert "Action    WalkToSpot(x:double, y:double, theta:double, tolerance:double, speed:double)  [plugin example]" \
        in lines
    assert "plugin example 0.1.0: entry point soccerbt.nodes: example = soccerbt_example_nodes:register_nodes " \
           "(soccerbt-example-nodes 0.1.0)" in lines
    if not importlib.metadata.entry_points(group="soccerbt.nodes"):  # not installed here: not there
        assert soccerbt("nodes").stdout.count("[plugin") == 0


def test_a_match_plays_the_plugins_nodes_and_the_log_says_so(sweeper_log: Path) -> None:
    log = McapLog.open(sweeper_log)
    [plugin] = log.header["node_plugins"]
    assert (plugin["name"], plugin["version"], plugin["spec"], plugin["nodes"]) == (
        "example", "0.1.0", None, ["BallCloserThan", "WalkToSpot"])
    for robot in ("blue1", "blue2"):
        done = soccerbt("replay", str(sweeper_log), "--robot", robot, "--node", "WalkToSpot", "--transitions")
        assert done.returncode == 0, done.stderr
        assert "guard the spot #8: IDLE -> RUNNING" in done.stdout  # in PLAY it walks to its spot
    found = soccerbt("replay", str(sweeper_log), "--find", "blue1: #8.reason ~ 'walking to (-3.0, 0.0)'")
    assert found.returncode == 0 and not found.stdout.startswith("0 range"), found.stdout + found.stderr


def test_a_rerun_finds_the_installed_plugin_or_says_how_to_get_it(installed: Path, sweeper_log: Path) -> None:
    again = soccerbt("replay", str(sweeper_log), "--rerun", "--robot", "blue1", site=installed)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "blue1: the re-run's statuses, decisions, reasons and commands are the log's at every tick of " \
           "t=0.01-30.00s (3000 ticks)" in again.stdout
    without = soccerbt("replay", str(sweeper_log), "--rerun", "--robot", "blue1")
    assert without.returncode == 2
    assert without.stderr.strip() == (
        f"{sweeper_log}: the run used the node plugin 'example' (entry point soccerbt.nodes: example = "
        "soccerbt_example_nodes:register_nodes (soccerbt-example-nodes 0.1.0); nodes BallCloserThan, WalkToSpot), "
        "which is not loaded: install the package that provides it")


def test_a_nodes_file_reaches_batch_workers_and_the_verify(installed: Path, tmp_path: Path) -> None:
    # the example's nodes as a file a team has not installed: copied out of the package
    nodes = tmp_path / "sweeper_nodes.py"
    nodes.write_text((EXAMPLE / "soccerbt_example_nodes" / "nodes.py").read_text() + '''

def register_nodes(registrar):
    registrar.register_node_type("BallCloserThan", BallCloserThan)
    registrar.register_node_type("WalkToSpot", WalkToSpot)
''')
    tree = EXAMPLE / "soccerbt_example_nodes" / "trees" / "sweeper.xml"
    out = tmp_path / "games"
    done = soccerbt("batch", "--seeds", "1-2", "--jobs", "2", "--seconds", "26", "--field", "S", "--team-size", "1",
                    "--nodes", nodes.name, "--tree", str(tree), "--out", str(out), "--record", "--json",
                    str(tmp_path / "batch.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    logs = sorted(out.rglob("*.mcap"))
    assert len(logs) == 2
    for path in logs:
        [plugin] = McapLog.open(path).header["node_plugins"]
        assert plugin["spec"] == str(nodes) and plugin["nodes"] == ["BallCloserThan", "WalkToSpot"]
    assert soccerbt("replay", str(logs[0]), "--verify").returncode == 2  # the plugin is named, not guessed
    verified = soccerbt("replay", str(logs[0]), "--verify", "--nodes", str(nodes))
    assert verified.returncode == 0, verified.stdout + verified.stderr


@pytest.mark.ray
def test_a_nodes_file_reaches_ray_tasks(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    from soccerbt.match import MatchConfig
    from soccerbt.tools.batch.batch import plan_games, run_batch

    nodes = tmp_path / "sweeper_nodes.py"
    nodes.write_text((EXAMPLE / "soccerbt_example_nodes" / "nodes.py").read_text() + '''

def register_nodes(registrar):
    registrar.register_node_type("BallCloserThan", BallCloserThan)
    registrar.register_node_type("WalkToSpot", WalkToSpot)
''')
    tree = str(EXAMPLE / "soccerbt_example_nodes" / "trees" / "sweeper.xml")
    base = MatchConfig(field="S", team_size=1, duration_s=3.0, node_plugins=(str(nodes),))
    games = plan_games(base, [1, 2], tree, tree)
    logs = [str(tmp_path / f"game{k}.mcap") for k in range(len(games))]
    outcomes = run_batch(games, jobs=2, backend="ray", record_paths=logs)
    assert [o.error for o in outcomes] == [None, None]
    for path in logs:
        [plugin] = McapLog.open(path).header["node_plugins"]
        assert plugin["spec"] == str(nodes) and plugin["nodes"] == ["BallCloserThan", "WalkToSpot"]
