"""Derived logs kept for reading: an inputs-only log is derived once, then opened at once.

Every reader of an inputs-only log (``--record-mode inputs``, the default recording) works on its
full log, derived as it opens (``derive.derive_log``). Deriving re-runs every brain, about as
long as the brains took to play, so ``derived_for_reading`` keeps the result in a cache folder:
``$XDG_CACHE_HOME/soccerbt/derived``, else ``~/.cache/soccerbt/derived`` (``soccerbt replay
--cache-dir DIR``; ``--no-cache`` derives into a temporary file removed at once, as before).

An entry is named by a SHA-256 (``cache_key``) of everything its bytes depend on: the log's
name and bytes, the bytes of the run's earlier segments for a flight log's later segment (derive
feeds them first), and this soccerbt's source files; so a changed log, a segment replaced or
another soccerbt derives anew, and a kept entry is the very file ``soccerbt replay derive``
would write. The folder is capped (``--cache-mb``, 2048 by default): after each new entry the
entries used least recently (their modification time, set on each use) are deleted until the
rest fit; only names the cache gives (64 hex digits + ``.mcap``) are ever deleted, and an entry
larger than the cap is not kept; an entry's temporary file older than an hour (a derive that
was killed) is deleted then too. A log that changes while it is derived (a flight log still
written) is derived but not kept; a kept entry that no longer opens is deleted and derived again.
A folder that cannot be made or written is said on one line, and the log is derived uncached.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from soccerbt.resim.derive import derive_log, earlier_segments
from soccerbt.log.format import ReplayError
from soccerbt.log.reader import McapLog

__all__ = ["DeriveCache", "cache_key", "default_cache_dir", "derived_for_reading", "DEFAULT_CACHE_MB"]

DEFAULT_CACHE_MB = 2048
_ENTRY = re.compile(r"^[0-9a-f]{64}\.mcap$")
_PART = re.compile(r"^\.[0-9a-f]{64}\.mcap\.[0-9a-f]{16}\.part$")  # an entry being written (open_exclusive)
STALE_PART_S = 3600.0  # a part this old was left by a derive that was killed: deleted
_SOURCE_SUFFIXES = (".py", ".c", ".h")
_source_digest: str | None = None


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/soccerbt/derived``, else ``~/.cache/soccerbt/derived``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "soccerbt" / "derived"


@dataclass
class DeriveCache:
    """Where derived logs are kept (``folder``) and the cap on the folder's entries in bytes."""

    folder: Path
    cap_bytes: int = DEFAULT_CACHE_MB * 1024 * 1024

    def entry(self, key: str) -> Path:
        return self.folder / f"{key}.mcap"

    def ready(self) -> str | None:
        """Make the folder (owner only); what stops it, or None."""
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            return f"cannot make {self.folder} ({exc.strerror or exc})"
        if self.folder.is_symlink() or not self.folder.is_dir() or not os.access(self.folder, os.W_OK | os.X_OK):
            return f"{self.folder} is not a folder this user can write"
        return None

    def trim(self, keep: Path) -> list[Path]:
        """Delete the entries used least recently until the rest fit under the cap (`keep`, the
        entry just made, goes last and only when it alone is over the cap); the deleted ones."""
        entries = []
        stale_ns = time.time_ns() - int(STALE_PART_S * 1e9)
        for path in self.folder.iterdir():
            part = _PART.match(path.name)
            if not part and not _ENTRY.match(path.name):
                continue
            try:
                st = path.lstat()
            except OSError:
                continue
            if part:
                if st.st_mtime_ns < stale_ns and path.is_file() and not path.is_symlink():
                    path.unlink(missing_ok=True)
                continue
            if path.is_file() and not path.is_symlink():
                entries.append((path != keep, st.st_mtime_ns, st.st_size, path))
        total = sum(size for _, _, size, _ in entries)
        deleted = []
        for _, _, size, path in sorted(entries, key=lambda e: (not e[0], e[1])):  # oldest first, `keep` last
            if total <= self.cap_bytes:
                break
            try:
                path.unlink()
            except OSError:
                continue
            total -= size
            deleted.append(path)
        return deleted


def _digest_file(path: Path, h: hashlib._Hash) -> None:  # type: ignore[name-defined]
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)


def source_digest() -> str:
    """SHA-256 over this soccerbt's source files (their paths and bytes), once per process."""
    global _source_digest
    if _source_digest is None:
        import soccerbt

        root = Path(soccerbt.__file__).resolve().parent
        h = hashlib.sha256()
        for path in sorted(p for p in root.rglob("*") if p.suffix in _SOURCE_SUFFIXES and p.is_file()):
            h.update(str(path.relative_to(root)).encode() + b"\0")
            _digest_file(path, h)
        _source_digest = h.hexdigest()
    return _source_digest


def cache_key(log: McapLog) -> str:
    """What a derived log of `log` depends on, as a SHA-256 (the module docstring); ReplayError
    when the run's earlier segments are not all there (derive says so the same way)."""
    h = hashlib.sha256(b"soccerbt derived log 1\0" + source_digest().encode() + b"\0")
    h.update(log.path.name.encode("utf-8", "surrogateescape") + b"\0")
    _digest_file(log.path, h)
    for path in earlier_segments(log):
        h.update(b"\0segment\0")
        _digest_file(path, h)
    return h.hexdigest()


def _stamp(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def derived_for_reading(log: McapLog, budget_ratio: int | None, err: TextIO | None = None,
                        cache: DeriveCache | None = None) -> McapLog:
    """The full log of the inputs-only `log`, for the readers (the tree tools, the viewer, diff,
    --rerun): the kept one in `cache` when there is one, else derived now and kept in `cache`
    (with no cache: into a temporary file removed at once; it lives while the returned log is
    open). The returned log answers to `log`'s path and carries `log`'s warnings and derive's
    notes; `log` is closed. `err`: where the lines that say so go."""
    def say(text: str) -> None:
        if err is not None:
            print(f"soccerbt replay: {text}", file=err, flush=True)

    what = f"{log.path} holds its brains' inputs only (--record-mode inputs)"
    scratch = entry = stamp = None
    try:
        if cache is not None:
            problem = cache.ready()
            if problem is not None:
                say(f"the derived logs' cache: {problem}; deriving without it")
            else:
                stamp = _stamp(log.path)
                entry = cache.entry(cache_key(log))
                kept = _open_kept(entry, budget_ratio)
                if kept is not None:
                    say(f"{what}: its derived log, kept in {cache.folder}, opened")
                    return _as_read(kept, log, [])
        say(f"{what}: deriving every node's status from them ({len(log.robots)} brains, {log.last_step} steps; "
            f"soccerbt replay derive {log.path} FULL.mcap writes the result"
            f"{'' if entry is None else '; it is kept for the next reading'})")
        start = time.perf_counter()
        if entry is None:
            scratch = Path(tempfile.mkdtemp(prefix="soccerbt-derived-"))
        out = entry if entry is not None else scratch / "derived.mcap"
        done = derive_log(log, out, progress=_progress(err))
        derived = McapLog.open(out, budget_ratio=budget_ratio)
        if entry is not None:
            if done.notes or _stamp(log.path) != stamp:
                entry.unlink()  # damaged (its notes are said only now) or written meanwhile: not kept
            elif entry in cache.trim(keep=entry):
                say(f"the derived log is larger than the cache's cap ({cache.cap_bytes // (1024 * 1024)} MB): "
                    "not kept")
        say(f"derived in {time.perf_counter() - start:.1f} s")
        return _as_read(derived, log, done.notes)
    finally:
        log.close()
        if scratch is not None:
            try:
                (scratch / "derived.mcap").unlink(missing_ok=True)
                scratch.rmdir()
            except OSError:
                pass


def _as_read(derived: McapLog, log: McapLog, notes: list[str]) -> McapLog:
    """`derived` answering to `log`'s path, with `log`'s warnings and derive's `notes` first."""
    derived.path = log.path
    derived.warnings[:0] = [*log.warnings, *notes]
    return derived


def _open_kept(entry: Path, budget_ratio: int | None) -> McapLog | None:
    """The kept entry opened and marked as used now, or None (none, or one that no longer opens:
    deleted)."""
    if not entry.is_file() or entry.is_symlink():
        return None
    try:
        kept = McapLog.open(entry, budget_ratio=budget_ratio)
    except (ReplayError, OSError):
        entry.unlink(missing_ok=True)
        return None
    if kept.warnings or kept.gaps:  # a kept log is whole: a damaged one is derived again
        kept.close()
        entry.unlink(missing_ok=True)
        return None
    try:
        os.utime(entry)
    except OSError:
        pass
    return kept


def _progress(err: TextIO | None):  # noqa: ANN202 - a callback or None
    """derive's progress on a terminal: one line rewritten in place."""
    if err is None or not getattr(err, "isatty", lambda: False)():
        return None

    def show(step: int, last: int) -> None:
        end = "\n" if step >= last else ""
        print(f"\rsoccerbt replay: deriving {100 * step // max(1, last):3d}% (step {step} of {last})", end=end,
              file=err, flush=True)

    return show
