"""``soccerbt replay LOG --verify``: the match re-run from the log's header and compared step by step.

``verify_config`` and ``verify_trees`` check what a re-run would take from the log (the match
configuration within the command line's limits; the tree files unchanged, read only as tree
files), ``verify_log`` plays the match again and stops at the first step that differs.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from soccerbt.cli.match_options import FIELD_CHOICES
from soccerbt.log import format as lf
from soccerbt.log.format import ReplayError
from soccerbt.log.reader import Gap, McapLog, StepView, step_messages
from soccerbt.log.writer import McapRecorder
from soccerbt.match import Match, MatchConfig, default_tree_path
from soccerbt.resim.compare import step_differences, tree_notes
from soccerbt.resim.factory import log_factory
from soccerbt.trees.errors import TreeLoadError
from soccerbt.trees.includes import default_max_file_bytes, tree_files
from soccerbt.trees.xmlload import FileRefused, decode_xml_bytes, parse_xml_text, read_limited
from soccerbt.world.field import Field

__all__ = ["verify_config", "verify_trees", "verify_log", "MAX_PARTICLES"]


MAX_PARTICLES = 10_000
_TEAMS = ("blue", "red")


def verify_config(log: McapLog) -> dict[str, Any]:
    """The match configuration stored in the log's header, checked against the command line's
    limits (a field soccerbt knows, 1..11 robots a team and no more than the field holds, a seed
    of 0 or more, a positive finite half, GameController 12, 19 or 20, at most MAX_PARTICLES
    particles a robot, ...); ReplayError naming what it refused."""
    cfg = log.header.get("config")
    if not isinstance(cfg, dict):
        raise ReplayError(log.path, None, "the header holds no match configuration: cannot re-run it")

    def refuse(key: str, why: str) -> ReplayError:
        return ReplayError(log.path, None, f"refused to re-run: the header's config.{key} {why}")

    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    def shown(v: Any) -> str:
        text = repr(v)
        return text if len(text) <= 40 else text[:37] + "..."

    out: dict[str, Any] = {}
    field_name = cfg.get("field", "adult")
    if not isinstance(field_name, str) or field_name.strip().lower() not in FIELD_CHOICES:
        raise refuse("field", f"{shown(field_name)} is no field (S, M or L)")
    out["field"] = field_name.strip().lower()
    size = cfg.get("team_size")
    limit = Field.by_name(out["field"]).max_players_per_team
    if size is not None and (not is_int(size) or not 1 <= size <= min(11, limit)):
        raise refuse("team_size", f"{shown(size)} is not 1..{min(11, limit)} robots a team on that field")
    out["team_size"] = size
    seed = cfg.get("seed", 0)
    if not is_int(seed) or not 0 <= seed < 1 << 64:
        raise refuse("seed", f"{shown(seed)} is not a seed (0 or more)")
    out["seed"] = seed
    half = cfg.get("half_s", 600.0)
    if not isinstance(half, (int, float)) or isinstance(half, bool) or not 0 < half < float("inf"):
        raise refuse("half_s", f"{shown(half)} is not a positive number of seconds")
    out["half_s"] = float(half)
    for team in _TEAMS:
        tree = cfg.get(f"{team}_tree")
        if tree is not None and (not isinstance(tree, str) or not tree or "\0" in tree):
            raise refuse(f"{team}_tree", "is not a file name")
        out[f"{team}_tree"] = tree
    idle = cfg.get("idle_teams", [])
    if not isinstance(idle, list) or any(t not in _TEAMS for t in idle) or len(set(idle)) != len(idle):
        raise refuse("idle_teams", "is not a list of blue and red")
    out["idle_teams"] = tuple(idle)
    particles = cfg.get("particles", 300)
    if not is_int(particles) or not 1 <= particles <= MAX_PARTICLES:
        raise refuse("particles", f"{shown(particles)} is not 1..{MAX_PARTICLES:,} particles a robot")
    out["particles"] = particles
    gc_version = cfg.get("gc_version", 20)
    if gc_version not in (12, 19, 20) or not is_int(gc_version):
        raise refuse("gc_version", f"{shown(gc_version)} is not 12, 19 or 20")
    out["gc_version"] = gc_version
    knockout = cfg.get("knockout", False)
    if not isinstance(knockout, bool) or (knockout and gc_version == 12):
        raise refuse("knockout", "is not true or false (true needs GameController 19 or 20)")
    out["knockout"] = knockout
    if not isinstance(cfg.get("reproducible", False), bool):
        raise refuse("reproducible", "is not true or false")
    return out


def verify_trees(log: McapLog, config: dict[str, Any], max_file_bytes: int | None = None) -> list[str]:
    """Check that the files a re-run would load are those the header names, unchanged. Reads
    only what the configured trees are (each tree and, recursively, its includes, as the loader
    finds them), only regular files, bounded, that parse as BehaviorTree.CPP trees; never a path
    the header alone names. [] when they match; else what was refused and why."""
    limit = max_file_bytes if max_file_bytes is not None else default_max_file_bytes()
    trees = log.header.get("trees") or {}
    for team in _TEAMS:
        if team in config["idle_teams"]:
            continue  # an idle team plays no tree
        configured = config[f"{team}_tree"] or str(default_tree_path())
        stored = trees.get(team)
        if not isinstance(stored, dict) or not stored.get("files"):
            return [f"refused to re-run: the header lists no tree files of {team}"]
        named = {os.path.realpath(e["path"]): e["sha256"] for e in stored["files"]}
        files = [Path(os.path.realpath(f)) for f in tree_files(configured, max_file_bytes=limit)]
        for f in files:
            if str(f) not in named:
                return [f"{f}: the {team} tree ({configured}) includes it but the log's header does not list it: "
                        f"the tree changed since the run; cannot verify"]
        extra = sorted(set(named) - {str(f) for f in files})
        if extra:
            return [f"refused: the header lists {extra[0]} among the {team} tree's files, but {configured} does not "
                    f"include it; verify reads only the files of the configured tree"]
        for f in files:
            try:
                raw = read_limited(f, limit)
                parse_xml_text(decode_xml_bytes(raw, str(f)), str(f), f.parent)
            except FileRefused as exc:
                return [f"refused: {f}: {exc.reason} (verify reads only tree files)"]
            except TreeLoadError as exc:
                return [f"refused: {f}: not a BehaviorTree.CPP tree ({exc.message}); verify reads only tree files"]
            if hashlib.sha256(raw).hexdigest() != named[str(f)]:
                return [f"{f}: changed since the run (SHA-256 differs); cannot verify ({team})"]
    return []


def verify_log(log: McapLog, node_plugins: Sequence[str] = ()) -> tuple[bool, list[str]]:
    """Re-run the match from the log's seed, configuration and tree files (all checked first:
    ``verify_config``, ``verify_trees``) and compare it with the log step by step as it runs,
    stopping at the first step that differs. (reproduces, messages). A team's own nodes come from
    the installed plugins and `node_plugins` (``--nodes``); one the log's run used and this run
    lacks is said, and nothing is re-run."""
    log.require_node_data()
    config = verify_config(log)
    if not log.header["config"].get("reproducible", False):
        return False, ["the log's match used a custom noise or referee configuration: cannot re-run it"]
    problems = verify_trees(log, config)
    if problems:
        return False, problems
    factory = log_factory(log, node_plugins)  # ReplayError: a plugin of the run is not loaded
    match = Match(MatchConfig(duration_s=log.last_step * log.dt_s, node_plugins=tuple(node_plugins), **config),
                  tree_factory=factory)
    if abs(match.dt_s - log.dt_s) > 1e-12:
        return False, [f"the log steps {log.dt_s:g} s, this soccerbt {match.dt_s:g} s: cannot re-run it"]
    gaps: list[Gap] = []
    steps = step_messages(log, gaps)
    compare = _Compare(log, steps)
    with open(os.devnull, "wb") as sink:
        recorder = McapRecorder(log.path.with_suffix(".verify.mcap"), stream=sink, tap=compare.message)
        recorder.on_start(match)
        match.observers.append(recorder)
        while match.steps < log.last_step and not match.finished() and compare.going:
            match.step()
            compare.check(match.steps)
        recorder.close()
    for _ in steps:  # the gaps after the last compared step
        pass
    missing = [f"{log.path}: {g.text(log.dt_s)}; not compared" for g in gaps]
    if compare.lines:
        return False, compare.notes + missing + compare.lines
    if compare.ended is not None:
        return False, compare.notes + missing + [compare.ended]
    if match.steps < log.last_step:
        return False, compare.notes + missing + [f"the re-run ended at step {match.steps}, the log holds "
                                                 f"{log.last_step} steps"]
    if missing:
        return False, compare.notes + missing
    seed = log.header["config"].get("seed")
    return True, compare.notes + [f"{log.path}: reproduces ({log.last_step} steps, seed {seed})"]


class _Compare:
    """The re-run's messages (a recorder's tap) against the log's steps, a step at a time: a
    format-2 log's truth and ticks byte for byte, a format-1 log's decoded (the re-run writes
    format 2), the first difference said value by value."""

    def __init__(self, log: McapLog, steps: Iterator[tuple[int, Any]]) -> None:
        self.log = log
        self.steps = steps
        self.next = next(steps, None)
        self.going = True
        self.lines: list[str] = []
        self.notes: list[str] = []
        self.ended: str | None = None
        self.trees = {lf.tree_topic(r): r for r in log.robots}
        self.step_data: bytes | None = None

    def message(self, topic: str, step: int, data: bytes) -> None:
        if not self.going:
            return
        if topic == lf.STEP_TOPIC:
            self.step_data = data
        elif topic in self.trees:
            robot = self.trees[topic]
            again = lf.load_json(data)
            if again.get("load") == 1:
                self.notes += tree_notes(robot, self.log.tree(robot, 1), again)

    def check(self, step: int) -> None:
        """Compare the re-run's step `step` (its messages just tapped) with the log's."""
        ours, self.step_data = self.step_data, None
        if not self.going:
            return
        while self.next is not None and self.next[0] < step:
            self.next = next(self.steps, None)
        if self.next is None:
            self.ended = f"the log ends before step {step}: the re-run goes on"
            self.going = False
            return
        if self.next[0] > step:
            return  # a step the log is missing: its gap says so
        mine = self.next[1]
        if self.log.format_version != 1 and mine == ours:
            return
        try:
            va = self.log.view_of(mine, step)
        except ValueError as exc:
            self.going = False
            self.lines = [f"step {step} of the log is unreadable ({exc})"]
            return
        if ours is None:
            self.going = False
            self.lines = [f"step {step}: the re-run wrote no step message"]
            return
        vb = self.log.view_of(ours, step) if self.log.format_version != 1 else _view_v2(self.log, ours)
        differences = step_differences(self.log.robots, va, vb, ("log", "re-run"))
        if not differences and self.log.format_version == 1:
            return  # a format-1 log: the same values, written in the other format
        self.going = False
        self.lines = [f"first difference at step {step} (t={va.truth.t_s:.2f}s), log / re-run:",
                      *(differences or ["  the messages' bytes differ; their decoded values are the same"])]


def _view_v2(log: McapLog, data: bytes) -> StepView:
    """The re-run's step (format 2) as a StepView, whatever the log's format."""
    truth, ticks = lf.decode_step(data)
    return StepView(truth.step, truth, ticks)
