"""BT.CPP's ``Any`` as a script sees it: the value model of the script language, and its run-time error.

Values follow BT.CPP's ``Any``: integer literals are ``int``, arithmetic results and booleans
produced by comparisons/logic are ``float`` (1.0/0.0), strings are ``str``, an empty (declared
but unset) entry reads as ``None``. Here: the type tests (``_is_num``, ``_is_str``,
``_is_int_kind``), the casts with safe_any's rules and messages (``_dbl``: double, ``_cast_int64``,
``_cast_bool``, ``_to_string``, ``_string_to_double``: from_chars), division as C++ divides,
``_copy_into`` (Any::copyInto) and the converter of a declared entry type. A cast that fails
raises ``_Fail``, which the compiled script (soccerbt.blackboard.script_compiler) turns into
``ScriptRuntimeError`` at its edge. Imports only soccerbt.blackboard.
"""
from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Mapping

from soccerbt.blackboard.core import _default_converter, btcpp_type_name
from soccerbt.blackboard.script_syntax import _INT64_MAX, _INT64_MIN, _TWO_53

__all__ = ["ScriptRuntimeError"]

_TWO_63 = 9.223372036854775808e18
_NAN = math.nan
_INF = math.inf


# =========================================================================== errors


class ScriptRuntimeError(RuntimeError):
    """A script that throws while running, with BT.CPP's message.

    `message` is the bare reason; str() is what BT.CPP's script function throws: for its own
    RuntimeErrors 'Error in script [SOURCE]\\nREASON', for errors raised by safe_any casts
    (`wrapped` False) the bare reason, as BT.CPP lets those through unwrapped.
    """

    def __init__(self, message: str, source: str, wrapped: bool = True) -> None:
        self.message = message
        self.source = source
        self.wrapped = wrapped
        text = f"Error in script [{source}]\n{message}" if wrapped else message
        super().__init__(text)


class _Fail(Exception):
    """Internal: a run-time failure, turned into ScriptRuntimeError at the script's edge."""

    __slots__ = ("message", "wrapped")

    def __init__(self, message: str, wrapped: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.wrapped = wrapped


# =========================================================================== value model


def _type_name(v: object) -> str:
    return btcpp_type_name(type(v))


def _slow_double(v: object) -> float | None:
    if isinstance(v, str):
        return None
    if isinstance(v, numbers.Integral):
        return _int_to_double(int(v))
    if isinstance(v, numbers.Real):
        return float(v)
    return None


def _int_to_double(v: int) -> float:
    if -_TWO_53 <= v <= _TWO_53:
        return float(v)
    try:
        f = float(v)
    except OverflowError:
        raise _Fail("Value outside numeric limits", False) from None
    if int(f) != v:
        raise _Fail("Loss of precision in conversion to floating point", False)
    return f


def _dbl(v: object) -> float | None:
    """Any::cast<double>() of a number, or None when `v` is not a number (isNumber)."""
    t = type(v)
    if t is float:
        return v  # type: ignore[return-value]
    if t is int or t is bool:
        if -_TWO_53 <= v <= _TWO_53:  # type: ignore[operator]
            return float(v)  # type: ignore[arg-type]
        return _int_to_double(v)  # type: ignore[arg-type]
    if v is None or t is str:
        return None
    return _slow_double(v)


def _is_num(v: object) -> bool:
    """Any::isNumber(): a type test only (no conversion)."""
    t = type(v)
    if t is int or t is float or t is bool:
        return True
    if t is str or v is None:
        return False
    return isinstance(v, numbers.Real)


def _is_str(v: object) -> bool:
    return type(v) is str or isinstance(v, str)


def _is_int_kind(v: object) -> bool:
    """castedType int64: Python ints and bools (BT.CPP stores every integral as int64)."""
    t = type(v)
    if t is int or t is bool:
        return True
    if t is float or t is str or v is None:
        return False
    return isinstance(v, numbers.Integral)


def _cast_int64(v: object) -> int:
    """Any::cast<int64_t>() of a number; raises _Fail (unwrapped) like convertNumber."""
    if _is_int_kind(v):
        iv = int(v)  # type: ignore[call-overload]
        if iv < _INT64_MIN or iv > _INT64_MAX:
            raise _Fail("Value outside numeric limits", False)
        return iv
    f = _dbl(v)
    if f is None:
        raise _Fail(f"[Any::convert]: no known safe conversion between [{_type_name(v)}] "
                    "and [long]", False)
    if f != f or f >= _TWO_63 or f < -_TWO_63 or f != math.floor(f):
        raise _Fail("Invalid floating point to integer conversion", False)
    return int(f)


def _cast_bool(v: object) -> bool:
    """Any::cast<bool>(): doubles truncate, integers must be 0 or 1, strings refuse."""
    t = type(v)
    if t is bool:
        return v  # type: ignore[return-value]
    if t is float:
        return v != 0.0
    if t is int:
        if v == 0:
            return False
        if v == 1:
            return True
        raise _Fail("Implicit casting to bool is not allowed", False)
    if v is None:
        raise _Fail("Any::cast failed because it is empty", False)
    if not _is_str(v):
        if isinstance(v, numbers.Integral):
            return _cast_bool(int(v))
        if isinstance(v, numbers.Real):
            return float(v) != 0.0
    raise _Fail(f"[Any::convert]: no known safe conversion between [{_type_name(v)}] and "
                "[bool]", False)


# from_chars(double) accepts a prefix: sign '-', digits with optional fraction and exponent,
# or inf/infinity/nan; a leading '+' or blank is refused.
_FROM_CHARS = re.compile(
    r"-?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:infinity|inf|nan))"
)


def _string_to_double(s: str) -> float:
    """Any::cast<double>() of a string (from_chars); raises _Fail (unwrapped)."""
    m = _FROM_CHARS.match(s)
    if m is None:
        raise _Fail("Any failed string to number conversion", False)
    text = m.group(0)
    value = float(text)
    lowered = text.lower()
    if "n" not in lowered:  # a plain number: from_chars refuses overflow and underflow
        if math.isinf(value) or (value == 0.0 and any(ch in "123456789" for ch in
                                                      text.split("e")[0].split("E")[0])):
            raise _Fail("Any failed string to number conversion", False)
    return value


def _string_to_double_env(s: str, enums: Mapping[str, int] | None) -> float:
    """BT.CPP's StringToDouble: "true"/"false", enum names, then a number."""
    if s == "true":
        return 1.0
    if s == "false":
        return 0.0
    if enums:
        hit = enums.get(s)
        if hit is not None:
            return float(hit)
    return _string_to_double(s)


def _to_string(v: object) -> str:
    """Any::cast<std::string>() of a string or a number (std::to_string: "%f" for doubles)."""
    if type(v) is str:
        return v
    if isinstance(v, str):
        return str(v)
    if _is_int_kind(v):
        return str(int(v))  # type: ignore[call-overload]
    return "%f" % float(v)  # type: ignore[arg-type]


def _div(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0.0:
            return _NAN
        return math.copysign(_INF, a) * math.copysign(1.0, b)


def _copy_into(value: object, dst: object) -> object:
    """safe_any's Any::copyInto(dst): the value dst takes, keeping dst's type; or _Fail."""
    if dst is None or type(value) is type(dst):
        return value
    if _is_str(value) and _is_str(dst):
        return value
    v_int, d_int = _is_int_kind(value), _is_int_kind(dst)
    if v_int and d_int:
        # same castedType (int64): bools and ints mix; an int destination keeps int
        return int(value) if (type(dst) is not bool and type(value) is bool) else value
    vd = None if _is_str(value) else _dbl(value)
    if vd is not None and not _is_str(dst):
        if d_int:
            return _cast_int64(value)
        if isinstance(dst, float) or _dbl(dst) is not None:
            return vd
    if type(value) is type(dst):
        return value
    raise _Fail("Any::copyInto fails", False)


def _type_converter(t: type) -> Callable[[str], object] | None:
    if t is str:
        return str
    return _default_converter(t)
