"""soccerbt: BehaviorTree.CPP v4 XML behaviour trees on py_trees for RoboCup humanoid soccer.

Packages, from the ground up (a module imports only from its own floor or below):
world, blackboard, native -> services, gamecontroller, drivers -> nodes -> trees -> agent,
brain_setup -> match -> cli -> log -> resim, live -> robot, serve -> tools -> __main__.

The version moves with every change a user can see (CHANGELOG.md); the log format has a version
of its own (soccerbt.log.format.FORMAT_VERSION).
"""

import os as _os

# pygame greets on stdout when imported; a command's stdout is for its own output (--json)
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

__version__ = "0.2.0"
