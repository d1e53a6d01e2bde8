"""Format-1 records written in format 2: a step's truth, a robot's tick and a step's inputs.

A format-1 log (soccerbt 0.1) is read into the same records as a format-2 one
(``soccerbt.log.reader``); what writes a log from it (a re-run's ``--out``, a derive, ``replay
convert``) writes format 2, from those records: ``truth_message`` and ``tick_message`` (a
``soccerbt.Step`` of them: ``tick_encode.step_message``) and ``inputs_message`` give the protobuf
messages whose decoding is the record again (the same
values, the same writers, the same reasons; a format-1 pose, stored as three floats, comes back
as the same three numbers). ``upgrade_log`` writes a whole format-1 log in format 2, so that
Foxglove and other MCAP tools read it.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from soccerbt.cli.outputs import open_exclusive
from soccerbt.log import format as lf
from soccerbt.log import proto
from soccerbt.log.format import ReplayError, ShapeError
from soccerbt.log.inputs import InputRecord, encode_step_inputs, exact_json, py_encode_inputs
from soccerbt.log.reader import KeyTables
from soccerbt.log.software import software
from soccerbt.log.tick_encode import step_message, truth_bytes
from soccerbt.log.writer import LogWriter

__all__ = ["truth_message", "command_message", "tick_message", "inputs_message", "upgrade_log"]

_ADAPTERS = {name: i for i, name in enumerate(lf.WRITERS)}


def truth_message(rec: lf.TruthRecord, names: list[str]) -> bytes:
    """A TruthRecord as ``soccerbt.Truth`` (its robots named as the header names them)."""
    return truth_bytes(rec.step, rec.t_s, rec.ball, rec.gc, names, rec.robots)


def _numbers(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)


def _change(key: str, entry: list[Any]) -> Any:
    value, writer = entry
    if isinstance(writer, int) and not isinstance(writer, bool) and writer > 0:
        change = proto.Change(key=key, node_uid=writer)
    else:
        change = proto.Change(key=key, adapter=_ADAPTERS.get(str(writer), 0))
    if value is None and writer == "removed":
        change.removed = True
    elif isinstance(value, float):
        change.number = value
    elif isinstance(value, bool):
        change.flag = value
    elif _numbers(value):
        change.floats.values.extend(value)
    elif isinstance(value, list) and value and all(isinstance(p, list) and len(p) == 2 and _numbers(p) for p in value):
        change.points.values.extend(v for point in value for v in point)
    else:
        change.json = lf.json_text(value)
    return change


def command_message(command: tuple[float, ...]) -> Any:
    """A command's seven values (``format.command_tuple``'s order; no kick: NaN) as ``soccerbt.Command``."""
    vx, vy, vth, pan, tilt, kick_dir, kick_strength = command
    msg = proto.Command(vx_mps=vx, vy_mps=vy, vtheta_radps=vth, head_pan_rad=pan, head_tilt_rad=tilt)
    if not math.isnan(kick_dir):
        msg.kick = True
        msg.kick_direction_rad = kick_dir
        msg.kick_strength = kick_strength
    return msg


def tick_message(robot: str, step: int, rec: lf.TickRecord) -> bytes:
    """`robot`'s TickRecord (with its blackboard decoded) as ``soccerbt.Tick``."""
    msg = proto.Tick(robot=robot, step=step, tick=rec.tick, root=rec.root, command=command_message(rec.command),
                     skipped=rec.skipped,
                     ticked=rec.ticked)
    msg.transitions.extend(proto.Transition(uid=u, previous=p, status=n) for u, p, n in rec.transitions)
    msg.reasons.extend(proto.Reason(uid=uid, text=text) for uid, text in rec.reasons.items())
    msg.changes.extend(_change(key, entry) for key, entry in rec.blackboard.items())
    return msg.SerializeToString()


def inputs_message(step: int, records: list[tuple[str, InputRecord]]) -> bytes:
    """Every brain's inputs of a step (robot, record) as ``soccerbt.StepInputs``."""
    parts = [py_encode_inputs(robot, rec.t_s, rec.observations, rec.packet,
                              None if rec.team is None else exact_json(rec.team),
                              None if rec.pad is None else exact_json(rec.pad), rec.estop)
             for robot, rec in records]
    return encode_step_inputs(step, parts)


def upgrade_log(log: Any, out: Path) -> tuple[int, list[str]]:
    """Write the format-1 `log` (an McapLog) to `out` in format 2: the same header (its format
    version raised, ``upgraded_from`` and this soccerbt's ``software`` added), every step's truth,
    ticks and inputs as protobuf, the other channels as they are (format 1's key tables left
    out: format 2's changes name their keys). (steps written, notes: the steps a damaged chunk
    lost). Written under a temporary name and renamed when whole."""
    if log.format_version != 1:
        raise ReplayError(log.path, None, f"is of log format {log.format_version} already: nothing to upgrade")
    target = Path(os.path.realpath(out))
    tmp, stream = open_exclusive(target.parent, target.name)
    writer = LogWriter(tmp, stream=stream)
    writer.dt_s = log.dt_s
    notes: list[str] = []

    def put(topic: str, step: int, data: bytes) -> None:
        kind = lf.kind_of_topic(topic)
        if kind is not None:
            writer.put(writer.channel(topic, kind), step, data)

    try:
        header = dict(log.header)
        header["format_version"] = lf.FORMAT_VERSION
        header["upgraded_from"] = {"format_version": 1, "soccerbt_version": log.header.get("soccerbt_version")}
        header["software"] = software()
        put(lf.HEADER_TOPIC, 0, lf.json_bytes(header))
        tables = KeyTables(log, log.robots, 1)
        last = 0
        for topic, step, data in log.messages(0, log.last_step):
            if tables.follow(topic, data) and topic.endswith("/keys"):
                continue  # format 2's changes name their keys
            if topic == lf.HEADER_TOPIC:
                continue
            if topic == lf.STEP_TOPIC:
                try:
                    view = log.decode_step(data, tables.tables)
                except (ValueError, ShapeError) as exc:
                    notes.append(f"{log.path}: step {step} unreadable ({exc}); left out")
                    continue
                put(lf.STEP_TOPIC, step, step_message(step, truth_message(view.truth, log.robots),
                                                      [tick_message(r, step, view.ticks[r]) for r in log.robots]))
                last = step
            elif topic == lf.INPUTS_TOPIC:
                try:
                    records = log.inputs_of(data)
                except (ValueError, ShapeError) as exc:
                    notes.append(f"{log.path}: the inputs of step {step} are unreadable ({exc}); left out")
                    continue
                put(lf.INPUTS_TOPIC, step, inputs_message(step, [(r, records[r]) for r in log.robots if r in records]))
            else:
                put(topic, step, data)
        notes += [f"{log.path}: {gap.text(log.dt_s)}" for gap in log.gaps]
        writer.finish(last, {**(log.index or {}), "steps": last})
        os.replace(tmp, target)
    except BaseException:
        writer.discard()
        raise
    return last, notes
