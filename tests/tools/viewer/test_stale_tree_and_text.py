"""Issue 40: a tree that did not hot-reload stays marked until a good version loads (the toast
fades, the mark does not), the whole error opens on T or a click; the text grows with the window
(1.5 times at 1080 rows); long node names lose their middle, never their ``#uid``."""
from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from soccerbt.match import Match, MatchConfig  # noqa: E402
from soccerbt.tools.viewer.match_source import MatchSceneSource  # noqa: E402
from soccerbt.tools.viewer.render import elide_middle, ui_scale, wrap_text  # noqa: E402
from soccerbt.tools.viewer.tree_panel import TreePanel  # noqa: E402
from soccerbt.tools.viewer.viewer import LIVE_KEYS, Viewer  # noqa: E402

GOOD = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="top"><Script code="marker := {n}"/></Sequence>
  </BehaviorTree>
</root>
"""
BROKEN = GOOD.replace("<Sequence", "<NoSuchNodeAnywhere").replace("</Sequence>", "</NoSuchNodeAnywhere>")


class FakeClock:
    """Monotonic seconds, moved by hand: toasts age without the test waiting."""

    def __init__(self) -> None:
        self.now_s = 100.0

    def __call__(self) -> float:
        return self.now_s


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.display.init()
    pygame.font.init()


def _write(path: Path, text: str) -> None:
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text)
    if path.stat().st_mtime_ns == before:  # a coarse clock: make the change visible to the reload check
        os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


def test_a_failed_reload_stays_marked_after_the_toast_and_goes_when_a_good_version_loads(tmp_path: Path) -> None:
    tree = tmp_path / "mine.xml"
    _write(tree, GOOD.format(n=1))
    match = Match(MatchConfig(seed=1, team_size=1, particles=50, blue_tree=str(tree), idle_teams=("red",)))
    clock = FakeClock()
    viewer = Viewer(MatchSceneSource(match), size_px=(1280, 720), clock=clock)
    surface = pygame.Surface(viewer.size_px)
    viewer.render(surface)
    assert viewer.stale_rects == []

    _write(tree, BROKEN + "<!-- " + "a very long comment that makes nothing shorter " * 4 + "-->")
    match.agent("blue1").reload_tree_if_changed()
    scene = viewer.render(surface)
    (stale,) = scene.stale_trees
    assert stale.robots == ("blue1",) and stale.file == str(tree) and "NoSuchNodeAnywhere" in stale.error
    assert len(viewer.stale_rects) == 1
    assert any("tree reload failed" in notice.text for notice, _born in viewer.toasts)

    clock.now_s += 9.0  # an error's toast lasts 8 s
    for _ in range(3):
        match.step()
    scene = viewer.render(surface)
    assert viewer.toasts == []  # the toast has faded ...
    assert [t.file for t in scene.stale_trees] == [str(tree)] and len(viewer.stale_rects) == 1  # ... the mark stays
    band = viewer.stale_rects[0]
    assert tuple(surface.get_at((band.left + 2, band.top + 2)))[:3] == (165, 25, 25)  # a red band
    assert "STALE TREE: blue1" in stale.headline() and str(tree) in stale.headline()

    # the whole error on a click on the mark (and T), wrapped, not cut
    viewer.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=band.center))
    assert viewer.state.show_tree_error
    viewer.render(surface)
    viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_t, mod=0, unicode="t"))
    assert not viewer.state.show_tree_error
    viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_t, mod=0, unicode="t"))
    assert viewer.state.show_tree_error

    _write(tree, GOOD.format(n=2))  # fixed: the good version loads, the mark goes
    result = match.agent("blue1").reload_tree_if_changed()
    assert result is not None and result.reloaded
    scene = viewer.render(surface)
    assert scene.stale_trees == [] and viewer.stale_rects == [] and not viewer.state.show_tree_error
    assert any(key.startswith("T,") for key, _what in LIVE_KEYS)  # the help names the key


def test_the_text_scales_with_the_window_height() -> None:
    source = MatchSceneSource(Match(MatchConfig(seed=2, team_size=1, particles=50, idle_teams=("red",))))
    small = Viewer(source, size_px=(1280, 720))
    large = Viewer(source, size_px=(1920, 1080))
    assert (ui_scale(720), ui_scale(1080), ui_scale(480)) == (1.0, 1.5, 1.0)
    assert (small.renderer.scale, large.renderer.scale) == (1.0, 1.5)
    glyph_720 = small.renderer.font(small=True).size("H")[1]
    glyph_1080 = large.renderer.font(small=True).size("H")[1]
    assert 10 <= glyph_720 <= 13  # about 11 px at 720 rows
    assert glyph_1080 >= 1.4 * glyph_720  # and half as tall again at 1080
    assert large.renderer.banner_height_px == 51 and small.renderer.banner_height_px == 34
    panel = TreePanel(scale=ui_scale(1080))
    assert panel.row_height_px == 22 and panel.font.get_linesize() <= panel.row_height_px + 2


def _state(names: list[str]) -> SimpleNamespace:
    nodes = [{"uid": i, "parent": i - 1, "name": name, "id": name if i % 2 else "SubTree", "kind": "Action",
              "path": "/".join(names[:i])} for i, name in enumerate(names, start=1)]
    return SimpleNamespace(robot="blue1", step=5, tick=5, tree={"nodes": nodes}, statuses={u: 1 for u in range(1, 5)},
                           last_transition={}, ticked=[1, 2, 3, 4], skipped=[], reasons={}, blackboard={}, changed=[])


def test_long_booster_names_lose_their_middle_not_their_uid() -> None:
    panel = TreePanel()
    names = ["BehaviorTree", "StrikerDecideAndThenCamTrackBallWithAVeryLongBoosterSubtreeName",
             "game/striker_play/CamTrackBall::12/StrikerDecide::14/AdjustDirectionBeforeTheKick",
             "CamTrackBall"]
    width_px = 260
    for uid, name in enumerate(names, start=1):
        text = panel._row_text(name, uid, "SubTree", width_px)
        assert panel.font.size(text)[0] <= width_px  # nothing runs off the panel
        assert text.endswith(f" #{uid}") or f" #{uid}  " in text  # the uid always shows
    long = panel._row_text(names[2], 3, "SubTree", width_px)
    assert "..." in long and long.startswith("game/") and long.endswith("Kick #3")
    assert panel._row_text("CamTrackBall", 4, "CamTrackBall", width_px) == "CamTrackBall #4"  # short: unchanged
    font = panel.font
    assert elide_middle("StrikerDecide", font, 1000) == "StrikerDecide"
    cut = elide_middle(names[1], font, 120)
    assert font.size(cut)[0] <= 120 and cut.startswith("Str") and cut.endswith("Name")
    lines = wrap_text("error: " + names[2] * 3, font, 200)  # a long path wraps, every character kept
    assert all(font.size(line)[0] <= 200 for line in lines)
    assert "".join(line.strip() for line in lines).replace(" ", "") == ("error:" + names[2] * 3)
    # drawn into a narrow panel: every row's text fits between its indent and the panel's edge
    surface = pygame.Surface((width_px, 300))
    panel.draw(surface, pygame.Rect(0, 0, width_px, 300), _state(names))
    assert panel._rows == [1, 2, 3, 4]
