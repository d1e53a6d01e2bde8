"""A thin adapter over the blackboard's script language (soccerbt.blackboard).

The engine only needs `compile_script(source, enums)` -> a callable with `evaluate_bool(bb)`,
`referenced_keys` and `assigned_keys`, and `ScriptSyntaxError`. Keeping the import here lets the
rest of the node library stay the same if that API moves.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["compile_script", "ScriptSyntaxError", "ScriptRuntimeError", "script_available"]

_compile: Callable[..., Any] | None  # compile_script of soccerbt.blackboard, None without it
try:  # the script language lives in the blackboard package (another engineer's area)
    from soccerbt.blackboard import ScriptRuntimeError, ScriptSyntaxError
    from soccerbt.blackboard import compile_script as _compile
except ImportError:  # pragma: no cover - only while the script module is being written
    try:
        from soccerbt.blackboard.script import ScriptRuntimeError, ScriptSyntaxError
        from soccerbt.blackboard.script import compile_script as _compile
    except ImportError:
        _compile = None

        class ScriptSyntaxError(ValueError):  # type: ignore[no-redef]
            """Placeholder until soccerbt.blackboard provides the script language."""

        class ScriptRuntimeError(RuntimeError):  # type: ignore[no-redef]
            """Placeholder until soccerbt.blackboard provides the script language."""


def script_available() -> bool:
    return _compile is not None


_CACHE: dict[tuple[str, tuple], Any] = {}


def compile_script(source: str, enums: Mapping[str, int] | None = None) -> Any:
    """Compile a BT.CPP script (cached per source and enum table: compiled scripts are pure)."""
    if _compile is None:
        # only without soccerbt.blackboard's, so the placeholder class above (one argument)
        raise ScriptSyntaxError("the script language (soccerbt.blackboard) is not available")  # type: ignore[call-arg]
    key = (source, tuple(sorted(enums.items())) if enums else ())
    compiled = _CACHE.get(key)
    if compiled is None:
        compiled = _compile(source, enums=dict(enums) if enums else None)
        if len(_CACHE) < 4096:
            _CACHE[key] = compiled
    return compiled
