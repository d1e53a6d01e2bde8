"""A team's own nodes (soccerbt.trees.plugins): --nodes modules and files, installed entry points,
clashes, broken plugins, where each node came from, and the log's header naming the plugins."""
from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from soccerbt.__main__ import main
from soccerbt.brain_setup import build_tree_factory
from soccerbt.serve.spawn import brain_command
from soccerbt.trees.plugins import (
    ENTRY_POINT_GROUP,
    PluginError,
    load_node_plugins,
    missing_recorded_plugins,
    origin_of,
)
from soccerbt.world.types import RobotId, Team

NODES = '''
from soccerbt.nodes import ConditionNode, InputPort, NodeStatus


class BallFar(ConditionNode):
    @classmethod
    def provided_ports(cls):
        return [InputPort("distance", float, "2.0")]

    def update(self):
        return NodeStatus.SUCCESS


def register_nodes(registrar):
    registrar.register_node_type("BallFar", BallFar)


def other(registrar):
    registrar.register_node_type("BallFarToo", BallFar)
'''

TREE = '''<root BTCPP_format="4" main_tree_to_execute="M">
<BehaviorTree ID="M"><Sequence><BallFar distance="3.0"/><SetVelocity/></Sequence></BehaviorTree>
</root>
'''


def plugin_file(folder: Path, name: str = "team_nodes.py", text: str = NODES) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_a_file_registers_its_nodes_with_their_origin(tmp_path: Path) -> None:
    path = plugin_file(tmp_path)
    factory = build_tree_factory([str(path)])
    assert "BallFar" in factory.manifests()
    assert list(factory.manifests()["BallFar"].ports) == ["distance"]
    assert origin_of(factory, "BallFar") == "plugin team_nodes"
    assert origin_of(factory, "Sequence") == "BehaviorTree.CPP's built-in nodes"
    assert origin_of(factory, "KickBall") == "soccerbt's soccer nodes"
    [plugin] = factory.plugins
    assert (plugin.name, plugin.source, plugin.spec, plugin.nodes) == (
        "team_nodes", f"file {path.resolve()}", str(path), ("BallFar",))


def test_module_function_and_the_same_spec_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plugin_file(tmp_path, "team_mod_nodes.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    factory = build_tree_factory(["team_mod_nodes:other", "team_mod_nodes:other"])  # twice: loaded once
    assert "BallFarToo" in factory.manifests() and "BallFar" not in factory.manifests()
    assert [p.source for p in factory.plugins] == ["module team_mod_nodes"]


@pytest.mark.parametrize("node_id, origin", [("Sequence", "BehaviorTree.CPP's built-in nodes"),
                                              ("KickBall", "soccerbt's soccer nodes")])
def test_a_clash_with_a_registered_node_names_both(tmp_path: Path, node_id: str, origin: str) -> None:
    path = plugin_file(tmp_path, "clash.py", NODES.replace('"BallFar", BallFar)', f'"{node_id}", BallFar)'))
    with pytest.raises(PluginError) as caught:
        build_tree_factory([str(path)])
    assert str(caught.value) == f"--nodes {path}: node {node_id!r} clashes with {origin}; give it another id"


def test_a_clash_between_two_plugins(tmp_path: Path) -> None:
    first = plugin_file(tmp_path, "first.py")
    second = plugin_file(tmp_path, "second.py")
    with pytest.raises(PluginError, match=r"--nodes .*second.py: node 'BallFar' clashes with plugin first"):
        build_tree_factory([str(first), str(second)])


def test_a_plugin_that_replaces_behind_the_registrar_is_refused(tmp_path: Path) -> None:
    sneaky = NODES + '''

def sneaky(registrar):
    registrar._factory.register_node_type("KickBall", BallFar, replace=True)
'''
    path = plugin_file(tmp_path, "sneaky.py", sneaky)
    with pytest.raises(PluginError, match="replaced or removed KickBall .*plugins may only add nodes"):
        build_tree_factory([f"{path}:sneaky"])


@pytest.mark.parametrize("text, spec_suffix, message", [
    ("x = 1 / 0\n", "", r"broken.py:1: ZeroDivisionError: division by zero"),
    ("def register_nodes(r:\n", "", r"broken.py:1: '\(' was never closed"),
    ("x = 1\n", "", r"defines no register_nodes\(registrar\) function"),
    (NODES, ":nothing", r"defines no nothing\(registrar\) function"),
    ("def register_nodes(r):\n    raise RuntimeError('no robots today')\n", "",
     r"registration failed: .*broken.py:2: RuntimeError: no robots today"),
])
def test_a_broken_plugin_says_where(tmp_path: Path, text: str, spec_suffix: str, message: str) -> None:
    path = plugin_file(tmp_path, "broken.py", text)
    with pytest.raises(PluginError, match=message):
        build_tree_factory([f"{path}{spec_suffix}"])


def test_missing_files_and_modules(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match=r"--nodes .*nowhere.py: no such file"):
        build_tree_factory([str(tmp_path / "nowhere.py")])
    with pytest.raises(PluginError, match=r"--nodes no_such_team_module: no such module"):
        build_tree_factory(["no_such_team_module"])


def test_an_installed_entry_point_is_loaded_and_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plugin_file(tmp_path, "installed_team_nodes.py")
    info = tmp_path / "installed_team-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: installed-team\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nteam = installed_team_nodes:register_nodes\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    assert [ep.name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)] == ["team"]
    factory = build_tree_factory()
    [plugin] = factory.plugins
    assert (plugin.name, plugin.version, plugin.spec, plugin.nodes) == ("team", "1.2.3", None, ("BallFar",))
    assert plugin.source == (f"entry point {ENTRY_POINT_GROUP}: team = installed_team_nodes:register_nodes "
                             "(installed-team 1.2.3)")
    assert origin_of(factory, "BallFar") == "plugin team"
    # an installed plugin and a --nodes file with the same node: the file's is the clash
    with pytest.raises(PluginError, match="clashes with plugin team"):
        build_tree_factory([str(plugin_file(tmp_path, "again.py"))])


def test_a_recorded_plugin_that_is_not_loaded_is_named_with_the_way_to_load_it(tmp_path: Path) -> None:
    factory = build_tree_factory()
    recorded = [{"name": "team_nodes", "source": "file /x/team_nodes.py", "spec": "/x/team_nodes.py",
                 "nodes": ["BallFar"]},
                {"name": "team", "source": "entry point", "spec": None, "nodes": ["A", 3]}, "junk", {"name": 5}]
    assert missing_recorded_plugins(recorded, factory) == [
        "the run used the node plugin 'team_nodes' (file /x/team_nodes.py; nodes BallFar), which is not loaded: "
        "give --nodes /x/team_nodes.py",
        "the run used the node plugin 'team' (entry point; nodes A), which is not loaded: install the package "
        "that provides it"]
    assert missing_recorded_plugins("not a list", factory) == []
    path = plugin_file(tmp_path)
    assert missing_recorded_plugins(recorded[:1], build_tree_factory([str(path)])) == []


def test_load_node_plugins_without_entry_points_keeps_a_bare_factory_bare() -> None:
    from soccerbt.trees import TreeFactory

    factory = TreeFactory()
    assert load_node_plugins(factory, [], entry_points=False) == []
    assert factory.plugins == [] and factory.node_origins == {}


def test_nodes_command_lists_plugin_nodes_and_the_plugins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = plugin_file(tmp_path)
    assert main(["nodes", "--nodes", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Condition BallFar(distance:double)  [plugin team_nodes]\n" in out
    assert out.endswith(f"\nplugin team_nodes: file {path.resolve()}\n  nodes: BallFar\n")
    kick = next(line for line in out.splitlines() if " KickBall(" in line)
    assert "[" not in kick.split(")")[-1]  # a soccer node is not marked


def test_validate_and_tree_know_plugin_nodes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = plugin_file(tmp_path)
    tree = tmp_path / "tree.xml"
    tree.write_text(TREE)
    assert main(["validate", str(tree)]) == 1
    assert "BallFar" in capsys.readouterr().out
    assert main(["validate", "--nodes", str(path), str(tree)]) == 0
    assert capsys.readouterr().out == f"{tree}: ok\n"


def test_a_broken_plugin_stops_a_command_before_it_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = plugin_file(tmp_path, "broken.py", "x = 1 / 0\n")
    why = f"--nodes {path}: {path}:1: ZeroDivisionError: division by zero"
    with pytest.raises(SystemExit, match=f"soccerbt: {why}"):
        main(["nodes", "--nodes", str(path)])
    # run: before any match; brain: before any transport is opened
    assert main(["run", "--headless", "--seconds", "1", "--nodes", str(path)]) == 1
    assert f"soccerbt run: {why}" in capsys.readouterr().err
    assert main(["brain", "--robot", "blue1", "--nodes", str(path)]) == 1
    assert f"soccerbt brain: {why}" in capsys.readouterr().err


def test_spawned_brains_get_the_matchs_plugins() -> None:
    cmd = brain_command(RobotId(Team.BLUE, 2), Path("t.xml"), field_name="S", team_size=2, half_s=600.0,
                        team_number=1, seed=0, domain=0, interface=None, gc_port=1, gc_return_port=2,
                        team_address="127.0.0.1", node_plugins=("/abs/team.py", "team_mod"))
    at = cmd.index("--nodes")
    assert cmd[at:at + 4] == ["--nodes", "/abs/team.py", "--nodes", "team_mod"]


def test_match_options_carry_nodes_with_files_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from soccerbt.cli.match_options import add_match_arguments, config_from_args, shape_from_args

    plugin_file(tmp_path)
    monkeypatch.chdir(tmp_path)
    parser = argparse.ArgumentParser()
    add_match_arguments(parser)
    args = parser.parse_args(["--nodes", "team_nodes.py", "--nodes", "team_mod:register"])
    expected = (str(tmp_path / "team_nodes.py"), "team_mod:register")
    assert config_from_args(args).node_plugins == expected
    assert shape_from_args(args).node_plugins == expected


def test_node_plugins_of_a_match_config_are_a_tuple_of_texts() -> None:
    from soccerbt.match import MatchConfig

    assert MatchConfig(node_plugins=["a.py"]).node_plugins == ("a.py",)
    with pytest.raises(ValueError, match="node_plugins"):
        MatchConfig(node_plugins="a.py")
