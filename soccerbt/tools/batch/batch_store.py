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
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from soccerbt.match import GoalSummary, MatchConfig, MatchResult, RobotSummary, default_tree_path
from soccerbt.tools.batch.batch import BatchGame, GameOutcome, game_json
from soccerbt.tools.cli.outputs import write_atomically

__all__ = ["GameStore", "StoreConflict", "game_stem", "result_from_dict", "batch_fingerprint", "SUMMARY_NAME"]

SUMMARY_NAME = "summary.json"
FORMAT = "soccerbt-batch-game-1"


class StoreConflict(ValueError):
    """The output folder holds a game of another batch (other match options or trees)."""


def game_stem(game: BatchGame) -> str:
    """``seed-0003-A-blue-B-red``: the name of a game's files, without the suffix."""
    return f"seed-{game.seed:04d}-{game.blue}-blue-{game.red}-red"


def _trees_digest(tree: str | None) -> str:
    """SHA-256 over a tree file and every file it includes (path-independent: contents only)."""
    from soccerbt.trees.includes import tree_files

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


def result_from_dict(data: dict[str, Any]) -> MatchResult:
    """A MatchResult back from ``MatchResult.to_dict()`` (after a trip through JSON)."""
    goals = tuple(GoalSummary(**g) for g in data["goals"])
    robots = tuple(RobotSummary(**{**r, "node_exception_paths": tuple(r.get("node_exception_paths", ()))})
                   for r in data["robots"])
    return MatchResult(seed=data["seed"], sim_s=data["sim_s"], score=dict(data["score"]), goals=goals,
                       robots=robots, errors=tuple(data["errors"]), trees=dict(data["trees"]),
                       finished=data["finished"], shoot_out=data.get("shoot_out"))


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
        the file is of another batch."""
        path = self.game_path(game)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            self.damaged.append(f"{path}: not whole JSON ({type(exc).__name__}); the game is played again")
            return None
        try:
            if data.get("format") != FORMAT or (data["seed"], data["blue"], data["red"]) != (
                    game.seed, game.blue, game.red):
                raise KeyError("format")
            if data["fingerprint"] != self.fingerprint:
                raise StoreConflict(self._conflict(path, data["fingerprint"]))
            if data["result"] is None:
                return None  # failed last time: try again
            result = result_from_dict(data["result"])
        except (KeyError, TypeError, AttributeError) as exc:
            self.damaged.append(f"{path}: not a game file of this batch ({exc}); the game is played again")
            return None
        if self.record and not self.record_path(game).is_file():
            return None
        return GameOutcome(game, result, None, float(data.get("wall_s", 0.0)), int(data.get("attempts", 1)))

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
        write_atomically(self.game_path(outcome.game), json.dumps(data, indent=1) + "\n")

    def save_summary(self, summary: dict[str, Any]) -> None:
        write_atomically(self.summary_path, json.dumps(summary, indent=1) + "\n")
