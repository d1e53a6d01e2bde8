"""What a person runs on top: the viewer, the replay's window and text tools, batches, and the
commands that open a window.

- ``viewer/``: the pygame field viewer (scene, rendering, the window, the tree panel).
- ``replay/``: ``soccerbt replay``: the replay window and the text tools on a log
  (``soccerbt.log`` is the log itself, ``soccerbt.resim`` its re-runs, ``soccerbt.live`` its stream).
- ``batch/``: batch runs and sweeps with their statistics (``soccerbt batch``, ``sweep``).
- ``run_cli``, ``view_cli`` and ``sim_cli``: ``soccerbt run``, ``soccerbt view`` and ``soccerbt sim``,
  which play a match and may show it: they sit above the packages.

Floors inside tools, from the ground up (a module imports only from its own floor or below):
``viewer`` -> ``replay`` -> ``batch`` -> ``run_cli``, ``view_cli``, ``sim_cli``. Every package may
import what lies below ``soccerbt.tools`` (``soccerbt.serve`` and down). Package ``__init__``
modules import nothing, so a command imports only what it needs.
"""
