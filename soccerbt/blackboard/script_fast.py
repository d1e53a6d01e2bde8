"""One-closure versions of `CompiledScript.evaluate_bool` for the usual guard shapes.

`_fast_condition` covers `key`, `!key`, `key == literal` and `key != literal`; `_fast_chain` an
`&&` (or `||`) chain of those, Booster's `_while` guards. Each reads the blackboard entries
directly and sends anything unusual (a missing entry, another type) through the full
evaluation, so results and errors never differ from it. No generated code.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from soccerbt.blackboard.core import Blackboard
from soccerbt.blackboard.script_syntax import _TWO_53, _Binary, _Compare, _Lit, _Name, _Node, _Unary


def _chain_leaves(node: _Node, op: str) -> list[_Node]:
    """The operands of a chain ``a op b op c ...`` (left-associative), in order."""
    if isinstance(node, _Binary) and node.op == op:
        return _chain_leaves(node.lhs, op) + _chain_leaves(node.rhs, op)
    return [node]


_FLAG, _EQUAL, _NOT_EQUAL = 0, 1, 2  # the operand kinds of a fast chain


def _key_literal(node: _Node, enums: Mapping[str, int]) -> tuple[str, object, str] | None:
    """(key, literal, operator) of `key == literal` or `!=` (either order) that the fast paths
    can judge: no enum name, the literal a string or an integer exact as a double; else None."""
    if not (isinstance(node, _Compare) and len(node.ops) == 1 and node.ops[0] in ("==", "!=")):
        return None
    lhs, rhs = node.operands
    if isinstance(lhs, _Name) and isinstance(rhs, _Lit):
        key, lit = lhs.name, rhs.value
    elif isinstance(rhs, _Name) and isinstance(lhs, _Lit):
        key, lit = rhs.name, lhs.value
    else:
        return None
    lt = type(lit)
    if key in enums or not (lt is str or (lt is int and -_TWO_53 <= lit <= _TWO_53)):  # type: ignore[operator]
        return None
    return key, lit, node.ops[0]


def _fast_chain(node: _Node, enums: Mapping[str, int],
                slow: Callable[[Blackboard], bool]) -> Callable[[Blackboard], bool] | None:
    """evaluate_bool for a chain of `&&` (or of `||`) whose operands all have
    _fast_condition's shapes (`key`, `!key`, `key == literal`, `key != literal`): the usual
    `_while` guards of our trees, e.g. `control_state == 3 && !go_manual && ...`. One loop
    over a table of operands (no generated code).

    Every operand is read before the result is formed, as BT.CPP evaluates both sides of a
    logic operator: an operand whose entry is missing or holds another type than the common
    one (a bool or a double for a flag; the literal's type for a comparison, an integer exact
    as a double) sends the whole condition through `slow` (the full evaluate_bool), so results
    and errors never differ.
    """
    if not (isinstance(node, _Binary) and node.op in ("&&", "||")):
        return None
    operands: list[tuple[str, int, object]] = []  # (key, kind, negate or literal)
    for leaf in _chain_leaves(node, node.op):
        negate = False
        if isinstance(leaf, _Unary) and leaf.op == "!" and isinstance(leaf.operand, _Name):
            negate, leaf = True, leaf.operand
        if isinstance(leaf, _Name):
            if leaf.name in enums:
                return None
            operands.append((leaf.name, _FLAG, negate))
        else:
            compared = _key_literal(leaf, enums)
            if compared is None:
                return None
            key, lit, op = compared
            operands.append((key, _EQUAL if op == "==" else _NOT_EQUAL, lit))
    table = tuple(operands)
    want_all = node.op == "&&"

    def chain(bb: Blackboard) -> bool:
        get = bb._view.get
        outcome = want_all
        for key, kind, arg in table:
            e = get(key)
            if e is None:
                return slow(bb)
            v = e.value
            t = type(v)
            if kind == _FLAG:
                if t is bool:
                    r = v is not arg
                elif t is float:
                    r = (v == 0.0) if arg else (v != 0.0)
                else:
                    return slow(bb)
            # v is an int in the range test (mypy does not narrow v through t = type(v))
            elif t is not type(arg) or (t is int and not -_TWO_53 <= v <= _TWO_53):  # type: ignore[operator]
                return slow(bb)
            else:
                r = (v == arg) is (kind == _EQUAL)
            if r is not want_all:
                outcome = r  # decided, but the later operands are still read and checked
        return outcome
    return chain


def _fast_condition(node: _Node, enums: Mapping[str, int],
                    slow: Callable[[Blackboard], bool]) -> Callable[[Blackboard], bool] | None:
    """evaluate_bool in one closure for `key`, `!key` and `key == literal` (and `!=`),
    Booster's usual `_while` shapes, when the entry holds the common type (a bool or a
    double; a string or an exact integer for the comparison). Anything else, errors
    included, goes through `slow` (the full evaluate_bool), so results never differ."""
    negate = False
    if isinstance(node, _Unary) and node.op == "!" and isinstance(node.operand, _Name):
        negate, node = True, node.operand
    if isinstance(node, _Name):
        key = node.name
        if key in enums:
            return None

        def truth(bb: Blackboard) -> bool:
            entry = bb._view.get(key)
            if entry is not None:
                v = entry.value
                t = type(v)
                if t is bool:  # v is a bool (mypy does not narrow it through t = type(v))
                    return not v if negate else v  # type: ignore[return-value]
                if t is float:
                    return (v == 0.0) if negate else (v != 0.0)
            return slow(bb)

        return truth
    compared = _key_literal(node, enums)
    if compared is None:
        return None
    key, lit, op = compared
    lt = type(lit)
    want = op == "=="

    def equals(bb: Blackboard) -> bool:
        entry = bb._view.get(key)
        if entry is not None:
            v = entry.value
            if type(v) is lt and (lt is str or -_TWO_53 <= v <= _TWO_53):  # type: ignore[operator]
                return (v == lit) is want
        return slow(bb)

    return equals
