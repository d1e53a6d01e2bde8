"""The robot's world model: what one robot believes, built from its observations.

``WorldModel`` keeps, in the team frame (own goal at negative x):

- the robot's pose (from the localizer; the raw odometry when there is none);
- the ball: the last sighting is stored in the *odometry* frame, so that between sightings
  the ball stays put relative to the ground while the robot walks (odometry is smooth over
  seconds, while a localizer estimate may jump); field and robot positions derive from it.
  ``ball_location_known`` lasts 2 s after the last sighting; ``ball_out`` says the estimate
  lies wholly outside the lines. The belief is robust to isolated false detections
  (``robust_ball``, the default): a sighting within a gate of the known ball (1.5 m plus 0.1 m
  per metre of distance) updates it; any other - far from it, or with no ball known - is a
  candidate that becomes the ball only after three agreeing sightings, each within 0.5 s of
  the previous (a ball kicked or placed elsewhere is taken within three frames of being seen
  there, a false detection never). ``robust_ball=False`` keeps the earlier model for
  comparison (``benchmarks/ball_belief.py``);
- obstacles: robots seen, merged by proximity, forgotten after a short memory;
- teammates from team messages (``TeammateInfo``), their freshest ball and
  ``tm_ball_pos_reliable``;
- the game situation read from the gc_* blackboard keys: ``wait_for_opponent_kickoff`` (the
  opponents' kick-off or set piece is not yet taken: true until the ball moved about 0.2 m or
  10 s passed) and the penalty edges (a penalty start means the robot is picked up: ball memory
  and ``odom_calibrated`` are reset);
- Booster's 2026 local free-kick phase (``local_freekick_*``, ``soccerbt.services.freekick``):
  computed in ``write_blackboard`` from the gc_* keys, the odometry and the free-kick
  positioning nodes' report of the last tick.

Per step the agent calls ``update(observations, localizer, now_s)`` (after updating the
localizer), optionally ``update_teammates(infos, now_s)``, then ``write_blackboard(bb)``, which
first reads the gc_* keys the GameController adapter wrote and then writes the world-model
keys of ``soccerbt.blackboard.schema``. Both are cheap: they run at 100 Hz for every robot.
Knows nothing of trees.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from soccerbt.services.freekick import LocalFreekickPhase
from soccerbt.world.field import Field
from soccerbt.world.types import BALL, ROBOT, Observations, Pose2D, Team

__all__ = ["WorldModel", "TeammateInfo", "Obstacle", "pose_of", "confidence_of"]

_NEVER_S = -1.0
_NOBODY_KICKS_OFF = (128, 255)  # kick_off_team of a dropped ball (Java GC, 2025 GC)
_FAR_M = 1e9


@dataclass(slots=True)
class TeammateInfo:
    """What a teammate last told us (team messages), team frame.

    ``ball_age_s`` is the age of its ball sighting when it sent the message at ``t_s``.
    """

    number: int
    t_s: float
    pose_field: Pose2D | None = None
    ball_field: tuple[float, float] | None = None
    ball_age_s: float = math.inf
    localized: bool = True
    penalised: bool = False
    fallen: bool = False
    role: str = ""
    is_lead: bool = False
    cost_s: float = math.inf


@dataclass(slots=True)
class Obstacle:
    """A robot seen recently: position in the team frame, when last seen, how often seen."""

    x_m: float
    y_m: float
    last_seen_s: float
    team: Team | None = None
    hits: int = 1


def pose_of(localizer: Any) -> Pose2D | None:
    """The pose estimate of a localizer: a ``Pose2D`` itself, or its ``pose``/``pose_field``
    attribute or ``estimate()``/``pose()`` method."""
    if localizer is None:
        return None
    if isinstance(localizer, Pose2D):
        return localizer
    for name in ("pose_field", "pose"):
        value = getattr(localizer, name, None)
        if callable(value):
            value = value()
        if isinstance(value, Pose2D):
            return value
    estimate = getattr(localizer, "estimate", None)
    if callable(estimate):
        value = estimate()
        if isinstance(value, Pose2D):
            return value
        value = getattr(value, "pose", None)
        if isinstance(value, Pose2D):
            return value
    return None


def confidence_of(localizer: Any) -> float:
    """The 0..1 confidence of a localizer (1.0 when it does not say)."""
    value = getattr(localizer, "confidence", None)
    if callable(value):
        value = value()
    if value is None:
        return 1.0 if localizer is not None else 0.0
    return float(value)


class WorldModel:
    """One robot's beliefs about the world (see the module docstring).

    Ball parameters: ``ball_timeout_s`` (known this long after the last sighting);
    ``robust_ball`` (candidates confirmed by ``ball_confirm_hits`` sightings no more than
    ``ball_confirm_window_s`` apart; the track's gate is ``ball_gate_m`` plus ``ball_gate_rel``
    times the ball's distance). The attributes may be changed between updates.
    """

    def __init__(self, field: Field, team: Team | None = None, *, ball_timeout_s: float = 2.0,
                 obstacle_memory_s: float = 1.5, teammate_timeout_s: float = 3.0,
                 team_ball_timeout_s: float = 2.0, kickoff_wait_s: float = 10.0,
                 kickoff_ball_move_m: float = 0.2, ball_out_margin_m: float = 0.0,
                 calibrated_confidence: float = 0.6, robust_ball: bool = True,
                 ball_confirm_hits: int = 3, ball_confirm_window_s: float = 0.5,
                 ball_gate_m: float = 1.5, ball_gate_rel: float = 0.1) -> None:
        self.field = field
        self.team = team
        self.ball_timeout_s = ball_timeout_s
        self.obstacle_memory_s = obstacle_memory_s
        self.teammate_timeout_s = teammate_timeout_s
        self.team_ball_timeout_s = team_ball_timeout_s
        self.kickoff_wait_s = kickoff_wait_s
        self.kickoff_ball_move_m = kickoff_ball_move_m
        self.ball_out_margin_m = ball_out_margin_m
        self.calibrated_confidence = calibrated_confidence
        self.robust_ball = robust_ball
        self.ball_confirm_hits = ball_confirm_hits
        self.ball_confirm_window_s = ball_confirm_window_s
        self.ball_gate_m = ball_gate_m
        self.ball_gate_rel = ball_gate_rel
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new match, or a robot put back by hand)."""
        self.now_s = 0.0
        self.robot_pose_field = Pose2D()
        self.odometry = Pose2D()
        self.localization_confidence = 0.0
        self.fallen = False
        self.head_pan_rad = 0.0
        self.head_tilt_rad = 0.0
        self.last_frame_s = _NEVER_S
        self.landmarks: tuple = ()  # field-feature detections of the last camera frame
        self._localizer: Any = None
        self._est_pose: Pose2D | None = None  # the localizer's last estimate, and the odometry then
        self._est_odometry = Pose2D()
        self._est_localizer: Any = None
        # ball: last sighting in the odometry frame, derived positions, velocity
        self._ball_odom: tuple[float, float] | None = None
        self.ball_last_seen_s = _NEVER_S
        self.ball_field: tuple[float, float] | None = None
        self.ball_robot: tuple[float, float] | None = None
        self.ball_velocity_field = (0.0, 0.0)
        self._ball_prev_field: tuple[float, float] | None = None
        self._ball_prev_t_s = _NEVER_S
        self._ball_candidate: tuple[float, float] | None = None  # an outlier awaiting confirmation
        self._ball_candidates: list[_BallCandidate] = []  # robust_ball: new tracks awaiting confirmation
        self.ball_sightings = 0
        # obstacles and teammates
        self.obstacles: list[Obstacle] = []
        self.teammates: dict[int, TeammateInfo] = {}
        self.team_ball_field: tuple[float, float] | None = None
        self.tm_ball_pos_reliable = False
        # game situation
        self.wait_for_opponent_kickoff = False
        self._wait_start_s = 0.0
        self._wait_ref_odom: tuple[float, float] | None = None  # the ball at the wait's start (odometry frame)
        self._wait_ref_count = 0  # sightings averaged into it
        self._wait_moved_count = 0
        self._wait_last_sighting_s = _NEVER_S
        self._prev_game_state = ""
        self._prev_sub_type = "NONE"
        self._prev_opponent_set_play = False
        self._prev_penalised = False
        self.penalty_started = False  # edges seen by the last write_blackboard()
        self.penalty_ended = False
        self._calibrated_prev = False
        self.freekick = LocalFreekickPhase()
        self._freekick_written: tuple | None = None
        # blackboard write cache (only changed values are written)
        self._written_prev: tuple = _NOTHING_WRITTEN  # the values last written, in _WM_KEYS order
        self._written_bb_id = 0

    # --- sensing -----------------------------------------------------------------------------

    def update(self, observations: Observations, localizer: Any = None, now_s: float | None = None) -> None:
        """Fold one step's observations into the model; ``localizer`` gives the pose."""
        now = observations.t_s if now_s is None else float(now_s)
        self.now_s = now
        self._localizer = localizer
        self.odometry = observations.odometry
        self._update_pose(observations, localizer)
        self.fallen = bool(observations.fallen)
        self.head_pan_rad = observations.head_pan_rad
        self.head_tilt_rad = observations.head_tilt_rad
        if observations.camera_frame:
            self.last_frame_s = now
            if self.fallen:
                self.landmarks = ()
            else:
                self._sense(observations, now)
        self._derive_ball()
        odo = self.odometry
        self.freekick.update_motion(odo.x_m, odo.y_m, odo.theta_rad, now, self.fallen)
        if self.obstacles:
            self._forget_obstacles(now)

    def _update_pose(self, obs: Observations, localizer: Any) -> None:
        """The localizer's estimate, read on camera frames (when it weighs new evidence) and
        carried forward by the odometry in between: asking a particle filter for its mean
        every 10 ms costs more than the rest of the world model."""
        if localizer is None:
            self.robot_pose_field = obs.odometry
            self.localization_confidence = 0.0
            return
        if obs.camera_frame or self._est_pose is None or localizer is not self._est_localizer:
            pose = pose_of(localizer)
            self._est_pose = pose if pose is not None else obs.odometry
            self._est_odometry = obs.odometry
            self._est_localizer = localizer
            self.robot_pose_field = self._est_pose
            self.localization_confidence = confidence_of(localizer)
            return
        base = self._est_odometry
        dx, dy = base.inverse_transform_point(obs.odometry.x_m, obs.odometry.y_m)
        self.robot_pose_field = self._est_pose.compose(Pose2D(dx, dy, obs.odometry.theta_rad - base.theta_rad))

    def refresh_pose(self) -> None:
        """Read the localizer's estimate at the next update (after a reset, say)."""
        self._est_pose = None

    def _sense(self, obs: Observations, now: float) -> None:
        best = None
        best_score = -1.0
        robots = []
        landmarks = []
        for det in obs.detections:
            if det.kind == BALL:
                # prefer confident and near detections; near ones are less noisy
                score = det.confidence / (1.0 + 0.1 * math.hypot(det.x_m, det.y_m))
                if self._ball_odom is not None and self.ball_location_known:
                    bx, by = self.odometry.transform_point(det.x_m, det.y_m)
                    if math.hypot(bx - self._ball_odom[0], by - self._ball_odom[1]) < 1.0:
                        score += 1.0  # consistent with what we track
                if score > best_score:
                    best, best_score = det, score
            elif det.kind == ROBOT:
                robots.append(det)
            else:
                landmarks.append(det)
        self.landmarks = tuple(landmarks)
        if best is not None:
            self._see_ball(best.x_m, best.y_m, now)
        if robots:
            self._see_robots(robots, now)

    def _see_ball(self, x_robot_m: float, y_robot_m: float, now: float) -> None:
        ox, oy = self.odometry.transform_point(x_robot_m, y_robot_m)
        if self.robust_ball:
            ball = self._track_ball(ox, oy, math.hypot(x_robot_m, y_robot_m), now)
            if ball is None:
                return  # a candidate, not (yet) the ball
            self._ball_odom = ball
        elif not self._see_ball_simple(ox, oy, x_robot_m, y_robot_m, now):
            return  # held back as an outlier
        self.ball_last_seen_s = now
        self.ball_sightings += 1
        # velocity from successive sightings (field frame), smoothed
        bx, by = self._ball_field_from_odom(self._ball_odom)
        if self._ball_prev_field is not None and 0.0 < now - self._ball_prev_t_s < 0.5:
            dt = now - self._ball_prev_t_s
            vx = (bx - self._ball_prev_field[0]) / dt
            vy = (by - self._ball_prev_field[1]) / dt
            ovx, ovy = self.ball_velocity_field
            self.ball_velocity_field = (ovx + 0.3 * (vx - ovx), ovy + 0.3 * (vy - ovy))
        else:
            self.ball_velocity_field = (0.0, 0.0)
        self._ball_prev_field = (bx, by)
        self._ball_prev_t_s = now

    def _track_ball(self, ox: float, oy: float, dist_m: float, now: float) -> tuple[float, float] | None:
        """``robust_ball``: the ball track after a sighting at (ox, oy) (odometry frame),
        ``dist_m`` from the robot, or None when the sighting only feeds a candidate.

        A sighting within the gate of the known track (``ball_gate_m`` plus ``ball_gate_rel``
        times the distance: far balls are seen with more noise) updates it, low-passed as in
        the simple model. Any other sighting - far from the track, or with no known track at
        all - is a candidate: sightings near each other (no more than ``ball_confirm_window_s``
        apart) add up, and ``ball_confirm_hits`` of them make the candidate the track. An
        isolated false detection thus never becomes the ball, while a ball seen consistently
        at a new place (a kick seen late, the referee placing it) is taken within a few frames.
        """
        track = self._ball_odom
        seen = self.ball_last_seen_s
        if track is not None and seen >= 0.0 and now - seen <= self.ball_timeout_s:
            dx, dy = ox - track[0], oy - track[1]
            if math.hypot(dx, dy) <= self.ball_gate_m + self.ball_gate_rel * dist_m:
                if now - seen >= _BALL_TRACK_GAP_S:
                    return (ox, oy)  # an old memory is no track to smooth
                alpha = 0.8 if dist_m < 1.0 else 0.5
                return (track[0] + alpha * dx, track[1] + alpha * dy)
        window = self.ball_confirm_window_s
        cands = [c for c in self._ball_candidates if now - c.last_s <= window]
        best, best_d = None, _CANDIDATE_GATE_M + _CANDIDATE_GATE_REL * dist_m
        for c in cands:
            d = math.hypot(ox - c.x_m, oy - c.y_m)
            if d <= best_d:
                best, best_d = c, d
        if best is None:
            best = _BallCandidate(ox, oy, now)
            cands.append(best)
            if len(cands) > _MAX_CANDIDATES:
                cands.remove(min(cands, key=lambda c: c.last_s))  # the stalest
        else:
            best.x_m, best.y_m, best.last_s = ox, oy, now  # the newest sighting: the ball may roll
            best.hits += 1
        if best.hits >= self.ball_confirm_hits:
            self._ball_candidates = []
            self._ball_prev_field = None  # a new track: no velocity across the jump
            return (ox, oy)
        self._ball_candidates = cands
        return None

    def _see_ball_simple(self, ox: float, oy: float, x_robot_m: float, y_robot_m: float, now: float) -> bool:
        """The model without ``robust_ball``: a sighting more than 1.5 m from a track seen in
        the last 0.5 s waits for one agreeing frame, any other sighting is taken at once (even
        an isolated false detection, when the ball was not seen for 0.5 s). False when the
        sighting was held back."""
        prev = self._ball_odom
        if prev is not None and now - self.ball_last_seen_s >= _BALL_TRACK_GAP_S:
            prev = None  # an old memory is no track to smooth: the ball may have been moved since
        if prev is not None:
            jump_m = math.hypot(ox - prev[0], oy - prev[1])
            if jump_m > 1.5:
                # an outlier (false detection) unless the next frame agrees with it
                cand = self._ball_candidate
                if cand is None or math.hypot(ox - cand[0], oy - cand[1]) > 0.5:
                    self._ball_candidate = (ox, oy)
                    return False
                prev = None  # confirmed: jump to it
            self._ball_candidate = None
        if prev is None:
            self._ball_odom = (ox, oy)
        else:
            # low-pass against detection noise, lighter for near balls (less noise, and the
            # kick needs the freshest position)
            dist_m = math.hypot(x_robot_m, y_robot_m)
            alpha = 0.8 if dist_m < 1.0 else 0.5
            self._ball_odom = (prev[0] + alpha * (ox - prev[0]), prev[1] + alpha * (oy - prev[1]))
        return True

    def _ball_field_from_odom(self, ball_odom: tuple[float, float]) -> tuple[float, float]:
        rx, ry = self.odometry.inverse_transform_point(ball_odom[0], ball_odom[1])
        return self.robot_pose_field.transform_point(rx, ry)

    def _derive_ball(self) -> None:
        if self._ball_odom is None:
            self.ball_robot = None
            self.ball_field = None
            return
        rx, ry = self.odometry.inverse_transform_point(self._ball_odom[0], self._ball_odom[1])
        self.ball_robot = (rx, ry)
        self.ball_field = self.robot_pose_field.transform_point(rx, ry)
        if not self.ball_location_known:
            self.ball_velocity_field = (0.0, 0.0)

    def _see_robots(self, robots: list, now: float) -> None:
        pose = self.robot_pose_field
        for det in robots:
            x, y = pose.transform_point(det.x_m, det.y_m)
            nearest, nearest_d = None, 0.6
            for ob in self.obstacles:
                d = math.hypot(ob.x_m - x, ob.y_m - y)
                if d < nearest_d:
                    nearest, nearest_d = ob, d
            if nearest is None:
                self.obstacles.append(Obstacle(x, y, now, det.team))
            else:
                nearest.x_m, nearest.y_m, nearest.last_seen_s = x, y, now
                nearest.hits += 1
                if det.team is not None:
                    nearest.team = det.team
        if len(self.obstacles) > 12:  # keep the freshest: the navigator cost grows with them
            self.obstacles.sort(key=lambda o: -o.last_seen_s)
            del self.obstacles[12:]

    def _forget_obstacles(self, now: float) -> None:
        limit = now - self.obstacle_memory_s
        for ob in self.obstacles:
            if not ob.last_seen_s >= limit:  # one is stale: rebuild (usually none is)
                self.obstacles = [ob for ob in self.obstacles if ob.last_seen_s >= limit]
                return

    def update_teammates(self, infos: Iterable[TeammateInfo], now_s: float) -> None:
        """Take the teammates' latest messages; recomputes the team ball."""
        for info in infos:
            old = self.teammates.get(info.number)
            if old is None or info.t_s >= old.t_s:
                self.teammates[info.number] = info
        self._refresh_teammates(now_s)

    def _refresh_teammates(self, now_s: float) -> None:
        stale = [n for n, t in self.teammates.items() if now_s - t.t_s > self.teammate_timeout_s]
        for n in stale:
            del self.teammates[n]
        best, best_age = None, self.team_ball_timeout_s
        for t in self.teammates.values():
            if t.ball_field is None or t.penalised or t.fallen or not t.localized:
                continue
            age = t.ball_age_s + (now_s - t.t_s)
            if age <= best_age:
                best, best_age = t.ball_field, age
        self.team_ball_field = best
        self.tm_ball_pos_reliable = best is not None

    # --- queries -------------------------------------------------------------------------------

    @property
    def ball_location_known(self) -> bool:
        """The own camera saw the ball within ``ball_timeout_s``."""
        return self.ball_last_seen_s >= 0.0 and self.now_s - self.ball_last_seen_s <= self.ball_timeout_s

    def ball_detected(self, window_s: float = 0.15) -> bool:
        """The own camera saw the ball in (about) the current frame."""
        return self.ball_last_seen_s >= 0.0 and self.now_s - self.ball_last_seen_s <= window_s

    @property
    def ball_age_s(self) -> float:
        """Seconds since the last own sighting (huge when never seen)."""
        return _FAR_M if self.ball_last_seen_s < 0.0 else self.now_s - self.ball_last_seen_s

    @property
    def ball_out(self) -> bool:
        """The own (known) ball estimate lies wholly outside the field lines."""
        if self.ball_field is None or not self.ball_location_known:
            return False
        x, y = self.ball_field
        margin = self.field.ball_radius_m + self.ball_out_margin_m
        return abs(x) > self.field.half_length_m + margin or abs(y) > self.field.half_width_m + margin

    def best_ball_field(self) -> tuple[float, float] | None:
        """The own ball when known, else the teammates' reliable ball, else None."""
        if self.ball_location_known:
            return self.ball_field
        if self.tm_ball_pos_reliable:
            return self.team_ball_field
        return None

    def best_ball_robot(self) -> tuple[float, float] | None:
        """``best_ball_field()`` in the robot frame."""
        if self.ball_location_known:
            return self.ball_robot
        if self.tm_ball_pos_reliable and self.team_ball_field is not None:
            return self.robot_pose_field.inverse_transform_point(*self.team_ball_field)
        return None

    @property
    def ball_distance_m(self) -> float:
        b = self.ball_robot
        return _FAR_M if b is None else math.hypot(b[0], b[1])

    @property
    def ball_bearing_rad(self) -> float:
        b = self.ball_robot
        return 0.0 if b is None else math.atan2(b[1], b[0])

    def obstacle_points(
        self, include_teammates: bool = True, max_age_s: float | None = None
    ) -> list[tuple[float, float]]:
        """Robot positions to avoid (team frame): robots seen, and teammates' reported poses."""
        limit = self.now_s - (self.obstacle_memory_s if max_age_s is None else max_age_s)
        points = [(o.x_m, o.y_m) for o in self.obstacles if o.last_seen_s >= limit]
        if include_teammates and self.teammates:
            hypot = math.hypot
            for t in self.teammates.values():
                pose = t.pose_field
                if pose is not None and not t.penalised:
                    tx, ty = pose.x_m, pose.y_m
                    for x, y in points:
                        if not hypot(tx - x, ty - y) > 0.5:  # a robot seen there already (NaN too)
                            break
                    else:
                        points.append((tx, ty))
        return points

    def forget_ball(self) -> None:
        """Drop the ball memory (the robot was moved by hand: the odometry frame is void)."""
        self._ball_odom = None
        self._ball_candidate = None
        self._ball_candidates = []
        self.ball_last_seen_s = _NEVER_S
        self.ball_field = self.ball_robot = None
        self.ball_velocity_field = (0.0, 0.0)
        self._ball_prev_field = None

    # --- the game situation ------------------------------------------------------------------------

    def update_game(self, gc: Mapping[str, object]) -> None:
        """Read the gc_* entries: kick-off / set-piece waiting and penalty edges."""
        state = str(gc.get("gc_game_state", "INITIAL"))
        sub_type = str(gc.get("gc_game_sub_state_type", "NONE"))
        kickoff_ours = bool(gc.get("gc_is_kickoff_side", False))
        set_play_ours = bool(gc.get("gc_is_sub_state_kickoff_side", False))
        penalised = bool(gc.get("gc_is_under_penalty", False))
        now = self.now_s

        self.penalty_started = penalised and not self._prev_penalised
        self.penalty_ended = self._prev_penalised and not penalised
        if self.penalty_started:
            self.forget_ball()  # the robot is picked up: the odometry frame no longer holds
        self._prev_penalised = penalised

        opponent_set_play = state == "PLAY" and sub_type == "FREE_KICK" and not set_play_ours
        if state != "PLAY":
            self.wait_for_opponent_kickoff = False
        elif self._prev_game_state != "PLAY" and sub_type == "NONE":
            # SET -> PLAY: the kick-off. A dropped ball (nobody's kick-off) makes nobody wait.
            dropped = gc.get("gc_kick_off_team", 0) in _NOBODY_KICKS_OFF
            if not kickoff_ours and not dropped:
                self._start_wait(now)
        elif opponent_set_play:
            # during the opponents' set piece we wait throughout; the 10 s start at its end
            self._start_wait(now)
        elif self._prev_opponent_set_play and sub_type == "NONE":
            self._start_wait(now)
        elif sub_type == "FREE_KICK" and set_play_ours:
            self.wait_for_opponent_kickoff = False
        self._prev_game_state = state
        self._prev_sub_type = sub_type
        self._prev_opponent_set_play = opponent_set_play

        if self.wait_for_opponent_kickoff and not opponent_set_play:
            self._check_wait_over(now)

    def _start_wait(self, now: float) -> None:
        """Wait from now. Whether the ball moved is judged in the odometry frame (a jump of
        the pose estimate moves the field-frame ball too), against the mean of the first
        sightings of the wait: one far sighting is too noisy to be the reference."""
        self.wait_for_opponent_kickoff = True
        self._wait_start_s = now
        self._wait_ref_odom = None
        self._wait_ref_count = 0
        self._wait_moved_count = 0
        self._wait_last_sighting_s = self.ball_last_seen_s

    def _check_wait_over(self, now: float) -> None:
        if now - self._wait_start_s >= self.kickoff_wait_s:
            self.wait_for_opponent_kickoff = False
            return
        ball = self._ball_odom
        if ball is None or self.ball_last_seen_s == self._wait_last_sighting_s:
            return  # judge each own camera sighting once
        self._wait_last_sighting_s = self.ball_last_seen_s
        ref, n = self._wait_ref_odom, self._wait_ref_count
        if ref is None or n < _WAIT_REF_SIGHTINGS:
            # the reference: the running mean of the wait's first sightings
            if ref is not None:
                ball = (ref[0] + (ball[0] - ref[0]) / (n + 1), ref[1] + (ball[1] - ref[1]) / (n + 1))
            self._wait_ref_odom, self._wait_ref_count = ball, n + 1
            return
        moved_m = math.hypot(ball[0] - ref[0], ball[1] - ref[1])
        # far balls are seen with more noise: the threshold grows with the distance, and several
        # consecutive sightings must agree, so that noise does not release us early (a kick
        # moves the ball much further; a missed one costs at most the rest of the 10 s)
        threshold_m = max(self.kickoff_ball_move_m, 0.1 * self.ball_distance_m + 0.1)
        if moved_m > threshold_m:
            self._wait_moved_count += 1
            if self._wait_moved_count >= _WAIT_MOVED_SIGHTINGS:
                self.wait_for_opponent_kickoff = False
        else:
            self._wait_moved_count = 0

    # --- the blackboard ---------------------------------------------------------------------------

    def write_blackboard(self, bb: MutableMapping[str, object]) -> None:
        """Read the gc_* keys from ``bb`` (``update_game``), then write the world-model keys.

        Only values that changed since the last call are written (the cache is reset when a
        different blackboard is passed, e.g. after a tree reload).
        """
        self.update_game(bb)
        if id(bb) != self._written_bb_id:
            self._written_prev = _NOTHING_WRITTEN
            self._freekick_written = None
            self._written_bb_id = id(bb)
        # the properties' values computed inline (this runs for every robot at 100 Hz)
        now = self.now_s
        seen = self.ball_last_seen_s
        known = seen >= 0.0 and now - seen <= self.ball_timeout_s
        ball_field = self.ball_field
        if ball_field is None or not known:
            out = False
        else:
            margin = self.field.ball_radius_m + self.ball_out_margin_m
            out = (abs(ball_field[0]) > self.field.half_length_m + margin
                   or abs(ball_field[1]) > self.field.half_width_m + margin)
        if known:
            ball = ball_field
        else:
            ball = self.team_ball_field if self.tm_ball_pos_reliable else None
        b = self.ball_robot
        pose = self.robot_pose_field
        obstacles = self.obstacles
        teammates = self.teammates
        values = (
            known,
            out,
            self.tm_ball_pos_reliable,
            self.wait_for_opponent_kickoff,
            pose,
            pose.x_m,
            pose.y_m,
            pose.theta_rad,
            self.localization_confidence,
            self.fallen,
            ball_field,
            b,
            self.ball_velocity_field,
            seen,
            _FAR_M if seen < 0.0 else now - seen,
            _FAR_M if b is None else math.hypot(b[0], b[1]),
            0.0 if b is None else math.atan2(b[1], b[0]),
            ball[0] if ball is not None else 0.0,
            ball[1] if ball is not None else 0.0,
            self.team_ball_field,
            tuple([(o.x_m, o.y_m) for o in obstacles]) if obstacles else (),
            sum([not t.penalised for t in teammates.values()]) if teammates else 0,
        )
        for key, value, old in zip(_WM_KEYS, values, self._written_prev, strict=False):
            if old is _MISSING or old != value:
                bb[key] = value
        self._written_prev = values
        # odom_calibrated has several writers (SelfLocate nodes, the pad): write edges only
        calibrated = self.localization_confidence >= self.calibrated_confidence
        if self.penalty_started:
            bb["odom_calibrated"] = False
        elif calibrated and not self._calibrated_prev:
            bb["odom_calibrated"] = True
        # after a pick-up a new edge needs the confidence to drop first (or a SelfLocate node)
        self._calibrated_prev = calibrated or self.penalty_started
        self._write_freekick(bb)

    def _write_freekick(self, bb: MutableMapping[str, object]) -> None:
        """The local free-kick phase from the gc_* keys and the positioning nodes' last report
        (which is then cleared: the next tick's nodes report afresh)."""
        fk = self.freekick
        try:
            valid = bool(bb["local_freekick_target_valid"])
        except KeyError:
            valid = False
        error = math.inf
        if valid:
            try:
                error = float(bb["local_freekick_target_error"])  # type: ignore[arg-type]
            except (KeyError, TypeError, ValueError):
                valid = False
            bb["local_freekick_target_valid"] = False
        fk.update(bb, self.now_s, valid, error)
        values = (fk.use_custom, fk.phase, fk.move_stable)
        if values != self._freekick_written:
            bb["local_freekick_use_custom"], bb["local_freekick_phase"], bb["local_freekick_move_stable"] = values
            self._freekick_written = values


_MISSING = object()


@dataclass(slots=True)
class _BallCandidate:
    """``robust_ball``: a ball seen away from the track, awaiting confirmation (odometry frame)."""

    x_m: float
    y_m: float
    last_s: float
    hits: int = 1


_CANDIDATE_GATE_M = 0.5  # a sighting this near a candidate (plus 0.15 m per metre away) confirms it
_CANDIDATE_GATE_REL = 0.15
_MAX_CANDIDATES = 4
_BALL_TRACK_GAP_S = 0.5  # sightings further apart start a new track (no smoothing, no outlier test)
_WAIT_REF_SIGHTINGS = 3  # sightings averaged into the kick-off wait's reference ball
_WAIT_MOVED_SIGHTINGS = 4  # consecutive sightings away from it that end the wait
# the keys write_blackboard writes, in the order of its values
_WM_KEYS = ("ball_location_known", "ball_out", "tm_ball_pos_reliable", "wait_for_opponent_kickoff",
            "robot_pose_field", "robot_x_m", "robot_y_m", "robot_theta_rad", "localization_confidence",
            "fallen", "ball_field", "ball_robot", "ball_velocity_field", "ball_last_seen_s", "ball_age_s",
            "ball_distance_m", "ball_bearing_rad", "ball_x_m", "ball_y_m", "team_ball_field",
            "obstacles_field", "teammates_active")
_NOTHING_WRITTEN = (_MISSING,) * len(_WM_KEYS)
