"""A brain's inputs in the replay log, so that a log can be re-run through a tree (``--rerun``).

Everything a robot's brain takes in during a step is recorded, per robot and step, on
``/match/inputs`` (``format.INPUTS_TOPIC``, one ``soccerbt.StepInputs`` message a step: a
``soccerbt.BrainInputs`` per robot that has stepped, named): the step's brain time, the
``Observations`` the driver sensed (odometry, IMU heading, fall, head joints, the camera frame's
detections and line segments, as doubles: exact), the GameController packet when a new one
arrived (its bytes, as the protocol encodes them), the team messages the team link delivered
(JSON, floats exact), what the pad wrote (its manual command and the blackboard keys it writes)
and the emergency stop's state. The header's ``inputs`` object gives what the brain was built
with (``brain_description``: the ``BrainSpec``, the driver's limits, whether a pad and a stop
were there).

``InputTap`` is what the recorder uses: it wraps each agent's team link and pad (passing every
call through) to see what they delivered, and reads the observations and the newest packet the
agent kept; a brain's part is encoded by soccerbt.native's ``encode_inputs`` (or its twin
``py_encode_inputs``). ``decode_inputs`` (format 2), ``decode_inputs_v1`` (format 1's binary
parts) and ``team_messages_of``/``pad_of`` are the re-run's side. Logs of earlier versions have
no inputs (the header says ``inputs`` when they are there).
"""
from __future__ import annotations

import json
import math
import struct
from dataclasses import asdict, dataclass
from typing import Any

from soccerbt.drivers.gamepad import ManualCommand, parse_robot_key
from soccerbt.gamecontroller.protocol import PacketError
from soccerbt.gamecontroller.protocol import encode as encode_packet
from soccerbt.log import format as lf
from soccerbt.log import proto
from soccerbt.log.format_v1 import split_parts
from soccerbt.log.tick_encode import join_repeated, varint
from soccerbt.native import recording as _native
from soccerbt.world.types import Detection, Observations, Pose2D, Team

__all__ = ["INPUTS_VERSION", "InputTap", "InputRecord", "decode_inputs", "decode_inputs_v1", "py_encode_inputs",
           "encode_step_inputs", "exact_json", "brain_description", "team_messages_of", "pad_of", "KINDS", "PAD_KEYS"]

INPUTS_VERSION = 1  # the header's brain descriptions (the messages' layout is the log format's)
KINDS = ("ball", "robot", "goal_post", "L", "T", "X", "penalty_mark", "centre_circle")  # format 1's kind codes
F_CAMERA, F_FALLEN, F_PACKET, F_TEAM, F_PAD, F_ESTOP, F_HAS_ESTOP = 1, 2, 4, 8, 16, 32, 64  # format 1's flags
_HEAD = struct.Struct("<Bd7dHH")
_DET = struct.Struct("<BB3d")
_SEG = struct.Struct("<4d")
_U32 = struct.Struct("<I")
# what a pad writes (soccerbt.drivers.gamepad.apply_input): the flags every update, the chords once
PAD_KEYS = ("go_manual", "assist_chase", "assist_kick", "control_state", "odom_calibrated", "player_role")
_PAD_FLAGS = PAD_KEYS[:3]
MAX_TEAM_MESSAGES = 64        # one step's team messages read back
MAX_INPUT_TEXT = 1 << 20      # a JSON section of one part


def _team_code(team: Any) -> int:
    return 0 if team is None else 1 + int(team.value)


@dataclass(slots=True)
class InputRecord:
    """One robot's inputs at one step, decoded (``observations`` a ``world.types.Observations``)."""

    t_s: float
    observations: Any
    packet: bytes | None = None
    team: list[dict[str, Any]] | None = None
    pad: dict[str, Any] | None = None
    estop: bool | None = None     # None: the brain had no emergency stop


def py_encode_inputs(robot: str, t_s: float, obs: Any, packet: bytes | None, team: str | None, pad: str | None,
                     estop: bool | None) -> bytes:
    """One brain's ``soccerbt.BrainInputs``: the pure-Python twin of soccerbt.native's
    ``encode_inputs``. `packet`: the new GameController packet's bytes (None: none arrived);
    `team`, `pad`: the JSON of what the team link delivered and what the pad did (None:
    nothing); `estop`: whether the stop is engaged (None: the brain has none)."""
    odo = obs.odometry
    msg = proto.BrainInputs(robot=robot, brain_t_s=t_s, observations_t_s=obs.t_s, odometry_x_m=odo.x_m,
                            odometry_y_m=odo.y_m, odometry_theta_rad=odo.theta_rad, imu_yaw_rad=obs.imu_yaw_rad,
                            head_pan_rad=obs.head_pan_rad, head_tilt_rad=obs.head_tilt_rad,
                            camera_frame=bool(obs.camera_frame), fallen=bool(obs.fallen))
    for d in obs.detections:
        msg.detections.add(kind=d.kind if isinstance(d.kind, str) else str(d.kind), team=_team_code(d.team),
                           x_m=d.x_m, y_m=d.y_m, confidence=d.confidence)
    for x0, y0, x1, y1 in obs.line_segments:
        msg.line_segments.add(x0_m=x0, y0_m=y0, x1_m=x1, y1_m=y1)
    if packet is not None:
        msg.packet.data = packet
        msg.packet.SetInParent()
    if team is not None:
        msg.team_messages_json = team
    if pad is not None:
        msg.pad_json = pad
    if estop is not None:
        msg.estop = 2 if estop else 1
    return msg.SerializeToString()


_encode_inputs = _native.encode_inputs if _native is not None else py_encode_inputs


def encode_step_inputs(step: int, parts: list[bytes]) -> bytes:
    """The ``soccerbt.StepInputs`` of a step from its brains' ``BrainInputs``."""
    return join_repeated(b"\x08" + varint(step) if step else b"", 2, parts)


def _packet_bytes(packet: Any) -> bytes:
    """A GameController packet as the protocol encodes it (b"": one that does not encode; the
    re-run says so)."""
    try:
        return encode_packet(packet)
    except PacketError:
        return b""


def decode_part_v1(data: bytes) -> InputRecord:
    """One robot's part of a format-1 inputs message; ValueError for a part of the wrong shape."""
    if len(data) < _HEAD.size:
        raise ValueError("inputs part too short")
    flags, t_s, obs_t, x, y, th, yaw, pan, tilt, n_det, n_seg = _HEAD.unpack_from(data)
    o = _HEAD.size
    dets = []
    teams = (None, Team.BLUE, Team.RED)
    for _ in range(n_det):
        if o + _DET.size > len(data):
            raise ValueError("inputs part cut short (detections)")
        code, team, dx, dy, conf = _DET.unpack_from(data, o)
        o += _DET.size
        if code == 255:
            n = data[o] if o < len(data) else 0
            kind = bytes(data[o + 1:o + 1 + n]).decode("utf-8", "replace")
            o += 1 + n
        elif code < len(KINDS):
            kind = KINDS[code]
        else:
            raise ValueError(f"detection kind {code} unknown")
        if team > 2:
            raise ValueError(f"detection team {team} unknown")
        dets.append(Detection(kind, dx, dy, conf, teams[team]))
    if o + n_seg * _SEG.size > len(data):
        raise ValueError("inputs part cut short (line segments)")
    segs = tuple(_SEG.unpack_from(data, o + k * _SEG.size) for k in range(n_seg))
    o += n_seg * _SEG.size
    obs = Observations(obs_t, bool(flags & F_CAMERA), tuple(dets), Pose2D(x, y, th), yaw, bool(flags & F_FALLEN),
                       pan, tilt, segs)
    rec = InputRecord(t_s, obs)
    for bit in (F_PACKET, F_TEAM, F_PAD):
        if not flags & bit:
            continue
        if o + 4 > len(data):
            raise ValueError("inputs part cut short")
        (n,) = _U32.unpack_from(data, o)
        section = bytes(data[o + 4:o + 4 + n])
        o += 4 + n
        if len(section) != n:
            raise ValueError("inputs part cut short")
        if bit == F_PACKET:
            rec.packet = section
        else:
            _json_section(rec, "team" if bit == F_TEAM else "pad", section)
    if flags & F_HAS_ESTOP:
        rec.estop = bool(flags & F_ESTOP)
    return rec


def _json_section(rec: InputRecord, what: str, text: bytes | str) -> None:
    """The team messages ("team": a list) or the pad's writes ("pad": an object) of a brain's
    inputs, from their JSON text, into `rec`; ValueError for a text too large or of another shape."""
    if len(text) > MAX_INPUT_TEXT:
        raise ValueError("a JSON section of the inputs is too large")
    value = lf.load_json(text)
    if what == "team":
        if not isinstance(value, list) or len(value) > MAX_TEAM_MESSAGES:
            raise ValueError("team messages: not a list of at most 64")
        rec.team = value
    else:
        if not isinstance(value, dict):
            raise ValueError("pad: not an object")
        rec.pad = value


def decode_inputs_v1(data: bytes, robots: int) -> list[InputRecord | None]:
    """Every robot's inputs of one format-1 ``/match/inputs`` message (header order; None for a
    robot that had not stepped)."""
    parts = split_parts(data)
    if len(parts) != robots:
        raise ValueError(f"{len(parts)} robots in the inputs, the header names {robots}")
    return [decode_part_v1(p) if p else None for p in parts]


def decode_inputs(data: bytes) -> dict[str, InputRecord]:
    """Every brain's inputs of one ``soccerbt.StepInputs`` message, by robot name (a robot that
    had not stepped is absent); ValueError for a message of the wrong shape."""
    try:
        msg = proto.StepInputs.FromString(data)
    except Exception as exc:  # protobuf's DecodeError
        raise ValueError(f"inputs message does not decode ({exc})") from None
    teams = (None, Team.BLUE, Team.RED)
    out: dict[str, InputRecord] = {}
    for b in msg.robots:
        if b.robot in out:
            raise ValueError(f"inputs: {b.robot[:40]!r} twice in one step")
        dets = []
        for d in b.detections:
            if not 0 <= d.team < len(teams):
                raise ValueError(f"detection team {d.team} unknown")
            dets.append(Detection(d.kind, d.x_m, d.y_m, d.confidence, teams[d.team]))
        segs = tuple((s.x0_m, s.y0_m, s.x1_m, s.y1_m) for s in b.line_segments)
        obs = Observations(b.observations_t_s, b.camera_frame, tuple(dets),
                           Pose2D(b.odometry_x_m, b.odometry_y_m, b.odometry_theta_rad), b.imu_yaw_rad, b.fallen,
                           b.head_pan_rad, b.head_tilt_rad, segs)
        rec = InputRecord(b.brain_t_s, obs)
        if b.HasField("packet"):
            rec.packet = b.packet.data
        for text, what in ((b.team_messages_json, "team"), (b.pad_json, "pad")):
            if not text:
                continue
            _json_section(rec, what, text)
        if b.estop not in (0, 1, 2):
            raise ValueError(f"emergency stop state {b.estop} unknown")
        if b.estop:
            rec.estop = b.estop == 2
        out[b.robot] = rec
    return out


# --- team messages and the pad as JSON (floats written exactly: repr, infinities as Infinity) -----

def exact_json(obj: Any) -> str:
    """JSON with every float written exactly (repr; infinities and NaN as JSON-ish words)."""
    return json.dumps(obj, separators=(",", ":"), allow_nan=True)


def _message_json(m: Any) -> dict[str, Any]:
    c = m.role_choice
    return {"sender": str(m.sender), "pose": None if m.pose is None else [m.pose.x_m, m.pose.y_m, m.pose.theta_rad],
            "ball": None if m.ball_xy is None else list(m.ball_xy), "age": m.ball_age_s, "cost": m.cost_to_ball_s,
            "role": m.role.value, "t": m.timestamp_s, "active": bool(m.active),
            "choice": None if c is None else [c.t_s, c.goalkeeper, c.striker, bool(c.live)]}


def team_messages_of(items: list[dict[str, Any]]) -> list[Any]:
    """The recorded team messages as ``TeamMessage`` objects; ValueError for a wrong shape."""
    # the log's readers (reader, the live client, the replay tools) import this module; only a re-run needs these
    # deferred: start-up: scipy (about 0.4 s, imported by services.planning) stays out of the log's readers
    from soccerbt.services.planning import Role, RoleChoice, TeamMessage

    def num(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError("team message: a number expected")
        return float(v)

    def opt_int(v: Any) -> int | None:
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError("team message: a player number expected")
        return v

    out = []
    for item in items:
        if not isinstance(item, dict):
            raise ValueError("team message: not an object")
        try:
            sender = parse_robot_key(str(item.get("sender")))
            pose = item.get("pose")
            ball = item.get("ball")
            choice = item.get("choice")
            out.append(TeamMessage(
                sender, None if pose is None else Pose2D(*(num(v) for v in pose[:3])),
                None if ball is None else (num(ball[0]), num(ball[1])), num(item.get("age")), num(item.get("cost")),
                Role(item.get("role")), num(item.get("t")), bool(item.get("active")),
                None if choice is None else RoleChoice(num(choice[0]), opt_int(choice[1]), opt_int(choice[2]),
                                                       bool(choice[3]))))
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError(f"team message: {exc}") from None
    return out


def pad_of(item: dict[str, Any]) -> tuple[Any, list[tuple[str, Any]]]:
    """(the manual command or None, the blackboard writes in order) of a recorded pad update."""
    command = item.get("command")
    writes = item.get("writes")
    if not isinstance(writes, list) or not all(isinstance(w, list) and len(w) == 2 and w[0] in PAD_KEYS
                                               for w in writes):
        raise ValueError("pad: writes are not [key, value] pairs of the pad's keys")
    if command is not None:
        if not (isinstance(command, list) and len(command) == 3
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in command)):
            raise ValueError("pad: the command is not three numbers")
        command = ManualCommand(*(float(v) for v in command))
    return command, [(k, v) for k, v in writes]


# --- the recorder's side ------------------------------------------------------------------------

class _LinkTap:
    """A team link passed through; what ``receive`` delivered goes to every recorder's sink (one
    tap per agent, however many recorders watch it: a flight log's segments, a live stream)."""

    def __init__(self, link: Any) -> None:
        self._link = link
        self.sinks: list[list[Any]] = []

    def receive(self, robot: Any, now_s: float) -> list[Any]:
        got = self._link.receive(robot, now_s)
        if got:
            for sink in self.sinks:
                sink.extend(got)
        return got

    def __getattr__(self, name: str) -> Any:  # register, send, sent, counters, close, ...
        return getattr(self._link, name)


class _PadTap:
    """A pad passed through; its command and what it wrote at this step go to every sink."""

    def __init__(self, pad: Any) -> None:
        self._pad = pad
        self.sinks: list[list[str]] = []

    def update(self, now_s: float, blackboard: Any) -> Any:
        before = [blackboard.get(k) for k in PAD_KEYS]
        command = self._pad.update(now_s, blackboard)
        writes = [[k, blackboard.get(k)] for k in _PAD_FLAGS]  # written at every update
        writes += [
            [k, blackboard.get(k)] for k, old in zip(PAD_KEYS[3:], before[3:], strict=False) if blackboard.get(k) != old
        ]
        cmd = None if command is None else [command.vx_mps, command.vy_mps, command.vtheta_radps]
        seen = exact_json({"command": cmd, "writes": writes})
        for sink in self.sinks:
            sink[:] = [seen]
        return command

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pad, name)


class _Track:
    __slots__ = ("name", "agent", "link", "pad", "packet", "delivered", "pad_seen")

    def __init__(self, name: str, agent: Any) -> None:
        self.name = name
        self.agent = agent
        self.link: _LinkTap | None = None
        self.pad: _PadTap | None = None
        self.packet: Any = None
        self.delivered: list[Any] = []
        self.pad_seen: list[str] = []


class InputTap:
    """What the recorder needs to write ``/match/inputs``: built at the recorder's start (each
    agent's team link and pad get a pass-through tap, shared by every recorder), ``encode()``
    after each step, ``close()`` when the recorder is done."""

    def __init__(self, agents: dict[Any, Any]) -> None:
        self.tracks: list[_Track] = []
        for rid, agent in agents.items():
            track = _Track(str(rid), agent)
            team = getattr(agent, "team", None)
            if team is not None and getattr(team, "link", None) is not None:
                if not isinstance(team.link, _LinkTap):
                    team.link = _LinkTap(team.link)
                track.link = team.link
                track.link.sinks.append(track.delivered)
            if getattr(agent, "pad", None) is not None:
                if not isinstance(agent.pad, _PadTap):
                    agent.pad = _PadTap(agent.pad)
                track.pad = agent.pad
                track.pad.sinks.append(track.pad_seen)
            self.tracks.append(track)

    def close(self) -> None:
        """Stop collecting (the taps stay, passing through, for other recorders)."""
        for track in self.tracks:
            if track.link is not None and track.delivered in track.link.sinks:
                track.link.sinks.remove(track.delivered)
            if track.pad is not None and track.pad_seen in track.pad.sinks:
                track.pad.sinks.remove(track.pad_seen)

    def encode(self, step: int) -> bytes:
        """The step's ``soccerbt.StepInputs`` (a brain that has not stepped yet is left out)."""
        parts = []
        for track in self.tracks:
            agent = track.agent
            obs = agent.observations
            if obs is None:  # no step yet
                continue
            packet = getattr(agent, "_packet", None)
            data = None
            if packet is not None and packet is not track.packet:
                track.packet = packet
                data = _packet_bytes(packet)
            team = None
            if track.delivered:
                team = exact_json([_message_json(m) for m in track.delivered])
                track.delivered.clear()
            pad = None
            if track.pad_seen:
                pad = track.pad_seen.pop()
            estop = getattr(agent, "estop", None)
            parts.append(_encode_inputs(track.name, agent.now_s, obs, data, team, pad,
                                        None if estop is None else estop.engaged))
        return encode_step_inputs(step, parts)


def brain_description(agent: Any) -> dict[str, Any] | None:
    """What a brain was built with (its ``BrainSpec``, the driver's limits, a pad, a stop), for
    the header; None for an agent built without a spec."""
    spec = getattr(agent, "spec", None)
    if spec is None:
        return None
    limits = getattr(agent.driver, "limits", None)
    limits_dict = None
    if limits is not None:
        try:
            limits_dict = {k: float(v) for k, v in asdict(limits).items()}
        except TypeError:
            limits_dict = None
    period = spec.team_message_period_s
    return {"team_number": spec.team_number, "team_size": spec.team_size, "field": spec.field.name,
            "team_message_period_s": period if math.isfinite(period) else None, "seed": spec.seed,
            "particles": spec.particles, "tree": str(spec.tree_path), "limits": limits_dict,
            "pad": getattr(agent, "pad", None) is not None, "estop": getattr(agent, "estop", None) is not None,
            "estimate_period_s": agent.estimate_period_s}
