"""The registered soccer nodes against Booster's nodes.json: ids, bases, ports and defaults;
sync nodes never return RUNNING."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from soccerbt.nodes.node_kinds import StatefulActionNode, SyncActionNode
from soccerbt.nodes.soccer import register_soccer_nodes, soccer_node_types
from soccerbt.nodes.soccer._base import booster_default
from soccerbt.nodes.soccer.booster import BOOSTER_NODE_TYPES
from soccerbt.trees import TreeFactory
from soccerbt.world.types import Pose2D

from .helpers import make_node, make_robot, tick

CPP_TYPES = {"double": float, "int": int, "bool": bool, "string": str, "std::string": str}


SPEC_FILES = {"main": "nodes.json", "2026": "trees-2026/nodes.json"}


def load_spec(shared_dir: Path, version: str = "main") -> dict:
    return json.loads((shared_dir / "booster" / SPEC_FILES[version]).read_text())


@pytest.mark.parametrize("version", ["main", "2026"])
def test_every_booster_node_is_registered_with_its_ports(shared_dir: Path, version: str) -> None:
    """Each Booster version's library is exactly its nodes.json: ids, bases, ports, defaults."""
    from soccerbt.nodes.soccer.booster import booster_node_types

    spec = load_spec(shared_dir, version)
    f = TreeFactory()
    register_soccer_nodes(f, booster_version=version)
    registered = soccer_node_types(version)
    assert set(spec) <= set(registered) and set(spec) <= set(f.manifests())
    assert set(spec) == set(booster_node_types(version))
    if version == "main":
        assert set(spec) == set(BOOSTER_NODE_TYPES)
    for node_id, info in spec.items():
        cls = registered[node_id]
        if info["base"] == "StatefulActionNode":
            assert issubclass(cls, StatefulActionNode), node_id
        else:
            assert issubclass(cls, SyncActionNode) and not issubclass(cls, StatefulActionNode), node_id
        ports = cls.provided_ports()
        assert [p.name for p in ports] == [p["name"] for p in info["ports"]], node_id
        for mine, theirs in zip(ports, info["ports"], strict=False):
            where = f"{node_id}.{mine.name}"
            assert mine.direction.value.lower() == theirs["direction"], where
            assert mine.type_ is CPP_TYPES[theirs["type"]], where
            if theirs["default"] is None:
                assert not mine.has_default, where
            else:
                # held as a value of the port's type, as the C++ declares it: BT.CPP's toStr of it
                assert mine.default == booster_default(mine.type_, theirs["default"]), where
                assert type(mine.default) is mine.type_, where


def test_node_ids_are_unique_between_booster_and_ours() -> None:
    from soccerbt.nodes.soccer.booster import booster_node_types
    from soccerbt.nodes.soccer.soccerbt_nodes import OUR_NODE_TYPES

    for version in ("main", "2026", "auto"):
        booster = booster_node_types(version)
        assert not set(OUR_NODE_TYPES) & set(booster)
        assert len(soccer_node_types(version)) == len(OUR_NODE_TYPES) + len(booster)


def test_the_auto_library_is_the_union_and_leaves_version_dependent_defaults_to_the_tree(monkeypatch) -> None:
    from soccerbt.nodes.soccer.booster import booster_node_types
    from soccerbt.nodes.soccer.versions import ENV_VAR

    monkeypatch.delenv(ENV_VAR, raising=False)
    auto = soccer_node_types()
    assert set(booster_node_types("main")) | set(booster_node_types("2026")) == set(booster_node_types("auto"))
    assert "RobocupWalk" in auto
    ports = {p.name: p for p in auto["GoToFreekickPosition"].provided_ports()}
    assert not ports["attack_dist"].has_default and not ports["vx_limit"].has_default
    assert ports["defense_dist"].default_string() == "1.900000"  # BT.CPP's toStr of the double 1.9
    monkeypatch.setenv(ENV_VAR, "2026")
    assert soccer_node_types()["GoToFreekickPosition"].__name__ == "GoToFreekickPosition2026"
    monkeypatch.setenv(ENV_VAR, "1999")
    with pytest.raises(ValueError, match="unknown Booster version"):
        soccer_node_types()


SYNC_TYPES = sorted(n for n, c in soccer_node_types().items()
                    if issubclass(c, SyncActionNode) and not issubclass(c, StatefulActionNode))


def output_ports(cls) -> dict:
    return {p.name: "{decision}" for p in cls.provided_ports() if p.direction.value == "Output"}


@pytest.mark.parametrize("node_id", SYNC_TYPES)
def test_sync_nodes_always_succeed(node_id: str) -> None:
    cls = soccer_node_types()[node_id]
    scenes = [
        dict(pose=Pose2D(), ball=None),
        dict(pose=Pose2D(-3.0, 1.0, 0.5), ball=(1.0, 0.2)),
        dict(pose=Pose2D(6.9, 4.4, math.pi), ball=(0.35, 0.0)),
        dict(pose=Pose2D(-6.5, 0.0, 0.0), ball=(4.0, -2.0)),
    ]
    for scene in scenes:
        r = make_robot()
        r.bb["gc_is_sub_state_kickoff_side"] = True
        r.scene(scene["pose"], scene["ball"])
        node = make_node(cls, r, **output_ports(cls))
        for _ in range(5):
            assert tick(node) == "SUCCESS", (node_id, scene)
            r.see(scene["pose"], scene["ball"])
