"""The log in Foxglove: every ``/foxglove/scene`` message of a short recorded match validates
against Foxglove's published SceneUpdate schema, taken from the ``foxglove-sdk`` package's own
definition (its protobuf descriptor of ``foxglove.SceneUpdate``, turned into a JSON schema that
requires every field); the schema the log embeds is the same message for message, field for
field; the scene draws the field lines, goals, robots with their estimates and ball beliefs; and
every other JSON channel embeds a real schema its messages validate against."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

jsonschema = pytest.importorskip("jsonschema")
foxglove_messages = pytest.importorskip("foxglove.messages")
descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")

from mcap.reader import make_reader  # noqa: E402

from soccerbt.log import format as lf  # noqa: E402
from soccerbt.log import schemas  # noqa: E402
from soccerbt.log.scene_update import scene_json, scene_update  # noqa: E402
from soccerbt.log.writer import make_recorder  # noqa: E402
from soccerbt.match import Match, MatchConfig  # noqa: E402

_FDP = descriptor_pb2.FieldDescriptorProto
_SCALARS = {_FDP.TYPE_DOUBLE: "number", _FDP.TYPE_FLOAT: "number", _FDP.TYPE_BOOL: "boolean",
            _FDP.TYPE_STRING: "string", _FDP.TYPE_BYTES: "bytes", _FDP.TYPE_FIXED32: "integer",
            _FDP.TYPE_UINT32: "integer"}
_TIMES = {"Timestamp": "time", "Duration": "duration"}


def _published() -> tuple[dict[str, Any], dict[str, Any]]:
    """(message name -> DescriptorProto, enum full name -> EnumDescriptorProto) of the package's
    foxglove.SceneUpdate (its schema is a FileDescriptorSet)."""
    schema = foxglove_messages.SceneUpdate.get_schema()
    assert schema.name == "foxglove.SceneUpdate"
    files = descriptor_pb2.FileDescriptorSet.FromString(bytes(schema.data))
    messages, enums = {}, {}
    for f in files.file:
        for m in f.message_type:
            messages[m.name] = m
            for e in m.enum_type:
                enums[f".{f.package}.{m.name}.{e.name}"] = e
    return messages, enums


def _strict_from_package(name: str, messages: dict[str, Any], enums: dict[str, Any]) -> dict[str, Any]:
    """The package's message `name` as a JSON schema: every field required, no other allowed."""
    props: dict[str, Any] = {}
    for fd in messages[name].field:
        if fd.type == _FDP.TYPE_MESSAGE:
            short = fd.type_name.rsplit(".", 1)[-1]
            if short in _TIMES:
                item: dict[str, Any] = {"type": "object", "required": ["sec", "nsec"], "additionalProperties": False,
                                        "properties": {"sec": {"type": "integer"},
                                                       "nsec": {"type": "integer", "minimum": 0,
                                                                "maximum": 999_999_999}}}
            else:
                item = _strict_from_package(short, messages, enums)
        elif fd.type == _FDP.TYPE_ENUM:
            item = {"enum": [v.number for v in enums[fd.type_name].value]}
        else:
            kind = _SCALARS[fd.type]
            item = {"type": "string"} if kind == "bytes" else {"type": kind}
        props[fd.name] = {"type": "array", "items": item} if fd.label == _FDP.LABEL_REPEATED else item
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


@pytest.fixture(scope="module")
def match_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Match]:
    """A 2-a-side match with both teams playing, 1.5 simulated seconds (15 scenes)."""
    out = tmp_path_factory.mktemp("fox") / "fox.mcap"
    match = Match(MatchConfig(seed=3, duration_s=1.5, team_size=2))
    recorder = make_recorder(out, match)
    match.run(1.5)
    recorder.finish(match.result())
    return out, match


def _messages(path: Path) -> list[tuple[Any, Any, Any]]:
    with path.open("rb") as f:
        return list(make_reader(f).iter_messages())


def test_every_scene_validates_against_the_packages_scene_update(match_log: tuple[Path, Match]) -> None:
    messages, enums = _published()
    validator = jsonschema.Draft202012Validator(_strict_from_package("SceneUpdate", messages, enums))
    embedded = jsonschema.Draft202012Validator(schemas.SCENE_UPDATE)
    scenes = [(s, c, m) for s, c, m in _messages(match_log[0]) if c.topic == lf.SCENE_TOPIC]
    assert len(scenes) == 15  # steps 10, 20, ... 150
    for schema, channel, message in scenes:
        assert channel.message_encoding == "json" and schema.encoding == "jsonschema"
        assert json.loads(schema.data) == schemas.SCENE_UPDATE
        errors = list(validator.iter_errors(json.loads(message.data)))
        assert not errors, f"t={message.log_time}: {errors[0].json_path}: {errors[0].message}"
        assert embedded.is_valid(json.loads(message.data))
    broken = json.loads(scenes[-1][2].data)
    del broken["entities"][0]["models"]  # a field left out is caught
    assert not validator.is_valid(broken)
    broken = json.loads(scenes[-1][2].data)
    broken["entities"][0]["lines"][0]["type"] = 7  # no LineType
    assert not validator.is_valid(broken) and not embedded.is_valid(broken)


def test_the_embedded_schema_is_the_packages_field_for_field() -> None:
    messages, enums = _published()
    for name, descriptor in messages.items():
        if name in _TIMES:
            continue
        ours = schemas.FOXGLOVE_MESSAGES[name]
        assert [f for f, _, _ in ours] == [fd.name for fd in descriptor.field], name
        for (field, kind, repeated), fd in zip(ours, descriptor.field, strict=False):
            assert repeated == (fd.label == _FDP.LABEL_REPEATED), f"{name}.{field}"
            if fd.type == _FDP.TYPE_MESSAGE:
                short = fd.type_name.rsplit(".", 1)[-1]
                assert kind == _TIMES.get(short, short), f"{name}.{field}"
            elif fd.type == _FDP.TYPE_ENUM:
                values = [(v.name, v.number) for v in enums[fd.type_name].value]
                assert kind.startswith("enum:") and list(schemas._ENUMS[kind[5:]][1]) == values
            else:
                assert kind == _SCALARS[fd.type], f"{name}.{field}"
    assert set(schemas.FOXGLOVE_MESSAGES) == set(messages) - set(_TIMES)
    jsonschema.Draft202012Validator.check_schema(schemas.SCENE_UPDATE)


def test_the_scene_draws_lines_goals_robots_estimates_and_ball_beliefs(match_log: tuple[Path, Match]) -> None:
    path, match = match_log
    last = [m for _, c, m in _messages(path) if c.topic == lf.SCENE_TOPIC][-1]
    scene = json.loads(last.data)
    assert last.log_time == lf.ns_of(150, match.dt_s)  # simulated time, not the wall clock
    by_id = {e["id"]: e for e in scene["entities"]}
    field = match.field
    lines = by_id["field"]["lines"]
    assert len(lines[0]["points"]) == 2 * len(field.lines) and lines[1]["type"] == 1  # + the centre circle
    assert len(by_id["goals"]["cylinders"]) == 4 and len(by_id["goals"]["cubes"]) == 2
    robots = [str(r) for r in sorted(match.world.robots)]
    assert len(robots) == 4
    for name in robots:
        assert by_id[name]["cylinders"] and by_id[name]["arrows"] and by_id[name]["texts"][0]["text"] == name
        assert by_id[f"{name}/estimate"]["cylinders"][0]["color"]["a"] < 1.0
        assert f"{name}/ball_belief" in by_id
    assert any(by_id[f"{n}/ball_belief"]["spheres"] for n in robots)
    assert by_id["ball"]["spheres"]
    stamp = by_id["ball"]["timestamp"]
    assert stamp == {"sec": 1, "nsec": 500_000_000}
    assert by_id["field"]["timestamp"] == stamp == by_id["goals"]["timestamp"]
    # the recorder's bytes (static entities encoded once a field) are json_bytes of the update
    assert last.data == scene_json(match) == lf.json_bytes(scene_update(match))


def test_every_json_channel_embeds_a_real_schema_its_messages_meet(match_log: tuple[Path, Match]) -> None:
    validators: dict[str, Any] = {}
    for schema, channel, message in _messages(match_log[0]):
        if channel.message_encoding != "json":
            continue
        assert schema.encoding == "jsonschema"
        validator = validators.get(schema.name)
        if validator is None:
            body = json.loads(schema.data)
            assert body["title"] == schema.name and body.get("properties"), schema.name
            jsonschema.Draft202012Validator.check_schema(body)
            validator = validators[schema.name] = jsonschema.Draft202012Validator(body)
        errors = list(validator.iter_errors(json.loads(message.data)))
        assert not errors, f"{channel.topic}: {errors[0].json_path}: {errors[0].message}"
    seen = set(validators)
    assert seen >= {"soccerbt.Header", "soccerbt.Summary", "soccerbt.GameControllerState", "soccerbt.Commands",
                    "foxglove.SceneUpdate", "soccerbt.Tree", "soccerbt.Keyframe"}


def test_the_scene_text_is_the_dictionaries_bytes_step_by_step() -> None:
    """scene_json writes the moving entities from f-strings: at every tenth step of a match in
    which robots walk, lose and find the ball, it gives json_bytes(scene_update) exactly."""
    match = Match(MatchConfig(seed=4, duration_s=15.0))
    compared = beliefs = 0
    while not match.finished():
        match.step()
        if match.steps % 10:
            continue
        assert scene_json(match) == lf.json_bytes(scene_update(match)), match.steps
        compared += 1
        beliefs += any(a.blackboard.get("ball_location_known", False) for a in match.agents.values())
    assert compared == 150 and beliefs > 0


def test_the_recorded_scene_is_the_worlds_with_positions_as_the_truth_logs_them(tmp_path: Path) -> None:
    """The recorder writes the scene from the truth part it logged (f32 positions), so that
    replay derive can make it again: at a scene step it is scene_json of the world whose
    positions were rounded to f32, the beliefs drawn from the same brains."""
    import struct

    def f32(v: float) -> float:
        return struct.unpack("<f", struct.pack("<f", v))[0]

    match = Match(MatchConfig(seed=4, duration_s=3.0, team_size=2))
    recorder = make_recorder(tmp_path / "s.mcap", match)
    match.run(3.0)  # a scene at step 300, the last
    recorder.finish(match.result())
    scene = [data for _s, channel, m in _messages(tmp_path / "s.mcap") if channel.topic == lf.SCENE_TOPIC
             for data in [m.data] if m.log_time == lf.ns_of(match.steps, match.dt_s)]
    assert len(scene) == 1
    moved = 0
    for body in [*match.world.robots.values(), match.world.ball]:
        for name in ("x_m", "y_m", "theta_rad") if body is not match.world.ball else ("x_m", "y_m"):
            value = getattr(body, name)
            moved += f32(value) != value
            setattr(body, name, f32(value))
    assert moved > 0  # the rounding does change the world's values
    assert scene[0] == scene_json(match)


def test_scene_numbers_are_written_as_json_writes_them_rounded() -> None:
    import math
    import random

    from soccerbt.log.scene_update import _f

    rng = random.Random(7)
    values = [rng.uniform(-1, 1) * 10 ** rng.randrange(-5, 16) for _ in range(50_000)]
    values += [k / 1000 + d for k in range(-30_000, 30_000, 7) for d in (0.0, 0.0005, -0.0005)]
    values += [0.0, -0.0, 2.0, 1.5, 0.0005, -0.0005, 1e10, -1e10, 1e15, math.inf, -math.inf, math.nan, 3]
    assert [v for v in values if _f(v) != repr(round(float(v), 3))] == []


def test_the_commands_text_is_the_dictionarys_bytes() -> None:
    import math
    import random
    from types import SimpleNamespace

    from soccerbt.log import format as lf
    from soccerbt.log.writer import commands_json, commands_message

    rng = random.Random(3)
    for case in range(300):
        robots = []
        for name in ("blue1", "red12", "ü-2")[: 1 + case % 3]:
            kick = None if rng.random() < 0.5 else SimpleNamespace(direction_rad=rng.uniform(-3, 3),
                                                                   strength=rng.random())
            special = [math.inf, -math.inf, -0.0, 1e-9] if case % 10 == 0 else [rng.uniform(-2, 2)]
            cmd = SimpleNamespace(vx_mps=rng.choice(special), vy_mps=rng.uniform(-1, 1), vtheta_radps=0.0,
                                  head_pan_rad=rng.uniform(-1, 1), head_tilt_rad=rng.uniform(0, 1), kick=kick)
            robots.append((None, SimpleNamespace(last_command=cmd), SimpleNamespace(name=name)))
        t_s = rng.uniform(0, 1200)
        assert commands_json(t_s, robots) == lf.json_bytes(commands_message(t_s, robots))
