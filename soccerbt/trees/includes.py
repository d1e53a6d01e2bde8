"""Includes: the one place that resolves `<include path=...>` and decides what may be read.

The loader (`loading._Loader`) and the hot-reload watcher (`tree_files`, used by the agent)
both resolve includes here, on the parsed document: an `<include>` written inside an attribute
value, a comment or CDATA is text, never an include. The rule:

- an include path is relative to the including file's folder (or absolute);
- the resolved target (symlinks followed) must lie inside the allowed folders: the top file's
  folder by default, or `include_roots`; `allow_any_include` lifts this rule;
- only a regular file is ever opened (a FIFO, a device, a directory is refused from stat()),
  and no file is read beyond the size limit (`DEFAULT_MAX_FILE_BYTES`, 8 MiB by default).
"""
from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from soccerbt.trees.errors import TreeLoadError
from soccerbt.trees.xmlload import (
    DEFAULT_MAX_FILE_BYTES,
    FileRefused,
    XmlDocument,
    XNode,
    decode_xml_bytes,
    parse_xml_text,
    read_limited,
)

__all__ = ["IncludeRules", "resolve_include", "tree_files", "default_max_file_bytes"]


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip().replace("_", ""))
    except ValueError:
        raise ValueError(f"the environment variable {name}={raw!r} is not a whole number") \
            from None
    if value <= 0:
        raise ValueError(f"the environment variable {name}={raw!r} must be positive")
    return value


def default_max_file_bytes() -> int:
    """8 MiB, or the environment variable SOCCERBT_MAX_TREE_BYTES."""
    return _env_int("SOCCERBT_MAX_TREE_BYTES", DEFAULT_MAX_FILE_BYTES)


@dataclass
class IncludeRules:
    """Where includes may go: `roots` (resolved folders) unless `allow_any`."""

    roots: list[Path]
    allow_any: bool = False

    @classmethod
    def make(cls, include_roots: Iterable[str | os.PathLike] | None, allow_any: bool) -> IncludeRules:
        return cls([Path(r).resolve() for r in include_roots] if include_roots else [], allow_any)

    def default_to(self, folder: Path) -> None:
        """With no roots given, the top file's (or text's) folder is the only one."""
        if not self.roots:
            self.roots = [folder.resolve()]

    def inside(self, p: Path) -> bool:
        return any(p == root or root in p.parents for root in self.roots)


def resolve_include(doc: XmlDocument, incl: XNode, rules: IncludeRules) -> Path:
    """The resolved target of an `<include>` element, or a TreeLoadError located at it.

    Checks the attributes and the folder rule; the target itself is neither opened nor
    stat()ed here."""
    attr = incl.attrs.get("path")
    if attr is None:
        raise TreeLoadError(doc.path, incl.line, "Invalid <include> tag: missing 'path' attribute")
    if "ros_pkg" in incl.attrs:
        raise TreeLoadError(doc.path, incl.attr_line("ros_pkg"),
                            "Using attribute [ros_pkg] in <include>, but this library was "
                            "compiled without ROS support")
    base = doc.directory or Path.cwd()
    target = Path(attr)
    if not target.is_absolute():
        target = base / target
    try:
        resolved = target.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise TreeLoadError(doc.path, incl.attr_line("path"),
                            f"cannot resolve <include path=\"{attr}\">: {exc}") from None
    if not rules.allow_any and not rules.inside(resolved):
        raise TreeLoadError(doc.path, incl.attr_line("path"),
                            f"<include path=\"{attr}\"> leaves the tree's folder "
                            f"({', '.join(str(r) for r in rules.roots)})")
    return resolved


def _regular_or_missing(p: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(p).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def tree_files(path: str | os.PathLike, *, include_roots: Iterable[str | os.PathLike] | None = None,
               allow_any_include: bool = False, max_file_bytes: int | None = None) -> list[Path]:
    """The tree file and every file it includes, recursively (each once, in discovery order),
    resolved as the loader resolves them.

    Lists the files to watch for changes: regular files (also ones over the size limit, so
    that shrinking one counts as a change) and missing ones (so that their reappearance counts).
    Follows only the includes of files that are read and parsed without error; never lists a
    target outside the allowed folders, nor a FIFO, device or directory (which nobody may read).
    """
    limit = max_file_bytes if max_file_bytes is not None else default_max_file_bytes()
    root = Path(path).resolve()
    rules = IncludeRules.make(include_roots, allow_any_include)
    rules.default_to(root.parent)
    out: list[Path] = []
    seen: set[Path] = set()
    todo: deque[Path] = deque([root])
    while todo:
        current = todo.popleft()
        if current in seen:
            continue
        seen.add(current)
        if not _regular_or_missing(current):
            continue
        out.append(current)
        try:
            raw = read_limited(current, limit)
            doc = parse_xml_text(decode_xml_bytes(raw, str(current)), str(current), current.parent)
        except (FileRefused, TreeLoadError):
            continue
        if doc.root.tag != "root":
            continue
        for incl in doc.root.children:
            if incl.tag != "include":
                continue
            try:
                todo.append(resolve_include(doc, incl, rules))
            except TreeLoadError:
                continue
    return out
