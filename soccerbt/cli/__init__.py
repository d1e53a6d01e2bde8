"""What every command shares: option values, the match options, the output checks, the summaries, the display.

- ``arguments``: value types of options (a positive number, a port, a field name, a seed, ...).
- ``match_options``: the options that say which match to play (``--seconds``, ``--field``,
  ``--team-size``, ``--seed``, the trees, ...) and the ``MatchConfig`` they ask for.
- ``outputs``: every file a command writes is checked before any work (``check_output_path``,
  ``check_outputs``: never over an input or a file a tree includes, two options never on one
  file; ``record_name_problem``: a replay log is FILE.mcap), written atomically through a
  temporary file created exclusively, or through to a device or FIFO, never replacing one
  (``write_atomically``), and a recording that fails stops without stopping the match
  (``GuardedRecorder``).
- ``summary``: the progress line, the human summary and the ``--json`` object of a match.
- ``display``: whether a window can open (``display_available``).
- ``values``: a blackboard or port value on one line, as the viewers and the text tools show it.

The floor above ``soccerbt.match``: may import it and below; every command (``brain``, ``sim``,
``run``, ``replay``, ...) may import this. Imports neither pygame nor scipy (the commands'
start-up stays light).
"""
