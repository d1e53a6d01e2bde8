"""Value types of command-line options (argparse ``type=``): each parses one option's text or
says, in one line, what it expected."""
from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["positive_float", "int_in", "port_number", "field_name", "team_size_value", "seed_value"]


def positive_float(text: str) -> float:
    """A positive finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0.0):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def int_in(low: int, high: int, what: str) -> Callable[[str], int]:
    """An argparse type: an integer within ``low..high``, else "a WHAT is an integer LOW..HIGH"."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"a {what} is an integer {low}..{high}, got {text!r}")
        return value

    return parse


port_number = int_in(1, 65535, "port")


def field_name(text: str) -> str:
    """``--field``: case-insensitive (``L``, ``l``, ``Kid``); the choices check the name."""
    return text.strip().lower()


def team_size_value(text: str) -> int:
    """A team size, 1..11 robots."""
    value = int(text)
    if not 1 <= value <= 11:
        raise argparse.ArgumentTypeError(f"team size must be 1..11, got {text!r}")
    return value


def seed_value(text: str) -> int:
    """A seed: an integer of 0 or more (numpy's generators take no negative seed)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is 0 or more, got {value}")
    return value
