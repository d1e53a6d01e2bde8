"""One tree's status log, skipped nodes and reasons, shared by every recorder that watches the tree.

The engine keeps one status log per tree (``Tree.start_status_log``: three integers appended per
transition) and one sink for the uids a tick skipped (``env.skip_sink``); a reader empties them
as it reads. Two recorders of one brain (a flight log and a live stream, or a flight log's next
segment while another recorder still watches) must not empty them for each other: ``TreeWatch``
takes what the engine appended since it last looked (one generation), and hands that same
generation to every recorder that has not had it yet; a recorder that has had it and finds
nothing new gets nothing (a step without a tick records no transition twice). The reasons
decision nodes give (``Tree.start_reasons``: uid -> text, built only while someone collects
them) are taken with the same generation. The tree is watched while at least one recorder is
attached (``attach`` / ``detach``), and left alone after the last one.
"""
from __future__ import annotations

from typing import Any

from soccerbt.log.format import reason_text

__all__ = ["TreeWatch"]

Taken = tuple[list[int], list[int], dict[int, str]]
_NOTHING: Taken = ([], [], {})
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
        start_reasons = getattr(tree, "start_reasons", None)  # a stand-in tree may have none
        self.reasons: dict[int, str] = start_reasons() if start_reasons is not None else {}
        self.reasons.clear()
        self.generation = 0
        self._taken: Taken = _NOTHING

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
        stop_reasons = getattr(self.tree, "stop_reasons", None)
        if stop_reasons is not None:
            stop_reasons()
        env = getattr(self.tree, "env", None)
        if env is not None:
            env.skip_sink = None
            env.track_writers = False

    def take(self, seen: int) -> tuple[Taken, int]:
        """(the transitions since the recorder's generation `seen` — flat (uid, previous, new)
        integers — the skipped uids and the reasons given, as ``format.reason_text`` makes
        them; the generation it has now). Read from the engine once, the same for every recorder."""
        log = self.log
        if not log and not self.skipped and not self.reasons:
            if seen < self.generation:
                return self._taken, self.generation  # another recorder took this tick's
            return _NOTHING, self.generation
        transitions = log[:]
        log.clear()
        skipped = self.skipped[:] if self.skipped else []
        self.skipped.clear()
        # one line each, once for every recorder (format.reason_text)
        reasons = {uid: reason_text(text) for uid, text in self.reasons.items()} if self.reasons else {}
        self.reasons.clear()
        self._taken = (transitions, skipped, reasons)
        self.generation += 1
        return self._taken, self.generation
