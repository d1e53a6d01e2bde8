"""One robot's brain as a program of its own: ``soccerbt brain``.

- ``team_udp``: team messages over UDP as on the field (a compact binary codec of
  ``TeamMessage``, broadcast to port 10000 + team number), the ``TeamLink`` of a robot.
- ``clock``: the brain's clock: the wall clock (monotonic), or ROS 2's ``/clock`` of a
  simulator (``--sim-time``).
- ``runner``: ``BrainRunner``: the 100 Hz loop around one ``Agent`` (GameController receiver,
  team link, driver, hot reload, recording), with the step-time statistics, deadline misses,
  and the safety stop on exit, on an exception, on the emergency stop and on stale inputs.
- ``cli``: the ``soccerbt brain`` command.

May import everything below the match floor (agent, brain_setup, gamecontroller, drivers,
services, world) and the replay recorder. Importing this package imports nothing heavy; DDS is
only imported by the Booster driver when one is opened.
"""
