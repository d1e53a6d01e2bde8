"""tools/btcpp_recorder/btcpp410/fuzz.py without BT.CPP: its generator is reproducible and makes
trees soccerbt loads and ticks with located errors only, and its shrinker keeps what fails."""
from __future__ import annotations

import importlib.util
import random
import re
from pathlib import Path

import pytest

from soccerbt.trees import NodeTickError, TreeLoadError

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "_btcpp410_fuzz", ROOT / "tools" / "btcpp_recorder" / "btcpp410" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)  # type: ignore[union-attr]
conformance = fuzz._scripted_leaf()


def test_the_same_seed_makes_the_same_trees():
    gen_a, gen_b = fuzz.Generator(random.Random(7)), fuzz.Generator(random.Random(7))
    assert [gen_a.tree() for _ in range(20)] == [gen_b.tree() for _ in range(20)]
    assert fuzz.Generator(random.Random(7)).tree() != fuzz.Generator(random.Random(8)).tree()


@pytest.mark.parametrize("seed", range(4))
def test_generated_trees_load_and_tick_with_located_errors_only(seed, tmp_path):
    gen = fuzz.Generator(random.Random(seed))
    outcomes = {"ran": 0, "threw": 0, "refused": 0}
    for i in range(50):
        path = tmp_path / f"case{i}.xml"
        path.write_text(gen.tree())
        factory = fuzz._factory(conformance)
        try:
            tree = factory.create_tree_from_file(str(path))
        except TreeLoadError as exc:
            assert str(exc).startswith(f"{path}:")
            outcomes["refused"] += 1
            continue
        try:
            for _ in range(fuzz.TICKS):
                tree.tick_exactly_once()
            outcomes["ran"] += 1
        except NodeTickError:
            outcomes["threw"] += 1
    assert outcomes["ran"] > 30  # the generator mostly makes trees that run


def test_shrinking_keeps_the_property_and_removes_the_rest():
    gen = fuzz.Generator(random.Random(3))
    text = gen.tree()
    while len(re.findall(r"<(?:Stateful)?Scripted ", text)) < 3:
        text = gen.tree()

    def still(candidate: str) -> bool:
        return 'name="A1"' in candidate

    small = fuzz.shrink(text, still, budget_s=20.0)
    assert still(small) and len(small) < len(text)
    assert len(re.findall(r"<(?:Stateful)?Scripted ", small)) == 1
