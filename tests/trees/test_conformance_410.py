"""BehaviorTree.CPP 4.10.0 ground truth recorded here (tests/trees/conformance_410).

Every case runs with the checks of the shared 4.10 cases (root status, ordered leaf ticks and
halts, root blackboard after every tick, load errors and tick errors at the same tick), plus
BT.CPP's tickOnce() roots, the entry types and values of every blackboard scope (SubTree ones
too), and, for load errors, BT.CPP's line and wording (`Error at line N: message` becomes
soccerbt's `path:N: message`).
"""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from soccerbt.blackboard import btcpp_type_name
from soccerbt.trees import TreeFactory, TreeLoadError

HERE = Path(__file__).resolve().parent
FOLDER = HERE / "conformance_410"

_spec = importlib.util.spec_from_file_location("_btcpp_conformance", HERE / "test_conformance.py")
_runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_runner)

INDEX = {c["case"]: c for c in json.loads((FOLDER / "index.json").read_text())}
CASES = sorted(INDEX)


def _trace(name: str) -> dict:
    return json.loads((FOLDER / "traces" / f"{name}.json").read_text())


def _factory() -> TreeFactory:
    factory = TreeFactory()
    factory.register_node_type("Scripted", _runner.Scripted)
    return factory


def test_every_case_is_recorded_with_btcpp_410():
    assert len(CASES) >= 36
    for name in CASES:
        assert (FOLDER / "cases" / f"{name}.xml").is_file(), name
        assert _trace(name)["recorded_with"].startswith("BehaviorTree.CPP 4.10.0"), name
        assert INDEX[name]["recorded_with"].startswith("BehaviorTree.CPP 4.10.0"), name


@pytest.mark.parametrize("name", CASES)
def test_case_matches_btcpp(name):
    assert _runner.run_case(FOLDER, name) is None


@pytest.mark.parametrize("name", [n for n in CASES if INDEX[n].get("roots_tickOnce")
                                  and INDEX[n].get("error_tickOnce_at") is None])
def test_tick_once_roots_match_btcpp(name):
    tree = _factory().create_tree_from_file(str(FOLDER / "cases" / f"{name}.xml"))
    expected = INDEX[name]["roots_tickOnce"]
    assert [tree.tick_once().name for _ in expected] == expected


_SAME_TYPE = {"int": "long", "unsigned int": "long"}  # both a Python int


@pytest.mark.parametrize("name", [n for n in CASES if INDEX[n].get("error_at") != "load"])
def test_every_blackboard_scope_matches_btcpp(name):
    tree = _factory().create_tree_from_file(str(FOLDER / "cases" / f"{name}.xml"))
    scopes = {s.instance_name: s.blackboard for s in tree.subtrees}
    problems = []
    for step in _trace(name)["ticks"]:
        try:
            tree.tick_exactly_once()
        except Exception:  # noqa: BLE001 - the tick error itself is checked by run_case
            pass
        recorded = {"": step["blackboard"], **step.get("subtree_blackboards", {})}
        for scope, entries in recorded.items():
            local = scopes[scope].local_entries()
            for key, want in entries.items():
                # the recorder reads each stored key back with getEntry, which sends an "@key"
                # (stored literally by a {@key} SubTree remapping) to the root's "key"
                entry = scopes[scope].get_entry(key) if key[:1] == "@" else local.get(key)
                if key not in local:
                    problems.append(f"tick {step['tick']} [{scope}] {key}: not stored")
                got = btcpp_type_name(entry.type_) if entry is not None else "(absent)"
                expected = _SAME_TYPE.get(want["entry_type"], want["entry_type"])
                if got != expected:
                    problems.append(f"tick {step['tick']} [{scope}] {key}: entry type {got}, "
                                    f"BT.CPP {want['entry_type']}")
                if want.get("value") is not None and (
                        entry is None or not _runner._same_value(want, entry.value)):
                    problems.append(f"tick {step['tick']} [{scope}] {key}: "
                                    f"{None if entry is None else entry.value!r}, "
                                    f"BT.CPP {want['value']}")
    assert problems == []


_AT_LINE = re.compile(r"Error at line (\d+): (?:-> )?(.*)", re.S)


def _shown(text: str) -> str:
    return "".join(f"\\x{ord(c):02x}" if ord(c) < 32 or ord(c) == 127 else c for c in text)


@pytest.mark.parametrize("name", [n for n in CASES if INDEX[n].get("error_at") == "load"
                                  and _AT_LINE.fullmatch(INDEX[n]["error"])])
def test_load_errors_have_btcpp_line_and_wording(name):
    line, message = _AT_LINE.fullmatch(INDEX[name]["error"]).groups()
    path = str(FOLDER / "cases" / f"{name}.xml")
    with pytest.raises(TreeLoadError) as info:
        _factory().create_tree_from_file(path)
    assert (info.value.path, info.value.line, info.value.message) == \
        (path, int(line), _shown(message))
    assert str(info.value) == f"{path}:{line}: {_shown(message)}"
