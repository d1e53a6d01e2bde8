"""Every shipped tree, and every tree of Booster's robocup_demo, loads against the real soccer
nodes with the blackboard schema declared; a typo in a guard is a located load error."""
from __future__ import annotations

from pathlib import Path

import pytest

from soccerbt.blackboard.schema import SCHEMA, default_blackboard_values
from soccerbt.nodes.soccer import register_soccer_nodes, soccer_node_types
from soccerbt.nodes.soccer.context import RobotContext
from soccerbt.services.world_model import WorldModel
from soccerbt.trees import TreeFactory, TreeLoadError
from soccerbt.world.field import Field
from soccerbt.world.types import RobotId, Team

XML_DIR = Path(__file__).resolve().parents[2] / "soccerbt" / "trees" / "xml"
SHIPPED = sorted(XML_DIR.rglob("*.xml"))


def factory() -> TreeFactory:
    f = TreeFactory()
    register_soccer_nodes(f)
    return f


def tick_a_few_times(f: TreeFactory, path: Path, state: str = "PLAY") -> list[str]:
    """Build the tree for a robot with an empty world model and tick it in a game state."""
    field = Field.adult_size()
    t = {"now": 0.0}
    ctx = RobotContext(RobotId(Team.BLUE, 2), field, lambda: t["now"], WorldModel(field, Team.BLUE))
    tree = f.create_tree_from_file(path, context=ctx, clock=ctx.now_s)
    bb = tree.root_blackboard()
    for key, value in default_blackboard_values().items():
        if key not in bb:
            bb[key] = value
    ctx.blackboard = bb
    bb["gc_game_state"] = state
    out = []
    for _ in range(3):
        t["now"] += 0.01
        out.append(tree.tick_exactly_once().name)
    return out


def test_the_shipped_trees_exist() -> None:
    names = {p.relative_to(XML_DIR).as_posix() for p in SHIPPED}
    assert {"game.xml", "subtrees/common.xml", "subtrees/play.xml", "subtrees/free_kick.xml"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(XML_DIR).as_posix())
def test_shipped_tree_loads(path: Path) -> None:
    f = factory()
    if path.name == "game.xml":
        for state in ("INITIAL", "READY", "SET", "PLAY", "END"):
            assert set(tick_a_few_times(f, path, state)) <= {"SUCCESS", "RUNNING", "SKIPPED"}
    else:
        f.register_behavior_tree_from_file(path)  # subtree libraries: every tree in them builds
        for tree_id in f.registered_behavior_trees():
            f.create_tree(tree_id)


def test_game_tree_uses_only_declared_keys_and_registered_nodes() -> None:
    text = "".join(p.read_text() for p in SHIPPED)
    used_ids = {name for name in soccer_node_types() if f"<{name} " in text or f"<{name}/" in text
                or f"<{name}>" in text}
    assert {"HeadControl", "PlanKick", "StrikerDecision", "ApproachBall", "KickBall", "GoalkeeperDecision",
            "GoalkeeperPosition", "ClearBall", "GoToKickoffPosition", "SupportPosition", "FreeKickPosition",
            "SearchBall", "CheckAndStandUp", "SetVelocity"} <= used_ids
    for key in ("control_state", "go_manual", "assist_chase", "assist_kick", "gc_is_under_penalty",
                "gc_game_sub_state_type", "gc_game_state", "gc_game_sub_state", "player_role",
                "wait_for_opponent_kickoff", "odom_calibrated", "decision", "fallen"):
        assert key in SCHEMA and key in text


def booster_trees(shared_dir: Path) -> list[Path]:
    return sorted((shared_dir / "booster" / "trees").rglob("*.xml"))


def test_every_booster_tree_loads_unmodified(shared_dir: Path) -> None:
    paths = booster_trees(shared_dir)
    assert any(p.name == "game.xml" for p in paths) and len(paths) >= 9
    for path in paths:
        f = factory()
        if path.name == "game.xml":
            for state in ("INITIAL", "READY", "SET", "PLAY"):
                assert set(tick_a_few_times(f, path, state)) <= {"SUCCESS", "RUNNING", "SKIPPED"}
        else:
            f.register_behavior_tree_from_file(path)


def test_a_typo_in_a_guard_is_an_unknown_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text('<root BTCPP_format="4">\n<BehaviorTree ID="MainTree">\n'
                   '  <SetVelocity _while="bal_out" />\n</BehaviorTree>\n</root>\n')
    with pytest.raises(TreeLoadError) as err:
        factory().create_tree_from_file(bad)
    assert err.value.line == 3 and "bal_out" in str(err.value)
    good = tmp_path / "good.xml"
    good.write_text(bad.read_text().replace("bal_out", "ball_out"))
    factory().create_tree_from_file(good)
