"""Both windows lay out from their size: at 1280x720, 1600x1000 and 1920x1080 the banner, the
timeline and the whole tree panel are inside the window (pixels), a window opens no larger than
the desktop, and a resize lays it out again. The pictures are saved for people to look at."""
from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from soccerbt.log.reader import McapLog
from soccerbt.log.writer import make_recorder
from soccerbt.match import Match, MatchConfig
from soccerbt.tools.replay.mcap_view import McapReplaySource, McapViewer
from soccerbt.tools.viewer.match_source import MatchSceneSource
from soccerbt.tools.viewer.render import PANEL_BG
from soccerbt.tools.viewer.viewer import MIN_WINDOW_PX, Viewer, fit_to_desktop

SIZES = [(1280, 720), (1600, 1000), (1920, 1080)]


@pytest.fixture(scope="module")
def match_and_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Match, Path]:
    pygame.display.init()
    pygame.font.init()
    out = tmp_path_factory.mktemp("layout") / "run.mcap"
    match = Match(MatchConfig(seed=2, duration_s=0.2, team_size=2))
    recorder = make_recorder(out, match)
    match.run(0.2)
    recorder.finish(match.result())
    return match, out


def _lit(surface: pygame.Surface, rect: pygame.Rect, background: tuple[int, int, int]) -> int:
    """How many pixels of ``rect`` differ from ``background`` (text and drawings)."""
    count = 0
    for x in range(rect.left, rect.right, 2):
        for y in range(rect.top, rect.bottom, 2):
            if tuple(surface.get_at((x, y)))[:3] != background:
                count += 1
    return count


@pytest.mark.parametrize("size", SIZES)
def test_the_replay_window_fits_its_size(match_and_log: tuple[Match, Path], size: tuple[int, int],
                                         tmp_path: Path) -> None:
    log = McapLog.open(match_and_log[1])
    viewer = McapViewer(McapReplaySource(log))
    viewer.layout(size)
    viewer.state.selected = "blue1"
    path = viewer.screenshot(tmp_path / f"replay-{size[0]}x{size[1]}.png")
    image = pygame.image.load(str(path))
    w, h = size
    assert image.get_size() == size and viewer.size_px == size
    panel, timeline = viewer.panel_rect, viewer.timeline_rect
    assert panel.right == w and panel.width >= 380 and timeline.bottom == h and timeline.right == panel.left
    banner = pygame.Rect(0, 0, panel.left, viewer.renderer.banner_height_px)
    # the banner's text (score, state, clock) is drawn, and it ends inside the field's width
    assert _lit(image, pygame.Rect(8, 4, 120, banner.height - 8), PANEL_BG) > 20
    assert _lit(image, pygame.Rect(panel.left - 6, 2, 4, banner.height - 4), PANEL_BG) == 0
    assert _lit(image, timeline, PANEL_BG) > 50  # the timeline's bar and cursor
    assert _lit(image, pygame.Rect(panel.left, 0, panel.width, 40), PANEL_BG) > 50  # the tree's first rows
    # the field (outer lines included) lies between the banner and the timeline
    f = viewer.replay.field
    left, top = viewer.renderer.to_px(-f.half_length_m, f.half_width_m)
    right, bottom = viewer.renderer.to_px(f.half_length_m, -f.half_width_m)
    assert 0 <= left < right < panel.left and banner.bottom <= top < bottom < timeline.top


@pytest.mark.parametrize("size", SIZES)
def test_the_live_window_fits_its_size(match_and_log: tuple[Match, Path], size: tuple[int, int],
                                       tmp_path: Path) -> None:
    viewer = Viewer(MatchSceneSource(match_and_log[0]))
    viewer.layout(size)
    viewer.state.selected = "blue1"
    path = viewer.screenshot(tmp_path / f"live-{size[0]}x{size[1]}.png")
    image = pygame.image.load(str(path))
    w, h = size
    assert image.get_size() == size
    field_w = w - viewer.panel_width_px
    assert _lit(image, pygame.Rect(8, 4, 120, viewer.renderer.banner_height_px - 8), PANEL_BG) > 20
    assert _lit(image, pygame.Rect(field_w + 4, 4, viewer.panel_width_px - 8, 30), PANEL_BG) > 20  # the panel's title
    f = viewer.source.field   # the field's corners are inside the field's area
    x0, y0 = viewer.renderer.to_px(-f.half_length_m, f.half_width_m)
    x1, y1 = viewer.renderer.to_px(f.half_length_m, -f.half_width_m)
    assert 0 <= x0 < x1 < field_w and viewer.renderer.banner_height_px <= y0 < y1 < h


def test_a_window_opens_within_the_desktop_and_follows_a_resize(match_and_log: tuple[Match, Path],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pygame.display, "get_desktop_sizes", lambda: [(1280, 720)])
    assert fit_to_desktop((1480, 820)) == (1264, 648)
    assert fit_to_desktop((640, 400)) == MIN_WINDOW_PX  # never laid out smaller than the minimum
    viewer = McapViewer(McapReplaySource(McapLog.open(match_and_log[1])))
    screen = viewer.open_window("test")
    try:
        assert screen.get_size() == viewer.size_px == (1264, 648)
        assert viewer.handle_event(pygame.event.Event(pygame.VIDEORESIZE, w=1600, h=1000, size=(1600, 1000)))
        assert viewer.size_px == (1600, 1000) and viewer.panel_rect.right == 1600
        assert viewer._screen.get_size() == (1600, 1000)
    finally:
        pygame.display.quit()
        pygame.display.init()


def test_penalised_fallen_and_driven_robots_are_marked(match_and_log: tuple[Match, Path], tmp_path: Path) -> None:
    from soccerbt.tools.viewer.render import CONTROL, FALLEN, PENALISED

    viewer = Viewer(MatchSceneSource(match_and_log[0]))
    viewer.layout((1280, 720))
    scene = viewer.source.scene(None)
    benched, fallen, driven = scene.robots[0], scene.robots[1], scene.robots[2]
    benched.removed = benched.penalised = True
    fallen.fallen = True
    driven.control = "manual"
    surface = pygame.Surface(viewer.size_px)
    viewer.renderer.draw(surface, scene, selected=None)
    pygame.image.save(surface, str(tmp_path / "marks.png"))
    r = viewer.renderer
    bx, by = r.to_px(*r.bench_position(benched))
    assert by > r.to_px(0.0, -r.field.half_width_m)[1]  # beside the field, below the touch line
    near = {tuple(surface.get_at((bx + dx, by + dy)))[:3] for dx in range(-12, 13) for dy in range(-12, 13)}
    assert PENALISED in near
    assert tuple(surface.get_at(r.to_px(fallen.pose.x_m + 0.12, fallen.pose.y_m + 0.12)))[:3] == FALLEN
    dx, dy = r.to_px(driven.pose.x_m, driven.pose.y_m)
    ring = r._m(0.25) + 8
    assert CONTROL in {tuple(surface.get_at((dx + ring, dy + k)))[:3] for k in range(-2, 3)}
    legend = r.legend_rect()
    words = {tuple(surface.get_at((x, y)))[:3] for x in range(legend.left, legend.right, 2)
             for y in range(legend.top, legend.bottom, 2)}
    assert FALLEN in words and PENALISED in words and CONTROL in words  # the legend's three marks
