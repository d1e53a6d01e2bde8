"""The lock-step match: world, referee, agents and observers; ``run_match(config)``.

``Match(config)`` builds a seeded simulated match: the ``World`` (truth and time), the
``Referee`` (the GameController's part), one ``Agent`` per robot (each with its own tree,
blackboard, context, world model and localizer), and the observers (recorder, viewer,
metrics). ``Match.step()`` advances 10 ms in a fixed order: the world steps (with the commands
of the previous cycle), the referee reads the world's events, the newest GameController packet
goes to every agent (encoded and decoded as real v12 bytes, or HSL v19/v20 ones), every agent steps in a fixed
order, team messages travel (the HSL referee counts them against the team's message budget),
the observers look. Nothing reads the wall clock, so a seed gives
the same match, bit for bit.

``run_match(config) -> MatchResult`` plays a whole match (or ``duration_s`` of it) and returns
a picklable summary: score, goals with times and scorers, per robot distance walked, falls,
kicks, penalties, localization error, node exceptions, the errors of the run, and the seconds
spent in each game state (``state_s``: PLAYING starts about 26 s into a match). It is a pure
function of the config (batch runs call it in worker processes).
"""
from __future__ import annotations

import dataclasses
import logging
import math
import statistics
import traceback
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from soccerbt.agent import DEFAULT_TEAM_MESSAGE_PERIOD_S, Agent, AgentEvent, team_message_period_s
from soccerbt.brain_setup import BrainSpec, build_agent, build_tree_factory, default_tree_path, entry_pose, start_role
from soccerbt.drivers.sim import SimDriver
from soccerbt.gamecontroller.packet_schedule import PacketSchedule
from soccerbt.gamecontroller.protocol import decode
from soccerbt.gamecontroller.referee_common import RefereeConfig
from soccerbt.gamecontroller.referee_factory import GC_VERSIONS, make_referee
from soccerbt.services.planning import TeamLink
from soccerbt.world.config import CameraConfig, NoiseConfig, WorldConfig
from soccerbt.world.field import Field
from soccerbt.world.sim import World
from soccerbt.world.types import Pose2D, RobotCommand, RobotId, Team, from_team_frame, to_team_frame

_match_log = logging.getLogger("soccerbt.match")


def _robots_text(robots: list[str], agents: Any) -> str:
    """"the blue team (blue1, blue2, blue3)" when ``robots`` are a whole team, else the robots."""
    names = sorted(set(robots))
    for team in ("blue", "red"):
        members = sorted(str(rid) for rid in agents if str(rid).startswith(team))
        if members and names == members:
            return f"the {team} team ({', '.join(names)})"
    return ", ".join(names)

__all__ = ["MatchConfig", "MatchResult", "GoalSummary", "RobotSummary", "Match", "MatchObserver",
           "run_match", "default_tree_path", "start_role", "entry_pose", "statue_pose"]

BLUE_TEAM_NUMBER = 1
RED_TEAM_NUMBER = 2
LOC_ERROR_PERIOD_STEPS = 10  # sample the localization error at 10 Hz
_STAND_UP = RobotCommand(stand_up=True)


@dataclass(frozen=True)
class MatchConfig:
    """Everything a match depends on. Picklable; the defaults are a 3 v 3 match on the M field.

    ``field`` names an HSL field: "S", "M" or "L" (any case; "kid" and "adult" name S and M).
    ``team_size`` None means the field's default (4 on S, 3 on M, 5 on L); at most 7 on S and
    5 on M and L (``Field.max_players_per_team``), else ``ValueError``. ``duration_s`` None plays
    the whole match (two halves); otherwise the match stops after that much simulated time.
    ``blue_tree``/``red_tree`` None use our own ``game.xml``. ``noise`` None is the world's
    default noise, ``camera`` None its default head camera. ``gc_version`` chooses the referee:
    20 (the default) or 19 the
    ``HslReferee`` (HSL packets and laws, ``referee`` converted to an ``HslRefereeConfig``; every
    message of a team's ``TeamLink`` counts against its message budget), 12 the HL v12
    ``Referee``.
    ``knockout`` plays extra time and a penalty shoot-out when the game is level
    (``soccerbt.gamecontroller.hsl_knockout``).
    ``team_message_period_s`` None: 0.1 s under the HL referee; under the HSL referee the
    period that fits the referee's message budget for the team size and the half length
    (``soccerbt.agent.team_message_period_s``: 0.45 s for 3 v 3, 0.75 s for 5 v 5 with the 2026
    budget of 12000 and 600 s halves).
    ``realtime`` is honoured by drivers of the loop (the CLI), never inside it.
    """

    team_size: int | None = None
    field: str = "adult"
    seed: int = 0
    duration_s: float | None = None
    half_s: float = 600.0
    blue_tree: str | None = None
    red_tree: str | None = None
    noise: NoiseConfig | None = None
    realtime: bool = False
    camera: CameraConfig | None = None  # None: the world's default head camera (a served T1 has its own)
    referee: RefereeConfig | None = None  # None: HL defaults with half_s
    idle_teams: tuple[str, ...] = ()  # "blue"/"red": a team of statues (no brain) at kick-off spots
    particles: int = 300  # per robot
    gc_version: int = 20  # the GameController the referee plays: 20 HSL (default), 19, or 12 HL
    team_message_period_s: float | None = None  # None: 0.1 s (HL), fit to the message budget (HSL)
    knockout: bool = False  # level at the end: extra time, then a penalty shoot-out (HSL referee)
    # a team's own nodes (--nodes: a module, MODULE:FUNCTION or a .py file), loaded beside the
    # installed plugins of the entry-point group soccerbt.nodes (soccerbt.trees.plugins)
    node_plugins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        field = Field.by_name(self.field)  # ValueError for an unknown name
        if self.gc_version not in GC_VERSIONS:
            raise ValueError(f"gc_version {self.gc_version!r}: expected one of {', '.join(map(str, GC_VERSIONS))}")
        if self.knockout and self.gc_version == 12:
            raise ValueError("knockout: extra time and the penalty shoot-out need the HSL referee (gc_version 19 "
                             "or 20)")
        if self.team_message_period_s is not None and not self.team_message_period_s > 0.0:
            raise ValueError(f"team_message_period_s {self.team_message_period_s!r}: expected > 0")
        if isinstance(self.node_plugins, (str, bytes)) or not all(isinstance(p, str) for p in self.node_plugins):
            raise ValueError(f"node_plugins {self.node_plugins!r}: expected a sequence of --nodes texts")
        object.__setattr__(self, "node_plugins", tuple(self.node_plugins))  # a list given: still hashable
        if self.team_size is not None and not 1 <= self.team_size <= field.max_players_per_team:
            raise ValueError(f"team size {self.team_size} out of range 1..{field.max_players_per_team} "
                             f"on the {self.field} field")

    def field_geometry(self) -> Field:
        return Field.by_name(self.field)

    def players_per_team(self) -> int:
        return self.team_size if self.team_size is not None else self.field_geometry().players_per_team

    def is_idle(self, team: Team) -> bool:
        return team.name.lower() in self.idle_teams

    def tree_of(self, team: Team) -> Path:
        path = self.blue_tree if team is Team.BLUE else self.red_tree
        return Path(path) if path else default_tree_path()


@dataclass(frozen=True)
class GoalSummary:
    t_s: float
    team: str  # who scored: "blue" or "red"
    scorer: str | None  # the robot that touched the ball last, e.g. "blue2"
    own_goal: bool
    first_half: bool


@dataclass(frozen=True)
class RobotSummary:
    robot: str
    team: str
    number: int
    tree: str
    distance_walked_m: float
    falls: int
    kicks: int
    penalties: int
    loc_error_median_m: float | None
    loc_error_mean_m: float | None
    node_exceptions: int
    node_exception_paths: tuple[str, ...] = ()
    # ``kicks`` counts both: kick motions that met the ball and walk-ins that sent it off at
    # soccerbt.world.ball_motion.WALK_IN_KICK_SPEED_MPS or more (Booster's Kick node kicks so)
    kick_motions: int = 0
    walk_in_kicks: int = 0
    stand_ups: int = 0  # got up after a fall


@dataclass(frozen=True)
class MatchResult:
    """The summary of one match (picklable, JSON-ready through ``to_dict``)."""

    seed: int
    sim_s: float
    score: dict[str, int]
    goals: tuple[GoalSummary, ...]
    robots: tuple[RobotSummary, ...]
    errors: tuple[str, ...]
    trees: dict[str, str]
    finished: bool
    # a knock-out game's penalty shoot-out: each team's shots in order, "goal" or "miss"; the
    # score includes its goals, as the GameController counts them. None: no shoot-out.
    shoot_out: dict[str, list[str]] | None = None
    # simulated seconds in each game state the referee was in ("INITIAL", "READY", "SET",
    # "PLAYING", ...): a short match is mostly set-up, and batches say so. None: not known (a
    # result stored by an earlier soccerbt).
    state_s: dict[str, float] | None = None

    @property
    def playing_s(self) -> float | None:
        """Simulated seconds in PLAYING, or None when the time per state is not known."""
        return None if self.state_s is None else self.state_s.get("PLAYING", 0.0)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def robot(self, name: str) -> RobotSummary:
        for r in self.robots:
            if r.robot == name:
                return r
        raise KeyError(name)


class MatchObserver(Protocol):
    """Watches a match after each step; must not change it."""

    def on_step(self, match: Match) -> None: ...


# --- the default drivers and team plumbing -------------------------------------------------------


def _sim_driver(world: World, robot: RobotId) -> Any:
    """The simulator driver of soccerbt.drivers."""
    return SimDriver(world, robot)


def statue_pose(field: Field, number: int, team_size: int) -> Pose2D:
    """Where a robot of an idle team stands all match, team frame: player 1 on its goal line's
    centre, the others spread across the own half facing the opponent goal (legal at kick-off)."""
    if number == 1:
        return Pose2D(-field.half_length_m + 0.4, 0.0, 0.0)
    k = number - 2
    n = max(1, team_size - 1)
    y = field.half_width_m * ((k + 0.5) / n - 0.5) * 1.2
    return Pose2D(-field.half_length_m / 2.0, y, 0.0)


# --- the match -------------------------------------------------------------------------------------


class Match:
    """One simulated match in lock-step (see the module docstring).

    Exposed for viewers and tests: ``world``, ``referee``, ``agents`` (RobotId -> Agent, in
    stepping order), each agent's ``tree``, ``blackboard`` and ``context``; ``t_s``,
    ``dt_s``, ``field``, ``observers``; ``step()``, ``run(seconds)``, ``finished()``,
    ``result()``.

    ``external=True`` builds the world and the referee but no brains: something outside the
    match commands every robot through ``world.set_command`` before each step (the served
    simulator, whose robots are driven by brain processes); ``last_packet_bytes`` is the newest
    GameController packet the referee sent.
    """

    def __init__(self, config: MatchConfig | None = None, *,
                 observers: Iterable[MatchObserver] = (),
                 pads: Any = None, pad_robots: Iterable[RobotId] | None = None, estop: Any = None,
                 driver_factory: Callable[[World, RobotId], Any] | None = None,
                 tree_factory: Any = None, external: bool = False) -> None:
        self.config = config = config or MatchConfig()
        self.field = config.field_geometry()
        self.team_size = config.players_per_team()
        world_cfg = WorldConfig(field=self.field)
        if config.noise is not None:
            world_cfg = dataclasses.replace(world_cfg, noise=config.noise)
        if config.camera is not None:
            world_cfg = dataclasses.replace(world_cfg, camera=config.camera)
        self.world = World(world_cfg, seed=config.seed)
        self.dt_s = self.world.dt_s
        self.observers: list[MatchObserver] = list(observers)
        # called as hook(match) at the start of every step, before the world moves (the served
        # simulator hands its robots the brains' requests here)
        self.pre_step: list[Callable[[Match], None]] = []
        self.refereed = True  # False: the referee stands still and sends nothing (robots only)
        self.errors: list[str] = []
        self.agent_events: list[AgentEvent] = []
        self._reload_failures_reported: set[str] = set()
        self._reloads: dict[tuple[str, str], list[str]] = {}  # this step's (kind, message) -> robots
        self._reported_failures: set[str] = set()
        ref_cfg = config.referee or RefereeConfig(blue_team_number=BLUE_TEAM_NUMBER,
                                                  red_team_number=RED_TEAM_NUMBER,
                                                  players_per_team=self.team_size,
                                                  half_duration_s=config.half_s)
        for team in (Team.BLUE, Team.RED):
            for number in range(1, self.team_size + 1):
                rid = RobotId(team, number)
                attack = ref_cfg.blue_attacks_positive_x_first_half == (team is Team.BLUE)
                pose = (statue_pose if config.is_idle(team) else entry_pose)(self.field, number, self.team_size)
                self.world.add_robot(rid, from_team_frame(pose, attack))
        self.referee = make_referee(self.world, ref_cfg, config.gc_version, knockout=config.knockout)
        self.team_message_period_s = self._team_message_period_s()
        self.pads = pads  # a PadManager (or anything with update(robot, now_s, bb))
        self.pad_robots = set(pad_robots) if pad_robots is not None else None
        self.estop = estop
        make_driver = driver_factory or _sim_driver
        self.factory = tree_factory if tree_factory is not None else build_tree_factory(config.node_plugins)
        self.team_links = {team: TeamLink(np.random.default_rng([config.seed, 7, team.value]))
                           for team in (Team.BLUE, Team.RED)}
        # the HSL referee counts every team message against the team's budget
        self._count_team_messages = getattr(self.referee, "count_team_messages", None)
        self._link_sent = {team: 0 for team in self.team_links}
        self.agents: dict[RobotId, Agent] = {}
        # external: every robot is driven from outside the match (the served simulator's brains
        # command them through the world); no agents, no statues
        self.external = external
        for rid in sorted(self.world.robots):
            if not config.is_idle(rid.team) and not external:
                self.agents[rid] = self._build_agent(rid, make_driver(self.world, rid))
        self._loc_errors: dict[RobotId, list[float]] = {rid: [] for rid in self.agents}
        self.statues = [] if external else [rid for rid in sorted(self.world.robots) if rid not in self.agents]
        self._packet_schedule = PacketSchedule()
        self._packet: Any = None
        self.last_packet_bytes: bytes | None = None  # the newest packet sent, as the referee encoded it
        self.steps = 0

    # --- construction -----------------------------------------------------------------------------

    def _team_message_period_s(self) -> float:
        """The period of every robot's team messages (and role negotiation): the config's, or
        10 Hz under the HL referee, or the period that fits the HSL referee's message budget."""
        if self.config.team_message_period_s is not None:
            return float(self.config.team_message_period_s)
        budget = getattr(self.referee.config, "message_budget", None)
        if budget is None:  # HL v12: no budget
            return DEFAULT_TEAM_MESSAGE_PERIOD_S
        cfg = self.referee.config
        if getattr(cfg, "knockout", False):  # the budget must last through extra time too
            clock_s = 2.0 * cfg.half_duration_s + 2.0 * cfg.extra_half_s
            return team_message_period_s(budget + cfg.extra_time_messages(), self.team_size, clock_s, halves=1)
        return team_message_period_s(budget, self.team_size, cfg.half_duration_s)

    def _build_agent(self, rid: RobotId, driver: Any) -> Agent:
        wants_pad = self.pads is not None and (self.pad_robots is None or rid in self.pad_robots)
        spec = BrainSpec(robot=rid, field=self.field, team_size=self.team_size,
                         tree_path=self.config.tree_of(rid.team), team_number=self.referee.team_number(rid.team),
                         team_message_period_s=self.team_message_period_s, seed=self.config.seed,
                         particles=self.config.particles)
        return build_agent(spec, driver, clock=lambda: self.world.t_s, team_link=self.team_links[rid.team],
                           factory=self.factory, pad=_RobotPad(self.pads, rid) if wants_pad else None,
                           estop=self.estop, on_event=self._on_agent_event)

    def _on_agent_event(self, event: AgentEvent) -> None:
        self.agent_events.append(event)
        if event.kind in ("tree_reloaded", "tree_reload_failed"):
            # the robots that share a file reload it in one step: said once, naming them all
            self._reloads.setdefault((event.kind, event.message), []).append(event.robot)
        if event.kind == "tree_reload_failed":
            # every robot of a team runs the same file: one report per distinct failure
            if event.message in self._reload_failures_reported:
                return
            self._reload_failures_reported.add(event.message)
        if event.kind != "tree_reloaded":
            self.errors.append(str(event))

    def _report_reloads(self) -> None:
        """One line on stderr per file reloaded (or failing to) in this step, naming its robots
        (a whole team by its name)."""
        for (kind, message), robots in self._reloads.items():
            names = _robots_text(robots, self.agents)
            if kind == "tree_reloaded":
                _match_log.warning("tree reloaded for %s: %s", names, message)
            elif message not in self._reported_failures:
                self._reported_failures.add(message)
                _match_log.error("tree reload failed for %s (the running tree stays): %s", names, message)
        self._reloads.clear()

    # --- stepping ---------------------------------------------------------------------------------

    @property
    def t_s(self) -> float:
        return self.world.t_s

    def step(self) -> None:
        """Advance the match by one world step (10 ms): world, referee, packets, agents, observers."""
        for hook in self.pre_step:
            hook(self)
        world = self.world
        world.step()
        t = world.t_s
        if self.refereed:
            self.referee.step(t, world.events.drain())
            packet = self._newest_packet()
        else:
            world.events.drain()
            packet = None
        for agent in self.agents.values():
            if packet is not None:
                agent.receive_packet(packet)
            agent.step(t)
        if self._reloads:
            self._report_reloads()
        if self._count_team_messages is not None:
            for team, link in self.team_links.items():
                if link.sent != self._link_sent[team]:
                    self._count_team_messages(team, link.sent - self._link_sent[team])
                    self._link_sent[team] = link.sent
        for rid in self.statues:  # a statue only stands back up after a fall
            if self.world.robots[rid].fallen:
                self.world.set_command(rid, _STAND_UP)
        self.steps += 1
        if self.steps % LOC_ERROR_PERIOD_STEPS == 0:
            self._sample_localization()
        for observer in self.observers:
            observer.on_step(self)

    def _newest_packet(self) -> Any:
        """A packet when the schedule says one is due (``PacketSchedule``), as decoded bytes
        (v12, or HSL v19/v20) shared by every robot."""
        data = self._packet_schedule.due(self.referee, self.world.t_s,
                                         self.world.robots if self.external else self.agents)
        if data is None:
            return None
        self.last_packet_bytes = data
        self._packet = decode(data)
        return self._packet

    @property
    def packets_sent(self) -> int:
        return self._packet_schedule.sent

    def _sample_localization(self) -> None:
        ref = self.referee
        for rid, agent in self.agents.items():
            truth = self.world.robots[rid]
            if truth.removed or ref.is_penalized(rid):
                continue
            true_team = to_team_frame(truth.pose, ref.attacks_positive_x(rid.team))
            est = agent.pose_estimate()
            self._loc_errors[rid].append(math.hypot(est.x_m - true_team.x_m, est.y_m - true_team.y_m))

    def run(self, seconds: float) -> None:
        """Step for ``seconds`` of simulated time, or until the match is over."""
        for _ in range(int(round(seconds / self.dt_s))):
            if self.finished():
                break
            self.step()

    def finished(self) -> bool:
        """The referee ended the game, or ``duration_s`` is reached."""
        d = self.config.duration_s
        return self.referee.finished or (d is not None and self.world.t_s >= d - 1e-9)

    # --- viewer helpers -----------------------------------------------------------------------------

    def place_ball(self, x_m: float, y_m: float) -> None:
        """Put the ball somewhere (the viewer's drag and drop)."""
        self.world.place_ball(x_m, y_m)

    def agent(self, name: str) -> Agent:
        """An agent by its key, e.g. "blue2"."""
        for rid, agent in self.agents.items():
            if str(rid) == name:
                return agent
        raise KeyError(f"no robot {name!r} (robots: {', '.join(str(r) for r in self.agents)})")

    # --- the summary ------------------------------------------------------------------------------

    def result(self) -> MatchResult:
        ref = self.referee
        penalties: dict[RobotId, int] = {}
        for rec in ref.history:
            if rec.kind == "penalty" and rec.robot is not None:
                penalties[rec.robot] = penalties.get(rec.robot, 0) + 1
        robots = []
        for rid in sorted(self.world.robots):
            truth = self.world.robots[rid]
            agent = self.agents.get(rid)
            errs = self._loc_errors.get(rid, [])
            robots.append(RobotSummary(
                robot=str(rid), team=rid.team.name.lower(), number=rid.number,
                tree=str(agent.tree_path) if agent is not None else "idle",
                distance_walked_m=round(truth.distance_walked_m, 3), falls=truth.falls,
                kicks=truth.kicks + truth.walk_in_kicks, penalties=penalties.get(rid, 0),
                loc_error_median_m=round(statistics.median(errs), 3) if errs else None,
                loc_error_mean_m=round(statistics.fmean(errs), 3) if errs else None,
                node_exceptions=agent.node_exception_count if agent is not None else 0,
                node_exception_paths=tuple(sorted(agent.node_exceptions)) if agent is not None else (),
                kick_motions=truth.kicks, walk_in_kicks=truth.walk_in_kicks, stand_ups=truth.stand_ups))
        goals = tuple(GoalSummary(round(g.t_s, 2), g.team.name.lower(),
                                  str(g.last_touch) if g.last_touch is not None else None,
                                  g.own_goal, g.first_half) for g in ref.goals)
        return MatchResult(
            seed=self.config.seed, sim_s=round(self.world.t_s, 2),
            score={"blue": ref.scores[Team.BLUE], "red": ref.scores[Team.RED]},
            goals=goals, robots=tuple(robots), errors=tuple(self.errors),
            trees={t.name.lower(): "idle" if self.config.is_idle(t) else str(self.config.tree_of(t))
                   for t in (Team.BLUE, Team.RED)},
            finished=ref.finished, shoot_out=_shoot_out_summary(ref),
            state_s=_state_seconds(ref.history, self.world.t_s))


def _state_seconds(history: Iterable[Any], end_s: float) -> dict[str, float]:
    """Seconds spent in each game state, from the referee's "state" records (each opens a state
    that lasts until the next one, the last until `end_s`); states in the order first entered."""
    out: dict[str, float] = {}
    current: str | None = None
    since_s = 0.0
    for rec in history:
        if rec.kind != "state":
            continue
        if current is not None:
            out[current] = out.get(current, 0.0) + rec.t_s - since_s
        current, since_s = rec.detail, rec.t_s
        out.setdefault(current, 0.0)
    if current is not None:
        out[current] = out.get(current, 0.0) + max(0.0, end_s - since_s)
    return {state: round(seconds, 2) for state, seconds in out.items()}


def _shoot_out_summary(referee: Any) -> dict[str, list[str]] | None:
    shots = [r for r in referee.history if r.kind == "shot_end"]
    if not shots:
        return None
    return {team.name.lower(): [r.detail.split(" ", 1)[0] for r in shots if r.team is team]
            for team in (Team.BLUE, Team.RED)}


class _RobotPad:
    """One robot's view of a ``PadManager``: ``update(now_s, bb)`` as the agent calls it."""

    __slots__ = ("manager", "robot")

    def __init__(self, manager: Any, robot: RobotId) -> None:
        self.manager = manager
        self.robot = robot

    def update(self, now_s: float, blackboard: Any) -> Any:
        return self.manager.update(self.robot, now_s, blackboard)


def run_match(config: MatchConfig) -> MatchResult:
    """Play a match headless and summarise it. Deterministic in ``config`` (seeded).

    A crash inside the loop (a bug in the simulator, the referee or an adapter: node exceptions
    never get here) ends the match early; the summary then lists it in ``errors``.
    """
    match = Match(config)
    try:
        while not match.finished():
            match.step()
    except Exception as exc:  # keep the partial result: batch runs must not lose the others
        match.errors.append(f"t={match.t_s:.2f}s crash: {type(exc).__name__}: {exc}\n"
                            + "".join(traceback.format_tb(exc.__traceback__)[-3:]))
    return match.result()

