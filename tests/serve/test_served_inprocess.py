"""A served match and brains in one process, over the in-process transport and UDP on loopback:
the robots' endpoints answer the brains' requests, the referee's packets reach the brains, the
robots play; and the endpoint's own rules (silence, unknown api ids, bad JSON, get up)."""
from __future__ import annotations

import argparse
import json
import socket

import pytest

from soccerbt.drivers.booster import loco
from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.transport import MemoryBus, MemoryTransport
from soccerbt.match import MatchConfig
from soccerbt.robot.cli import build_brain, configure
from soccerbt.serve.served import ServedMatch
from soccerbt.world.types import RobotId, Team

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

BLUE1, RED1 = RobotId(Team.BLUE, 1), RobotId(Team.RED, 1)


def _free_udp_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _brain(robot: RobotId, bus_domain: int, gc_port: int, ret_port: int, team_port: int) -> object:
    parser = argparse.ArgumentParser()
    configure(parser)
    args = parser.parse_args(["--robot", str(robot), "--name", str(robot), "--team-size", "1", "--no-record",
                              "--gc-port", str(gc_port), "--gc-return-port", str(ret_port),
                              "--team-address", "127.255.255.255", "--team-port", str(team_port),
                              "--domain", str(bus_domain)])
    args.transport = "memory"  # in-process only (not a choice of the command)
    return build_brain(args, robot)


def test_brains_drive_a_served_match_in_process() -> None:
    domain = 201
    gc_port, ret_port, team_port = _free_udp_port(), _free_udp_port(), _free_udp_port()
    from soccerbt.drivers.booster.connect import open_transport

    served = ServedMatch(MatchConfig(team_size=1, seed=4), open_transport("memory", domain=domain),
                         gc_port=gc_port, gc_return_port=ret_port, count_team_messages=False)
    brains = [_brain(r, domain, gc_port, ret_port, team_port) for r in (BLUE1, RED1)]
    try:
        for _ in range(3000):  # 30 simulated seconds: READY, SET, PLAYING
            served.match.step()
            for b in brains:
                b.runner.step(served.t_s)
    finally:
        for b in brains:
            b.runner.close()
        served.close()
    result = served.result()
    assert served.brains() == {"blue1": True, "red1": True}
    for b in brains:
        assert b.agent.blackboard["gc_game_state"] == "PLAY"  # the referee's UDP packets arrived
        assert b.gc.counters.accepted > 10 and b.runner.stats.steps == 3000
        assert b.driver.counters.detections > 100 and b.driver.counters.odometer == 3000
    for r in result.robots:
        assert r.distance_walked_m > 2.0  # walked to their positions and after the ball
        assert r.loc_error_median_m is not None and r.loc_error_median_m < 0.5  # from the status messages
    assert served.gc_returns > 20


class Client:
    """A loco client on the in-process bus (what a brain or the SDK does)."""

    def __init__(self, bus: MemoryBus, name: str) -> None:
        t = MemoryTransport(bus)
        self.requests = t.publisher(f"LocoApiTopic/{name}Req", m.RpcReqMsg, "command")
        self.responses = t.subscription(f"LocoApiTopic/{name}Resp", m.RpcRespMsg, "response", depth=64)

    def call(self, uuid: str, header: str, body: str) -> None:
        self.requests.publish(m.RpcReqMsg(uuid=uuid, header=header, body=body))

    def answers(self) -> dict[str, int]:
        return {r.uuid: json.loads(r.header)["status"] for r in self.responses.take(64)}


@pytest.fixture()
def served_one() -> tuple[ServedMatch, Client]:
    bus = MemoryBus()
    served = ServedMatch(MatchConfig(team_size=1, seed=1), MemoryTransport(bus), refereed=False)
    return served, Client(bus, "blue1")


def test_requests_are_carried_out_and_answered(served_one: tuple[ServedMatch, Client]) -> None:
    served, client = served_one
    start = served.world.robots[BLUE1].pose
    client.call("move", loco.header_text(loco.API_MOVE), loco.move_body(0.4, 0.0, 0.0))
    client.call("head", '{"api_id":2004,"call_mode":0,"req_id":"head"}', '{"pitch":0.8,"yaw":0.5}')
    client.call("wave", '{"api_id":2005}', '{"hand_index":0}')
    client.call("nan", loco.header_text(loco.API_MOVE), '{"vx":NaN,"vy":0,"vyaw":0}')
    client.call("broken", "{{{", "")
    for _ in range(20):  # keep the brain alive: a Move every 0.1 s
        for _ in range(10):
            served.match.step()
        client.call("keep", loco.header_text(loco.API_MOVE), loco.move_body(0.4, 0.0, 0.0))
    answers = client.answers()
    assert (answers["move"], answers["head"], answers["keep"]) == (0, 0, 0)
    assert (answers["wave"], answers["nan"], answers["broken"]) == (404, 400, 400)
    ep = served.endpoints[BLUE1]
    assert ep.counters.unknown_api == 1 and ep.counters.bad_requests == 2
    state = served.world.robots[BLUE1]
    walked = state.pose
    # it faces into the field from its touch line: forward is along its heading
    assert walked.distance_to(start.x_m, start.y_m) > 0.5
    assert (state.head_pan_rad, state.head_tilt_rad) == pytest.approx((0.5, 0.8), abs=0.05)


def test_a_silent_brain_leaves_its_robot_standing(served_one: tuple[ServedMatch, Client]) -> None:
    served, client = served_one
    client.call("move", loco.header_text(loco.API_MOVE), loco.move_body(0.4, 0.0, 0.0))
    for _ in range(30):
        served.match.step()
    assert served.world.robots[BLUE1].vx_mps > 0.1
    for _ in range(100):  # 1 s of silence: stopped after 0.5 s
        served.match.step()
    assert not served.endpoints[BLUE1].connected(served.t_s)
    state = served.world.robots[BLUE1]
    assert abs(state.vx_mps) < 1e-6 and abs(state.vy_mps) < 1e-6
    client.call("again", loco.header_text(loco.API_MOVE), loco.move_body(0.4, 0.0, 0.0))
    for _ in range(30):
        served.match.step()
    assert served.world.robots[BLUE1].vx_mps > 0.1  # the brain is back: it walks again


def test_a_second_participant_cannot_drive_a_served_robot(served_one: tuple[ServedMatch, Client]) -> None:
    served, brain = served_one
    intruder = Client(served.transport.bus, "blue1")  # another participant on the same topic
    brain.call("walk", loco.header_text(loco.API_MOVE), loco.move_body(0.3, 0.0, 0.0))
    for k in range(20):  # the brain keeps walking; the intruder asks to run backwards meanwhile
        for _ in range(10):
            served.match.step()
        brain.call(f"walk{k}", loco.header_text(loco.API_MOVE), loco.move_body(0.3, 0.0, 0.0))
        intruder.call(f"back{k}", loco.header_text(loco.API_MOVE), loco.move_body(-0.5, 0.0, 0.0))
    served.match.step()  # the last two requests served
    ep = served.endpoints[BLUE1]
    assert ep.counters.not_locked == 20 and served.world.robots[BLUE1].vx_mps > 0.1  # the brain's walk
    answers = intruder.answers()  # the response topic is shared: it sees the brain's answers, none of its own
    assert len(answers) == 21 and not any(uuid.startswith("back") for uuid in answers)
    for _ in range(int(ep.request_lock.silence_s * 100) + 10):  # the brain falls silent: stops, then
        served.match.step()
    intruder.call("after", loco.header_text(loco.API_MOVE), loco.move_body(-0.5, 0.0, 0.0))
    for _ in range(30):
        served.match.step()
    assert ep.request_lock.moves == 1 and served.world.robots[BLUE1].vx_mps < -0.1  # a new brain is taken


def test_the_vision_kick_approaches_a_ball_in_front_and_kicks_it(served_one: tuple[ServedMatch, Client]) -> None:
    from soccerbt.world.types import Pose2D

    served, client = served_one
    world = served.world
    world.place_robot(BLUE1, Pose2D(0.0, 0.0, 0.0))
    world.place_ball(1.0, 0.3)  # in front, a little to the left: out of the feet's reach
    client.call("vk", loco.header_text(loco.API_VISUAL_KICK), loco.visual_kick_body(True))
    client.call("still", loco.header_text(loco.API_MOVE), loco.move_body(0.0, 0.0, 0.0))  # the brain stands
    kicked_at = None
    for k in range(800):
        served.match.step()
        if k % 10 == 0:  # the brain keeps the connection (Move 0 is set aside while the kick runs)
            client.call(f"keep{k}", loco.header_text(loco.API_MOVE), loco.move_body(0.0, 0.0, 0.0))
        if world.is_kicking(BLUE1):
            kicked_at = k
            break
    assert kicked_at is not None, world.robots[BLUE1].pose
    walked = world.robots[BLUE1].pose
    assert 0.3 < walked.x_m < 1.0  # it walked up to the ball
    world.place_ball(-5.5, 0.0)  # behind it beyond the kick's 5 m: nothing to approach, the brain's walk goes on
    for k in range(100):
        served.match.step()
        if k % 10 == 0:
            client.call(f"walk{k}", loco.header_text(loco.API_MOVE), loco.move_body(0.3, 0.0, 0.0))
    assert world.robots[BLUE1].vx_mps > 0.2


def test_get_up_stands_a_fallen_robot(served_one: tuple[ServedMatch, Client]) -> None:
    served, client = served_one
    served.world.knock_over(BLUE1)
    for _ in range(10):
        served.match.step()
    assert served.world.robots[BLUE1].fallen
    client.call("up", loco.header_text(loco.API_GET_UP), loco.get_up_body())
    for k in range(1000):
        served.match.step()
        if k % 10 == 0:
            client.call(f"keep{k}", loco.header_text(loco.API_MOVE), loco.move_body(0.0, 0.0, 0.0))
        if not served.world.robots[BLUE1].fallen:
            break
    assert not served.world.robots[BLUE1].fallen
    assert served.endpoints[BLUE1].counters.get_ups == 1


def test_the_brains_log_opens_in_the_replay_tools(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from soccerbt.__main__ import main
    from soccerbt.drivers.booster.connect import open_transport
    from soccerbt.log.reader import McapLog

    domain = 202
    gc_port, ret_port, team_port = _free_udp_port(), _free_udp_port(), _free_udp_port()
    served = ServedMatch(MatchConfig(team_size=1, seed=2), open_transport("memory", domain=domain),
                         gc_port=gc_port, gc_return_port=ret_port, count_team_messages=False)
    parser = argparse.ArgumentParser()
    configure(parser)
    log_path = tmp_path / "blue1.mcap"
    args = parser.parse_args(["--robot", "blue1", "--name", "blue1", "--team-size", "1", "--gc-port", str(gc_port),
                              "--gc-return-port", str(ret_port), "--team-address", "127.255.255.255",
                              "--team-port", str(team_port), "--domain", str(domain), "--record", str(log_path)])
    args.transport = "memory"
    brain = build_brain(args, BLUE1)
    try:
        for _ in range(1500):
            served.match.step()
            brain.runner.step(served.t_s)
    finally:
        brain.runner.close()
        brain.recorder.finish()
        served.close()
    log = McapLog.open(log_path)
    assert log.header["truth"] == "estimate" and log.header["source"] == "brain"
    assert log.header["robots"] == ["blue1"]
    assert log.last_step == 1500
    state = log.robot_state("blue1", 1500)
    assert state.blackboard["gc_game_state"][0] == brain.agent.blackboard["gc_game_state"]
    assert len(state.ticked) > 3 and state.record is not None and state.record.tick == 1500
    # the log's "truth" is the brain's own estimate, in its team frame
    pose = brain.agent.context.world_model.robot_pose_field
    view = log.step_view(1500)
    assert view is not None and view.truth.robots[0][:2] == pytest.approx((pose.x_m, pose.y_m), abs=1e-3)
    assert main(["replay", str(log_path), "--robot", "blue1", "--tick", "1500", "--tree", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tick"] == 1500 and len(out["nodes"]) == len(state.statuses)


def test_the_flight_recorder_rotates_and_caps_its_folder(tmp_path) -> None:
    from soccerbt.drivers.booster.connect import open_transport
    from soccerbt.log.reader import McapLog
    from soccerbt.robot.flight import FlightRecorder, flight_logs

    domain = 203
    gc_port, ret_port, team_port = _free_udp_port(), _free_udp_port(), _free_udp_port()
    served = ServedMatch(MatchConfig(team_size=1, seed=3), open_transport("memory", domain=domain),
                         gc_port=gc_port, gc_return_port=ret_port, count_team_messages=False)
    brain = _brain(BLUE1, domain, gc_port, ret_port, team_port)
    folder = tmp_path / "logs"
    folder.mkdir()
    old = folder / "blue1-20200101-000000-1-000.mcap"  # an older run's flight log: may go
    old.write_bytes(b"x" * 150_000)
    mine = folder / "notes.txt"  # not a flight log: never touched
    mine.write_text("keep me")
    recorder = FlightRecorder(folder, brain.runner, brain.runner.agent and _spec(brain), max_file_bytes=80_000,
                              max_folder_bytes=200_000)
    brain.runner.observers.append(recorder.on_step)
    try:
        for _ in range(4000):
            served.match.step()
            brain.runner.step(served.t_s)
    finally:
        brain.runner.close()
        recorder.finish()
        served.close()
    assert recorder.segment >= 2  # rotated by size
    assert old in recorder.deleted and not old.exists() and mine.read_text() == "keep me"
    left = flight_logs(folder)
    assert sum(p.stat().st_size for p in left) <= 200_000
    assert left[-1] == recorder.path
    starts = []
    for path in left:  # every segment opens on its own, and they follow each other
        log = McapLog.open(path)
        assert log.header["flight_run"] == recorder.run_name and log.first_step == 1
        starts.append((log.header["segment"], log.header["segment_first_brain_step"], log.last_step))
    assert starts == sorted(starts)
    for (_, first, steps), (_, next_first, _) in zip(starts, starts[1:], strict=False):
        assert next_first == first + steps
    assert starts[-1][1] + starts[-1][2] - 1 == 4000


def test_a_flight_logs_third_segment_opens_after_the_first_two_are_deleted(tmp_path) -> None:
    """Two recorders on one brain, one file and a rotating flight recorder: with its first two
    segments deleted (by the folder's cap, say), the third opens on its own, and holds the same
    ticks and states as the one file at the same brain steps."""
    from soccerbt.drivers.booster.connect import open_transport
    from soccerbt.log.reader import McapLog
    from soccerbt.robot.flight import FlightRecorder

    domain = 205
    gc_port, ret_port, team_port = _free_udp_port(), _free_udp_port(), _free_udp_port()
    served = ServedMatch(MatchConfig(team_size=1, seed=5), open_transport("memory", domain=domain),
                         gc_port=gc_port, gc_return_port=ret_port, count_team_messages=False)
    brain = _brain(BLUE1, domain, gc_port, ret_port, team_port)
    (tmp_path / "whole").mkdir()
    (tmp_path / "segments").mkdir()
    whole = FlightRecorder(tmp_path / "whole", brain.runner, _spec(brain), max_file_bytes=1 << 30)
    segments = FlightRecorder(tmp_path / "segments", brain.runner, _spec(brain), max_file_bytes=100_000)
    brain.runner.observers += [whole.on_step, segments.on_step]
    try:
        for _ in range(3000):
            served.match.step()
            brain.runner.step(served.t_s)
    finally:
        brain.runner.close()
        whole.finish()
        segments.finish()
        served.close()
    assert segments.segment >= 3 and whole.segment == 0
    for path in segments.files[:2]:
        path.unlink()
    third = McapLog.open(segments.files[2])
    assert third.header["segment"] == 2 and third.node_data and third.last_step > 100 and not third.warnings
    one = McapLog.open(whole.path)
    offset = third.header["segment_first_brain_step"] - 1  # the segment's step 1 is this brain step + 1
    for step in (1, 2, third.last_step // 2, third.last_step):  # from its first keyframe on, nothing missing
        a, b = one.robot_state("blue1", offset + step), third.robot_state("blue1", step)
        assert (a.tick, a.statuses, a.blackboard, a.reasons) == (b.tick, b.statuses, b.blackboard, b.reasons), step
    ticks = dict(one.robot_ticks("blue1", offset + 1, offset + third.last_step))
    compared = 0
    for step, b in third.robot_ticks("blue1", 1, third.last_step):
        a = ticks[offset + step]
        assert (a.tick, a.root, repr(a.command), a.transitions, a.blackboard, a.reasons) == \
            (b.tick, b.root, repr(b.command), b.transitions, b.blackboard, b.reasons), step
        compared += 1
    assert compared == third.last_step


def _spec(brain: object) -> object:
    from soccerbt.brain_setup import BrainSpec
    from soccerbt.world.field import Field

    agent = brain.agent  # type: ignore[attr-defined]
    return BrainSpec(robot=agent.robot, field=Field.by_name("M"), team_size=1, tree_path=agent.tree_path,
                     team_number=1, team_message_period_s=0.45)


@pytest.mark.parametrize(
    "yaw, turn, pan, tilt", [(0.0, 0.0, 0.0, 0.0), (1.25, 0.7, 0.3, -0.2), (-3.1, -1.5, -1.1, 1.2)]
)
def test_the_low_state_template_encodes_as_the_message_does(yaw: float, turn: float, pan: float, tilt: float) -> None:
    from soccerbt.serve.endpoint import RobotEndpoint
    from soccerbt.world.types import Observations, Pose2D

    class Body:
        vtheta_radps = turn

    ep = RobotEndpoint(MemoryTransport(MemoryBus()), BLUE1, name="blue1", camera=None)
    obs = Observations(0.0, False, (), Pose2D(), yaw, False, pan, tilt)
    data = ep._low_state_bytes(obs, Body())
    assert data == ep._low_state_message(obs, Body()).encode()
    decoded = m.LowState.decode(data)
    assert [round(x.q, 5) for x in decoded.motor_state_serial[:2]] == [round(pan, 5), round(tilt, 5)]
    assert len(decoded.motor_state_serial) == 23
