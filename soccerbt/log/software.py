"""Which software wrote a log: soccerbt's version, the digest of its source, the git commit it ran
from, and the versions of Python and of the libraries that shape the numbers.

The header of every log carries ``software()`` (``soccerbt.log.writer``), so that a reader can
tell which code wrote an old log, and a re-run that does not reproduce can say whether the code,
a library or neither changed (``compare_software``).

The source digest is a SHA-256 over soccerbt's own source (its Python and C files and its
shipped trees, by path), computed once a process: two checkouts with the same files give the
same digest whatever their history. The git commit is read from the checkout's ``.git`` files
(no git command is run); it is None when soccerbt is installed rather than run from a checkout.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import platform
from functools import cache
from pathlib import Path
from typing import Any

from soccerbt import __version__

__all__ = ["software", "source_digest", "git_commit", "LIBRARIES", "compare_software", "node_plugins_header"]

# the libraries whose versions a log records: the ones a brain's numbers depend on (the random
# streams and the arithmetic), the engine's, and the log's own
LIBRARIES = ("numpy", "scipy", "shapely", "py_trees", "lxml", "mcap", "protobuf", "zstandard")
_SOURCE_SUFFIXES = (".py", ".c", ".h", ".xml")
_PACKAGE = Path(__file__).resolve().parents[1]


@cache
def source_digest() -> str:
    """``sha256:<hex>`` over soccerbt's source files (path and bytes, in path order)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in _PACKAGE.rglob("*") if p.suffix in _SOURCE_SUFFIXES and p.is_file()):
        rel = path.relative_to(_PACKAGE).as_posix()
        if "__pycache__" in rel:
            continue
        data = path.read_bytes()
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return "sha256:" + digest.hexdigest()


def _read(path: Path, limit: int = 4096) -> str | None:
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace").strip()
    except OSError:
        return None


@cache
def git_commit() -> str | None:
    """The commit of the checkout soccerbt runs from (HEAD, resolved), or None."""
    root = _PACKAGE.parent
    git = root / ".git"
    if git.is_file():  # a worktree: "gitdir: PATH"
        text = _read(git) or ""
        if not text.startswith("gitdir:"):
            return None
        git = (root / text[len("gitdir:"):].strip()).resolve()
    if not git.is_dir():
        return None
    head = _read(git / "HEAD")
    if head is None:
        return None
    if not head.startswith("ref:"):
        return head if _is_sha(head) else None
    ref = head[len("ref:"):].strip()
    common = git
    commondir = _read(git / "commondir")
    if commondir:
        common = (git / commondir).resolve()
    for base in (git, common):
        found = _read(base / ref)
        if found and _is_sha(found):
            return found
    packed = _read(common / "packed-refs", 1 << 22) or ""
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and _is_sha(sha):
            return sha
    return None


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


@cache
def software() -> dict[str, Any]:
    """What the header's ``software`` holds: soccerbt's version, source digest and git commit,
    the Python version and implementation, and the libraries' versions. (Whether the compiled
    recorder ran is not said: its bytes are its twins'.)"""
    return {"soccerbt": __version__, "source_digest": source_digest(), "git_commit": git_commit(),
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "libraries": {name: _version(name) for name in LIBRARIES}}


def compare_software(recorded: Any) -> list[str]:
    """What differs between the software a log names (its header's ``software``) and this one,
    a line each ("the source differs (log sha256:ab12..., now sha256:cd34...)", "numpy 2.3.1 ->
    2.4.6"); ["the log does not say which software wrote it"] for a log without it."""
    if not isinstance(recorded, dict):
        return ["the log does not say which software wrote it (soccerbt 0.1 logs do not)"]
    now = software()
    out: list[str] = []
    if recorded.get("source_digest") != now["source_digest"]:
        was = str(recorded.get("soccerbt"))
        out.append(f"soccerbt's source differs (log: {was} {str(recorded.get('source_digest'))[:19]}, "
                   f"now: {now['soccerbt']} {now['source_digest'][:19]})")
    if recorded.get("python") != now["python"]:
        out.append(f"Python {recorded.get('python')} -> {now['python']}")
    libraries = recorded.get("libraries")
    if not isinstance(libraries, dict):
        libraries = {}
    for name in LIBRARIES:
        if libraries.get(name) != now["libraries"].get(name):
            out.append(f"{name} {libraries.get(name)} -> {now['libraries'].get(name)}")
    return out


def node_plugins_header(match: Any) -> dict[str, Any]:
    """The header's ``node_plugins`` (a team's own nodes the run loaded: name, source, ``--nodes``
    spec, version, node ids; soccerbt.trees.plugins), when there were any: ``{}`` otherwise, so a
    run without plugins writes the header it always did."""
    factories = [getattr(match, "factory", None)]
    factories += [getattr(agent, "factory", None) for agent in getattr(match, "agents", {}).values()]
    for factory in factories:
        plugins = getattr(factory, "plugins", None)
        if plugins:
            return {"node_plugins": [plugin.to_json() for plugin in plugins]}
    return {}
