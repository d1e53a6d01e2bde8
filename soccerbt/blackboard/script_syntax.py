"""The BehaviorTree.CPP 4.10 script language's syntax: tokenizer, syntax tree and parser.

`_tokenize` and `_Parser` follow BT.CPP's hand-written Pratt parser (same tokens, binding
powers, chained comparisons, error texts with positions); `parse_literal` reads one literal for
ports and defaults. soccerbt.blackboard.script_compiler compiles the syntax tree into closures. No
eval/exec/ast: the source is never handed to Python.
"""
from __future__ import annotations

import math

__all__ = ["ScriptSyntaxError", "parse_literal"]

# the limits of BT.CPP's number types (int64, doubles that hold integers exactly)
_TWO_53 = 9007199254740992
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


class ScriptSyntaxError(ValueError):
    """A script BT.CPP's parser rejects; `position` is the 0-based character index.

    `message` is BT.CPP's own text (what a Script node reports); str() adds the prefix a
    precondition uses: 'Error in the script "1 +"\\nExpected operand at position 3 (got \\'\\')'.
    """

    def __init__(self, message: str, source: str, position: int) -> None:
        self.message = message
        self.source = source
        self.position = position
        super().__init__(f'Error in the script "{source}"\n{message}')


# =========================================================================== tokenizer

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
_IDENT_START = _LETTERS | {"_", "@"}
_IDENT_CHAR = _LETTERS | _DIGITS | {"_"}
_SPACE = frozenset(" \t\n\r")

# token kinds
_INT, _REAL, _STR, _BOOL, _NAME, _ERR, _END = "int", "real", "str", "bool", "name", "err", "end"
_TWO_CHAR = frozenset(["..", "&&", "||", "==", "!=", "<=", ">=", ":=", "+=", "-=", "*=", "/="])
_ONE_CHAR = frozenset("+-*/&|^~!<>=?:();")


def _tokenize(src: str) -> list[tuple[str, str, int]]:
    """BT.CPP's tokenizer: (kind, text, position) triples ending with an "end" token."""
    tokens: list[tuple[str, str, int]] = []
    n = len(src)
    i = 0
    while i < n:
        c = src[i]
        if c in _SPACE:
            i += 1
            continue
        start = i
        if c == "'":
            j = src.find("'", i + 1)
            if j < 0:
                tokens.append((_ERR, src[start:], start))
                i = n
            else:
                tokens.append((_STR, src[i + 1 : j], start))
                i = j + 1
            continue
        if c in _DIGITS:
            if c == "0" and i + 1 < n and src[i + 1] in "xX":
                i, kind = _scan_hex(src, n, i)
            else:
                i, kind = _scan_decimal(src, n, i)
            tokens.append((kind, src[start:i], start))
            continue
        if c in _IDENT_START:
            i += 1
            while i < n and src[i] in _IDENT_CHAR:
                i += 1
            text = src[start:i]
            tokens.append((_BOOL if text in ("true", "false") else _NAME, text, start))
            continue
        two = src[i : i + 2]
        if two in _TWO_CHAR:
            tokens.append((two, two, start))
            i += 2
            continue
        tokens.append((c if c in _ONE_CHAR else _ERR, c, start))
        i += 1
    tokens.append((_END, "", n))
    return tokens


def _skip_garbage(src: str, n: int, i: int) -> int:
    while i < n and (src[i] in _IDENT_CHAR or src[i] == "."):
        i += 1
    return i


def _scan_hex(src: str, n: int, i: int) -> tuple[int, str]:
    i += 2
    bad = False
    if i >= n or src[i] not in _HEX:
        bad = True
    else:
        while i < n and src[i] in _HEX:
            i += 1
    if i < n and (src[i] == "." or src[i] in _IDENT_CHAR):
        bad = True
        i = _skip_garbage(src, n, i)
    return i, (_ERR if bad else _INT)


def _scan_decimal(src: str, n: int, i: int) -> tuple[int, str]:
    real = bad = False
    while i < n and src[i] in _DIGITS:
        i += 1
    if i < n and src[i] == ".":
        if i + 1 < n and src[i + 1] == ".":
            pass  # "65..": an integer followed by the concat operator
        elif i + 1 < n and src[i + 1] in _DIGITS:
            real = True
            i += 1
            while i < n and src[i] in _DIGITS:
                i += 1
        else:
            bad = True
            i = _skip_garbage(src, n, i + 1)
    if not bad and i < n and src[i] in "eE":
        real = True
        i += 1
        if i < n and src[i] in "+-":
            i += 1
        if i >= n or src[i] not in _DIGITS:
            bad = True
        else:
            while i < n and src[i] in _DIGITS:
                i += 1
    if not bad and i < n and src[i] in _IDENT_START:
        bad = True
        while i < n and src[i] in _IDENT_CHAR:
            i += 1
    return i, (_ERR if bad else (_REAL if real else _INT))


# =========================================================================== AST

# Binding powers of BT.CPP's parser (higher binds tighter).
_ASSIGN_BP, _TERNARY_BP, _COMPARISON_BP, _PREFIX_BP = 2, 4, 10, 20
_LEFT_BP = {
    ":=": 2, "=": 2, "+=": 2, "-=": 2, "*=": 2, "/=": 2,
    "?": 4,
    "||": 6,
    "&&": 8,
    "==": 10, "!=": 10, "<": 10, ">": 10, "<=": 10, ">=": 10,
    "|": 12, "^": 12,
    "&": 14,
    "+": 16, "-": 16, "..": 16,
    "*": 18, "/": 18,
}  # fmt: skip
_ASSIGN_OPS = frozenset([":=", "=", "+=", "-=", "*=", "/="])
_COMPARE_OPS = frozenset(["==", "!=", "<", ">", "<=", ">="])


class _Node:
    __slots__ = ()


class _Lit(_Node):
    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value


class _Name(_Node):
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class _Unary(_Node):
    __slots__ = ("op", "operand")

    def __init__(self, op: str, operand: _Node) -> None:
        self.op, self.operand = op, operand


class _Binary(_Node):
    __slots__ = ("op", "lhs", "rhs")

    def __init__(self, lhs: _Node, op: str, rhs: _Node) -> None:
        self.op, self.lhs, self.rhs = op, lhs, rhs


class _Compare(_Node):
    __slots__ = ("ops", "operands")

    def __init__(self, first: _Node) -> None:
        self.ops: list[str] = []
        self.operands: list[_Node] = [first]


class _If(_Node):
    __slots__ = ("cond", "then", "else_")

    def __init__(self, cond: _Node, then: _Node, else_: _Node) -> None:
        self.cond, self.then, self.else_ = cond, then, else_


class _Assign(_Node):
    __slots__ = ("op", "lhs", "rhs")

    def __init__(self, lhs: _Node, op: str, rhs: _Node) -> None:
        self.op, self.lhs, self.rhs = op, lhs, rhs


class _SyntaxFail(Exception):
    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message, self.position = message, position


class _Parser:
    """BT.CPP's Pratt parser over the token list."""

    def __init__(self, tokens: list[tuple[str, str, int]]) -> None:
        self.toks = tokens
        self.i = 0

    def parse_all(self) -> list[_Node]:
        stmts: list[_Node] = []
        toks = self.toks
        while toks[self.i][0] != _END:
            stmts.append(self.expr(0))
            while toks[self.i][0] == ";":
                self.i += 1
        return stmts

    def _advance(self) -> tuple[str, str, int]:
        tok = self.toks[self.i]
        if tok[0] != _END:
            self.i += 1
        return tok

    def _expect(self, kind: str, what: str) -> None:
        tok = self.toks[self.i]
        if tok[0] != kind:
            raise _SyntaxFail(
                f"Parse error at position {tok[2]}: {what} (got '{tok[1]}')", tok[2]
            )
        self._advance()

    def prefix(self) -> _Node:
        kind, text, pos = self.toks[self.i]
        if kind in ("-", "~", "!"):
            self.i += 1
            return _Unary(kind, self.expr(_PREFIX_BP))
        if kind == "(":
            self.i += 1
            inner = self.expr(0)
            self._expect(")", "expected ')'")
            return inner
        if kind == _BOOL:
            self.i += 1
            return _Lit(1.0 if text == "true" else 0.0)
        if kind == _INT:
            self.i += 1
            return _Lit(_int_literal(text))
        if kind == _REAL:
            self.i += 1
            value = float(text)
            if math.isinf(value):
                raise _SyntaxFail(f"Real literal out of range '{text}' at position {pos}", pos)
            return _Lit(value)
        if kind == _STR:
            self.i += 1
            return _Lit(text)
        if kind == _NAME:
            self.i += 1
            return _Name(text)
        if kind == _ERR:
            raise _SyntaxFail(f"Invalid token '{text}' at position {pos}", pos)
        raise _SyntaxFail(f"Expected operand at position {pos} (got '{text}')", pos)

    def expr(self, min_bp: int) -> _Node:
        left = self.prefix()
        toks = self.toks
        while True:
            kind = toks[self.i][0]
            lbp = _LEFT_BP.get(kind, -1)
            if lbp < 0 or lbp < min_bp:
                break
            if kind in _ASSIGN_OPS:
                self.i += 1
                left = _Assign(left, kind, self.expr(0))
                break
            if kind == "?":
                self.i += 1
                then = self.expr(0)
                self._expect(":", "expected ':' in ternary expression")
                left = _If(left, then, self.expr(_TERNARY_BP))
                break
            if kind in _COMPARE_OPS:
                node = _Compare(left)
                while toks[self.i][0] in _COMPARE_OPS:
                    node.ops.append(toks[self.i][0])
                    self.i += 1
                    node.operands.append(self.expr(_COMPARISON_BP + 1))
                left = node
                continue
            self.i += 1
            left = _Binary(left, kind, self.expr(lbp + 1))
        return left


def _int_literal(text: str) -> int:
    """from_chars into int64: a literal out of range leaves the value 0, as in BT.CPP."""
    value = int(text[2:], 16) if text[:2] in ("0x", "0X") else int(text)
    return value if value <= _INT64_MAX else 0


def parse_literal(text: str) -> object:
    """A single literal as Python: 42 -> int, -1.5 -> float, 'txt' -> str, true -> bool.

    For ports and defaults; raises ScriptSyntaxError for anything that is not one literal
    (an optional leading '-' on a number is accepted).
    """
    toks = _tokenize(text)
    kinds = [k for k, _, _ in toks]
    negative = False
    if kinds and kinds[0] == "-":
        negative = True
        toks = toks[1:]
        kinds = kinds[1:]
    if len(toks) != 2:
        pos = toks[1][2] if len(toks) > 2 else 0
        raise ScriptSyntaxError(f"Expected one literal at position {pos}", text, pos)
    kind, tok_text, pos = toks[0]
    if kind == _INT:
        value: object = _int_literal(tok_text)
    elif kind == _REAL:
        value = float(tok_text)
    elif kind == _BOOL and not negative:
        return tok_text == "true"
    elif kind == _STR and not negative:
        return tok_text
    else:
        raise ScriptSyntaxError(f"Expected a literal at position {pos} (got '{tok_text}')",
                                text, pos)
    return -value if negative else value  # type: ignore[operator]
