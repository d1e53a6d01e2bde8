"""The pad inside the brain: an ``Agent`` wired to a ``PadManager`` and the emergency stop, and
Booster's game.xml (loaded through ``soccerbt.trees.TreeFactory`` with stub nodes) reacting to
the pad's keys: manual takes over in the tick after the stick moves and gives back when released.
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from soccerbt.agent import Agent
from soccerbt.drivers.gamepad import EmergencyStop, ManualCommand
from soccerbt.drivers.keyboard import KeyboardPad
from soccerbt.drivers.pad_devices import OpenedDevice, PadManager
from soccerbt.world.types import KickRequest, Observations, Pose2D, RobotCommand, RobotId, Team

pygame = pytest.importorskip("pygame")

LX, LY, RX, LT = 0, 1, 2, 4
A, B, X, Y, LB, RB = 0, 1, 2, 3, 9, 10
FULL = 32767
ROBOT = RobotId(Team.BLUE, 1)


@pytest.fixture
def pg():
    pygame.display.init()
    pygame.event.clear()
    yield pygame
    pygame.event.clear()


class OneBackend:
    """Every added device is an event-only game controller with instance id 100 + index."""

    def is_controller(self, device_index: int) -> bool:
        return True

    def open(self, kind: str, device_index: int) -> OpenedDevice:
        return OpenedDevice(100 + device_index, None, f"pad{device_index}")


def pad_rig(estop: EmergencyStop | None = None) -> PadManager:
    manager = PadManager(backend=OneBackend(), estop=estop)
    manager._started = True  # the fixture initialised pygame
    manager.assign(ROBOT)
    pygame.event.post(pygame.event.Event(pygame.CONTROLLERDEVICEADDED, device_index=0))
    manager.pump()
    assert manager.pad_of(ROBOT).instance_id == 100
    return manager


def send(manager: PadManager, *events) -> None:
    for event in events:
        pygame.event.post(event)
    manager.pump()


def axis(a: int, value: int):
    return pygame.event.Event(pygame.CONTROLLERAXISMOTION, instance_id=100, axis=a, value=value)


def button(b: int, pressed: bool = True):
    kind = pygame.CONTROLLERBUTTONDOWN if pressed else pygame.CONTROLLERBUTTONUP
    return pygame.event.Event(kind, instance_id=100, button=b)


# --- the Agent's wiring, with a tree that always walks and kicks --------------------------------


class StillDriver:
    def __init__(self) -> None:
        self.sent: list[RobotCommand] = []
        self.t_s = 0.0

    def sense(self) -> Observations:
        return Observations(self.t_s, False, (), Pose2D(), 0.0, False, 0.0, 0.0)

    def act(self, command: RobotCommand) -> None:
        self.sent.append(command)


class NullWorldModel:
    def update(self, observations, localizer, t_s) -> None:
        pass

    def write_blackboard(self, bb) -> None:
        pass


class Context:
    """What the Agent needs of a RobotContext."""

    def __init__(self) -> None:
        self.command = RobotCommand()
        self.world_model = NullWorldModel()
        self.localizer = None
        self.blackboard = None
        self.log: list[str] = []  # the stub nodes' ticks

    def begin_tick(self) -> None:
        self.command.kick = None

    def command_snapshot(self) -> RobotCommand:
        return replace(self.command)

    def stop(self) -> None:
        self.command.vx_mps = self.command.vy_mps = self.command.vtheta_radps = 0.0


class WalkingTree:
    """Walks forward at 0.3 m/s and kicks every tick; remembers what go_manual was at each tick."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.bb: dict[str, object] = {}
        self.seen_go_manual: list[object] = []

    def tick_exactly_once(self) -> str:
        self.seen_go_manual.append(self.bb.get("go_manual"))
        self.context.command.vx_mps = 0.3
        self.context.command.kick = KickRequest()
        return "RUNNING"

    def halt_tree(self) -> None:
        pass

    def root_blackboard(self) -> dict[str, object]:
        return self.bb


def make_agent(tmp_path: Path, manager: PadManager, estop: EmergencyStop) -> tuple[Agent, WalkingTree, StillDriver]:
    tree_file = tmp_path / "walk.xml"
    tree_file.write_text('<root BTCPP_format="4"/>')
    context = Context()
    tree = WalkingTree(context)
    driver = StillDriver()
    robot_pad = type("RobotPad", (), {"update": lambda self, now_s, bb: manager.update(ROBOT, now_s, bb)})()
    agent = Agent(ROBOT, driver, context, tree_file, lambda path: tree, pad=robot_pad, estop=estop,
                  reload_period_s=1e9)
    return agent, tree, driver


def test_agent_manual_takeover_release_and_estop(pg, tmp_path):
    estop = EmergencyStop()
    manager = pad_rig(estop)
    manager.keyboard = KeyboardPad(estop=estop)
    agent, tree, driver = make_agent(tmp_path, manager, estop)
    assert agent.step(0.01).vx_mps == pytest.approx(0.3)          # the tree walks
    send(manager, axis(LX, -FULL))                                # stick left
    cmd = agent.step(0.02)                                        # the very next tick is manual
    assert tree.seen_go_manual[-1] is True
    assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps) == (0.0, pytest.approx(0.4), 0.0)
    send(manager, axis(LX, 0))
    cmd = agent.step(0.03)                                        # released: the tree drives again
    assert tree.seen_go_manual[-1] is False and cmd.vx_mps == pytest.approx(0.3) and cmd.vy_mps == 0.0
    manager.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE, mod=0))
    cmd = agent.step(0.04)                                        # the emergency stop wins over all
    assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps, cmd.kick) == (0.0, 0.0, 0.0, None)
    send(manager, axis(LY, -FULL))
    assert agent.step(0.05).vx_mps == 0.0                         # even over a manual stick
    manager.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0))
    assert agent.step(0.06).vx_mps == pytest.approx(1.2)          # released: the stick drives
    send(manager, pygame.event.Event(pygame.CONTROLLERDEVICEREMOVED, instance_id=100))
    cmd = agent.step(0.07)                                        # unplugged: back to the tree at once
    assert tree.seen_go_manual[-1] is False and cmd.vx_mps == pytest.approx(0.3)
    assert [c.vx_mps for c in driver.sent][:3] == [pytest.approx(0.3), 0.0, pytest.approx(0.3)]


# --- Booster's game.xml through the tree engine, with stub nodes ------------------------------------

# The manual branch's nodes (the striker's Kick also runs in auto, but only on a kick decision,
# which the stubs never make).
_MANUAL_NODES = {"SimpleChase", "Kick"}
_STRUCTURE_TAGS = {"root", "include", "BehaviorTree", "TreeNodesModel", "SubTree"}
_TAG_RE = re.compile(r"<([A-Za-z_][\w.-]*)\b([^>]*)>")
_ATTR_RE = re.compile(r"([A-Za-z_][\w.-]*)\s*=")


def _node_ports(tree_dir: Path, known: set[str]) -> dict[str, set[str]]:
    """Node id -> port names used anywhere in game.xml and its subtrees, for every tag the
    factory does not know (Booster's files hold raw ``&&``, so no strict XML parser here)."""
    ports: dict[str, set[str]] = {}
    for path in [tree_dir / "game.xml", *sorted((tree_dir / "subtrees").glob("*.xml"))]:
        text = re.sub(r"<!--.*?-->", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
        for tag, attrs in _TAG_RE.findall(text):
            if tag in _STRUCTURE_TAGS or tag in known:
                continue
            names = ports.setdefault(tag, set())
            names.update(a for a in _ATTR_RE.findall(attrs) if a != "name" and not a.startswith("_"))
    return ports


def _stub_factory(tree_dir: Path):
    trees = pytest.importorskip("soccerbt.trees")
    if not hasattr(trees, "TreeFactory"):
        pytest.skip("soccerbt.trees.TreeFactory is not written yet")
    from py_trees.common import Status

    from soccerbt.nodes import ActionNode, InputPort

    factory = trees.TreeFactory()
    for node_id, port_names in _node_ports(tree_dir, set(factory.manifests())).items():
        def provided_ports(cls, _names=tuple(sorted(port_names))):  # noqa: B008 (binds this node's ports)
            return [InputPort(n, str) for n in _names]

        def update(self, _id=node_id):
            self.context.log.append(_id)
            # auto nodes walk slowly, the assisted chase fast; the assisted chase and kick take
            # a while, as Booster's do (a kick lasts >= 1 s)
            self.context.command.vx_mps = 1.0 if _id == "SimpleChase" else 0.3
            return Status.RUNNING if _id in _MANUAL_NODES else Status.SUCCESS

        cls = type(node_id, (ActionNode,), {"provided_ports": classmethod(provided_ports), "update": update})
        factory.register_node_type(node_id, cls)
    return factory


def test_game_tree_gives_the_pad_control_and_takes_it_back(pg, shared_dir):
    tree_dir = shared_dir / "booster" / "trees"
    factory = _stub_factory(tree_dir)
    context = Context()
    tree = factory.create_tree_from_file(str(tree_dir / "game.xml"), context=context)
    from soccerbt.blackboard.schema import default_blackboard_values

    bb = tree.root_blackboard()
    for key, value in default_blackboard_values().items():
        bb[key] = value
    bb.update({"gc_game_state": "PLAY", "gc_game_sub_state_type": "NONE", "gc_is_under_penalty": False,
               "player_role": "striker", "odom_calibrated": True})
    manager = pad_rig()

    def tick(t_s: float) -> tuple[ManualCommand | None, list[str]]:
        command = manager.update(ROBOT, t_s, bb)
        context.log.clear()
        tree.tick_exactly_once()
        return command, list(context.log)

    command, ticked = tick(0.01)
    auto_nodes = set(ticked)
    assert command is None and "StrikerDecide" in auto_nodes  # auto: the striker plays
    assert not auto_nodes & _MANUAL_NODES
    send(manager, axis(LY, -FULL))
    command, ticked = tick(0.02)
    assert command == ManualCommand(pytest.approx(1.2), 0.0, 0.0)
    assert ticked == []                         # every branch skipped: the pad's velocity rules
    send(manager, button(LB))
    command, ticked = tick(0.03)
    assert ticked == ["SimpleChase"]            # LB: assisted chase
    send(manager, button(LB, False), button(RB), axis(LY, 0))
    command, ticked = tick(0.04)
    assert command is None and ticked == ["Kick"]
    send(manager, button(RB, False))
    command, ticked = tick(0.05)                # all released: auto again at once
    assert command is None and set(ticked) == auto_nodes
    send(manager, axis(LT, FULL), button(X))    # LT+X: manual/assist state, even without a stick
    command, ticked = tick(0.06)
    assert bb["control_state"] == 1 and ticked == []
    send(manager, button(X, False), button(A))  # LT+A: recalibrate
    command, ticked = tick(0.07)
    assert bb["control_state"] == 2 and bb["odom_calibrated"] is False and "CamScanField" in ticked
    send(manager, button(A, False), button(B))  # LT+B: full auto
    bb["odom_calibrated"] = True
    command, ticked = tick(0.08)
    assert bb["control_state"] == 3 and set(ticked) == auto_nodes
    send(manager, button(B, False), button(Y))  # LT+Y: the striker becomes the goalkeeper
    command, ticked = tick(0.09)
    assert bb["player_role"] == "goal_keeper"
    assert "GoalieDecide" in ticked and "StrikerDecide" not in ticked


def test_agent_with_game_tree_hands_over_in_the_next_tick(pg, shared_dir, tmp_path):
    tree_dir = shared_dir / "booster" / "trees"
    factory = _stub_factory(tree_dir)
    context = Context()
    manager = pad_rig()
    robot_pad = type("RobotPad", (), {"update": lambda self, now_s, bb: manager.update(ROBOT, now_s, bb)})()
    agent = Agent(ROBOT, StillDriver(), context, tree_dir / "game.xml",
                  lambda path: factory.create_tree_from_file(str(path), context=context), pad=robot_pad,
                  estop=EmergencyStop(), reload_period_s=1e9)
    agent.blackboard.update({"gc_game_state": "PLAY", "gc_game_sub_state_type": "NONE",
                             "gc_is_under_penalty": False, "player_role": "striker", "odom_calibrated": True})

    def step(t_s: float) -> tuple[RobotCommand, list[str]]:
        context.log.clear()
        return agent.step(t_s), list(context.log)

    cmd, ticked = step(0.01)
    assert cmd.vx_mps == pytest.approx(0.3) and "StrikerDecide" in ticked   # the tree walks
    send(manager, axis(LX, -FULL), axis(RX, FULL))
    cmd, ticked = step(0.02)                                                # the next tick: manual
    assert ticked == [] and agent.blackboard["go_manual"] is True
    assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps) == (0.0, pytest.approx(0.4), pytest.approx(-1.5))
    send(manager, axis(LX, 0), axis(RX, 0))
    cmd, ticked = step(0.03)                                                # released: auto again
    assert agent.blackboard["go_manual"] is False and "StrikerDecide" in ticked
    assert (cmd.vx_mps, cmd.vy_mps, cmd.vtheta_radps) == (pytest.approx(0.3), 0.0, 0.0)
    send(manager, button(LB))
    cmd, ticked = step(0.04)                                                # LB: the assisted chase
    assert ticked == ["SimpleChase"] and cmd.vx_mps == pytest.approx(1.0)
    send(manager, button(LB, False))
    cmd, ticked = step(0.05)
    assert "SimpleChase" not in ticked and cmd.vx_mps == pytest.approx(0.3)
    assert agent.node_exception_count == 0
