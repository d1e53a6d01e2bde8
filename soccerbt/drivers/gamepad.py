"""Gamepad adapter: a person takes over a robot with an SDL game controller.

What lives here (the keyboard fallback is in ``soccerbt.drivers.keyboard``):

- ``ManualCommand``: the velocity a person commands (robot frame); the agent overrides the
  tree's walking command with it while ``go_manual`` is true.
- ``ManualInput``, ``ChordAction``, ``apply_input``: what one input source asks for at one
  update, and how it is written to the blackboard keys the trees read (``go_manual``,
  ``assist_chase``, ``assist_kick``, ``control_state``, ``odom_calibrated``, ``player_role``).
- ``PadAdapter``: one robot's pad. Consumes pygame controller/joystick events and turns the
  sticks, bumpers and LT chords into a ``ManualInput`` at each ``update(now_s, blackboard)``.
- ``PadManager`` (in ``soccerbt.drivers.pad_devices``, which builds on this module): tracks
  connected pads by SDL instance id (hot-plugging), assigns one pad per robot, routes events,
  and offers ``pump()`` to read pad events from pygame's queue when no viewer owns it; the
  device backends live there too (``from soccerbt.drivers.pad_devices import PadManager``).
- ``EmergencyStop``: a latch consulted every tick; while engaged every robot's command is zero
  velocity and no kick.

Layout (SDL GameController, normalised): LX/LY move (stick up = forward, stick left = left),
RX rotates (stick left = counter-clockwise); LB held -> ``assist_chase``, RB held ->
``assist_kick``; LT (beyond ``trigger_threshold``) + X -> ``control_state=1``, LT+A -> ``2``
(and ``odom_calibrated=False``), LT+B -> ``3``, LT+Y swaps striker and goalkeeper. A chord acts
once, on the press edge of the face button while LT is held. BACK engages the emergency stop,
START releases it (only when the adapter was given an ``EmergencyStop``). Pads SDL does not know
as game controllers are read through the raw joystick API with a ``JoystickMapping``.

Liveness (the safety release): a robot is released (no manual command, ``go_manual`` and the
assist flags false) within one update when

- its pad sends a REMOVED event (controller or joystick), or
- the pad has a device object (every pad opened through SDL) and polling it fails:
  ``attached()`` is false or reading an axis/button raises. Polled pads are *not* timed out:
  an SDL pad held steady sends no events, so silence is not a fault. At each update the current
  axis and button values are read from the device (they are as fresh as the last SDL event pump,
  which the viewer or ``PadManager.pump()`` performs), and events only add the press edges that
  a poll could miss (a tap between two updates).
- the pad has no device object (synthetic or injected events only) and a stick is beyond the
  dead zone while no event arrived for more than ``stale_timeout_s`` of the ``now_s`` clock
  passed to ``update``. The pad's state is then reset to neutral until its next event.

Axis values: integers are SDL's raw Sint16 (-32768..32767, triggers 0..32767), as pygame gives
them for CONTROLLERAXISMOTION and ``Controller.get_axis``; floats are already normalised to
[-1, 1], as pygame gives them for JOYAXISMOTION and ``Joystick.get_axis``.

pygame is imported lazily (only when an event is handled or a device opened), so importing this
module, e.g. for ``EmergencyStop`` in the agent, stays light. May import soccerbt.world.
"""
from __future__ import annotations

import enum
import logging
import math
from collections.abc import Hashable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from soccerbt.world.types import RobotCommand, RobotId, Team

__all__ = [
    "CONTROLLER", "JOYSTICK", "ManualCommand", "ManualInput", "ChordAction", "PadEvent",
    "VelocityLimits", "JoystickMapping", "EmergencyStop", "PadAdapter", "InputSource", "apply_input", "merge_inputs",
    "init_blackboard", "radial_dead_zone", "robot_key", "parse_robot_key", "pad_event_types",
]

_log = logging.getLogger(__name__)

CONTROLLER = "controller"  # opened through SDL's GameController API (normalised layout)
JOYSTICK = "joystick"      # opened through the raw joystick API (layout from a JoystickMapping)

# Blackboard keys the pad writes (declared in soccerbt.blackboard.schema, writer "gamepad").
GO_MANUAL = "go_manual"
ASSIST_CHASE = "assist_chase"
ASSIST_KICK = "assist_kick"
CONTROL_STATE = "control_state"
ODOM_CALIBRATED = "odom_calibrated"
PLAYER_ROLE = "player_role"
STRIKER = "striker"
GOAL_KEEPER = "goal_keeper"

# SDL_GameControllerAxis / SDL_GameControllerButton values (fixed by the SDL2 ABI; a test
# checks them against pygame's CONTROLLER_* constants).
_CONTROLLER_AXES = {0: "lx", 1: "ly", 2: "rx", 3: "ry", 4: "lt", 5: "rt"}
_CONTROLLER_BUTTONS = {0: "a", 1: "b", 2: "x", 3: "y", 4: "back", 6: "start", 9: "lb", 10: "rb"}
_TRIGGERS = ("lt", "rt")
_SDL_AXIS_MAX = 32767.0


# --- what a pad asks for --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ManualCommand:
    """A velocity a person commands, robot frame: vx forward, vy left, vtheta counter-clockwise."""

    vx_mps: float = 0.0
    vy_mps: float = 0.0
    vtheta_radps: float = 0.0

    def apply_to(self, command: RobotCommand) -> RobotCommand:
        """Overwrite the walking velocity of ``command`` (in place) with this one; returns it."""
        command.vx_mps = self.vx_mps
        command.vy_mps = self.vy_mps
        command.vtheta_radps = self.vtheta_radps
        return command


@dataclass(frozen=True, slots=True)
class VelocityLimits:
    """The largest walking speeds a full stick deflection commands (defaults: Booster T1)."""

    vx_mps: float = 1.2
    vy_mps: float = 0.4
    vtheta_radps: float = 1.5

    def __post_init__(self) -> None:
        for name in ("vx_mps", "vy_mps", "vtheta_radps"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0.0):
                raise ValueError(f"velocity limit {name} must be a finite number >= 0, got {value!r}")


class ChordAction(enum.Enum):
    """A one-shot operator action (LT+face button on a pad, a number key on the keyboard)."""

    MANUAL = 1        # LT+X: control_state = 1
    RECALIBRATE = 2   # LT+A: control_state = 2, odom_calibrated = False
    AUTO = 3          # LT+B: control_state = 3
    SWAP_ROLES = 4    # LT+Y: player_role striker <-> goal_keeper


@dataclass(frozen=True, slots=True)
class PadEvent:
    """Something an operator should see: a pad came or went, a chord acted, a robot was released.

    ``kind``: "connected", "disconnected", "assigned", "released" (detail: "disconnected",
    "lost", "stale" or "unassigned"), "control_state" (detail: "1"/"2"/"3"), "swap_roles"
    (detail: the new role), "estop_engaged", "estop_released". ``t_s`` is the ``now_s`` of the
    update that produced it, or None for events produced while handling a pygame event.
    """

    kind: str
    robot_key: str | None = None
    detail: str = ""
    t_s: float | None = None


@dataclass(slots=True)
class ManualInput:
    """What one input source asks of its robot at one update.

    ``command`` is None unless a stick (or a movement key) is beyond the dead zone.
    ``actions`` are the chords pressed since the previous update, in order. ``released`` names
    why the source let its robot go during this update (safety release), else None.
    """

    command: ManualCommand | None = None
    assist_chase: bool = False
    assist_kick: bool = False
    actions: list[ChordAction] = field(default_factory=list)
    released: str | None = None


class InputSource(Protocol):
    """Anything that can be read once per update (``PadAdapter``, ``KeyboardPad``)."""

    def read(self, now_s: float) -> ManualInput: ...


def merge_inputs(inputs: Iterable[ManualInput]) -> ManualInput:
    """Several sources driving one robot: the first manual command wins, flags are or-ed,
    actions are concatenated in source order."""
    merged = ManualInput()
    for inp in inputs:
        if merged.command is None:
            merged.command = inp.command
        merged.assist_chase = merged.assist_chase or inp.assist_chase
        merged.assist_kick = merged.assist_kick or inp.assist_kick
        merged.actions.extend(inp.actions)
        if merged.released is None:
            merged.released = inp.released
    return merged


def init_blackboard(blackboard: MutableMapping[str, object]) -> None:
    """Create the pad flags (false) where they are missing, so scripts can read them."""
    for key in (GO_MANUAL, ASSIST_CHASE, ASSIST_KICK):
        if key not in blackboard:
            blackboard[key] = False


def _swapped_role(role: object) -> str:
    # goal_keeper becomes striker; striker (and anything else, e.g. a supporter) goal_keeper
    return STRIKER if role == GOAL_KEEPER else GOAL_KEEPER


def apply_input(inp: ManualInput, blackboard: MutableMapping[str, object], now_s: float | None = None,
                robot: str | None = None) -> tuple[ManualCommand | None, list[PadEvent]]:
    """Write ``inp`` to the blackboard; returns the manual command (None when not manual) and
    the events the chords and releases produced.

    The flags are written at every call (the pad is their only writer); chords write
    ``control_state`` / ``odom_calibrated`` / ``player_role`` once, when they act. A swapped
    ``player_role`` holds: the team adapter (``soccerbt.agent.TeamAdapter``) takes it as the
    person's role choice and the role negotiation keeps it until the next swap or a penalty.
    """
    events: list[PadEvent] = []
    if inp.released is not None:
        events.append(PadEvent("released", robot, inp.released, now_s))
    for action in inp.actions:
        if action is ChordAction.SWAP_ROLES:
            try:
                current = blackboard.get(PLAYER_ROLE)
            except KeyError:  # some blackboards raise for unset entries even through get()
                current = None
            role = _swapped_role(current)
            blackboard[PLAYER_ROLE] = role
            events.append(PadEvent("swap_roles", robot, role, now_s))
        else:
            blackboard[CONTROL_STATE] = action.value
            if action is ChordAction.RECALIBRATE:
                blackboard[ODOM_CALIBRATED] = False
            events.append(PadEvent("control_state", robot, str(action.value), now_s))
    blackboard[GO_MANUAL] = inp.command is not None
    blackboard[ASSIST_CHASE] = bool(inp.assist_chase)
    blackboard[ASSIST_KICK] = bool(inp.assist_kick)
    return inp.command, events


# --- emergency stop -----------------------------------------------------------------------


class EmergencyStop:
    """A latch for all robots: ``engage()`` stops everything until an explicit ``release()``.

    It latches (pressing the stop key again keeps it engaged) so that a panicked double press
    cannot restart the robots; releasing takes a different, deliberate action (RETURN on the
    keyboard, START on a pad, or a call). The agent and the match call ``apply(command)`` every
    tick: while engaged the command's velocity is zero, its kick is dropped and it does not
    ask to stand up (the head keeps its commanded angles; looking around is harmless).
    """

    def __init__(self) -> None:
        self._engaged = False
        self.reason = ""
        self.engage_count = 0
        self.owner: object = None  # who engaged it, when it says (a remote controller's writer)
        self.refused_releases = 0

    @property
    def engaged(self) -> bool:
        return self._engaged

    def engage(self, reason: str = "", owner: object = None) -> bool:
        """Engage the stop; True if it was not engaged before. ``owner`` (a remote controller's
        writer) is then the only one that may release it."""
        if self._engaged:
            return False
        self._engaged = True
        self.reason = reason
        self.owner = owner
        self.engage_count += 1
        _log.warning("emergency stop engaged%s", f" ({reason})" if reason else "")
        return True

    def release(self, owner: object = None) -> bool:
        """Release the stop; True if it was engaged. A stop engaged by an owner is released only by
        that owner (another remote controller's START is refused, said once)."""
        if not self._engaged:
            return False
        if self.owner is not None and owner != self.owner:
            self.refused_releases += 1
            if self.refused_releases == 1:
                _log.warning("emergency stop release refused: only the remote controller that engaged it may "
                             "release it")
            return False
        self._engaged = False
        self.owner = None
        self.reason = ""
        _log.warning("emergency stop released")
        return True

    def apply(self, command: RobotCommand) -> RobotCommand:
        """Make ``command`` safe (in place) while engaged; returns it."""
        if self._engaged:
            command.vx_mps = 0.0
            command.vy_mps = 0.0
            command.vtheta_radps = 0.0
            command.kick = None
            command.stand_up = False
        return command


# --- stick maths ---------------------------------------------------------------------------


def radial_dead_zone(x: float, y: float, dead_zone: float) -> tuple[float, float]:
    """A stick (x, y) with a radial dead zone, rescaled so the output grows from 0 at the
    dead-zone edge to 1 at full deflection (longer vectors, e.g. a square gate's corners, are
    clipped to length 1); the direction is kept."""
    magnitude = math.hypot(x, y)
    if not magnitude > dead_zone:  # also catches NaN
        return 0.0, 0.0
    scale = min(1.0, (magnitude - dead_zone) / (1.0 - dead_zone)) / magnitude
    return x * scale, y * scale


def _normalised_axis(value: object) -> float:
    """A pygame axis value in [-1, 1]: ints are SDL raw Sint16, floats already normalised."""
    if isinstance(value, bool):
        v = float(value)
    elif isinstance(value, int):
        v = value / _SDL_AXIS_MAX
    elif isinstance(value, float):
        v = value
    else:
        return 0.0
    if not math.isfinite(v):
        return 0.0
    return max(-1.0, min(1.0, v))


@dataclass(frozen=True, slots=True)
class JoystickMapping:
    """Where the sticks, trigger and buttons are on a pad SDL does not know as a game controller.

    Defaults: the common Linux xpad layout (axes LX 0, LY 1, LT 2, RX 3, RY 4, RT 5; buttons
    A 0, B 1, X 2, Y 3, LB 4, RB 5, BACK 6, START 7), whose triggers rest at -1. Set
    ``trigger_rest`` to 0.0 for triggers reading 0..1, or ``left_trigger_button`` for pads whose
    LT is a button (then ``left_trigger_axis`` may be None).
    """

    left_x_axis: int = 0
    left_y_axis: int = 1
    right_x_axis: int = 3
    right_y_axis: int = 4
    left_trigger_axis: int | None = 2
    right_trigger_axis: int | None = 5
    trigger_rest: float = -1.0
    left_trigger_button: int | None = None
    a_button: int = 0
    b_button: int = 1
    x_button: int = 2
    y_button: int = 3
    lb_button: int = 4
    rb_button: int = 5
    back_button: int | None = 6
    start_button: int | None = 7

    def __post_init__(self) -> None:
        if not -1.0 <= self.trigger_rest < 1.0:
            raise ValueError(f"JoystickMapping.trigger_rest must be in [-1, 1), got {self.trigger_rest!r}")

    def axes(self) -> dict[int, str]:
        """Joystick axis index -> logical axis name."""
        out = {self.left_x_axis: "lx", self.left_y_axis: "ly", self.right_x_axis: "rx",
               self.right_y_axis: "ry"}
        if self.left_trigger_axis is not None:
            out[self.left_trigger_axis] = "lt"
        if self.right_trigger_axis is not None:
            out[self.right_trigger_axis] = "rt"
        return out

    def buttons(self) -> dict[int, str]:
        """Joystick button index -> logical button name."""
        out = {self.a_button: "a", self.b_button: "b", self.x_button: "x", self.y_button: "y",
               self.lb_button: "lb", self.rb_button: "rb"}
        if self.back_button is not None:
            out[self.back_button] = "back"
        if self.start_button is not None:
            out[self.start_button] = "start"
        if self.left_trigger_button is not None:
            out[self.left_trigger_button] = "lt_button"
        return out

    def trigger(self, value: float) -> float:
        """A raw trigger axis value (normalised, rest at ``trigger_rest``) as 0..1."""
        return max(0.0, min(1.0, (value - self.trigger_rest) / (1.0 - self.trigger_rest)))


# --- robot keys ------------------------------------------------------------------------------


def robot_key(robot: Hashable) -> str:
    """The key a robot is known by here: ``str(RobotId)`` ("blue1") or a non-empty string."""
    if isinstance(robot, RobotId):
        return str(robot)
    if isinstance(robot, str) and robot.strip():
        return robot.strip()
    raise ValueError(f"robot key must be a RobotId or a non-empty string, got {robot!r}")


def parse_robot_key(text: str) -> RobotId:
    """"blue1" / "red3" (as ``str(RobotId)`` prints them) -> RobotId; ValueError otherwise."""
    cleaned = text.strip().lower()
    for team in Team:
        name = team.name.lower()
        if cleaned.startswith(name) and cleaned[len(name):].isdigit():
            number = int(cleaned[len(name):])
            if number >= 1:
                return RobotId(team, number)
    raise ValueError(f"robot {text!r}: expected a team colour and a player number from 1, e.g. 'blue1' or 'red2'")


# --- pygame event types (looked up lazily) --------------------------------------------------


class _Types:
    """The pygame event type numbers this module handles, read from pygame once."""

    def __init__(self) -> None:
        # deferred: start-up: pygame (0.23 s here, and SDL's set-up) only once a pad is opened
        import pygame

        self.CAXIS = pygame.CONTROLLERAXISMOTION
        self.CDOWN = pygame.CONTROLLERBUTTONDOWN
        self.CUP = pygame.CONTROLLERBUTTONUP
        self.CADDED = pygame.CONTROLLERDEVICEADDED
        self.CREMOVED = pygame.CONTROLLERDEVICEREMOVED
        self.JAXIS = pygame.JOYAXISMOTION
        self.JDOWN = pygame.JOYBUTTONDOWN
        self.JUP = pygame.JOYBUTTONUP
        self.JADDED = pygame.JOYDEVICEADDED
        self.JREMOVED = pygame.JOYDEVICEREMOVED
        self.controller_input = (self.CAXIS, self.CDOWN, self.CUP)
        self.joystick_input = (self.JAXIS, self.JDOWN, self.JUP)
        self.removed = (self.CREMOVED, self.JREMOVED)
        self.all = (self.CAXIS, self.CDOWN, self.CUP, self.CADDED, self.CREMOVED,
                    self.JAXIS, self.JDOWN, self.JUP, self.JADDED, self.JREMOVED)


_TYPES: _Types | None = None


def _types() -> _Types:
    global _TYPES
    if _TYPES is None:
        _TYPES = _Types()
    return _TYPES


def pad_event_types() -> tuple[int, ...]:
    """The pygame event types ``PadManager.handle_event`` consumes (imports pygame)."""
    return _types().all


# --- one robot's pad ------------------------------------------------------------------------


class PadAdapter:
    """One robot's pad: pygame events in, a ``ManualInput`` and blackboard keys out.

    Bind it to a pad (``bind``; ``PadManager`` does it on hot-plug and ``assign``), feed it
    events (``handle_event``; events of other pads are ignored) and call ``update(now_s, bb)``
    once per tick. See the module docstring for the layout and the liveness rules.
    """

    def __init__(self, max_vx_mps: float = 1.2, max_vy_mps: float = 0.4, max_vtheta_radps: float = 1.5,
                 *, dead_zone: float = 0.1, trigger_threshold: float = 0.5, stale_timeout_s: float = 0.5,
                 joystick_mapping: JoystickMapping | None = None, estop: EmergencyStop | None = None,
                 robot: str | None = None) -> None:
        if not 0.0 <= dead_zone < 1.0:
            raise ValueError(f"dead_zone must be in [0, 1), got {dead_zone!r}")
        if not 0.0 < trigger_threshold < 1.0:
            raise ValueError(f"trigger_threshold must be in (0, 1), got {trigger_threshold!r}")
        if not (math.isfinite(stale_timeout_s) and stale_timeout_s > 0.0):
            raise ValueError(f"stale_timeout_s must be a positive number, got {stale_timeout_s!r}")
        self.limits = VelocityLimits(max_vx_mps, max_vy_mps, max_vtheta_radps)
        self.dead_zone = dead_zone
        self.trigger_threshold = trigger_threshold
        self.stale_timeout_s = stale_timeout_s
        self.mapping = joystick_mapping or JoystickMapping()
        self.estop = estop
        self.robot = robot
        self.events: list[PadEvent] = []
        self.instance_id: int | None = None
        self.kind: str | None = None
        self.device: Any = None
        self.name = ""
        self.lost = False  # the bound device failed a poll (PadManager drops it)
        self._axes: dict[str, float] = {}
        self._buttons: set[str] = set()
        self._pending: list[ChordAction] = []
        self._event_seen = False
        self._last_input_s: float | None = None
        self._release_reason: str | None = None
        self._poll_axes: dict[int, str] = {}
        self._poll_buttons: dict[int, str] = {}
        self._reset_state()

    # -- binding -----------------------------------------------------------------------------

    @property
    def bound(self) -> bool:
        return self.instance_id is not None

    def bind(self, instance_id: int, kind: str = CONTROLLER, device: Any = None, name: str = "") -> None:
        """Read the pad with this SDL instance id (``kind`` CONTROLLER or JOYSTICK); ``device`` is
        the opened pygame ``Controller``/``Joystick`` (or anything with get_axis/get_button and
        optionally attached()), None for an event-only pad."""
        if kind not in (CONTROLLER, JOYSTICK):
            raise ValueError(f"pad kind must be {CONTROLLER!r} or {JOYSTICK!r}, got {kind!r}")
        if self.bound and self.instance_id != instance_id:
            self.unbind("unassigned")
        self.instance_id = int(instance_id)
        self.kind = kind
        self.device = device
        self.name = name
        self.lost = False
        self._reset_state()
        self._event_seen = True  # binding counts as a sign of life for the stale timer
        self._poll_axes, self._poll_buttons = self._poll_tables(device)

    def unbind(self, reason: str = "unassigned") -> None:
        """Stop reading the pad; the robot is released at the next update."""
        if self.bound:
            self._release_reason = reason
        self.instance_id = None
        self.kind = None
        self.device = None
        self.name = ""
        self._reset_state()

    def disconnect(self, reason: str = "disconnected") -> None:
        """The pad is gone (REMOVED event or failed poll): release the robot."""
        self.unbind(reason)

    def _reset_state(self) -> None:
        self._axes = {"lx": 0.0, "ly": 0.0, "rx": 0.0, "ry": 0.0, "lt": 0.0, "rt": 0.0}
        self._buttons = set()
        self._pending = []
        self._last_input_s = None
        self._event_seen = False

    def _poll_tables(self, device: Any) -> tuple[dict[int, str], dict[int, str]]:
        """Which axes and buttons to poll on ``device`` (only those it has, so that an index
        out of range is never mistaken for a dead pad)."""
        if device is None:
            return {}, {}
        if self.kind == CONTROLLER:
            return dict(_CONTROLLER_AXES), dict(_CONTROLLER_BUTTONS)
        axes, buttons = self.mapping.axes(), self.mapping.buttons()
        try:
            if hasattr(device, "get_numaxes"):
                axes = {i: n for i, n in axes.items() if i < device.get_numaxes()}
            if hasattr(device, "get_numbuttons"):
                buttons = {i: n for i, n in buttons.items() if i < device.get_numbuttons()}
        except Exception:  # a pad that cannot say what it has is polled for nothing; events only
            _log.warning("pad %s: cannot read its axis/button counts; using events only", self.name)
            return {}, {}
        return axes, buttons

    # -- events ------------------------------------------------------------------------------

    def handle_event(self, event: Any) -> bool:
        """Consume a pygame event of the bound pad; True when it was one."""
        if self.instance_id is None:
            return False
        t = _types()
        etype = getattr(event, "type", None)
        if etype not in t.all or getattr(event, "instance_id", None) != self.instance_id:
            return False
        if etype in t.removed:
            self.disconnect("disconnected")
            return True
        if self.kind == CONTROLLER and etype in t.controller_input:
            if etype == t.CAXIS:
                name = _CONTROLLER_AXES.get(getattr(event, "axis", None))
                if name is not None:
                    self._set_axis(name, _normalised_axis(getattr(event, "value", 0)))
            else:
                name = _CONTROLLER_BUTTONS.get(getattr(event, "button", None))
                if name is not None:
                    self._set_button(name, etype == t.CDOWN)
        elif self.kind == JOYSTICK and etype in t.joystick_input:
            if etype == t.JAXIS:
                name = self.mapping.axes().get(getattr(event, "axis", None))
                if name is not None:
                    self._set_axis(name, _normalised_axis(getattr(event, "value", 0.0)))
            else:
                name = self.mapping.buttons().get(getattr(event, "button", None))
                if name is not None:
                    self._set_button(name, etype == t.JDOWN)
        else:
            return False  # e.g. the joystick twin of a game controller's events
        self._event_seen = True
        return True

    def _set_axis(self, name: str, value: float) -> None:
        if name in _TRIGGERS:
            value = self.mapping.trigger(value) if self.kind == JOYSTICK else max(0.0, value)
        self._axes[name] = value

    def _lt_held(self) -> bool:
        return self._axes["lt"] > self.trigger_threshold or "lt_button" in self._buttons

    def _set_button(self, name: str, down: bool) -> None:
        if not down:
            self._buttons.discard(name)
            return
        if name in self._buttons:
            return  # not a press edge (repeat, or a poll confirming an event)
        self._buttons.add(name)
        if self._lt_held():
            action = {"x": ChordAction.MANUAL, "a": ChordAction.RECALIBRATE, "b": ChordAction.AUTO,
                      "y": ChordAction.SWAP_ROLES}.get(name)
            if action is not None:
                self._pending.append(action)
        if self.estop is not None:
            if name == "back" and self.estop.engage(f"pad {self.name or self.instance_id}"):
                self.events.append(PadEvent("estop_engaged", self.robot, "pad BACK"))
            elif name == "start" and self.estop.release():
                self.events.append(PadEvent("estop_released", self.robot, "pad START"))

    # -- polling -----------------------------------------------------------------------------

    def _poll(self) -> bool:
        """Refresh the state from the device; False when the device is gone or failed."""
        device = self.device
        try:
            attached = getattr(device, "attached", None)
            if attached is not None and not attached():
                return False
            for index, name in self._poll_axes.items():
                self._set_axis(name, _normalised_axis(device.get_axis(index)))
            for index, name in self._poll_buttons.items():
                self._set_button(name, bool(device.get_button(index)))
        except Exception as exc:  # any failure to read a pad means it cannot be trusted
            _log.warning("pad %s: polling failed (%s); releasing the robot", self.name or self.instance_id, exc)
            return False
        return True

    # -- update ------------------------------------------------------------------------------

    def _sticks(self) -> tuple[float, float, float, float]:
        lx, ly = radial_dead_zone(self._axes["lx"], self._axes["ly"], self.dead_zone)
        rx, ry = radial_dead_zone(self._axes["rx"], self._axes["ry"], self.dead_zone)
        return lx, ly, rx, ry

    def read(self, now_s: float) -> ManualInput:
        """The input at this update (consumes the chords pressed since the last one)."""
        released, self._release_reason = self._release_reason, None
        if self.instance_id is None:
            return ManualInput(released=released)
        if self.device is not None:
            if not self._poll():
                self.lost = True
                self.disconnect("lost")
                released, self._release_reason = "lost", None
                return ManualInput(released=released)
        else:
            if self._event_seen or self._last_input_s is None:
                self._last_input_s = now_s
                self._event_seen = False
            elif any(self._sticks()) and now_s - self._last_input_s > self.stale_timeout_s:
                self._reset_state()
                return ManualInput(released="stale")
        lx, ly, rx, ry = self._sticks()
        command = None
        if lx or ly or rx or ry:
            # SDL: stick up is negative Y, right is positive X; robot: vx forward, vy left, CCW
            command = ManualCommand(vx_mps=-ly * self.limits.vx_mps + 0.0,
                                    vy_mps=-lx * self.limits.vy_mps + 0.0,
                                    vtheta_radps=-rx * self.limits.vtheta_radps + 0.0)
        actions, self._pending = self._pending, []
        return ManualInput(command, "lb" in self._buttons, "rb" in self._buttons, actions, released)

    def update(self, now_s: float, blackboard: MutableMapping[str, object]) -> ManualCommand | None:
        """Read the pad and write the blackboard keys; the manual command or None."""
        command, events = apply_input(self.read(now_s), blackboard, now_s, self.robot)
        self.events.extend(events)
        return command

    def drain_events(self) -> list[PadEvent]:
        out, self.events = self.events, []
        return out
