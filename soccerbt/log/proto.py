"""The log's per-step messages as protobuf: their schema, defined once here, and its classes.

A log of format 2 carries two per-step channels in protobuf (``soccerbt.log.format``):
``/match/step`` (``soccerbt.Step``: the ``soccerbt.Truth`` of the world and every robot's
``soccerbt.Tick``, its tick, every node's status transition, the blackboard changes with their
writers, the reasons, the command) and ``/match/inputs`` (``soccerbt.StepInputs``: what every
brain took in). A step is one message, its robots in it (an MCAP message costs 16 bytes of index
that zstd does not compress): a robot is picked by name, in Foxglove
``/match/step.robots[:]{robot=="blue2"}``, the ball by ``/match/step.truth.ball.x_m``. Each
channel's MCAP schema is ``SCHEMA_DATA``, a ``FileDescriptorSet`` of the one file
``soccerbt/log.proto`` that ``MESSAGES`` and ``ENUMS`` describe, so that any MCAP reader with a
protobuf decoder (Foxglove, ``mcap-protobuf-support``) decodes them without soccerbt.
``proto_text()`` writes the same schema as ``.proto`` source (the docs show it).

Field numbers never change and are never reused: a later format adds fields with new numbers,
so that a reader of an older schema skips them (protobuf's rule). proto3 leaves out a field at
its default (0, false, "", an empty list): a reader sees the default, which is the value.
"""
from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = ["PACKAGE", "FILE_NAME", "ENUMS", "MESSAGES", "SCHEMA_DATA", "message_class", "proto_text",
           "Tick", "Step", "Truth", "StepInputs", "BrainInputs", "Change", "Command", "Transition", "Reason"]

PACKAGE = "soccerbt"
FILE_NAME = "soccerbt/log.proto"

# enum -> (doc, ((value name, number, comment), ...)); value names are unique in the package
ENUMS: dict[str, tuple[str, tuple[tuple[str, int, str], ...]]] = {
    "Status": ("A node's status, as BehaviorTree.CPP names them; EXCEPTION: the tick raised (a root only)", (
        ("IDLE", 0, ""), ("RUNNING", 1, ""), ("SUCCESS", 2, ""), ("FAILURE", 3, ""), ("SKIPPED", 4, ""),
        ("EXCEPTION", 5, "a node raised: the robot stopped safely for this tick"))),
    "Adapter": ("Who wrote a blackboard entry when no node did: the adapter that owns the key", (
        ("ADAPTER", 0, "an adapter the schema does not name"), ("GAMECONTROLLER", 1, ""), ("WORLD_MODEL", 2, ""),
        ("TEAM", 3, "team messages"), ("GAMEPAD", 4, ""), ("NODES", 5, "a node outside the tree's ports"),
        ("TREE", 6, "the tree's own entries"), ("REMOVED", 7, "the entry was removed"),
        ("UNKNOWN", 8, "converted from a JSON-lines log, which did not record writers"))),
    "Team": ("A detected robot's team", (("NO_TEAM", 0, ""), ("BLUE", 1, ""), ("RED", 2, ""))),
    "EmergencyStop": ("The brain's emergency stop", (
        ("NO_STOP", 0, "the brain has none"), ("RELEASED", 1, ""), ("ENGAGED", 2, ""))),
}

# message -> (doc, fields); a field: (name, number, type, flags, comment). A type is a scalar
# (float, double, uint32, uint64, int32, bool, string, bytes), an enum or a message of this file;
# flags: "repeated", or "oneof:NAME" (a member of that oneof: written even at its default).
Field = tuple[str, int, str, str, str]
MESSAGES: dict[str, tuple[str, tuple[Field, ...]]] = {
    "Command": ("What the robot was commanded after a tick (robot frame)", (
        ("vx_mps", 1, "float", "", ""), ("vy_mps", 2, "float", "", ""), ("vtheta_radps", 3, "float", "", ""),
        ("head_pan_rad", 4, "float", "", ""), ("head_tilt_rad", 5, "float", "", ""),
        ("kick", 6, "bool", "", "a kick was commanded: its direction and strength follow"),
        ("kick_direction_rad", 7, "float", "", ""), ("kick_strength", 8, "float", "", "0..1"))),
    "Transition": ("A node's status changed (BehaviorTree.CPP's logger order)", (
        ("uid", 1, "uint32", "", "the node (the tree's uid: /robots/<robot>/tree)"),
        ("previous", 2, "Status", "", ""), ("status", 3, "Status", "", ""))),
    "Reason": ("Why a decision node decided what it did in this tick", (
        ("uid", 1, "uint32", "", ""), ("text", 2, "string", "", "one line: the rules evaluated, values, verdicts"))),
    "Pose": ("A pose value (field or robot frame, as the key says)", (
        ("x_m", 1, "float", "", ""), ("y_m", 2, "float", "", ""), ("theta_rad", 3, "float", "", ""))),
    "Floats": ("Numbers: a tuple of floats, or (x, y) points flattened", (
        ("values", 1, "float", "repeated", ""),)),
    "Change": ("A root blackboard entry written in this tick with a new value", (
        ("key", 1, "string", "", ""),
        ("node_uid", 2, "uint32", "oneof:writer", "written by this node (an output port, a script)"),
        ("adapter", 3, "Adapter", "oneof:writer", "else by the adapter that owns the key"),
        ("number", 4, "float", "oneof:value", ""), ("flag", 5, "bool", "oneof:value", ""),
        ("json", 6, "string", "oneof:value", "any other value as JSON text"),
        ("floats", 7, "Floats", "oneof:value", ""), ("pose", 8, "Pose", "oneof:value", ""),
        ("points", 9, "Floats", "oneof:value", "(x, y) pairs"),
        ("removed", 10, "bool", "oneof:value", "the key was removed"))),
    "Tick": ("One robot's tick", (
        ("robot", 1, "string", "", ""),
        ("step", 2, "uint64", "", "the match step (the log time is step * dt)"),
        ("tick", 3, "uint32", "", "the brain's tick count"),
        ("root", 4, "Status", "", "what the root returned"),
        ("command", 5, "Command", "", ""),
        ("transitions", 6, "Transition", "repeated", "every status change of the tick, in order"),
        ("skipped", 7, "uint32", "repeated", "uids a pre-condition skipped"),
        ("ticked", 8, "uint32", "repeated", "uids ticked, in the order their ticks returned"),
        ("reasons", 9, "Reason", "repeated", ""),
        ("changes", 10, "Change", "repeated", "the blackboard's new values, with their writers"))),
    "Ball": ("The ball (field frame)", (
        ("x_m", 1, "float", "", ""), ("y_m", 2, "float", "", ""), ("vx_mps", 3, "float", "", ""),
        ("vy_mps", 4, "float", "", ""))),
    "GameState": ("The GameController state the robots were sent (numbers of its protocol)", (
        ("state", 1, "int32", "", ""), ("secondary_state", 2, "int32", "", ""), ("sub_state", 3, "int32", "", ""),
        ("score_blue", 4, "int32", "", ""), ("score_red", 5, "int32", "", ""))),
    "RobotTruth": ("Where a robot really was (a brain's own log: its estimate)", (
        ("name", 1, "string", "", ""), ("x_m", 2, "float", "", ""), ("y_m", 3, "float", "", ""),
        ("theta_rad", 4, "float", "", ""), ("fallen", 5, "bool", "", ""), ("removed", 6, "bool", "", "penalised"))),
    "Truth": ("The world after a step", (
        ("step", 1, "uint64", "", ""), ("t_s", 2, "double", "", "simulated seconds"),
        ("ball", 3, "Ball", "", ""), ("game", 4, "GameState", "", ""),
        ("robots", 5, "RobotTruth", "repeated", "in the header's order"))),
    "Detection": ("A feature the camera saw (robot frame)", (
        ("kind", 1, "string", "", "ball, robot, goal_post, L, T, X, penalty_mark, centre_circle"),
        ("team", 2, "Team", "", ""), ("x_m", 3, "double", "", ""), ("y_m", 4, "double", "", ""),
        ("confidence", 5, "double", "", ""))),
    "LineSegment": ("A field line segment the camera saw (robot frame)", (
        ("x0_m", 1, "double", "", ""), ("y0_m", 2, "double", "", ""), ("x1_m", 3, "double", "", ""),
        ("y1_m", 4, "double", "", ""))),
    "Packet": ("A GameController packet's bytes as its protocol encodes them (empty: one that did not encode)", (
        ("data", 1, "bytes", "", ""),)),
    "BrainInputs": ("Everything one brain took in during a step, exactly (what a re-run feeds)", (
        ("robot", 1, "string", "", ""), ("brain_t_s", 2, "double", "", "the brain's clock"),
        ("observations_t_s", 3, "double", "", ""),
        ("odometry_x_m", 4, "double", "", ""), ("odometry_y_m", 5, "double", "", ""),
        ("odometry_theta_rad", 6, "double", "", ""), ("imu_yaw_rad", 7, "double", "", ""),
        ("head_pan_rad", 8, "double", "", ""), ("head_tilt_rad", 9, "double", "", ""),
        ("camera_frame", 10, "bool", "", "a new camera frame this step"), ("fallen", 11, "bool", "", ""),
        ("detections", 12, "Detection", "repeated", ""), ("line_segments", 13, "LineSegment", "repeated", ""),
        ("packet", 14, "Packet", "", "a new GameController packet arrived"),
        ("team_messages_json", 15, "string", "", "the team messages delivered (JSON list; empty: none)"),
        ("pad_json", 16, "string", "", "what the pad commanded and wrote (JSON; empty: no update)"),
        ("estop", 17, "EmergencyStop", "", ""))),
    "Step": ("A step (/match/step, every step): the world after it and every robot's tick, in the header's order", (
        ("step", 1, "uint64", "", ""), ("truth", 2, "Truth", "", ""), ("robots", 3, "Tick", "repeated", ""))),
    "StepInputs": ("Every brain's inputs of a step (/match/inputs); a robot not yet stepped is absent", (
        ("step", 1, "uint64", "", ""), ("robots", 2, "BrainInputs", "repeated", ""))),
}

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {"float": _F.TYPE_FLOAT, "double": _F.TYPE_DOUBLE, "uint32": _F.TYPE_UINT32, "uint64": _F.TYPE_UINT64,
            "int32": _F.TYPE_INT32, "bool": _F.TYPE_BOOL, "string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES}


def _file() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto(name=FILE_NAME, package=PACKAGE, syntax="proto3")
    for name, (_doc, values) in ENUMS.items():
        enum = fd.enum_type.add(name=name)
        for value, number, _comment in values:
            enum.value.add(name=value, number=number)
    for name, (_doc, fields) in MESSAGES.items():
        msg = fd.message_type.add(name=name)
        oneofs: list[str] = []
        for fname, number, ftype, flags, _comment in fields:
            field = msg.field.add(name=fname, number=number, json_name=_json_name(fname))
            field.label = _F.LABEL_REPEATED if flags == "repeated" else _F.LABEL_OPTIONAL
            if ftype in _SCALARS:
                field.type = _SCALARS[ftype]
            elif ftype in ENUMS:
                field.type = _F.TYPE_ENUM
                field.type_name = f".{PACKAGE}.{ftype}"
            else:
                field.type = _F.TYPE_MESSAGE
                field.type_name = f".{PACKAGE}.{ftype}"
            if flags.startswith("oneof:"):
                group = flags[6:]
                if group not in oneofs:
                    oneofs.append(group)
                    msg.oneof_decl.add(name=group)
                field.oneof_index = oneofs.index(group)
    return fd


def _json_name(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


_FILE = _file()
_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_FILE)
SCHEMA_DATA: bytes = descriptor_pb2.FileDescriptorSet(file=[_FILE]).SerializeToString(deterministic=True)


def message_class(name: str) -> Any:
    """The generated class of message `name` (``"Tick"``) of this schema."""
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName(f"{PACKAGE}.{name}"))


Tick = message_class("Tick")
Step = message_class("Step")
Truth = message_class("Truth")
StepInputs = message_class("StepInputs")
BrainInputs = message_class("BrainInputs")
Change = message_class("Change")
Command = message_class("Command")
Transition = message_class("Transition")
Reason = message_class("Reason")


def proto_text() -> str:
    """The schema as ``.proto`` source, with the comments above."""
    out = ['syntax = "proto3";', "", f"package {PACKAGE};", ""]
    for name, (doc, values) in ENUMS.items():
        out.append(f"// {doc}")
        out.append(f"enum {name} {{")
        for value, number, comment in values:
            out.append(f"  {value} = {number};" + (f"  // {comment}" if comment else ""))
        out += ["}", ""]
    for name, (doc, fields) in MESSAGES.items():
        out.append(f"// {doc}")
        out.append(f"message {name} {{")
        open_oneof = None
        for fname, number, ftype, flags, comment in fields:
            group = flags[6:] if flags.startswith("oneof:") else None
            if open_oneof is not None and group != open_oneof:
                out.append("  }")
                open_oneof = None
            if group is not None and open_oneof is None:
                out.append(f"  oneof {group} {{")
                open_oneof = group
            indent = "    " if group is not None else "  "
            label = "repeated " if flags == "repeated" else ""
            out.append(f"{indent}{label}{ftype} {fname} = {number};" + (f"  // {comment}" if comment else ""))
        if open_oneof is not None:
            out.append("  }")
        out += ["}", ""]
    return "\n".join(out)


if __name__ == "__main__":  # python -m soccerbt.log.proto > soccerbt.proto
    print(proto_text(), end="")
