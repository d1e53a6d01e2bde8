"""A live stream (``--live``) read as a replay log (``soccerbt replay --connect HOST:PORT``).

``LiveLog.connect(host, port)`` subscribes to a ``--live`` stream (``ws_client``) and is an
``McapLog`` whose chunks are filled as the messages arrive: a background thread groups them by
second (``CHUNK_STEPS`` steps, the keyframes' period), and a second is readable once the next
one has begun. So everything that reads a log reads it, the replay viewer above all: the whole
tree, the blackboard with its writers, the field, the timeline; ``last_step`` follows the live
edge, and the last ``buffer_s`` seconds stay buffered (older seconds are dropped: ``first_step``
moves on), so that a person can step back, look, and return to live (END).

What a late viewer needs comes first: the header, each robot's trees (kept aside: the seconds
they arrived in may be dropped) and, for its state, a keyframe of every robot; the log starts at
the first step after that keyframe. Messages are checked as a file's are (the same ``McapLog``
code reads them); a message larger than the client's limit closes the connection. The buffer is
bounded in bytes too (``max_buffer_bytes``, the open second included: the oldest seconds go first,
and a stream that sends more than that within one second is closed with the reason), and so are
the tree loads (``MAX_TREE_LOADS``) and the events (``MAX_EVENTS``) a stream may send. The binary
inputs channel (``/match/inputs``, for ``--rerun``) is not subscribed to. A viewer that cannot
keep up loses the oldest messages at the server (its queue is bounded): the steps it lost are
gaps, shown as missing as in a damaged file.

How the stream stops is kept for the viewer: ``end`` is "ended" when the source said goodbye
(its match's last steps and summary arrived first, and the open second is then readable: the
end arrives whole) and "lost" when the connection closed without one or nothing, not even an
answer to a ping, was heard for ``lost_after_s`` (2 s); ``reason`` says why in words.
``reconnect()`` connects again to the same address (a new ``LiveLog``).
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from soccerbt.live.ws_client import ConnectionClosed, FoxgloveClient, StreamEnded
from soccerbt.log import format as lf
from soccerbt.log.format import ReplayError, ShapeError
from soccerbt.log.mcap_chunks import ChunkRef
from soccerbt.log.reader import McapLog

__all__ = ["LiveLog", "CHUNK_STEPS", "DEFAULT_BUFFER_S", "DEFAULT_BUFFER_BYTES", "MAX_TREE_LOADS", "MAX_EVENTS",
           "PING_AFTER_S", "LOST_AFTER_S"]

CHUNK_STEPS = 100          # one second a chunk: a keyframe closes each
DEFAULT_BUFFER_S = 300.0   # the last five minutes stay buffered
DEFAULT_BUFFER_BYTES = 512 << 20  # and at most this much of them (a 3 v 3 full record: about 0.1 MB a second)
MAX_TREE_LOADS = 4096      # tree loads of all robots a stream may send (each is kept: seconds refer to it)
MAX_EVENTS = 100_000       # events kept for the timeline; further ones are counted, not kept
PING_AFTER_S = 0.5         # a source silent this long is pinged (a paused match still answers)
LOST_AFTER_S = 2.0         # and given up after this long without a byte: the stream is lost
_SKIPPED = {lf.INPUTS_TOPIC}


class LiveLog(McapLog):
    """A live stream as a growing replay log (see the module docstring)."""

    live = True

    def __init__(self, host: str, port: int, buffer_s: float = DEFAULT_BUFFER_S,
                 max_buffer_bytes: int = DEFAULT_BUFFER_BYTES, ping_after_s: float = PING_AFTER_S,
                 lost_after_s: float = LOST_AFTER_S) -> None:
        super().__init__(Path(f"[{host}]:{port}" if ":" in host else f"{host}:{port}"))  # named as --connect names it
        self.host, self.port = host, port
        self.buffer_s = buffer_s
        self.max_buffer_bytes = max_buffer_bytes
        self.events_dropped = 0
        self._stored_bytes: list[int] = []  # chunk i's bytes (0 once dropped)
        self._kept_bytes = 0  # of the seconds not dropped
        self._open_bytes = 0
        self.ping_after_s, self.lost_after_s = ping_after_s, lost_after_s
        self.closed = False
        self.reason = ""
        self.end: str | None = None        # "ended" (the source said goodbye) or "lost", once the stream stopped
        self.summary: dict[str, Any] | None = None  # the match's summary, when its end arrived
        self._open_last = 0                # the newest step in the open second
        self.index = {"events": [], "loads": [], "steps": 0}
        self._stored: list[list[tuple[str, int, bytes]]] = []   # chunk i's messages ([] once dropped)
        self._open: list[tuple[str, int, bytes]] = []
        self._open_range = (0, -1)
        self._live_trees: dict[tuple[str, int], dict[str, Any]] = {}
        self._first_keyframe: dict[str, int] = {}   # robot -> after_step of its first live keyframe
        self._first_step_seen: int | None = None
        self._first = 0                               # steps up to this one were dropped
        self._client: Any = None
        self._ready = threading.Event()

    @classmethod
    def connect(cls, host: str, port: int, *, buffer_s: float = DEFAULT_BUFFER_S, wait_s: float = 30.0,
                max_buffer_bytes: int = DEFAULT_BUFFER_BYTES, ping_after_s: float = PING_AFTER_S,
                lost_after_s: float = LOST_AFTER_S) -> LiveLog:
        """Connect and wait (at most ``wait_s``) until the stream can be shown: a header, each
        robot's tree, a keyframe of each and a whole second of steps. ReplayError otherwise.
        Then a source silent for ``ping_after_s`` is pinged, and lost after ``lost_after_s``."""
        log = cls(host, port, buffer_s, max_buffer_bytes, ping_after_s, lost_after_s)
        try:
            log._client = FoxgloveClient(host, port, timeout_s=wait_s)
        except OSError as exc:
            raise ReplayError(log.path, None, f"cannot connect ({exc})") from None
        log._client.keep_alive(ping_after_s, lost_after_s)
        thread = threading.Thread(target=log._read, name="soccerbt-live-reader", daemon=True)
        thread.start()
        deadline = time.monotonic() + wait_s
        while not log._ready.wait(0.05):
            if log.closed or time.monotonic() > deadline:
                why = log.reason or (f"nothing to show within {wait_s:g} s (a stream of a match with robots' "
                                     "brains: soccerbt run, view or brain --live)")
                log.close()
                raise ReplayError(log.path, None, why)
        return log

    def reconnect(self, wait_s: float = 30.0) -> LiveLog:
        """A new connection to the same address with the same limits (ReplayError as ``connect``)."""
        return LiveLog.connect(self.host, self.port, buffer_s=self.buffer_s, wait_s=wait_s,
                               max_buffer_bytes=self.max_buffer_bytes, ping_after_s=self.ping_after_s,
                               lost_after_s=self.lost_after_s)

    def close(self) -> None:
        if self.end is None:
            self.end, self.reason = "ended", self.reason or "closed by this viewer"
        self.closed = True
        if self._client is not None:
            self._client.close()
            self._client = None

    # --- the reader's thread ------------------------------------------------------------------

    def _read(self) -> None:
        client = self._client
        try:
            for event in client.events(auto_subscribe=False):
                if event[0] == "advertise":
                    client.subscribe([c["id"] for c in event[1] if c["topic"] not in _SKIPPED])
                    continue
                _kind, topic, log_ns, data = event
                self._message(topic, lf.step_of_ns(log_ns, self.dt_s), data)
        except StreamEnded as exc:
            self._stopped("ended", str(exc))
        except (ConnectionClosed, OSError, ReplayError, ValueError) as exc:
            self._stopped("lost", str(exc))
        finally:
            self.closed = True

    def _stopped(self, end: str, why: str) -> None:
        """The stream stopped: what arrived of the open second becomes readable (the match's last
        steps), then ``end`` and ``reason`` say how it stopped."""
        if self.end is not None:  # closed by this side: the reader's error is only the echo
            return
        if self.header:
            self._seal(final=True)
        if end == "ended" and self.summary is not None:
            score = self.summary.get("score") or {}
            why = (f"the match's end arrived (BLUE {score.get('blue', '?')} : {score.get('red', '?')} RED, "
                   f"t={self.last_step * self.dt_s:.2f} s; {why})")
        self.reason = why
        self.end = end

    def _message(self, topic: str, step: int, data: bytes) -> None:
        if topic == lf.HEADER_TOPIC:
            self._header(data)
            return
        if not self.header:
            return  # nothing makes sense before the header
        robot = lf.robot_of_topic(topic)
        if robot is not None and robot[1] == "tree":
            self._tree(robot[0], step, data)
            return
        if topic == lf.SUMMARY_TOPIC:
            try:
                summary = lf.load_json(data)
            except ShapeError:
                summary = None
            self.summary = summary if isinstance(summary, dict) else None
        if topic == lf.EVENTS_TOPIC:
            try:
                event = lf.check_event(lf.load_json(data))
            except ShapeError:
                return
            if len(self.index["events"]) < MAX_EVENTS:
                self.index["events"].append(event)
            else:
                self.events_dropped += 1
        lo, hi = self._open_range
        if step < lo:
            return  # sent again for a late subscriber, or late: the seconds it belongs to are read
        if step > hi:
            self._seal()
            lo = (max(step, 1) - 1) // CHUNK_STEPS * CHUNK_STEPS + 1
            self._open_range = (lo, lo + CHUNK_STEPS - 1)
        self._open_bytes += len(data)
        if self._open_bytes > self.max_buffer_bytes:
            raise ReplayError(self.path, None, f"the stream sent more than {self.max_buffer_bytes / 1e6:.0f} MB for "
                                               "one second of its steps (the client's buffer): closed")
        if self._open_bytes + self._kept_bytes > self.max_buffer_bytes:  # the open second counts too
            self._drop_oldest_seconds(self._open_bytes)
        if topic == self._step_topic and self._first_step_seen is None:
            self._first_step_seen = step
        if robot is not None and robot[1] == "keyframe" and robot[0] not in self._first_keyframe \
                and self._first_step_seen is not None:
            after = _after_step(data)
            if after is not None and after >= self._first_step_seen:  # the steps after it are here
                self._first_keyframe[robot[0]] = after
        self._open.append((topic, step, data))
        self._open_last = max(self._open_last, step)

    def _header(self, data: bytes) -> None:
        if self.header:
            return  # the same header, sent again for a late subscriber
        try:
            header = lf.check_header(lf.load_json(data, 1 << 20))
        except ShapeError as exc:
            self.reason = f"the stream's header is damaged ({exc})"
            raise ReplayError(self.path, None, self.reason) from None
        if header.get("format") != lf.FORMAT:
            raise ReplayError(self.path, None, "not a soccerbt stream")
        version = header.get("format_version", 1)
        if version not in lf.READABLE_FORMATS:
            self.reason = (f"the stream is of log format {str(version)[:20]}; this soccerbt reads formats "
                           f"{min(lf.READABLE_FORMATS)} to {max(lf.READABLE_FORMATS)}")
            raise ReplayError(self.path, None, self.reason)
        self.format_version = version
        self.dt_s = float(header.get("dt_s", 0.01))
        self.robots = list(header["robots"])
        self.header = header

    def _tree(self, robot: str, step: int, data: bytes) -> None:
        try:
            tree = lf.check_tree(lf.load_json(data))
        except ShapeError:
            return
        key = (robot, tree["load"])
        if key not in self._live_trees:
            if len(self._live_trees) >= MAX_TREE_LOADS:
                raise ReplayError(self.path, None, f"the stream sent more than {MAX_TREE_LOADS} tree loads: closed")
            self._live_trees[key] = tree
            self.index["loads"].append({"robot": robot, "t": tree.get("t"), "step": tree.get("step", step),
                                        "reason": tree.get("reason"), "load": tree["load"]})

    def _seal(self, final: bool = False) -> None:
        """The open second becomes readable; seconds older than the buffer are dropped. ``final``:
        the stream stopped, so the second ends at its newest step, not at its last."""
        if not self._open:
            return
        lo, hi = self._open_range
        if final:
            hi = max(lo, min(hi, self._open_last))
        self._stored.append(self._open)
        self._stored_bytes.append(self._open_bytes)
        self._kept_bytes += self._open_bytes
        self.chunks.append(ChunkRef(0, 0, lo, hi))
        self._open = []
        self._open_bytes = 0
        self._open_last = 0
        keep = max(2, int(self.buffer_s / (CHUNK_STEPS * self.dt_s)))
        self._drop_through(len(self._stored) - keep)
        self._drop_oldest_seconds(0)
        self.index["steps"] = hi
        if not self._ready.is_set() and self._can_show(hi):
            self._ready.set()

    def _drop_through(self, oldest: int) -> None:
        """Drop every second before ``oldest`` (the oldest second kept: its keyframe opens the log)."""
        if oldest <= 0 or not self._stored[oldest - 1]:
            return
        for i in range(oldest - 1, -1, -1):
            if not self._stored[i]:
                break
            self._stored[i] = []
            self._kept_bytes -= self._stored_bytes[i]
            self._stored_bytes[i] = 0
            self.chunks[i] = ChunkRef(0, 0, -1, -1)
            self._cache.pop(i, None)
        self._first = self.chunks[oldest].end_step

    def _drop_oldest_seconds(self, open_bytes: int) -> None:
        """Drop the oldest seconds until they and ``open_bytes`` fit in the byte budget (the
        newest sealed second stays)."""
        oldest = self._first_kept()
        while self._kept_bytes + open_bytes > self.max_buffer_bytes and oldest < len(self._stored) - 1:
            oldest += 1
            self._drop_through(oldest)

    def _first_kept(self) -> int:
        """The index of the oldest second not dropped."""
        i = len(self._stored) - 1
        while i > 0 and self._stored[i - 1]:
            i -= 1
        return max(i, 0)

    def _can_show(self, last: int) -> bool:
        """Every robot's tree and first live keyframe are here, and a step after them."""
        robots = self.robots
        trees = {robot for robot, _load in self._live_trees}
        return bool(robots) and all(r in trees and r in self._first_keyframe for r in robots) \
            and last > max(self._first_keyframe[r] for r in robots)

    # --- what McapLog reads ---------------------------------------------------------------------

    def _chunk(self, i: int) -> list[tuple[str, int, bytes]]:
        return self._stored[i] if 0 <= i < len(self._stored) else []

    @property
    def first_step(self) -> int:
        start = max(self._first_keyframe.values(), default=0) + 1
        return max(start, self._first + 1)

    @property
    def last_step(self) -> int:
        return int(self.index.get("steps", 0))

    def tree(self, robot: str, load: int) -> dict[str, Any]:
        tree = self._live_trees.get((robot, load))
        if tree is None:
            raise ReplayError(self.path, None, f"the tree of {robot} (load {load}) has not arrived")
        return tree


def _after_step(data: bytes) -> int | None:
    """A keyframe's after_step, or None when it has none (a reader of the keyframe checks it)."""
    try:
        after = lf.load_json(data).get("after_step")
    except (ShapeError, AttributeError):
        return None
    return after if type(after) is int else None
