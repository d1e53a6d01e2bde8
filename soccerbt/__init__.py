"""soccerbt: BehaviorTree.CPP v4 XML behaviour trees on py_trees for RoboCup humanoid soccer.

Packages, from the ground up (a module imports only from its own floor or below):
world, blackboard -> services, gamecontroller, drivers -> nodes -> trees -> agent -> match
-> tools -> __main__.
"""

import os as _os

# pygame greets on stdout when imported; a command's stdout is for its own output (--json)
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

__version__ = "0.1.0"
