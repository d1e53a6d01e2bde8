"""soccerbt.native: the compiled hot paths and their pure-Python twins give the same results.

- The C module is built wherever a C compiler is (``.ci/run`` installs on such a machine), and a
  stale build (another API_VERSION) or SOCCERBT_NATIVE=0 leaves it out.
- The blackboard diff, a tick, a step's truth, a brain's inputs and a repeated field joined: C
  and Python (protobuf's own serializer) on the same inputs give the same bytes, the same lists
  left behind and errors alike, and the bytes are protobuf's canonical form of the message.
- Watching through the status slot: it serves while any tree is watched and the member comes
  back with the last watcher; a tree nobody watches reports nothing; a node class with a
  __setattr__ of its own keeps it, either way.
- A match recorded with the compiled paths and one recorded with SOCCERBT_NATIVE=0 (another
  process) are the same bytes.
"""
from __future__ import annotations

import hashlib
import math
import os
import random
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from soccerbt import native
from soccerbt.blackboard.core import Entry
from soccerbt.log import format as lf
from soccerbt.log import inputs as inputs_module
from soccerbt.log import proto
from soccerbt.log import tick_encode as mr
from soccerbt.nodes import ActionNode, observe
from soccerbt.nodes.status import NodeStatus
from soccerbt.nodes.tree_node import TreeNode
from soccerbt.trees import TreeFactory
from soccerbt.world.types import Detection, Observations, Pose2D, Team

ROOT = Path(__file__).resolve().parents[2]
compiled = native.recording
needs_compiled = pytest.mark.skipif(
    compiled is None, reason="soccerbt.native not built (see test_built_where_a_compiler_is)"
)


def _compiler() -> str | None:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc)


def test_built_where_a_compiler_is() -> None:
    if os.environ.get("SOCCERBT_NATIVE", "1").strip() == "0":
        assert compiled is None
        return
    if _compiler() is None:
        pytest.skip("no C compiler on this machine: the pure-Python twins run (and are tested here)")
    assert compiled is not None, "a C compiler is here but soccerbt.native._recording was not built: reinstall"
    assert compiled.API_VERSION == native.API_VERSION


def test_an_install_without_a_compiler_runs_the_twins(tmp_path: Path) -> None:
    """The wheel built where no C compiler works (CC=false) has no extension and still records."""
    try:
        import setuptools
    except ImportError:
        pytest.skip("setuptools not installed (the dev extra has it)")
    if tuple(int(p) for p in setuptools.__version__.split(".")[:2]) < (77, 0):
        pytest.skip(f"setuptools {setuptools.__version__} is older than the build's (77)")
    env = dict(os.environ, CC="false", PIP_NO_INDEX="1")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                            "-w", str(tmp_path / "wheel"), str(ROOT)], env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = (tmp_path / "wheel").glob("soccerbt-*.whl")
    install = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target",
                              str(tmp_path / "site"), str(wheel)], capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-2000:]
    assert not list((tmp_path / "site" / "soccerbt" / "native").glob("*.so"))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import soccerbt.native as n; "
            "assert n.__file__.startswith(sys.argv[1]), n.__file__; print(n.recording)")
    env = dict(os.environ, SOCCERBT_NATIVE="1")
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "site")], env=env, capture_output=True, text=True)
    assert (run.returncode, run.stdout.strip()) == (0, "None"), run.stderr[-2000:]
    out = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[2]); exec(sys.argv[3])",
                          str(tmp_path / "twins.mcap"), str(tmp_path / "site"), _RECORD],
                         env=env, capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.split()[0] == "python", out.stderr[-2000:]
    assert (tmp_path / "twins.mcap").stat().st_size > 0


def test_a_stale_build_and_the_switch_leave_it_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOCCERBT_NATIVE", "0")
    assert native.load_recording() is None
    monkeypatch.setenv("SOCCERBT_NATIVE", "1")
    if compiled is not None:
        monkeypatch.setattr(compiled, "API_VERSION", native.API_VERSION + 1)
        assert native.load_recording() is None


# --- the blackboard diff ----------------------------------------------------------------------

def _random_value(rng: random.Random) -> object:
    kind = rng.randrange(14)
    if kind == 0:
        return rng.uniform(-10, 10)
    if kind == 1:
        return Pose2D(rng.uniform(-5, 5), rng.uniform(-3, 3), rng.uniform(-3.2, 3.2))
    if kind == 2:
        return rng.random() < 0.5
    if kind == 3:
        return tuple(rng.uniform(-1, 1) for _ in range(rng.randrange(1, 5)))
    if kind == 4:
        return tuple((rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(rng.randrange(1, 4)))
    if kind == 5:
        return rng.choice(["striker", "goal keeper", "é ü", "line\nbreak", ""])
    if kind == 6:
        return rng.randrange(-5, 1000)
    if kind == 7:
        return None
    if kind == 8:
        return float("nan")
    if kind == 9:
        return rng.choice([math.inf, -math.inf, 1e30, -0.0])
    if kind == 10:
        return (1.0, "a", 2)  # a tuple of mixed items: JSON
    if kind == 11:
        return ()
    if kind == 12:
        return {"x": rng.random(), "n": [1, 2]}
    return tuple(float(i) for i in range(300))  # a long tuple of floats


def _table(rng: random.Random, size: int) -> tuple[list[Entry], list[int], list[object], list[int], list[str]]:
    entries = []
    for _ in range(size):
        e = Entry()
        e.value = _random_value(rng)
        e.sequence_id = rng.randrange(3)
        entries.append(e)
    keys = [rng.choice(["ball_x_m", "decision", "é_key", ""]) + str(k) for k in range(size)]
    return entries, [-1] * size, [mr.UNSET] * size, [-1 - rng.randrange(10) for _ in range(size)], keys


def _canonical(message: type, data: bytes) -> bool:
    """Whether `data` is protobuf's own serialization of the message it decodes to."""
    return message.FromString(data).SerializeToString() == data


@needs_compiled
@pytest.mark.parametrize("seed", range(12))
def test_bb_changes_c_and_python_agree_tick_after_tick(seed: int) -> None:
    compiled.setup(mr._POSE, mr._json_text)
    rng = random.Random(seed)
    entries, seqs, raws, adapter, keys = _table(rng, rng.randrange(1, 40))
    c_state = (list(seqs), list(raws))
    py_state = (list(seqs), list(raws))
    role = rng.randrange(len(entries))
    for tick in range(40):
        for e in entries:  # some entries written, some with the same value again, some stamped
            if rng.random() < 0.3:
                e.sequence_id += 1
                if rng.random() < 0.7:
                    e.value = _random_value(rng)
                if rng.random() < 0.4:
                    e.writer, e.writer_seq = rng.randrange(1, 3000), e.sequence_id
        got_c = compiled.bb_changes(entries, c_state[0], c_state[1], adapter, role, keys)
        got_py = mr.py_bb_changes(entries, py_state[0], py_state[1], adapter, role, keys)
        assert got_c == got_py, f"tick {tick}"
        assert _canonical(proto.Tick, got_c[0])
        assert c_state[0] == py_state[0]
        assert [id(v) for v in c_state[1]] == [id(v) for v in py_state[1]]


@needs_compiled
def test_bb_changes_errors_are_the_twins() -> None:
    compiled.setup(mr._POSE, mr._json_text)
    e = Entry()
    e.value, e.sequence_id, e.writer, e.writer_seq = 1.0, 1, 1 << 33, 1  # a writer past uint32
    for fn in (compiled.bb_changes, mr.py_bb_changes):
        with pytest.raises(ValueError, match="out of"):
            fn([e], [-1], [mr.UNSET], [-1], -1, ["k"])
    with pytest.raises(ValueError, match="differ in length"):
        compiled.bb_changes([e], [], [], [], -1, [])


def test_a_change_decodes_to_the_value_and_writer_recorded() -> None:
    """Each kind of value as a change reads back: floats at f32 precision, poses and tuples as
    lists, other values as their JSON, and the writer a node uid or the adapter's name."""
    values = [(0.1, 0.1), (-0.0, -0.0), (True, True), (False, False), (Pose2D(1.5, -0.0, 3.0), [1.5, -0.0, 3.0]),
              ((1.25, 2.5), [1.25, 2.5]), (((1.0, 2.0), (3.0, 4.5)), [[1.0, 2.0], [3.0, 4.5]]), ("kick", "kick"),
              (None, None), (3, 3), ((), []), ({"x": 1}, {"x": 1}), (float("nan"), "nan")]
    entries = []
    for k, (value, _expected) in enumerate(values):
        e = Entry()
        e.value, e.sequence_id = value, 1
        e.writer, e.writer_seq = (k + 1, 1) if k % 2 else (0, 0)
        entries.append(e)
    data, _role = mr.bb_changes(
        entries,
        [-1] * len(values),
        [mr.UNSET] * len(values),
        [-1 - lf.WRITERS.index("world_model")] * len(values),
        -1,
        [f"k{k}" for k in range(len(values))],
    )
    record = lf.decode_tick(data)
    for k, (_value, expected) in enumerate(values):
        assert record.blackboard[f"k{k}"] == [expected, k + 1 if k % 2 else "world_model"], k


class _Node:
    def __init__(self, uid: int) -> None:
        self.uid = uid


class _Kick:
    def __init__(self, direction_rad: float, strength: float) -> None:
        self.direction_rad, self.strength = direction_rad, strength


class _Command:
    def __init__(self, rng: random.Random) -> None:
        self.vx_mps, self.vy_mps, self.vtheta_radps = rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-2, 2)
        self.head_pan_rad, self.head_tilt_rad = rng.uniform(-1, 1), rng.uniform(0, 1)
        self.kick = _Kick(rng.uniform(-3, 3), rng.random()) if rng.random() < 0.3 else None


@needs_compiled
def test_ticks_agree() -> None:
    rng = random.Random(5)
    for _ in range(300):
        n = rng.randrange(20)
        reasons = {rng.randrange(1, 400): rng.choice(["ball far -> approach", "é 0.52 outside reach", ""])
                   for _ in range(rng.randrange(4))} or None
        transitions = [v for _ in range(n) for v in (rng.randrange(70000), rng.randrange(5), rng.randrange(5))]
        changes = rng.choice([b"", proto.Tick(changes=[proto.Change(key="k", flag=True)]).SerializeToString()])
        args = (
            rng.choice(["blue1", "", "é"]),
            rng.randrange(1 << 40),
            rng.randrange(1 << 32),
            rng.randrange(6),
            _Command(rng),
            transitions,
            [rng.randrange(400) for _ in range(rng.randrange(3))],
            rng.choice([None, [_Node(rng.randrange(70000)) for _ in range(rng.randrange(30))]]),
            reasons,
            changes,
        )
        data = compiled.encode_tick(*args)
        assert data == mr.py_encode_tick(*args)
        assert _canonical(proto.Tick, data)
        record = lf.decode_tick(data)
        assert (record.tick, record.root, record.reasons) == (args[2], args[3], reasons or {})
        assert proto.Tick.FromString(data).robot == args[0]
        assert record.transitions == [tuple(transitions[i:i + 3]) for i in range(0, len(transitions), 3)]
        assert record.skipped == args[6] and record.ticked == [node.uid for node in args[7] or []]
    fast = _Command(rng)
    fast.vx_mps = 1e39  # past f32: infinity, as protobuf's own float field makes it
    args = ("blue1", 1, 1, 0, fast, [], [], None, None, b"")
    assert compiled.encode_tick(*args) == mr.py_encode_tick(*args)
    assert lf.decode_tick(compiled.encode_tick(*args)).command[0] == math.inf
    for bad in ((1, 1 << 32, 0, [], []), (1, 0, 6, [], []), (1, 0, 0, [1, 0], []), (1, 0, 0, [1, 0, 9], []),
                (1, 0, 0, [], [-1])):
        for fn in (compiled.encode_tick, mr.py_encode_tick):
            step, tick, root, transitions, skipped = bad
            with pytest.raises(ValueError):
                fn("blue1", step, tick, root, _Command(rng), transitions, skipped, None, None, b"")


class _Body:
    def __init__(self, rng: random.Random) -> None:
        self.x_m, self.y_m, self.theta_rad = (
            rng.uniform(-7, 7),
            rng.choice([0.0, -0.0, rng.uniform(-4, 4)]),
            rng.uniform(-3, 3),
        )
        self.fallen, self.removed = rng.random() < 0.2, rng.choice([0, 1, False, True])
        self.vx_mps, self.vy_mps = rng.uniform(-3, 3), 0.0


@needs_compiled
def test_truths_agree() -> None:
    rng = random.Random(8)
    for _ in range(200):
        bodies = [_Body(rng) for _ in range(rng.randrange(0, 14))]
        names = [rng.choice(["blue", "red", "é"]) + str(k) for k in range(len(bodies))]
        gc = tuple(rng.choice([0, 1, 3, -1, 255, 2 ** 31 - 1]) for _ in range(5))
        args = (rng.randrange(1 << 40), rng.uniform(0, 1200), _Body(rng), gc, names, bodies)
        data = compiled.encode_truth(*args)
        assert data == mr.py_encode_truth(*args)
        assert _canonical(proto.Truth, data)
        truth = lf.truth_record(proto.Truth.FromString(data))
        assert truth.gc == gc and [r[3:] for r in truth.robots] == [(int(b.fallen), int(b.removed)) for b in bodies]
    for fn in (compiled.encode_truth, mr.py_encode_truth):
        with pytest.raises(ValueError):
            fn(1, 0.0, _Body(rng), (1 << 40, 0, 0, 0, 0), [], [])


@needs_compiled
def test_joined_repeated_fields_agree() -> None:
    rng = random.Random(5)
    for _ in range(200):
        parts = [rng.randbytes(rng.choice([0, 1, 7, 300, 70000])) for _ in range(rng.randrange(9))]
        head = rng.choice([b"", b"\x08\x05"])
        assert compiled.join_repeated(head, 2, parts) == mr.py_join_repeated(head, 2, parts)
    for bad in ([b"a", "text"], [None]):
        for fn in (compiled.join_repeated, mr.py_join_repeated):
            with pytest.raises(TypeError):
                fn(b"", 2, bad)


def _observations(rng: random.Random) -> Observations:
    kinds = list(inputs_module.KINDS) + ["unknown_thing", "ü" * 300]  # names without a code: written out
    dets = tuple(Detection(rng.choice(kinds), rng.uniform(-5, 5), rng.uniform(-5, 5), rng.random(),
                           rng.choice([None, Team.BLUE, Team.RED])) for _ in range(rng.randrange(6)))
    segs = tuple(tuple(rng.uniform(-4, 4) for _ in range(4)) for _ in range(rng.randrange(4)))
    return Observations(rng.uniform(0, 600), rng.random() < 0.5, dets,
                        Pose2D(rng.uniform(-9, 9), rng.uniform(-6, 6), rng.uniform(-3, 3)), rng.uniform(-3, 3),
                        rng.random() < 0.1, rng.uniform(-1, 1), rng.uniform(0, 1), segs)


@needs_compiled
def test_inputs_agree_and_read_back_exactly() -> None:
    rng = random.Random(11)
    for _ in range(300):
        obs = _observations(rng)
        args = (rng.choice(["blue1", "red2", "é"]), rng.uniform(0, 600), obs, rng.choice([None, b"", bytes(range(40))]),
                rng.choice([None, "[]", '[{"a": 1.5, "é": 2}]']), rng.choice([None, '{"go_manual": true}']),
                rng.choice([None, True, False]))
        data = compiled.encode_inputs(*args)
        assert data == inputs_module.py_encode_inputs(*args)
        assert _canonical(proto.BrainInputs, data)
        step = rng.randrange(1 << 20)
        (robot, record), = inputs_module.decode_inputs(inputs_module.encode_step_inputs(step, [data])).items()
        assert robot == args[0] and record.observations == obs and record.packet == args[3]
        assert record.estop == args[6]
    bad = Observations(0.0, True, (), Pose2D(0, 0, 0), 0.0, False, 0.0, 0.0, ((1.0, 2.0),))  # a short segment
    for fn in (compiled.encode_inputs, inputs_module.py_encode_inputs):
        with pytest.raises(ValueError):
            fn("blue1", 0.0, bad, None, None, None, None)


# --- watching through the status slot -----------------------------------------------------------

_XML = ('<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence><AlwaysSuccess/><Inverter><AlwaysFailure/>'
        '</Inverter></Sequence></BehaviorTree></root>')


@needs_compiled
def test_the_status_slot_serves_while_any_tree_is_watched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(observe, "use_slot", True)
    factory = TreeFactory()
    one, two, quiet = (factory.create_tree_from_text(_XML) for _ in range(3))
    before = observe._SLOT_USERS[0]  # trees of other tests may still be watched
    log_one, log_two = one.start_status_log(), two.start_status_log()
    assert TreeNode.__dict__["_bt_status"] is observe._SLOT
    assert [type(n) for n in one.nodes()] == [type(n) for n in quiet.nodes()]  # nobody changed class
    quiet.tick_exactly_once()
    one.tick_exactly_once()
    assert quiet.env.status_log is None and log_one and not log_two
    one.stop_status_log()
    assert TreeNode.__dict__["_bt_status"] is observe._SLOT  # two still watches
    two.tick_exactly_once()
    assert [log_two[i:i + 3] for i in range(0, len(log_two), 3)] == [
        log_one[i:i + 3] for i in range(0, len(log_one), 3)]
    two.stop_status_log()
    assert observe._SLOT_USERS[0] == before
    assert (TreeNode.__dict__["_bt_status"] is observe._MEMBER) == (before == 0)
    assert not any(observe.is_observed(n) for t in (one, two, quiet) for n in t.nodes())
    assert [n.node_status for n in quiet.nodes()] == [n.node_status for n in one.nodes()]


@needs_compiled
def test_the_status_slot_reads_and_writes_the_member(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(observe, "use_slot", True)
    tree = TreeFactory().create_tree_from_text(_XML)
    seen = []
    tree.on_status_change(lambda node, prev, new: seen.append((node.uid, prev.name, new.name)), raw=True)
    node = list(tree.nodes())[1]
    slot = observe._SLOT
    assert slot.__get__(node) is observe._MEMBER.__get__(node) is node._bt_status is NodeStatus.IDLE
    node.some_attribute_m = 1.5  # other attributes as ever
    assert node.__dict__["some_attribute_m"] == 1.5 and "_bt_status" not in node.__dict__
    with pytest.raises(TypeError):
        slot.__get__(object())
    with pytest.raises(TypeError):
        slot.__set__(object(), NodeStatus.IDLE)
    node.reset_status()  # IDLE to IDLE: no change
    assert seen == []
    tree.tick_exactly_once()
    assert seen[0] == (1, "IDLE", "RUNNING")
    built = TreeFactory().create_tree_from_text(_XML)  # nodes built while the slot serves: no report
    assert [n.node_status for n in built.nodes()] == [NodeStatus.IDLE] * 4 and built.env.status_log is None


class _Noting(ActionNode):
    """A node class of a __setattr__ of its own: it keeps it, and its changes are reported."""

    def __setattr__(self, name: str, value: object) -> None:
        object.__setattr__(self, "stores", getattr(self, "stores", 0) + 1)
        object.__setattr__(self, name, value)

    def bt_tick(self):  # noqa: ANN201
        return NodeStatus.SUCCESS


@pytest.mark.parametrize("way", ["compiled", "python"])
def test_a_class_of_its_own_setattr_keeps_it(monkeypatch: pytest.MonkeyPatch, way: str) -> None:
    if way == "compiled" and compiled is None:
        pytest.skip("soccerbt.native not built (see test_built_where_a_compiler_is)")
    monkeypatch.setattr(observe, "use_slot", way == "compiled")
    factory = TreeFactory()
    factory.register_node_type("Noting", _Noting)
    tree = factory.create_tree_from_text('<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence><Noting/>'
                                         '</Sequence></BehaviorTree></root>')
    log = tree.start_status_log()
    noting = next(n for n in tree.nodes() if isinstance(n, _Noting))
    before = noting.stores
    tree.tick_exactly_once()
    assert noting.stores > before and observe.is_observed(noting)
    assert [log[i:i + 3] for i in range(0, len(log), 3)] == [[1, 0, 1], [2, 0, 2], [2, 2, 0], [1, 1, 2], [1, 2, 0]]
    tree.stop_status_log()
    assert type(noting) is _Noting and noting.node_status is NodeStatus.IDLE and not observe.is_observed(noting)


# --- a whole match both ways --------------------------------------------------------------------

_RECORD = """
import hashlib, sys
from pathlib import Path
from soccerbt.match import Match, MatchConfig
from soccerbt.log.writer import make_recorder
from soccerbt.native import recording
m = Match(MatchConfig(seed=5, duration_s=2.5))
out = Path(sys.argv[1])
rec = make_recorder(out, m)
while not m.finished():
    m.step()
rec.finish(m.result())
print("compiled" if recording is not None else "python", hashlib.sha256(out.read_bytes()).hexdigest())
"""


def test_a_match_recorded_both_ways_is_the_same_bytes(tmp_path: Path) -> None:
    runs = {}
    for flag in ("1", "0"):
        env = dict(os.environ, SOCCERBT_NATIVE=flag, OPENBLAS_NUM_THREADS="1")
        out = subprocess.run([sys.executable, "-c", _RECORD, str(tmp_path / f"{flag}.mcap")], env=env, cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
        runs[flag] = out
    assert runs["0"][0] == "python"
    if compiled is not None:
        assert runs["1"][0] == "compiled"
    assert runs["1"][1] == runs["0"][1]
    assert hashlib.sha256((tmp_path / "1.mcap").read_bytes()).hexdigest() == runs["1"][1]
