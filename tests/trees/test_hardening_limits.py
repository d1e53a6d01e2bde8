"""Issue 28, item 12: the worst tree file under the size limit loads in seconds. An element may
carry at most MAX_ATTRIBUTES attributes (lxml checks duplicates in quadratic time: 100,000 took
52 s), a script at most MAX_SCRIPT_CHARS characters and a file's scripts MAX_SCRIPT_CHARS_PER_FILE
in all (an 8 MB Script took 29 s and 2 GB); refused with ``path:line: message`` before lxml or
the script compiler sees them."""
from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from soccerbt.trees import TreeFactory, TreeLoadError
from soccerbt.trees.xmlload import MAX_ATTRIBUTES, MAX_SCRIPT_CHARS, MAX_SCRIPT_CHARS_PER_FILE

ROOT = Path(__file__).resolve().parents[2]
HEAD = '<root BTCPP_format="4" main_tree_to_execute="Main">\n<BehaviorTree ID="Main">\n<Sequence>\n'
TAIL = "</Sequence>\n</BehaviorTree>\n</root>\n"


def _script(chars: int) -> str:
    text = "; ".join(f"x{k} := {k}" for k in range(chars // 6 + 10))
    return text[:chars].rstrip("; ")[:chars]


def _error(xml: str) -> TreeLoadError:
    with pytest.raises(TreeLoadError) as info:
        TreeFactory().create_tree_from_text(xml)
    return info.value


def test_limits() -> None:
    assert (MAX_ATTRIBUTES, MAX_SCRIPT_CHARS, MAX_SCRIPT_CHARS_PER_FILE) == (256, 65_536, 262_144)


def test_an_element_with_too_many_attributes_is_refused_at_its_line() -> None:
    attrs = "\n".join(f'a{k}="1"' for k in range(300))
    err = _error(HEAD + f"<AlwaysSuccess\n{attrs}/>\n" + TAIL)
    assert (err.line, err.message) == (4 + 1 + MAX_ATTRIBUTES, "an element with more than 256 attributes (300); "
                                                               "no BehaviorTree.CPP node has that many ports")


@pytest.mark.parametrize("element,name", [
    ('<Script code="{s}"/>', "code"),
    ('<ScriptCondition code="{s}"/>', "code"),
    ('<AlwaysSuccess _while="{s}"/>', "_while"),
    ('<Precondition if="{s}" else="FAILURE"><AlwaysSuccess/></Precondition>', "if"),
    ('<Action ID="Script" code="{s}"/>', "code"),
])
def test_a_script_too_long_is_refused_at_its_line(element: str, name: str) -> None:
    err = _error(HEAD + "\n" + element.format(s=_script(MAX_SCRIPT_CHARS + 10)) + "\n" + TAIL)
    assert (err.line, err.message) == (5, f"the script in {name} has {MAX_SCRIPT_CHARS + 10:,} characters, more "
                                          f"than {MAX_SCRIPT_CHARS:,}")
    TreeFactory().create_tree_from_text(HEAD + element.format(s=_script(MAX_SCRIPT_CHARS - 10)) + TAIL)  # loads


def test_too_many_script_characters_in_one_file_are_refused() -> None:
    one = _script(MAX_SCRIPT_CHARS - 100)
    body = "".join(f'<Script code="{one}"/>\n' for _ in range(5))
    err = _error(HEAD + body + TAIL)
    assert (err.line, err.message) == (8, "the scripts of this file pass 262,144 characters in all")
    TreeFactory().create_tree_from_text(HEAD + "".join(f'<Script code="{one}"/>\n' for _ in range(3)) + TAIL)


def _memory_limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))


@pytest.mark.parametrize("kind", ["attributes", "scripts", "one_script"])
def test_the_worst_file_under_the_size_limit_validates_in_bounded_time_and_memory(tmp_path: Path, kind: str) -> None:
    limit = 8 * 1024 * 1024 - 200
    if kind == "attributes":
        element = "<AlwaysSuccess " + " ".join(f'a{k}="1"' for k in range(MAX_ATTRIBUTES)) + "/>\n"
        expect = "a port with name [a0] is found in the XML"
    elif kind == "scripts":
        element = f'<Script code="{_script(MAX_SCRIPT_CHARS - 10)}"/>\n'
        expect = "the scripts of this file pass 262,144 characters in all"
    else:
        element = ""
        expect = "characters, more than 65,536"
    body = element * (limit // len(element)) if element else f'<Script code="{_script(limit - 100)}"/>\n'
    path = tmp_path / "worst.xml"
    path.write_text(HEAD + body + TAIL)
    proc = subprocess.run([sys.executable, "-m", "soccerbt", "validate", str(path)], capture_output=True, text=True,
                          cwd=ROOT, preexec_fn=_memory_limit, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stdout.startswith(f"{path}:") and expect in proc.stdout
