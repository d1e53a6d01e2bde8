"""How a value from a blackboard or a port reads on one line, the same in the viewers and in the
text tools (``soccerbt replay --tree``): floats with three significant digits, lists of floats
with two decimals, strings as they are, anything else as JSON, cut at ``limit`` characters."""
from __future__ import annotations

import json
from typing import Any

__all__ = ["short_value"]


def short_value(value: Any, limit: int = 48) -> str:
    """``value`` on one line (see the module docstring); ``limit`` None: never cut."""
    if isinstance(value, float):
        text = f"{value:.3g}"
    elif isinstance(value, (list, tuple)) and value and all(isinstance(v, float) for v in value):
        text = "[" + ", ".join(f"{v:.2f}" for v in value) + "]"
    elif isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value)
        except (TypeError, ValueError):
            text = str(value)
    if limit is None or len(text) <= limit:
        return text
    return text[:limit - 3] + "..."
