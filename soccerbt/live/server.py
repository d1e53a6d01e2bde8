"""``--live [HOST:]PORT``: the replay log's channels streamed live over the Foxglove WebSocket protocol.

``soccerbt run``, ``view``, ``brain`` and ``sim --serve`` take ``--live``: a ``LiveStream`` (a
server of the ``foxglove-sdk`` package, the ``live`` extra) publishes every message the match
recorder writes, on the log's own topics and schemas (``soccerbt.log.format``): ``/foxglove/scene``
(``foxglove.SceneUpdate``, the field, robots and ball), ``/gamecontroller``, ``/events``,
``/commands``, the truth and every robot's tick (protobuf: statuses, blackboard changes, reasons,
command), the trees and keyframes. Foxglove or Lichtblick connect to
``ws://HOST:PORT``; ``soccerbt replay --connect HOST:PORT`` reads the same stream. A message's
time is its step's time, as in the log.

The recorder hands each message to the stream (``tap``: the same bytes it writes into the file;
with no file, ``LiveWriter`` takes the file writer's place and nothing is compressed or
written). Messages a late client needs to make sense of the rest (the header, each robot's
trees, its newest keyframe, the newest GameController state) are kept and sent
again when a client subscribes to their channel.

A slow or vanished client never slows the brain: ``Channel.log`` hands the message to the
server's own threads and returns; each client has a bounded queue (``BACKLOG`` messages), the
oldest dropped when it is full, and a client whose control queue fills is disconnected. A
channel nobody subscribed to costs one check. ``close(reason)`` ends the stream whole: it waits
(at most ``STOP_WAIT_S``) until the last messages (the match's last steps, its summary) have left
for the clients, then says goodbye to each with ``reason`` (a WebSocket close frame: a viewer
shows "stream ended", where a killed source's silence shows "stream lost"), then stops the server
(at most ``STOP_WAIT_S`` again: a stalled client would hold the SDK's stop up).

The stream is not authenticated: anyone who reaches the port sees everything. The default bind
is the loopback interface (127.0.0.1); another address is given explicitly (``0.0.0.0:8765``).
"""
from __future__ import annotations

import argparse
import logging
import math
import threading
import time
from typing import Any

from soccerbt.live.gate import MAX_CLIENTS, ConnectionGate
from soccerbt.log import format as lf
from soccerbt.log.writer import McapRecorder, make_recorder

__all__ = ["LiveStream", "LiveWriter", "LiveUnavailable", "add_live_argument", "parse_live", "open_live",
           "DEFAULT_HOST", "BACKLOG", "STOP_WAIT_S"]

DEFAULT_HOST = "127.0.0.1"
BACKLOG = 1024          # messages queued per client before the oldest are dropped
RESEND_AFTER_S = (0.05, 0.5)  # a new subscriber's kept messages are sent again this long after
STOP_WAIT_S = 2.0       # how long close() waits for the last messages to leave, and for the server to stop
DRAIN_QUIET_S = 0.15    # no byte moved for this long: the server has sent what it had
SDK_LOG_LINES = 20      # foxglove-sdk's log lines a minute let through (the rest counted)
_LATCHED_TREES = 16     # tree loads of one robot kept for late clients
INSTALL_HINT = "the live stream needs the foxglove-sdk package: pip install 'soccerbt[live]'"


class _SdkLogLimit(logging.Handler):
    """foxglove-sdk logs a line for each bad request of a client (a subscribe naming 100,000
    unknown channels writes 100,000 lines): its loggers' records come here instead of going up,
    at most ``SDK_LOG_LINES`` a minute go on to the root logger's handlers (or Python's last
    resort), and the number held back is said with the next line that goes on."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self._window_start = -math.inf
        self._passed = 0
        self.held_back = 0

    def emit(self, record: logging.LogRecord) -> None:
        now = time.monotonic()
        if now - self._window_start >= 60.0:
            self._window_start, self._passed = now, 0
        if self._passed >= SDK_LOG_LINES:
            self.held_back += 1
            return
        self._passed += 1
        if self.held_back:
            record.msg = f"{record.getMessage()} ({self.held_back} lines of foxglove-sdk held back before this)"
            record.args = ()
            self.held_back = 0
        root = logging.getLogger()
        if root.handlers:
            root.handle(record)
        elif logging.lastResort is not None and record.levelno >= logging.lastResort.level:
            logging.lastResort.handle(record)


_SDK_LOG = _SdkLogLimit()


def _limit_sdk_log() -> None:
    """foxglove-sdk's loggers through the limit (once a process)."""
    sdk = logging.getLogger("foxglove")
    if _SDK_LOG not in sdk.handlers:
        sdk.addHandler(_SDK_LOG)
        sdk.propagate = False


class LiveUnavailable(RuntimeError):
    """The stream cannot start (the package is missing, the address cannot be bound)."""


def parse_live(text: str) -> tuple[str, int]:
    """``PORT``, ``HOST:PORT`` or ``[IPv6]:PORT`` -> (host, port); the host defaults to
    127.0.0.1. Port 0 takes a free port. ValueError for anything else."""
    text = text.strip()
    host, port_text = DEFAULT_HOST, text
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or not text[end + 1:].startswith(":"):
            raise ValueError(f"{text!r}: expected [ADDRESS]:PORT")
        host, port_text = text[1:end], text[end + 2:]
    elif ":" in text:
        host, _, port_text = text.rpartition(":")
    if not host or any(c.isspace() for c in host) or len(host) > 255:
        raise ValueError(f"{text!r}: no host before the port")
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"{text!r}: the port must be a number 0..65535") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"{text!r}: the port must be a number 0..65535")
    return host, port


def _live_type(text: str) -> tuple[str, int]:
    try:
        return parse_live(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


RECORD_MODES = ("full", "inputs")
DEFAULT_RECORD_MODE = "full"  # a log is a record: every node's status, the blackboard, the reasons, as they happen


def add_record_mode_argument(parser: argparse.ArgumentParser, what: str = "--record") -> None:
    """``--record-mode full|inputs``: what the log holds (soccerbt.log.writer);
    ``record_mode_problem`` fills in the default."""
    parser.add_argument("--record-mode", choices=RECORD_MODES, default=None,
                        help=f"what {what} writes: full (the default: what every brain did and why, as it "
                             "happens: every node's status, the blackboard with its writers, the reasons, the "
                             "commands, the scene, and the brains' inputs for --rerun) or inputs (an opt-in for "
                             "long batch runs: the brains' inputs, the truth and the game only; readers re-run "
                             "the brains to derive the rest, which needs this soccerbt's behaviour unchanged)")


def record_mode_problem(args: argparse.Namespace, recording: bool) -> str | None:
    """What is wrong with ``--record-mode`` (given, it goes with something recorded), or None;
    fills in the default when it was not given: DEFAULT_RECORD_MODE (full; with ``--live`` the
    stream needs a full recorder anyway)."""
    mode = getattr(args, "record_mode", None)
    if mode is not None and not recording:
        return f"--record-mode {mode} goes with a recording (--record FILE.mcap)"
    if mode is None:
        args.record_mode = DEFAULT_RECORD_MODE
    return None


def add_live_argument(parser: argparse.ArgumentParser) -> None:
    """``--live [HOST:]PORT`` (the commands that play or serve a match)."""
    parser.add_argument("--live", type=_live_type, default=None, metavar="[HOST:]PORT",
                        help="stream the log's channels live over the Foxglove WebSocket protocol (Foxglove, "
                             "Lichtblick, soccerbt replay --connect); binds 127.0.0.1 unless HOST is given; "
                             "unauthenticated: anyone who reaches the port sees the stream")


class _Listener:
    """The server's callbacks: a subscription asks for the kept messages of its channel again."""

    def __init__(self, stream: LiveStream) -> None:
        self.stream = stream

    def on_subscribe(self, client: Any, channel: Any) -> None:
        self.stream._resubscribed(channel.topic)

    def on_unsubscribe(self, client: Any, channel: Any) -> None:
        return None


class LiveStream:
    """A Foxglove WebSocket server publishing the log's messages (see the module docstring)."""

    def __init__(self, host: str = DEFAULT_HOST, port: int = 8765, *, name: str = "soccerbt",
                 backlog: int = BACKLOG, max_clients: int = MAX_CLIENTS) -> None:
        try:
            # deferred: optional dependency (foxglove-sdk, the live extra)
            import foxglove
        except ImportError:
            raise LiveUnavailable(INSTALL_HINT) from None
        _limit_sdk_log()
        self._fox = foxglove
        self.context = foxglove.Context()
        try:  # the SDK's server on a loopback port of its own, behind the gate
            self.server = foxglove.start_server(name=name, host="127.0.0.1", port=0, context=self.context,
                                                server_listener=_Listener(self), message_backlog_size=backlog)
        except Exception as exc:  # the SDK raises its own error types for a bind that fails
            raise LiveUnavailable(f"cannot start the stream's server ({exc})") from None
        try:
            self.gate = ConnectionGate(host, port, int(self.server.port), max_clients=max_clients)
        except OSError as exc:
            self._stop_server()
            raise LiveUnavailable(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
        self.host = host
        self.port = self.gate.port
        self.dt_s = 0.01
        self.published = 0
        self._channels: dict[str, Any] = {}
        self._kept: dict[str, list[tuple[int, bytes]]] = {}
        self._again: dict[str, list[float]] = {}   # topic -> when to send its kept messages again
        self._lock = threading.Lock()
        self._closed = False

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"ws://{host}:{self.port}"

    def _resubscribed(self, topic: str) -> None:  # the server's thread
        """A client subscribed: its channel's kept messages go out again, a little later and
        once more after that (the server may not route to the new subscription yet when it
        tells us of it; a client ignores what it already has)."""
        now = time.monotonic()
        with self._lock:
            self._again[topic] = [now + d for d in RESEND_AFTER_S]

    def _channel(self, topic: str) -> Any:
        channel = self._channels.get(topic)
        if channel is None:
            kind = lf.kind_of_topic(topic)
            name, encoding, data, message_encoding = lf.SCHEMAS[kind or "header"]
            schema = self._fox.Schema(name=name, encoding=encoding, data=data)
            channel = self._fox.Channel(topic, schema=schema, message_encoding=message_encoding, context=self.context)
            self._channels[topic] = channel
        return channel

    def subscribed(self, topic: str) -> bool:
        """Whether some client subscribed to `topic` (its channel exists once published)."""
        channel = self._channels.get(topic)
        return channel is not None and channel.has_sinks()

    def tap(self, topic: str, step: int, data: bytes) -> None:
        """Publish one message of the log (the recorder's tap: topic, step, bytes)."""
        if self._closed:
            return
        if topic == lf.HEADER_TOPIC:
            self._learn_dt(data)
            # advertised from the start, so that clients have subscribed when the match's summary
            # (its last message) comes: a channel's first message reaches nobody
            self._channel(lf.SUMMARY_TOPIC)
        self._keep(topic, step, data)
        if self._again:
            self._send_kept(time.monotonic())
        channel = self._channel(topic)
        if channel.has_sinks():
            channel.log(data, log_time=lf.ns_of(step, self.dt_s))
            self.published += 1

    def _learn_dt(self, data: bytes) -> None:
        try:
            dt = lf.load_json(data, 1 << 20).get("dt_s")
        except (lf.ShapeError, AttributeError):
            return
        if isinstance(dt, (int, float)) and not isinstance(dt, bool) and 1e-4 <= dt <= 1.0:
            self.dt_s = float(dt)

    def _keep(self, topic: str, step: int, data: bytes) -> None:
        """The messages a late client needs: header, trees (each load), newest keyframe and
        GameController state, the summary."""
        robot = lf.robot_of_topic(topic)
        if robot is not None and robot[1] == "tree":
            kept = self._kept.setdefault(topic, [])
            kept.append((step, data))
            del kept[:-_LATCHED_TREES]
        elif topic in (lf.HEADER_TOPIC, lf.GC_TOPIC, lf.SUMMARY_TOPIC) or (
                robot is not None and robot[1] == "keyframe"):
            self._kept[topic] = [(step, data)]

    def _send_kept(self, now: float) -> None:
        with self._lock:
            topics = [t for t, due in self._again.items() if due and due[0] <= now]
            for t in topics:
                self._again[t].pop(0)
                if not self._again[t]:
                    del self._again[t]
        if not topics:
            return
        order = sorted(topics, key=lambda t: (t != lf.HEADER_TOPIC, not t.endswith("/tree"), t))
        for topic in order:
            channel = self._channels.get(topic)
            for step, data in self._kept.get(topic, []):
                if channel is not None:
                    channel.log(data, log_time=lf.ns_of(step, self.dt_s))

    def close(self, reason: str = "the source closed the stream") -> None:
        """End the stream whole: the messages published so far reach the clients, each is told
        ``reason`` (a WebSocket close frame), then the server stops."""
        if self._closed:
            return
        self._closed = True
        if self._again:  # kept messages a client subscribed to lately and has not had yet
            self._send_kept(math.inf)
        # the SDK's stop() drops what its queues still hold and says no goodbye: the last steps
        # leave through the gate first (bounded: a stalled client moves no byte, so it goes quiet)
        self.gate.drain(DRAIN_QUIET_S, STOP_WAIT_S)
        self.gate.close(goodbye=reason)
        # the SDK's stop() may wait on a client that stopped reading with more queued than the
        # socket holds (a stalled viewer, large scenes): it runs aside, waited for at most STOP_WAIT_S
        stopper = threading.Thread(target=self._stop_server, name="live-stop", daemon=True)
        stopper.start()
        stopper.join(STOP_WAIT_S)

    def _stop_server(self) -> None:
        try:
            self.server.stop()
        except Exception:  # stopping twice, or a server already gone
            pass


class LiveWriter:
    """Takes the place of the recorder's file writer (``soccerbt.log.writer.LogWriter``) when the
    run is streamed but not recorded: every message goes to the stream, nothing is written."""

    def __init__(self, stream: LiveStream) -> None:
        self.stream = stream
        self.dt_s = 0.01
        self.messages = 0
        self.topic_of: dict[int, str] = {}
        self._ids: dict[str, int] = {}
        self.file = _NoFile()

    def channel(self, topic: str, kind: str) -> int:
        cid = self._ids.get(topic)
        if cid is None:
            cid = self._ids[topic] = len(self._ids) + 1
            self.topic_of[cid] = topic
        return cid

    def put(self, channel: int, step: int, data: bytes) -> None:
        self.stream.tap(self.topic_of[channel], step, data)
        self.messages += 1

    def finish(self, step: int, index: dict[str, Any]) -> None:
        return None


class _NoFile:
    """The file of a writer that writes none."""

    def tell(self) -> int:
        return 0

    def flush(self) -> None:
        return None

    def close(self) -> None:
        return None


def open_live(where: tuple[str, int], err: Any, *, name: str = "soccerbt") -> LiveStream:
    """Start the stream and say where it is (and that it is open to anyone who reaches it when
    bound beyond the loopback interface); LiveUnavailable when it cannot start."""
    host, port = where
    stream = LiveStream(host, port, name=name)
    print(f"soccerbt: live stream on {stream.url} (Foxglove WebSocket; open it in Foxglove or Lichtblick, or "
          f"soccerbt replay --connect {stream.host}:{stream.port})", file=err)
    if host not in ("127.0.0.1", "localhost", "::1") and not host.startswith("127."):
        print(f"soccerbt: warning: the live stream on {host} is unauthenticated: anyone who reaches "
              f"{host}:{stream.port} sees the whole match", file=err)
    return stream


def live_recorder(match: Any, stream: LiveStream, **options: Any) -> Any:
    """A match recorder that streams and writes nothing, watching `match` from its next step
    (``options``: McapRecorder's, e.g. header_extra)."""
    recorder = McapRecorder("live.mcap", out=LiveWriter(stream), **options)
    recorder.on_start(match)
    match.observers.append(recorder)
    return recorder


def record_and_stream(match: Any, record: str | None, where: tuple[str, int] | None, err: Any,
                      record_mode: str = "full") -> tuple[Any, Any]:
    """(the stream or None, the recorder or None) of a command's ``--record`` and ``--live``:
    the file recorder hands its messages to the stream; with no file, or an inputs-only file
    (`record_mode` ``inputs``), the stream has a full recorder of its own that writes nothing (a
    viewer on the stream sees every node). LiveUnavailable when the stream cannot start
    (nothing is recorded then)."""
    live = open_live(where, err) if where is not None else None
    recorder = None
    if record:
        full = record_mode != "inputs"
        recorder = make_recorder(record, match, guarded=True, tap=live.tap if live is not None and full else None,
                                 node_data=full)
        if live is not None and not full:
            recorder = _FileAndStream(recorder, live_recorder(match, live))
    elif live is not None:
        recorder = live_recorder(match, live)
    return live, recorder


class _FileAndStream:
    """An inputs-only file's recorder and the stream's full one, finished together."""

    def __init__(self, file_recorder: Any, stream_recorder: Any) -> None:
        self.file_recorder = file_recorder
        self.stream_recorder = stream_recorder

    def finish(self, result: Any = None) -> None:
        try:
            self.stream_recorder.finish(result)
        finally:
            self.file_recorder.finish(result)

    def written(self) -> Any:
        return getattr(self.file_recorder, "written", lambda: None)()
