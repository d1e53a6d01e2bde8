"""The RoboCup GameController: packet codec, UDP receiver and return sender, blackboard
adapter, and the referee that plays the GameController's part in simulated matches.

- ``protocol``: HL v12 data packets and HL v2 / HSL v4 return packets (``decode``, ``encode``,
  ``PacketError``), with the snake_case field names of the C structs; ``decode`` dispatches on
  version and length to HL v12 or to ``hsl_protocol`` (HSL control messages v19 and v20, the
  status message v4 builder ``status_message``); what both share is in ``wire``, below both.
- ``receiver``: ``GameControllerReceiver``, the non-blocking UDP listener of one robot.
- ``adapter``: ``GameControllerAdapter``, packets to gc_* blackboard entries and edge events.
- ``hl_referee``: ``Referee``, the HL v12 GameController's part in simulated matches, on
  ``referee_common`` (``RefereeWorld``, ``RefereeConfig``, the records: what every referee
  shares); ``referee_broadcaster``: ``RefereeBroadcaster`` sends a referee's packets over UDP.
- ``hsl_referee``: ``HslReferee`` and ``HslRefereeConfig``, the HSL GameController's part (v19/v20
  packets and laws); ``hsl_knockout``: ``KnockoutReferee``, extra time and the shoot-out;
  ``referee_factory``: ``make_referee(world, config, gc_version)`` picks one of them.
- ``scripted_game``: ``ScriptedGame``, the scripted games of ``soccerbt gc send`` and their
  language; ``cli``: ``soccerbt gc``.

May import soccerbt.world and soccerbt.blackboard. Importing it opens no socket.
"""

from soccerbt.gamecontroller.adapter import (
    ConnectionChanged,
    GameControllerAdapter,
    GcEvent,
    GoalScored,
    HalfChanged,
    KickOffChanged,
    PenaltyEnded,
    PenaltyStarted,
    StateChanged,
    SubStateChanged,
)
from soccerbt.gamecontroller.hl_referee import Referee
from soccerbt.gamecontroller.hsl_protocol import (
    CompetitionType,
    GamePhase,
    HslControlData,
    HslRobotInfoV19,
    HslRobotInfoV20,
    HslTeamInfo,
    PenaltyV19,
    PenaltyV20,
    SetPlay,
    penalty_meaning,
    status_message,
)
from soccerbt.gamecontroller.hsl_referee import HslReferee, HslRefereeConfig
from soccerbt.gamecontroller.protocol import (
    GameControlData,
    GameState,
    HslReturnData,
    PacketError,
    Penalty,
    ReturnData,
    ReturnMessage,
    RobotInfo,
    SecondaryState,
    SubState,
    TeamInfo,
    decode,
    decode_return,
    encode,
    encode_return,
)
from soccerbt.gamecontroller.receiver import GameControllerReceiver, ReceiverCounters
from soccerbt.gamecontroller.referee_broadcaster import RefereeBroadcaster
from soccerbt.gamecontroller.referee_common import RefereeConfig, RefereeRecord, RefereeWorld
from soccerbt.gamecontroller.referee_factory import make_referee

__all__ = [
    "CompetitionType",
    "GamePhase",
    "HslControlData",
    "HslRobotInfoV19",
    "HslRobotInfoV20",
    "HslTeamInfo",
    "PenaltyV19",
    "PenaltyV20",
    "SetPlay",
    "penalty_meaning",
    "status_message",
    "ConnectionChanged",
    "GameControlData",
    "GameControllerAdapter",
    "GameControllerReceiver",
    "GameState",
    "GcEvent",
    "GoalScored",
    "HalfChanged",
    "HslReturnData",
    "KickOffChanged",
    "PacketError",
    "Penalty",
    "PenaltyEnded",
    "PenaltyStarted",
    "ReceiverCounters",
    "Referee",
    "RefereeBroadcaster",
    "RefereeConfig",
    "RefereeRecord",
    "RefereeWorld",
    "ReturnData",
    "ReturnMessage",
    "RobotInfo",
    "SecondaryState",
    "StateChanged",
    "SubState",
    "SubStateChanged",
    "TeamInfo",
    "decode",
    "decode_return",
    "encode",
    "encode_return",
    "HslReferee",
    "HslRefereeConfig",
    "make_referee",
]
