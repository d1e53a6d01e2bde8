"""The visibility-graph planner, the pure-pursuit follower and the Navigator.

The reference for "shortest" is independent of the planner's own search: every corner of the
inflated polygons, start and goal, joined wherever shapely says the segment does not enter a
polygon's interior, searched with networkx.
"""
from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from shapely.geometry import LineString, Point

from soccerbt.services.navigation import (
    FollowerConfig,
    Navigator,
    Obstacle,
    Path,
    PathFollower,
    Planner,
    PlannerConfig,
    VisibilityGraphPlanner,
    inflate_circle,
)
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, wrap_angle_rad

FIELD = Field.adult_size()


def random_scene(seed: int, n: int) -> tuple[Pose2D, Pose2D, list[Obstacle]]:
    rng = np.random.default_rng(seed)
    obs = [Obstacle(float(rng.uniform(-5, 5)), float(rng.uniform(-3.5, 3.5)), 0.25) for _ in range(n)]
    start = Pose2D(-6.0, float(rng.uniform(-3, 3)), 0.0)
    goal = Pose2D(6.0, float(rng.uniform(-3, 3)), 0.0)
    return start, goal, obs


def enters(path: Path, polys) -> float:
    """Total length of the path inside the polygons' interiors."""
    line = path.linestring()
    return sum(line.intersection(p).length for p in polys)


def shortest_reference(start_xy, goal_xy, polys) -> float:
    """Shortest path length among the polygons (networkx on the full visibility graph)."""
    nodes = [tuple(start_xy), tuple(goal_xy)]
    for p in polys:
        for x, y in list(p.exterior.coords)[:-1]:
            if not any(q.contains(Point(x, y)) for q in polys):
                nodes.append((x, y))
    g = nx.Graph()
    for a, b in itertools.combinations(range(len(nodes)), 2):
        seg = LineString([nodes[a], nodes[b]])
        if any(seg.relate_pattern(p, "T********") for p in polys):
            continue  # the segment's interior meets a polygon's interior
        g.add_edge(a, b, weight=math.dist(nodes[a], nodes[b]))
    return nx.shortest_path_length(g, 0, 1, weight="weight")


def test_inflated_polygon_encloses_the_circle():
    pts = inflate_circle(1.0, -2.0, 0.5, sides=8)
    from shapely.geometry import Polygon
    poly = Polygon(pts)
    assert poly.exterior.is_ccw
    assert poly.contains(Point(1.0, -2.0).buffer(0.5 - 1e-9, 64))
    # it circumscribes the circle: edges touch it
    assert poly.exterior.distance(Point(1.0, -2.0)) == pytest.approx(0.5, abs=1e-9)
    with pytest.raises(ValueError, match="at least 3 sides"):
        inflate_circle(0, 0, 1, sides=2)


@pytest.mark.parametrize("seed", range(12))
def test_path_stays_out_of_every_inflated_obstacle_and_is_near_shortest(seed):
    start, goal, obs = random_scene(seed, 6 if seed % 2 else 10)
    planner = VisibilityGraphPlanner(FIELD)
    path = planner.plan(start, goal, obs)
    polys = planner.inflated_polygons(obs)
    assert path.reached_goal
    assert np.allclose(path.points[0], (start.x_m, start.y_m))
    assert np.allclose(path.points[-1], (goal.x_m, goal.y_m))
    assert enters(path, polys) < 1e-9
    for o in obs:  # the inflated circle itself, the robot's real clearance
        c = planner.config
        assert path.linestring().distance(Point(o.x_m, o.y_m)) >= o.radius_m + c.robot_radius_m + c.clearance_m - 1e-9
    ref = shortest_reference((start.x_m, start.y_m), (goal.x_m, goal.y_m), polys)
    assert ref - 1e-6 <= path.length_m <= ref * 1.03, (path.length_m, ref)


def test_straight_line_when_nothing_is_in_the_way():
    planner = VisibilityGraphPlanner(FIELD)
    path = planner.plan(Pose2D(-3, 0, 0), Pose2D(3, 1, 0), [Obstacle(0, -3, 0.25)])
    assert path.waypoints.shape == (2, 2)
    assert path.length_m == pytest.approx(math.hypot(6, 1))
    assert path.passed_obstacle is None


class _SearchOnly(VisibilityGraphPlanner):
    """The planner without its direct-path shortcut: every plan runs the A* search."""

    def _direct_path(self, start, goal, obstacles):
        return None


def same_path(a: Path, b: Path) -> bool:
    return (np.array_equal(a.points, b.points) and np.array_equal(a.waypoints, b.waypoints)
            and a.length_m == b.length_m and a.reached_goal == b.reached_goal
            and a.passed_obstacle == b.passed_obstacle and a.expansions == b.expansions)


def test_straight_path_grazing_a_node_ring_is_the_searchs_path_bit_for_bit():
    # robots beside the line: their node rings (about 0.42 m) reach within a centimetre of it,
    # their blocking circles (about 0.325 m) do not; some are in the way, some are not
    rng = np.random.default_rng(4)
    fast, slow = VisibilityGraphPlanner(FIELD), _SearchOnly(FIELD)
    shortcuts = 0
    for _ in range(300):
        start = Pose2D(float(rng.uniform(-5, -1)), float(rng.uniform(-3, 3)), 0.0)
        goal = Pose2D(float(rng.uniform(1, 5)), float(rng.uniform(-3, 3)), 0.0)
        dx, dy = goal.x_m - start.x_m, goal.y_m - start.y_m
        length = math.hypot(dx, dy)
        t, off = float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.30, 0.45)) * (1 if rng.random() < 0.5 else -1)
        ob = Obstacle(start.x_m + t * dx - off * dy / length, start.y_m + t * dy + off * dx / length, 0.0)
        a, b = fast.plan(start, goal, [ob]), slow.plan(start, goal, [ob])
        assert same_path(a, b)
        shortcuts += fast._direct_path(start, goal, [ob]) is not None
    assert 200 < shortcuts < 300  # most grazing lines skip the search (125 with a 1 cm clearance rule); some need it


def test_goal_frames_are_obstacles():
    planner = VisibilityGraphPlanner(FIELD)
    # from beside the opponent goal, outside its post, to in front of it: round the side net
    start, goal = Pose2D(7.5, 2.2, 0.0), Pose2D(6.0, 0.0, 0.0)
    assert planner.segment_blocked((7.5, 2.2), (6.0, 0.0), [])
    path = planner.plan(start, goal, [])
    polys = planner.inflated_polygons([])
    assert path.reached_goal
    assert enters(path, polys) < 1e-9
    ref = shortest_reference((7.5, 2.2), (6.0, 0.0), polys)
    assert ref - 1e-6 <= path.length_m <= ref * 1.03
    assert path.length_m > math.hypot(1.5, 2.2) + 0.01


def test_field_bounds_are_respected():
    planner = VisibilityGraphPlanner(FIELD)
    # a wall of robots from the touch line up: the way round is on the other side
    wall = [Obstacle(0.0, y, 0.25) for y in np.arange(-1.0, 5.6, 0.5)]
    path = planner.plan(Pose2D(-2, 3, 0), Pose2D(2, 3, 0), wall)
    assert path.reached_goal
    assert (np.abs(path.points[:, 1]) <= planner.bound_y_m + 1e-9).all()
    assert path.points[:, 1].min() < -1.0
    assert enters(path, planner.inflated_polygons(wall)) < 1e-9


def test_start_inside_an_obstacle_escapes_and_goal_inside_is_moved_out():
    planner = VisibilityGraphPlanner(FIELD)
    obs = [Obstacle(0.0, 0.0, 0.25), Obstacle(3.0, 0.0, 0.25)]
    path = planner.plan(Pose2D(0.1, 0.05, 0.0), Pose2D(3.05, 0.0, 0.0), obs)
    assert not path.reached_goal
    assert np.allclose(path.points[0], (0.1, 0.05))
    polys = planner.inflated_polygons(obs)
    assert not polys[-1].contains(Point(*path.end_xy))
    # after the escape step the path is free
    rest = LineString(path.points[1:])
    assert sum(rest.intersection(p).length for p in polys) < 1e-9


def test_unreachable_goal_stays_put():
    planner = VisibilityGraphPlanner(FIELD)
    ring = [
        Obstacle(2.0 + 1.0 * math.cos(a), 1.0 * math.sin(a), 0.3)
        for a in np.linspace(0, 2 * math.pi, 12, endpoint=False)
    ]
    # the goal at the ring's centre cannot be reached, and is not inside an obstacle either
    path = planner.plan(Pose2D(-3, 0, 0), Pose2D(2.0, 0.0, 0.0), ring)
    assert not path.reached_goal
    assert np.allclose(path.points, [(-3, 0)]) and path.length_m == 0.0


def plan_sides(penalty_m: float, seed: int = 0) -> list[int]:
    rng = np.random.default_rng(seed)
    planner = VisibilityGraphPlanner(FIELD, PlannerConfig(side_switch_penalty_m=penalty_m))
    sides = []
    for _ in range(60):
        # a robot right on the line to the goal, jittering by a few centimetres
        ob = Obstacle(0.0, float(rng.normal(0.0, 0.03)), 0.25)
        path = planner.plan(Pose2D(-3.0, 0.0, 0.0), Pose2D(3.0, 0.0, 0.0), [ob])
        assert path.passed_obstacle is not None
        sides.append(path.passed_obstacle[2])
    return sides


def test_no_dithering_around_a_jittering_obstacle():
    sides = plan_sides(PlannerConfig().side_switch_penalty_m)
    assert len(set(sides)) == 1
    # without the penalty the same scene flips sides: the test can tell the difference
    assert len(set(plan_sides(0.0))) == 2


def test_side_memory_gives_way_to_a_clearly_better_side():
    planner = VisibilityGraphPlanner(FIELD)
    p1 = planner.plan(Pose2D(-3, 0, 0), Pose2D(3, 0, 0), [Obstacle(0.0, -0.02, 0.25)])
    side = p1.passed_obstacle[2]
    # the obstacle moves well across the line: the other side becomes much shorter
    p2 = planner.plan(Pose2D(-3, 0, 0), Pose2D(3, 0, 0), [Obstacle(0.0, -side * 0.5, 0.25)])
    assert p2.passed_obstacle[2] == -side


def test_replanning_an_unchanged_scene_reuses_it():
    start, goal, obs = random_scene(3, 10)
    planner = VisibilityGraphPlanner(FIELD)
    a = planner.plan(start, goal, obs)
    scene = planner.graph.scene
    b = planner.plan(Pose2D(start.x_m + 0.05, start.y_m, 0.0), goal, obs)
    assert planner.graph.scene is scene and scene.neighbours  # vertex neighbourhoods were kept
    assert b.length_m == pytest.approx(a.length_m, abs=0.06)
    c = planner.plan(start, goal, obs[:-1])
    assert planner.graph.scene is not scene
    assert isinstance(planner, Planner)
    del c


def test_bad_start_is_a_clear_error():
    planner = VisibilityGraphPlanner(FIELD)
    with pytest.raises(ValueError, match="finite"):
        planner.plan(Pose2D(math.nan, 0, 0), Pose2D(1, 1, 0), [])


def simulate(nav: Navigator, pose: Pose2D, goal: Pose2D, obstacles, seconds: float, dt: float = 0.01):
    """A kinematic omnidirectional robot: integrates the commanded robot-frame velocity."""
    cmds, poses = [], [pose]
    t = 0.0
    while t < seconds:
        vx, vy, vth = nav.velocity_to(pose, goal, obstacles, t)
        cmds.append((vx, vy, vth))
        pose = pose.compose(Pose2D(vx * dt, vy * dt, vth * dt))
        poses.append(pose)
        t += dt
        if nav.arrived:
            break
    return pose, np.array(cmds), poses, t


def test_follower_reaches_the_goal_pose_around_obstacles_within_limits():
    obs = [Obstacle(-1.0, 0.1, 0.25), Obstacle(1.0, -0.3, 0.25), Obstacle(1.5, 1.2, 0.25)]
    nav = Navigator(FIELD)
    goal = Pose2D(3.0, 0.5, math.pi / 2)
    pose, cmds, poses, t = simulate(nav, Pose2D(-3.0, 0.0, 0.0), goal, obs, 40.0)
    assert nav.arrived
    assert pose.distance_to(goal.x_m, goal.y_m) <= nav.config.arrive_distance_m
    assert abs(wrap_angle_rad(pose.theta_rad - goal.theta_rad)) <= nav.config.arrive_theta_rad
    fc = nav.follower.config
    assert cmds[:, 0].max() <= fc.vx_max_mps + 1e-9 and cmds[:, 0].min() >= -fc.vx_back_max_mps - 1e-9
    assert np.abs(cmds[:, 1]).max() <= fc.vy_max_mps + 1e-9
    assert np.abs(cmds[:, 2]).max() <= fc.vtheta_max_radps + 1e-9
    acc = np.abs(np.diff(cmds, axis=0)) / 0.01
    assert acc[:, 0].max() <= fc.ax_max_mps2 + 1e-6 and acc[:, 1].max() <= fc.ay_max_mps2 + 1e-6
    # the robot body never touched an obstacle (pure pursuit cuts corners only a little)
    r_robot = nav.planner.config.robot_radius_m
    for p in poses:
        for o in obs:
            assert p.distance_to(o.x_m, o.y_m) >= o.radius_m + r_robot
    assert t < 20.0  # about 6.5 m of walking at up to 0.8 m/s
    c = nav.config  # checked every 0.2 s, replanned when blocked or 1 s old
    assert (c.replan_period_s, c.max_path_age_s) == (pytest.approx(0.2), pytest.approx(1.0))
    assert t / c.max_path_age_s - 2 <= nav.plans <= t / c.replan_period_s + 2


def test_follower_respects_caller_limits_and_turns_on_the_spot_at_the_end():
    nav = Navigator(FIELD)
    pose, cmds, _, _ = simulate(nav, Pose2D(0.0, 0.0, 0.0), Pose2D(1.0, 0.0, math.pi), [], 30.0)
    assert nav.arrived and abs(wrap_angle_rad(pose.theta_rad - math.pi)) <= 0.1
    nav2 = Navigator(FIELD)
    cmds2 = [nav2.velocity_to(Pose2D(0, 0, 0), Pose2D(4, 0, 0), [], k * 0.01, vx_limit_mps=0.3)
             for k in range(300)]
    assert max(c[0] for c in cmds2) <= 0.3 + 1e-9
    assert max(c[0] for c in cmds2) > 0.29


def test_arrived_has_hysteresis_and_reset_forgets():
    nav = Navigator(FIELD)
    goal = Pose2D(1.0, 0.0, 0.0)
    assert nav.velocity_to(Pose2D(0.95, 0.0, 0.0), goal, [], 0.0) == (0.0, 0.0, 0.0) and nav.arrived
    nav.velocity_to(Pose2D(0.85, 0.0, 0.0), goal, [], 0.1)  # 0.15 m: still inside twice the tolerance
    assert nav.arrived
    v = nav.velocity_to(Pose2D(0.5, 0.0, 0.0), goal, [], 0.2)
    assert not nav.arrived and v[0] > 0.0
    nav.reset()
    assert nav.path is None and not nav.arrived


def test_path_follower_alone_walks_a_path():
    planner = VisibilityGraphPlanner(FIELD)
    follower = PathFollower(FollowerConfig(vx_max_mps=0.6))
    path = planner.plan(Pose2D(0, 0, 0), Pose2D(2, 0, 0), [Obstacle(1.0, 0.0, 0.2)])
    pose = Pose2D(0, 0, 0)
    for _ in range(1500):
        vx, vy, vth = follower.follow(pose, path, 0.0, 0.01)
        pose = pose.compose(Pose2D(vx * 0.01, vy * 0.01, vth * 0.01))
    assert pose.distance_to(2.0, 0.0) < 0.05
    assert abs(pose.theta_rad) < 0.05


def test_obstacles_are_read_only_when_the_navigator_checks_or_replans_its_path():
    nav = Navigator(FIELD)
    reads = []

    def obstacles():  # a generator: nothing is built until the navigator iterates it
        reads.append(1)
        yield Obstacle(0.0, 0.4, 0.25)

    pose = Pose2D(-2.0, 0.0, 0.0)
    for k in range(100):
        vx, vy, vth = nav.velocity_to(pose, Pose2D(2.0, 0.0, 0.0), obstacles(), k * 0.01)
        pose = pose.compose(Pose2D(vx * 0.01, vy * 0.01, vth * 0.01))
    # 1 s: planned once, then the path checked at 5 Hz (the obstacle stays off the path)
    assert nav.plans == 1
    assert len(reads) == 5


def test_an_obstacle_that_moves_onto_the_path_replans_at_the_next_check():
    nav = Navigator(FIELD)
    pose, goal = Pose2D(-2.0, 0.0, 0.0), Pose2D(2.0, 0.0, 0.0)
    nav.velocity_to(pose, goal, [Obstacle(0.0, 2.0, 0.25)], 0.0)
    assert nav.plans == 1 and np.all(np.abs(nav.path.points[:, 1]) < 1e-9)  # straight
    for k in range(1, 15):  # at 0.1 s a robot steps onto the straight line
        obstacles = [Obstacle(0.0, 2.0 if k < 10 else 0.0, 0.25)]
        nav.velocity_to(pose, goal, obstacles, k * 0.01)
    assert nav.plans == 1  # the checks come every 0.2 s
    for k in range(15, 21):
        nav.velocity_to(pose, goal, [Obstacle(0.0, 0.0, 0.25)], k * 0.01)
    assert nav.plans == 2  # the check at 0.2 s found it
    assert np.min(np.hypot(nav.path.points[:, 0], nav.path.points[:, 1])) > 0.5  # around it


def test_a_goal_that_keeps_moving_replans_at_most_every_goal_moved_min_period():
    nav = Navigator(FIELD)
    c = nav.config
    pose = Pose2D(-2.0, 0.0, 0.0)
    nav.velocity_to(pose, Pose2D(2.0, 0.0, 0.0), [], 0.0)
    assert nav.plans == 1
    # the goal moves 0.15 m (more than goal_moved_m) at every 10 ms tick for 0.5 s
    for k in range(1, 51):
        goal = Pose2D(2.0, -3.0 + 0.12 * k, 0.0)
        nav.velocity_to(pose, goal, [], k * 0.01)
    assert c.goal_moved_m < 0.12 and c.goal_moved_min_period_s == pytest.approx(0.1)
    assert nav.plans == 1 + 5  # one plan per 0.1 s, not one per tick
    # a goal that stays put, with a clear path, replans only when the path is max_path_age_s old
    nav2 = Navigator(FIELD)
    for k in range(0, 151):
        nav2.velocity_to(pose, Pose2D(2.0, 0.0, 0.0), [], k * 0.01)
    assert nav2.plans == 1 + int(1.5 / c.max_path_age_s)
