"""soccerbt: BehaviorTree.CPP v4 XML behaviour trees on py_trees for RoboCup humanoid soccer.

Packages, from the ground up (a module imports only from its own floor or below):
world, blackboard, native -> services, gamecontroller, drivers -> nodes -> trees -> agent,
brain_setup -> match -> cli -> log -> resim, live -> robot, serve -> tools -> __main__.

The version moves with every change a user can see (CHANGELOG.md); the log format has a version
of its own (soccerbt.log.format.FORMAT_VERSION).
"""

import os as _os
import warnings as _warnings

# pygame greets on stdout when imported; a command's stdout is for its own output (--json)
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# pygame 2.6 imports setuptools' deprecated pkg_resources at start-up (it falls back when it is
# missing), which setuptools 81 and later announce on every viewer start: nothing a user can act on
_warnings.filterwarnings("ignore", message="pkg_resources is deprecated", category=UserWarning,
                         module="pygame.pkgdata")

__version__ = "0.4.0"
