"""``--live``: the log's channels over the Foxglove WebSocket protocol on 127.0.0.1. A client
receives the scene and every robot's tree statuses; a client that stops reading slows nothing."""
from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from soccerbt.live.server import parse_live
from soccerbt.log import format as lf
from soccerbt.match import Match, MatchConfig

pytest.importorskip("foxglove")


def _collect(client: Any, got: list[tuple[str, int, bytes]]) -> None:
    from soccerbt.live.ws_client import ConnectionClosed

    try:
        for event in client.events():
            if event[0] == "message":
                got.append(event[1:])
    except (ConnectionClosed, OSError):
        pass


def test_a_client_gets_the_scene_and_statuses_and_a_stalled_or_vanished_one_stops_nothing() -> None:
    from soccerbt.live.server import LiveStream, live_recorder
    from soccerbt.live.ws_client import FoxgloveClient

    stream = LiveStream("127.0.0.1", 0)
    match = Match(MatchConfig(seed=2, team_size=1, idle_teams=("red",)))
    recorder = live_recorder(match, stream)
    reader = FoxgloveClient("127.0.0.1", stream.port, timeout_s=None)
    got: list[tuple[str, int, bytes]] = []
    thread = threading.Thread(target=_collect, args=(reader, got), daemon=True)
    thread.start()
    for _ in range(100):
        match.step()
    # a viewer that subscribes to everything, then never reads again (a tiny receive window)
    stalled = FoxgloveClient("127.0.0.1", stream.port, recv_buffer_bytes=4096)
    for event in stalled.events():
        if event[0] == "advertise":
            break
    gone = FoxgloveClient("127.0.0.1", stream.port)  # and one that vanishes mid-run
    for event in gone.events():
        if event[0] == "advertise":
            break
    for _ in range(900):
        match.step()
    gone.sock.close()  # no goodbye
    for _ in range(1000):
        match.step()
    assert match.steps == 2000  # the run went on
    for _ in range(600):  # let the reading client catch up with the live edge
        if any(topic == lf.STEP_TOPIC and ns >= lf.ns_of(1990, 0.01) for topic, ns, _d in got):
            break
        time.sleep(0.05)
    recorder.finish(None)
    stream.close()
    thread.join(30)
    stalled.close()
    topics = {topic for topic, _ns, _d in got}
    assert {lf.HEADER_TOPIC, lf.SCENE_TOPIC, lf.GC_TOPIC, lf.STEP_TOPIC,
            lf.tree_topic("blue1")} <= topics
    scene = json.loads(next(d for t, _ns, d in got if t == lf.SCENE_TOPIC))
    assert {e["id"] for e in scene["entities"]} >= {"field", "blue1", "ball"}
    tree = json.loads(next(d for t, _ns, d in got if t == lf.tree_topic("blue1")))
    steps = [d for t, _ns, d in got if t == lf.STEP_TOPIC]
    assert len(steps) > 1500
    transitions = 0
    for data in steps:
        tick = lf.decode_step(data)[1]["blue1"]
        assert all(1 <= uid <= len(tree["nodes"]) for uid, _p, _n in tick.transitions)
        transitions += len(tick.transitions)
    assert transitions > 100  # every node's status changes, live
    assert max(lf.decode_step(d)[0].step for d in steps) >= 1990  # still fed after the stall


def test_live_addresses_and_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    from soccerbt.__main__ import main

    assert parse_live("8765") == ("127.0.0.1", 8765)  # loopback unless told
    assert parse_live("0.0.0.0:9000") == ("0.0.0.0", 9000)
    assert parse_live("[::1]:8765") == ("::1", 8765)
    for bad in ("", "host:", "70000", "x:y"):
        with pytest.raises(ValueError):
            parse_live(bad)
    assert main(["run", "--headless", "--seconds", "0.3", "--team-size", "1", "--quiet", "--live", "127.0.0.1:0"]) == 0
    err = capsys.readouterr().err
    assert "live stream on ws://127.0.0.1:" in err and "unauthenticated" not in err


def test_a_stalled_client_loses_its_oldest_messages_and_the_stream_never_waits() -> None:
    from soccerbt.live.server import LiveStream
    from soccerbt.live.ws_client import FoxgloveClient

    stream = LiveStream("127.0.0.1", 0, backlog=16)
    stream.tap(lf.HEADER_TOPIC, 0, b'{"dt_s":0.01}')
    stream.tap(lf.EVENTS_TOPIC, 1, b"{}")
    stalled = FoxgloveClient("127.0.0.1", stream.port, recv_buffer_bytes=4096)
    seen: set[str] = set()
    for event in stalled.events():  # subscribed to both channels, then it stops reading
        if event[0] == "advertise":
            seen |= {c["topic"] for c in event[1]}
        if seen >= {lf.HEADER_TOPIC, lf.EVENTS_TOPIC}:
            break
    for _ in range(4000):  # until the server has taken the subscription
        if stream.subscribed(lf.EVENTS_TOPIC):
            break
        time.sleep(0.005)
    assert stream.subscribed(lf.EVENTS_TOPIC)
    big = b'{"kind":"' + b"x" * (256 << 10) + b'"}'
    for step in range(2, 102):  # 25 MiB: more than the sockets and the client's queue hold
        stream.tap(lf.EVENTS_TOPIC, step, big)
    assert stream.published >= 100  # every message was handed over, none waited for the client
    time.sleep(0.5)  # the gate in front of the server holds a bounded queue for it (one read over at most)
    queued = [len(pair.to_client) for pair in set(stream.gate._pairs.values())]
    assert queued and max(queued) <= stream.gate.max_queue_bytes + (1 << 16)
    stalled.sock.settimeout(0.5)
    received = 0
    try:
        for event in stalled.events(auto_subscribe=False):
            if event[0] == "message" and event[1] == lf.EVENTS_TOPIC and len(event[3]) > 1000:
                received += 1
    except OSError:  # the read timed out: nothing more is queued for it
        pass
    stream.close()
    stalled.close()
    assert 0 < received < 100  # the oldest were dropped for it


def test_replay_connect_reads_the_stream_as_the_log_file_holds_it(tmp_path: Any) -> None:
    from soccerbt.live.client import LiveLog
    from soccerbt.live.server import LiveStream
    from soccerbt.log.reader import McapLog
    from soccerbt.log.writer import make_recorder

    stream = LiveStream("127.0.0.1", 0)
    match = Match(MatchConfig(seed=4, team_size=1, idle_teams=("red",)))
    recorder = make_recorder(tmp_path / "same.mcap", match, tap=stream.tap)  # recorded and streamed
    connected: list[Any] = []
    thread = threading.Thread(target=lambda: connected.append(LiveLog.connect("127.0.0.1", stream.port)))
    thread.start()
    for _ in range(50):
        match.step()
    while thread.is_alive():  # the viewer joins while the match plays: it waits for a keyframe
        match.step()
    for _ in range(300):
        match.step()
    (live,) = connected
    for _ in range(600):
        if live.last_step >= 300 + 50:
            break
        time.sleep(0.05)
    recorder.finish(match.result())
    stream.close()
    log = McapLog.open(tmp_path / "same.mcap")
    assert live.robots == ["blue1"] and live.first_step > 1 and live.last_step > live.first_step + 100
    for step in (live.first_step, (live.first_step + live.last_step) // 2, live.last_step):
        a, b = live.robot_state("blue1", step), log.robot_state("blue1", step)
        assert (a.statuses, a.blackboard, a.ticked) == (b.statuses, b.blackboard, b.ticked)
    from soccerbt.tools.replay.mcap_view import save_mcap_screenshot

    shot = save_mcap_screenshot(live, tmp_path / "live.png", select="blue1")  # the viewer draws it
    assert shot.stat().st_size > 1000
    live.close()


def test_a_served_match_streams_its_field_and_gamecontroller() -> None:
    """What sim --serve --live streams: a match whose robots are driven from outside (no brains)."""
    from soccerbt.live.server import LiveStream, live_recorder
    from soccerbt.live.ws_client import FoxgloveClient

    stream = LiveStream("127.0.0.1", 0)
    match = Match(MatchConfig(seed=1, team_size=2), external=True)
    recorder = live_recorder(match, stream, header_extra={"source": "served"})
    client = FoxgloveClient("127.0.0.1", stream.port, timeout_s=None)
    got: list[tuple[str, int, bytes]] = []
    thread = threading.Thread(target=_collect, args=(client, got), daemon=True)
    thread.start()
    for _ in range(2000):  # a match without brains steps fast: until the client has subscribed
        match.step()
        if stream.subscribed(lf.SCENE_TOPIC) and stream.subscribed(lf.GC_TOPIC):
            break
        time.sleep(0.002)
    end = match.steps + 200
    while match.steps < end:
        match.step()
    for _ in range(600):
        if any(topic == lf.SCENE_TOPIC and ns >= lf.ns_of(end - 10, 0.01) for topic, ns, _d in got):
            break
        time.sleep(0.05)
    recorder.finish(None)
    stream.close()
    thread.join(30)
    scenes = [json.loads(d) for t, _ns, d in got if t == lf.SCENE_TOPIC]
    assert scenes and {e["id"] for e in scenes[-1]["entities"]} >= {"blue1", "blue2", "red1", "red2", "ball"}
    assert any(t == lf.GC_TOPIC for t, _ns, _d in got)


def test_an_inputs_only_file_leaves_the_stream_every_node(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--record-mode inputs with --live: the file holds the inputs only, the stream has a full
    recorder of its own (the tree, its transitions)."""
    import io

    from soccerbt.live import server as live_module
    from soccerbt.log.reader import McapLog
    from soccerbt.match import Match, MatchConfig

    streamed: list[tuple[str, bytes]] = []
    monkeypatch.setattr(live_module.LiveStream, "tap", lambda self, topic, step, data: streamed.append((topic, data)))
    match = Match(MatchConfig(seed=2, duration_s=1.0, team_size=1))
    stream, recorder = live_module.record_and_stream(match, str(tmp_path / "m.mcap"), ("127.0.0.1", 0), io.StringIO(),
                                                     "inputs")
    try:
        match.run(1.0)
        recorder.finish(match.result())
    finally:
        stream.close()
    assert McapLog.open(tmp_path / "m.mcap").node_data is False
    topics = {t for t, _ in streamed}
    assert lf.tree_topic("blue1") in topics and lf.keyframe_topic("blue1") in topics
    ticks = [lf.decode_step(d)[1]["blue1"] for t, d in streamed if t == lf.STEP_TOPIC]
    assert len(ticks) == 100 and sum(len(t.transitions) for t in ticks) > 10
