"""Blackboard: BT.CPP scoping, remapping, autoremap, "@" keys, set/unset type rules."""
from __future__ import annotations

import pytest

from soccerbt.blackboard import (
    AnyValue,
    Blackboard,
    BlackboardError,
    BlackboardTypeError,
    Entry,
    ScriptRuntimeError,
    btcpp_type_name,
    compile_script,
    is_strongly_typed,
    number_cast,
)

# ----------------------------------------------------------------- basic mapping


def test_set_types_a_new_entry_by_its_value_except_strings():
    class Pose:
        pass

    bb = Blackboard()
    bb["a"] = 1
    entry = bb.get_entry("a")
    assert isinstance(entry, Entry)
    assert entry.value == 1 and entry.type_ is int and entry.sequence_id == 1
    bb.set("a", 5)
    assert bb["a"] == 5 and entry.sequence_id == 2
    bb["d"], bb["b"], bb["p"] = 0.5, True, Pose()
    assert [bb.get_entry(k).type_ for k in "dbp"] == [float, bool, Pose]
    # BT.CPP's set<std::string> on a new key makes an AnyTypeAllowed entry
    bb["s"] = "PLAY"
    assert bb.get_entry("s").type_ is None and bb["s"] == "PLAY"
    bb["n"] = None  # a Python extension: an empty untyped entry
    assert bb.get_entry("n").type_ is None and "n" not in bb


def test_missing_and_empty_keys_raise_keyerror_and_get_default():
    bb = Blackboard()
    bb.create_entry("declared", int)
    with pytest.raises(KeyError):
        bb["missing"]
    with pytest.raises(KeyError):
        bb["declared"]
    assert bb.get("missing") is None
    assert bb.get("declared", 7) == 7
    assert "declared" not in bb and "missing" not in bb
    assert bb.local_keys() == ["declared"]
    # the mapping view shows only keys that hold a value
    assert list(bb) == [] and len(bb) == 0
    bb["declared"] = 3
    assert dict(bb) == {"declared": 3}


def test_none_empties_an_entry():
    bb = Blackboard()
    bb["x"] = 2
    bb["x"] = None
    assert "x" not in bb and bb.local_keys() == ["x"]


def test_delitem_and_unset():
    bb = Blackboard()
    bb["x"] = 1
    del bb["x"]
    assert bb.local_keys() == []
    with pytest.raises(KeyError):
        del bb["x"]
    bb.unset("never_there")  # BT.CPP: nothing to do
    bb["y"] = 1
    bb.unset("y")
    assert "y" not in bb


def test_trees_share_nothing():
    a, b = Blackboard(), Blackboard()
    a["k"] = 1
    assert "k" not in b


# ----------------------------------------------------------------- type rules


def test_int_entry_accepts_integral_double_and_rejects_fraction():
    bb = Blackboard()
    bb["n"] = 1
    bb["n"] = 3.0
    assert bb["n"] == 3 and type(bb["n"]) is int
    with pytest.raises(BlackboardTypeError) as info:
        bb["n"] = 2.5
    assert str(info.value) == (
        "Blackboard::set(n): once declared, the type of a port shall not change. "
        "Previously declared type [long], current type [double]"
    )
    assert bb["n"] == 3  # state not corrupted


def test_double_entry_takes_int_as_double():
    bb = Blackboard()
    bb["d"] = 0.5
    bb["d"] = 2
    assert bb["d"] == 2.0 and type(bb["d"]) is float


def test_untyped_entry_becomes_typed_by_the_next_set():
    bb = Blackboard()
    bb["s"] = "PLAY"  # untyped: the next set types it, whatever the type
    bb["s"] = 3
    assert bb["s"] == 3 and bb.get_entry("s").type_ is int
    with pytest.raises(BlackboardTypeError, match=r"^Can't convert string \[x\] to integer$"):
        bb["s"] = "x"  # parsed by convertFromString<long>, whose error passes through
    with pytest.raises(BlackboardTypeError, match=r"\[long\], current type \[double\]"):
        bb["s"] = 2.5
    assert bb["s"] == 3
    bb["t"] = "a"
    bb["t"] = "b"  # the second string types the entry std::string
    assert bb.get_entry("t").type_ is str
    with pytest.raises(BlackboardTypeError) as info:
        bb["t"] = 1
    assert str(info.value) == (
        "Blackboard::set(t): once declared, the type of a port shall not change. "
        "Previously declared type [std::string], current type [long]"
    )
    bb.create_entry("u")  # declared untyped (a port of any type)
    bb["u"] = 1.5
    assert bb.get_entry("u").type_ is float


def test_typed_number_entries_take_safe_casts_only():
    bb = Blackboard()
    bb["n"] = 1
    bb["n"] = True  # bool -> int64 is safe
    assert bb["n"] == 1 and type(bb["n"]) is int
    with pytest.raises(BlackboardTypeError, match=r"\[long\], current type \[double\]"):
        bb["n"] = 2.0**63  # outside int64
    with pytest.raises(BlackboardTypeError):
        bb["n"] = float("nan")
    bb["d"] = 0.5
    bb["d"] = 2**53  # exact as a double
    assert bb["d"] == 2.0**53 and type(bb["d"]) is float
    with pytest.raises(BlackboardTypeError, match=r"\[double\], current type \[long\]"):
        bb["d"] = 2**53 + 1  # would change in the round trip
    bb["b"] = False
    for not_a_bool in (1, 0, 1.0):  # bool is not among isCastingSafe's targets
        with pytest.raises(BlackboardTypeError, match=r"\[bool\], current type"):
            bb["b"] = not_a_bool
    bb["b"] = "true"  # a string goes through convertFromString<bool>
    assert bb["b"] is True
    with pytest.raises(BlackboardTypeError, match="invalid bool conversion"):
        bb["b"] = "yes"
    bb["i"] = 7
    bb["i"] = "12abc"  # std::from_chars: a valid prefix is enough
    assert bb["i"] == 12
    with pytest.raises(BlackboardTypeError, match=r"Can't convert string \[ 1\] to integer"):
        bb["i"] = " 1"


def test_typed_entry_uses_converter_for_strings():
    bb = Blackboard()
    bb.create_entry("p", tuple, converter=lambda s: tuple(float(x) for x in s.split(";")))
    bb["p"] = "1;2.5"
    assert bb["p"] == (1.0, 2.5)
    bb["p"] = (3.0, 4.0)
    with pytest.raises(BlackboardTypeError):
        bb["p"] = [1, 2]


def test_typed_empty_entry_type_checks_first_write():
    bb = Blackboard()
    bb.create_entry("f", float)
    assert bb.get_entry("f").converter is not None  # a typed entry always has a converter
    bb["f"] = 1  # a safe cast; copyInto an empty value takes the new value whole
    assert type(bb["f"]) is int and bb.get_entry("f").type_ is float
    # ... so the stored int64 is kept by later copies, and a fraction no longer fits
    with pytest.raises(BlackboardTypeError, match="Invalid floating point to integer"):
        bb["f"] = 2.5
    bb["f"] = 4.0
    assert bb["f"] == 4 and type(bb["f"]) is int
    bb.create_entry("g", float)
    bb["g"] = "0.25"
    assert bb["g"] == 0.25
    bb["g"] = 3
    assert bb["g"] == 3.0 and type(bb["g"]) is float  # copied into the stored double
    bb.create_entry("b", bool)
    bb["b"] = "true"
    assert bb["b"] is True
    with pytest.raises(BlackboardTypeError):
        bb["b"] = 1  # BT.CPP: set<int> on a bool port is not a safe cast
    with pytest.raises(BlackboardTypeError):
        bb["b"] = "maybe"


def test_untyped_entry_with_a_class_value():
    class Pose:
        pass

    class SubPose(Pose):
        pass

    bb = Blackboard()
    bb["pose"] = Pose()
    bb["pose"] = SubPose()  # a subclass fits (Python classes are not C++ types)
    with pytest.raises(BlackboardTypeError, match="template specialization of convertFromString"):
        bb["pose"] = "x"  # parsed by the unspecialised convertFromString<Pose>
    with pytest.raises(BlackboardTypeError, match=r"current type \[long\]"):
        bb["pose"] = 3


def test_set_any_types_new_entries_and_checks_exact_types():
    # set<BT::Any> (SetBlackboard): the Any's own type, strings included, no casts
    root = Blackboard()
    root.set_any("s", "hello")
    assert root.get_entry("s").type_ is str
    root.set_any("n", 5)
    with pytest.raises(BlackboardTypeError) as info:
        root.set_any("n", 2.0)  # no isCastingSafe for Any
    assert str(info.value) == (
        "Blackboard::set(n): once declared, the type of a port shall not change. "
        "Previously declared type [long], current type [BT::Any]"
    )
    with pytest.raises(BlackboardTypeError, match=r"current type \[BT::Any\]"):
        root.set_any("n", "7")  # nor string parsing
    assert root["n"] == 5
    root.create_entry("u")
    root.set_any("u", 1)
    root.set_any("u", "x")  # TypeInfo::Create<BT::Any>: BT::Any, still not strongly typed
    assert root["u"] == "x" and root.get_entry("u").type_ is AnyValue
    assert btcpp_type_name(AnyValue) == "BT::Any" and not is_strongly_typed(AnyValue)
    with pytest.raises(BlackboardTypeError, match="template specialization of convertFromString"):
        root.get_entry("u").converter("1")  # convertFromString<BT::Any> is not specialised
    root.set_any("u", None)
    assert "u" not in root
    root["u"] = 2.5  # a typed set types a BT::Any entry like an untyped one
    assert root.get_entry("u").type_ is float
    root.create_entry("u2")
    root.set_any("u2", 1)
    sub = Blackboard(root)
    sub.add_remapping("k", "n")
    # remapped: createEntry compares declared types (a string is std::string here) ...
    with pytest.raises(BlackboardTypeError, match=r"^Blackboard entry \[n\]: once declared"):
        sub.set_any("k", "text")
    sub.add_remapping("w", "u2")
    sub.set_any("w", "text")  # ... and a BT::Any parent entry takes anything, unchanged
    assert root["u2"] == "text" and root.get_entry("u2").type_ is AnyValue and root["n"] == 5
    sub.set_any("@g", 3)
    assert root.get_entry("g").type_ is int


def test_create_entry_type_conflict():
    bb = Blackboard()
    bb.create_entry("k", int)
    assert bb.create_entry("k", int) is bb.get_entry("k")
    assert bb.create_entry("k") is bb.get_entry("k")  # any type does not conflict
    with pytest.raises(BlackboardTypeError, match=r"Blackboard entry \[k\]: once declared"):
        bb.create_entry("k", str)


def test_number_cast_rules():
    assert number_cast(3.0, int) == 3
    assert number_cast(True, int) == 1
    assert number_cast(2, float) == 2.0
    assert number_cast(0.25, bool) is True  # a double truncates to bool
    assert number_cast(1, bool) is True
    with pytest.raises(BlackboardTypeError, match="Implicit casting to bool"):
        number_cast(2, bool)
    with pytest.raises(BlackboardTypeError, match="Invalid floating point"):
        number_cast(1.5, int)
    with pytest.raises(BlackboardTypeError):
        number_cast(1e30, int)
    with pytest.raises(BlackboardTypeError, match="Loss of precision"):
        number_cast(2**53 + 1, float)


def test_type_names():
    assert btcpp_type_name(int) == "long"
    assert btcpp_type_name(float) == "double"
    assert btcpp_type_name(str) == "std::string"
    assert btcpp_type_name(bool) == "bool"
    assert btcpp_type_name(None) == "BT::AnyTypeAllowed"


# ----------------------------------------------------------------- scopes


def test_explicit_remapping_reads_and_writes_parent():
    root = Blackboard()
    root["x"] = 1
    sub = Blackboard(root)
    sub.add_remapping("inner", "x")
    assert sub["inner"] == 1
    sub["inner"] = 2
    assert root["x"] == 2
    assert sub.local_keys() == []  # the entry lives in the parent only
    assert sub.get_entry("inner") is root.get_entry("x")


def test_remapped_write_creates_in_parent_when_absent():
    root = Blackboard()
    sub = Blackboard(root)
    sub.add_remapping("out", "target")
    sub["out"] = "v"
    assert root["target"] == "v" and sub.local_keys() == []


def test_remapped_set_skips_the_type_check_of_the_parent_entry():
    # BT.CPP's set() finds no local entry, so it goes through createEntry (which only
    # compares two declared types) and assigns the value unchecked
    root = Blackboard()
    root["x"] = 1
    sub = Blackboard(root)
    sub.add_remapping("x", "x")
    sub["x"] = "text"  # set<std::string>: an untyped declaration never conflicts
    assert root["x"] == "text" and root.get_entry("x").type_ is int
    with pytest.raises(BlackboardTypeError, match=r"^Blackboard entry \[x\]: once declared"):
        sub["x"] = 2.5  # createEntry: declared long, now double
    root.create_entry("u")
    auto = Blackboard(root, autoremap=True)
    auto["u"] = 5
    auto["u"] = "five"
    assert root["u"] == "five" and root.get_entry("u").type_ is None  # stays untyped
    assert auto.local_keys() == []


def test_first_remapping_wins():
    root = Blackboard()
    root["a"], root["b"] = 1, 2
    sub = Blackboard(root)
    sub.add_remapping("k", "a")
    sub.add_remapping("k", "b")
    assert sub["k"] == 1


def test_no_remap_isolated():
    root = Blackboard()
    root["x"] = 100
    sub = Blackboard(root)
    assert sub.get("x") is None
    sub["x"] = 1
    assert root["x"] == 100 and sub["x"] == 1


def test_autoremap_excludes_private_keys():
    root = Blackboard()
    root["x"] = 1
    root["_p"] = 5
    sub = Blackboard(root, autoremap=True)
    assert sub["x"] == 1
    assert sub.get("_p") is None
    sub["y"] = 2
    sub["_q"] = 3
    assert root["y"] == 2 and "_q" not in root and sub["_q"] == 3
    assert sub.local_keys() == ["_q"]


def test_enable_autoremap_later():
    root = Blackboard()
    root["x"] = 1
    sub = Blackboard(root)
    assert sub.get("x") is None
    sub.enable_autoremap()
    assert sub["x"] == 1 and sub.autoremap
    sub.enable_autoremap(False)
    assert sub.get("x") is None


def test_local_entry_shadows_remapping():
    root = Blackboard()
    root["x"] = 1
    sub = Blackboard(root, autoremap=True)
    sub.create_entry("_x")
    sub["_x"] = 9
    assert sub["_x"] == 9 and "_x" not in root


def test_at_keys_resolve_in_root_from_any_depth():
    root = Blackboard()
    mid = Blackboard(root)
    leaf = Blackboard(mid)
    assert leaf.root() is root and mid.root() is root and root.root() is root
    leaf["@g"] = 4
    assert root["g"] == 4 and leaf["@g"] == 4 and "g" not in leaf
    entry = leaf.create_entry("@h", int)
    assert root.get_entry("h") is entry
    with pytest.raises(BlackboardError, match="'@' used multiple times"):
        leaf.create_entry("@a@b")


def test_a_remapping_to_an_at_key_declares_it_literally_in_the_parent():
    """BT.CPP 4.10 follows a SubTree remapping with createEntryImpl, which keeps the "@": the
    parent gets an entry named "@top" that no key resolves to, and the root's "top" stays
    missing. Once the root's "top" exists the remapped key reads it, but `set` (an output
    port) still writes the literal entry: it follows createEntryImpl, not getEntry."""
    root = Blackboard()
    mid = Blackboard(root)
    sub = Blackboard(mid)
    sub.add_remapping("p", "@top")
    created = sub.create_entry("p", int)
    assert "@top" in mid.local_keys() and mid.local_entries()["@top"] is created
    assert sub.get_entry("p") is None and root.get_entry("top") is None
    assert mid.get_entry("@top") is None  # "@" first: never the literal entry
    sub["p"] = 5  # a write lands in the literal entry, as BT.CPP's set does
    assert created.value == 5 and sub.get("p") is None
    root["top"] = 1
    assert sub.get_entry("p") is root.get_entry("top")
    sub["p"] = 42
    assert root["top"] == 1 and created.value == 42 and sub["p"] == 1


def test_a_script_creating_a_key_remapped_to_a_missing_root_key_throws():
    root = Blackboard()
    sub = Blackboard(root)
    sub.add_remapping("p", "@top")
    with pytest.raises(ScriptRuntimeError, match="Bug: report"):
        compile_script("p := 42")(sub)
    root["top"] = 1
    compile_script("p := 42")(sub)
    assert root["top"] == 42


def test_nested_remapping_chain():
    root = Blackboard()
    mid = Blackboard(root)
    mid.add_remapping("m", "r")
    leaf = Blackboard(mid)
    leaf.add_remapping("l", "m")
    leaf["l"] = 1.5
    assert root["r"] == 1.5 and mid["m"] == 1.5


def test_unset_of_remapped_key_keeps_parent_entry():
    # conformance case unset_blackboard_in_subtree: x survives in the parent
    root = Blackboard()
    root["x"] = 1
    sub = Blackboard(root)
    sub.add_remapping("x", "x")
    sub["y"] = 2
    sub.unset("x")
    sub.unset("y")
    assert root["x"] == 1 and sub["x"] == 1 and "y" not in sub


def test_remapping_without_parent_is_an_error():
    orphan = Blackboard()
    orphan.add_remapping("a", "b")
    with pytest.raises(BlackboardError, match="Missing parent blackboard"):
        orphan.create_entry("a")
    assert orphan.get_entry("a") is None


def test_numpy_scalars_are_stored_as_python_numbers():
    np = pytest.importorskip("numpy")
    bb = Blackboard()
    bb["flag"] = False
    bb["flag"] = np.bool_(True)
    assert bb["flag"] is True
    bb["d"] = np.float64(0.5)
    assert type(bb["d"]) is float
    bb["n"] = np.int64(3)
    assert type(bb["n"]) is int and bb["n"] == 3
    arr = np.zeros(2)
    bb["arr"] = arr
    assert bb["arr"] is arr  # arrays are objects, kept as they are


def test_btcpp_format():
    from soccerbt.blackboard import btcpp_format

    assert btcpp_format(3) == "3"
    assert btcpp_format(2.5) == "2.500000"
    assert btcpp_format(1.0) == "1.000000"
    assert btcpp_format("PLAY") == "PLAY"
    assert btcpp_format(True) == "1"
    assert btcpp_format(None) is None
    assert btcpp_format((1, 2)) == "(1, 2)"


def test_repeated_writes_of_the_same_type_keep_counting_and_typing() -> None:
    """The adapters write the same keys with the same types at every tick (the fast path)."""
    bb = Blackboard()
    for n, value in enumerate((0.5, 1.5, -2.0), start=1):
        bb.set("ball_x", value)
        entry = bb.get_entry("ball_x")
        assert entry.value == value and type(entry.value) is float and entry.sequence_id == n
    bb.set("ball_x", 3)  # an int into a double entry: still converted, as BT.CPP's copyInto
    assert bb["ball_x"] == 3.0 and type(bb["ball_x"]) is float and bb.get_entry("ball_x").sequence_id == 4
    bb.set("flag", True)
    with pytest.raises(BlackboardTypeError):
        bb.set("flag", "not a bool")  # a typed entry still refuses a foreign type
    assert bb["flag"] is True and bb.get_entry("flag").sequence_id == 1
    bb.set("ball_x", None)  # None empties and keeps the type
    bb.set("ball_x", 2.0)
    assert bb.get_entry("ball_x").type_ is float and bb["ball_x"] == 2.0


def test_a_root_key_written_through_a_subtree_lands_in_the_root() -> None:
    root = Blackboard()
    root.set("speed", 1.0)
    child = Blackboard(parent=root)
    child.set("@speed", 2.0)
    child.set("speed", 3.0)  # not remapped: a local entry of the child
    assert root["speed"] == 2.0 and child["speed"] == 3.0
