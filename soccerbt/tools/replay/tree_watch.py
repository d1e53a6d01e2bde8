"""One tree's status log and skipped nodes, shared by every recorder that watches the tree.

The engine keeps one status log per tree (``Tree.start_status_log``: three integers appended per
transition) and one sink for the uids a tick skipped (``env.skip_sink``); a reader empties them
as it reads. Two recorders of one brain (a flight log and a live stream, or a flight log's next
segment while another recorder still watches) must not empty them for each other: ``TreeWatch``
takes a tick's transitions and skips once, the first time a recorder asks for that tick, and
hands the same to every recorder that asks for it after. The tree is watched while at least one
recorder is attached (``attach`` / ``detach``), and left alone after the last one.
"""
from __future__ import annotations

from array import array
from typing import Any

__all__ = ["TreeWatch"]

_WATCHES: dict[int, TreeWatch] = {}   # id(tree) -> its watch (holding the tree while watched)


class TreeWatch:
    """The shared watch of one tree (see the module docstring)."""

    def __init__(self, tree: Any) -> None:
        self.tree = tree
        self.users = 0
        self.log: list[int] = tree.start_status_log()
        self.skipped: list[int] = []
        tree.env.skip_sink = self.skipped
        tree.env.track_writers = True
        self._tick: int | None = None
        self._taken: tuple[bytes, bytes, int, list[int]] = (b"", b"", 0, [])

    @classmethod
    def attach(cls, tree: Any) -> TreeWatch:
        """The watch of `tree`, started by its first recorder."""
        watch = _WATCHES.get(id(tree))
        if watch is None or watch.tree is not tree:
            watch = _WATCHES[id(tree)] = cls(tree)
        watch.users += 1
        return watch

    def detach(self) -> None:
        """A recorder is done with the tree; the last one stops the watch."""
        self.users -= 1
        if self.users > 0:
            return
        if _WATCHES.get(id(self.tree)) is self:
            del _WATCHES[id(self.tree)]
        self.tree.stop_status_log()
        env = getattr(self.tree, "env", None)
        if env is not None:
            env.skip_sink = None
            env.track_writers = False

    def take(self, tick: int) -> tuple[bytes, bytes, int, list[int]]:
        """This tick's transitions (u16 uids, the previous codes then the new codes, their
        count) and skipped uids: read from the engine once per tick, the same for every recorder."""
        if tick == self._tick:
            return self._taken
        self._tick = tick
        log = self.log
        if log:
            # the log is flat integers (uid, previous code, new code, uid, ...): C-level slices
            uids = array("H", log[0::3]).tobytes()
            codes = bytes(log[1::3]) + bytes(log[2::3])
            n = len(log) // 3
            log.clear()
        else:
            uids = codes = b""
            n = 0
        skipped = self.skipped[:] if self.skipped else []
        self.skipped.clear()
        self._taken = (uids, codes, n, skipped)
        return self._taken
