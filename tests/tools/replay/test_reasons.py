"""Why a node decided: the reason API of the node base, reasons recorded with the tick and read
back (--tree, --json, --find REF.reason ~ 'PATTERN'), logs without reasons still read; exact
node references: a name several nodes share (duplicate names in subtree instances) matches any of
them and says so, #UID and a path pick one; --transitions collapses repeats into runs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from soccerbt.log import format as lf
from soccerbt.log.reader import McapLog
from soccerbt.log.writer import make_recorder
from soccerbt.match import Match, MatchConfig
from soccerbt.nodes import SyncActionNode
from soccerbt.nodes.status import SUCCESS
from soccerbt.tools.replay import tree_tools as tt
from soccerbt.tools.replay.search import compile_condition, resolve_nodes
from soccerbt.trees import TreeFactory

# two instances of one subtree: two nodes named KickBall; the second instance never runs
DUPLICATES = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="top">
      <PlanKick/>
      <StrikerDecision decision_out="{decision}"/>
      <SubTree ID="Kicks" name="first"/>
      <SubTree ID="Kicks" name="second" _skipIf="true"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Kicks">
    <KickBall/>
  </BehaviorTree>
</root>
"""


@pytest.fixture(scope="module")
def dup_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("reasons")
    tree = tmp / "dup.xml"
    tree.write_text(DUPLICATES)
    cfg = MatchConfig(seed=3, duration_s=0.3, team_size=1, blue_tree=str(tree), red_tree=str(tree),
                      idle_teams=("red",))
    match = Match(cfg)
    out = tmp / "dup.mcap"
    recorder = make_recorder(out, match)
    match.run(0.3)
    recorder.finish(match.result())
    return out


class _Counted:
    """A value that counts how often it is formatted (a reason built when nobody records)."""

    def __init__(self) -> None:
        self.formatted = 0

    def __format__(self, spec: str) -> str:
        self.formatted += 1
        return "0.62"


class Decide(SyncActionNode):
    """A user's decision node reporting its reason through the base API."""

    value = _Counted()

    def update(self):
        if self.explaining:
            self.set_reason(f"ball_range {self.value} > kick_range 0.45\n-> approach")
        return SUCCESS


def test_a_users_node_reports_its_reason_only_while_someone_records() -> None:
    factory = TreeFactory()
    factory.register_node_type("Decide", Decide)
    tree = factory.create_tree_from_text(
        '<root BTCPP_format="4"><BehaviorTree ID="M"><Decide name="d"/></BehaviorTree></root>')
    tree.tick_exactly_once()
    assert Decide.value.formatted == 0  # nobody records: no text was built
    reasons = tree.start_reasons()
    tree.tick_exactly_once()
    node = tree.find("d")
    assert reasons == {node.uid: "ball_range 0.62 > kick_range 0.45\n-> approach"}
    tree.stop_reasons()
    reasons.clear()
    tree.tick_exactly_once()
    assert reasons == {} and Decide.value.formatted == 1
    # recorded as one line, cut when too long
    assert lf.reason_text("a\nb") == "a b" and len(lf.reason_text("x" * 1000)) == lf.MAX_REASON_CHARS


def test_a_tick_with_reasons_round_trips_and_one_without_reads_as_before() -> None:
    from types import SimpleNamespace

    from soccerbt.log import format_v1 as v1
    from soccerbt.log.tick_encode import encode_tick

    stand = SimpleNamespace(vx_mps=0.0, vy_mps=0.0, vtheta_radps=0.0, head_pan_rad=0.0, head_tilt_rad=0.0, kick=None)
    plain = encode_tick("blue1", 5, 5, 2, stand, [], [], None, None, b"")
    assert lf.decode_tick(plain).reasons == {}
    data = encode_tick("blue1", 5, 5, 2, stand, [], [], None, {7: "a -> b", 9: "ü < 1"}, b"")
    rec = lf.decode_tick(data)
    assert rec.reasons == {7: "a -> b", 9: "ü < 1"} and rec.tick == 5 and rec.blackboard == {}
    with pytest.raises(ValueError):
        lf.decode_tick(data[:-3])
    # format 1: a tick without the reasons section (flags 0) reads as one without reasons
    command = (0.0,) * 7
    assert v1.decode_tick(v1.encode_tick(5, 2, command, 0, b"", b"", [], b"", b"")).reasons == {}
    old = v1.encode_tick(5, 2, command, 0, b"", b"", [], b"", b"", {7: "a -> b", 9: "ü < 1"})
    assert v1.decode_tick(old).reasons == {7: "a -> b", 9: "ü < 1"}
    with pytest.raises(ValueError):
        v1.decode_tick(old[:-3])
    assert lf.check_keyframe({"after_step": 1, "statuses": [], "blackboard": {}})  # no reasons: fine
    with pytest.raises(lf.ShapeError):
        lf.check_keyframe({"after_step": 1, "statuses": [], "blackboard": {}, "reasons": [[1, "x"]]})


def test_reasons_are_recorded_with_the_tick_and_printed(dup_log: Path) -> None:
    log = McapLog.open(dup_log)
    state = log.robot_state("blue1", 20)
    decide = resolve_nodes(state.tree, "StrikerDecision")[0]["uid"]
    tick, text = state.reasons[decide]
    assert tick == state.tick and text.endswith(("-> find", "-> approach", "-> kick"))
    assert log.step_view(20).ticks["blue1"].reasons[decide] == text
    lines = tt.tree_lines(state, 0.2)
    assert any(line.startswith("*   StrikerDecision #") and f"-- {text}" in line for line in lines)
    node = next(n for n in tt.tree_json(state, 0.2)["nodes"] if n["uid"] == decide)
    assert node["reason"] == text and node["reason_tick"] == state.tick and node["did"] == "ran"
    # a keyframe carries the latest reasons: a state rebuilt from it knows them
    assert log.robot_state("blue1", 1).reasons or log.robot_state("blue1", 1).tick == 1
    word = text.split()[0]
    ranges = tt.find_ranges(log, f"blue1: StrikerDecision.reason ~ '{word}'")
    assert ranges and ranges[0][2] <= state.tick <= ranges[-1][3]
    assert tt.find_ranges(log, "blue1: StrikerDecision.reason ~ 'no such words'") == []
    assert tt.find_ranges(log, f"blue1: #{decide}.reason != ''")  # the text itself, by uid


def test_a_name_two_nodes_share_matches_either_and_says_so(dup_log: Path) -> None:
    log = McapLog.open(dup_log)
    tree = log.tree("blue1", 1)
    kicks = resolve_nodes(tree, "KickBall")
    ran, never = kicks[0]["uid"], kicks[1]["uid"]
    first, second = kicks[0]["path"], kicks[1]["path"]  # unnamed nodes: BT.CPP's "name::uid"
    assert (first, second) == (f"first/KickBall::{ran}", f"second/KickBall::{never}")
    notes: list[str] = []
    # the KickBall that never runs has the higher uid: it must not hide the one that runs
    ranges = tt.find_ranges(log, "blue1: KickBall == SUCCESS", notes)
    assert len(ranges) == 1 and ranges[0][2:] == (1, 30)
    assert notes and "KickBall names 2 nodes" in notes[0] and f"#{ran} {first}" in notes[0]
    assert tt.find_ranges(log, f"blue1: #{ran} == SUCCESS") == ranges
    assert tt.find_ranges(log, f"blue1: #{never} == SUCCESS") == []
    assert tt.find_ranges(log, f"blue1: {first} == SUCCESS") == ranges
    assert tt.find_ranges(log, f"blue1: {second} == IDLE")[0][2:] == (1, 30)
    assert tt.find_ranges(log, "blue1: KickBall == IDLE")  # the second one is IDLE: any holds
    with pytest.raises(ValueError, match="no node"):
        compile_condition("blue1", "#999 == SUCCESS", tree)


def test_transitions_collapse_into_runs_with_a_raw_option(dup_log: Path) -> None:
    log = McapLog.open(dup_log)
    notes: list[str] = []
    lines = tt.transition_lines(log, "blue1", "KickBall", notes=notes)
    # returned SUCCESS and reset in every tick: one run, not 60 lines
    assert len(lines) == 1 and lines[0].startswith("0.01-0.30 s ticks 1-30 first/KickBall::")
    assert lines[0].endswith(": SUCCESS every tick (30 ticks)") and "names 2 nodes" in notes[0]
    uid = resolve_nodes(log.tree("blue1", 1), "KickBall")[0]["uid"]
    raw = tt.transition_lines(log, "blue1", f"#{uid}", raw=True)
    assert len(raw) == 60 and raw[0].endswith("IDLE -> SUCCESS") and raw[1].endswith("SUCCESS -> IDLE")


def test_cli_prints_reasons_and_notes(dup_log: Path) -> None:
    run = [sys.executable, "-m", "soccerbt", "replay", str(dup_log)]
    out = subprocess.run(run + ["--robot", "blue1", "--tick", "3", "--tree", "--json"], capture_output=True,
                         text=True, check=True)
    nodes = json.loads(out.stdout)["nodes"]
    assert any(n["name"] == "StrikerDecision" and n["reason"] for n in nodes)
    out = subprocess.run(run + ["--find", "blue1: KickBall == SUCCESS"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("0.01-0.30s") and "note: KickBall names 2 nodes" in out.stderr


def test_info_lists_the_goals_and_every_event(dup_log: Path) -> None:
    lines = tt.info_lines(McapLog.open(dup_log))
    assert "  goals: none" in lines
    events = lines.index(next(line for line in lines if line.startswith("  events (")))
    assert lines[events + 1].startswith("    t=0.00s state: INITIAL")


# the decision is written in the first tick only: from the second on its writer is skipped
STALE = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <RunOnce><Script code="stop := false"/></RunOnce>
      <StrikerDecision decision_out="{decision}" _skipIf="stop"/>
      <Script code="stop := true"/>
    </Sequence>
  </BehaviorTree>
</root>
"""


def test_a_decision_its_branch_no_longer_makes_is_drawn_stale(tmp_path: Path) -> None:
    import pygame

    from soccerbt.tools.replay.mcap_view import McapReplaySource, McapViewer
    from soccerbt.tools.viewer.render import STALE as STALE_GREY

    tree = tmp_path / "stale.xml"
    tree.write_text(STALE)
    match = Match(MatchConfig(seed=1, duration_s=0.05, team_size=1, blue_tree=str(tree), red_tree=str(tree),
                              idle_teams=("red",)))
    out = tmp_path / "stale.mcap"
    recorder = make_recorder(out, match)
    match.run(0.05)
    recorder.finish(match.result())
    source = McapReplaySource(McapLog.open(out))
    source.seek(1)
    first = source.scene("blue1").robot("blue1")
    assert first.decision and not first.decision_stale  # written in this very tick
    source.seek(3)
    later = source.scene("blue1").robot("blue1")
    assert later.decision == first.decision and later.decision_stale
    pygame.display.init()
    viewer = McapViewer(source)
    viewer.layout((1280, 720))
    image = pygame.image.load(str(viewer.screenshot(tmp_path / "stale.png")))
    label = viewer.renderer.label_rects["blue1"]
    colours = {
        tuple(image.get_at((x, y)))[:3] for x in range(label.left, label.right) for y in range(label.top, label.bottom)
    }
    assert STALE_GREY in colours  # the label is drawn grey ("(approach?)"), not in the live text colour


def test_the_viewers_search_takes_the_same_references(dup_log: Path) -> None:
    import pygame

    from soccerbt.tools.replay.mcap_view import McapReplaySource, McapViewer

    pygame.display.init()
    viewer = McapViewer(McapReplaySource(McapLog.open(dup_log)))
    viewer.state.selected = "blue1"
    ran, never = (row["uid"] for row in resolve_nodes(viewer.replay.log.tree("blue1", 1), "KickBall"))
    for text, matches in (("KickBall", [ran, never]), (f"#{never}", [never]), ("second/KickBall", [never])):
        viewer.search.text = text
        viewer.run_search()
        assert viewer.search.matches == matches, text
    viewer.search.text = "KickBall"
    viewer.run_search()
    assert "2 nodes named KickBall" in viewer.search.note
    viewer.search.text = "blue1: KickBall == SUCCESS"
    viewer.run_search()
    assert len(viewer.search.ranges) == 1 and "KickBall names 2 nodes" in viewer.search.note


def test_the_live_viewer_marks_a_stale_decision_too(tmp_path: Path) -> None:
    from soccerbt.tools.viewer.match_source import MatchSceneSource

    tree = tmp_path / "stale.xml"
    tree.write_text(STALE)
    match = Match(MatchConfig(seed=1, duration_s=0.05, team_size=1, blue_tree=str(tree), red_tree=str(tree),
                              idle_teams=("red",)))
    source = MatchSceneSource(match)
    match.step()
    first = source.scene(None).robot("blue1")
    assert first.decision and not first.decision_stale
    match.step()
    match.step()
    assert source.scene(None).robot("blue1").decision_stale
