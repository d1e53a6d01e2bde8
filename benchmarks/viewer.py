"""Frames per second of the field viewer drawing a 3 v 3 scene with every layer on.

Renders off-screen (SDL_VIDEODRIVER=dummy) the same frame the window would show: the field,
six robots with estimates, covariance, 500 particles each, ball estimates, paths, kick
directions, labels, the banner and the side panel with a 60-line tree. The scene comes from a
real headless match when soccerbt.match is available (after a few seconds of play), otherwise
from a synthetic one. Baseline in the same run: the same frame with the particles drawn by one
pygame.draw call each (the obvious way), to show what the numpy path buys.
Goal: 60 frames per second or more.

    python benchmarks/viewer.py [--frames 300]
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402
import pygame  # noqa: E402

from soccerbt.tools.viewer import render  # noqa: E402
from soccerbt.tools.viewer.scene import Banner, Scene, SceneRobot, TreeLine  # noqa: E402
from soccerbt.tools.viewer.viewer import Viewer  # noqa: E402
from soccerbt.world.field import Field  # noqa: E402
from soccerbt.world.types import Pose2D, Team  # noqa: E402


class SyntheticSource:
    """A 3 v 3 scene with everything a robot can show filled in."""

    def __init__(self) -> None:
        rng = np.random.default_rng(1)
        self.field = Field.adult_size()
        self.dt_s = 0.01
        self.robots = []
        for team, sign in ((Team.BLUE, -1.0), (Team.RED, 1.0)):
            for number in (1, 2, 3):
                x, y = sign * (1.0 + 1.5 * number), (number - 2) * 2.0
                self.robots.append(SceneRobot(
                    f"{team.name.lower()}{number}", team, number, Pose2D(x, y, 0.3 * number),
                    role="striker" if number == 1 else "supporter", decision="chase",
                    estimate=Pose2D(x + 0.1, y - 0.05, 0.3 * number + 0.05),
                    covariance=np.diag([0.02, 0.03, 0.01]),
                    particles=rng.normal([x, y, 0.0], [0.3, 0.3, 0.2], (500, 3)),
                    ball_estimate=(0.2, -0.1), path=[(x, y), (x / 2, y + 0.5), (0.0, 0.0)],
                    kick_direction_rad=0.2))
        self.tree = [
            TreeLine(i % 8, f"node_{i}", ("RUNNING", "SUCCESS", "SKIPPED", "FAILURE")[i % 4]) for i in range(60)
        ]

    def step(self) -> None:
        pass

    def scene(self, selected: str | None) -> Scene:
        return Scene(self.field, 12.0, (0.0, 0.0), self.robots,
                     Banner("PLAYING", "", 1, 2, 432, 0, True, "blue", ["red2 34 7s"]), self.tree,
                     [(f"key{i}", str(i)) for i in range(12)])

    def place_ball(self, x_m: float, y_m: float) -> None:
        pass

    def send_robot_to(self, key: str, x_m: float, y_m: float) -> None:
        pass

    def finished(self) -> bool:
        return False


def match_source():
    """A scene source on a real match, played headless for a few seconds; None if unavailable."""
    try:
        from soccerbt.tools.viewer.match_source import MatchSceneSource
    except ImportError:
        return None
    source = MatchSceneSource.default(seed=1, show_particles=True)
    for _ in range(int(20.0 / source.dt_s)):
        source.step()
    return source


def naive_particles(self, surface, robots) -> None:
    for robot in robots:
        if robot.particles is None:
            continue
        for x, y, _ in robot.particles:
            pygame.draw.circle(surface, render.PARTICLE_COLOURS[robot.team], self.to_px(x, y), 1)


def frame_times_s(viewer: Viewer, surface: pygame.Surface, frames: int) -> list[float]:
    times = []
    for _ in range(frames):
        start = time.perf_counter()
        viewer.render(surface)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    args = parser.parse_args()
    pygame.display.init()
    pygame.font.init()
    source = match_source()
    kind = "match scene (20 s into a seeded 3 v 3)"
    if source is None:
        source, kind = SyntheticSource(), "synthetic 3 v 3 scene"
    viewer = Viewer(source)
    viewer.state.layers = set(render.ALL_LAYERS)
    viewer.state.selected = "blue1"
    surface = pygame.Surface(viewer.size_px)
    frame_times_s(viewer, surface, 20)  # warm the caches
    ours = statistics.median(frame_times_s(viewer, surface, args.frames))
    fast = render.FieldRenderer._draw_particles
    render.FieldRenderer._draw_particles = naive_particles
    try:
        naive = statistics.median(frame_times_s(viewer, surface, max(30, args.frames // 5)))
    finally:
        render.FieldRenderer._draw_particles = fast
    particles = sum(len(r.particles) for r in source.scene("blue1").robots if r.particles is not None)
    print(f"viewer, {kind}, every layer on, {particles} particles, {viewer.size_px[0]}x{viewer.size_px[1]} px")
    print(f"  median frame: {ours * 1e3:.2f} ms = {1.0 / ours:.0f} frames/s (goal >= 60)")
    print(f"  baseline (one draw call per particle): {naive * 1e3:.2f} ms = {1.0 / naive:.0f} frames/s")
    print(f"  ratio baseline/ours: {naive / ours:.2f}x")
    if not math.isfinite(ours):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
