"""Keyboard fallback for the gamepad, fed pygame KEYDOWN/KEYUP events by the viewer.

``KeyboardPad`` drives one robot like a pad does (same blackboard keys, same ``ManualInput``):

- arrows move, robot-relative by default (up forward, down back, left/right sideways, as the
  robot faces), Q / E rotate counter-clockwise / clockwise, at ``speed_fraction`` of the
  robot's limits (full limits while SHIFT is held);
- F toggles field-relative driving: the arrows then move the robot in the directions seen on
  screen (up is up on the screen, whichever way the robot faces; the view's mirror, V, is
  respected), turned into the robot frame with ``heading_rad()`` (the robot's heading in the
  world frame, as drawn) and ``view_mirrored()``. Without a heading (None, or no
  ``heading_rad`` set) the arrows stay robot-relative;
- C held -> ``assist_chase`` (the pad's LB), K held -> ``assist_kick`` (RB);
- 1 / 2 / 3 -> ``control_state`` 1 / 2 (and ``odom_calibrated`` false) / 3, S swaps striker and
  goalkeeper: these act once, on the key press (the pad's LT chords);
- SPACE engages the ``EmergencyStop`` for all robots, RETURN releases it (a latch: pressing
  SPACE again keeps it engaged).

Keys are named by their pygame constant names in ``KeyBindings`` and looked up lazily, so
importing this module does not import pygame. Key repeat (``pygame.key.set_repeat``) is
harmless: a key already down does not act again. Losing the window focus releases every key
(SDL may not send the KEYUPs), so a key cannot stay stuck down. May import soccerbt.world.
"""
from __future__ import annotations

import logging
import math
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from soccerbt.drivers.gamepad import (
    ChordAction,
    EmergencyStop,
    ManualCommand,
    ManualInput,
    PadEvent,
    VelocityLimits,
    apply_input,
)

__all__ = ["KeyBindings", "KeyboardPad", "field_to_robot_velocity"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class KeyBindings:
    """Which keys do what: tuples of pygame key constant names (``"K_UP"``)."""

    forward: tuple[str, ...] = ("K_UP",)
    backward: tuple[str, ...] = ("K_DOWN",)
    left: tuple[str, ...] = ("K_LEFT",)
    right: tuple[str, ...] = ("K_RIGHT",)
    rotate_left: tuple[str, ...] = ("K_q",)
    rotate_right: tuple[str, ...] = ("K_e",)
    fast: tuple[str, ...] = ("K_LSHIFT", "K_RSHIFT")
    chase: tuple[str, ...] = ("K_c",)
    kick: tuple[str, ...] = ("K_k",)
    manual: tuple[str, ...] = ("K_1",)
    recalibrate: tuple[str, ...] = ("K_2",)
    auto: tuple[str, ...] = ("K_3",)
    swap_roles: tuple[str, ...] = ("K_s",)
    estop: tuple[str, ...] = ("K_SPACE",)
    estop_release: tuple[str, ...] = ("K_RETURN",)
    field_relative: tuple[str, ...] = ("K_f",)

    def resolve(self) -> dict[int, str]:
        """pygame key code -> action name; ValueError naming an unknown key constant."""
        # deferred: start-up: pygame only where a window takes the keys
        import pygame

        out: dict[int, str] = {}
        for action in self.__dataclass_fields__:
            for name in getattr(self, action):
                code = getattr(pygame, name, None)
                if not isinstance(code, int) or not name.startswith("K_"):
                    raise ValueError(f"KeyBindings.{action}: {name!r} is not a pygame key constant (e.g. 'K_UP')")
                if code in out and out[code] != action:
                    raise ValueError(f"KeyBindings: {name} is bound to both {out[code]} and {action}")
                out[code] = action
        return out


_CHORDS = {"manual": ChordAction.MANUAL, "recalibrate": ChordAction.RECALIBRATE,
           "auto": ChordAction.AUTO, "swap_roles": ChordAction.SWAP_ROLES}


class KeyboardPad:
    """One robot driven from the keyboard; ``handle_event`` then ``update(now_s, bb)`` each tick."""

    def __init__(self, max_vx_mps: float = 1.2, max_vy_mps: float = 0.4, max_vtheta_radps: float = 1.5,
                 *, speed_fraction: float = 0.5, estop: EmergencyStop | None = None,
                 bindings: KeyBindings | None = None, robot: str | None = None) -> None:
        if not 0.0 < speed_fraction <= 1.0:
            raise ValueError(f"speed_fraction must be in (0, 1], got {speed_fraction!r}")
        self.limits = VelocityLimits(max_vx_mps, max_vy_mps, max_vtheta_radps)
        self.speed_fraction = speed_fraction
        self.estop = estop
        self.bindings = bindings or KeyBindings()
        self.robot = robot
        self.events: list[PadEvent] = []
        self._keys: dict[int, str] | None = None  # resolved lazily (needs pygame)
        self._down: set[str] = set()
        self._down_codes: set[int] = set()
        self._pending: list[ChordAction] = []
        self.field_relative = False  # F toggles: arrows in screen directions instead of the robot's
        # the driven robot's heading in the world frame (radians, as the viewer draws it), or None
        self.heading_rad: Callable[[], float | None] | None = None
        # whether the view is mirrored (the viewer's V): screen up is then the world's -y
        self.view_mirrored: Callable[[], bool] | None = None

    def _keymap(self) -> dict[int, str]:
        if self._keys is None:
            self._keys = self.bindings.resolve()
        return self._keys

    def handle_event(self, event: Any) -> bool:
        """Consume a KEYDOWN/KEYUP of a bound key (focus loss releases all keys); True if used."""
        # deferred: start-up: pygame only where a window takes the keys
        import pygame

        etype = getattr(event, "type", None)
        if etype == pygame.WINDOWFOCUSLOST or (etype == pygame.ACTIVEEVENT and not getattr(event, "gain", 1)):
            self.release_all()
            return False  # others may want to know about focus too
        if etype not in (pygame.KEYDOWN, pygame.KEYUP):
            return False
        code = getattr(event, "key", None)
        action = self._keymap().get(code)
        if action is None:
            return False
        if etype == pygame.KEYUP:
            self._down_codes.discard(code)
            if not any(self._keymap().get(c) == action for c in self._down_codes):
                self._down.discard(action)  # another key bound to the same action may still be down
            return True
        if code in self._down_codes:
            return True  # key repeat: not a press
        self._down_codes.add(code)
        self._down.add(action)
        if action in _CHORDS:
            self._pending.append(_CHORDS[action])
        elif action == "estop" and self.estop is not None:
            if self.estop.engage("keyboard SPACE"):
                self.events.append(PadEvent("estop_engaged", self.robot, "keyboard"))
        elif action == "estop_release" and self.estop is not None:
            if self.estop.release():
                self.events.append(PadEvent("estop_released", self.robot, "keyboard"))
        elif action == "field_relative":
            self.toggle_field_relative()
        return True

    def toggle_field_relative(self) -> bool:
        """Switch the arrows between robot-relative and field-relative; the new setting."""
        self.field_relative = not self.field_relative
        detail = "on" if self.field_relative else "off"
        self.events.append(PadEvent("field_relative", self.robot, detail))
        _log.warning("keyboard: field-relative arrows %s", detail)
        return self.field_relative

    def release_all(self) -> None:
        """Every key up, pending chords dropped (focus lost, or the keyboard changes robot)."""
        self._down.clear()
        self._down_codes.clear()
        self._pending.clear()

    def read(self, now_s: float) -> ManualInput:
        """The input at this update (consumes the chords pressed since the last one)."""
        down = self._down
        fraction = 1.0 if "fast" in down else self.speed_fraction
        forward = ("forward" in down) - ("backward" in down)
        left = ("left" in down) - ("right" in down)
        ccw = ("rotate_left" in down) - ("rotate_right" in down)
        command = None
        heading = self._heading() if self.field_relative and (forward or left) else None
        if heading is not None:
            # up/down/left/right are the screen's: world +y/-y/-x/+x (mirrored: the opposite)
            sign = -1.0 if self._mirrored() else 1.0
            vx, vy = field_to_robot_velocity(sign * -left, sign * forward, heading, self.limits)
            command = ManualCommand(vx_mps=vx * fraction + 0.0, vy_mps=vy * fraction + 0.0,
                                    vtheta_radps=ccw * fraction * self.limits.vtheta_radps + 0.0)
        elif forward or left or ccw:
            command = ManualCommand(vx_mps=forward * fraction * self.limits.vx_mps + 0.0,
                                    vy_mps=left * fraction * self.limits.vy_mps + 0.0,
                                    vtheta_radps=ccw * fraction * self.limits.vtheta_radps + 0.0)
        actions, self._pending = self._pending, []
        return ManualInput(command, "chase" in down, "kick" in down, actions)

    def _heading(self) -> float | None:
        if self.heading_rad is None:
            return None
        try:
            h = self.heading_rad()
        except Exception:  # the robot went away: drive robot-relative rather than fail
            return None
        return float(h) if h is not None and math.isfinite(h) else None

    def _mirrored(self) -> bool:
        return bool(self.view_mirrored()) if self.view_mirrored is not None else False

    def update(self, now_s: float, blackboard: MutableMapping[str, object]) -> ManualCommand | None:
        """Read the keys and write the blackboard keys; the manual command or None."""
        command, events = apply_input(self.read(now_s), blackboard, now_s, self.robot)
        self.events.extend(events)
        return command

    def drain_events(self) -> list[PadEvent]:
        out, self.events = self.events, []
        return out


def field_to_robot_velocity(wx: float, wy: float, heading_rad: float,
                            limits: VelocityLimits) -> tuple[float, float]:
    """A walking direction in the world frame (``wx``, ``wy``; only the direction counts) as a
    robot-frame velocity (vx, vy) for a robot heading ``heading_rad``: the fastest velocity in
    that direction within the ellipse of ``limits`` (vx_mps forward, vy_mps sideways)."""
    norm = math.hypot(wx, wy)
    if norm == 0.0:
        return 0.0, 0.0
    c, s = math.cos(heading_rad), math.sin(heading_rad)
    dx, dy = (c * wx + s * wy) / norm, (-s * wx + c * wy) / norm
    denom = math.hypot(dx / limits.vx_mps if limits.vx_mps > 0 else (math.inf if dx else 0.0),
                       dy / limits.vy_mps if limits.vy_mps > 0 else (math.inf if dy else 0.0))
    if not math.isfinite(denom) or denom == 0.0:
        return 0.0, 0.0
    return dx / denom, dy / denom
