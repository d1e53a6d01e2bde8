"""Issue 28, item 9: every message a reader uses is checked once, where it is read. A message of
the wrong shape in a log (the header, the index, a tree, a keyframe, an event, the summary, a
step's truth or tick) ends in ``path: what is wrong`` or a partial load that says so, never a
traceback: named examples first, then a property test that mutates each kind of message of a
real small log and runs every reader on it (the text tools, diff, the viewer's scene).
"""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import soccerbt_tests_hostile as H  # noqa: E402 - registered by tests/conftest.py
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from soccerbt.log import proto
from soccerbt.log.format import ReplayError
from soccerbt.log.reader import McapLog
from soccerbt.tools.replay import tree_tools as tt
from soccerbt.tools.replay.log_diff import diff_logs

DEEP = "__deep__"  # a value that becomes 100,000 nested lists in the JSON text
STEP = "/match/step"
_PROTOBUF = (STEP,)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1.5 s of one robot: keyframes after steps 0 and 100, events, a summary, an index."""
    return H.record_small(tmp_path_factory.mktemp("messages"), seconds=1.5)


def _mutated(small: Path, out: Path, topic: str | None, change: Any, *, index: Any = None, which: int = 0) -> Path:
    """The small log with the `which`-th message of `topic` replaced by change(its JSON) (a
    JSON text, or its bytes for a protobuf message: a truth, a tick), and/or the index
    attachment by index(its JSON)."""
    log = H.read_log(small)
    if topic is not None:
        m = log.messages(topic)[which]
        m.data = change(m.data) if topic in _PROTOBUF else _dumps(change(json.loads(m.data)))
    if index is not None:
        log.index = _dumps(index(json.loads(log.index)))
    return log.write(out)


def _dumps(obj: Any) -> bytes:
    text = json.dumps(obj)  # NaN and Infinity as JSON's readers see them in the wild
    return text.replace(json.dumps(DEEP), "[" * 100_000 + "]" * 100_000).encode()


def _replay(*args: str) -> tuple[int, str, str]:
    """``soccerbt replay ARGS`` in this process: (exit code, stdout, stderr)."""
    from soccerbt.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["replay", *args])
    return code, out.getvalue(), err.getvalue()


# --- named examples ---------------------------------------------------------------------------------


def _set(key: str, value: Any):
    def change(obj: dict) -> dict:
        obj[key] = value
        return obj
    return change


def _drop(key: str):
    def change(obj: dict) -> dict:
        obj.pop(key, None)
        return obj
    return change


@pytest.mark.parametrize("change,message", [
    (_set("dt_s", 0), "header: dt_s: 0 is not a step length in seconds (0.0001 to 1)"),
    (_set("dt_s", float("nan")), "header: dt_s: nan is not a step length in seconds (0.0001 to 1)"),
    (_drop("robots"), "header: robots: missing"),
    (_set("robots", ["blue1", "blue1"]), "header: robots: a name is listed twice"),
    (_set("robots", ["../../etc"]), "header: robots[0]: '../../etc' is not a robot name"),
    (_set("field", "Z"), "header: field: 'Z' is no field soccerbt knows"),
    (_set("config", DEEP), "the header is not readable: JSON nested deeper than 64 levels"),
    (_set("trees", {"blue": {"files": [{"path": 3}]}}), "header: trees.blue.files[0].path: not a string"),
])
def test_a_bad_header_is_named(small: Path, tmp_path: Path, change, message: str) -> None:
    path = _mutated(small, tmp_path / "h.mcap", "/soccerbt/header", change)
    code, out, err = _replay(str(path), "--info")
    assert (code, out) == (2, "") and err == f"{path}: {message}\n"


def test_a_bad_index_is_scanned_instead(small: Path, tmp_path: Path) -> None:
    def bad(index: dict) -> dict:
        index["events"][0]["t"] = "soon"
        return index
    path = _mutated(small, tmp_path / "i.mcap", None, None, index=bad)
    code, out, err = _replay(str(path), "--info")
    assert code == 0 and out.startswith(f"{path}: soccerbt ")
    assert (f"warning: {path}: the index attachment is damaged (index: events[0].t: not a number); "
            "scanning instead") in err


@pytest.mark.parametrize("topic,change,args,message", [
    ("/robots/blue1/tree", _set("nodes", []), ["--tree"],
     "the tree of blue1 (load 1) is damaged (tree: nodes: a tree without nodes)"),
    ("/robots/blue1/tree", lambda t: {**t, "nodes": [{**t["nodes"][0], "parent": 7}, *t["nodes"][1:]]}, ["--tree"],
     "the tree of blue1 (load 1) is damaged (tree: nodes[0].parent: not 0 nor an earlier node's uid)"),
    ("/robots/blue1/tree", lambda t: {**t, "nodes": [{**t["nodes"][0], "ports": {f"p{k}": "1" for k in range(300)}},
                                                     *t["nodes"][1:]]}, ["--btlog", "{tmp}/x.btlog"],
     "the tree of blue1 (load 1) is damaged (tree: nodes[0].ports: 300 ports and conditions, more than 256)"),
    ("/robots/blue1/keyframe", _set("statuses", [99] * 6), ["--tree"],
     "no keyframe of blue1 in the 1000 steps before step 50: its state there cannot be rebuilt"),
    ("/robots/blue1/keyframe", _set("blackboard", {"x": DEEP}), ["--tree"],
     "no keyframe of blue1 in the 1000 steps before step 50: its state there cannot be rebuilt"),
])
def test_a_bad_tree_or_keyframe_is_named(small: Path, tmp_path: Path, topic: str, change, args: list[str],
                                         message: str) -> None:
    path = _mutated(small, tmp_path / "t.mcap", topic, change)
    code, out, err = _replay(str(path), "--robot", "blue1", "--at", "0.5",
                             *[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert (code, out) == (2, ""), err
    assert err.splitlines()[-1] == f"{path}: {message}"
    if topic.endswith("keyframe"):
        assert f"warning: {path}: blue1's keyframe at step 1 is damaged (" in err


def _without_robot(data: bytes) -> bytes:
    step = proto.Step.FromString(data)
    del step.truth.robots[:]
    return step.SerializeToString()


def _status_99(data: bytes) -> bytes:
    step = proto.Step.FromString(data)
    assert step.robots[0].transitions
    step.robots[0].transitions[0].previous = 99  # proto3 keeps an enum value it does not know
    return step.SerializeToString()


def _step_7(data: bytes) -> bytes:
    step = proto.Step.FromString(data)
    step.truth.step = 7
    return step.SerializeToString()


def _without_tick(data: bytes) -> bytes:
    step = proto.Step.FromString(data)
    del step.robots[:]
    return step.SerializeToString()


@pytest.mark.parametrize("change,why", [
    (_without_robot, "the truth holds 0 robots, the header names 1"),
    (_status_99, "status code 99 in a transition (0..4)"),
    (lambda d: d[:-3], "step message does not decode (Error parsing message"),
    (_step_7, "its truth says step 7"),
    (_without_tick, "blue1's tick is missing"),
])
def test_a_bad_step_is_a_gap_that_every_command_names(small: Path, tmp_path: Path, change, why: str) -> None:
    path = _mutated(small, tmp_path / "s.mcap", STEP, change)  # step 1
    code, out, err = _replay(str(path), "--robot", "blue1")
    assert code == 0 and out.splitlines()[0].startswith(f"t=0.00-0.01s (step 1) missing: step 1 unreadable ({why}")
    code, out, err = _replay(str(path), "--find", "blue1: marker == 1")
    assert code == 0 and out.splitlines() == ["1.01-1.50s  ticks 101-150"]  # the state comes back at a keyframe
    assert f"warning: {path}: t=0.00-0.01s (step 1) missing: step 1 unreadable ({why}" in err
    code, out, err = _replay("diff", str(small), str(path))
    assert code == 1 and f"{path}: t=0.00-0.01s (step 1) missing: step 1 unreadable ({why}" in out


# --- the property: any change to any message's JSON, only clean errors -----------------------------

_SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2 ** 70), max_value=2 ** 70)
            | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12)
            | st.sampled_from([0, -1, 5, 99, 2 ** 63, 1e308, "nan", "", "blue1", "IDLE", DEEP]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)
_KINDS = ["/soccerbt/header", "index", "/robots/blue1/tree", "/robots/blue1/keyframe", "/events",
          "/soccerbt/summary"]


def _edit(obj: Any, steps: list[int], op: int, value: Any) -> Any:
    """Walk `steps` into the JSON (a key or an element by index, modulo), then replace (0), delete
    (1) or add beside (2) what is there; the whole message when the walk ends at the top."""
    if not steps or not isinstance(obj, (dict, list)) or not obj:
        return value
    keys = list(obj) if isinstance(obj, dict) else list(range(len(obj)))
    key = keys[steps[0] % len(keys)]
    if len(steps) == 1 or not isinstance(obj[key], (dict, list)) or not obj[key]:
        if op == 1:
            del obj[key]
        elif op == 2 and isinstance(obj, dict):
            obj[f"{key}_"] = value
        elif op == 2:
            obj.insert(key, value)
        else:
            obj[key] = value
        return obj
    obj[key] = _edit(obj[key], steps[1:], op, value)
    return obj


def _run_everything(small: Path, path: Path, tmp: Path) -> None:
    """Every reader on the log: only ReplayError may come out of the library, exit 0, 1 or 2
    without a traceback out of the command line."""
    from soccerbt.tools.replay.mcap_view import McapReplaySource

    try:
        log = McapLog.open(path, budget_ratio=128)
    except ReplayError:
        event("refused at open")
        return
    calls = [
        lambda: log.robot_state("blue1", log.last_step),
        lambda: log.robot_state("blue1", 57),
        lambda: list(log.steps()),
        lambda: log.summary_result(),
        lambda: log.key_changes("blue1", "marker", 1, log.last_step),
        lambda: tt.tree_lines(log.robot_state("blue1", 30), 0.3),
        lambda: tt.tree_json(log.robot_state("blue1", 30), 0.3),
        lambda: tt.find_ranges(log, "blue1: marker == 1 && wait == RUNNING"),
        lambda: list(tt.transition_lines(log, "blue1", "wait")),
        lambda: tt.export_btlog(log, "blue1", tmp / "p.btlog"),
        lambda: tt.step_of_tick(log, "blue1", 40),
        lambda: diff_logs(McapLog.open(small), log),
        lambda: diff_logs(log, McapLog.open(small)),
        lambda: McapReplaySource(log).scene("blue1"),
    ]
    refused = 0
    for call in calls:
        try:
            call()
        except ReplayError:
            refused += 1
    event(f"{refused} of {len(calls)} readers refused")
    for args in (["--info"], ["--robot", "blue1", "--tick", "3", "--tree", "--json"]):
        code, _out, err = _replay(str(path), *args)
        assert code in (0, 1, 2) and "Traceback" not in err


@settings(
    max_examples=int(__import__("os").environ.get("HOSTILE_EXAMPLES", 60)),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(kind=st.sampled_from(_KINDS), which=st.integers(0, 3), steps=st.lists(st.integers(0, 1000), max_size=5),
       op=st.integers(0, 2), value=_VALUES)
def test_any_change_to_a_json_message_gives_only_clean_errors(small: Path, tmp_path: Path, kind: str, which: int,
                                                               steps: list[int], op: int, value: Any) -> None:
    def change(obj: Any) -> Any:
        return _edit(obj, steps, op, value)

    count = len(H.read_log(small).messages(kind)) if kind != "index" else 1
    path = tmp_path / "p.mcap"
    if kind == "index":
        _mutated(small, path, None, None, index=change)
    else:
        _mutated(small, path, kind, change, which=which % count)
    _run_everything(small, path, tmp_path)


@settings(
    max_examples=int(__import__("os").environ.get("HOSTILE_EXAMPLES", 30)) // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(topic=st.sampled_from(_PROTOBUF), which=st.integers(0, 149),
       edits=st.lists(st.tuples(st.integers(0, 4000), st.integers(0, 255)), max_size=6), cut=st.integers(0, 4000))
def test_any_change_to_a_step_gives_only_clean_errors(small: Path, tmp_path: Path, topic: str, which: int,
                                                      edits: list[tuple[int, int]], cut: int) -> None:
    def change(data: bytes) -> bytes:
        raw = bytearray(data)
        for at, byte in edits:
            if raw:
                raw[at % len(raw)] = byte
        return bytes(raw[:len(raw) - cut % 8])

    path = _mutated(small, tmp_path / "s.mcap", topic, change, which=which)
    _run_everything(small, path, tmp_path)
