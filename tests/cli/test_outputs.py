"""Output files: checked before any work, never over an input, written atomically; a failing
recording stops with one message while the match goes on; a terminated batch stops its workers."""
from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from soccerbt.cli.outputs import GuardedRecorder, check_output_path, write_atomically
from soccerbt.log.writer import make_recorder
from soccerbt.match import Match, MatchConfig

SOCCERBT = [sys.executable, "-m", "soccerbt"]


def test_check_output_path(tmp_path: Path) -> None:
    tree = tmp_path / "t.xml"
    tree.write_text("<root/>")
    assert check_output_path(tmp_path / "out.mcap") is None
    assert "does not exist" in check_output_path(tmp_path / "missing" / "out.mcap")
    assert "is a directory" in check_output_path(tmp_path)
    assert "overwrite an input" in check_output_path(tree, [None, tree])
    assert "overwrite an input" in check_output_path(tmp_path / "." / "t.xml", [str(tree)])


def test_write_atomically_replaces_whole_or_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    write_atomically(target, "first\n")
    write_atomically(target, b"second\n")
    assert target.read_text() == "second\n" and os.listdir(tmp_path) == ["r.json"]

    with pytest.raises(TypeError):
        write_atomically(target, 42)  # type: ignore[arg-type]
    assert target.read_text() == "second\n" and os.listdir(tmp_path) == ["r.json"]


@pytest.mark.parametrize("args,message", [
    (["--record", "{tmp}/no/such/dir/run.mcap"], "does not exist (--record)"),
    (["--record", "{tmp}"], "is a directory (--record)"),
    (["--tree", "{tree}", "--record", "{tree}"], "would overwrite an input file (--record)"),
    (["--screenshot", "{tmp}/no/dir/s.png"], "does not exist (--screenshot)"),
    (["--record", "{tmp}/same.png", "--screenshot", "{tmp}/same.png"], "given to both --record and --screenshot"),
])
def test_run_refuses_bad_output_paths_before_playing(tmp_path: Path, args: list[str], message: str) -> None:
    tree = tmp_path / "mine.xml"
    tree.write_text((Path(__file__).resolve().parents[2] / "soccerbt/trees/xml/game.xml").read_text())
    before = tree.read_bytes()
    filled = [a.format(tmp=tmp_path, tree=tree) for a in args]
    out = subprocess.run(SOCCERBT + ["run", "--headless", "--seconds", "600", *filled],
                         capture_output=True, text=True)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr
    assert "final score" not in out.stdout  # refused before any match was played
    assert tree.read_bytes() == before


def test_replay_and_batch_check_their_outputs(tmp_path: Path) -> None:
    out = subprocess.run(SOCCERBT + ["batch", "--seeds", "0-3", "--seconds", "600", "--json",
                                     str(tmp_path / "none" / "r.json")], capture_output=True, text=True)
    assert out.returncode == 2 and "does not exist (--json)" in out.stderr
    log = tmp_path / "x.mcap"
    log.write_bytes(b"not a log")
    out = subprocess.run(SOCCERBT + ["replay", str(log), "--robot", "blue1", "--btlog", str(log)],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "would overwrite an input file (--btlog)" in out.stderr
    assert log.read_bytes() == b"not a log"


def test_a_full_disk_stops_the_recording_not_the_match() -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    match = Match(MatchConfig(seed=1, duration_s=1.0, team_size=1, idle_teams=("red",)))
    err = io.StringIO()
    recorder = make_recorder("/dev/full", match, guarded=True)
    recorder.err = err
    match.run(1.0)
    recorder.finish(match.result())
    assert isinstance(recorder, GuardedRecorder) and recorder.failed is not None
    assert err.getvalue().count("recording stopped") == 1
    assert match.steps == 100 and match.result().sim_s == pytest.approx(1.0)


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_sigterm_stops_a_batch_and_every_worker_at_once(tmp_path: Path) -> None:
    proc = subprocess.Popen(SOCCERBT + ["batch", "--seeds", "0-5", "--seconds", "600", "--team-size", "1",
                                        "--jobs", "2", "--json", str(tmp_path / "r.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    workers: set[int] = set()
    while len(workers) < 2 and proc.poll() is None:  # the pool's two workers have started
        workers = _children(proc.pid)
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate()
    assert proc.returncode == 143, err
    assert "terminated: 0 of 6 games finished" in err and "Traceback" not in err and "BrokenPipe" not in err
    assert workers and not any(_alive(pid) for pid in workers)
    assert (tmp_path / "r.json").exists()


def test_nan_infinite_and_huge_values_in_a_log_do_not_stop_a_screenshot(tmp_path: Path) -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from soccerbt.log.reader import McapLog
    from soccerbt.tools.replay.mcap_view import save_mcap_screenshot
    from soccerbt.world.types import Pose2D

    match = Match(MatchConfig(seed=1, duration_s=2.0, team_size=1))
    out = tmp_path / "nan.mcap"
    recorder = make_recorder(out, match)

    class Poison:
        def on_step(self, m: Match) -> None:
            bb = m.agent("blue1").blackboard
            bb["robot_pose_field"] = Pose2D(float("nan"), float("inf"), float("nan"))
            bb["ball_field"] = (float("inf"), -1e308)
            m.world.ball.x_m = 1e30

    match.run(0.5)
    match.observers.insert(0, Poison())
    match.run(0.2)
    recorder.finish(match.result())
    log = McapLog.open(out)
    state = log.robot_state("blue1", log.last_step)
    assert state.blackboard["robot_pose_field"][0] == ["nan", "inf", "nan"]
    png = save_mcap_screenshot(log, tmp_path / "nan.png", select="blue1")
    assert png.stat().st_size > 1000
    cli = subprocess.run(SOCCERBT + ["replay", str(out), "--screenshot", str(tmp_path / "c.png")],
                         capture_output=True, text=True, env={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    assert cli.returncode == 0, cli.stderr


def test_a_finished_recording_says_where_it_went_and_how_big_it_is(tmp_path) -> None:
    from soccerbt.cli.outputs import GuardedRecorder

    class Writes:
        def finish(self, result=None):
            (tmp_path / "run.mcap").write_bytes(b"x" * 1_234_567)

        def close(self):
            pass

    guarded = GuardedRecorder(Writes(), tmp_path / "run.mcap")
    guarded.finish(None)
    assert guarded.written() == (f"replay log written to {tmp_path / 'run.mcap'} (1.23 MB); "
                                 f"soccerbt replay {tmp_path / 'run.mcap'} opens it")
    guarded.failed = "disk full"
    assert guarded.written() is None
