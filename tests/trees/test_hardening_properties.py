"""Property tests for issue 14: DOCTYPEs, includes and nested SubTrees given to the loader only
ever produce a tree or a located TreeLoadError, and never read what they name."""
from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soccerbt.trees import TreeFactory, TreeLoadError
from soccerbt.trees.includes import tree_files
from soccerbt.trees.loading import _DocSet, expanded_size

TREE = '<BehaviorTree ID="Main"><AlwaysSuccess/></BehaviorTree>'
TARGETS = ["/dev/zero", "/etc/passwd", "/no/such/file", "sub.xml", "../up.xml", "http://127.0.0.1:9/x",
           "pipe", "."]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TARGETS), st.sampled_from([
    '<!DOCTYPE root [<!ENTITY x SYSTEM "{t}">]>', '<!DOCTYPE root SYSTEM "{t}">',
    '<!DOCTYPE root [<!ENTITY % p SYSTEM "{t}"> %p;]>', '<!ENTITY x "{t}">',
    '<!DOCTYPE root [<!ELEMENT root ANY>]>', '<!DOCTYPE root>']),
    st.integers(min_value=0, max_value=3), st.booleans())
def test_any_declaration_is_refused_on_its_own_line(target, decl, blank_lines, xml_decl):
    head = ('<?xml version="1.0"?>\n' if xml_decl else "") + "\n" * blank_lines
    xml = head + decl.format(t=target) + f'\n<root BTCPP_format="4">{TREE}</root>\n'
    try:
        TreeFactory().create_tree_from_text(xml)
    except TreeLoadError as err:
        assert err.line == head.count("\n") + 1 and "DOCTYPE" in err.message
    else:
        raise AssertionError("a declaration was accepted")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(TARGETS), st.sampled_from(["element", "attribute", "cdata",
                                                                    "comment"])), max_size=4))
def test_includes_resolve_only_through_the_loader(tmp_path: Path, includes) -> None:
    sub = tmp_path / "sub.xml"
    sub.write_text('<root BTCPP_format="4"><BehaviorTree ID="S"><AlwaysSuccess/></BehaviorTree></root>')
    parts = []
    for target, where in includes:
        tag = f'<include path="{target}"/>'
        parts.append({"element": tag, "attribute": f'<TreeNodesModel name="{tag.replace(chr(34), "&quot;")}"/>',
                      "cdata": f"<TreeNodesModel><![CDATA[{tag}]]></TreeNodesModel>",
                      "comment": f"<!-- {tag} -->"}[where])
    main = tmp_path / "main.xml"
    main.write_text(f'<root BTCPP_format="4" main_tree_to_execute="Main">{"".join(parts)}{TREE}</root>')
    files = tree_files(main)
    root = tmp_path.resolve()
    assert all(root in f.parents for f in files)  # never outside the folder
    # only real <include> elements count; missing targets inside the folder are watched too
    watched = ("sub.xml", "pipe", "http://127.0.0.1:9/x")
    expect = {main.resolve()} | {(root / t).resolve() for t, where in includes
                                 if where == "element" and t in watched}
    assert set(files) == expect
    try:
        TreeFactory().create_tree_from_file(main)
    except TreeLoadError as err:
        assert err.line is not None and err.path == str(main)


def bomb_docset(factory: TreeFactory, tmp_path: Path, widths: list[int]) -> tuple[_DocSet, int]:
    """T_i instantiates T_{i+1} widths[i] times; returns the docset and the expected size."""
    n = len(widths)
    xml = ['<root BTCPP_format="4" main_tree_to_execute="T0">']
    for i, w in enumerate(widths):
        xml.append(f'<BehaviorTree ID="T{i}"><Sequence>' + f'<SubTree ID="T{i + 1}"/>' * w
                   + "</Sequence></BehaviorTree>")
    xml.append(f'<BehaviorTree ID="T{n}"><AlwaysSuccess/></BehaviorTree></root>')
    path = tmp_path / "b.xml"
    path.write_text("".join(xml))
    size = 1
    for w in reversed(widths):
        size = 1 + w * (1 + size)
    factory.register_behavior_tree_from_file(path)
    return factory._registered, size


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(min_value=1, max_value=4), min_size=1, max_size=30))
def test_expanded_size_is_exact_and_the_limit_holds(tmp_path: Path, widths) -> None:
    factory = TreeFactory(max_nodes=5000)
    docset, size = bomb_docset(factory, tmp_path, widths)
    assert expanded_size(docset, "T0") == min(size, 1 << 62)
    try:
        tree = factory.create_tree("T0")
    except TreeLoadError as err:
        assert size > 5000 and "max_nodes" in err.message and err.line is not None
    else:
        assert size <= 5000 and sum(len(s.nodes) for s in tree.subtrees) == size
