"""Files the commands write: checked before any work starts, written atomically, never over an input.

``check_output_path(path, inputs)`` says why a path cannot be written (a missing folder, a
directory, one of the inputs) so a command exits 2 before it plays a match or a batch
(``check_outputs(args, names)``: the outputs named by a command's options);
``write_atomically(path, data)`` writes a temporary file beside the target and renames it over,
so a reader never sees half a file; ``GuardedRecorder`` wraps a match recorder so that a failed
write (a full disk) stops the recording with one message and keeps what was written, while the
match and its summary go on. ``record_name_problem(path)``: a replay log is MCAP, its name ends
in ``.mcap`` (a JSON-lines name is refused: those logs are no longer written).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, TextIO

__all__ = ["check_output_path", "check_outputs", "record_name_problem", "write_atomically", "GuardedRecorder",
           "RECORD_SUFFIX"]

RECORD_SUFFIX = ".mcap"  # the one replay log format (JSON-lines logs: soccerbt replay convert)


def check_output_path(path: str | Path, inputs: list[str | Path | None] | tuple = ()) -> str | None:
    """Why `path` cannot be written (a missing folder, a directory, one of the inputs), or None."""
    p = Path(path)
    if str(path) == "":
        return "an empty file name"
    if p.is_dir():
        return f"{p}: is a directory"
    parent = p.parent
    if not parent.exists():
        return f"{p}: the folder {parent} does not exist"
    if not parent.is_dir():
        return f"{p}: {parent} is not a folder"
    if not os.access(parent, os.W_OK):
        return f"{p}: the folder {parent} is not writable"
    try:
        resolved = p.resolve()
        for item in inputs:
            if item is not None and Path(item).exists() and Path(item).resolve() == resolved:
                return f"{p}: would overwrite an input file"
    except OSError as exc:
        return f"{p}: {exc.strerror or exc}"
    return None


def record_name_problem(path: str | Path) -> str | None:
    """Why `path` cannot name a replay log to write (its name must end in .mcap), or None."""
    if str(path).endswith(RECORD_SUFFIX):
        return None
    return (f"{path}: JSON-lines replay logs are no longer written: name the log FILE{RECORD_SUFFIX} "
            f"(an old log converts once with: soccerbt replay convert OLD.jsonl NEW{RECORD_SUFFIX})")


def write_atomically(path: Path, data: str | bytes) -> None:
    """Write `data` to a temporary file beside `path`, then rename it over `path`."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        with open(tmp, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


class GuardedRecorder:
    """A match observer around a recorder: an OSError while writing (a full disk, a removed
    folder) ends the recording with one message on `err`; the match goes on."""

    def __init__(self, recorder: Any, path: str | Path, err: TextIO | None = None) -> None:
        self.recorder = recorder
        self.path = Path(path)
        self.err = err if err is not None else sys.stderr
        self.failed: str | None = None

    def _fail(self, exc: OSError) -> None:
        self.failed = f"{self.path}: recording stopped ({exc.strerror or exc}); what was written is kept"
        print(f"soccerbt: {self.failed}", file=self.err)
        try:
            self.recorder.close()
        except Exception:  # noqa: BLE001 - the file is already failing; keep the match going
            pass

    def on_step(self, match: Any) -> None:
        if self.failed is None:
            try:
                self.recorder.on_step(match)
            except OSError as exc:
                self._fail(exc)

    def finish(self, result: Any = None) -> None:
        if self.failed is None:
            try:
                self.recorder.finish(result)
            except OSError as exc:
                self._fail(exc)

    def close(self) -> None:
        self.finish(None)


def check_outputs(args: argparse.Namespace, names: tuple[str, ...]) -> str | None:
    """The first problem with the output files named by options `names` ("record" for
    --record), checked before any work: a missing folder, a directory, an input file, two
    outputs on one path; then a --record name that does not end in .mcap."""
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
