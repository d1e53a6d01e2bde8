"""Issue 28: a replay log is untrusted input. Hostile logs, each built here from a real log or
byte by byte (tests/hostile.py), end in a clear message (``path: what is wrong``) or a partial
load that says so, in bounded memory (each command runs under a cap of address space), and no
answer spans steps that are missing.

Decompression (declared and real sizes that disagree, zstd frames that lie, lz4, bombs spread
over chunks), CPU (zero-filled chunks, damage everywhere), damage found after opening, and
stored trees too large or too deep. The shapes of every message: test_hostile_messages.py.
"""
from __future__ import annotations

import importlib.util
import json
import struct
import sys
from pathlib import Path

import pytest

from soccerbt.log.format import ReplayError
from soccerbt.log.mcap_chunks import MAX_CHUNK_BYTES
from soccerbt.log.reader import McapLog

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out


def _load():
    spec = importlib.util.spec_from_file_location("soccerbt_tests_hostile", Path(__file__).parents[1] / "hostile.py")
    module = sys.modules.get("soccerbt_tests_hostile")
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["soccerbt_tests_hostile"] = module
        spec.loader.exec_module(module)
    return module


H = _load()
STEP_NS = 10_000_000


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3 s of one robot, in chunks of 8 KB: keyframes at steps 0, 100, 200, 300."""
    return H.record_small(tmp_path_factory.mktemp("hostile"), seconds=3.0, chunk_bytes=8_000)


@pytest.fixture(scope="module")
def parts(small: Path):
    return H.read_log(small)


def test_a_log_taken_apart_and_put_together_reads_as_the_original(small: Path, parts, tmp_path: Path) -> None:
    again = McapLog.open(parts.write(tmp_path / "again.mcap"))
    whole = McapLog.open(small)
    assert [v.truth for v in again.steps()] == [v.truth for v in whole.steps()]
    assert again.robot_state("blue1", 250).blackboard == whole.robot_state("blue1", 250).blackboard


# --- 2. decompression: bounded by what is produced, and in all -----------------------------------


def _step_records(parts, n: int, size: int) -> bytes:
    """`n` step messages of `size` bytes each (no soccerbt step: damage found when decoded)."""
    cid = parts.cids["/match/step"]
    return b"".join(H.message(cid, (k + 1) * STEP_NS, bytes(size)) for k in range(n))


def test_declared_and_real_sizes_that_disagree_and_frames_that_lie(parts, tmp_path: Path) -> None:
    real = _step_records(parts, 50, 100)
    at, end = 295 * STEP_NS, 300 * STEP_NS  # the chunks claim the log's last steps
    zeros = H.zeros_frame(1 << 30)  # 1 GiB of zeros in 32 KB, its frame saying so
    quiet = H.zeros_frame(1 << 30, declared=False)  # the same, its frame saying nothing
    lying = H.lying_zstd_frame(real, 1 << 40)  # the records, their frame claiming a TiB
    crafted = [
        H.chunk(b"", at, end, usize=1 << 20, payload=quiet, crc=False),
        H.chunk(b"", at, end, usize=1 << 20, payload=zeros, crc=False),
        H.chunk(real, at, end, usize=len(real), payload=lying, crc=False),
        H.chunk(b"", at, end, "lz4", usize=16 << 20, payload=H.zeros_frame(256 << 20, "lz4"), crc=False),
        H.chunk(real, at, end, usize=250 << 20),
        H.chunk(real, at, end, usize=len(real) + 7),
        H.chunk(b"", at, end, usize=1000, payload=zeros, crc=False),
    ]
    path = parts.write(tmp_path / "sizes.mcap", extra=crafted)
    offsets = _chunk_offsets(path)[-7:]
    proc = H.soccerbt("replay", str(path), "--robot", "blue1", "--from", "2.9", mem_mib=768)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 11  # steps 290..300, read around the damage
    err = [line.split(": ", 2)[2] for line in proc.stderr.splitlines()]
    assert err == [
        f"chunk at byte {offsets[0]} is damaged (decompresses to more than the 1,048,576 bytes it declares); skipped",
        f"chunk at byte {offsets[1]} is damaged (its zstd frame declares 1,073,741,824 bytes, more than the "
        "1,048,576 of the chunk); skipped",
        f"chunk at byte {offsets[2]} is damaged (its zstd frame declares 1,099,511,627,776 bytes, more than the "
        f"{len(real):,} of the chunk); skipped",
        f"chunk at byte {offsets[3]} is damaged (decompresses to more than the 16,777,216 bytes it declares); skipped",
        f"chunk at byte {offsets[4]} is damaged (declares 262,144,000 bytes of records, more than "
        f"{MAX_CHUNK_BYTES:,}); skipped",
        f"chunk at byte {offsets[5]} is damaged (decompresses to {len(real):,} bytes, not the {len(real) + 7:,} it "
        "declares); skipped",
        f"chunk at byte {offsets[6]} is damaged ({len(zeros):,} compressed bytes for 1,000 bytes of records); skipped",
    ]


def _chunk_offsets(path: Path) -> list[int]:
    data = path.read_bytes()
    o, out = 8, []
    while o + 9 <= len(data):
        op, length = struct.unpack_from("<BQ", data, o)
        if op == 0x06:
            out.append(o)
        if op == 0x02:
            break
        o += 9 + length
    return out


def test_a_bomb_spread_over_chunks_stops_at_the_budget(parts, tmp_path: Path) -> None:
    # eight chunks of 60 MiB of well-formed records each, from a few hundred KB of file: within
    # every per-chunk limit, 480 MiB in all; a command stops at 128 times the file's size
    cid = parts.cids["/events"]
    one = H.message(cid, 0, b"x" * 2000)  # 31,000 records a chunk: within the record limit
    records = one * ((60 << 20) // len(one))
    payload = H.compress(records, "zstd")
    crafted = [H.chunk(records, 1 * STEP_NS, 300 * STEP_NS, payload=payload, usize=len(records), crc=False)
               for _ in range(8)]
    path = parts.write(tmp_path / "spread.mcap", extra=crafted)
    size = path.stat().st_size
    assert size < 2 << 20 and 8 * len(records) > 128 * size + (64 << 20)
    proc = H.soccerbt("replay", str(path), "--find", "blue1: marker == 1", mem_mib=1024)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        f"{path}: stopped reading: decompressing this log has cost more than 128 times its size "
        "(a decompression bomb?)")


# --- 3. CPU: zero-filled chunks, damage everywhere -------------------------------------------------


def test_zero_filled_chunks_are_damage_found_at_their_first_record(parts, tmp_path: Path) -> None:
    crafted = [H.chunk(bytes(8192), 299 * STEP_NS, 300 * STEP_NS, "") for _ in range(50)]
    crafted += [H.chunk(bytes(1 << 20), 299 * STEP_NS, 300 * STEP_NS)]  # zstd of a MiB of zeros
    path = parts.write(tmp_path / "zeros.mcap", extra=crafted)
    proc = H.soccerbt("replay", str(path), "--robot", "blue1", "--from", "2.99", mem_mib=768, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("is damaged (a record of kind 0x00 inside a chunk); skipped") == 51


def test_damage_everywhere_is_walked_once(parts, tmp_path: Path) -> None:
    # between two real chunks, 20,000 times: a byte that is no record, then a record that looks
    # like a chunk (so each resync finds one, and the next byte is damage again)
    good = parts.write(tmp_path / "good.mcap", summary=False)
    data = good.read_bytes()
    at = _chunk_offsets(good)[2]
    fake = H.record(0x06, struct.pack("<QQQI", 0, 0, 0, 0) + H.mcap_str("") + struct.pack("<Q", 0) + bytes(4))
    bad = tmp_path / "junk.mcap"
    bad.write_bytes(data[:at] + (b"\x00" + fake) * 20_000 + data[at:])
    proc = H.soccerbt("replay", str(bad), "--robot", "blue1", "--from", "2.9", mem_mib=768, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"{bad}: damaged record at byte {at}; skipped to {at + 1}" in proc.stderr
    assert len(proc.stdout.splitlines()) == 11  # the steps after the damage, read


# --- 11. damage found after opening: named, never spanned --------------------------------------------


@pytest.fixture(scope="module")
def damaged(small: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, McapLog, list[int]]:
    """The small log with the chunk that holds step 120 damaged inside (its steps are lost)."""
    whole = McapLog.open(small)
    k = next(i for i, c in enumerate(whole.chunks) if c.start_step <= 120 <= c.end_step)
    victim = whole.chunks[k]
    lost = sorted({s for t, s, _d in whole._chunk(k) if t == "/match/step"})
    data = bytearray(small.read_bytes())
    data[victim.offset + victim.length - 40] ^= 0xFF
    path = tmp_path_factory.mktemp("damaged") / "damaged.mcap"
    path.write_bytes(bytes(data))
    assert 100 < lost[0] < lost[-1] < 200, lost  # a keyframe after the gap, before the end
    return path, whole, lost


def test_find_ranges_stop_at_a_gap_and_resume_at_the_next_keyframe(damaged) -> None:
    path, whole, lost = damaged
    first, last = lost[0], lost[-1]
    proc = H.soccerbt("replay", str(path), "--find", "blue1: marker == 1", mem_mib=768)
    assert proc.returncode == 0, proc.stderr
    t0, t1 = (first - 1) * 0.01, last * 0.01
    resume = (last // 100 + 1) * 100 + 1
    assert proc.stdout.splitlines() == [f"0.01-{(first - 1) * 0.01:.2f}s  ticks 1-{first - 1}",
                                        f"{resume * 0.01:.2f}-3.00s  ticks {resume}-300"]
    assert f"warning: {path}: t={t0:.2f}-{t1:.2f}s (steps {first}-{last}) missing: chunk at byte" in proc.stderr
    log = McapLog.open(path)
    with pytest.raises(ReplayError, match=rf"steps {first}-{last}\) missing: .*cannot be rebuilt"):
        log.robot_state("blue1", last + 5)


def test_every_command_says_which_time_ranges_are_missing(damaged, tmp_path: Path) -> None:
    path, whole, lost = damaged
    first, last = lost[0], lost[-1]
    gap = f"t={(first - 1) * 0.01:.2f}-{last * 0.01:.2f}s (steps {first}-{last}) missing"
    tree = H.soccerbt("replay", str(path), "--robot", "blue1", "--at", f"{(last + 5) * 0.01:.2f}", "--tree")
    assert tree.returncode == 2 and gap in tree.stderr and "cannot be rebuilt" in tree.stderr
    assert tree.stdout == ""  # no stale tree
    trans = H.soccerbt("replay", str(path), "--robot", "blue1", "--node", "wait", "--transitions")
    assert trans.returncode == 0 and f"{gap}: chunk at byte" in trans.stdout
    assert any(
        line.startswith(gap) and line.endswith("its transitions are unknown") for line in trans.stdout.splitlines()
    )
    listing = H.soccerbt("replay", str(path), "--robot", "blue1")
    assert any(line.startswith(gap) for line in listing.stdout.splitlines())
    btlog = H.soccerbt("replay", str(path), "--robot", "blue1", "--btlog", str(tmp_path / "b.btlog"))
    assert btlog.returncode == 0 and f"{gap}: chunk at byte" in btlog.stderr
    diff = H.soccerbt("replay", "diff", str(whole.path), str(path))
    assert diff.returncode == 1 and f"{path}: {gap}: chunk at byte" in diff.stdout and "not compared" in diff.stdout
    assert "identical" not in diff.stdout


# --- 10. stored trees: the XML limits, nothing recursing on depth -------------------------------------


def _chain(n: int) -> dict:
    nodes = [{"uid": k, "parent": k - 1, "name": f"n{k}", "id": "Sequence" if k < n else "AlwaysSuccess",
              "kind": "Control" if k < n else "Action", "path": f"n{k}", "tree_id": "Main", "ports": {}}
             for k in range(1, n + 1)]
    return {"t": 0.01, "step": 1, "tick": 1, "load": 1, "reason": "load", "nodes": nodes,
            "subtrees": [{"tree_id": "Main", "instance": "", "root": 1}]}


def _with_tree(parts, path: Path, tree: dict) -> Path:
    """The small log with blue1's tree replaced by `tree` (keyframe statuses sized to match)."""
    for m in parts.messages():
        if m.topic == "/robots/blue1/tree":
            m.data = json.dumps(tree).encode()
        elif m.topic == "/robots/blue1/keyframe":
            kf = json.loads(m.data)
            kf["statuses"] = [0] * len(tree["nodes"])
            m.data = json.dumps(kf).encode()  # (the ticks' transitions of the old tree's uids do not matter)
    return parts.write(path)


def test_a_stored_tree_over_the_node_limit_is_refused(small: Path, tmp_path: Path) -> None:
    path = _with_tree(H.read_log(small), tmp_path / "big.mcap", _chain(60_000))
    for args in (["--tree", "--at", "1"], ["--btlog", str(tmp_path / "x.btlog")]):
        proc = H.soccerbt("replay", str(path), "--robot", "blue1", *args, mem_mib=1024)
        assert proc.returncode == 2
        assert proc.stderr.strip().endswith(
            f"{path}: the tree of blue1 (load 1) is damaged (tree: nodes: 60,000 nodes, more than the limit of "
            "20,000 of a tree (SOCCERBT_MAX_TREE_NODES))")
    assert not (tmp_path / "x.btlog").exists()


def test_a_deep_stored_tree_prints_and_exports_without_recursion(small: Path, tmp_path: Path) -> None:
    path = _with_tree(H.read_log(small), tmp_path / "deep.mcap", _chain(19_000))
    proc = H.soccerbt("replay", str(path), "--robot", "blue1", "--tree", "--at", "1", mem_mib=1024)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1].startswith("truth: ball ") and lines[2].startswith("truth: blue1 at ")
    assert lines[3][2:].startswith("n1 (Sequence) #1:") and max(len(line) for line in lines) < 400
    assert any(line[1:].startswith(" " + "  " * 64 + "[depth 18999] n19000 (AlwaysSuccess) #19000:")
               for line in lines)
    out = tmp_path / "deep.btlog"
    proc = H.soccerbt("replay", str(path), "--robot", "blue1", "--btlog", str(out), mem_mib=1024)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith(b"BTCPP4-FileLogger2")


# --- 12. smaller: names and times on the command line ---------------------------------------------------


def test_bad_names_and_times_are_refused_before_reading(small: Path, tmp_path: Path) -> None:
    cases = [
        (["--robot", "blue1", "--btlog", str(tmp_path / "out.txt")], 2,
         f"soccerbt replay: {tmp_path / 'out.txt'}: a Groot2 log's name must end in .btlog (Groot2 opens no other) "
         "(--btlog)"),
        (["--screenshot", str(tmp_path / "shot.tga")], 2,
         f"soccerbt replay: {tmp_path / 'shot.tga'}: a screenshot is a PNG image: its name must end in .png "
         "(--screenshot)"),
        (["--robot", "blue1", "--at", "1e308", "--tree"], 1, f"{small}: t=1e+308s is after the end of the log (3.00s)"),
        (["--robot", "blue1", "--from", "1e308"], 1, f"{small}: --from 1e+308s is after the end of the log (3.00s)"),
        (["--robot", "blue1", "--from", "10", "--to", "5"], 1,
         "soccerbt replay: --from 10 is after --to 5: nothing to show"),
        (["--robot", "blue1", "--at", "nan"], 2, "expected a time of 0 s or more, got 'nan'"),
    ]
    for args, code, message in cases:
        proc = H.soccerbt("replay", str(small), *args, mem_mib=768)
        assert (proc.returncode, proc.stdout) == (code, ""), (args, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_fifo_or_a_device_given_as_a_log_is_refused_unopened(tmp_path: Path, small: Path) -> None:
    import os

    fifo = tmp_path / "run.mcap"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    message = f"{fifo}: not a regular file (a FIFO or a device); a replay log is a file"
    for args in (["replay", str(fifo), "--info"], ["replay", "diff", str(small), str(fifo)],
                 ["replay", "convert", str(fifo), str(tmp_path / "new.mcap")]):
        proc = H.soccerbt(*args, mem_mib=768, timeout=60)
        assert proc.returncode == 2 and proc.stderr.strip().endswith(message), (args, proc.stderr)
    proc = H.soccerbt("replay", "/dev/zero", "--info", mem_mib=768, timeout=60)
    assert (proc.returncode, proc.stderr) == (2, "/dev/zero: not a regular file (a FIFO or a device); a replay log "
                                                 "is a file\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.mcap"]


def test_a_json_lines_log_with_an_endless_line_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "old.jsonl.gz"  # 40 MiB of one line, in a few dozen KB
    with gzip.open(path, "wb") as f:
        f.write(b'{"type": "header", "pad": "')
        for _ in range(40):
            f.write(b"x" * (1 << 20))
        f.write(b'"}\n')
    proc = H.soccerbt("replay", "convert", str(path), str(tmp_path / "new.mcap"), mem_mib=768, timeout=60)
    assert (proc.returncode, proc.stderr) == (2, f"{path}:1: a line longer than 16777216 bytes: not a soccerbt "
                                                 "replay log\n")
    assert not (tmp_path / "new.mcap").exists()


def test_a_stored_trees_node_limit_is_the_loaders() -> None:
    from soccerbt.log import format as lf
    from soccerbt.trees.factory import DEFAULT_MAX_NODES
    from soccerbt.trees.xmlload import MAX_ATTRIBUTES

    assert (lf.DEFAULT_MAX_TREE_NODES, lf.MAX_ATTRIBUTES) == (DEFAULT_MAX_NODES, MAX_ATTRIBUTES)


def test_the_viewer_draws_a_state_it_cannot_rebuild_as_unknown(damaged, tmp_path: Path) -> None:
    path, _whole, lost = damaged
    shot = tmp_path / "after-the-gap.png"
    proc = H.soccerbt("replay", str(path), "--screenshot", str(shot), "--at", f"{(lost[-1] + 3) * 0.01:.2f}",
                      "--select", "blue1", mem_mib=1024)
    assert proc.returncode == 0, proc.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"(steps {lost[0]}-{lost[-1]}) missing: chunk at byte" in proc.stderr
