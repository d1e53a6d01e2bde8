"""``soccerbt replay derive LOG FULL.mcap``: an inputs-only log made whole.

An inputs-only log (``--record-mode inputs``, an opt-in of ``soccerbt run`` and ``view`` for
long batch runs; before soccerbt 0.2 the default of ``run``, ``view`` and ``brain``) holds what
cannot be derived: each brain's inputs, the truth, the GameController and the events, and per
tick only the root status and the command. ``derive`` re-runs every robot's brain from its
inputs with the recorded tree and writes the full log: each robot's tree, keyframes and ticks
(transitions, blackboard changes with their writers, reasons), the scene and the commands,
everything else copied; the log written is of the current format whatever the format read.
The result holds the messages a full recording of the same run holds, so every reader opens
it; its header says ``derived_from``.

The recorded tree is the one on disk when it is unchanged (its files' SHA-256 as the header lists
them, as ``--rerun`` requires); else the copy the log carries (``tree_files`` in the header: the
recorder embeds the tree files' text, up to 1 MiB), checked against the same hashes and written
to a temporary folder in the same layout, so that a tree edited since the run still derives.

The re-run is checked against the recording at every step: its tick count, root status and
command must be the recorded ones. **Nothing derived is thrown away**: at the first step that
does not reproduce the derive stops, writes everything up to the step before, and says where
and why (``DeriveResult.stopped``): the software that wrote the log (its header's ``software``)
against this one (``soccerbt.log.software.compare_software``): a different source or library
version explains it; the same everything is a determinism bug, reported as one.

A flight log's later segment (``segment`` > 0 in its header) starts in the middle of a run: its
brains' state there is derived by feeding them the run's earlier segments first, found beside it
(``<flight_run>-NNN.mcap``); a missing one stops the derive with its name.

The brains are re-run in one process per core (``derive_procs``: the same bytes).

The output is written under a temporary name and renamed when whole; a damaged stretch (a chunk
that does not decode) ends the derived log before it, said in ``notes``.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, TextIO

from soccerbt.cli.outputs import open_exclusive
from soccerbt.drivers.gamepad import parse_robot_key
from soccerbt.log import format as lf
from soccerbt.log import format_v1 as v1
from soccerbt.log.format import ReplayError, ShapeError
from soccerbt.log.inputs import InputRecord
from soccerbt.log.reader import McapLog
from soccerbt.log.scene_update import scene_json_of, team_rgb
from soccerbt.log.software import compare_software, software
from soccerbt.log.tick_encode import step_message
from soccerbt.log.upgrade import inputs_message, truth_message
from soccerbt.log.writer import LogWriter, McapRecorder, commands_json
from soccerbt.resim.derive_procs import default_processes, inputs_in_order, spread, step_brains
from soccerbt.resim.factory import log_factory
from soccerbt.resim.rerun import (
    NO_INPUTS,
    OneBrainMatchView,
    RerunRecording,
    brain_spec_of,
    build_rerun_brain,
    feed_brain,
    recorded_tree,
)
from soccerbt.world.field import Field

__all__ = ["derive_log", "earlier_segments", "DeriveResult", "is_inputs_only", "derived_for_reading",
           "why_not_reproduced"]

_SEGMENT = re.compile(r"^(?P<run>.+)-(?P<n>\d{3})\.mcap$")
_DERIVED_KINDS = ("tree", "keys", "keyframe")  # a robot's channels the derive writes (the others are copied)
PROGRESS_STEPS = 500  # derive_log's progress: five simulated seconds


def is_inputs_only(log: McapLog) -> bool:
    """A log recorded with its node data left out, to be derived (inputs there, no node data)."""
    return not log.node_data and "inputs" in log.header and "converted_from" not in log.header


@dataclass
class DeriveResult:
    """What ``derive_log`` wrote: steps, robots, the earlier segments fed first, notes."""

    out: Path
    steps: int
    robots: list[str]
    segments_fed: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stopped: str | None = None   # why the derive stopped before the log's end (what it wrote ends before)


class _Brain:
    """One robot's re-run: its brain, the stand-ins it senses through, and a full recorder
    whose messages ``RerunRecording`` keeps."""

    def __init__(self, log: McapLog, robot: str, k: int, trees: _Trees, factory: Any) -> None:
        self.robot, self.k = robot, k
        self.tree, recorded = trees.of(robot)
        self.spec, desc = brain_spec_of(log, robot, self.tree)
        self.agent, self.driver, self.link, self.pad, self.stop = build_rerun_brain(self.spec, desc, factory)
        trees.check_loaded(self.agent)
        self.agent.tree_path = recorded  # what the recorder writes: the path the run loaded
        self.view = OneBrainMatchView(log, self.agent, self.spec)
        self.recording = RerunRecording(robot)
        self.recorder: Any = None

    def start(self, tap: Any = None) -> None:
        """A new full recorder (a log's, or a segment's as the flight recorder starts one): its
        header, tree and first keyframe from the brain's state now, its steps from 1; its
        messages go to `tap` (an object with ``message``: a deriving child's), else a new RerunRecording."""
        if self.recorder is not None:
            self.recorder.close()  # closes its sink too
        self.recording = tap if tap is not None else RerunRecording(self.robot)
        self.view.steps = 0
        self.recorder = McapRecorder(Path(os.devnull), stream=open(os.devnull, "wb"), tap=self.recording.message)
        self.recorder.on_start(self.view)

    def feed(self, rec: InputRecord, step: int) -> None:
        """Step the brain on its inputs of a step (``step``: the log's step). A recorded packet
        that does not decode is not given (where it mattered, the tick check stops)."""
        feed_brain(rec, self.agent, self.driver, self.link, self.pad, self.stop)
        self.view.steps = step
        self.view.world.t_s = rec.t_s

    def record(self) -> None:
        """The recorder's step (after ``feed``)."""
        self.recorder.on_step(self.view)

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None


class _Trees:
    """Each robot's recorded tree: the file on disk when unchanged, else the log's embedded copy
    (``tree_files``) written under a temporary folder (see the module docstring)."""

    MAX_FILES = 256

    def __init__(self, log: McapLog, folder: Path) -> None:
        self.log = log
        self.folder = folder
        self.copies: dict[str, Path] | None = None

    def of(self, robot: str) -> tuple[Path, Path]:
        """(the file to load, the path the run loaded it from)."""
        try:
            tree = recorded_tree(self.log, robot)
            return tree, tree
        except ReplayError:
            if not self.log.header.get("tree_files"):
                raise
        recorded = ((self.log.header.get("inputs") or {}).get("brains") or {}).get(robot, {}).get("tree")
        copies = self._copies()
        if not isinstance(recorded, str) or os.path.normpath(recorded) not in copies:
            raise ReplayError(self.log.path, None, f"the log's copy of the tree files holds no {recorded!r}, "
                                                   f"{robot}'s tree: cannot derive it")
        return copies[os.path.normpath(recorded)], Path(recorded)

    def check_loaded(self, agent: Any) -> None:
        """Every file the copied tree loaded is a copy (an include by an absolute path would
        read a file on disk that may have changed)."""
        if self.copies is None:
            return
        inside = os.path.realpath(self.folder) + os.sep
        for f in agent.tree_file_list:
            if not os.path.realpath(f).startswith(inside):
                raise ReplayError(self.log.path, None, f"the copied tree includes {f}, outside its copy (an "
                                                       "absolute include): cannot derive from the copy")

    def _copies(self) -> dict[str, Path]:
        """The embedded files written under the folder in their layout, each checked against the
        SHA-256 the header lists for it; ReplayError for a copy that does not match."""
        if self.copies is not None:
            return self.copies

        path = self.log.path
        embedded = self.log.header.get("tree_files")
        if not isinstance(embedded, dict) or not 0 < len(embedded) <= self.MAX_FILES or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in embedded.items()):
            raise ReplayError(path, None, "the header's tree_files is not a table of file texts")
        listed = {}
        for tree in (self.log.header.get("trees") or {}).values():
            for entry in tree.get("files") or [] if isinstance(tree, dict) else []:
                if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    listed[os.path.normpath(entry["path"])] = entry.get("sha256")
        names = {}
        for name, text in embedded.items():
            norm = os.path.normpath(name)
            if "\0" in name or not os.path.isabs(name) or norm != name.rstrip("/"):
                raise ReplayError(path, None, f"the header's tree_files names {name!r}: not a plain absolute path")
            if listed.get(norm) != hashlib.sha256(text.encode("utf-8")).hexdigest():
                raise ReplayError(path, None, f"the log's copy of {name} is not the file the run hashed: refused")
            names[norm] = text
        root = os.path.commonpath([os.path.dirname(n) for n in names])
        self.copies = {}
        for norm, text in names.items():
            target = self.folder / os.path.relpath(norm, root)
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "x", encoding="utf-8", newline="") as f:
                f.write(text)
            self.copies[norm] = target
        return self.copies


def _same_tick(recorded: lf.TickRecord, derived: lf.TickRecord) -> bool:
    return (recorded.tick == derived.tick and recorded.root == derived.root
            and lf.same_command(recorded.command, derived.command))


def why_not_reproduced(log: McapLog) -> str:
    """Why a re-run of `log`'s brains may not reproduce it: which software differs from the one
    that wrote it, or that none does (then it is a determinism bug)."""
    recorded = log.header.get("software")
    differs = compare_software(recorded)
    if not isinstance(recorded, dict):  # a soccerbt 0.1 log: nothing to compare with
        return differs[0] + ": most likely this soccerbt or a library differs from the one that wrote it"
    if not differs:
        return ("soccerbt's source, Python and the libraries are those that wrote the log: this is a determinism "
                "bug in soccerbt; please report it with the log")
    return "the software differs from the one that wrote the log: " + "; ".join(differs)


def earlier_segments(log: McapLog) -> list[Path]:
    """The run's segments before this one, in order (a flight log's ``segment`` > 0)."""
    n = log.header.get("segment")
    run = log.header.get("flight_run")
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        return []
    if not isinstance(run, str) or "/" in run or "\0" in run or not 0 < n < 1000:
        raise ReplayError(log.path, None, "the header's flight_run and segment do not name a run's segment")
    found = _SEGMENT.match(log.path.name)
    if found is None or found.group("run") != run:
        raise ReplayError(log.path, None, f"a segment of run {run} must keep its name ({run}-{n:03d}.mcap) to be "
                                          "derived with the segments before it")
    earlier = [log.path.with_name(f"{run}-{i:03d}.mcap") for i in range(n)]
    missing = [p.name for p in earlier if not p.is_file()]
    if missing:
        raise ReplayError(log.path, None, f"segment {n} of run {run} starts mid-run: its brain's state comes from the "
                                          f"segments before it, and {', '.join(missing)} "
                                          f"{'is' if len(missing) == 1 else 'are'} not beside it (deleted by the "
                                          "folder's cap?): cannot derive it")
    return earlier


def _feed_segment(path: Path, robots: list[str], brains: list[_Brain]) -> None:
    """Step the brains (of the run's `robots`) through an earlier segment's inputs, recorded into
    nothing as the flight recorder recorded that segment (so that what the recorder keeps on
    the nodes, the writers of the entries, is the same at the next segment's start)."""
    seg = McapLog.open(path)
    if seg.robots != robots or "inputs" not in seg.header:
        raise ReplayError(path, None, "not a segment of the same brain's run (robots or inputs differ)")
    for b in brains:
        b.start()
    for step, data in inputs_in_order(seg):
        if data is None:
            raise ReplayError(path, None, f"step {step} is missing (damaged): the segments after it cannot "
                                          "be derived")
        try:
            step_brains(brains, seg.inputs_of(data), step)
        except (ValueError, ShapeError) as exc:
            raise ReplayError(path, None, f"step {step} is unreadable ({exc}): the segments after it cannot "
                                          "be derived") from None


def derive_log(log: McapLog, out: Path, progress: Callable[[int, int], None] | None = None,
               processes: int | None = None, node_plugins: Sequence[str] = ()) -> DeriveResult:
    """Re-run every robot of the inputs-only `log` and write the full log to `out` (see the
    module docstring); ReplayError for a log that cannot be derived. `progress(step, last)` is
    called every PROGRESS_STEPS steps and at the end. `processes`: how many processes step the
    brains (``derive_procs``; None: ``default_processes``, one per core); the same bytes.
    `node_plugins`: the ``--nodes`` of a run that used a team's own nodes (``rerun.log_factory``)."""
    if log.node_data:
        raise ReplayError(log.path, None, "holds node data already: there is nothing to derive")
    if not is_inputs_only(log):
        raise ReplayError(log.path, None, NO_INPUTS)
    robots = list(log.robots)
    with tempfile.TemporaryDirectory(prefix="soccerbt-derive-") as folder:
        trees = _Trees(log, Path(folder))
        factory = log_factory(log, node_plugins)
        brains = [_Brain(log, robot, k, trees, factory) for k, robot in enumerate(robots)]
        if processes is None:
            processes = default_processes(len(brains))
        return _derive(log, out, robots, brains, progress, processes)


def _derive(log: McapLog, out: Path, robots: list[str], brains: list[Any],
            progress: Callable[[int, int], None] | None, processes: int) -> DeriveResult:
    """derive_log with the brains built: spread over `processes`, the earlier segments fed, then
    the log written; the deriving children ended, however it ends."""
    earlier = earlier_segments(log)
    target = Path(os.path.realpath(out))
    if any(os.path.realpath(p) == str(target) for p in earlier):
        raise ReplayError(log.path, None, f"{out} is one of the run's earlier segments, which derive reads: "
                                          "refused (it would overwrite an input)")
    brains = spread(log.path, brains, earlier, robots, _feed_segment, processes)
    try:
        for path in earlier:
            _feed_segment(path, robots, [b for b in brains if isinstance(b, _Brain)])
        return _write(log, target, robots, brains, earlier, progress)
    finally:
        for b in brains:
            b.close()


def _write(log: McapLog, target: Path, robots: list[str], brains: list[Any], earlier: list[Path],
           progress: Callable[[int, int], None] | None) -> DeriveResult:
    """The derived log written to `target` (under a temporary name, renamed when whole)."""
    tmp, stream = open_exclusive(target.parent, target.name)
    writer = LogWriter(tmp, stream=stream)
    writer.dt_s = log.dt_s
    notes: list[str] = []
    stopped: str | None = None

    def put(topic: str, step: int, data: bytes) -> None:
        kind = lf.kind_of_topic(topic)
        if kind is not None:
            writer.put(writer.channel(topic, kind), step, data)

    try:
        header = {k: v for k, v in log.header.items() if k not in ("node_data", "tree_files")}
        header["derived_from"] = log.path.name
        if log.format_version != lf.FORMAT_VERSION:
            header["upgraded_from"] = {"format_version": log.format_version,
                                       "soccerbt_version": log.header.get("soccerbt_version")}
            header["format_version"] = lf.FORMAT_VERSION
        header["recorded_software"] = log.header.get("software")
        header["software"] = software()
        put(lf.HEADER_TOPIC, 0, lf.json_bytes(header))
        for b in brains:
            b.start()
        for b in brains:  # each robot's tree and first keyframe, in the header's order
            for topic, step, data in b.recording.drain():
                put(topic, step, data)
        events: list[dict[str, Any]] = []
        expect = 1
        last = 0
        scenes = _Scenes(log, brains)
        for step, group in log.step_groups(0, log.last_step):
            if step == 0:
                continue  # the header, written above
            if step != expect:
                notes.append(f"{log.path}: step {expect} is missing from the log (damaged): the derived log ends "
                             f"at step {expect - 1}")
                break
            try:
                stopped = _derive_step(log, brains, step, group, put, events, notes, scenes)
            except _Missing as exc:
                notes.append(f"{log.path}: step {step}: {exc}: the derived log ends at step {expect - 1}")
                break
            if stopped is not None:
                break
            last = step
            expect = step + 1
            if progress is not None and step % PROGRESS_STEPS == 0:
                progress(step, log.last_step)
        if progress is not None:
            progress(last if stopped else log.last_step, log.last_step)
        loads = [ld for b in brains for ld in b.recording.loads]
        writer.finish(last, {"events": [e for e in events if e["step"] <= last], "loads": loads, "steps": last})
        os.replace(tmp, target)
    except BaseException:
        writer.discard()
        raise
    return DeriveResult(target, last, robots, earlier, notes, stopped)


class _Missing(ValueError):
    """A step of the log lacks what the derive needs (damage): the derived log ends before it."""


class _Scenes:
    """The scene and the commands of every SCENE_PERIOD_STEPS step that the inputs-only log left
    out (the recorder leaves them to derive: the scene from the truth as logged and the brains'
    beliefs, the commands from the brains; the same bytes, ``McapRecorder._scene_of_truth``). A
    scene the log holds (a robot without a brain) is copied, and none is made for it."""

    def __init__(self, log: McapLog, brains: list[_Brain]) -> None:
        self.path = log.path
        self.field = Field.by_name(str(log.header.get("field")))
        ids = {name: parse_robot_key(name) for name in log.robots}
        self.plan = [(b.k, b.robot, team_rgb(ids[b.robot].team.name), b.agent, ids[b.robot].team.name.lower())
                     for b in sorted(brains, key=lambda b: ids[b.robot])]
        self.commands = [(None, b.agent, SimpleNamespace(name=b.robot)) for b in brains]  # as the recorder's tracks
        self.attacks: dict[str, bool] = {}

    def seen(self, topic: str, data: bytes) -> None:
        """A GameController message copied from the log: which goal each team attacks."""
        if topic != lf.GC_TOPIC:
            return
        try:
            words = lf.load_json(data)
        except ShapeError:
            return
        if isinstance(words, dict):
            self.attacks = {team: words[f"{team}_attacks_positive_x"] for team in ("blue", "red")
                            if isinstance(words.get(f"{team}_attacks_positive_x"), bool)}

    def write(self, step: int, truth: lf.TruthRecord, has_scene: bool, has_commands: bool, put: Any) -> None:
        """The step's scene and commands that the log did not hold."""
        if not has_scene:
            rows = []
            for k, name, rgb, agent, team in self.plan:
                x_m, y_m, theta_rad, fallen, _removed = truth.robots[k]
                rows.append((name, rgb, x_m, y_m, theta_rad, fallen, agent, self.attacks.get(team)))
            put(lf.SCENE_TOPIC, step, scene_json_of(truth.t_s, self.field, rows, truth.ball[0], truth.ball[1]))
        if not has_commands:
            put(lf.COMMANDS_TOPIC, step, commands_json(truth.t_s, self.commands))


def _derive_step(log: McapLog, brains: list[Any], step: int, group: list[tuple[str, bytes]], put: Any,
                 events: list[dict[str, Any]], notes: list[str], scenes: _Scenes) -> str | None:
    """One step: every brain fed and recorded, checked against the recording, and the step's
    messages written as the recorder orders them (the truth, the derived ticks, the inputs,
    keyframes, then the rest as the log holds them, the scene and commands made where due).
    Returns why the derive stops here (a re-run that does not reproduce), else None."""
    step_data = inputs = None
    rest: list[tuple[str, bytes]] = []
    for topic, data in group:
        if topic == lf.STEP_TOPIC:
            step_data = data
        elif topic == lf.INPUTS_TOPIC:
            inputs = data
        else:
            robot_topic = lf.robot_of_topic(topic)
            if topic != lf.HEADER_TOPIC and (robot_topic is None or robot_topic[1] not in _DERIVED_KINDS):
                rest.append((topic, data))
    if inputs is None or step_data is None:
        raise _Missing("its inputs or step message are missing (damaged)")
    try:
        if log.format_version == 1:  # the truth and every robot's root and command in one message
            parts = v1.split_parts(step_data)
            truth = v1.decode_truth(parts[0])
            recorded = {b.robot: v1.decode_tick(parts[1 + b.k]) for b in brains}
            truth_data = truth_message(truth, log.robots)
        else:
            truth_data = lf.split_step(step_data)[0]
            truth, ticks = lf.decode_step(step_data)
            recorded = {b.robot: ticks[b.robot] for b in brains}
        records = log.inputs_of(inputs)
    except (ValueError, IndexError, KeyError, ShapeError) as exc:
        raise _Missing(f"unreadable ({exc})") from None
    try:
        step_brains(brains, records, step)
    except ReplayError:  # a deriving child's, said as it was raised
        raise
    except (ValueError, ShapeError) as exc:
        raise _Missing(f"its inputs are unreadable ({exc})") from None
    derived_ticks: dict[str, bytes] = {}
    later: list[tuple[str, int, bytes]] = []
    for b in brains:
        tick = b.recording.ticks.pop(step)
        derived = lf.decode_tick(tick)  # the robot's Tick (split from the recorder's Step: RerunRecording)
        was = recorded[b.robot]
        if not _same_tick(was, derived):
            return (f"step {step} (t={truth.t_s:.2f}s): {b.robot}'s re-run differs from the recording (tick "
                    f"{derived.tick} root {lf.status_name(derived.root)} command {_command_text(derived.command)}; "
                    f"recorded tick {was.tick} root {lf.status_name(was.root)} command {_command_text(was.command)}): "
                    f"{why_not_reproduced(log)}; the derived log ends at step {step - 1}")
        derived_ticks[b.robot] = tick
        later.extend(b.recording.drain())
        b.recording.extra.pop(step, None)
    put(lf.STEP_TOPIC, step, step_message(step, truth_data,
                                          [derived_ticks[robot] for robot in log.robots if robot in derived_ticks]))
    if log.format_version == 1:
        inputs = inputs_message(step, [(r, records[r]) for r in log.robots if r in records])
    put(lf.INPUTS_TOPIC, step, inputs)
    for topic, s, data in later:
        put(topic, s, data)
    has_scene = has_commands = False
    summary = [data for topic, data in rest if topic == lf.SUMMARY_TOPIC]  # written at the end, after the scene
    for topic, data in rest:
        if topic == lf.SUMMARY_TOPIC:
            continue
        put(topic, step, data)
        scenes.seen(topic, data)
        has_scene = has_scene or topic == lf.SCENE_TOPIC
        has_commands = has_commands or topic == lf.COMMANDS_TOPIC
        if topic == lf.EVENTS_TOPIC:
            try:
                events.append(lf.check_event(lf.load_json(data)))
            except ShapeError as exc:  # copied as it is; the index lists the readable ones
                notes.append(f"{log.path}: the event at step {step} is damaged ({exc})")
    if step % lf.SCENE_PERIOD_STEPS == 0:
        scenes.write(step, truth, has_scene, has_commands, put)
    for data in summary:
        put(lf.SUMMARY_TOPIC, step, data)
    return None


def _command_text(command: tuple[float, ...]) -> str:
    return "(" + ", ".join(f"{v:.7g}" for v in command) + ")"


def derived_for_reading(log: McapLog, budget_ratio: int | None, err: TextIO | None = None,
                        node_plugins: Sequence[str] = ()) -> McapLog:
    """The full log of the inputs-only `log`, for the readers (the tree tools, the viewer, diff,
    --rerun): derived now into a temporary file (removed at once: it lives while the returned
    log is open). A derive that stops at a step that does not reproduce gives the log up to the
    step before, and says why. The returned log answers to `log`'s path and carries `log`'s
    warnings and derive's notes; `log` is closed. `err`: where the lines that say so go."""
    def say(text: str) -> None:
        if err is not None:
            print(f"soccerbt replay: {text}", file=err, flush=True)

    scratch = Path(tempfile.mkdtemp(prefix="soccerbt-derived-"))
    out = scratch / "derived.mcap"
    try:
        say(f"{log.path} holds its brains' inputs only (--record-mode inputs): deriving every node's status from "
            f"them ({len(log.robots)} brains, {log.last_step} steps; soccerbt replay derive {log.path} FULL.mcap "
            "keeps the result)")
        start = time.perf_counter()
        done = derive_log(log, out, progress=_progress(err), node_plugins=node_plugins)
        derived = McapLog.open(out, budget_ratio=budget_ratio)
        say(f"derived in {time.perf_counter() - start:.1f} s")
        notes = list(done.notes)
        if done.stopped is not None:
            notes.append(f"{log.path}: the derive stopped at {done.stopped}")
            say(f"the derive stopped at {done.stopped}")
        derived.path = log.path
        derived.warnings[:0] = [*log.warnings, *notes]
        return derived
    finally:
        log.close()
        try:
            out.unlink(missing_ok=True)  # the open log keeps reading it
            scratch.rmdir()
        except OSError:
            pass


def _progress(err: TextIO | None) -> Callable[[int, int], None] | None:
    """derive's progress on a terminal: one line rewritten in place."""
    if err is None or not getattr(err, "isatty", lambda: False)():
        return None

    def show(step: int, last: int) -> None:
        end = "\n" if step >= last else ""
        print(f"\rsoccerbt replay: deriving {100 * step // max(1, last):3d}% (step {step} of {last})", end=end,
              file=err, flush=True)

    return show
