"""Node semantics beyond the recorded conformance cases: ports, SKIPPED, clocks, wake-ups,
halting, exceptions with node paths, StatefulActionNode, py_trees compatibility."""
from __future__ import annotations

import enum

import py_trees
import pytest
from py_trees.common import Status

from soccerbt.blackboard import AnyValue
from soccerbt.nodes import (
    ActionNode,
    ConditionNode,
    InputPort,
    LogicError,
    NodeStatus,
    NodeTickError,
    OutputPort,
    PortError,
    StatefulActionNode,
    SyncActionNode,
)
from soccerbt.nodes.decorators import InverterNode, SubTreeNode
from soccerbt.nodes.ports import convert_from_string, is_allowed_port_name, parse_blackboard_pointer
from soccerbt.trees import TreeFactory, TreeLoadError

LOG: list[tuple[str, str]] = []


class Mode(enum.Enum):
    IDLE_MODE = 0
    ATTACK = 1
    DEFEND = 2


class Probe(ActionNode):
    """Records typed inputs and writes an output."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("speed", float, default=0.8), InputPort("count", int, default=3),
                InputPort("flag", bool, default=False), InputPort("mode", Mode, default=Mode.ATTACK),
                InputPort("items", list[float], default="1;2.5"), OutputPort("out", int)]

    def update(self):
        LOG.append(("probe", (self.get_input("speed"), self.get_input("count"),
                              self.get_input("flag"), self.get_input("mode"),
                              self.get_input("items"))))
        self.set_output("out", 7)
        return Status.SUCCESS


class Seq(ActionNode):
    """Returns the statuses of its `s` port in turn (the last repeats)."""

    @classmethod
    def provided_ports(cls):
        return [InputPort("s", str, default="S")]

    def update(self):
        seq = self.get_input("s").split(",")
        i = getattr(self, "_i", 0)
        self._i = i + 1
        letter = seq[min(i, len(seq) - 1)]
        LOG.append(("tick", self.name))
        return {"S": Status.SUCCESS, "F": Status.FAILURE, "R": Status.RUNNING}[letter]

    def on_halted(self):
        LOG.append(("halt", self.name))


class Boom(SyncActionNode):
    def bt_tick(self):
        raise ValueError("kaboom")


class Walk(StatefulActionNode):
    def on_start(self):
        LOG.append(("start", self.name))
        return Status.RUNNING

    def on_running(self):
        LOG.append(("running", self.name))
        return Status.SUCCESS if self.get_input("done", False) else Status.RUNNING

    @classmethod
    def provided_ports(cls):
        return [InputPort("done", bool, default=False)]

    def on_halted(self):
        LOG.append(("halted", self.name))


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture
def factory():
    LOG.clear()
    f = TreeFactory()
    for name, cls in [("Probe", Probe), ("Seq", Seq), ("Boom", Boom), ("Walk", Walk)]:
        f.register_node_type(name, cls)
    f.register_scripting_enum(Mode)
    return f


def tree_of(factory, body, **kw):
    return factory.create_tree_from_text(
        f'<root BTCPP_format="4"><BehaviorTree ID="Main">{body}</BehaviorTree></root>', **kw)


def test_typed_ports_from_literals_defaults_and_entries(factory):
    t = tree_of(factory, '<Sequence><Script code="v := 2.5; n := 9"/>'
                         '<Probe speed="{v}" count="{n}" flag="true" mode="DEFEND" out="{o}"/>'
                         '<Probe name="defaults" items="3;4" out="{o2}"/></Sequence>')
    assert t.tick_exactly_once() is NodeStatus.SUCCESS
    assert LOG[0] == ("probe", (2.5, 9, True, Mode.DEFEND, [1.0, 2.5]))
    assert LOG[1] == ("probe", (0.8, 3, False, Mode.ATTACK, [3.0, 4.0]))
    assert t.root_blackboard()["o"] == 7 and t.root_blackboard()["o2"] == 7


def test_conversion_follows_btcpp():
    assert convert_from_string(int, "12abc") == 12  # from_chars prefix
    with pytest.raises(ValueError):
        convert_from_string(int, "+5")
    with pytest.raises(ValueError):
        convert_from_string(int, "3000000000")  # C++ int
    assert convert_from_string(float, "1e3") == 1000.0
    assert convert_from_string(bool, "True") is True
    with pytest.raises(ValueError):
        convert_from_string(bool, "yes")
    assert convert_from_string(list[int], "1;2;3") == [1, 2, 3]
    assert convert_from_string(Mode, "ATTACK") is Mode.ATTACK
    assert convert_from_string(Mode, "X", {"X": 2}) is Mode.DEFEND
    assert convert_from_string(NodeStatus, "SKIPPED") is NodeStatus.SKIPPED
    assert parse_blackboard_pointer(" {key} ") == "key" and parse_blackboard_pointer("key") is None
    assert not is_allowed_port_name("_x") and not is_allowed_port_name("a.b")
    assert not is_allowed_port_name("name") and is_allowed_port_name("speed_limit")


def test_bad_literal_and_unknown_port_rejected_at_load(factory):
    with pytest.raises(TreeLoadError, match=r'<string>:1: The port with name "count" and value '
                                            r'"many" can not be converted to int'):
        tree_of(factory, '<Probe count="many"/>')
    with pytest.raises(TreeLoadError, match=r"a port with name \[spede\]"):
        tree_of(factory, '<Probe spede="1"/>')
    # attributes that are not port names (underscore, dots) are not ports: BT.CPP ignores them
    tree_of(factory, '<Probe _comment="x" a.b="y"/>')


def test_missing_input_is_a_tick_error_not_a_load_error(factory):
    class Needs(ActionNode):
        @classmethod
        def provided_ports(cls):
            return [InputPort("goal", float)]

        def update(self):
            self.get_input("goal")
            return Status.SUCCESS

    factory.register_node_type("Needs", Needs)
    t = tree_of(factory, "<Needs/>")
    with pytest.raises(NodeTickError) as info:
        t.tick_exactly_once()
    assert isinstance(info.value.original, PortError)
    # Script without code is refused at load, as BT.CPP's constructor does
    with pytest.raises(TreeLoadError, match="Missing port \\[code\\]"):
        tree_of(factory, "<Script/>")


def test_exception_carries_the_node_path(factory):
    t = tree_of(factory, '<Sequence name="top"><Seq name="a"/><Boom name="b"/></Sequence>')
    with pytest.raises(NodeTickError) as info:
        t.tick_exactly_once()
    assert info.value.node_path == "Main/top/b[1]"
    assert isinstance(info.value.original, ValueError) and "kaboom" in str(info.value)
    assert isinstance(info.value, RuntimeError)


def test_decorator_ticked_without_its_child_says_so():
    for node in (InverterNode("inv"), SubTreeNode("sub")):  # built by hand: no loader's check
        with pytest.raises(NodeTickError, match=r"Decorator \[(inv|sub)\] has no child") as info:
            node.execute_tick()
        assert isinstance(info.value.original, LogicError)


def test_skipped_propagates_to_the_root_and_nodes_stay_idle(factory):
    t = tree_of(factory, '<Sequence><Seq name="a" _skipIf="true"/><Seq name="b" _while="false"/>'
                         '</Sequence>')
    assert t.tick_exactly_once() is NodeStatus.SKIPPED
    assert LOG == []
    a = t.find("Main/Sequence/a[0]")
    assert a.last_status is NodeStatus.SKIPPED and a.node_status is NodeStatus.IDLE
    assert a.status is Status.INVALID  # py_trees view


def test_fallback_with_skipped_children_and_post_conditions(factory):
    t = tree_of(factory, '<Sequence><Script code="k := 0"/><Fallback>'
                         '<Seq name="a" s="F" _onFailure="k += 1" _post="k += 10"/>'
                         '<Seq name="b" _skipIf="k == 11"/><Seq name="c" s="S"/></Fallback></Sequence>')
    assert t.tick_exactly_once() is NodeStatus.SUCCESS
    assert t.root_blackboard()["k"] == 11
    assert [e for e in LOG] == [("tick", "a"), ("tick", "c")]


def test_stateful_action_and_while_halts_it(factory):
    t = tree_of(factory, '<Sequence><Walk name="w" _while="go" done="{done}"/></Sequence>')
    bb = t.root_blackboard()
    bb["go"] = True
    bb["done"] = False
    assert t.tick_exactly_once() is NodeStatus.RUNNING
    assert t.tick_exactly_once() is NodeStatus.RUNNING
    bb["go"] = False
    assert t.tick_exactly_once() is NodeStatus.SKIPPED
    assert LOG == [("start", "w"), ("running", "w"), ("halted", "w")]


def test_halt_tree_halts_running_nodes_once(factory):
    t = tree_of(factory, '<ReactiveSequence><Seq name="c"/><Seq name="r" s="R" '
                         '_onHalted="h := 1"/></ReactiveSequence>')
    assert t.tick_exactly_once() is NodeStatus.RUNNING
    t.halt_tree()
    assert LOG.count(("halt", "r")) == 1
    assert t.root_blackboard()["h"] == 1
    assert all(n.node_status is NodeStatus.IDLE for n in t.nodes())


def test_injected_clock_drives_delay_timeout_and_sleep(factory):
    clock = Clock()
    t = tree_of(factory, '<Sequence><Delay delay_msec="500"><Seq name="d"/></Delay>'
                         '<Timeout msec="1000"><Seq name="slow" s="R"/></Timeout></Sequence>',
                clock=clock)
    assert t.tick_exactly_once() is NodeStatus.RUNNING and LOG == []
    clock.t += 0.4
    assert t.tick_exactly_once() is NodeStatus.RUNNING and LOG == []
    clock.t += 0.1
    assert t.tick_exactly_once() is NodeStatus.RUNNING
    assert LOG == [("tick", "d"), ("tick", "slow")]
    clock.t += 0.999
    assert t.tick_exactly_once() is NodeStatus.RUNNING
    clock.t += 0.001
    assert t.tick_exactly_once() is NodeStatus.FAILURE
    assert LOG[-1] == ("halt", "slow")
    s = tree_of(factory, '<Sleep msec="250"/>', clock=clock)
    assert s.tick_exactly_once() is NodeStatus.RUNNING
    clock.t += 0.2
    assert s.tick_exactly_once() is NodeStatus.RUNNING
    clock.t += 0.05
    assert s.tick_exactly_once() is NodeStatus.SUCCESS


def test_tick_once_follows_wake_ups_tick_exactly_once_does_not(factory):
    body = '<AsyncSequence><Seq name="a"/><Seq name="b"/><Seq name="c"/></AsyncSequence>'
    t = tree_of(factory, body)
    assert t.tick_exactly_once() is NodeStatus.RUNNING
    assert tree_of(factory, body).tick_once() is NodeStatus.SUCCESS
    w = tree_of(factory, '<Sequence><Seq name="x" s="R,R,S"/></Sequence>')
    assert w.tick_while_running(sleep_s=0.0) is NodeStatus.SUCCESS


def test_key_schema_catches_typos_in_scripts(factory):
    factory.declare_blackboard_keys(["ball_out", "decision"])
    tree_of(factory, '<Sequence><Seq _while="!ball_out"/><Script code="x := 1"/>'
                     '<Seq _skipIf="x == 2 || decision == \'kick\' || ATTACK == 1"/></Sequence>')
    with pytest.raises(TreeLoadError) as info:
        tree_of(factory, '<Sequence>\n<Seq _while="!bal_out"/></Sequence>')
    assert str(info.value) == "<string>:2: unknown blackboard key 'bal_out' in _while"
    with pytest.raises(TreeLoadError, match="unknown blackboard key 'y' in code"):
        tree_of(factory, '<Script code="z := y"/>')


def test_enums_registered_twice_must_agree(factory):
    factory.register_scripting_enum("ATTACK", 1)
    with pytest.raises(ValueError):
        factory.register_scripting_enum("ATTACK", 5)
    t = tree_of(factory, '<Script code="m := DEFEND"/>')
    t.tick_exactly_once()
    assert t.root_blackboard()["m"] == 2


def test_py_trees_display_and_visitors_work(factory):
    t = tree_of(factory, '<Sequence name="top"><Seq name="a"/><Inverter><Seq name="b" s="F"/>'
                         '</Inverter></Sequence>')
    t.tick_exactly_once()
    text = py_trees.display.unicode_tree(t.root, show_status=True)
    assert "top" in text and "Inverter" in text and "b" in text
    names = [n.name for n in t.root.iterate()]
    assert names == ["top", "a", "Inverter", "b"][::-1] or set(names) == {"top", "a", "Inverter", "b"}
    assert [n.path for n in t.nodes()] == ["Main/top", "Main/top/a[0]", "Main/top/Inverter[1]",
                                          "Main/top/Inverter[1]/b[0]"]
    assert [n.bt_path for n in t.nodes()][:2] == ["top", "a"]


def test_register_rejects_bad_types_and_duplicates(factory):
    with pytest.raises(ValueError):
        factory.register_node_type("Seq", Seq)
    with pytest.raises(TypeError):
        factory.register_node_type("X", int)

    class BadPort(ActionNode):
        @classmethod
        def provided_ports(cls):
            return [InputPort("_hidden")]

    with pytest.raises(ValueError):
        factory.register_node_type("BadPort", BadPort)
    with pytest.raises(ValueError):
        factory.unregister_node_type("Sequence")


def test_condition_node_and_model_xml(factory):
    class Near(ConditionNode):
        @classmethod
        def provided_ports(cls):
            return [InputPort("dist_m", float, 0.5, "how near")]

        def update(self):
            return Status.SUCCESS

    factory.register_node_type("Near", Near)
    xml = factory.tree_nodes_model_xml()
    assert '<Condition ID="Near">' in xml
    assert '<input_port name="dist_m" type="double" default="0.500000">how near</input_port>' in xml
    assert 'ID="Sequence"' not in xml and 'ID="Sequence"' in factory.tree_nodes_model_xml(True)


def test_set_blackboard_follows_btcpp_set_any(factory):
    # a literal makes a std::string entry (set<BT::Any>, not the untyped set<std::string>)
    t = tree_of(factory, '<Sequence><SetBlackboard value="42" output_key="a"/>'
                         '<Script code="b := a .. \'x\'"/></Sequence>')
    assert t.tick_exactly_once() is NodeStatus.SUCCESS
    bb = t.root_blackboard()
    assert bb["a"] == "42" and bb.get_entry("a").type_ is str and bb["b"] == "42x"
    # into a typed port entry the literal is parsed by the entry's converter
    t = tree_of(factory, '<Sequence><SetBlackboard value="5" output_key="n"/>'
                         '<Probe count="{n}" out="{o}"/></Sequence>')
    assert t.root_blackboard().get_entry("n").type_ is int  # declared at load by the port
    assert t.tick_exactly_once() is NodeStatus.SUCCESS
    assert t.root_blackboard()["n"] == 5 and LOG[-1][1][1] == 5
    # an untyped entry has no converter: BT.CPP 4.10's parseString gives an empty value
    t = tree_of(factory, '<Sequence><Script code="x := 1"/>'
                         '<SetBlackboard value="hello" output_key="x"/></Sequence>')
    assert t.tick_exactly_once() is NodeStatus.SUCCESS
    assert "x" not in t.root_blackboard() and t.root_blackboard().get_entry("x") is not None
    # copying an entry: the new entry takes the source's type; a number is never cast
    t = tree_of(factory, '<Sequence><Script code="d := 0.5"/>'
                         '<SetBlackboard value="{src}" output_key="copy"/>'
                         '<SetBlackboard value="{src}" output_key="d"/>'
                         '<SetBlackboard value="{src}" output_key="typed"/></Sequence>')
    t.root_blackboard()["src"] = 3  # an adapter's set<long>: a typed entry
    t.root_blackboard()["typed"] = 0.5
    with pytest.raises(NodeTickError, match=r"current type \[BT::Any\]"):
        t.tick_exactly_once()
    bb = t.root_blackboard()
    assert bb["copy"] == 3 and bb.get_entry("copy").type_ is int
    # a script entry is untyped: set<BT::Any> makes it BT::Any, still not strongly typed
    assert bb["d"] == 3 and bb.get_entry("d").type_ is AnyValue
    # ... whose string converter (convertFromString<BT::Any>) refuses: SetBlackboard throws
    t = tree_of(factory, '<Sequence><Script code="a := 1"/>'
                         '<SetBlackboard value="{a}" output_key="b"/>'
                         '<SetBlackboard value="txt" output_key="b"/></Sequence>')
    with pytest.raises(NodeTickError, match=r"Can't convert string \[txt\] to type \[BT::Any\]"):
        t.tick_exactly_once()
    assert t.root_blackboard()["b"] == 1
    assert bb["typed"] == 0.5
