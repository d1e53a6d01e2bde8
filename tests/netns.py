"""Running DDS code in a network namespace of its own, for every test folder that opens DDS.

DDS discovers peers by multicast on every interface. The pytest process never opens DDS: each
scenario is a Python program run by ``run_in_netns`` inside ``unshare -n`` (as root; ``unshare
-rn`` otherwise) with only the loopback interface up, and with a private ``/dev/shm`` (a tmpfs of
its own, so FastDDS's ``fast_datasharing_*`` files vanish with the namespace). Processes a
scenario starts share its namespace. A scenario prints one JSON object as its last line of
output; the test asserts on it (``last_json``).

The tests are no package: a folder's ``conftest.py`` loads this file by its path, once, as the
module ``soccerbt_tests_netns`` (the conftests of several folders share it), and makes its
``scenario`` fixture with ``scenario_runner(folder / "scenarios")``.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]

_INNER = ("ip link set lo up || exit 97; "
          "if [ -n \"$NETNS_PRIVATE_SHM\" ]; then mount -t tmpfs -o size=256m tmpfs /dev/shm || exit 98; fi; "
          "exec \"$@\"")


@functools.lru_cache(maxsize=1)
def netns_prefix() -> tuple[list[str] | None, str]:
    """The command prefix that enters a new network (and mount) namespace, or None and why not."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return None, "unshare or ip (util-linux, iproute2) is not installed"
    candidates = [["unshare", "-n", "-m"], ["unshare", "-n"]] if os.geteuid() == 0 else \
        [["unshare", "-r", "-n", "-m"], ["unshare", "-r", "-n"]]
    reasons = []
    for prefix in candidates:
        probe = subprocess.run(prefix + ["sh", "-c", "ip link set lo up"], capture_output=True, text=True, timeout=20)
        if probe.returncode == 0:
            return prefix, ""
        reasons.append(f"{' '.join(prefix)}: {probe.stderr.strip() or probe.returncode}")
    return None, "cannot create a network namespace (" + "; ".join(reasons) + ")"


def run_in_netns(program: str | Path, timeout_s: float = 60.0, *, args: Sequence[str] = (), python: str | None = None,
                 stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``program`` (Python source text, or a path to a script) with ``python`` (this
    interpreter by default) in a fresh network namespace where only loopback is up. Children it
    starts share the namespace. ``timeout_s`` only guards against hangs."""
    prefix, reason = netns_prefix()
    if prefix is None:
        pytest.skip(f"DDS tests need a private network namespace: {reason}")
    python = python or sys.executable
    argv = [python, str(program)] if isinstance(program, Path) else [python, "-c", program]
    full_env = dict(os.environ if env is None else env)
    full_env.setdefault("PYTHONPATH", str(PROJECT_ROOT))
    full_env.pop("CYCLONEDDS_URI", None)
    if "-m" in prefix:
        full_env["NETNS_PRIVATE_SHM"] = "1"
    before = _shm_files()
    try:
        return subprocess.run(prefix + ["sh", "-c", _INNER, "sh", *argv, *args], capture_output=True, text=True,
                              timeout=timeout_s, input=stdin, env=full_env, cwd=str(PROJECT_ROOT))
    finally:
        for leftover in _shm_files() - before:  # only when /dev/shm was not private
            try:
                os.unlink(leftover)
            except OSError:
                pass


def _shm_files() -> set[str]:
    try:
        return {str(p) for p in Path("/dev/shm").glob("fast_datasharing_*")}
    except OSError:
        return set()


def last_json(result: subprocess.CompletedProcess[str]) -> Any:
    """The JSON object a scenario printed last; a clear failure with its output otherwise."""
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        raise AssertionError(f"scenario failed (exit {result.returncode})\n--- stdout\n{result.stdout[-4000:]}\n"
                             f"--- stderr\n{result.stderr[-4000:]}")
    return json.loads(lines[-1])


def scenario_runner(scenarios: Path) -> Callable[..., Any]:
    """``run(name, *args, timeout_s=60, stdin=None, env=None)``: ``scenarios/<name>.py`` in a
    fresh network namespace; the JSON it printed last."""

    def run(name: str, *args: str, timeout_s: float = 60.0, stdin: str | None = None,
            env: dict[str, str] | None = None) -> Any:
        return last_json(run_in_netns(scenarios / f"{name}.py", timeout_s, args=args, stdin=stdin, env=env))

    return run


def needs_module(module: str, hint: str) -> None:
    """Skip unless ``module`` is importable by this interpreter (found, not imported)."""
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed ({hint})")
