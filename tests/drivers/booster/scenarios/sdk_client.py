"""The vendor SDK (booster_robotics_sdk_python) as a client of the robot: its subscribers for
odometer, fall-down, low state and remote controller, then B1LocoClient.Move(0.3, 0.1, 0.2) twice
once a line arrives on stdin (after the robot matched the client: a request sent before the
robot's reader matched the client's writer is lost, as DDS loses early samples). Prints
{"loco_client": "initialized"}, then its result as JSON, and exits at once (the SDK's teardown
is not needed)."""
from __future__ import annotations

import os
import sys
import time

import booster_robotics_sdk_python as sdk
from _common import emit, wait_for


def main() -> None:
    started = time.monotonic()
    sdk.ChannelFactory.Instance().Init(0, "lo")
    got: dict[str, list[object]] = {"odometer": [], "fall_down": [], "low_state": [], "remote": []}
    first: dict[str, float] = {}

    def keep(key: str, value: object) -> None:
        first.setdefault(key, time.monotonic() - started)
        if len(got[key]) < 3:
            got[key].append(value)

    subs = [
        sdk.B1OdometerStateSubscriber(lambda s: keep("odometer", [s.x, s.y, s.theta])),
        sdk.B1FallDownStateSubscriber(
            lambda s: keep("fall_down", [int(s.fall_down_state), bool(s.is_recovery_available)])
        ),
        sdk.B1LowStateSubscriber(
            lambda s: keep(
                "low_state",
                {
                    "rpy": list(s.imu_state.rpy),
                    "gyro": list(s.imu_state.gyro),
                    "acc": list(s.imu_state.acc),
                    "parallel": len(s.motor_state_parallel),
                    "serial": [
                        [int(x.mode), x.q, x.tau_est, int(x.temperature), int(x.lost), list(x.reserve)]
                        for x in s.motor_state_serial
                    ],
                },
            )
        ),
        sdk.B1RemoteControllerStateSubscriber(
            lambda s: keep(
                "remote",
                {
                    "event": int(s.event),
                    "lx": s.lx,
                    "ly": s.ly,
                    "a": bool(s.a),
                    "b": bool(s.b),
                    "start": bool(s.start),
                    "hat_u": bool(s.hat_u),
                    "reserved": int(s.reserved),
                },
            )
        ),
    ]
    for sub in subs:
        sub.InitChannel()
    all_in_s = wait_for(lambda: all(got.values()), 15)
    client = sdk.B1LocoClient()
    client.Init()
    emit({"loco_client": "initialized"})
    sys.stdin.readline()  # "go": the robot has matched our request writer and response reader
    moves = []
    for _ in range(2):
        t0 = time.monotonic()
        try:
            value = client.Move(0.3, 0.1, 0.2)
            moves.append({"ok": True, "value": value, "s": time.monotonic() - t0})
        except RuntimeError as exc:
            moves.append({"ok": False, "error": str(exc), "s": time.monotonic() - t0})
    emit({"got": got, "first_s": first, "all_in_s": all_in_s, "moves": moves})
    os._exit(0)


if __name__ == "__main__":
    main()
