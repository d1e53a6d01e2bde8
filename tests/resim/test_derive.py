"""``--record-mode inputs`` and ``soccerbt replay derive``: an inputs-only log leaves the node
data out (the ticks carry the root and the command, no tree nor keyframe); derived, it holds the
very messages a full recording of the same seeded match holds, index included. A log cut by a
power cut derives up to its last whole chunk; a re-run that does not reproduce keeps what it
derived and says where and why; a full log, a converted one, a changed tree and an output onto
the input are refused with a clear line."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from soccerbt.__main__ import main
from soccerbt.log import format as lf
from soccerbt.log import proto
from soccerbt.log.reader import McapLog
from soccerbt.log.writer import make_recorder
from soccerbt.match import Match, MatchConfig
from soccerbt.resim.derive import derive_log

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

SEED, SECONDS = 4, 6.0


def _record(path: Path, node_data: bool, **config: object) -> Path:
    match = Match(MatchConfig(seed=SEED, duration_s=SECONDS, team_size=2, **config))
    recorder = make_recorder(path, match, node_data=node_data)
    match.run(SECONDS)
    recorder.finish(match.result())
    return path


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("derive")
    full = _record(folder / "full.mcap", True)
    inputs = _record(folder / "inputs.mcap", False)
    derived = folder / "derived.mcap"
    derive_log(McapLog.open(inputs), derived)
    return {"full": full, "inputs": inputs, "derived": derived}


def _messages(path: Path) -> list[tuple[str, int, bytes]]:
    return list(McapLog.open(path).messages(0, None))


def test_an_inputs_only_log_leaves_out_what_can_be_derived(logs: dict[str, Path]) -> None:
    log = McapLog.open(logs["inputs"])
    assert log.header["node_data"] is False and log.node_data is False and "inputs" in log.header
    topics = {t for t, _, _ in _messages(logs["inputs"])}
    assert not any(lf.robot_of_topic(t) for t in topics), topics  # no tree nor keyframe
    assert {lf.STEP_TOPIC, lf.INPUTS_TOPIC, lf.GC_TOPIC} <= topics
    assert not topics & {lf.SCENE_TOPIC, lf.COMMANDS_TOPIC}  # made by derive from the truth and the brains
    full = McapLog.open(logs["full"])
    steps = 0
    for a, b in zip(full.steps(), log.steps(), strict=False):
        assert a.step == b.step and a.truth == b.truth
        for robot in log.robots:
            tx, ty = a.ticks[robot], b.ticks[robot]
            assert (ty.tick, ty.root, repr(ty.command)) == (tx.tick, tx.root, repr(tx.command))  # NaN: no kick
            assert ty.transitions == [] and ty.ticked == [] and ty.blackboard == {} and ty.reasons == {}
        steps += 1
    assert steps == full.last_step == log.last_step == round(SECONDS / full.dt_s)
    assert logs["inputs"].stat().st_size < 0.8 * logs["full"].stat().st_size


def test_the_derived_log_holds_the_full_recordings_messages(logs: dict[str, Path]) -> None:
    full, derived = _messages(logs["full"]), _messages(logs["derived"])
    assert len(derived) == len(full)
    (t0, _, h_full), (t1, _, h_derived) = full[0], derived[0]
    assert t0 == t1 == lf.HEADER_TOPIC
    header, full_header = lf.load_json(h_derived), lf.load_json(h_full)
    assert header.pop("derived_from") == "inputs.mcap"
    assert header.pop("recorded_software") == full_header["software"]  # what wrote the inputs-only log
    assert header == full_header
    for a, b in zip(full[1:], derived[1:], strict=False):
        assert a == b, (a[0], a[1])
    assert McapLog.open(logs["derived"]).index == McapLog.open(logs["full"]).index


def test_every_reader_derives_an_inputs_only_log_as_it_opens_it(
        logs: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    before = logs["inputs"].read_bytes()
    assert main(["replay", str(logs["full"]), "--robot", "blue2", "--tree", "--at", "3"]) == 0
    full_tree = capsys.readouterr().out
    assert "tick 300" in full_tree
    assert main(["replay", str(logs["derived"]), "--robot", "blue2", "--tree", "--at", "3"]) == 0
    assert capsys.readouterr().out == full_tree
    assert main(["replay", str(logs["inputs"]), "--robot", "blue2", "--tree", "--at", "3", "--no-cache"]) == 0
    out = capsys.readouterr()
    assert out.out == full_tree
    assert f"{logs['inputs']} holds its brains' inputs only" in out.err and "derived in" in out.err
    assert main(["replay", str(logs["inputs"]), "--find", "blue2:SelfLocate==SUCCESS", "--no-cache"]) == 0
    found = capsys.readouterr().out
    assert "ticks 1-" in found
    assert main(["replay", str(logs["full"]), "--find", "blue2:SelfLocate==SUCCESS"]) == 0
    assert capsys.readouterr().out == found
    assert main(["replay", "diff", str(logs["inputs"]), str(logs["full"]), "--no-cache"]) == 0
    assert capsys.readouterr().out.startswith("identical:")
    assert main(["replay", str(logs["inputs"]), "--info"]) == 0  # says what it is, derives nothing
    out = capsys.readouterr()
    assert "inputs only" in out.out and "deriving" not in out.err
    assert logs["inputs"].read_bytes() == before and list(scratch.iterdir()) == []  # nothing left behind
    assert not (Path(os.environ["XDG_CACHE_HOME"]) / "soccerbt").exists()  # nothing kept anywhere else either


def test_a_log_cut_by_a_power_cut_derives_to_its_last_whole_chunk(logs: dict[str, Path], tmp_path: Path) -> None:
    from soccerbt.log.writer import McapRecorder

    whole = tmp_path / "small-chunks.mcap"
    match = Match(MatchConfig(seed=SEED, duration_s=SECONDS, team_size=2))
    recorder = McapRecorder(whole, chunk_bytes=16 * 1024, node_data=False)  # a flight log's chunks
    recorder.on_start(match)
    match.observers.append(recorder)
    match.run(SECONDS)
    recorder.finish(match.result())
    data = whole.read_bytes()
    cut = tmp_path / "cut.mcap"
    cut.write_bytes(data[: len(data) * 2 // 3])  # no summary, a torn chunk at the end
    log = McapLog.open(cut)
    assert 0 < log.last_step < McapLog.open(whole).last_step
    done = derive_log(log, tmp_path / "cut-full.mcap")
    derived = McapLog.open(tmp_path / "cut-full.mcap")
    assert done.steps == derived.last_step and done.stopped is None
    whole_steps = {step for step, _v in ((v.step, v) for v in log.steps())}  # the steps the cut log holds whole
    assert derived.last_step == max(whole_steps) >= log.last_step - 1  # the last may have lost its ticks
    if derived.last_step < log.last_step:
        assert done.notes and f"step {log.last_step}" in done.notes[-1]
    full = McapLog.open(logs["full"])  # the same seeded match, recorded whole
    step = derived.last_step
    a, b = full.robot_state("red1", step), derived.robot_state("red1", step)
    assert (a.statuses, a.blackboard) == (b.statuses, b.blackboard)


def test_what_cannot_be_derived_is_refused_with_one_line(logs: dict[str, Path], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "x.mcap")
    assert main(["replay", "derive", str(logs["full"]), out]) == 2
    assert "holds node data already" in capsys.readouterr().err
    assert main(["replay", "derive", str(logs["inputs"]), str(logs["inputs"])]) == 2
    assert "would overwrite an input" in capsys.readouterr().err
    assert main(["replay", "derive", str(logs["inputs"]), str(tmp_path / "x.txt")]) == 2
    assert "must end in .mcap" in capsys.readouterr().err
    assert main(["replay", "derive", str(logs["inputs"])]) == 1
    assert "give the inputs-only log and the full one" in capsys.readouterr().err
    assert not (tmp_path / "x.mcap").exists()


def _copied_tree(tmp_path: Path) -> Path:
    from soccerbt.brain_setup import default_tree_path

    shutil.copytree(default_tree_path().parent, tmp_path / "trees")
    return tmp_path / "trees" / default_tree_path().name


def _edit(tree: Path) -> None:
    tree.write_text(tree.read_text().replace("<root", "<!-- edited -->\n<root", 1))


def test_a_tree_edited_since_the_run_derives_from_the_copy_the_log_carries(tmp_path: Path) -> None:
    tree = _copied_tree(tmp_path)
    config = {"blue_tree": str(tree), "idle_teams": ("red",)}
    full = _record(tmp_path / "full.mcap", True, **config)
    log = _record(tmp_path / "in.mcap", False, **config)
    header = McapLog.open(log).header
    assert str(tree) in header["tree_files"] and len(header["tree_files"]) == len(header["trees"]["blue"]["files"])
    topics = {t for t, _, _ in _messages(log)}  # red has no brain: the truth lacks it, the scene is logged
    assert lf.SCENE_TOPIC in topics and lf.COMMANDS_TOPIC not in topics
    _edit(tree)  # the tree on disk is not the one played any more
    derive_log(McapLog.open(log), tmp_path / "derived.mcap")
    a, b = _messages(full), _messages(tmp_path / "derived.mcap")
    assert len(a) == len(b) and a[1:] == b[1:]


def test_a_changed_tree_and_no_copy_in_the_log_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from soccerbt.log import writer as mcap_recorder

    monkeypatch.setattr(mcap_recorder, "MAX_EMBEDDED_TREE_BYTES", 100)  # too small for the tree: no copy
    tree = _copied_tree(tmp_path)
    log = _record(tmp_path / "in.mcap", False, blue_tree=str(tree), idle_teams=("red",))
    assert "tree_files" not in McapLog.open(log).header
    _edit(tree)
    assert main(["replay", "derive", str(log), str(tmp_path / "out.mcap")]) == 2
    err = capsys.readouterr().err
    assert "unchanged" in err and "game.xml" in err, err
    assert not (tmp_path / "out.mcap").exists()


def test_run_records_an_inputs_only_log_and_derive_writes_it_whole(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "m.mcap"
    assert main(["run", "--headless", "--quiet", "--seconds", "2", "--team-size", "1", "--record", str(log),
                 "--record-mode", "inputs"]) == 0
    assert McapLog.open(log).node_data is False
    assert main(["replay", "derive", str(log), str(tmp_path / "full.mcap")]) == 0
    assert "re-run from their inputs" in capsys.readouterr().err
    derived = McapLog.open(tmp_path / "full.mcap")
    assert derived.node_data and derived.last_step == 200 and derived.tree("blue1", 1)["nodes"]


def test_info_says_inputs_only_and_derived_from_once(logs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(logs["inputs"]), "--info"]) == 0
    out = capsys.readouterr().out
    assert out.count("seed 4") == 1 and out.count("inputs only (--record-mode inputs)") == 1, out
    assert main(["replay", str(logs["derived"]), "--info"]) == 0
    out = capsys.readouterr().out
    assert out.count("derived from inputs.mcap") == 1 and "inputs only" not in out, out


def _rewritten(src: Path, dst: Path, change: object) -> Path:
    """`src` written again with `change(topic, step, data)` -> data for each message (a tampered log)."""
    from soccerbt.log.writer import LogWriter

    log = McapLog.open(src)
    writer = LogWriter(dst)
    writer.dt_s = log.dt_s
    for topic, step, data in log.messages(0, None):
        writer.put(writer.channel(topic, lf.kind_of_topic(topic)), step, change(topic, step, data))  # type: ignore[operator]
    writer.finish(log.last_step, log.index or {})
    return dst


def _with_header(src: Path, dst: Path, change: dict[str, object]) -> Path:
    """`src` written again with its header's keys changed."""
    return _rewritten(src, dst, lambda topic, step, data: lf.json_bytes({**lf.load_json(data), **change})
                      if topic == lf.HEADER_TOPIC else data)


def _one_tick_more(topic: str, step: int, data: bytes) -> bytes:
    """blue2's tick at step 250 says one tick more than the brain made."""
    if topic != lf.STEP_TOPIC or step != 250:
        return data
    message = proto.Step.FromString(data)
    (blue2,) = [tick for tick in message.robots if tick.robot == "blue2"]
    blue2.tick += 1
    return message.SerializeToString()


def test_a_recording_the_rerun_does_not_reproduce_keeps_what_it_derived_and_says_why(
        logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = _rewritten(logs["inputs"], tmp_path / "bad.mcap", _one_tick_more)
    done = derive_log(McapLog.open(bad), tmp_path / "out.mcap")
    assert done.steps == 249 and done.stopped is not None
    assert done.stopped.startswith("step 250 (t=2.50s): blue2's re-run differs from the recording (tick 250 root ")
    assert "recorded tick 251" in done.stopped
    # the same software wrote it: not a change of the code, a determinism bug, said as one
    assert "those that wrote the log: this is a determinism bug in soccerbt" in done.stopped
    derived, full = McapLog.open(tmp_path / "out.mcap"), McapLog.open(logs["full"])
    assert derived.last_step == 249 and not derived.gaps
    a, b = derived.robot_state("blue2", 249), full.robot_state("blue2", 249)
    assert (a.statuses, a.blackboard) == (b.statuses, b.blackboard)  # all the work up to there is kept
    # a log another soccerbt (another numpy) wrote: the difference names what changed
    other = _with_header(bad, tmp_path / "other.mcap", {"software": {**McapLog.open(bad).header["software"],
                                                                      "libraries": {"numpy": "1.26.0"}}})
    assert main(["replay", "derive", str(other), str(tmp_path / "other-out.mcap")]) == 1
    err = capsys.readouterr().err
    assert "stopped at step 250" in err and "numpy 1.26.0 -> " in err and "determinism" not in err
    assert McapLog.open(tmp_path / "other-out.mcap").last_step == 249
    # every reader shows what was derived, and says where it stopped and why
    assert main(["replay", str(other), "--robot", "blue2", "--tree", "--at", "2.4"]) == 0
    out = capsys.readouterr()
    assert "tick 240" in out.out and "the derive stopped at step 250" in out.err


@pytest.mark.parametrize(
    "tamper, said",
    [
        (lambda files: {k: v + " " for k, v in files.items()}, "is not the file the run hashed"),
        (
            lambda files: {k.replace("/trees/", "/trees/../trees/"): v for k, v in files.items()},
            "not a plain absolute path",
        ),
        (lambda files: {k.lstrip("/"): v for k, v in files.items()}, "not a plain absolute path"),
        (lambda files: ["not", "a", "table"], "not a table of file texts"),
    ],
)
def test_a_tampered_copy_of_the_tree_is_refused(tmp_path: Path, tamper: object, said: str) -> None:
    from soccerbt.log.format import ReplayError

    tree = _copied_tree(tmp_path)
    log = _record(tmp_path / "in.mcap", False, blue_tree=str(tree), idle_teams=("red",))
    files = McapLog.open(log).header["tree_files"]
    bad = _with_header(log, tmp_path / "bad.mcap", {"tree_files": tamper(files)})  # type: ignore[operator]
    _edit(tree)  # so that the copy is what derive would load
    with pytest.raises(ReplayError, match=said):
        derive_log(McapLog.open(bad), tmp_path / "out.mcap")
    assert not (tmp_path / "out.mcap").exists() and not list(tmp_path.glob(".out.mcap.*"))  # nor a temporary


def test_record_mode_goes_with_a_recording(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--headless", "--quiet", "--seconds", "1", "--record-mode", "inputs"]) == 2
    assert "--record-mode inputs goes with a recording (--record FILE.mcap)" in capsys.readouterr().err


def _forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The children the derive forks (their pids, seen in the parent)."""
    pids: list[int] = []
    fork = os.fork

    def spy() -> int:
        pid = fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", spy)
    return pids


def _reaped(pids: list[int]) -> bool:
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return True


@pytest.mark.skipif(not hasattr(os, "fork"), reason="deriving in several processes forks")
def test_deriving_in_several_processes_writes_the_same_bytes(logs: dict[str, Path], tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    pids = _forks(monkeypatch)
    outs = []
    for n in (1, 2, 3):  # 4 robots: in 3 processes robots 0 and 3 stay, 1 and 2 go to a child each
        out = tmp_path / f"p{n}.mcap"
        derive_log(McapLog.open(logs["inputs"]), out, processes=n)
        outs.append(out.read_bytes())
    assert len(pids) == 3 and _reaped(pids)
    assert outs[0] == outs[1] == outs[2] == logs["derived"].read_bytes()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="deriving in several processes forks")
def test_a_childs_damaged_step_and_a_childs_failure_are_said_as_at_home(
        logs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from soccerbt.resim import derive

    def damaged_blue2(topic: str, step: int, data: bytes) -> bytes:
        if topic != lf.INPUTS_TOPIC or step != 120:
            return data
        inputs = proto.StepInputs.FromString(data)
        inputs.robots[1].estop = 9  # blue2's (robot 1: a child's in 2 processes): no such state
        return inputs.SerializeToString()

    bad = _rewritten(logs["inputs"], tmp_path / "bad.mcap", damaged_blue2)
    said = []
    pids = _forks(monkeypatch)
    for n in (1, 2):
        done = derive_log(McapLog.open(bad), tmp_path / f"out{n}.mcap", processes=n)
        assert done.steps == 119 and done.stopped is None
        said.append(done.notes)
    assert said[0] == said[1] == [f"{bad}: step 120: unreadable (emergency stop state 9 unknown): the derived log "
                                  "ends at step 119"]
    assert len(pids) == 1 and _reaped(pids)
    for n in (1, 2):
        (tmp_path / f"out{n}.mcap").unlink()

    feed = derive._Brain.feed

    def broken(self: object, rec: object, step: int) -> None:
        if self.robot == "blue2" and step == 60:
            raise KeyError("a bug in a node's code")
        feed(self, rec, step)  # type: ignore[arg-type]

    monkeypatch.setattr(derive._Brain, "feed", broken)
    with pytest.raises(RuntimeError, match="a process deriving some of the robots failed") as caught:
        derive_log(McapLog.open(logs["inputs"]), tmp_path / "out.mcap", processes=2)
    assert "a bug in a node's code" in str(caught.value)
    assert len(pids) == 2 and _reaped(pids)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mcap"]  # no output, no temporary file


@pytest.mark.skipif(not hasattr(os, "fork"), reason="deriving in several processes forks")
def test_deriving_stays_in_one_process_while_other_threads_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from soccerbt.resim.derive_procs import PROCESSES_ENV, default_processes

    monkeypatch.setenv(PROCESSES_ENV, "3")
    assert default_processes(6) == 3 and default_processes(2) == 2
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert default_processes(6) == 1  # a fork would copy no thread, and a lock one held stays taken
    finally:
        release.set()
        other.join()
    monkeypatch.setenv(PROCESSES_ENV, "1")
    assert default_processes(6) == 1
