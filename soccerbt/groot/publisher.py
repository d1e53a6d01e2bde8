"""`Groot2Publisher`: one soccerbt tree served to Groot2 as BT.CPP 4.10's Groot2Publisher serves it.

A REP socket at PORT answers the requests (soccerbt.groot.protocol), a PUB socket at PORT+1
announces breakpoints. Both bind 127.0.0.1 unless another host is given: the port has no
authentication (docs/groot.md), anyone who reaches it can read the blackboards and stop the tree.

A server thread answers requests (it reads the status buffer, the blackboards and the hooks; it
never ticks); it sleeps in ZeroMQ until a request comes, a second passes or `close()` wakes it,
so an idle publisher costs the match next to nothing. The heartbeat is 4.10's: after `max_heartbeat_delay_s` (5 s)
without a request every hook is disabled (a waiting breakpoint released), and every hook is
enabled again when requests return. 4.10 looks every 10 ms from a thread of its own; here it is
looked at wherever it can matter, so the hooks change at the same moments as seen from outside:
on every request (before and after it counts: a silence is noticed before the request ends it),
whenever a hook is reached, every 0.1 s while a breakpoint waits, and every quiet second in the
server thread (which is when a publisher nobody asks stops following its tree). The tree is ticked by its owner,
in its own thread; a hook reached there runs in that thread (soccerbt.nodes.tick_hooks): a
BREAKPOINT waits there until Groot2 unlocks it, is released, or the hook is disabled or removed,
so a lock-step match stands still meanwhile. A REPLACE hook does not wait; both return the
status Groot2 asked for (SUCCESS or FAILURE replaces the node's result, anything else lets the
node run).

Status: the publisher watches the tree's status changes (Tree.on_status_change) into a buffer of
3 bytes per node, in the order of the tree's subtrees and their nodes. The blackboard and the
XML are read as BT.CPP reads them (soccerbt.groot.codec, soccerbt.groot.tree_xml).

`clock` (monotonic seconds) drives the heartbeat and `wall_clock_us` the recording's times;
both are injectable so tests need no real waiting. pyzmq is an optional dependency (the
``groot`` extra): it is imported when a publisher starts.
"""
from __future__ import annotations

import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from soccerbt.groot.codec import blackboards_dump
from soccerbt.groot.hash_order import UnorderedKeys
from soccerbt.groot.protocol import (
    IDLE_FROM_OFFSET,
    STATUS_CODES,
    Hook,
    Position,
    ProtocolError,
    RequestType,
    breakpoint_notification,
    decode_request_header,
    dump_json,
    encode_reply_header,
    encode_transitions,
    error_reply,
    json_kind,
    parse_json,
)
from soccerbt.groot.sockets import GrootSockets
from soccerbt.groot.tree_xml import full_tree_xml
from soccerbt.nodes.status import FAILURE, SUCCESS, NodeStatus
from soccerbt.nodes.tick_hooks import set_post_tick, set_pre_tick

__all__ = ["Groot2Publisher", "DEFAULT_PORT", "DEFAULT_HOST", "MAX_TRANSITIONS"]

DEFAULT_PORT = 1667          # BT.CPP's default server port
DEFAULT_HOST = "127.0.0.1"   # loopback unless asked otherwise: the port is unauthenticated
MAX_TRANSITIONS = 1000       # 4.10 keeps the newest 1000 while recording
# with no request the server thread looks at the heartbeat once a second (4.10: every 10 ms from a
# thread of its own); what depends on it sooner looks by itself (requests, hooks, breakpoints)
HEARTBEAT_CHECK_MS = 1000
WAIT_SLICE_S = 0.1           # a waiting breakpoint looks at interrupt() and the heartbeat this often

_BY_NAME = {"SUCCESS": SUCCESS, "FAILURE": FAILURE}


class Groot2Publisher:
    """Serve `tree` to Groot2 on `port` (requests) and `port + 1` (notifications).

    `manifests`: the factory's node models for the FULLTREE XML (soccerbt.groot.tree_xml).
    `on_breakpoint(uid, waiting)`: told when the ticking thread starts and stops waiting at a
    breakpoint (a viewer's banner). `close()` (or a with-block) stops it and releases the tree.
    """

    def __init__(self, tree: Any, port: int = DEFAULT_PORT, *, host: str = DEFAULT_HOST,
                 manifests: Mapping[str, Any] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wall_clock_us: Callable[[], int] | None = None,
                 max_heartbeat_delay_s: float = 5.0,
                 on_breakpoint: Callable[[int, bool], None] | None = None) -> None:
        self.port = port
        self.host = host
        self._manifests = manifests
        self._clock = clock
        self._wall_clock_us = wall_clock_us or (lambda: time.time_ns() // 1000)
        self.max_heartbeat_delay_s = max_heartbeat_delay_s
        self.on_breakpoint = on_breakpoint

        self._status_lock = threading.Lock()
        self._hooks_lock = threading.Lock()       # taken before any hook's own lock, never after
        self._heartbeat_lock = threading.Lock()
        self._pre_hooks: dict[int, Hook] = {}
        self._post_hooks: dict[int, Hook] = {}
        # the order 4.10's hook maps (unordered, by uid) list them in, for HOOKS_DUMP
        self._hook_order = {Position.PRE: UnorderedKeys(), Position.POST: UnorderedKeys()}
        self._last_request_s = clock()
        self._has_heartbeat = True
        self._recording_flag = [False]   # cells the status observer reads (no attribute lookups)
        self._recording_start = [0]
        self._transitions: deque[tuple[int, int, int]] = deque(maxlen=MAX_TRANSITIONS)
        self._active = True
        self._hooks_open = True   # False once closing: a hook reached then does nothing
        self.waiting_uid: int | None = None   # the node a tick waits at (a breakpoint), if any

        self._tree: Any = None
        self._status_handle: Any = None
        # bound first (GrootUnavailable leaves nothing watched), answering once the tree is attached
        self._sockets = GrootSockets(host, port, f"groot2-server-{port}", self.handle, on_request=self.heartbeat,
                                     on_quiet=self.check_heartbeat, quiet_ms=HEARTBEAT_CHECK_MS)
        self._attach(tree)
        self._sockets.start()

    # -- the tree ---------------------------------------------------------------------------------

    @property
    def tree(self) -> Any:
        return self._tree

    @property
    def tree_id(self) -> bytes:
        """The 16-byte UUID every reply carries (a new one for every tree served)."""
        return self._tree_id

    def set_tree(self, tree: Any) -> None:
        """Serve another tree (a hot reload): its hooks removed (a waiting breakpoint released),
        a new UUID, statuses and XML of the new tree. Groot2 sees the UUID change."""
        self.remove_all_hooks()
        with self._status_lock:
            self._detach()
            self._attach(tree)

    def _attach(self, tree: Any) -> None:
        self._tree = tree
        self._tree_id = uuid.uuid4().bytes
        self.tree_xml = full_tree_xml(tree, self._manifests).encode("utf-8")
        buffer = bytearray()
        offsets: dict[int, int] = {}
        nodes: dict[int, Any] = {}
        subtrees: dict[str, Any] = {}
        for subtree in tree.subtrees:
            subtrees.setdefault(subtree.instance_name or subtree.tree_id, subtree.blackboard)
            for node in subtree.nodes:
                nodes.setdefault(node.uid, node)
                buffer += (node.uid & 0xFFFF).to_bytes(2, "little")
                offsets.setdefault(node.uid, len(buffer))
                buffer.append(STATUS_CODES["IDLE"])
        self._status = buffer
        self._offsets = offsets
        self._nodes = nodes
        self._blackboards = subtrees
        self._transitions.clear()
        self._observer = self._status_observer(buffer, offsets)
        self._paused = False
        self._status_handle = tree.on_status_change(self._observer, raw=True)

    def _watch(self, watching: bool) -> None:
        """Stop following the tree's status changes while nobody asks (the heartbeat is lost),
        follow them again when requests return: an unwatched robot's ticks then cost what they
        cost without Groot2. Only when this publisher is the tree's one status observer (the
        tree calls it directly); beside a recorder it keeps watching. Back on, the buffer is
        made again from the nodes: a node's status, or for an IDLE node 10 + what it last
        returned (a node skipped since keeps its byte)."""
        env = self._tree.env
        if not watching:
            if env.status_observer is self._observer:
                env.status_observer = None  # one attribute: the ticking thread sees it or not
                self._paused = True
            return
        if not self._paused:
            return
        self._paused = False
        buffer, offsets = self._status, self._offsets
        for uid, node in self._nodes.items():
            status = node.node_status
            code = status._code
            if not code:
                last = node.last_status._code
                code = IDLE_FROM_OFFSET + last if 1 <= last <= 3 else buffer[offsets[uid]]
            buffer[offsets[uid]] = code
        if env.status_observer is None and self._status_handle is not None and self._status_handle.active:
            env.status_observer = self._observer

    def _detach(self) -> None:
        if self._paused:
            self._watch(True)  # the tree's observers as the tree left them, before removing ours
        if self._status_handle is not None:
            self._status_handle.remove()
            self._status_handle = None

    def _status_observer(self, buffer: bytearray, offsets: dict[int, int]) -> Callable[[Any, Any, Any], None]:
        """4.10's logger callback: the node's byte in the buffer (10 + the status left for a node
        back to IDLE), and the transition kept while recording. Called for every status change of
        the tree, so it takes no lock: one byte stored is atomic under the GIL, and the deque of
        transitions is thread-safe."""
        transitions = self._transitions
        recording = self._recording_flag
        wall_clock_us = self._wall_clock_us
        start_us = self._recording_start

        def changed(node: Any, previous: NodeStatus, status: NodeStatus) -> None:
            code = status._code
            offset = offsets.get(node.uid)
            if offset is not None:
                buffer[offset] = code if code else IDLE_FROM_OFFSET + previous._code
            if recording[0]:
                transitions.append((wall_clock_us() - start_us[0], node.uid, code))

        return changed

    def _take_transitions(self) -> list[tuple[int, int, int]]:
        """The transitions kept so far, taken out one by one (the observer appends meanwhile)."""
        out = []
        pending = self._transitions
        while True:
            try:
                out.append(pending.popleft())
            except IndexError:
                return out

    def status_buffer(self) -> bytes:
        """The STATUS reply's body as it is now."""
        with self._status_lock:
            return bytes(self._status)

    # -- requests ---------------------------------------------------------------------------------

    @property
    def requests(self) -> int:
        """Requests answered (and refused) so far."""
        return self._sockets.requests

    def handle(self, request: list[bytes]) -> list[bytes]:
        """The reply to one request's parts (what the server thread sends back)."""
        try:
            header = decode_request_header(bytes(request[0]))
        except ProtocolError as exc:
            return error_reply(str(exc))
        reply = [encode_reply_header(header, self._tree_id)]
        try:
            body = self._answer(header.type, request)
        except ProtocolError as exc:
            return error_reply(str(exc))
        except Exception as exc:  # noqa: BLE001 - a request must never stop the server (4.10 replies too)
            return error_reply(str(exc) or "Unknown error while processing request")
        if body is not None:
            reply.append(body)
        return reply

    def _answer(self, kind: int, request: list[bytes]) -> bytes | None:
        if kind == RequestType.FULLTREE:
            return self.tree_xml
        if kind == RequestType.STATUS:
            return self.status_buffer()
        if kind == RequestType.REMOVE_ALL_HOOKS:
            self.remove_all_hooks()
            return None
        if kind == RequestType.DISABLE_ALL_HOOKS:
            self.enable_all_hooks(False)
            return None
        if kind == RequestType.HOOKS_DUMP:
            return dump_json(self.hooks_json()).encode("utf-8")
        if kind == RequestType.GET_TRANSITIONS:
            return encode_transitions(self._take_transitions())
        if kind not in (RequestType.BLACKBOARD, RequestType.HOOK_INSERT, RequestType.BREAKPOINT_UNLOCK,
                        RequestType.HOOK_REMOVE, RequestType.TOGGLE_RECORDING):
            raise ProtocolError("Request not recognized")
        if len(request) != 2:
            raise ProtocolError("must be 2 parts message")
        payload = bytes(request[1])
        if kind == RequestType.BLACKBOARD:
            return blackboards_dump(self._blackboards, payload.decode("utf-8", "replace"))
        if kind == RequestType.HOOK_INSERT:
            data = parse_json(payload)
            for item in data if isinstance(data, list) else [data]:
                self.insert_hook_json(item)
            return None
        if kind == RequestType.BREAKPOINT_UNLOCK:
            data = parse_json(payload)
            uid, position, desired, remove = _unlock_fields(data)
            if not self.unlock_breakpoint(position, uid, desired, remove):
                raise ProtocolError("Node ID not found")
            return None
        if kind == RequestType.HOOK_REMOVE:
            data = parse_json(payload)
            uid = _field(data, "uid", int) & 0xFFFF
            position = _field(data, "position", int)
            if not self.remove_hook(position, uid):
                raise ProtocolError("Node ID not found")
            return None
        # TOGGLE_RECORDING
        if payload == b"start":
            with self._status_lock:
                self._recording_start[0] = self._wall_clock_us()
                self._transitions.clear()
                self._recording_flag[0] = True
            return str(self._wall_clock_us()).encode("ascii")
        if payload == b"stop":
            with self._status_lock:
                self._recording_flag[0] = False
        return None

    # -- the heartbeat ------------------------------------------------------------------------------

    def heartbeat(self) -> None:
        """A request arrived: Groot2 is there (a silence it ends is noticed first, so hooks
        disabled by it are enabled again, as 4.10's heartbeat thread would have done)."""
        self.check_heartbeat()
        with self._heartbeat_lock:
            self._last_request_s = self._clock()
        self.check_heartbeat()

    def check_heartbeat(self) -> bool:
        """One look at the heartbeat (4.10's heartbeat thread): when it is lost (no request for
        `max_heartbeat_delay_s`) every hook is disabled, when it returns every hook is enabled.
        Returns whether Groot2 counts as connected."""
        with self._heartbeat_lock:
            previous = self._has_heartbeat
            now = self._has_heartbeat = self._clock() - self._last_request_s < self.max_heartbeat_delay_s
        if now != previous:
            self.enable_all_hooks(now)
            with self._status_lock:
                self._watch(now)
        return now

    # -- hooks --------------------------------------------------------------------------------------

    def _hooks(self, position: int) -> dict[int, Hook]:
        return self._pre_hooks if position == Position.PRE else self._post_hooks

    def get_hook(self, position: int, uid: int) -> Hook | None:
        with self._hooks_lock:
            return self._hooks(position).get(uid)

    def hooks_json(self) -> list[dict[str, Any]]:
        """HOOKS_DUMP's array: the PRE hooks, then the POST ones, each in its map's order."""
        out = []
        with self._hooks_lock:
            for position in (Position.PRE, Position.POST):
                hooks = self._hooks(position)
                for uid in self._hook_order[position].keys():
                    hook = hooks[uid]
                    with hook.condition:
                        out.append(hook.to_json())
        return out

    def _forget(self, position: int, uid: int) -> None:
        """The hook at `uid` leaves its map (the hooks' lock held)."""
        del self._hooks(position)[uid]
        self._hook_order[Position.PRE if position == Position.PRE else Position.POST].erase(uid)

    def insert_hook_json(self, data: Any) -> None:
        """HOOK_INSERT of one hook: an existing hook at that place is updated (a BREAKPOINT that
        becomes a REPLACE is let go), else a new one is made (none for an unknown uid)."""
        uid = _field(data, "uid", int) & 0xFFFF
        position = _field(data, "position", int)
        hook = self.get_hook(position, uid)
        if hook is not None:
            with hook.condition:
                was_breakpoint = hook.is_breakpoint
                hook.update_from_json(data)
                if was_breakpoint and hook.mode == 1:
                    hook.ready = True
                    hook.condition.notify_all()
            return
        hook = Hook.from_json(data)
        self.insert_hook(hook)

    def insert_hook(self, hook: Hook) -> bool:
        """Install `hook` on its node; False when no node has its uid."""
        node = self._nodes.get(hook.node_uid)
        if node is None:
            return False
        with self._hooks_lock:
            if hook.is_pre:
                self._pre_hooks[hook.node_uid] = hook
                self._hook_order[Position.PRE].insert(hook.node_uid)
                set_pre_tick(node, lambda n: self._run_hook(hook, n))
            else:
                self._post_hooks[hook.node_uid] = hook
                self._hook_order[Position.POST].insert(hook.node_uid)
                set_post_tick(node, lambda n, _status: self._run_hook(hook, n))
        return True

    def _run_hook(self, hook: Hook, node: Any) -> NodeStatus | None:
        """The injected callback, in the ticking thread (4.10's runHook)."""
        if not self._hooks_open:
            return None
        self.check_heartbeat()
        with hook.condition:
            if not hook.enabled:
                return None
            waits = hook.is_breakpoint
        if waits:  # said before the notification: whoever hears it finds the tick waiting
            self.waiting_uid = hook.node_uid
            if self.on_breakpoint is not None:
                self.on_breakpoint(hook.node_uid, True)
        try:
            return self._hook_result(hook, node)
        finally:
            if waits:
                self.waiting_uid = None
                if self.on_breakpoint is not None:
                    self.on_breakpoint(hook.node_uid, False)

    def _hook_result(self, hook: Hook, node: Any) -> NodeStatus | None:
        try:
            self._sockets.publish(breakpoint_notification(hook.node_uid))
        except Exception:  # noqa: BLE001 - a failed notification skips the hook, as in 4.10
            return None
        while True:
            # in slices: interrupt() (a signal handler) only sets a flag, and the heartbeat is
            # looked at between them (without the hook's lock: the hooks' lock comes first)
            with hook.condition:
                if not hook.is_breakpoint:
                    break
                if hook.condition.wait_for(lambda: hook.ready or not hook.enabled, WAIT_SLICE_S):
                    hook.ready = False
                    break
            if not self._hooks_open:
                return None
            self.check_heartbeat()
        with hook.condition:
            if not hook.enabled or not self._hooks_open:
                return None
            remove = hook.remove_when_done
            desired = hook.desired_status
            position = hook.position
            if remove:
                hook.enabled = False  # a copy of the callback still held must not run it again
        if remove:
            with self._hooks_lock:
                hooks = self._hooks(position)
                if hooks.get(hook.node_uid) is hook:
                    self._forget(position, hook.node_uid)
                    (set_pre_tick if position == Position.PRE else set_post_tick)(node, None)
        return _BY_NAME.get(desired)

    def unlock_breakpoint(self, position: int, uid: int, desired_status: str, remove: bool) -> bool:
        """BREAKPOINT_UNLOCK: set the hook's result (and once), let a waiting breakpoint go."""
        if uid not in self._nodes:
            return False
        hook = self.get_hook(position, uid)
        if hook is None:
            return False
        with hook.condition:
            hook.desired_status = desired_status
            hook.remove_when_done |= remove
            if hook.is_breakpoint:
                hook.ready = True
                hook.condition.notify_all()
        return True

    def remove_hook(self, position: int, uid: int) -> bool:
        """HOOK_REMOVE: disable the hook (a waiting breakpoint goes on), take it off its node."""
        node = self._nodes.get(uid)
        if node is None:
            return False
        with self._hooks_lock:
            hook = self._hooks(position).get(uid)
            if hook is None:
                return False
            self._forget(position, uid)
            with hook.condition:
                hook.enabled = False
                hook.condition.notify_all()
            (set_pre_tick if position == Position.PRE else set_post_tick)(node, None)
        return True

    def remove_all_hooks(self) -> None:
        """REMOVE_ALL_HOOKS (what Groot2 sends before it disconnects)."""
        for position in (Position.PRE, Position.POST):
            with self._hooks_lock:
                uids = list(self._hooks(position))
            for uid in uids:
                self.remove_hook(position, uid)

    def enable_all_hooks(self, enable: bool) -> None:
        """Enable or disable every hook; disabling lets a waiting breakpoint go on."""
        with self._hooks_lock:
            for hooks in (self._pre_hooks, self._post_hooks):
                for hook in hooks.values():
                    with hook.condition:
                        hook.enabled = enable
                        if not enable:
                            hook.condition.notify_all()

    # -- closing ------------------------------------------------------------------------------------

    def interrupt(self) -> None:
        """Let a waiting breakpoint go and ignore every hook from now on (shutting down). Safe
        from a signal handler: it sets a flag, the waiting tick sees it within 0.1 s."""
        self._hooks_open = False

    def close(self) -> None:
        """Stop serving: the threads end, every hook goes (a waiting breakpoint released), the
        tree is no longer watched, the ports are freed. Idempotent."""
        if not self._active:
            return
        self._hooks_open = False
        self._active = False
        self._sockets.stop()
        self.remove_all_hooks()
        with self._status_lock:
            self._detach()
        self._sockets.close()

    def __enter__(self) -> Groot2Publisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _field(data: Any, key: str, kind: type) -> Any:
    """json.at(key).get<kind>() with nlohmann's errors."""
    if not isinstance(data, dict):
        raise ProtocolError(f"[json.exception.type_error.304] cannot use at() with {json_kind(data)}")
    if key not in data:
        raise ProtocolError(f"[json.exception.out_of_range.403] key '{key}' not found")
    value = data[key]
    if kind is int:
        if isinstance(value, bool | int):
            return int(value)
        if isinstance(value, float) and value == value and abs(value) != float("inf"):
            return int(value)
        raise ProtocolError(f"[json.exception.type_error.302] type must be number, but is {json_kind(value)}")
    if kind is bool:
        if not isinstance(value, bool):
            raise ProtocolError(f"[json.exception.type_error.302] type must be boolean, but is {json_kind(value)}")
        return value
    if not isinstance(value, str):
        raise ProtocolError(f"[json.exception.type_error.302] type must be string, but is {json_kind(value)}")
    return value


def _unlock_fields(data: Any) -> tuple[int, int, str, bool]:
    """BREAKPOINT_UNLOCK's fields in 4.10's order; a status other than SUCCESS or FAILURE asks
    for none (the node runs)."""
    uid = _field(data, "uid", int) & 0xFFFF
    status = _field(data, "desired_status", str)
    position = _field(data, "position", int)
    remove = _field(data, "remove_when_done", bool)
    return uid, position, status if status in _BY_NAME else "SKIPPED", remove
