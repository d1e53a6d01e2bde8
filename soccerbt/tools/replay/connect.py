"""``soccerbt replay --connect HOST:PORT``: the replay window on a live stream (``soccerbt.live.client``)."""
from __future__ import annotations

import math
from typing import Any

from soccerbt.cli.display import display_available
from soccerbt.live.client import LiveLog
from soccerbt.live.server import parse_live
from soccerbt.log.format import ReplayError

__all__ = ["connect_command"]


def connect_command(args: Any, err: Any) -> int:
    """``soccerbt replay --connect HOST:PORT [--select R] [--buffer-minutes M] [--buffer-mb MB]``: 0 when the
    window closes, 1 without a display, 2 bad usage or no stream to show."""
    if args.file is not None:
        print("soccerbt replay: --connect reads a live stream: give no log file", file=err)
        return 2
    try:
        host, port = parse_live(args.connect)
    except ValueError as exc:
        print(f"soccerbt replay: --connect {exc}", file=err)
        return 2
    minutes = args.buffer_minutes
    if not (math.isfinite(minutes) and 0.1 <= minutes <= 120.0):
        print("soccerbt replay: --buffer-minutes must be within 0.1..120", file=err)
        return 2
    megabytes = getattr(args, "buffer_mb", 512.0)
    if not (math.isfinite(megabytes) and 16.0 <= megabytes <= 65536.0):
        print("soccerbt replay: --buffer-mb must be within 16..65536", file=err)
        return 2
    if not display_available():
        print("soccerbt replay: no display (set DISPLAY, or SDL_VIDEODRIVER=dummy)", file=err)
        return 1
    try:
        log = LiveLog.connect(host, port, buffer_s=minutes * 60.0, max_buffer_bytes=int(megabytes * 1e6))
    except ReplayError as exc:
        print(str(exc), file=err)
        return 2
    try:
        if args.select is not None:
            log.check_robot(args.select)
        # deferred: start-up: the viewer (pygame) only when a window opens
        from soccerbt.tools.replay import mcap_view

        return mcap_view.view_mcap(log, at_s=log.duration_s, speed=args.speed, select=args.select, paused=args.paused)
    except ReplayError as exc:
        print(str(exc), file=err)
        return 2
    finally:
        log.close()
