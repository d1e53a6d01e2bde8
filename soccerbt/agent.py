"""The robot brain: one ``Agent`` per robot, one ``step(t_s)`` per 10 ms of simulated time.

``Agent.step`` reads top to bottom as the design's cycle: sense (the driver), adapters (the
GameController adapter with the newest packet, localization and the world model, team messages
in, the gamepad), one ``tick_exactly_once()`` of the behaviour tree, act (the tree's command,
overridden by the pad's manual command and the emergency stop, goes to the driver), team
messages out.

Robustness, as the design asks:

- An exception raised by a node during a tick fails the tick: the robot stops (zero velocity,
  no kick), the tree is halted so that every RUNNING node gets its ``on_halted``, the error is
  logged once per node path (counted every time) and the next step ticks the tree again from
  the start. The match goes on.
- Hot reload: ``reload_tree_if_changed()`` (every ``reload_period_s`` of simulated time, or on
  demand) compares the modification times of the tree file and of every file it includes; when
  they changed it loads the new tree first and swaps it in at the tick boundary (the old tree is
  halted, the root blackboard entries are carried over); when loading fails it keeps the running
  tree and reports the located error (``path:line: message``) once per change.

Nothing here reads the wall clock: ``t_s`` is the simulated time handed in by the match.
"""
from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from soccerbt.blackboard.schema import default_blackboard_values
from soccerbt.gamecontroller.adapter import PenaltyEnded, PenaltyStarted
from soccerbt.gamecontroller.hsl_knockout import shoot_out_pose
from soccerbt.services.planning import Role, RoleChoice, TeamMessage, cost_to_ball
from soccerbt.services.world_model import TeammateInfo
from soccerbt.trees.includes import tree_files as resolve_tree_files
from soccerbt.world.types import Observations, Pose2D, RobotCommand, RobotId, wrap_angle_rad

__all__ = ["Agent", "AgentEvent", "ReloadResult", "TeamAdapter", "TreeLike", "tree_files", "node_path_of",
           "DEFAULT_TEAM_MESSAGE_PERIOD_S", "team_message_period_s"]

_log = logging.getLogger("soccerbt.agent")



class TreeLike(Protocol):
    """What the agent needs of a loaded tree (``soccerbt.trees`` provides it)."""

    def tick_exactly_once(self) -> Any: ...
    def halt_tree(self) -> None: ...
    def root_blackboard(self) -> MutableMapping[str, object]: ...


@dataclass(frozen=True, slots=True)
class AgentEvent:
    """Something the match reports: a node exception, a reload, a reload that failed.

    ``kind`` is "node_exception", "tree_reloaded" or "tree_reload_failed"; ``node_path`` is
    set for node exceptions.
    """

    t_s: float
    robot: str
    kind: str
    message: str
    node_path: str = ""

    def __str__(self) -> str:
        return f"t={self.t_s:.2f}s {self.robot}: {self.kind}: {self.message}"


@dataclass(frozen=True, slots=True)
class ReloadResult:
    """What ``reload_tree_if_changed`` did: swapped in a new tree, or kept the old one (error)."""

    reloaded: bool
    error: str | None = None


def tree_files(path: str | os.PathLike[str]) -> list[Path]:
    """The tree file and every file it includes, recursively (each once, in discovery order).

    The XML engine resolves the includes (``soccerbt.trees.includes.tree_files``): the same
    parser and folder rule as the loader, so an ``<include>`` inside an attribute value, a
    comment or CDATA is no include, a target outside the tree's folder is neither read nor
    listed, a FIFO or device is never opened and no file is read beyond the size limit. A
    missing file (or one over the limit) is listed but not followed, so that its reappearance
    counts as a change.
    """
    return resolve_tree_files(path)


def _stamp(files: list[Path]) -> tuple[tuple[str, int, int], ...]:
    """(path, mtime_ns, size) of each file; -1 for a missing one."""
    out = []
    for f in files:
        try:
            st = f.stat()
            out.append((str(f), st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((str(f), -1, -1))
    return tuple(out)


def node_path_of(exc: BaseException) -> str:
    """The path of the node that raised, as the tree engine reports it (else the exception type)."""
    for name in ("node_path", "path"):
        value = getattr(exc, name, None)
        if value:
            return "/".join(value) if isinstance(value, (list, tuple)) else str(value)
    return type(exc).__name__


@dataclass(frozen=True, slots=True)
class _Belief:
    """The pose the world model reads (``pose_field``, ``confidence``), and the odometry it
    belongs to."""

    pose_field: Pose2D
    confidence: float
    odometry: Pose2D


def _odometry_delta(prev: Pose2D, now: Pose2D) -> Pose2D:
    """The motion from ``prev`` to ``now`` expressed in ``prev``'s frame (what odometry moved)."""
    dx, dy = prev.inverse_transform_point(now.x_m, now.y_m)
    return Pose2D(dx, dy, wrap_angle_rad(now.theta_rad - prev.theta_rad))


class Agent:
    """One robot's brain (see the module docstring).

    Parts: ``driver`` (``sense()``, ``act(command)``), ``context`` (the ``RobotContext`` the
    nodes see; its ``world_model`` and ``localizer`` are updated here), ``load_tree(path)`` (builds
    a tree bound to the context; raises ``TreeLoadError`` on bad input), and the optional
    adapters: ``gc_adapter`` (``apply(packet, now_s, bb) -> events``), ``team``
    (``receive(now_s, agent)`` and ``send(now_s, agent)``), ``pad`` (``update(now_s, bb) ->
    ManualCommand | None``) and ``estop`` (``apply(command) -> command``).
    """

    def __init__(self, robot: RobotId, driver: Any, context: Any, tree_path: str | os.PathLike[str],
                 load_tree: Callable[[Path], TreeLike], *, gc_adapter: Any = None, team: Any = None,
                 pad: Any = None, estop: Any = None, reload_period_s: float = 1.0,
                 estimate_period_s: float = 0.1,
                 on_event: Callable[[AgentEvent], None] | None = None) -> None:
        self.robot = robot
        self.name = str(robot)
        self.driver = driver
        self.context = context
        self.tree_path = Path(tree_path)
        self._load_tree = load_tree
        self.gc_adapter = gc_adapter
        self.team = team
        self.pad = pad
        self.estop = estop
        self.reload_period_s = reload_period_s
        self.estimate_period_s = estimate_period_s
        self.on_event = on_event
        # called as listener(agent, old_tree, new_tree) when a hot reload swaps the tree in,
        # before the new tree's first tick (the recorder watches the new tree from there)
        self.tree_listeners: list[Callable[[Agent, TreeLike, TreeLike], None]] = []
        self.spec: Any = None  # the BrainSpec it was built from (brain_setup sets it)
        self.now_s = 0.0
        self.ticks = 0
        self.last_status: Any = None
        self.last_command = RobotCommand()
        self.observations: Observations | None = None
        self.gc_events: list[Any] = []
        self.events: list[AgentEvent] = []
        self.node_exceptions: dict[str, int] = {}  # node path -> how many ticks it raised
        self.tree_failed = False  # the last tick raised
        self._manual_control_state: object = None  # control_state seen at the last step
        self._packet: Any = None
        self._odom_at_predict: Pose2D | None = None  # odometry when the localizer last moved
        self._belief: _Belief | None = None  # the localizer's output when last read
        self._next_estimate_s = -math.inf  # when the localizer's estimate is read next
        self._files = tree_files(self.tree_path)
        self._watched = self._files  # the files whose modification times are checked
        self._loaded_stamp = _stamp(self._files)
        self._failed_stamp: tuple | None = None
        self._next_reload_check_s = reload_period_s
        self.tree: TreeLike = self._load()  # a bad tree at start-up is the caller's error
        bb = self.tree.root_blackboard()
        for key, value in default_blackboard_values().items():
            if key not in bb:
                bb[key] = value
        self.context.blackboard = bb

    # --- the cycle ------------------------------------------------------------------------

    @property
    def blackboard(self) -> MutableMapping[str, object]:
        """The running tree's root blackboard."""
        return self.tree.root_blackboard()

    def receive_packet(self, packet: Any) -> None:
        """Hand over a GameController packet (decoded); the next step applies the newest."""
        self._packet = packet

    def step(self, t_s: float) -> RobotCommand:
        """One cycle at simulated time ``t_s``: sense, adapters, one tick, act. The command sent."""
        self.now_s = t_s
        if t_s >= self._next_reload_check_s:
            self.reload_tree_if_changed()
        observations = self.driver.sense()
        bb = self.blackboard
        self.gc_events = self.gc_adapter.apply(self._packet, t_s, bb) if self.gc_adapter else []
        belief = self._localize(observations, self.gc_events)
        self.context.world_model.update(observations, belief, t_s)
        if self.team is not None:
            self.team.receive(t_s, self)
        self.context.world_model.write_blackboard(bb)
        manual = self.pad.update(t_s, bb) if self.pad is not None else None
        self._hold_safely(manual, bb)
        command = self._tick()
        if manual is not None:
            command = manual.apply_to(command)
        if self.estop is not None:
            command = self.estop.apply(command)
        self.driver.act(command)
        if self.team is not None:
            self.team.send(t_s, self)
        self.observations, self.last_command = observations, command
        return command

    # --- the parts of a cycle ----------------------------------------------------------------

    def _hold_safely(self, manual: Any, bb: MutableMapping[str, object]) -> None:
        """Forget the walking velocity the tree left held when a person takes over or the
        control mode changes: the manual branch of a tree commands no velocity, so a held auto
        velocity would keep the robot walking after the stick is released."""
        control_state = bb.get("control_state")
        if manual is not None or control_state != self._manual_control_state:
            self.context.stop()
        self._manual_control_state = control_state

    def _localize(self, obs: Observations, gc_events: list[Any]) -> Any:
        """The localizer runs at the camera's rate: on a camera frame the odometry since the
        previous frame moves the particles, then the frame's features weigh them. The
        estimate is read every ``estimate_period_s`` on a camera frame and carried forward by
        the odometry in between. A penalty (picked up, put back at the touch line) resets the
        belief to the touch-line entry. Returns what the world model reads."""
        localizer = self.context.localizer
        if localizer is None:
            return None
        if self._odom_at_predict is None:
            self._odom_at_predict = obs.odometry
        if any(isinstance(e, (PenaltyStarted, PenaltyEnded)) for e in gc_events):
            reset = getattr(localizer, "reset_touch_line_entry", None)
            shot = self.blackboard.get("gc_game_phase") == "PENALTYSHOOT" and hasattr(localizer, "reset_to") \
                and any(isinstance(e, PenaltyEnded) for e in gc_events)
            if shot:
                # put on the field for a shot: the taker behind the opponent's penalty mark,
                # the keeper on its own goal line (where the rules place them); known, so the
                # own-half prior of robots entering the field must not flip it
                reset = partial(localizer.reset_to, shoot_out_pose(self.context.field,
                                                                   bool(self.blackboard.get("gc_is_kickoff_side"))),
                                (0.3, 0.3, 0.15))
            if reset is not None:
                reset()
            if shot:
                self.blackboard["odom_calibrated"] = True
            self._odom_at_predict = obs.odometry
            self._belief = None
        if obs.camera_frame:
            if obs.odometry != self._odom_at_predict:
                localizer.predict(_odometry_delta(self._odom_at_predict, obs.odometry))
                self._odom_at_predict = obs.odometry
            if obs.detections and not obs.fallen:
                localizer.update(obs.detections)
        if self._belief is None or (obs.camera_frame and self.now_s >= self._next_estimate_s):
            # the estimate (a cluster mean and covariance) costs about as much as weighing a
            # frame: read at estimate_period_s, it belongs to the odometry of the last predict
            self._next_estimate_s = self.now_s + self.estimate_period_s - 1e-9
            self._belief = _Belief(localizer.estimate(), float(localizer.confidence()), self._odom_at_predict)
        b = self._belief
        if b.odometry == obs.odometry:
            return b
        moved = _odometry_delta(b.odometry, obs.odometry)
        return _Belief(b.pose_field.compose(moved), b.confidence, b.odometry)

    def _tick(self) -> RobotCommand:
        """One ``tick_exactly_once()``; the command the nodes built, or a stop when a node raised."""
        self.context.begin_tick()
        self.ticks += 1
        try:
            self.last_status = self.tree.tick_exactly_once()
        except Exception as exc:  # a node's bug must not stop the match: stop this robot instead
            self._node_failed(exc)
            return self.context.command_snapshot()
        self.tree_failed = False
        return self.context.command_snapshot()

    def _node_failed(self, exc: Exception) -> None:
        path = node_path_of(exc)
        self.tree_failed = True
        self.last_status = None
        count = self.node_exceptions.get(path, 0) + 1
        self.node_exceptions[path] = count
        try:
            self.tree.halt_tree()
        except Exception as halt_exc:  # a second faulty node in on_halted: still stop
            halt_path = node_path_of(halt_exc)
            if halt_path not in self.node_exceptions:
                original = getattr(halt_exc, "original", None) or halt_exc
                self._emit("node_exception", f"{type(original).__name__} in {halt_path} (halted): {original}",
                           halt_path)
            self.node_exceptions.setdefault(halt_path, 1)
        self.context.stop()
        self.context.begin_tick()  # no kick, no stand-up from the failed tick
        if count == 1:
            original = getattr(exc, "original", None) or exc  # the engine wraps the node's error
            message = f"{type(original).__name__} in {path}: {original}"
            self._emit("node_exception", message, path)

    # --- hot reload ----------------------------------------------------------------------------

    def reload_tree_if_changed(self, force: bool = False) -> ReloadResult | None:
        """Swap in the tree file's new version when it (or an include) changed since the load.

        Returns None when nothing changed (or the same broken version was already reported),
        ``ReloadResult(True)`` after a swap, ``ReloadResult(False, "path:line: message")`` when
        the new version does not load (the running tree stays). ``force`` reloads regardless.
        """
        self._next_reload_check_s = self.now_s + self.reload_period_s
        if not force and _stamp(self._watched) in (self._loaded_stamp, self._failed_stamp):
            return None  # the cheap check: only stat the files we know of
        files = tree_files(self.tree_path)  # a change may add or drop includes: scan again
        self._watched = files
        stamp = _stamp(files)
        if not force and stamp in (self._loaded_stamp, self._failed_stamp):
            return None
        try:
            new_tree = self._load()
        except Exception as exc:  # TreeLoadError mostly; any failure keeps the running tree
            self._failed_stamp = stamp
            message = str(exc) or type(exc).__name__
            self._emit("tree_reload_failed", message)
            return ReloadResult(False, message)
        self._swap(new_tree)
        self._files, self._loaded_stamp, self._failed_stamp = files, stamp, None
        self._emit("tree_reloaded", f"{self.tree_path} ({len(files)} file(s))")
        return ReloadResult(True)

    def _load(self) -> TreeLike:
        """Load the tree file; its timers (Sleep, Delay, Timeout) run on simulated time."""
        tree = self._load_tree(self.tree_path)
        set_clock = getattr(tree, "set_clock", None)
        if set_clock is not None:
            set_clock(self._sim_clock)
        return tree

    def _sim_clock(self) -> float:
        return self.now_s

    def _swap(self, new_tree: TreeLike) -> None:
        """Halt the old tree, carry the root entries over, run the new one from the next tick."""
        old_bb = self.tree.root_blackboard()
        try:
            self.tree.halt_tree()
        except Exception as exc:
            self.node_exceptions[node_path_of(exc)] = self.node_exceptions.get(node_path_of(exc), 0) + 1
        new_bb = new_tree.root_blackboard()
        for key, value in list(old_bb.items()):
            new_bb[key] = value
        old_tree, self.tree = self.tree, new_tree
        self.context.blackboard = new_bb
        self.context.stop()
        for listener in self.tree_listeners:
            listener(self, old_tree, new_tree)

    @property
    def tree_file_list(self) -> list[Path]:
        """The files of the running tree (the tree file first, then its includes)."""
        return list(self._files)

    # --- reporting -----------------------------------------------------------------------------

    def _emit(self, kind: str, message: str, node_path: str = "") -> None:
        event = AgentEvent(self.now_s, self.name, kind, message, node_path)
        self.events.append(event)
        level = logging.INFO if kind == "tree_reloaded" else logging.ERROR
        if kind == "tree_reload_failed" and self.on_event is not None:
            level = logging.DEBUG  # robots share tree files: the owner reports the failure once
        _log.log(level, "%s", event)
        if self.on_event is not None:
            self.on_event(event)

    @property
    def node_exception_count(self) -> int:
        """Ticks that raised, over every node path."""
        return sum(self.node_exceptions.values())

    def pose_estimate(self) -> Pose2D:
        """The robot's believed pose, team frame."""
        return self.context.world_model.robot_pose_field

    def __repr__(self) -> str:
        return f"Agent({self.name}, tree={self.tree_path.name}, t={self.now_s:.2f}s)"



DEFAULT_TEAM_MESSAGE_PERIOD_S = 0.1  # 10 Hz: HL v12 has no message budget
MAX_TEAM_MESSAGE_PERIOD_S = 2.0
MESSAGE_BUDGET_MARGIN = 1.5  # counted time (READY, SET, stopped play, ...) over the game clock's


def team_message_period_s(budget: int, team_size: int, half_s: float, *, halves: int = 2,
                          margin: float = MESSAGE_BUDGET_MARGIN,
                          min_period_s: float = DEFAULT_TEAM_MESSAGE_PERIOD_S,
                          max_period_s: float = MAX_TEAM_MESSAGE_PERIOD_S) -> float:
    """The team-message period that keeps a team of ``team_size`` robots within ``budget``
    messages for a game of ``halves`` halves of ``half_s`` seconds of game clock.

    The HSL GameController counts messages in READY, SET and PLAYING (stopped play included),
    which lasts longer than the game clock: ``margin`` (1.5) stretches the game clock to cover
    it. Rounded up to 50 ms and kept within ``min_period_s`` (the 10 Hz of the HL v12 matches)
    and ``max_period_s`` (2 s: slower, the role negotiation would lag the game; a budget too
    small for it is overrun). With the 2026 budget of 12000 and 600 s halves: 0.45 s for
    3 v 3, 0.75 s for 5 v 5."""
    if budget <= 0:
        return max_period_s
    period = max(1, team_size) * halves * half_s * margin / budget
    period = math.ceil(period / 0.05 - 1e-9) * 0.05
    return round(min(max_period_s, max(min_period_s, period)), 3)


class TeamAdapter:
    """Team communication of one robot: messages out at ``period_s``, teammates in, roles.

    ``receive`` takes the messages that arrived on the ``TeamLink``, hands the teammates to the
    world model and negotiates roles with ``RoleAssigner`` (every robot runs the same rule on
    the same messages), writing ``player_role`` and ``is_lead``. ``send`` broadcasts the
    robot's pose, ball, cost to the ball and role. With ``supporter_role`` set (e.g.
    "striker" for Booster's trees, which know no supporter) supporters get that role name and
    ``is_lead`` false, which makes them assist. Defenders (teams of four or more) are called
    ``defender_role`` in the tree and in the teammates the world model lists; None (the
    default) calls them supporters, for trees that know no defender.

    ``period_s`` is both the send period and the period of the role negotiation (0.1 s; the HSL
    matches pass a slower one that fits the team-message budget, ``team_message_period_s``);
    ``message_timeout_s`` None forgets a teammate after max(2 s, four periods) of silence.

    A person's role choice: when ``player_role`` on the blackboard is no longer the role this
    adapter wrote (the pad's LT+Y / the keyboard's S wrote it, through ``apply_input``), the
    robot swaps roles with a teammate and the swap holds: "goal_keeper" makes this robot the
    goalkeeper (the previous goalkeeper becomes the striker when this robot was the striker, a
    field player otherwise); "striker" makes it the striker (the previous striker goes in goal).
    The choice (``RoleChoice``) travels in the team messages, so every teammate's negotiation
    pins the same two robots, until the person swaps again or a robot of the pair is
    penalised (the penalty's start withdraws the choice: the negotiation decides again, the
    designated goalkeeper back in goal).
    """

    def __init__(self, robot: RobotId, link: Any, assigner: Any, *, period_s: float = DEFAULT_TEAM_MESSAGE_PERIOD_S,
                 supporter_role: str = "supporter", message_timeout_s: float | None = None,
                 defender_role: str | None = None) -> None:
        if not period_s > 0.0:
            raise ValueError(f"team message period {period_s!r}: expected > 0")
        if message_timeout_s is None:  # a teammate is gone after missing about four messages
            message_timeout_s = max(2.0, 4.0 * period_s)
        self.robot = robot
        self.link = link
        self.assigner = assigner
        self.period_s = period_s
        self.supporter_role = supporter_role
        self.defender_role = defender_role
        self.message_timeout_s = message_timeout_s
        self.latest: dict[int, Any] = {}  # player number -> newest TeamMessage
        self.role: Any = None
        self.choice: RoleChoice | None = None  # the newest person's role choice known here
        self._role_written: str | None = None  # player_role as this adapter last wrote it
        self._was_penalised = False
        self._next_send_s = 0.0
        self._next_roles_s = 0.0
        link.register(robot)

    def receive(self, now_s: float, agent: Agent) -> None:
        for msg in self.link.receive(self.robot, now_s):
            old = self.latest.get(msg.number)
            if old is None or msg.timestamp_s >= old.timestamp_s:
                self.latest[msg.number] = msg
        if now_s + 1e-9 < self._next_roles_s:
            return  # roles and teammates change at the message rate, not at every tick
        self._next_roles_s = now_s + self.period_s
        limit = now_s - self.message_timeout_s
        fresh = [m for m in self.latest.values() if m.timestamp_s >= limit]
        wm = agent.context.world_model
        if fresh:
            wm.update_teammates([TeammateInfo(
                number=m.number, t_s=m.timestamp_s, pose_field=m.pose, ball_field=m.ball_xy,
                ball_age_s=m.ball_age_s, localized=m.active, penalised=not m.active, role=self._teammate_role(m.role),
                is_lead=m.role is Role.STRIKER, cost_s=m.cost_to_ball_s) for m in fresh], now_s)
        bb = agent.blackboard
        self._follow_role_choice(now_s, bb, fresh)
        own = self._message(now_s, agent)
        if not own.active:
            return  # keep the last role while penalised or fallen
        role = self.assigner.update(own, fresh, now_s)
        self.role = role
        if role is Role.DEFENDER:
            name = self.defender_role if self.defender_role is not None else self.supporter_role
        else:
            name = self.supporter_role if role is Role.SUPPORTER else role.value
        if bb.get("player_role") != name:
            bb["player_role"] = name
        self._role_written = name
        lead = role is Role.STRIKER or (role is not Role.GOALKEEPER and not fresh)
        if bb.get("is_lead") != lead:
            bb["is_lead"] = lead

    def _follow_role_choice(self, now_s: float, bb: Any, fresh: list[Any]) -> None:
        """Adopt the newest role choice of the messages, take a person's choice made on this
        robot, withdraw the choice when this robot of its pair is penalised; hand the live
        choice to the assigner."""
        for m in fresh:
            c = getattr(m, "role_choice", None)
            if c is not None and (self.choice is None or c.t_s > self.choice.t_s):
                self.choice = c
        me = self.robot.number
        written = bb.get("player_role")
        if self._role_written is not None and written != self._role_written:
            choice = self._person_choice(now_s, str(written))
            if choice is not None:
                self.choice = choice
        penalised = bool(bb.get("gc_is_under_penalty", False))
        c = self.choice
        if penalised and not self._was_penalised and c is not None and c.live and me in (c.goalkeeper, c.striker):
            self.choice = RoleChoice(now_s, None, None, live=False)
        self._was_penalised = penalised
        self.assigner.choice = self.choice if self.choice is not None and self.choice.live else None

    def _person_choice(self, now_s: float, role_name: str) -> RoleChoice | None:
        """The choice a person made by writing ``role_name`` into this robot's player_role."""
        me = self.robot.number
        roles = dict(getattr(self.assigner, "roles", {}) or {})
        keeper = next((n for n, r in roles.items() if r is Role.GOALKEEPER and n != me), None)
        striker = next((n for n, r in roles.items() if r is Role.STRIKER and n != me), None)
        if role_name == Role.GOALKEEPER.value:
            return RoleChoice(now_s, me, keeper if self.role is Role.STRIKER else None)
        if role_name == Role.STRIKER.value:
            return RoleChoice(now_s, striker, me)
        return None  # not a role a person chooses: the negotiation overwrites it

    def _teammate_role(self, role: Any) -> str:
        """A teammate's role as this robot's tree knows it (a defender is a supporter to trees
        that know no defender)."""
        if role is Role.DEFENDER:
            return self.defender_role if self.defender_role is not None else Role.SUPPORTER.value
        return role.value

    def send(self, now_s: float, agent: Agent) -> None:
        if now_s + 1e-9 < self._next_send_s:
            return
        self._next_send_s = now_s + self.period_s
        self.link.send(self._message(now_s, agent), now_s)

    def _message(self, now_s: float, agent: Agent) -> Any:
        wm = agent.context.world_model
        bb = agent.blackboard
        pose = wm.robot_pose_field
        ball = wm.ball_field if wm.ball_location_known else None
        age = wm.ball_age_s if ball is not None else math.inf
        state = getattr(agent.context, "state", None)
        kick_dir = getattr(state, "kick_dir_rad", 0.0) if state is not None else 0.0
        active = not bool(bb.get("gc_is_under_penalty", False)) and not wm.fallen
        role = self.role if self.role is not None else Role(agent.context.start_role)
        return TeamMessage(self.robot, pose, ball, age, cost_to_ball(pose, ball, kick_dir, ball_age_s=age)
                           if ball is not None else math.inf, role, now_s, active, self.choice)
