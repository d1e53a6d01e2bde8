"""Lenient BT.CPP v4 XML reading with lxml: raw `&` and `<` in attribute values, line numbers.

BT.CPP's tinyxml2 accepts attribute values such as `_while="a && b"` or `x<=3` that strict XML
rejects. `escape_lenient` escapes them (without moving any line break, so lxml's line numbers
stay right) and records the line of every attribute. The document is then parsed by lxml with
no DTD, no entity expansion and no network access, and turned into small `XNode` objects.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from soccerbt.trees.errors import TreeLoadError

__all__ = ["XNode", "XmlDocument", "parse_xml_text", "read_xml_file", "escape_lenient"]

_ENTITY = re.compile(r"&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);")
_NAME_END = re.compile(r"[\s/>=]")
_XML_DECL = re.compile(r"^\ufeff?\s*<\?xml[^>]*\?>")


@dataclass(eq=False)
class XNode:
    """One XML element: tag, attributes (document order), line numbers, children."""

    tag: str
    attrs: dict[str, str]
    line: int
    attr_lines: dict[str, int] = field(default_factory=dict)
    children: list[XNode] = field(default_factory=list)
    bad: bool = False  # an error was reported for this element already (validation mode)

    def attr_line(self, name: str) -> int:
        return self.attr_lines.get(name, self.line)


@dataclass(eq=False)
class XmlDocument:
    """A parsed file (or text): its path as shown in errors and its root element."""

    path: str
    root: XNode
    directory: Path | None


def escape_lenient(text: str) -> tuple[str, list[dict[str, int]]]:
    """Escape raw `<` and stray `&` inside attribute values (and stray `&` in text).

    Returns the fixed text and, for every start tag in document order, the line of each of
    its attributes. Line breaks are never added or removed.
    """
    out: list[str] = []
    tags: list[dict[str, int]] = []
    n = len(text)
    i = 0
    line = 1
    last = 0

    def line_at(pos: int) -> int:
        nonlocal line, last
        if pos > last:
            line += text.count("\n", last, pos)
            last = pos
        return line

    while i < n:
        c = text[i]
        if c == "&":
            out.append("&" if _ENTITY.match(text, i) else "&amp;")
            i += 1
            continue
        if c != "<":
            j = i + 1
            while j < n and text[j] not in "<&":
                j += 1
            out.append(text[i:j])
            i = j
            continue
        if text.startswith("<!--", i):
            j = text.find("-->", i + 4)
            j = n if j < 0 else j + 3
        elif text.startswith("<![CDATA[", i):
            j = text.find("]]>", i + 9)
            j = n if j < 0 else j + 3
        elif text.startswith("<?", i):
            j = text.find("?>", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("<!", i):
            j = _skip_declaration(text, i)
        elif text.startswith("</", i):
            j = text.find(">", i)
            j = n if j < 0 else j + 1
        else:
            j = _start_tag(text, i, out, tags, line_at)
            i = j
            continue
        out.append(text[i:j])
        i = j
    return "".join(out), tags


def _skip_declaration(text: str, i: int) -> int:
    depth = 0
    j = i + 2
    n = len(text)
    while j < n:
        ch = text[j]
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == ">" and depth <= 0:
            return j + 1
        j += 1
    return n


def _start_tag(text: str, i: int, out: list[str], tags: list[dict[str, int]], line_at) -> int:
    """Copy one start tag from text[i] to out, escaping attribute values; return the end."""
    n = len(text)
    m = _NAME_END.search(text, i + 1)
    j = n if m is None else m.start()
    out.append(text[i:j])
    attrs: dict[str, int] = {}
    tags.append(attrs)
    while j < n:
        k = j
        while k < n and text[k].isspace():
            k += 1
        if k > j:
            out.append(text[j:k])
            j = k
        if j >= n:
            break
        ch = text[j]
        if ch == ">":
            out.append(">")
            return j + 1
        if ch == "/" and text.startswith("/>", j):
            out.append("/>")
            return j + 2
        m = _NAME_END.search(text, j)
        k = n if m is None else m.start()
        if k == j:  # malformed: copy one char and let lxml complain
            out.append(ch)
            j += 1
            continue
        name = text[j:k]
        attrs.setdefault(name, line_at(j))
        out.append(name)
        j = k
        k = j
        while k < n and text[k].isspace():
            k += 1
        if k >= n or text[k] != "=":
            out.append(text[j:k])
            j = k
            continue
        k += 1
        while k < n and text[k].isspace():
            k += 1
        out.append(text[j:k])
        j = k
        if j >= n or text[j] not in "\"'":
            continue
        quote = text[j]
        end = text.find(quote, j + 1)
        if end < 0:
            out.append(text[j:])
            return n
        value = text[j + 1:end]
        if "<" in value or "&" in value:
            value = _escape_value(value)
        out.append(quote)
        out.append(value)
        out.append(quote)
        j = end + 1
    return j


def _escape_value(value: str) -> str:
    parts: list[str] = []
    i = 0
    n = len(value)
    while i < n:
        ch = value[i]
        if ch == "<":
            parts.append("&lt;")
        elif ch == "&":
            parts.append("&" if _ENTITY.match(value, i) else "&amp;")
        else:
            parts.append(ch)
        i += 1
    return "".join(parts)


_PARSER_OPTIONS = dict(resolve_entities=False, no_network=True, load_dtd=False,
                       dtd_validation=False, remove_comments=True, remove_pis=True,
                       huge_tree=False, collect_ids=False, recover=False)


def parse_xml_text(text: str, path: str, directory: Path | None) -> XmlDocument:
    """Parse BT.CPP XML text leniently; raise TreeLoadError(path, line, ...) on bad XML."""
    # lxml refuses a str with an encoding declaration; the declaration carries no line break
    # that matters, but keep its newlines anyway so line numbers do not move
    m = _XML_DECL.match(text)
    if m:
        decl = m.group(0)
        text = "".join(ch if ch == "\n" else " " for ch in decl) + text[m.end():]
    fixed, tag_lines = escape_lenient(text)
    try:
        parser = etree.XMLParser(**_PARSER_OPTIONS)
        root = etree.fromstring(fixed.encode("utf-8"), parser)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if isinstance(exc.lineno, int) and exc.lineno > 0 else 1
        msg = getattr(exc, "msg", None) or str(exc)
        raise TreeLoadError(path, line, f"Error parsing the XML: {msg}") from None
    except (ValueError, TypeError) as exc:
        raise TreeLoadError(path, 1, f"Error parsing the XML: {exc}") from None
    if root is None:
        raise TreeLoadError(path, 1, "Invalid XML: missing root element")
    elements = [e for e in root.iter() if isinstance(e.tag, str)]
    aligned = len(elements) == len(tag_lines)
    nodes: dict[object, XNode] = {}
    for idx, el in enumerate(elements):
        tag = el.tag
        if "}" in tag:  # a namespace: keep the local name, as tinyxml2 would show prefix:name
            tag = tag.split("}", 1)[1]
        attrs = {}
        for k, v in el.attrib.items():
            attrs[k.split("}", 1)[1] if "}" in k else k] = v
        xn = XNode(tag, attrs, el.sourceline or 1, tag_lines[idx] if aligned else {})
        nodes[el] = xn
        parent = el.getparent()
        if parent is not None and parent in nodes:
            nodes[parent].children.append(xn)
    return XmlDocument(path, nodes[root], directory)


def read_xml_file(path: Path, shown: str) -> XmlDocument:
    """Read and parse a file; TreeLoadError when it cannot be read or parsed."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TreeLoadError(shown, None, f"cannot read file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        m = re.match(rb'\s*<\?xml[^>]*encoding=["\']([A-Za-z0-9._-]+)["\']', raw)
        try:
            text = raw.decode(m.group(1).decode("ascii") if m else "latin-1")
        except (LookupError, UnicodeDecodeError) as exc:
            raise TreeLoadError(shown, 1, f"cannot decode file: {exc}") from None
    return parse_xml_text(text, shown, path.parent)
