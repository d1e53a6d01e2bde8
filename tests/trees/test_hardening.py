"""Issue 14, items 1-3: untrusted trees never hang, exhaust memory or read outside their folder.

Includes are resolved by the loader only (the agent's watcher uses the same component), only
regular files inside the allowed folders are read, every read is bounded; a DOCTYPE is refused
before lxml sees it; SubTree bombs are refused before anything is built.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from soccerbt.agent import Agent, tree_files
from soccerbt.nodes.soccer.context import RobotContext
from soccerbt.services.world_model import WorldModel
from soccerbt.trees import TreeFactory, TreeLoadError
from soccerbt.trees.factory import DEFAULT_MAX_NODES
from soccerbt.trees.includes import tree_files as engine_tree_files
from soccerbt.trees.xmlload import DEFAULT_MAX_FILE_BYTES
from soccerbt.world.field import Field
from soccerbt.world.types import Observations, Pose2D, RobotCommand, RobotId, Team

ROOT = Path(__file__).resolve().parents[2]

MAIN_BODY = '  <BehaviorTree ID="Main">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n'


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def including(target: str) -> str:
    """A tree whose line 2 includes `target`."""
    return (f'<root BTCPP_format="4" main_tree_to_execute="Main">\n<include path="{target}"/>\n'
            f'{MAIN_BODY}</root>\n')


def bomb(depth: int) -> str:
    """Each tree instantiates the next one twice: 2**depth leaves from a few hundred bytes."""
    parts = ['<root BTCPP_format="4" main_tree_to_execute="T0">']
    for i in range(depth):
        parts.append(f'<BehaviorTree ID="T{i}"><Sequence><SubTree ID="T{i + 1}"/>'
                     f'<SubTree ID="T{i + 1}"/></Sequence></BehaviorTree>')
    parts.append(f'<BehaviorTree ID="T{depth}"><AlwaysSuccess/></BehaviorTree></root>')
    return "\n".join(parts) + "\n"


@pytest.fixture
def factory() -> TreeFactory:
    return TreeFactory()


def load_error(factory: TreeFactory, path: Path, **kwargs) -> TreeLoadError:
    with pytest.raises(TreeLoadError) as info:
        factory.create_tree_from_file(path, **kwargs)
    return info.value


# --- 1. includes: one resolver, regular files inside the folder, bounded reads ----------------


def test_defaults() -> None:
    f = TreeFactory()
    assert (f.max_nodes, f.max_file_bytes) == (DEFAULT_MAX_NODES, DEFAULT_MAX_FILE_BYTES)
    assert (DEFAULT_MAX_NODES, DEFAULT_MAX_FILE_BYTES) == (20_000, 8 * 1024 * 1024)
    with pytest.raises(ValueError, match="max_nodes"):
        TreeFactory(max_nodes=0)


def test_include_of_a_fifo_is_refused_without_opening_it(factory, tmp_path) -> None:
    fifo = tmp_path / "pipe.xml"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes
    main = write(tmp_path / "main.xml", including("pipe.xml"))
    err = load_error(factory, main)
    assert (err.path, err.line) == (str(main), 2)
    assert "pipe.xml" in err.message and "FIFO" in err.message and "not a regular file" in err.message
    assert tree_files(main) == [main.resolve()]  # the watcher neither follows nor lists it
    assert any("FIFO" in str(e) for e in factory.validate_file(main))


def test_a_fifo_or_device_as_the_tree_itself_is_refused(factory, tmp_path) -> None:
    fifo = tmp_path / "tree.xml"
    os.mkfifo(fifo)
    err = load_error(factory, fifo)
    assert err.line == 1 and "FIFO" in err.message
    err = load_error(factory, Path("/dev/zero"))
    assert (err.path, err.line) == ("/dev/zero", 1) and "character device" in err.message
    err = load_error(factory, tmp_path)
    assert "directory" in err.message
    assert tree_files(fifo) == []


def test_dev_zero_and_directories_are_refused_even_when_any_include_is_allowed(factory, tmp_path) -> None:
    main = write(tmp_path / "main.xml", including("/dev/zero"))
    err = load_error(factory, main)
    assert err.line == 2 and "leaves the tree's folder" in err.message
    err = load_error(factory, main, allow_any_include=True)
    assert err.line == 2 and "/dev/zero" in err.message and "character device" in err.message
    (tmp_path / "sub").mkdir()
    write(main, including("sub"))
    err = load_error(factory, main)
    assert err.line == 2 and "directory" in err.message


def test_a_symlink_leaving_the_folder_is_refused_and_not_watched(factory, tmp_path) -> None:
    outside = write(tmp_path / "outside" / "secret.xml",
                    '<root BTCPP_format="4"><BehaviorTree ID="S"><AlwaysSuccess/></BehaviorTree></root>')
    trees = tmp_path / "trees"
    trees.mkdir()
    (trees / "link.xml").symlink_to(outside)
    (trees / "zero.xml").symlink_to("/dev/zero")
    main = write(trees / "main.xml", including("link.xml"))
    err = load_error(factory, main)
    assert (err.path, err.line) == (str(main), 2) and "leaves the tree's folder" in err.message
    assert tree_files(main) == [main.resolve()]
    write(main, including("zero.xml"))
    err = load_error(factory, main)
    assert err.line == 2 and "leaves the tree's folder" in err.message
    assert tree_files(main) == [main.resolve()]


def test_size_limit_per_file_names_the_file_and_the_limit(tmp_path) -> None:
    small = TreeFactory(max_file_bytes=4096)
    assert small.max_file_bytes == 4096
    big = write(tmp_path / "big.xml", '<root BTCPP_format="4">\n<!-- '
                + "x" * 5000 + ' -->\n<BehaviorTree ID="B"><AlwaysSuccess/></BehaviorTree></root>\n')
    main = write(tmp_path / "main.xml", including("big.xml"))
    err = load_error(small, main)
    assert (err.path, err.line) == (str(main), 2)
    assert "big.xml" in err.message and "4,096 bytes" in err.message and "max_file_bytes" in err.message
    err = load_error(small, big)
    assert (err.path, err.line) == (str(big), 1) and "4,096" in err.message
    with pytest.raises(TreeLoadError, match="4,096"):
        small.create_tree_from_text(big.read_text())
    small.max_file_bytes = 1 << 20  # raised: it loads
    assert small.create_tree_from_file(main).root.name == "AlwaysSuccess"
    # the watcher lists a file over the limit (so that shrinking it is seen) but never follows it
    write(big, big.read_text().replace("<root BTCPP_format=\"4\">", '<root><include path="x.xml"/>'))
    files = engine_tree_files(main, max_file_bytes=4096)
    assert files == [main.resolve(), big.resolve()]


def test_an_include_in_an_attribute_value_or_cdata_is_no_include(factory, tmp_path) -> None:
    xml = ('<root BTCPP_format="4" main_tree_to_execute="Main">\n'
           '  <BehaviorTree ID="Main">\n'
           '    <Sequence name="see <include path=\'/dev/zero\'/>">\n'
           '      <Script code="msg := \'<include path=&quot;gone.xml&quot;/>\'"/>\n'
           '    </Sequence>\n'
           '  </BehaviorTree>\n'
           '  <TreeNodesModel><![CDATA[ <include path="cdata.xml"/> ]]></TreeNodesModel>\n'
           '  <!-- <include path="comment.xml"/> -->\n'
           '</root>\n')
    main = write(tmp_path / "main.xml", xml)
    write(tmp_path / "gone.xml", "<root/>")  # exists, inside the folder: still not an include
    write(tmp_path / "cdata.xml", "<root/>")
    tree = factory.create_tree_from_file(main)
    assert tree.root.name == "see <include path='/dev/zero'/>"
    assert tree_files(main) == [main.resolve()]
    assert factory.validate_file(main) == []


def test_watcher_and_loader_agree_on_real_includes(factory, tmp_path) -> None:
    write(tmp_path / "sub" / "a.xml", '<root BTCPP_format="4"><include path="b.xml"/>'
          '<include path="../../elsewhere.xml"/><include path="missing.xml"/></root>')
    write(tmp_path / "sub" / "b.xml", '<root BTCPP_format="4"><include path="../main.xml"/></root>')
    main = write(tmp_path / "main.xml", including("sub/a.xml"))
    assert tree_files(main) == [(tmp_path / p).resolve()
                                for p in ("main.xml", "sub/a.xml", "sub/b.xml", "sub/missing.xml")]
    errors = [str(e) for e in factory.validate_file(main)]
    assert any("leaves the tree's folder" in e for e in errors)
    assert any("missing.xml" in e for e in errors)


# --- 2. DOCTYPE --------------------------------------------------------------------------------


DEV_ZERO_PE = ('<?xml version="1.0"?>\n<!DOCTYPE root [<!ENTITY % p SYSTEM "file:///dev/zero"> %p;]>\n'
               f'<root BTCPP_format="4" main_tree_to_execute="Main">\n{MAIN_BODY}</root>\n')


def test_a_doctype_naming_dev_zero_is_refused_at_once(factory, tmp_path) -> None:
    path = write(tmp_path / "dtd.xml", DEV_ZERO_PE)
    err = load_error(factory, path)
    assert (err.path, err.line) == (str(path), 2) and "DOCTYPE" in err.message
    with pytest.raises(TreeLoadError, match="DOCTYPE"):
        factory.create_tree_from_text(DEV_ZERO_PE)


@pytest.mark.parametrize("doctype", [
    '<!DOCTYPE root [<!ENTITY x SYSTEM "file://{target}">]>',
    '<!DOCTYPE root SYSTEM "file://{target}">',
    '<!DOCTYPE root [<!ENTITY % p SYSTEM "file://{target}"> %p;]>',
    '<!DOCTYPE root PUBLIC "-//x//y" "http://127.0.0.1:9/{target}">',
])
def test_no_file_existence_oracle(factory, tmp_path, doctype) -> None:
    """/etc/passwd and a missing file give the same answer (the same message, the same line)."""
    answers = []
    for target in ("/etc/passwd", str(tmp_path / "no-such-file")):
        xml = ('<?xml version="1.0"?>\n' + doctype.format(target=target) + "\n"
               '<root BTCPP_format="4"><BehaviorTree ID="Main"><Leaf v="&x;"/></BehaviorTree></root>\n')
        with pytest.raises(TreeLoadError) as info:
            factory.create_tree_from_text(xml)
        answers.append((info.value.line, info.value.message))
    assert answers[0] == answers[1] and answers[0][0] == 2 and "DOCTYPE" in answers[0][1]


def test_a_doctype_inside_a_comment_or_cdata_is_text(factory) -> None:
    xml = ('<root BTCPP_format="4" main_tree_to_execute="Main">\n<!-- <!DOCTYPE x> -->\n'
           '<BehaviorTree ID="Main"><AlwaysSuccess/></BehaviorTree>\n'
           '<TreeNodesModel><![CDATA[<!DOCTYPE y [<!ENTITY z "z">]>]]></TreeNodesModel></root>\n')
    assert factory.create_tree_from_text(xml).root.name == "AlwaysSuccess"


def test_an_included_file_with_a_doctype_is_located_in_that_file(factory, tmp_path) -> None:
    sub = write(tmp_path / "sub.xml", DEV_ZERO_PE)
    main = write(tmp_path / "main.xml", including("sub.xml"))
    err = load_error(factory, main)
    assert err.path.endswith("sub.xml") and err.line == 2 and "DOCTYPE" in err.message
    assert tree_files(main) == [main.resolve(), sub.resolve()]


# --- 3. SubTree bombs ----------------------------------------------------------------------------


def test_a_small_nested_subtree_file_is_refused_before_building(factory, tmp_path) -> None:
    path = write(tmp_path / "bomb.xml", bomb(24))
    assert path.stat().st_size < 2700
    err = load_error(factory, path)
    assert (err.path, err.line) == (str(path), 2)
    count = 4 * 2**24 - 3  # s(T24) = 1, s(Ti) = 1 Sequence + 2 * (1 SubTree + s(Ti+1))
    assert f"{count:,} nodes" in err.message and "20,000" in err.message and "max_nodes" in err.message
    assert [str(e) for e in factory.validate_file(path)] == [str(err)]


def test_an_astronomic_bomb_is_counted_in_linear_time(factory, tmp_path) -> None:
    path = write(tmp_path / "bomb.xml", bomb(400))
    err = load_error(factory, path)
    assert "more than" in err.message and "max_nodes" in err.message


def test_the_node_limit_is_configurable(tmp_path) -> None:
    path = write(tmp_path / "bomb.xml", bomb(6))  # 4 * 64 - 3 = 253 nodes
    tree = TreeFactory(max_nodes=253).create_tree_from_file(path)
    assert len(tree.subtrees) == 127 and sum(len(s.nodes) for s in tree.subtrees) == 253
    err = load_error(TreeFactory(max_nodes=252), path)
    assert "253 nodes" in err.message and "252" in err.message
    f = TreeFactory(max_nodes=252)
    f.register_behavior_tree_from_file(path)
    with pytest.raises(TreeLoadError, match="253 nodes"):
        f.create_tree("T0")
    f.max_nodes = 1000
    assert f.create_tree("T0").root.name == "Sequence"


def test_env_variables_set_the_defaults(monkeypatch) -> None:
    monkeypatch.setenv("SOCCERBT_MAX_TREE_NODES", "123")
    monkeypatch.setenv("SOCCERBT_MAX_TREE_BYTES", "4567")
    f = TreeFactory()
    assert (f.max_nodes, f.max_file_bytes) == (123, 4567)
    assert TreeFactory(max_nodes=5).max_nodes == 5


def test_duplicate_subtree_paths_are_still_detected(factory) -> None:
    xml = ('<root BTCPP_format="4" main_tree_to_execute="Main">\n<BehaviorTree ID="Main">\n'
           '<Sequence>\n<SubTree ID="S" name="same"/>\n<SubTree ID="S" name="same"/>\n</Sequence>\n'
           '</BehaviorTree>\n<BehaviorTree ID="S"><AlwaysSuccess/></BehaviorTree>\n</root>\n')
    with pytest.raises(TreeLoadError, match="Duplicate SubTree path detected: 'same'") as info:
        factory.create_tree_from_text(xml)
    assert info.value.line == 5


# --- validate on the command line --------------------------------------------------------------


def _memory_limit() -> None:  # 1.5 GB of address space: a read of /dev/zero or a bomb would die
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))


def run_validate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "soccerbt", "validate", "--no-soccer", *args],
                          capture_output=True, text=True, cwd=ROOT, preexec_fn=_memory_limit)


def test_validate_reports_refused_files_with_path_line_message(tmp_path) -> None:
    os.mkfifo(tmp_path / "pipe.xml")
    fifo_main = write(tmp_path / "fifo_main.xml", including("pipe.xml"))
    dtd = write(tmp_path / "dtd.xml", DEV_ZERO_PE)
    bomb_file = write(tmp_path / "bomb.xml", bomb(24))
    write(tmp_path / "big.xml", '<root BTCPP_format="4"><!-- ' + "x" * 3000 + " --></root>")
    big_main = write(tmp_path / "big_main.xml", including("big.xml"))
    good = write(tmp_path / "good.xml", f'<root BTCPP_format="4">\n{MAIN_BODY}</root>\n')
    proc = run_validate(str(fifo_main), str(dtd), str(bomb_file), str(big_main), str(good))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith(f"{fifo_main}:2: ") and "FIFO" in line for line in lines)
    assert any(line.startswith(f"{dtd}:2: ") and "DOCTYPE" in line for line in lines)
    assert any(line.startswith(f"{bomb_file}:2: ") and "67,108,861 nodes" in line for line in lines)
    assert f"{good}: ok" in lines
    assert f"{big_main}: ok" in lines  # 3 KB is under the default limit
    zero = write(tmp_path / "zero.xml", including("/dev/zero"))
    attr = write(tmp_path / "attr.xml", including("good.xml").replace(
        "<AlwaysSuccess/>", "<AlwaysSuccess name=\"see <include path='/dev/zero'/>\"/>"))
    proc = run_validate("--allow-any-include", str(zero), str(attr))
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        f"{zero}:2: cannot include \"/dev/zero\" (/dev/zero): not a regular file (a character "
        "device); a tree must be a file", f"{attr}: ok"]
    proc = run_validate("--max-file-bytes", "1000", str(big_main))
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"{big_main}:2: ") and "1,000 bytes" in proc.stdout
    proc = run_validate("--max-nodes", "1000", str(write(tmp_path / "b6.xml", bomb(6))))
    assert proc.returncode == 0 and proc.stdout.strip().endswith(": ok")
    assert "Traceback" not in proc.stderr


# --- hot reload through the agent ------------------------------------------------------------


FIELD = Field.adult_size()
ROBOT = RobotId(Team.BLUE, 4)


class Driver:
    def sense(self) -> Observations:
        return Observations(0.0, False, (), Pose2D(), 0.0, False, 0.0, 0.0)

    def act(self, command: RobotCommand) -> None:
        pass


GOOD = ('<root BTCPP_format="4" main_tree_to_execute="Main">\n<include path="sub.xml"/>\n'
        '  <BehaviorTree ID="Main">\n    <SubTree ID="Sub"/>\n  </BehaviorTree>\n</root>\n')
SUB = '<root BTCPP_format="4"><BehaviorTree ID="Sub"><AlwaysSuccess/></BehaviorTree></root>\n'


def make_agent(tmp_path: Path, factory: TreeFactory) -> tuple[Agent, Path, list]:
    main = write(tmp_path / "main.xml", GOOD)
    write(tmp_path / "sub.xml", SUB)
    for p in (main, tmp_path / "sub.xml"):
        os.utime(p, ns=(10**9, 10**9))
    context = RobotContext(robot=ROBOT, field=FIELD, clock=lambda: 0.0,
                           world_model=WorldModel(FIELD, Team.BLUE))
    events: list = []
    agent = Agent(ROBOT, Driver(), context, main,
                  lambda p: factory.create_tree_from_file(p, context=context), on_event=events.append)
    return agent, main, events


def change(path: Path, text: str, t_ns: int) -> None:
    path.write_text(text)
    os.utime(path, ns=(t_ns, t_ns))


@pytest.mark.parametrize("case", ["fifo", "dev_zero_in_attribute", "doctype", "bomb", "too_big"])
def test_hot_reload_of_a_hostile_tree_reports_once_and_keeps_the_running_tree(tmp_path, case) -> None:
    factory = TreeFactory(max_file_bytes=4096)
    agent, main, events = make_agent(tmp_path, factory)
    running = agent.tree
    agent.step(0.01)
    expect = {"fifo": "FIFO", "doctype": "DOCTYPE", "bomb": "max_nodes", "too_big": "4,096 bytes",
              "dev_zero_in_attribute": "Nope"}[case]
    if case == "fifo":
        os.mkfifo(tmp_path / "pipe.xml")
        change(main, GOOD.replace("sub.xml", "pipe.xml"), 2 * 10**9)
    elif case == "dev_zero_in_attribute":  # not an include: the tree fails for its unknown node
        change(main, GOOD.replace('<SubTree ID="Sub"/>',
                                  '<Nope name="see <include path=\'/dev/zero\'/>"/>'), 2 * 10**9)
    elif case == "doctype":
        change(tmp_path / "sub.xml", DEV_ZERO_PE.replace('"Main"', '"Sub"'), 2 * 10**9)
    elif case == "bomb":
        change(tmp_path / "sub.xml", bomb(24).replace('"T0"', '"Sub"'), 2 * 10**9)
    else:
        change(tmp_path / "sub.xml", SUB.replace("<AlwaysSuccess/>", "<!--" + "x" * 5000 + "-->"
                                                 "<AlwaysSuccess/>"), 2 * 10**9)
    result = agent.reload_tree_if_changed()
    assert result is not None and not result.reloaded
    assert expect in result.error and result.error.split(":")[1].isdigit()  # path:line: message
    assert agent.tree is running
    assert agent.reload_tree_if_changed() is None  # reported once
    for k in range(2, 5):
        agent.step(k * 0.01)
    assert agent.tree is running and agent.last_status.name == "SUCCESS"
    assert [e.kind for e in events] == ["tree_reload_failed"]
    assert all(p.resolve() != Path("/dev/zero") for p in agent._watched)
    change(main, GOOD, 3 * 10**9)  # repaired: loads again
    change(tmp_path / "sub.xml", SUB, 3 * 10**9)
    assert agent.reload_tree_if_changed().reloaded
