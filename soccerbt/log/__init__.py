"""The replay log as a library: its MCAP format, the writer, the reader, folders of logs, old formats.

- ``format``: channel names, schemas and message layouts (the only module that knows them),
  the checks of what a reader reads, and ``ReplayError``; the JSON schemas it embeds are in
  ``schemas``.
- ``writer``: ``McapRecorder``, the observer of a match (or of a brain) that writes the log
  (``make_recorder``), on ``LogWriter`` (an MCAP file of the log's channels); ``tick_encode``:
  what it encodes each tick (soccerbt.native's compiled functions or their twins);
  ``tree_watch``: a tree's status stream shared by its recorders; ``mcap_append``: MCAP
  messages appended cheaply; ``scene_update``: the ``/foxglove/scene`` message; ``inputs``: each
  brain's inputs as recorded (what a re-run feeds).
- ``reader``: ``McapLog``, a log opened for seeking: steps, a robot's tree and blackboard at any
  step; on ``mcap_chunks``: the MCAP file's chunks indexed by step, damaged chunks skipped, the
  work of decompressing them bounded.
- ``listing``: a folder's logs read cheaply; ``convert``: a JSON-lines log of an earlier
  soccerbt converted once into MCAP.

Floor: above ``soccerbt.cli`` (which it may import, with ``soccerbt.match`` and below); below the
re-simulation (``soccerbt.resim``), the live stream (``soccerbt.live``), the robot's program and
the served simulator, which import it. Knows no viewer.
"""
