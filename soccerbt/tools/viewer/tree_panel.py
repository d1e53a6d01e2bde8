"""The whole behaviour tree of one robot at one step, drawn into a rectangle of a pygame surface.

``TreePanel.draw(surface, rect, state)`` lists every node of a ``RobotState`` (from
``soccerbt.log.reader``) as one row: indented by depth, ``name #uid``, a status box
(green SUCCESS, red FAILURE, yellow RUNNING, grey IDLE, blue-grey SKIPPED), bright text and a
marker for the nodes ticked in that step, dimmed text for the others. SubTree nodes fold: by
default every subtree holding no RUNNING or ticked node is folded, so the running branch is what
shows; a click on a SubTree row's +/- box folds or unfolds it against that default. Below the
tree: the selected node's reason for its last decision (``state.reasons``, the rule and the
values it compared; also drawn after the node's name, dimmed when given in an earlier tick), its
ports and the root blackboard (``key = value  (writer)``, the keys
changed in the step highlighted). A click on a blackboard row selects that key (``history_key``;
again: clears it); the caller passes its recent changes to ``draw`` and they are listed at the
bottom of the details, newest first. ``find_nodes(state, text)`` / ``reveal(uid, state)`` back a
node search: the matching uids, and unfolding a node's ancestors and scrolling it into view.

The caller owns the events: ``scroll(rows)`` (mouse wheel, keys), ``click(x, y)`` / ``row_at(y)``
/ ``key_at(y)`` after a draw. Text surfaces are cached per (text, colour), so a 150-node tree draws in ~1-2 ms.
"""
from __future__ import annotations

from typing import Any

import pygame

from soccerbt.cli.values import short_value
from soccerbt.log.port_values import ports_in_effect
from soccerbt.tools.viewer.render import IDLE_COLOUR, PANEL_BG, STATUS_COLOURS, TEXT, elide_middle, wrap_text

__all__ = ["TreePanel", "STATUS_COLOURS_BY_CODE", "SKIPPED_COLOUR", "HistoryEntry"]

SKIPPED_COLOUR = STATUS_COLOURS["SKIPPED"]
# status codes of soccerbt.log.reader / format: 0 IDLE, 1 RUNNING, 2 SUCCESS, 3 FAILURE
STATUS_COLOURS_BY_CODE = {0: IDLE_COLOUR, 1: STATUS_COLOURS["RUNNING"], 2: STATUS_COLOURS["SUCCESS"],
                          3: STATUS_COLOURS["FAILURE"]}
_RUNNING = 1
_SELECTED_BG = (55, 60, 80)
_TICK_MARK = (255, 255, 255)
_CHANGED = (255, 230, 120)
_HEAD = (150, 200, 255)
_REASON = (230, 200, 140)
_PORT = (170, 220, 255)      # a port that points at a blackboard entry
_PORT_BG = (35, 50, 70)      # the blackboard rows the selected node's ports point at
_INDENT_PX = 12
_BOX_PX = 9
_CACHE_LIMIT = 5000  # blackboard values change every step: drop the cache rather than grow forever
_MIN_BB_ROWS = 3     # blackboard rows kept when a key history takes the bottom of the details

# one change of a blackboard key: (step, t in s, value, writer); writer "removed" for a removal
HistoryEntry = tuple[int, float, Any, Any]


def _dim(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    return (colour[0] * 11 // 20, colour[1] * 11 // 20, colour[2] * 11 // 20)


def _short(value: Any, limit: int = 48) -> str:
    """A blackboard or port value on one line (as the text tools print it)."""
    return short_value(value, limit)


class _Shape:
    """What a tree description implies once: parents, children in order, depths, the rows."""

    def __init__(self, tree: dict[str, Any]) -> None:
        nodes = tree.get("nodes", [])
        self.by_uid: dict[int, dict[str, Any]] = {n["uid"]: n for n in nodes}
        self.parent: dict[int, int] = {n["uid"]: int(n.get("parent", 0)) for n in nodes}
        self.children: dict[int, list[int]] = {}
        for n in nodes:
            self.children.setdefault(self.parent[n["uid"]], []).append(n["uid"])
        self.order: list[tuple[int, int]] = []  # (uid, depth) in pre-order
        stack = [(uid, 0) for uid in reversed(self.children.get(0, []))]
        while stack:
            uid, depth = stack.pop()
            self.order.append((uid, depth))
            stack.extend((c, depth + 1) for c in reversed(self.children.get(uid, [])))
        self.subtrees = {n["uid"] for n in nodes if n.get("kind") == "SubTree"}


class TreePanel:
    """Draws one robot's whole tree (see the module docstring); keeps fold, scroll and selection."""

    def __init__(self, font: pygame.font.Font | None = None, row_height_px: int = 15,
                 tree_fraction: float = 0.62, scale: float = 1.0) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self.scale = scale
        self.font = font or pygame.font.Font(None, int(round(17 * scale)))
        self.row_height_px = row_height_px if scale == 1.0 else int(round(row_height_px * scale))
        self.indent_px = int(round(_INDENT_PX * scale))
        self.box_px = int(round(_BOX_PX * scale))
        self.tree_fraction = tree_fraction  # of the rect's height given to the tree; the rest: details
        self.offset = 0                      # first row shown
        self.bb_offset = 0                   # first blackboard line shown
        self.selected: int | None = None     # uid
        self.opened: set[int] = set()        # SubTrees unfolded by hand (folded by default)
        self.closed: set[int] = set()        # SubTrees folded by hand (open by default)
        self.history_key: str | None = None  # the blackboard key whose history the details show
        self._text: dict[tuple[str, tuple[int, int, int]], pygame.Surface] = {}
        self._shape: _Shape | None = None
        self._shape_of: int | None = None    # id() of the tree dict the shape was built from
        self._rows: list[int] = []           # uids drawn, top to bottom, after the last draw
        self._tree_rect = pygame.Rect(0, 0, 0, 0)
        self._bb_rows: list[tuple[int, str]] = []  # (top y, key) of the blackboard rows last drawn
        self._reveal: int | None = None      # uid to scroll into view at the next draw
        self._reveal_key: str | None = None  # blackboard key to scroll into view at the next draw
        self._opened_for: str | None = None  # the robot whose tree was last opened at its running branch

    def set_scale(self, scale: float) -> None:
        """Size the text, the rows and the indents for ``scale`` (``render.ui_scale`` of the
        window's height; 1: 17-point text in 15-pixel rows)."""
        if scale == self.scale:
            return
        self.scale = scale
        self.font = pygame.font.Font(None, int(round(17 * scale)))
        self.row_height_px = int(round(15 * scale))
        self.indent_px = int(round(_INDENT_PX * scale))
        self.box_px = int(round(_BOX_PX * scale))
        self._text.clear()

    # --- state -------------------------------------------------------------------------------

    def shape(self, tree: dict[str, Any]) -> _Shape:
        if self._shape is None or self._shape_of != id(tree):
            self._shape, self._shape_of = _Shape(tree), id(tree)
        return self._shape

    def collapsed(self, state: Any) -> set[int]:
        """The SubTree uids folded now: by default those without a RUNNING or ticked node inside."""
        shape = self.shape(state.tree)
        hot: set[int] = set()
        parent = shape.parent
        for uid in [u for u, code in state.statuses.items() if code == _RUNNING] + list(state.ticked):
            # mark the ancestors (not the node itself: a running SubTree node with idle insides stays shut)
            p = parent.get(uid, 0)
            while p and p not in hot:
                hot.add(p)
                p = parent.get(p, 0)
        return ((shape.subtrees - hot) - self.opened) | (self.closed & shape.subtrees)

    def toggle(self, uid: int, state: Any) -> None:
        """Fold an open SubTree, unfold a folded one (overriding the default)."""
        if uid in self.collapsed(state):
            self.closed.discard(uid)
            self.opened.add(uid)
        else:
            self.opened.discard(uid)
            self.closed.add(uid)

    def visible_rows(self, state: Any) -> list[tuple[int, int]]:
        """(uid, depth) of every row, folded subtrees' insides left out."""
        shape = self.shape(state.tree)
        folded = self.collapsed(state)
        rows: list[tuple[int, int]] = []
        skip_deeper_than: int | None = None
        for uid, depth in shape.order:
            if skip_deeper_than is not None:
                if depth > skip_deeper_than:
                    continue
                skip_deeper_than = None
            rows.append((uid, depth))
            if uid in folded:
                skip_deeper_than = depth
        return rows

    def find_nodes(self, state: Any, text: str) -> list[int]:
        """The uids (in tree order) that ``text`` names: ``#UID`` or a full path that one node;
        a name, ID or path end exactly: every node that has it; else every node whose name, ID
        or path contains ``text``, case-insensitive."""
        needle = text.strip().lower()
        if not needle:
            return []
        shape = self.shape(state.tree)
        ref = text.strip()
        if ref.startswith("#") and ref[1:].isdigit():
            return [int(ref[1:])] if int(ref[1:]) in shape.by_uid else []
        exact = [uid for uid, _d in shape.order if shape.by_uid[uid].get("path") == ref]
        if exact:
            return exact[:1]
        named = [uid for uid, _d in shape.order
                 if ref in (shape.by_uid[uid].get("name"), shape.by_uid[uid].get("id"))
                 or str(shape.by_uid[uid].get("path", "")).endswith("/" + ref)]
        if named:
            return named
        out = []
        for uid, _depth in shape.order:
            node = shape.by_uid[uid]
            if any(needle in str(node.get(k) or "").lower() for k in ("name", "id", "path")):
                out.append(uid)
        return out

    def running_leaf(self, state: Any) -> int | None:
        """The deepest node the step ran (RUNNING first), where a tree opens: None when none ran."""
        shape = self.shape(state.tree)
        ticked = set(state.ticked) - set(state.skipped)
        running = {uid for uid, code in state.statuses.items() if code == _RUNNING}
        best, best_key = None, (-1, -1)
        for uid, depth in shape.order:
            if uid in ticked or uid in running:
                key = (1 if uid in running else 0, depth)
                if key > best_key:
                    best, best_key = uid, key
        return best

    def reveal(self, uid: int, state: Any) -> None:
        """Select ``uid``, unfold its folded ancestors; the next draw scrolls its row into view."""
        shape = self.shape(state.tree)
        folded = self.collapsed(state)
        p = shape.parent.get(uid, 0)
        while p:
            if p in folded:
                self.closed.discard(p)
                self.opened.add(p)
            p = shape.parent.get(p, 0)
        self.selected = uid
        self._reveal = uid

    def scroll(self, rows: int) -> None:
        """Move the tree view by ``rows`` (negative: up); clamped at the next draw."""
        self.offset = max(0, self.offset + rows)

    def scroll_blackboard(self, lines: int) -> None:
        self.bb_offset = max(0, self.bb_offset + lines)

    def row_at(self, y_px: int) -> int | None:
        """The uid of the row drawn at ``y_px`` by the last draw, if any."""
        r = self._tree_rect
        if not r.top + self.row_height_px <= y_px < r.bottom:  # the first line is the title
            return None
        i = (y_px - r.top - self.row_height_px) // self.row_height_px
        return self._rows[i] if 0 <= i < len(self._rows) else None

    def key_at(self, y_px: int) -> str | None:
        """The blackboard key of the row drawn at ``y_px`` by the last draw, if any."""
        for top, key in self._bb_rows:
            if top <= y_px < top + self.row_height_px:
                return key
        return None

    def click(self, x_px: int, y_px: int, state: Any) -> int | None:
        """Select the row under the click (a click on a SubTree's +/- box folds it); the uid or None.
        A click on a blackboard row selects its key for the history (the same key again: clears)."""
        uid = self.row_at(y_px)
        if uid is None:
            key = self.key_at(y_px)
            if key is not None:
                self.history_key = None if key == self.history_key else key
                self._reveal_key = self.history_key  # the history shortens the list: keep the row in it
            return None
        shape = self.shape(state.tree)
        depth = next(d for u, d in shape.order if u == uid)
        box_x = self._tree_rect.left + 4 + depth * self.indent_px + self.box_px + 4
        if uid in shape.subtrees and box_x - 2 <= x_px <= box_x + self.font.size("[+]")[0]:
            self.toggle(uid, state)
        else:
            self.selected = uid
        return uid

    # --- drawing -----------------------------------------------------------------------------

    def _fit(self, text: str, width_px: int) -> str:
        """``text`` cut (with "...") to fit ``width_px`` in the panel's font."""
        if self.font.size(text)[0] <= width_px:
            return text
        lo, hi = 0, len(text)
        while lo < hi:  # the longest prefix that fits with the ellipsis
            mid = (lo + hi + 1) // 2
            if self.font.size(text[:mid] + "...")[0] <= width_px:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo] + "..."

    def _wrap(self, text: str, width_px: int) -> list[str]:
        """``text`` broken into lines that fit ``width_px`` (continuations indented; a word too
        long for a line is broken, not cut)."""
        return wrap_text(text, self.font, width_px, indent="    ")

    def _row_text(self, name: str, uid: int, node_id: str, width_px: int) -> str:
        """A tree row's ``name #uid  ID`` in ``width_px``: the ID goes first (shortened in the
        middle while it can), then the name loses its middle; ``#uid`` always shows."""
        tag = f" #{uid}"
        full = f"{name}{tag}  {node_id}" if node_id and node_id != name else f"{name}{tag}"
        if self.font.size(full)[0] <= width_px:
            return full
        room = width_px - self.font.size(f"{name}{tag}  ")[0]
        if node_id and node_id != name and room >= self.font.size("MMMMMM")[0]:
            return f"{name}{tag}  {elide_middle(node_id, self.font, room)}"
        return elide_middle(name, self.font, width_px - self.font.size(tag)[0]) + tag

    def _blit_text(self, surface: pygame.Surface, text: str, colour: tuple[int, int, int], x: int, y: int) -> int:
        """Blit cached text; returns its width."""
        key = (text, colour)
        img = self._text.get(key)
        if img is None:
            if len(self._text) > _CACHE_LIMIT:
                self._text.clear()
            img = self._text[key] = self.font.render(text, True, colour)
        surface.blit(img, (x, y))
        return img.get_width()

    def draw(self, surface: pygame.Surface, rect: pygame.Rect, state: Any, title: str = "",
             history: list[HistoryEntry] | None = None) -> None:
        """Draw ``state`` (a RobotState) into ``rect``: the tree on top, the details below (with
        ``history``, newest first, the changes of ``history_key``)."""
        surface.fill(PANEL_BG, rect)
        tree_h = int(rect.height * self.tree_fraction)
        self._tree_rect = pygame.Rect(rect.left, rect.top, rect.width, tree_h)
        clip = surface.get_clip()
        surface.set_clip(self._tree_rect)
        try:
            self._draw_tree(surface, self._tree_rect, state, title)
        finally:
            surface.set_clip(clip)
        details = pygame.Rect(rect.left, rect.top + tree_h, rect.width, rect.height - tree_h)
        pygame.draw.line(surface, (70, 75, 90), details.topleft, details.topright)
        surface.set_clip(details)
        try:
            self._draw_details(surface, details, state, history)
        finally:
            surface.set_clip(clip)

    def _draw_tree(self, surface: pygame.Surface, rect: pygame.Rect, state: Any, title: str) -> None:
        h = self.row_height_px
        if self._opened_for != state.robot:  # a tree shown the first time opens at its running branch
            self._opened_for = state.robot
            deepest = self.running_leaf(state)
            if deepest is not None and self._reveal is None:
                self._reveal = deepest
        rows = self.visible_rows(state)
        fit = max(1, rect.height // h - 1)
        if self._reveal is not None:
            i = next((i for i, (uid, _d) in enumerate(rows) if uid == self._reveal), None)
            if i is not None and not self.offset <= i < self.offset + fit:
                self.offset = max(0, i - fit // 3)  # a third down: its parents show above it
            self._reveal = None
        self.offset = min(self.offset, max(0, len(rows) - fit))
        shown = rows[self.offset:self.offset + fit]
        self._rows = [uid for uid, _d in shown]
        head = title or f"{state.robot}  step {state.step}"
        rows_text = f"   rows {self.offset + 1}-{self.offset + len(shown)}/{len(rows)}"
        self._blit_text(surface, elide_middle(head, self.font, rect.width - 8 - self.font.size(rows_text)[0])
                        + rows_text, _HEAD, rect.left + 4, rect.top + 1)
        shape = self.shape(state.tree)
        folded = self.collapsed(state)
        ticked, skipped = set(state.ticked), set(state.skipped)
        statuses, last = state.statuses, state.last_transition
        reasons = getattr(state, "reasons", None) or {}
        y = rect.top + h
        for uid, depth in shown:
            node = shape.by_uid[uid]
            code = statuses.get(uid, 0)
            if code == 0 and uid in last:
                code = last[uid]  # returned this step, then reset to IDLE by its parent: show what it returned
            colour = SKIPPED_COLOUR if uid in skipped else STATUS_COLOURS_BY_CODE.get(code, IDLE_COLOUR)
            if uid == self.selected:
                surface.fill(_SELECTED_BG, (rect.left, y, rect.width, h))
            x = rect.left + 4 + depth * self.indent_px
            surface.fill(colour, (x, y + (h - self.box_px) // 2, self.box_px, self.box_px))
            if uid in ticked:
                surface.fill(_TICK_MARK, (rect.left, y + 2, 3, h - 4))  # the "ticked this step" bar
            x += self.box_px + 4
            if uid in shape.subtrees:
                x += self._blit_text(surface, "[+]" if uid in folded else "[-]", TEXT, x, y + 1) + 3
            name = str(node.get("name") or node.get("id", "?"))
            suffix = "  skipped" if uid in skipped else ""  # in words too: the shade alone is close to IDLE's
            room = rect.right - x - 4 - self.font.size(suffix)[0]
            text = self._row_text(name, uid, str(node.get("id") or ""), room) + suffix
            x += self._blit_text(surface, text, colour if uid in ticked else _dim(colour), x, y + 1)
            given = reasons.get(uid)
            if given is not None and x + 40 < rect.right:
                fresh = given[0] == state.tick
                self._blit_text(surface, self._fit(f"  {given[1]}", rect.right - x - 4),
                                _REASON if fresh else _dim(_REASON), x, y + 1)
            y += h

    def _writer_text(self, writer: Any, shape: _Shape) -> str:
        """A blackboard writer: a node as its uid and name, else as recorded."""
        if isinstance(writer, int) and not isinstance(writer, bool):
            row = shape.by_uid.get(writer)
            return f"#{writer} {row.get('name')}" if row is not None else f"#{writer}"
        return str(writer)

    def _draw_details(self, surface: pygame.Surface, rect: pygame.Rect, state: Any,
                      history: list[HistoryEntry] | None = None) -> None:
        h = self.row_height_px
        x, y = rect.left + 4, rect.top + 3
        shape = self.shape(state.tree)
        node = shape.by_uid.get(self.selected) if self.selected is not None else None
        linked: set[str] = set()
        if node is not None:
            heading = f"{node.get('name')} #{node['uid']}  {node.get('id')} ({node.get('kind')})"
            for line in self._wrap(heading, rect.width - 12)[:3]:
                self._blit_text(surface, line, _HEAD, x, y)
                y += h
            given = (getattr(state, "reasons", None) or {}).get(node["uid"])
            if given is not None:
                when = "this tick" if given[0] == state.tick else f"tick {given[0]}, {state.tick - given[0]} ticks ago"
                for line in self._wrap(f"why ({when}): {given[1]}", rect.width - 12)[:4]:
                    self._blit_text(surface, line, _REASON, x, y)
                    y += h
            # every port with the value in effect and where it came from (the XML, the model's
            # default, a blackboard entry: its value now, and its row highlighted)
            for port in ports_in_effect(node, state.blackboard):
                if port.key is not None:
                    linked.add(port.key)
                colour = _PORT if port.source == "blackboard" else TEXT if port.source == "xml" else IDLE_COLOUR
                for line in self._wrap("  " + port.text(40), rect.width - 12)[:2]:
                    self._blit_text(surface, line, colour, x, y)
                    y += h
            for key, value in (node.get("conditions") or {}).items():
                self._blit_text(surface, f"  {key}: {_short(value, 56)}", TEXT, x, y)
                y += h
        else:
            self._blit_text(surface, "click a node for its ports", IDLE_COLOUR, x, y)
            y += h
        changed = set(state.changed)
        items = sorted(state.blackboard.items())
        bottom = rect.bottom
        if self.history_key is not None:
            # the history takes the bottom, down to a few blackboard rows (so the key can be clicked off)
            room = max(1, (rect.bottom - y) // h - 2 - _MIN_BB_ROWS)  # lines: 2 headers, the rows kept
            shown = (history or [])[:room]
            bottom = rect.bottom - (1 + max(1, len(shown))) * h - 4
            self._draw_history(surface, pygame.Rect(rect.left, bottom, rect.width, rect.bottom - bottom), state,
                               shape, history, shown)
        fit = max(1, (bottom - y) // h - 1)
        if self._reveal_key is not None:
            i = next((i for i, (key, _v) in enumerate(items) if key == self._reveal_key), None)
            if i is not None and not self.bb_offset <= i < self.bb_offset + fit:
                self.bb_offset = max(0, i - fit // 2)
            self._reveal_key = None
        self.bb_offset = min(self.bb_offset, max(0, len(items) - fit))
        self._blit_text(surface, f"blackboard ({len(items)} keys, {len(changed)} changed)", _HEAD, x, y)
        y += h
        self._bb_rows = []
        for key, (value, *writer) in items[self.bb_offset:self.bb_offset + fit]:
            who = f"  ({self._writer_text(writer[0], shape)})" if writer else ""
            if key == self.history_key:
                surface.fill(_SELECTED_BG, (rect.left, y, rect.width, h))
            elif key in linked:
                surface.fill(_PORT_BG, (rect.left, y, rect.width, h))
            self._blit_text(surface, f"{key} = {_short(value)}{who}", _CHANGED if key in changed else _dim(TEXT),
                            x, y)
            self._bb_rows.append((y, key))
            y += h

    def _draw_history(self, surface: pygame.Surface, rect: pygame.Rect, state: Any, shape: _Shape,
                      history: list[HistoryEntry] | None, shown: list[HistoryEntry]) -> None:
        """``history_key``'s recent changes (newest first) in ``rect``, under a rule."""
        h = self.row_height_px
        x, y = rect.left + 4, rect.top + 2
        pygame.draw.line(surface, (70, 75, 90), rect.topleft, rect.topright)
        count = len(history or [])
        more = f", {len(shown)} shown" if len(shown) < count else ""
        self._blit_text(surface, f"history of {self.history_key} on {state.robot} ({count} recent changes{more})",
                        _HEAD, x, y)
        y += h
        if not shown:
            self._blit_text(surface, "  no change in the scanned steps", IDLE_COLOUR, x, y)
        for step, t_s, value, writer in shown:
            text = "(removed)" if writer == "removed" else f"{_short(value, 40)}  ({self._writer_text(writer, shape)})"
            colour = _CHANGED if step == state.step else TEXT  # a change in this very step stands out
            self._blit_text(surface, f"  t={t_s:.2f}s  {text}", colour, x, y)
            y += h
