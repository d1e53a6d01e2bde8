"""What observes or drives matches, a package per concern.

- ``cli/``: what every command shares (match options, output checks, summaries, display).
- ``viewer/``: the pygame field viewer (scene, rendering, the window, the tree panel).
- ``replay/``: the MCAP replay log (layout, recorder, reader, replay window, text tools,
  ``soccerbt replay``, converting old JSON-lines logs).
- ``batch/``: batch runs and sweeps with their statistics (``soccerbt batch``, ``sweep``).
- ``run_cli`` and ``view_cli``: ``soccerbt run`` and ``soccerbt view``, which play a match,
  show it and record it: they sit above the packages.

Floors inside tools, from the ground up (a module imports only from its own floor or below):
``cli`` -> ``viewer`` -> ``replay`` -> ``batch`` -> ``run_cli``, ``view_cli``. Every package may
import ``soccerbt.match`` and what is below it. Package ``__init__`` modules import nothing, so a
command imports only what it needs.
"""
