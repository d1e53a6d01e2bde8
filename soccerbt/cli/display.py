"""Whether a window can open, and pygame's error class without importing pygame."""
from __future__ import annotations

import os
import sys

__all__ = ["display_available", "pygame_error"]


def display_available(env: dict[str, str] | None = None) -> bool:
    """A window can open: an X or Wayland display, or an SDL video driver chosen explicitly."""
    env = os.environ if env is None else env
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("SDL_VIDEODRIVER"))


def pygame_error() -> type[BaseException]:
    """pygame's error class, or a class nothing raises when pygame is not imported yet."""
    module = sys.modules.get("pygame")
    return getattr(module, "error", OSError) if module is not None else OSError
