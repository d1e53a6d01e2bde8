"""Booster node libraries per version of Booster's brain, and how a tree chooses one.

Booster's robocup_demo registers slightly different nodes on its branches:

========= ==========================================================================================
``main``  the main branch (``../shared/booster/nodes.json``, trees in ``../shared/booster/trees``)
``2026``  branch ``sandbox/support_2026_game_controller`` (``trees-2026/nodes.json``): adds
          ``RobocupWalk``; ``GoToFreekickPosition`` defaults attack_dist 0.6 (was 0.7) and
          vx_limit 0.7 (was 1.2)
========= ==========================================================================================

``booster.booster_node_types(version)`` gives each library exactly as its nodes.json lists it
(the registry is booster.py's; this module knows versions and trees, no node, so that the nodes
whose defaults follow the version can import it).
``register_soccer_nodes(factory, booster_version=...)`` registers one of them (the flag; also
the environment variable ``SOCCERBT_BOOSTER_VERSION``); without a choice it registers the
``auto`` library: the union of the versions, in which the nodes whose defaults differ take the
defaults of the version *of the tree they are built in*. That version is, in order:
``RobotContext.booster_version`` when set, else what the tree's files say: a tree is a 2026 tree
when the file declaring the node, or a tree file in its folder or the folder above that
includes it (Booster's ``game.xml`` includes ``./subtrees/...``), uses a name only the 2026
brain provides (the node ``RobocupWalk``, the keys ``local_freekick_*`` or
``gc_real_game_sub_state``; comments do not count); else ``main``.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["BOOSTER_VERSIONS", "DEFAULT_BOOSTER_VERSION", "AUTO", "check_version",
           "booster_version_from_env", "detect_tree_version", "tree_version_of_file",
           "VERSION_DEFAULTS", "ENV_VAR"]

BOOSTER_VERSIONS = ("main", "2026")
DEFAULT_BOOSTER_VERSION = "main"
AUTO = "auto"
ENV_VAR = "SOCCERBT_BOOSTER_VERSION"

# node id -> port -> default string, per version (only what differs between versions)
VERSION_DEFAULTS: dict[str, dict[str, dict[str, str]]] = {
    "main": {"GoToFreekickPosition": {"attack_dist": "0.7", "vx_limit": "1.2"}},
    "2026": {"GoToFreekickPosition": {"attack_dist": "0.6", "vx_limit": "0.7"}},
}

_MARKERS = re.compile(r"\bRobocupWalk\b|\blocal_freekick_\w+|\bgc_real_game_sub_state\b")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_INCLUDE = re.compile(r"<include\s[^>]*path\s*=\s*[\"']([^\"']+)[\"']")
_MAX_BYTES = 8 << 20
_cache: dict[tuple, str] = {}


def check_version(version: str, allow_auto: bool = False) -> str:
    """A version name ("main", "2026", with `allow_auto` "auto"), lower-cased; ValueError otherwise."""
    version = str(version).strip().lower()
    if version in BOOSTER_VERSIONS or (allow_auto and version == AUTO):
        return version
    choices = BOOSTER_VERSIONS + ((AUTO,) if allow_auto else ())
    raise ValueError(f"unknown Booster version {version!r} (expected one of {', '.join(choices)})")


def booster_version_from_env() -> str | None:
    """The version named by ``SOCCERBT_BOOSTER_VERSION`` (None when unset or empty)."""
    raw = os.environ.get(ENV_VAR, "").strip()
    return check_version(raw, allow_auto=True) if raw else None


def _text(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        return _COMMENT.sub("", path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None


def _includes(path: Path, text: str) -> list[Path]:
    return [(path.parent / p).resolve() for p in _INCLUDE.findall(text)]


def detect_tree_version(paths) -> str:
    """"2026" when any of the files (and what they include) uses a 2026-only name, else "main"."""
    seen: set[Path] = set()
    todo = [Path(p).resolve() for p in paths]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        text = _text(p)
        if text is None:
            continue
        if _MARKERS.search(text):
            return "2026"
        todo.extend(_includes(p, text))
    return "main"


def _stamp(p: Path) -> tuple:
    try:
        st = p.stat()
        return (str(p), st.st_mtime_ns, st.st_size)
    except OSError:
        return (str(p), -1, -1)


def tree_version_of_file(xml_path: str | os.PathLike[str] | None) -> str:
    """The Booster version of the tree a node declared in ``xml_path`` belongs to (see the
    module docstring); "main" for trees not read from a file."""
    if not xml_path:
        return DEFAULT_BOOSTER_VERSION
    path = Path(xml_path)
    if not path.is_file():
        return DEFAULT_BOOSTER_VERSION
    path = path.resolve()
    candidates = sorted({*path.parent.glob("*.xml"), *path.parent.parent.glob("*.xml")})
    key = (str(path), tuple(_stamp(c) for c in candidates))
    cached = _cache.get(key)
    if cached is not None:
        return cached
    files = [path]
    for cand in candidates:  # the tree files that include this one, directly or not
        cand = cand.resolve()
        if cand == path:
            continue
        reached, todo = set(), [cand]
        while todo:
            p = todo.pop()
            if p in reached:
                continue
            reached.add(p)
            text = _text(p)
            if text is not None:
                todo.extend(_includes(p, text))
        if path in reached:
            files.append(cand)
    version = detect_tree_version(files)
    if len(_cache) > 256:
        _cache.clear()
    _cache[key] = version
    return version
