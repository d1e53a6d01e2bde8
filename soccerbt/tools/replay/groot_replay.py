"""``soccerbt replay LOG --robot R --groot [[HOST:]PORT]``: a recorded robot served to Groot2.

The robot's tree, statuses and root blackboard at the replay's position are served over BT.CPP
4.10's Groot2 protocol (soccerbt.groot.recorded.Groot2RecordedPublisher: hook requests refused,
the root blackboard only). With a display the replay window opens with R selected and Groot2
follows the window's position (play, pause, seek, scrub); without one (or with
``SDL_VIDEODRIVER`` unset and no ``DISPLAY``) the replay plays headless at ``--speed`` from
``--at`` (``--paused``: stays there) and then keeps serving its last step until Ctrl+C.

The models in the tree's XML are those of a factory with soccerbt's nodes (what ``soccerbt run
--groot`` serves), so a tree of soccerbt's node types is served byte for byte as it was live.
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any, TextIO

from soccerbt.groot.recorded import Groot2RecordedPublisher
from soccerbt.groot.robots import GrootEndpoint, parse_groot
from soccerbt.log.reader import McapLog
from soccerbt.nodes.soccer import register_soccer_nodes
from soccerbt.tools.replay.mcap_source import McapReplaySource
from soccerbt.trees.factory import TreeFactory

__all__ = ["groot_type", "serve_recorded", "follow", "play_headless", "HEADLESS_FRAME_S"]

HEADLESS_FRAME_S = 0.05   # the headless replay moves (and Groot2 sees a new step) 20 times a second
# a frame that played at most this many steps hands their transitions on (a fast replay's frame:
# 20x speed at 20 fps is 10 steps); a longer move is a seek
MAX_PLAYED_STEPS = 200


def groot_type(text: str) -> tuple[str, int]:
    """``--groot``'s value: PORT or HOST:PORT."""
    try:
        return parse_groot(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def serve_recorded(log: McapLog, robot: str, host: str, port: int, *,
                   err: TextIO | None = None) -> tuple[Groot2RecordedPublisher, GrootEndpoint]:
    """A publisher for `robot` of `log` (GrootUnavailable when it cannot start); says where on `err`."""
    factory = TreeFactory()
    register_soccer_nodes(factory, declare_keys=False)
    publisher = Groot2RecordedPublisher(port, host=host, manifests=factory.manifests(),
                                        step_us=round(log.dt_s * 1e6))
    endpoint = GrootEndpoint(robot, host, port)
    if err is not None:
        print(f"Groot2: {robot} (recorded, {log.path.name}) at {host}:{port} (notifications {port + 1}); "
              "hooks refused, the root blackboard only", file=err)
        if host not in ("127.0.0.1", "localhost", "::1"):
            print(f"Groot2: bound to {host}: unauthenticated, anyone who reaches these ports can read the "
                  "recorded blackboard", file=err)
    return publisher, endpoint


def follow(publisher: Groot2RecordedPublisher, robot: str) -> Callable[[McapReplaySource], None]:
    """A frame callback: the publisher shows `robot` at the source's position (in the replay's
    thread: the log is never read from the publisher's)."""

    def shown(source: McapReplaySource) -> None:
        state = source.robot_state(robot)
        before = publisher.shown_step
        played = None
        if before is not None and 1 < state.step - before <= MAX_PLAYED_STEPS and state.missing is None:
            played = _played(source.log, robot, before + 1, state.step)
        publisher.show(state, played)

    return shown


def _played(log: McapLog, robot: str, first: int, last: int) -> list[tuple[int, list[tuple[int, int, int]]]] | None:
    """The transitions of `robot` in steps first..last (None when steps are missing there)."""
    gaps: list[object] = []
    out = []
    for view in log.steps(first, last, on_gap=gaps.append, robots=[robot]):
        rec = view.ticks.get(robot)
        out.append((view.step, list(rec.transitions) if rec is not None else []))
    return None if gaps else out


def play_headless(source: McapReplaySource, on_frame: Callable[[McapReplaySource], None], *, speed: float = 1.0,
                  paused: bool = False, clock: Callable[[], float] = time.monotonic,
                  sleep: Callable[[float], Any] = time.sleep,
                  keep_going: Callable[[], bool] = lambda: True) -> int:
    """Play `source` at `speed` times real time (from where it is), `on_frame` after every move;
    at the end (or `paused`: at once) hold the position, still calling `on_frame`, while
    `keep_going()`. Returns the step reached."""
    on_frame(source)
    last = clock()
    owed_s = 0.0
    while keep_going():
        sleep(HEADLESS_FRAME_S)
        now = clock()
        if not paused and not source.finished():
            owed_s += (now - last) * speed
            steps = int(owed_s / source.dt_s + 1e-6)  # 0.1 / 0.01 is 9.999...
            if steps:
                owed_s -= steps * source.dt_s
                for _ in range(min(steps, source.log.last_step - source.position)):
                    source.step(1)  # one at a time: Groot2's idle nodes keep what they left
        last = now
        on_frame(source)
    return source.position
