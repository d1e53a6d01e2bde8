"""The script language: values and types of results, precedence, errors, BT.CPP quirks."""
from __future__ import annotations

import enum
import math

import pytest

from soccerbt.blackboard import (
    Blackboard,
    BlackboardError,
    ScriptRuntimeError,
    ScriptSyntaxError,
    compile_script,
    parse_literal,
)


def run(src: str, bb: Blackboard | None = None, enums=None):
    bb = Blackboard() if bb is None else bb
    return compile_script(src, enums)(bb)


def typed(value):
    return (type(value).__name__, value)


# ----------------------------------------------------------------- literals and types


@pytest.mark.parametrize(
    "src, expected",
    [
        ("42", ("int", 42)),
        ("0x1F", ("int", 31)),
        ("0X10", ("int", 16)),
        ("2.5", ("float", 2.5)),
        ("1e3", ("float", 1000.0)),
        ("1.5E-1", ("float", 0.15)),
        ("'txt'", ("str", "txt")),
        ("''", ("str", "")),
        ("true", ("float", 1.0)),
        ("false", ("float", 0.0)),
        ("-1", ("float", -1.0)),  # unary minus makes a double
        ("1 + 1", ("float", 2.0)),  # arithmetic results are doubles
        ("7 - 2", ("float", 5.0)),
        ("3 * 4", ("float", 12.0)),
        ("7 / 2", ("float", 3.5)),
        ("6 & 3", ("float", 2.0)),
        ("6 | 3", ("float", 7.0)),
        ("6 ^ 3", ("float", 5.0)),
        ("~5", ("float", -6.0)),
        ("!0", ("float", 1.0)),
        ("!2.5", ("float", 0.0)),
        ("1 == 1", ("float", 1.0)),
        ("1 && 0", ("float", 0.0)),
        ("0 || 1", ("float", 1.0)),
    ],
)
def test_value_and_type(src, expected):
    assert typed(run(src)) == expected


def test_integer_literal_out_of_int64_reads_zero():
    # from_chars fails on overflow and BT.CPP keeps the zero it started with
    assert run("99999999999999999999") == 0
    assert run("9223372036854775807") == 2**63 - 1


def test_division_by_zero_is_ieee():
    assert run("1 / 0") == math.inf
    assert run("-1 / 0") == -math.inf
    assert math.isnan(run("0 / 0"))


def test_float_equality_uses_float_epsilon():
    assert run("1 == 1.0000001") == 1.0
    assert run("1 == 1.001") == 0.0
    assert run("0.1 + 0.2 == 0.3") == 1.0
    assert run("1 != 1.0000001") == 0.0


# ----------------------------------------------------------------- strings


def test_concat_formats_numbers_like_std_to_string():
    bb = Blackboard()
    run("s := 'a' .. 'b'; s2 := 'n=' .. 5; s3 := 'x' .. 2.5; s8 := 'v' .. (1 + 1)", bb)
    assert (bb["s"], bb["s2"], bb["s3"], bb["s8"]) == ("ab", "n=5", "x2.500000", "v2.000000")
    assert run("1 .. 'a'") == "1a"
    assert run("true .. 'a'") == "1.000000a"


def test_concat_of_two_numbers_is_empty():
    # BT.CPP falls through to an empty Any: visible as "not initialized" on assignment
    assert run("1 .. 2") is None
    with pytest.raises(ScriptRuntimeError) as info:
        run("r := 1 .. 2")
    assert str(info.value) == (
        "Error in script [r := 1 .. 2]\nThe right operand of the operator [:=] is not initialized"
    )


def test_plus_on_strings_and_errors():
    assert run("'a' + 'b'") == "ab"
    with pytest.raises(ScriptRuntimeError, match="Operation not permitted"):
        run("'a' + 1")
    with pytest.raises(ScriptRuntimeError, match="Operation not permitted"):
        run("'a' - 'b'")
    with pytest.raises(ScriptRuntimeError, match="Operation not permitted"):
        run("'a' && 1")
    with pytest.raises(ScriptRuntimeError, match="Invalid operator for std::string"):
        run("-'a'")


def test_string_comparisons():
    assert run("'abc' == 'abc'") == 1.0
    assert run("'abc' != 'abd'") == 1.0
    assert run("'abc' < 'abd'") == 1.0
    assert run("'b' >= 'a'") == 1.0


def test_string_number_comparison_converts_the_string():
    bb = Blackboard()
    bb["a"] = "42"  # e.g. SetBlackboard value="42" stores a string
    assert run("a == 42", bb) == 1.0
    assert run("a < 50", bb) == 1.0
    assert run("'true' == 1") == 1.0
    assert run("'false' == 0") == 1.0
    assert run("'RED' == 2", enums={"RED": 2}) == 1.0
    with pytest.raises(ScriptRuntimeError) as info:
        run("'abc' == 3")
    assert str(info.value) == "Any failed string to number conversion"  # safe_any: unwrapped


def test_mixed_types_comparison_error():
    bb = Blackboard()
    bb["p"] = [1, 2]
    with pytest.raises(ScriptRuntimeError) as info:
        run("p == 1", bb)
    assert str(info.value).endswith(
        "Can't mix different types in Comparison. Left operand [list] right operand [long]"
    )


# ----------------------------------------------------------------- precedence


@pytest.mark.parametrize(
    "src, expected",
    [
        ("1 + 2 * 3", 7.0),
        ("(1 + 2) * 3", 9.0),
        ("10 - 4 - 3", 3.0),  # left associative
        ("64 / 4 / 2", 8.0),
        ("-2 * 3", -6.0),
        ("- (2 * 3)", -6.0),
        ("!0 + 1", 2.0),  # prefix binds tighter than any infix
        ("1 | 2 == 3", 1.0),  # bit operators bind tighter than comparison (not C's rule)
        ("6 & 3 == 2", 1.0),
        ("1 | 6 & 3", 3.0),  # & tighter than |
        ("5 ^ 1 | 2", 6.0),  # ^ and | share a level, left to right
        ("1 + 2 == 3", 1.0),
        ("1 < 2 == 1", 0.0),  # one chain of neighbours: 1 < 2 holds, 2 == 1 fails
        ("1 == 1 && 2 == 2", 1.0),
        ("0 && 1 || 1", 1.0),  # && tighter than ||
        ("1 || 1 && 0", 1.0),
        ("1 ? 2 : 3", 2),
        ("0 ? 2 : 3", 3),
        ("0 ? 1 : 0 ? 2 : 3", 3),  # right nested
        ("1 ? 0 ? 5 : 6 : 7", 6),
        ("'a' .. 1 .. 'b'", "a1b"),
        ("'a' .. (1 + 1)", "a2.000000"),
    ],
)
def test_precedence(src, expected):
    assert run(src) == expected


def test_concat_shares_the_level_of_plus():
    # ('a' .. 1) + 1: a string plus a number
    with pytest.raises(ScriptRuntimeError, match="Operation not permitted"):
        run("'a' .. 1 + 1")
    assert run("1 + 1 .. 'a'") == "2.000000a"


def test_assignment_takes_whole_expression_and_chains():
    bb = Blackboard()
    assert run("x := 1 ? 'a' : 'b'", bb) == "a" and bb["x"] == "a"
    run("a := b := 3", bb)
    assert bb["a"] == 3 and bb["b"] == 3


def test_statements_without_semicolons_and_trailing_semicolons():
    bb = Blackboard()
    assert run("x := 1 y := 2;;", bb) == 2
    assert bb["x"] == 1 and bb["y"] == 2


# ----------------------------------------------------------------- chained comparisons


def test_chained_comparison_semantics():
    assert run("1 < 2 < 3") == 1.0
    assert run("3 > 2 > 1") == 1.0
    assert run("1 < 3 < 2") == 0.0
    assert run("1 == 1 == 1") == 1.0
    assert run("2 == 2 == 1") == 0.0


def test_chain_stops_at_first_false_link():
    # the operands after a false link are never evaluated
    assert run("2 < 1 < undefined_var") == 0.0
    with pytest.raises(ScriptRuntimeError, match="Variable not found: undefined_var"):
        run("1 < 2 < undefined_var")


# ----------------------------------------------------------------- logic


def test_logic_does_not_short_circuit():
    with pytest.raises(ScriptRuntimeError) as info:
        run("r := false && undefined_var")
    assert str(info.value) == (
        "Error in script [r := false && undefined_var]\nVariable not found: undefined_var"
    )
    bb = Blackboard()
    bb["n"] = 0.0  # a double counter: an int result of 2 would not cast to bool
    run("true || (n += 1) ; false && (n += 1)", bb)
    assert bb["n"] == 2.0


def test_logic_cast_rules():
    assert run("2.5 && 1") == 1.0  # a double truncates to bool
    with pytest.raises(ScriptRuntimeError) as info:
        run("2 && 1")  # an integer other than 0/1 is not castable to bool
    assert str(info.value) == (
        "Error in script [2 && 1]\nLogic operators are not allowed if one of the operands "
        "is not castable to bool"
    )


def test_bit_operators_need_integers():
    assert run("4.0 | 1") == 5.0  # an integral double casts to int64
    with pytest.raises(ScriptRuntimeError, match="Binary operators are not allowed"):
        run("1.5 | 1")
    with pytest.raises(ScriptRuntimeError, match="Operation not permitted"):
        run("'a' | 1")
    with pytest.raises(ScriptRuntimeError, match="Number out of range for bitwise"):
        run("~1e30")


def test_ternary_conditions():
    bb = Blackboard()
    bb["s"] = "5"
    assert run("s ? 'y' : 'n'", bb) == "y"  # a string goes through cast<double>
    bb["s"] = "abc"
    with pytest.raises(ScriptRuntimeError, match="Any failed string to number conversion"):
        run("s ? 'y' : 'n'", bb)
    assert run("0.0 ? 1 : 2") == 2


# ----------------------------------------------------------------- blackboard access


def test_names_read_entries_and_at_reads_root():
    root = Blackboard()
    root["g"] = 7
    sub = Blackboard(root)
    sub["l"] = 1
    assert run("@g + l", sub) == 8.0
    run("@out := 'x'", sub)
    assert root["out"] == "x" and "out" not in sub.local_keys()


def test_missing_variable_and_partial_effects():
    bb = Blackboard()
    with pytest.raises(ScriptRuntimeError) as info:
        run("x := 1; y := x + nope; z := 3", bb)
    assert str(info.value) == (
        "Error in script [x := 1; y := x + nope; z := 3]\nVariable not found: nope"
    )
    assert bb["x"] == 1
    assert bb.get_entry("y") is not None and bb.get_entry("y").value is None  # created empty
    assert bb.get_entry("z") is None


def test_empty_entry_operand_is_not_initialized():
    bb = Blackboard()
    bb.create_entry("e")
    with pytest.raises(ScriptRuntimeError, match=r"The left operand of the operator \[\+\]"):
        run("e + 1", bb)
    with pytest.raises(ScriptRuntimeError, match=r"The right operand of the operator \[==\]"):
        run("1 == e", bb)
    with pytest.raises(ScriptRuntimeError, match=r"The left operand of the operator \[\+=\]"):
        run("e += 1", bb)


def test_enums_read_as_doubles_and_are_not_keys():
    enums = {"RED": 1, "BLUE": 2}
    bb = Blackboard()
    script = compile_script("c := BLUE; c == BLUE", enums)
    assert script(bb) == 1.0
    assert typed(bb["c"]) == ("float", 2.0)
    assert script.referenced_keys == frozenset({"c"})
    assert script.assigned_keys == frozenset({"c"})


def test_referenced_and_assigned_keys():
    s = compile_script("a := b + @c; d += 1; e == 'x' ? f : g")
    assert s.referenced_keys == frozenset({"a", "b", "@c", "d", "e", "f", "g"})
    assert s.assigned_keys == frozenset({"a", "d"})
    assert s.source == "a := b + @c; d += 1; e == 'x' ? f : g"


# ----------------------------------------------------------------- assignment rules


def test_assign_existing_requires_entry():
    with pytest.raises(ScriptRuntimeError) as info:
        run("x = 3")
    assert str(info.value) == (
        "Error in script [x = 3]\nThe blackboard entry [x] doesn't exist, yet.\n"
        "If you want to create a new one, use the operator [:=] instead of [=]"
    )
    bb = Blackboard()
    bb["control_state"] = 1
    run("control_state=3", bb)
    assert typed(bb["control_state"]) == ("int", 3)


def test_assign_keeps_integer_type():
    bb = Blackboard()
    run("x := 1; x := 2.0", bb)
    assert typed(bb["x"]) == ("int", 2)
    with pytest.raises(ScriptRuntimeError) as info:
        run("x := 2.5", bb)
    assert str(info.value) == (
        "Error in script [x := 2.5]\nError assigning a value to entry [x] with type [long]. "
        "\nThe right operand has type [double] and can't be converted to [long]"
    )
    assert bb["x"] == 2


def test_double_entry_takes_integers_as_double():
    bb = Blackboard()
    run("d := 0.5; d := 3", bb)
    assert typed(bb["d"]) == ("float", 3.0)


def test_string_into_number_entry():
    bb = Blackboard()
    run("n := 1; n := '5'", bb)
    assert typed(bb["n"]) == ("float", 5.0)  # StringToDouble stores a double
    with pytest.raises(ScriptRuntimeError, match="Any failed string to number conversion"):
        run("n := 'abc'", bb)


def test_number_into_string_entry_fails():
    bb = Blackboard()
    run("s := 'a'", bb)
    with pytest.raises(ScriptRuntimeError, match=r"with type \[std::string\]"):
        run("s := 1", bb)
    assert bb["s"] == "a"


def test_typed_entry_uses_converter_for_strings():
    bb = Blackboard()
    bb.create_entry("speed", float)
    run("speed := '0.8'", bb)
    assert bb["speed"] == 0.8
    bb.create_entry("pair", tuple, converter=lambda s: tuple(int(x) for x in s.split(",")))
    run("pair := '1,2'", bb)
    assert bb["pair"] == (1, 2)
    with pytest.raises(ScriptRuntimeError):
        run("pair := 'x,y'", bb)
    bb.create_entry("names", list)  # convertFromString<std::vector<std::string>>
    run("names := 'a;b'", bb)
    assert bb["names"] == ["a", "b"]

    class Pose:  # a type without convertFromString: BT.CPP's unspecialised template throws
        pass

    bb.create_entry("pose", Pose)
    with pytest.raises(ScriptRuntimeError, match="template specialization of convertFromString"):
        run("pose := 'x'", bb)

    class Mode(enum.Enum):  # enums have no string converter at all
        A = 1

    bb.create_entry("mode", Mode)
    with pytest.raises(ScriptRuntimeError, match="The right operand is a string, can't convert"):
        run("mode := 'x'", bb)


def test_compound_assignments():
    bb = Blackboard()
    run("i := 1; i += 2; d := 1.5; d *= 2; s := 'a'; s += 'b'", bb)
    assert typed(bb["i"]) == ("int", 3)
    assert typed(bb["d"]) == ("float", 3.0)
    assert bb["s"] == "ab"
    run("d /= 4; d -= 0.25", bb)
    assert bb["d"] == 0.5
    with pytest.raises(ScriptRuntimeError) as info:
        run("i += 0.5", bb)
    assert str(info.value) == "Invalid floating point to integer conversion"
    assert bb["i"] == 3
    with pytest.raises(ScriptRuntimeError, match="Operator not supported for strings"):
        run("s -= 'a'", bb)
    with pytest.raises(ScriptRuntimeError, match="can't be used with a non-numeric type"):
        run("s += 1", bb)
    with pytest.raises(ScriptRuntimeError, match="doesn't exist, yet"):
        run("nothere += 1", bb)


def test_sequence_id_bumps_on_script_writes():
    bb = Blackboard()
    run("x := 1", bb)
    run("x += 1", bb)
    assert bb.get_entry("x").sequence_id == 2


def test_assignment_to_non_name():
    with pytest.raises(ScriptRuntimeError, match="Assignment left operand not a blackboard"):
        run("a + b := 3")


def test_assignment_through_remapping_and_autoremap():
    root = Blackboard()
    sub = Blackboard(root)
    sub.add_remapping("inner", "outer")
    run("inner := 5", sub)
    assert root["outer"] == 5
    auto = Blackboard(root, autoremap=True)
    run("k := 1; _private := 2", auto)
    assert root["k"] == 1 and "_private" not in root and auto["_private"] == 2


# ----------------------------------------------------------------- conditions


def test_evaluate_bool_rules():
    bb = Blackboard()
    bb["flag"] = True
    bb["n"] = 2
    bb["s"] = "x"
    assert compile_script("flag").evaluate_bool(bb) is True
    assert compile_script("0.5").evaluate_bool(bb) is True
    assert compile_script("1").evaluate_bool(bb) is True
    assert compile_script("0").evaluate_bool(bb) is False
    with pytest.raises(ScriptRuntimeError, match="Implicit casting to bool is not allowed"):
        compile_script("n").evaluate_bool(bb)
    with pytest.raises(ScriptRuntimeError, match=r"between \[std::string\] and \[bool\]"):
        compile_script("s").evaluate_bool(bb)
    with pytest.raises(ScriptRuntimeError, match="empty"):
        compile_script("1 .. 2").evaluate_bool(bb)


def test_booster_conditions():
    bb = Blackboard()
    bb.update(control_state=3, assist_kick=False, go_manual=True, player_role="striker",
              decision="find", gc_game_sub_state_type="FREE_KICK", gc_game_state="PLAY",
              odom_calibrated=False)
    cases = {
        "control_state==1 || assist_kick || go_manual": True,
        "player_role == 'striker'": True,
        "decision!='find'": False,
        "gc_game_sub_state_type=='FREE_KICK' && gc_game_state=='PLAY'": True,
        "!odom_calibrated": True,
    }
    for src, want in cases.items():
        assert compile_script(src).evaluate_bool(bb) is want, src
    bb["go_manual"] = False
    assert compile_script("control_state==1 || assist_kick || go_manual").evaluate_bool(bb) is False


# ----------------------------------------------------------------- syntax errors


@pytest.mark.parametrize(
    "src, message, position",
    [
        ("1 +", "Expected operand at position 3 (got '')", 3),
        ("", "Empty Script", 0),
        ("   ", "Empty Script", 0),
        (";", "Expected operand at position 0 (got ';')", 0),
        ("(1", "Parse error at position 2: expected ')' (got '')", 2),
        ("a ? 1", "Parse error at position 5: expected ':' in ternary expression (got '')", 5),
        ("3foo", "Invalid token '3foo' at position 0", 0),
        ("x := 65.", "Invalid token '65.' at position 5", 5),
        ("0x", "Invalid token '0x' at position 0", 0),
        ("1e", "Invalid token '1e' at position 0", 0),
        ("'open", "Invalid token ''open' at position 0", 0),
        ("a # b", "Invalid token '#' at position 2", 2),
        ('"x"', "Invalid token '\"' at position 0", 0),
        ("x := )", "Expected operand at position 5 (got ')')", 5),
        ("a ?? b", "Expected operand at position 3 (got '?')", 3),
    ],
)
def test_syntax_errors(src, message, position):
    with pytest.raises(ScriptSyntaxError) as info:
        compile_script(src)
    assert info.value.message == message
    assert info.value.position == position
    assert str(info.value) == f'Error in the script "{src}"\n{message}'


def test_precondition_error_text_matches_btcpp():
    with pytest.raises(ScriptSyntaxError) as info:
        compile_script("1 +")
    assert str(info.value) == "Error in the script \"1 +\"\nExpected operand at position 3 (got '')"
    assert isinstance(info.value, ValueError)


def test_concat_operator_after_integer():
    assert run("65..'x'") == "65x"


# ----------------------------------------------------------------- parse_literal


def test_parse_literal():
    assert typed(parse_literal("42")) == ("int", 42)
    assert typed(parse_literal("-1.5")) == ("float", -1.5)
    assert parse_literal("'a b'") == "a b"
    assert parse_literal("true") is True and parse_literal("false") is False
    assert parse_literal(" 0x10 ") == 16
    for bad in ["a", "1 + 1", "", "-'x'"]:
        with pytest.raises(ScriptSyntaxError):
            parse_literal(bad)


def test_errors_are_the_documented_kinds():
    assert issubclass(ScriptRuntimeError, RuntimeError)
    assert issubclass(ScriptSyntaxError, ValueError)
    orphan = Blackboard()
    orphan.add_remapping("a", "b")
    with pytest.raises(BlackboardError, match="Missing parent"):
        run("a := 1", orphan)


def test_nan_and_large_numbers_follow_btcpp_tests():
    bb = Blackboard()
    bb["f"] = math.nan
    bb["big"] = 2**53 + 1
    assert run("f == f", bb) == 0.0
    assert run("f < 1", bb) == 1.0  # BT.CPP fails "<" only when lhs >= rhs: NaN passes
    assert run("f >= 1", bb) == 1.0
    assert run("f != 1", bb) == 1.0
    with pytest.raises(ScriptRuntimeError, match="Loss of precision"):
        run("big < 1", bb)
    with pytest.raises(ScriptRuntimeError, match="Loss of precision"):
        run("big + 1", bb)
    assert run("big .. ''", bb) == str(2**53 + 1)


def _outcome(src: str, bb: Blackboard, enums=None):
    try:
        return ("value", typed(compile_script(src, enums)(bb)))
    except ScriptRuntimeError as exc:
        return ("error", str(exc).split("\n")[-1])


@pytest.mark.parametrize("value", ["a", "b", "", 3, 4, 3.0, 3.5, True, 1, 2**60, None, (1,)])
@pytest.mark.parametrize("form", ["k {op} {lit}", "{lit} {op} k"])
@pytest.mark.parametrize("op", ["==", "!="])
@pytest.mark.parametrize("lit", ["'a'", "3", "1"])
def test_name_against_literal_fast_path_agrees_with_the_general_rules(value, form, op, lit):
    # `k == 'a'` is compiled to one closure; `k == 'a' .. ''` (not a literal) takes the
    # general comparison: both must give the same value or the same error
    bb = Blackboard()
    bb.create_entry("k")
    bb.get_entry("k").value = value
    general_lit = f"({lit} .. '')" if lit.startswith("'") else f"({lit} + 0)"
    fast = _outcome(form.format(op=op, lit=lit), bb)
    slow = _outcome(form.format(op=op, lit=general_lit), bb)
    if slow[0] == "value":
        slow = ("value", typed(float(slow[1][1])))
    else:  # the messages name the literal's type: long there, double here
        fast, slow = (fast[0], fast[1].split(" Left operand")[0]), \
            (slow[0], slow[1].split(" Left operand")[0])
    assert fast == slow


def test_name_against_literal_fast_path_errors_and_enums():
    with pytest.raises(ScriptRuntimeError, match="Variable not found: nope"):
        run("nope == 'x'")
    bb = Blackboard()
    bb["c"] = 2
    assert run("c == RED", bb, enums={"RED": 2}) == 1.0  # an enum name is a literal too
    assert run("RED == 2", bb, enums={"RED": 2}) == 1.0  # an enum on the name side
    sub = Blackboard(bb, autoremap=True)
    assert run("c != 2", sub) == 0.0  # resolved through the SubTree scope


def _verdict(fn, bb):
    try:
        return ("value", fn(bb))
    except ScriptRuntimeError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("src", ["k", "!k", "k == 'a'", "'a' != k", "k == 3", "3 != k",
                                 "k == 'a' && k", "@k", "!@k", "k && !k", "!k || k == 3 || k",
                                 "k != 'b' && @k && 7 == k", "k || (k && !k)"])
@pytest.mark.parametrize("value", [True, False, 0.0, 1.0, 2.5, float("nan"), 0, 1, 3, 7,
                                   "a", "b", "", None, "missing"])
def test_condition_closure_is_evaluate_bool(src, value):
    # `condition` (the one-closure form the nodes call for `_while` & co.) and the general
    # evaluate_bool agree on every value, errors included, at the root and in a SubTree scope
    root = Blackboard()
    if value != "missing":
        root.create_entry("k")
        root.get_entry("k").value = value
    script = compile_script(src)
    for bb in (root, Blackboard(root, autoremap=True)):
        for _ in range(2):  # the second run reads the memoised entry
            assert _verdict(script.condition, bb) == _verdict(script.evaluate_bool, bb)
    # every shape but a mixed chain has its closure (plain && or || chains a generated one)
    assert (script.condition == script.evaluate_bool) == (src == "k || (k && !k)")
