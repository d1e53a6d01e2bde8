"""Issue 40: one located line with the nearest names for a misspelled node ID, port attribute or
SubTree ID, wherever a tree is loaded (run, validate, batch), and --record's name explained."""
from __future__ import annotations

from pathlib import Path

import pytest

from soccerbt.__main__ import main
from soccerbt.trees.suggest import did_you_mean, nearest_names

HEAD = '<root BTCPP_format="4" main_tree_to_execute="Main">\n<BehaviorTree ID="Main">\n'
TAIL = '</BehaviorTree>\n</root>\n'


def _tree(tmp_path: Path, body: str, name: str = "bad.xml") -> Path:
    path = tmp_path / name
    path.write_text(HEAD + body + TAIL)
    return path


def test_the_nearest_names() -> None:
    assert nearest_names("KickBal", ["KickBall", "Kick", "Chase", "KickBal"]) == ["KickBall", "Kick"]
    assert did_you_mean("KickBal", ["KickBall", "Kick", "Chase"]) == "; did you mean 'KickBall' or 'Kick'?"
    assert did_you_mean("Foo", ["KickBall", "Chase"]) == ""


def test_run_names_a_misspelled_node_with_a_did_you_mean(tmp_path: Path, capsys) -> None:
    bad = _tree(tmp_path, '<Sequence>\n<KickBal/>\n</Sequence>\n')
    assert main(["run", "--headless", "--seconds", "1", "--tree", str(bad)]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"soccerbt run: {bad}:4: Node not recognized: KickBal; did you mean 'KickBall' or 'Kick'?\n"
    assert captured.out == ""
    # the explicit form too, and batch says the same before any worker starts
    explicit = _tree(tmp_path, '<Sequence>\n<Action ID="KickBal"/>\n</Sequence>\n', "explicit.xml")
    assert main(["batch", "--seeds", "0", "--seconds", "1", "--jobs", "1", "--quiet", "--tree", str(explicit)]) == 1
    assert capsys.readouterr().err == (f"soccerbt batch: {explicit}:4: Node not recognized: KickBal; did you mean "
                                       "'KickBall' or 'Kick'?\n")


def test_validate_gives_one_line_for_one_misspelled_node(tmp_path: Path, capsys) -> None:
    # a ReactiveSequence checks its children before each child checks itself: was two lines
    # ("Unknown node type: KickBal", then "Node not recognized: KickBal (did you mean ...)")
    bad = _tree(tmp_path, '<ReactiveSequence>\n<KickBal/>\n<Sequnce><KickBall/></Sequnce>\n</ReactiveSequence>\n')
    assert main(["validate", str(bad)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{bad}:4: Node not recognized: KickBal; did you mean 'KickBall' or 'Kick'?",
        f"{bad}:5: Node not recognized: Sequnce; did you mean 'Sequence' or 'AsyncSequence' or 'ReactiveSequence'?",
    ]
    # run: the same line as validate's first
    assert main(["run", "--headless", "--seconds", "1", "--tree", str(bad)]) == 1
    assert capsys.readouterr().err == (f"soccerbt run: {bad}:4: Node not recognized: KickBal; did you mean "
                                       "'KickBall' or 'Kick'?\n")


def test_a_misspelled_port_gets_the_nearest_declared_port(tmp_path: Path, capsys) -> None:
    bad = _tree(tmp_path, '<Sequence>\n<StrikerDecision kick_hol="0.3"/>\n</Sequence>\n')
    expected = (f"{bad}:4: a port with name [kick_hol] is found in the XML (<StrikerDecision>, line 4) but not in the "
                "providedPorts() of its registered node type; did you mean 'kick_hold'?")
    assert main(["validate", str(bad)]) == 1
    assert capsys.readouterr().out.splitlines() == [expected]
    assert main(["run", "--headless", "--seconds", "1", "--tree", str(bad)]) == 1
    assert capsys.readouterr().err == f"soccerbt run: {expected}\n"
    # nothing near: the node's ports are listed instead
    far = _tree(tmp_path, '<Sequence>\n<KickBall xyzzy="1"/>\n</Sequence>\n', "far.xml")
    assert main(["validate", str(far)]) == 1
    line = capsys.readouterr().out.strip()
    assert "did you mean" not in line and "registered node type (its ports: " in line


def test_a_misspelled_subtree_id_gets_the_nearest_tree(tmp_path: Path, capsys) -> None:
    bad = _tree(tmp_path, '<Sequence>\n<SubTree ID="Atack"/>\n</Sequence>\n'
                '</BehaviorTree>\n<BehaviorTree ID="Attack">\n<AlwaysSuccess/>\n')
    assert main(["validate", str(bad)]) == 1
    assert capsys.readouterr().out.splitlines() == [f"{bad}:4: Can't find a tree with name: Atack; did you mean "
                                                    "'Attack'?"]


@pytest.mark.parametrize("name,old_format", [("out.txt", False), ("out", False), ("out.jsonl.gz", True)])
def test_record_says_the_log_is_mcap_before_the_match(tmp_path: Path, capsys, name: str, old_format: bool) -> None:
    path = tmp_path / name
    assert main(["run", "--headless", "--seconds", "600", "--record", str(path)]) == 2  # a usage error
    captured = capsys.readouterr()
    convert = ("; JSON-lines logs are no longer written (an old one converts with: soccerbt replay convert OLD.jsonl "
               "NEW.mcap)") if old_format else ""
    assert captured.err == (f"soccerbt run: {path}: the replay log is an MCAP file: its name must end in .mcap "
                            f"(e.g. {tmp_path / 'out.mcap'}){convert} (--record)\n")
    assert "JSON-lines" not in captured.err or old_format
    assert captured.out == "" and not path.exists()
