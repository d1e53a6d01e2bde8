"""Compiled hot paths, optional: ``recording`` is the C module ``soccerbt.native._recording``
when it was built at install (setuptools builds it when a C compiler is there), else None.

Every function of it has a pure-Python twin beside its user, used when ``recording`` is None:
the watched status slot in ``soccerbt.nodes.observe``; in ``soccerbt.log``, the blackboard
diff, a robot's tick, a step's truth and a repeated field joined (``tick_encode``) and a brain's
inputs (``inputs``): the log's protobuf messages, written as protobuf's own serializer writes
them. Both give the same results (tests run
both on the same inputs, and a match recorded either way gives the same bytes). ``SOCCERBT_NATIVE=0`` in the
environment leaves the compiled module out (the fallback, as on a machine without a compiler).
A build whose ``API_VERSION`` is not this package's (an in-place build left from an older
source: reinstall to rebuild) is not used either.

Knows nothing of soccer; imports nothing of soccerbt.
"""
from __future__ import annotations

import os
from types import ModuleType

__all__ = ["recording", "load_recording", "API_VERSION"]

API_VERSION = 9  # what _recording.c's module says it implements: raise both when the C's API changes


def load_recording() -> ModuleType | None:
    """The compiled recording module, or None (not built, or SOCCERBT_NATIVE=0)."""
    if os.environ.get("SOCCERBT_NATIVE", "1").strip() == "0":
        return None
    try:  # deferred: optional dependency: the C extension is built only where a compiler was
        from soccerbt.native import _recording
    except ImportError:
        return None
    if getattr(_recording, "API_VERSION", None) != API_VERSION:
        return None
    return _recording


recording = load_recording()
