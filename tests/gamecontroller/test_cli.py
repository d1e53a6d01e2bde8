"""End to end over real UDP on loopback: ``soccerbt gc send`` to ``soccerbt gc listen``, each in
its own process, plus the CLI's error handling."""
from __future__ import annotations

import argparse
import json
import select
import socket
import subprocess
import sys

import pytest

from soccerbt.gamecontroller.cli import configure
from soccerbt.gamecontroller.hsl_protocol import HslControlData, HslRobotInfoV19, HslRobotInfoV20, HslTeamInfo
from soccerbt.gamecontroller.protocol import GameControlData, HslReturnData, TeamInfo, decode_return, encode

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

LOOPBACK = "127.0.0.1"


def soccerbt(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "soccerbt", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def start_listener(*args: str) -> tuple[subprocess.Popen, int]:
    proc = soccerbt("gc", "listen", "--host", LOOPBACK, "--port", "0", *args)
    line = proc.stderr.readline()  # "listening on 127.0.0.1:PORT for team T player N"
    assert line.startswith("listening on "), line
    return proc, int(line.split()[2].rsplit(":", 1)[1].rstrip())


SCRIPT = ("READY 0.3; SET 0.3; PLAYING 0.4; FREEKICK THROW_IN 2 STOP 0.2; FREEKICK THROW_IN 2 GET_READY 0.2; "
          "PENALTY 1 2 34; FREEKICK THROW_IN 2 SET 0.2; PLAYING 0.2; GOAL 2; READY 0.2; HALFTIME; INITIAL 0.2")
N_PACKETS = 3 + 3 + 4 + 2 + 2 + 2 + 2 + 2 + 2


def test_send_to_listen_over_loopback() -> None:
    returns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    returns.bind((LOOPBACK, 0))
    try:
        listener, port = start_listener("--team", "1", "--player", "2", "--json", "--count", str(N_PACKETS),
                                        "--timeout", "5", "--return-port", str(returns.getsockname()[1]))
        sender = soccerbt("gc", "send", "--port", str(port), "--team", "1", "--opponent", "2", "--rate-hz", "10",
                          "--version", "12", "--script", SCRIPT)
        send_out, send_err = sender.communicate()
        out, err = listener.communicate()
        assert sender.returncode == 0, send_err
        assert f"sent {N_PACKETS} packets" in send_err
        assert listener.returncode == 0, err
        rows = [json.loads(line) for line in out.splitlines()]
        assert len(rows) == N_PACKETS
        assert [r["packet_number"] for r in rows] == list(range(N_PACKETS))
        assert all(r["from"] == LOOPBACK and r["gc_connected"] is True for r in rows)
        keys = ("gc_game_state", "gc_game_sub_state_type", "gc_game_sub_state", "gc_set_play", "gc_is_kickoff_side",
                "gc_is_sub_state_kickoff_side", "gc_is_under_penalty", "gc_score", "gc_opponent_score",
                "gc_first_half")
        seq = []
        for r in rows:
            v = tuple(r[k] for k in keys)
            if not seq or seq[-1] != v:
                seq.append(v)
        assert seq == [
            ("READY", "NONE", "", "", True, False, False, 0, 0, True),
            ("SET", "NONE", "", "", True, False, False, 0, 0, True),
            ("PLAY", "NONE", "", "", True, False, False, 0, 0, True),
            ("PLAY", "FREE_KICK", "STOP", "THROW_IN", True, False, False, 0, 0, True),
            ("PLAY", "FREE_KICK", "GET_READY", "THROW_IN", True, False, False, 0, 0, True),
            ("PLAY", "FREE_KICK", "SET", "THROW_IN", True, False, True, 0, 0, True),
            ("PLAY", "NONE", "", "", True, False, True, 0, 0, True),
            ("READY", "NONE", "", "", True, False, True, 0, 1, True),  # team 2 scored: we kick off
            ("INITIAL", "NONE", "", "", True, False, True, 0, 1, False),  # second half, blocks swapped
        ]
        assert rows[N_PACKETS - 5]["gc_penalty"] == 34
        assert [r["gc_secs_remaining"] for r in rows[6:10]] == [600, 600, 600, 600]
        assert rows[6]["gc_secondary_time"] == 10  # the kick-off wait after SET
        assert "for us 22" in err and "malformed 0" in err
        # the listener answered with alive packets: team 1 before player 2
        returns.setblocking(False)
        alive = []
        while select.select([returns], [], [], 0.2)[0]:
            alive.append(decode_return(returns.recv(64)))
        assert alive and all((a.team, a.player, a.message) == (1, 2, 2) for a in alive)
    finally:
        returns.close()


def _packet(teams: tuple[int, int], state: int = 2) -> bytes:
    return encode(GameControlData(state=state, teams=(TeamInfo(teams[0]), TeamInfo(teams[1], 1))))


def test_listen_ignores_other_teams_and_times_out() -> None:
    listener, port = start_listener("--team", "7", "--player", "1", "--timeout", "2", "--no-alive")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _ in range(4):
            s.sendto(_packet((3, 4)), (LOOPBACK, port))
    out, err = listener.communicate()
    assert listener.returncode == 1
    assert out == ""
    assert "foreign 4" in err and "for us 0" in err


def test_listen_text_output_counts_garbage() -> None:
    listener, port = start_listener("--team", "1", "--player", "1", "--count", "1", "--timeout", "5", "--no-alive")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(b"not a packet", (LOOPBACK, port))
        s.sendto(_packet((2, 1)), (LOOPBACK, port))
    out, err = listener.communicate()
    assert listener.returncode == 0, err
    assert out.startswith("#  0 127.0.0.1 gc_game_state=SET ")
    assert "malformed 1" in err and "bad header" in err  # logged once


def run_in_process(capsys, *args: str) -> tuple[int, str, str]:
    """Run a gc subcommand through its own configure() (no other package's commands)."""
    parser = argparse.ArgumentParser(prog="soccerbt gc")
    configure(parser)
    try:
        ns = parser.parse_args(list(args))
        code = ns.func(ns)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_send_reports_script_errors_with_location(capsys, tmp_path) -> None:
    code, _, err = run_in_process(capsys, "send", "--port", "9", "--script", "READY 1; SET x")
    assert code == 2
    assert err.strip() == "--script:1:14: duration (s): expected a number, got 'x'"
    path = tmp_path / "game.gcs"
    path.write_text("READY 1\nFREEKICK THROW_IN 5 STOP 1\n")
    code, _, err = run_in_process(capsys, "send", "--port", "9", "--script-file", str(path))
    assert code == 2
    assert err.strip() == f"{path}:2:19: team 5 does not play (teams: 1, 2)"
    code, _, err = run_in_process(capsys, "send", "--port", "9", "--script-file", str(tmp_path / "missing"))
    assert code == 2 and "missing" in err


def test_send_dry_run_prints_packets(capsys) -> None:
    code, out, err = run_in_process(capsys, "send", "--dry-run", "--version", "12", "--rate-hz", "4", "--script",
                                    "READY 0.5; GOAL 2; PLAYING 0.25")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 3
    assert "state=1" in lines[0] and "state=3" in lines[2] and "teams=[(1, 0), (2, 1)]" in lines[2]


@pytest.mark.parametrize("args, message", [
    (["listen", "--team", "1", "--player", "21"], "player number 21 out of range"),
    (["listen", "--team", "1", "--player", "1", "--port", "70000"], "port 70000 out of range"),
    (["listen", "--team", "1", "--player", "1", "--timeout", "-1"], "must be positive"),
    (["send", "--team", "1", "--opponent", "1", "--script", "READY 1"], "need different numbers"),
    (["send", "--port", "9"], "one of the arguments --script --script-file is required"),
])
def test_bad_arguments(capsys, args: list[str], message: str) -> None:
    code, _, err = run_in_process(capsys, *args)
    assert code == 2 and message in err


HSL_SCRIPT = ("READY 0.2; SET 0.2; PLAYING 0.2; SETPLAY GOAL_KICK 2 STOPPED 0.2; SETPLAY GOAL_KICK 2 RESUMED 0.2; "
              "PENALTY 1 2 MOTION_IN_STOP; PLAYING 0.2; UNPENALIZE 1 2; PENALTY 1 2 CAUTIONED; GOAL 1; TIMEOUT 2 0.2; "
              "UNPENALIZE 1 2; HALFTIME; INITIAL 0.2")
HSL_PACKETS = 2 * 8


def test_send_v20_to_listen_over_loopback() -> None:
    returns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    returns.bind((LOOPBACK, 0))
    try:
        listener, port = start_listener("--team", "1", "--player", "2", "--json", "--count", str(HSL_PACKETS),
                                        "--timeout", "5", "--return-port", str(returns.getsockname()[1]))
        sender = soccerbt("gc", "send", "--port", str(port), "--team", "1", "--opponent", "2", "--rate-hz", "10",
                          "--script", HSL_SCRIPT)  # --version 20 is the default
        _, send_err = sender.communicate()
        out, err = listener.communicate()
        assert sender.returncode == 0, send_err
        assert f"sent {HSL_PACKETS} packets" in send_err
        assert listener.returncode == 0, err
        rows = [json.loads(line) for line in out.splitlines()]
        assert len(rows) == HSL_PACKETS and all(r["version"] == 20 and r["gc_packet_version"] == 20 for r in rows)
        keys = ("gc_game_state", "gc_game_sub_state_type", "gc_game_sub_state", "gc_real_game_sub_state",
                "gc_is_kickoff_side", "gc_is_sub_state_kickoff_side", "gc_is_under_penalty", "gc_penalty_name",
                "gc_score", "gc_opponent_score", "gc_first_half")
        seq = []
        for r in rows:
            v = tuple(r[k] for k in keys)
            if not seq or seq[-1] != v:
                seq.append(v)
        assert seq == [
            ("READY", "NONE", "NONE", "NONE", True, False, False, "NONE", 0, 0, True),
            ("SET", "NONE", "NONE", "NONE", True, False, False, "NONE", 0, 0, True),
            ("PLAY", "NONE", "NONE", "NONE", True, False, False, "NONE", 0, 0, True),
            ("PLAY", "FREE_KICK", "STOP", "GOAL_KICK", False, False, False, "NONE", 0, 0, True),
            ("PLAY", "FREE_KICK", "GET_READY", "GOAL_KICK", False, False, False, "NONE", 0, 0, True),
            ("PLAY", "NONE", "NONE", "NONE", True, False, True, "MOTION_IN_STOP", 0, 0, True),
            ("INITIAL", "TIMEOUT", "NONE", "NONE", False, False, True, "CAUTIONED", 1, 0, True),  # team 2 kicks off
            ("INITIAL", "NONE", "NONE", "NONE", False, False, False, "NONE", 1, 0, False),
        ]
        assert all(r["gc_message_budget"] == 12000 and r["gc_connected"] is True for r in rows)
        assert [r["gc_stopped"] for r in rows[6:10]] == [True, True, False, False]
        assert f"for us {HSL_PACKETS}" in err and "malformed 0" in err and f"v20 {HSL_PACKETS}" in err
        # the listener answered an HSL GameController with status messages v4, player before team
        returns.setblocking(False)
        status = []
        while select.select([returns], [], [], 0.2)[0]:
            status.append(decode_return(returns.recv(64)))
        assert status and all(isinstance(s, HslReturnData) and (s.player, s.team, s.fallen) == (2, 1, 0)
                              and s.ball_age_s == -1.0 for s in status)
    finally:
        returns.close()


@pytest.mark.parametrize("version", ["19", "20"])
def test_listen_text_output_for_hsl(version: int) -> None:
    listener, port = start_listener("--team", "1", "--player", "1", "--count", "1", "--timeout", "5", "--no-alive")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(b"RGme\x14" + bytes(10), (LOOPBACK, port))
        robot = HslRobotInfoV19() if version == "19" else HslRobotInfoV20()
        s.sendto(encode(HslControlData(version=int(version), state=2, teams=(
            HslTeamInfo(2, players=(robot,) * 20), HslTeamInfo(1, players=(robot,) * 20)))), (LOOPBACK, port))
    out, err = listener.communicate()
    assert listener.returncode == 0, err
    assert out.startswith("#  0 127.0.0.1 gc_game_state=SET ") and f"gc_packet_version={version}" in out
    assert "malformed 1" in err and f"v{version} 1" in err and "HSL v20 packet of 15 bytes" in err


def test_send_dry_run_hsl(capsys) -> None:
    code, out, err = run_in_process(capsys, "send", "--dry-run", "--version", "19", "--rate-hz", "2", "--script",
                                    "SETPLAY THROW_IN 2 STOPPED 0.5; PLAYING 0.5")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2 and "v19 state=3 stopped=1" in lines[0] and "set_play=4 kicking_team=2" in lines[0]


def test_send_v12_keeps_eleven_players(capsys) -> None:
    code, _, err = run_in_process(capsys, "send", "--version", "12", "--players-per-team", "15", "--script", "READY 1")
    assert code == 2 and "v12 has 11 player slots" in err


@pytest.mark.parametrize("content,message", [
    (bytes(range(128, 256)), ":1: not UTF-8 text (a binary file?)"),
    (b"READY 5;\nSET 3\x00", ":2: a NUL byte: not a script"),
])
def test_gc_send_refuses_a_binary_script_file(tmp_path, content, message) -> None:
    import subprocess
    import sys

    path = tmp_path / "script.bin"
    path.write_bytes(content)
    out = subprocess.run([sys.executable, "-m", "soccerbt", "gc", "send", "--script-file", str(path), "--dry-run"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr
    out = subprocess.run([sys.executable, "-m", "soccerbt", "gc", "send", "--script-file", str(tmp_path), "--dry-run"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "not a regular file" in out.stderr
