"""The HL v12 referee: plays the GameController's part in simulated matches.

``Referee(world, config)`` follows the HL game flow for two teams: INITIAL, READY (up to 45 s,
or earlier once every robot is placed), SET, PLAYING with the kick-off wait, goals and the
restart for the team that conceded, ball out as throw-in / goal kick / corner kick with the
STOP, GET_READY, SET sub-states, removal penalties, half time with the side switch, FINISHED.
The match loop calls ``step(t_s, events)`` with the world events it drained; the referee reads
the world's truth, moves the ball and robots when the laws say so, and produces the v12
packet a real GameController would send (``packet()``, ``packet_bytes()``, ``poll_packet()``;
``referee_broadcaster.RefereeBroadcaster`` sends it over UDP). What every referee shares (the
world it needs, its configuration and records) is in ``referee_common``; ``HslReferee``
(``hsl_referee``) builds on this one.

World frame: blue attacks +x in the first half (config), the sides switch at half time;
``attacks_positive_x(team)`` says the current mapping.
"""
from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass

from soccerbt.gamecontroller.protocol import (
    DROPBALL,
    MAX_NUM_PLAYERS,
    GameControlData,
    GameState,
    Penalty,
    RobotInfo,
    SecondaryState,
    SubState,
    TeamInfo,
    encode,
)
from soccerbt.gamecontroller.referee_common import (
    _EPS,
    GoalRecord,
    RefereeConfig,
    RefereeRecord,
    RefereeWorld,
    RobotTruth,
    _next_due,
)
from soccerbt.world.field import Field
from soccerbt.world.types import (
    BallKicked,
    BallOut,
    BallTouched,
    GoalScored,
    Pose2D,
    RobotFell,
    RobotId,
    Team,
    WorldEvent,
    from_team_frame,
    to_team_frame,
)

__all__ = ["Referee"]

log = logging.getLogger("soccerbt.gamecontroller.referee")  # one logger for the HL referee and its broadcaster


@dataclass(slots=True)
class _PenaltyState:
    code: int
    start_s: float
    until_s: float


@dataclass(slots=True)
class _Track:
    """What the referee remembers of a robot between steps."""

    pose: Pose2D | None = None
    still_since_s: float = 0.0
    fallen_since_s: float | None = None


# --- the referee ------------------------------------------------------------------------------

_FREE_KICK_NAMES = {SecondaryState.THROW_IN: "THROW_IN", SecondaryState.GOAL_KICK: "GOAL_KICK",
                    SecondaryState.CORNER_KICK: "CORNER_KICK", SecondaryState.DIRECT_FREEKICK: "DIRECT_FREEKICK",
                    SecondaryState.INDIRECT_FREEKICK: "INDIRECT_FREEKICK",
                    SecondaryState.PENALTYKICK: "PENALTYKICK"}


class Referee:
    """The GameController of a simulated match. See the module docstring."""

    def __init__(self, world: RefereeWorld, config: RefereeConfig | None = None) -> None:
        self.world = world
        self.config = config = config or RefereeConfig()
        self.field: Field = world.field
        if config.players_per_team is not None:
            self.players_per_team = config.players_per_team
        else:
            numbers = [rid.number for rid in world.robots]
            self.players_per_team = max(numbers) if numbers else self.field.players_per_team
        if not 1 <= self.players_per_team <= MAX_NUM_PLAYERS:
            raise ValueError(f"players per team {self.players_per_team} out of range 1..{MAX_NUM_PLAYERS}")
        self._numbers = {Team.BLUE: config.blue_team_number, Team.RED: config.red_team_number}
        self.t_s: float = world.t_s
        self.state: int = GameState.INITIAL
        self.secondary_state: int = SecondaryState.NORMAL
        self.set_play_team: Team | None = None
        self.sub_state: int = SubState.STOP
        self.first_half = True
        self.kick_off_team: Team | None = config.first_kick_off
        self.scores = {Team.BLUE: 0, Team.RED: 0}
        self.half_remaining_s = config.half_duration_s
        self.finished = False  # the game is over (not just half time)
        self.history: list[RefereeRecord] = []
        self.goals: list[GoalRecord] = []
        self.last_touch: RobotId | None = None
        self._phase_start_s = self.t_s  # start of the current state or set-play sub-state
        self._spot: tuple[float, float] = (0.0, 0.0)  # where the ball was put for the restart
        self._restart_team: Team | None = None  # may play the ball; the other waits
        self._restart_start_s: float | None = None  # kick-off / free-kick wait running since
        self._penalties: dict[RobotId, _PenaltyState] = {}
        self._tracks: dict[RobotId, _Track] = {}
        self._revision = 0
        self._packet: GameControlData | None = None
        self._packet_revision = -1
        self._sent = 0
        self._next_due_s: float | None = None
        self._record("state", "INITIAL")

    # --- public queries ---------------------------------------------------------------------

    def team_number(self, team: Team) -> int:
        return self._numbers[team]

    def team_of_number(self, number: int) -> Team | None:
        for team, n in self._numbers.items():
            if n == number:
                return team
        return None

    def attacks_positive_x(self, team: Team) -> bool:
        """Whether ``team`` attacks the +x goal of the world frame now (flips at half time)."""
        blue = self.config.blue_attacks_positive_x_first_half == self.first_half
        return blue if team is Team.BLUE else not blue

    def is_penalized(self, robot_id: RobotId) -> bool:
        return robot_id in self._penalties

    def penalty_of(self, robot_id: RobotId) -> int:
        p = self._penalties.get(robot_id)
        return Penalty.NONE if p is None else p.code

    @property
    def kick_off_pending(self) -> bool:
        """A kick-off or free kick was taken and the other team still waits."""
        return self._restart_start_s is not None

    # --- penalties ------------------------------------------------------------------------

    def penalize(self, robot_id: RobotId, code: int = Penalty.PICKUP_OR_INCAPABLE,
                 duration_s: float | None = None) -> bool:
        """Give a removal penalty: the robot is taken off and comes back at its touch line after
        ``duration_s`` (default ``removal_penalty_s``; ``math.inf`` until ``unpenalize``).
        False when the robot is unknown or already penalised."""
        if robot_id in self._penalties or robot_id not in self.world.robots:
            return False
        if not 1 <= code <= 255:
            raise ValueError(f"penalty code {code} out of range 1..255")
        duration = self.config.removal_penalty_s if duration_s is None else duration_s
        self._penalties[robot_id] = _PenaltyState(int(code), self.t_s, self.t_s + duration)
        self.world.remove_robot(robot_id)
        self._tracks.pop(robot_id, None)
        self._record("penalty", _penalty_name(code), robot_id.team, robot_id)
        self._revision += 1
        return True

    def unpenalize(self, robot_id: RobotId) -> bool:
        """End a penalty now: the robot re-enters at its touch line."""
        if robot_id not in self._penalties:
            return False
        del self._penalties[robot_id]
        self.world.place_robot(robot_id, self._reentry_pose(robot_id))
        self._tracks.pop(robot_id, None)
        self._record("unpenalised", str(robot_id), robot_id.team, robot_id)
        self._revision += 1
        return True

    # --- the step ---------------------------------------------------------------------------

    def step(self, t_s: float, events: Iterable[WorldEvent] = ()) -> None:
        """Advance to simulated time ``t_s``, reading the events of the world step just done."""
        dt = max(0.0, t_s - self.t_s)
        self.t_s = t_s
        self._revision += 1
        if self.state == GameState.PLAYING:
            self.half_remaining_s -= dt
        for ev in events:
            self._on_event(ev)
        self._track_robots(dt)
        self._run_penalties(dt)
        for _ in range(4):  # a transition may make the next one due at once
            if not self._advance():
                break

    def _on_event(self, ev: WorldEvent) -> None:
        if isinstance(ev, (BallTouched, BallKicked)):
            self.last_touch = ev.robot
            if self._restart_start_s is not None and self.state == GameState.PLAYING \
                    and self.secondary_state == SecondaryState.NORMAL and ev.robot.team is self._restart_team:
                self._end_restart_wait("ball played")
        elif isinstance(ev, GoalScored):
            self._on_goal(ev)
        elif isinstance(ev, BallOut):
            self._on_ball_out(ev)
        elif isinstance(ev, RobotFell):
            track = self._tracks.get(ev.robot)
            if track is not None and track.fallen_since_s is None:
                track.fallen_since_s = ev.t_s

    def _ball_in_play(self) -> bool:
        return self.state == GameState.PLAYING and self.secondary_state == SecondaryState.NORMAL

    def _on_goal(self, ev: GoalScored) -> None:
        if not self._ball_in_play():
            self._replace_ball()  # not in play: no goal; the ball goes back to its spot
            return
        scorer = Team.BLUE if self.attacks_positive_x(Team.BLUE) == ev.goal_at_positive_x else Team.RED
        touch = ev.last_touch or self.last_touch
        own_goal = touch is not None and touch.team is not scorer
        self.scores[scorer] += 1
        self.goals.append(GoalRecord(ev.t_s, scorer, touch, own_goal, self.first_half))
        self._record("goal", f"{scorer.name.lower()} {self.scores[Team.BLUE]}:{self.scores[Team.RED]}", scorer,
                     touch)
        self._enter_ready(kick_off=scorer.other)

    def _on_ball_out(self, ev: BallOut) -> None:
        if not self._ball_in_play():
            self._replace_ball()
            return
        f = self.field
        hx, hy, r = f.half_length_m, f.half_width_m, f.ball_radius_m
        touch = ev.last_touch or self.last_touch
        sy = 1.0 if ev.y_m >= 0.0 else -1.0
        if ev.line == "touch":
            if touch is not None:
                taker = touch.team.other
            else:  # nobody touched it: the team defending that half throws in
                taker = self._defender_of_half(ev.x_m)
            x = min(hx - r, max(-hx + r, ev.x_m))
            self._start_set_play(SecondaryState.THROW_IN, taker, (x, sy * (hy - r)))
        else:
            positive = ev.x_m >= 0.0
            defender = Team.BLUE if self.attacks_positive_x(Team.BLUE) != positive else Team.RED
            sx = 1.0 if positive else -1.0
            if touch is not None and touch.team is defender:
                self._start_set_play(SecondaryState.CORNER_KICK, defender.other,
                                     (sx * (hx - r), sy * (hy - r)))
            else:
                self._start_set_play(SecondaryState.GOAL_KICK, defender,
                                     (sx * (hx - f.goal_area_length_m), sy * f.goal_area_width_m / 2.0))

    def _defender_of_half(self, x_m: float) -> Team:
        """The team whose own half holds world x."""
        blue_own_negative = self.attacks_positive_x(Team.BLUE)
        in_negative = x_m < 0.0
        return Team.BLUE if blue_own_negative == in_negative else Team.RED

    # --- robots ------------------------------------------------------------------------------

    def _track_robots(self, dt: float) -> None:
        cfg = self.config
        t = self.t_s
        active = self.state in (GameState.READY, GameState.SET, GameState.PLAYING)
        for rid, robot in list(self.world.robots.items()):
            if robot.removed or rid in self._penalties:
                self._tracks.pop(rid, None)
                continue
            track = self._tracks.get(rid)
            pose = robot.pose
            if track is None:
                track = self._tracks[rid] = _Track(pose, t, t if robot.fallen else None)
            else:
                prev = track.pose
                if dt > 0.0 and prev is not None:
                    speed = math.hypot(pose.x_m - prev.x_m, pose.y_m - prev.y_m) / dt
                    turn = abs(math.remainder(pose.theta_rad - prev.theta_rad, math.tau)) / dt
                    if speed > cfg.still_speed_mps or turn > cfg.still_turn_radps:
                        track.still_since_s = t
                track.pose = pose
                if robot.fallen:
                    if track.fallen_since_s is None:
                        track.fallen_since_s = t
                else:
                    track.fallen_since_s = None
            if not active:
                continue
            if cfg.penalize_fallen and track.fallen_since_s is not None \
                    and t - track.fallen_since_s >= cfg.incapable_fallen_s - _EPS:
                self.penalize(rid, Penalty.PICKUP_OR_INCAPABLE)
            elif cfg.penalize_leaving_field and self.state == GameState.PLAYING \
                    and not self.field.is_inside_field(pose.x_m, pose.y_m, -cfg.leave_field_margin_m):
                self.penalize(rid, Penalty.PICKUP_OR_INCAPABLE)

    def _run_penalties(self, dt: float) -> None:
        if self.state not in (GameState.READY, GameState.SET, GameState.PLAYING):
            for p in self._penalties.values():  # the penalty clock stands still in INITIAL, FINISHED
                p.until_s += dt
            return
        for rid in [rid for rid, p in self._penalties.items() if self.t_s >= p.until_s - _EPS]:
            self.unpenalize(rid)

    def _active_robots(self) -> list[tuple[RobotId, RobotTruth]]:
        return [(rid, r) for rid, r in self.world.robots.items() if not r.removed and rid not in self._penalties]

    def _legal_kickoff_position(self, rid: RobotId, pose: Pose2D) -> bool:
        p = to_team_frame(pose, self.attacks_positive_x(rid.team))
        f = self.field
        if p.x_m > 0.0 or not f.is_inside_field(p.x_m, p.y_m):
            return False
        return rid.team is self.kick_off_team or math.hypot(p.x_m, p.y_m) >= f.centre_circle_radius_m

    def _all_placed(self) -> bool:
        t = self.t_s
        for rid, robot in self._active_robots():
            track = self._tracks.get(rid)
            if robot.fallen or track is None or t - track.still_since_s < self.config.placed_still_s - _EPS:
                return False
            if not self._legal_kickoff_position(rid, robot.pose):
                return False
        return True

    def _free_kick_ready(self) -> bool:
        """Every defender keeps the distance and every robot stands still."""
        t = self.t_s
        sx, sy = self._spot
        for rid, robot in self._active_robots():
            track = self._tracks.get(rid)
            if robot.fallen or track is None or t - track.still_since_s < self.config.placed_still_s - _EPS:
                return False
            if rid.team is not self.set_play_team and \
                    math.hypot(robot.pose.x_m - sx, robot.pose.y_m - sy) < self.field.free_kick_distance_m:
                return False
        return True

    def _occupied(self, x_m: float, y_m: float, skip: RobotId, radius_m: float = 0.5) -> bool:
        for rid, robot in self.world.robots.items():
            if rid == skip or robot.removed:
                continue
            if math.hypot(robot.pose.x_m - x_m, robot.pose.y_m - y_m) < radius_m:
                return True
        return False

    def _free_team_pose(self, rid: RobotId, candidates: list[Pose2D]) -> Pose2D:
        """The first team-frame candidate with nobody near it, as a world pose."""
        attack = self.attacks_positive_x(rid.team)
        world_poses = [from_team_frame(c, attack) for c in candidates]
        for pose in world_poses:
            if not self._occupied(pose.x_m, pose.y_m, rid):
                return pose
        return world_poses[0]

    def _reentry_pose(self, rid: RobotId) -> Pose2D:
        """On the own half's touch line, on the side away from the ball, facing the field."""
        attack = self.attacks_positive_x(rid.team)
        ball = self.world.ball
        ball_team = to_team_frame(Pose2D(ball.x_m, ball.y_m), attack)
        side = -1.0 if ball_team.y_m > 0.0 else 1.0
        return self._free_team_pose(rid, self._touch_line_candidates(side))

    def _touch_line_candidates(self, side: float) -> list[Pose2D]:
        f = self.field
        base = -f.half_length_m / 2.0
        theta = -side * math.pi / 2.0
        out = []
        for k in range(12):
            dx = (k + 1) // 2 * (0.7 if k % 2 else -0.7)
            x = max(-f.half_length_m + 0.3, min(-0.3, base + dx))
            out.append(Pose2D(x, side * f.half_width_m, theta))
        return out

    def _placement_pose(self, rid: RobotId) -> Pose2D:
        """Where the referee puts a robot that was not placed legally when SET began."""
        f = self.field
        if rid.number == self.config.goalkeeper_number:
            first = [Pose2D(-f.half_length_m + 0.5, 0.0, 0.0)]
        else:
            first = []
        x = -f.half_length_m / 2.0
        ys = [0.0, 1.2, -1.2, 2.4, -2.4, 3.6, -3.6]
        cands = first + [Pose2D(x, y, 0.0) for y in ys] + [Pose2D(x - 1.0, y, 0.0) for y in ys]
        return self._free_team_pose(rid, cands)

    # --- the flow ---------------------------------------------------------------------------

    def _advance(self) -> bool:
        """One due transition; True when something changed."""
        cfg = self.config
        t = self.t_s
        elapsed = t - self._phase_start_s
        state = self.state
        if state == GameState.INITIAL:
            if not self.finished and elapsed >= cfg.initial_s - _EPS:
                self._enter_ready(self.kick_off_team)
                return True
        elif state == GameState.READY:
            if elapsed >= cfg.ready_s - _EPS or (elapsed >= cfg.placed_still_s - _EPS and self._all_placed()):
                self._enter_set()
                return True
        elif state == GameState.SET:
            if elapsed >= cfg.set_s - _EPS:
                self._set_state(GameState.PLAYING)
                self._start_restart_wait(self.kick_off_team)
                return True
        elif state == GameState.PLAYING:
            if self.half_remaining_s <= 1e-9:  # float sums of dt must not add a step
                self._end_half()
                return True
            if self.secondary_state != SecondaryState.NORMAL:
                return self._advance_set_play(elapsed)
            if self._restart_start_s is not None:
                ball = self.world.ball
                if t - self._restart_start_s >= cfg.kickoff_wait_s - _EPS:
                    self._end_restart_wait("time")
                    return True
                if math.hypot(ball.x_m - self._spot[0], ball.y_m - self._spot[1]) >= cfg.ball_moved_m - _EPS:
                    self._end_restart_wait("ball moved")
                    return True
        elif state == GameState.FINISHED:
            if not self.finished and elapsed >= cfg.half_time_break_s - _EPS:
                self._start_second_half()
                return True
        return False

    def _close_set_play(self, why: str | None = None) -> Team | None:
        """End the set play in progress (back to NORMAL, recorded); the team that had it."""
        team = self.set_play_team
        name = _FREE_KICK_NAMES.get(self.secondary_state, str(self.secondary_state))
        self.secondary_state = SecondaryState.NORMAL
        self.set_play_team = None
        self.sub_state = SubState.STOP
        self._phase_start_s = self.t_s
        self._record("set_play_end", name if why is None else f"{name} {why}", team)
        return team

    def _advance_set_play(self, elapsed: float) -> bool:
        cfg = self.config
        if self.sub_state == SubState.STOP:
            if elapsed >= cfg.free_kick_stop_s - _EPS:
                self._set_sub_state(SubState.GET_READY)
                return True
        elif self.sub_state == SubState.GET_READY:
            if elapsed >= cfg.free_kick_get_ready_s - _EPS or (
                    elapsed >= cfg.placed_still_s - _EPS and self._free_kick_ready()):
                self._replace_ball()
                if cfg.illegal_set_play_position == "penalize":
                    sx, sy = self._spot
                    for rid, robot in self._active_robots():
                        if rid.team is not self.set_play_team and math.hypot(
                                robot.pose.x_m - sx, robot.pose.y_m - sy) < self.field.free_kick_distance_m:
                            self.penalize(rid, Penalty.ILLEGAL_DEFENSE)
                self._set_sub_state(SubState.SET)
                return True
        else:
            if elapsed >= cfg.free_kick_set_s - _EPS:
                self._start_restart_wait(self._close_set_play())
                return True
        return False

    def _record(self, kind: str, detail: str, team: Team | None = None, robot: RobotId | None = None) -> None:
        self.history.append(RefereeRecord(self.t_s, kind, detail, team, robot))
        log.debug("t=%.2f %s %s", self.t_s, kind, detail)

    def _set_state(self, state: int) -> None:
        self.state = state
        self._phase_start_s = self.t_s
        self._record("state", GameState(state).name)

    def _replace_ball(self) -> None:
        self.world.place_ball(*self._spot)
        self.last_touch = None

    def _clear_set_play(self) -> None:
        self.secondary_state = SecondaryState.NORMAL
        self.set_play_team = None
        self.sub_state = SubState.STOP
        self._restart_start_s = None
        self._restart_team = None

    def _enter_ready(self, kick_off: Team | None) -> None:
        self._clear_set_play()
        self.kick_off_team = kick_off
        self._spot = (0.0, 0.0)
        self._replace_ball()
        self._set_state(GameState.READY)
        if kick_off is not None:
            self._record("kick_off", kick_off.name.lower(), kick_off)

    def _enter_set(self) -> None:
        self._spot = (0.0, 0.0)
        self._replace_ball()
        action = self.config.illegal_ready_position
        if action != "ignore":
            for rid, robot in self._active_robots():
                if self._legal_kickoff_position(rid, robot.pose):
                    continue
                if action == "move":
                    self.world.place_robot(rid, self._placement_pose(rid))
                    self._tracks.pop(rid, None)
                    self._record("placed", str(rid), rid.team, rid)
                else:
                    self.penalize(rid, Penalty.ILLEGAL_ATTACK if self._in_opponent_half(rid, robot.pose)
                                  else Penalty.ILLEGAL_DEFENSE)
        self._set_state(GameState.SET)

    def _in_opponent_half(self, rid: RobotId, pose: Pose2D) -> bool:
        return to_team_frame(pose, self.attacks_positive_x(rid.team)).x_m > 0.0

    def _start_restart_wait(self, team: Team | None) -> None:
        self._restart_team = team
        self._restart_start_s = self.t_s
        self.last_touch = None

    def _end_restart_wait(self, why: str) -> None:
        self._record("restart_end", why, self._restart_team)
        self._restart_start_s = None
        self._restart_team = None

    def _start_set_play(self, kind: int, team: Team, spot: tuple[float, float]) -> None:
        self._restart_start_s = None
        self._restart_team = None
        self.secondary_state = kind
        self.set_play_team = team
        self.sub_state = SubState.STOP
        self._phase_start_s = self.t_s
        self._spot = spot
        self._replace_ball()
        self._record("set_play", _FREE_KICK_NAMES[kind], team)

    def _set_sub_state(self, sub: int) -> None:
        self.sub_state = sub
        self._phase_start_s = self.t_s
        self._record("sub_state", SubState(sub).name, self.set_play_team)

    def _end_half(self) -> None:
        self._clear_set_play()
        self.half_remaining_s = 0.0
        if not self.first_half:
            self.finished = True
        self._set_state(GameState.FINISHED)
        if self.finished:
            self._record("game_over", f"{self.scores[Team.BLUE]}:{self.scores[Team.RED]}")

    def _start_second_half(self) -> None:
        self.first_half = False
        self.half_remaining_s = self.config.half_duration_s
        for rid in list(self._penalties):  # penalties end with the half
            del self._penalties[rid]
            self._record("unpenalised", str(rid), rid.team, rid)
        if self.config.relocate_at_half_time:
            # a fixed order, so that the free-slot search is deterministic
            for rid in sorted(self.world.robots, key=lambda r: (r.team.value, r.number)):
                self.world.place_robot(rid, self._free_team_pose(rid, self._touch_line_candidates(-1.0)))
        self._tracks.clear()
        first = self.config.first_kick_off
        self.kick_off_team = first.other
        self._record("half", "second")
        self._set_state(GameState.INITIAL)

    # --- packets ------------------------------------------------------------------------------

    def secs_remaining(self) -> int:
        return math.ceil(self.half_remaining_s) if self.half_remaining_s > 0 else math.floor(self.half_remaining_s)

    def secondary_time(self) -> int:
        """The secondary clock: what is left of READY, the kick-off / free-kick wait, the set-play
        sub-state or the half-time break."""
        cfg = self.config
        elapsed = self.t_s - self._phase_start_s
        if self.state == GameState.READY:
            left = cfg.ready_s - elapsed
        elif self.state == GameState.PLAYING and self.secondary_state != SecondaryState.NORMAL:
            left = {SubState.STOP: cfg.free_kick_stop_s, SubState.GET_READY: cfg.free_kick_get_ready_s}.get(
                self.sub_state, cfg.free_kick_set_s) - elapsed
        elif self.state == GameState.PLAYING and self._restart_start_s is not None:
            left = cfg.kickoff_wait_s - (self.t_s - self._restart_start_s)
        elif self.state == GameState.FINISHED and not self.finished:
            left = cfg.half_time_break_s - elapsed
        else:
            return 0
        return max(0, math.ceil(left - 1e-9))

    def _team_info(self, team: Team) -> TeamInfo:
        players = []
        for number in range(1, MAX_NUM_PLAYERS + 1):
            if number > self.players_per_team:
                players.append(_SUBSTITUTE)
                continue
            rid = RobotId(team, number)
            p = self._penalties.get(rid)
            goal_keeper = 1 if number == self.config.goalkeeper_number else 0
            if p is None:
                players.append(_KEEPER if goal_keeper else _PLAYER)
            else:
                left = p.until_s - self.t_s
                secs = 255 if math.isinf(left) else max(0, min(255, math.ceil(left - 1e-9)))
                players.append(RobotInfo(p.code, secs, 0, 0, 0, goal_keeper))
        return TeamInfo(team_number=self._numbers[team], team_color=team.value, score=self.scores[team],
                        players=tuple(players))

    def _build_packet(self) -> GameControlData:
        order = (Team.BLUE, Team.RED) if self.first_half else (Team.RED, Team.BLUE)
        info = (0, 0, 0, 0)
        if self.secondary_state != SecondaryState.NORMAL and self.set_play_team is not None:
            info = (self._numbers[self.set_play_team], int(self.sub_state), 0, 0)
        kick_off = DROPBALL if self.kick_off_team is None else self._numbers[self.kick_off_team]
        packet = GameControlData(
            packet_number=self._sent & 0xFF, players_per_team=self.players_per_team,
            game_type=self.config.game_type, state=int(self.state), first_half=1 if self.first_half else 0,
            kick_off_team=kick_off, secondary_state=int(self.secondary_state), secondary_state_info=info,
            secs_remaining=max(-0x8000, min(0x7FFF, self.secs_remaining())),
            secondary_time=min(0x7FFF, self.secondary_time()),
            teams=(self._team_info(order[0]), self._team_info(order[1])))
        self._sent += 1
        return packet

    def packet(self) -> GameControlData:
        """The packet for the current state, as sent now. Within one step (nothing changed) the
        same object comes back; after a step or a penalty, a new one with the next
        packet_number."""
        if self._packet is None or self._packet_revision != self._revision:
            self._packet = self._build_packet()
            self._packet_revision = self._revision
        return self._packet

    def packet_bytes(self) -> bytes:
        """``packet()`` as the 688 bytes a real GameController sends."""
        return encode(self.packet())

    def poll_packet(self, t_s: float | None = None) -> GameControlData | None:
        """A packet when one is due at ``rate_hz`` (the real GC sends at 2 Hz), else None."""
        t = self.t_s if t_s is None else t_s
        if self._next_due_s is not None and t < self._next_due_s - 1e-9:
            return None
        self._next_due_s = _next_due(self._next_due_s, t, 1.0 / self.config.rate_hz)
        return self.packet()


_SUBSTITUTE = RobotInfo(penalty=int(Penalty.SUBSTITUTE))
_PLAYER = RobotInfo()
_KEEPER = RobotInfo(goal_keeper=1)


def _penalty_name(code: int) -> str:
    try:
        return Penalty(code).name
    except ValueError:
        return str(code)
