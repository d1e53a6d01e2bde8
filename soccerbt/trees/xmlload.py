"""Lenient BT.CPP v4 XML reading with lxml: raw `&` and `<` in attribute values, line numbers.

BT.CPP's tinyxml2 accepts attribute values such as `_while="a && b"` or `x<=3` that strict XML
rejects. `escape_lenient` escapes them (without moving any line break, so lxml's line numbers
stay right) and records the line of every attribute. The document is then parsed by lxml with
no DTD, no entity expansion and no network access, and turned into small `XNode` objects.
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from soccerbt.trees.errors import TreeLoadError

__all__ = ["XNode", "XmlDocument", "parse_xml_text", "read_xml_file", "escape_lenient",
           "FileRefused", "read_limited", "check_regular_file", "decode_xml_bytes",
           "limit_message", "DEFAULT_MAX_FILE_BYTES", "MAX_ATTRIBUTES", "MAX_SCRIPT_CHARS",
           "MAX_SCRIPT_CHARS_PER_FILE", "SCRIPT_ATTRIBUTES"]

#: the largest tree file read (bytes); TreeFactory(max_file_bytes=...) changes it
DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024
#: attributes of one element: more is refused before lxml (whose duplicate check is quadratic) sees them
MAX_ATTRIBUTES = 256
#: characters of one script (a Script's or ScriptCondition's code, a Precondition's if, a
#: pre/post condition) and of all scripts of a file: compiling is linear but not cheap
MAX_SCRIPT_CHARS = 64 * 1024
MAX_SCRIPT_CHARS_PER_FILE = 256 * 1024
SCRIPT_ATTRIBUTES = frozenset({"_skipIf", "_failureIf", "_successIf", "_while", "_onSuccess", "_onFailure",
                               "_onHalted", "_post"})
_SCRIPT_NODES = {"Script": "code", "ScriptCondition": "code", "Precondition": "if"}

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


def escape_lenient(text: str, declarations: list[int] | None = None
                   ) -> tuple[str, list[dict[str, int]]]:
    """Escape raw `<` and stray `&` inside attribute values (and stray `&` in text).

    Returns the fixed text and, for every start tag in document order, the line of each of
    its attributes. Line breaks are never added or removed. The line of every markup
    declaration (`<!DOCTYPE ...>`, `<!ENTITY ...>`, outside comments and CDATA) is appended
    to `declarations` when given.
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
            if declarations is not None:
                declarations.append(line_at(i))
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
                       dtd_validation=False, attribute_defaults=False, remove_comments=True,
                       remove_pis=True, huge_tree=False, collect_ids=False, recover=False)

_DOCTYPE_MESSAGE = ("a DOCTYPE or other markup declaration is not allowed in a BehaviorTree.CPP "
                    "file (no DTD or entity is ever loaded); remove it")


class _RefuseAll(etree.Resolver):
    """Never hand lxml a DTD, entity or any other external resource."""

    def resolve(self, system_url, public_id, context):  # noqa: ANN001 - lxml's signature
        return self.resolve_string("", context)


def _parser() -> etree.XMLParser:
    parser = etree.XMLParser(**_PARSER_OPTIONS)
    parser.resolvers.add(_RefuseAll())
    return parser


def parse_xml_text(text: str, path: str, directory: Path | None) -> XmlDocument:
    """Parse BT.CPP XML text leniently; raise TreeLoadError(path, line, ...) on bad XML."""
    # lxml refuses a str with an encoding declaration; the declaration carries no line break
    # that matters, but keep its newlines anyway so line numbers do not move
    m = _XML_DECL.match(text)
    if m:
        decl = m.group(0)
        text = "".join(ch if ch == "\n" else " " for ch in decl) + text[m.end():]
    declarations: list[int] = []
    fixed, tag_lines = escape_lenient(text, declarations)
    if declarations:  # refused before lxml sees the text: nothing named in it is ever opened
        raise TreeLoadError(path, declarations[0], _DOCTYPE_MESSAGE)
    for attrs in tag_lines:
        if len(attrs) > MAX_ATTRIBUTES:
            line = list(attrs.values())[MAX_ATTRIBUTES]
            raise TreeLoadError(path, line, f"an element with more than {MAX_ATTRIBUTES} attributes "
                                            f"({len(attrs):,}); no BehaviorTree.CPP node has that many ports")
    try:
        root = etree.fromstring(fixed.encode("utf-8"), _parser())
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if isinstance(exc.lineno, int) and exc.lineno > 0 else 1
        msg = getattr(exc, "msg", None) or str(exc)
        raise TreeLoadError(path, line, f"Error parsing the XML: {msg}") from None
    except (ValueError, TypeError) as exc:
        raise TreeLoadError(path, 1, f"Error parsing the XML: {exc}") from None
    if root is None:
        raise TreeLoadError(path, 1, "Invalid XML: missing root element")
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None or docinfo.externalDTD is not None:
        raise TreeLoadError(path, 1, _DOCTYPE_MESSAGE)  # defence in depth: never reached
    elements = [e for e in root.iter() if isinstance(e.tag, str)]
    aligned = len(elements) == len(tag_lines)
    script_chars = 0
    nodes: dict[object, XNode] = {}
    for idx, el in enumerate(elements):
        # tinyxml2 knows no namespaces: a name is what is written, `prefix:name` included
        # (BT.CPP then refuses the ':' in a model name); lxml splits it into {uri}name
        tag = _written_name(el.tag, el.prefix)
        attributes = {}
        for k, v in el.attrib.items():
            attributes[_written_name(k, _attr_prefix(el, k))] = v
        xn = XNode(tag, attributes, el.sourceline or 1, tag_lines[idx] if aligned else {})
        script_chars = _check_scripts(xn, path, script_chars)
        nodes[el] = xn
        parent = el.getparent()
        if parent is not None and parent in nodes:
            nodes[parent].children.append(xn)
    return XmlDocument(path, nodes[root], directory)


def _check_scripts(node: XNode, path: str, total: int) -> int:
    """The characters of the element's scripts added to `total`; TreeLoadError at the script
    that passes MAX_SCRIPT_CHARS, or the file's MAX_SCRIPT_CHARS_PER_FILE."""
    node_id = node.attrs.get("ID", node.tag) if node.tag in ("Action", "Condition") else node.tag
    code = _SCRIPT_NODES.get(node_id)
    for name, value in node.attrs.items():
        if name not in SCRIPT_ATTRIBUTES and name != code:
            continue
        total += len(value)
        if len(value) > MAX_SCRIPT_CHARS:
            raise TreeLoadError(path, node.attr_line(name), f"the script in {name} has {len(value):,} characters, "
                                                            f"more than {MAX_SCRIPT_CHARS:,}")
        if total > MAX_SCRIPT_CHARS_PER_FILE:
            raise TreeLoadError(
                path,
                node.attr_line(name),
                f"the scripts of this file pass {MAX_SCRIPT_CHARS_PER_FILE:,} characters in all",
            )
    return total


def _written_name(name: str, prefix: str | None) -> str:
    if "}" not in name:
        return name
    local = name.split("}", 1)[1]
    return f"{prefix}:{local}" if prefix else local


def _attr_prefix(el: etree._Element, name: str) -> str | None:
    """The prefix an attribute `{uri}local` was written with (attributes never take the
    default namespace)."""
    if "}" not in name:
        return None
    uri = name[1:].split("}", 1)[0]
    if uri == "http://www.w3.org/XML/1998/namespace":
        return "xml"
    for prefix, value in el.nsmap.items():
        if value == uri and prefix:
            return prefix
    return None


class FileRefused(Exception):
    """A file that is not read: not a regular file, too large, missing or unreadable.

    `reason` says why, without the path (callers locate it)."""

    def __init__(self, reason: str, missing: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.missing = missing


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def limit_message(max_bytes: int) -> str:
    return (f"the limit of {max_bytes:,} bytes per tree file (raise it with "
            "TreeFactory(max_file_bytes=...) or the environment variable SOCCERBT_MAX_TREE_BYTES)")


def check_regular_file(path: Path, max_bytes: int) -> os.stat_result:
    """stat() `path` (never opened): a regular file of at most `max_bytes`, else FileRefused."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise FileRefused("no such file", missing=True) from None
    except OSError as exc:
        raise FileRefused(f"cannot read file: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise FileRefused(f"not a regular file ({_kind(st.st_mode)}); a tree must be a file")
    if st.st_size > max_bytes:
        raise FileRefused(f"the file is {st.st_size:,} bytes, more than {limit_message(max_bytes)}")
    return st


def read_limited(path: Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most `max_bytes`; FileRefused otherwise.

    The type and size are checked with stat() before opening; the file is opened without
    blocking (a FIFO swapped in meanwhile cannot hang) or following a final symlink, checked
    again on the open descriptor, and never read beyond `max_bytes` + 1 bytes.
    """
    st = check_regular_file(path, max_bytes)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise FileRefused(f"cannot read file: {exc.strerror or exc}") from None
    try:
        st2 = os.fstat(fd)
        if not stat.S_ISREG(st2.st_mode) or (st2.st_dev, st2.st_ino) != (st.st_dev, st.st_ino):
            raise FileRefused("the file changed while it was opened; not read")
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise FileRefused(f"the file grew beyond {limit_message(max_bytes)}")
        return b"".join(chunks)
    except OSError as exc:
        raise FileRefused(f"cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def decode_xml_bytes(raw: bytes, shown: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        m = re.match(rb'\s*<\?xml[^>]*encoding=["\']([A-Za-z0-9._-]+)["\']', raw)
        try:
            return raw.decode(m.group(1).decode("ascii") if m else "latin-1")
        except (LookupError, UnicodeDecodeError) as exc:
            raise TreeLoadError(shown, 1, f"cannot decode file: {exc}") from None


def read_xml_file(path: Path, shown: str, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> XmlDocument:
    """Read (bounded, regular files only) and parse a file; TreeLoadError when it cannot be
    read or parsed."""
    try:
        raw = read_limited(path, max_bytes)
    except FileRefused as exc:
        raise TreeLoadError(shown, None if exc.missing else 1, exc.reason
                            if not exc.missing else "cannot read file: No such file or directory"
                            ) from None
    return parse_xml_text(decode_xml_bytes(raw, shown), shown, path.parent)
