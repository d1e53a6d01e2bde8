"""Keyboard fallback for the gamepad, fed pygame KEYDOWN/KEYUP events by the viewer.

``KeyboardPad`` drives one robot like a pad does (same blackboard keys, same ``ManualInput``):

- arrows move (up forward, down back, left/right sideways), Q / E rotate counter-clockwise /
  clockwise, at ``speed_fraction`` of the robot's limits (full limits while SHIFT is held);
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

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from soccerbt.drivers.gamepad import (ChordAction, EmergencyStop, ManualCommand, ManualInput, PadEvent,
                                      VelocityLimits, apply_input)

__all__ = ["KeyBindings", "KeyboardPad"]


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

    def resolve(self) -> dict[int, str]:
        """pygame key code -> action name; ValueError naming an unknown key constant."""
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

    def _keymap(self) -> dict[int, str]:
        if self._keys is None:
            self._keys = self.bindings.resolve()
        return self._keys

    def handle_event(self, event: Any) -> bool:
        """Consume a KEYDOWN/KEYUP of a bound key (focus loss releases all keys); True if used."""
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
        return True

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
        if forward or left or ccw:
            command = ManualCommand(vx_mps=forward * fraction * self.limits.vx_mps + 0.0,
                                    vy_mps=left * fraction * self.limits.vy_mps + 0.0,
                                    vtheta_radps=ccw * fraction * self.limits.vtheta_radps + 0.0)
        actions, self._pending = self._pending, []
        return ManualInput(command, "chase" in down, "kick" in down, actions)

    def update(self, now_s: float, blackboard: MutableMapping[str, object]) -> ManualCommand | None:
        """Read the keys and write the blackboard keys; the manual command or None."""
        command, events = apply_input(self.read(now_s), blackboard, now_s, self.robot)
        self.events.extend(events)
        return command

    def drain_events(self) -> list[PadEvent]:
        out, self.events = self.events, []
        return out
