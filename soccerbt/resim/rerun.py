"""``soccerbt replay LOG --robot R --rerun [--tree NEW.xml] [--from T] [--to T] [--out NEW.mcap]``.

A fresh brain of robot R, built as the log's header says (``inputs.brains``: the ``BrainSpec``,
the driver's limits, a pad and an emergency stop when there were), with the given tree (the
recorded one when none is given: it must be unchanged, checked by its SHA-256 as ``--verify``
does), is fed R's recorded inputs step by step (``/match/inputs``: brain time, observations,
GameController packets, team messages, the pad, the stop) and recorded by the match recorder
into no file (logs of format 1 and 2 alike); its ticks are compared with the log's (``rerun_compare``) over
``--from``..``--to`` (the brain always runs from the log's first step, so that its state at ``--from`` is the one it
reached by then). The re-run is open loop: the world does not react to its commands, the
observations are those of the recorded run.

``--out NEW.mcap`` writes the log again with R's part replaced by the re-run's (its tree,
keyframes, every tick and its entry of ``/commands``), everything else copied (truth, the other
robots, the GameController, events), so ``soccerbt replay diff LOG NEW.mcap`` and the viewer open
it beside the original. It is written in the current format (a format-1 log's steps upgraded:
``soccerbt.log.upgrade``), under a temporary name and renamed when whole.

Exit codes as ``replay diff``: 0 nothing differs, 1 something does (or steps the range holds
could not be compared: a damaged log, as ``diff`` says of its gaps), 2 a log that cannot be
re-run (no inputs: recorded before this version; damaged; a tree that does not load).
"""
from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from soccerbt.brain_setup import BrainSpec, build_agent
from soccerbt.cli.outputs import open_exclusive
from soccerbt.drivers.gamepad import EmergencyStop, parse_robot_key
from soccerbt.gamecontroller.protocol import GameState, PacketError, SecondaryState, SubState, decode
from soccerbt.log import format as lf
from soccerbt.log.format import ReplayError, ShapeError
from soccerbt.log.inputs import INPUTS_VERSION, InputRecord, pad_of, team_messages_of
from soccerbt.log.reader import KeyTables, McapLog
from soccerbt.log.software import software
from soccerbt.log.tick_encode import step_message
from soccerbt.log.upgrade import inputs_message, tick_message, truth_message
from soccerbt.log.writer import LogWriter, McapRecorder, file_hashes
from soccerbt.resim.compare import MAX_CHANGES, Comparison, Side
from soccerbt.resim.factory import log_factory
from soccerbt.resim.verify import verify_trees
from soccerbt.trees.errors import TreeLoadError
from soccerbt.trees.includes import tree_files
from soccerbt.world.field import Field
from soccerbt.world.types import RobotLimits, Team

__all__ = ["rerun_log", "RerunResult", "NO_INPUTS"]

NO_INPUTS = ("holds no brain inputs: --rerun needs a log recorded by soccerbt with inputs (format "
             f"{lf.FORMAT} with the header's inputs version {INPUTS_VERSION}, this version's "
             "soccerbt run --record and soccerbt brain); record the run again")
MAX_PARTICLES = 10_000
_ROBOT_TOPICS = ("tree", "keys", "keyframe")  # a robot's channels the re-run writes itself


class RerunResult:
    """The comparison, notes (what the re-run could not do), and the --out file when written."""

    def __init__(self, comparison: Comparison, notes: list[str], out: Path | None, complete: bool = True) -> None:
        self.comparison = comparison
        self.notes = notes
        self.out = out
        self.complete = complete  # False: the re-run stopped before the range's end (damage, a short log)


# --- the brain's stand-ins: what it senses and hears is the log's ---------------------------------

class _Driver:
    """A driver that senses the recorded observations and keeps the command it is given."""

    def __init__(self, limits: Any) -> None:
        self.limits = limits
        self.observations: Any = None
        self.command: Any = None

    def sense(self) -> Any:
        return self.observations

    def act(self, command: Any) -> None:
        self.command = command


class _Link:
    """A team link that delivers the recorded messages and sends nowhere."""

    def __init__(self) -> None:
        self.pending: list[Any] = []
        self.sent = 0

    def register(self, robot: Any) -> None:
        pass

    def send(self, message: Any, now_s: float) -> None:
        self.sent += 1

    def receive(self, robot: Any, now_s: float) -> list[Any]:
        out, self.pending = self.pending, []
        return out


class _Pad:
    """A pad that writes what the recorded one wrote and commands what it commanded."""

    def __init__(self) -> None:
        self.next: tuple[Any, list[tuple[str, Any]]] = (None, [])

    def update(self, now_s: float, blackboard: Any) -> Any:
        command, writes = self.next
        for key, value in writes:
            blackboard[key] = value
        self.next = (None, [])
        return command


def _stop() -> Any:
    class _Stop(EmergencyStop):
        """The emergency stop as recorded at each step."""

        def follow(self, engaged: bool) -> None:
            self._engaged = engaged

    return _Stop()


# --- the brain as the header describes it ------------------------------------------------------------

def brain_spec_of(log: McapLog, robot: str, tree: Path) -> tuple[Any, dict[str, Any]]:
    """The BrainSpec and description of `robot` from the header's inputs, checked (a log is
    untrusted: nothing in it chooses what is run beyond these bounded values)."""
    inputs = log.header.get("inputs")
    if not isinstance(inputs, dict) or inputs.get("version") != INPUTS_VERSION:
        raise ReplayError(log.path, None, NO_INPUTS)
    desc = (inputs.get("brains") or {}).get(robot) if isinstance(inputs.get("brains"), dict) else None
    if not isinstance(desc, dict):
        raise ReplayError(log.path, None, f"the header's inputs do not describe {robot}'s brain: cannot re-run it")

    def refuse(key: str, why: str) -> ReplayError:
        return ReplayError(log.path, None, f"refused to re-run: the header's inputs.brains.{robot}.{key} {why}")

    def whole(key: str, low: int, high: int) -> int:
        v = desc.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
            raise refuse(key, f"is not a whole number {low}..{high}")
        return v

    def positive(key: str, high: float) -> float:
        v = desc.get(key)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0.0 < v <= high:
            raise refuse(key, f"is not a number of seconds in (0, {high:g}]")
        return float(v)

    try:
        field = Field.by_name(str(desc.get("field")))
    except (KeyError, ValueError):
        raise refuse("field", "is no field soccerbt knows") from None
    limits_raw = desc.get("limits")
    limits = None
    if limits_raw is not None:
        if not isinstance(limits_raw, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in limits_raw.values()
        ):
            raise refuse("limits", "are not finite numbers")
        try:
            limits = RobotLimits(**limits_raw)
        except TypeError:
            raise refuse("limits", "name a limit soccerbt does not know") from None
    spec = BrainSpec(robot=parse_robot_key(robot), field=field,
                     team_size=whole("team_size", 1, min(11, field.max_players_per_team)), tree_path=tree,
                     team_number=whole("team_number", 0, 255),
                     team_message_period_s=positive("team_message_period_s", 60.0),
                     seed=whole("seed", 0, (1 << 64) - 1), particles=whole("particles", 1, MAX_PARTICLES))
    out = dict(desc)
    out["limits_object"] = limits
    out["estimate_period_s"] = positive("estimate_period_s", 10.0)
    return spec, out


def recorded_tree(log: McapLog, robot: str) -> Path:
    """The tree `robot` played, when it is unchanged since the run (its files' SHA-256 as the
    header lists them, read as ``--verify`` reads them); ReplayError otherwise."""
    team = "blue" if robot.startswith("blue") else "red"
    other = "red" if team == "blue" else "blue"
    inputs = log.header.get("inputs") or {}
    desc = (inputs.get("brains") or {}).get(robot) if isinstance(inputs, dict) else None
    path = desc.get("tree") if isinstance(desc, dict) else None
    if not isinstance(path, str) or not path or "\0" in path:
        raise ReplayError(log.path, None, f"the header names no tree of {robot}: give one with --tree")
    problems = verify_trees(log, {"idle_teams": (other,), f"{team}_tree": path})
    if problems:
        raise ReplayError(log.path, None, f"a re-run without --tree plays the recorded tree, unchanged: "
                                          f"{problems[0]}; give the tree to play with --tree")
    return Path(path)


def build_rerun_brain(spec: Any, desc: dict[str, Any], factory: Any) -> tuple[Any, _Driver, _Link, _Pad | None, Any]:
    driver = _Driver(desc["limits_object"])
    link = _Link()
    pad = _Pad() if desc.get("pad") else None
    stop = _stop() if desc.get("estop") else None
    holder: dict[str, Any] = {}
    agent = build_agent(spec, driver, clock=lambda: holder["agent"].now_s, team_link=link, pad=pad, estop=stop,
                        factory=factory)
    holder["agent"] = agent
    agent.estimate_period_s = desc["estimate_period_s"]
    agent.reload_period_s = math.inf  # the tree file may change while it runs: never reloaded
    agent._next_reload_check_s = math.inf
    return agent, driver, link, pad, stop


class OneBrainMatchView:
    """What the match recorder reads of a match, for the re-run's one brain (only its robot's
    channels are kept: the truth and the game are the log's)."""

    def __init__(self, log: McapLog, agent: Any, spec: Any) -> None:
        class Body:
            x_m = y_m = theta_rad = 0.0
            fallen = removed = False

        class Ball:
            x_m = y_m = vx_mps = vy_mps = 0.0

        class World:
            t_s = 0.0
            robots = {spec.robot: Body()}
            ball = Ball()

        class Config:
            field = spec.field.name
            team_size = spec.team_size
            seed = spec.seed
            duration_s = None
            half_s = 600.0
            particles = spec.particles
            blue_tree = red_tree = None
            idle_teams = ()
            noise = referee = None

            def tree_of(self, team: Any) -> Path:
                return spec.tree_path

            def is_idle(self, team: Any) -> bool:
                return team is not spec.robot.team

        class RefConfig:
            blue_attacks_positive_x_first_half = True

        class Referee:
            config = RefConfig()
            state, secondary_state, sub_state = GameState.INITIAL, SecondaryState.NORMAL, SubState.STOP
            scores = {Team.BLUE: 0, Team.RED: 0}
            history: list[Any] = []

        self.config = Config()
        self.field = spec.field
        self.team_size = spec.team_size
        self.dt_s = log.dt_s
        self.steps = 0
        self.agents = {spec.robot: agent}
        self.world = World()
        self.referee = Referee()
        self.agent_events = agent.events


# --- the re-run --------------------------------------------------------------------------------------

def rerun_log(log: McapLog, robot: str, tree: Path | None, first_step: int, last_step: int,
              out: Path | None = None, node_plugins: Sequence[str] = ()) -> RerunResult:
    """Re-run `robot` of `log` with `tree` (None: the recorded one) from the log's first step
    to `last_step`, comparing ticks first_step..last_step; write `out` when given. A team's own
    nodes come from the installed plugins and `node_plugins` (``--nodes``)."""
    log.check_robot(robot)
    log.require_node_data()
    if "inputs" not in log.header:
        raise ReplayError(log.path, None, NO_INPUTS)
    tree_path = tree if tree is not None else recorded_tree(log, robot)
    spec, desc = brain_spec_of(log, robot, tree_path)
    factory = log_factory(log, node_plugins)
    # TreeLoadError for a tree that does not load
    agent, driver, link, pad, stop = build_rerun_brain(spec, desc, factory)
    comparison = Comparison()
    notes: list[str] = []
    writer = _OutLog(log, robot, out, tree_path) if out is not None else None
    try:
        expect = _run(log, robot, first_step, last_step, agent, driver, link, pad, stop, spec, comparison, notes,
                      writer)
    except BaseException:
        if writer is not None:
            writer.abandon()
        raise
    if expect <= last_step and not notes:
        notes.append(f"{log.path}: the log's steps end at {expect - 1}")
    if writer is not None:
        writer.finish(expect - 1, writer.loads)
    return RerunResult(comparison, notes, out, complete=expect > last_step)


def feed_brain(rec: InputRecord, agent: Any, driver: _Driver, link: _Link, pad: _Pad | None, stop: Any) -> str | None:
    """Give a brain one step's recorded inputs and step it; a note when a recorded
    GameController packet does not decode (it is not given), else None."""
    note = None
    driver.observations = rec.observations
    if rec.packet is not None:
        try:
            agent.receive_packet(decode(rec.packet))
        except PacketError:
            note = "a recorded GameController packet does not decode; not given"
    if rec.team:
        link.pending = team_messages_of(rec.team)
    if pad is not None and rec.pad is not None:
        pad.next = pad_of(rec.pad)
    if stop is not None and rec.estop is not None:
        stop.follow(rec.estop)
    agent.step(rec.t_s)
    return note


class _LogStep:
    """One step of the log as the re-run reads it: the robot's recorded tick, the time, the
    inputs message and the robot's other channels (a format-1 log's blackboard decoded with the
    key table in force)."""

    def __init__(self, log: McapLog, robot: str) -> None:
        self.log, self.robot = log, robot
        self.tables = KeyTables(log, log.robots if log.format_version == 1 else [], 1)
        self.all_robots = False   # a format-1 step: decode every robot's tick (the --out log writes them)
        self.view: Any = None

    def read(self, step: int, group: list[tuple[str, bytes]]) -> tuple[lf.TickRecord, float, bytes, dict[str, bytes]]:
        """(the robot's tick, the step's time, the inputs message, the robot's other channels);
        ValueError naming what is missing or unreadable. A format-1 step message is decoded
        where it lies among the key tables (``view``: every robot's when ``all_robots``)."""
        step_data = inputs = None
        self.view = None
        extra: dict[str, bytes] = {}
        for topic, data in group:
            if self.tables.follow(topic, data):  # a format-1 log's key tables, followed for every robot
                continue
            if topic == lf.STEP_TOPIC:
                step_data = data
                if self.log.format_version == 1:
                    self.view = self.log.decode_step(
                        data, dict(self.tables.tables), None if self.all_robots else [self.robot]
                    )
            elif topic == lf.INPUTS_TOPIC:
                inputs = data
            else:
                robot_topic = lf.robot_of_topic(topic)
                if robot_topic is not None and robot_topic[0] == self.robot and robot_topic[1] not in _ROBOT_TOPICS:
                    extra[robot_topic[1]] = data
        if inputs is None:
            raise ValueError("its inputs are missing")
        if step_data is None:
            raise ValueError("its step message is missing")
        if self.view is None:
            self.view = self.log.view_of(step_data, step, None if self.all_robots else [self.robot])
        return self.view.ticks[self.robot], self.view.truth.t_s, inputs, extra


def _run(log: McapLog, robot: str, first_step: int, last_step: int, agent: Any, driver: _Driver, link: _Link,
         pad: _Pad | None, stop: Any, spec: Any, comparison: Comparison, notes: list[str],
         writer: _OutLog | None) -> int:
    """The re-run's loop: the log's steps in order, the brain stepped at each step's inputs;
    returns the step after the last one run."""
    recording = RerunRecording(robot)
    view = OneBrainMatchView(log, agent, spec)
    with open(os.devnull, "wb") as sink:
        recorder = McapRecorder(log.path.with_suffix(".rerun.mcap"), stream=sink, tap=recording.message)
        recorder.on_start(view)
        log_side, new_side = Side("log"), Side("re-run")
        log_side.set_tree(log.tree(robot, 1))
        new_side.set_tree(recording.tree)
        comparison.same_tree = log_side.paths == new_side.paths
        comparison.extra = _extra_kinds(log, robot)
        start = log.robot_state(robot, 0)
        log_side.set_keyframe(start.statuses, start.blackboard)
        if recording.keyframe is not None:
            new_side.set_keyframe(recording.keyframe.get("statuses", []), recording.keyframe.get("blackboard", {}))
        reader = _LogStep(log, robot)
        reader.all_robots = writer is not None
        expect = 1
        if writer is not None:
            writer.robot_messages(recording.drain())
        for step, group in log.step_groups(0, last_step):
            if step == 0:
                continue  # the header
            if step != expect:
                notes.append(f"{log.path}: step {expect} is missing from the log (damaged): the re-run stops there")
                break
            try:
                log_tick, t_s, inputs, log_extra = reader.read(step, group)
                rec = log.inputs_of(inputs).get(robot)
                if rec is None:
                    raise ValueError(f"it holds no inputs of {robot}")
            except (ValueError, ShapeError) as exc:
                notes.append(f"{log.path}: step {step} is unreadable ({exc}): the re-run stops there")
                break
            note = feed_brain(rec, agent, driver, link, pad, stop)
            if note is not None:
                notes.append(f"step {step}: {note}")
            view.steps = step
            view.world.t_s = rec.t_s
            recorder.on_step(view)
            new_tick = recording.tick(step)
            log_side.apply(log_tick)
            if new_tick is not None:
                new_side.apply(new_tick)
            log_side.channels, new_side.channels = log_extra, recording.channels(step)
            if first_step <= step:
                comparison.tick(step, t_s, log_side, new_side)
            if writer is not None:
                writer.step(step, group, reader, recording)
            else:  # nothing to write: what the re-run's recorder gave is done with
                recording.ticks.pop(step, None)
                recording.drain()
            expect = step + 1
        recorder.close()
    if writer is not None:
        writer.loads = recording.loads
    return expect


def _extra_kinds(log: McapLog, robot: str) -> list[str]:
    """The robot's own channels besides its tree, keyframes and ticks (compared message by message)."""
    prefix = f"/robots/{robot}/"
    kinds = {t[len(prefix):] for t in log.topics.values() if t.startswith(prefix)}
    return sorted(kinds - set(_ROBOT_TOPICS))


class RerunRecording:
    """The re-run's recorder output for its robot (a tap): tree, keyframes, ticks."""

    def __init__(self, robot: str) -> None:
        self.robot = robot
        self.prefix = f"/robots/{robot}/"
        self.tree: dict[str, Any] = {}
        self.keyframe: dict[str, Any] | None = None
        self.pending: list[tuple[str, int, bytes]] = []
        self.ticks: dict[int, bytes] = {}
        self.extra: dict[int, dict[str, bytes]] = {}
        self.loads: list[dict[str, Any]] = []
        self.commands: tuple[int, bytes] | None = None   # the re-run's newest /commands message

    def message(self, topic: str, step: int, data: bytes) -> None:
        if topic == lf.STEP_TOPIC:  # the re-run's one robot
            for robot, tick in lf.split_step(data)[1]:
                if robot == self.robot:
                    self.ticks[step] = tick
            return
        if topic == lf.COMMANDS_TOPIC:
            self.commands = (step, data)
            return
        if not topic.startswith(self.prefix):
            return
        kind = topic[len(self.prefix):]
        if kind == "tree":
            self.tree = lf.load_json(data)
            self.loads.append({"robot": self.robot, "t": self.tree.get("t"), "step": step,
                               "reason": self.tree.get("reason"), "load": self.tree.get("load", 1)})
        elif kind == "keyframe":
            if self.keyframe is None:
                self.keyframe = lf.load_json(data)
        else:
            self.extra.setdefault(step, {})[kind] = data
        self.pending.append((topic, step, data))

    def tick(self, step: int) -> lf.TickRecord | None:
        data = self.ticks.get(step)
        return None if data is None else lf.decode_tick(data)

    def channels(self, step: int) -> dict[str, bytes]:
        return self.extra.pop(step, {})

    def drain(self) -> list[tuple[str, int, bytes]]:
        out, self.pending = self.pending, []
        return out


class _OutLog:
    """The --out log: the original's messages, the robot's part replaced by the re-run's, in the
    current format (a format-1 log's steps upgraded)."""

    def __init__(self, log: McapLog, robot: str, out: Path, tree: Path) -> None:
        self.log = log
        self.robot = robot
        self.loads: list[dict[str, Any]] = []
        self.target = Path(os.path.realpath(out))
        self.tmp, stream = open_exclusive(self.target.parent, self.target.name)
        self.out = LogWriter(self.tmp, stream=stream)
        self.out.dt_s = log.dt_s
        header = dict(log.header)
        team = "blue" if robot.startswith("blue") else "red"
        trees = dict(header.get("trees") or {})
        trees[team] = {**(trees.get(team) or {}), "path": str(tree), "files": file_hashes(tree_files(tree))}
        header["trees"] = trees
        header["rerun"] = {"of": str(log.path), "robot": robot, "tree": str(tree), "open_loop": True}
        if log.format_version != lf.FORMAT_VERSION:
            header["upgraded_from"] = {"format_version": log.format_version,
                                       "soccerbt_version": log.header.get("soccerbt_version")}
            header["format_version"] = lf.FORMAT_VERSION
        header["software"] = software()
        self._put(lf.HEADER_TOPIC, 0, lf.json_bytes(header))

    def _put(self, topic: str, step: int, data: bytes) -> None:
        kind = lf.kind_of_topic(topic)
        if kind is not None:
            self.out.put(self.out.channel(topic, kind), step, data)

    def _commands(self, original: bytes, rerun: bytes) -> bytes:
        """The /commands message with the robot's command the re-run's."""
        try:
            msg, again = lf.load_json(original), lf.load_json(rerun)
            msg["commands"][self.robot] = again["commands"][self.robot]
        except (lf.ShapeError, KeyError, TypeError):
            return original
        return lf.json_bytes(msg)

    def robot_messages(self, messages: list[tuple[str, int, bytes]]) -> None:
        for topic, step, data in messages:
            self._put(topic, step, data)

    def step(self, step: int, group: list[tuple[str, bytes]], reader: _LogStep, recording: RerunRecording) -> None:
        """A step's messages with the robot's replaced by the re-run's: its tick where the log's
        was, then its tree and keyframes; everything else as it was (a format-1 step message
        as the truth and every robot's tick, its inputs as StepInputs)."""
        tick = recording.ticks.pop(step, None)
        ours = {lf.tree_topic(self.robot), lf.keyframe_topic(self.robot)}
        for topic, data in group:
            if topic == lf.HEADER_TOPIC or topic in ours or topic.endswith("/keys"):
                continue
            if topic == lf.STEP_TOPIC and self.log.format_version == 1:
                view = reader.view
                self._put(topic, step, step_message(step, truth_message(view.truth, self.log.robots), [
                    tick if robot == self.robot and tick is not None else tick_message(robot, step, view.ticks[robot])
                    for robot in self.log.robots]))
                continue
            if topic == lf.STEP_TOPIC:
                truth, ticks = lf.split_step(data)
                self._put(topic, step, step_message(step, truth, [
                    tick if robot == self.robot and tick is not None else data for robot, data in ticks]))
                continue
            if topic == lf.INPUTS_TOPIC and self.log.format_version == 1:
                records = self.log.inputs_of(data)
                data = inputs_message(step, [(r, records[r]) for r in self.log.robots if r in records])
            elif topic == lf.COMMANDS_TOPIC and recording.commands is not None and recording.commands[0] == step:
                data = self._commands(data, recording.commands[1])
            self._put(topic, step, data)
        self.robot_messages(recording.drain())

    def finish(self, last_step: int, loads: list[dict[str, Any]]) -> None:
        index = dict(self.log.index or {})
        index["loads"] = [ld for ld in index.get("loads", []) if ld.get("robot") != self.robot] + loads
        index["steps"] = last_step
        try:
            self.out.finish(last_step, index)
            os.replace(self.tmp, self.target)
        except BaseException:
            self.out.discard()
            raise

    def abandon(self) -> None:
        self.out.discard()


def rerun_command(log: McapLog, args: Any, out: Any, err: Any) -> int:
    """``--rerun``: the report on ``out``; 0 nothing differs, 1 something does, 2 a log that
    cannot be re-run or a tree that does not load (``path:line: message``)."""
    if args.robot is None:
        print("soccerbt replay: --rerun goes with --robot ROBOT (the robot whose brain is re-run)", file=err)
        return 2
    tree = Path(args.tree) if isinstance(args.tree, str) else None
    if tree is not None and not tree.is_file():
        print(f"soccerbt replay: {tree}: no such tree file (--tree)", file=err)
        return 2
    first = log.step_at(args.from_s) if args.from_s is not None else log.first_step
    last = log.step_at(args.to_s) if args.to_s is not None else log.last_step
    try:
        result = rerun_log(log, args.robot, tree, first, last, Path(args.out) if args.out else None,
                           node_plugins=getattr(args, "nodes", None) or ())
    except TreeLoadError as exc:
        print(str(exc), file=err)
        return 2
    for note in result.notes:
        print(f"note: {note}", file=err)
    # the decision changes listed (--max-changes; a caller without the option lists the default)
    result.comparison.max_changes = getattr(args, "max_changes", MAX_CHANGES)
    label = f"{args.robot} re-run with {tree if tree is not None else 'its recorded tree'} (open loop)"
    print(f"{log.path}: {label}", file=out)
    for line in result.comparison.report_lines(args.robot, log.dt_s):
        print(line, file=out)
    if result.out is not None:
        print(f"soccerbt replay: the re-run's log written to {result.out} (soccerbt replay diff {log.path} "
              f"{result.out})", file=err)
    if not result.complete:
        print(f"soccerbt replay: the re-run stopped at step {result.comparison.last_step or 0}, before the end of the "
              "range: not everything was compared", file=err)
    return 1 if result.comparison.differs or not result.complete else 0
