"""`Groot2RecordedPublisher`: a recorded robot's tree served to Groot2 as a replay plays it.

Groot2's monitor connects to it as to a live tree (BT.CPP 4.10's protocol, soccerbt.groot.protocol):
FULLTREE is the stored tree's XML (soccerbt.groot.tree_xml.stored_tree_xml), STATUS the statuses
at the replay's position, BLACKBOARD the recorded blackboard there. What it serves is pushed by
the replay's own thread (`show(state)`, a replay log's RobotState or anything with its
``tree``, ``statuses``, ``blackboard``, ``step`` and ``record``): the server thread never reads
the log, it answers from the bytes `show` last made.

What a recording cannot give:

- hooks: nothing is ticked, so nothing can stop or be forced. HOOK_INSERT, HOOK_REMOVE,
  BREAKPOINT_UNLOCK, REMOVE_ALL_HOOKS and DISABLE_ALL_HOOKS get the protocol's refusal (the
  two parts ``error`` and `HOOKS_REFUSED`), as 4.10 refuses a request it cannot serve; HOOKS_DUMP
  answers the empty list it would give for a tree without hooks (true here, and what Groot2 reads
  to draw its hooks);
- the blackboards of subtrees: a log keeps the root blackboard only ({key: [value, writer]}),
  served under the main tree's name (the name 4.10 gives the main tree's blackboard); a subtree's
  name asks for nothing (left out, as 4.10 leaves out an unknown name). Values are as recorded
  (JSON data), exported as BT.CPP exports such values (soccerbt.groot.codec);
- a node back to IDLE shows 10 + the status it left when the replay played through that change
  (as 4.10's buffer would: `show` is given the transitions of the steps a frame played), plain
  IDLE after a seek (the log's keyframes keep statuses, not what an idle node last returned);
- recording and transitions: TOGGLE_RECORDING starts and stops as in 4.10; the transitions kept
  are those of the steps the replay plays forward one at a time, timed in the log's simulated
  microseconds since the recording started.

No heartbeat: without hooks there is nothing for a silence to release.
"""
from __future__ import annotations

import threading
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from soccerbt.groot.codec import blackboards_dump
from soccerbt.groot.protocol import (
    IDLE_FROM_OFFSET,
    ProtocolError,
    RequestType,
    decode_request_header,
    encode_reply_header,
    encode_transitions,
    error_reply,
)
from soccerbt.groot.publisher import DEFAULT_HOST, DEFAULT_PORT, MAX_TRANSITIONS
from soccerbt.groot.sockets import GrootSockets
from soccerbt.groot.tree_xml import stored_tree_xml

__all__ = ["Groot2RecordedPublisher", "HOOKS_REFUSED", "status_order"]

HOOKS_REFUSED = "a recorded tree (soccerbt replay) cannot be hooked: no breakpoints nor forced results"
_HOOK_REQUESTS = frozenset({RequestType.HOOK_INSERT, RequestType.HOOK_REMOVE, RequestType.BREAKPOINT_UNLOCK,
                            RequestType.REMOVE_ALL_HOOKS, RequestType.DISABLE_ALL_HOOKS})
SIM_STEP_US = 10_000   # a step's simulated microseconds when the caller does not say


def status_order(description: Mapping[str, Any]) -> list[int]:
    """The uids in the order of the live STATUS buffer: subtree by subtree (the description's
    order), each subtree's nodes from its root, a SubTree node in the subtree it stands in."""
    rows = {row["uid"]: row for row in description.get("nodes", ())}
    children: dict[int, list[int]] = {}
    for row in description.get("nodes", ()):
        children.setdefault(row["parent"], []).append(row["uid"])
    order: list[int] = []
    seen: set[int] = set()
    for sub in description.get("subtrees", ()):
        stack = [sub.get("root", 0)]
        group: list[int] = []
        while stack:
            uid = stack.pop()
            if uid not in rows or uid in seen:
                continue
            seen.add(uid)
            group.append(uid)
            if rows[uid]["kind"] != "SubTree":
                stack.extend(reversed(children.get(uid, [])))
        order += sorted(group)
    return order


class _StoredEntry:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _StoredBlackboard:
    """A recorded blackboard as soccerbt.groot.codec reads one (its own keys, its own root)."""

    def __init__(self, entries: Mapping[str, Any]) -> None:
        self._entries = {key: _StoredEntry(value[0] if isinstance(value, list | tuple) and value else None)
                         for key, value in entries.items()}

    def local_entries(self) -> dict[str, _StoredEntry]:
        return self._entries

    def root(self) -> _StoredBlackboard:
        return self


class Groot2RecordedPublisher:
    """Serve a recorded tree on `port` (requests) and `port + 1` (notifications: none are sent,
    the socket is bound as 4.10 binds it). `show(state)` from the replay's thread; `close()`."""

    def __init__(self, port: int = DEFAULT_PORT, *, host: str = DEFAULT_HOST,
                 manifests: Mapping[str, Any] | None = None,
                 step_us: int = SIM_STEP_US,
                 tree_id_source: Callable[[], bytes] | None = None) -> None:
        self.port = port
        self.host = host
        self._manifests = manifests
        self._step_us = step_us
        self._new_id = tree_id_source or (lambda: uuid.uuid4().bytes)
        self._lock = threading.Lock()
        self._description: Mapping[str, Any] | None = None
        self._tree_id = self._new_id()
        self.tree_xml = b""
        self._order: list[int] = []
        self._status = b""
        self._blackboards: dict[str, Any] = {}
        self._left: dict[int, int] = {}     # uid -> the status it left going IDLE (sequential play)
        self._shown_step: int | None = None
        self._recording = False
        self._recording_start_us = 0
        self._transitions: deque[tuple[int, int, int]] = deque(maxlen=MAX_TRANSITIONS)
        # PUB at port + 1 is bound as 4.10 binds it; a recorded tree sends no notification
        self._sockets = GrootSockets(host, port, f"groot2-recorded-{port}", self.handle)
        self._sockets.start()

    @property
    def requests(self) -> int:
        """Requests answered (and refused) so far."""
        return self._sockets.requests

    @property
    def tree_id(self) -> bytes:
        return self._tree_id

    # -- what is shown ------------------------------------------------------------------------------

    @property
    def shown_step(self) -> int | None:
        """The step last shown (None before the first, and after a new tree)."""
        return self._shown_step

    def show(self, state: Any, played: list[tuple[int, list[tuple[int, int, int]]]] | None = None) -> None:
        """Serve `state` (the robot after a step: its tree, statuses, blackboard). A new tree (a
        reload in the log) gets its own XML and UUID; the same step again costs nothing.

        `played`: the transitions of every step since the one shown last, (step, [(uid, previous,
        new)...]) in order, when the replay moved forward by more than one step (a frame of
        several steps); one step forward needs none (the state's own record has them). Without
        them a move is a seek: idle nodes are shown plain IDLE."""
        description = state.tree
        if description is not self._description and description != self._description:
            xml = stored_tree_xml(description, self._manifests).encode("utf-8") if description.get("nodes") else b""
            with self._lock:
                self._description = description
                self._tree_id = self._new_id()
                self.tree_xml = xml
                self._order = status_order(description)
                self._left.clear()
                self._transitions.clear()
                self._shown_step = None
        step = state.step
        shown = self._shown_step
        if step == shown:
            return
        if shown is not None and step == shown + 1 and played is None:
            record = getattr(state, "record", None)
            played = [(step, list(getattr(record, "transitions", ()) or ()))]
        if shown is None or step <= shown or not played or played[-1][0] != step:
            played = None
        left = self._left
        if played is None:
            left.clear()   # a seek: what idle nodes last returned is not in the log's keyframes
        else:
            for _step, transitions in played:
                for uid, previous, new in transitions:
                    if new == 0:
                        left[uid] = previous
        statuses = state.statuses
        buffer = bytearray()
        for uid in self._order:
            code = statuses.get(uid, 0)
            if not code:
                code = IDLE_FROM_OFFSET + left[uid] if left.get(uid) else 0
            buffer += (uid & 0xFFFF).to_bytes(2, "little")
            buffer.append(code & 0xFF)
        blackboards = {}
        subtrees = description.get("subtrees") or ()
        if subtrees:
            main = subtrees[0].get("instance") or subtrees[0].get("tree_id", "")
            blackboards[main] = _StoredBlackboard(state.blackboard)
        with self._lock:
            self._status = bytes(buffer)
            self._blackboards = blackboards
            self._shown_step = step
            if self._recording and played:
                for at_step, transitions in played:
                    t_us = at_step * self._step_us - self._recording_start_us
                    self._transitions.extend((t_us, uid, new) for uid, _previous, new in transitions)

    def status_buffer(self) -> bytes:
        with self._lock:
            return self._status

    # -- requests ---------------------------------------------------------------------------------

    def handle(self, request: list[bytes]) -> list[bytes]:
        """The reply to one request's parts."""
        try:
            header = decode_request_header(bytes(request[0]))
        except (ProtocolError, IndexError) as exc:
            return error_reply(str(exc))
        with self._lock:
            reply = [encode_reply_header(header, self._tree_id)]
        try:
            body = self._answer(header.type, request)
        except ProtocolError as exc:
            return error_reply(str(exc))
        except Exception as exc:  # noqa: BLE001 - a request must never stop the server
            return error_reply(str(exc) or "Unknown error while processing request")
        if body is not None:
            reply.append(body)
        return reply

    def _answer(self, kind: int, request: list[bytes]) -> bytes | None:
        if kind in _HOOK_REQUESTS:
            raise ProtocolError(HOOKS_REFUSED)
        if kind == RequestType.FULLTREE:
            with self._lock:
                return self.tree_xml
        if kind == RequestType.STATUS:
            return self.status_buffer()
        if kind == RequestType.HOOKS_DUMP:
            return b"[]"
        if kind == RequestType.GET_TRANSITIONS:
            with self._lock:
                taken = list(self._transitions)
                self._transitions.clear()
            return encode_transitions(taken)
        if kind not in (RequestType.BLACKBOARD, RequestType.TOGGLE_RECORDING):
            raise ProtocolError("Request not recognized")
        if len(request) != 2:
            raise ProtocolError("must be 2 parts message")
        payload = bytes(request[1])
        if kind == RequestType.BLACKBOARD:
            with self._lock:
                blackboards = self._blackboards
            return blackboards_dump(blackboards, payload.decode("utf-8", "replace"))
        with self._lock:
            if payload == b"start":
                step = self._shown_step or 0
                self._recording_start_us = step * self._step_us
                self._transitions.clear()
                self._recording = True
                return str(self._recording_start_us).encode("ascii")
            if payload == b"stop":
                self._recording = False
        return None

    # -- closing ------------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop serving and free the ports. Idempotent."""
        self._sockets.close()

    def __enter__(self) -> Groot2RecordedPublisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

