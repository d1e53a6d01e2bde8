"""The whole behaviour tree of one robot at one step, drawn into a rectangle of a pygame surface.

``TreePanel.draw(surface, rect, state)`` lists every node of a ``RobotState`` (from
``soccerbt.tools.mcap_reader``) as one row: indented by depth, ``name #uid``, a status box
(green SUCCESS, red FAILURE, yellow RUNNING, grey IDLE, blue-grey SKIPPED), bright text and a
marker for the nodes ticked in that step, dimmed text for the others. SubTree nodes fold: by
default every subtree holding no RUNNING or ticked node is folded, so the running branch is what
shows; a click on a SubTree row's +/- box folds or unfolds it against that default. Below the
tree: the selected node's ports and the root blackboard (``key = value  (writer)``, the keys
changed in the step highlighted).

The caller owns the events: ``scroll(rows)`` (mouse wheel, keys), ``click(x, y)`` / ``row_at(y)``
after a draw. Text surfaces are cached per (text, colour), so a 150-node tree draws in ~1-2 ms.
"""
from __future__ import annotations

import json
from typing import Any

import pygame

from soccerbt.tools.render import IDLE_COLOUR, PANEL_BG, STATUS_COLOURS, TEXT

__all__ = ["TreePanel", "STATUS_COLOURS_BY_CODE", "SKIPPED_COLOUR"]

SKIPPED_COLOUR = STATUS_COLOURS["SKIPPED"]
# status codes of mcap_reader / logformat: 0 IDLE, 1 RUNNING, 2 SUCCESS, 3 FAILURE
STATUS_COLOURS_BY_CODE = {0: IDLE_COLOUR, 1: STATUS_COLOURS["RUNNING"], 2: STATUS_COLOURS["SUCCESS"],
                          3: STATUS_COLOURS["FAILURE"]}
_RUNNING = 1
_SELECTED_BG = (55, 60, 80)
_TICK_MARK = (255, 255, 255)
_CHANGED = (255, 230, 120)
_HEAD = (150, 200, 255)
_INDENT_PX = 12
_BOX_PX = 9
_CACHE_LIMIT = 5000  # blackboard values change every step: drop the cache rather than grow forever


def _dim(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    return (colour[0] * 11 // 20, colour[1] * 11 // 20, colour[2] * 11 // 20)


def _short(value: Any, limit: int = 48) -> str:
    """A blackboard or port value on one line."""
    if isinstance(value, float):
        text = f"{value:.3g}"
    elif isinstance(value, list) and value and all(isinstance(v, float) for v in value):
        text = "[" + ", ".join(f"{v:.2f}" for v in value) + "]"
    elif isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value)
        except (TypeError, ValueError):
            text = str(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


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
                 tree_fraction: float = 0.62) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self.font = font or pygame.font.Font(None, 17)
        self.row_height_px = row_height_px
        self.tree_fraction = tree_fraction  # of the rect's height given to the tree; the rest: details
        self.offset = 0                      # first row shown
        self.bb_offset = 0                   # first blackboard line shown
        self.selected: int | None = None     # uid
        self.opened: set[int] = set()        # SubTrees unfolded by hand (folded by default)
        self.closed: set[int] = set()        # SubTrees folded by hand (open by default)
        self._text: dict[tuple[str, tuple[int, int, int]], pygame.Surface] = {}
        self._shape: _Shape | None = None
        self._shape_of: int | None = None    # id() of the tree dict the shape was built from
        self._rows: list[int] = []           # uids drawn, top to bottom, after the last draw
        self._tree_rect = pygame.Rect(0, 0, 0, 0)

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

    def click(self, x_px: int, y_px: int, state: Any) -> int | None:
        """Select the row under the click (a click on a SubTree's +/- box folds it); the uid or None."""
        uid = self.row_at(y_px)
        if uid is None:
            return None
        shape = self.shape(state.tree)
        depth = next(d for u, d in shape.order if u == uid)
        box_x = self._tree_rect.left + 4 + depth * _INDENT_PX + _BOX_PX + 4
        if uid in shape.subtrees and box_x - 2 <= x_px <= box_x + 12:
            self.toggle(uid, state)
        else:
            self.selected = uid
        return uid

    # --- drawing -----------------------------------------------------------------------------

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

    def draw(self, surface: pygame.Surface, rect: pygame.Rect, state: Any, title: str = "") -> None:
        """Draw ``state`` (a RobotState) into ``rect``: the tree on top, the details below."""
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
            self._draw_details(surface, details, state)
        finally:
            surface.set_clip(clip)

    def _draw_tree(self, surface: pygame.Surface, rect: pygame.Rect, state: Any, title: str) -> None:
        h = self.row_height_px
        rows = self.visible_rows(state)
        fit = max(1, rect.height // h - 1)
        self.offset = min(self.offset, max(0, len(rows) - fit))
        shown = rows[self.offset:self.offset + fit]
        self._rows = [uid for uid, _d in shown]
        head = title or f"{state.robot}  step {state.step}"
        self._blit_text(surface, f"{head}   rows {self.offset + 1}-{self.offset + len(shown)}/{len(rows)}",
                        _HEAD, rect.left + 4, rect.top + 1)
        shape = self.shape(state.tree)
        folded = self.collapsed(state)
        ticked, skipped = set(state.ticked), set(state.skipped)
        statuses, last = state.statuses, state.last_transition
        y = rect.top + h
        for uid, depth in shown:
            node = shape.by_uid[uid]
            code = statuses.get(uid, 0)
            if code == 0 and uid in last:
                code = last[uid]  # returned this step, then reset to IDLE by its parent: show what it returned
            colour = SKIPPED_COLOUR if uid in skipped else STATUS_COLOURS_BY_CODE.get(code, IDLE_COLOUR)
            if uid == self.selected:
                surface.fill(_SELECTED_BG, (rect.left, y, rect.width, h))
            x = rect.left + 4 + depth * _INDENT_PX
            surface.fill(colour, (x, y + (h - _BOX_PX) // 2, _BOX_PX, _BOX_PX))
            if uid in ticked:
                surface.fill(_TICK_MARK, (rect.left, y + 2, 3, h - 4))  # the "ticked this step" bar
            x += _BOX_PX + 4
            if uid in shape.subtrees:
                x += self._blit_text(surface, "[+]" if uid in folded else "[-]", TEXT, x, y + 1) + 3
            name = node.get("name") or node.get("id", "?")
            text = f"{name} #{uid}" if name == node.get("id") else f"{name} #{uid}  {node.get('id', '')}"
            self._blit_text(surface, text, colour if uid in ticked else _dim(colour), x, y + 1)
            y += h

    def _draw_details(self, surface: pygame.Surface, rect: pygame.Rect, state: Any) -> None:
        h = self.row_height_px
        x, y = rect.left + 4, rect.top + 3
        shape = self.shape(state.tree)
        node = shape.by_uid.get(self.selected) if self.selected is not None else None
        if node is not None:
            self._blit_text(surface, f"{node.get('name')} #{node['uid']}  {node.get('id')} ({node.get('kind')})",
                            _HEAD, x, y)
            y += h
            extras = dict(node.get("ports") or {})
            extras.update({k: v for k, v in (node.get("conditions") or {}).items()})
            for key, value in extras.items():
                self._blit_text(surface, f"  {key}: {_short(value, 56)}", TEXT, x, y)
                y += h
        else:
            self._blit_text(surface, "click a node for its ports", IDLE_COLOUR, x, y)
            y += h
        changed = set(state.changed)
        items = sorted(state.blackboard.items())
        fit = max(1, (rect.bottom - y) // h - 1)
        self.bb_offset = min(self.bb_offset, max(0, len(items) - fit))
        self._blit_text(surface, f"blackboard ({len(items)} keys, {len(changed)} changed)", _HEAD, x, y)
        y += h
        for key, (value, *writer) in items[self.bb_offset:self.bb_offset + fit]:
            who = ""
            if writer:
                by = writer[0]
                if isinstance(by, int) and not isinstance(by, bool):  # a node: its uid and name
                    row = shape.by_uid.get(by)
                    by = f"#{by} {row.get('name')}" if row is not None else f"#{by}"
                who = f"  ({by})"
            self._blit_text(surface, f"{key} = {_short(value)}{who}", _CHANGED if key in changed else _dim(TEXT),
                            x, y)
            y += h
