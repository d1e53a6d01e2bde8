"""The replay log: MCAP, its layout, its writer and reader, the replay window and the text tools.

- ``logformat``: channel names, schemas and message layouts (the only module that knows them),
  and ``ReplayError``; the JSON schemas it embeds are in ``schemas``.
- ``scene_update``: the ``/foxglove/scene`` message (field lines, goals, robots, their estimates
  and ball beliefs, the ball) the recorder writes.
- ``mcap_recorder``: ``McapRecorder``, the match observer that writes the log
  (``make_recorder``), on ``LogWriter`` (an MCAP file of the log's channels); ``tick_encode``:
  what it encodes each tick (soccerbt.native's compiled functions or their twins).
- ``mcap_reader``: ``McapLog``, a log opened for seeking: steps, a robot's tree and blackboard
  at any step, damaged chunks skipped.
- ``tree_tools``: the tree at a tick (with the nodes' reasons), a node's transitions, ``diff``,
  ``--info``, ``--btlog``, ``--verify``.
- ``search``: node references (``#UID``, a path, a name several nodes share) and ``--find``
  conditions over statuses, reasons and the blackboard.
- ``mcap_source``: the replay window's source (scenes, robot states, searches; no pygame).
- ``mcap_view``: the replay window (the field of ``tools.viewer`` and the tree panel).
- ``convert``: a JSON-lines log of an earlier soccerbt converted once into MCAP.
- ``inputs``: each brain's inputs recorded per step (``/match/inputs``), what ``--rerun`` feeds.
- ``rerun`` (with ``rerun_compare``): ``--rerun``, a robot's brain re-run open loop through a
  tree and compared tick by tick.
- ``derive``: ``replay derive``, an inputs-only log (``--record-mode inputs``, the default)
  made whole by re-running every brain from its inputs, in one process per core
  (``derive_procs``); ``derive_cache``: what every reader of such a log opens, derived once and
  kept for the next reading.
- ``listing``: ``soccerbt replay FOLDER``, a folder's logs read cheaply.
- ``live``: ``--live``, the log's channels over the Foxglove WebSocket protocol (foxglove-sdk);
  ``ws_client``: a small client of that protocol; ``live_source``: ``replay --connect``, a live
  stream read as a growing log.
- ``replay_cli``: ``soccerbt replay`` (and ``replay diff``, ``replay convert``, ``replay derive``).

MCAP is the one log format. May import ``soccerbt.tools.cli``, ``soccerbt.tools.viewer``
(only ``mcap_view`` and ``replay_cli``'s window: the writer, the reader and the text tools stay
free of pygame) and ``soccerbt.match`` and below; nothing of ``tools.batch``.
"""
