"""Tick cost of the XML engine against stock py_trees composites, and tree load time.

Prints, for Booster's game tree (stub leaves, blackboard set so the PLAY branch runs) and for
a synthetic 200-node reactive tree: microseconds per tick_exactly_once() (median of repeats),
the same shape built from stock py_trees composites (Sequence(memory=False), Selector,
Parallel) with equivalent leaves, and the ratio engine / py_trees. Then the load time of
Booster's game tree with its includes. Goals: ratio <= 0.5, Booster < 100 us, load < 50 ms.

Then, when behaviortreepy (BehaviorTree.CPP 4.8.2 compiled, with Python bindings: ``pip install
'soccerbt[bench]'``) is installed, the same tree in both engines side by side: Booster's game
tree with its includes resolved and its leaves' ports removed
(tests/trees/booster_transitions/game_trees.xml, as the transition tests use it), stub leaves
(Python callbacks in both: synchronous ones SUCCESS, stateful ones RUNNING then SUCCESS), the
same blackboard values, microseconds per tick_exactly_once() and the leaf calls per tick (equal
when both ran the same branches). Issue 16's goal: soccerbt at most 25 us on Booster's tree.

Run:  .venv/bin/python benchmarks/tick.py [--booster DIR]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import py_trees
from py_trees.common import Status

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from soccerbt.nodes import SyncActionNode  # noqa: E402
from soccerbt.nodes.controls import IfThenElseNode, ParallelNode  # noqa: E402
from soccerbt.nodes.decorators import RunOnceNode, SubTreeNode  # noqa: E402
from soccerbt.nodes.node_kinds import ControlNode, DecoratorNode  # noqa: E402
from soccerbt.nodes.status import FAILURE, SUCCESS  # noqa: E402
from soccerbt.nodes.stubs import StatefulStub, SyncStub, register_stub_nodes, stub_node_types  # noqa: E402
from soccerbt.trees import TreeFactory  # noqa: E402

PLAY = dict(control_state=0, go_manual=False, assist_kick=False, assist_chase=False,
            gc_is_under_penalty=False, gc_game_sub_state_type="NONE", gc_game_state="PLAY",
            player_role="striker", decision="chase", wait_for_opponent_kickoff=False,
            ball_out=False, ball_location_known=True, tm_ball_pos_reliable=False,
            odom_calibrated=True, gc_game_sub_state="NONE", gc_is_sub_state_kickoff_side=False)


def both(fn, ticks: int, repeats: int) -> tuple[float, float]:
    """(wall-clock, CPU-time) medians over `repeats` runs, in microseconds per call.

    Both clocks are read around the same runs. CPU time (process_time) does not count the
    time other processes take on shared cores, so it is the steadier figure here.
    """
    walls, cpus = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(ticks):
            fn()
        walls.append((time.perf_counter() - t0) / ticks * 1e6)
        cpus.append((time.process_time() - c0) / ticks * 1e6)
    return statistics.median(walls), statistics.median(cpus)


# ----------------------------------------------------------------- py_trees mirror


class _Guard(py_trees.behaviour.Behaviour):
    """A `_while` condition as a py_trees condition leaf (same compiled script)."""

    def __init__(self, script, bb) -> None:
        super().__init__("guard")
        self.script, self.bb = script, bb

    def update(self) -> Status:
        return Status.SUCCESS if self.script.evaluate_bool(self.bb) else Status.FAILURE


class _Leaf(py_trees.behaviour.Behaviour):
    """A stock leaf: SUCCESS or FAILURE every tick, or RUNNING once then SUCCESS."""

    def __init__(self, name: str, result: Status, stateful: bool = False) -> None:
        super().__init__(name)
        self.result, self.stateful = result, stateful

    def update(self) -> Status:
        if self.stateful and self.status != Status.RUNNING:
            return Status.RUNNING
        return self.result


def mirror(node, bb):
    """The same shape in stock py_trees: reactive Sequence/Selector, guards for `_while`."""
    if isinstance(node, SubTreeNode):
        inner = mirror(node.child, node.subtree_blackboard)
        out = inner
    elif isinstance(node, IfThenElseNode):
        kids = [mirror(c, bb) for c in node.children]
        then = py_trees.composites.Sequence("then", memory=False, children=kids[:2])
        out = py_trees.composites.Selector("ifthenelse", memory=False,
                                           children=[then] + kids[2:])
    elif isinstance(node, ParallelNode):
        out = py_trees.composites.Parallel(
            node.name, policy=py_trees.common.ParallelPolicy.SuccessOnAll(),
            children=[mirror(c, bb) for c in node.children])
    elif isinstance(node, RunOnceNode):
        out = py_trees.decorators.OneShot("once", mirror(node.child, bb),
                                          policy=py_trees.common.OneShotPolicy.ON_COMPLETION)
    elif isinstance(node, ControlNode):
        kids = [mirror(c, bb) for c in node.children]
        if "Fallback" in node.registration_id:
            out = py_trees.composites.Selector(node.name, memory=False, children=kids)
        else:
            out = py_trees.composites.Sequence(node.name, memory=False, children=kids)
    elif isinstance(node, DecoratorNode):
        out = py_trees.decorators.PassThrough(node.name, mirror(node.child, bb))
    else:
        stateful = isinstance(node, StatefulStub)
        result = Status.FAILURE if getattr(node, "FAILS", False) else Status.SUCCESS
        out = _Leaf(node.name, result, stateful)
    whiles = [sc for cid, sc in node.config.pre if cid == 3]
    if whiles:
        guarded = py_trees.composites.Sequence("while", memory=False,
                                               children=[_Guard(whiles[0], node.bb), out])
        out = py_trees.composites.Selector("skip", memory=False,
                                           children=[guarded, _Leaf("skipped", Status.SUCCESS)])
    return out


# ----------------------------------------------------------------- BehaviorTree.CPP side by side

PORTLESS_XML = ROOT / "tests" / "trees" / "booster_transitions" / "game_trees.xml"


def soccerbt_portless(xml: str, kinds: dict[str, type]) -> tuple[object, list]:
    """(tick function, leaves) of the port-less Booster tree in soccerbt with stub leaves."""
    factory = TreeFactory()
    for node_id, cls in kinds.items():
        factory.register_node_type(node_id, cls, ports=[], replace=True)
    tree = factory.create_tree_from_text(xml)
    bb = tree.root_blackboard()
    for key, value in PLAY.items():
        bb[key] = value
    leaves = [n for n in tree.nodes() if isinstance(n, (SyncStub, StatefulStub))]
    return tree.tick_exactly_once, leaves


def btcpp_portless(bt, xml: str, kinds: dict[str, type]) -> tuple[object, list[int]]:
    """(tick function, [leaf calls]) of the same tree in BehaviorTree.CPP (behaviortreepy)."""
    calls = [0]
    success, running = bt.NodeStatus.SUCCESS, bt.NodeStatus.RUNNING

    def sync_tick(node):
        calls[0] += 1
        return success

    def start(node):
        calls[0] += 1
        return running

    def halted(node):
        return None

    factory = bt.BehaviorTreeFactory()
    for node_id, cls in kinds.items():
        if issubclass(cls, StatefulStub):
            factory.register_simple_stateful_action(node_id, start, sync_tick, halted)
        else:
            factory.register_simple_action(node_id, sync_tick)
    tree = factory.create_tree_from_text(xml)
    bb = tree.root_blackboard()
    for key, value in PLAY.items():
        setter = {bool: bb.set_bool, int: bb.set_int, str: bb.set_string}[type(value)]
        setter(key, value)
    return tree.tick_exactly_once, calls


def side_by_side(booster: Path, ticks: int, repeats: int) -> None:
    """Print soccerbt against BehaviorTree.CPP on the port-less Booster tree (see the docstring)."""
    try:
        import behaviortreepy as bt
    except ImportError:
        print("BehaviorTree.CPP side by side: behaviortreepy is not installed "
              "(pip install 'soccerbt[bench]'): left out")
        return
    if not PORTLESS_XML.is_file():
        print(f"BehaviorTree.CPP side by side: {PORTLESS_XML} not found: left out")
        return
    xml = PORTLESS_XML.read_text(encoding="utf-8")
    kinds = {node_id: cls for node_id, (cls, _ports) in stub_node_types(booster / "nodes.json").items()}
    ours, leaves = soccerbt_portless(xml, kinds)
    theirs, calls = btcpp_portless(bt, xml, kinds)
    ours()
    theirs()
    before_ours, before_theirs = sum(leaf.tick_count for leaf in leaves), calls[0]
    ours_us = both(ours, ticks, repeats)
    theirs_us = both(theirs, ticks, repeats)
    timed_ticks = ticks * repeats
    ours_calls = (sum(leaf.tick_count for leaf in leaves) - before_ours) / timed_ticks
    theirs_calls = (calls[0] - before_theirs) / timed_ticks
    print(f"Booster's game tree, ports removed ({PORTLESS_XML.name}), stub leaves as Python callbacks:")
    print(f"{'engine':32} {'wall us/tick':>12} {'cpu us/tick':>12} {'leaf calls/tick':>16}")
    print(f"{'soccerbt':32} {ours_us[0]:12.1f} {ours_us[1]:12.1f} {ours_calls:16.2f}")
    # behaviortreepy 0.1.x wraps BehaviorTree.CPP 4.8.2
    label = f"BT.CPP via behaviortreepy {getattr(bt, '__version__', '?')}"
    print(f"{label:32} "
          f"{theirs_us[0]:12.1f} {theirs_us[1]:12.1f} {theirs_calls:16.2f}")
    print(f"ratio soccerbt / BehaviorTree.CPP (cpu): {ours_us[1] / theirs_us[1]:.2f}; "
          f"goal (issue 16): soccerbt <= 25 us per tick: {'met' if ours_us[1] <= 25 else 'not met'}")


# ----------------------------------------------------------------- synthetic tree


class Succeed(SyncActionNode):
    def bt_tick(self):
        return SUCCESS


class Fail(SyncActionNode):
    FAILS = True

    def bt_tick(self):
        return FAILURE


def synthetic_xml(branches: int = 11, leaves: int = 17) -> str:
    body = []
    for b in range(branches):
        kids = "".join(f'<Fail name="f{b}_{i}"/>' for i in range(leaves - 1))
        body.append(f'<ReactiveFallback name="b{b}">{kids}<Succeed name="s{b}"/></ReactiveFallback>')
    return ('<root BTCPP_format="4"><BehaviorTree ID="Synthetic"><ReactiveSequence name="root">'
            + "".join(body) + "</ReactiveSequence></BehaviorTree></root>")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--booster", default=str(ROOT.parent / "shared" / "booster"))
    parser.add_argument("--ticks", type=int, default=2000, help="engine ticks per run")
    parser.add_argument("--pt-ticks", type=int, default=200,
                        help="stock py_trees ticks per run (about 20x slower per tick)")
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    booster = Path(args.booster)
    results = {}

    factory = TreeFactory()
    factory.register_node_type("Succeed", Succeed)
    factory.register_node_type("Fail", Fail)
    if (booster / "nodes.json").is_file():
        register_stub_nodes(factory, booster / "nodes.json")
        game = booster / "trees" / "game.xml"
        tree = factory.create_tree_from_file(game)
        bb = tree.root_blackboard()
        for k, v in PLAY.items():
            bb[k] = v
        tree.tick_exactly_once()
        n_nodes = sum(1 for _ in tree.nodes())
        active = len(tree.active_nodes())
        pt_root = mirror(tree.root, bb)
        pt_root.tick_once()
        ours = both(tree.tick_exactly_once, args.ticks, args.repeats)
        theirs = both(pt_root.tick_once, args.pt_ticks, args.repeats)
        results["booster"] = (ours, theirs, f"{n_nodes} nodes, {active} ticked per tick")
        loads, cpu_loads = [], []
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            factory.create_tree_from_file(game)
            loads.append((time.perf_counter() - t0) * 1e3)
            cpu_loads.append((time.process_time() - c0) * 1e3)
        load_ms = (statistics.median(loads), statistics.median(cpu_loads))
    else:
        print(f"(Booster trees not found under {booster}: skipping that part)")
        load_ms = None

    syn = factory.create_tree_from_text(synthetic_xml())
    n_syn = sum(1 for _ in syn.nodes())
    syn.tick_exactly_once()
    pt_syn = mirror(syn.root, syn.root_blackboard())
    pt_syn.tick_once()
    ours = both(syn.tick_exactly_once, args.ticks, args.repeats)
    theirs = both(pt_syn.tick_once, args.pt_ticks, args.repeats)
    results["synthetic"] = (ours, theirs, f"{n_syn} nodes, all ticked")

    print(f"{'tree':10} {'clock':5} {'engine us/tick':>15} {'py_trees us/tick':>17} "
          f"{'ratio':>6}  shape")
    for name, (ours, theirs, shape) in results.items():
        for i, clock in enumerate(("wall", "cpu")):
            print(f"{name:10} {clock:5} {ours[i]:15.1f} {theirs[i]:17.1f} "
                  f"{ours[i] / theirs[i]:6.2f}  {shape}")
    if load_ms is not None:
        print(f"load of Booster's game.xml with includes: {load_ms[0]:.1f} ms wall, "
              f"{load_ms[1]:.1f} ms cpu (medians)")
    print("goals: ratio <= 0.50, Booster < 100 us per tick, load < 50 ms")
    if (booster / "nodes.json").is_file():
        print()
        side_by_side(booster, args.ticks, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
