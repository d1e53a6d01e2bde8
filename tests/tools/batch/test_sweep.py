"""Parameter sweeps (issue 17): parsing NODE.PORT=VALUES, clear errors for unknown nodes, ports and
values, variants that differ from the input only in the swept attributes (includes kept), a sweep
where one value is clearly better writing that tree, and never writing over an input."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lxml import etree

from soccerbt.__main__ import main
from soccerbt.gamecontroller.referee_common import RefereeConfig
from soccerbt.match import MatchConfig, default_tree_path
from soccerbt.tools.batch.sweep import (
    BadValue,
    NodeNotFound,
    PortNotFound,
    SweepError,
    TreeEditor,
    best,
    combinations,
    parse_param,
    run_sweep,
    write_best,
)
from soccerbt.trees import TreeFactory

# the tuned team: one striker that only attacks while PLAYING; the attack lives in an include
MAIN = """<!-- a striker: localize, attack in PLAY, stand otherwise -->
<root BTCPP_format="4" main_tree_to_execute="Main">
    <include path="./sub/attack.xml" />
    <BehaviorTree ID="Main">
        <ReactiveSequence>
            <SelfLocate mode="trust_direction" msecs_interval="1000" />
            <SubTree ID="Attack" _while="gc_game_state == 'PLAY'" _autoremap="true" />
            <SetVelocity name="stand" _while="gc_game_state != 'PLAY'" />
        </ReactiveSequence>
    </BehaviorTree>
</root>
"""
ATTACK = """<root BTCPP_format="4">
    <BehaviorTree ID="Attack">
        <ReactiveSequence>
            <HeadControl />
            <PlanKick />
            <StrikerDecision decision_out="{decision}" />
            <SearchBall _while="decision == 'find'" />
            <ApproachBall name="approach" _while="decision == 'approach' &amp;&amp; true" vx_limit='1.0' />
            <KickBall _while="decision == 'kick'" />
        </ReactiveSequence>
    </BehaviorTree>
</root>
"""
STAND = ('<root BTCPP_format="4" main_tree_to_execute="Main"><BehaviorTree ID="Main"><SetVelocity/></BehaviorTree>'
         '</root>\n')
# 1 v 1 on the small field, quick to PLAYING: the striker scores within 15 s on seeds 1 and 2
# the HL referee: no whistle delay (robots see PLAYING at once), so 15 s are enough to score
QUICK = MatchConfig(team_size=1, field="S", duration_s=15.0, particles=100, gc_version=12,
                    referee=RefereeConfig(players_per_team=1, initial_s=0.2, ready_s=1.0, set_s=0.5))


@pytest.fixture
def trees(tmp_path: Path) -> Path:
    folder = tmp_path / "trees"
    (folder / "sub").mkdir(parents=True)
    (folder / "main.xml").write_text(MAIN)
    (folder / "sub" / "attack.xml").write_text(ATTACK)
    (folder / "stand.xml").write_text(STAND)
    return folder


@pytest.fixture(scope="module")
def editor_factory():
    from soccerbt.nodes.soccer import register_soccer_nodes

    factory = TreeFactory()
    register_soccer_nodes(factory)
    return factory


def test_params_parse_into_lists_ranges_and_grids() -> None:
    p = parse_param("Chase.vx_limit=0.6,0.8,1.0")
    assert (p.node, p.port, p.values, p.is_range) == ("Chase", "vx_limit", ("0.6", "0.8", "1.0"), False)
    r = parse_param("stand unless assisting (sticks).x=0.5:1.5")  # a name with spaces and dots
    assert (r.node, r.port, r.low, r.high, r.whole) == ("stand unless assisting (sticks)", "x", 0.5, 1.5, False)
    assert parse_param("X.y=0.5:1.5:0.25").grid() == ["0.5", "0.75", "1", "1.25", "1.5"]
    assert parse_param("X.n=1:5:2").grid() == ["1", "3", "5"]
    with pytest.raises(SweepError, match="a range without a step is for --random N"):
        r.grid()
    grid = combinations([p, parse_param("StrikerDecide.chase_threshold=0.8,1.2")])
    assert [tuple(c.values()) for c in grid] == [("0.6", "0.8"), ("0.6", "1.2"), ("0.8", "0.8"), ("0.8", "1.2"),
                                                 ("1.0", "0.8"), ("1.0", "1.2")]
    draws = combinations([r, parse_param("X.n=1:5")], random_n=4, seed=3)
    assert draws == combinations([r, parse_param("X.n=1:5")], random_n=4, seed=3)  # seeded
    assert len(draws) == 4 and all(0.5 <= float(c[r]) <= 1.5 and c[parse_param("X.n=1:5")] in "12345" for c in draws)
    for bad, what in (("Chase.vx_limit", "expected NODE.PORT=VALUES"), ("vx_limit=1", "expected NODE.PORT=VALUES"),
                      ("Chase.vx_limit=1,,2", "empty value"), ("Chase.vx_limit=2:1", "LOW <= HIGH"),
                      ("Chase._while=1", "is not a port"), ("Chase.vx_limit=1,1", "listed twice")):
        with pytest.raises(SweepError, match=what):
            parse_param(bad)


def test_unknown_nodes_ports_and_values_are_named(trees: Path, editor_factory) -> None:
    editor = TreeEditor(trees / "main.xml", editor_factory)
    with pytest.raises(NodeNotFound, match=r"--param Chase\.vx_limit: no node named 'Chase' nor of type 'Chase' in "):
        editor.matches(parse_param("Chase.vx_limit=1"))
    with pytest.raises(PortNotFound, match=r"ApproachBall \(at .*attack\.xml:8\) has no port 'vx_limt'; did you mean "
                                           r"'vx_limit' or 'vy_limit'"):
        editor.matches(parse_param("approach.vx_limt=1"))
    # nothing near: its ports
    with pytest.raises(PortNotFound, match=r"has no port 'xyzzy'; its ports: vx_limit, vy_limit, vtheta_limit, near$"):
        editor.matches(parse_param("approach.xyzzy=1"))
    with pytest.raises(NodeNotFound,
                       match=r"no node named 'aproach' .* its includes; did you mean 'approach' or 'ApproachBall'\?$"):
        editor.matches(parse_param("aproach.vx_limit=1"))
    with pytest.raises(BadValue, match=r"'fast' is not a float \(port vx_limit of ApproachBall\)"):
        editor.matches(parse_param("ApproachBall.vx_limit=1,fast"))
    with pytest.raises(PortNotFound, match="the SubTree Attack at .* has no attribute 'speed'"):
        editor.matches(parse_param("Attack.speed=1"))


def test_the_command_names_an_unknown_node_or_port(trees: Path, capsys) -> None:
    base = ["sweep", "--tree", str(trees / "main.xml"), "--seconds", "1"]
    assert main([*base, "--param", "Chase.vx_limit=0.6,0.8"]) == 2
    err = capsys.readouterr().err
    assert "soccerbt sweep: --param Chase.vx_limit: no node named 'Chase' nor of type 'Chase'" in err
    assert main([*base, "--param", "stand.speed=1,2"]) == 2
    assert "SetVelocity (at " in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*base, "--param", "stand=1"])
    assert "expected NODE.PORT=VALUES" in capsys.readouterr().err
    # the best tree is never written over an input, nor is an include beside it
    assert main([*base, "--param", "approach.vx_limit=0,1", "--best-out", str(trees / "main.xml")]) == 2
    assert "would overwrite an input file (--best-out)" in capsys.readouterr().err
    assert main([*base, "--param", "approach.vx_limit=0,1", "--best-out", str(trees / "best.xml")]) == 2
    assert "lives in the included file sub/attack.xml" in capsys.readouterr().err


def _elements_without(path: Path, drop: set[tuple[str, str]]) -> list[tuple[str, dict]]:
    root = etree.parse(str(path)).getroot()
    out = []
    for el in root.iter():
        if isinstance(el.tag, str):
            attrs = {k: v for k, v in el.attrib.items() if (el.get("name", el.tag), k) not in drop}
            out.append((el.tag, attrs))
    return out


def test_a_sweep_writes_the_tree_with_the_clearly_better_value(trees: Path, tmp_path: Path, editor_factory) -> None:
    editor = TreeEditor(trees / "main.xml", editor_factory)
    param = parse_param("approach.vx_limit=0.0,1.0")  # 0: the striker never reaches the ball
    results = run_sweep(editor, combinations([param]), QUICK, [1, 2], str(trees / "stand.xml"), jobs=2)
    slow, fast = results
    assert slow.stats.games == fast.stats.games == 2 and not slow.failed and not fast.failed
    assert slow.stats.goals_for == 0 and fast.stats.wins == 2, (slow.stats, fast.stats)
    top = best(results)
    assert top is fast
    # written to another folder: the tree and its include, which alone changed, in the swept attribute only
    out = tmp_path / "best" / "main.xml"
    out.parent.mkdir()
    written = write_best(editor, {param: "0.5"}, out)
    assert written == [out, out.parent / "sub" / "attack.xml"]
    assert out.read_text() == MAIN
    attack = (out.parent / "sub" / "attack.xml").read_text()
    assert attack == ATTACK.replace("vx_limit='1.0'", "vx_limit='0.5'")
    assert editor_factory.validate_file(out) == []
    assert _elements_without(out.parent / "sub" / "attack.xml", {("approach", "vx_limit")}) == \
        _elements_without(trees / "sub" / "attack.xml", {("approach", "vx_limit")})
    # an attribute the XML does not set yet is added to the start tag, nothing else moves
    texts = editor.texts({parse_param("stand.x=0.25,0.5"): "0.25"})
    assert texts[Path("main.xml")] == MAIN.replace('<SetVelocity name="stand" _while="gc_game_state != \'PLAY\'" />',
                                                   '<SetVelocity name="stand" _while="gc_game_state != \'PLAY\'" '
                                                   'x="0.25" />')
    assert texts[Path("sub/attack.xml")] == ATTACK


def test_the_command_prints_the_table_and_writes_a_tree_that_loads(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "ours"
    shutil.copytree(default_tree_path().parent, folder)
    out = tmp_path / "best.xml"
    code = main(["sweep", "--tree", str(folder / "game.xml"), "--param", "GoToKickoffPosition.vx_limit=0.5,0.9",
                 "--seeds", "0", "--seconds", "0.5", "--team-size", "1", "--field", "kid", "--jobs", "1",
                 "--quiet", "--best-out", str(out), "--no-progress"])
    assert code == 0
    stdout = capsys.readouterr().out.splitlines()
    assert stdout[0].split()[:4] == ["#", "GoToKickoffPosition.vx_limit", "games", "W-D-L"]
    assert [line.split()[:4] for line in stdout[1:3]] == [["*", "0", "0.5", "1"], ["1", "0.9", "1", "0-1-0"]]
    assert stdout[3].startswith("W-D-L: the tuned tree's games won-drawn-lost; ")
    # half a second is all set-up: said so
    assert stdout[4].startswith("warning: only 0% of the simulated time was PLAYING (0.0 of 0.5 s per game)")
    assert stdout[5].startswith("best: #0 GoToKickoffPosition.vx_limit=0.5: no significant difference")
    original = (folder / "game.xml").read_text()
    assert out.read_text() == original.replace('<GoToKickoffPosition vx_limit="0.9" />',
                                               '<GoToKickoffPosition vx_limit="0.5" />')
