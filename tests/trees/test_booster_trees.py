"""Booster's robocup_demo trees load unmodified (stub leaves from nodes.json), and
`soccerbt validate` reports broken trees with line numbers."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from soccerbt.__main__ import main
from soccerbt.nodes.stubs import StatefulStub, SyncStub, register_stub_nodes
from soccerbt.trees import TreeFactory, TreeLoadError

PLAY = dict(control_state=0, go_manual=False, assist_kick=False, assist_chase=False,
            gc_is_under_penalty=False, gc_game_sub_state_type="NONE", gc_game_state="PLAY",
            player_role="striker", decision="chase", wait_for_opponent_kickoff=False,
            ball_out=False, ball_location_known=True, tm_ball_pos_reliable=False,
            odom_calibrated=True, gc_game_sub_state="NONE", gc_is_sub_state_kickoff_side=False)


@pytest.fixture
def booster(shared_dir) -> Path:
    return shared_dir / "booster"


@pytest.fixture
def factory(booster) -> TreeFactory:
    f = TreeFactory()
    ids = register_stub_nodes(f, booster / "nodes.json")
    assert "StrikerDecide" in ids and "Kick" in ids
    return f


def _ticked(tree) -> list[str]:
    """Stub leaves that ran during the last tick (not skipped)."""
    return [n.registration_id for n in tree.active_nodes()
            if isinstance(n, (SyncStub, StatefulStub)) and n.last_status.name != "SKIPPED"]


def test_game_tree_loads_with_its_includes(factory, booster):
    tree = factory.create_tree_from_file(booster / "trees" / "game.xml")
    ids = {s.tree_id for s in tree.subtrees}
    assert {"MainTree", "StrikerPlay", "GoalKeeperPlay", "Locate", "FindBall",
            "CamFindAndTrackBall", "AutoGetUpAndLocate", "StrikerFreekick"} <= ids
    assert tree.root.name == "root" and tree.root.path == "MainTree/root"
    kick = tree.find("MainTree/root/ReactiveSequence[1]/Sequence[1]/Kick[0]")
    assert kick is not None and kick.get_input("speed_limit") == pytest.approx(0.9)
    assert kick.get_input("msecs_stablize") == pytest.approx(1000.0)  # default from nodes.json


def test_play_branch_runs_the_striker(factory, booster):
    tree = factory.create_tree_from_file(booster / "trees" / "game.xml")
    bb = tree.root_blackboard()
    for k, v in PLAY.items():
        bb[k] = v
    assert tree.tick_exactly_once().name == "SUCCESS"
    assert bb["control_state"] == 3  # the RunOnce script
    ticked = _ticked(tree)
    assert "StrikerDecide" in ticked and "Chase" in ticked and "CheckAndStandUp" in ticked
    assert "GoalieDecide" not in ticked and "Kick" not in ticked
    # decision written by the test steers the striker: kick is a StatefulActionNode
    bb["decision"] = "kick"
    assert tree.tick_exactly_once().name == "RUNNING"
    assert "Kick" in _ticked(tree) and "Chase" not in _ticked(tree)


def test_running_kick_is_halted_when_decision_changes(factory, booster):
    tree = factory.create_tree_from_file(booster / "trees" / "game.xml")
    bb = tree.root_blackboard()
    for k, v in PLAY.items():
        bb[k] = v
    bb["decision"] = "kick"
    assert tree.tick_exactly_once().name == "RUNNING"
    kicks = [n for n in tree.nodes() if n.registration_id == "Kick" and n.node_status.name == "RUNNING"]
    assert len(kicks) == 1
    bb["decision"] = "chase"
    assert tree.tick_exactly_once().name == "SUCCESS"
    assert kicks[0].halt_count == 1 and kicks[0].node_status.name == "IDLE"


def test_two_robots_share_no_state(factory, booster):
    a = factory.create_tree_from_file(booster / "trees" / "game.xml", context="robot-a")
    b = factory.create_tree_from_file(booster / "trees" / "game.xml", context="robot-b")
    a.root_blackboard()["decision"] = "kick"
    assert "decision" not in b.root_blackboard()
    assert {n.context for n in a.nodes()} == {"robot-a"}


# ---------------------------------------------------------------- validate


def _copy_trees(booster: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "trees"
    shutil.copytree(booster / "trees", dst)
    for p in dst.rglob("*.xml"):
        p.chmod(0o644)
    dst.chmod(0o755)
    (dst / "subtrees").chmod(0o755)
    return dst


def _replace(path: Path, old: str, new: str) -> int:
    text = path.read_text()
    assert old in text
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, 1))
    return line


def _validate(capsys, booster, *files) -> tuple[int, list[str]]:
    rc = main(["validate", "--no-soccer", "--nodes-json", str(booster / "nodes.json"),
               *map(str, files)])
    return rc, capsys.readouterr().out.splitlines()


def test_validate_accepts_the_original(capsys, booster):
    rc, out = _validate(capsys, booster, booster / "trees" / "game.xml")
    assert rc == 0 and out == [f"{booster / 'trees' / 'game.xml'}: ok"]


def test_validate_reports_each_broken_tree_with_its_line(capsys, booster, tmp_path):
    trees = _copy_trees(booster, tmp_path)
    play = trees / "subtrees" / "subtree_striker_play.xml"
    l_node = _replace(play, "<CalcKickDir />", "<CalcKikDir />")
    l_port = _replace(play, 'chase_threshold="1.0"', 'chase_treshold="1.0"')
    l_script = _replace(play, "_while=\"decision == 'assist'\"", "_while=\"decision == \"")
    game = trees / "game.xml"
    l_incl = _replace(game, "subtree_locate.xml", "subtree_locat.xml")
    loc = trees / "subtrees" / "subtree_locate.xml"
    l_cycle = 1 + _replace(loc, '<root BTCPP_format="4" >',
                           '<root BTCPP_format="4" >\n  <include path="../game.xml"/>')
    rc, out = _validate(capsys, booster, game, loc)
    assert rc == 1
    text = "\n".join(out)
    assert f"{play}:{l_node}: Node not recognized: CalcKikDir" in text
    assert f"{play}:{l_port}: a port with name [chase_treshold]" in text
    assert f"{play}:{l_script}: <Assist> attribute _while: Error in the script" in text
    assert f"{game}:{l_incl}: cannot open included file \"./subtrees/subtree_locat.xml\"" in text
    cycle = [o for o in out if "include cycle" in o]
    # reported where the cycle closes: the include added to subtree_locate.xml
    assert cycle and cycle[0].startswith(f"{loc}:{l_cycle}: include cycle: game.xml -> ")
    assert cycle[0].endswith("subtree_locate.xml -> game.xml")


def test_create_raises_the_first_located_error(factory, booster, tmp_path):
    trees = _copy_trees(booster, tmp_path)
    play = trees / "subtrees" / "subtree_striker_play.xml"
    line = _replace(play, "<CalcKickDir />", "<CalcKikDir />")
    with pytest.raises(TreeLoadError) as info:
        factory.create_tree_from_file(trees / "game.xml")
    assert info.value.line == line and info.value.path.endswith("subtree_striker_play.xml")
    # BT.CPP checks the children of a ReactiveSequence before recursing into them (there, with
    # the message and the "did you mean" the node's own check gives: one form wherever it is found)
    assert str(info.value).endswith(f":{line}: Node not recognized: CalcKikDir; did you mean 'CalcKickDir'?")


# ---------------------------------------------------------------- Booster's 2026 branch


def _tree_files(booster: Path, folder: str) -> list[Path]:
    return sorted((booster / folder).rglob("*.xml"))


@pytest.mark.parametrize("folder", ["trees-2026", "trees"])
def test_validate_passes_on_every_tree_file_with_our_node_library(capsys, booster, folder, monkeypatch):
    monkeypatch.delenv("SOCCERBT_BOOSTER_VERSION", raising=False)
    files = _tree_files(booster, folder)
    assert len(files) == 9
    rc = main(["validate", *map(str, files)])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0, out
    assert out == [f"{f}: ok" for f in files]


def test_the_main_library_refuses_the_2026_trees_and_the_2026_library_takes_both(capsys, booster, monkeypatch):
    monkeypatch.setenv("SOCCERBT_BOOSTER_VERSION", "main")
    assert main(["validate", str(booster / "trees-2026" / "game.xml")]) == 1
    assert "Node not recognized: RobocupWalk" in capsys.readouterr().out
    monkeypatch.setenv("SOCCERBT_BOOSTER_VERSION", "2026")
    assert main(["validate", str(booster / "trees-2026" / "game.xml"), str(booster / "trees" / "game.xml")]) == 0


def _freekick_defaults(factory: TreeFactory, game: Path) -> set[tuple[float, float]]:
    tree = factory.create_tree_from_file(game)
    nodes = [n for n in tree.nodes() if n.registration_id == "GoToFreekickPosition"]
    assert nodes
    # the defense node sets neither port: its values are the defaults
    return {(n.get_input("attack_dist"), n.get_input("vx_limit")) for n in nodes
            if n.get_input("side") == "defense"}


def test_go_to_freekick_position_defaults_follow_the_trees_version(booster, tmp_path):
    from soccerbt.nodes.soccer import register_soccer_nodes
    from soccerbt.nodes.soccer.versions import detect_tree_version

    assert detect_tree_version([booster / "trees-2026" / "game.xml"]) == "2026"
    assert detect_tree_version([booster / "trees" / "game.xml"]) == "main"
    auto = TreeFactory()
    register_soccer_nodes(auto, booster_version="auto")  # one factory for both versions
    assert _freekick_defaults(auto, booster / "trees-2026" / "game.xml") == {(0.6, 0.7)}
    assert _freekick_defaults(auto, booster / "trees" / "game.xml") == {(0.7, 1.2)}
    # the flag: a library of one version
    v2026 = TreeFactory()
    register_soccer_nodes(v2026, booster_version="2026")
    assert _freekick_defaults(v2026, booster / "trees" / "game.xml") == {(0.6, 0.7)}
    v_main = TreeFactory()
    register_soccer_nodes(v_main, booster_version="main")
    assert _freekick_defaults(v_main, booster / "trees" / "game.xml") == {(0.7, 1.2)}
    # a copy of the 2026 trees elsewhere is still recognised as 2026 (by its content)
    dst = tmp_path / "copy"
    shutil.copytree(booster / "trees-2026", dst)
    assert _freekick_defaults(auto, dst / "game.xml") == {(0.6, 0.7)}


def test_a_short_match_with_boosters_2026_trees_raises_no_node_errors_and_walks(booster):
    from soccerbt.match import Match, MatchConfig

    tree = booster / "trees-2026" / "game.xml"
    match = Match(MatchConfig(seed=1, duration_s=30.0, blue_tree=str(tree), idle_teams=("red",)))
    match.run(30.0)
    result = match.result()
    assert result.trees["blue"] == str(tree)
    assert not result.errors, result.errors
    blue = [r for r in result.robots if r.team == "blue"]
    assert all(r.node_exceptions == 0 for r in blue), [r.node_exception_paths for r in blue]
    assert all(r.distance_walked_m > 1.0 for r in blue), [(r.robot, r.distance_walked_m) for r in blue]
    for agent in match.agents.values():
        if agent.robot.team.name == "BLUE":
            assert agent.blackboard["local_freekick_phase"] in ("NONE", "WAIT_RESUME", "PLACEMENT",
                                                                 "UNPLACEMENT", "EXECUTE")


def test_validate_names_an_unknown_node_once_with_a_did_you_mean(capsys, tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text('<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>\n<KickBal/>\n<KickBal/>\n<Foo/>\n'
                   '</Sequence></BehaviorTree></root>')
    assert main(["validate", str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{bad}:2: Node not recognized: KickBal; did you mean 'KickBall' or 'Kick'? (used 1 more time)"
    assert out[1:] == [f"{bad}:4: Node not recognized: Foo"]
