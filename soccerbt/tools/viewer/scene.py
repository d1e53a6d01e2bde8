"""A drawable snapshot of a match: what the viewer shows, decoupled from how a match runs.

``Scene`` holds plain values in the world frame (truth and each robot's estimates converted
back from its team frame), so the renderer needs nothing of the simulator, the trees or the
services, and tests can build scenes by hand. ``control_of(bb)`` names who controls a robot
from its blackboard (the pad adapter's keys), the same for the live viewer and the replay.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from soccerbt.gamecontroller.protocol import GameState, SecondaryState, SubState
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, Team


@dataclass(slots=True)
class SceneRobot:
    """One robot as drawn: its truth and what it believes, all in the world frame."""

    key: str  # e.g. "blue1": unique per match, used for selection
    team: Team
    number: int
    pose: Pose2D
    fallen: bool = False
    removed: bool = False
    penalised: bool = False
    role: str = ""
    decision: str = ""
    decision_stale: bool = False  # the node that wrote ``decision`` did not run in this tick
    control: str = ""  # "manual" or "assist" while a person drives or assists it ("" in full auto)
    estimate: Pose2D | None = None
    covariance: np.ndarray | None = None  # 3x3 (x, y, theta), world frame
    particles: np.ndarray | None = None  # N x 3 (x_m, y_m, theta_rad), world frame
    ball_estimate: tuple[float, float] | None = None
    path: list[tuple[float, float]] = field(default_factory=list)
    kick_direction_rad: float | None = None  # world frame


def control_of(get) -> str:
    """"manual" (control_state 1 or a held stick), "assist" (an assisted chase or kick) or ""
    (full auto) from a blackboard getter ``get(key)``."""
    if get("assist_chase") or get("assist_kick"):
        return "assist"
    if get("go_manual") or get("control_state") == 1:
        return "manual"
    return ""


@dataclass(slots=True)
class Banner:
    """The GameController's view of the game: what a scoreboard shows."""

    state: str = "INITIAL"
    sub_state: str = ""  # e.g. "THROW_IN GET_READY"
    score_blue: int = 0
    score_red: int = 0
    secs_remaining: int = 0
    secondary_time: int = 0
    first_half: bool = True
    kick_off: str = ""  # "blue", "red" or ""
    penalties: list[str] = field(default_factory=list)  # e.g. "red2 34 7s"


_STATE_NAMES = {int(s): s.name for s in GameState}
_SECONDARY_NAMES = {int(s): s.name for s in SecondaryState}
_SUB_NAMES = {int(s): s.name for s in SubState}


def gc_words(state: int, secondary: int, sub: int) -> tuple[str, str]:
    """A scoreboard's words for a referee's (state, secondary state, sub-state) codes: the state
    name and the set play with its phase ("THROW_IN STOP"), "" outside set plays. The live viewer
    and both replays name the game the same way."""
    sub_text = ""
    if secondary != int(SecondaryState.NORMAL):
        sub_text = _SECONDARY_NAMES.get(secondary, str(secondary))
        if secondary >= int(SecondaryState.DIRECT_FREEKICK):
            sub_text += " " + _SUB_NAMES.get(sub, "")
    return _STATE_NAMES.get(state, str(state)), sub_text.strip()


@dataclass(frozen=True, slots=True)
class Notice:
    """Something that happened, for a toast in the window (and a line on stderr).

    ``level`` is "info", "ok", "warn" or "error"; ``echo`` is False when a logger of the match
    already wrote the same line to stderr (the viewer then does not print it again)."""

    text: str
    level: str = "info"
    echo: bool = True


@dataclass(frozen=True, slots=True)
class StaleTree:
    """Robots running a tree that is not the file on disk: a hot reload of ``file`` failed with
    ``error`` (``path:line: message``) at ``since_t_s``, and the last good version still runs.
    Shown until a good version loads."""

    robots: tuple[str, ...]
    file: str
    error: str
    since_t_s: float

    def headline(self) -> str:
        """One line for the mark: who, which file, the error's first line."""
        first = self.error.strip().splitlines()[0] if self.error.strip() else "(no message)"
        return (f"STALE TREE: {', '.join(self.robots)} run the last good {self.file}; the file on disk does not "
                f"load (since t={self.since_t_s:.1f}s): {first}")


@dataclass(slots=True)
class TreeLine:
    """One node of the selected robot's tree as the side panel lists it."""

    depth: int
    name: str
    status: str  # SUCCESS, FAILURE, RUNNING, SKIPPED, IDLE/INVALID


@dataclass(slots=True)
class Scene:
    """Everything one frame draws."""

    field: Field
    t_s: float
    ball: tuple[float, float]
    robots: list[SceneRobot]
    banner: Banner = field(default_factory=Banner)
    tree_lines: list[TreeLine] = field(default_factory=list)  # of the selected robot
    blackboard_changes: list[tuple[str, str]] = field(default_factory=list)
    speed_label: str = ""
    estop: str | None = None  # set while the emergency stop holds every robot (its reason, maybe "")
    goto_targets: dict[str, tuple[float, float]] = field(default_factory=dict)  # pending click-to-go, world
    status_line: str = ""  # the viewer's own state: mirrored view, layers on
    stale_trees: list[StaleTree] = field(default_factory=list)  # failed hot reloads not yet fixed

    def robot(self, key: str) -> SceneRobot | None:
        """The robot with this key, if it is in the scene."""
        for robot in self.robots:
            if robot.key == key:
                return robot
        return None
