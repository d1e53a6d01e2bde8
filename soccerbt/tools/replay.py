"""Replaying a recorded run: the log loaded into an in-memory index, and a scene source on it.

``ReplayLog.load(path)`` reads a replay log (``soccerbt run --record``, plain or gzip) once and
keeps what the viewer draws every frame in numpy arrays indexed by step (truth poses, ball,
GameController state, tree statuses, and the estimates, roles and decisions tracked from the
blackboard changes), so that seeking anywhere, backward too, costs one array lookup. The step
records themselves are kept zlib-compressed in chunks (``record(i)`` gives the exact recorded
dict back), with a blackboard snapshot per chunk (``blackboard_at(i, robot)``).

A bad log raises ``ReplayError`` (``path:line: what is wrong``); a gzip stream or a last line
cut short (a run that was killed) loads up to the last whole record and says so in
``warnings``. ``ReplaySceneSource`` turns a position in the log into the viewer's ``Scene``
(the same drawing as ``soccerbt view``) and moves that position: step, step back, seek.
``summary(log)`` and ``robot_lines(log, robot, ...)`` are the text views of ``soccerbt replay``.
"""
from __future__ import annotations

import json
import math
import zlib
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from soccerbt.tools.recorder import LOG_VERSION
from soccerbt.tools.scene import Banner, gc_words, Scene, SceneRobot, TreeLine
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, Team, from_team_frame

__all__ = ["ReplayError", "ReplayLog", "ReplaySceneSource", "GoalEvent", "summary", "robot_lines",
           "CHUNK_STEPS"]

CHUNK_STEPS = 128  # step records per compressed chunk (one chunk is ~1.3 simulated s)
_READ_BLOCK_BYTES = 1 << 20
_INFLATE_SLICE_BYTES = 4096
_GZIP_MAGIC = b"\x1f\x8b"
_DECODED_CHUNKS_KEPT = 4  # decoded chunks cached: playback and a short look back stay in cache
_BB_LOOKBACK_STEPS = 300  # the side panel lists changes of the last 3 simulated seconds at most
_BB_LINES = 24
_KICK_DECISIONS = frozenset({"kick", "cross", "adjust", "chase"})  # as MatchSceneSource draws them
_FALLEN, _REMOVED, _PENALISED = 1, 2, 4
_NAN = float("nan")


class ReplayError(ValueError):
    """A replay log that cannot be read: prints as ``path:line: message`` (or ``path: message``)."""

    def __init__(self, path: Path | str, line: int | None, message: str) -> None:
        self.path = Path(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else f"{self.path}"
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class GoalEvent:
    """A goal as the log tells it: when, who scored, who touched the ball last."""

    t_s: float
    team: str
    scorer: str | None
    own_goal: bool = False


# --- reading lines (plain or gzip, tolerant of a cut end) -------------------------------------------


class _Lines:
    """Numbered whole lines of a log file; ``cut`` says why the data ended early (None: it did not),
    ``tail`` is an unterminated last line (maybe a record cut in the middle)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.cut: str | None = None
        self.tail: tuple[int, bytes] | None = None
        self.compressed = False  # a gzip file (damage inflates to garbage, not to an error)

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        try:
            f = open(self.path, "rb")
        except FileNotFoundError:
            raise ReplayError(self.path, None, "no such file") from None
        except IsADirectoryError:
            raise ReplayError(self.path, None, "is a directory, not a replay log") from None
        except OSError as exc:
            raise ReplayError(self.path, None, f"cannot read ({exc.strerror or exc})") from None
        with f:
            lineno = 0
            rest = b""
            for data in self._blocks(f):
                parts = (rest + data).split(b"\n")
                rest = parts.pop()
                for part in parts:
                    lineno += 1
                    yield lineno, part
            if rest:
                self.tail = (lineno + 1, rest)

    def _blocks(self, f: BinaryIO) -> Iterator[bytes]:
        head = f.read(2)
        f.seek(0)
        if head != _GZIP_MAGIC:
            if self.path.suffix == ".gz" and head:
                raise ReplayError(self.path, None, "not a gzip file (the name ends in .gz)")
            while block := f.read(_READ_BLOCK_BYTES):
                yield block
            return
        # zlib by hand rather than gzip.open: a stream cut short still gives every byte before the cut
        self.compressed = True
        inflater_box = [zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)]
        offset_bytes = 0
        while block := f.read(_READ_BLOCK_BYTES):
            # inflated a slice at a time: zlib gives nothing of a call that fails, so small calls
            # keep every record before a damaged byte (as zcat does)
            for start in range(0, len(block), _INFLATE_SLICE_BYTES):
                yield from self._inflate(inflater_box, block[start:start + _INFLATE_SLICE_BYTES],
                                         offset_bytes + start)
                if self.cut is not None:
                    return
            offset_bytes += len(block)
        if not inflater_box[0].eof:
            self.cut = "the gzip stream is cut short (truncated file)"

    def _inflate(self, box: list, data: bytes, offset_bytes: int) -> Iterator[bytes]:
        """Inflate one slice into lines' bytes; sets ``cut`` on damage."""
        inflater = box[0]
        while data:
            if inflater.eof:  # a second gzip member (concatenated files) or garbage
                if not _GZIP_MAGIC.startswith(data[:2]):
                    self.cut = f"{len(data)} bytes of garbage after the gzip stream (ignored)"
                    return
                inflater = box[0] = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            try:
                out = inflater.decompress(data)
            except zlib.error as exc:
                # gzip checks its data only at the end of the stream: what inflated from the
                # damaged block before zlib noticed may be wrong already, so say so
                self.cut = (f"corrupt gzip data within bytes {offset_bytes}..{offset_bytes + len(data)} "
                            f"({exc}); read up to there (the last records read may be damaged too)")
                return
            if out:
                yield out
            data = inflater.unused_data if inflater.eof else b""


# --- the index -------------------------------------------------------------------------------------------


def _robot_team(path: Path, key: object) -> tuple[Team, int]:
    if isinstance(key, str):
        for team in Team:
            name = team.name.lower()
            if key.startswith(name) and key[len(name):].isdigit():
                return team, int(key[len(name):])
    raise ReplayError(path, 1, f"header: robot {key!r} is not named like blue1 or red3")


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _step_problem(record: dict[str, Any], robots: list[str]) -> str:
    """What is wrong with a step record the fast path could not read (for the error message)."""
    if not _number(record.get("t")):
        return "step record: 't' must be a number of seconds"
    ball = record.get("ball")
    if not isinstance(ball, list) or len(ball) < 2 or not all(_number(v) for v in ball[:2]):
        return "step record: 'ball' must be a list [x_m, y_m, vx_mps, vy_mps] of numbers"
    gc = record.get("gc")
    if not isinstance(gc, list) or len(gc) < 5 or not all(isinstance(v, int) for v in gc[:5]):
        return "step record: 'gc' must be a list of 5 integers [state, set play, sub-state, blue, red]"
    poses = record.get("robots")
    if not isinstance(poses, dict):
        return "step record: 'robots' must be an object robot -> [x_m, y_m, theta_rad, fallen, removed, ...]"
    for key in robots:
        value = poses.get(key)
        if value is None:
            return f"step record: robot {key} (listed in the header) is missing"
        if not isinstance(value, list) or len(value) < 5 or not all(_number(v) for v in value[:5]):
            return f"step record: robot {key} must be [x_m, y_m, theta_rad, fallen, removed, ...] numbers"
    for name in ("status", "bb"):
        if name in record and not isinstance(record[name], dict):
            return f"step record: {name!r} must be an object keyed by robot"
    for key, changes in record.get("bb", {}).items():
        if not isinstance(changes, dict):
            return f"step record: blackboard changes of {key} must be an object"
    if "events" in record and not isinstance(record["events"], list):
        return "step record: 'events' must be a list"
    return "step record: unreadable values"


class _Strings:
    """Interned strings as small integer codes (roles, decisions, statuses)."""

    def __init__(self) -> None:
        self.names: list[str] = [""]
        self._codes: dict[str, int] = {"": 0}

    def code(self, value: object) -> int:
        text = "" if value is None else value if isinstance(value, str) else str(value)
        code = self._codes.get(text)
        if code is None:
            code = self._codes[text] = len(self.names)
            self.names.append(text)
        return code


def _float(value: object) -> float:
    return float(value) if _number(value) else _NAN


_NAN2, _NAN3 = (_NAN, _NAN), (_NAN, _NAN, _NAN)
# which part of a robot's drawing an entry feeds: estimates change every tick, labels seldom
_ESTIMATE_KEYS = frozenset({"robot_pose_field", "ball_location_known", "ball_field", "ball_x_m", "ball_y_m"})
_LABEL_KEYS = frozenset({"player_role", "decision", "kick_dir_rad", "gc_is_under_penalty",
                         "gc_secs_till_unpenalised"})
_TRACKED = _ESTIMATE_KEYS | _LABEL_KEYS | {"gc_secs_remaining", "gc_secondary_time"}


def _estimates(state: dict[str, Any]) -> tuple[float, ...]:
    """A robot's pose and ball estimates from its blackboard: (x_m, y_m, theta_rad, ball x_m,
    ball y_m), team frame, NaN where unknown or not numbers."""
    pose = state.get("robot_pose_field")
    try:
        est = (float(pose[0]), float(pose[1]), float(pose[2]))  # type: ignore[index]
    except (TypeError, ValueError, IndexError, KeyError):
        est = _NAN3
    if not state.get("ball_location_known"):
        return est + _NAN2
    ball = state.get("ball_field")
    try:
        return est + (float(ball[0]), float(ball[1]))  # type: ignore[index]
    except (TypeError, ValueError, IndexError, KeyError):
        pass
    try:
        return est + (float(state["ball_x_m"]), float(state["ball_y_m"]))
    except (TypeError, ValueError, KeyError):
        return est + _NAN2


def _labels(state: dict[str, Any], strings: _Strings) -> tuple[int, int, float, bool, int]:
    """Role and decision codes, kick direction (team frame, NaN: none drawn), penalised, seconds left."""
    decision = state.get("decision") or ""
    kick = _float(state.get("kick_dir_rad")) if decision in _KICK_DECISIONS else _NAN
    secs = state.get("gc_secs_till_unpenalised", 0)
    return (strings.code(state.get("player_role") or ""), strings.code(decision), kick,
            bool(state.get("gc_is_under_penalty")), max(-32768, min(32767, int(secs))) if _number(secs) else 0)


class ReplayLog:
    """A replay log read once into arrays indexed by step (see the module docstring).

    Arrays (``n`` steps, ``r`` robots in ``robots`` order): ``t_s`` (n), ``ball_xy`` (n, 2),
    ``pose`` (n, r, 3) world frame, exactly the recorded values; ``flags`` (n, r) fallen /
    removed / penalised bits; ``status``, ``role``, ``decision`` (n, r) codes into
    ``strings``; ``estimate`` (n, r, 3), ``ball_estimate`` (n, r, 2), ``kick_dir_rad`` (n, r)
    in the robot's team frame, NaN when unknown; ``penalty_s`` (n, r); ``gc`` (n, 5);
    ``secs_remaining``, ``secondary_time`` (n); ``first_half`` (n, bool).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: dict[str, Any] = {}
        self.end: dict[str, Any] | None = None
        self.warnings: list[str] = []
        self.robots: list[str] = []
        self.teams: list[tuple[Team, int]] = []
        self.strings = _Strings()
        self.events: list[tuple[int, dict[str, Any]]] = []  # (step index, event)
        self._chunks: list[bytes] = []
        self._snapshots: list[bytes] = []  # the full blackboards after each chunk's first step
        self._decoded: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()
        self.n = 0

    # --- loading ---------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, warn: Callable[[str], None] | None = None) -> ReplayLog:
        """Read a log; raises ``ReplayError`` for a bad one. ``warn`` hears of a cut end as well
        as ``warnings`` does."""
        log = cls(Path(path))
        log._read()
        if warn is not None:
            for text in log.warnings:
                warn(text)
        return log

    def _read(self) -> None:
        path = self.path
        lines = _Lines(path)
        it = iter(lines)
        header_seen = False
        for lineno, raw in it:
            if not raw.strip():
                continue
            self._read_header(lineno, self._parse(lineno, raw))
            header_seen = True
            break
        if not header_seen:
            if lines.tail is not None:  # a header cut in the middle, or junk without a newline
                lineno, raw = lines.tail
                self._read_header(lineno, self._parse(lineno, raw))
            else:
                raise ReplayError(path, None, "empty file, not a soccerbt replay log")
        self._read_steps(it, lines)
        if self.n == 0:
            raise ReplayError(path, None, "no step records (the run recorded nothing)")

    def _parse(self, lineno: int, raw: bytes) -> dict[str, Any]:
        try:
            record = json.loads(raw)
        except UnicodeDecodeError:
            raise ReplayError(self.path, lineno, "not UTF-8 text") from None
        except ValueError as exc:
            msg = getattr(exc, "msg", str(exc))
            raise ReplayError(self.path, lineno, f"not a JSON record ({msg})") from None
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            raise ReplayError(self.path, lineno, "a record must be an object with a 'type'")
        return record

    def _read_header(self, lineno: int, record: dict[str, Any]) -> None:
        path = self.path
        if record["type"] != "header":
            raise ReplayError(path, lineno, f"the first record must be the header, not {record['type']!r}")
        if record.get("version") != LOG_VERSION:
            raise ReplayError(path, lineno, f"log version {record.get('version')!r} is not supported "
                                            f"(this soccerbt reads version {LOG_VERSION})")
        robots = record.get("robots")
        if not isinstance(robots, list) or not robots:
            raise ReplayError(path, lineno, "header: 'robots' must be a non-empty list of robot names")
        dt = record.get("dt_s")
        if not _number(dt) or not dt > 0:
            raise ReplayError(path, lineno, "header: 'dt_s' must be a positive number of seconds")
        try:
            Field.by_name(str(record.get("field", "")))
        except ValueError as exc:
            raise ReplayError(path, lineno, f"header: {exc}") from None
        self.teams = [_robot_team(path, key) for key in robots]
        self.robots = [str(key) for key in robots]
        self.header = record

    def _read_steps(self, it: Iterator[tuple[int, bytes]], lines: _Lines) -> None:
        with ThreadPoolExecutor(max_workers=1) as packer:  # zlib works without the GIL: pack while parsing
            self._read_steps_packing(it, lines, packer)

    def _read_steps_packing(self, it: Iterator[tuple[int, bytes]], lines: _Lines, packer: Executor) -> None:
        path, robots, strings = self.path, self.robots, self.strings
        t_s, ball_xy, gc_a = array("d"), array("d"), array("h")
        secs_a, secondary_a, half_a = array("h"), array("h"), array("B")
        pose_a, flags_a, status_a = array("d"), array("B"), array("h")
        label_a, est_a = array("i"), array("f")
        state: dict[str, dict[str, Any]] = {key: {} for key in robots}  # the full blackboards
        estimates = {key: _estimates({}) for key in robots}  # pose x, y, theta and ball x, y
        # (role, decision, kick, penalised, penalty s) change seldom: one table row each, an id per tick
        label_rows: list[tuple] = []
        label_ids: dict[tuple, int] = {}

        def label_id(row: tuple) -> int:
            code = label_ids.get(row)
            if code is None:
                code = label_ids[row] = len(label_rows)
                label_rows.append(row)
            return code

        labels = {key: label_id(_labels({}, strings)) for key in robots}
        status_codes: dict[object, int] = {}
        chunks: list[Future[bytes]] = []
        pending: list[bytes] = []
        first_half = True
        secs_remaining = secondary_time = 0
        last_t = -math.inf
        seen_end = False

        def records() -> Iterator[tuple[int, bytes, bool]]:
            for lineno, raw in it:
                yield lineno, raw, False
            if lines.tail is not None:
                yield lines.tail[0], lines.tail[1], True

        for lineno, raw, is_tail in records():
            if not raw.strip():
                continue
            try:
                record = self._parse(lineno, raw)
            except ReplayError as exc:
                if is_tail:  # the run stopped while writing this line
                    self.warnings.append(f"{path}:{lineno}: the last record is cut short ({exc.message}); "
                                         "replaying up to the record before it")
                    break
                if len(t_s) and lines.compressed:
                    # damaged compressed data inflates to garbage from here on: keep what came before
                    self.warnings.append(f"{path}:{lineno}: damaged data ({exc.message}); "
                                         f"replaying the {len(t_s)} steps before it")
                    break
                raise
            kind = record["type"]
            if seen_end:
                raise ReplayError(path, lineno, f"a {kind!r} record after the end record")
            if kind == "end":
                self.end = record
                seen_end = True
                continue
            if kind != "step":
                raise ReplayError(path, lineno, f"unknown record type {kind!r}")
            try:
                t = record["t"]
                if not t > last_t:
                    raise ReplayError(path, lineno, f"time goes backwards: t={t} after t={last_t}")
                ball = record["ball"]
                gc = record["gc"]
                poses = record["robots"]
                status = record.get("status", {})
                changes_by_robot = record.get("bb", {})
                for key in robots:
                    p = poses[key]
                    pose_a.extend(p[:3])
                    flags_a.append((_FALLEN if p[3] else 0) | (_REMOVED if p[4] else 0))
                    changes = changes_by_robot.get(key)
                    if changes:
                        mine = state[key]
                        mine.update(changes)
                        if not changes.keys().isdisjoint(_TRACKED):
                            if not changes.keys().isdisjoint(_ESTIMATE_KEYS):
                                estimates[key] = _estimates(mine)
                            if not changes.keys().isdisjoint(_LABEL_KEYS):
                                labels[key] = label_id(_labels(mine, strings))
                            if _number(changes.get("gc_secs_remaining")):
                                secs_remaining = int(changes["gc_secs_remaining"])
                            if _number(changes.get("gc_secondary_time")):
                                secondary_time = int(changes["gc_secondary_time"])
                    st = status.get(key, "")
                    code = status_codes.get(st)
                    if code is None:
                        code = status_codes[st] = strings.code(st)
                    status_a.append(code)
                    label_a.append(labels[key])
                    est_a.extend(estimates[key])
                ball_xy.extend(ball[:2])
                if len(ball) < 2 or len(gc) < 5:
                    raise IndexError("ball/gc")
                gc_a.extend(gc[:5])
            except ReplayError:
                raise
            except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError):
                raise ReplayError(path, lineno, _step_problem(record, robots)) from None
            for event in record.get("events", ()):
                if isinstance(event, dict):
                    self.events.append((self.n, event))
                    if event.get("kind") == "half":
                        first_half = False
            t_s.append(t)
            secs_a.append(max(-32768, min(32767, secs_remaining)))
            secondary_a.append(max(-32768, min(32767, secondary_time)))
            half_a.append(first_half)
            last_t = t
            if len(pending) == CHUNK_STEPS:
                chunks.append(packer.submit(zlib.compress, b"\n".join(pending), 1))
                pending = []
            pending.append(raw)
            if self.n % CHUNK_STEPS == 0:
                # the blackboards after the chunk's first step; blackboard_at() applies the later ones
                self._snapshots.append(zlib.compress(json.dumps(state, separators=(",", ":")).encode(), 1))
            self.n += 1
        if pending:
            chunks.append(packer.submit(zlib.compress, b"\n".join(pending), 1))
        self._chunks = [c.result() for c in chunks]
        if lines.cut is not None:
            self.warnings.append(f"{path}: {lines.cut}; replaying up to the last whole record "
                                 f"(t={last_t:.2f}s)")
        if self.end is None and not self.warnings:
            self.warnings.append(f"{path}: no end record (the run was stopped before it finished)")
        n, r = self.n, len(robots)
        self.t_s = np.frombuffer(t_s, dtype=np.float64)
        self.ball_xy = np.frombuffer(ball_xy, dtype=np.float64).reshape(n, 2)
        self.gc = np.frombuffer(gc_a, dtype=np.int16).reshape(n, 5)
        self.secs_remaining = np.frombuffer(secs_a, dtype=np.int16)
        self.secondary_time = np.frombuffer(secondary_a, dtype=np.int16)
        self.first_half = np.frombuffer(half_a, dtype=np.uint8).astype(bool)
        self.pose = np.frombuffer(pose_a, dtype=np.float64).reshape(n, r, 3)
        self.status = np.frombuffer(status_a, dtype=np.int16).reshape(n, r)
        estimates_a = np.frombuffer(est_a, dtype=np.float32).reshape(n, r, 5)
        self.estimate = estimates_a[:, :, :3]
        self.ball_estimate = estimates_a[:, :, 3:]
        ids = np.frombuffer(label_a, dtype=np.int32).reshape(n, r)
        role, decision, kick, penalised, pen_s = (np.array(column) for column in zip(*label_rows))
        self.role = role.astype(np.int16)[ids]
        self.decision = decision.astype(np.int16)[ids]
        self.kick_dir_rad = kick.astype(np.float32)[ids]
        self.penalty_s = pen_s.astype(np.int16)[ids]
        self.flags = np.frombuffer(flags_a, dtype=np.uint8).reshape(n, r) | np.where(
            penalised[ids], _PENALISED, 0).astype(np.uint8)

    # --- looking things up ---------------------------------------------------------------------------

    @property
    def field(self) -> Field:
        return Field.by_name(str(self.header["field"]))

    @property
    def dt_s(self) -> float:
        return float(self.header["dt_s"])

    @property
    def duration_s(self) -> float:
        """Simulated time of the last step."""
        return float(self.t_s[-1])

    def index_at(self, t_s: float) -> int:
        """The last step at or before ``t_s`` (the first step for earlier times)."""
        i = int(np.searchsorted(self.t_s, t_s + 1e-9, side="right")) - 1
        return min(max(i, 0), self.n - 1)

    def robot_index(self, key: str) -> int:
        """The column of robot ``key`` in the arrays; KeyError names the robots there are."""
        try:
            return self.robots.index(key)
        except ValueError:
            raise KeyError(f"no robot {key!r} in {self.path} (robots: {', '.join(self.robots)})") from None

    def _chunk(self, c: int) -> list[dict[str, Any]]:
        decoded = self._decoded.get(c)
        if decoded is None:
            decoded = [json.loads(line) for line in zlib.decompress(self._chunks[c]).split(b"\n")]
            self._decoded[c] = decoded
            while len(self._decoded) > _DECODED_CHUNKS_KEPT:
                self._decoded.popitem(last=False)
        else:
            self._decoded.move_to_end(c)
        return decoded

    def record(self, i: int) -> dict[str, Any]:
        """Step record ``i`` exactly as recorded (a fresh dict from the compressed chunk)."""
        if not 0 <= i < self.n:
            raise IndexError(f"step {i} is outside the log (0..{self.n - 1})")
        return self._chunk(i // CHUNK_STEPS)[i % CHUNK_STEPS]

    def blackboard_at(self, i: int, key: str) -> dict[str, Any]:
        """Robot ``key``'s root blackboard (as recorded, JSON values) after step ``i``."""
        self.robot_index(key)
        c = i // CHUNK_STEPS
        board = dict(json.loads(zlib.decompress(self._snapshots[c])).get(key, {}))
        for j in range(c * CHUNK_STEPS + 1, i + 1):
            board.update(self.record(j).get("bb", {}).get(key, {}))
        return board

    def goals(self) -> list[GoalEvent]:
        """The goals: from the end record's summary when there is one, else from the events."""
        result = (self.end or {}).get("result") or {}
        if isinstance(result.get("goals"), list):
            return [GoalEvent(float(g.get("t_s", 0.0)), str(g.get("team")), g.get("scorer"), bool(g.get("own_goal")))
                    for g in result["goals"] if isinstance(g, dict)]
        return [GoalEvent(float(ev.get("t", self.t_s[i])), str(ev.get("team")), ev.get("robot"))
                for i, ev in self.events if ev.get("kind") == "goal"]

    def memory_bytes(self) -> int:
        """Bytes held by the index: arrays, compressed chunks and snapshots (not the decoded cache)."""
        arrays = (self.t_s, self.ball_xy, self.gc, self.secs_remaining, self.secondary_time, self.first_half,
                  self.pose, self.flags, self.status, self.role, self.decision, self.estimate,
                  self.ball_estimate, self.kick_dir_rad, self.penalty_s)
        return (sum(a.nbytes for a in arrays) + sum(len(c) for c in self._chunks)
                + sum(len(s) for s in self._snapshots))


# --- the scene source ---------------------------------------------------------------------------------


def _to_world_xy(x_m: float, y_m: float, attacks_positive_x: bool) -> tuple[float, float]:
    return (x_m, y_m) if attacks_positive_x else (-x_m, -y_m)


def _short(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, list) and value and all(isinstance(v, float) for v in value):
        return "(" + ", ".join(f"{v:.2f}" for v in value) + ")"
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 40 else text[:37] + "..."


class ReplaySceneSource:
    """The viewer's ``SceneSource`` on a ``ReplayLog``: a position (step index) that moves.

    ``step()`` goes one step forward (the viewer's playback), ``step_back()``, ``seek(i)``,
    ``seek_time(t_s)`` and ``jump(seconds)`` move anywhere; ``finished()`` is true at the last
    step. A replay cannot change what happened: ``place_ball`` and ``send_robot_to`` do nothing.
    """

    def __init__(self, log: ReplayLog) -> None:
        self.log = log
        self.field = log.field
        self.dt_s = log.dt_s
        self.index = 0
        self._blue_first = bool(log.header.get("blue_attacks_positive_x_first_half", True))
        self._tree_names = {team: Path(str(name)).name for team, name in (log.header.get("trees") or {}).items()}

    # --- position -----------------------------------------------------------------------------------

    @property
    def t_s(self) -> float:
        return float(self.log.t_s[self.index])

    def seek(self, index: int) -> None:
        """Go to step ``index`` (clamped to the log)."""
        self.index = min(max(int(index), 0), self.log.n - 1)

    def seek_time(self, t_s: float) -> None:
        """Go to the last step at or before ``t_s``."""
        self.index = self.log.index_at(t_s)

    def jump(self, seconds: float) -> None:
        """Move by ``seconds`` of simulated time (negative: back), at least one step."""
        steps = int(round(seconds / self.dt_s))
        if steps == 0:
            steps = 1 if seconds > 0 else -1 if seconds < 0 else 0
        self.seek(self.index + steps)

    def step(self) -> None:
        self.seek(self.index + 1)

    def step_back(self) -> None:
        self.seek(self.index - 1)

    def finished(self) -> bool:
        return self.index >= self.log.n - 1

    def place_ball(self, x_m: float, y_m: float) -> None:
        """Nothing: the replay shows what was recorded."""

    def send_robot_to(self, key: str, x_m: float, y_m: float) -> None:
        """Nothing: the replay shows what was recorded."""

    # --- the scene ------------------------------------------------------------------------------------

    def blue_attacks_positive_x(self, index: int | None = None) -> bool:
        i = self.index if index is None else index
        return self._blue_first == bool(self.log.first_half[i])

    def scene(self, selected: str | None) -> Scene:
        log, i = self.log, self.index
        names = log.strings.names
        blue_positive = self.blue_attacks_positive_x(i)
        pose, flags, est, ball_est = log.pose[i], log.flags[i], log.estimate[i], log.ball_estimate[i]
        robots = []
        penalties = []
        for k, (key, (team, number)) in enumerate(zip(log.robots, log.teams)):
            attack = blue_positive if team is Team.BLUE else not blue_positive
            f = int(flags[k])
            robot = SceneRobot(key, team, number, Pose2D(float(pose[k, 0]), float(pose[k, 1]), float(pose[k, 2])),
                               fallen=bool(f & _FALLEN), removed=bool(f & _REMOVED),
                               penalised=bool(f & _PENALISED), role=names[log.role[i, k]],
                               decision=names[log.decision[i, k]])
            if not math.isnan(est[k, 0]):
                robot.estimate = from_team_frame(Pose2D(float(est[k, 0]), float(est[k, 1]), float(est[k, 2])), attack)
            if not math.isnan(ball_est[k, 0]):
                robot.ball_estimate = _to_world_xy(float(ball_est[k, 0]), float(ball_est[k, 1]), attack)
            kick = float(log.kick_dir_rad[i, k])
            if not math.isnan(kick):
                robot.kick_direction_rad = kick + (0.0 if attack else math.pi)
            if robot.penalised:
                penalties.append(f"{key} {int(log.penalty_s[i, k])}s")
            robots.append(robot)
        scene = Scene(self.field, float(log.t_s[i]), (float(log.ball_xy[i, 0]), float(log.ball_xy[i, 1])), robots,
                      self._banner(i, penalties))
        if selected is not None and selected in log.robots:
            scene.tree_lines = self._tree_lines(selected)
            scene.blackboard_changes = self.blackboard_changes(selected)
        return scene

    def _banner(self, i: int, penalties: list[str]) -> Banner:
        state, secondary, sub, blue, red = (int(v) for v in self.log.gc[i])
        state_name, sub_text = gc_words(state, secondary, sub)
        return Banner(state=state_name, sub_state=sub_text, score_blue=blue,
                      score_red=red, secs_remaining=int(self.log.secs_remaining[i]),
                      secondary_time=int(self.log.secondary_time[i]), first_half=bool(self.log.first_half[i]),
                      penalties=penalties)

    def _tree_lines(self, key: str) -> list[TreeLine]:
        """The log keeps the root status of each tick (not the branch): that, then the command."""
        log, i = self.log, self.index
        k = log.robot_index(key)
        team = log.teams[k][0].name.lower()
        status = log.strings.names[log.status[i, k]]
        lines = [TreeLine(0, f"{self._tree_names.get(team, 'tree')} (root)", status)]
        cmd = log.record(i)["robots"][key]
        if len(cmd) >= 10:
            lines.append(TreeLine(1, f"cmd vx {cmd[5]:+.2f} vy {cmd[6]:+.2f} vth {cmd[7]:+.2f}", "IDLE"))
            lines.append(TreeLine(1, f"head pan {cmd[8]:+.2f} tilt {cmd[9]:+.2f}", "IDLE"))
        if len(cmd) >= 11 and cmd[10] is not None:
            lines.append(TreeLine(1, f"kick dir {cmd[10][0]:+.2f} strength {cmd[10][1]:.2f}", "RUNNING"))
        decision = log.strings.names[log.decision[i, k]]
        if decision:
            lines.append(TreeLine(1, f"decision {decision}", "IDLE"))
        return lines

    def blackboard_changes(self, key: str) -> list[tuple[str, str]]:
        """The entries of ``key`` that changed in the last few simulated seconds up to now, newest
        first, each once (its latest value)."""
        log = self.log
        seen: set[str] = set()
        out: list[tuple[str, str]] = []
        stop = max(0, self.index - _BB_LOOKBACK_STEPS)
        for j in range(self.index, stop - 1, -1):
            if j == 0:
                break  # the first step lists every entry: not a change
            changes = log.record(j).get("bb", {}).get(key)
            if not changes:
                continue
            for name in sorted(changes):
                if name not in seen:
                    seen.add(name)
                    out.append((name, _short(changes[name])))
            if len(out) >= _BB_LINES:
                break
        return out[:_BB_LINES]


# --- text views -------------------------------------------------------------------------------------


def summary(log: ReplayLog) -> list[str]:
    """The header and a summary of the run as lines of text (``soccerbt replay --info``)."""
    h = log.header
    trees = h.get("trees") or {}
    blue, red = (int(v) for v in log.gc[-1, 3:5])
    out = [f"log:       {log.path}",
           f"seed:      {h.get('seed')}",
           f"field:     {h.get('field')}   team size {h.get('team_size')}   dt {log.dt_s:g} s",
           f"trees:     blue {trees.get('blue')}",
           f"           red  {trees.get('red')}",
           f"robots:    {' '.join(log.robots)}",
           f"duration:  {log.duration_s:.2f} s simulated, {log.n} steps",
           f"score:     blue {blue} : {red} red"]
    goals = log.goals()
    out.append(f"goals:     {len(goals)}")
    for g in goals:
        own = " (own goal)" if g.own_goal else ""
        out.append(f"  t={g.t_s:8.2f}s  {g.team:<4}  by {g.scorer or 'nobody'}{own}")
    kinds: dict[str, int] = {}
    for _, ev in log.events:
        kind = str(ev.get("kind"))
        kinds[kind] = kinds.get(kind, 0) + 1
    if kinds:
        out.append("events:    " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    result = (log.end or {}).get("result")
    if isinstance(result, dict):
        out.append(f"finished:  {'yes' if result.get('finished') else 'no (stopped at the --seconds limit)'}")
        errors = result.get("errors") or []
        out.append(f"errors:    {len(errors)}")
        for e in errors[:10]:
            out.append(f"  {str(e).splitlines()[0]}")
    else:
        out.append("finished:  unknown (no end record)")
    return out


def _fmt_pose(values: list[Any]) -> str:
    return f"({values[0]:+.3f}, {values[1]:+.3f}, {values[2]:+.3f})"


def robot_lines(log: ReplayLog, key: str, from_s: float | None = None, to_s: float | None = None) -> Iterator[str]:
    """Robot ``key``'s per-tick records between ``from_s`` and ``to_s`` (inclusive) as text: time,
    truth pose, command, tree status, blackboard changes; the full blackboard first."""
    log.robot_index(key)  # KeyError naming the robots there are
    first = 0 if from_s is None else int(np.searchsorted(log.t_s, from_s - 1e-9, side="left"))
    last = log.n - 1 if to_s is None else int(np.searchsorted(log.t_s, to_s + 1e-9, side="right")) - 1
    if first > last:
        return
    board = log.blackboard_at(first, key)
    yield f"# {key} blackboard at t={log.t_s[first]:.3f}s: " + json.dumps(board, separators=(",", ":"),
                                                                             ensure_ascii=False)
    yield "# t_s  pose_world(x_m, y_m, theta_rad)  fallen removed  cmd(vx_mps, vy_mps, vtheta_radps) " \
          "head(pan, tilt) kick  status  | blackboard changes"
    for i in range(first, last + 1):
        rec = log.record(i)
        r = rec["robots"][key]
        status = (rec.get("status") or {}).get(key, "")
        cmd = ""
        if len(r) >= 10:
            cmd = f"cmd ({r[5]:+.3f}, {r[6]:+.3f}, {r[7]:+.3f}) head ({r[8]:+.3f}, {r[9]:+.3f})"
        kick = r[10] if len(r) >= 11 else None
        kick_text = f" kick ({kick[0]:+.3f}, {kick[1]:.3f})" if kick else ""
        changes = (rec.get("bb") or {}).get(key, {}) if i > first else {}
        change_text = " ".join(f"{name}={json.dumps(value, separators=(',', ':'))}"
                               for name, value in changes.items())
        yield (f"{rec['t']:9.3f}  {_fmt_pose(r)}  {int(r[3])} {int(r[4])}  {cmd}{kick_text}  {status}"
               + (f"  | {change_text}" if change_text else ""))
