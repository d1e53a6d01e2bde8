"""The MCAP replay window: the whole-tree panel (pixels), the scene source, the screenshot."""
from __future__ import annotations

import copy
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from soccerbt.log.reader import McapLog  # noqa: E402
from soccerbt.tools.replay.mcap_view import McapReplaySource, McapViewer, save_mcap_screenshot  # noqa: E402
from soccerbt.tools.viewer.tree_panel import STATUS_COLOURS_BY_CODE, TreePanel  # noqa: E402

PANEL = pygame.Rect(0, 0, 420, 700)


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> McapLog:
    from soccerbt.log.writer import make_recorder
    from soccerbt.match import Match, MatchConfig

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
    opened_at = panel.offset  # a tree opens at its running branch: its deepest running node shows
    leaf = panel.running_leaf(state)
    assert leaf in panel._rows and opened_at > 0
    panel.scroll(-10_000)
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
    # node 64 returns SUCCESS and is reset in every tick from 2 s to the end: N finds no change of
    # its result after 4.5 s, SHIFT+N the tick it began
    assert source.find_transition("blue2", 64, forward=True) is None
    assert source.find_transition("blue2", 64, forward=False) == 200
    source.seek(100)
    assert source.find_transition("blue2", 64, forward=True) == 200


# --- search and key history, driven through the viewer's event dispatch ----------------------


def _press(viewer: McapViewer, key: int, char: str = "", mod: int = 0) -> bool:
    return viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode=char))


def _search(viewer: McapViewer, text: str) -> None:
    """/ TEXT RETURN, one KEYDOWN per character (as a keyboard sends them)."""
    _press(viewer, pygame.K_SLASH, "/")
    for ch in text:
        _press(viewer, ord(ch.lower()), ch)
    _press(viewer, pygame.K_RETURN, "\r")


def _viewer_at(log: McapLog, step: int) -> tuple[McapViewer, pygame.Surface]:
    viewer = McapViewer(McapReplaySource(log))
    viewer.replay.seek(step)
    viewer.state.selected = "blue2"
    viewer.pacer.paused = True
    surface = pygame.Surface(viewer.size_px)
    viewer.render(surface)
    return viewer, surface


def _row_shown(viewer: McapViewer, uid: int) -> bool:
    r = viewer.tree_panel_rect
    return any(viewer.panel.row_at(y) == uid for y in range(r.top, r.bottom))


def test_node_search_selects_and_reveals(log: McapLog) -> None:
    viewer, surface = _viewer_at(log, 450)
    state = viewer.replay.robot_state("blue2")
    expected = [n["uid"] for n in state.tree["nodes"]
                if any("supportpos" in str(n.get(k, "")).lower() for k in ("name", "id", "path"))]
    assert expected and expected[0] not in [u for u, _d in viewer.panel.visible_rows(state)]  # folded at first
    _search(viewer, "SupportPos")
    viewer.render(surface)
    assert viewer.panel.selected == expected[0]
    assert _row_shown(viewer, expected[0])
    assert not viewer.search.error and not viewer.search.editing
    # several matches: RETURN again goes on to the next one, revealed too
    heads = [n["uid"] for n in state.tree["nodes"] if "headcontrol" in n["name"].lower()]
    _search(viewer, "headcontrol")
    viewer.render(surface)
    assert viewer.panel.selected == heads[0] and _row_shown(viewer, heads[0])
    _press(viewer, pygame.K_RETURN, "\r")
    viewer.render(surface)
    assert viewer.panel.selected == heads[1] and _row_shown(viewer, heads[1])
    assert viewer.replay.position == 450  # a node search does not move the replay


def test_condition_search_gives_find_ranges_and_jumps(log: McapLog) -> None:
    from soccerbt.tools.replay.mcap_view import _RANGE_BAND
    from soccerbt.tools.replay.tree_tools import find_ranges

    condition = "blue2: ball_distance_m < 4.0"  # three ranges in this log (its approach wavers)
    expected = find_ranges(log, condition)
    viewer, surface = _viewer_at(log, 450)
    _search(viewer, condition)
    assert viewer.search.ranges == expected and len(expected) >= 2 and not viewer.search.error
    first = next(r for r in expected if log.step_at(r[1]) >= 450)
    position = viewer.replay.position
    assert log.step_at(first[0]) <= position <= log.step_at(first[1])
    assert first[2] <= log.step_view(position).ticks["blue2"].tick <= first[3]
    _press(viewer, pygame.K_HOME)  # the position's marker away from the band
    viewer.render(surface)
    r = viewer.timeline_rect
    band_x = viewer._x_of(log.step_at(first[0]))
    assert tuple(surface.get_at((band_x, r.top + 7)))[:3] == _RANGE_BAND
    viewer.replay.seek(position)
    _press(viewer, pygame.K_m, "m")  # the next range
    second = expected[expected.index(first) + 1]
    assert viewer.replay.position == log.step_at(second[0])
    _press(viewer, pygame.K_m, "M", pygame.KMOD_SHIFT)  # back to the previous one
    assert viewer.replay.position == log.step_at(first[0])


def test_bad_condition_shows_error_and_viewer_keeps_working(log: McapLog) -> None:
    viewer, surface = _viewer_at(log, 450)
    for bad in ("blue2: decision == == 'kick'", "nobody: decision == 'kick'", "blue2: decison == 'kick'"):
        _search(viewer, bad)
        assert viewer.search.error and viewer.search.note.startswith("error")
        assert viewer.search.note.strip() != "error: ^"  # what is wrong, not the caret under it
        assert viewer.search.visible and not viewer.search.editing
        viewer.render(surface)  # the error is drawn, nothing raised
        assert viewer.replay.position == 450 and not viewer.search.range_steps
    assert _press(viewer, pygame.K_RIGHT)  # the replay's keys work again
    assert viewer.replay.position == 451
    assert _press(viewer, pygame.K_ESCAPE)  # ESC first closes the search ...
    assert not viewer.search.visible
    _search(viewer, "supportpos")  # ... and searching still works
    assert viewer.panel.selected is not None and not viewer.search.error
    _press(viewer, pygame.K_ESCAPE)
    assert not _press(viewer, pygame.K_ESCAPE)  # nothing left to close: ESC quits


def _expected_history(log: McapLog, robot: str, key: str, step: int, limit: int = 12) -> list[tuple]:
    """The last changes of ``key`` up to ``step`` (30 s back), newest first, from the TickRecords."""
    changes = [(view.step, view.truth.t_s, *view.ticks[robot].blackboard[key])
               for view in log.steps(max(1, step - 2999), step) if key in view.ticks[robot].blackboard]
    return changes[-limit:][::-1]


def test_key_history_matches_the_log(log: McapLog) -> None:
    viewer, surface = _viewer_at(log, 450)
    key = "ball_distance_m"
    y = next(y for y in range(viewer.size_px[1]) if viewer.panel.key_at(y) == key)
    x = viewer.panel_rect.left + 40
    viewer.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=(x, y + 2)))
    assert viewer.panel.history_key == key
    viewer.render(surface)
    for _ in range(2):  # at 450, then stepped on (the history follows the step by step)
        step = viewer.replay.position
        history = viewer.replay.key_history("blue2", key)
        expected = _expected_history(log, "blue2", key, step)
        assert len(history) == 12
        assert [(s, v, w) for s, _t, v, w in history] == [(s, v, w) for s, _t, v, w in expected]
        assert all(abs(t - te) < 1e-6 for (_s, t, _v, _w), (_se, te, _ve, _we) in zip(history, expected, strict=False))
        for _ in range(3):
            _press(viewer, pygame.K_RIGHT)
            viewer.render(surface)
    assert viewer.panel.key_at(y) is not None  # the list still shows rows beside the history
    y = next(y for y in range(viewer.size_px[1]) if viewer.panel.key_at(y) == key)  # the row stays in view
    viewer.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=(x, y + 2)))
    assert viewer.panel.history_key is None  # the same row again: off
    viewer.render(surface)
    y = next(y for y in range(viewer.size_px[1]) if viewer.panel.key_at(y) == key)
    viewer.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=(x, y + 2)))
    assert viewer.panel.history_key == key
    assert _press(viewer, pygame.K_ESCAPE)  # ESC clears the history, does not quit
    assert viewer.panel.history_key is None


def test_screenshot_with_search_and_history(log: McapLog, tmp_path) -> None:
    viewer, surface = _viewer_at(log, 450)
    _search(viewer, "blue2: ball_distance_m < 3.0")
    viewer.panel.history_key = "ball_distance_m"
    out = viewer.screenshot(tmp_path / "search.png")
    assert pygame.image.load(str(out)).get_size() == viewer.size_px


def test_sides_follow_the_halves_extra_time_and_every_shoot_out_shot() -> None:
    from soccerbt.tools.replay.truth import side_changes as _side_changes

    events = [{"kind": "goal", "detail": "blue 1:0", "step": 50, "team": "blue"},
              {"kind": "half", "detail": "second", "step": 100},
              {"kind": "half", "detail": "extra time, first", "step": 200},
              {"kind": "half", "detail": "second", "step": 300},
              {"kind": "shot", "detail": "red shot 1", "step": 400, "team": "red"},
              {"kind": "shot", "detail": "blue shot 1", "step": 500, "team": "blue"}]
    assert _side_changes(events, True) == ([100, 200, 300, 400, 500], [False, True, False, False, True])
    assert _side_changes(events, False)[1] == [True, False, True, False, True]
    assert _side_changes([], True) == ([], [])


def test_keys_say_what_they_did_and_the_timeline_names_its_marks(log: McapLog) -> None:
    viewer, surface = _viewer_at(log, 150)
    _press(viewer, pygame.K_e, "e")
    assert viewer.replay.position == 200 and viewer.toasts[-1][0].text.startswith("event: t=2.00s state READY")
    _press(viewer, pygame.K_b, "b")
    assert "bookmark added at t=2.00s (step 200)" in viewer.toasts[-1][0].text
    _press(viewer, pygame.K_b, "b")
    assert viewer.toasts[-1][0].text.startswith("already bookmarked")
    labels = viewer.timeline_labels(viewer._x_of(200))
    assert any(t.startswith("t=2.00s state READY") for t in labels) and "t=2.00s bookmark" in labels
    viewer.hover = (viewer._x_of(200), viewer.timeline_rect.centery)
    _press(viewer, pygame.K_h, "h")
    assert viewer.show_help
    viewer.render(surface)  # the help box and the hover labels draw without error
    _press(viewer, pygame.K_SLASH, "?", pygame.KMOD_SHIFT)  # ? (SHIFT+/): the help again, not the search
    assert not viewer.show_help and not viewer.search.visible
