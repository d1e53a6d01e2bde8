"""The MCAP replay window: the whole-tree panel (pixels), the scene source, the screenshot."""
from __future__ import annotations

import copy
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from soccerbt.tools.mcap_reader import McapLog  # noqa: E402
from soccerbt.tools.mcap_view import McapReplaySource, McapViewer, save_mcap_screenshot  # noqa: E402
from soccerbt.tools.tree_panel import STATUS_COLOURS_BY_CODE, TreePanel  # noqa: E402

PANEL = pygame.Rect(0, 0, 420, 700)


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> McapLog:
    from soccerbt.match import Match, MatchConfig
    from soccerbt.tools.mcap_recorder import make_recorder

    path = tmp_path_factory.mktemp("mcap") / "r.mcap"
    m = Match(MatchConfig(seed=1, duration_s=6))
    rec = make_recorder(path, m)
    m.run(6.0)
    rec.finish(m.result())
    pygame.display.init()
    pygame.font.init()
    return McapLog.open(path)


def _box_colour(surface: pygame.Surface, panel: TreePanel, uid: int) -> tuple[int, int, int]:
    """The colour of the status box of ``uid``'s row (found through row_at)."""
    h = panel.row_height_px
    for y in range(PANEL.top + h, PANEL.top + int(PANEL.height * panel.tree_fraction), h):
        if panel.row_at(y) == uid:
            depth = dict(panel.shape(state_of(panel).tree).order)[uid]
            x = PANEL.left + 4 + depth * 12 + 4
            return tuple(surface.get_at((x, y + h // 2)))[:3]
    raise AssertionError(f"no row for uid {uid}")


def state_of(panel: TreePanel):  # the state last drawn (tests keep it on the panel)
    return panel._test_state


def _draw(panel: TreePanel, state) -> pygame.Surface:
    surface = pygame.Surface((PANEL.width, PANEL.height))
    panel._test_state = state
    panel.draw(surface, PANEL, state)
    return surface


def test_running_and_success_rows_have_their_colours(log: McapLog) -> None:
    state = copy.deepcopy(log.robot_state("blue2", 450))
    success = next(uid for uid, code in state.last_transition.items() if code == 2 and uid not in state.skipped)
    running = 64  # a SubTree node that is open (it was ticked): force it RUNNING
    state.statuses[running] = 1
    state.last_transition.pop(running, None)
    panel = TreePanel()
    surface = _draw(panel, state)
    assert _box_colour(surface, panel, running) == STATUS_COLOURS_BY_CODE[1]
    assert _box_colour(surface, panel, success) == STATUS_COLOURS_BY_CODE[2]


def test_collapsed_subtree_hides_children(log: McapLog) -> None:
    state = log.robot_state("blue2", 450)
    panel = TreePanel()
    open_rows = panel.visible_rows(state)
    uid = 64  # Localize, open by default (ticked inside)
    assert uid not in panel.collapsed(state)
    panel.toggle(uid, state)
    assert uid in panel.collapsed(state)
    folded_rows = panel.visible_rows(state)
    assert len(folded_rows) < len(open_rows)
    assert 65 not in [u for u, _d in folded_rows] and 64 in [u for u, _d in folded_rows]
    panel.toggle(uid, state)
    assert panel.visible_rows(state) == open_rows


def test_scrolling_shifts_rows(log: McapLog) -> None:
    state = log.robot_state("blue2", 450)
    panel = TreePanel()
    panel.opened.update(panel.shape(state.tree).subtrees)  # everything open: more rows than fit
    _draw(panel, state)
    y = PANEL.top + panel.row_height_px * 3 + 2
    before = [panel.row_at(y + i * panel.row_height_px) for i in range(3)]
    panel.scroll(2)
    _draw(panel, state)
    assert panel.offset == 2
    assert panel.row_at(y) == before[2]
    panel.scroll(-10_000)
    _draw(panel, state)
    assert panel.offset == 0 and panel.row_at(y) == before[0]


def test_click_selects_row(log: McapLog) -> None:
    state = log.robot_state("blue2", 450)
    panel = TreePanel()
    _draw(panel, state)
    y = PANEL.top + panel.row_height_px * 2 + 3
    uid = panel.row_at(y)
    assert panel.click(300, y, state) == uid and panel.selected == uid


def test_screenshot_png_size(log: McapLog, tmp_path) -> None:
    out = save_mcap_screenshot(log, tmp_path / "shot.png", at_s=4.5, select="blue2")
    image = pygame.image.load(str(out))
    assert image.get_size() == McapViewer(McapReplaySource(log)).size_px


def test_stepping_matches_robot_state(log: McapLog) -> None:
    source = McapReplaySource(log)
    source.seek(250)
    source.robot_state("red1")
    for _ in range(60):  # crosses a keyframe (every 100 steps)
        source.step()
    assert source.position == 310
    stepped = source.robot_state("red1")
    rebuilt = log.robot_state("red1", 310)
    assert stepped.statuses == rebuilt.statuses
    assert stepped.blackboard == rebuilt.blackboard
    assert stepped.ticked == rebuilt.ticked


def test_scene_and_searches(log: McapLog) -> None:
    source = McapReplaySource(log)
    source.seek(450)
    scene = source.scene("blue2")
    assert len(scene.robots) == len(log.robots) and scene.banner.state == "READY"
    blue2 = scene.robot("blue2")
    assert blue2.estimate is not None and abs(blue2.estimate.x_m - blue2.pose.x_m) < 1.0
    red1 = scene.robot("red1")  # red attacks -x: its team-frame estimate comes back mirrored
    assert red1.estimate is not None and abs(red1.estimate.x_m - red1.pose.x_m) < 1.0
    assert source.find_event(forward=False) == 200
    found = source.find_transition("blue2", 64, forward=True)
    assert found is not None and found > 450
    back = source.find_transition("blue2", 64, forward=False)
    assert back is not None and back < 450
