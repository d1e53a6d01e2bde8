"""Property tests: whatever the text, the script language fails only with its own errors."""
from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soccerbt.blackboard import (
    Blackboard,
    BlackboardError,
    ScriptRuntimeError,
    ScriptSyntaxError,
    compile_script,
)

VALID = [
    "control_state==1 || assist_kick || go_manual",
    "player_role == 'striker'",
    "decision!='find'",
    "gc_game_sub_state_type=='FREE_KICK' && gc_game_state=='PLAY'",
    "!odom_calibrated",
    "control_state=3",
    "x := 1; y := x + 2.5 * (3 - -1) / 4",
    "s := 'a' .. 1 .. 2.5; s += 'b'",
    "n := 0x1F & 7 | ~2 ^ 1",
    "c := 1 < 2 <= 3 == 3 != 4 > 0 >= 0",
    "t := go_manual ? 'm' : control_state > 2 ? 'auto' : 'assist'",
    "@root_key := 5; @root_key *= 2; @root_key /= 4",
    "e := RED; e == BLUE",
    "1 .. 2",
    "f := 1.5e3; f -= 1e-2",
]
ENUMS = {"RED": 1, "BLUE": 2}

SCRIPT_CHARS = st.sampled_from(list("abcxyz_@019.eE'\" +-*/&|^~!<>=?:();\t\n#$%") + ["..", ":=",
                                                                               "&&", "||",
                                                                               "==", "é", "\x00"])


def _fresh_blackboard() -> Blackboard:
    root = Blackboard()
    root["control_state"] = 3
    root["assist_kick"] = False
    root["go_manual"] = True
    root["player_role"] = "striker"
    root["decision"] = "find"
    root["gc_game_sub_state_type"] = "NONE"
    root["gc_game_state"] = "PLAY"
    root["odom_calibrated"] = False
    root["x"] = 2
    root["s"] = "txt"
    root["f"] = 0.5
    root["lst"] = [1, 2]
    root.create_entry("empty")
    sub = Blackboard(root, autoremap=True)
    return sub


def _check_compile(text: str) -> None:
    try:
        script = compile_script(text, ENUMS)
    except ScriptSyntaxError as exc:
        assert 0 <= exc.position <= len(text)
        assert str(exc).startswith('Error in the script "')
        return
    _check_run(script)


def _check_run(script) -> None:
    bb = _fresh_blackboard()
    for method in (script, script.evaluate_bool):
        try:
            method(bb)
        except (ScriptRuntimeError, BlackboardError) as exc:
            assert str(exc)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=40))
def test_random_text_only_raises_syntax_errors(text):
    _check_compile(text)


@settings(max_examples=400, deadline=None)
@given(st.lists(SCRIPT_CHARS, max_size=30).map("".join))
def test_script_like_text_only_raises_script_errors(text):
    _check_compile(text)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(VALID))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["insert", "delete", "replace", "swap"]))
        pos = draw(st.integers(0, len(text)))
        piece = draw(SCRIPT_CHARS)
        if kind == "insert":
            text = text[:pos] + piece + text[pos:]
        elif kind == "delete":
            text = text[:pos] + text[pos + 1:]
        elif kind == "replace":
            text = text[:pos] + piece + text[pos + 1:]
        elif len(text) > 1:
            a = draw(st.integers(0, len(text) - 1))
            chars = list(text)
            chars[a], chars[pos % len(text)] = chars[pos % len(text)], chars[a]
            text = "".join(chars)
    return text


@settings(max_examples=500, deadline=None)
@given(mutated())
def test_mutated_valid_scripts_only_raise_script_errors(text):
    _check_compile(text)


# a grammar of well-formed scripts with every operator and many operand types
ATOMS = st.sampled_from(["1", "0", "2", "2.5", "0.0", "-1", "0x10", "1e300", "'a'", "''", "'3'",
                         "'true'", "true", "false", "x", "s", "f", "lst", "empty", "nope",
                         "control_state", "go_manual", "RED", "@x", "_priv"])
BINARY = st.sampled_from(["+", "-", "*", "/", "..", "&", "|", "^", "&&", "||", "==", "!=", "<",
                          ">", "<=", ">="])
ASSIGN = st.sampled_from([":=", "=", "+=", "-=", "*=", "/="])


def _expr():
    return st.recursive(
        ATOMS,
        lambda inner: st.one_of(
            st.tuples(inner, BINARY, inner).map(lambda t: f"{t[0]} {t[1]} ({t[2]})"),
            st.tuples(st.sampled_from(["-", "!", "~"]), inner).map(lambda t: f"{t[0]}({t[1]})"),
            inner.map(lambda e: f"({e})"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]}) ? ({t[1]}) : ({t[2]})"),
            st.tuples(st.sampled_from(["x", "s", "f", "new", "empty", "lst", "@r", "_p"]),
                      ASSIGN, inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        ),
        max_leaves=8,
    )


@settings(max_examples=500, deadline=None)
@given(st.lists(_expr(), min_size=1, max_size=3).map("; ".join))
def test_well_formed_scripts_compile_and_fail_only_with_script_errors(text):
    script = compile_script(text, ENUMS)  # the grammar only builds valid scripts
    _check_run(script)


@settings(max_examples=200, deadline=None)
@given(st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True))
def test_numbers_from_python_never_crash(i, f):
    bb = Blackboard()
    bb["i"] = i
    bb["f"] = f
    for src in ["i + f", "i == f", "i & 1", "~i", "!f", "i .. 's'", "f .. 's'", "i ? 1 : 2",
                "f ? 1 : 2", "i && f", "k := i; k += f", "j := f; j = i", "i < f < 1"]:
        try:
            result = compile_script(src)(bb)
        except (ScriptRuntimeError, BlackboardError):
            continue
        assert result is None or isinstance(result, (int, float, str))
        if isinstance(result, float) and src in ("i == f", "!f", "i && f", "i < f < 1"):
            assert result in (0.0, 1.0) or math.isnan(result)
