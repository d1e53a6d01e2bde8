"""Issue 28, items 5, 6 and 12: outputs are written through to a character device or a FIFO, at a
symbolic link's target, never replaced; a block device, a socket or a directory is refused; the
temporary file of an atomic write is created exclusively, never through a link planted at a
guessable name; "never over an input" covers every file a tree includes; two options naming one
file (by any name: a link, /proc/self/fd/N) are refused; all before any work starts.

No test writes to the machine's /dev/null: a character device of its own (the same numbers,
made with mknod) stands for it.
"""
from __future__ import annotations

import os
import shutil
import socket
import stat
import threading
from pathlib import Path

import pytest
import soccerbt_tests_hostile as H  # noqa: E402 - registered by tests/conftest.py

from soccerbt.cli.outputs import OutputRefused, check_output_path, write_atomically

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

ROOT = Path(__file__).resolve().parents[2]


def _device(path: Path, kind: int, major: int, minor: int) -> Path:
    try:
        os.mknod(path, kind | 0o666, os.makedev(major, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here ({exc})")
    return path


@pytest.fixture
def null(tmp_path: Path) -> Path:
    """A character device of our own that behaves as /dev/null (1, 3)."""
    return _device(tmp_path / "null", stat.S_IFCHR, 1, 3)


def _read_fifo(path: Path, got: list[bytes]) -> threading.Thread:
    def reader() -> None:
        with open(path, "rb") as f:
            got.append(f.read())
    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return thread


# --- the writer: through, at the target, refused, exclusive ----------------------------------------


def test_a_character_device_is_written_through_never_replaced(null: Path) -> None:
    before = os.stat(null)
    write_atomically(null, "summary\n")
    after = os.lstat(null)
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert os.listdir(null.parent) == ["null"]  # no temporary file beside it


def test_a_fifo_is_written_through_to_its_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    thread = _read_fifo(fifo, got)
    write_atomically(fifo, b"through the pipe\n")
    thread.join(10)
    assert got == [b"through the pipe\n"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_symlink_is_kept_and_its_target_written(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_atomically(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o640
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "made.json")
    write_atomically(dangling, "made")
    assert dangling.is_symlink() and (tmp_path / "made.json").read_text() == "made"


def test_a_link_planted_at_a_guessable_temporary_name_is_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    out = tmp_path / "r.json"
    for pid in {os.getpid(), os.getppid()}:  # the names the first hardening used
        for name in (f".r.json.{pid}.part", "r.json.part", ".r.json.part"):
            (tmp_path / name).unlink(missing_ok=True)
            (tmp_path / name).symlink_to(victim)
    write_atomically(out, "result")
    assert out.read_text() == "result" and victim.read_text() == "precious"
    assert not any(p.name.endswith(".part") and not p.is_symlink() for p in tmp_path.iterdir())


def test_a_block_device_a_socket_and_a_directory_are_refused(tmp_path: Path) -> None:
    sock_path = tmp_path / "sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    try:
        assert check_output_path(sock_path) == f"{sock_path}: is a socket"
        with pytest.raises(OutputRefused, match="is a socket"):
            write_atomically(sock_path, "x")
    finally:
        sock.close()
    assert check_output_path(tmp_path) == f"{tmp_path}: is a directory"
    disk = _device(tmp_path / "disk", stat.S_IFBLK, 7, 200)  # a loop device's numbers: never opened
    message = (f"{disk}: is a block device: soccerbt writes files, character devices (/dev/null) and FIFOs, "
               "never a disk")
    assert check_output_path(disk) == message
    with pytest.raises(OutputRefused, match="is a block device"):
        write_atomically(disk, "x")
    assert stat.S_ISBLK(os.lstat(disk).st_mode)


def test_a_name_soccerbt_chose_is_replaced_as_an_entry_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    game = tmp_path / "seed-0000-A-blue-B-red.json"
    game.symlink_to(victim)
    with pytest.raises(OutputRefused, match="not a regular file"):
        write_atomically(game, "{}", follow=False)
    assert victim.read_text() == "precious" and game.is_symlink()


def test_the_same_file_by_any_name_is_an_input(tmp_path: Path) -> None:
    tree = tmp_path / "t.xml"
    tree.write_text("<root/>")
    (tmp_path / "alias.xml").symlink_to(tree)
    os.link(tree, tmp_path / "hard.xml")
    for name in ("alias.xml", "hard.xml"):
        assert (
            check_output_path(tmp_path / name, [tree]) == f"{tmp_path / name}: would overwrite an input file ({tree})"
        )
    fd = os.open(tree, os.O_RDONLY)
    try:
        proc_name = f"/proc/self/fd/{fd}"
        if os.path.exists(proc_name):
            assert "would overwrite an input file" in check_output_path(proc_name, [tree])
    finally:
        os.close(fd)


# --- the commands: checked before any work -----------------------------------------------------------


@pytest.fixture
def trees(tmp_path: Path) -> Path:
    """Our own trees (game.xml and its includes) in a folder of the test's."""
    folder = tmp_path / "trees"
    shutil.copytree(ROOT / "soccerbt" / "trees" / "xml", folder)
    return folder


QUICK = ["--seconds", "1", "--team-size", "1", "--field", "kid", "--seeds", "0", "--jobs", "1", "--quiet"]


def test_the_reported_case_sweep_json_onto_a_device_writes_through(trees: Path, null: Path) -> None:
    proc = H.soccerbt("sweep", "--tree", str(trees / "game.xml"), "--param", "SimpleChase.vx_limit=1.0", *QUICK,
                      "--json", str(null), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.lstat(null).st_mode) and sorted(os.listdir(null.parent)) == ["null", "trees"]


def test_batch_json_onto_a_fifo_is_written_to_its_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    got: list[bytes] = []
    thread = _read_fifo(fifo, got)
    proc = H.soccerbt("batch", *QUICK, "--json", str(fifo), timeout=300)
    thread.join(10)
    assert proc.returncode == 0, proc.stderr
    assert got and got[0].startswith(b"{") and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def _include(folder: Path, name: str) -> Path:
    """game.xml of `folder` includes a file `name` (a valid tree file), which is returned."""
    inc = folder / name
    inc.write_text('<root BTCPP_format="4"><BehaviorTree ID="Spare"><AlwaysSuccess/></BehaviorTree></root>\n')
    game = folder / "game.xml"
    text = game.read_text()
    at = text.index(">", text.index("<root ")) + 1
    game.write_text(f'{text[:at]}\n  <include path="{name}"/>{text[at:]}')
    return inc


@pytest.mark.parametrize("command,option,name", [
    ("batch", "--json", "spare.json"),
    ("run", "--record", "spare.mcap"),
    ("run", "--screenshot", "spare.png"),
])
def test_an_output_onto_a_file_the_tree_includes_is_refused_before_playing(trees: Path, command: str, option: str,
                                                                          name: str) -> None:
    inc = _include(trees, name)
    before = inc.read_bytes()
    args = [*QUICK] if command == "batch" else ["--headless", "--seconds", "1", "--team-size", "1", "--field", "kid"]
    proc = H.soccerbt(command, "--tree", str(trees / "game.xml"), *args, option, str(inc), timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == f"soccerbt {command}: {inc}: would overwrite an input file ({option})\n"
    assert proc.stdout == "" and inc.read_bytes() == before


def test_two_options_naming_one_file_are_refused(trees: Path, tmp_path: Path) -> None:
    sweep = ["sweep", "--tree", str(trees / "game.xml"), "--param", "SimpleChase.vx_limit=1.0", *QUICK]
    same = tmp_path / "best.xml"
    proc = H.soccerbt(*sweep, "--best-out", str(same), "--json", str(same))
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"soccerbt sweep: {same}: given to both --best-out and --json\n"
    proc = H.soccerbt(*sweep, "--best-out", "/dev/stdout", "--json", "/proc/self/fd/1")  # stdout: one pipe
    assert (
        proc.returncode == 2 and proc.stderr == "soccerbt sweep: /proc/self/fd/1: given to both --best-out and --json\n"
    )
    out = tmp_path / "runs"
    out.mkdir()
    for name in ("seed-0000-A-blue-B-red.json", "summary.json"):
        proc = H.soccerbt("batch", *QUICK, "--out", str(out), "--json", str(out / name))
        assert proc.returncode == 2
        assert (
            proc.stderr == f"soccerbt batch: {out / name}: given to both --out (its file {name}) and --json (--json)\n"
        )
    assert os.listdir(out) == []
    proc = H.soccerbt("run", "--headless", "--seconds", "1", "--record", str(tmp_path / "a.mcap"), "--screenshot",
                      str(tmp_path / "a.jpg"))
    assert proc.returncode == 2
    assert proc.stderr == (f"soccerbt run: {tmp_path / 'a.jpg'}: a screenshot is a PNG image: its name must end "
                           "in .png (--screenshot)\n")


def test_a_replay_log_must_be_a_regular_file(tmp_path: Path, null: Path) -> None:
    proc = H.soccerbt("run", "--headless", "--seconds", "1", "--record", str(null))
    assert proc.returncode == 2
    assert proc.stderr == (f"soccerbt run: {null}: is a character device: this output must be a regular file "
                           "(--record)\n")
