"""soccerbt never runs text as Python: no eval, exec, compile or __import__ call in its sources.

Trees, scripts, logs and packets come from files and the network; the script language is
compiled into closures (soccerbt.blackboard.script_compiler) and nothing else turns text into code. This
test reads every module of the package and fails naming the file and line of such a call, so a
faster path that generates code (as one once did) cannot slip in unnoticed.
"""
from __future__ import annotations

import ast
from pathlib import Path

import soccerbt

PACKAGE = Path(soccerbt.__file__).resolve().parent
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}


def forbidden_calls(text: str, label: str) -> list[str]:
    """`label:line: name()` for every call of a forbidden builtin (bare or as builtins.NAME)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            name = func.id
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "builtins":
            name = func.attr
        else:
            continue
        if name in FORBIDDEN_CALLS:
            found.append((node.lineno, f"{label}:{node.lineno}: {name}()"))
    return [text for _, text in sorted(found)]


def test_the_check_finds_each_forbidden_call() -> None:
    text = ("import builtins\neval('1')\nx = len('eval')\nexec('y = 1')\n"
            "builtins.compile('1', 'f', 'eval')\nre.compile('a')\n")
    assert forbidden_calls(text, "probe.py") == ["probe.py:2: eval()", "probe.py:4: exec()",
                                                 "probe.py:5: compile()"]


def test_no_module_of_soccerbt_turns_text_into_code() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 50  # the whole package was read, not an empty folder
    found = [hit for path in modules
             for hit in forbidden_calls(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE.parent)))]
    assert found == []
