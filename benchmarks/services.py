"""Benchmark of the services: particle-filter update and path planning, with baselines.

Prints medians of, in one run:

- ``ParticleFilter.update`` with 500 and 2000 particles and 10 landmark detections, in
  microseconds, against the same likelihood computed by exact nearest-landmark association
  (an (N, M, K) numpy broadcast, no lookup grids);
- ``VisibilityGraphPlanner.plan`` on an AdultSize field with 6 and 10 robot obstacles (fresh
  obstacle positions every call, so no reuse), against building the full visibility graph over
  the same nodes and searching it with networkx A*, twice: with the planner's own vectorised
  numpy segment test (a strong baseline, timed interleaved scene by scene) and with shapely 2's
  vectorised ``intersects`` (the textbook way); also a 10 Hz replan where the robots moved by
  about 2 cm, and one where nothing moved.

Goals: 500-particle update under 1 ms; 6-obstacle plan under 2 ms; at least 5x faster than the
networkx baseline. Run: ``.venv/bin/python benchmarks/services.py`` (about 20 s).

``--against REV`` (e.g. ``HEAD~3``) adds an A/B on a recorded match workload: a 3 v 3 match
(seed 1, our trees) is played for ``--record-s`` simulated seconds while every particle-filter
call and every plan is recorded, then the calls are replayed through the localization and
navigation modules of this checkout and of ``REV`` (``git show``), interleaved, ``--repeats``
times. It prints median CPU time (``time.process_time``: the load of other processes on a
shared machine does not count) per camera frame and per plan, the ratio, and whether the two
versions returned the same estimates and paths bit for bit.
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import networkx as nx
import numpy as np
import shapely

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from soccerbt.services.localization import ParticleFilter  # noqa: E402
from soccerbt.services.navigation import Obstacle, VisibilityGraphPlanner  # noqa: E402
from soccerbt.world.field import Field  # noqa: E402
from soccerbt.world.types import Detection, Pose2D  # noqa: E402

FIELD = Field.adult_size()


def median_us(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def ten_detections(rng: np.random.Generator, truth: Pose2D) -> list[Detection]:
    feats = sorted(FIELD.features, key=lambda f: truth.distance_to(f.x_m, f.y_m))[:10]
    out = []
    for f in feats:  # the simulator's camera noise: range and bearing errors
        lx, ly = truth.inverse_transform_point(f.x_m, f.y_m)
        r = math.hypot(lx, ly)
        r += rng.normal(0.0, 0.02 + 0.06 * r)
        b = math.atan2(ly, lx) + rng.normal(0.0, 0.02)
        out.append(Detection(f.kind.value, r * math.cos(b), r * math.sin(b)))
    return out


def exact_log_likelihood(pf: ParticleFilter, detections: list[Detection]) -> np.ndarray:
    """The baseline: exact nearest-landmark association of every detection, per kind."""
    groups = pf._group(detections)
    xyt = pf.particles_xyt
    cos, sin = np.cos(xyt[:, 2]), np.sin(xyt[:, 2])
    c = pf.config
    total = np.zeros(xyt.shape[0])
    for kind, det in groups.items():
        d2 = pf._squared_errors(xyt, kind, det, cos, sin)
        r = np.hypot(det[:, 0], det[:, 1])
        inv_var = 1.0 / (c.obs_sigma_m ** 2 + (c.obs_sigma_per_m * r) ** 2)
        total -= 0.5 * np.minimum(d2 * inv_var, c.obs_gate_sigmas ** 2).sum(axis=1)
    return total


def bench_filter() -> None:
    print("particle filter update, 10 detections (median of 400)")
    truth = Pose2D(-2.0, 1.0, 0.2)
    for n in (500, 2000):
        rng = np.random.default_rng(1)
        frames = [ten_detections(rng, truth) for _ in range(400)]
        assert all(len(f) == 10 for f in frames)
        pf = ParticleFilter(FIELD, n, rng=np.random.default_rng(2))
        pf.reset_to(truth, (0.2, 0.2, 0.1))
        pf.update(frames[0])  # builds the lookup grids once
        it = iter(frames * 2)
        ours = median_us(lambda: pf.update(next(it)), 400)
        err = math.hypot(pf.estimate().x_m - truth.x_m, pf.estimate().y_m - truth.y_m)
        it2 = iter(frames * 2)
        base = median_us(lambda: exact_log_likelihood(pf, next(it2)), 400)

        def fresh_estimate():
            pf._cache = None  # force the summary to be recomputed
            return pf.estimate()

        est = median_us(fresh_estimate, 400)
        pred = median_us(lambda: pf.predict(Pose2D(0.01, 0.0, 0.01)), 400)
        print(f"  {n:5d} particles: update {ours:8.1f} us (goal < 1000 us for 500)  | exact-association "
              f"likelihood alone {base:8.1f} us, ratio {base / ours:4.1f}x | predict {pred:6.1f} us | "
              f"estimate (pose, covariance, confidence) {est:6.1f} us | error {err:.3f} m")


def scene(rng: np.random.Generator, n: int) -> tuple[Pose2D, Pose2D, list[Obstacle]]:
    obs = [Obstacle(float(rng.uniform(-5.5, 5.5)), float(rng.uniform(-3.8, 3.8)), 0.25) for _ in range(n)]
    start = Pose2D(-6.0, float(rng.uniform(-3.5, 3.5)), 0.0)
    goal = Pose2D(6.0, float(rng.uniform(-3.5, 3.5)), 0.0)
    return start, goal, obs


def networkx_baseline(planner: VisibilityGraphPlanner, start: Pose2D, goal: Pose2D,
                      obstacles: list[Obstacle]) -> float:
    """Full visibility graph over the same nodes (every pair tested), networkx A*."""
    s = planner.graph.build(obstacles)
    start_xy, _ = planner._escape(np.array([start.x_m, start.y_m]))  # as the planner does
    goal_xy, _ = planner._escape(np.array([goal.x_m, goal.y_m]))
    pts = np.vstack([start_xy, goal_xy, s.nodes])
    i, j = np.triu_indices(pts.shape[0], k=1)
    free = ~planner.graph.blocked(pts[i], pts[j])
    i, j = i[free], j[free]
    w = np.hypot(*(pts[i] - pts[j]).T)
    g = nx.Graph()
    g.add_weighted_edges_from(zip(i.tolist(), j.tolist(), w.tolist(), strict=False))
    g.add_nodes_from((0, 1))
    try:
        path = nx.astar_path(g, 0, 1, heuristic=lambda a, b: math.dist(pts[a], pts[b]), weight="weight")
    except nx.NetworkXNoPath:
        return math.inf
    return float(sum(math.dist(pts[a], pts[b]) for a, b in zip(path, path[1:], strict=False)))


def shapely_networkx_baseline(planner: VisibilityGraphPlanner, start: Pose2D, goal: Pose2D,
                              obstacles: list[Obstacle]) -> float:
    """The textbook way: the same nodes, every pair tested with shapely 2's vectorised
    ``intersects`` against the (slightly shrunk, prepared) union of the inflated polygons,
    networkx A*."""
    s = planner.graph.build(obstacles)
    start_xy, _ = planner._escape(np.array([start.x_m, start.y_m]))
    goal_xy, _ = planner._escape(np.array([goal.x_m, goal.y_m]))
    pts = np.vstack([start_xy, goal_xy, s.nodes])
    union = shapely.union_all(planner.inflated_polygons(obstacles)).buffer(-1e-6)
    shapely.prepare(union)
    i, j = np.triu_indices(pts.shape[0], k=1)
    lines = shapely.linestrings(np.stack([pts[i], pts[j]], axis=1))
    free = ~shapely.intersects(union, lines)
    i, j = i[free], j[free]
    w = np.hypot(*(pts[i] - pts[j]).T)
    g = nx.Graph()
    g.add_nodes_from((0, 1))
    g.add_weighted_edges_from(zip(i.tolist(), j.tolist(), w.tolist(), strict=False))
    try:
        path = nx.astar_path(g, 0, 1, heuristic=lambda a, b: math.dist(pts[a], pts[b]), weight="weight")
    except nx.NetworkXNoPath:
        return math.inf
    return float(sum(math.dist(pts[a], pts[b]) for a, b in zip(path, path[1:], strict=False)))


def waypoint_length(wp: np.ndarray) -> float:
    return float(np.hypot(*np.diff(wp, axis=0).T).sum())


def bench_planner() -> None:
    print("planner on an AdultSize field (median of 300 scenes; goal frames included)")
    for n in (6, 10):
        rng = np.random.default_rng(10 + n)
        scenes = [scene(rng, n) for _ in range(300)]
        planner = VisibilityGraphPlanner(FIELD)
        base_planner = VisibilityGraphPlanner(FIELD)
        # interleaved, scene by scene, so that the machine's load hits both alike
        ours_s, base_s = [], []
        for start, goal, obs in scenes:
            planner.forget_side()
            t0 = time.perf_counter()
            planner.plan(start, goal, obs)
            t1 = time.perf_counter()
            networkx_baseline(base_planner, start, goal, obs)
            t2 = time.perf_counter()
            ours_s.append(t1 - t0)
            base_s.append(t2 - t1)
        ours = statistics.median(ours_s) * 1e6
        base = statistics.median(base_s) * 1e6
        per_scene = statistics.median(b / a for a, b in zip(ours_s, base_s, strict=False))
        shapely_s = []
        for start, goal, obs in scenes[:60]:
            t0 = time.perf_counter()
            shapely_networkx_baseline(base_planner, start, goal, obs)
            shapely_s.append(time.perf_counter() - t0)
        shapely_us = statistics.median(shapely_s) * 1e6
        # the same optimum: our unsmoothed path against networkx's (side memory off)
        excess: list[float] = []
        compared = 0
        for start, goal, obs in scenes[:100]:
            planner.forget_side()
            ref = networkx_baseline(base_planner, start, goal, obs)
            path = planner.plan(start, goal, obs)
            _, start_moved = planner._escape(np.array([start.x_m, start.y_m]))
            if start_moved or not path.reached_goal or not math.isfinite(ref):
                continue  # compare clean scenes only: start and goal free, goal reachable
            compared += 1
            excess.append((waypoint_length(path.waypoints) - ref) / ref)
        # 10 Hz replanning: the robots moved about 2 cm since the last plan, or not at all
        start, goal, obs = scenes[0]
        jitter = np.random.default_rng(5)

        def replan_moved():
            moved = [Obstacle(o.x_m + jitter.normal(0, 0.02), o.y_m + jitter.normal(0, 0.02), o.radius_m)
                     for o in obs]
            return planner.plan(start, goal, moved)

        moved_us = median_us(replan_moved, 300)
        planner.plan(start, goal, obs)
        still_us = median_us(lambda: planner.plan(start, goal, obs), 300)
        print(
            f"  {n:2d} robots: plan {ours / 1000:6.3f} ms (goal < 2 ms for 6) | full graph + networkx "
            f"{base / 1000:6.3f} ms | ratio {base / ours:5.1f}x (median per scene {per_scene:4.1f}x; goal >= 5x) "
            f"| shapely full graph + networkx {shapely_us / 1000:6.3f} ms, ratio {shapely_us / ours:5.1f}x "
            f"| longer than networkx's "
            f"optimum on the same nodes by median {statistics.median(excess) * 100:.2g} %, max "
            f"{max(excess) * 100:.2g} % ({compared} scenes) | replan moved 2 cm {moved_us / 1000:6.3f} ms, unchanged "
            f"{still_us / 1000:6.3f} ms"
        )


# --- A/B against a git revision on a recorded match workload ------------------------------------

_FILTER_CALLS = ("predict", "update", "estimate", "confidence", "trust_direction", "resolve_mirror",
                 "reset_touch_line_entry", "reset_to", "reset_uniform", "reset_own_half", "relocalize_from")


def record_workload(seconds: float) -> tuple[dict[int, list], dict[int, list]]:
    """Play a match and record, per robot, its particle-filter calls and its plans."""
    import soccerbt.services.localization as loc
    import soccerbt.services.navigation as nav
    from soccerbt.match import Match, MatchConfig

    filters: dict[int, list] = {}
    plans: dict[int, list] = {}
    saved = {}

    def recorder(cls, name, log):
        original = getattr(cls, name)
        saved[(cls, name)] = original

        def record(self, *args, **kwargs):
            if name == "plan":
                args = (args[0], args[1], list(args[2]))
            log.setdefault(id(self), []).append((name, args, kwargs))
            return original(self, *args, **kwargs)
        setattr(cls, name, record)

    for name in _FILTER_CALLS:
        recorder(loc.ParticleFilter, name, filters)
    recorder(nav.VisibilityGraphPlanner, "plan", plans)
    try:
        Match(MatchConfig(seed=1)).run(seconds)
    finally:
        for (cls, name), original in saved.items():
            setattr(cls, name, original)
    return filters, plans


def module_at(rev: str, path: str, name: str) -> ModuleType:
    """The module ``path`` as it is at git revision ``rev``, imported as ``name``."""
    root = Path(__file__).resolve().parent.parent
    text = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=root, check=True, capture_output=True,
                          text=True).stdout
    tmp = Path(tempfile.mkdtemp(prefix="services_ab_")) / Path(path).name
    tmp.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, tmp)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def replay_filters(loc: ModuleType, workload: dict[int, list]) -> tuple[float, list]:
    """CPU seconds of the whole replay and the outputs (estimates, confidences)."""
    out: list = []
    t0 = time.process_time()
    for k, calls in enumerate(workload.values()):
        pf = loc.ParticleFilter(FIELD, 300, rng=np.random.default_rng([1, k]))
        for name, args, kwargs in calls:
            r = getattr(pf, name)(*args, **kwargs)
            if name in ("estimate", "confidence"):
                out.append(r)
    return time.process_time() - t0, out


def replay_plans(nav: ModuleType, workload: dict[int, list]) -> tuple[float, list]:
    planners = [nav.VisibilityGraphPlanner(FIELD) for _ in workload]  # built before the clock runs
    out: list = []
    t0 = time.process_time()
    for planner, calls in zip(planners, workload.values(), strict=False):
        for _name, args, _kwargs in calls:
            p = planner.plan(*args)
            out.append((p.points.tobytes(), p.waypoints.tobytes(), p.length_m, p.reached_goal,
                        p.passed_obstacle, p.expansions))
    return time.process_time() - t0, out


def bench_against(rev: str, record_s: float, repeats: int) -> None:
    import soccerbt.services.localization as loc_new
    import soccerbt.services.navigation as nav_new

    loc_old = module_at(rev, "soccerbt/services/localization.py", "services_ab_localization")
    nav_old = module_at(rev, "soccerbt/services/navigation.py", "services_ab_navigation")
    filters, plans = record_workload(record_s)
    frames = sum(1 for calls in filters.values() for name, _a, _k in calls if name == "update")
    n_plans = sum(len(calls) for calls in plans.values())
    print(f"A/B against {rev} on a recorded match workload ({record_s:.0f} simulated s, 6 robots: "
          f"{frames} camera frames with detections, {n_plans} plans; median CPU time of {repeats} interleaved replays)")
    for label, replay, old, new, count, unit in (
            ("localization", replay_filters, loc_old, loc_new, frames, "camera frame"),
            ("planning", replay_plans, nav_old, nav_new, n_plans, "plan")):
        t_old, t_new, same = [], [], True
        for _ in range(repeats):
            a, out_a = replay(old, filters if label == "localization" else plans)
            b, out_b = replay(new, filters if label == "localization" else plans)
            t_old.append(a)
            t_new.append(b)
            same = same and out_a == out_b
        mo, mn = statistics.median(t_old) / count * 1e6, statistics.median(t_new) / count * 1e6
        print(f"  {label:<12} {rev}: {mo:7.1f} us per {unit} | this checkout: {mn:7.1f} us | ratio "
              f"{mn / mo:5.3f} | outputs bit-identical: {'yes' if same else 'NO'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REV", help="also A/B against this git revision on a match workload")
    parser.add_argument("--record-s", type=float, default=10.0, help="simulated seconds recorded (default 10)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ab-only", action="store_true", help="only the A/B (needs --against)")
    args = parser.parse_args()
    t0 = time.perf_counter()
    if not args.ab_only:
        bench_filter()
        bench_planner()
    if args.against:
        bench_against(args.against, args.record_s, args.repeats)
    print(f"total {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
