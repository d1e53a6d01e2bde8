"""CycloneTransport in one process with two transports (two participants, one domain): matched
counts, keep-last depth, bounded non-blocking take, bad samples counted, errors, per-call cost.
Prints one JSON object."""
from __future__ import annotations

import struct
import time

from _common import emit, wait_for

from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.cyclone import CycloneTransport, ddspy_write
from soccerbt.drivers.booster.transport import TransportError


def cdr_string(text: bytes) -> bytes:
    raw = struct.pack("<I", len(text) + 1) + text + b"\0"
    return raw + b"\0" * ((-len(raw)) % 4)


def main() -> None:
    out: dict[str, object] = {}
    a = CycloneTransport(domain=0, interface="lo")
    b = CycloneTransport(domain=0, interface="lo")

    # matched counts and keep-last depth (reliable)
    pub = a.publisher("/soccerbt_test/odometer", m.Odometer, "reliable")
    deep = b.subscription("/soccerbt_test/odometer", m.Odometer, "reliable", depth=10)
    shallow = b.subscription("/soccerbt_test/odometer", m.Odometer, "reliable", depth=3)
    own = a.subscription("/soccerbt_test/odometer", m.Odometer, "reliable", depth=1)
    out["matched_after_s"] = wait_for(lambda: pub.matched() == 3 and deep.matched() == 1, 10)
    out["pub_matched"] = pub.matched()
    out["sub_matched"] = [deep.matched(), shallow.matched(), own.matched()]
    for i in range(10):
        pub.publish(m.Odometer(x=float(i), y=0.5, theta=-0.25))
    wait_for(lambda: False, 0.3)
    out["shallow"] = [o.x for o in shallow.take()]
    out["own"] = [o.x for o in own.take()]
    out["deep_first4"] = [o.x for o in deep.take(max_samples=4)]
    out["deep_rest"] = [o.x for o in deep.take(64)]
    start = time.perf_counter()
    out["deep_empty"] = deep.take()
    out["empty_take_s"] = time.perf_counter() - start
    out["take0"] = shallow.take(0)
    out["received"] = [deep.received, shallow.received, own.received]

    # sensor kind: best-effort reader, keep last depth
    spub = a.publisher("/soccerbt_test/fall", m.FallDownState, "sensor")
    ssub = b.subscription("/soccerbt_test/fall", m.FallDownState, "sensor", depth=1)
    wait_for(lambda: spub.matched() == 1 and ssub.matched() == 1, 10)
    for state in (0, 1, 2, 3, 1):
        spub.publish(m.FallDownState(fall_down_state=state, is_recovery_available=state == 1))
    wait_for(lambda: False, 0.3)
    out["sensor_last"] = [(f.fall_down_state, f.is_recovery_available) for f in ssub.take()]

    # bad samples: valid CDR that Cyclone accepts and our decoder refuses, and garbage Cyclone refuses
    rpub = a.publisher("/soccerbt_test/request", m.RpcReqMsg, "reliable")
    rsub = b.subscription("/soccerbt_test/request", m.RpcReqMsg, "reliable", depth=16)
    dpub = a.publisher("/soccerbt_test/detection", m.Detections, "reliable")
    dsub = b.subscription("/soccerbt_test/detection", m.Detections, "reliable", depth=16)
    wait_for(lambda: rpub.matched() == 1 and dpub.matched() == 1 and rsub.matched() == 1 and dsub.matched() == 1, 10)
    header = b"\x00\x01\x00\x00"
    codes = {
        "bad_utf8": ddspy_write(rpub._ref, header + cdr_string(b"\xff\xfeA") + cdr_string(b"") + cdr_string(b"")),
        "garbage": ddspy_write(rpub._ref, header + b"\x10\x00\x00\x00garbage"),
        "no_nul": ddspy_write(rpub._ref, header + struct.pack("<I", 4) + b"abcd" + cdr_string(b"") + cdr_string(b"")),
    }
    full = m.Detections(detected_objects=[m.DetectedObject()] * m.MAX_DETECTED_OBJECTS).encode()
    objects = full[24:-12]  # after the header and the count, before the three empty float sequences
    size = len(objects) // m.MAX_DETECTED_OBJECTS  # one more object (Cyclone checks that the result is valid CDR)
    too_many = full[:20] + struct.pack("<I", m.MAX_DETECTED_OBJECTS + 1) + objects + objects[:size] + full[-12:]
    codes["too_many_objects"] = ddspy_write(dpub._ref, too_many + b"\0" * ((-len(too_many)) % 4))
    rpub.publish(m.RpcReqMsg(uuid="good", header='{"api_id":2001}', body="{}"))
    dpub.publish(m.Detections(detected_objects=[m.DetectedObject(label="Ball", position_projection=[1.0, 2.0])]))
    wait_for(lambda: False, 0.3)
    out["write_codes"] = codes
    out["requests"] = [r.uuid for r in rsub.take()]
    out["requests_dropped"] = rsub.dropped
    out["requests_last_error"] = rsub.last_error
    out["detections"] = [len(d.detected_objects) for d in dsub.take()]
    out["detections_dropped"] = dsub.dropped
    out["detections_last_error"] = dsub.last_error

    # blocking waits: one subscription's, and one for several (the served match's requests)
    t0 = time.perf_counter()
    out["wait_empty"] = [rsub.wait(0.05), round(time.perf_counter() - t0, 3)]
    waiter = b.waiter([rsub, dsub])
    out["waiter_empty"] = waiter.wait(0.05)
    rpub.publish(m.RpcReqMsg(uuid="wake", header='{"api_id":2001}', body="{}"))
    out["wait_sample"] = rsub.wait(5.0)
    out["waiter_sample"] = waiter.wait(5.0)
    out["woken_by"] = [r.uuid for r in rsub.take()]
    out["waiter_drained"] = waiter.wait(0.02)

    # errors
    try:
        a.publisher("/soccerbt_test/odometer", m.Pose, "reliable")
        out["type_conflict"] = "no error"
    except TransportError as exc:
        out["type_conflict"] = str(exc)
    try:
        a.publisher("/soccerbt_test/odometer", m.Odometer, "nonsense")
        out["bad_qos"] = "no error"
    except ValueError as exc:
        out["bad_qos"] = str(exc)

    # per-call cost: publish + take of a Detections with 20 objects (local delivery)
    frame = m.Detections(
        header=m.Header(stamp=m.Time(sec=1, nanosec=2), frame_id="camera"),
        detected_objects=[
            m.DetectedObject(
                label="Ball",
                color="white",
                confidence=0.9,
                xmin=1,
                ymin=2,
                xmax=30,
                ymax=40,
                target_uv=[1.0, 2.0],
                received_pos=[1.0, 2.0, 0.0],
                position=[1.0, 2.0, 0.0],
                position_projection=[1.0, 2.0],
                position_cam=[1.0, 2.0, 3.0],
                position_confidence=1,
            )
            for _ in range(20)
        ],
        corner_pos=[0.0] * 8,
    )
    fpub = a.publisher("/soccerbt_test/frames", m.Detections, "sensor")
    fsub = b.subscription("/soccerbt_test/frames", m.Detections, "sensor", depth=4)
    wait_for(lambda: fpub.matched() == 1 and fsub.matched() == 1, 10)
    pub_s, take_s, lost = [], [], 0
    for _ in range(300):
        t0 = time.perf_counter()
        fpub.publish(frame)
        t1 = time.perf_counter()
        wait_for(lambda: False, 0.001, poll_s=0.001)
        t2 = time.perf_counter()
        got = fsub.take(8)
        t3 = time.perf_counter()
        pub_s.append(t1 - t0)
        take_s.append(t3 - t2)
        lost += len(got) != 1
    pub_s.sort()
    take_s.sort()
    out["cost_ms"] = {"publish_p50": pub_s[150] * 1e3, "publish_p99": pub_s[296] * 1e3,
                      "take_p50": take_s[150] * 1e3, "take_p99": take_s[296] * 1e3, "frames_not_one": lost,
                      "bytes": len(frame.encode())}

    # close: the other side sees the endpoints go, publishing after close is an error
    a.close()
    out["after_close_matched"] = wait_for(lambda: deep.matched() == 0, 10) is not None
    try:
        pub.publish(m.Odometer())
        out["publish_after_close"] = "no error"
    except TransportError as exc:
        out["publish_after_close"] = str(exc)
    out["take_after_close"] = own.take()
    b.close()
    emit(out)


if __name__ == "__main__":
    main()
