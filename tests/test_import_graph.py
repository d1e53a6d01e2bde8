"""The import graph of soccerbt: no cycle, and the floors of shared/DESIGN.md.

Every module under soccerbt/ is parsed with ``ast`` (nothing is imported). An edge A -> B is any
``import`` or ``from ... import`` of B anywhere in A: at module level, inside a function, or
under ``if TYPE_CHECKING`` (a deferred import is still a dependency). ``from x import y`` is an
edge to the module ``x.y`` when there is one, else to ``x``; relative imports are resolved. An
import of a submodule counts as an edge to that submodule only, not to the packages around it.

- No cycle, not even two modules that import each other: where two modules need each other,
  a module below both, a protocol or a callback is the seam.
- The floors of shared/DESIGN.md, from the ground up (a module imports only from its own floor
  or below): world, blackboard, native (compiled hot paths) -> services, gamecontroller, drivers -> nodes -> trees ->
  agent (with brain_setup, which assembles one) -> match -> cli (what every command shares) -> log (the
  log as a library) -> resim, live, groot -> robot (soccerbt brain), serve (soccerbt sim) -> tools ->
  __main__; testing (the fake robot a team's node tests use) stands with trees. Nothing below tools imports it: the
  robot's program needs no viewer. A top-level module or package not named here (a new one) is left out of this check
  until it is given a floor.
- blackboard, nodes outside nodes/soccer and trees know nothing of soccer (the trees' command
  modules ``trees/cli_*`` register the soccer nodes: they are commands, not the engine).
- The floors inside soccerbt.tools (soccerbt/tools/__init__.py): viewer -> replay -> batch ->
  run_cli, view_cli, sim_cli; and soccerbt.cli imports neither pygame nor scipy.
"""
from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import soccerbt

ROOT = Path(soccerbt.__file__).resolve().parent

FLOORS = {"world": 0, "blackboard": 0, "native": 0, "services": 1, "gamecontroller": 1, "drivers": 1, "nodes": 2,
          "trees": 3, "agent": 4, "brain_setup": 4, "match": 5, "cli": 6, "log": 7, "resim": 8, "live": 8,
          "robot": 9, "serve": 9, "tools": 10, "__main__": 11, "testing": 3, "groot": 8}
TOOLS_FLOORS = {"viewer": 1, "replay": 2, "batch": 3, "run_cli": 4, "view_cli": 4, "sim_cli": 4}


@cache
def modules() -> dict[str, Path]:
    """Module name -> file, for every module of soccerbt (packages by their __init__)."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ["soccerbt", *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _nearest_module(name: str) -> str | None:
    mods = modules()
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


@cache
def graph() -> dict[str, frozenset[tuple[str, int]]]:
    """Module -> the soccerbt modules it imports, each with the line of the import."""
    mods = modules()
    out = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[tuple[str, int]] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in mods else source
                           for alias in node.names]
            else:
                continue
            for target in targets:
                if target == "soccerbt" or target.startswith("soccerbt."):
                    found = _nearest_module(target)
                    if found is not None and found != name:
                        edges.add((found, node.lineno))
        out[name] = frozenset(edges)
    return out


def _targets(name: str) -> set[str]:
    return {target for target, _line in graph()[name]}


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph()):
        if start in index:
            continue
        work = [(start, iter(sorted(_targets(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(_targets(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _where(source: str, target: str) -> str:
    lines = sorted(line for t, line in graph()[source] if t == target)
    return f"{modules()[source].relative_to(ROOT.parent)}:{lines[0]}: {source} imports {target}"


def test_the_graph_sees_every_kind_of_import() -> None:
    edges = graph()
    assert len(modules()) > 100
    assert "soccerbt.log.format" in _targets("soccerbt.log.reader")  # from pkg import module
    assert "soccerbt.gamecontroller.hsl_protocol" in _targets("soccerbt.gamecontroller.protocol")
    assert "soccerbt.tools.replay.mcap_view" in _targets("soccerbt.tools.replay.replay_cli")  # inside a function
    assert "soccerbt.match" in _targets("soccerbt.cli.match_options")
    assert all(target in modules() for targets in edges.values() for target, _line in targets)


def test_no_two_modules_import_each_other() -> None:
    pairs = sorted({tuple(sorted((a, b))) for a in graph() for b in _targets(a) if a in _targets(b)})
    assert not pairs, "modules that import each other:\n" + "\n".join(
        f"  {_where(a, b)}\n  {_where(b, a)}" for a, b in pairs)


def test_no_import_cycle() -> None:
    cycles = _cycles()
    assert not cycles, "import cycles:\n" + "\n".join("  " + " <-> ".join(c) for c in cycles)


def _floor(name: str) -> int | None:
    parts = name.split(".")
    return -1 if len(parts) == 1 else FLOORS.get(parts[1])  # soccerbt/__init__ (the version): the ground


def test_every_import_stays_on_its_floor_or_goes_below() -> None:
    wrong = [_where(a, b) for a in sorted(graph()) for b in sorted(_targets(a))
             if _floor(a) is not None and _floor(b) is not None and _floor(b) > _floor(a)]
    assert not wrong, "imports from a higher floor (shared/DESIGN.md):\n" + "\n".join(wrong)


def test_the_engine_knows_nothing_of_soccer() -> None:
    engine = [name for name in graph() if name.split(".")[1:2] in (["blackboard"], ["nodes"], ["trees"])
              and not name.startswith("soccerbt.nodes.soccer") and not name.startswith("soccerbt.trees.cli_")]
    assert len(engine) > 20
    wrong = [_where(a, b) for a in engine for b in sorted(_targets(a)) if b.startswith("soccerbt.nodes.soccer")]
    assert not wrong, "\n".join(wrong)


def _tools_floor(name: str) -> int | None:
    parts = name.split(".")
    return TOOLS_FLOORS.get(parts[2]) if len(parts) > 2 and parts[1] == "tools" else None


def test_the_tools_packages_keep_their_floors() -> None:
    tools = [name for name in graph() if _tools_floor(name) is not None]
    assert {name.split(".")[2] for name in tools} == set(TOOLS_FLOORS)
    wrong = [_where(a, b) for a in sorted(tools) for b in sorted(_targets(a))
             if _tools_floor(b) is not None and _tools_floor(b) > _tools_floor(a)]
    assert not wrong, "imports from a higher floor of soccerbt.tools:\n" + "\n".join(wrong)
    for name in tools:  # a package's __init__ imports nothing: a command imports only what it needs
        if modules()[name].name == "__init__.py":
            assert not graph()[name], name


def test_the_shared_command_plumbing_imports_no_heavy_module() -> None:
    for name, path in modules().items():
        if name.startswith("soccerbt.cli"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                        for alias in node.names}
            imported |= {
                (node.module or "").split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            }
            assert not imported & {"pygame", "scipy", "shapely"}, name


def _deferred_imports(path: Path) -> list[tuple[int, bool]]:
    """(line, says why) of every import inside a function of a module: it says why when a
    ``# deferred:`` comment stands on its line, on its ``try:`` line, or in the comment block just
    above it, or when it follows such an import directly (one comment heads a run of imports)."""
    lines = path.read_text().splitlines()
    tree = ast.parse("\n".join(lines))
    found: dict[int, bool] = {}
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(func):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.lineno in found:
                continue
            k = node.lineno - 1
            says = "# deferred:" in lines[k]
            above = k - 1
            while not says and above >= 0 and lines[above].strip().startswith(("#", "try:")):
                says = "# deferred:" in lines[above]
                above -= 1
            if not says and found.get(k) is True:  # directly after an import that says why
                says = True
            found[node.end_lineno or node.lineno] = found[node.lineno] = says
    return sorted((line, says) for line, says in found.items())


def test_an_import_inside_a_function_says_why_it_waits() -> None:
    # imports stand at the top of a module unless an optional dependency or a measured start-up
    # cost needs them deferred (shared/DESIGN.md); the reason is written beside the import
    silent = [f"{path.relative_to(ROOT.parent)}:{line}" for path in modules().values()
              for line, says in _deferred_imports(path) if not says]
    assert not silent, "imports inside a function without a '# deferred: why' comment:\n  " + "\n  ".join(silent)


def test_no_private_name_is_imported_across_packages() -> None:
    crossing = []
    for name, path in modules().items():
        package = name.split(".")[1] if name.count(".") else ""
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or node.level or not (node.module or "").startswith("soccerbt."):
                continue
            if node.module.split(".")[1] == package:
                continue
            crossing += [f"{path.relative_to(ROOT.parent)}:{node.lineno}: {node.module}.{alias.name}"
                         for alias in node.names if alias.name.startswith("_")]
    assert not crossing, "private names imported across packages:\n  " + "\n  ".join(crossing)
