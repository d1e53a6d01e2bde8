"""BT.CPP scoped blackboards, remapping rules, the script language and the key schema.

Imports nothing else of soccerbt and knows nothing of soccer except the key schema.
`core` holds the blackboard and its entries; the script language is `script_syntax` (tokenizer and
parser), `script_values` (BT.CPP's Any as scripts see it), `script_compiler` (closures,
`compile_script`) and `script_fast` (one-closure guards).
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

from soccerbt.blackboard.script_compiler import (  # noqa: E402
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
