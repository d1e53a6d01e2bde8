"""Re-running recorded brains from the inputs a log holds.

- ``rerun``: ``soccerbt replay LOG --robot R --rerun``: one robot's brain re-run open loop
  through a tree (the recorded one, or another) and compared tick by tick (``compare``).
- ``verify``: ``soccerbt replay LOG --verify``: the match played again from the log's header and
  compared step by step.
- ``derive``: a log recorded with ``--record-mode inputs`` made whole by re-running every brain
  from its inputs (``derive_procs``: on every core), up to the first step that does not reproduce.
- ``compare``: two runs' ticks compared (the re-run's report, ``diff``'s and ``--verify``'s lines).

Floor: above ``soccerbt.log`` (its only way into a log); may import ``soccerbt.match`` and below.
"""
