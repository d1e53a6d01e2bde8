"""Message values shared by the Booster transport tests (loaded by path: the tests run with
pytest's importlib import mode). Non-trivial on purpose: odd string lengths for alignment,
non-empty and empty sequences, nested arrays, float32-exact values."""
from __future__ import annotations

import struct
from typing import Any

from soccerbt.drivers.booster import messages as m


def f32(value: float) -> float:
    """``value`` rounded to float32, as the wire keeps it."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def f32s(*values: float) -> list[float]:
    return [f32(v) for v in values]


def motor(i: int) -> m.MotorState:
    return m.MotorState(mode=-3 + i, q=f32(0.1 * i + 0.01), dq=f32(-1.5), ddq=f32(3.25), tau_est=f32(-0.7 * i),
                        temperature=40 + i, lost=123456 + i, reserve=[7, 800 + i])


def detected(i: int) -> m.DetectedObject:
    return m.DetectedObject(
        label=["Ball", "Goalpost", "Person", "LCross"][i % 4] + "x" * (i % 3), color="rgb"[: 1 + i % 3],
        confidence=0.125 + i, xmin=-5 - i, ymin=2**40 + i, xmax=640, ymax=-(2**62),
        target_uv=f32s(320.5, 240.25 + i)[: 1 + i % 2], received_pos=f32s(1.0, 2.0, 3.0),
        position=f32s(0.3 * i, -0.1), position_projection=f32s(1.7 + i, -0.4), position_cam=[],
        position_confidence=-i,
    )


SAMPLES: list[Any] = [
    m.Time(sec=-1_700_000_003, nanosec=999_999_999),
    m.Header(stamp=m.Time(sec=12, nanosec=345), frame_id="base_link"),
    m.Clock(clock=m.Time(sec=61, nanosec=5_000_000)),
    m.Point(x=1.5, y=-2.0, z=0.1),
    m.Quaternion(x=0.0, y=0.1, z=-0.2, w=0.97),
    m.Pose(position=m.Point(x=0.05, y=0.0, z=1.12), orientation=m.Quaternion(x=0.1, y=0.2, z=0.3, w=0.9)),
    m.String(data="whistle_detected"),
    m.RegionOfInterest(x_offset=3, y_offset=5, height=480, width=448, do_rectify=True),
    m.CameraInfo(header=m.Header(stamp=m.Time(sec=9, nanosec=1), frame_id="head_camera"), height=485, width=450,
                 distortion_model="plumb_bob", d=[0.0, 0.1, -0.2, 0.0, 0.0],
                 k=[206.4, 0.0, 225.0, 0.0, 206.4, 242.7, 0.0, 0.0, 1.0],
                 r=[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                 p=[206.4, 0.0, 225.0, 0.0, 0.0, 206.4, 242.7, 0.0, 0.0, 0.0, 1.0, 0.0], binning_x=1, binning_y=2,
                 roi=m.RegionOfInterest(x_offset=1, y_offset=2, height=3, width=4, do_rectify=False)),
    detected(1),
    m.Detections(header=m.Header(stamp=m.Time(sec=3, nanosec=7), frame_id="cam"),  # odd lengths: alignment
                 detected_objects=[detected(i) for i in range(5)], radar_x=f32s(0.5), radar_y=[],
                 corner_pos=f32s(1, 2, 3, 4, 5, 6, 7, 8)),
    m.Detections(),
    m.LineSegments(header=m.Header(stamp=m.Time(sec=1, nanosec=2), frame_id="odom_x"),
                   coordinates=f32s(0.5, 1.5, -2.5, 3.25), coordinates_uv=f32s(10, 20, 30)),
    m.Odometer(x=f32(1.25), y=f32(-0.3), theta=f32(2.9)),
    m.ImuState(rpy=f32s(0.01, -0.02, 3.1), gyro=f32s(0.5, 0.25, -0.125), acc=f32s(0.1, 0.2, 9.81)),
    motor(2),
    m.LowState(imu_state=m.ImuState(rpy=f32s(0.1, 0.2, 0.3), gyro=f32s(1, 2, 3), acc=f32s(4, 5, 6)),
               motor_state_parallel=[motor(0)], motor_state_serial=[motor(i) for i in range(1, 4)]),
    m.FallDownState(fall_down_state=m.FallDownState.HAS_FALLEN, is_recovery_available=True),
    m.RemoteControllerState(event=1539, lx=f32(-0.5), ly=f32(1.0), rx=f32(0.3), ry=f32(-0.9), a=True, x=True,
                            rb=True, start=True, hat_u=True, hat_rd=True, hat_pos=9),
    m.RawBytesMsg(msg=bytes((2, 1, 5))),
    m.RawBytesMsg(msg=b""),
    m.RpcReqMsg(uuid="0f8e3c1a-7b2d-4e5f-9a6b-1c2d3e4f5a6b", header='{"api_id":2001}',
                body='{"vx":0.3,"vy":0.1,"vyaw":0.2}'),
    m.RpcRespMsg(uuid="u1", header='{"status":0}', body=""),
    m.RpcRespMsg(uuid="ünïcödé", header="", body="x"),
]
