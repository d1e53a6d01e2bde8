"""``soccerbt view --groot``: the window lives on while a robot's tick waits at a Groot2
breakpoint (the match steps in a worker thread, soccerbt.tools.viewer.stepping): frames keep
being drawn and keys handled, the match does not move, a band says who waits where; unlocked, the
match goes on. Off-screen (SDL_VIDEODRIVER=dummy), the client of groot_client.py over 127.0.0.1;
the viewer's clock is injected (no real waiting but the ticking thread's own)."""
from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import groot_client_spec as spec  # noqa: E402
import pygame  # noqa: E402

from soccerbt.gamecontroller.referee_common import RefereeConfig  # noqa: E402
from soccerbt.groot.robots import close_all, serve_match  # noqa: E402
from soccerbt.match import Match, MatchConfig  # noqa: E402
from soccerbt.tools.view_cli import node_namer  # noqa: E402
from soccerbt.tools.viewer.match_source import MatchSceneSource  # noqa: E402
from soccerbt.tools.viewer.stepping import BreakpointPause  # noqa: E402
from soccerbt.tools.viewer.viewer import Viewer  # noqa: E402

FAST = RefereeConfig(players_per_team=3, initial_s=0.2, ready_s=1.0, set_s=0.5)


class FakeClock:
    def __init__(self) -> None:
        self.s = 0.0

    def __call__(self) -> float:
        return self.s


def test_the_window_keeps_drawing_while_a_breakpoint_waits(port) -> None:
    pygame.display.init()
    pygame.font.init()
    match = Match(MatchConfig(referee=FAST, duration_s=2.0, idle_teams=("red",)))
    pause = BreakpointPause(node_namer(match))
    publishers, endpoints = serve_match(match, "127.0.0.1", port, on_breakpoint=pause)
    client = spec.Client(endpoints[1].port)                 # blue2
    clock = FakeClock()
    viewer = Viewer(MatchSceneSource(match), clock=clock)
    viewer.use_step_worker(pause, lambda: [p.interrupt() for p in publishers])
    surface = pygame.Surface(viewer.size_px)
    blue2 = match.agent("blue2")
    try:
        viewer.frame(surface)
        clock.s += 0.05
        assert viewer.frame(surface) == 5 and match.steps == 5  # stepping as usual, in the worker
        root = blue2.tree.root.uid
        client.json_request(spec.HOOK_INSERT, spec.hook(root))
        clock.s += 0.05
        viewer.frame(surface)                                    # the step reaches the breakpoint
        assert viewer.waiting_at_breakpoint and pause.waiting == ("blue2", root, blue2.tree.root.name)
        steps, frames = match.steps, viewer.frames
        for _ in range(5):                                       # the window lives on, the match waits
            clock.s += 0.05
            assert viewer.frame(surface) == 0
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_TAB, mod=0, unicode="\t"))
            for event in pygame.event.get():
                assert viewer.handle_event(event)
        assert viewer.frames == frames + 5 and match.steps == steps
        assert viewer.state.selected is not None                 # TAB was handled while paused
        assert viewer.pause_band is not None
        assert pause.band_text().startswith(f"blue2 paused at a Groot2 breakpoint on #{root} ")
        client.json_request(spec.BREAKPOINT_UNLOCK, {"uid": root, "position": 0, "desired_status": "SKIPPED",
                                                     "remove_when_done": True})
        clock.s += 0.05
        ran = viewer.frame(surface)                              # the waiting step ends, the match goes on
        assert ran >= 1 and match.steps > steps
        assert not viewer.waiting_at_breakpoint and pause.waiting is None and viewer.pause_band is None
    finally:
        viewer.finish_steps()
        client.close()
        close_all(publishers)


def test_quitting_lets_a_waiting_breakpoint_go(port) -> None:
    pygame.display.init()
    pygame.font.init()
    match = Match(MatchConfig(referee=FAST, duration_s=2.0, idle_teams=("red",)))
    pause = BreakpointPause(node_namer(match))
    publishers, endpoints = serve_match(match, "127.0.0.1", port, on_breakpoint=pause)
    client = spec.Client(endpoints[0].port)
    clock = FakeClock()
    viewer = Viewer(MatchSceneSource(match), clock=clock)
    viewer.use_step_worker(pause, lambda: [p.interrupt() for p in publishers])
    surface = pygame.Surface(viewer.size_px)
    try:
        viewer.frame(surface)                                     # the first frame runs no step
        client.json_request(spec.HOOK_INSERT, spec.hook(match.agent("blue1").tree.root.uid))
        clock.s += 0.05
        assert viewer.frame(surface) == 0
        assert viewer.waiting_at_breakpoint
        viewer.finish_steps()                                     # the window closes: the tick goes on
        assert viewer.worker is None and match.steps == 1  # the waiting step ended
    finally:
        client.close()
        close_all(publishers)
