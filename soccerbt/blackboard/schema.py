"""The blackboard key schema: every key a robot's trees may read, declared once.

Each ``KeySpec`` gives the key's name, Python type, unit, default, which adapter writes it and
what it means. Names follow Booster's robocup_demo so its trees run unmodified; the gc_* keys
are those of ``../shared/reference/gamecontroller.md``. Frames: every position is in the team
frame (origin at the centre mark, own goal at negative x).

Uses:
- ``default_blackboard_values()``: the entries the agent writes before the first tick;
- ``declare_on(factory)``: feeds the key names to ``TreeFactory.declare_blackboard_keys`` so a
  tree whose script reads an undeclared name (``_while="bal_out"``) fails at load;
- ``check_value(name, value)``: a located error for a writer putting a wrong type in.

Knows nothing of soccer services: plain data (blackboard floor).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["KeySpec", "SCHEMA", "WRITERS", "default_blackboard_values", "schema_keys",
           "declare_on", "check_value", "keys_written_by"]

# Who writes a key (the "writer" of a KeySpec).
WRITERS = {
    "gamepad": "soccerbt.drivers.gamepad pad adapter",
    "gamecontroller": "soccerbt.gamecontroller GameControllerAdapter",
    "world_model": "soccerbt.services.world_model.WorldModel.write_blackboard (sensor adapter)",
    "team": "the team-communication adapter (role negotiation over TeamLink)",
    "tree": "the trees themselves (scripts and node output ports)",
    "nodes": "soccer nodes (side effects of localization and decision nodes)",
}


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One blackboard key: name, Python type(s), unit ("" when none), default, writer, meaning."""

    name: str
    type: type | tuple[type, ...]
    unit: str
    default: Any
    writer: str
    description: str

    def accepts(self, value: object) -> bool:
        """Whether ``value`` has this key's type (ints pass for floats, bools do not pass for
        ints: a script's ``true`` is a number in BT.CPP, so numbers pass for bools)."""
        types = self.type if isinstance(self.type, tuple) else (self.type,)
        if object in types:
            return True
        if value is None:
            return type(None) in types
        if bool in types and isinstance(value, (bool, int, float)):
            return True
        if float in types and isinstance(value, (int, float)) and not isinstance(value, bool):
            return True
        if int in types and isinstance(value, float) and value.is_integer():
            return True  # BT.CPP scripts produce doubles: control_state=3 arrives as 3.0
        return isinstance(value, types) and not (isinstance(value, bool) and bool not in types)


_NONE = type(None)
_POINT = (tuple, _NONE)  # (x_m, y_m) or None when unknown

_SPECS: tuple[KeySpec, ...] = (
    # --- control: the gamepad adapter (and the tree's own RunOnce) ------------------------
    KeySpec(
        "control_state",
        int,
        "",
        3,
        "gamepad",
        "1 manual/assist (LT+X), 2 recalibrate/re-enter (LT+A), 3 full auto (LT+B, the tree sets 3 at start)",
    ),
    KeySpec("go_manual", bool, "", False, "gamepad", "a stick is beyond the dead zone: direct velocity control"),
    KeySpec("assist_chase", bool, "", False, "gamepad", "LB held: assisted chase of the ball"),
    KeySpec("assist_kick", bool, "", False, "gamepad", "RB held: assisted kick"),
    # --- the world model (sensor adapter) ---------------------------------------------------
    KeySpec(
        "odom_calibrated",
        bool,
        "",
        False,
        "world_model",
        "localization is trusted; set by the world model and SelfLocate nodes, reset on a penalty and by LT+A",
    ),
    KeySpec("ball_location_known", bool, "", False, "world_model", "own camera saw the ball within the last 2 s"),
    KeySpec("ball_out", bool, "", False, "world_model", "the ball estimate lies wholly outside the field lines"),
    KeySpec("tm_ball_pos_reliable", bool, "", False, "world_model", "a teammate's recent ball estimate is usable"),
    KeySpec(
        "wait_for_opponent_kickoff",
        bool,
        "",
        False,
        "world_model",
        "opponents' kick-off or set piece not yet taken (ball moved ~0.2 m, or 10 s)",
    ),
    KeySpec(
        "robot_pose_field",
        (object,),
        "m, rad",
        None,
        "world_model",
        "own pose estimate (soccerbt.world.types.Pose2D) in the team frame",
    ),
    KeySpec("robot_x_m", float, "m", 0.0, "world_model", "x of the own pose estimate"),
    KeySpec("robot_y_m", float, "m", 0.0, "world_model", "y of the own pose estimate"),
    KeySpec("robot_theta_rad", float, "rad", 0.0, "world_model", "heading of the own pose estimate"),
    KeySpec("localization_confidence", float, "", 0.0, "world_model", "0..1 confidence of the localizer"),
    KeySpec("fallen", bool, "", False, "world_model", "the IMU says the robot lies on the ground"),
    KeySpec("ball_field", _POINT, "m", None, "world_model", "remembered ball (x_m, y_m), team frame, or None"),
    KeySpec("ball_robot", _POINT, "m", None, "world_model", "remembered ball (x_m, y_m) in the robot frame, or None"),
    KeySpec("ball_velocity_field", tuple, "m/s", (0.0, 0.0), "world_model", "estimated ball velocity, team frame"),
    KeySpec(
        "ball_last_seen_s", float, "s", -1.0, "world_model", "simulated time of the last own ball sighting (-1: never)"
    ),
    KeySpec("ball_age_s", float, "s", 1e9, "world_model", "seconds since the last own ball sighting"),
    KeySpec("ball_distance_m", float, "m", 1e9, "world_model", "distance from the robot to the remembered ball"),
    KeySpec("ball_bearing_rad", float, "rad", 0.0, "world_model", "bearing of the remembered ball, robot frame"),
    KeySpec(
        "ball_x_m", float, "m", 0.0, "world_model", "x of the best ball estimate (own, else the team's), team frame"
    ),
    KeySpec(
        "ball_y_m", float, "m", 0.0, "world_model", "y of the best ball estimate (own, else the team's), team frame"
    ),
    KeySpec("team_ball_field", _POINT, "m", None, "world_model", "the teammates' freshest ball (x_m, y_m), or None"),
    KeySpec("obstacles_field", tuple, "m", (), "world_model", "remembered robots ((x_m, y_m), ...) in the team frame"),
    KeySpec("teammates_active", int, "", 0, "world_model", "teammates heard from recently (not penalised)"),
    # --- team play --------------------------------------------------------------------------
    KeySpec("player_role", str, "", "striker", "team", '"striker", "goal_keeper" or "supporter"'),
    KeySpec("is_lead", bool, "", True, "team", "this robot has the lowest cost to the ball among its team"),
    # --- the trees --------------------------------------------------------------------------
    KeySpec(
        "decision",
        str,
        "",
        "",
        "tree",
        "the last StrikerDecide/GoalieDecide output: find, chase, adjust, kick, cross, assist, retreat, ...",
    ),
    KeySpec("kick_dir_rad", float, "rad", 0.0, "nodes", "kick direction chosen by CalcKickDir, team frame"),
    KeySpec("kick_type", str, "", "shoot", "nodes", 'kick chosen by CalcKickDir: "shoot", "cross" or "block"'),
    # --- the GameController adapter (../shared/reference/gamecontroller.md) ----------------
    KeySpec("gc_game_state", str, "", "INITIAL", "gamecontroller", '"INITIAL", "READY", "SET", "PLAY" or "END"'),
    KeySpec("gc_game_sub_state_type", str, "", "NONE", "gamecontroller", '"NONE", "TIMEOUT" or "FREE_KICK"'),
    KeySpec(
        "gc_game_sub_state",
        str,
        "",
        "",
        "gamecontroller",
        'in a free kick "STOP", "GET_READY" or "SET" (HSL: "STOP" or "GET_READY"); else "" (HSL: "NONE")',
    ),
    KeySpec("gc_game_phase", str, "", "NORMAL", "gamecontroller", '"NORMAL", "PENALTYSHOOT", "OVERTIME" or "TIMEOUT"'),
    KeySpec(
        "gc_set_play",
        str,
        "",
        "",
        "gamecontroller",
        '"DIRECT_FREEKICK", "INDIRECT_FREEKICK", "PENALTY_KICK", "CORNER_KICK", "GOAL_KICK", "THROW_IN" or ""',
    ),
    KeySpec("gc_is_kickoff_side", bool, "", False, "gamecontroller", "our team has the kick-off"),
    KeySpec("gc_is_sub_state_kickoff_side", bool, "", False, "gamecontroller", "our team takes the current set play"),
    KeySpec("gc_is_under_penalty", bool, "", False, "gamecontroller", "this robot is penalised (or red-carded)"),
    KeySpec("gc_score", int, "goals", 0, "gamecontroller", "our score"),
    KeySpec("gc_opponent_score", int, "goals", 0, "gamecontroller", "the opponent's score"),
    KeySpec("gc_secs_remaining", int, "s", 0, "gamecontroller", "seconds left in the half (signed)"),
    KeySpec(
        "gc_secondary_time", int, "s", 0, "gamecontroller", "secondary timer: kick-off, set play, timeout (signed)"
    ),
    KeySpec("gc_connected", bool, "", False, "gamecontroller", "a packet for our team arrived within the timeout"),
    KeySpec("gc_penalty", int, "", 0, "gamecontroller", "this player's penalty code (0 none, 14 substitute, ...)"),
    KeySpec("gc_secs_till_unpenalised", int, "s", 0, "gamecontroller", "time left of this player's penalty"),
    KeySpec("gc_first_half", bool, "", True, "gamecontroller", "the game is in its first half"),
    KeySpec(
        "gc_kick_off_team",
        int,
        "",
        0,
        "gamecontroller",
        "team number with the kick-off (128/255: nobody, a dropped ball)",
    ),
    # --- HSL (2026-) entries of ../shared/reference/hsl-gamecontroller.md, filled from HL v12 too
    KeySpec(
        "gc_real_game_sub_state",
        str,
        "",
        "NONE",
        "gamecontroller",
        '"NONE", "DIRECT_FREEKICK", "INDIRECT_FREEKICK", "PENALTY_KICK", "THROW_IN", "GOAL_KICK" or "CORNER_KICK"',
    ),
    KeySpec(
        "gc_stopped",
        bool,
        "",
        False,
        "gamecontroller",
        "play is stopped while a set play is prepared (HSL stopped = 1; HL v12: a free kick's STOP)",
    ),
    KeySpec(
        "gc_penalty_name",
        str,
        "",
        "NONE",
        "gamecontroller",
        "this player's penalty by meaning in the packet's version (NONE, PICK_UP, MOTION_IN_STOP, ...)",
    ),
    KeySpec(
        "gc_message_budget",
        int,
        "messages",
        -1,
        "gamecontroller",
        "team messages our team may still send this game (HSL messageBudget; -1 for HL v12)",
    ),
    KeySpec(
        "gc_packet_version",
        int,
        "",
        0,
        "gamecontroller",
        "version of the last packet for our team: 12, 19 or 20 (0: none)",
    ),
    # --- Booster's 2026 local free-kick phase (hsl-gamecontroller.md, last table): computed by
    # soccerbt.services.freekick.LocalFreekickPhase inside WorldModel.write_blackboard --------
    KeySpec(
        "local_freekick_use_custom",
        bool,
        "",
        False,
        "world_model",
        "a set play (FREE_KICK, gc_real_game_sub_state not NONE) during PLAY: the trees follow local_freekick_phase",
    ),
    KeySpec(
        "local_freekick_phase",
        str,
        "",
        "NONE",
        "world_model",
        '"NONE", "WAIT_RESUME" (set play entered, play stopped), "PLACEMENT" (play resumed: take the free-kick '
        'position), "UNPLACEMENT" (kicking side: target reached and still; HL v12: the SET freeze), "EXECUTE" '
        "(kicking side, 1 s after UNPLACEMENT: play the ball; HSL packets only)",
    ),
    KeySpec(
        "local_freekick_move_stable",
        bool,
        "",
        False,
        "world_model",
        "the robot has stood still (odometry within 2 cm and 0.05 rad) for 0.8 s",
    ),
    KeySpec(
        "local_freekick_target_valid",
        bool,
        "",
        False,
        "nodes",
        "a free-kick positioning node worked from a fresh target in the last tick (cleared before each tick)",
    ),
    KeySpec(
        "local_freekick_target_error",
        float,
        "m",
        1e9,
        "nodes",
        "distance from the robot to the free-kick target of the last positioning node (1e9: none)",
    ),
)

SCHEMA: Mapping[str, KeySpec] = {spec.name: spec for spec in _SPECS}
if len(SCHEMA) != len(_SPECS):  # a duplicate would silently drop one declaration
    raise RuntimeError("duplicate key in the blackboard schema")


def schema_keys() -> tuple[str, ...]:
    """Every declared key name, in declaration order."""
    return tuple(SCHEMA)


def keys_written_by(writer: str) -> tuple[str, ...]:
    """The keys one writer (a key of ``WRITERS``) is responsible for."""
    if writer not in WRITERS:
        raise ValueError(f"unknown writer {writer!r} (expected one of {', '.join(WRITERS)})")
    return tuple(s.name for s in _SPECS if s.writer == writer)


def default_blackboard_values() -> dict[str, Any]:
    """Every key with its default: what a robot's blackboard holds before any adapter ran."""
    return {spec.name: spec.default for spec in _SPECS}


def check_value(name: str, value: object) -> None:
    """Raise ``KeyError`` for an undeclared key and ``TypeError`` for a value of the wrong type."""
    spec = SCHEMA.get(name)
    if spec is None:
        raise KeyError(f"blackboard key {name!r} is not declared in soccerbt.blackboard.schema")
    if not spec.accepts(value):
        raise TypeError(
            f"blackboard key {name!r} expects {_type_name(spec.type)}, got {type(value).__name__} {value!r}"
        )


def declare_on(factory: Any) -> None:
    """Declare every schema key on a ``TreeFactory`` (its ``declare_blackboard_keys`` hook)."""
    factory.declare_blackboard_keys(SCHEMA)


def _type_name(t: type | tuple[type, ...]) -> str:
    types = t if isinstance(t, tuple) else (t,)
    return " or ".join("None" if x is _NONE else x.__name__ for x in types)
