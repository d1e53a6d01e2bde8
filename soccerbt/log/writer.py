"""The MCAP replay log writer: a match observer recording every node of every robot as it happens.

``make_recorder(path, match)`` attaches one before the first step (``soccerbt run --record
FILE.mcap``; ``on_start`` then ``match.observers``). It watches each agent's tree through
``Tree.start_status_log`` (three integers appended per transition, no call), collects the uids a
tick skipped (``env.skip_sink``) and the nodes it ticked (``env.ticked``), asks nodes to stamp
the blackboard entries they write (``env.track_writers``), collects the reasons decision nodes
give (``Tree.start_reasons``: only then do nodes build them) — all through a
``tree_watch.TreeWatch`` shared with any other recorder of the same tree — and per step writes the
messages laid out in ``soccerbt.log.format``: the truth, each robot's tick, the brains' inputs,
keyframes, the GameController, events, the scene and the commands. A hot reload is seen through
the agent's tree listeners, so the new tree is watched from its first tick. ``file_hashes`` gives
the tree files' SHA-256 for the header (``--verify`` checks them); the header also says which
software wrote the log (``soccerbt.log.software``).

Blackboard changes are found by each root entry's sequence number; a change is logged when the
value differs from the last one logged (floats as f32). The writer of a change is the node uid
stamped on the entry when that stamp belongs to the last write, else the adapter that owns the
key in the blackboard schema.

The per-tick encoding (the blackboard diff, the tick, the truth; values as JSON text) and the
choice between soccerbt.native and its twins are in ``tick_encode``.

``node_data=False`` (``--record-mode inputs`` on ``run`` and ``view``, an opt-in for long batch
runs) records what cannot be derived and leaves out what can: no tree is watched, no tree
structure, keyframe, scene or commands are written, and each tick carries the root status and
the command only (the header says ``"node_data": false`` and carries the tree files' text,
``tree_files``); the brains' inputs, the truth, the GameController and the events (roles seen by
``player_role``'s entry) are written as in a full log. ``soccerbt.resim.derive`` re-runs every
brain from its inputs and writes the full log.
"""
from __future__ import annotations

import hashlib
import struct
from operator import attrgetter
from pathlib import Path
from typing import Any

from mcap.writer import CompressionType, Writer

from soccerbt import __version__
from soccerbt.blackboard.schema import SCHEMA
from soccerbt.cli.outputs import GuardedRecorder
from soccerbt.log import format as lf
from soccerbt.log.inputs import INPUTS_VERSION, InputTap, brain_description
from soccerbt.log.mcap_append import MessageAppender
from soccerbt.log.scene_update import scene_json, scene_json_of, team_rgb
from soccerbt.log.software import node_plugins_header, software
from soccerbt.log.tick_encode import NO_TICK as _NO_TICK
from soccerbt.log.tick_encode import UNSET as _UNSET
from soccerbt.log.tick_encode import bb_changes as _bb_changes
from soccerbt.log.tick_encode import changes_bytes, json_value, keyframe_value, removed_change, step_message
from soccerbt.log.tick_encode import encode_tick as _encode_tick
from soccerbt.log.tick_encode import encode_truth as _encode_truth
from soccerbt.log.tree_watch import TreeWatch
from soccerbt.nodes.status import NodeStatus
from soccerbt.trees.structure import describe_tree
from soccerbt.world.types import Team

__all__ = ["McapRecorder", "LogWriter", "make_recorder", "file_hashes", "json_value"]

_FALLEN = attrgetter("fallen")
_F32X3 = struct.Struct("<3f")  # the scene draws the truth as the log holds it: f32


_BLUE, _RED = Team.BLUE, Team.RED
_CODE_OF_ID = {id(status): status.code for status in NodeStatus}  # an Enum's hash runs Python
_CHUNK_BYTES = 1 << 20
_SCHEMA_WRITER = {name: spec.writer for name, spec in SCHEMA.items()}


def _shown_state(referee: Any) -> Any:
    """The game state the robots are sent (an HSL referee shows SET during the whistle's delay)."""
    return getattr(referee, "shown_state", referee.state)


MAX_EMBEDDED_TREE_BYTES = 1 << 20  # an inputs-only log carries its tree files up to this much


def tree_texts(trees: dict[str, Any]) -> dict[str, str]:
    """The text of every tree file the header's ``trees`` lists (played, not idle), by path, when
    each is UTF-8, still has the SHA-256 listed, and all of them together are at most
    ``MAX_EMBEDDED_TREE_BYTES``; else {} (a derive then needs the files unchanged on disk)."""
    out: dict[str, str] = {}
    total = 0
    for tree in trees.values():
        if tree.get("idle"):
            continue
        for entry in tree.get("files", []):
            path = entry["path"]
            if path in out:
                continue
            try:
                raw = Path(path).read_bytes()
                text = raw.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                return {}
            total += len(raw)
            if total > MAX_EMBEDDED_TREE_BYTES or hashlib.sha256(raw).hexdigest() != entry["sha256"]:
                return {}
            out[path] = text
    return out


def file_hashes(files: list[Path]) -> list[dict[str, str]]:
    """Each file's path and SHA-256 (what --verify checks before re-running)."""
    out = []
    for f in files:
        try:
            digest = hashlib.sha256(Path(f).read_bytes()).hexdigest()
        except OSError:
            digest = ""
        out.append({"path": str(f), "sha256": digest})
    return out


class _RobotTrack:
    """What the recorder keeps per robot: the watched tree, this tick's transitions and skips,
    the key table (root keys, sorted) with each entry, its last sequence number and value."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.tree: Any = None
        self.handle: Any = None
        self.nodes: list[Any] = []          # in uid order
        self.watch: Any = None              # the tree's shared TreeWatch
        self.seen = 0                       # the watch's generation this recorder has had
        self.loads = 0
        self.last_reasons: dict[int, tuple[int, str]] = {}  # uid -> (tick, reason) for keyframes
        self.keys: list[str] = []
        self.entries: list[Any] = []
        self.seqs: list[int] = []
        self.raw: list[object] = []
        self.adapter: list[int] = []
        self.layout = -1              # the blackboard's layout_version the table was read at
        self.role_index = -1          # player_role's index in the key table
        self.role_changed = True      # player_role written since the events looked at it
        self.bb: Any = None           # an inputs-only log: the root blackboard, its player_role entry
        self.role_entry: Any = None
        self.role_seq = -1
        self.role_value: object = _UNSET


class LogWriter:
    """An MCAP file of the replay log's channels (soccerbt.log.format): a channel and its
    schema are registered when first used, a message's time is its step's simulated time
    (``dt_s`` a step), and ``finish`` writes the index attachment and MCAP's summary."""

    def __init__(self, path: str | Path, *, chunk_bytes: int = _CHUNK_BYTES, stream: Any = None) -> None:
        self.path = Path(path)
        self.file = open(self.path, "wb") if stream is None else stream  # stream: a file opened for us
        self._writer = Writer(self.file, chunk_size=chunk_bytes, compression=CompressionType.ZSTD)
        self._writer.start(profile="", library=f"soccerbt {__version__}")
        self._append = MessageAppender.of(self._writer)  # add_message's bytes, fewer calls
        self._schemas: dict[str, int] = {}
        self._channels: dict[str, int] = {}
        self.topic_of: dict[int, str] = {}
        self.dt_s = 0.01
        self.messages = 0

    def channel(self, topic: str, kind: str) -> int:
        """The channel id of `topic`, registered with the schema of `kind` (format.SCHEMAS)."""
        cid = self._channels.get(topic)
        if cid is None:
            name, encoding, data, message_encoding = lf.SCHEMAS[kind]
            sid = self._schemas.get(kind)
            if sid is None:
                sid = self._writer.register_schema(name=name, encoding=encoding, data=data)
                self._schemas[kind] = sid
            cid = self._writer.register_channel(topic=topic, message_encoding=message_encoding, schema_id=sid)
            self._channels[topic] = cid
            self.topic_of[cid] = topic
        return cid

    def put(self, channel: int, step: int, data: bytes) -> None:
        ns = lf.ns_of(step, self.dt_s)
        if self._append is not None:
            self._append.add(channel, ns, data)
        else:
            self._writer.add_message(channel_id=channel, log_time=ns, data=data, publish_time=ns)
        self.messages += 1

    def finish(self, step: int, index: dict[str, Any]) -> None:
        """The index attachment (format.INDEX_ATTACHMENT) at `step`, MCAP's summary; closes the file."""
        ns = lf.ns_of(step, self.dt_s)
        self._writer.add_attachment(create_time=ns, log_time=ns, name=lf.INDEX_ATTACHMENT,
                                    media_type="application/json", data=lf.json_bytes(index))
        self._writer.finish()
        self.file.close()

    def discard(self) -> None:
        """Close the file and remove it (a log abandoned half written: its temporary file)."""
        try:
            self.file.close()
            self.path.unlink()
        except OSError:
            pass


class McapRecorder:
    """Writes a run as MCAP (see the module docstring and soccerbt.log.format)."""

    def __init__(self, path: str | Path, *, chunk_bytes: int = _CHUNK_BYTES,
                 header_extra: dict[str, Any] | None = None, stream: Any = None,
                 tap: Any = None, out: Any = None, node_data: bool = True,
                 reasons_before: dict[str, dict[int, tuple[int, str]]] | None = None) -> None:
        """`tap(topic, step, data)`: also handed every message written (``--verify`` compares
        a re-run with a log as it goes; ``--live`` streams it). `out`: a writer with LogWriter's
        methods instead of the file (``live.LiveWriter``: streamed, not written). `node_data`
        False: the inputs-only log (see the module docstring). `reasons_before`: each robot's
        latest reasons (uid -> (tick, text)) as the file before this one held them
        (``latest_reasons``), for the keyframes of a file that goes on from it (a flight log's
        next segment)."""
        self.path = Path(path)
        self.node_data = node_data
        self._reasons_before = reasons_before or {}
        self._header_extra = dict(header_extra or {})  # more header keys (a brain's log: "truth": "estimate")
        self._out = out if out is not None else LogWriter(self.path, chunk_bytes=chunk_bytes, stream=stream)
        self._channel = self._out.channel  # bound once: called for every message
        self._put = self._out.put
        if tap is not None:
            put, topic_of = self._out.put, self._out.topic_of

            def tapped(channel: int, step: int, data: bytes) -> None:
                put(channel, step, data)
                tap(topic_of[channel], step, data)

            self._put = tapped
        self._tracks: dict[str, _RobotTrack] = {}
        self._match: Any = None
        self._dt_s = 0.01
        self._history_seen = 0
        self._agent_events_seen = 0
        self._events: list[dict[str, Any]] = []
        self._loads: list[dict[str, Any]] = []
        self._last_gc: tuple | None = None
        self._fallen_before: list[int] = []
        self._pending_events: list[dict[str, Any]] = []
        self._roles: dict[str, object] = {}
        self._finished = False
        self._inputs: Any = None  # an inputs.InputTap: the brains' inputs, for --rerun
        self._agents: Any = None  # match.agents as _order was made from it
        self._order: list[tuple[Any, Any, _RobotTrack]] = []  # (robot id, agent, track), in header order
        self._truth_order: Any = None    # the order and world.robots the bodies below were read from
        self._truth_robots: Any = None
        self._truth_bodies: list[Any] = []
        self._truth_names: list[str] = []
        self._plan_key: Any = None  # what _scene_plan's plan was made from
        self._plan: list[Any] | None = None

    @property
    def messages(self) -> int:
        """Messages written so far."""
        return self._out.messages

    # --- observer API ---------------------------------------------------------------------------

    def latest_reasons(self) -> dict[str, dict[int, tuple[int, str]]]:
        """Each robot's latest reason of every node that gave one (uid -> (tick, text)), as the
        next keyframe holds them."""
        return {name: dict(track.last_reasons) for name, track in self._tracks.items()}

    def on_start(self, match: Any) -> None:
        """The header and each robot's tree (called by the first on_step when nobody did)."""
        self._match = match
        self._dt_s = self._out.dt_s = match.dt_s
        cfg = match.config
        trees = {}
        for team in (Team.BLUE, Team.RED):
            agent = next((a for rid, a in match.agents.items() if rid.team is team), None)
            tree_path = cfg.tree_of(team)
            files = agent.tree_file_list if agent is not None else [Path(tree_path)]
            trees[team.name.lower()] = {"path": str(tree_path), "files": file_hashes(files),
                                        "idle": bool(cfg.is_idle(team))}
        header = {
            "format": lf.FORMAT, "format_version": lf.FORMAT_VERSION, "soccerbt_version": __version__,
            "software": software(),
            "seed": cfg.seed, "field": match.field.name, "team_size": match.team_size, "dt_s": match.dt_s,
            "half_s": cfg.half_s, "duration_s": cfg.duration_s,
            "config": {"field": cfg.field, "team_size": cfg.team_size, "seed": cfg.seed,
                       "duration_s": cfg.duration_s, "half_s": cfg.half_s,
                       "blue_tree": None if cfg.blue_tree is None else str(cfg.blue_tree),
                       "red_tree": None if cfg.red_tree is None else str(cfg.red_tree),
                       "idle_teams": list(cfg.idle_teams), "particles": cfg.particles,
                       "gc_version": getattr(cfg, "gc_version", 20), "knockout": bool(getattr(cfg, "knockout", False)),
                       "reproducible": cfg.noise is None and cfg.referee is None},
            "robots": [str(rid) for rid in match.agents],
            "all_robots": [str(rid) for rid in sorted(match.world.robots)],
            "trees": trees,
            "blue_attacks_positive_x_first_half": bool(
                getattr(match.referee.config, "blue_attacks_positive_x_first_half", True)),
            "keyframe_steps": lf.KEYFRAME_STEPS,
            **node_plugins_header(match),
            **self._inputs_header(match),
            **self._header_extra,
        }
        if not self.node_data:
            if self._inputs is None:
                raise ValueError("an inputs-only log needs every brain's inputs (agents built from a BrainSpec)")
            header["node_data"] = False
            embedded = tree_texts(trees)
            if embedded:
                header["tree_files"] = embedded
        self._put(self._channel(lf.HEADER_TOPIC, "header"), 0, lf.json_bytes(header))
        for rid, agent in match.agents.items():
            track = _RobotTrack(str(rid))
            self._tracks[track.name] = track
            track.last_reasons = dict(self._reasons_before.get(track.name, {}))
            self._watch(track, agent, agent.tree, "load", match.steps)
            listeners = getattr(agent, "tree_listeners", None)
            if listeners is not None:
                listeners.append(self._on_tree_swap)

    def _inputs_header(self, match: Any) -> dict[str, Any]:
        """The header's ``inputs`` (what each brain was built with) when every agent says; the
        tap that records their inputs is set up then (soccerbt.log.inputs)."""
        brains = {str(rid): brain_description(agent) for rid, agent in match.agents.items()}
        if not brains or None in brains.values():
            return {}
        self._inputs = InputTap(match.agents)
        return {"inputs": {"version": INPUTS_VERSION, "brains": brains}}

    def _on_tree_swap(self, agent: Any, old_tree: Any, new_tree: Any) -> None:
        track = self._tracks.get(agent.name)
        if track is None:
            return
        if track.watch is not None:  # the old tree's halt: that tree is gone
            track.watch.detach()
            track.watch = None
        track.last_reasons = {}
        self._watch(track, agent, new_tree, "reload", self._match.steps)

    def _watch(self, track: _RobotTrack, agent: Any, tree: Any, reason: str, after_step: int) -> None:
        """Watch `tree` from the step after `after_step` on; log its structure and a keyframe
        (an inputs-only log: only the load, in the index)."""
        step = after_step + 1
        track.tree = tree
        if not self.node_data:
            track.nodes = []
            track.bb = agent.blackboard
            track.layout = -1
            track.loads += 1
            self._loads.append({"robot": track.name, "t": round(step * self._dt_s, 6), "step": step,
                                "reason": reason, "load": track.loads})
            return
        on_status_change = getattr(tree, "on_status_change", None)
        if on_status_change is None:  # a tree-like stand-in without the status stream
            track.nodes = []
            return
        track.nodes = tree.nodes_by_uid()
        track.watch = TreeWatch.attach(tree)  # shared with any other recorder of this tree
        track.seen = track.watch.generation
        track.handle = tree
        track.keys = []
        track.entries = []
        description = describe_tree(tree)
        t_s = step * self._dt_s
        track.loads += 1
        message = {"t": round(t_s, 6), "step": step, "tick": agent.ticks + 1, "load": track.loads,
                   "reason": reason, "file": str(agent.tree_path), **description}
        self._put(self._channel(lf.tree_topic(track.name), "tree"), step, lf.json_bytes(message))
        self._loads.append({"robot": track.name, "t": round(t_s, 6), "step": step, "reason": reason,
                            "load": track.loads})
        self._keyframe(track, agent, after_step, log_step=step)

    def _keyframe(self, track: _RobotTrack, agent: Any, after_step: int, log_step: int | None = None) -> None:
        """Every node's status and the whole root blackboard after step `after_step`."""
        bb = self._full_blackboard(track, agent)
        message = {"after_step": after_step, "tick": agent.ticks, "load": track.loads,
                   "statuses": [n.node_status.code for n in track.nodes], "blackboard": bb}
        if track.last_reasons:
            message["reasons"] = [[uid, tick, text] for uid, (tick, text) in sorted(track.last_reasons.items())]
        self._put(self._channel(lf.keyframe_topic(track.name), "keyframe"),
                  after_step if log_step is None else log_step, lf.json_bytes(message))

    def _robots(self, match: Any) -> list[tuple[Any, Any, _RobotTrack]]:
        """(robot id, agent, track) of every robot, in header order: made once a match (a robot
        id's str() and hash run Python code, and these loops run every step)."""
        agents = match.agents
        if agents is not self._agents or len(agents) != len(self._order):
            self._agents = agents
            self._order = [(rid, agent, self._tracks[str(rid)]) for rid, agent in agents.items()]
        return self._order

    def on_step(self, match: Any) -> None:
        if self._match is None:
            self.on_start(match)
        step = match.steps
        ref = match.referee
        robots = self._robots(match)
        shown = _shown_state(ref)  # a property of properties: read once a step
        put, channel = self._put, self._channel
        truth = self._truth(match, step, robots, shown)
        ticks = []
        for _rid, agent, track in robots:
            if agent.tree is not track.tree:  # swapped without telling us: watch it from now on
                self._on_tree_swap(agent, track.tree, agent.tree)
            ticks.append(self._tick(track, agent, step))
        put(channel(lf.STEP_TOPIC, "step"), step, step_message(step, truth, ticks))
        if self._inputs is not None:
            put(channel(lf.INPUTS_TOPIC, "inputs"), step, self._inputs.encode(step))
        if step % lf.KEYFRAME_STEPS == 0 and self.node_data:
            for _rid, agent, track in robots:
                self._keyframe(track, agent, step)
        scores = ref.scores
        attacks = getattr(ref, "attacks_positive_x", None)
        gc = (shown, ref.secondary_state, ref.sub_state, scores[_BLUE], scores[_RED],
              None if attacks is None else attacks(_BLUE), None if attacks is None else attacks(_RED))
        if gc != self._last_gc:
            self._last_gc = gc
            put(channel(lf.GC_TOPIC, "gc"), step, lf.json_bytes(self._gc_words(ref, gc)))
        self._write_events(match, step, robots)
        if step % lf.SCENE_PERIOD_STEPS == 0:
            plan = self._scene_plan(match, robots)
            if plan is None:  # a robot without a brain: the truth does not hold it, the scene is written
                put(channel(lf.SCENE_TOPIC, "scene"), step, scene_json(match))
            elif self.node_data:  # an inputs-only log leaves it to the derive (the same bytes)
                put(channel(lf.SCENE_TOPIC, "scene"), step, self._scene_of_truth(match, plan))
            if self.node_data:
                put(channel(lf.COMMANDS_TOPIC, "commands"), step, commands_json(match.world.t_s, robots))

    @staticmethod
    def _gc_words(ref: Any, gc: tuple[Any, ...]) -> dict[str, Any]:
        """The GameController message of `gc` (shown state, secondary state, sub-state, scores
        blue and red, whether blue and red attack +x or None when the referee does not say)."""
        state = gc[0]
        words = {"state": getattr(state, "name", str(state)),
                 "secondary_state": getattr(ref.secondary_state, "name", str(ref.secondary_state)),
                 "sub_state": getattr(ref.sub_state, "name", str(ref.sub_state)),
                 "score_blue": gc[3], "score_red": gc[4]}
        if gc[5] is not None:
            words["blue_attacks_positive_x"] = bool(gc[5])
            words["red_attacks_positive_x"] = bool(gc[6])
        return words

    def _scene_plan(self, match: Any, order: list[tuple[Any, Any, _RobotTrack]]) -> list[Any] | None:
        """The robots of the scene in id order as (index in the truth part, name, colour, agent,
        team), when every robot of the world has a brain (the truth part holds them all); None
        when not: the scene is then written from the world (see scene_update.scene_json_of)."""
        robots = match.world.robots
        key = self._plan_key
        if key is None or key[0] is not order or key[1] is not robots or key[2] != len(robots):
            self._plan_key = (order, robots, len(robots))
            index = {rid: k for k, (rid, _agent, _track) in enumerate(order)}
            if set(robots) != set(index):
                self._plan = None
            else:
                self._plan = [(index[rid], order[index[rid]][2].name, team_rgb(rid.team.name), order[index[rid]][1],
                               rid.team) for rid in sorted(robots)]
        return self._plan

    def _scene_of_truth(self, match: Any, plan: list[Any]) -> bytes:
        """The scene of the step from the truth as the log holds it (f32 positions) and the
        brains' beliefs: what the derive of an inputs-only log rebuilds from its truth."""
        bodies = self._truth_bodies
        attacks = getattr(match.referee, "attacks_positive_x", None)
        rows = []
        for k, name, rgb, agent, team in plan:
            body = bodies[k]
            x, y, theta = _F32X3.unpack(_F32X3.pack(body.x_m, body.y_m, body.theta_rad))
            rows.append((name, rgb, x, y, theta, int(bool(body.fallen)), agent,
                         None if attacks is None else attacks(team)))
        ball = match.world.ball
        bx, by, _z = _F32X3.unpack(_F32X3.pack(ball.x_m, ball.y_m, 0.0))
        return scene_json_of(match.world.t_s, match.field, rows, bx, by)

    def _truth(self, match: Any, step: int, order: list[tuple[Any, Any, _RobotTrack]], shown: Any) -> bytes:
        """The step's ``soccerbt.Truth`` (`shown`: the game state the robots are sent); notes falls."""
        world, ref = match.world, match.referee
        robots = world.robots
        scores = ref.scores
        if order is not self._truth_order or robots is not self._truth_robots:  # the world's robots, kept
            self._truth_order, self._truth_robots = order, robots               # (they are updated in place)
            self._truth_bodies = [robots[rid] for rid, _agent, _track in order]
            self._truth_names = [track.name for _rid, _agent, track in order]
        bodies = self._truth_bodies
        fallen_now = list(map(_FALLEN, bodies))
        if fallen_now != self._fallen_before:
            for (rid, _agent, track), was, now in zip(order, self._fallen_before or [False] * len(fallen_now),
                                                      fallen_now, strict=False):
                if now and not was:
                    self._pending_events.append({"kind": "fall", "detail": track.name, "t": round(world.t_s, 3),
                                                 "team": rid.team.name.lower(), "robot": track.name,
                                                 "node_path": None})
            self._fallen_before = fallen_now
        gc = (int(shown), int(ref.secondary_state), int(ref.sub_state), scores[_BLUE], scores[_RED])
        return _encode_truth(step, world.t_s, world.ball, gc, self._truth_names, bodies)

    def _tick(self, track: _RobotTrack, agent: Any, step: int) -> bytes:
        if agent.tree_failed:
            root = lf.ROOT_EXCEPTION
        else:
            root = _CODE_OF_ID.get(id(agent.last_status), 0)
        if not self.node_data:  # the root and the command
            self._role_written(track)
            return _encode_tick(track.name, step, agent.ticks, root, agent.last_command, [], [], None, None, b"")
        if track.watch is not None:
            (transitions, skipped, reasons), track.seen = track.watch.take(track.seen)
        else:
            transitions, skipped, reasons = _NO_TICK
        changes = self._changes(track, agent, step)
        data = _encode_tick(track.name, step, agent.ticks, root, agent.last_command, transitions, skipped,
                            track.tree.env.ticked if track.nodes else None, reasons or None, changes)
        if reasons:
            tick = agent.ticks
            last = track.last_reasons
            for uid, text in reasons.items():
                last[uid] = (tick, text)
        return data

    @staticmethod
    def _role_written(track: _RobotTrack) -> None:
        """An inputs-only log: note a new value of player_role (a write seen by its entry's
        sequence number) for the role events, as the blackboard diff does in a full log."""
        bb = track.bb
        if bb.layout_version != track.layout:
            track.layout = bb.layout_version
            track.role_entry = bb._storage.get("player_role")
            track.role_seq = -1
        entry = track.role_entry
        if entry is not None and entry.sequence_id != track.role_seq:
            track.role_seq = entry.sequence_id
            if entry.value != track.role_value:
                track.role_value = entry.value
                track.role_changed = True

    def _table(self, track: _RobotTrack, agent: Any) -> bool:
        """Refresh the key table when the root keys changed; True when it did."""
        bb = agent.blackboard
        track.layout = bb.layout_version
        storage = bb._storage
        if len(storage) == len(track.keys) and all(k in storage for k in track.keys):
            if all(storage[k] is e for k, e in zip(track.keys, track.entries, strict=False)):
                return False
        items = sorted(storage.items())
        track.keys = [k for k, _e in items]
        track.entries = [e for _k, e in items]
        # every entry is logged again at its next tick (as format 1 did: a decoded step of either
        # format reads the same)
        track.seqs = [-1] * len(items)
        track.raw = [_UNSET] * len(items)
        track.adapter = [lf.writer_code(_SCHEMA_WRITER.get(k, "adapter")) for k in track.keys]
        track.role_index = track.keys.index("player_role") if "player_role" in track.keys else -1
        track.role_changed = True
        return True

    def _full_blackboard(self, track: _RobotTrack, agent: Any) -> dict[str, list[Any]]:
        """Every root entry {key: [value, writer]} (keyframes), in key-table order."""
        self._table(track, agent)
        out: dict[str, list[Any]] = {}
        for i, (key, entry) in enumerate(zip(track.keys, track.entries, strict=False)):
            writer = entry.writer if entry.writer_seq == entry.sequence_id else _SCHEMA_WRITER.get(key, "adapter")
            out[key] = [keyframe_value(entry.value), writer]
            track.seqs[i] = entry.sequence_id
            track.raw[i] = entry.value
        return out

    def _changes(self, track: _RobotTrack, agent: Any, step: int) -> bytes:
        """The blackboard changes of this tick: the root entries written since the last tick
        whose value is new (``bb_changes``: soccerbt.native's compiled diff, or its twin
        ``py_bb_changes``), and a removal for every root key that went."""
        bb = agent.blackboard
        removed: list[str] = []
        if bb.layout_version != track.layout or not track.keys:  # a key added, removed or set anew
            old = track.keys
            if self._table(track, agent):
                removed = sorted(set(old) - set(track.keys))
        data, role = _bb_changes(track.entries, track.seqs, track.raw, track.adapter, track.role_index, track.keys)
        if role:
            track.role_changed = True
        if removed:
            data += changes_bytes([removed_change(key) for key in removed])
        return data

    def _write_events(self, match: Any, step: int, order: list[tuple[Any, Any, _RobotTrack]]) -> None:
        channel = None
        history = match.referee.history
        new: list[dict[str, Any]] = []
        for rec in history[self._history_seen:]:
            new.append({"kind": rec.kind, "detail": rec.detail, "t": round(rec.t_s, 3),
                        "team": rec.team.name.lower() if rec.team is not None else None,
                        "robot": str(rec.robot) if rec.robot is not None else None, "node_path": None})
        self._history_seen = len(history)
        for ev in match.agent_events[self._agent_events_seen:]:
            new.append({"kind": ev.kind, "detail": ev.message, "t": round(ev.t_s, 3), "team": None,
                        "robot": ev.robot, "node_path": ev.node_path or None})
        self._agent_events_seen = len(match.agent_events)
        new.extend(self._pending_events)
        self._pending_events.clear()
        for rid, agent, track in order:
            if not track.role_changed:
                continue
            track.role_changed = False
            name = track.name
            role = agent.blackboard.get("player_role")
            if role != self._roles.get(name):
                if name in self._roles:
                    assigner: Any = getattr(getattr(agent, "team", None), "assigner", None)
                    why = assigner.reason() if hasattr(assigner, "reason") else ""
                    new.append({"kind": "role", "detail": f"{name} {self._roles[name]} -> {role}"
                                                          + (f" ({why})" if why else ""),
                                "t": round(match.world.t_s, 3), "team": rid.team.name.lower(), "robot": name,
                                "node_path": None})
                self._roles[name] = role
        for event in new:
            if channel is None:
                channel = self._channel(lf.EVENTS_TOPIC, "events")
            event["step"] = step
            self._events.append(event)
            self._put(channel, step, lf.json_bytes(event))

    def finish(self, result: Any = None) -> None:
        """The summary, the index attachment, then MCAP's summary section; closes the file."""
        if self._finished:
            return
        self._finished = True
        step = self._match.steps if self._match is not None else 0
        if result is not None:
            self._put(self._channel(lf.SUMMARY_TOPIC, "summary"), step,
                      lf.json_bytes(json_value(result.to_dict())))
        self._out.finish(step, {"events": self._events, "loads": self._loads, "steps": step})
        if self._inputs is not None:
            self._inputs.close()
        for track in self._tracks.values():
            if track.watch is not None:
                track.watch.detach()
                track.watch = None
        for agent in getattr(self._match, "agents", {}).values():  # stop hearing hot reloads
            listeners = getattr(agent, "tree_listeners", None)
            if listeners is not None and self._on_tree_swap in listeners:
                listeners.remove(self._on_tree_swap)

    @property
    def file(self) -> Any:
        """The open log file (its ``tell()`` is the bytes written)."""
        return self._out.file

    def close(self) -> None:
        """Finish the file (summary and index) without a match result."""
        try:
            self.finish(None)
        except OSError:
            self._out.file.close()
            raise

    def __enter__(self) -> McapRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def commands_message(t_s: float, robots: list[tuple[Any, Any, Any]]) -> dict[str, Any]:
    """The /commands message: every robot's command rounded (NaN, no kick: null)."""
    commands = {track.name: [round(v, 4) if v == v else None for v in lf.command_tuple(agent.last_command)]
                for _rid, agent, track in robots}
    return {"t": round(t_s, 3), "commands": commands}


def commands_json(t_s: float, robots: list[tuple[Any, Any, Any]]) -> bytes:
    """``json_bytes(commands_message(...))``, written as text (tested equal): the recorder
    writes one every SCENE_PERIOD_STEPS; a value that is not finite takes the dictionary way."""
    rows = []
    for _rid, agent, track in robots:
        values = []
        for v in lf.command_tuple(agent.last_command):
            if v != v:
                values.append("null")
            elif v - v == 0.0:  # finite
                values.append(repr(round(v, 4)))
            else:
                return lf.json_bytes(commands_message(t_s, robots))
        name = track.name
        key = f'"{name}"' if name.isascii() and name.isalnum() else lf.json_text(name)
        rows.append(f'{key}:[{",".join(values)}]')
    return f'{{"t":{round(t_s, 3)!r},"commands":{{{",".join(rows)}}}}}'.encode("utf-8")


def make_recorder(path: str | Path, match: Any, *, guarded: bool = False, stream: Any = None, tap: Any = None,
                  node_data: bool = True) -> Any:
    """The MCAP recorder for `path` (whatever its name: the commands ask for FILE.mcap, see
    outputs.record_name_problem), attached to `match` before its first step. `guarded`: wrapped
    in a GuardedRecorder (a write error stops the recording, not the match). `stream`: a binary
    file already open for writing (a temporary file created exclusively), written instead of
    opening `path`. `tap(topic, step, data)`: handed every message too (``--live``). `node_data`
    False: the inputs-only log (see the module docstring)."""
    recorder: Any = McapRecorder(path, stream=stream, tap=tap, node_data=node_data)
    recorder.on_start(match)
    if guarded:
        recorder = GuardedRecorder(recorder, path)
    match.observers.append(recorder)
    return recorder
