"""The loco requests a brain sends: robocup_demo's JSON, limits and clamping; the robot's parsing."""
from __future__ import annotations

import json
import math

import pytest

from soccerbt.drivers.booster import loco


def test_request_texts_are_what_robocup_demo_sends() -> None:
    assert loco.header_text(loco.API_MOVE) == '{"api_id":2001}'
    # C++ floats through nlohmann::json: float32 widened to double, shortest form, sorted keys
    assert loco.move_body(0.3, -0.1, 0.0) == '{"vx":0.30000001192092896,"vy":-0.10000000149011612,"vyaw":0.0}'
    assert loco.rotate_head_body(0.5, -1.1) == '{"pitch":0.5,"yaw":-1.100000023841858}'
    assert loco.change_mode_body(loco.MODE_WALKING) == '{"mode":2}'
    assert loco.visual_kick_body(True) == '{"start":true}'
    assert loco.get_up_body() == "null"
    assert json.loads(loco.move_body(1.0, 0.25, -0.5)) == {"vx": 1.0, "vy": 0.25, "vyaw": -0.5}


def test_velocity_limits_follow_robot_client_set_velocity() -> None:
    lim = loco.BoosterLimits()
    assert lim.velocity(0.0, 0.0, 0.0) == (0.0, 0.0, 0.0)
    # small non-zero speeds are raised to the minimum (the robot ignores smaller ones)
    assert lim.velocity(0.05, -0.01, 0.1) == (0.3, -0.3, 0.25)
    # tiny noise stays zero (robocup_demo's 1e-5 threshold)
    assert lim.velocity(1e-6, -1e-6, 0.0) == (1e-6, -1e-6, 0.0)
    # capped at the limits, both ways
    assert lim.velocity(2.0, -0.9, 3.0) == (1.0, -0.4, 1.2)
    assert lim.velocity(math.nan, math.inf, -math.inf) == (0.0, 0.0, 0.0)


def test_head_limits_follow_move_head() -> None:
    lim = loco.BoosterLimits()
    assert lim.head(0.8, 0.3) == (0.8, 0.3)
    assert lim.head(0.1, 2.0) == (0.45, 1.1)  # pitch not above the limit, yaw capped
    assert lim.head(0.9, -2.0) == (0.9, -1.1)


@pytest.mark.parametrize("header, body, status, fragment", [
    ("not json", "{}", 400, "header is not JSON"),
    ('{"api":2001}', "{}", 400, "api_id"),
    ('{"api_id":true}', "{}", 400, "api_id"),
    ('{"api_id":2001}', '{"vx":0.1,"vy":0}', 400, "'vyaw'"),
    ('{"api_id":2001}', '{"vx":NaN,"vy":0,"vyaw":0}', 400, "'vx'"),
    ('{"api_id":2001}', '{"vx":1e9,"vy":0,"vyaw":0}', 400, "'vx'"),
    ('{"api_id":2001}', "[1, 2]", 400, "not an object"),
    ('{"api_id":2004}', '{"pitch":"down","yaw":0}', 400, "'pitch'"),
    ('{"api_id":2000}', '{"mode":9}', 400, "mode"),
    ('{"api_id":2038}', '{"start":1}', 400, "start"),
    ('{"api_id":2999}', "{}", 404, "not served"),
    ('{"api_id":2001}', "[" * 100000, 400, "characters"),
])
def test_bad_requests_are_refused_with_a_status(header: str, body: str, status: int, fragment: str) -> None:
    with pytest.raises(loco.LocoRequestError) as info:
        loco.parse_request("u1", header, body)
    assert info.value.status == status
    assert fragment in str(info.value)


def test_requests_parse_to_their_values() -> None:
    r = loco.parse_request("id-1", loco.header_text(loco.API_MOVE), loco.move_body(0.3, 0.1, -0.2))
    assert (r.uuid, r.api_id) == ("id-1", loco.API_MOVE)
    assert r.values == pytest.approx({"vx": 0.3, "vy": 0.1, "vyaw": -0.2})
    # the SDK's header carries more keys (call_mode, req_id): the api id is what matters
    r = loco.parse_request("x", '{"api_id":2004,"call_mode":0,"req_id":"x"}', '{"pitch":0.5,"yaw":0.1}')
    assert r.values == {"pitch": 0.5, "yaw": 0.1}
    assert loco.parse_request("x", '{"api_id":2008}', "").values == {}
    assert loco.parse_request("x", '{"api_id":2008}', "null").api_id == loco.API_GET_UP
    assert loco.parse_request("x", '{"api_id":2038}', '{"start":false}').values == {"start": False}
    assert loco.parse_request("x", '{"api_id":2000}', '{"mode":1}').values == {"mode": 1}
