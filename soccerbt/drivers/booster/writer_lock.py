"""Inputs that move or stop the robot are taken from one writer at a time.

On a competition field every laptop and robot shares the network, and DDS lets any participant
publish on any topic. A ``WriterLock`` guards one such input (the robot's remote controller, the
loco requests of a served robot): it locks onto the first writer heard (its DDS publication
handle), ignores and counts the samples of any other (said once), and moves on only when the
locked writer has gone (its instance no longer alive) or has been silent for ``silence_s``, so
that a restarted robot service is accepted.
"""
from __future__ import annotations

import logging

__all__ = ["WriterLock", "SILENCE_S"]

_log = logging.getLogger("soccerbt.brain")

SILENCE_S = 3.0  # the locked writer silent this long (brain time): another writer is taken


class WriterLock:
    """Which writer of ``topic`` is taken (see the module docstring)."""

    def __init__(self, topic: str, silence_s: float = SILENCE_S) -> None:
        self.topic = topic
        self.silence_s = silence_s
        self.locked: int | None = None
        self.refused = 0  # samples of other writers ignored
        self.moves = 0  # times the lock moved to another writer
        self._last_s = float("-inf")
        self._said = False

    def accept(self, writer: int, now_s: float) -> bool:
        """Whether a sample of ``writer`` at ``now_s`` is taken."""
        locked = self.locked
        if locked is None or locked == writer:
            self.locked = writer
            self._last_s = now_s
            return True
        if now_s - self._last_s >= self.silence_s:
            _log.warning("%s: now taken from another writer (the one before was silent for %.1f s)", self.topic,
                         now_s - self._last_s)
            self.locked = writer
            self._last_s = now_s
            self.moves += 1
            return True
        self.refused += 1
        if not self._said:
            self._said = True
            _log.warning("%s: samples of a second writer ignored: only the first one heard is taken, until it has "
                         "gone or been silent for %g s (further ones are counted, not logged)", self.topic,
                         self.silence_s)
        return False

    def gone(self, writer: int) -> None:
        """``writer`` has gone (DDS: its instance is no longer alive): the next writer is taken."""
        if writer == self.locked:
            self.locked = None
