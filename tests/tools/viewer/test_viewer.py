"""Viewer tests: pixels where things are, selection and clicks, ball dragging, pacing."""
from __future__ import annotations

import math

import numpy as np
import pygame
import pytest

from soccerbt.tools.viewer.render import ALL_LAYERS, BALL, SELECTED, TEAM_COLOURS, FieldRenderer
from soccerbt.tools.viewer.scene import Banner, Scene, SceneRobot
from soccerbt.tools.viewer.viewer import Pacer, Viewer
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, Team


class FakeSource:
    """A scene source whose robots stand still; records what the viewer asks of it."""

    def __init__(self) -> None:
        self.field = Field.adult_size()
        self.dt_s = 0.01
        self.t_s = 0.0
        self.steps = 0
        self.ball = (1.0, -0.5)
        self.sent: list[tuple[str, float, float]] = []
        self.robots = [
            SceneRobot("blue1", Team.BLUE, 1, Pose2D(-2.0, 1.0, 0.0), role="striker",
                       particles=np.tile([-2.0, 1.0, 0.0], (50, 1))),
            SceneRobot("red1", Team.RED, 1, Pose2D(3.0, -1.0, math.pi), role="goal_keeper"),
        ]

    def step(self) -> None:
        self.steps += 1
        self.t_s += self.dt_s

    def scene(self, selected: str | None) -> Scene:
        return Scene(self.field, self.t_s, self.ball, self.robots, Banner(state="PLAYING"))

    def place_ball(self, x_m: float, y_m: float) -> None:
        self.ball = (x_m, y_m)

    def send_robot_to(self, key: str, x_m: float, y_m: float) -> None:
        self.sent.append((key, x_m, y_m))

    def finished(self) -> bool:
        return False


@pytest.fixture
def viewer() -> Viewer:
    pygame.display.init()
    pygame.font.init()
    return Viewer(FakeSource(), size_px=(1100, 700))


def _pixel(surface: pygame.Surface, renderer: FieldRenderer, x_m: float, y_m: float) -> tuple[int, int, int]:
    return tuple(surface.get_at(renderer.to_px(x_m, y_m)))[:3]


def test_ball_is_drawn_in_ball_colour_where_the_ball_is(viewer: Viewer) -> None:
    surface = pygame.Surface(viewer.size_px)
    viewer.render(surface)
    assert _pixel(surface, viewer.renderer, 1.0, -0.5) == BALL
    # and not elsewhere: a point 2 m away is grass-coloured, not orange
    assert _pixel(surface, viewer.renderer, 1.0, 1.5) != BALL


def test_robot_body_has_its_team_colour(viewer: Viewer) -> None:
    surface = pygame.Surface(viewer.size_px)
    viewer.render(surface)
    # a point inside the body, off the heading line and the number
    assert _pixel(surface, viewer.renderer, 3.0, -1.0 + 0.17) == TEAM_COLOURS[Team.RED]


def test_selected_robot_is_highlighted(viewer: Viewer) -> None:
    surface = pygame.Surface(viewer.size_px)
    viewer.render(surface)
    x_px, y_px = viewer.renderer.to_px(-2.0, 1.0)
    ring_px = viewer.renderer._m(0.25) + 4
    assert tuple(surface.get_at((x_px, y_px - ring_px)))[:3] != SELECTED
    viewer.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=(x_px, y_px)))
    assert viewer.state.selected == "blue1"
    viewer.render(surface)
    assert tuple(surface.get_at((x_px, y_px - ring_px)))[:3] == SELECTED


def test_click_on_field_sends_the_selected_robot_there(viewer: Viewer) -> None:
    surface = pygame.Surface(viewer.size_px)
    viewer.render(surface)
    viewer.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=viewer.renderer.to_px(3.0, -1.0)))
    assert viewer.state.selected == "red1"
    target_px = viewer.renderer.to_px(-4.0, 2.0)
    viewer.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=target_px))
    (key, x_m, y_m), = viewer.source.sent
    assert key == "red1"
    assert x_m == pytest.approx(-4.0, abs=0.05) and y_m == pytest.approx(2.0, abs=0.05)


def test_dragging_the_ball_places_it(viewer: Viewer) -> None:
    surface = pygame.Surface(viewer.size_px)
    viewer.render(surface)
    viewer.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=viewer.renderer.to_px(1.0, -0.5)))
    assert viewer.state.dragging_ball
    viewer.handle_event(
        pygame.event.Event(pygame.MOUSEMOTION, pos=viewer.renderer.to_px(2.0, 0.0), rel=(0, 0), buttons=(1, 0, 0))
    )
    viewer.handle_event(pygame.event.Event(pygame.MOUSEBUTTONUP, button=1, pos=viewer.renderer.to_px(2.5, 0.5)))
    assert not viewer.state.dragging_ball
    assert viewer.source.ball == pytest.approx((2.5, 0.5), abs=0.05)
    assert viewer.source.sent == []  # dragging the ball is not a click-to-go


def test_particles_layer_draws_dots_only_when_on(viewer: Viewer) -> None:
    surface = pygame.Surface(viewer.size_px)
    viewer.source.robots[0].particles = np.tile([-5.0, -3.0, 0.0], (20, 1))
    viewer.render(surface)
    assert _pixel(surface, viewer.renderer, -5.0, -3.0) != (120, 170, 255)
    viewer.state.layers = set(ALL_LAYERS)
    viewer.render(surface)
    assert _pixel(surface, viewer.renderer, -5.0, -3.0) == (120, 170, 255)


def test_mirrored_view_swaps_sides(viewer: Viewer) -> None:
    renderer = viewer.renderer
    left = renderer.to_px(-3.0, 1.0)
    renderer.set_mirrored(True)
    right = renderer.to_px(-3.0, 1.0)
    assert right == renderer.to_px(-3.0, 1.0)
    assert right[0] > renderer.centre_px[0] > left[0]
    assert renderer.to_world(*right) == pytest.approx((-3.0, 1.0), abs=0.05)


def test_pacer_runs_real_time_times_speed() -> None:
    pacer = Pacer(dt_s=0.01)
    assert sum(pacer.steps_due(1.0 / 60.0) for _ in range(60)) == pytest.approx(100, abs=1)
    pacer.set_speed(4.0)
    assert sum(pacer.steps_due(1.0 / 60.0) for _ in range(60)) == pytest.approx(400, abs=1)
    pacer.set_speed(0.1)
    assert sum(pacer.steps_due(1.0 / 60.0) for _ in range(600)) == pytest.approx(100, abs=1)


def test_pacer_pause_single_step_and_limits() -> None:
    pacer = Pacer(dt_s=0.01)
    pacer.toggle_pause()
    assert pacer.steps_due(1.0) == 0
    pacer.single_step()
    assert pacer.steps_due(1.0) == 1
    assert pacer.steps_due(1.0) == 0
    pacer.set_speed(100.0)
    assert pacer.speed == 20.0
    pacer.set_speed(0.01)
    assert pacer.speed == 0.1
    with pytest.raises(ValueError):
        pacer.set_speed(float("nan"))
    pacer.set_speed(1.0)
    pacer.faster()
    assert pacer.speed == 2.0
    pacer.slower()
    pacer.slower()
    assert pacer.speed == 0.5


def test_viewer_advance_steps_the_source(viewer: Viewer) -> None:
    assert viewer.advance(0.1) == 10
    assert viewer.source.steps == 10
    viewer.pacer.toggle_pause()
    assert viewer.advance(0.5) == 0


def test_f_drives_the_selected_robot_in_screen_directions_mirrored_view_included() -> None:
    """F toggles field-relative arrows: RIGHT walks the robot to the right of the screen,
    whatever its heading; after V (mirrored view) that is the world's -x."""
    from soccerbt.drivers.keyboard import KeyboardPad
    from soccerbt.drivers.pad_devices import PadManager
    from soccerbt.match import Match, MatchConfig
    from soccerbt.tools.viewer.match_source import MatchSceneSource
    from soccerbt.tools.viewer.viewer import wire_field_relative_keys

    pygame.display.init()
    pygame.font.init()
    manager = PadManager()
    manager.keyboard = KeyboardPad()
    match = Match(MatchConfig(seed=1, duration_s=60.0), pads=manager)
    viewer = Viewer(MatchSceneSource(match), size_px=(1100, 700), event_handlers=[manager.handle_event])
    wire_field_relative_keys(viewer, match, manager.keyboard)
    viewer.on_select = manager.set_keyboard_robot
    viewer.state.selected = "blue2"
    manager.set_keyboard_robot("blue2")
    truth = match.world.robots[match.agent("blue2").robot]

    def key(k: int, down: bool = True) -> None:
        viewer.handle_event(pygame.event.Event(pygame.KEYDOWN if down else pygame.KEYUP, key=k, mod=0))

    def walk_right(seconds: float) -> tuple[float, float]:
        x0, y0 = truth.pose.x_m, truth.pose.y_m
        key(pygame.K_RIGHT)
        match.run(seconds)
        key(pygame.K_RIGHT, False)
        match.run(0.3)
        return truth.pose.x_m - x0, truth.pose.y_m - y0

    match.run(0.5)
    key(pygame.K_f)
    key(pygame.K_f, False)
    assert manager.keyboard.field_relative
    key(pygame.K_LSHIFT)
    dx, dy = walk_right(1.5)
    assert dx > 0.25 and abs(dy) < 0.5 * dx, (dx, dy)  # screen right is world +x
    key(pygame.K_v)  # the view from the other side
    assert viewer.state.mirrored
    dx, dy = walk_right(1.5)
    assert dx < -0.25 and abs(dy) < 0.5 * abs(dx), (dx, dy)  # screen right is now world -x


# --- what happened, on screen (issue 15) -------------------------------------------------------


class FakeClock:
    """Wall time that moves only when told: steps and frames cost what a test says."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class TimedSource(FakeSource):
    """A fake source whose steps cost ``step_cost_s`` of the fake clock; it can be stopped
    (estop) and has pending click-to-go targets."""

    def __init__(self, clock: FakeClock, step_cost_s: float = 1e-4) -> None:
        super().__init__()
        self.clock = clock
        self.step_cost_s = step_cost_s
        self.estop: str | None = None
        self.targets: dict[str, tuple[float, float]] = {}
        self.pending: list = []
        self.on_step = None

    def step(self) -> None:
        super().step()
        self.clock.t += self.step_cost_s
        if self.on_step is not None:
            self.on_step(self.steps)

    def scene(self, selected: str | None) -> Scene:
        scene = super().scene(selected)
        scene.estop = self.estop
        scene.goto_targets = dict(self.targets)
        return scene

    def notices(self) -> list:
        out, self.pending = self.pending, []
        return out


def _timed_viewer(step_cost_s: float = 1e-4, speed: float = 1.0) -> tuple[Viewer, FakeClock]:
    pygame.display.init()
    pygame.font.init()
    clock = FakeClock()
    viewer = Viewer(TimedSource(clock, step_cost_s), size_px=(1100, 700), speed=speed, clock=clock)
    return viewer, clock


def test_estop_draws_a_red_band_under_the_banner_and_a_toast() -> None:
    from soccerbt.tools.viewer.render import ESTOP_BG

    viewer, _ = _timed_viewer()
    surface = pygame.Surface(viewer.size_px)
    band = viewer.renderer.estop_rect()
    probe = (band.x + 3, band.centery)
    viewer.render(surface)
    assert tuple(surface.get_at(probe))[:3] != ESTOP_BG
    viewer.source.estop = "keyboard SPACE"
    viewer.render(surface)
    assert tuple(surface.get_at(probe))[:3] == ESTOP_BG
    assert any("EMERGENCY STOP" in n.text for n, _ in viewer.toasts)
    viewer.source.estop = None
    viewer.render(surface)
    assert tuple(surface.get_at(probe))[:3] != ESTOP_BG
    assert "released" in viewer.toasts[-1][0].text


def test_a_toast_shows_then_fades_away(capsys) -> None:
    viewer, clock = _timed_viewer()
    surface = pygame.Surface(viewer.size_px)
    viewer.render(surface)
    blank = surface.copy()
    from soccerbt.tools.viewer.scene import Notice
    viewer.source.pending.append(Notice("tree reloaded: trees/xml/game.xml (3 file(s))", "ok"))
    viewer.render(surface)
    (box,) = viewer.toast_rects
    inside = box.move(4, 0).midleft
    assert surface.get_at(inside) != blank.get_at(inside)
    assert "view: tree reloaded: trees/xml/game.xml" in capsys.readouterr().err  # and on stderr, once
    clock.t += 3.5  # fading: still there, fainter
    viewer.render(surface)
    assert len(viewer.toast_rects) == 1
    clock.t += 1.0  # gone after its time
    viewer.render(surface)
    assert viewer.toast_rects == [] and viewer.toasts == []
    assert surface.get_at(inside) == blank.get_at(inside)


def test_click_to_go_target_has_a_marker() -> None:
    from soccerbt.tools.viewer.render import GOTO

    viewer, _ = _timed_viewer()
    surface = pygame.Surface(viewer.size_px)
    viewer.render(surface)
    target = (-4.0, 2.5)
    assert tuple(surface.get_at(viewer.renderer.to_px(*target)))[:3] != GOTO
    viewer.source.targets = {"blue1": target}
    viewer.render(surface)
    assert tuple(surface.get_at(viewer.renderer.to_px(*target)))[:3] == GOTO  # the cross's centre
    viewer.source.targets = {}  # reached
    viewer.render(surface)
    assert tuple(surface.get_at(viewer.renderer.to_px(*target)))[:3] != GOTO


def test_mirrored_view_and_layers_are_shown(capsys) -> None:
    viewer, _ = _timed_viewer()
    assert "MIRRORED" not in viewer.status_line() and "F7 labels" in viewer.status_line()
    viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_v, mod=0))
    viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F7, mod=0))
    assert viewer.status_line().startswith("MIRRORED") and "labels" not in viewer.status_line()
    assert "view mirrored" in capsys.readouterr().err
    assert [n.text for n, _ in viewer.toasts][-1] == "layer labels off (F7)"


def test_labels_of_clustered_robots_do_not_overlap() -> None:
    viewer, _ = _timed_viewer()
    viewer.source.robots = [SceneRobot(f"blue{i}", Team.BLUE, i, Pose2D(0.1 * i, 0.05 * (i % 2), 0.0),
                                       role="striker", decision="chase") for i in range(1, 6)]
    surface = pygame.Surface(viewer.size_px)
    viewer.render(surface)
    rects = list(viewer.renderer.label_rects.values())
    assert len(rects) == 5
    assert all(not a.colliderect(b) for i, a in enumerate(rects) for b in rects[i + 1:])


@pytest.mark.parametrize("speed", [1.0, 4.0, 20.0])
def test_pacing_keeps_the_asked_speed_when_steps_are_cheap(speed: float) -> None:
    """60 frames a second, each costing 5 ms to draw, steps 0.2 ms each: the match runs at the
    asked speed (within 10 %) and the banner says so."""
    viewer, clock = _timed_viewer(step_cost_s=2e-4, speed=speed)
    surface = pygame.Surface((10, 10))
    viewer.render = lambda s: clock.__setattr__("t", clock.t + 0.005)  # drawing costs 5 ms
    frame_start = clock.t
    for _ in range(300):  # 5 s of wall time
        viewer.frame(surface)
        frame_start = max(clock.t, frame_start + 1.0 / 60.0)  # the display's rate
        clock.t = frame_start
    wall = clock.t - 100.0
    achieved = viewer.source.steps * viewer.source.dt_s / wall
    assert achieved == pytest.approx(speed, rel=0.10)
    assert viewer.meter.speed == pytest.approx(speed, rel=0.10)
    assert viewer.meter.fps == pytest.approx(60.0, rel=0.10)
    assert f"x{speed:g}" in viewer.speed_text() and "fps" in viewer.speed_text()


def test_pacing_on_a_slow_machine_says_how_fast_it_really_runs() -> None:
    viewer, clock = _timed_viewer(step_cost_s=5e-3, speed=20.0)  # at most 2x real time
    surface = pygame.Surface((10, 10))
    viewer.render = lambda s: None
    for _ in range(200):
        viewer.frame(surface)
        clock.t += 1.0 / 60.0
    assert viewer.meter.speed < 2.0
    assert viewer.meter.fps > 10.0  # the window stays responsive


def test_max_speed_is_not_slower_than_x20() -> None:
    viewer, clock = _timed_viewer(step_cost_s=2e-4, speed=math.inf)
    surface = pygame.Surface((10, 10))
    viewer.render = lambda s: clock.__setattr__("t", clock.t + 0.005)
    for _ in range(200):
        viewer.frame(surface)
        clock.t += 0.001
    assert viewer.meter.speed > 20.0


def test_escape_quits_within_one_frame_of_steps() -> None:
    """ESC pressed while a frame's steps run: no more steps than the rest of that frame's."""
    viewer, clock = _timed_viewer(step_cost_s=1e-4, speed=20.0)
    pressed_at: list[int] = []

    def press(steps: int) -> None:
        if steps == 100 and not pressed_at:
            pressed_at.append(steps)
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0))

    viewer.source.on_step = press
    viewer.frame_wait = lambda fps: clock.__setattr__("t", clock.t + 1.0 / fps)
    pygame.event.clear()
    viewer.run()
    per_frame = math.ceil(20.0 / 60.0 / viewer.source.dt_s)
    assert pressed_at and viewer.source.steps - pressed_at[0] <= per_frame
    assert viewer.quit_requested


def test_ctrl_q_quits_before_the_keyboard_pad_sees_it() -> None:
    viewer, _ = _timed_viewer()
    seen = []
    viewer.event_handlers.append(lambda e: seen.append(e) or True)  # a pad that takes every key
    assert viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q, mod=0))  # turns the robot
    assert not viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q, mod=pygame.KMOD_LCTRL))
    assert not viewer.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0))
    assert len(seen) == 1


def test_quit_asked_during_a_batch_stops_the_steps() -> None:
    viewer, _ = _timed_viewer(step_cost_s=1e-4, speed=20.0)
    viewer.source.on_step = lambda n: n == 5 and viewer.handle_event(pygame.event.Event(pygame.QUIT))
    assert viewer.advance(1.0) == 5
