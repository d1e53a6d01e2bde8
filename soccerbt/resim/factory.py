"""The tree factory a re-run of a log builds its brains with (``--rerun``, ``--verify``, derive).

``log_factory(log, node_plugins)``: the soccer nodes, the installed node plugins and the
``--nodes`` given; the plugins the log's run used (its header's ``node_plugins``) must be among
them, for a log never chooses code to load.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from soccerbt.brain_setup import build_tree_factory
from soccerbt.log.format import ReplayError
from soccerbt.log.reader import McapLog
from soccerbt.trees.plugins import missing_recorded_plugins

__all__ = ["log_factory"]


def log_factory(log: McapLog, node_plugins: Sequence[str] = ()) -> Any:
    """The factory a re-run of `log` builds its brains with: the soccer nodes, the installed
    plugins and `node_plugins` (``--nodes``). ReplayError when the log's run used a plugin that
    is not loaded (a log never chooses code to load); PluginError for a plugin that fails."""
    factory = build_tree_factory(node_plugins)
    missing = missing_recorded_plugins(log.header.get("node_plugins"), factory)
    if missing:
        raise ReplayError(log.path, None, "; ".join(missing))
    return factory
