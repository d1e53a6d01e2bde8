"""Issue 28, items 7 and 8: absurd sweeps are refused before any grid is built (NaN, infinite and
absurd steps, grids too large, --random without end), and a batch folder's files are untrusted
(a FIFO, a link to /dev/zero, wrong types, a score of 10^300, deep nesting), and locked while a
batch plays into it. Each command runs under a memory cap, its message asserted."""
from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path

import pytest
import soccerbt_tests_hostile as H  # noqa: E402 - registered by tests/conftest.py

from soccerbt.match import MatchConfig
from soccerbt.tools.batch.batch import BatchGame
from soccerbt.tools.batch.batch_store import GameStore, StoreConflict
from soccerbt.tools.batch.sweep import MAX_COMBINATIONS, Param, SweepError, combinations, parse_param

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

QUICK = ["--seconds", "1", "--team-size", "1", "--field", "kid", "--jobs", "1", "--quiet"]


# --- 7. sweeps ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,message", [
    ("Chase.vx_limit=nan:1:0.1", "a range's ends and step must be finite numbers (no nan, no inf)"),
    ("Chase.vx_limit=0:inf:1", "a range's ends and step must be finite numbers (no nan, no inf)"),
    ("Chase.vx_limit=0:1:nan", "a range's ends and step must be finite numbers (no nan, no inf)"),
    ("Chase.vx_limit=-1e308:1e308:1", "a range wider than a float can hold"),
    ("Chase.vx_limit=0:1:1e-300", f"the step makes more than {MAX_COMBINATIONS:,} values; use a larger step"),
    ("Chase.vx_limit=0:1e9:1", f"the step makes more than {MAX_COMBINATIONS:,} values; use a larger step"),
])
def test_absurd_ranges_are_refused_when_parsed(text: str, message: str) -> None:
    with pytest.raises(SweepError) as info:
        parse_param(text)
    assert str(info.value) == f"--param {text!r}: {message}"


def test_a_grid_is_counted_before_it_is_built() -> None:
    wide = [Param("A", f"p{k}", low=0.0, high=99.0, step=1.0) for k in range(5)]  # 10^10 points
    with pytest.raises(SweepError, match=f"more than {MAX_COMBINATIONS:,} combinations; use --random N"):
        combinations(wide)
    with pytest.raises(SweepError, match=f"--random must be 1..{MAX_COMBINATIONS:,}"):
        combinations(wide, random_n=10 ** 9)
    assert len(combinations(wide[:2])) == 10_000 and len(combinations(wide, random_n=20)) == 20


def test_absurd_sweeps_on_the_command_line(tmp_path: Path) -> None:
    cases = [
        (["--param", "SimpleChase.vx_limit=0:1:1e-12"], "the step makes more than 10,000 values"),
        (["--param", "SimpleChase.vx_limit=0:100:1", "--param", "SimpleChase.vy_limit=0:100:1"],
         "more than 10,000 combinations; use --random N or fewer values"),
        (["--param", "SimpleChase.vx_limit=0:1", "--random", "1000000000"], "--random must be at most 10,000"),
        (["--param", "SimpleChase.vx_limit=nan:1:1"], "no nan, no inf"),
    ]
    for args, message in cases:
        proc = H.soccerbt("sweep", *args, *QUICK, mem_mib=768, timeout=60)
        assert proc.returncode == 2 and message in proc.stderr, (args, proc.stderr)
        assert "games" not in proc.stderr  # refused before any game


# --- 8. batch folders ------------------------------------------------------------------------------------


GAME = "seed-0000-A-blue-B-red.json"


@pytest.fixture(scope="module")
def played_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A batch folder with seeds 0-5 played (1 s games), played once for the module."""
    out = tmp_path_factory.mktemp("hostile-batch") / "runs"
    proc = H.soccerbt("batch", *QUICK, "--seeds", "0-5", "--out", str(out), timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture
def played(played_template: Path, tmp_path: Path) -> Path:
    """A copy of the played batch folder, for a test to damage."""
    out = tmp_path / "runs"
    shutil.copytree(played_template, out)
    return out


def test_a_fifo_or_a_link_to_dev_zero_in_a_batch_folder_stops_the_batch_unread(played: Path) -> None:
    game = played / GAME
    game.unlink()
    os.mkfifo(game)  # reading it would wait for a writer forever
    proc = H.soccerbt("batch", *QUICK, "--seeds", "0", "--out", str(played), mem_mib=768, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == (f"soccerbt batch: {game}: not a regular file (a FIFO); a batch folder "
                                            "holds only the batch's own files: remove it")
    game.unlink()
    game.symlink_to("/dev/zero")
    proc = H.soccerbt("batch", *QUICK, "--seeds", "0", "--out", str(played), mem_mib=768, timeout=60)
    assert proc.returncode == 2 and "not a regular file (a symbolic link)" in proc.stderr
    assert game.is_symlink()


WRONG_TYPES = [
    (lambda g: g["result"].update(sim_s="1.0"), "result.sim_s: not a number of seconds"),
    (lambda g: g["result"]["score"].update(blue=10**300), 'result.score: not {"blue": N, "red": N} with 0..1000 goals'),
    (
        lambda g: g["result"].update(goals=[{"t_s": 1}]),
        "result.goals[0]: not a goal (t_s, team, scorer, own_goal, first_half)",
    ),
    (lambda g: g["result"]["robots"][0].update(falls=-1), "result.robots[0]: a count that is not a count"),
    (lambda g: g.update(result=[]), "result: not an object"),
    (lambda g: g.update(attempts="2"), "attempts: not a count"),
]


def test_wrong_types_in_a_game_file_are_played_again_and_said(played: Path) -> None:
    """One kind of wrong type in each of six game files; one batch over the folder replays each."""
    games = []
    for seed, (change, why) in enumerate(WRONG_TYPES):
        game = played / GAME.replace("0000", f"{seed:04d}")
        data = json.loads(game.read_text())
        change(data)
        game.write_text(json.dumps(data))
        games.append((game, why))
    proc = H.soccerbt("batch", *QUICK, "--seeds", f"0-{len(WRONG_TYPES) - 1}", "--out", str(played), mem_mib=1024,
                      timeout=300)
    assert proc.returncode == 0, proc.stderr
    for game, why in games:
        assert f"soccerbt batch: {game}: not a game file of this batch ({why}); the game is played again" \
            in proc.stderr
    assert f"{len(WRONG_TYPES)} games ({len(WRONG_TYPES)} played now)" in proc.stderr


def test_deep_nesting_and_a_huge_game_file_are_played_again(played: Path) -> None:
    game = played / GAME
    game.write_text("[" * 100_000 + "]" * 100_000)
    proc = H.soccerbt("batch", *QUICK, "--seeds", "0", "--out", str(played), mem_mib=768, timeout=300)
    assert proc.returncode == 0
    assert f"soccerbt batch: {game}: not whole JSON (ValueError: nested too deeply); the game is played again" \
        in proc.stderr
    game.write_bytes(b" " * (5 << 20))
    proc = H.soccerbt("batch", *QUICK, "--seeds", "0", "--out", str(played), mem_mib=768, timeout=300)
    assert proc.returncode == 0
    assert f"soccerbt batch: {game}: not whole JSON (5,242,880 bytes, more than a game file's 4,194,304)" in proc.stderr


def test_two_batches_on_one_folder_cannot_play_at_once(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    out.mkdir()
    lock = out / ".soccerbt-batch.lock"
    with open(lock, "w") as held:  # another batch holds the folder
        held.write("4242\n")
        held.flush()
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = H.soccerbt("batch", *QUICK, "--seeds", "0", "--out", str(out), timeout=60)
        assert proc.returncode == 2
        assert proc.stderr == (f"soccerbt batch: {out}: another soccerbt batch is playing into this folder "
                               "(process 4242); wait for it to finish, or give another --out (--out)\n")
    assert sorted(os.listdir(out)) == [".soccerbt-batch.lock"]
    store = GameStore(out, {"match": "", "trees": {}})
    store.lock()
    try:
        with pytest.raises(StoreConflict, match="another soccerbt batch is playing into this folder"):
            GameStore(out, {"match": "", "trees": {}}).lock()
    finally:
        store.unlock()
    GameStore(out, {"match": "", "trees": {}}).lock()  # free again


def test_the_store_reads_nothing_but_regular_game_files(tmp_path: Path) -> None:
    store = GameStore(tmp_path, {"match": "", "trees": {}})
    game = BatchGame(0, False, MatchConfig(seed=0))
    (tmp_path / GAME).symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(StoreConflict, match="not a regular file \\(a symbolic link\\)"):
        store.load(game)
