"""Groot2 connects to a running soccerbt tree over BT.CPP 4.10's Groot2 monitor protocol (ZeroMQ).

- `protocol`: request types, headers, hooks, the status and transition buffers (no sockets);
- `codec`: the blackboard reply (ExportBlackboardToJSON as nlohmann's MessagePack);
- `tree_xml`: the full-tree reply (WriteTreeToXML with uids and every model, TinyXML2's text);
- `sockets`: `GrootSockets`, the REP port and the PUB port above it and the thread that answers
  (pyzmq, the ``groot`` extra, imported only when a publisher starts);
- `publisher`: `Groot2Publisher`, one live tree served on them (hooks, heartbeat);
- `robots`: publishers for the robots of a match (`--groot [PORT]`: robot i at PORT + 2i);
- `recorded`: `Groot2RecordedPublisher`, a recorded robot's tree served as a replay plays it
  (``soccerbt replay LOG --robot R --groot``: hook requests refused).

docs/groot.md says how to connect, what the port exposes and what is not done yet.
"""
from soccerbt.groot.protocol import PROTOCOL_ID, Hook, RequestType
from soccerbt.groot.publisher import DEFAULT_HOST, DEFAULT_PORT, Groot2Publisher
from soccerbt.groot.sockets import GrootUnavailable

__all__ = ["PROTOCOL_ID", "Hook", "RequestType", "DEFAULT_HOST", "DEFAULT_PORT", "Groot2Publisher",
           "GrootUnavailable"]
