"""The simulator as a team of robots: ``soccerbt sim --serve booster``.

- ``endpoint``: one simulated robot behind a Booster robot's interfaces: its sensor topics
  (detections and field lines from the camera model, odometer, low state, fall-down states, the
  remote controller, the head pose) and its loco service (Move, RotateHead, GetUp, ChangeMode,
  VisualKick answered as the robot answers them).
- ``served``: ``ServedMatch``: a match of the embedded simulator whose robots are driven by
  whoever speaks to their endpoints: the referee's packets over UDP, team messages counted
  against the budget, ``/clock`` published, real time or ``speed`` times faster.
- ``spawn``: one ``soccerbt brain`` process per robot, stopped at the end, their reports read.
- ``cli``: the ``soccerbt sim`` command.

May import match and everything below it, and the Booster driver's messages and transport.
"""
