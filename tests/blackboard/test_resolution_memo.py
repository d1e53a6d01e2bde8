"""The blackboard's memo of resolved keys: reads through SubTree scopes stay right after
entries are created or unset and after remappings or autoremap change, at any depth."""
from __future__ import annotations

import gc

from hypothesis import given, settings
from hypothesis import strategies as st

from soccerbt.blackboard import Blackboard, ScriptRuntimeError, compile_script


def reference_entry(bb: Blackboard, key: str):
    """BT.CPP's getEntry walked from scratch (no memo): "@", storage, remapping, autoremap."""
    if key.startswith("@"):
        return reference_entry(bb.root(), key[1:])
    entry = bb._storage.get(key)
    if entry is not None:
        return entry
    parent = bb.parent
    if parent is None:
        return None
    if key in bb._remap:
        return reference_entry(parent, bb._remap[key])
    if bb.autoremap and not key.startswith("_"):
        return reference_entry(parent, key)
    return None


def chain():
    root = Blackboard()
    mid = Blackboard(root, autoremap=True)
    leaf = Blackboard(mid, autoremap=True)
    return root, mid, leaf


def test_unset_and_recreate_in_the_root_is_seen_two_scopes_down():
    root, mid, leaf = chain()
    root["x"] = 1
    assert leaf["x"] == 1  # memoised in leaf and mid
    root.unset("x")
    assert leaf.get("x") is None and leaf.get_entry("x") is None
    root["x"] = 2  # a new entry object
    assert leaf["x"] == 2 and leaf.get_entry("x") is root.get_entry("x")


def test_an_entry_created_in_the_middle_shadows_the_root_one():
    root, mid, leaf = chain()
    root["x"] = 1
    assert leaf["x"] == 1
    mid.enable_autoremap(False)
    mid["x"] = 5  # local to mid now
    assert leaf["x"] == 5 and root["x"] == 1
    mid.enable_autoremap(True)
    assert leaf["x"] == 5  # mid's own storage still comes first
    del mid["x"]
    assert leaf["x"] == 1


def test_remapping_added_after_a_read_redirects_it():
    root = Blackboard()
    root["k"], root["x"] = "k", "x"
    sub = Blackboard(root, autoremap=True)
    assert sub["k"] == "k"
    sub.add_remapping("k", "x")
    assert sub["k"] == "x"
    other = Blackboard(root)
    assert other.get("y") is None  # a miss is never memoised
    other.add_remapping("y", "x")
    assert other["y"] == "x"
    other.enable_autoremap()
    assert other["k"] == "k"
    other.enable_autoremap(False)
    assert other.get("k") is None


def test_root_keys_and_scripts_follow_the_memo():
    root, mid, leaf = chain()
    root["g"] = 3
    check = compile_script("@g == 3 && g == 3")
    assert check.evaluate_bool(leaf)
    root.unset("g")
    try:
        check.evaluate_bool(leaf)
    except ScriptRuntimeError as exc:
        assert "Variable not found: @g" in str(exc)
    else:  # pragma: no cover - the check above must raise
        raise AssertionError("a deleted entry was still read")
    root["g"] = 4
    assert compile_script("g := g + 1")(leaf) == 5.0 and root["g"] == 5


def test_child_scopes_are_held_weakly():
    root = Blackboard()
    root["x"] = 1
    for _ in range(50):
        sub = Blackboard(root, autoremap=True)
        assert sub["x"] == 1
    del sub
    gc.collect()
    root.unset("x")  # the invalidation walk drops the dead references
    assert len(root._children) == 0


KEYS = ["a", "b", "_p", "@a", "@b"]
OPS = st.one_of(
    st.tuples(st.just("set"), st.integers(0, 2), st.sampled_from(KEYS), st.integers(0, 9)),
    st.tuples(st.just("unset"), st.integers(0, 2), st.sampled_from(KEYS[:3])),
    st.tuples(st.just("create"), st.integers(0, 2), st.sampled_from(KEYS)),
    st.tuples(st.just("remap"), st.integers(1, 2), st.sampled_from(KEYS[:3]),
              st.sampled_from(KEYS)),
    st.tuples(st.just("autoremap"), st.integers(1, 2), st.booleans()),
    st.tuples(st.just("read"), st.integers(0, 2), st.sampled_from(KEYS)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(OPS, max_size=30))
def test_memoised_resolution_matches_a_fresh_walk(ops):
    scopes = list(chain())
    scopes[1].enable_autoremap(False)
    for op in ops:
        kind, i = op[0], op[1]
        bb = scopes[i]
        try:
            if kind == "set":
                bb.set(op[2], op[3])
            elif kind == "unset":
                bb.unset(op[2])
            elif kind == "create":
                bb.create_entry(op[2])
            elif kind == "remap":
                bb.add_remapping(op[2], op[3])
            elif kind == "autoremap":
                bb.enable_autoremap(op[2])
            else:
                bb.get(op[2])
        except Exception:  # noqa: BLE001 - refusals (types, "@" twice) leave state as it was
            pass
        for scope in scopes:
            for key in KEYS:
                assert scope.get_entry(key) is reference_entry(scope, key), (key, ops)
