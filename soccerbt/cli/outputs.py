"""Files the commands write: checked before any work starts, written atomically, never over an input.

``check_output_path(path, inputs)`` says why a path cannot be written (a missing folder, a
directory, a block device or socket, one of the inputs) so a command exits 2 before it plays a
match or a batch (``check_outputs(args, names)``: the outputs named by a command's options, with
every file of every tree they play, includes too, as inputs, and two options naming one file
refused). ``write_atomically(path, data)`` writes what the user named:

- a new name or a regular file: a temporary file beside it, created exclusively (``O_EXCL``,
  ``O_NOFOLLOW``, an unpredictable name), renamed over it when whole, so a reader never sees
  half a file and a planted link at a guessable name is never followed;
- a symbolic link: the same, at the file it points to (the link stays);
- a character device or a FIFO (``/dev/null``, ``/dev/stdout``, ``/proc/self/fd/1``, a named
  pipe): written through, never replaced (a FIFO waits for its reader, as a shell redirection
  does);
- a directory, a block device or a socket: refused (``OutputRefused``), before any work by the
  checks.

Files a command names itself inside a folder it owns (a batch's game files) are written with
``follow=False``: the entry is replaced, never a file it links to, and an entry that is not a
regular file is refused. ``GuardedRecorder`` wraps a match recorder so that a failed write (a
full disk) stops the recording with one message and keeps what was written, while the match
and its summary go on. ``record_name_problem(path)``: a replay log is an MCAP file, its name ends
in ``.mcap`` (any other name is refused, a JSON-lines one with how old logs convert), and it is
a regular file (MCAP is written with seeks); ``screenshot_name_problem``: a screenshot is PNG.
"""
from __future__ import annotations

import argparse
import errno
import os
import secrets
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from soccerbt.trees.includes import tree_files
from soccerbt.trees.shipped import default_tree_path

__all__ = ["check_output_path", "check_outputs", "record_name_problem", "screenshot_name_problem",
           "write_atomically", "open_exclusive", "GuardedRecorder", "OutputRefused", "same_file",
           "tree_inputs", "RECORD_SUFFIX", "SCREENSHOT_SUFFIX"]

RECORD_SUFFIX = ".mcap"  # the one replay log format (JSON-lines logs: soccerbt replay convert)
SCREENSHOT_SUFFIX = ".png"


class OutputRefused(OSError):
    """An output that soccerbt does not write (a directory, a block device, a socket, a
    non-regular entry of its own folder); ``strerror`` says why."""

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(errno.EINVAL, why, str(path))


def _kind(mode: int) -> str | None:
    """What a non-regular, non-writable-through file is, or None when soccerbt writes it."""
    if stat.S_ISREG(mode) or stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISBLK(mode):
        return "is a block device: soccerbt writes files, character devices (/dev/null) and FIFOs, never a disk"
    if stat.S_ISSOCK(mode):
        return "is a socket"
    return "is not a regular file"


def _stat(path: str | Path) -> os.stat_result | None:
    """stat() following links (and /proc/self/fd/N), None when nothing is there."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two names reach one file: the same device and inode when both exist (through
    links, ``/proc/self/fd/N`` and hard links), else the same resolved path."""
    try:
        sa, sb = _stat(a), _stat(b)
        if sa is not None and sb is not None:
            return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)
        if sa is not None or sb is not None:
            return False
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def tree_inputs(*trees: str | Path | None, default: bool = True) -> list[Path]:
    """Every file of the given trees (each tree file and, recursively, every file it includes,
    as the loader resolves them); a None tree stands for our own game.xml when ``default``."""
    out: list[Path] = []
    for tree in trees:
        if tree is None:
            if not default:
                continue
            tree = default_tree_path()
        try:
            out += tree_files(tree)
        except (OSError, ValueError, RuntimeError):
            out.append(Path(tree))
    return out


def _target(path: str | Path) -> Path:
    """Where a regular file named `path` lives: its name with every link resolved."""
    return Path(os.path.realpath(path))


def check_output_path(path: str | Path, inputs: Iterable[str | Path | None] = (), *,
                      stream_ok: bool = True) -> str | None:
    """Why `path` cannot be written, or None: an empty name, a directory, a block device or a
    socket, a missing or unwritable folder (of the file a link points to), one of the inputs
    (the same file by any name). `stream_ok` False: a character device or FIFO is refused too
    (what must be a regular file: a replay log)."""
    if str(path) == "":
        return "an empty file name"
    p = Path(path)
    try:
        st = _stat(p)
        if st is not None:
            problem = _kind(st.st_mode)
            if problem is None and not stream_ok and not stat.S_ISREG(st.st_mode):
                problem = ("is a character device" if stat.S_ISCHR(st.st_mode) else "is a FIFO") + \
                    ": this output must be a regular file"
            if problem is not None:
                return f"{p}: {problem}"
        if st is None or stat.S_ISREG(st.st_mode):
            target = _target(p)
            parent = target.parent
            shown = f" (the link's target {target})" if target != Path(os.path.abspath(p)) else ""
            if not parent.exists():
                return f"{p}: the folder {parent} does not exist{shown}"
            if not parent.is_dir():
                return f"{p}: {parent} is not a folder{shown}"
            if not os.access(parent, os.W_OK):
                return f"{p}: the folder {parent} is not writable{shown}"
        for item in inputs:
            if item is not None and same_file(p, item):
                return f"{p}: would overwrite an input file" + (
                    f" ({item})" if os.path.abspath(item) != os.path.abspath(p) else "")
    except OSError as exc:
        return f"{p}: {exc.strerror or exc}"
    return None


_JSON_LINES_SUFFIXES = (".jsonl", ".jsonl.gz")  # the logs of earlier versions


def record_name_problem(path: str | Path) -> str | None:
    """Why `path` cannot name a replay log to write (it is an MCAP file: its name must end in
    .mcap, e.g. "out.txt" -> "out.mcap"), or None. A JSON-lines name also says how an old log of
    that format converts."""
    text = str(path)
    if text.endswith(RECORD_SUFFIX):
        return None
    problem = (f"{path}: the replay log is an MCAP file: its name must end in {RECORD_SUFFIX} "
               f"(e.g. {_mcap_name(text)})")
    if text.lower().endswith(_JSON_LINES_SUFFIXES):
        # a name of the old format: the user may hold such logs, and they convert once
        problem += (f"; JSON-lines logs are no longer written (an old one converts with: soccerbt replay "
                    f"convert OLD.jsonl NEW{RECORD_SUFFIX})")
    return problem


def _mcap_name(text: str) -> str:
    """The name with its suffix (".txt", ".jsonl.gz", none) replaced by .mcap."""
    p = Path(text)
    name = p.name
    for suffix in (".jsonl.gz", ".gz"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[:-len(suffix)]
            break
    stem, dot, _suffix = name.rpartition(".")
    if dot and stem:
        name = stem
    return str(p.with_name(name + RECORD_SUFFIX)) if name else text + RECORD_SUFFIX


def screenshot_name_problem(path: str | Path) -> str | None:
    """Why `path` cannot name a screenshot (it is PNG: the name ends in .png), or None."""
    if str(path).lower().endswith(SCREENSHOT_SUFFIX):
        return None
    return f"{path}: a screenshot is a PNG image: its name must end in {SCREENSHOT_SUFFIX}"


def open_exclusive(folder: str | Path, name: str, suffix: str = ".part", mode: int = 0o666) -> tuple[Path, BinaryIO]:
    """A new file in `folder`, created exclusively under an unpredictable name (".NAME.RANDOM"
    + suffix; never through an existing entry or link), open for writing."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = Path(folder) / f".{name}.{secrets.token_hex(8)}{suffix}"
        try:
            fd = os.open(tmp, flags, mode)
        except FileExistsError:
            continue
        return tmp, os.fdopen(fd, "wb")
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder))


def _chunks(data: str | bytes | Iterable[bytes]) -> Iterable[bytes]:
    if isinstance(data, str):
        return (data.encode("utf-8"),)
    if isinstance(data, (bytes, bytearray, memoryview)):
        return (bytes(data),)
    if isinstance(data, Iterable):
        return data
    raise TypeError(f"write_atomically writes str or bytes, not {type(data).__name__}")


def write_atomically(path: str | Path, data: str | bytes | Iterable[bytes], *, follow: bool = True) -> None:
    """Write `data` (text, bytes, or an iterable of byte strings) to what `path` names (see the
    module docstring): a regular file by a whole temporary file renamed over it, a character
    device or FIFO through, anything else refused (OutputRefused). `follow` False: `path` is a
    name soccerbt chose in its own folder: the entry itself is replaced, a link is never
    followed, and an entry that is not a regular file is refused."""
    chunks = _chunks(data)
    path = Path(path)
    if follow:
        st = _stat(path)
        target = path if st is not None and not stat.S_ISREG(st.st_mode) else _target(path)
    else:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise OutputRefused(path, "not a regular file (soccerbt names this file itself and replaces only its "
                                      "own regular files): remove it")
        target = path
    if st is not None and not stat.S_ISREG(st.st_mode):
        problem = _kind(st.st_mode)
        if problem is not None:
            raise OutputRefused(path, problem)
        _write_through(path, chunks)
        return
    tmp, f = open_exclusive(target.parent, target.name)
    try:
        with f:
            if st is not None:
                os.fchmod(f.fileno(), stat.S_IMODE(st.st_mode))
            for chunk in chunks:
                f.write(chunk)
        os.replace(tmp, target)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


def _write_through(path: Path, chunks: Iterable[bytes]) -> None:
    """Write to a character device or FIFO as it is (no create, no truncate, no rename)."""
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) or _kind(st.st_mode) is not None:  # swapped meanwhile
            raise OutputRefused(path, "changed while it was opened; not written")
        with os.fdopen(fd, "wb", closefd=False) as f:
            for chunk in chunks:
                f.write(chunk)
    finally:
        os.close(fd)


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

    def written(self) -> str | None:
        """After ``finish``: "replay log written to PATH (1.23 MB)", or None when the recording
        failed (its message was printed) or the path is no regular file (a FIFO, a device)."""
        if self.failed is not None:
            return None
        try:
            if not self.path.is_file():
                return None
            size_mb = self.path.stat().st_size / 1e6
        except OSError:
            return None
        return f"replay log written to {self.path} ({size_mb:.2f} MB); soccerbt replay {self.path} opens it"


def check_outputs(args: argparse.Namespace, names: tuple[str, ...]) -> str | None:
    """The first problem with the output files named by options `names` ("record" for
    --record), checked before any work: a missing folder, a directory, a block device, a file of
    a tree the command plays (the tree files and every file they include), two options naming
    one file (by any name: a link, /proc/self/fd/N); then a --record name that does not end in
    .mcap or is not a regular file, a --screenshot name that does not end in .png."""
    trees = [getattr(args, k, None) for k in ("tree", "blue_tree", "red_tree")]
    blue = getattr(args, "blue_tree", None) or getattr(args, "tree", None)
    red = getattr(args, "red_tree", None) or getattr(args, "tree", None)
    wanted = [(name, getattr(args, name, None)) for name in names]
    if not any(path for _name, path in wanted):
        return None
    inputs = tree_inputs(*{str(t) for t in trees if t}, *([None] if blue is None or red is None else []))
    seen: list[tuple[str, str]] = []
    for name, path in wanted:
        if not path:
            continue
        flag = "--" + name.replace("_", "-")
        problem = check_output_path(path, inputs, stream_ok=name != "record")
        if problem is not None:
            return f"{problem} ({flag})"
        for other, other_flag in seen:
            if same_file(path, other):
                return f"{path}: given to both {other_flag} and {flag}"
        seen.append((path, flag))
    record = getattr(args, "record", None) if "record" in names else None
    problem = record_name_problem(record) if record else None
    if problem is not None:
        return f"{problem} (--record)"
    shot = getattr(args, "screenshot", None) if "screenshot" in names else None
    problem = screenshot_name_problem(shot) if shot else None
    return f"{problem} (--screenshot)" if problem is not None else None
