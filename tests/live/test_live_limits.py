"""The --live server's limits (issue 39, finding 8): at most MAX_CLIENTS connections at once and
foxglove-sdk's log lines limited so that no client can flood the match's or the brain's stderr
(the bounded queue of a client that stops reading: test_live.py's stalled client)."""
from __future__ import annotations

import json
import logging
import time

import pytest

pytest.importorskip("foxglove")

from soccerbt.live.gate import MAX_CLIENTS  # noqa: E402
from soccerbt.live.server import SDK_LOG_LINES, LiveStream  # noqa: E402
from soccerbt.live.ws_client import ConnectionClosed, FoxgloveClient  # noqa: E402
from soccerbt.log import format as lf  # noqa: E402


def test_connections_beyond_the_cap_are_refused_and_the_others_go_on() -> None:
    stream = LiveStream("127.0.0.1", 0)
    stream.tap(lf.HEADER_TOPIC, 0, b'{"dt_s":0.01}')
    clients = [FoxgloveClient("127.0.0.1", stream.port) for _ in range(MAX_CLIENTS)]
    try:
        refused = 0
        for _ in range(5):
            try:
                FoxgloveClient("127.0.0.1", stream.port, timeout_s=2.0).close()
            except (ConnectionClosed, OSError):
                refused += 1
        assert refused == 5 and stream.gate.refused == 5 and stream.gate.clients == MAX_CLIENTS
        kind, channels = next(clients[0].events())  # the ones let in are served
        assert kind == "advertise" and lf.HEADER_TOPIC in {c["topic"] for c in channels}
    finally:
        for c in clients:
            c.close()
    for _ in range(200):  # their places free up as they leave
        if stream.gate.clients == 0:
            break
        time.sleep(0.01)
    late = FoxgloveClient("127.0.0.1", stream.port)
    assert next(late.events())[0] == "advertise"
    late.close()
    stream.close()


def test_a_subscribe_naming_many_unknown_channels_writes_a_few_lines(caplog: pytest.LogCaptureFixture) -> None:
    stream = LiveStream("127.0.0.1", 0)
    client = FoxgloveClient("127.0.0.1", stream.port)
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.name.startswith("foxglove"):
                lines.append(record.getMessage())

    handler = Collect()
    logging.getLogger().addHandler(handler)
    try:
        subs = [{"id": i, "channelId": 10**6 + i} for i in range(1, 20_001)]
        client._send(0x1, json.dumps({"op": "subscribe", "subscriptions": subs}).encode())
        time.sleep(1.5)
    finally:
        logging.getLogger().removeHandler(handler)
        client.close()
        stream.close()
    # not 20,000 lines: at most a minute's allowance, or two when the burst straddles the end of
    # the process-wide limit's minute (earlier tests in this worker may have opened it)
    assert 1 <= len(lines) <= 2 * SDK_LOG_LINES
    assert "unknown channel" in lines[0]
