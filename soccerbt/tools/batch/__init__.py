"""Many seeded matches: batch runs, parameter sweeps and their statistics.

- ``batch``: planning games (seeds, colours), ``run_batch``, totals, the ``--json`` shape.
- ``batch_pool``: playing ``Job``s on worker processes or Ray, timeouts and retries.
- ``batch_store``: ``--out DIR``, a game per file, resuming a batch.
- ``stats``: Wilson and Student t intervals, ``head_to_head``.
- ``sweep``: node port values over a grid or random draws, the tree editor, the best tree.
- ``batch_cli`` and ``sweep_cli``: ``soccerbt batch`` and ``soccerbt sweep``.

May import ``soccerbt.cli``, ``soccerbt.tools.replay`` (the recorder, for ``--record``)
and ``soccerbt.match`` and below; nothing of ``tools.viewer``.
"""
