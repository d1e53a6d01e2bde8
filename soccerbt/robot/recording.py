"""The brain's replay log: one robot's MCAP file, written by the match recorder.

``BrainRecorder(path, runner, spec)`` gives the MCAP recorder what it reads of a match, from
what a brain knows (``_BrainMatchView``): its one agent; as the robot's "truth", its own
estimate (a robot on a field knows no truth: the log's header says ``"truth": "estimate"``),
in its team frame; the ball it believes in; the game state and score of the newest
GameController packet. Everything the tree tools read (every transition of every node, the
blackboard with its writers, hot reloads, events) is recorded as in a match, so ``soccerbt
replay`` opens the robot's log like a match's. The log is finished on exit (``finish``).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from soccerbt.gamecontroller.hsl_protocol import HslControlData, SetPlay
from soccerbt.gamecontroller.protocol import GameState, SecondaryState, SubState
from soccerbt.log.writer import McapRecorder
from soccerbt.world.types import Pose2D, RobotId, Team

__all__ = ["BrainRecorder"]

_SECONDARY_OF_SET_PLAY = {SetPlay.DIRECT_FREE_KICK: SecondaryState.DIRECT_FREEKICK,
                          SetPlay.INDIRECT_FREE_KICK: SecondaryState.INDIRECT_FREEKICK,
                          SetPlay.PENALTY_KICK: SecondaryState.PENALTYKICK, SetPlay.THROW_IN: SecondaryState.THROW_IN,
                          SetPlay.GOAL_KICK: SecondaryState.GOAL_KICK, SetPlay.CORNER_KICK: SecondaryState.CORNER_KICK}


@dataclass
class _Config:
    """The part of ``MatchConfig`` the recorder writes in the header."""

    tree: Path
    team: Team
    field: str
    team_size: int
    seed: int
    half_s: float
    particles: int
    duration_s: float | None = None
    noise: Any = "robot"  # not None: a brain's log is not reproducible by re-running a match
    referee: Any = "gamecontroller"
    idle_teams: tuple[str, ...] = ()
    blue_tree: str | None = None
    red_tree: str | None = None

    def __post_init__(self) -> None:
        own = str(self.tree)
        self.blue_tree, self.red_tree = (own, None) if self.team is Team.BLUE else (None, own)
        self.idle_teams = (self.team.other.name.lower(),)

    def tree_of(self, team: Team) -> Path:
        return self.tree

    def is_idle(self, team: Team) -> bool:
        return team is not self.team


@dataclass
class _Body:
    x_m: float = 0.0
    y_m: float = 0.0
    theta_rad: float = 0.0
    fallen: bool = False
    removed: bool = False

    @property
    def pose(self) -> Pose2D:
        return Pose2D(self.x_m, self.y_m, self.theta_rad)


@dataclass
class _Ball:
    x_m: float = 0.0
    y_m: float = 0.0
    vx_mps: float = 0.0
    vy_mps: float = 0.0


@dataclass
class _World:
    t_s: float = 0.0
    robots: dict[RobotId, _Body] = field(default_factory=dict)
    ball: _Ball = field(default_factory=_Ball)


@dataclass
class _RefereeConfig:
    blue_attacks_positive_x_first_half: bool = True


@dataclass
class _Referee:
    """The game as the newest GameController packet tells it."""

    config: _RefereeConfig = field(default_factory=_RefereeConfig)
    state: GameState = GameState.INITIAL
    secondary_state: SecondaryState = SecondaryState.NORMAL
    sub_state: SubState = SubState.STOP
    scores: dict[Team, int] = field(default_factory=lambda: {Team.BLUE: 0, Team.RED: 0})
    history: list[Any] = field(default_factory=list)

    def follow(self, packet: Any, team_number: int, own: Team) -> None:
        """Take state, set play and scores from a decoded packet (HL v12 or HSL)."""
        self.state = GameState(packet.state) if packet.state in GameState._value2member_map_ else self.state
        if isinstance(packet, HslControlData):
            set_play = packet.set_play
            play = SetPlay(set_play) if set_play in SetPlay._value2member_map_ else SetPlay.NONE
            self.secondary_state = _SECONDARY_OF_SET_PLAY.get(play, SecondaryState.NORMAL)
            self.sub_state = SubState.STOP if packet.stopped else SubState.SET
        else:
            code = packet.secondary_state
            self.secondary_state = SecondaryState(code) if code in SecondaryState._value2member_map_ else \
                SecondaryState.NORMAL
            info = getattr(packet, "secondary_state_info", (0, 0))
            sub = info[1] if len(info) > 1 else 0
            self.sub_state = SubState(sub) if sub in SubState._value2member_map_ else SubState.STOP
        ours = other = 0
        for team in packet.teams:
            if team.team_number == team_number:
                ours = team.score
            else:
                other = team.score
        self.scores = {own: int(ours), own.other: int(other)}


class _BrainMatchView:
    """What ``McapRecorder`` reads of a match, from one brain (see the module docstring)."""

    def __init__(self, runner: Any, spec: Any) -> None:
        self.runner = runner
        agent = runner.agent
        self.robot: RobotId = spec.robot
        self.team_number = spec.team_number
        self.field = spec.field
        self.team_size = spec.team_size
        self.dt_s = runner.period_s
        self.steps = 0
        self.config = _Config(spec.tree_path, spec.robot.team, spec.field.name, spec.team_size, spec.seed, 600.0,
                              spec.particles)
        self.agents = {spec.robot: agent}
        self.world = _World(robots={spec.robot: _Body()})
        self.referee = _Referee()
        self._packet: Any = None

    @property
    def agent_events(self) -> list[Any]:
        return self.runner.agent.events

    @property
    def heard_gamecontroller(self) -> bool:
        """Whether a GameController packet has come (the score is known)."""
        return self._packet is not None

    def update(self) -> None:
        """Bring the view to the runner's current step."""
        runner = self.runner
        self.steps += 1
        wm = runner.agent.context.world_model
        self.world.t_s = runner.now_s
        body = self.world.robots[self.robot]
        pose = wm.robot_pose_field
        body.x_m, body.y_m, body.theta_rad, body.fallen = pose.x_m, pose.y_m, pose.theta_rad, bool(wm.fallen)
        ball = self.world.ball
        if wm.ball_location_known:
            ball.x_m, ball.y_m = wm.ball_field
            velocity = getattr(wm, "ball_velocity_field", None)
            if velocity is not None and all(math.isfinite(v) for v in velocity):
                ball.vx_mps, ball.vy_mps = velocity
        gc = runner.gc
        packet = getattr(gc, "latest", None) if gc is not None else None
        if packet is not None and packet is not self._packet:
            self._packet = packet
            self.referee.follow(packet, self.team_number, self.robot.team)


class _BrainSummary:
    """A brain log's ``/soccerbt/summary``: its robot, brain time and steps, and the score of the
    newest GameController packet (none without a packet), as ``soccerbt replay FOLDER`` lists."""

    def __init__(self, view: _BrainMatchView) -> None:
        self.view = view

    def to_dict(self) -> dict[str, Any]:
        view = self.view
        out: dict[str, Any] = {"robot": str(view.robot), "brain_s": round(view.world.t_s, 3), "steps": view.steps}
        if view.heard_gamecontroller:
            out["score"] = {team.name.lower(): int(goals) for team, goals in view.referee.scores.items()}
        return out


class BrainRecorder:
    """Records one brain's run to ``path`` (MCAP), as ``soccerbt run --record`` records a match.

    ``view`` lets several files (the flight recorder's segments) share one view of the brain, so
    that their steps continue; ``header_extra`` adds keys to the header."""

    def __init__(self, path: str | Path, runner: Any, spec: Any, *, chunk_bytes: int | None = None,
                 view: _BrainMatchView | None = None, header_extra: dict[str, Any] | None = None,
                 tap: Any = None, out: Any = None,
                 reasons_before: dict[str, dict[int, tuple[int, str]]] | None = None) -> None:
        """`tap` and `out`: as McapRecorder's (``--live``: the messages streamed too, or only);
        `reasons_before`: the latest reasons of the segment this file goes on from."""

        self.path = Path(path)
        self.view = view if view is not None else _BrainMatchView(runner, spec)
        extra = {"truth": "estimate", "source": "brain", "robot": str(spec.robot), **(header_extra or {})}
        options = {} if chunk_bytes is None else {"chunk_bytes": chunk_bytes}
        self.recorder = McapRecorder(path, header_extra=extra, tap=tap, out=out, reasons_before=reasons_before,
                                     **options)
        self.recorder.on_start(self.view)
        self._finished = False

    def on_step(self, runner: Any) -> None:
        self.view.update()
        self.recorder.on_step(self.view)

    def size_bytes(self) -> int:
        """Bytes written to the file so far (whole chunks)."""
        try:
            return self.recorder.file.tell()
        except (OSError, ValueError):
            return 0

    def flush(self) -> None:
        """Hand what is written to the operating system (a killed process then loses nothing of it)."""
        self.recorder.file.flush()

    def sync(self) -> None:
        """Push what is written to the disk (a power cut then loses at most the open chunk)."""
        f = self.recorder.file
        f.flush()
        os.fsync(f.fileno())

    def abandon(self) -> None:
        """Close the file as it is, after a failed write (no summary: a reader opens it up to its
        last whole chunk); nothing more is written."""
        self._finished = True
        try:
            self.recorder.file.close()
        except (OSError, ValueError):
            pass

    def finish(self) -> None:
        """The summary (the score of the newest GameController packet, when one came), then
        MCAP's summary section; closes the file."""
        if self._finished:
            return
        self._finished = True
        self.recorder.finish(_BrainSummary(self.view))
