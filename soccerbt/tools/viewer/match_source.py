"""The viewer's window on a running ``soccerbt.match.Match``: scenes, ball placing, click-to-go.

``MatchSceneSource`` turns a match's truth and each agent's beliefs (team frame) into world-
frame ``Scene`` values, lists the selected robot's active tree branch with its statuses, and
diffs its blackboard between frames. Click-to-go walks a robot to a point through the
navigation service, overriding its tree until it arrives or another click comes. A hot reload
that failed leaves its robots on the last good tree: ``stale_trees()`` lists them (file and
whole error) until a good version loads, and every scene carries the list (the viewer's
persistent mark; the toast fades).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from soccerbt.gamecontroller.hsl_protocol import HslControlData, penalty_enum
from soccerbt.gamecontroller.protocol import Penalty
from soccerbt.match import Match, MatchConfig
from soccerbt.nodes.soccer.skills import nav_obstacles
from soccerbt.services.navigation import Navigator
from soccerbt.tools.viewer.scene import (
    Banner,
    Notice,
    Scene,
    SceneRobot,
    StaleTree,
    TreeLine,
    control_of,
    gc_words,
)
from soccerbt.world.types import Pose2D, RobotCommand, Team, from_team_frame

MAX_TREE_LINES = 60
ARRIVE_TOLERANCE_M = 0.15


@dataclass
class _GoTo:
    """A click-to-go order: the target in the robot's team frame."""

    target: Pose2D
    navigator: Any  # its own, so that the tree's plans do not fight the click's


def _to_world_xy(xy: tuple[float, float], attacks_positive_x: bool) -> tuple[float, float]:
    return (xy[0], xy[1]) if attacks_positive_x else (-xy[0], -xy[1])


def format_value(value: object, limit: int = 40) -> str:
    """A blackboard value as the replay shows it: floats to 3 significant digits, poses and
    float sequences to centimetres/centiradians, at most ``limit`` characters."""
    text = _format(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _format(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is not None else "null"
    if isinstance(value, float | np.floating):
        return f"{float(value):.3g}"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, str):
        return value
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, tuple | list):
        if value and all(isinstance(v, float | int | np.floating) and not isinstance(v, bool) for v in value):
            return "(" + ", ".join(f"{float(v):.2f}" for v in value) + ")"
        return "(" + ", ".join(_format(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_format(v)}" for k, v in value.items()) + "}"
    fields = getattr(value, "__dataclass_fields__", None) or getattr(value, "__slots__", None)
    if fields:  # Pose2D(x_m=..., ...) and the like: the numbers, rounded
        try:
            values = [getattr(value, name) for name in fields]
        except AttributeError:
            values = None
        if values is not None:
            if all(isinstance(v, float | int) and not isinstance(v, bool) for v in values):
                return "(" + ", ".join(f"{float(v):.2f}" for v in values) + ")"
            return type(value).__name__ + "(" + ", ".join(_format(v) for v in values) + ")"
    return str(value)


_short = format_value  # the old name


class MatchSceneSource:
    """Adapts a ``Match`` to the viewer's ``SceneSource`` protocol."""

    def __init__(self, match: Match, *, show_particles: bool = True) -> None:
        self.match = match
        self.field = match.field
        self.dt_s = match.dt_s
        self.show_particles = show_particles
        self._goto: dict[str, _GoTo] = {}
        self._previous_bb: dict[str, dict[str, str]] = {}
        self._changes: dict[str, dict[str, str]] = {}  # per robot: key -> latest value, newest first
        self._events_seen = 0  # of match.agent_events, turned into notices
        self._reported: dict[tuple[str, str], float] = {}  # (kind, message) -> when last noticed
        self._notices: list[Notice] = []
        self._decision_seen: dict[str, tuple[int, int, bool]] = {}  # robot -> (step, sequence, stale)
        self._reload_events_seen = 0  # of match.agent_events, followed for the stale trees
        self._stale: dict[str, tuple[float, str]] = {}  # robot -> (since t_s, error) of its failed reload

    @classmethod
    def default(cls, seed: int = 0, show_particles: bool = True, **config: Any) -> MatchSceneSource:
        """A source on a default 3 v 3 match (for demos and the viewer benchmark)."""
        return cls(Match(MatchConfig(seed=seed, **config)), show_particles=show_particles)

    # --- SceneSource ---------------------------------------------------------------------------

    def step(self) -> None:
        self.match.step()
        self._drive_goto_orders()

    def finished(self) -> bool:
        return self.match.finished()

    def place_ball(self, x_m: float, y_m: float) -> None:
        x_m, y_m = self.field.clamp_to_field(x_m, y_m, margin_m=-self.field.border_strip_m * 0.9)
        self.match.place_ball(x_m, y_m)

    def send_robot_to(self, key: str, x_m: float, y_m: float) -> None:
        """Walk robot ``key`` to a world-frame point (keeping its tree halted until it arrives)."""
        agent = self.match.agent(key)
        attack = self.match.referee.attacks_positive_x(agent.robot.team)
        tx, ty = _to_world_xy((x_m, y_m), attack)  # the mirror is its own inverse
        pose = agent.pose_estimate()
        heading = math.atan2(ty - pose.y_m, tx - pose.x_m)
        self._goto[key] = _GoTo(Pose2D(tx, ty, heading), Navigator(self.field))
        self._notices.append(Notice(f"{key}: click-to-go to ({x_m:+.2f}, {y_m:+.2f})"))

    def _world_target(self, key: str, order: _GoTo) -> tuple[float, float]:
        attack = self.match.referee.attacks_positive_x(self.match.agent(key).robot.team)
        return _to_world_xy((order.target.x_m, order.target.y_m), attack)

    def goto_targets(self) -> dict[str, tuple[float, float]]:
        """The pending click-to-go targets, world frame, by robot key."""
        return {key: self._world_target(key, order) for key, order in self._goto.items()}

    def estop_reason(self) -> str | None:
        """The emergency stop's reason while it is engaged (maybe ""), else None."""
        estop = getattr(self.match, "estop", None)
        if estop is None or not getattr(estop, "engaged", False):
            return None
        return str(getattr(estop, "reason", "") or "")

    def notices(self) -> list[Notice]:
        """What happened since the last call: tree reloads (once per team file, not once per
        robot), failed reloads with their ``path:line`` error (once per distinct error), and
        click-to-go targets reached."""
        events = self.match.agent_events
        fresh, self._events_seen = events[self._events_seen:], len(events)
        for event in fresh:
            if event.kind not in ("tree_reloaded", "tree_reload_failed"):
                continue
            seen = self._reported.get((event.kind, event.message))
            if event.kind == "tree_reload_failed":
                if seen is not None:
                    continue  # the same broken file, reported by another robot (or again)
                self._notices.append(Notice(f"tree reload failed: {event.message}", "error", echo=False))
            else:
                if seen is not None and event.t_s - seen < 3.0:
                    continue  # the other robots running the same file
                self._reported = {k: v for k, v in self._reported.items() if k[0] != "tree_reload_failed"}
                self._notices.append(Notice(f"tree reloaded: {event.message}", "ok"))
            self._reported[(event.kind, event.message)] = event.t_s
        out, self._notices = self._notices, []
        return out

    def stale_trees(self) -> list[StaleTree]:
        """The robots whose tree file did not reload (the last good tree runs), grouped by file
        and error, until a good version loads."""
        events = self.match.agent_events
        for event in events[self._reload_events_seen:]:
            if event.kind == "tree_reload_failed":
                self._stale.setdefault(event.robot, (event.t_s, event.message))
                if self._stale[event.robot][1] != event.message:  # broken another way since
                    self._stale[event.robot] = (event.t_s, event.message)
            elif event.kind == "tree_reloaded":
                self._stale.pop(event.robot, None)
        self._reload_events_seen = len(events)
        groups: dict[tuple[str, str], list[tuple[str, float]]] = {}
        for robot, (since, error) in self._stale.items():
            agent = self._agent_or_none(robot)
            file = str(getattr(agent, "tree_path", "") or "the tree file")
            groups.setdefault((file, error), []).append((robot, since))
        return [StaleTree(tuple(sorted(r for r, _t in rows)), file, error, min(t for _r, t in rows))
                for (file, error), rows in sorted(groups.items())]

    def _drive_goto_orders(self) -> None:
        for key, order in list(self._goto.items()):
            agent = self.match.agent(key)
            navigator = order.navigator
            pose = agent.pose_estimate()
            if pose.distance_to(order.target.x_m, order.target.y_m) < ARRIVE_TOLERANCE_M:
                del self._goto[key]
                wx, wy = self._world_target(key, order)
                self._notices.append(Notice(f"{key} reached its click-to-go target ({wx:+.2f}, {wy:+.2f}) "
                                            f"at t={self.match.t_s:.1f}s", "ok"))
                continue
            obstacles = nav_obstacles(agent.context) if agent.context.world_model is not None else []
            vx, vy, vtheta = navigator.velocity_to(pose, order.target, obstacles, self.match.t_s)
            # the click overrides what the tree commanded this step
            self.match.world.set_command(agent.robot, RobotCommand(vx, vy, vtheta,
                                                                   agent.last_command.head_pan_rad,
                                                                   agent.last_command.head_tilt_rad))

    def scene(self, selected: str | None) -> Scene:
        match = self.match
        world, referee = match.world, match.referee
        robots = []
        for rid, truth in sorted(world.robots.items()):
            key = str(rid)
            robot = SceneRobot(key, rid.team, rid.number, truth.pose, fallen=truth.fallen, removed=truth.removed,
                               penalised=referee.is_penalized(rid))
            agent = match.agents.get(rid)
            if agent is not None:
                self._fill_beliefs(robot, agent, referee.attacks_positive_x(rid.team), key == selected)
            robots.append(robot)
        scene = Scene(self.field, match.t_s, (world.ball.x_m, world.ball.y_m), robots, self._banner())
        scene.estop = self.estop_reason()
        scene.goto_targets = self.goto_targets()
        scene.stale_trees = self.stale_trees()
        if selected is not None and (agent := self._agent_or_none(selected)) is not None:
            scene.tree_lines = self._tree_lines(agent)
            scene.blackboard_changes = self._blackboard_changes(selected, agent)
        return scene

    # --- pieces ---------------------------------------------------------------------------------

    def _decision_stale(self, key: str, bb: Any) -> bool:
        """Whether ``decision`` went unwritten in the steps since the last look (its branch is
        not running): a node writes it in every tick it runs, which bumps the entry's sequence."""
        entry = bb.get_entry("decision") if hasattr(bb, "get_entry") else None
        if entry is None:
            return False
        steps = self.match.steps
        seen = self._decision_seen.get(key)
        if seen is not None and seen[0] == steps:
            return seen[2]  # the same step again (paused): the same answer
        stale = seen is not None and seen[1] == entry.sequence_id
        self._decision_seen[key] = (steps, entry.sequence_id, stale)
        return stale

    def _agent_or_none(self, key: str) -> Any:
        try:
            return self.match.agent(key)
        except KeyError:
            return None

    def _fill_beliefs(self, robot: SceneRobot, agent: Any, attack: bool, selected: bool) -> None:
        bb = agent.blackboard
        robot.role = str(bb.get("player_role", "") or "")
        robot.decision = str(bb.get("decision", "") or "")
        robot.control = control_of(lambda key: bb.get(key, None))
        if robot.decision:
            robot.decision_stale = self._decision_stale(robot.key, bb)
        robot.estimate = from_team_frame(agent.pose_estimate(), attack)
        localizer = agent.context.localizer
        if localizer is not None:
            cov = np.array(localizer.covariance(), dtype=float)
            robot.covariance = cov  # a point mirror leaves the covariance unchanged
            if self.show_particles:
                particles = np.array(localizer.particles(), dtype=float)
                if not attack:
                    particles[:, :2] *= -1.0
                    particles[:, 2] += math.pi
                robot.particles = particles
        ball = bb.get("ball_field", None) if bb.get("ball_location_known", False) else None
        if ball is not None:
            robot.ball_estimate = _to_world_xy(ball, attack)
        navigator = agent.context.navigator
        path = getattr(navigator, "path", None)
        if path is not None and getattr(path, "points", None) is not None and len(path.points) >= 2:
            robot.path = [_to_world_xy((float(x), float(y)), attack) for x, y in path.points]
        state = getattr(agent.context, "state", None)
        if state is not None and robot.decision in ("kick", "cross", "adjust", "chase"):
            robot.kick_direction_rad = state.kick_dir_rad + (0.0 if attack else math.pi)

    def _banner(self) -> Banner:
        referee = self.match.referee
        packet = referee.packet()
        blue_number = referee.team_number(Team.BLUE)
        scores = {t.team_number: t.score for t in packet.teams}
        red_number = referee.team_number(Team.RED)
        # the state robots are shown (HSL: SET during the whistle's delay), named as replays name it
        state_name, sub = gc_words(int(getattr(referee, "shown_state", referee.state)),
                                   int(referee.secondary_state), int(referee.sub_state))
        if isinstance(packet, HslControlData):
            kicking = referee.kicking_team()
            kick_off = "" if kicking is None else kicking.name.lower()
            no_penalty = (0, int(penalty_enum(packet.version).SUBSTITUTE))
        else:
            kick_off = {blue_number: "blue", red_number: "red"}.get(packet.kick_off_team, "")
            no_penalty = (int(Penalty.NONE), int(Penalty.SUBSTITUTE))
        penalties = []
        for team_info in packet.teams:
            colour = "blue" if team_info.team_number == blue_number else "red"
            for number, player in enumerate(team_info.players[: self.match.team_size], start=1):
                if player.penalty not in no_penalty:
                    penalties.append(f"{colour}{number} {player.secs_till_unpenalised}s")
        return Banner(state=state_name, sub_state=sub,
                      score_blue=scores.get(blue_number, 0), score_red=scores.get(red_number, 0),
                      secs_remaining=packet.secs_remaining, secondary_time=packet.secondary_time,
                      first_half=bool(packet.first_half), kick_off=kick_off, penalties=penalties)

    def _tree_lines(self, agent: Any) -> list[TreeLine]:
        """The nodes ticked in the last tick, indented by depth, with the status they returned."""
        tree = agent.tree
        root = getattr(tree, "root", None)
        if root is None:
            return []
        ticked = {id(n) for n in tree.env.ticked}
        lines: list[TreeLine] = []
        stack = [(root, 0)]
        while stack and len(lines) < MAX_TREE_LINES:
            node, depth = stack.pop()
            if id(node) not in ticked:
                continue  # not on the active branch this tick
            lines.append(TreeLine(depth, node.name, str(node.last_status)))
            stack.extend((child, depth + 1) for child in reversed(node.children))
        return lines

    def _blackboard_changes(self, key: str, agent: Any) -> list[tuple[str, str]]:
        """Entries whose value changed since the previous frame, each key once with its latest
        value, the most recently changed first (kept a while: at most 24 keys)."""
        now = {str(k): format_value(v) for k, v in agent.blackboard.items()}
        before = self._previous_bb.get(key)
        changes = self._changes.setdefault(key, {})
        if before is not None:
            fresh = {k: v for k, v in now.items() if before.get(k) != v}
            if fresh:
                rest = [(k, v) for k, v in changes.items() if k not in fresh]
                changes.clear()
                changes.update(fresh)
                changes.update(rest[: max(0, 24 - len(fresh))])
        self._previous_bb[key] = now
        return list(changes.items())
