"""The ``/foxglove/scene`` message: a ``foxglove.SceneUpdate`` (JSON) of the field at a step.

Entities (frame ``field``, the world frame: metres, x towards the goal blue attacks first):
``field`` (the carpet, every painted line, the centre circle and the penalty marks), ``goals``
(posts, crossbars and the goal frames), one entity per robot with its true pose (a cylinder, an
arrow for its heading, its name), ``<robot>/estimate`` (where the robot believes it is: a
translucent cylinder and arrow in its team's colour; empty for a robot without a tree, and in a
brain's own log, whose referee does not say which goal the team attacks),
``<robot>/ball_belief`` (where it believes the ball is; empty while it does not know) and
``ball``. Every entity and primitive writes every field of Foxglove's published schema
(``schemas.SCENE_UPDATE``); lifetimes are 0 (until replaced by the next update of the same id).

The timestamps are simulated time (the step's ``t_s``), as the log times are: the same seed gives
the same bytes.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from soccerbt.log.format import json_text
from soccerbt.world.types import from_team_frame

__all__ = ["scene_update", "scene_json", "scene_json_of", "team_rgb", "LINE_LIST", "LINE_LOOP"]

LINE_STRIP, LINE_LOOP, LINE_LIST = 0, 1, 2
_CIRCLE_SEGMENTS = 48
_ROBOT_RADIUS_M = 0.2
_ROBOT_HEIGHT_M = 1.2
_FALLEN_HEIGHT_M = 0.1
_WHITE = {"r": 1.0, "g": 1.0, "b": 1.0, "a": 1.0}
_TEAM_RGB = {"BLUE": (0.1, 0.2, 0.9), "RED": (0.9, 0.2, 0.1)}
_BALL_RGB = (1.0, 0.5, 0.0)
_ZERO_DURATION = {"sec": 0, "nsec": 0}


def _r(value: float) -> float:
    return round(float(value), 3)


def _color(rgb: tuple[float, float, float], alpha: float = 1.0) -> dict[str, float]:
    return {"r": rgb[0], "g": rgb[1], "b": rgb[2], "a": alpha}


def _pose(x_m: float, y_m: float, z_m: float, yaw_rad: float = 0.0) -> dict[str, Any]:
    return {"position": {"x": _r(x_m), "y": _r(y_m), "z": _r(z_m)},
            "orientation": {"x": 0.0, "y": 0.0, "z": _r(math.sin(yaw_rad / 2)), "w": _r(math.cos(yaw_rad / 2))}}


def _vec(x: float, y: float, z: float) -> dict[str, float]:
    return {"x": _r(x), "y": _r(y), "z": _r(z)}


def _entity(stamp: dict[str, int], entity_id: str, **primitives: list[dict[str, Any]]) -> dict[str, Any]:
    """A SceneEntity with every field written (the primitives not given are empty)."""
    out: dict[str, Any] = {"timestamp": stamp, "frame_id": "field", "id": entity_id, "lifetime": _ZERO_DURATION,
                           "frame_locked": False, "metadata": primitives.pop("metadata", [])}
    for kind in ("arrows", "cubes", "spheres", "cylinders", "lines", "triangles", "texts", "models"):
        out[kind] = primitives.pop(kind, [])
    return out


def _cube(pose: dict[str, Any], size: dict[str, float], color: dict[str, float]) -> dict[str, Any]:
    return {"pose": pose, "size": size, "color": color}


def _cylinder(pose: dict[str, Any], size: dict[str, float], color: dict[str, float]) -> dict[str, Any]:
    return {"pose": pose, "size": size, "bottom_scale": 1.0, "top_scale": 1.0, "color": color}


def _arrow(pose: dict[str, Any], length_m: float, color: dict[str, float]) -> dict[str, Any]:
    return {"pose": pose, "shaft_length": _r(0.7 * length_m), "shaft_diameter": 0.05,
            "head_length": _r(0.3 * length_m), "head_diameter": 0.12, "color": color}


def _line(kind: int, points: list[tuple[float, float, float]], thickness_m: float,
          color: dict[str, float]) -> dict[str, Any]:
    return {"type": kind, "pose": _pose(0.0, 0.0, 0.0), "thickness": _r(thickness_m), "scale_invariant": False,
            "points": [_vec(*p) for p in points], "color": color, "colors": [], "indices": []}


def _text(pose: dict[str, Any], text: str, size_m: float = 0.4) -> dict[str, Any]:
    return {"pose": pose, "billboard": True, "font_size": size_m, "scale_invariant": False, "color": _WHITE,
            "text": text}


def _field_entity(field: Any, stamp: dict[str, int]) -> dict[str, Any]:
    """The carpet (border strip included), every straight line, the centre circle, the marks."""
    border = field.border_strip_m
    carpet = _cube(_pose(0.0, 0.0, -0.011), _vec(field.length_m + 2 * border, field.width_m + 2 * border, 0.02),
                   {"r": 0.1, "g": 0.5, "b": 0.1, "a": 1.0})
    z = 0.002
    segments: list[tuple[float, float, float]] = []
    for seg in field.lines:
        segments += [(seg.x0_m, seg.y0_m, z), (seg.x1_m, seg.y1_m, z)]
    r = field.centre_circle_radius_m
    circle = [(r * math.cos(2 * math.pi * k / _CIRCLE_SEGMENTS), r * math.sin(2 * math.pi * k / _CIRCLE_SEGMENTS), z)
              for k in range(_CIRCLE_SEGMENTS)]
    width = field.line_width_m
    lines = [_line(LINE_LIST, segments, width, _WHITE), _line(LINE_LOOP, circle, width, _WHITE)]
    mark_x = field.half_length_m - field.penalty_mark_distance_m
    marks = [_cube(_pose(x, 0.0, z), _vec(0.1, 0.1, 0.004), _WHITE) for x in (-mark_x, 0.0, mark_x)]
    return _entity(stamp, "field", cubes=[carpet, *marks], lines=lines)


def _goals_entity(field: Any, stamp: dict[str, int]) -> dict[str, Any]:
    """Both goals: four posts, two crossbars and each goal's frame behind the line."""
    height, post = field.crossbar_height_m, field.goal_post_diameter_m
    hx, hg, depth = field.half_length_m, field.goal_width_m / 2.0, field.goal_depth_m
    posts = [_cylinder(_pose(x, y, height / 2), _vec(post, post, height), _WHITE) for x, y in field.goal_posts]
    bars = [_cube(_pose(x, 0.0, height), _vec(post, field.goal_width_m + post, post), _WHITE) for x in (-hx, hx)]
    frames = []
    for sign in (-1.0, 1.0):
        x0, x1 = sign * hx, sign * (hx + depth)
        frames.append(_line(LINE_STRIP, [(x0, hg, height), (x1, hg, height), (x1, hg, 0.0), (x1, -hg, 0.0),
                                         (x1, -hg, height), (x0, -hg, height)], 0.03, _color((0.8, 0.8, 0.8))))
        frames.append(_line(LINE_LIST, [(x1, hg, height), (x1, -hg, height), (x0, hg, 0.0), (x1, hg, 0.0),
                                        (x0, -hg, 0.0), (x1, -hg, 0.0)], 0.03, _color((0.8, 0.8, 0.8))))
    return _entity(stamp, "goals", cylinders=posts, cubes=bars, lines=frames)


def _robot_body(x_m: float, y_m: float, theta_rad: float, height_m: float,
                color: dict[str, float]) -> tuple[dict[str, Any], dict[str, Any]]:
    body = _cylinder(_pose(x_m, y_m, height_m / 2, theta_rad),
                     _vec(2 * _ROBOT_RADIUS_M, 2 * _ROBOT_RADIUS_M, height_m), color)
    arrow = _arrow(_pose(x_m, y_m, height_m + 0.05, theta_rad), 0.5, color)
    return body, arrow


def _beliefs(agent: Any, attack: bool) -> tuple[Any, tuple[float, float] | None]:
    """(the robot's pose estimate in the world frame, its ball belief in the world frame or None)."""
    estimate = from_team_frame(agent.pose_estimate(), attack)
    bb = agent.blackboard
    ball = bb.get("ball_field", None) if bb.get("ball_location_known", False) else None
    if ball is None:
        return estimate, None
    bx, by = float(ball[0]), float(ball[1])
    return estimate, ((bx, by) if attack else (-bx, -by))


def _stamp(t_s: float) -> dict[str, int]:
    sec = int(t_s)
    return {"sec": sec, "nsec": min(int(round((t_s - sec) * 1e9)), 999_999_999)}


_STAMP_MARK = "\x00stamp\x00"


@lru_cache(maxsize=8)
def _static_text(field: Any) -> tuple[str, ...]:
    """The field's and the goals' entities as JSON text split where their timestamps go (they
    change only by it): encoded once a field, not at every scene."""
    mark: Any = _STAMP_MARK  # stands for the timestamp, found again in the text
    text = json_text([_field_entity(field, mark), _goals_entity(field, mark)])[1:-1]
    return tuple(text.split(json_text(_STAMP_MARK)))


def scene_json(match: Any) -> bytes:
    """``scene_update(match)`` as the log's JSON bytes (the same bytes as ``format.json_bytes``
    of it, tested step by step), written as text: the field's and the goals' entities encoded once
    a field (``_static_text``), the moving ones from f-strings (``_moving_text``); the recorder
    writes one at every ``SCENE_PERIOD_STEPS``, and the dictionaries cost more than the match."""
    stamp_text = json_text(_stamp(match.world.t_s))
    static = stamp_text.join(_static_text(match.field))
    return f'{{"deletions":[],"entities":[{static},{_moving_text(match, stamp_text)}]}}'.encode("utf-8")


def _f(value: float) -> str:
    """A number as json_text writes ``_r(value)``: ``repr(round(value, 3))``, made from one
    correctly rounded ``%.3f`` (the same decimal: both round the exact binary value) with its
    trailing zeros dropped, which is the shortest text of that rounded double; cheaper, and the
    scene writes about a hundred numbers (checked against repr(round()) for the range of a
    field; a text longer than 15 characters, from 1e10 on, where the digits may not name one
    double, or a value that is not finite, takes repr(round()))."""
    text = "%.3f" % value
    if len(text) > 15 or text[-1] not in "0123456789":  # long, inf, nan: the reference way
        return repr(round(float(value), 3))
    text = text.rstrip("0")
    return text + "0" if text[-1] == "." else text


@lru_cache(maxsize=256)
def _const(value: float) -> str:
    """``_f`` of a value that repeats (heights, sizes): formatted once."""
    return _f(value)


def _turn_text(yaw_rad: float) -> str:
    """The orientation of a pose turned by `yaw_rad` about z."""
    half = yaw_rad / 2
    return f'"orientation":{{"x":0.0,"y":0.0,"z":{_f(math.sin(half))},"w":{_f(math.cos(half))}}}}}'


def _pose_text(x_m: float, y_m: float, z_m: float, yaw_rad: float = 0.0, turn: str = "") -> str:
    """``_pose``'s JSON text; `turn`: its orientation's text already made (``_turn_text``)."""
    return (f'{{"position":{{"x":{_f(x_m)},"y":{_f(y_m)},"z":{_const(z_m)}}},'
            f'{turn or _turn_text(yaw_rad)}')


@lru_cache(maxsize=256)
def _id_text(entity_id: str) -> str:
    """What follows an entity's timestamp up to its metadata (its id as JSON), made once an id."""
    return (f',"frame_id":"field","id":{json_text(entity_id)},"lifetime":{{"sec":0,"nsec":0}},'
            f'"frame_locked":false,"metadata":')


def _entity_text(stamp_text: str, entity_id: str, metadata: str = "[]", *, arrows: str = "[]",
                 spheres: str = "[]", cylinders: str = "[]", texts: str = "[]") -> str:
    """``_entity``'s JSON text (no cubes, lines, triangles nor models: the moving entities have
    none); `metadata` and each primitive list given as JSON text."""
    return (f'{{"timestamp":{stamp_text}{_id_text(entity_id)}{metadata},"arrows":{arrows},"cubes":[],'
            f'"spheres":{spheres},"cylinders":{cylinders},"lines":[],"triangles":[],"texts":{texts},"models":[]}}')


@lru_cache(maxsize=32)
def _color_text(rgb: tuple[float, float, float], alpha: float = 1.0) -> str:
    return json_text(_color(rgb, alpha))


@lru_cache(maxsize=16)
def _body_parts(height_m: float, color: str) -> tuple[str, str]:
    """The constant tails of ``_robot_body``'s cylinder and arrow of a height and colour."""
    size = f'{{"x":{_f(2 * _ROBOT_RADIUS_M)},"y":{_f(2 * _ROBOT_RADIUS_M)},"z":{_f(height_m)}}}'
    return (f',"size":{size},"bottom_scale":1.0,"top_scale":1.0,"color":{color}}}',
            f',"shaft_length":{_f(0.7 * 0.5)},"shaft_diameter":0.05,"head_length":{_f(0.3 * 0.5)},'
            f'"head_diameter":0.12,"color":{color}}}')


def _body_texts(x_m: float, y_m: float, theta_rad: float, height_m: float, color: str) -> tuple[str, str]:
    """``_robot_body``'s cylinder and arrow as JSON text."""
    turn = _turn_text(theta_rad)
    body_tail, arrow_tail = _body_parts(height_m, color)
    return (f'{{"pose":{_pose_text(x_m, y_m, height_m / 2, turn=turn)}{body_tail}',
            f'{{"pose":{_pose_text(x_m, y_m, height_m + 0.05, turn=turn)}{arrow_tail}')


def _label_text(pose: str, text: str, size_m: float = 0.4) -> str:
    return (f'{{"pose":{pose},"billboard":true,"font_size":{size_m!r},"scale_invariant":false,'
            f'"color":{_WHITE_TEXT},"text":{json_text(text)}}}')


def _sphere_text(x_m: float, y_m: float, diameter_m: float, color: str) -> str:
    d = _const(diameter_m)
    pose = _pose_text(x_m, y_m, diameter_m / 2, turn=_UNTURNED)
    return f'{{"pose":{pose},"size":{{"x":{d},"y":{d},"z":{d}}},"color":{color}}}'


def _moving_text(match: Any, stamp_text: str) -> str:
    """The robots' entities and the ball's (``scene_update`` without the static ones) as the
    JSON text of their list's items."""
    world = match.world
    agents = getattr(match, "agents", {})
    attacks_positive_x = getattr(match.referee, "attacks_positive_x", None)
    robots = world.robots
    rows = []
    for rid, name, rgb in _robot_order(robots):
        truth = robots[rid]
        agent = agents.get(rid)
        attack = None if agent is None or attacks_positive_x is None else attacks_positive_x(rid.team)
        rows.append((name, rgb, truth.x_m, truth.y_m, truth.theta_rad, truth.fallen, agent, attack))
    ball = world.ball
    return _moving_text_of(rows, ball.x_m, ball.y_m, match.field.ball_diameter_m, stamp_text)


# fallen: a bool (the world's) or 0/1 (the truth as the log holds it)
SceneRobot = tuple[str, tuple[float, float, float], float, float, float, int, Any, "bool | None"]


def scene_json_of(t_s: float, field: Any, robots: list[SceneRobot], ball_x_m: float, ball_y_m: float) -> bytes:
    """``scene_json`` of a step given by its values rather than a match: `robots` in id order,
    each (name, team colour ``team_rgb``, x_m, y_m, theta_rad, fallen, its agent or None, whether
    its team attacks +x or None when unknown: no beliefs drawn). The recorder writes the scene
    from the truth as the log holds it (f32) through this, so that ``replay derive`` makes the
    same bytes from the log."""
    stamp_text = json_text(_stamp(t_s))
    static = stamp_text.join(_static_text(field))
    moving = _moving_text_of(robots, ball_x_m, ball_y_m, field.ball_diameter_m, stamp_text)
    return f'{{"deletions":[],"entities":[{static},{moving}]}}'.encode("utf-8")


def team_rgb(team_name: str) -> tuple[float, float, float]:
    """A team's colour in the scene (grey for a team it does not know)."""
    return _TEAM_RGB.get(team_name, (0.5, 0.5, 0.5))


def _moving_text_of(robots: list[SceneRobot], ball_x_m: float, ball_y_m: float, ball_diameter: float,
                    stamp_text: str) -> str:
    out = []
    for name, rgb, x_m, y_m, theta_rad, fallen, agent, attack in robots:
        height = _FALLEN_HEIGHT_M if fallen else _ROBOT_HEIGHT_M
        body, arrow = _body_texts(x_m, y_m, theta_rad, height, _color_text(rgb))
        metadata = f'[{{"key":"fallen","value":"{"true" if fallen else "false"}"}}'
        estimate_text = ball_text = ""
        if agent is not None and attack is not None:
            estimate, ball = _beliefs(agent, attack)
            body_e, arrow_e = _body_texts(estimate.x_m, estimate.y_m, estimate.theta_rad, _ROBOT_HEIGHT_M,
                                          _color_text(rgb, 0.3))
            estimate_text = _entity_text(stamp_text, f"{name}/estimate", cylinders=f"[{body_e}]",
                                         arrows=f"[{arrow_e}]")
            error_m = math.hypot(estimate.x_m - x_m, estimate.y_m - y_m)
            metadata += f',{{"key":"estimate_error_m","value":"{error_m:.2f}"}}'  # digits: nothing to escape
            if ball is not None:
                sphere = _sphere_text(ball[0], ball[1], ball_diameter, _color_text(rgb, 0.6))
                label = _label_text(_pose_text(ball[0], ball[1], ball_diameter + 0.15, turn=_UNTURNED), name, 0.2)
                ball_text = _entity_text(stamp_text, f"{name}/ball_belief", spheres=f"[{sphere}]",
                                         texts=f"[{label}]")
        out.append(_entity_text(stamp_text, name, metadata + "]", cylinders=f"[{body}]", arrows=f"[{arrow}]",
                                texts=f"[{_label_text(_pose_text(x_m, y_m, height + 0.3, turn=_UNTURNED), name)}]"))
        out.append(estimate_text or _entity_text(stamp_text, f"{name}/estimate"))
        out.append(ball_text or _entity_text(stamp_text, f"{name}/ball_belief"))
    out.append(
        _entity_text(
            stamp_text, "ball", spheres=f"[{_sphere_text(ball_x_m, ball_y_m, ball_diameter, _color_text(_BALL_RGB))}]"
        )
    )
    return ",".join(out)


_WHITE_TEXT = json_text(_WHITE)
_UNTURNED = _turn_text(0.0)
_ORDER: list[Any] = [None, ()]   # the robots dictionary last seen and its robots in order


def _robot_order(robots: dict[Any, Any]) -> tuple[tuple[Any, str, tuple[float, float, float]], ...]:
    """(id, name, team colour) of each robot in id order; sorted again only when the robots change."""
    if _ORDER[0] is not robots or len(_ORDER[1]) != len(robots):
        _ORDER[0] = robots
        _ORDER[1] = tuple((rid, str(rid), team_rgb(rid.team.name)) for rid in sorted(robots))
    return _ORDER[1]


def scene_update(match: Any, with_static: bool = True) -> dict[str, Any]:
    """The SceneUpdate of the match's current step (see the module docstring); `with_static`:
    with the field's and the goals' entities (first)."""
    world = match.world
    stamp = _stamp(world.t_s)
    field = match.field
    entities = [_field_entity(field, stamp), _goals_entity(field, stamp)] if with_static else []
    agents = getattr(match, "agents", {})
    # a brain's own log (soccerbt.robot.recording) knows no side: its beliefs are not drawn
    attacks_positive_x = getattr(match.referee, "attacks_positive_x", None)
    ball_diameter = field.ball_diameter_m
    for rid in sorted(world.robots):
        truth = world.robots[rid]
        rgb = _TEAM_RGB.get(rid.team.name, (0.5, 0.5, 0.5))
        height = _FALLEN_HEIGHT_M if truth.fallen else _ROBOT_HEIGHT_M
        body, arrow = _robot_body(truth.x_m, truth.y_m, truth.theta_rad, height, _color(rgb))
        name = str(rid)
        agent = agents.get(rid)
        metadata = [{"key": "fallen", "value": str(bool(truth.fallen)).lower()}]
        estimate_prims: dict[str, list[dict[str, Any]]] = {}
        ball_prims: dict[str, list[dict[str, Any]]] = {}
        if agent is not None and attacks_positive_x is not None:
            estimate, ball = _beliefs(agent, attacks_positive_x(rid.team))
            body_e, arrow_e = _robot_body(estimate.x_m, estimate.y_m, estimate.theta_rad, _ROBOT_HEIGHT_M,
                                          _color(rgb, 0.3))
            estimate_prims = {"cylinders": [body_e], "arrows": [arrow_e]}
            error_m = math.hypot(estimate.x_m - truth.x_m, estimate.y_m - truth.y_m)
            metadata.append({"key": "estimate_error_m", "value": f"{error_m:.2f}"})
            if ball is not None:
                ball_prims = {"spheres": [{"pose": _pose(ball[0], ball[1], ball_diameter / 2),
                                           "size": _vec(ball_diameter, ball_diameter, ball_diameter),
                                           "color": _color(rgb, 0.6)}],
                              "texts": [_text(_pose(ball[0], ball[1], ball_diameter + 0.15), name, 0.2)]}
        entities.append(_entity(stamp, name, cylinders=[body], arrows=[arrow], metadata=metadata,
                                texts=[_text(_pose(truth.x_m, truth.y_m, height + 0.3), name)]))
        entities.append(_entity(stamp, f"{name}/estimate", **estimate_prims))
        entities.append(_entity(stamp, f"{name}/ball_belief", **ball_prims))
    ball = world.ball
    entities.append(_entity(stamp, "ball", spheres=[{
        "pose": _pose(ball.x_m, ball.y_m, ball_diameter / 2), "size": _vec(ball_diameter, ball_diameter, ball_diameter),
        "color": _color(_BALL_RGB)}]))
    return {"deletions": [], "entities": entities}
