"""The replay log of a run: one JSON line per tick, written by an observer of the match.

``Recorder(path)`` is a match observer (``on_step(match)``). The file starts with a header
line (format version, seed, field, team size, trees, dt, robots, which goal blue attacks in
the first half), then for every step a ``step`` record: simulated time, the ball's truth,
each robot's truth (world frame) and command, the GameController state, each robot's tree
status and the root blackboard entries that changed since the previous step (the first step
lists them all), and the events of the step (goals, penalties, node exceptions, reloads). A
final ``end`` record holds the summary. A path ending in ``.gz`` is compressed.
``soccerbt.tools.replay`` loads a log into an index for the replay viewer.

The log is deterministic: the same seed gives the same file, byte for byte (no wall-clock
time, floats rounded to fixed digits, keys in a fixed order). ``read_log(path)`` yields the
records back as dicts; ``replay_frames`` picks the ``step`` records.
"""
from __future__ import annotations

import gzip
import io
import json
import math
from collections.abc import Iterator
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import IO, Any

__all__ = ["Recorder", "read_log", "replay_frames", "LOG_VERSION", "json_value"]

LOG_VERSION = 1
_DIGITS = 4
_MISSING = object()


def json_value(value: object) -> object:
    """A JSON-ready, deterministic rendering of a blackboard value (poses as [x, y, theta])."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return round(value, _DIGITS)
        return repr(value)
    if isinstance(value, (tuple, list)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    x = getattr(value, "x_m", None)
    y = getattr(value, "y_m", None)
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        th = getattr(value, "theta_rad", None)
        return [json_value(float(x)), json_value(float(y))] + ([json_value(float(th))] if th is not None else [])
    name = getattr(value, "name", None)  # enums, statuses
    if isinstance(name, str):
        return name
    if is_dataclass(value) and not isinstance(value, type):
        return json_value(asdict(value))
    return repr(value)


def _open_write(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        # mtime=0: the compressed bytes do not depend on the wall clock
        raw = gzip.GzipFile(filename="", mode="wb", fileobj=open(path, "wb"), mtime=0)
        return io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


class Recorder:
    """Writes the replay log of a match (see the module docstring). Use as an observer."""

    def __init__(self, path: str | Path, blackboard: bool = True) -> None:
        self.path = Path(path)
        self.blackboard = blackboard
        self._out: IO[str] | None = _open_write(self.path)
        self._prev_bb: dict[str, dict[str, object]] = {}
        self._history_seen = 0
        self._agent_events_seen = 0
        self._header_done = False
        self.records = 0

    def _write(self, record: dict[str, Any]) -> None:
        if self._out is None:
            raise ValueError(f"{self.path}: the recorder is closed")
        self._out.write(_dumps(record))
        self._out.write("\n")
        self.records += 1

    def on_start(self, match: Any) -> None:
        """The header (called by the first ``on_step`` when nobody called it)."""
        cfg = match.config
        self._write({
            "type": "header", "version": LOG_VERSION, "seed": cfg.seed, "field": match.field.name,
            "team_size": match.team_size, "dt_s": match.dt_s,
            "trees": {"blue": str(cfg.tree_of(_team("BLUE"))), "red": str(cfg.tree_of(_team("RED")))},
            "robots": [str(rid) for rid in match.agents],
            # added after version 1 shipped (readers default it to True): which goal blue attacks
            # in the first half, so a replay can turn team-frame estimates into world frame
            "blue_attacks_positive_x_first_half": bool(
                getattr(match.referee.config, "blue_attacks_positive_x_first_half", True)),
        })
        self._header_done = True

    def on_step(self, match: Any) -> None:
        if not self._header_done:
            self.on_start(match)
        world, ref = match.world, match.referee
        ball = world.ball
        r = _DIGITS
        robots: dict[str, object] = {}
        status: dict[str, object] = {}
        bb_changes: dict[str, dict[str, object]] = {}
        for rid, agent in match.agents.items():
            key = str(rid)
            t = world.robots[rid]
            c = agent.last_command
            robots[key] = [round(t.x_m, r), round(t.y_m, r), round(t.theta_rad, r), int(t.fallen), int(t.removed),
                           round(c.vx_mps, r), round(c.vy_mps, r), round(c.vtheta_radps, r),
                           round(c.head_pan_rad, r), round(c.head_tilt_rad, r),
                           None if c.kick is None else [round(c.kick.direction_rad, r), round(c.kick.strength, r)]]
            st = agent.last_status
            status[key] = "EXCEPTION" if agent.tree_failed else (getattr(st, "name", None) or str(st))
            if self.blackboard:
                changes = self._bb_changes(key, agent.blackboard)
                if changes:
                    bb_changes[key] = changes
        record: dict[str, Any] = {
            "type": "step", "t": round(world.t_s, 3),
            "ball": [round(ball.x_m, r), round(ball.y_m, r), round(ball.vx_mps, r), round(ball.vy_mps, r)],
            "robots": robots, "status": status,
            "gc": [int(getattr(ref, "shown_state", ref.state)), int(ref.secondary_state), int(ref.sub_state),
                   ref.scores[_team("BLUE")], ref.scores[_team("RED")]],
        }
        if bb_changes:
            record["bb"] = bb_changes
        events = self._new_events(match)
        if events:
            record["events"] = events
        self._write(record)

    def _bb_changes(self, key: str, bb: Any) -> dict[str, object]:
        prev = self._prev_bb.setdefault(key, {})
        changes: dict[str, object] = {}
        for name in sorted(bb.keys()):
            value = json_value(bb[name])
            if prev.get(name, _MISSING) != value:
                changes[name] = value
                prev[name] = value
        return changes

    def _new_events(self, match: Any) -> list[object]:
        out: list[object] = []
        history = match.referee.history
        for rec in history[self._history_seen:]:
            out.append({"kind": rec.kind, "detail": rec.detail, "t": round(rec.t_s, 3),
                        "team": rec.team.name.lower() if rec.team is not None else None,
                        "robot": str(rec.robot) if rec.robot is not None else None})
        self._history_seen = len(history)
        agent_events = match.agent_events
        for ev in agent_events[self._agent_events_seen:]:
            out.append({"kind": ev.kind, "detail": ev.message, "t": round(ev.t_s, 3), "robot": ev.robot,
                        "node_path": ev.node_path})
        self._agent_events_seen = len(agent_events)
        return out

    def finish(self, result: Any = None) -> None:
        """Write the end record (the summary when given) and close the file."""
        if self._out is None:
            return
        self._write({"type": "end", "result": json_value(result.to_dict()) if result is not None else None})
        self.close()

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _team(name: str) -> Any:
    from soccerbt.world.types import Team

    return Team[name]


def read_log(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of a replay log, in order. A malformed line raises ``ValueError`` with
    ``path:line: what is wrong``."""
    p = Path(path)
    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{p}:{lineno}: not a JSON record ({exc.msg})") from None
            if not isinstance(record, dict) or "type" not in record:
                raise ValueError(f"{p}:{lineno}: a record must be an object with a 'type'")
            if lineno == 1 and (record["type"] != "header" or record.get("version") != LOG_VERSION):
                raise ValueError(f"{p}:1: not a soccerbt replay log of version {LOG_VERSION}")
            yield record


def replay_frames(path: str | Path) -> Iterator[dict[str, Any]]:
    """The ``step`` records of a replay log."""
    return (r for r in read_log(path) if r["type"] == "step")
