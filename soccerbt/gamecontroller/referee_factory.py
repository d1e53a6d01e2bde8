"""Which referee plays a match: the HL ``Referee`` (v12), the ``HslReferee`` (v19/v20), or the
``KnockoutReferee`` (HSL, extra time and a penalty shoot-out when level).

The choice sits above the three referee modules, so that none of them imports another back
(``hsl_knockout`` builds on ``hsl_referee``, which builds on ``hl_referee``; all three on
``referee_common``).
"""
from __future__ import annotations

from soccerbt.gamecontroller.hl_referee import Referee
from soccerbt.gamecontroller.hsl_knockout import KnockoutReferee
from soccerbt.gamecontroller.hsl_protocol import HSL_V19, HSL_V20
from soccerbt.gamecontroller.hsl_referee import HslReferee, HslRefereeConfig
from soccerbt.gamecontroller.protocol import HL_VERSION
from soccerbt.gamecontroller.referee_common import RefereeConfig, RefereeWorld

__all__ = ["GC_VERSIONS", "make_referee"]

GC_VERSIONS = (HL_VERSION, HSL_V19, HSL_V20)


def make_referee(world: RefereeWorld, config: RefereeConfig, gc_version: int = HL_VERSION,
                 knockout: bool = False) -> Referee:
    """The referee of a GameController version: 12 the HL ``Referee``, 19 or 20 ``HslReferee``;
    ``knockout`` (or ``HslRefereeConfig.knockout``) the ``KnockoutReferee`` (extra time and a
    penalty shoot-out when level), HSL only."""
    if gc_version == HL_VERSION:
        if knockout or getattr(config, "knockout", False):
            raise ValueError("extra time and the penalty shoot-out need the HSL referee (gc_version 19 or 20)")
        return Referee(world, config)
    if gc_version not in (HSL_V19, HSL_V20):
        raise ValueError(f"GameController version {gc_version!r}: expected one of {GC_VERSIONS}")
    hsl_config = HslRefereeConfig.from_config(config, gc_version)
    if knockout:
        hsl_config.knockout = True
    if hsl_config.knockout:
        return KnockoutReferee(world, hsl_config)
    return HslReferee(world, hsl_config)
