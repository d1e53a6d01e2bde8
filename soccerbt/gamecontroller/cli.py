"""``soccerbt gc``: GameController tools for real networks.

``gc listen`` prints the gc_* blackboard entries of one robot for each packet received, the same
entries for HL v12 and HSL v19/v20 packets (a monitor for real matches; ``--json``: one object a
line), answering in the family it hears (HL v2 alive, HSL v4 status message). ``gc send`` plays
a scripted game as real packets, HSL v20 by default (``--version 12|19|20``; the script language
is in ``soccerbt.gamecontroller.scripted_game``), for testing robots without a GameController.
"""
from __future__ import annotations

import argparse
import json
import logging
import select
import socket
import sys
import time
from pathlib import Path

from soccerbt.gamecontroller.adapter import GameControllerAdapter
from soccerbt.gamecontroller.hsl_protocol import HSL_MAX_NUM_PLAYERS, HSL_V20, HslControlData
from soccerbt.gamecontroller.protocol import DATA_PORT, HL_VERSION, MAX_NUM_PLAYERS, RETURN_PORT, encode
from soccerbt.gamecontroller.receiver import GameControllerReceiver
from soccerbt.gamecontroller.scripted_game import ScriptedGame, ScriptError, parse_script


def configure(parser: argparse.ArgumentParser) -> None:
    """Add ``listen`` and ``send`` to the ``gc`` command."""
    sub = parser.add_subparsers(dest="gc_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])

    listen = sub.add_parser("listen", help="print the gc_* entries for each packet received",
                            description="Listen for GameController packets and print one robot's gc_* entries.")
    listen.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    listen.add_argument("--port", type=_port, default=DATA_PORT, help=f"UDP port (default {DATA_PORT}; 0: any)")
    listen.add_argument("--team", type=_team_number, required=True, help="our team number")
    listen.add_argument("--player", type=_player_number, required=True, help="our player number (1-based)")
    listen.add_argument("--count", type=_positive_int, help="stop after this many packets for our team")
    listen.add_argument("--json", action="store_true", help="one JSON object a line")
    listen.add_argument("--timeout", type=_positive_float, metavar="S",
                        help="stop after S seconds without a packet for our team (exit 1 if --count "
                             "was not reached or nothing arrived)")
    listen.add_argument("--connected-timeout", type=_positive_float, default=2.0, metavar="S",
                        help="gc_connected turns false after S seconds without packets (default 2)")
    listen.add_argument("--gc-allow", "--allow", dest="allow", action="append", metavar="ADDR",
                        help="accept packets only from this GameController address (repeatable; --allow is the "
                             "old name); without it the first GameController heard is the one trusted")
    listen.add_argument("--return-port", type=_port, default=RETURN_PORT,
                        help=f"port of the alive packets / status messages (default {RETURN_PORT})")
    listen.add_argument("--no-alive", action="store_true",
                        help="send no alive packets (HL) or status messages (HSL)")
    listen.set_defaults(func=run_listen)

    send = sub.add_parser("send", help="send a scripted game as real packets",
                          description="Send a scripted game as HSL v20 (default), v19 or HL v12 packets. Script: "
                                      "statements separated by ';', e.g. \"READY 5; SET 3; PLAYING 60; SETPLAY "
                                      "THROW_IN 2 STOPPED 3; SETPLAY THROW_IN 2 RESUMED 5; PENALTY 2 3 PICK_UP; "
                                      "GOAL 1; HALFTIME\" (see soccerbt.gamecontroller.scripted_game).")
    send.add_argument("--host", default="127.0.0.1", help="destination (default 127.0.0.1; x.x.x.255 broadcasts)")
    send.add_argument("--port", type=_port, default=DATA_PORT, help=f"destination port (default {DATA_PORT})")
    send.add_argument("--team", type=_team_number, default=1, help="first team number (default 1)")
    send.add_argument("--opponent", type=_team_number, default=2, help="second team number (default 2)")
    group = send.add_mutually_exclusive_group(required=True)
    group.add_argument("--script", help="the script text")
    group.add_argument("--script-file", type=Path, help="a file holding the script")
    send.add_argument("--version", type=int, choices=(HL_VERSION, 19, HSL_V20), default=HSL_V20,
                      help="packet version: 12 (HL), 19 or 20 (HSL GameController v6 / v7; default 20)")
    send.add_argument("--rate-hz", type=_positive_float, default=2.0, help="packets per second (default 2)")
    send.add_argument("--players-per-team", type=int, choices=range(1, HSL_MAX_NUM_PLAYERS + 1), default=4,
                      metavar="N", help=f"players per team (default 4; at most {MAX_NUM_PLAYERS} for v12, "
                                        f"{HSL_MAX_NUM_PLAYERS} for HSL; the other slots are substitutes)")
    send.add_argument("--half-s", type=int, default=600, help="length of a half in seconds (default 600)")
    send.add_argument("--dry-run", action="store_true", help="print the packets instead of sending them")
    send.set_defaults(func=run_send)


# --- argument types ---------------------------------------------------------------------------


def _ranged_int(text: str, lo: int, hi: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what}: expected a whole number, got {text!r}") from None
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(f"{what} {value} out of range {lo}..{hi}")
    return value


def _port(text: str) -> int:
    return _ranged_int(text, 0, 65535, "port")


def _team_number(text: str) -> int:
    return _ranged_int(text, 0, 254, "team number")


def _player_number(text: str) -> int:
    return _ranged_int(text, 1, HSL_MAX_NUM_PLAYERS, "player number")


def _positive_int(text: str) -> int:
    return _ranged_int(text, 1, 2**31, "count")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


# --- listen ---------------------------------------------------------------------------------


def _format_text(entries: dict[str, object], packet_number: int, source: str) -> str:
    parts = [f"#{packet_number:3d} {source}"]
    parts += [f"{k}={v}" for k, v in entries.items()]
    return " ".join(parts)


def run_listen(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="gc listen: %(message)s", stream=sys.stderr)
    try:
        rx = GameControllerReceiver(args.team, args.player, host=args.host, port=args.port,
                                    timeout_s=args.connected_timeout, allow=args.allow,
                                    return_port=args.return_port, send_alive=not args.no_alive)
    except OSError as exc:
        print(f"gc listen: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    adapter = GameControllerAdapter(args.team, args.player, timeout_s=args.connected_timeout)
    blackboard: dict[str, object] = {}
    print(f"listening on {rx.host}:{rx.port} for team {args.team} player {args.player}", file=sys.stderr,
          flush=True)
    count = 0
    start = last_s = time.monotonic()
    exit_code = 0
    try:
        with rx:
            while args.count is None or count < args.count:
                now = time.monotonic()
                if args.timeout is not None and now - last_s >= args.timeout:
                    if args.count is not None or count == 0:
                        exit_code = 1
                    print(f"gc listen: no packet for {args.timeout:g} s, stopping", file=sys.stderr)
                    break
                wait_s = 0.25 if args.timeout is None else max(0.0, min(0.25, args.timeout - (now - last_s)))
                select.select([rx], [], [], wait_s)
                now = time.monotonic()
                packet = rx.poll(now)
                was_connected = blackboard.get("gc_connected")
                adapter.apply(packet, now, blackboard)
                if was_connected and not blackboard["gc_connected"]:
                    print("gc listen: connection lost (gc_connected false)", file=sys.stderr, flush=True)
                if packet is None:
                    continue
                count += 1
                last_s = now
                source = rx.latest_address[0] if rx.latest_address else "?"
                entries = {k: blackboard[k] for k in adapter.entries}
                if args.json:
                    line = json.dumps({"packet_number": packet.packet_number, "version": packet.version,
                                       "from": source,
                                       "t_s": round(now - start, 3), **entries}, default=int)
                else:
                    line = _format_text(entries, packet.packet_number, source)
                print(line, flush=True)
    finally:
        c = rx.counters
        print(f"gc listen: received {c.received}, for us {c.accepted}, malformed {c.dropped_malformed}, "
              f"foreign {c.foreign}, not allowed {c.not_allowed}, other senders {c.not_locked}, v12 {c.hl_v12}, "
              f"v19 {c.hsl_v19}, "
              f"v20 {c.hsl_v20}, returns sent {c.returns_sent} (status messages {c.status_sent})",
              file=sys.stderr)
    return exit_code


# --- send -----------------------------------------------------------------------------------


_MAX_SCRIPT_BYTES = 1 << 20  # a script of a whole tournament is a few kilobytes


def run_send(args: argparse.Namespace) -> int:
    if args.team == args.opponent:
        print("gc send: --team and --opponent need different numbers", file=sys.stderr)
        return 2
    if args.script_file is not None:
        path = args.script_file
        try:
            if not path.is_file():
                print(f"gc send: {path}: not a regular file", file=sys.stderr)
                return 2
            with open(path, "rb") as f:
                data = f.read(_MAX_SCRIPT_BYTES + 1)
            if len(data) > _MAX_SCRIPT_BYTES:
                print(f"gc send: {path}: larger than {_MAX_SCRIPT_BYTES} bytes: not a script", file=sys.stderr)
                return 2
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[:exc.start].count(b"\n") + 1
            print(f"gc send: {path}:{line}: not UTF-8 text (a binary file?)", file=sys.stderr)
            return 2
        except OSError as exc:
            print(f"gc send: {path}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        if "\x00" in text:
            print(f"gc send: {path}:{text[:text.index(chr(0))].count(chr(10)) + 1}: a NUL byte: not a script",
                  file=sys.stderr)
            return 2
        source = str(args.script_file)
    else:
        text, source = args.script, "--script"
    if args.version == HL_VERSION and args.players_per_team > MAX_NUM_PLAYERS:
        print(f"gc send: --players-per-team {args.players_per_team}: v12 has {MAX_NUM_PLAYERS} player slots",
              file=sys.stderr)
        return 2
    try:
        statements = parse_script(text, (args.team, args.opponent), source, version=args.version)
    except ScriptError as exc:
        print(exc, file=sys.stderr)
        return 2
    game = ScriptedGame(statements, args.team, args.opponent, players_per_team=args.players_per_team,
                        half_s=args.half_s, version=args.version)
    if args.dry_run:
        for t, p in game.packets(args.rate_hz):
            if isinstance(p, HslControlData):
                detail = (f"v{p.version} state={p.state} stopped={p.stopped} phase={p.game_phase} "
                          f"set_play={p.set_play} kicking_team={p.kicking_team}")
            else:
                detail = (f"state={p.state} secondary={p.secondary_state} info={list(p.secondary_state_info)} "
                          f"kick_off={p.kick_off_team}")
            print(f"{t:8.2f} s #{p.packet_number:3d} {detail} secs={p.secs_remaining} "
                  f"secondary_time={p.secondary_time} teams={[(tm.team_number, tm.score) for tm in p.teams]}")
        return 0
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    sent = 0
    start = time.monotonic()
    try:
        for t, p in game.packets(args.rate_hz):
            delay = start + t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            try:
                sock.sendto(encode(p), (args.host, args.port))
            except OSError as exc:
                print(f"gc send: cannot send to {args.host}:{args.port}: {exc}", file=sys.stderr)
                return 1
            sent += 1
        # the last statement lasts its whole duration before we exit
        delay = start + game.duration_s - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    finally:
        sock.close()
    print(f"gc send: sent {sent} packets to {args.host}:{args.port}", file=sys.stderr)
    return 0
