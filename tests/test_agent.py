"""Agent: the cycle's order and wiring, node exceptions, manual override, hot reload.

These tests drive the agent with stand-in trees and drivers (the agent's contract is the
``TreeLike`` protocol and the driver's sense/act); ``test_agent_trees.py`` uses the real engine.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from soccerbt.agent import Agent, TeamAdapter, node_path_of, tree_files
from soccerbt.drivers.gamepad import EmergencyStop, ManualCommand
from soccerbt.gamecontroller.adapter import GameControllerAdapter
from soccerbt.gamecontroller.protocol import GameControlData, RobotInfo, TeamInfo
from soccerbt.nodes.soccer.context import RobotContext
from soccerbt.services.planning import RoleAssigner, TeamLink
from soccerbt.services.world_model import WorldModel
from soccerbt.world.field import Field
from soccerbt.world.types import Observations, Pose2D, RobotCommand, RobotId, Team

FIELD = Field.adult_size()
ROBOT = RobotId(Team.BLUE, 2)


class FakeDriver:
    def __init__(self) -> None:
        self.t_s = 0.0
        self.odometry = Pose2D()
        self.commands: list[RobotCommand] = []
        self.sensed = 0
        self.camera_frame = False
        self.detections: tuple = ()

    def sense(self) -> Observations:
        self.sensed += 1
        return Observations(self.t_s, self.camera_frame, self.detections, self.odometry, self.odometry.theta_rad,
                            False, 0.0, 0.0)

    def act(self, command: RobotCommand) -> None:
        self.commands.append(command)


class NodeError(RuntimeError):
    def __init__(self, message: str, node_path: str) -> None:
        super().__init__(message)
        self.node_path = node_path


class FakeTree:
    """Runs ``behaviour(tree)`` per tick; records ticks and halts."""

    def __init__(self, context: RobotContext, behaviour, label: str = "") -> None:
        self.context = context
        self.behaviour = behaviour
        self.label = label
        self.bb: dict[str, object] = {}
        self.ticks = 0
        self.halts = 0

    def tick_exactly_once(self):
        self.ticks += 1
        return self.behaviour(self)

    def halt_tree(self) -> None:
        self.halts += 1

    def root_blackboard(self):
        return self.bb


def walk(tree: FakeTree) -> str:
    tree.context.set_velocity(0.5, 0.1, 0.2)
    return "RUNNING"


def make_context() -> RobotContext:
    clock = {"t": 0.0}
    return RobotContext(robot=ROBOT, field=FIELD, clock=lambda: clock["t"], world_model=WorldModel(FIELD, Team.BLUE))


def make_agent(behaviour=walk, tmp_path: Path | None = None, **kwargs) -> tuple[Agent, FakeDriver, list[FakeTree]]:
    driver = FakeDriver()
    context = make_context()
    trees: list[FakeTree] = []

    def load(path: Path) -> FakeTree:
        tree = FakeTree(context, behaviour, label=str(path))
        trees.append(tree)
        return tree

    tree_path = (tmp_path / "t.xml") if tmp_path is not None else Path("/nonexistent/t.xml")
    agent = Agent(ROBOT, driver, context, tree_path, load, **kwargs)
    return agent, driver, trees


def test_the_tree_command_reaches_the_driver_once_per_step() -> None:
    agent, driver, trees = make_agent()
    for k in range(1, 4):
        sent = agent.step(k * 0.01)
        assert driver.commands[-1] is sent
    assert (sent.vx_mps, sent.vy_mps, sent.vtheta_radps) == (0.5, 0.1, 0.2)
    assert trees[0].ticks == 3 and driver.sensed == 3 and len(driver.commands) == 3
    assert agent.ticks == 3 and agent.last_status == "RUNNING"


def test_schema_defaults_are_on_the_blackboard_before_the_first_tick() -> None:
    seen = {}

    def look(tree: FakeTree) -> str:
        seen.update(tree.bb)
        return "SUCCESS"

    agent, _, _ = make_agent(look)
    agent.step(0.01)
    assert seen["gc_game_state"] == "INITIAL"
    assert seen["control_state"] == 3
    assert seen["ball_location_known"] is False
    assert agent.context.blackboard is agent.blackboard


def test_a_node_exception_stops_the_robot_is_logged_once_and_the_tree_ticks_again() -> None:
    fail = {"on": True}

    def flaky(tree: FakeTree) -> str:
        tree.context.set_velocity(0.8, 0.0, 0.0)
        tree.context.request_kick(0.0, 1.0)
        if fail["on"]:
            raise NodeError("division by zero", "MainTree/root/Chase")
        return "RUNNING"

    events = []
    agent, driver, trees = make_agent(flaky, on_event=events.append)
    for k in range(1, 6):
        cmd = agent.step(k * 0.01)
        assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps, cmd.kick) == (0.0, 0.0, 0.0, None)
    assert agent.tree_failed
    assert agent.node_exceptions == {"MainTree/root/Chase": 5}
    assert trees[0].halts == 5  # every failed tick halts the tree: RUNNING nodes get on_halted
    assert [e.kind for e in events] == ["node_exception"]  # logged once per node path
    assert "MainTree/root/Chase" in events[0].message and "division by zero" in events[0].message
    fail["on"] = False
    cmd = agent.step(0.06)
    assert cmd.vx_mps == 0.8 and not agent.tree_failed  # the next tick runs normally
    assert agent.node_exception_count == 5


def test_a_second_failing_node_is_logged_separately() -> None:
    paths = iter(["A/x", "A/x", "A/y", "A/x"])

    def fail(tree: FakeTree) -> str:
        raise NodeError("boom", next(paths))

    events = []
    agent, _, _ = make_agent(fail, on_event=events.append)
    for k in range(4):
        agent.step(0.01 * (k + 1))
    assert [e.node_path for e in events] == ["A/x", "A/y"]
    assert agent.node_exceptions == {"A/x": 3, "A/y": 1}


def test_node_path_of_reads_the_engine_attribute_or_falls_back_to_the_type() -> None:
    assert node_path_of(NodeError("m", "Main/Seq/Kick")) == "Main/Seq/Kick"
    err = RuntimeError("x")
    err.path = ("Main", "Seq")  # type: ignore[attr-defined]
    assert node_path_of(err) == "Main/Seq"
    assert node_path_of(ValueError("y")) == "ValueError"


class FakePad:
    def __init__(self, command: ManualCommand | None) -> None:
        self.command = command
        self.calls = 0

    def update(self, now_s: float, bb) -> ManualCommand | None:
        self.calls += 1
        bb["go_manual"] = self.command is not None
        return self.command


def test_the_pad_overrides_the_walking_velocity_and_writes_before_the_tick() -> None:
    seen = []

    def look(tree: FakeTree) -> str:
        seen.append(tree.bb.get("go_manual"))
        return walk(tree)

    pad = FakePad(ManualCommand(0.3, -0.2, 0.4))
    agent, _, _ = make_agent(look, pad=pad)
    cmd = agent.step(0.01)
    assert seen == [True]
    assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps) == (0.3, -0.2, 0.4)
    pad.command = None
    cmd = agent.step(0.02)
    assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps) == (0.5, 0.1, 0.2)


def test_the_emergency_stop_wins_over_the_tree_and_the_pad() -> None:
    estop = EmergencyStop()
    agent, _, _ = make_agent(pad=FakePad(ManualCommand(1.0, 0.0, 0.0)), estop=estop)
    assert agent.step(0.01).vx_mps == 1.0
    estop.engage("test")
    cmd = agent.step(0.02)
    assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps) == (0.0, 0.0, 0.0)
    estop.release()
    assert agent.step(0.03).vx_mps == 1.0


def _packet(state: int, penalty: int = 0) -> GameControlData:
    players = [RobotInfo()] * 11
    players[ROBOT.number - 1] = RobotInfo(penalty=penalty)
    return GameControlData(players_per_team=3, state=state, kick_off_team=1,
                           teams=(TeamInfo(team_number=1, team_color=0, players=tuple(players)),
                                  TeamInfo(team_number=2, team_color=1)))


def test_the_newest_packet_is_applied_before_the_tick() -> None:
    seen = []

    def look(tree: FakeTree) -> str:
        seen.append((tree.bb["gc_game_state"], tree.bb["gc_is_kickoff_side"], tree.bb["gc_is_under_penalty"]))
        return "SUCCESS"

    agent, _, _ = make_agent(look, gc_adapter=GameControllerAdapter(1, ROBOT.number))
    agent.receive_packet(_packet(1))
    agent.receive_packet(_packet(2))  # only the newest counts
    agent.step(0.01)
    agent.receive_packet(_packet(3, penalty=34))
    agent.step(0.02)
    assert seen == [("SET", True, False), ("PLAY", True, True)]


class FakeLocalizer:
    def __init__(self) -> None:
        self.predicted: list[Pose2D] = []
        self.updates = 0
        self.resets = 0
        self.estimates = 0

    def predict(self, delta: Pose2D) -> None:
        self.predicted.append(delta)

    def update(self, detections) -> None:
        self.updates += 1

    def reset_touch_line_entry(self) -> None:
        self.resets += 1

    def estimate(self) -> Pose2D:
        self.estimates += 1
        return Pose2D(1.0, 2.0, 0.5)

    def confidence(self) -> float:
        return 0.9


def test_the_localizer_runs_at_camera_frames_and_odometry_carries_the_pose_between() -> None:
    from soccerbt.world.types import Detection

    agent, driver, _ = make_agent(lambda t: "SUCCESS", gc_adapter=GameControllerAdapter(1, ROBOT.number))
    loc = FakeLocalizer()
    agent.context.localizer = loc
    driver.odometry = Pose2D(0.0, 1.0, math.pi / 2)
    agent.step(0.01)  # the first step reads the belief once
    assert loc.predicted == [] and loc.updates == 0
    driver.odometry = Pose2D(0.0, 1.1, math.pi / 2)  # 0.1 m forward in the robot's own frame
    agent.step(0.02)
    pose = agent.blackboard["robot_pose_field"]  # estimate (1, 2, 0.5) moved 0.1 m along 0.5 rad
    assert pose.x_m == pytest.approx(1.0 + 0.1 * math.cos(0.5))
    assert pose.y_m == pytest.approx(2.0 + 0.1 * math.sin(0.5))
    assert loc.predicted == []  # no camera frame: the filter is not touched
    driver.odometry = Pose2D(-0.1, 1.1, math.pi)  # then 0.1 m to the left and a quarter turn
    driver.camera_frame, driver.detections = True, (Detection("T", 2.0, 0.0),)
    agent.step(0.03)
    assert len(loc.predicted) == 1 and loc.updates == 1
    d = loc.predicted[0]  # the whole motion since the last prediction, in that frame
    assert (d.x_m, d.y_m, d.theta_rad) == (pytest.approx(0.1), pytest.approx(0.1), pytest.approx(math.pi / 2))
    # the estimate was read at 0.01 s; the next read is due estimate_period_s (0.1 s) later, so
    # this frame's pose is still the odometry carried forward: 0.1 m along 0.5 rad, then 0.1 m
    # to its left, a quarter turn
    assert loc.estimates == 1
    pose = agent.blackboard["robot_pose_field"]
    assert pose.x_m == pytest.approx(1.0 + 0.1 * math.cos(0.5) - 0.1 * math.sin(0.5))
    assert pose.y_m == pytest.approx(2.0 + 0.1 * math.sin(0.5) + 0.1 * math.cos(0.5))
    assert pose.theta_rad == pytest.approx(0.5 + math.pi / 2)
    driver.camera_frame = False
    agent.step(0.10)
    assert loc.estimates == 1  # due, but not a camera frame
    driver.camera_frame = True
    agent.step(0.11)
    assert loc.estimates == 2 and loc.updates == 2
    assert agent.blackboard["robot_pose_field"] == Pose2D(1.0, 2.0, 0.5)  # the filter's own estimate


def test_a_penalty_resets_the_localizer_to_the_touch_line_entry() -> None:
    agent, driver, _ = make_agent(lambda t: "SUCCESS", gc_adapter=GameControllerAdapter(1, ROBOT.number))
    loc = FakeLocalizer()
    agent.context.localizer = loc
    agent.step(0.01)
    agent.receive_packet(_packet(3, penalty=34))
    agent.step(0.02)
    assert loc.resets == 1
    agent.receive_packet(_packet(3, penalty=0))
    agent.step(0.03)
    assert loc.resets == 2  # put back at the touch line: the pose is lost again


# --- hot reload --------------------------------------------------------------------------------


def _write(path: Path, text: str, mtime_ns: int | None = None) -> None:
    import os

    path.write_text(text)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))


class LoadError(Exception):
    """Prints like the engine's TreeLoadError: path:line: message."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")


def make_file_agent(tmp_path: Path, events: list):
    """An agent whose loader 'parses' files: a file containing BROKEN fails to load."""
    driver = FakeDriver()
    context = make_context()
    loads: list[FakeTree] = []

    def load(path: Path) -> FakeTree:
        for f in tree_files(path):
            text = f.read_text()
            if "BROKEN" in text:
                line = text[: text.index("BROKEN")].count("\n") + 1
                raise LoadError(str(f), line, "unknown node type 'BROKEN'")
        speed = float(path.read_text().split("speed=")[1].split('"')[1])

        def behaviour(tree: FakeTree) -> str:
            tree.context.set_velocity(speed, 0.0, 0.0)
            return "RUNNING"

        tree = FakeTree(context, behaviour, label=f"v{len(loads)}")
        loads.append(tree)
        return tree

    _write(tmp_path / "sub.xml", "<root/>\n", 1_000_000_000)
    _write(tmp_path / "main.xml", '<root>\n<include path="./sub.xml"/>\n<Go speed="0.2"/>\n</root>\n', 1_000_000_000)
    agent = Agent(ROBOT, driver, context, tmp_path / "main.xml", load, on_event=events.append)
    return agent, loads


def test_tree_files_follows_includes_relative_to_the_including_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "main.xml", '<root><include path="./sub/a.xml"/><!-- <include path="gone.xml"/> --></root>')
    _write(tmp_path / "sub" / "a.xml", "<root><include path='b.xml'/><include path='../main.xml'/></root>")
    _write(tmp_path / "sub" / "b.xml", "<root/>")
    assert tree_files(tmp_path / "main.xml") == [
        (tmp_path / p).resolve() for p in ("main.xml", "sub/a.xml", "sub/b.xml")
    ]


def test_reload_swaps_at_a_tick_boundary_when_an_include_changed(tmp_path: Path) -> None:
    events: list = []
    agent, loads = make_file_agent(tmp_path, events)
    agent.tree.bb["decision"] = "chase"
    assert agent.step(0.01).vx_mps == pytest.approx(0.2)
    assert agent.reload_tree_if_changed() is None  # nothing changed
    _write(tmp_path / "main.xml", '<root>\n<include path="./sub.xml"/>\n<Go speed="0.4"/>\n</root>\n', 2_000_000_000)
    old = agent.tree
    result = agent.reload_tree_if_changed()
    assert result is not None and result.reloaded and result.error is None
    assert agent.tree is loads[1] and old.halts == 1
    assert agent.blackboard["decision"] == "chase"  # root entries are carried over
    assert agent.context.blackboard is agent.blackboard
    assert agent.step(0.02).vx_mps == pytest.approx(0.4)
    _write(tmp_path / "sub.xml", "<root><!-- changed --></root>\n", 3_000_000_000)
    assert agent.reload_tree_if_changed().reloaded
    assert [e.kind for e in events] == ["tree_reloaded", "tree_reloaded"]


def test_a_broken_new_version_keeps_the_running_tree_and_is_reported_once(tmp_path: Path) -> None:
    events: list = []
    agent, loads = make_file_agent(tmp_path, events)
    running = agent.tree
    _write(tmp_path / "sub.xml", "<root>\n  <BROKEN/>\n</root>\n", 2_000_000_000)
    result = agent.reload_tree_if_changed()
    assert result is not None and not result.reloaded
    assert result.error == f"{(tmp_path / 'sub.xml').resolve()}:2: unknown node type 'BROKEN'"
    assert agent.tree is running and running.halts == 0
    assert agent.reload_tree_if_changed() is None  # the same broken version: reported once
    assert agent.step(0.01).vx_mps == pytest.approx(0.2)  # the old tree keeps playing
    assert [e.kind for e in events] == ["tree_reload_failed"]
    _write(tmp_path / "sub.xml", "<root/>\n", 3_000_000_000)  # fixed: loads now
    assert agent.reload_tree_if_changed().reloaded
    assert agent.tree is loads[-1] and agent.tree is not running


def test_step_checks_for_changes_once_a_simulated_second(tmp_path: Path) -> None:
    events: list = []
    agent, loads = make_file_agent(tmp_path, events)
    _write(tmp_path / "main.xml", '<root>\n<include path="./sub.xml"/>\n<Go speed="0.6"/>\n</root>\n', 2_000_000_000)
    t = 0.0
    while t < 0.99:
        t = round(t + 0.01, 2)
        assert agent.step(t).vx_mps == pytest.approx(0.2)
    assert len(loads) == 1
    assert agent.step(1.0).vx_mps == pytest.approx(0.6)  # the check ran at the tick boundary
    assert len(loads) == 2


# --- team communication --------------------------------------------------------------------------


def test_team_adapter_negotiates_one_striker_and_shares_the_ball() -> None:
    import numpy as np

    link = TeamLink(np.random.default_rng(0), delay_s=0.0, jitter_s=0.0, loss_probability=0.0)
    agents = []
    for number, (x, ball) in {1: (-6.0, None), 2: (-1.0, (0.0, 0.0)), 3: (-4.0, (0.0, 0.0))}.items():
        rid = RobotId(Team.BLUE, number)
        context = RobotContext(robot=rid, field=FIELD, clock=lambda: 0.0, world_model=WorldModel(FIELD, Team.BLUE),
                               start_role="supporter")
        team = TeamAdapter(rid, link, RoleAssigner(FIELD), supporter_role="striker")
        tree = FakeTree(context, lambda t: "SUCCESS")
        agent = Agent(rid, FakeDriver(), context, Path("/none.xml"), lambda p, t=tree: t, team=team)
        agent.context.localizer = type("L", (), {"estimate": lambda self, x=x: Pose2D(x, 0.0, 0.0),
                                                 "confidence": lambda self: 1.0,
                                                 "predict": lambda self, d: None,
                                                 "update": lambda self, d: None})()
        agents.append((agent, ball))
    for k in range(1, 31):
        t = k * 0.01
        for agent, ball in agents:
            wm = agent.context.world_model
            if ball is not None:  # pretend the camera sees the ball
                wm._ball_odom = ball
                wm.ball_last_seen_s = t
            agent.step(t)
    roles = [a.blackboard["player_role"] for a, _ in agents]
    leads = [a.blackboard["is_lead"] for a, _ in agents]
    assert roles == ["goal_keeper", "striker", "striker"]  # Booster's trees: supporters are strikers
    assert leads == [False, True, False]  # the nearest to the ball leads, the other assists
    keeper = agents[0][0]
    assert keeper.blackboard["tm_ball_pos_reliable"] is True  # the keeper knows the team's ball


def test_an_exception_in_on_halted_is_reported_with_its_node_path() -> None:
    from py_trees.common import Status

    from soccerbt.nodes import ActionNode
    from soccerbt.trees import NodeTickError, TreeFactory

    class Busy(ActionNode):
        def update(self):
            return Status.RUNNING

        def on_halted(self):
            raise RuntimeError("motor driver gone")

    factory = TreeFactory()
    factory.register_node_type("Busy", Busy)
    tree = factory.create_tree_from_text(
        '<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence name="top">'
        '<Busy name="walker"/></Sequence></BehaviorTree></root>')
    tree.tick_exactly_once()
    with pytest.raises(NodeTickError) as err:
        tree.halt_tree()
    assert err.value.node.name == "walker" and "motor driver gone" in str(err.value)

    def fail_then_halt(fake: FakeTree) -> str:
        raise NodeError("boom", "M/top/Chase")

    agent, _driver, trees = make_agent(fail_then_halt)
    events: list = []
    agent.on_event = events.append
    trees[0].halt_tree = tree.halt_tree  # the halt after the failed tick meets the faulty on_halted
    tree.tick_exactly_once()
    agent.step(0.01)
    kinds = [(e.kind, e.node_path) for e in events]
    assert ("node_exception", "M/top/Chase") in kinds
    halted = [e for e in events if "(halted)" in e.message]
    assert len(halted) == 1 and halted[0].node_path == tree.node_by_uid(2).path
    assert "RuntimeError" in halted[0].message and "motor driver gone" in halted[0].message
