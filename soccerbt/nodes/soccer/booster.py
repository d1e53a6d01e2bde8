"""Booster robocup_demo's node types, implemented on our services: the registry.

Same ids, ports and defaults as ``../shared/booster/nodes.json``; behaviour as described in
``../shared/booster/README.md``. Every ``SyncActionNode`` returns SUCCESS on every path; only
Kick, RLVisionKick, GoToFreekickPosition, CamFastScan, TurnOnSpot, RobotFindBall and StandStill
(``StatefulActionNode``) return RUNNING, and their ``on_halted`` stops the robot.

Nodes read their ports and the world model through ``self.context`` (a ``RobotContext``) and
write the command being built; the geometry lives in ``skills``. Per-instance state (head scan
index, decision hysteresis) stays in the node, so two robots never share it (Booster keeps some
of it in C++ statics).

The nodes live by area in booster_motion (head and plain motion), booster_positioning,
booster_ball (decisions and ball handling) and booster_localization; the utilities (WaveHand,
PrintMsg) and ``BOOSTER_NODE_TYPES`` (node id -> class, the main branch's library) here, which
also re-exports every class; ``booster_node_types(version)`` is the library of a Booster version
(soccerbt.nodes.soccer.versions).
"""
from __future__ import annotations

from soccerbt.nodes.soccer._base import SUCCESS, SoccerSyncNode
from soccerbt.nodes.soccer._base import booster_input as _in
from soccerbt.nodes.soccer.booster_ball import (
    Adjust,
    CalcKickDir,
    Chase,
    GoalieDecide,
    Kick,
    RLVisionKick,
    SimpleChase,
    StrikerDecide,
)
from soccerbt.nodes.soccer.booster_localization import (
    CalibrateOdom,
    RobocupWalk,
    SelfLocate,
    SelfLocate1M,
    SelfLocate2T,
    SelfLocate2X,
    SelfLocateBorder,
    SelfLocateEnterField,
    SelfLocateLT,
    SelfLocatePT,
)
from soccerbt.nodes.soccer.booster_motion import (
    CamFastScan,
    CamFindBall,
    CamScanField,
    CamTrackBall,
    CheckAndStandUp,
    GoBackInField,
    MoveHead,
    MoveToPoseOnField,
    RobotFindBall,
    SetVelocity,
    StandStill,
    StepOnSpot,
    TurnOnSpot,
)
from soccerbt.nodes.soccer.booster_positioning import (
    Assist,
    GoToFreekickPosition,
    GoToFreekickPosition2026,
    GoToFreekickPositionAuto,
    GoToGoalBlockingPosition,
    GoToReadyPosition,
    report_freekick_target,
)
from soccerbt.nodes.soccer.versions import DEFAULT_BOOSTER_VERSION, check_version

__all__ = ["BOOSTER_NODE_TYPES", "booster_node_types", "RobocupWalk", "GoToFreekickPosition2026",
           "GoToFreekickPositionAuto", "report_freekick_target"]

_STRING = str  # the C++ port type of nodes.json

# --- utilities -------------------------------------------------------------------------------


class WaveHand(SoccerSyncNode):
    """Wave a hand (``action`` start/stop): logged, the simulated robot has no arms."""

    @classmethod
    def provided_ports(cls):
        return [_in("action", _STRING, "start")]

    def update(self):
        self.context.logger.debug("WaveHand %s", self.get_input("action"))
        return SUCCESS


class PrintMsg(SoccerSyncNode):
    """Log ``msg``."""

    @classmethod
    def provided_ports(cls):
        return [_in("msg", _STRING, None)]

    def update(self):
        try:
            msg = self.get_input("msg")
        except Exception:  # an unset message is not worth failing a tree
            msg = ""
        self.context.logger.info("%s", msg)
        return SUCCESS


BOOSTER_NODE_TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    RobotFindBall, Chase, SimpleChase, Adjust, Kick, StandStill, CalcKickDir, StrikerDecide,
    CamTrackBall, CamFindBall, CamFastScan, CamScanField, SetVelocity, StepOnSpot,
    GoToFreekickPosition, GoToReadyPosition, GoToGoalBlockingPosition, TurnOnSpot,
    MoveToPoseOnField, GoBackInField, GoalieDecide, WaveHand, MoveHead, CheckAndStandUp,
    RLVisionKick, Assist, CalibrateOdom, PrintMsg, SelfLocate, SelfLocateEnterField,
    SelfLocate1M, SelfLocateBorder, SelfLocate2T, SelfLocateLT, SelfLocatePT, SelfLocate2X,
)}


def booster_node_types(version: str = DEFAULT_BOOSTER_VERSION) -> dict[str, type]:
    """Node id -> class of Booster's node library of ``version`` ("main", "2026" or "auto")."""
    version = check_version(version, allow_auto=True)
    types = dict(BOOSTER_NODE_TYPES)
    if version == "main":
        return types
    types["RobocupWalk"] = RobocupWalk
    types["GoToFreekickPosition"] = GoToFreekickPosition2026 if version == "2026" else GoToFreekickPositionAuto
    return types
