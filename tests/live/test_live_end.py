"""Issue 40: a live viewer says how its stream stopped. A source that closes its stream sends its
last steps and its summary first, then a goodbye: the viewer has the match's end whole and says
"stream ended"; a killed source (no goodbye) or a frozen one (nothing heard, not even a ping's
answer) is "stream lost" within the keep-alive's limit; R reconnects; END follows the live edge.
Everything on 127.0.0.1: a real LiveStream serves a recorded log's messages, or a match of a
source process that the test freezes and kills."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from soccerbt.live.client import LiveLog  # noqa: E402
from soccerbt.log import format as lf  # noqa: E402
from soccerbt.log.reader import McapLog  # noqa: E402
from soccerbt.tools.replay.mcap_view import REPLAY_KEYS, McapReplaySource, McapViewer  # noqa: E402

pytest.importorskip("foxglove")

LOG = Path(__file__).resolve().parents[1] / "data" / "logs" / "mcap_v2_full_2v2.mcap"  # 500 steps, 2 v 2
SERVE = """
import time
from soccerbt.live.server import LiveStream, live_recorder
from soccerbt.match import Match, MatchConfig
stream = LiveStream("127.0.0.1", 0)
match = Match(MatchConfig(seed=3, team_size=1, particles=50, idle_teams=("red",)))
recorder = live_recorder(match, stream)
print(stream.port, flush=True)
while True:  # a source that streams until it is killed, at real time
    match.step()
    time.sleep(0.01)
"""


@pytest.fixture(autouse=True)
def _pygame() -> None:
    if not LOG.is_file():
        pytest.skip(f"{LOG} missing")
    pygame.display.init()
    pygame.font.init()


def _until(condition: Any, what: str, bound_s: float = 60.0) -> None:
    """Poll ``condition`` (a stream is asynchronous); the bound only keeps a broken run from hanging."""
    end = time.monotonic() + bound_s
    while not condition():
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.02)


def _frame(viewer: McapViewer, surface: pygame.Surface) -> None:
    viewer.advance(0.05)
    viewer.render(surface)


def _press(viewer: McapViewer, key: int, char: str = "") -> None:
    viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode=char))


def test_a_closed_stream_arrives_whole_and_the_viewer_says_it_ended() -> None:
    from soccerbt.live.server import LiveStream

    stored = McapLog.open(LOG)
    stream = LiveStream("127.0.0.1", 0)
    groups = [(s, [(t, d) for t, d in g if t != lf.INPUTS_TOPIC]) for s, g in stored.step_groups(0, None)]
    for step, group in groups[:2]:  # the header, then the first step: every channel exists
        for topic, data in group:
            stream.tap(topic, step, data)
    connected: list[LiveLog] = []
    thread = threading.Thread(target=lambda: connected.append(LiveLog.connect("127.0.0.1", stream.port)))
    thread.start()
    _until(lambda: stream.subscribed(lf.STEP_TOPIC) and stream.subscribed(lf.SUMMARY_TOPIC), "subscribed")
    for step, group in groups[2:]:
        for topic, data in group:
            stream.tap(topic, step, data)
        time.sleep(0.002)  # a brisk match, not a burst the client's queue would drop
    stream.close("the match ended")  # the last steps, the summary, then the goodbye
    thread.join(60)
    (live,) = connected
    _until(lambda: live.closed, "the reader saw the end")
    assert live.end == "ended"
    assert live.last_step == stored.last_step == 500  # the last second arrived, not only up to step 400
    assert live.summary is not None and "the match's end arrived (BLUE 0 : 0 RED, t=5.00 s" in live.reason
    a, b = live.robot_state("blue1", 500), stored.robot_state("blue1", 500)
    assert (a.statuses, a.blackboard) == (b.statuses, b.blackboard)

    viewer = McapViewer(McapReplaySource(live), size_px=(1280, 720))
    surface = pygame.Surface(viewer.size_px)
    viewer.replay.seek(300)
    _press(viewer, pygame.K_END)  # ended: END is the last step, paused, as in a file
    _frame(viewer, surface)
    assert viewer.replay.position == 500 and viewer.pacer.paused and not viewer.following
    text, level = viewer.live_status()
    assert text.startswith("STREAM ENDED: the match's end arrived") and "R to reconnect" in text and level == "warn"
    assert viewer.live_band is not None and "STREAM ENDED" in viewer.live_tag()
    live.close()


def test_a_killed_or_frozen_source_is_lost_and_r_reconnects(tmp_path: Path) -> None:
    script = tmp_path / "serve.py"
    script.write_text(SERVE)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    source = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        port = int(source.stdout.readline())
        live = LiveLog.connect("127.0.0.1", port, lost_after_s=0.5, ping_after_s=0.1)
        viewer = McapViewer(McapReplaySource(live), size_px=(1280, 720))
        surface = pygame.Surface(viewer.size_px)
        _frame(viewer, surface)
        assert viewer.following and viewer.live_status() is None and "LIVE" in viewer.live_tag()

        os.kill(source.pid, signal.SIGSTOP)  # frozen: its sockets stay open, nothing answers the pings
        _until(lambda: live.closed, "the frozen source given up")
        assert live.end == "lost" and "nothing heard from the source for" in live.reason
        _frame(viewer, surface)
        text, level = viewer.live_status()
        assert text.startswith("STREAM LOST: nothing heard") and text.endswith("R to reconnect") and level == "error"
        assert "STREAM LOST" in viewer.live_tag()

        os.kill(source.pid, signal.SIGCONT)
        _press(viewer, pygame.K_r, "r")  # reconnect, in the background: the window keeps drawing
        assert viewer.reconnecting is not None
        _frame(viewer, surface)
        assert viewer.live_status()[0].startswith("reconnecting to 127.0.0.1:")
        _until(lambda: viewer.reconnecting is None or not viewer.reconnecting.is_alive(), "reconnected")
        _frame(viewer, surface)
        fresh = viewer.replay.log
        assert fresh is not live and not fresh.closed and viewer.following and viewer.live_status() is None

        edge = fresh.last_step  # END follows the live edge: the newest step, then the steps as they come
        viewer.replay.seek(fresh.first_step)
        viewer.following = False
        _press(viewer, pygame.K_END)
        assert viewer.replay.position == edge and viewer.following and not viewer.pacer.paused
        _until(lambda: fresh.last_step > edge, "a newer second")
        for _ in range(100):
            _frame(viewer, surface)
        assert viewer.replay.position > edge and viewer.following

        source.kill()  # killed: the connection closes without a goodbye
        _until(lambda: fresh.closed, "the killed source noticed")
        assert fresh.end == "lost" and "without a goodbye" in fresh.reason
        _frame(viewer, surface)
        assert viewer.live_status()[0].startswith("STREAM LOST: the connection closed without a goodbye")
        viewer.close_logs()
        live.close()
    finally:
        source.kill()
        source.wait(30)
        source.stdout.close()


def test_the_help_names_end_home_and_the_reconnect_key() -> None:
    keys = dict(REPLAY_KEYS)
    assert "follow the live edge" in keys["HOME / END"] and "oldest buffered" in keys["HOME / END"]
    assert "reconnect" in keys["R"]
    docs = (Path(__file__).resolve().parents[2] / "docs" / "replay.md").read_text()
    assert "| R |" in docs and "follows the live edge" in docs
