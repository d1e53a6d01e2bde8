"""``open_transport``: a Transport by name ("cyclone" or "memory"), above both implementations.

``transport`` defines the interface and the in-process bus; ``cyclone`` implements it with
Cyclone DDS (imported only when asked for). This module sits above both so that neither
imports the other.
"""
from __future__ import annotations

from typing import Any

from soccerbt.drivers.booster.transport import TRANSPORT_KINDS, MemoryTransport, Transport, TransportError, memory_bus

__all__ = ["open_transport"]


def open_transport(kind: str, *, domain: int = 0, interface: str | None = None, **options: Any) -> Transport:
    """A transport of ``kind``:

    * ``"memory"``: a ``MemoryTransport`` on ``options["bus"]`` or the process-wide bus of
      ``domain``; ``interface`` is ignored;
    * ``"cyclone"``: a ``CycloneTransport(domain, interface, **options)`` (cyclonedds is imported
      only here; options such as ``fastdds_compat=True``).
    """
    if kind == "memory":
        bus = options.pop("bus", None)
        if options:
            raise TypeError(f"memory transport: unknown options {sorted(options)}")
        return MemoryTransport(bus if bus is not None else memory_bus(domain))
    if kind == "cyclone":
        try:  # deferred: optional dependency (cyclonedds, the robot extra)
            from soccerbt.drivers.booster.cyclone import CycloneTransport
        except ImportError as exc:
            raise TransportError(
                f"the cyclone transport needs cyclonedds (pip install 'soccerbt[robot]'): {exc}"
            ) from None
        return CycloneTransport(domain=domain, interface=interface, **options)
    raise ValueError(f"unknown transport kind {kind!r} (known: {', '.join(TRANSPORT_KINDS)})")
