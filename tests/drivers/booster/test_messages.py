"""The Booster messages' CDR: byte-identical to rosbags' serialization of robocup_demo's .msg
definitions, round trips, and bad input that only ever raises MessageError."""
from __future__ import annotations

import importlib.util
import re
import struct
import tracemalloc
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
rosbags_typesys = pytest.importorskip("rosbags.typesys", reason="rosbags (the dev extra) checks the CDR")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from soccerbt.drivers.booster import messages as m  # noqa: E402

DEFINITIONS = Path(__file__).parent / "msg_definitions"


def _load_samples() -> Any:
    spec = importlib.util.spec_from_file_location("booster_test_samples", Path(__file__).parent / "samples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


samples = _load_samples()
SAMPLES = samples.SAMPLES
f32, detected = samples.f32, samples.detected


@pytest.fixture(scope="module")
def typestore() -> Any:
    store = rosbags_typesys.get_typestore(rosbags_typesys.Stores.ROS2_HUMBLE)
    types: dict[str, Any] = {}
    for path in sorted(DEFINITIONS.glob("*/msg/*.msg")):
        types.update(rosbags_typesys.get_types_from_msg(path.read_text(), f"{path.parent.parent.name}/msg/{path.stem}"))
    store.register(types)
    return store


def to_rosbags(store: Any, message: Any) -> Any:
    """Our dataclass as the rosbags instance of the same type."""
    cls = store.types[message.ROS_TYPE]
    hints = {f.name: str(f.type) for f in fields(cls)}
    values = {}
    for f in fields(message):
        value = getattr(message, f.name)
        if isinstance(value, m.Message):
            values[f.name] = to_rosbags(store, value)
        elif isinstance(value, bytes):
            values[f.name] = np.frombuffer(value, dtype=np.uint8)
        elif isinstance(value, list) and value and isinstance(value[0], m.Message):
            values[f.name] = [to_rosbags(store, v) for v in value]
        elif isinstance(value, list):
            found = re.search(r"np\.dtype\[np\.(\w+)\]", hints[f.name])
            if found:
                values[f.name] = np.array(value, dtype=getattr(np, found.group(1)))
            else:
                values[f.name] = list(value)
        else:
            values[f.name] = value
    return cls(**values)


def sample_id(sample: Any) -> str:
    return type(sample).__name__


def test_every_type_has_a_sample_and_type_names() -> None:
    assert {type(s) for s in SAMPLES} == set(m.MESSAGE_TYPES)
    assert m.Odometer.ROS_TYPE == "booster_interface/msg/Odometer"
    assert m.Odometer.DDS_TYPE == "booster_interface::msg::dds_::Odometer_"
    assert m.RpcReqMsg.DDS_TYPE == "booster_msgs::msg::dds_::RpcReqMsg_"
    assert m.Detections.DDS_TYPE == "vision_interface::msg::dds_::Detections_"
    assert m.Clock.DDS_TYPE == "rosgraph_msgs::msg::dds_::Clock_"


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_id)
def test_encode_is_byte_identical_to_rosbags(typestore: Any, sample: Any) -> None:
    expected = typestore.serialize_cdr(to_rosbags(typestore, sample), sample.ROS_TYPE)
    assert sample.encode() == bytes(expected)


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_id)
def test_decode_reads_rosbags_bytes_in_both_byte_orders(typestore: Any, sample: Any) -> None:
    ros = to_rosbags(typestore, sample)
    little = bytes(typestore.serialize_cdr(ros, sample.ROS_TYPE))
    big = bytes(typestore.serialize_cdr(ros, sample.ROS_TYPE, little_endian=False))
    assert big[:2] == b"\x00\x00"
    assert type(sample).decode(little) == sample
    assert type(sample).decode(big) == sample


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_id)
def test_round_trip_and_padding(sample: Any) -> None:
    data = sample.encode()
    assert type(sample).decode(data) == sample
    padded = data + b"\0" * ((-len(data)) % 4)  # as a DDS writer pads the payload
    assert type(sample).decode(padded) == sample
    assert type(sample).decode(bytearray(data)) == sample
    assert type(sample).decode(memoryview(data)) == sample


def test_float32_fields_round_to_float32() -> None:
    odo = m.Odometer.decode(m.Odometer(x=0.1, y=1e-50, theta=-1.0 / 3.0).encode())
    assert odo == m.Odometer(x=f32(0.1), y=0.0, theta=f32(-1.0 / 3.0))
    assert odo.x != 0.1


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_id)
def test_every_truncation_raises_message_error(sample: Any) -> None:
    data = sample.encode()
    for length in range(len(data)):
        with pytest.raises(m.MessageError):
            type(sample).decode(data[:length])


def test_errors_say_what_is_wrong() -> None:
    with pytest.raises(m.MessageError, match="encapsulation 0x0007"):
        m.Odometer.decode(b"\x00\x07\x00\x00" + bytes(12))
    with pytest.raises(m.MessageError, match="truncated"):
        m.Odometer.decode(m.Odometer().encode()[:10])
    with pytest.raises(m.MessageError, match="bytes left after"):
        m.Odometer.decode(m.Odometer().encode() + bytes(4))
    with pytest.raises(m.MessageError, match="expected bytes"):
        m.Odometer.decode("not bytes")  # type: ignore[arg-type]
    bad_bool = bytearray(m.FallDownState(fall_down_state=1, is_recovery_available=True).encode())
    bad_bool[8] = 2
    with pytest.raises(m.MessageError, match="bool"):
        m.FallDownState.decode(bytes(bad_bool))
    no_nul = bytearray(m.RpcRespMsg(uuid="abc").encode())
    no_nul[11] = ord("d")
    with pytest.raises(m.MessageError, match="RpcRespMsg.uuid.*NUL"):
        m.RpcRespMsg.decode(bytes(no_nul))
    bad_utf8 = bytearray(m.RpcRespMsg(uuid="abc").encode())
    bad_utf8[8] = 0xFF
    with pytest.raises(m.MessageError, match="UTF-8"):
        m.RpcRespMsg.decode(bytes(bad_utf8))
    with pytest.raises(m.MessageError, match=r"detected_objects\[1\]"):
        data = m.Detections(detected_objects=[detected(0), detected(1)]).encode()
        m.Detections.decode(data[:-30])


def test_huge_declared_lengths_fail_fast_without_allocating() -> None:
    header = m.Header(stamp=m.Time(sec=1, nanosec=2), frame_id="cam").encode()  # 4 + 8 + 4 + 4 = 20 bytes
    cases = [
        (m.Detections, header + struct.pack("<I", 2**31), "limit of 256"),
        (m.Detections, header + struct.pack("<I", 200) + bytes(100), "remain"),
        (m.LineSegments, header + struct.pack("<I", 2**31 - 1), "limit"),
        (m.LineSegments, header + struct.pack("<I", 1_000_000) + bytes(16), "remain"),
        (m.RawBytesMsg, b"\x00\x01\x00\x00" + struct.pack("<I", 2**31), "limit"),
        (m.RawBytesMsg, b"\x00\x01\x00\x00" + struct.pack("<I", 1000) + bytes(10), "remain"),
        (m.RpcReqMsg, b"\x00\x01\x00\x00" + struct.pack("<I", 2**31), "limit"),
        (m.RpcReqMsg, b"\x00\x01\x00\x00" + struct.pack("<I", 100_000) + bytes(10), "remain"),
        (m.LowState, m.ImuState().encode() + struct.pack("<I", 2**31), "limit of 256"),
    ]
    tracemalloc.start()
    try:
        for cls, data, match in cases:
            with pytest.raises(m.MessageError, match=match):
                cls.decode(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 256 * 1024


def test_oversized_input_is_refused() -> None:
    with pytest.raises(m.MessageError, match="exceed the limit"):
        m.RawBytesMsg.decode(b"\x00\x01\x00\x00" + bytes(m.MAX_MESSAGE_BYTES))


def test_encode_refuses_values_it_cannot_represent() -> None:
    with pytest.raises(m.MessageError, match="Odometer"):
        m.Odometer(x=1e39).encode()  # beyond float32
    with pytest.raises(m.MessageError, match="exactly 3"):
        m.ImuState(rpy=[0.0, 1.0]).encode()
    with pytest.raises(m.MessageError, match="MotorState"):
        m.MotorState(mode=300).encode()
    with pytest.raises(m.MessageError, match="Detections.detected_objects"):
        m.Detections(detected_objects=[m.Odometer()]).encode()  # type: ignore[list-item]
    with pytest.raises(m.MessageError, match="RawBytesMsg.msg"):
        m.RawBytesMsg(msg=5).encode()  # type: ignore[arg-type]
    with pytest.raises(m.MessageError, match="exceed the limit"):
        m.Detections(detected_objects=[m.DetectedObject()] * (m.MAX_DETECTED_OBJECTS + 1)).encode()
    with pytest.raises(m.MessageError, match="RpcReqMsg.body"):
        m.RpcReqMsg(body=None).encode()  # type: ignore[arg-type]


def test_recovery_state_payload() -> None:
    state = m.RecoveryState(state=m.FallDownState.IS_GETTING_UP, is_recovery_available=True, current_planner_index=4)
    message = state.to_message()
    assert message == m.RawBytesMsg(msg=b"\x03\x01\x04")
    assert m.RecoveryState.from_message(m.RawBytesMsg.decode(message.encode())) == state
    assert m.RecoveryState.from_bytes(b"\x02\x00") == m.RecoveryState(2, False, 0)
    assert m.RecoveryState.from_bytes(b"\x01\x01\x02\xff") == m.RecoveryState(1, True, 2)
    for bad in (b"", b"\x01", b"\x04\x00\x00", b"\x00\x02\x00"):
        with pytest.raises(m.MessageError):
            m.RecoveryState.from_bytes(bad)
    with pytest.raises(m.MessageError):
        m.RecoveryState(state=7, is_recovery_available=False).to_bytes()


ENCODED = [s.encode() for s in SAMPLES]


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=600), cls=st.sampled_from(m.MESSAGE_TYPES))
def test_random_garbage_raises_only_message_error(data: bytes, cls: Any) -> None:
    for candidate in (data, b"\x00\x01\x00\x00" + data, b"\x00\x00\x00\x00" + data):
        try:
            decoded = cls.decode(candidate)
        except m.MessageError:
            continue
        assert isinstance(decoded, cls)
        assert repr(cls.decode(decoded.encode())) == repr(decoded)  # repr: a NaN never equals itself


@settings(max_examples=300, deadline=None)
@given(index=st.integers(0, len(SAMPLES) - 1), flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)),
                                                              min_size=1, max_size=4))
def test_corrupted_samples_raise_only_message_error(index: int, flips: list[tuple[int, int]]) -> None:
    data = bytearray(ENCODED[index])
    for position, value in flips:
        data[position % len(data)] = value
    cls = type(SAMPLES[index])
    try:
        decoded = cls.decode(bytes(data))
    except m.MessageError:
        return
    assert isinstance(decoded, cls)


def test_a_block_of_motors_decodes_as_one_motor_after_another() -> None:
    """LowState's motors are unpacked in one pass (decode_block); the result, and the error of a
    block cut short, are those of the element-by-element path."""
    motors = [m.MotorState(mode=k % 5 - 2, q=0.1 * k, dq=-k, ddq=0.5, tau_est=k / 3, temperature=30 + k, lost=k,
                           reserve=[k, 2 * k]) for k in range(23)]
    msg = m.LowState(imu_state=m.ImuState(rpy=[0.1, 0.2, 0.3]), motor_state_parallel=motors[:3],
                     motor_state_serial=motors)
    data = msg.encode()
    codec = m.MotorState._CODEC
    assert codec.fixed_run is not None
    fast = m.LowState.decode(data)
    saved, codec.fixed_run = codec.fixed_run, None
    try:
        slow = m.LowState.decode(data)
        with pytest.raises(m.MessageError) as slow_error:
            m.LowState.decode(data[:-20])
    finally:
        codec.fixed_run = saved
    assert fast == slow and [x.mode for x in fast.motor_state_serial] == [k % 5 - 2 for k in range(23)]
    with pytest.raises(m.MessageError) as fast_error:
        m.LowState.decode(data[:-20])
    assert str(fast_error.value) == str(slow_error.value)
