"""The nearest names to a misspelled one: the "did you mean" of a tree's load errors.

One form wherever a tree is loaded (``run``, ``validate``, ``batch``, the viewer, a reload during
a match): BT.CPP's message, then ``; did you mean 'KickBall' or 'Kick'?`` for a node ID, a port
attribute or a SubTree ID with near registered names, all on the one ``path:line:`` line.
"""
from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["nearest_names", "did_you_mean"]

MAX_SUGGESTIONS = 3
CUTOFF = 0.6  # difflib's ratio: 'KickBal' -> 'KickBall' (0.93), 'Kick' (0.73); 'Foo' -> nothing


def nearest_names(name: str, known: Iterable[str], n: int = MAX_SUGGESTIONS) -> list[str]:
    """Up to `n` of `known` closest to `name`, closest first (the same name is never offered)."""
    candidates = sorted({k for k in known if k != name})
    return difflib.get_close_matches(name, candidates, n=n, cutoff=CUTOFF)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """"; did you mean 'A' or 'B'?" with the names nearest to `name`, or "" when none is near."""
    near = nearest_names(name, known)
    if not near:
        return ""
    return "; did you mean " + " or ".join(f"'{n}'" for n in near) + "?"
