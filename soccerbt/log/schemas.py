"""The JSON schemas the replay log embeds for its JSON channels (``format.SCHEMAS``).

``/foxglove/scene`` carries ``foxglove.SceneUpdate`` messages in Foxglove's JSON encoding, and
its schema is Foxglove's published one: the same messages, fields and types as the
``foxglove.SceneUpdate`` that the ``foxglove-sdk`` package ships (the test
``tests/log/test_foxglove_schema.py`` holds this module's schema against that package's
definition field by field, and validates every scene message of a recorded match against it).
As in Foxglove's schemas, ``timestamp`` is ``{sec, nsec}`` and an enum an integer constant.

The other JSON channels (header, summary, events, GameController state, commands, a robot's
tree and keyframe) get schemas written from the shapes the log's readers check
(``format.check_*``): the fields a reader relies on, their types, and which are required.
A reader never uses these schemas; they are for other tools (Foxglove's raw message panel, a
user's own script). The per-step channels are protobuf (``soccerbt.log.proto``).
"""
from __future__ import annotations

from typing import Any

__all__ = ["SCENE_UPDATE", "FOXGLOVE_MESSAGES", "foxglove_schema", "HEADER", "SUMMARY", "EVENT", "GC", "COMMANDS",
           "TREE", "KEYS", "KEYFRAME", "JsonSchema"]

JsonSchema = dict[str, Any]

# --- Foxglove's SceneUpdate ---------------------------------------------------------------------
# Each message: its fields in order, each (name, type, repeated). A type is a JSON scalar
# ("number", "integer", "string", "boolean", "bytes"), an enum ("enum:Name") or another message.

_TIME = "time"
_DURATION = "duration"
_ENUMS: dict[str, tuple[str, tuple[tuple[str, int], ...]]] = {
    "LineType": ("foxglove.LineType", (("LINE_STRIP", 0), ("LINE_LOOP", 1), ("LINE_LIST", 2))),
    "SceneEntityDeletionType": ("foxglove.SceneEntityDeletionType", (("MATCHING_ID", 0), ("ALL", 1))),
}
FOXGLOVE_MESSAGES: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "Color": (("r", "number", False), ("g", "number", False), ("b", "number", False), ("a", "number", False)),
    "Vector3": (("x", "number", False), ("y", "number", False), ("z", "number", False)),
    "Point3": (("x", "number", False), ("y", "number", False), ("z", "number", False)),
    "Quaternion": (("x", "number", False), ("y", "number", False), ("z", "number", False), ("w", "number", False)),
    "Pose": (("position", "Vector3", False), ("orientation", "Quaternion", False)),
    "KeyValuePair": (("key", "string", False), ("value", "string", False)),
    "ArrowPrimitive": (("pose", "Pose", False), ("shaft_length", "number", False), ("shaft_diameter", "number", False),
                       ("head_length", "number", False), ("head_diameter", "number", False), ("color", "Color", False)),
    "CubePrimitive": (("pose", "Pose", False), ("size", "Vector3", False), ("color", "Color", False)),
    "SpherePrimitive": (("pose", "Pose", False), ("size", "Vector3", False), ("color", "Color", False)),
    "CylinderPrimitive": (("pose", "Pose", False), ("size", "Vector3", False), ("bottom_scale", "number", False),
                          ("top_scale", "number", False), ("color", "Color", False)),
    "LinePrimitive": (("type", "enum:LineType", False), ("pose", "Pose", False), ("thickness", "number", False),
                      ("scale_invariant", "boolean", False), ("points", "Point3", True), ("color", "Color", False),
                      ("colors", "Color", True), ("indices", "integer", True)),
    "TriangleListPrimitive": (("pose", "Pose", False), ("points", "Point3", True), ("color", "Color", False),
                              ("colors", "Color", True), ("indices", "integer", True)),
    "TextPrimitive": (("pose", "Pose", False), ("billboard", "boolean", False), ("font_size", "number", False),
                      ("scale_invariant", "boolean", False), ("color", "Color", False), ("text", "string", False)),
    "ModelPrimitive": (("pose", "Pose", False), ("scale", "Vector3", False), ("color", "Color", False),
                       ("override_color", "boolean", False), ("url", "string", False),
                       ("media_type", "string", False), ("data", "bytes", False)),
    "SceneEntityDeletion": (("timestamp", _TIME, False), ("type", "enum:SceneEntityDeletionType", False),
                            ("id", "string", False)),
    "SceneEntity": (("timestamp", _TIME, False), ("frame_id", "string", False), ("id", "string", False),
                    ("lifetime", _DURATION, False), ("frame_locked", "boolean", False),
                    ("metadata", "KeyValuePair", True), ("arrows", "ArrowPrimitive", True),
                    ("cubes", "CubePrimitive", True), ("spheres", "SpherePrimitive", True),
                    ("cylinders", "CylinderPrimitive", True), ("lines", "LinePrimitive", True),
                    ("triangles", "TriangleListPrimitive", True), ("texts", "TextPrimitive", True),
                    ("models", "ModelPrimitive", True)),
    "SceneUpdate": (("deletions", "SceneEntityDeletion", True), ("entities", "SceneEntity", True)),
}


def _field_schema(kind: str, strict: bool) -> JsonSchema:
    if kind in ("number", "integer", "string", "boolean"):
        return {"type": kind} if kind != "integer" else {"type": "integer", "minimum": 0}
    if kind == "bytes":
        return {"type": "string", "contentEncoding": "base64"}
    if kind == _TIME:
        out: JsonSchema = {"type": "object", "title": "time", "properties": {
            "sec": {"type": "integer", "minimum": 0}, "nsec": {"type": "integer", "minimum": 0, "maximum": 999999999}}}
    elif kind == _DURATION:
        out = {"type": "object", "title": "duration", "properties": {
            "sec": {"type": "integer"}, "nsec": {"type": "integer", "minimum": 0, "maximum": 999999999}}}
    elif kind.startswith("enum:"):
        title, values = _ENUMS[kind[5:]]
        return {"title": title, "oneOf": [{"title": name, "const": number} for name, number in values]}
    else:
        return foxglove_schema(kind, strict)
    if strict:
        out["required"] = ["sec", "nsec"]
        out["additionalProperties"] = False
    return out


def foxglove_schema(name: str = "SceneUpdate", strict: bool = False) -> JsonSchema:
    """Foxglove's JSON schema of message `name` (``foxglove.<name>``); `strict` also requires
    every field and allows no other (what the recorder writes: all fields, nothing else)."""
    properties: JsonSchema = {}
    for field, kind, repeated in FOXGLOVE_MESSAGES[name]:
        item = _field_schema(kind, strict)
        properties[field] = {"type": "array", "items": item} if repeated else item
    out: JsonSchema = {"title": f"foxglove.{name}", "type": "object", "properties": properties}
    if strict:
        out["required"] = [f for f, _, _ in FOXGLOVE_MESSAGES[name]]
        out["additionalProperties"] = False
    return out


SCENE_UPDATE: JsonSchema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **foxglove_schema()}

# --- soccerbt's own channels --------------------------------------------------------------------

_DRAFT = "https://json-schema.org/draft/2020-12/schema"
_NAT = {"type": "integer", "minimum": 0}
_STR = {"type": "string"}
_STR_OR_NULL = {"type": ["string", "null"]}
_NUM = {"type": "number"}
_STATUS = {"type": "integer", "minimum": 0, "maximum": 4,
           "description": "BT.CPP's status codes: IDLE 0, RUNNING 1, SUCCESS 2, FAILURE 3, SKIPPED 4"}
_WRITER = {"type": ["integer", "string"],
           "description": "a node uid, or the adapter that owns the key (gamecontroller, world_model, ...)"}


def _object(title: str, description: str, properties: JsonSchema, required: list[str]) -> JsonSchema:
    return {"$schema": _DRAFT, "title": title, "description": description, "type": "object",
            "properties": properties, "required": required}


_SOFTWARE = {"type": "object", "description": "the software that wrote the log", "properties": {
    "soccerbt": _STR, "source_digest": {**_STR, "description": "sha256: over soccerbt's source files"},
    "git_commit": {**_STR_OR_NULL, "description": "the checkout's commit, when run from one"},
    "python": _STR, "libraries": {"type": "object", "additionalProperties": _STR_OR_NULL,
                                  "description": "name -> version of the libraries that shape the numbers"}}}

HEADER = _object("soccerbt.Header", "The log's header (once, at time 0)", {
    "format": _STR, "format_version": {**_NAT, "description": "the log format (CHANGELOG.md); 2 since soccerbt 0.2"},
    "soccerbt_version": _STR, "software": _SOFTWARE,
    "recorded_software": {"type": ["object", "null"], "description": "a derived log: the software that recorded it"},
    "upgraded_from": {"type": "object", "description": "a log written again from an older format's"},
    "seed": {"type": ["integer", "null"]},
    "dt_s": {"type": "number", "exclusiveMinimum": 0, "description": "the simulation step, seconds"},
    "robots": {"type": "array", "items": _STR, "uniqueItems": True, "minItems": 1,
               "description": "the robots with a brain, in the order of the truth's robots"},
    "all_robots": {"type": "array", "items": _STR}, "team_size": _NAT,
    "half_s": {**_NUM, "description": "a half, simulated seconds"}, "duration_s": {"type": ["number", "null"]},
    "keyframe_steps": _NAT, "inputs": {"type": ["object", "null"]},
    "field": {**_STR, "description": "a field soccerbt knows (adult_size, kid_size, ...)"},
    "config": {"type": ["object", "null"]},
    "node_plugins": {"type": "array", "description": "a team's own nodes the run loaded (only when it loaded any)",
                     "items": {"type": "object", "properties": {
                         "name": _STR, "source": {**_STR, "description": "entry point, module or file, in words"},
                         "spec": {**_STR_OR_NULL, "description": "the --nodes text (null: an installed entry point)"},
                         "version": _STR_OR_NULL, "nodes": {"type": "array", "items": _STR}},
                         "required": ["name", "source", "nodes"]}},
    "converted_from": {"type": ["object", "null"]},
    "node_data": {"type": "boolean"},
    "tree_files": {"type": "object", "additionalProperties": _STR,
                   "description": "an inputs-only log: each tree file's text by its path (what derive loads)"},
    "derived_from": {**_STR, "description": "the inputs-only log this one was derived from"},
    "blue_attacks_positive_x_first_half": {"type": "boolean"},
    "trees": {"type": "object", "additionalProperties": {"type": "object", "properties": {
        "path": _STR, "idle": {"type": "boolean"}, "files": {"type": "array", "items": {
            "type": "object", "properties": {"path": _STR, "sha256": _STR}, "required": ["path", "sha256"]}}}}},
}, ["robots", "field"])

SUMMARY = _object("soccerbt.Summary", "The match result (at the end)", {
    "score": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "team -> goals"},
}, [])

EVENT = _object("soccerbt.Event", "A referee, agent or recorder event", {
    "kind": _STR, "t": {**_NUM, "description": "simulated time, seconds"}, "step": _NAT,
    "detail": _STR_OR_NULL, "team": _STR_OR_NULL, "robot": _STR_OR_NULL, "node_path": _STR_OR_NULL,
}, ["kind", "t", "step"])

GC = _object("soccerbt.GameControllerState", "The GameController state in words (on change)", {
    "state": _STR, "secondary_state": _STR, "sub_state": _STR, "score_blue": _NAT, "score_red": _NAT,
    "blue_attacks_positive_x": {"type": "boolean", "description": "blue attacks the +x goal now (a match's log)"},
    "red_attacks_positive_x": {"type": "boolean", "description": "red attacks the +x goal now (a match's log)"},
}, ["state"])

COMMANDS = _object("soccerbt.Commands", "Every robot's command (10 Hz)", {
    "t": {**_NUM, "description": "simulated time, seconds"},
    "commands": {"type": "object", "description": "robot -> [vx m/s, vy m/s, vtheta rad/s, head pan rad, head "
                 "tilt rad, kick direction rad, kick strength] (null: no kick)",
                 "additionalProperties": {"type": "array", "items": {"type": ["number", "null"]},
                                          "minItems": 7, "maxItems": 7}},
}, ["t", "commands"])

_NODE = {"type": "object", "properties": {
    "uid": {"type": "integer", "minimum": 1}, "parent": {**_NAT, "description": "0: the root"},
    "name": _STR, "id": {**_STR, "description": "the registration ID"},
    "kind": {"enum": ["Action", "Condition", "Control", "Decorator", "SubTree"]}, "path": _STR,
    "tree_id": _STR_OR_NULL, "subtree": _STR_OR_NULL, "line": {"type": ["integer", "null"]},
    "ports": {"type": "object", "additionalProperties": _STR},
    "conditions": {"type": "object", "additionalProperties": _STR},
    "defaults": {"type": "object", "additionalProperties": _STR_OR_NULL,
                 "description": "the ports the XML leaves out: the default in effect, null: none (format 3)"},
    "keys": {"type": "object", "additionalProperties": _STR_OR_NULL,
             "description": "port -> the root blackboard key its {pointer} names, null: a SubTree's own (format 3)"},
}, "required": ["uid", "parent", "name", "id", "kind", "path"]}

TREE = _object("soccerbt.Tree", "A robot's tree (at load and at every hot reload), nodes in uid order", {
    "load": {"type": "integer", "minimum": 1}, "step": _NAT, "tick": _NAT,
    "t": {**_NUM, "description": "simulated time, seconds"}, "reason": _STR_OR_NULL, "file": _STR_OR_NULL,
    "nodes": {"type": "array", "items": _NODE, "minItems": 1},
    "subtrees": {"type": "array", "items": {"type": "object", "properties": {
        "tree_id": _STR, "instance": _STR, "root": _NAT}, "required": ["tree_id", "instance"]}},
}, ["load", "nodes"])

KEYS = _object("soccerbt.KeyTable", "A robot's root blackboard keys from a step on (format 1 only)", {
    "from_step": _NAT, "keys": {"type": "array", "items": _STR},
}, ["from_step", "keys"])

KEYFRAME = _object("soccerbt.Keyframe", "Every node's status and the whole root blackboard after a step", {
    "after_step": _NAT, "tick": _NAT, "load": _NAT,
    "statuses": {"type": "array", "items": _STATUS, "description": "by uid - 1"},
    "keys": {"type": "array", "items": _STR},
    "blackboard": {"type": "object", "description": "key -> [value, writer]",
                   "additionalProperties": {"type": "array", "prefixItems": [{}, _WRITER],
                                            "minItems": 2, "maxItems": 2}},
    "reasons": {"type": "array", "description": "each decision node's latest reason: [uid, tick, text]",
                "items": {"type": "array", "prefixItems": [_NAT, _NAT, _STR], "minItems": 3, "maxItems": 3}},
}, ["after_step", "statuses", "blackboard"])
