"""BT.CPP scoped blackboards, remapping rules, the script language and the key schema.

Imports nothing else of soccerbt and knows nothing of soccer except the key schema.
`core` holds the blackboard and its entries, `script` the compiled script language.
"""
from soccerbt.blackboard.core import (
    AnyValue,
    Blackboard,
    BlackboardError,
    BlackboardTypeError,
    Entry,
    btcpp_format,
    btcpp_type_name,
    is_number,
    is_strongly_typed,
    number_cast,
)

__all__ = [
    "AnyValue",
    "Blackboard",
    "BlackboardError",
    "BlackboardTypeError",
    "Entry",
    "btcpp_format",
    "btcpp_type_name",
    "is_number",
    "is_strongly_typed",
    "number_cast",
]

from soccerbt.blackboard.script import (  # noqa: E402
    CompiledScript,
    ScriptRuntimeError,
    ScriptSyntaxError,
    compile_script,
    parse_literal,
)

__all__ += [
    "CompiledScript",
    "ScriptRuntimeError",
    "ScriptSyntaxError",
    "compile_script",
    "parse_literal",
]
