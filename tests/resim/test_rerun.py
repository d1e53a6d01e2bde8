"""``soccerbt replay LOG --robot R --rerun``: a same-tree re-run reproduces the recorded ticks
exactly (the log holds every input), a one-attribute tree change is found at its tick, the
re-run's log (--out) opens in ``replay diff``, and logs that cannot be re-run are refused."""
from __future__ import annotations

from pathlib import Path

import pytest

from soccerbt.__main__ import main
from soccerbt.log import format as lf
from soccerbt.log.inputs import decode_inputs
from soccerbt.log.reader import McapLog
from soccerbt.log.writer import make_recorder
from soccerbt.match import Match, MatchConfig

SMALL_TREE = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="top">
      <Script code="marker := 1"/>
      <SubTree ID="Inner" name="inner" _autoremap="true"/>
      <Sleep name="wait" msec="30"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Inner">
    <Script code="inner_count := 2"/>
  </BehaviorTree>
</root>
"""


def _record(folder: Path, name: str, seconds: float, tree: Path) -> Path:
    match = Match(MatchConfig(seed=1, duration_s=seconds, team_size=1, blue_tree=str(tree), idle_teams=("red",)))
    out = folder / name
    recorder = make_recorder(out, match)
    match.run(seconds)
    recorder.finish(match.result())
    return out


@pytest.fixture(scope="module")
def game_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six seconds of a 2 v 2 match of our game tree: GameController packets, team messages."""
    path = tmp_path_factory.mktemp("rerun") / "game.mcap"
    match = Match(MatchConfig(seed=5, duration_s=6.0, team_size=2))
    recorder = make_recorder(path, match)
    match.run(6.0)
    recorder.finish(match.result())
    return path


def test_the_log_holds_every_input(game_log: Path) -> None:
    log = McapLog.open(game_log)
    assert log.header["inputs"]["brains"]["blue2"]["team_number"] == 1
    packets = messages = steps = 0
    for _topic, _step, data in log.messages(0, None, {lf.INPUTS_TOPIC}):
        records = decode_inputs(data)
        assert list(records) == log.robots
        steps += 1
        packets += sum(1 for r in records.values() if r.packet)
        messages += sum(len(r.team or ()) for r in records.values())
    assert steps == log.last_step == 600 and packets > 10 and messages > 10


def test_a_same_tree_rerun_is_identical_tick_by_tick(game_log: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "again.mcap"
    assert main(["replay", str(game_log), "--robot", "blue2", "--rerun", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert (
        "the re-run's statuses, decisions, reasons and commands are the log's at every tick of t=0.01-6.00s (600 ticks)"
        in text
    )
    # the re-run's log holds the very same ticks: byte for byte, step by step
    assert main(["replay", "diff", str(game_log), str(out)]) == 0
    assert McapLog.open(out).header["rerun"]["robot"] == "blue2"


def test_a_one_attribute_change_is_found_at_its_tick(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = tmp_path / "t.xml"
    tree.write_text(SMALL_TREE)
    log = _record(tmp_path, "small.mcap", 0.3, tree)
    assert main(["replay", str(log), "--robot", "blue1", "--rerun", "--tree", str(tree)]) == 0
    new = tmp_path / "new.xml"
    new.write_text(SMALL_TREE.replace('msec="30"', 'msec="50"'))  # Sleep: 30 ms -> 50 ms
    capsys.readouterr()
    assert main(["replay", str(log), "--robot", "blue1", "--rerun", "--tree", str(new)]) == 1
    text = capsys.readouterr().out
    # the recorded Sleep succeeds at the 4th tick (30 ms after the first); the new one still runs
    assert "blue1: first difference at t=0.04s (step 4, tick 4)" in text
    assert "wait SUCCESS in the log, RUNNING in the re-run" in text
    assert "statuses 18 (60.0%)" in text and "commands 0 (0.0%)" in text
    assert main(["replay", str(log), "--robot", "blue1", "--rerun", "--tree", str(new), "--from", "0.2"]) == 1
    assert "first difference at t=0.20s" in capsys.readouterr().out
    # without --tree the recorded tree plays, and only while it is unchanged
    tree.write_text(SMALL_TREE.replace("marker := 1", "marker := 2"))
    assert main(["replay", str(log), "--robot", "blue1", "--rerun"]) == 2
    assert "changed since the run" in capsys.readouterr().err


def test_what_cannot_be_rerun_is_refused(game_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(game_log), "--rerun"]) == 2
    assert "--rerun goes with --robot" in capsys.readouterr().err
    assert main(["replay", str(game_log), "--robot", "blue2", "--rerun", "--out", str(game_log)]) == 2
    assert "would overwrite an input file (--out)" in capsys.readouterr().err
    assert main(["replay", str(game_log), "--robot", "blue2", "--rerun", "--out", str(tmp_path / "x.log")]) == 2
    bad = tmp_path / "bad.xml"
    bad.write_text("<root BTCPP_format='4'><BehaviorTree ID='Main'><NoSuchNode/></BehaviorTree></root>")
    assert main(["replay", str(game_log), "--robot", "blue2", "--rerun", "--tree", str(bad)]) == 2
    assert f"{bad}:1:" in capsys.readouterr().err
    assert main(["replay", str(game_log), "--robot", "blue2", "--tree", str(bad)]) == 2  # a tree file needs --rerun
    # a log recorded without inputs (an earlier version's) says what the re-run needs
    match = Match(MatchConfig(seed=1, duration_s=0.2, team_size=1, idle_teams=("red",)))
    for agent in match.agents.values():
        agent.spec = None
    old = tmp_path / "old.mcap"
    recorder = make_recorder(old, match)
    match.run(0.2)
    recorder.finish(match.result())
    capsys.readouterr()
    assert main(["replay", str(old), "--robot", "blue1", "--rerun"]) == 2
    assert "holds no brain inputs" in capsys.readouterr().err


def test_a_person_at_the_pad_and_the_stop_are_inputs_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from soccerbt.drivers.gamepad import ChordAction, EmergencyStop, ManualCommand, ManualInput, apply_input

    class ScriptedPads:
        """A person: manual control at 0.5 s, the stick pushed from 1 s to 2 s, the stop from 2.5 s."""

        def __init__(self, stop: EmergencyStop) -> None:
            self.stop = stop

        def update(self, robot: object, now_s: float, bb: object) -> object:
            if abs(now_s - 2.5) < 0.005:
                self.stop.engage("test")
            command = ManualCommand(0.5, 0.0, 0.2) if 1.0 <= now_s < 2.0 else None
            actions = [ChordAction.MANUAL] if abs(now_s - 0.5) < 0.005 else []
            return apply_input(ManualInput(command, now_s > 1.5, False, actions), bb, now_s)[0]

    stop = EmergencyStop()
    match = Match(MatchConfig(seed=3, duration_s=3.0, team_size=1, idle_teams=("red",)), pads=ScriptedPads(stop),
                  estop=stop)
    path = tmp_path / "pad.mcap"
    recorder = make_recorder(path, match)
    match.run(3.0)
    recorder.finish(match.result())
    brain = McapLog.open(path).header["inputs"]["brains"]["blue1"]
    assert brain["pad"] and brain["estop"]
    assert main(["replay", str(path), "--robot", "blue1", "--rerun"]) == 0
    assert "at every tick of t=0.01-3.00s (300 ticks)" in capsys.readouterr().out




@pytest.mark.parametrize("change, said", [
    (lambda b: b.update(particles=10 ** 9), "particles is not a whole number 1..10000"),
    (lambda b: b.update(limits={"warp_speed": 9.0}), "limits name a limit soccerbt does not know"),
    (lambda b: b.update(field="Z"), "field is no field soccerbt knows"),
    (lambda b: b.update(team_message_period_s=float("inf")), "team_message_period_s is not a number"),
])
def test_a_header_that_asks_for_too_much_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    change: object, said: str) -> None:
    import json

    import soccerbt_tests_hostile as H

    tree = tmp_path / "t.xml"
    tree.write_text(SMALL_TREE)
    log = H.read_log(_record(tmp_path, "small.mcap", 0.1, tree))
    head = log.messages(lf.HEADER_TOPIC)[0]
    header = json.loads(head.data)
    change(header["inputs"]["brains"]["blue1"])
    head.data = json.dumps(header).encode()
    bad = log.write(tmp_path / "bad.mcap")
    assert main(["replay", str(bad), "--robot", "blue1", "--rerun", "--tree", str(tree)]) == 2
    assert said in capsys.readouterr().err


def test_damaged_inputs_stop_the_rerun_with_a_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import soccerbt_tests_hostile as H

    tree = tmp_path / "t.xml"
    tree.write_text(SMALL_TREE)
    log = H.read_log(_record(tmp_path, "small.mcap", 0.2, tree))
    inputs = log.messages(lf.INPUTS_TOPIC)
    inputs[9].data = inputs[9].data[:20]  # the 10th step's inputs cut short
    bad = log.write(tmp_path / "bad.mcap")
    assert main(["replay", str(bad), "--robot", "blue1", "--rerun"]) == 1  # not all compared, as diff's gaps
    captured = capsys.readouterr()
    assert "step 10 is unreadable" in captured.err and "(9 ticks)" in captured.out  # the nine before agree
    assert "not everything was compared" in captured.err


def test_two_recorders_of_one_match_write_the_same_log(tmp_path: Path) -> None:
    """A flight recorder and a live stream watch one tree: neither empties its status log for the
    other (soccerbt.log.tree_watch)."""
    from soccerbt.log.writer import McapRecorder

    match = Match(MatchConfig(seed=2, duration_s=1.0, team_size=1, idle_teams=("red",)))
    recorders = []
    for name in ("a.mcap", "b.mcap"):
        recorder = McapRecorder(tmp_path / name)
        recorder.on_start(match)
        match.observers.append(recorder)
        recorders.append(recorder)
    match.run(1.0)
    for recorder in recorders:
        recorder.finish(match.result())
    a, b = McapLog.open(tmp_path / "a.mcap"), McapLog.open(tmp_path / "b.mcap")
    topics = {lf.STEP_TOPIC}
    steps_a = [d for _t, _s, d in a.messages(0, None, topics)]
    assert steps_a == [d for _t, _s, d in b.messages(0, None, topics)] and len(steps_a) == 100
    assert sum(len(rec.transitions) for _s, rec in a.robot_ticks("blue1", 1, 100)) > 50
    assert match.agent("blue1").tree.env.skip_sink is None  # the last one to finish let the tree go


def test_reasons_are_compared_by_node_path() -> None:
    from soccerbt.log import format as lf
    from soccerbt.resim.compare import Comparison, Side

    log, new = Side("log", paths=["Main", "Main/decide"]), Side("rerun", paths=["Main", "Main/decide"])
    comparison = Comparison()
    same = {2: "ball_range 0.62 > kick_range 0.45 -> approach"}
    log.apply(lf.TickRecord(tick=1, root=1, command=(0.0,) * 7, reasons=dict(same)))
    new.apply(lf.TickRecord(tick=1, root=1, command=(0.0,) * 7, reasons=dict(same)))
    comparison.tick(1, 0.01, log, new)
    assert not comparison.differs
    log.apply(lf.TickRecord(tick=2, root=1, command=(0.0,) * 7, reasons=dict(same)))
    new.apply(lf.TickRecord(tick=2, root=1, command=(0.0,) * 7,
                            reasons={2: "ball_range 0.62 > kick_range 0.70 -> kick"}))
    comparison.tick(2, 0.02, log, new)
    assert comparison.counts == {"reasons": 1}
    step, t_s, tick, lines = comparison.first
    assert (step, tick) == (2, 2)
    assert lines == ["  reasons: Main/decide 'ball_range 0.62 > kick_range 0.45 -> approach' in the log, "
                     "'ball_range 0.62 > kick_range 0.70 -> kick' in the re-run"]
