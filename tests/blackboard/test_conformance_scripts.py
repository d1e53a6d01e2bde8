"""The script and blackboard cases of ../shared/conformance/btcpp, replayed on this layer alone.

A tiny interpreter runs the synchronous subset these cases use (Sequence, Script, SetBlackboard,
UnsetBlackboard, SubTree with `{key}` remapping) on soccerbt Blackboards, and compares every
tick's root blackboard (values, value types and entry types, as BT.CPP printed them) and errors
with the recorded BT.CPP 4.10 trace. The full engine is checked by check.py; this pins the
blackboard and script semantics independently of it.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from soccerbt.blackboard import (
    Blackboard,
    ScriptRuntimeError,
    ScriptSyntaxError,
    btcpp_format,
    btcpp_type_name,
    compile_script,
)

CASES = [
    "runtime_partial_script_effects",
    "runtime_script_concat_numbers",
    "runtime_script_no_short_circuit",
    "script_bool_values",
    "script_string_concat",
    "set_blackboard_literal",
    "unset_blackboard_in_subtree",
    "subtree_no_remap_isolated",
]


class _Runner:
    """Runs a BehaviorTree of synchronous nodes, BT.CPP-style scopes included."""

    def __init__(self, root_xml: ET.Element) -> None:
        self.trees = {bt.get("ID"): bt for bt in root_xml.findall("BehaviorTree")}
        main = root_xml.get("main_tree_to_execute") or next(iter(self.trees))
        self.root_bb = Blackboard()
        self.scopes: dict[int, Blackboard] = {}  # SubTree element -> its blackboard (load once)
        self.main = self.trees[main]
        self.counter = 0
        self._prepare(self.main, self.root_bb)

    def _prepare(self, element: ET.Element, bb: Blackboard) -> None:
        for child in element:
            if child.tag == "SubTree":
                sub = Blackboard(bb, autoremap=child.get("_autoremap") == "true")
                for attr, value in child.attrib.items():
                    if attr in ("ID", "name", "_autoremap"):
                        continue
                    if value.startswith("{") and value.endswith("}"):
                        sub.add_remapping(attr, value[1:-1])
                self.scopes[id(child)] = sub
                self._prepare(self.trees[child.get("ID")], sub)
            else:
                self._prepare(child, bb)

    def tick(self) -> None:
        self.counter = 0
        for child in self.main:
            self._run(child, self.root_bb)

    def _run(self, el: ET.Element, bb: Blackboard) -> None:
        if el.tag == "Sequence":
            for child in el:
                self._run(child, bb)
        elif el.tag == "Script":
            self.counter += 1
            try:
                compile_script(el.get("code"))(bb)
            except ScriptRuntimeError as exc:
                raise RuntimeError(f"Exception in node 'Script::{self.counter}' [Script]: "
                                   f"{exc}") from None
        elif el.tag == "SetBlackboard":
            key, value = el.get("output_key"), el.get("value")
            dst = bb.get_entry(key)
            if dst is not None and dst.type_ is not str:  # TypeInfo::parseString
                value = dst.converter(value) if dst.converter is not None else None
            bb.set_any(key, value)  # set<BT::Any>: a new entry takes the value's type
        elif el.tag == "UnsetBlackboard":
            bb.unset(el.get("key"))
        elif el.tag == "SubTree":
            sub = self.scopes[id(el)]
            for child in self.trees[el.get("ID")]:
                self._run(child, sub)
        else:  # pragma: no cover - the selected cases use nothing else
            raise AssertionError(f"unsupported node {el.tag}")


def _assert_blackboard(expected: dict, bb: Blackboard, where: str) -> None:
    entries = bb.local_entries()
    assert sorted(entries) == sorted(expected), where
    for key, want in expected.items():
        entry = entries[key]
        assert btcpp_type_name(entry.type_) == want["entry_type"], f"{where}: {key} entry type"
        if want["value"] is None:
            assert entry.value is None, f"{where}: {key} should be empty"
            continue
        assert btcpp_format(entry.value) == want["value"], f"{where}: {key} value"
        assert btcpp_type_name(type(entry.value)) == want["type"], f"{where}: {key} type"


@pytest.mark.parametrize("case", CASES)
def test_case_matches_btcpp_trace(shared_dir, case):
    base = shared_dir / "conformance" / "btcpp"
    trace = json.loads((base / "traces" / f"{case}.json").read_text())
    runner = _Runner(ET.parse(base / "cases" / f"{case}.xml").getroot())
    for step in trace["ticks"]:
        where = f"{case} tick {step['tick']}"
        if step.get("error") is not None:
            with pytest.raises(RuntimeError) as info:
                runner.tick()
            assert str(info.value) == step["error"], where
        else:
            runner.tick()
        _assert_blackboard(step["blackboard"], runner.root_bb, where)


def test_malformed_precondition_error_text(shared_dir):
    base = shared_dir / "conformance" / "btcpp"
    trace = json.loads((base / "traces" / "error_malformed_precondition_script.json").read_text())
    leaf = ET.parse(base / "cases" / "error_malformed_precondition_script.xml").getroot()
    source = leaf.find("BehaviorTree")[0].get("_skipIf")
    with pytest.raises(ScriptSyntaxError) as info:
        compile_script(source)
    assert trace["error_at"] == "load"
    assert str(info.value) == trace["error"]
