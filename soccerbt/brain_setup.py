"""How one robot's brain is assembled, in a simulated match and on a robot alike.

``build_agent(spec, driver, ...)`` makes the ``Agent`` of one robot: its localizer (a particle
filter that starts on the touch line its team puts it on), world model, navigator and kick
planner, the ``RobotContext`` its nodes see, the tree loader, the GameController adapter and the
team adapter (roles negotiated over whatever team link it is given: the simulated ``TeamLink``
of a match, or UDP on a robot). ``Match`` and ``soccerbt brain`` both call it, so a robot plays
the same brain in either.

Also here: ``start_role``, ``entry_pose`` (where a player waits before READY, which fixes the
localizer's prior) and ``default_tree_path``. May import agent, trees, nodes, services,
gamecontroller and world.
"""
from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from soccerbt.agent import Agent, AgentEvent, TeamAdapter, tree_files
from soccerbt.gamecontroller.adapter import GameControllerAdapter
from soccerbt.nodes.soccer import register_soccer_nodes
from soccerbt.nodes.soccer.context import RobotContext
from soccerbt.services.localization import ParticleFilter
from soccerbt.services.navigation import Navigator
from soccerbt.services.planning import RoleAssigner
from soccerbt.services.world_model import WorldModel
from soccerbt.trees import TreeFactory
from soccerbt.trees.plugins import load_node_plugins
from soccerbt.trees.shipped import default_tree_path
from soccerbt.trees.xmlload import DEFAULT_MAX_FILE_BYTES, FileRefused, read_limited
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, RobotId

__all__ = ["BrainSpec", "build_agent", "build_tree_factory", "default_tree_path", "entry_pose", "start_role"]


def start_role(number: int) -> str:
    """The role a player starts with: 1 keeps goal, 2 strikes, the others support."""
    return "goal_keeper" if number == 1 else "striker" if number == 2 else "supporter"


def entry_pose(field: Field, number: int, team_size: int) -> Pose2D:
    """Where a player waits before READY, team frame: on a touch line of its own half, facing in.

    Odd numbers on the right touch line (y < 0), even ones on the left, spread along x.
    """
    side = -1.0 if number % 2 else 1.0
    x = -field.half_length_m * (number - 0.5) / team_size
    return Pose2D(x, side * field.half_width_m, -side * math.pi / 2.0)


def build_tree_factory(node_plugins: Sequence[str] = ()) -> Any:
    """A TreeFactory with BT.CPP's built-ins, every soccer node, every installed node plugin
    (entry-point group ``soccerbt.nodes``) and the ``node_plugins`` (``--nodes`` specs: a module,
    MODULE:FUNCTION or a .py file) registered. ``PluginError`` when a plugin fails or clashes."""
    factory = TreeFactory()
    register_soccer_nodes(factory)
    load_node_plugins(factory, node_plugins)
    return factory


@dataclass(frozen=True)
class BrainSpec:
    """What one robot's brain depends on besides its driver.

    ``seed`` seeds the localizer (``[seed, team, number]``: the same robot gets the same
    particles in every run). ``team_number`` is the GameController's number of the robot's team.
    ``team_message_period_s`` is the period of team messages and role negotiation.
    """

    robot: RobotId
    field: Field
    team_size: int
    tree_path: Path
    team_number: int
    team_message_period_s: float
    seed: int = 0
    particles: int = 300


def build_agent(spec: BrainSpec, driver: Any, *, clock: Callable[[], float], team_link: Any,
                factory: Any = None, pad: Any = None, estop: Any = None,
                on_event: Callable[[AgentEvent], None] | None = None) -> Agent:
    """The ``Agent`` of ``spec.robot`` driving ``driver``; ``clock`` gives the brain's time in
    seconds (simulated, or the robot's own clock), ``team_link`` carries team messages
    (``register``, ``send``, ``receive``). Raises ``TreeLoadError`` when the tree does not load."""
    rid, field = spec.robot, spec.field
    rng = np.random.default_rng([spec.seed, rid.team.value, rid.number])
    localizer = ParticleFilter(field, spec.particles, rng=rng)
    # the team puts its robots down on known touch lines (entry_pose): the prior says which,
    # else near the halfway line the mirror pose on the other touch line looks the same
    localizer.reset_touch_line_entry(side=math.copysign(1.0, entry_pose(field, rid.number, spec.team_size).y_m))
    context = RobotContext(
        robot=rid, field=field, clock=clock,
        world_model=WorldModel(field, rid.team), limits=getattr(driver, "limits", None),
        localizer=localizer, navigator=Navigator(field), team_link=team_link,
        kick=_optional_service("soccerbt.services.kick", field),
        team_number=spec.team_number, team_size=spec.team_size, start_role=start_role(rid.number))
    if factory is None:
        factory = build_tree_factory()

    def load_tree(path: Path) -> Any:
        return factory.create_tree_from_file(str(path), context=context)

    tree_path = spec.tree_path
    # Our game.xml never names 'supporter' (its SupporterPlay runs for "not striker"), so with
    # three a side its supporters have always played as non-lead strikers; kept so for
    # bit-identical 3 v 3 results. From four a side (5 v 5 on L) a tree with SupportPosition
    # gets real supporters, spread by supporter_targets (defensive spots included).
    knows_supporter = _knows_role(tree_path, "supporter") or (
        spec.team_size >= 4 and _mentions(tree_path, b"<SupportPosition"))
    team = TeamAdapter(rid, team_link, RoleAssigner(field), period_s=spec.team_message_period_s,
                       supporter_role="supporter" if knows_supporter else "striker",
                       defender_role="defender" if _knows_role(tree_path, "defender") else None)
    agent = Agent(rid, driver, context, tree_path, load_tree,
                  gc_adapter=GameControllerAdapter(spec.team_number, rid.number),
                  team=team, pad=pad, estop=estop, on_event=on_event)
    agent.spec = spec  # what it was built with (the replay log's header keeps it for --rerun)
    agent.factory = factory  # its node types, and the team's plugins among them (the log's header names them)
    start = context.start_role
    agent.blackboard["player_role"] = team.supporter_role if start == "supporter" else start
    return agent


def _knows_role(tree_path: Path, role: str) -> bool:
    """Whether a tree (or an include) mentions a role name: Booster's trees know no supporter."""
    return _mentions(tree_path, f"'{role}'".encode())


def _mentions(tree_path: Path, needle: bytes) -> bool:
    """Whether a tree file or one of its includes contains ``needle``."""
    for f in tree_files(tree_path):
        try:  # the loader's bounded read: a listed file over the limit is not read whole
            if needle in read_limited(f, DEFAULT_MAX_FILE_BYTES):
                return True
        except (OSError, FileRefused):
            continue
    return False


def _optional_service(module_name: str, field: Field) -> Any:
    """The kick planner when its module exists (it is optional for the nodes)."""
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:
        return None
    cls = getattr(module, "KickPlanner", None)
    return cls(field) if cls is not None else None
