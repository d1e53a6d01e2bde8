"""The registered soccer nodes against Booster's nodes.json: ids, bases, ports and defaults;
sync nodes never return RUNNING."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from soccerbt.nodes.base import StatefulActionNode, SyncActionNode
from soccerbt.nodes.soccer import register_soccer_nodes, soccer_node_types
from soccerbt.nodes.soccer.booster import BOOSTER_NODE_TYPES
from soccerbt.trees import TreeFactory
from soccerbt.world.types import Pose2D

from .helpers import make_node, make_robot, tick

CPP_TYPES = {"double": float, "int": int, "bool": bool, "string": str, "std::string": str}


def load_spec(shared_dir: Path) -> dict:
    return json.loads((shared_dir / "booster" / "nodes.json").read_text())


def test_every_booster_node_is_registered_with_its_ports(shared_dir: Path) -> None:
    spec = load_spec(shared_dir)
    f = TreeFactory()
    register_soccer_nodes(f)
    registered = soccer_node_types()
    assert set(spec) <= set(registered)
    assert set(spec) == set(BOOSTER_NODE_TYPES)
    for node_id, info in spec.items():
        cls = registered[node_id]
        if info["base"] == "StatefulActionNode":
            assert issubclass(cls, StatefulActionNode), node_id
        else:
            assert issubclass(cls, SyncActionNode) and not issubclass(cls, StatefulActionNode), node_id
        ports = cls.provided_ports()
        assert [p.name for p in ports] == [p["name"] for p in info["ports"]], node_id
        for mine, theirs in zip(ports, info["ports"]):
            where = f"{node_id}.{mine.name}"
            assert mine.direction.value.lower() == theirs["direction"], where
            assert mine.type_ is CPP_TYPES[theirs["type"]], where
            if theirs["default"] is None:
                assert not mine.has_default, where
            else:
                assert mine.default_string() == theirs["default"], where


def test_node_ids_are_unique_between_booster_and_ours() -> None:
    from soccerbt.nodes.soccer.ours import OUR_NODE_TYPES

    assert not set(OUR_NODE_TYPES) & set(BOOSTER_NODE_TYPES)
    assert len(soccer_node_types()) == len(OUR_NODE_TYPES) + len(BOOSTER_NODE_TYPES)


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
