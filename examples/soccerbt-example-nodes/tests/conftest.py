"""Run from a checkout without installing the package: its folder goes on sys.path (installed,
``pip install -e .``, this does nothing new)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
