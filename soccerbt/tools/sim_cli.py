"""``soccerbt sim``: ``soccerbt.serve.cli`` with the field viewer wired in (``--view``).

The serving side sits below the viewer (a served simulator needs no window); this command, above
both, hands the viewer down.
"""
from __future__ import annotations

import argparse
from typing import Any

from soccerbt.serve import cli as serve_cli

__all__ = ["configure"]


def _view(match: Any, speed: float) -> None:
    # deferred: start-up: pygame loads only when a window is asked for (``soccerbt sim`` without --view)
    from soccerbt.tools.viewer.viewer import view_match

    view_match(match, speed=speed)


def configure(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``soccerbt sim --serve``, ``--view`` included."""
    serve_cli.configure(parser, viewer=_view)
