"""Parameter sweeps: the same matches for each value of some node ports, without editing XML.

A parameter is ``NODE.PORT=VALUES``: NODE is a node's XML ``name`` attribute or its node ID
(type), so ``Chase.vx_limit`` sets the port of every Chase node and ``approach.vx_limit`` that of
the node named "approach"; VALUES is a list (``0.6,0.8,1.0``), a range for random search
(``0.5:1.5``; whole numbers at both ends draw whole numbers) or a range with a step for the
grid (``0.5:1.5:0.25``). ``parse_param`` reads one; ``TreeEditor`` finds the nodes in a tree
and its includes, checks each port against the registered node types (``NodeNotFound``,
``PortNotFound``, ``BadValue`` name what is wrong) and writes variants: the attribute is set on
the matching start tags in the text itself, so a variant differs from the input only in the
swept attributes (comments, layout and quoting kept), and the tree folder is mirrored with its
includes so they still resolve. ``combinations`` gives the grid or ``random`` draws;
``run_sweep`` plays every combination against the opponent tree with ``run_batch`` (all games
in one pool) and scores each with ``soccerbt.tools.batch.batch.comparison``; ``best`` picks the
highest share of points (then goal difference). ``write_best`` writes the best variant to a
file (and, when an included file changed, the includes beside it), never over an input.
"""
from __future__ import annotations

import itertools
import math
import random
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from soccerbt.brain_setup import build_tree_factory
from soccerbt.cli.outputs import check_output_path, same_file, write_atomically
from soccerbt.match import MatchConfig, default_tree_path
from soccerbt.tools.batch.batch import GameOutcome, comparison, plan_games, run_batch
from soccerbt.tools.batch.stats import HeadToHead
from soccerbt.trees.includes import tree_files
from soccerbt.trees.suggest import did_you_mean
from soccerbt.trees.xmlload import DEFAULT_MAX_FILE_BYTES, XNode, decode_xml_bytes, parse_xml_text, read_limited

__all__ = ["Param", "SweepError", "NodeNotFound", "PortNotFound", "BadValue", "parse_param", "TreeEditor",
           "combinations", "ComboResult", "run_sweep", "best", "write_best", "plan_best", "combo_text",
           "node_id_of", "tree_or_default"]

MAX_COMBINATIONS = 10_000
_ID_TAGS = ("Action", "Condition", "Control", "Decorator", "SubTree")
_NOT_PORTS = ("name", "ID")


class SweepError(ValueError):
    """A parameter that cannot be swept; the message says which and why."""


class NodeNotFound(SweepError):
    """No node of the tree has that name or node ID."""


class PortNotFound(SweepError):
    """The node has no such port."""


class BadValue(SweepError):
    """A value the port cannot take."""


@dataclass(frozen=True)
class Param:
    """One swept parameter: ``node.port`` and its values (a list) or a range ``low:high[:step]``."""

    node: str
    port: str
    values: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    step: float | None = None
    whole: bool = False  # a range of whole numbers

    @property
    def key(self) -> str:
        return f"{self.node}.{self.port}"

    @property
    def is_range(self) -> bool:
        return self.low is not None

    def grid_size(self) -> int:
        """How many values the grid has, counted without making them (SweepError for a range
        without a step)."""
        if not self.is_range:
            return len(self.values)
        if self.step is None:
            raise SweepError(f"--param {self.key}={_num(self.low)}:{_num(self.high)}: a range without a step "
                             f"is for --random N; for the grid give a step ({_num(self.low)}:{_num(self.high)}:STEP) "
                             f"or a list of values")
        span = (self.high - self.low) / self.step
        if not math.isfinite(span) or span > MAX_COMBINATIONS:
            return MAX_COMBINATIONS + 1  # too many, whatever the exact count
        return math.floor(span + 1e-9 * max(1.0, span)) + 1

    def grid(self) -> list[str]:
        """The values of the grid: the list, or the range stepped from low to high (at most
        MAX_COMBINATIONS of them; check ``grid_size`` first)."""
        if self.grid_size() > MAX_COMBINATIONS:
            raise SweepError(f"--param {self.key}: more than {MAX_COMBINATIONS:,} values; use a larger step")
        if not self.is_range:
            return list(self.values)
        out: list[str] = []
        for k in range(self.grid_size()):
            x = min(self.low + k * self.step, self.high)
            out.append(_num(round(x) if self.whole else x))
        return out

    def draw(self, rng: random.Random) -> str:
        """One random value: from the list, or uniform in the range."""
        if not self.is_range:
            return rng.choice(self.values)
        if self.whole:
            return str(rng.randint(int(self.low), int(self.high)))
        return _num(rng.uniform(self.low, self.high))


def _num(x: float | int | None) -> str:
    if isinstance(x, int):
        return str(x)
    text = f"{x:.4g}"
    return text if "e" not in text else repr(float(text))


def parse_param(text: str) -> Param:
    """``NODE.PORT=VALUES``: ``Chase.vx_limit=0.6,0.8``, ``X.y=0.5:1.5`` or ``X.y=0:10:2``."""
    left, eq, right = text.partition("=")
    node, dot, port = left.strip().rpartition(".")
    if not eq or not dot or not node.strip() or not port.strip() or not right.strip():
        raise SweepError(f"--param {text!r}: expected NODE.PORT=VALUES, e.g. Chase.vx_limit=0.6,0.8,1.0 or "
                         f"Chase.vx_limit=0.5:1.5")
    node, port, right = node.strip(), port.strip(), right.strip()
    if port.startswith("_") or port in _NOT_PORTS:
        raise SweepError(f"--param {text!r}: {port} is not a port (only input ports can be swept)")
    if ":" in right and "," not in right and not right.startswith("{"):
        parts = right.split(":")
        try:
            numbers = [float(p) for p in parts]
        except ValueError:
            raise SweepError(f"--param {text!r}: a range is LOW:HIGH or LOW:HIGH:STEP with numbers") from None
        if not all(math.isfinite(x) for x in numbers):
            raise SweepError(f"--param {text!r}: a range's ends and step must be finite numbers (no nan, no inf)")
        if len(parts) not in (2, 3) or numbers[0] > numbers[1] or (len(parts) == 3 and not numbers[2] > 0):
            raise SweepError(f"--param {text!r}: a range is LOW:HIGH or LOW:HIGH:STEP with LOW <= HIGH and "
                             "STEP > 0")
        if not math.isfinite(numbers[1] - numbers[0]):
            raise SweepError(f"--param {text!r}: a range wider than a float can hold")
        if len(parts) == 3 and (numbers[1] - numbers[0]) / numbers[2] > MAX_COMBINATIONS:
            raise SweepError(f"--param {text!r}: the step makes more than {MAX_COMBINATIONS:,} values; "
                             "use a larger step")
        whole = all(_is_int(p) for p in parts)
        return Param(node, port, (), numbers[0], numbers[1], numbers[2] if len(parts) == 3 else None, whole)
    values = tuple(v.strip() for v in right.split(","))
    if any(not v for v in values):
        raise SweepError(f"--param {text!r}: an empty value in the list")
    if len(set(values)) != len(values):
        raise SweepError(f"--param {text!r}: a value is listed twice")
    return Param(node, port, values)


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


# --- editing the XML text -------------------------------------------------------------------------


@dataclass
class _Tag:
    """A start tag in a file's text: where it ends (at ``/>`` or ``>``), and each attribute's
    value span (start and end of the value, without quotes) and quote character."""

    start: int
    end_marker: int
    name: str
    attrs: dict[str, tuple[int, int, str]]


def _start_tags(text: str) -> list[_Tag]:
    """Every start tag in document order, skipping comments, CDATA, processing instructions,
    declarations and end tags (as ``xmlload.escape_lenient`` reads them)."""
    tags: list[_Tag] = []
    n, i = len(text), 0
    while i < n:
        i = text.find("<", i)
        if i < 0:
            break
        for opener, closer in (("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"), ("<!", ">"), ("</", ">")):
            if text.startswith(opener, i):
                j = text.find(closer, i + len(opener))
                i = n if j < 0 else j + len(closer)
                break
        else:
            i = _one_tag(text, i, tags)
    return tags


def _one_tag(text: str, i: int, tags: list[_Tag]) -> int:
    n = len(text)
    j = i + 1
    while j < n and not (text[j].isspace() or text[j] in "/>"):
        j += 1
    tag = _Tag(i, n, text[i + 1:j], {})
    tags.append(tag)
    while j < n:
        ch = text[j]
        if ch.isspace():
            j += 1
        elif ch == ">" or text.startswith("/>", j):
            tag.end_marker = j
            return j + (1 if ch == ">" else 2)
        else:
            k = j
            while k < n and not (text[k].isspace() or text[k] in "=/>"):
                k += 1
            name = text[j:k] if k > j else text[j]
            j = max(k, j + 1)
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j] == "=":
                j += 1
                while j < n and text[j].isspace():
                    j += 1
                if j < n and text[j] in "\"'":
                    quote = text[j]
                    end = text.find(quote, j + 1)
                    end = n if end < 0 else end
                    tag.attrs.setdefault(name, (j + 1, end, quote))
                    j = end + 1
    return n


def _escape(value: str, quote: str) -> str:
    value = value.replace("&", "&amp;").replace("<", "&lt;")
    return value.replace(quote, "&quot;" if quote == '"' else "&apos;")


def _walk(root: XNode) -> tuple[list[XNode], list[bool]]:
    """Every element in document order, and whether it lies inside a <BehaviorTree>."""
    nodes: list[XNode] = []
    inside: list[bool] = []
    stack = [(root, False)]
    while stack:
        node, within = stack.pop()
        nodes.append(node)
        inside.append(within)
        below = within or node.tag == "BehaviorTree"
        stack.extend((child, below) for child in reversed(node.children))
    return nodes, inside


@dataclass
class _File:
    path: Path          # resolved
    relative: Path      # to the top file's folder
    text: str
    tags: list[_Tag]
    nodes: list[XNode]  # in document order, aligned with tags
    in_tree: list[bool]  # inside a <BehaviorTree>


def node_id_of(node: XNode) -> str:
    """The node ID (type) of an element: its ID attribute for <Action ID=...> and friends, else its tag."""
    return node.attrs.get("ID", node.tag) if node.tag in _ID_TAGS else node.tag


class TreeEditor:
    """A tree file and its includes, ready to be written with some ports set."""

    def __init__(self, tree: str | Path, factory: Any = None, node_plugins: Sequence[str] = ()) -> None:
        self.top = Path(tree).resolve()
        self.folder = self.top.parent
        self.factory = factory if factory is not None else build_tree_factory(node_plugins)
        self.files: list[_File] = []
        for path in tree_files(self.top):
            try:
                relative = path.relative_to(self.folder)
            except ValueError:
                raise SweepError(f"{tree}: the included file {path} lies outside the tree's folder; a sweep "
                                 "copies a tree with its includes, which must be in its folder") from None
            try:
                text = decode_xml_bytes(read_limited(path, DEFAULT_MAX_FILE_BYTES), str(path))
            except OSError as exc:
                raise SweepError(f"{path}: cannot read ({exc.strerror or exc})") from None
            except Exception as exc:  # FileRefused: too big, not a regular file
                raise SweepError(f"{path}: {exc}") from None
            doc = parse_xml_text(text, str(path), path.parent)  # TreeLoadError: path:line: message
            nodes, in_tree = _walk(doc.root)
            tags = _start_tags(text)
            if len(tags) != len(nodes) or any(
                t.name.split(":")[-1] != x.tag for t, x in zip(tags, nodes, strict=False)
            ):
                raise SweepError(f"{path}: cannot match its start tags to its elements; edit this tree by hand")
            self.files.append(_File(path, relative, text, tags, nodes, in_tree))

    def matches(self, param: Param) -> list[tuple[int, int]]:
        """(file index, element index) of every node named or of type ``param.node``, with its
        port checked; NodeNotFound, PortNotFound otherwise."""
        found: list[tuple[int, int]] = []
        for f_index, f in enumerate(self.files):
            for k, node in enumerate(f.nodes):
                if f.in_tree[k] and (node.attrs.get("name") == param.node or node_id_of(node) == param.node):
                    found.append((f_index, k))
        if not found:
            known = {n for f in self.files for k, x in enumerate(f.nodes) if f.in_tree[k]
                     for n in (x.attrs.get("name"), node_id_of(x)) if n}
            raise NodeNotFound(f"--param {param.key}: no node named {param.node!r} nor of type {param.node!r} in "
                               f"{self.top} or its includes{did_you_mean(param.node, known)}")
        for f_index, k in found:
            self._check_port(param, self.files[f_index], self.files[f_index].nodes[k])
        return found

    def _check_port(self, param: Param, f: _File, node: XNode) -> None:
        nid = node_id_of(node)
        where = f"{f.path}:{node.line}"
        if node.tag == "SubTree":
            if param.port not in node.attrs:
                raise PortNotFound(f"--param {param.key}: the SubTree {nid} at {where} has no attribute "
                                   f"{param.port!r} to set (a SubTree's ports are its remapped attributes)")
            return
        manifest = self.factory.manifests().get(nid)
        if manifest is None:
            raise NodeNotFound(f"--param {param.key}: the node type {nid} at {where} is not registered")
        port = manifest.ports.get(param.port)
        if port is None:
            hint = did_you_mean(param.port, manifest.ports) or f"; its ports: {', '.join(manifest.ports) or 'none'}"
            raise PortNotFound(f"--param {param.key}: {nid} (at {where}) has no port {param.port!r}{hint}")
        if getattr(port.direction, "name", "INPUT") == "OUTPUT":
            raise PortNotFound(f"--param {param.key}: {param.port} of {nid} is an output port")
        for value in param.values or ([] if not param.is_range else [_num(param.low), _num(param.high)]):
            _check_value(param, nid, port.type_, value)

    def texts(self, settings: dict[Param, str]) -> dict[Path, str]:
        """Each file's text (by path relative to the tree's folder) with the settings applied."""
        edits: dict[int, list[tuple[int, int, str]]] = {}
        for param, value in settings.items():
            for f_index, k in self.matches(param):
                tag = self.files[f_index].tags[k]
                span = tag.attrs.get(param.port)
                if span is not None:
                    start, end, quote = span
                    edits.setdefault(f_index, []).append((start, end, _escape(value, quote)))
                else:  # a new attribute after the last one
                    f = self.files[f_index]
                    at = tag.end_marker
                    while at > tag.start and f.text[at - 1].isspace():
                        at -= 1
                    edits.setdefault(f_index, []).append((at, at, f' {param.port}="{_escape(value, chr(34))}"'))
        out: dict[Path, str] = {}
        for f_index, f in enumerate(self.files):
            text = f.text
            for start, end, new in sorted(edits.get(f_index, ()), reverse=True):
                text = text[:start] + new + text[end:]
            out[f.relative] = text
        return out

    def changed_files(self, params: Iterable[Param]) -> set[Path]:
        """The files (relative) a sweep of these parameters changes."""
        return {self.files[f_index].relative for p in params for f_index, _ in self.matches(p)}

    def write_variant(self, folder: Path, settings: dict[Param, str]) -> Path:
        """The tree and its includes with the settings, mirrored into `folder`; the top file's path."""
        for relative, text in self.texts(settings).items():
            target = folder / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        return folder / self.top.name


def _check_value(param: Param, nid: str, type_: Any, value: str) -> None:
    if value.startswith("{") and value.endswith("}"):
        return  # a blackboard entry
    try:
        if type_ is float:
            float(value)
        elif type_ is int:
            int(value)
        elif type_ is bool and value.lower() not in ("true", "false", "1", "0"):
            raise ValueError
    except ValueError:
        kind = getattr(type_, "__name__", str(type_))
        raise BadValue(f"--param {param.key}: {value!r} is not a {kind} (port {param.port} of {nid})") from None


# --- combinations and matches ----------------------------------------------------------------------


def combinations(params: Sequence[Param], random_n: int | None = None, seed: int = 0) -> list[dict[Param, str]]:
    """The grid of every list (ranges stepped), or `random_n` random draws (seeded), each a
    mapping param -> value; a draw already made is not repeated when the space allows."""
    if random_n is None:
        total = 1
        for p in params:  # counted before any value is made
            total *= p.grid_size()
            if total > MAX_COMBINATIONS:
                raise SweepError(f"more than {MAX_COMBINATIONS:,} combinations; use --random N or fewer values")
        grids = [p.grid() for p in params]
        return [dict(zip(params, values, strict=False)) for values in itertools.product(*grids)]
    if not 1 <= random_n <= MAX_COMBINATIONS:
        raise SweepError(f"--random must be 1..{MAX_COMBINATIONS:,}, got {random_n}")
    rng = random.Random(seed)
    out: list[dict[Param, str]] = []
    seen: set[tuple[str, ...]] = set()
    for _ in range(random_n * 20):
        combo = {p: p.draw(rng) for p in params}
        key = tuple(combo.values())
        if key not in seen:
            seen.add(key)
            out.append(combo)
        if len(out) == random_n:
            break
    return out


def combo_text(combo: dict[Param, str]) -> str:
    return " ".join(f"{p.key}={v}" for p, v in combo.items())


@dataclass
class ComboResult:
    """A combination's games against the opponent and their statistics (tuned tree = A)."""

    index: int
    combo: dict[Param, str]
    outcomes: list[GameOutcome]
    stats: HeadToHead

    @property
    def failed(self) -> int:
        return sum(o.result is None for o in self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "params": {p.key: v for p, v in self.combo.items()},
                "failed_games": self.failed, "statistics": self.stats.to_dict()}


def run_sweep(editor: TreeEditor, combos: list[dict[Param, str]], base: MatchConfig, seeds: Sequence[int],
              opponent: str | None, colours: str = "fixed", jobs: int = 1, work_dir: Path | None = None,
              on_done: Callable[[GameOutcome, int, int], None] | None = None,
              **batch_options: Any) -> list[ComboResult]:
    """Play every combination (tree A: the edited tree; tree B: `opponent`, or the tree as
    given when None) on `seeds`, all games in one ``run_batch``; results in combination order.
    The variants are written to `work_dir` (a temporary folder when None, removed at the end).
    BatchInterrupted carries the games that finished."""
    own_dir = work_dir is None
    folder = Path(tempfile.mkdtemp(prefix="soccerbt-sweep-")) if own_dir else Path(work_dir)
    opponent = opponent or str(editor.top)
    try:
        games, owner = [], []
        for index, combo in enumerate(combos):
            tree = editor.write_variant(folder / f"combo-{index:04d}", combo)
            planned = plan_games(base, seeds, str(tree), opponent, colours)
            games += planned
            owner += [index] * len(planned)
        outcomes = run_batch(games, jobs, on_done, **batch_options)
    finally:
        if own_dir:
            shutil.rmtree(folder, ignore_errors=True)
    results = []
    for index, combo in enumerate(combos):
        mine = [o for o, k in zip(outcomes, owner, strict=False) if k == index]
        results.append(ComboResult(index, combo, mine, comparison(mine)))
    return results


def best(results: Sequence[ComboResult]) -> ComboResult | None:
    """The combination with the highest share of points, then goal difference, then the first."""
    played = [r for r in results if r.stats.games > 0]
    if not played:
        return None
    return max(played, key=lambda r: (r.stats.points_share, r.stats.goal_diff_mean or 0.0, -r.index))


def write_best(editor: TreeEditor, combo: dict[Param, str], out: str | Path,
               inputs: Sequence[str | Path | None] = ()) -> list[Path]:
    """Write the tree with `combo` to `out`; an included file the combo changes goes beside it
    at its relative path (with the unchanged includes, unless `out` is in the tree's own folder,
    where they are already). Never over an input; the paths written."""
    out = Path(out)
    texts = editor.texts(combo)
    plan = plan_best(editor, combo, out, inputs)
    written = []
    for relative, target in plan:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, texts[relative])
        written.append(target)
    return written


def plan_best(editor: TreeEditor, combo: dict[Param, str], out: Path,
              inputs: Sequence[str | Path | None] = ()) -> list[tuple[Path, Path]]:
    """(relative source, target) of each file ``write_best`` writes; SweepError when one would
    overwrite an input (the tree, its includes, `inputs`: by any name) or cannot be written."""
    all_inputs = [*inputs, *(f.path for f in editor.files)]
    problem = check_output_path(out, all_inputs)
    if problem is not None:
        raise SweepError(f"{problem} (--best-out)")
    changed = editor.changed_files(combo)
    same_folder = out.parent.resolve() == editor.folder
    plan = [(editor.files[0].relative, out)]
    for f in editor.files[1:]:
        if same_folder and f.relative not in changed:
            continue  # the include beside the input is the same file
        target = out.parent / f.relative
        if same_folder or any(same_file(target, i) for i in all_inputs if i is not None):
            raise SweepError(f"{out}: the swept port lives in the included file {f.relative}, which would be "
                             f"written over an input; give --best-out in another folder")
        plan.append((f.relative, target))
    return plan


def tree_or_default(tree: str | None) -> Path:
    return Path(tree) if tree else default_tree_path()

