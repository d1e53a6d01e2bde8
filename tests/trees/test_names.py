"""BT.CPP 4.10's name rules at load (issue 29): model names (tree IDs, SubTree IDs, element
names), TreeNodesModel port names, instance names; and Loop queues held by the blackboard.

The recorded ground truth is tests/trees/conformance_410; these check the rules one character
at a time and the paths the cases do not reach (validation collecting, namespaces, lists).
"""
from __future__ import annotations

from collections import deque

import pytest

from soccerbt.nodes.ports import find_forbidden_char, is_allowed_port_name
from soccerbt.trees import TreeFactory, TreeLoadError
from soccerbt.trees.names import instance_name_problem, model_name_problem, port_name_problem


def _tree(tree_id_attr: str, body: str = "<AlwaysSuccess/>") -> str:
    return (f'<root BTCPP_format="4">\n  <BehaviorTree ID="{tree_id_attr}">\n    {body}\n'
            "  </BehaviorTree>\n</root>\n")


# every character findForbiddenChar refuses, as written in an attribute value -> the character
FORBIDDEN = {" ": " ", "&#9;": "\t", "&#10;": "\n", "&#13;": "\r", "&lt;": "<", ">": ">",
             "&amp;": "&", "&quot;": '"', "'": "'", "/": "/", "\\": "\\", ":": ":", "*": "*",
             "?": "?", "|": "|", ".": ".", "&#127;": "\x7f"}


@pytest.mark.parametrize("written", sorted(FORBIDDEN))
def test_a_tree_id_with_a_forbidden_character_is_refused_with_btcpp_wording(written):
    ch = FORBIDDEN[written]
    with pytest.raises(TreeLoadError) as info:
        TreeFactory().create_tree_from_text(_tree(f"Main{written}Tree"))
    assert info.value.line == 2
    shown = f"'{ch}'" if ord(ch) >= 32 and ord(ch) != 127 else \
        f"control character (ASCII {ord(ch)})"
    assert info.value.message.startswith("Model name 'Main")
    assert info.value.message.endswith(f"Tree' contains forbidden character {shown}")


@pytest.mark.parametrize("tree_id", ["MainTree", "my_tree-2", "检查门", "Türöffner", "ROOT", "Roots"])
def test_names_btcpp_allows_load(tree_id):
    tree = TreeFactory().create_tree_from_text(_tree(tree_id))
    assert tree.tick_exactly_once().name == "SUCCESS"


@pytest.mark.parametrize("tree_id", ["Root", "root"])
def test_root_is_reserved(tree_id):
    with pytest.raises(TreeLoadError, match="'Root' is a reserved name and cannot be used as a "
                                            "node type"):
        TreeFactory().create_tree_from_text(_tree(tree_id))


def test_an_element_named_root_is_refused_as_reserved_before_lookup():
    with pytest.raises(TreeLoadError) as info:
        TreeFactory().create_tree_from_text(_tree("MainTree", "<Root/>"))
    assert (info.value.line, info.value.message) == \
        (3, "'Root' is a reserved name and cannot be used as a node type")


def test_a_namespaced_element_keeps_its_prefix_and_is_refused():
    # tinyxml2 reads <ns:AlwaysSuccess> as the name "ns:AlwaysSuccess" (no namespaces)
    xml = ('<root BTCPP_format="4" xmlns:ns="urn:x"><BehaviorTree ID="MainTree">'
           '<ns:AlwaysSuccess/></BehaviorTree></root>')
    with pytest.raises(TreeLoadError, match="Model name 'ns:AlwaysSuccess' contains forbidden "
                                            "character ':'"):
        TreeFactory().create_tree_from_text(xml)


def test_validation_reports_every_bad_name(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text(
        '<root BTCPP_format="4" main_tree_to_execute="MainTree">\n'
        '  <BehaviorTree ID="MainTree">\n'
        '    <SubTree ID="Sub.Tree"/>\n'
        '  </BehaviorTree>\n'
        '  <BehaviorTree ID="Root">\n'
        '    <TryCatch><AlwaysSuccess/></TryCatch>\n'
        '  </BehaviorTree>\n'
        '  <TreeNodesModel>\n'
        '    <SubTree ID="Sub.Tree"><input_port name="a b"/></SubTree>\n'
        '  </TreeNodesModel>\n'
        '</root>\n')
    found = [(e.line, e.message) for e in TreeFactory().validate_file(path)]
    assert (3, "Model name 'Sub.Tree' contains forbidden character '.'") in found
    assert (5, "'Root' is a reserved name and cannot be used as a node type") in found
    assert (6, "The node 'TryCatch' must have at least 2 children") in found
    assert (9, "Port name 'a b' contains forbidden character ' '") in found


def test_name_rules_one_by_one():
    assert model_name_problem("") == "Model/Node type name cannot be empty"
    assert model_name_problem("A\tB") == "Model name 'A\\x09B' contains forbidden character " \
                                         "control character (ASCII 9)"
    assert port_name_problem("_private") is None  # only IsAllowedPortName refuses '_'
    assert not is_allowed_port_name("_private")
    assert port_name_problem("name") == "Port name 'name' is a reserved attribute name"
    assert port_name_problem("_onHalted") == "Port name '_onHalted' is a reserved attribute name"
    assert port_name_problem("٣x") is None  # an Arabic-Indic digit is not an ASCII digit
    assert instance_name_problem("a b.c/d:e\tf\ng") is None
    assert instance_name_problem("a\x01") == \
        "Instance name 'a\\x01' contains invalid control character (ASCII 1)"
    assert find_forbidden_char("é.x") == "."
    assert find_forbidden_char("中文") is None


LOOP = """<root BTCPP_format="4">
  <BehaviorTree ID="MainTree">
    <Sequence>
      <LoopInt queue="{q}" value="{v}">
        <Script code="sum += v"/>
      </LoopInt>
    </Sequence>
  </BehaviorTree>
</root>"""


def _run_loop(value):
    tree = TreeFactory().create_tree_from_text(LOOP)
    bb = tree.root_blackboard()
    bb["q"], bb["sum"] = value, 0
    statuses = [tree.tick_exactly_once().name for _ in range(4)]
    return statuses, bb


def test_loop_copies_a_list_entry_once_per_run_like_a_vector():
    items = [1, 2, 3]
    statuses, bb = _run_loop(items)
    assert statuses == ["RUNNING", "RUNNING", "RUNNING", "SUCCESS"]
    assert bb["sum"] == 6 and bb["q"] == [1, 2, 3] and items == [1, 2, 3]


def test_loop_pops_a_deque_entry_in_place_like_a_shared_queue():
    statuses, bb = _run_loop(deque([1, 2, 3]))
    assert statuses == ["RUNNING", "RUNNING", "RUNNING", "SUCCESS"]
    assert bb["sum"] == 6 and list(bb["q"]) == []
