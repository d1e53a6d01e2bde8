"""XML loading: lenient attributes with right line numbers, no entities, includes (relative,
nested, cycles, folder limits), main tree selection, SubTree remapping and models."""
from __future__ import annotations

import enum
from pathlib import Path

import pytest
from py_trees.common import Status

from soccerbt.nodes import ActionNode, InputPort, NodeStatus, OutputPort
from soccerbt.trees import NodeTickError, TreeFactory, TreeLoadError
from soccerbt.trees.xmlload import escape_lenient


class Leaf(ActionNode):
    @classmethod
    def provided_ports(cls):
        return [InputPort("v", None), OutputPort("o", None)]

    def update(self):
        if self.config.output_ports.get("o"):
            self.set_output("o", self.get_input("v", "none"))
        return Status.SUCCESS


@pytest.fixture
def factory():
    f = TreeFactory()
    f.register_node_type("Leaf", Leaf)
    return f


def write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_lenient_attributes_keep_line_numbers(factory):
    xml = ('<root BTCPP_format="4">\n<BehaviorTree ID="T">\n<Sequence>\n'
           '<Script code="a := 1; b := a<=2 && a>0"/>\n'
           '<Leaf _while="a < 5 && b" v="x&y"\n  bogus="1"/>\n</Sequence>\n</BehaviorTree>\n</root>')
    with pytest.raises(TreeLoadError) as info:
        factory.create_tree_from_text(xml)
    assert info.value.line == 6  # the attribute's own line, as BT.CPP reports it
    fixed, lines = escape_lenient(xml)
    assert fixed.count("\n") == xml.count("\n")
    assert lines[3] == {"code": 4} and lines[4]["bogus"] == 6
    t = factory.create_tree_from_text(xml.replace('\n  bogus="1"', ' o="{out}"'))
    assert t.tick_exactly_once() is NodeStatus.SUCCESS
    assert t.root_blackboard()["b"] == 1.0 and t.root_blackboard()["out"] == "x&y"


def test_no_entity_expansion_or_external_access(factory, tmp_path):
    secret = write(tmp_path, "secret.txt", "TOP-SECRET")
    xml = (f'<?xml version="1.0"?>\n<!DOCTYPE root [<!ENTITY x SYSTEM "file://{secret}">]>\n'
           '<root BTCPP_format="4"><BehaviorTree ID="T"><Leaf v="&x;" o="{o}"/></BehaviorTree></root>')
    # issue 14: a DOCTYPE is refused with a located error before lxml sees it
    with pytest.raises(TreeLoadError) as info:
        factory.create_tree_from_text(xml)
    assert info.value.line == 2 and "DOCTYPE" in info.value.message
    assert "TOP-SECRET" not in str(info.value)


def test_syntax_errors_are_located(factory):
    with pytest.raises(TreeLoadError) as info:
        factory.create_tree_from_text('<root>\n<BehaviorTree ID="T">\n<Leaf>\n</root>')
    assert info.value.line == 4 and "Error parsing the XML" in info.value.message
    with pytest.raises(TreeLoadError, match="root node called <root>"):
        factory.create_tree_from_text("<tree/>")


def test_nested_relative_includes_and_model_defaults(factory, tmp_path):
    write(tmp_path, "sub/b.xml", '<root BTCPP_format="4"><include path="../c/c.xml"/>'
          '<BehaviorTree ID="B"><SubTree ID="C" x="{y}"/></BehaviorTree></root>')
    write(tmp_path, "c/c.xml", '<root BTCPP_format="4"><BehaviorTree ID="C">'
          '<Sequence><Leaf v="{x}" o="{x}"/><Leaf v="{lit}" o="{seen}"/></Sequence></BehaviorTree>'
          '<TreeNodesModel><SubTree ID="C"><input_port name="lit" default="7"/>'
          '</SubTree></TreeNodesModel></root>')
    main = write(tmp_path, "main.xml", '<root BTCPP_format="4" main_tree_to_execute="M">'
                 '<include path="sub/b.xml"/><BehaviorTree ID="M"><Sequence>'
                 '<Script code="y := 3"/><SubTree ID="B" _autoremap="true"/></Sequence>'
                 '</BehaviorTree></root>')
    t = factory.create_tree_from_file(main)
    assert t.tick_exactly_once() is NodeStatus.SUCCESS
    assert t.root_blackboard()["y"] == 3
    c_bb = next(s.blackboard for s in t.subtrees if s.tree_id == "C")
    assert c_bb["seen"] == 7  # TreeNodesModel default, stored as a number like 4.10
    assert [s.instance_name for s in t.subtrees] == ["", "B::3", "B::3/C::4"]


def test_include_cycle_missing_and_outside_folder(factory, tmp_path):
    a = write(tmp_path, "t/a.xml", '<root BTCPP_format="4"><include path="b.xml"/>'
              '<BehaviorTree ID="A"><Leaf/></BehaviorTree></root>')
    write(tmp_path, "t/b.xml", '<root BTCPP_format="4">\n<include path="a.xml"/></root>')
    with pytest.raises(TreeLoadError) as info:
        factory.create_tree_from_file(a)
    assert info.value.line == 2 and "include cycle: a.xml -> b.xml -> a.xml" in str(info.value)
    write(tmp_path, "t/b.xml", '<root BTCPP_format="4"><include path="nope.xml"/></root>')
    with pytest.raises(TreeLoadError, match='cannot open included file "nope.xml"'):
        factory.create_tree_from_file(a)
    write(tmp_path, "lib/x.xml", '<root BTCPP_format="4"><BehaviorTree ID="X"><Leaf/>'
          '</BehaviorTree></root>')
    write(tmp_path, "t/b.xml", '<root BTCPP_format="4"><include path="../lib/x.xml"/></root>')
    with pytest.raises(TreeLoadError, match="leaves the tree's folder"):
        factory.create_tree_from_file(a)
    assert factory.create_tree_from_file(a, include_roots=[tmp_path]).root.name == "Leaf"
    assert factory.create_tree_from_file(a, allow_any_include=True).root.name == "Leaf"


def test_same_file_included_twice_is_not_a_cycle(factory, tmp_path):
    write(tmp_path, "common.xml", '<root BTCPP_format="4"><BehaviorTree ID="Common"><Leaf/>'
          '</BehaviorTree></root>')
    write(tmp_path, "p.xml", '<root BTCPP_format="4"><include path="common.xml"/></root>')
    main = write(tmp_path, "main.xml", '<root BTCPP_format="4"><include path="common.xml"/>'
                 '<include path="p.xml"/><BehaviorTree ID="M"><SubTree ID="Common"/>'
                 '</BehaviorTree></root>')
    assert factory.create_tree_from_file(main).tick_exactly_once() is NodeStatus.SUCCESS


def test_main_tree_selection(factory):
    two = ('<root BTCPP_format="4"><BehaviorTree ID="A"><Leaf/></BehaviorTree>'
           '<BehaviorTree ID="B"><Leaf name="b"/></BehaviorTree></root>')
    with pytest.raises(TreeLoadError, match="main_tree_to_execute"):
        factory.create_tree_from_text(two)
    assert factory.create_tree_from_text(two, main_tree="B").root.name == "b"
    one = '<root BTCPP_format="4"><BehaviorTree><Leaf name="solo"/></BehaviorTree></root>'
    assert factory.create_tree_from_text(one).root.name == "solo"
    with pytest.raises(TreeLoadError, match="Can't find a tree with name: Z"):
        factory.create_tree_from_text(two.replace('<root BTCPP_format="4">',
                                                  '<root main_tree_to_execute="Z">'))


def test_subtree_remapping_literals_and_root_keys(factory):
    xml = ('<root BTCPP_format="4" main_tree_to_execute="M"><BehaviorTree ID="M"><Sequence>'
           '<Script code="a := 1; g := 5"/><SubTree ID="S" inp="{a}" lit="42" same="{=}" name="s1"/>'
           '<Script code="seen := a"/></Sequence></BehaviorTree>'
           '<BehaviorTree ID="S"><Sequence><Script code="inp := inp + 1; r := lit; @glob := g"/>'
           '</Sequence></BehaviorTree></root>')
    with pytest.raises(RuntimeError, match="Variable not found: g"):
        factory.create_tree_from_text(xml).tick_exactly_once()  # `g` is not visible in S
    t = factory.create_tree_from_text(xml.replace("@glob := g", "@glob := 2"))
    assert t.tick_exactly_once() is NodeStatus.SUCCESS
    bb = t.root_blackboard()
    assert bb["a"] == 2.0 and bb["seen"] == 2.0 and bb["glob"] == 2
    sub = t.blackboards()["s1"]
    assert sub["r"] == 42 and isinstance(sub["r"], int)


def test_subtree_literals_are_typed_as_btcpp_4_10_stores_them(factory):
    """A whole number is a C++ int, a number a double, anything else a string (AnyTypeAllowed):
    a port of another C++ type inside the subtree is refused at load, as BT.CPP 4.10 does."""
    class Gains(ActionNode):
        @classmethod
        def provided_ports(cls):
            return [InputPort("k_p", float), InputPort("n", int), OutputPort("got", None)]

        def update(self):
            self.set_output("got", (self.get_input("k_p"), self.get_input("n")))
            return Status.SUCCESS

    factory.register_node_type("Gains", Gains)

    def tree(kp: str, count: str):
        return factory.create_tree_from_text(
            '<root BTCPP_format="4" main_tree_to_execute="M"><BehaviorTree ID="M">\n'
            f'<SubTree ID="S" name="s" kp="{kp}" count="{count}" out="{{out}}"/>'
            '</BehaviorTree>\n<BehaviorTree ID="S">\n'
            '<Gains k_p="{kp}" n="{count}" got="{out}"/></BehaviorTree></root>')

    t = tree("1.0", "3")
    sub = t.blackboards()["s"]
    assert sub.get_entry("kp").type_ is float and sub.get_entry("count").type_ is int
    assert t.tick_exactly_once() is NodeStatus.SUCCESS
    assert t.root_blackboard()["out"] == (1.0, 3)
    with pytest.raises(TreeLoadError) as info:
        tree("1", "3")  # an int literal, a double port
    assert info.value.line == 4 and info.value.message == (
        "The creation of the tree failed because the port [kp] was initially created with type "
        "[int] and, later type [double] was used somewhere else.")
    with pytest.raises(TreeLoadError, match=r"port \[count\] was initially created with type "
                                            r"\[long\] and, later type \[int\]"):
        tree("1.0", "3000000000")  # beyond int: int64
    t = tree("fast", "3")  # a string literal may feed any port; converting it fails at tick
    assert t.blackboards()["s"].get_entry("kp").type_ is None
    with pytest.raises(Exception, match="fast"):
        t.tick_exactly_once()


def test_verify_xml_errors(factory):
    cases = {
        '<Inverter><Leaf/><Leaf/></Inverter>': "The node 'Inverter' must have exactly 1 child",
        '<Sequence/>': "The node 'Sequence' must have 1 or more children",
        '<Leaf><Leaf/></Leaf>': "The node 'Leaf' must not have any child",
        '<Nope/>': "Node not recognized: Nope",
        '<Action/>': "The tag <Action> must have the attribute [ID]",
        '<SubTree ID="Leaf"/>': "must not use the name of a registered Node",
    }
    for body, msg in cases.items():
        with pytest.raises(TreeLoadError) as info:
            factory.create_tree_from_text(f'<root BTCPP_format="4">\n<BehaviorTree ID="T">\n'
                                          f'{body}</BehaviorTree></root>')
        assert msg in info.value.message and info.value.line == 3


def test_explicit_node_form(factory):
    t = factory.create_tree_from_text('<root BTCPP_format="4"><BehaviorTree ID="T">'
                                      '<Control ID="Sequence"><Action ID="Leaf" name="x"/>'
                                      '</Control></BehaviorTree></root>')
    assert t.tick_exactly_once() is NodeStatus.SUCCESS and t.root.children[0].name == "x"


def test_validate_reports_an_unknown_key_once(tmp_path) -> None:
    """The problem that stops the load and the collected one are the same: one line."""
    from soccerbt.nodes.soccer import register_soccer_nodes
    from soccerbt.trees import TreeFactory

    path = tmp_path / "typo.xml"
    path.write_text('<root BTCPP_format="4"><BehaviorTree ID="M">\n'
                    '<Sequence _while="bal_out"><SetVelocity/></Sequence></BehaviorTree></root>')
    factory = TreeFactory()
    register_soccer_nodes(factory)
    errors = factory.validate_file(path)
    assert [str(e) for e in errors] == [f"{path}:2: unknown blackboard key 'bal_out' in _while"]


class Side(enum.Enum):
    """An enum port type (a C++ enum in BT.CPP: no converter at load)."""

    LEFT = 1
    RIGHT = 2


class KickTo(ActionNode):
    @classmethod
    def provided_ports(cls) -> list:
        return [InputPort("side", Side)]

    def bt_tick(self) -> NodeStatus:
        self.get_input("side")
        return NodeStatus.SUCCESS


def test_an_enum_port_literal_is_tried_when_ticked_and_reported_by_validate(tmp_path) -> None:
    """BT.CPP converts an enum port's literal (NodeStatus, an Enum) only when the node reads it:
    the tree loads and the node throws at its first tick; `validate` reports the line."""
    def factory_with_kick() -> TreeFactory:
        made = TreeFactory()
        made.register_node_type("KickTo", KickTo)
        return made

    path = tmp_path / "enums.xml"
    path.write_text('<root BTCPP_format="4"><BehaviorTree ID="M">\n<Sequence>\n'
                    '<Precondition if="true" else="MAYBE"><AlwaysSuccess/></Precondition>\n'
                    '<KickTo side="MIDDLE"/>\n<KickTo side="{side}"/>\n<KickTo side="LEFT"/>\n'
                    '</Sequence></BehaviorTree></root>')
    tree = factory_with_kick().create_tree_from_file(str(path))  # loads, as in BT.CPP
    with pytest.raises(NodeTickError, match=r"Missing parameter \[else\] in Precondition"):
        tree.tick_exactly_once()
    errors = [str(e) for e in factory_with_kick().validate_file(path)]
    assert errors == [
        f'{path}:3: The port with name "else" and value "MAYBE" can not be converted to '
        'BT::NodeStatus: the tree loads, and the node throws when it is ticked',
        f'{path}:4: The port with name "side" and value "MIDDLE" can not be converted to '
        'Side: the tree loads, and the node throws when it is ticked']
