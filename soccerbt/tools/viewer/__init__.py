"""The pygame field viewer: what a match looks like, live or replayed.

- ``scene``: ``Scene`` and its parts, the plain data a frame draws (no pygame).
- ``render``: ``FieldRenderer`` draws a scene (field, robots, estimates, banner, layers).
- ``viewer``: ``Viewer`` (the window: pacing with ``Pacer``, selection, keys, screenshots) on
  any ``SceneSource``; ``view_match`` and ``save_match_screenshot`` for a running match.
- ``match_source``: ``MatchSceneSource``, the scenes of a running ``soccerbt.match.Match``
  (click-to-go, ball dragging). The replay's own source is ``tools.replay.mcap_view``.
- ``tree_panel``: ``TreePanel``, a robot's whole tree and blackboard at one step (the replay
  window draws it).

May import ``soccerbt.cli`` and ``soccerbt.match`` and below; nothing of
``tools.replay`` or ``tools.batch`` (the replay window builds on this package, not the other
way round). The ``view`` command is ``soccerbt.tools.view_cli``, above the packages: it also
records the match.
"""
