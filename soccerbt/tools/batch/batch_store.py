"""A batch's output folder (``soccerbt batch --out DIR``): a JSON file per game, a summary, and
what a rerun may skip.

Each game is written, as soon as it finishes, to ``seed-0003-A-blue-B-red.json`` (its seed and
which tree played which colour), atomically, so a file is either whole or absent; with
``--record`` its replay log goes beside it as ``seed-0003-A-blue-B-red.mcap`` (written under a
temporary name and renamed at the end of the match). ``summary.json`` has the shape of
``--json``. A game file also holds the batch's ``fingerprint``: the match options (all but the
seed) and the SHA-256 of every tree file with its includes. A rerun on the same folder reads
the game files, keeps the games whose fingerprint matches and plays only the others; a game
that failed, a file that is not whole JSON of the expected shape, or (with ``--record``) a game
whose log is missing is played again. A file of the same game with another fingerprint stops
the batch: the folder belongs to another batch.

The folder's files are untrusted too (another batch, a careless hand): a game file is read only
when it is a regular file (never through a link, a FIFO or a device: those stop the batch with
a message), of at most ``MAX_GAME_FILE_BYTES``, its JSON nested at most a few levels and of the
expected types (a string for a number, a score of 10^300: the game is played again, said so).
``lock()`` takes an exclusive lock on the folder (``.soccerbt-batch.lock``) for the batch's
life, so that two batches never play into one folder at once.
"""
from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import re
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from soccerbt.cli.outputs import write_atomically
from soccerbt.match import GoalSummary, MatchConfig, MatchResult, RobotSummary, default_tree_path
from soccerbt.tools.batch.batch import BatchGame, GameOutcome, game_json
from soccerbt.trees.includes import tree_files

__all__ = ["GameStore", "StoreConflict", "game_stem", "result_from_dict", "batch_fingerprint", "SUMMARY_NAME",
           "LOCK_NAME", "MAX_GAME_FILE_BYTES", "is_store_name"]

SUMMARY_NAME = "summary.json"
LOCK_NAME = ".soccerbt-batch.lock"
FORMAT = "soccerbt-batch-game-1"
MAX_GAME_FILE_BYTES = 4 << 20    # a game file is a few kilobytes
MAX_SCORE = 1000
_STORE_NAME = re.compile(r"seed-\d+-[A-Za-z]+-blue-[A-Za-z]+-red\.(json|mcap)|" + re.escape(SUMMARY_NAME) + "|"
                         + re.escape(LOCK_NAME))


def is_store_name(name: str) -> bool:
    """Whether a file name in a batch folder is one the batch writes (a game, its log, the summary)."""
    return _STORE_NAME.fullmatch(name) is not None


class StoreConflict(ValueError):
    """The output folder holds a game of another batch (other match options or trees)."""


def game_stem(game: BatchGame) -> str:
    """``seed-0003-A-blue-B-red``: the name of a game's files, without the suffix."""
    return f"seed-{game.seed:04d}-{game.blue}-blue-{game.red}-red"


def _trees_digest(tree: str | None) -> str:
    """SHA-256 over a tree file and every file it includes (path-independent: contents only)."""
    digest = hashlib.sha256()
    for f in tree_files(tree or default_tree_path()):
        try:
            digest.update(hashlib.sha256(f.read_bytes()).digest())
        except OSError:
            digest.update(b"missing")
    return digest.hexdigest()


def batch_fingerprint(config: MatchConfig, trees: dict[str, str | None]) -> dict[str, Any]:
    """What a game's result depends on besides its seed and colours: the match options and
    the contents of trees A and B."""
    shape = replace(config, seed=0, blue_tree=None, red_tree=None, realtime=False)
    return {"match": repr(shape), "trees": {label: _trees_digest(path) for label, path in sorted(trees.items())}}


class _Bad(ValueError):
    """A game file's field of the wrong type or value (the message names it)."""


def _need(ok: bool, where: str, what: str) -> None:
    if not ok:
        raise _Bad(f"{where}: {what}")


def _is_int(v: Any, low: int = 0, high: int = 1 << 62) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) < 1e12


def _opt_num(v: Any) -> bool:
    return v is None or _is_num(v)


def _strs(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def result_from_dict(data: dict[str, Any]) -> MatchResult:
    """A MatchResult back from ``MatchResult.to_dict()`` (after a trip through JSON), every
    field checked (ValueError naming the first that is wrong)."""
    _need(isinstance(data, dict), "result", "not an object")
    _need(_is_int(data.get("seed")), "result.seed", "not a seed")
    _need(_is_num(data.get("sim_s")), "result.sim_s", "not a number of seconds")
    score = data.get("score")
    _need(isinstance(score, dict) and set(score) == {"blue", "red"}
          and all(_is_int(v, 0, MAX_SCORE) for v in score.values()), "result.score",
          f"not {{\"blue\": N, \"red\": N}} with 0..{MAX_SCORE} goals")
    goals = []
    for k, g in enumerate(data.get("goals") if isinstance(data.get("goals"), list) else [None]):
        w = f"result.goals[{k}]"
        _need(isinstance(g, dict), w, "not an object")
        _need(_is_num(g.get("t_s")) and g.get("team") in ("blue", "red")
              and (g.get("scorer") is None or isinstance(g.get("scorer"), str))
              and isinstance(g.get("own_goal"), bool) and isinstance(g.get("first_half"), bool), w,
              "not a goal (t_s, team, scorer, own_goal, first_half)")
        goals.append(GoalSummary(float(g["t_s"]), g["team"], g["scorer"], g["own_goal"], g["first_half"]))
    robots = []
    for k, r in enumerate(data.get("robots") if isinstance(data.get("robots"), list) else [None]):
        w = f"result.robots[{k}]"
        _need(isinstance(r, dict), w, "not an object")
        _need(all(isinstance(r.get(key), str) for key in ("robot", "team", "tree")), w, "robot, team, tree: not text")
        _need(all(_is_int(r.get(key), 0, 1 << 31) for key in ("number", "falls", "kicks", "penalties",
                                                              "node_exceptions")), w, "a count that is not a count")
        _need(_is_num(r.get("distance_walked_m")) and _opt_num(r.get("loc_error_median_m"))
              and _opt_num(r.get("loc_error_mean_m")), w, "a distance that is not a number")
        paths = r.get("node_exception_paths", [])
        _need(_strs(paths), w, "node_exception_paths: not a list of text")
        # absent from the games of an earlier soccerbt (its kicks were all kick motions; stand-ups 0)
        later = {key: r.get(key, r["kicks"] if key == "kick_motions" else 0)
                 for key in ("kick_motions", "walk_in_kicks", "stand_ups")}
        _need(all(_is_int(v, 0, 1 << 31) for v in later.values()), w, "a count that is not a count")
        robots.append(RobotSummary(r["robot"], r["team"], r["number"], r["tree"], float(r["distance_walked_m"]),
                                   r["falls"], r["kicks"], r["penalties"], r["loc_error_median_m"],
                                   r["loc_error_mean_m"], r["node_exceptions"], tuple(paths), **later))
    _need(_strs(data.get("errors")), "result.errors", "not a list of text")
    trees = data.get("trees")
    _need(isinstance(trees, dict) and all(isinstance(v, str) for v in trees.values()), "result.trees",
          "not an object of file names")
    _need(isinstance(data.get("finished"), bool), "result.finished", "not true or false")
    shoot_out = data.get("shoot_out")
    _need(shoot_out is None or (isinstance(shoot_out, dict) and all(_strs(v) for v in shoot_out.values())),
          "result.shoot_out", "not an object of lists of text")
    state_s = data.get("state_s")  # absent from the games of an earlier soccerbt
    _need(state_s is None or (isinstance(state_s, dict) and all(isinstance(k, str) and _is_num(v)
                                                               for k, v in state_s.items())),
          "result.state_s", "not an object of seconds per game state")
    return MatchResult(seed=data["seed"], sim_s=float(data["sim_s"]), score=dict(score), goals=tuple(goals),
                       robots=tuple(robots), errors=tuple(data["errors"]), trees=dict(trees),
                       finished=data["finished"], shoot_out=shoot_out,
                       state_s=None if state_s is None else {k: float(v) for k, v in state_s.items()})


def _read_game_file(path: Path) -> bytes | None:
    """A game file's bytes: None when there is none; StoreConflict when the entry is not a
    regular file (a link, a FIFO, a device: never opened); OSError when it cannot be read."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        kind = ("a symbolic link" if stat.S_ISLNK(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                else "a directory" if stat.S_ISDIR(st.st_mode) else "a device or socket")
        raise StoreConflict(f"{path}: not a regular file ({kind}); a batch folder holds only the batch's own "
                            "files: remove it")
    if st.st_size > MAX_GAME_FILE_BYTES:
        raise OSError(errno.EFBIG, f"{st.st_size:,} bytes, more than a game file's {MAX_GAME_FILE_BYTES:,}")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                 | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StoreConflict(f"{path}: changed while it was opened; not read")
        data = os.read(fd, MAX_GAME_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_GAME_FILE_BYTES:
        raise OSError(errno.EFBIG, f"more than a game file's {MAX_GAME_FILE_BYTES:,} bytes")
    return data


def _json(raw: bytes) -> Any:
    """JSON of a game file: at most 16 levels deep, checked without recursing."""
    try:
        data = json.loads(raw)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    stack = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > 16:
                raise ValueError("nested too deeply")
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return data


@dataclass
class GameStore:
    """The output folder of a batch with the fingerprint of its games."""

    folder: Path
    fingerprint: dict[str, Any]
    record: bool = False
    damaged: list[str] = field(default_factory=list)  # files that were not whole, to be replayed

    def game_path(self, game: BatchGame) -> Path:
        return self.folder / f"{game_stem(game)}.json"

    def record_path(self, game: BatchGame) -> Path:
        return self.folder / f"{game_stem(game)}.mcap"

    @property
    def summary_path(self) -> Path:
        return self.folder / SUMMARY_NAME

    def load(self, game: BatchGame) -> GameOutcome | None:
        """The finished game from its file, or None when it must be played (no file, a file
        that is not whole, a failed game, a missing log with ``record``). StoreConflict when
        the file is of another batch, or an entry that is not a regular file."""
        path = self.game_path(game)
        try:
            raw = _read_game_file(path)
            if raw is None:
                return None
            data = _json(raw)
        except StoreConflict:
            raise
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else f"{type(exc).__name__}: {exc}"
            self.damaged.append(f"{path}: not whole JSON ({why}); the game is played again")
            return None
        try:
            if not isinstance(data, dict) or data.get("format") != FORMAT or (
                    data.get("seed"), data.get("blue"), data.get("red")) != (game.seed, game.blue, game.red):
                raise _Bad("not this game's file (format, seed or colours)")
            if data.get("fingerprint") != self.fingerprint:
                raise StoreConflict(self._conflict(path, data.get("fingerprint")))
            if data.get("result") is None:
                return None  # failed last time: try again
            result = result_from_dict(data["result"])
            wall_s = data.get("wall_s", 0.0)
            attempts = data.get("attempts", 1)
            _need(_is_num(wall_s), "wall_s", "not a number")
            _need(_is_int(attempts, 1, 1000), "attempts", "not a count")
        except _Bad as exc:
            self.damaged.append(f"{path}: not a game file of this batch ({exc}); the game is played again")
            return None
        record = self.record_path(game)
        if self.record:
            try:
                st = os.lstat(record)
            except FileNotFoundError:
                return None
            if not stat.S_ISREG(st.st_mode):
                raise StoreConflict(f"{record}: not a regular file; a batch folder holds only the batch's own "
                                    "files: remove it")
        return GameOutcome(game, result, None, float(wall_s), attempts)

    def _conflict(self, path: Path, theirs: Any) -> str:
        what = []
        if isinstance(theirs, dict):
            if theirs.get("match") != self.fingerprint["match"]:
                what.append("other match options (--seconds, --half, --team-size, --field, --gc-version)")
            for label, digest in self.fingerprint["trees"].items():
                if (theirs.get("trees") or {}).get(label) != digest:
                    what.append(f"another tree {label} (or changed tree files)")
        return (f"{path}: a game of another batch ({', '.join(what) or 'another fingerprint'}); "
                f"give another --out folder, or remove its files to start again")

    def save(self, outcome: GameOutcome) -> None:
        """Write a finished (or failed) game's file, atomically."""
        data = {"format": FORMAT, **game_json(outcome), "wall_s": round(outcome.wall_s, 3),
                "fingerprint": self.fingerprint}
        write_atomically(self.game_path(outcome.game), json.dumps(data, indent=1) + "\n", follow=False)

    def save_summary(self, summary: dict[str, Any]) -> None:
        write_atomically(self.summary_path, json.dumps(summary, indent=1) + "\n", follow=False)

    def lock(self) -> None:
        """Hold the folder's lock (``.soccerbt-batch.lock``) for this process's life; StoreConflict
        when another batch holds it."""
        # deferred: optional dependency: fcntl is POSIX only
        import fcntl

        path = self.folder / LOCK_NAME
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) \
            | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            raise StoreConflict(f"{path}: cannot take the folder's lock ({exc.strerror or exc})") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise StoreConflict(f"{path}: not a regular file; cannot take the folder's lock")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            raise StoreConflict(f"{self.folder}: another soccerbt batch is playing into this folder"
                                + (f" (process {holder})" if holder.isdigit() else "")
                                + "; wait for it to finish, or give another --out") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def unlock(self) -> None:
        fd = getattr(self, "_lock_fd", None)
        if fd is not None:
            os.close(fd)
            self._lock_fd = None
