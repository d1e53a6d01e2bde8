"""Booster's loco API as a brain speaks it: api ids, request JSON, limits, and its parsing.

A loco request is an ``RpcReqMsg`` with a ``uuid``, a ``header`` JSON ``{"api_id": N}`` and a
``body`` JSON, published on ``LocoApiTopicReq`` (``LocoApiTopic/<name>Req`` for a named
robot). The texts here are byte for byte what robocup_demo's ``RobotClient`` sends: the body
is nlohmann::json's ``dump()`` of the SDK's parameter classes, whose fields are C++ ``float``:
the value is rounded to float32, widened to double and printed in its shortest round-trip form
(``0.3`` becomes ``0.30000001192092896``), keys in alphabetical order, no spaces.

``BoosterLimits`` holds robocup_demo's limits and clamping (``RobotClient::setVelocity``,
``moveHead``; the values of its config.yaml): speeds capped at +-vx/vy/vtheta limits, a
non-zero speed below the minimum raised to it (a smaller one does not move the robot), head yaw
within +-1.1 rad, head pitch not above ``head_pitch_min_rad`` (looking up shows the lights).

``parse_request`` is the robot's side (the served simulator answers with it): the api id and
the body's values, checked (finite numbers, sizes bounded), or a ``LocoRequestError``.
"""
from __future__ import annotations

import json
import math
import struct
import uuid
from dataclasses import dataclass
from typing import Any

__all__ = ["API_CHANGE_MODE", "API_GET_UP", "API_MOVE", "API_ROTATE_HEAD", "API_VISUAL_KICK", "BoosterLimits",
           "LocoRequest", "LocoRequestError", "MODE_DAMPING", "MODE_PREPARE", "MODE_WALKING", "MODE_SOCCER",
           "change_mode_body", "float_text", "get_up_body", "header_text", "move_body", "new_uuid", "parse_request",
           "rotate_head_body", "visual_kick_body", "STATUS_OK", "STATUS_BAD_REQUEST", "STATUS_UNKNOWN_API"]

# b1_loco_api.hpp, LocoApiId
API_CHANGE_MODE = 2000
API_MOVE = 2001
API_ROTATE_HEAD = 2004
API_GET_UP = 2008
API_VISUAL_KICK = 2038
# robot_shared.hpp, RobotMode
MODE_DAMPING = 0
MODE_PREPARE = 1
MODE_WALKING = 2
MODE_CUSTOM = 3
MODE_SOCCER = 4
# response header {"status": N}: 0 success; the SDK raises with the code otherwise
STATUS_OK = 0
STATUS_BAD_REQUEST = 400
STATUS_UNKNOWN_API = 404

MAX_TEXT_BYTES = 4096  # a loco header or body longer than this is no loco request
_F32 = struct.Struct("<f")


def float_text(value: float) -> str:
    """How nlohmann::json prints a C++ float: float32, widened to double, shortest repr."""
    return repr(_F32.unpack(_F32.pack(value))[0])


def header_text(api_id: int) -> str:
    """robocup_demo's request header: ``{"api_id":2001}``."""
    return '{"api_id":%d}' % api_id


def move_body(vx_mps: float, vy_mps: float, vyaw_radps: float) -> str:
    return '{"vx":%s,"vy":%s,"vyaw":%s}' % (float_text(vx_mps), float_text(vy_mps), float_text(vyaw_radps))


def rotate_head_body(pitch_rad: float, yaw_rad: float) -> str:
    return '{"pitch":%s,"yaw":%s}' % (float_text(pitch_rad), float_text(yaw_rad))


def change_mode_body(mode: int) -> str:
    return '{"mode":%d}' % mode


def get_up_body() -> str:
    return "null"  # nlohmann::json body; (an empty json) dumps as null


def visual_kick_body(start: bool) -> str:
    return '{"start":%s}' % ("true" if start else "false")


def new_uuid() -> str:
    return str(uuid.uuid4())


@dataclass(frozen=True)
class BoosterLimits:
    """robocup_demo's limits for what a brain sends (config.yaml of its main branch)."""

    vx_limit_mps: float = 1.0
    vy_limit_mps: float = 0.4
    vtheta_limit_radps: float = 1.2
    min_vx_mps: float = 0.3
    min_vy_mps: float = 0.3
    min_vtheta_radps: float = 0.25
    head_yaw_limit_rad: float = 1.1
    head_pitch_min_rad: float = 0.45  # robocup_demo's head_pitch_limit_up: pitch = max(pitch, it)

    def velocity(self, vx_mps: float, vy_mps: float, vtheta_radps: float) -> tuple[float, float, float]:
        """``RobotClient::setVelocity``: small non-zero speeds raised to the minimum, then capped."""
        def one(v: float, minimum: float, limit: float) -> float:
            if not math.isfinite(v):
                return 0.0
            if 1e-5 < abs(v) < minimum:
                v = math.copysign(minimum, v)
            return max(-limit, min(limit, v))

        return (one(vx_mps, self.min_vx_mps, self.vx_limit_mps), one(vy_mps, self.min_vy_mps, self.vy_limit_mps),
                one(vtheta_radps, self.min_vtheta_radps, self.vtheta_limit_radps))

    def head(self, pitch_rad: float, yaw_rad: float) -> tuple[float, float]:
        """``RobotClient::moveHead``: yaw capped to +-limit, pitch not above the limit."""
        yaw = max(-self.head_yaw_limit_rad, min(self.head_yaw_limit_rad, yaw_rad if math.isfinite(yaw_rad) else 0.0))
        pitch = max(self.head_pitch_min_rad, pitch_rad if math.isfinite(pitch_rad) else self.head_pitch_min_rad)
        return pitch, yaw


class LocoRequestError(ValueError):
    """A loco request that cannot be carried out (bad JSON, missing or non-finite values)."""

    def __init__(self, message: str, status: int = STATUS_BAD_REQUEST) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class LocoRequest:
    """A parsed loco request: the api id and the body's values (``values`` by name)."""

    uuid: str
    api_id: int
    values: dict[str, Any]


_NUMBERS = {API_MOVE: ("vx", "vy", "vyaw"), API_ROTATE_HEAD: ("pitch", "yaw")}
_MAX_SPEED = 100.0  # m/s or rad/s: anything faster is no walking command
_MAX_ANGLE = 10.0


def _json_object(text: str, what: str) -> Any:
    if len(text) > MAX_TEXT_BYTES:
        raise LocoRequestError(f"{what}: {len(text)} characters, at most {MAX_TEXT_BYTES}")
    try:
        return json.loads(text) if text.strip() else None
    except (ValueError, RecursionError) as exc:
        raise LocoRequestError(f"{what} is not JSON: {exc}") from None


def parse_request(uuid_text: str, header: str, body: str) -> LocoRequest:
    """What a request asks (the robot's side). ``LocoRequestError`` (with the status to answer:
    400 bad request, 404 an api id this robot does not serve) for anything else."""
    head = _json_object(header, "header")
    if not isinstance(head, dict) or not isinstance(head.get("api_id"), int) or isinstance(head.get("api_id"), bool):
        raise LocoRequestError('header has no integer "api_id"')
    api_id = head["api_id"]
    data = _json_object(body, "body")
    values: dict[str, Any] = {}
    if api_id in _NUMBERS:
        if not isinstance(data, dict):
            raise LocoRequestError(f"api {api_id}: body is not an object")
        limit = _MAX_SPEED if api_id == API_MOVE else _MAX_ANGLE
        for name in _NUMBERS[api_id]:
            v = data.get(name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or abs(v) > limit:
                raise LocoRequestError(f"api {api_id}: {name!r} must be a finite number within +-{limit:g}, got {v!r}")
            values[name] = float(v)
    elif api_id == API_CHANGE_MODE:
        mode = data.get("mode") if isinstance(data, dict) else None
        if isinstance(mode, bool) or not isinstance(mode, int) or not MODE_DAMPING <= mode <= MODE_SOCCER:
            raise LocoRequestError(f'api {api_id}: "mode" must be an integer 0..4, got {mode!r}')
        values["mode"] = mode
    elif api_id == API_VISUAL_KICK:
        start = data.get("start") if isinstance(data, dict) else None
        if not isinstance(start, bool):
            raise LocoRequestError(f'api {api_id}: "start" must be true or false, got {start!r}')
        values["start"] = start
    elif api_id == API_GET_UP:
        pass
    else:
        raise LocoRequestError(f"api id {api_id} is not served", STATUS_UNKNOWN_API)
    return LocoRequest(uuid_text[:128], api_id, values)
