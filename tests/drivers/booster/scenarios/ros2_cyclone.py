"""Cyclone side of the ROS 2 check: publishes robot blue1's topics and /clock (sec 42) and
listens on /clock, until "stop" arrives on stdin. Prints {"ready": ...}, then the clock seconds
it heard."""
from __future__ import annotations

import sys
import threading

from _common import emit

from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.connect import open_transport
from soccerbt.drivers.booster.topics import TOPICS


def main() -> None:
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    transport = open_transport("cyclone", domain=0, interface="lo")
    endpoints = {}
    for key, spec in TOPICS.items():
        if spec.direction == "in" or key == "loco_request":  # what a simulator serves, and the brain's requests
            endpoints[key] = transport.publisher(spec.name("blue1"), spec.message_type, spec.qos)
    endpoints["loco_request_reader"] = transport.subscription(TOPICS["loco_request"].name("blue1"), m.RpcReqMsg,
                                                              "command", depth=8)
    clock_in = transport.subscription("/clock", m.Clock, "clock", depth=8)
    emit({"ready": True, "names": {k: e.topic for k, e in endpoints.items()}})
    heard = set()
    while not stop.is_set():
        endpoints["clock"].publish(m.Clock(clock=m.Time(sec=42, nanosec=500)))
        endpoints["odometer"].publish(m.Odometer(x=1.0, y=2.0, theta=0.5))
        heard.update((c.clock.sec, c.clock.nanosec) for c in clock_in.take())
        stop.wait(0.01)
    emit({"heard": sorted(heard), "dropped": clock_in.dropped})
    transport.close()


if __name__ == "__main__":
    main()
