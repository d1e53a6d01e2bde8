"""``soccerbt replay LOG --robot R --groot PORT``: a recorded robot served to Groot2 (the client
of groot_client.py over 127.0.0.1): FULLTREE is the recorded tree with its uids (byte for byte
the live tree's reply), STATUS the statuses of the RobotState at the replay's position as it
plays and seeks, BLACKBOARD the recorded root blackboard, hook requests refused; the headless
replay (injected clock, no waiting) and the replay window (off-screen) follow the position."""
from __future__ import annotations

import argparse

import groot_client_spec as spec
import pytest
from lxml import etree

from soccerbt.groot.recorded import HOOKS_REFUSED, Groot2RecordedPublisher
from soccerbt.groot.tree_xml import full_tree_xml
from soccerbt.log.reader import McapLog
from soccerbt.tools.replay import groot_replay
from soccerbt.tools.replay.mcap_source import McapReplaySource

ROBOT = "blue2"
SECONDS = 3.0


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory):
    from soccerbt.log.writer import make_recorder
    from soccerbt.match import Match, MatchConfig

    path = tmp_path_factory.mktemp("groot_replay") / "r.mcap"
    match = Match(MatchConfig(seed=1, duration_s=SECONDS))
    rec = make_recorder(path, match)
    match.run(SECONDS)
    rec.finish(match.result())
    agent = {str(rid): a for rid, a in match.agents.items()}[ROBOT]
    live = full_tree_xml(agent.tree, match.factory.manifests()).encode()
    return path, live


@pytest.fixture
def served(recorded, port):
    path, _live = recorded
    log = McapLog.open(path)
    publisher, endpoint = groot_replay.serve_recorded(log, ROBOT, "127.0.0.1", port)
    client = spec.Client(port)
    yield log, publisher, client
    client.close()
    publisher.close()
    log.close()


def expected_statuses(state) -> dict[int, int]:
    return {uid: state.statuses.get(uid, 0) for uid in (row["uid"] for row in state.tree["nodes"])}


def test_fulltree_is_the_recorded_tree_with_its_uids(served, recorded) -> None:
    log, publisher, client = served
    source = McapReplaySource(log)
    groot_replay.follow(publisher, ROBOT)(source)
    reply = client.request(spec.FULLTREE)
    xml = reply.parts[0]
    uids = {int(e.get("_uid")) for e in etree.fromstring(xml).iter() if e.get("_uid") is not None}
    assert uids == {row["uid"] for row in log.tree(ROBOT, 1)["nodes"]}
    assert reply.tree_uuid == publisher.tree_id
    assert xml == recorded[1]  # the recorded tree served as the live one was, byte for byte


def test_status_follows_the_replay_position(served) -> None:
    log, publisher, client = served
    source = McapReplaySource(log)
    follow = groot_replay.follow(publisher, ROBOT)
    source.seek(150)
    follow(source)
    assert client.statuses() == expected_statuses(log.robot_state(ROBOT, 150))
    before = client.statuses()
    idle_from = {}
    for _ in range(40):  # played one step at a time: a node back to IDLE shows what it left
        source.step(1)
        follow(source)
        for uid, previous, new in source.robot_state(ROBOT).record.transitions:
            if new == 0 and previous:
                idle_from[uid] = 10 + previous
    got = client.statuses()
    want = expected_statuses(log.robot_state(ROBOT, 190))
    assert got == {uid: code or idle_from.get(uid, 0) for uid, code in want.items()}
    assert any(code >= 10 for code in got.values())
    assert got != before
    source.seek(40)  # a seek: the keyframe's statuses, idle nodes plain IDLE
    follow(source)
    assert client.statuses() == expected_statuses(log.robot_state(ROBOT, 40))


def test_blackboard_is_the_recorded_root_blackboard(served) -> None:
    log, publisher, client = served
    source = McapReplaySource(log)
    source.seek(200)
    groot_replay.follow(publisher, ROBOT)(source)
    state = log.robot_state(ROBOT, 200)
    main = state.tree["subtrees"][0]["instance"] or state.tree["subtrees"][0]["tree_id"]
    got = client.blackboards(main)
    assert set(got) == {main}
    assert set(got[main]) == set(state.blackboard)
    scalars = {k: v[0] for k, v in state.blackboard.items() if type(v[0]) in (str, float)}
    assert scalars and all(got[main][k] == v for k, v in scalars.items())
    assert client.blackboards("NoSuchSubtree") is None


def test_hook_requests_are_refused(served) -> None:
    log, publisher, client = served
    groot_replay.follow(publisher, ROBOT)(McapReplaySource(log))
    uid = log.tree(ROBOT, 1)["nodes"][3]["uid"]
    for kind, body in ((spec.HOOK_INSERT, spec.hook(uid)), (spec.HOOK_REMOVE, {"uid": uid, "position": 0}),
                       (spec.BREAKPOINT_UNLOCK, {"uid": uid, "position": 0, "desired_status": "SUCCESS",
                                                 "remove_when_done": True})):
        with pytest.raises(spec.Refused, match="recorded tree"):
            client.json_request(kind, body)
    for kind in (spec.REMOVE_ALL_HOOKS, spec.DISABLE_ALL_HOOKS):
        with pytest.raises(spec.Refused) as refused:
            client.request(kind)
        assert str(refused.value) == HOOKS_REFUSED
    assert client.hooks() == []  # nothing hooked: the dump is empty, as 4.10's for a tree without hooks
    assert client.statuses()     # and the connection goes on


def test_headless_replay_plays_at_its_speed_and_holds_the_end(served) -> None:
    log, publisher, client = served
    source = McapReplaySource(log)
    now = [0.0]
    frames = []

    def on_frame(src: McapReplaySource) -> None:
        groot_replay.follow(publisher, ROBOT)(src)
        frames.append(src.position)

    def keep_going() -> bool:
        return len(frames) < 12

    def sleep(seconds: float) -> None:
        now[0] += seconds

    reached = groot_replay.play_headless(source, on_frame, speed=2.0, clock=lambda: now[0], sleep=sleep,
                                         keep_going=keep_going)
    # 11 frames of 0.05 s at twice real time: 1.1 simulated seconds (no real waiting: the clock is ours)
    assert reached == log.first_step + round(11 * groot_replay.HEADLESS_FRAME_S * 2.0 / log.dt_s)
    # frames of several steps: a node back to IDLE shows what it left, as when stepping one by one
    idle_from = {}
    for view in log.steps(log.first_step + 1, reached, robots=[ROBOT]):
        for uid, previous, new in view.ticks[ROBOT].transitions:
            if new == 0 and previous:
                idle_from[uid] = 10 + previous
    want = expected_statuses(log.robot_state(ROBOT, reached))
    got = client.statuses()
    assert got == {uid: code or idle_from.get(uid, 0) for uid, code in want.items()}
    assert any(code >= 10 for code in got.values())


def test_replay_cli_refuses_groot_without_robot(recorded, capsys) -> None:
    from soccerbt.tools.replay.replay_cli import configure

    parser = argparse.ArgumentParser()
    configure(parser)
    args = parser.parse_args([str(recorded[0]), "--groot", "1800"])
    assert args.groot == ("127.0.0.1", 1800)
    assert args.func(args) == 1
    assert "--groot serves one robot" in capsys.readouterr().err


def test_the_replay_window_serves_the_position(recorded, port, monkeypatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # off-screen: the window closes at the end
    seen: list[int] = []
    real_follow = groot_replay.follow

    def follow(publisher: Groot2RecordedPublisher, robot: str):
        shown = real_follow(publisher, robot)

        def frame(source: McapReplaySource) -> None:
            shown(source)
            seen.append(source.position)
            if len(seen) == 3:  # the window, a few frames in: Groot2 sees where it is
                client = spec.Client(port)
                try:
                    assert client.statuses() == expected_statuses(source.log.robot_state(ROBOT, source.position))
                finally:
                    client.close()
                source.seek(source.log.last_step)  # the window closes at the end (off-screen)

        return frame

    monkeypatch.setattr(groot_replay, "follow", follow)
    from soccerbt.tools.replay.replay_cli import configure

    parser = argparse.ArgumentParser()
    configure(parser)
    args = parser.parse_args([str(recorded[0]), "--robot", ROBOT, "--groot", str(port), "--paused"])
    assert args.func(args) == 0
    assert len(seen) >= 3
