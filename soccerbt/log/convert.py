"""JSON-lines replay logs of earlier versions, converted once into MCAP (``soccerbt replay convert``).

Before MCAP, ``soccerbt run --record FILE`` wrote one JSON line per 10 ms step (format version
1, gzip-compressed for a ``.gz`` name): a header (seed, field, team size, dt, trees, robots,
sides), a ``step`` record per step (time, ball, each robot's true pose, flags and command, the
GameController state and score, each robot's root status, the root blackboard entries that
changed, the events) and an ``end`` record with the summary. Those logs are no longer written or
replayed; ``convert_log(old, new)`` writes what one holds as an MCAP log
(``soccerbt.log.format``) that the replay viewer, ``--info`` and ``--robot`` open:

- the header: seed, field, team size, dt, robots, tree paths (no hashes: the old log had none),
  which goal blue attacks first, ``"node_data": false`` and ``converted_from``;
- every step: the truth, and per robot a tick whose number is the step's, with the root
  status, the command and the blackboard changes (each value exactly as the old log wrote it,
  as JSON; writer ``unknown``: the old log did not record writers), no transitions;
- a keyframe of each robot's blackboard every simulated second;
- the events as recorded, the summary of the end record, and the index attachment.

It holds no node data, so the tree tools (``--tree``, ``--transitions``, ``--find``, ``diff``,
``--btlog``, ``--verify``) refuse a converted log and say so.

The old log is read once, line by line, in linear time: a line longer than ``MAX_LINE_BYTES`` is
refused, and memory holds one line and each robot's blackboard. Errors are ``ReplayError``
(``path:line: message``); a log cut short (a killed run, a truncated or damaged gzip stream)
converts up to its last whole record and says so in the warnings.
"""
from __future__ import annotations

import gzip
import json
import math
import os
import re
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeGuard

from soccerbt import __version__
from soccerbt.cli.outputs import RECORD_SUFFIX, open_exclusive
from soccerbt.log import format as lf
from soccerbt.log import proto
from soccerbt.log.format import ReplayError
from soccerbt.log.tick_encode import step_message
from soccerbt.log.upgrade import command_message, truth_message
from soccerbt.log.writer import LogWriter
from soccerbt.world.field import Field

__all__ = ["convert_log", "Conversion", "JSONL_VERSION", "MAX_LINE_BYTES", "looks_like_jsonl"]

JSONL_VERSION = 1                 # the only version of the JSON-lines log there was
MAX_LINE_BYTES = 16 << 20         # a longer line is not a record of a soccerbt log
_GZIP_MAGIC = b"\x1f\x8b"
_UNKNOWN = lf.WRITERS.index("unknown")  # the Adapter enum value of an unknown writer
_NAN = float("nan")
_EVENT_FIELDS = ("kind", "detail", "t", "team", "robot", "node_path")
_ROBOT_NAME = re.compile(r"(blue|red)[0-9]+")
_ROOT_CODES = {**lf.STATUS_CODES, "INVALID": 0, "": 0, "EXCEPTION": lf.ROOT_EXCEPTION}


@dataclass
class Conversion:
    """What ``convert_log`` wrote: steps, simulated seconds, events, and warnings (a cut end)."""

    steps: int = 0
    duration_s: float = 0.0
    events: int = 0
    warnings: list[str] = field(default_factory=list)


def looks_like_jsonl(path: str | Path) -> bool:
    """Whether the file is a regular file that starts like a JSON-lines log: gzip's magic bytes or
    a JSON object (a FIFO or a device is never opened)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as f:
            head = f.read(2)
    except OSError:
        return False
    return head == _GZIP_MAGIC or head[:1] == b"{"


# --- reading the old log --------------------------------------------------------------------------


class _Lines:
    """The numbered lines of a log file (plain or gzip), each at most MAX_LINE_BYTES; ``cut``
    says why the data ended early, ``compressed`` whether it is gzip."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.cut: str | None = None
        self.compressed = False

    def __iter__(self) -> Iterator[tuple[int, bytes, bool]]:
        """(line number, bytes without the newline, whether the line had its newline)."""
        try:
            if not stat.S_ISREG(os.stat(self.path).st_mode):
                if stat.S_ISDIR(os.stat(self.path).st_mode):
                    raise IsADirectoryError
                raise ReplayError(self.path, None, "not a regular file (a FIFO or a device); a replay log is a file")
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
            raw: IO[bytes] = os.fdopen(fd, "rb")
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raw.close()
                raise ReplayError(self.path, None, "changed while it was opened; not read")
        except FileNotFoundError:
            raise ReplayError(self.path, None, "no such file") from None
        except IsADirectoryError:
            raise ReplayError(self.path, None, "is a directory, not a replay log") from None
        except OSError as exc:
            raise ReplayError(self.path, None, f"cannot read ({exc.strerror or exc})") from None
        with raw:
            self.compressed = raw.read(2) == _GZIP_MAGIC
            raw.seek(0)
            if not self.compressed and self.path.suffix == ".gz" and raw.read(1):
                raise ReplayError(self.path, None, "not a gzip file (the name ends in .gz)")
            raw.seek(0)
            f: gzip.GzipFile | IO[bytes] = gzip.GzipFile(fileobj=raw, mode="rb") if self.compressed else raw
            lineno = 0
            while True:
                try:
                    line = f.readline(MAX_LINE_BYTES + 1)
                except EOFError:
                    self.cut = "the gzip stream is cut short (truncated file)"
                    return
                except (zlib.error, gzip.BadGzipFile, OSError) as exc:
                    self.cut = f"damaged gzip data ({exc})"
                    return
                if not line:
                    return
                lineno += 1
                whole = line.endswith(b"\n")
                if not whole and len(line) > MAX_LINE_BYTES:
                    raise ReplayError(self.path, lineno, f"a line longer than {MAX_LINE_BYTES} bytes: "
                                                         "not a soccerbt replay log")
                yield lineno, line.rstrip(b"\r\n") if whole else line, whole


def _parse(path: Path, lineno: int, raw: bytes) -> dict[str, Any]:
    try:
        record = json.loads(raw)
    except UnicodeDecodeError:
        raise ReplayError(path, lineno, "not UTF-8 text") from None
    except ValueError as exc:
        raise ReplayError(path, lineno, f"not a JSON record ({getattr(exc, 'msg', exc)})") from None
    except RecursionError:  # a record nested thousands deep: refused as any bad line is
        raise ReplayError(path, lineno, f"a JSON record nested deeper than {lf.MAX_JSON_DEPTH} levels") from None
    try:
        lf.check_depth(record)
    except lf.ShapeError as exc:
        raise ReplayError(path, lineno, str(exc)) from None
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        raise ReplayError(path, lineno, "a record must be an object with a 'type'")
    return record


def _number(value: object) -> TypeGuard[float]:  # an int or a float (not a bool)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_header(path: Path, lineno: int, record: dict[str, Any]) -> list[str]:
    """The robots of a valid version-1 header; ReplayError naming what is wrong."""
    if record["type"] != "header":
        raise ReplayError(path, lineno, f"the first record must be the header, not {record['type']!r}")
    if record.get("version") != JSONL_VERSION:
        raise ReplayError(path, lineno, f"log version {record.get('version')!r} is not supported "
                                        f"(the JSON-lines log had version {JSONL_VERSION})")
    robots = record.get("robots")
    if not isinstance(robots, list) or not robots:
        raise ReplayError(path, lineno, "header: 'robots' must be a non-empty list of robot names")
    for key in robots:
        if not isinstance(key, str) or not _ROBOT_NAME.fullmatch(key):
            raise ReplayError(path, lineno, f"header: robot {key!r} is not named like blue1 or red3")
    dt = record.get("dt_s")
    if not _number(dt) or not dt > 0:
        raise ReplayError(path, lineno, "header: 'dt_s' must be a positive number of seconds")
    try:
        Field.by_name(str(record.get("field", "")))
    except ValueError as exc:
        raise ReplayError(path, lineno, f"header: {exc}") from None
    trees = record.get("trees", {})
    if not isinstance(trees, dict):
        raise ReplayError(path, lineno, "header: 'trees' must be an object team -> tree file")
    return [str(key) for key in robots]


def _step_values(record: dict[str, Any], robots: list[str]) -> tuple[float, list, list, dict, dict, dict, list]:
    """(t, ball, gc, poses, statuses, blackboard changes, events) of a step record; ValueError
    saying what is wrong."""
    t = record.get("t")
    if not _number(t) or not math.isfinite(t):
        raise ValueError("step record: 't' must be a number of seconds")
    ball = record.get("ball")
    if not isinstance(ball, list) or len(ball) < 2 or not all(_number(v) for v in ball[:4]):
        raise ValueError("step record: 'ball' must be a list [x_m, y_m, vx_mps, vy_mps] of numbers")
    gc = record.get("gc")
    if not isinstance(gc, list) or len(gc) < 5 or not all(isinstance(v, int) and -32768 <= v <= 32767
                                                           for v in gc[:5]):
        raise ValueError("step record: 'gc' must be a list of 5 integers [state, set play, sub-state, blue, red]")
    poses = record.get("robots")
    if not isinstance(poses, dict):
        raise ValueError("step record: 'robots' must be an object robot -> [x_m, y_m, theta_rad, fallen, removed, ...]")
    for key in robots:
        value = poses.get(key)
        if value is None:
            raise ValueError(f"step record: robot {key} (listed in the header) is missing")
        if (not isinstance(value, list) or len(value) < 5 or not all(_number(v) for v in value[:10])
                or (len(value) > 10 and value[10] is not None and not _kick(value[10]))):
            raise ValueError(f"step record: robot {key} must be [x_m, y_m, theta_rad, fallen, removed, vx, vy, "
                             "vtheta, head pan, head tilt, kick] numbers")
    status, changes, events = record.get("status", {}), record.get("bb", {}), record.get("events", [])
    for name, value in (("status", status), ("bb", changes)):
        if not isinstance(value, dict):
            raise ValueError(f"step record: {name!r} must be an object keyed by robot")
    for key, robot_changes in changes.items():
        if not isinstance(robot_changes, dict):
            raise ValueError(f"step record: blackboard changes of {key} must be an object")
    if not isinstance(events, list):
        raise ValueError("step record: 'events' must be a list")
    return t, ball, gc, poses, status, changes, events


def _kick(value: object) -> bool:
    return isinstance(value, list) and len(value) >= 2 and _number(value[0]) and _number(value[1])


def _command(values: list) -> tuple[float, ...]:
    """The 7 command values of the format from a robot's row (missing: 0, no kick: NaN)."""
    motion = [float(v) for v in values[5:10]] + [0.0] * (10 - max(5, min(10, len(values))))
    kick = values[10] if len(values) > 10 else None
    return (*motion, *((float(kick[0]), float(kick[1])) if kick else (_NAN, _NAN)))


# --- writing the MCAP log ---------------------------------------------------------------------------


class _Robot:
    """One robot's blackboard as converted so far: its latest values."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.board: dict[str, Any] = {}

    def tick(self, step: int, root: int, command: tuple[float, ...], changes: dict[str, Any]) -> bytes:
        """The robot's ``soccerbt.Tick``: the root, the command and every change as JSON text
        (the old log's values exactly), writer ``unknown``."""
        msg = proto.Tick(robot=self.name, step=step, tick=step, root=root, command=command_message(command))
        for key, value in changes.items():
            self.board[key] = value
            msg.changes.add(key=key, adapter=_UNKNOWN, json=lf.json_text(value))
        return msg.SerializeToString()

    def keyframe(self, after_step: int) -> bytes:
        return lf.json_bytes({"after_step": after_step, "tick": after_step, "load": 0, "statuses": [],
                              "blackboard": {k: [v, "unknown"] for k, v in sorted(self.board.items())}})


def _header(old: dict[str, Any], robots: list[str], path: Path) -> dict[str, Any]:
    trees = {str(team): {"path": str(tree), "files": []} for team, tree in (old.get("trees") or {}).items()}
    return {"format": lf.FORMAT, "format_version": lf.FORMAT_VERSION, "soccerbt_version": __version__,
            "seed": old.get("seed"), "field": old["field"], "team_size": old.get("team_size"),
            "dt_s": float(old["dt_s"]), "robots": robots, "all_robots": robots, "trees": trees,
            "blue_attacks_positive_x_first_half": bool(old.get("blue_attacks_positive_x_first_half", True)),
            "keyframe_steps": lf.KEYFRAME_STEPS, "node_data": False,
            "converted_from": {"format": "soccerbt JSON lines", "version": old["version"], "file": str(path)}}


def convert_log(old: str | Path, new: str | Path) -> Conversion:
    """Convert the JSON-lines log `old` into the MCAP log `new` (see the module docstring),
    written under a temporary name beside it and renamed when whole. ``ReplayError`` for a bad
    old log (nothing is written then); OSError when `new` cannot be written."""
    old, new = Path(old), Path(new)
    if not str(new).endswith(RECORD_SUFFIX):
        raise ValueError(f"{new}: the converted log's name must end in {RECORD_SUFFIX}")
    target = Path(os.path.realpath(new))  # a link named by the user: its target is written
    tmp, stream = open_exclusive(target.parent, target.name)
    out: LogWriter | None = None
    try:
        out = LogWriter(tmp, stream=stream)
        done = _convert(old, out)
        os.replace(tmp, target)
        return done
    except BaseException:
        stream.close()
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


def _convert(path: Path, out: LogWriter) -> Conversion:
    lines = _Lines(path)
    it = iter(lines)
    robots: list[str] = []
    done = Conversion()
    for lineno, raw, _whole in it:
        if raw.strip():
            robots = _check_header(path, lineno, header := _parse(path, lineno, raw))
            break
    else:
        raise ReplayError(path, None, "empty file, not a soccerbt replay log")
    out.dt_s = dt = float(header["dt_s"])
    out.put(out.channel(lf.HEADER_TOPIC, "header"), 0, lf.json_bytes(_header(header, robots, path)))
    tracks = [_Robot(name) for name in robots]
    for track in tracks:
        out.put(out.channel(lf.keyframe_topic(track.name), "keyframe"), 1, track.keyframe(0))
    step_channel = out.channel(lf.STEP_TOPIC, "step")
    events: list[dict[str, Any]] = []
    result: Any = None
    last_step = 0
    ended = False
    for lineno, raw, whole in it:
        if not raw.strip():
            continue
        try:
            record = _parse(path, lineno, raw)
        except ReplayError as exc:
            if not whole:  # the run stopped while writing this line
                done.warnings.append(f"{path}:{lineno}: the last record is cut short ({exc.message}); "
                                     "converted up to the record before it")
                break
            if done.steps and lines.compressed:  # damaged compressed data inflates to garbage from here
                done.warnings.append(f"{path}:{lineno}: damaged data ({exc.message}); "
                                     f"converted the {done.steps} steps before it")
                break
            raise
        kind = record["type"]
        if ended:
            raise ReplayError(path, lineno, f"a {kind!r} record after the end record")
        if kind == "end":
            ended, result = True, record.get("result")
            continue
        if kind != "step":
            raise ReplayError(path, lineno, f"unknown record type {kind!r}")
        try:
            t, ball, gc, poses, status, changes, step_events = _step_values(record, robots)
        except ValueError as exc:
            raise ReplayError(path, lineno, str(exc)) from None
        step = round(t / dt)
        if step <= last_step:
            raise ReplayError(path, lineno, f"time goes backwards: t={t} after t={last_step * dt:g}")
        truth = [(float(p[0]), float(p[1]), float(p[2]), 1 if p[3] else 0, 1 if p[4] else 0)
                 for p in (poses[key] for key in robots)]
        # the ignores: 4 and 5 values (_step_values checked that ball has 2 or more, gc 5 or more)
        record_truth = lf.TruthRecord(step, float(t),
                                      tuple(float(v) for v in (ball + [0.0, 0.0])[:4]),  # type: ignore[arg-type]
                                      tuple(int(v) for v in gc[:5]), truth)  # type: ignore[arg-type]
        try:
            truth_data = truth_message(record_truth, robots)
        except (ValueError, OverflowError) as exc:
            raise ReplayError(path, lineno, f"step record: a value out of range ({exc})") from None
        ticks = [track.tick(step, _ROOT_CODES.get(str(status.get(track.name, "")), 0), _command(poses[track.name]),
                            changes.get(track.name) or {}) for track in tracks]
        out.put(step_channel, step, step_message(step, truth_data, ticks))
        if step // lf.KEYFRAME_STEPS > last_step // lf.KEYFRAME_STEPS:
            for track in tracks:
                out.put(out.channel(lf.keyframe_topic(track.name), "keyframe"), step, track.keyframe(step))
        for event in step_events:
            if isinstance(event, dict):
                row = {**{name: event.get(name) for name in _EVENT_FIELDS}, **event, "step": step}
                events.append(row)
                out.put(out.channel(lf.EVENTS_TOPIC, "events"), step, lf.json_bytes(row))
        last_step = step
        done.steps += 1
    if lines.cut is not None:
        done.warnings.append(f"{path}: {lines.cut}; converted up to the last whole record "
                             f"(t={last_step * dt:.2f}s)")
    if done.steps == 0:
        raise ReplayError(path, None, "no step records (the run recorded nothing)")
    if not ended and not done.warnings:
        done.warnings.append(f"{path}: no end record (the run was stopped before it finished)")
    if isinstance(result, dict):
        out.put(out.channel(lf.SUMMARY_TOPIC, "summary"), last_step, lf.json_bytes(result))
    out.finish(last_step, {"events": events, "loads": [], "steps": last_step})
    done.duration_s, done.events = last_step * dt, len(events)
    return done
