"""The log streamed live: the Foxglove WebSocket server and its client.

- ``server``: ``--live [HOST:]PORT`` on ``run``, ``view``, ``brain`` and ``sim --serve``: the
  log's channels over the Foxglove WebSocket protocol (foxglove-sdk), fed by the log's writer.
- ``ws_client``: a small client of that protocol; ``client``: ``LiveLog``, a stream read as a
  growing log (what ``soccerbt replay --connect`` opens in the replay window).

Floor: above ``soccerbt.log``; below the robot's program, the served simulator and the tools.
"""
