"""``soccerbt run``: play a simulated match with our trees (or any others), headless or viewed.

Without ``--headless`` the pygame viewer opens when a display exists (DISPLAY or
WAYLAND_DISPLAY, or an explicit SDL_VIDEODRIVER) and the viewer module is installed; otherwise
the match runs headless. Headless runs print a progress line to stderr and a final summary
(score, goals with times, per robot: distance walked, falls, kicks, penalties, localization
error, node exceptions); ``--json`` prints one summary object on stdout instead. The match
itself never reads the wall clock; only this tool measures ``wall_s`` and paces ``--realtime``.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from soccerbt.match import Match, MatchConfig, MatchResult

PROGRESS_PERIOD_S = 10.0  # simulated seconds between progress lines


def add_match_shape_arguments(parser: argparse.ArgumentParser) -> None:
    """How long and how big a match is, and under which GameController: ``--seconds``,
    ``--half``, ``--team-size``, ``--field``, ``--gc-version`` (shared by ``run``, ``view`` and
    ``batch``)."""
    parser.add_argument("--seconds", type=_positive_float, default=None,
                        help="simulated seconds per match (default: the whole match, two halves)")
    parser.add_argument("--half", type=_positive_float, default=600.0, help="half length in seconds (default 600)")
    parser.add_argument("--team-size", type=_team_size, default=None,
                        help="robots per team (default: 3 AdultSize, 4 KidSize)")
    parser.add_argument("--field", type=_field_name, choices=FIELD_CHOICES, default="adult", metavar="{S,M,L}",
                        help="HSL field: S 9x6 m (up to 7 a team), M 14x9 m (up to 5), L 22x14 m (up to 5, "
                             "5 v 5 by default); any case; kid and adult name S and M (default M)")
    parser.add_argument("--gc-version", type=int, choices=(12, 19, 20), default=20,
                        help="GameController the referee plays: 20 (default) or 19 the Humanoid Soccer League's "
                             "(HSL packets, set plays in PLAYING, delayed PLAYING), 12 the HL v12 one")
    parser.add_argument("--knockout", action="store_true",
                        help="a knock-out game: level at the end, two extra halves of 300 s, then a penalty "
                             "shoot-out (HSL referee only)")
    _check_team_size_on_field(parser)


FIELD_CHOICES = ("s", "m", "l", "kid", "adult", "small", "medium", "large")


def _field_name(text: str) -> str:
    """``--field``: case-insensitive (``L``, ``l``, ``Kid``); the choices check the name."""
    return text.strip().lower()


def _check_team_size_on_field(parser: argparse.ArgumentParser) -> None:
    """After parsing, ``--team-size`` must fit ``--field`` (7 on S, 5 on M and L) and
    ``--knockout`` needs an HSL ``--gc-version``: an argparse error otherwise, whatever the
    order of the options."""
    from soccerbt.world.field import Field

    parse = parser.parse_known_args

    def parse_known_args(args=None, namespace=None):  # type: ignore[no-untyped-def]
        ns, rest = parse(args, namespace)
        size, name = getattr(ns, "team_size", None), getattr(ns, "field", None)
        if size is not None and name is not None:
            limit = Field.by_name(name).max_players_per_team
            if size > limit:
                parser.error(f"argument --team-size: at most {limit} robots a team on the "
                             f"{name.upper() if len(name) == 1 else name} field, got {size}")
        if getattr(ns, "knockout", False) and getattr(ns, "gc_version", None) == 12:
            parser.error("argument --knockout: extra time and the shoot-out need the HSL referee "
                         "(--gc-version 19 or 20)")
        return ns, rest

    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]


def add_match_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that say which match to play (shared by ``run`` and ``view``)."""
    add_match_shape_arguments(parser)
    parser.add_argument("--seed", type=seed_value, default=0, help="seed of the run, 0 or more (default 0)")
    parser.add_argument("--tree", default=None, help="XML tree for both teams (default: our game.xml)")
    parser.add_argument("--blue-tree", default=None, help="XML tree for the blue team")
    parser.add_argument("--red-tree", default=None, help="XML tree for the red team")
    parser.add_argument("--pad", metavar="ROBOT", default=None, help="drive ROBOT (e.g. blue2) with a gamepad")


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``soccerbt run``."""
    parser.add_argument("--headless", action="store_true", help="no viewer, as fast as possible")
    add_match_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one summary object on stdout")
    parser.add_argument("--record", metavar="FILE", default=None,
                        help="write the replay log FILE.mcap (every node, for soccerbt replay); JSON-lines logs "
                             "are no longer written")
    parser.add_argument("--realtime", action="store_true", help="pace a headless run to simulated time")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument("--screenshot", metavar="PNG", default=None,
                        help="save the viewer's picture of the last moment as PNG (works headless)")
    parser.set_defaults(func=run)


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0.0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _team_size(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 11:
        raise argparse.ArgumentTypeError(f"team size must be 1..11, got {text!r}")
    return value


def seed_value(text: str) -> int:
    """A seed: an integer of 0 or more (numpy's generators take no negative seed)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is 0 or more, got {value}")
    return value


def tree_problem(args: argparse.Namespace) -> str | None:
    """Why a tree option names no tree file ("PATH: is a directory (--tree)"), or None."""
    for team in ("blue", "red"):
        own = getattr(args, f"{team}_tree", None)
        path, flag = (own, f"--{team}-tree") if own is not None else (getattr(args, "tree", None), "--tree")
        if path is None:
            continue
        p = Path(path)
        if p.is_dir():
            return f"{path}: is a directory, not a tree file ({flag})"
        if not p.is_file():
            return f"{path}: no such tree file ({flag})"
    return None


def shape_from_args(args: argparse.Namespace) -> MatchConfig:
    """The match options of ``add_match_shape_arguments`` (no seed, no trees): the base of the
    games of ``batch`` and ``sweep``."""
    return MatchConfig(team_size=args.team_size, field=args.field, duration_s=args.seconds, half_s=args.half,
                       gc_version=args.gc_version, knockout=args.knockout)


def config_from_args(args: argparse.Namespace) -> MatchConfig:
    """The match configuration the arguments ask for."""
    blue = args.blue_tree or args.tree
    red = args.red_tree or args.tree
    problem = tree_problem(args)
    if problem is not None:
        raise FileNotFoundError(problem)
    return MatchConfig(team_size=args.team_size, field=args.field, seed=args.seed, duration_s=args.seconds,
                       half_s=args.half, blue_tree=blue, red_tree=red,
                       realtime=getattr(args, "realtime", False), gc_version=args.gc_version,
                       knockout=args.knockout)


def display_available(env: dict[str, str] | None = None) -> bool:
    """A window can open: an X or Wayland display, or an SDL video driver chosen explicitly."""
    env = os.environ if env is None else env
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("SDL_VIDEODRIVER"))


def _viewer_entry() -> Any:
    """The viewer's match entry point (``view_match(match, ...)``), or None when absent."""
    try:
        module = importlib.import_module("soccerbt.tools.viewer")
    except ImportError:
        return None
    return getattr(module, "view_match", None)


def run(args: argparse.Namespace) -> int:
    """The ``run`` command; exit code 0, 1 when the match could not start, 2 a bad output path."""
    err = sys.stderr
    problem = check_outputs(args, ("record", "screenshot"))
    if problem is not None:
        print(f"soccerbt run: {problem}", file=err)
        return 2
    try:
        config = config_from_args(args)
        pads, pad_robots = _pads(args.pad)
        match = Match(config, pads=pads, pad_robots=pad_robots)
    except Exception as exc:  # a broken tree prints path:line: message
        print(f"soccerbt run: {exc}", file=err)
        return 1
    for robot in pad_robots or ():
        if robot not in match.agents:
            print(f"soccerbt run: --pad {args.pad}: no such robot in this match "
                  f"(robots: {', '.join(str(r) for r in match.agents)})", file=err)
            return 1
    recorder = None
    if args.record:
        from soccerbt.tools.mcap_recorder import make_recorder

        recorder = make_recorder(args.record, match, guarded=True)
    wall_start = time.perf_counter()
    view = None if args.headless or not display_available() else _viewer_entry()
    try:
        if view is not None:
            view(match, pads=pads)
        else:
            if not args.headless and not args.json and not args.quiet:
                print("soccerbt run: no display or viewer: running headless", file=err)
            _run_headless(match, pads, realtime=args.realtime, progress=None if args.quiet else err)
    except KeyboardInterrupt:
        print(f"soccerbt run: interrupted at t={match.t_s:.1f}s", file=err)
    wall_s = time.perf_counter() - wall_start
    result = match.result()
    if recorder is not None:
        recorder.finish(result)
    if getattr(args, "screenshot", None):
        try:
            _save_screenshot(match, args.screenshot, err)
        except (OSError, pygame_error()) as exc:  # an optional output: the summary still prints
            print(f"soccerbt run: {args.screenshot}: screenshot not saved ({exc})", file=err)
    if args.json:
        summary = result_json(result, wall_s)
        json.dump(summary, sys.stdout, indent=None, separators=(",", ":"))
        sys.stdout.write("\n")
    else:
        print_summary(result, wall_s, sys.stdout)
    return 0


def check_outputs(args: argparse.Namespace, names: tuple[str, ...]) -> str | None:
    """The first problem with the output files named by options `names` ("record" for
    --record), checked before any work: a missing folder, a directory, an input file, two
    outputs on one path; then a --record name that does not end in .mcap."""
    from soccerbt.tools.outputs import check_output_path, record_name_problem

    inputs = [getattr(args, k, None) for k in ("tree", "blue_tree", "red_tree")]
    seen: dict[str, str] = {}
    for name in names:
        path = getattr(args, name, None)
        if not path:
            continue
        flag = "--" + name.replace("_", "-")
        problem = check_output_path(path, inputs)
        if problem is not None:
            return f"{problem} ({flag})"
        key = os.path.abspath(path)
        if key in seen:
            return f"{path}: given to both {seen[key]} and {flag}"
        seen[key] = flag
    record = getattr(args, "record", None) if "record" in names else None
    problem = record_name_problem(record) if record else None
    return f"{problem} (--record)" if problem is not None else None


def pygame_error() -> type[BaseException]:
    """pygame's error class, or a class nothing raises when pygame is not imported yet."""
    module = sys.modules.get("pygame")
    return getattr(module, "error", OSError) if module is not None else OSError


def _save_screenshot(match: Match, path: str, err: TextIO) -> None:
    """Render the final moment off-screen (SDL's dummy driver when there is no display)."""
    if not display_available():
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    from soccerbt.tools.viewer import save_match_screenshot

    saved = save_match_screenshot(match, path, selected=next((str(r) for r in match.agents), None))
    print(f"soccerbt run: screenshot saved to {saved}", file=err)


def _pads(robot_text: str | None) -> tuple[Any, Any]:
    if robot_text is None:
        return None, None
    from soccerbt.drivers.gamepad import PadManager, parse_robot_key

    robot = parse_robot_key(robot_text)
    manager = PadManager()
    manager.assign(robot)
    return manager, {robot}


def _run_headless(match: Match, pads: Any, realtime: bool, progress: TextIO | None) -> None:
    start = time.perf_counter()
    next_report = PROGRESS_PERIOD_S
    while not match.finished():
        match.step()
        if pads is not None and match.steps % 2 == 0:
            pads.pump()  # no viewer owns pygame's queue: read the pad events here
        t = match.t_s
        if realtime:
            ahead = t - (time.perf_counter() - start)
            if ahead > 0.0:
                time.sleep(ahead)
        if progress is not None and t >= next_report - 1e-9:
            next_report += PROGRESS_PERIOD_S
            print(progress_line(match, time.perf_counter() - start), file=progress, flush=True)


def progress_line(match: Match, wall_s: float) -> str:
    """One line: simulated time, game state, score, speed against real time."""
    from soccerbt.gamecontroller.protocol import GameState

    ref = match.referee
    blue, red = (ref.scores[t] for t in sorted(ref.scores, key=lambda t: t.value))
    speed = match.t_s / wall_s if wall_s > 0 else float("inf")
    state = GameState(ref.state).name
    half = "1st" if ref.first_half else "2nd"
    return (f"t={match.t_s:7.1f}s  {half} half  {state:<8} blue {blue} : {red} red  "
            f"{speed:5.1f}x real time  errors {len(match.errors)}")


def result_json(result: MatchResult, wall_s: float) -> dict[str, Any]:
    """The ``--json`` summary object."""
    out = result.to_dict()
    out["wall_s"] = round(wall_s, 3)
    out["speed_x"] = round(result.sim_s / wall_s, 2) if wall_s > 0 else None
    return out


def print_summary(result: MatchResult, wall_s: float, out: TextIO) -> None:
    """The human summary of a run."""
    speed = result.sim_s / wall_s if wall_s > 0 else float("inf")
    print(f"final score: blue {result.score['blue']} : {result.score['red']} red  "
          f"({result.sim_s:.1f} s simulated in {wall_s:.1f} s, {speed:.1f}x real time, seed {result.seed})",
          file=out)
    for g in result.goals:
        who = g.scorer or "nobody"
        own = " (own goal)" if g.own_goal else ""
        print(f"  goal {g.team:<4} t={g.t_s:7.1f}s  by {who}{own}", file=out)
    if result.shoot_out is not None:
        for team, shots in result.shoot_out.items():
            marks = " ".join("o" if shot == "goal" else "x" for shot in shots)
            print(f"  shoot-out {team:<4} {marks}  ({shots.count('goal')} of {len(shots)})", file=out)
    print(f"  {'robot':<7} {'walked_m':>9} {'falls':>5} {'kicks':>5} {'pen':>4} {'loc_med_m':>9} "
          f"{'loc_mean_m':>10} {'exc':>4}", file=out)
    for r in result.robots:
        med = "-" if r.loc_error_median_m is None else f"{r.loc_error_median_m:.2f}"
        mean = "-" if r.loc_error_mean_m is None else f"{r.loc_error_mean_m:.2f}"
        print(f"  {r.robot:<7} {r.distance_walked_m:9.1f} {r.falls:5d} {r.kicks:5d} {r.penalties:4d} {med:>9} "
              f"{mean:>10} {r.node_exceptions:4d}", file=out)
    if result.errors:
        print(f"  errors ({len(result.errors)}):", file=out)
        for e in result.errors[:20]:
            print(f"    {e}", file=out)
        if len(result.errors) > 20:
            print(f"    ... {len(result.errors) - 20} more", file=out)
