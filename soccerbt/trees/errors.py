"""Errors of the XML engine: TreeLoadError (`path:line: message`) and NodeTickError."""
from __future__ import annotations

from soccerbt.nodes.tree_node import NodeTickError

__all__ = ["TreeLoadError", "NodeTickError"]


class TreeLoadError(Exception):
    """A tree that cannot be loaded: `path`, `line` (None when unknown) and `message`.

    Prints as `path:line: message`.
    """

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"

    def __reduce__(self):  # keep pickling (multiprocessing) working with the 3-arg init
        return (TreeLoadError, (self.path, self.line, self.message))
