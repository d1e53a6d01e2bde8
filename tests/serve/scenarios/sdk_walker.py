"""The vendor SDK (booster_robotics_sdk_python) drives the served robot under the plain names:
its odometer, fall-down, low-state and remote-controller subscribers, and B1LocoClient.

1. wait for a sample of every subscriber;
2. ``Move(0, 0, 0)`` until the robot answers (the first requests can be lost before discovery
   matched the two sides: the SDK then raises code 100);
3. ``Move(0.3, 0, 0)`` every 0.05 s for ``walk_s`` (the served robot stops after 0.5 s without
   requests, as it does when its brain is gone), then ``Move(0, 0, 0)`` every 0.05 s for 1 s;
4. ``RotateHead(pitch, yaw)`` every 0.05 s for ``head_s``;
5. ``WaveHand``: an api id the served robot does not serve.

Prints one JSON object (the odometer at each phase, the last low-state head joints, the
fall-down and remote-controller samples, the calls' outcomes) and exits at once.
Arguments: walk_s head_s pitch yaw."""
from __future__ import annotations

import os
import sys
import threading
import time

import booster_robotics_sdk_python as sdk

sys.path.insert(0, os.path.dirname(__file__))
from _common import emit, wait_for  # noqa: E402


def main() -> None:
    walk_s, head_s, pitch, yaw = (float(a) for a in sys.argv[1:5])
    started = time.monotonic()
    sdk.ChannelFactory.Instance().Init(0, "lo")
    lock = threading.Lock()
    latest: dict[str, object] = {}
    counts = {"odometer": 0, "fall_down": 0, "low_state": 0, "remote": 0}
    fall_states: set[tuple[int, bool]] = set()
    remotes: set[str] = set()

    def keep(key: str, value: object) -> None:
        with lock:
            latest[key] = value
            counts[key] += 1

    def on_fall(s: object) -> None:
        value = (int(s.fall_down_state), bool(s.is_recovery_available))
        keep("fall_down", list(value))
        with lock:
            fall_states.add(value)

    def on_remote(s: object) -> None:
        value = {"event": int(s.event), "axes": [s.lx, s.ly, s.rx, s.ry],
                 "buttons": [bool(getattr(s, b)) for b in ("a", "b", "x", "y", "lb", "rb", "lt", "rt", "ls", "rs",
                                                           "back", "start")],
                 "hats": [bool(getattr(s, h)) for h in ("hat_u", "hat_d", "hat_l", "hat_r", "hat_lu", "hat_ld",
                                                        "hat_ru", "hat_rd")]}
        keep("remote", value)
        with lock:
            remotes.add(repr(value))

    subs = [
        sdk.B1OdometerStateSubscriber(lambda s: keep("odometer", [s.x, s.y, s.theta])),
        sdk.B1FallDownStateSubscriber(on_fall),
        sdk.B1LowStateSubscriber(lambda s: keep("low_state", {
            "serial": len(s.motor_state_serial), "head_q": [x.q for x in list(s.motor_state_serial)[:2]],
            "rpy": list(s.imu_state.rpy)})),
        sdk.B1RemoteControllerStateSubscriber(on_remote),
    ]
    for sub in subs:
        sub.InitChannel()
    out: dict[str, object] = {}
    out["all_in_s"] = wait_for(lambda: all(counts.values()), 20)

    def odometer() -> list[float]:
        with lock:
            return list(latest["odometer"])  # type: ignore[arg-type]

    client = sdk.B1LocoClient()
    client.Init()
    attempts, errors = 0, []
    t0 = time.monotonic()
    while time.monotonic() - t0 < 20:
        attempts += 1
        try:
            client.Move(0.0, 0.0, 0.0)
            break
        except RuntimeError as exc:
            errors.append(str(exc))
    out["first_answer"] = {"attempts": attempts, "errors": errors, "s": time.monotonic() - t0}

    def repeat(call: object, seconds: float) -> dict[str, object]:
        ok = failed = 0
        failures: list[str] = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                call()  # type: ignore[operator]
                ok += 1
            except RuntimeError as exc:
                failed += 1
                failures.append(str(exc))
            time.sleep(0.05)
        return {"ok": ok, "failed": failed, "failures": failures[:3]}

    out["odometer_before"] = odometer()
    out["walk"] = repeat(lambda: client.Move(0.3, 0.0, 0.0), walk_s)
    out["odometer_walked"] = odometer()
    out["stop"] = repeat(lambda: client.Move(0.0, 0.0, 0.0), 0.6)
    out["odometer_stopping"] = odometer()
    time.sleep(0.4)  # the robot stands: the odometer stays where it is
    out["odometer_stopped"] = odometer()
    with lock:
        out["head_before"] = latest["low_state"]["head_q"]  # type: ignore[index]
    out["head"] = repeat(lambda: client.RotateHead(pitch, yaw), head_s)
    with lock:
        out["low_state"] = latest["low_state"]
        out["fall_down"] = latest["fall_down"]
        out["fall_states"] = sorted(fall_states)
        out["remotes"] = sorted(remotes)
        out["remote"] = latest["remote"]
        out["counts"] = dict(counts)
    try:
        client.WaveHand(sdk.HandAction.kHandOpen)
        out["wave"] = {"ok": True}
    except RuntimeError as exc:
        out["wave"] = {"ok": False, "error": str(exc)}
    out["wall_s"] = time.monotonic() - started
    emit(out)
    os._exit(0)  # the SDK's teardown is not needed


if __name__ == "__main__":
    main()
