"""The node library's compiled scripts: the blackboard's script language, each script compiled once.

`compile_script(source, enums)` compiles with soccerbt.blackboard's (the Script nodes, the
Precondition decorator and the loader's pre- and post-conditions call it) and keeps the result
per source and enum table: a compiled script is pure, so a tree's many copies of one guard share
one. The engine needs of it only a callable with `evaluate_bool(bb)`, `referenced_keys` and
`assigned_keys`, and `ScriptSyntaxError`.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from soccerbt.blackboard import CompiledScript, ScriptRuntimeError, ScriptSyntaxError
from soccerbt.blackboard import compile_script as _compile

__all__ = ["compile_script", "ScriptSyntaxError", "ScriptRuntimeError"]

_CACHE: dict[tuple[str, tuple], Any] = {}


def compile_script(source: str, enums: Mapping[str, int] | None = None) -> CompiledScript:
    """Compile a BT.CPP script (cached per source and enum table: compiled scripts are pure)."""
    key = (source, tuple(sorted(enums.items())) if enums else ())
    compiled = _CACHE.get(key)
    if compiled is None:
        compiled = _compile(source, enums=dict(enums) if enums else None)
        if len(_CACHE) < 4096:
            _CACHE[key] = compiled
    return compiled
