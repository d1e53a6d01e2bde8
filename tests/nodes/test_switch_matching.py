"""Switch case matching as BT.CPP 4.10's CheckStringEquality (whole-string numbers, PR #1178)."""
from __future__ import annotations

import pytest

from soccerbt.trees import TreeFactory

XML = """<root BTCPP_format="4"><BehaviorTree ID="M">
  <Switch2 variable="{v}" case_1="{c1}" case_2="7">
    <AlwaysSuccess name="one"/><AlwaysFailure name="two"/><AlwaysSuccess name="default"/>
  </Switch2></BehaviorTree></root>"""


@pytest.mark.parametrize(("variable", "case_1", "branch"), [
    ("5", "5", "one"),        # equal strings
    ("5", "5.0", "one"),      # equal as reals
    ("-3", "-3.000", "one"),
    ("1e3", "1000", "one"),
    ("5abc", "5", "default"),  # trailing characters: not a number, no match
    ("5 ", "5", "default"),
    ("+5", "5", "default"),    # from_chars takes no '+'
    ("RED", "1", "one"),       # a scripting enum resolves as an integer
    ("RED", "1.0", "one"),     # ... and as a real
    ("7", "5", "two"),
])
def test_case_matching(variable: str, case_1: str, branch: str) -> None:
    factory = TreeFactory()
    factory.register_scripting_enum("RED", 1)
    tree = factory.create_tree_from_text(XML.replace("{c1}", case_1))
    tree.root_blackboard()["v"] = variable
    status = tree.tick_exactly_once()
    expected = {"one": "SUCCESS", "two": "FAILURE", "default": "SUCCESS"}[branch]
    assert status.name == expected
    ticked = [n.name for n in tree.active_nodes() if not n.children]
    assert ticked == [branch]
