"""The BehaviorTree.CPP 4.10 script language, compiled once into a tree of Python closures.

`compile_script(source)` tokenizes and parses like BT.CPP's hand-written Pratt parser
(soccerbt.blackboard.script_syntax), compiles the syntax tree here and returns a
`CompiledScript` (with a one-closure condition for the usual guards, from script_fast); calling it with a `Blackboard`
runs the statements and returns the value of the last one. Values follow BT.CPP's `Any`
(soccerbt.blackboard.script_values: the type tests and casts the closures apply). `&&`/`||`
evaluate both sides; a comparison chain stops at the first false link.

No eval/exec/ast: the source is never handed to Python. Imports only soccerbt.blackboard.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NoReturn

from soccerbt.blackboard.core import Blackboard, btcpp_type_name
from soccerbt.blackboard.script_fast import _fast_chain, _fast_condition
from soccerbt.blackboard.script_syntax import (
    _TWO_53,
    ScriptSyntaxError,
    _Assign,
    _Binary,
    _Compare,
    _If,
    _Lit,
    _Name,
    _Node,
    _Parser,
    _SyntaxFail,
    _tokenize,
    _Unary,
    parse_literal,
)
from soccerbt.blackboard.script_values import (
    _TWO_63,
    ScriptRuntimeError,
    _cast_bool,
    _cast_int64,
    _copy_into,
    _dbl,
    _div,
    _Fail,
    _is_num,
    _is_str,
    _string_to_double,
    _string_to_double_env,
    _to_string,
    _type_converter,
    _type_name,
)

__all__ = [
    "CompiledScript",
    "ScriptRuntimeError",
    "ScriptSyntaxError",
    "compile_script",
    "parse_literal",
]

_EPS = 1.1920928955078125e-07  # numeric_limits<float>::epsilon(): BT.CPP's == tolerance


def _not_init(side: str, op: str) -> str:
    return f"The {side} operand of the operator [{op}] is not initialized"


# =========================================================================== compiler

Fn = Callable[[Blackboard], object]


class _Compiler:
    def __init__(self, enums: Mapping[str, int] | None) -> None:
        self.enums = dict(enums) if enums else {}
        self.referenced: set[str] = set()
        self.assigned: set[str] = set()

    def compile(self, node: _Node) -> Fn:
        if isinstance(node, _Lit):
            return _c_literal(node.value)
        if isinstance(node, _Name):
            if node.name in self.enums:
                return _c_literal(float(self.enums[node.name]))
            self.referenced.add(node.name)
            return _c_name(node.name)
        if isinstance(node, _Unary):
            return _c_unary(node.op, self.compile(node.operand))
        if isinstance(node, _Binary):
            return _c_binary(node.op, self.compile(node.lhs), self.compile(node.rhs))
        if isinstance(node, _Compare):
            fns = [self.compile(o) for o in node.operands]
            fast = self._name_equals_literal(node, fns)
            if fast is not None:
                return fast
            return _c_compare(node.ops, fns, self.enums or None)
        if isinstance(node, _If):
            return _c_if(self.compile(node.cond), self.compile(node.then),
                         self.compile(node.else_))
        if isinstance(node, _Assign):
            rhs = self.compile(node.rhs)
            if not isinstance(node.lhs, _Name):
                self.compile(node.lhs)  # its names still count as referenced
                return _c_bad_assign(rhs)
            name = node.lhs.name
            self.referenced.add(name)
            self.assigned.add(name)
            return _c_assign(node.op, name, rhs, self.enums or None)
        raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


    def _name_equals_literal(self, node: _Compare, fns: list[Fn]) -> Fn | None:
        """`key == 'text'`, `key != 3` and mirrored: Booster's usual conditions, read in one
        closure (entry lookup and comparison); any other value takes the general path."""
        if len(node.ops) != 1 or node.ops[0] not in ("==", "!="):
            return None
        lhs, rhs = node.operands
        if isinstance(lhs, _Name) and isinstance(rhs, _Lit):
            name, lit = lhs, rhs.value
        elif isinstance(rhs, _Name) and isinstance(lhs, _Lit):
            name, lit = rhs, lhs.value
        else:
            return None
        if name.name in self.enums:
            return None
        lt = type(lit)
        if not (lt is str or (lt is int and -_TWO_53 <= lit <= _TWO_53)):  # type: ignore[operator]
            return None
        return _c_name_equals(name.name, lit, node.ops[0] == "==",
                              _c_compare(node.ops, fns, self.enums or None))


def _c_name_equals(key: str, lit: object, want: bool, general: Fn) -> Fn:
    missing = f"Variable not found: {key}"
    lt = type(lit)
    if lt is str:

        def name_equals_text(bb: Blackboard) -> object:
            entry = bb._view.get(key)
            if entry is None:
                entry = bb.get_entry(key)
                if entry is None:
                    raise _Fail(missing)
            if type(entry.value) is str:
                return 1.0 if ((entry.value == lit) is want) else 0.0
            return general(bb)  # the same lookup again, with BT.CPP's full type rules

        return name_equals_text

    def name_equals_int(bb: Blackboard) -> object:
        entry = bb._view.get(key)
        if entry is None:
            entry = bb.get_entry(key)
            if entry is None:
                raise _Fail(missing)
        v = entry.value
        if type(v) is int and -_TWO_53 <= v <= _TWO_53:
            # exact as doubles, so BT.CPP's epsilon test is plain equality
            return 1.0 if ((v == lit) is want) else 0.0
        return general(bb)

    return name_equals_int


def _c_literal(value: object) -> Fn:
    def lit(bb: Blackboard) -> object:
        return value

    return lit


def _c_name(name: str) -> Fn:
    missing = f"Variable not found: {name}"

    def var(bb: Blackboard) -> object:
        entry = bb._view.get(name)  # the blackboard's memo of resolved keys
        if entry is None:
            entry = bb.get_entry(name)
            if entry is None:
                raise _Fail(missing)
        return entry.value

    return var


def _c_unary(op: str, operand: Fn) -> Fn:
    def fail_other(v: object) -> NoReturn:
        if _is_str(v):
            raise _Fail("Invalid operator for std::string")
        raise _Fail("ExprUnaryArithmetic: undefined")

    if op == "-":

        def neg(bb: Blackboard) -> object:
            v = operand(bb)
            d = _dbl(v)
            if d is None:
                fail_other(v)
            return -d

        return neg
    if op == "!":

        def not_(bb: Blackboard) -> object:
            v = operand(bb)
            t = type(v)
            # v is an int there (mypy does not narrow v through t = type(v))
            if t is bool or (t is int and -_TWO_53 <= v <= _TWO_53):  # type: ignore[operator]
                return 0.0 if v else 1.0
            d = _dbl(v)
            if d is None:
                fail_other(v)
            return 0.0 if d else 1.0

        return not_

    def complement(bb: Blackboard) -> object:
        v = operand(bb)
        d = _dbl(v)
        if d is None:
            fail_other(v)
        if not (-_TWO_63 <= d < _TWO_63):
            raise _Fail("Number out of range for bitwise operation")
        return float(~int(d))

    return complement


def _c_binary(op: str, lf: Fn, rf: Fn) -> Fn:
    left_ni, right_ni = _not_init("left", op), _not_init("right", op)

    if op in ("&&", "||"):
        is_and = op == "&&"

        def logic(bb: Blackboard) -> object:
            lv = lf(bb)
            rv = rf(bb)  # both sides run: BT.CPP does not short-circuit
            tl, tr = type(lv), type(rv)
            # the common cases: flags and results of comparisons
            if (tl is bool or tl is float) and (tr is bool or tr is float):
                lb = lv if tl is bool else lv != 0.0
                rb = rv if tr is bool else rv != 0.0
            else:
                if lv is None:
                    raise _Fail(left_ni)
                if rv is None:
                    raise _Fail(right_ni)
                if not (_is_num(lv) and _is_num(rv)):
                    raise _Fail("Operation not permitted")
                _dbl(lv), _dbl(rv)  # BT.CPP casts both to double first
                try:
                    lb, rb = _cast_bool(lv), _cast_bool(rv)
                except _Fail:
                    raise _Fail("Logic operators are not allowed if one of the operands "
                                "is not castable to bool") from None
            if is_and:
                return 1.0 if (lb and rb) else 0.0
            return 1.0 if (lb or rb) else 0.0

        return logic

    if op in ("&", "|", "^"):

        def bits(bb: Blackboard) -> object:
            lv, rv = lf(bb), rf(bb)
            if lv is None:
                raise _Fail(left_ni)
            if rv is None:
                raise _Fail(right_ni)
            if not (_is_num(lv) and _is_num(rv)):
                raise _Fail("Operation not permitted")
            _dbl(lv), _dbl(rv)  # BT.CPP casts both to double first
            try:
                li, ri = _cast_int64(lv), _cast_int64(rv)
            except _Fail:
                raise _Fail("Binary operators are not allowed if one of the operands is "
                            "not an integer") from None
            if op == "&":
                return float(li & ri)
            if op == "|":
                return float(li | ri)
            return float(li ^ ri)

        return bits

    if op == "..":

        def concat(bb: Blackboard) -> object:
            lv, rv = lf(bb), rf(bb)
            if lv is None:
                raise _Fail(left_ni)
            if rv is None:
                raise _Fail(right_ni)
            ls, rs = _is_str(lv), _is_str(rv)
            ln = not ls and _is_num(lv)
            rn = not rs and _is_num(rv)
            if ln and rn:
                _dbl(lv), _dbl(rv)  # the number branch casts both to double first
                return None  # then BT.CPP falls through to an empty Any for number .. number
            if (ls or ln) and (rs or rn):
                return _to_string(lv) + _to_string(rv)
            raise _Fail("Operation not permitted")

        return concat

    arith = {"+": float.__add__, "-": float.__sub__, "*": float.__mul__, "/": _div}[op]
    is_plus = op == "+"

    def arithmetic(bb: Blackboard) -> object:
        lv, rv = lf(bb), rf(bb)
        if lv is None:
            raise _Fail(left_ni)
        if rv is None:
            raise _Fail(right_ni)
        if _is_num(lv) and _is_num(rv):
            # _dbl is a float (not None) for whatever _is_num accepts
            return arith(_dbl(lv), _dbl(rv))  # type: ignore[arg-type]
        if is_plus and _is_str(lv) and _is_str(rv):
            return str(lv) + str(rv)
        raise _Fail("Operation not permitted")

    return arithmetic


def _num_test(op: str) -> Callable[[float, float], bool]:
    # BT.CPP writes each test as "fail when the opposite holds": NaN makes <, >, <=, >= true
    if op == "==":
        return lambda a, b: abs(a - b) <= _EPS
    if op == "!=":
        return lambda a, b: not abs(a - b) <= _EPS
    if op == "<":
        return lambda a, b: not a >= b
    if op == ">":
        return lambda a, b: not a <= b
    if op == "<=":
        return lambda a, b: not a > b
    return lambda a, b: not a < b


def _str_test(op: str) -> Callable[[str, str], bool]:
    return {
        "==": lambda a, b: a == b,
        "!=": lambda a, b: a != b,
        "<": lambda a, b: a < b,
        ">": lambda a, b: a > b,
        "<=": lambda a, b: a <= b,
        ">=": lambda a, b: a >= b,
    }[op]


def _compare_pair(lv: object, rv: object, op: str, num_test: Callable, str_test: Callable,
                  enums: Mapping[str, int] | None) -> bool:
    """One link of a comparison chain with BT.CPP's type rules (the general path)."""
    if lv is None:
        raise _Fail(_not_init("left", op))
    if rv is None:
        raise _Fail(_not_init("right", op))
    ls, rs = _is_str(lv), _is_str(rv)
    if ls and rs:
        return str_test(str(lv), str(rv))
    ln = not ls and _is_num(lv)
    rn = not rs and _is_num(rv)
    if ln and rn:
        return num_test(_dbl(lv), _dbl(rv))
    if ls and rn:
        return num_test(_string_to_double_env(str(lv), enums), _dbl(rv))
    if ln and rs:
        return num_test(_dbl(lv), _string_to_double_env(str(rv), enums))
    raise _Fail(f"Can't mix different types in Comparison. Left operand [{_type_name(lv)}] "
                f"right operand [{_type_name(rv)}]")


def _c_compare(ops: list[str], fns: list[Fn], enums: Mapping[str, int] | None) -> Fn:
    if len(ops) == 1:
        op = ops[0]
        lf, rf = fns
        num_test, str_test = _num_test(op), _str_test(op)
        if op in ("==", "!="):
            want = op == "=="

            def equality(bb: Blackboard) -> object:
                lv, rv = lf(bb), rf(bb)
                tl, tr = type(lv), type(rv)
                if tl is tr and (tl is int or tl is str) and (
                    tl is str or -_TWO_53 <= lv <= _TWO_53  # type: ignore[operator]
                ):
                    # exact for strings and for integers a double holds exactly
                    return 1.0 if ((lv == rv) is want) else 0.0
                same = _compare_pair(lv, rv, op, num_test, str_test, enums)
                return 1.0 if same else 0.0

            return equality

        def single(bb: Blackboard) -> object:
            lv, rv = lf(bb), rf(bb)
            tl, tr = type(lv), type(rv)
            # numbers a double holds exactly compare the same as their doubles
            if (tl is float or (tl is int and -_TWO_53 <= lv <= _TWO_53)) and (  # type: ignore[operator]
                tr is float or (tr is int and -_TWO_53 <= rv <= _TWO_53)  # type: ignore[operator]
            ):
                # lv and rv are numbers there (mypy does not narrow them through tl, tr = type(...))
                return 1.0 if num_test(lv, rv) else 0.0  # type: ignore[arg-type]
            return 1.0 if _compare_pair(lv, rv, op, num_test, str_test, enums) else 0.0

        return single

    links = [(op, _num_test(op), _str_test(op)) for op in ops]
    first, rest = fns[0], fns[1:]

    def chain(bb: Blackboard) -> object:
        lv = first(bb)
        for (op, num_test, str_test), fn in zip(links, rest, strict=False):
            rv = fn(bb)
            if not _compare_pair(lv, rv, op, num_test, str_test, enums):
                return 0.0  # BT.CPP returns at the first false link
            lv = rv
        return 1.0

    return chain


def _c_if(cond: Fn, then: Fn, else_: Fn) -> Fn:
    def ternary(bb: Blackboard) -> object:
        v = cond(bb)
        t = type(v)
        if t is float or t is int or t is bool:
            truth = v != 0
        elif v is None:
            raise _Fail("Any::cast failed because it is empty", False)
        elif _is_str(v):
            # BT.CPP's isType<SimpleString>() never matches a script string, so the
            # string goes through cast<double>()
            truth = _string_to_double(str(v)) != 0.0
        else:
            d = _dbl(v)
            if d is None:
                raise _Fail(f"[Any::convert]: no known safe conversion between "
                            f"[{_type_name(v)}] and [double]", False)
            truth = d != 0.0
        return then(bb) if truth else else_(bb)

    return ternary


def _c_bad_assign(rhs: Fn) -> Fn:
    def bad(bb: Blackboard) -> object:
        raise _Fail("Assignment left operand not a blackboard entry")

    return bad


def _c_assign(op: str, key: str, rhs: Fn, enums: Mapping[str, int] | None) -> Fn:
    missing = (f"The blackboard entry [{key}] doesn't exist, yet.\nIf you want to create a "
               "new one, use the operator [:=] instead of [=]")
    right_ni = _not_init("right", op)
    left_ni = _not_init("left", op)
    create = op == ":="

    def find_entry(bb: Blackboard):  # -> Entry
        entry = bb._view.get(key)
        if entry is None:
            entry = bb.get_entry(key)
            if entry is None:
                if not create:
                    raise _Fail(missing)
                bb.create_entry(key)
                # BT.CPP looks the entry up again: after a {@key} SubTree remapping the created
                # entry is not the one the key resolves to
                entry = bb.get_entry(key)
                if entry is None:
                    raise _Fail("Bug: report")
        return entry

    def prefix(entry) -> str:
        dst = entry.value
        kind = btcpp_type_name(entry.type_) if dst is None else _type_name(dst)
        return f"Error assigning a value to entry [{key}] with type [{kind}]. "

    if op in (":=", "="):

        def assign(bb: Blackboard) -> object:
            entry = find_entry(bb)
            value = rhs(bb)
            if value is None:
                raise _Fail(right_ni)
            dst = entry.value
            if dst is None and entry.type_ is None:
                entry.value = value
            elif _is_str(value) and not _is_str(dst):
                conv = entry.converter
                if conv is None and entry.type_ is not None:
                    conv = _type_converter(entry.type_)
                if conv is not None:
                    try:
                        entry.value = conv(str(value))
                    except _Fail:
                        raise
                    except Exception as exc:  # a port converter refusing the text
                        raise _Fail(str(exc)) from None
                    if dst is None:  # the converter's Any: the declared C++ type
                        entry.cpp_value_type = entry.cpp_type
                elif dst is not None and _dbl(dst) is not None:
                    entry.value = _string_to_double_env(str(value), enums)
                else:
                    shown = btcpp_type_name(entry.type_) if dst is None else _type_name(dst)
                    raise _Fail(prefix(entry) + "\nThe right operand is a string, can't "
                                f"convert to {shown}")
            else:
                try:
                    entry.value = _copy_into(value, dst)
                except _Fail:
                    shown = btcpp_type_name(entry.type_) if dst is None else _type_name(dst)
                    raise _Fail(prefix(entry) + f"\nThe right operand has type "
                                f"[{_type_name(value)}] and can't be converted to "
                                f"[{shown}]") from None
                if dst is None and entry.cpp_type is not None:
                    # copyInto an empty Any takes the value as it is: a script's long stays a
                    # long in an entry an int port declared (SetBlackboard then tells them apart)
                    entry.cpp_value_type = btcpp_type_name(type(entry.value))
            entry.sequence_id += 1
            return entry.value

        return assign

    arith = {"+=": float.__add__, "-=": float.__sub__, "*=": float.__mul__, "/=": _div}[op]
    is_plus = op == "+="

    def compound(bb: Blackboard) -> object:
        entry = find_entry(bb)
        value = rhs(bb)
        if value is None:
            raise _Fail(right_ni)
        dst = entry.value
        if dst is None:
            raise _Fail(left_ni)
        temp: object = dst
        vd = None if _is_str(value) else _dbl(value)
        if vd is not None:
            dd = None if _is_str(dst) else _dbl(dst)
            if dd is None:
                raise _Fail("This Assignment operator can't be used with a non-numeric type")
            temp = arith(dd, vd)
        elif _is_str(value):
            if not is_plus:
                raise _Fail("Operator not supported for strings")
            if not (_is_str(dst) or _dbl(dst) is not None):
                raise _Fail(f"[Any::convert]: no known safe conversion between "
                            f"[{_type_name(dst)}] and [std::string]", False)
            temp = _to_string(dst) + str(value)
        entry.value = _copy_into(temp, dst)
        entry.sequence_id += 1
        return entry.value

    return compound


# =========================================================================== public API


class CompiledScript:
    """A parsed script; call it with a Blackboard to run it."""

    __slots__ = ("source", "referenced_keys", "assigned_keys", "_run", "_n", "condition")

    def __init__(self, source: str, statements: list[Fn], referenced: frozenset[str],
                 assigned: frozenset[str]) -> None:
        self.source = source
        self.referenced_keys: frozenset[str] = referenced
        self.assigned_keys: frozenset[str] = assigned
        # `condition(bb)` is evaluate_bool; the compiler may put a one-closure version of
        # it here for the usual condition shapes (see _fast_condition)
        self.condition: Callable[[Blackboard], bool] = self.evaluate_bool
        if len(statements) == 1:
            self._run = statements[0]
        else:
            stmts = tuple(statements)

            def run_all(bb: Blackboard) -> object:
                result = None
                for stmt in stmts:
                    result = stmt(bb)
                return result

            self._run = run_all

    def __call__(self, blackboard: Blackboard) -> object:
        """Run every statement; the value of the last one (None = BT.CPP's empty Any)."""
        try:
            return self._run(blackboard)
        except _Fail as fail:
            raise ScriptRuntimeError(fail.message, self.source, fail.wrapped) from None
        except RecursionError:
            raise ScriptRuntimeError("script nested too deeply", self.source) from None

    def evaluate_bool(self, blackboard: Blackboard) -> bool:
        """The script as a condition, like BT.CPP's `executor(env).cast<bool>()`.

        Doubles are true when non-zero, integers must be 0 or 1, a string or an empty
        result raises ScriptRuntimeError with safe_any's message.
        """
        try:
            value = self._run(blackboard)
            if type(value) is float:
                return value != 0.0
            return _cast_bool(value)
        except _Fail as fail:
            raise ScriptRuntimeError(fail.message, self.source, fail.wrapped) from None
        except RecursionError:
            raise ScriptRuntimeError("script nested too deeply", self.source) from None

    def __repr__(self) -> str:
        return f"CompiledScript({self.source!r})"


def compile_script(source: str, enums: Mapping[str, int] | None = None) -> CompiledScript:
    """Parse `source` once (BT.CPP 4.10 grammar); raises ScriptSyntaxError.

    `enums` maps names to integers (BT.CPP's registered enums): such a name reads as its
    value (a double) instead of a blackboard entry.
    """
    if not isinstance(source, str):
        raise TypeError(f"script source must be a str, not {type(source).__name__}")
    try:
        tree = _Parser(_tokenize(source)).parse_all()
    except _SyntaxFail as fail:
        raise ScriptSyntaxError(fail.message, source, fail.position) from None
    except RecursionError:
        raise ScriptSyntaxError("Script nested too deeply", source, 0) from None
    if not tree:
        raise ScriptSyntaxError("Empty Script", source, 0)
    compiler = _Compiler(enums)
    try:
        statements = [compiler.compile(node) for node in tree]
    except RecursionError:
        raise ScriptSyntaxError("Script nested too deeply", source, 0) from None
    script = CompiledScript(source, statements, frozenset(compiler.referenced),
                            frozenset(compiler.assigned))
    if len(tree) == 1:
        fast = _fast_condition(tree[0], compiler.enums, script.evaluate_bool)
        if fast is None:
            fast = _fast_chain(tree[0], compiler.enums, script.evaluate_bool)
        if fast is not None:
            script.condition = fast
    return script
