"""``soccerbt replay``: the replay window and the text tools on a log (``soccerbt.log``).

- ``replay_cli``: ``soccerbt replay`` (and ``replay diff``, ``replay convert``, ``replay derive``).
- ``tree_tools``: the tree at a tick (with the nodes' reasons), a node's transitions,
  ``--info``, ``--btlog``.
- ``log_diff``: ``replay diff``, where two recorded runs part.
- ``search``: node references (``#UID``, a path, a name several nodes share) and ``--find``
  conditions over statuses, reasons and the blackboard.
- ``mcap_source``: the replay window's source (scenes, robot states, searches; no pygame).
- ``mcap_view``: the replay window (the field of ``tools.viewer`` and the tree panel).
- ``connect``: ``replay --connect``, the window on a live stream (``soccerbt.live.client``).

May import ``soccerbt.tools.viewer`` (only ``mcap_view`` and what opens the window: the text
tools stay free of pygame), ``soccerbt.resim``, ``soccerbt.live``, ``soccerbt.log`` and below;
nothing of ``tools.batch``.
"""
