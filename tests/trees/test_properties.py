"""Property tests: random and mutated XML and scripts given to the loader only ever produce a
tree or a TreeLoadError (never another exception, never a bare lxml/script traceback)."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from py_trees.common import Status

from soccerbt.nodes import ActionNode, InputPort
from soccerbt.trees import TreeFactory, TreeLoadError

BASE = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="root">
      <RunOnce><Script code="x := 1; s := 'a'"/></RunOnce>
      <ReactiveSequence _while="x == 1 &amp;&amp; s != 'b'">
        <Leaf v="3" _skipIf="x &gt; 2"/>
        <SubTree ID="Sub" _autoremap="true" k="{x}"/>
        <Repeat num_cycles="2"><AlwaysSuccess/></Repeat>
      </ReactiveSequence>
      <Parallel success_count="1"><Leaf v="{x}"/><AlwaysFailure/></Parallel>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Sub">
    <Fallback><Leaf v="{k}"/><Switch2 variable="{s}" case_1="a" case_2="b">
      <AlwaysSuccess/><AlwaysFailure/><Leaf/></Switch2></Fallback>
  </BehaviorTree>
</root>"""


class Leaf(ActionNode):
    @classmethod
    def provided_ports(cls):
        return [InputPort("v", int, default=0)]

    def update(self):
        self.get_input("v", 0)
        return Status.SUCCESS


FACTORY = TreeFactory()
FACTORY.register_node_type("Leaf", Leaf)
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def load(text: str):
    try:
        tree = FACTORY.create_tree_from_text(text)
    except TreeLoadError as exc:
        assert exc.message and str(exc).startswith("<string>")
        return None
    return tree


def test_the_base_document_loads_and_ticks():
    tree = load(BASE)
    assert tree is not None and tree.tick_exactly_once().name == "RUNNING"  # Repeat yields
    assert tree.tick_while_running(sleep_s=0.0).name == "SUCCESS"


@SETTINGS
@given(st.text(max_size=300))
def test_random_text_only_raises_tree_load_error(text):
    assert load(text) is None or text.strip()


@SETTINGS
@given(st.data())
def test_mutated_documents_only_raise_tree_load_error(data):
    text = BASE
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        kind = data.draw(st.sampled_from(["delete", "insert", "swap"]))
        if kind == "delete":
            j = min(len(text), i + data.draw(st.integers(1, 12)))
            text = text[:i] + text[j:]
        elif kind == "insert":
            snippet = data.draw(st.sampled_from(
                ["<", ">", "&", '"', "'", "/>", "</Sequence>", "<Leaf/>", '{x}', "&&", "=",
                 '<SubTree ID="Main"/>', '<include path="x.xml"/>', "\n", "_while=\"(\"",
                 ' v="abc"', ' unknown="1"', "<Inverter>", "]]>", "<!--", "\x00"]))
            text = text[:i] + snippet + text[i:]
        else:
            j = data.draw(st.integers(0, len(text)))
            a, b = sorted((i, j))
            text = text[:a] + text[b:] + text[a:b]
    tree = load(text)
    if tree is not None:
        try:
            tree.tick_exactly_once()
        except RuntimeError:
            pass  # a tick may fail (BT.CPP throws too); loading never leaks other errors


SCRIPT_ATOMS = ["x", "y", "1", "2.5", "'s'", "true", "false", "+", "-", "*", "/", "==", "!=",
                "<", ">=", "&&", "||", "!", "(", ")", "?", ":", ":=", "=", "+=", ";", "..",
                "&", "|", "^", "~", " ", "@x", "{", "}", "\"", "\n"]


@SETTINGS
@given(st.lists(st.sampled_from(SCRIPT_ATOMS), max_size=12), st.sampled_from(
    ["_while", "_skipIf", "_successIf", "_failureIf", "_onSuccess", "_post", "_onHalted", "code"]))
def test_random_scripts_only_raise_tree_load_error(atoms, attr):
    from xml.sax.saxutils import quoteattr

    script = " ".join(atoms)
    node = (f"<Script code={quoteattr(script)}/>" if attr == "code"
            else f"<Leaf {attr}={quoteattr(script)}/>")
    text = (f'<root BTCPP_format="4"><BehaviorTree ID="T"><Sequence>'
            f'<Script code="x := 1; y := 2"/>{node}</Sequence></BehaviorTree></root>')
    tree = load(text)
    if tree is not None:
        try:
            tree.tick_exactly_once()
        except RuntimeError:
            pass
