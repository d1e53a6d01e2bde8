"""The replay viewer's source: an MCAP log as the viewer's ``SceneSource``.

``McapReplaySource`` holds a position (a step); ``step(n)``, ``seek(step)``, ``jump(s)`` move it;
``scene(selected)`` builds the field ``Scene`` from the step's truth and each robot's blackboard
(estimates come back from the team frame; a decision is marked stale when the node that wrote it
did not run in the step); ``robot_state(robot)`` is the robot's tree, blackboard and reasons after
the step, moved forward with ``apply_step`` during playback and rebuilt from a keyframe after a
jump; ``key_history(robot, key)`` is a blackboard key's last changes up to the step;
``find_transition`` (a node's next change of result) and ``find_event`` back N and E;
``stale_trees()`` the robots whose hot reload had failed by the step, with no good load since
(the viewer's persistent mark). No pygame here: ``mcap_view`` draws it.
"""
from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import Any

from soccerbt.log import format as lf
from soccerbt.log.format import ReplayError
from soccerbt.log.reader import McapLog, RobotState, StepView, apply_step
from soccerbt.tools.replay.truth import side_changes
from soccerbt.tools.viewer.scene import Banner, Scene, SceneRobot, StaleTree, control_of, gc_words
from soccerbt.world.field import Field
from soccerbt.world.types import Pose2D, Team, from_team_frame

__all__ = ["McapReplaySource"]

# one change of a blackboard key: (step, t in s, value, writer), as tree_panel.HistoryEntry
HistoryEntry = tuple[int, float, Any, Any]

_SCAN_WINDOW_STEPS = 2000  # backward searches read the log in windows of this many steps
_HISTORY_LEN = 12          # changes a key history lists
_HISTORY_WINDOW_S = 30.0   # how far back a key history looks
_HISTORY_SCAN_STEPS = 500  # a key history reads back in windows of this many steps (stops when full)
_HISTORY_CACHE = 512       # (robot, key, step) histories kept


def _team_number(key: str) -> tuple[Team, int]:
    for team in Team:
        name = team.name.lower()
        if key.startswith(name) and key[len(name):].isdigit():
            return team, int(key[len(name):])
    return Team.BLUE, 0


def _value(bb: dict[str, list], key: str) -> object:
    entry = bb.get(key)
    return entry[0] if entry else None


class McapReplaySource:
    """The viewer's ``SceneSource`` on an ``McapLog`` (see the module docstring)."""

    def __init__(self, log: McapLog) -> None:
        self.log = log
        self.field = Field.by_name(str(log.header["field"]))
        self.dt_s = log.dt_s
        self.position = log.first_step
        self._blue_first = bool(log.header.get("blue_attacks_positive_x_first_half", True))
        # the second half starts at the first "half" event (sides swap there)
        self._half_step = min((int(e["step"]) for e in log.events if e.get("kind") == "half"), default=None)
        self._sides = side_changes(log.events, self._blue_first)
        self._view: StepView | None = None
        self._states: dict[str, RobotState] = {}
        self._history: dict[tuple[str, str, int, int], list[HistoryEntry]] = {}

    # --- position -----------------------------------------------------------------------------

    @property
    def t_s(self) -> float:
        return self.position * self.dt_s

    def view(self) -> StepView | None:
        """The decoded current step (None where the log lost it)."""
        if self._view is None or self._view.step != self.position:
            self._view = self.log.step_view(self.position)
        return self._view

    def seek(self, step: int) -> None:
        """Go to ``step`` (clamped to the log); the robot states are rebuilt when next asked."""
        step = max(self.log.first_step, min(self.log.last_step, int(step)))
        if step == self.position + 1:
            self.step(1)
        elif step != self.position:
            self.position = step
            self._states.clear()

    def seek_time(self, t_s: float) -> None:
        self.seek(self.log.step_at(t_s))

    def jump(self, seconds: float) -> None:
        steps = int(round(seconds / self.dt_s)) or (1 if seconds > 0 else -1 if seconds < 0 else 0)
        self.seek(self.position + steps)

    def step(self, n: int = 1) -> None:
        """Move ``n`` steps; by +1 the cached robot states follow with apply_step (cheap)."""
        if n != 1:
            self.seek(self.position + n)
            return
        if self.position >= self.log.last_step:
            return
        self.position += 1
        view = self.view()
        for robot, state in list(self._states.items()):
            if view is None or state.step != self.position - 1 or state.missing is not None:
                del self._states[robot]
            else:
                apply_step(state, view)

    def finished(self) -> bool:
        return self.position >= self.log.last_step

    def place_ball(self, x_m: float, y_m: float) -> None:
        """Nothing: a replay shows what was recorded."""

    def send_robot_to(self, key: str, x_m: float, y_m: float) -> None:
        """Nothing: a replay shows what was recorded."""

    def robot_state(self, robot: str) -> RobotState:
        """``robot``'s tree statuses and blackboard after the current step."""
        state = self._states.get(robot)
        if state is None or state.step != self.position:
            try:
                state = self.log.robot_state(robot, self.position)
            except ReplayError as exc:  # steps missing before it (damage): shown as unknown, never stale
                state = RobotState(robot, self.position, {"nodes": [], "subtrees": [], "load": 0}, {},
                                   missing=exc.message)
            self._states[robot] = state
        return state

    # --- the scene ----------------------------------------------------------------------------

    def blue_attacks_positive_x(self) -> bool:
        k = bisect.bisect_right(self._sides[0], self.position) - 1
        return self._sides[1][k] if k >= 0 else self._blue_first

    def scene(self, selected: str | None) -> Scene:
        view = self.view()
        if view is None:  # a damaged step: an empty field rather than a crash
            return Scene(self.field, self.t_s, (0.0, 0.0), [], Banner(state="(step unreadable)"))
        truth = view.truth
        blue_positive = self.blue_attacks_positive_x()
        robots, penalties = [], []
        bb0: dict[str, list] = {}
        for key, (x, y, theta, fallen, removed) in zip(self.log.robots, truth.robots, strict=False):
            team, number = _team_number(key)
            attack = blue_positive if team is Team.BLUE else not blue_positive
            rstate = self.robot_state(key)
            bb = rstate.blackboard
            bb0 = bb0 or bb
            robot = SceneRobot(key, team, number, Pose2D(x, y, theta), fallen=bool(fallen), removed=bool(removed),
                               penalised=bool(_value(bb, "gc_is_under_penalty")),
                               role=str(_value(bb, "player_role") or ""), decision=str(_value(bb, "decision") or ""),
                               control=control_of(lambda k, bb=bb: _value(bb, k)))
            if robot.decision and self.log.node_data:
                # current only when the node that wrote it ran in this tick (not while its branch is off)
                writer = bb.get("decision", [None, None])[1]
                robot.decision_stale = not (isinstance(writer, int) and writer in rstate.ticked
                                            and writer not in rstate.skipped)
            pose = _value(bb, "robot_pose_field")
            if isinstance(pose, list) and len(pose) >= 3:
                robot.estimate = from_team_frame(Pose2D(*(float(v) for v in pose[:3])), attack)
            ball = _value(bb, "ball_field")
            if isinstance(ball, list) and len(ball) >= 2 and _value(bb, "ball_location_known") is not False:
                bx, by = float(ball[0]), float(ball[1])
                robot.ball_estimate = (bx, by) if attack else (-bx, -by)
            if robot.penalised:
                penalties.append(f"{key} {_value(bb, 'gc_secs_till_unpenalised') or 0}s")
            robots.append(robot)
        state, secondary, sub, blue, red = truth.gc
        state_name, sub_text = gc_words(state, secondary, sub)
        banner = Banner(state=state_name, sub_state=sub_text, score_blue=blue,
                        score_red=red, secs_remaining=int(_value(bb0, "gc_secs_remaining") or 0),
                        secondary_time=int(_value(bb0, "gc_secondary_time") or 0),
                        first_half=self._half_step is None or self.position < self._half_step, penalties=penalties)
        scene = Scene(self.field, truth.t_s, (truth.ball[0], truth.ball[1]), robots, banner)
        scene.stale_trees = self.stale_trees()
        return scene

    def stale_trees(self) -> list[StaleTree]:
        """The robots whose last hot reload up to the current step failed, with no good load
        since: the tree they run is not their file on disk (grouped by file and error)."""
        failed = [e for e in self.log.events if e.get("kind") == "tree_reload_failed"
                  and int(e.get("step", 0)) <= self.position]
        if not failed:
            return []
        trees = self.log.header.get("trees") or {}
        groups: dict[tuple[str, str], list[tuple[str, float]]] = {}
        for robot in self.log.robots:
            mine = [e for e in failed if e.get("robot") == robot]
            if not mine:
                continue
            loaded = max((int(ld.get("step", 0)) for ld in self.log.loads(robot)
                          if int(ld.get("step", 0)) <= self.position), default=0)
            last = mine[-1]
            if int(last.get("step", 0)) <= loaded:
                continue  # a good version loaded since
            team, _number = _team_number(robot)
            tree = trees.get(team.name.lower()) if isinstance(trees, dict) else None
            file = str(tree.get("path") if isinstance(tree, dict) else "") or "the tree file"
            since = min(float(e.get("t") or 0.0) for e in mine if e.get("detail") == last.get("detail"))
            groups.setdefault((file, str(last.get("detail") or "")), []).append((robot, since))
        return [StaleTree(tuple(r for r, _t in rows), file, error, min(t for _r, t in rows))
                for (file, error), rows in sorted(groups.items())]

    # --- searching ----------------------------------------------------------------------------

    def _ticks(self, robot: str, first: int, last: int) -> Iterator[tuple[int, lf.TickRecord]]:
        """(step, ``robot``'s tick) for every step in [first, last] with a readable tick of it
        (decoding only that robot's part of each step)."""
        return self.log.robot_ticks(robot, first, last)

    def _transitions(self, robot: str, first: int, last: int) -> list[tuple[int, set[int]]]:
        """Steps in [first, last] where ``robot``'s tick has transitions, with their uids."""
        return [(step, {uid for uid, _p, _n in rec.transitions}) for step, rec in self._ticks(robot, first, last)]

    def _patterns(self, robot: str, uid: int, first: int, last: int) -> list[tuple[int, tuple]]:
        """(step, the transitions of node ``uid`` in it) for every step in [first, last] that has
        a tick of ``robot`` (an empty tuple: no transition of that node)."""
        return [(step, tuple((p, n) for u, p, n in rec.transitions if u == uid))
                for step, rec in self._ticks(robot, first, last)]

    def find_transition(self, robot: str, uid: int, forward: bool = True) -> int | None:
        """The next (or previous) step where node ``uid`` of ``robot`` changed its result: a
        transition unlike the step before's (a node that returns and is reset in every tick
        changes only when it returns something else, or stops running)."""
        log = self.log
        if forward:
            prev: tuple | None = None
            lo = max(log.first_step, self.position)
            while lo <= log.last_step:
                hi = min(log.last_step, lo + _SCAN_WINDOW_STEPS - 1)
                for step, pattern in self._patterns(robot, uid, lo, hi):
                    if prev is not None and step > self.position and _changed(prev, pattern):
                        return step
                    prev = pattern
                lo = hi + 1
            return None
        hi = self.position - 1
        after = None  # the pattern of the step after the window's last (the window's successor)
        while hi >= log.first_step:
            lo = max(log.first_step, hi - _SCAN_WINDOW_STEPS)
            rows = self._patterns(robot, uid, lo, hi + 1 if after is None else hi)
            if after is not None:
                rows.append(after)
            for (_s0, p0), (s1, p1) in reversed(list(zip(rows, rows[1:], strict=False))):
                if s1 <= hi and _changed(p0, p1):
                    return s1
            after = rows[0] if rows else None
            hi = lo - 1
        return None

    def _key_changes(self, robot: str, key: str, first: int, last: int) -> list[tuple[int, Any, Any]]:
        """(step, value, writer) of every change of ``robot``'s ``key`` in [first, last], in order."""
        return self.log.key_changes(robot, key, first, last)

    def key_history(self, robot: str, key: str, limit: int = _HISTORY_LEN) -> list[HistoryEntry]:
        """The last ``limit`` changes of ``robot``'s blackboard ``key`` at or before the current step
        and within _HISTORY_WINDOW_S of it, newest first, as (step, t, value, writer)."""
        step = self.position
        cache_key = (robot, key, step, limit)
        cached = self._history.get(cache_key)
        if cached is not None:
            return cached
        floor = max(self.log.first_step, step - int(round(_HISTORY_WINDOW_S / self.dt_s)) + 1)
        before = self._history.get((robot, key, step - 1, limit))
        if before is not None:  # playback: the last step's answer (trimmed to the window) plus this step
            changes = [(s, v, w) for s, _t, v, w in reversed(before) if s >= floor]
            changes += self._key_changes(robot, key, step, step)
        else:
            changes, hi = [], step
            while hi >= floor and len(changes) < limit:
                lo = max(floor, hi - _HISTORY_SCAN_STEPS + 1)
                changes = self._key_changes(robot, key, lo, hi) + changes
                hi = lo - 1
        out = [(s, s * self.dt_s, v, w) for s, v, w in reversed(changes[-limit:])]
        if len(self._history) >= _HISTORY_CACHE:
            self._history.clear()
        self._history[cache_key] = out
        return out

    def events_at(self, step: int) -> list[dict[str, Any]]:
        """The events of ``step``."""
        return [e for e in self.log.events if int(e["step"]) == step]

    def find_event(self, forward: bool = True) -> int | None:
        steps = sorted({int(e["step"]) for e in self.log.events})
        if forward:
            return next((s for s in steps if s > self.position), None)
        return next((s for s in reversed(steps) if s < self.position), None)


def _event_text(event: dict[str, Any]) -> str:
    """An event as the timeline and E name it: "t=12.34s goal blue (blue2)"."""
    robot = event.get("robot")
    who = f" ({robot})" if robot and robot not in str(event.get("detail")) else ""
    return f"t={float(event.get('t') or 0.0):.2f}s {event.get('kind')} {event.get('detail')}{who}"


def _changed(before: tuple, now: tuple) -> bool:
    """Whether a node's transitions in a step (``now``) are a change of result after those of
    the step before: any transition unlike the last, or none after a tick that returned and was
    reset (the node stopped running)."""
    if now:
        return now != before
    return bool(before) and before[0][0] == 0 and before[-1][1] == 0
