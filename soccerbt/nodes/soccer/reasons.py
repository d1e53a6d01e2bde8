"""How a decision node's reason reads: the rules it evaluated, in order, each with the values it
compared and its verdict, down to the one that fired.

    shot -> save: vx -0.60 > -save_speed -1.00: no; in the area and near -> clear: ball (-5.98,
    -2.43) in the area + 0.3 m (x < -4.70, |y| < 3.30), ball_range 1.20 < clear_distance 2.50: yes

A reader learns why the higher rules did not hold as well as why the one that fired did.
``Rules`` is built only while someone records reasons (``TreeNode.explaining``).
"""
from __future__ import annotations

__all__ = ["Rules"]


class Rules:
    """The rules of one decision, in the order the node evaluated them."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[str] = []

    def ruled_out(self, rule: str, values: str = "") -> Rules:
        """A rule that did not hold (``rule`` names it and its outcome: "shot -> save")."""
        self._parts.append(f"{rule}: {values}: no" if values else f"{rule}: no")
        return self

    def fired(self, rule: str, values: str) -> str:
        """The rule that held; the whole reason."""
        self._parts.append(f"{rule}: {values}: yes")
        return "; ".join(self._parts)

    def otherwise(self, outcome: str) -> str:
        """No rule held: the default outcome; the whole reason."""
        self._parts.append(f"otherwise -> {outcome}")
        return "; ".join(self._parts)
