"""A minimal robot on Cyclone (``fastdds_compat``): publishes odometer, fall-down, low state and
remote controller samples on the plain names at 100 Hz and answers loco requests with status 0,
until a line "stop" arrives on stdin. Prints {"ready": ...}, {"loco_matched_s": ...} when a loco
client's endpoints have matched, then its result."""
from __future__ import annotations

import sys
import threading
import time

from _common import emit

from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.connect import open_transport
from soccerbt.drivers.booster.topics import TOPICS

ODOMETER = m.Odometer(x=1.5, y=-0.75, theta=0.25)
FALL = m.FallDownState(fall_down_state=m.FallDownState.HAS_FALLEN, is_recovery_available=True)
LOW = m.LowState(imu_state=m.ImuState(rpy=[0.125, -0.25, 1.5], gyro=[0.0, 0.5, -1.0], acc=[0.0, 0.0, 9.75]),
                 motor_state_parallel=[],
                 motor_state_serial=[m.MotorState(mode=1, q=0.5 * i, dq=0.0, ddq=0.0, tau_est=0.25, temperature=40,
                                                  lost=i, reserve=[0, 500]) for i in range(3)])
REMOTE = m.RemoteControllerState(event=1536, lx=-0.5, ly=0.25, a=True, start=True, hat_u=True, hat_pos=1)


def main() -> None:
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    transport = open_transport("cyclone", domain=0, interface="lo", fastdds_compat=True)
    started = time.monotonic()
    pubs = {key: transport.publisher(TOPICS[key].name(), TOPICS[key].message_type, TOPICS[key].qos)
            for key in ("odometer", "fall_down", "low_state", "remote_controller")}
    requests = transport.subscription(TOPICS["loco_request"].name(), m.RpcReqMsg, "command", depth=64)
    responses = transport.publisher(TOPICS["loco_response"].name(), m.RpcRespMsg, "response")
    emit({"ready": True, "topics": {k: p.topic for k, p in pubs.items()}, "request_topic": requests.topic})
    seen, first_match_s, loco_matched = [], None, False
    pending: list[tuple[str, float]] = []
    while not stop.is_set():
        pubs["odometer"].publish(ODOMETER)
        pubs["fall_down"].publish(FALL)
        pubs["low_state"].publish(LOW)
        pubs["remote_controller"].publish(REMOTE)
        if first_match_s is None and pubs["odometer"].matched():
            first_match_s = time.monotonic() - started
        if not loco_matched and requests.matched() and responses.matched():
            loco_matched = True  # a client's request writer and response reader are both matched
            emit({"loco_matched_s": time.monotonic() - started})
        for request in requests.take():
            seen.append({"uuid": request.uuid, "header": request.header, "body": request.body,
                         "responses_matched": responses.matched()})
            pending.append((request.uuid, time.monotonic()))
        # Answer once the response writer has matched the client's reader: discovery matches the
        # client's request writer and its response reader separately, and an answer sent before
        # the second match is lost (the SDK then fails the call with code 100 after 1 s).
        while pending and (responses.matched() or time.monotonic() - pending[0][1] > 0.5):
            responses.publish(m.RpcRespMsg(uuid=pending.pop(0)[0], header='{"status":0}', body=""))
        stop.wait(0.002 if seen else 0.01)
    relay = transport.relay.snapshot() if transport.relay is not None else None
    emit({"requests": seen, "dropped": requests.dropped, "first_match_s": first_match_s, "relay": relay,
          "matched": {k: p.matched() for k, p in pubs.items()}, "responses_matched": responses.matched()})
    transport.close()


if __name__ == "__main__":
    main()
