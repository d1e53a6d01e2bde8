#!/usr/bin/env python3
"""Record BehaviorTree.CPP ground-truth traces of small XML cases through behaviortreepy.

Usage (with the interpreter that has behaviortreepy installed, NOT the project's venv):

    python record.py CASES_DIR [-k SUBSTRING]          # record every case of CASES_DIR/index.json
    python record.py CASES_DIR --compare REF_DIR       # record REF_DIR's cases into CASES_DIR
                                                        # and print where they differ from REF_DIR

CASES_DIR holds cases/NAME.xml and index.json (a list of {"case", "description", "ticks"} and
optionally "trust"); the recorder writes traces/NAME.json and fills the derived fields of index.json
(roots, roots_tickOnce, error, error_at, ...), in the format of the BT.CPP 4.10 traces of
/work/shared/conformance/btcpp (see its README).

How it works, and why it is safe:
- The leaf `Scripted` is registered as a stateful action. behaviortreepy registers Python actions
  without ports, so the recorder removes the `statuses="..."` attributes from the XML text it hands
  to BT.CPP (lines stay where they are) and gives every Scripted instance its statuses by UID.
  The UID of every instance is found by walking each instantiated subtree's XML in pre-order and
  matching it node by node (registration name and instance name) with the nodes BT.CPP created;
  any mismatch aborts the case.
- Blackboard types, the subtrees, node paths: behaviortreepy does not expose them, so they are
  read with ctypes from the C++ objects (exported BT.CPP symbols, old-ABI std::string). Every value
  read this way from the root blackboard is cross-checked against behaviortreepy's own getter.
- Transitions come from BT.CPP's FileLogger2 (UIDs, new status) and StdCoutLogger (previous status,
  and a synchronous count per tick), which must agree.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import behaviortreepy as bt

RECORDED_WITH = "BehaviorTree.CPP 4.8.2 via behaviortreepy 0.1.4"
MAX_TICKS_UNTIL_DONE = 20
STATUS_NAMES = ["IDLE", "RUNNING", "SUCCESS", "FAILURE", "SKIPPED"]
LETTERS = {"S": bt.NodeStatus.SUCCESS, "F": bt.NodeStatus.FAILURE, "R": bt.NodeStatus.RUNNING}
GENERIC_TAGS = ("Action", "Condition", "Control", "Decorator")


class RecorderError(Exception):
    """The recorder could not record a case faithfully."""


# --------------------------------------------------------------------------- C++ access (ctypes)
_SO = ctypes.CDLL(bt._behaviortreepy.__file__)
_CXX = ctypes.CDLL("libstdc++.so.6")
_CXX.__cxa_demangle.restype = ctypes.c_void_p
_CXX.__cxa_demangle.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
_LIBC = ctypes.CDLL(None)
_LIBC.free.argtypes = [ctypes.c_void_p]


def _fn(symbol: str, restype, *argtypes):
    f = getattr(_SO, symbol)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_VP = ctypes.c_void_p
_bb_get_any = _fn("_ZNK2BT10Blackboard6getAnyERKSs", _VP, _VP, _VP)      # const Any* (const&)
_bb_entry_info = _fn("_ZN2BT10Blackboard9entryInfoERKSs", _VP, _VP, _VP)  # const TypeInfo*
_node_name = _fn("_ZNK2BT8TreeNode4nameEv", _VP, _VP)                    # const std::string&
_node_path = _fn("_ZNK2BT8TreeNode8fullPathEv", _VP, _VP)
_node_reg = _fn("_ZNK2BT8TreeNode16registrationNameEv", _VP, _VP)
_node_uid = _fn("_ZNK2BT8TreeNode3UIDEv", ctypes.c_uint16, _VP)
_node_status = _fn("_ZNK2BT8TreeNode6statusEv", ctypes.c_int, _VP)


def _word(addr: int) -> int:
    return ctypes.c_void_p.from_address(addr).value or 0


def _cpp_ptr(pyobj) -> int:
    """C++ object behind a pybind11 instance (simple layout: value pointer after PyObject_HEAD)."""
    return _word(id(pyobj) + 16)


class _CowString:
    """A read-only old-ABI (COW) std::string built in Python memory, passed as `const std::string&`."""

    def __init__(self, text: str):
        data = text.encode()
        self._buf = ctypes.create_string_buffer(24 + len(data) + 1)
        base = ctypes.addressof(self._buf)
        ctypes.c_size_t.from_address(base).value = len(data)        # length
        ctypes.c_size_t.from_address(base + 8).value = len(data)    # capacity
        ctypes.c_int.from_address(base + 16).value = -1             # "leaked": copies clone it
        ctypes.memmove(base + 24, data, len(data))
        self._obj = ctypes.c_void_p(base + 24)

    @property
    def ref(self) -> int:
        return ctypes.addressof(self._obj)


def _read_cow(string_obj_addr: int) -> str:
    p = _word(string_obj_addr)
    n = ctypes.c_size_t.from_address(p - 24).value
    return ctypes.string_at(p, n).decode()


def _type_name(type_info_addr: int) -> str:
    return ctypes.string_at(_word(type_info_addr + 8)).decode()


def demangle(mangled: str) -> str:
    """Type name as BT::demangle prints it."""
    special = {"Ss": "std::string", "St17basic_string_viewIcSt11char_traitsIcEE": "std::string_view"}
    if mangled in special:
        return special[mangled]
    status = ctypes.c_int(0)
    out = _CXX.__cxa_demangle(mangled.encode(), None, None, ctypes.byref(status))
    if status.value != 0 or not out:
        return mangled
    text = ctypes.string_at(out).decode()
    _LIBC.free(out)
    return text.replace("std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string")


_SIGNED = set("lisxac")
_UNSIGNED = set("mjtyh")


def _any_value(any_addr: int, original: str) -> str | None:
    """Value of a BT::Any as BT.CPP prints it (std::to_string for numbers), None if not printable.

    BT::Any = linb::any (16-byte inline storage + vtable pointer) + original std::type_index.
    Integers are held as int64/uint64, floating point as double (inline), strings as a heap
    SafeAny::SimpleString.
    """
    if original in _SIGNED or original == "b":
        return str(ctypes.c_int64.from_address(any_addr).value)
    if original in _UNSIGNED:
        return str(ctypes.c_uint64.from_address(any_addr).value)
    if original in ("d", "f"):
        return "%f" % ctypes.c_double.from_address(any_addr).value
    if original in ("Ss", "PKc", "St17basic_string_viewIcSt11char_traitsIcEE"):
        # SimpleString's copy constructor may throw, so linb::any allocates it: follow the pointer.
        any_addr = _word(any_addr)
        capacity_left = ctypes.c_uint8.from_address(any_addr + 15).value
        if capacity_left & 0x80:
            size = ctypes.c_uint64.from_address(any_addr + 8).value & ((1 << 63) - 1)
            return ctypes.string_at(_word(any_addr), size).decode()
        return ctypes.string_at(any_addr, 15 - capacity_left).decode()
    return None


def dump_blackboard(bb_ptr: int, keys: list[str], check=None) -> dict:
    """{key: {"value", "type", "entry_type"}}, sorted by key, read from the C++ blackboard."""
    out = {}
    for key in sorted(keys):
        k = _CowString(key)
        any_addr = _bb_get_any(bb_ptr, k.ref)
        info = _bb_entry_info(bb_ptr, k.ref)
        if not any_addr or not info:
            if key.startswith("@"):
                # BT.CPP 4.8.2 lists a key "@name" created by a {@name} remapping but its
                # getters look "name" up in the root blackboard instead.
                out[key] = {"value": None, "type": "(unreadable)", "entry_type": "(unreadable)"}
                continue
            raise RecorderError(f"blackboard key {key!r} listed but not found")
        entry_type = demangle(_type_name(_word(info)))
        empty = _word(any_addr + 16) == 0
        if empty:
            out[key] = {"value": None, "type": entry_type, "entry_type": entry_type}
            continue
        original = _type_name(_word(any_addr + 24))
        value = _any_value(any_addr, original)
        if check is not None:
            try:
                expected = check(key)
            except RuntimeError:
                expected = None
            if value is not None and expected != value:
                raise RecorderError(f"blackboard {key!r}: decoded {value!r} but BT.CPP says {expected!r}")
            value = expected if value is None else value
        out[key] = {"value": value, "type": demangle(original), "entry_type": entry_type}
    return out


def _vector(addr: int, stride: int) -> list[int]:
    begin, end = _word(addr), _word(addr + 8)
    return [begin + i for i in range(0, end - begin, stride)]


def tree_subtrees(tree) -> list[dict]:
    """Tree::subtrees: [{"bb", "instance", "tree_id", "nodes": [(uid, name, path, registration)],
    "ptrs": {uid: TreeNode*}}]."""
    result = []
    for slot in _vector(_cpp_ptr(tree), 16):          # std::vector<std::shared_ptr<Subtree>>
        sub = _word(slot)
        nodes, ptrs = [], {}
        for nslot in _vector(sub, 16):                 # Subtree::nodes (shared_ptr<TreeNode>)
            node = _word(nslot)
            uid = int(_node_uid(node))
            ptrs[uid] = node
            nodes.append((uid, _read_cow(_node_name(node)),
                          _read_cow(_node_path(node)), _read_cow(_node_reg(node))))
        result.append({"bb": _word(sub + 24), "instance": _read_cow(sub + 40),
                       "tree_id": _read_cow(sub + 48), "nodes": nodes, "ptrs": ptrs})
    return result


def _bb_keys(bb_ptr: int) -> list[str]:
    # Blackboard::getKeys returns std::vector<StringView>; read it through a C++ call.
    vec = (ctypes.c_void_p * 3)()
    _bb_get_keys(ctypes.addressof(vec), bb_ptr)
    keys = []
    for slot in _vector(ctypes.addressof(vec), 16):   # std::string_view = (size, data)
        size = ctypes.c_size_t.from_address(slot).value
        keys.append(ctypes.string_at(_word(slot + 8), size).decode())
    return keys  # the vector's buffer is leaked on purpose (tiny, short-lived process)


_bb_get_keys = _fn("_ZNK2BT10Blackboard7getKeysEv", _VP, _VP, _VP)  # sret, this


def reset_leaves(ptrs: dict[int, int], uids) -> dict[int, str]:
    """Set the given Scripted leaves to IDLE, silently, if they are SUCCESS or FAILURE.

    Used for leaves that a parent left SUCCESS/FAILURE and then ticks again: the 4.10 recorder's
    Scripted consumes a status on every tick whatever its own status, a StatefulActionNode would
    return the old status without calling onStart. Writing IDLE into TreeNode::PImpl::status
    (right after the name, a COW std::string) without notifying the loggers makes the next tick
    call onStart. Returns {uid: the status it had}.
    """
    done = {}
    for uid in uids:
        node = ptrs[uid]
        status = _node_status(node)
        if status in (2, 3):
            field = ctypes.c_int.from_address(_word(node + 8) + 8)
            if field.value != status:
                raise RecorderError("TreeNode status field not where expected")
            field.value = 0
            if _node_status(node) != 0:
                raise RecorderError("could not reset a stale leaf")
            done[uid] = STATUS_NAMES[status]
    return done


def stale_leaves(ptrs: dict[int, int]) -> dict[int, str]:
    return {uid: STATUS_NAMES[_node_status(p)] for uid, p in ptrs.items() if _node_status(p) in (2, 3)}


# --------------------------------------------------------------------------- XML preparation
_START_TAG = re.compile(r"<([A-Za-z_][\w.:-]*)((?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>")
_STATUSES_ATTR = re.compile(r"\s+statuses\s*=\s*(\"[^\"]*\"|'[^']*')")
_ID_ATTR = re.compile(r"\sID\s*=\s*(\"([^\"]*)\"|'([^']*)')")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
PROBE_KEY = "__rec_h{}"      # root blackboard keys written by the probes, left out of the dumps
TICK_KEY = "__rec_tick"
PROBE_PREFIX = "__rec_"


def _attr_value_span(attrs: str, name: str) -> tuple[int, int] | None:
    m = re.search(r"\s" + re.escape(name) + r"\s*=\s*(\"[^\"]*\"|'[^']*')", attrs)
    return (m.start(1) + 1, m.end(1) - 1) if m else None


def prepare_xml(text: str) -> str:
    """The XML given to BT.CPP: for every Scripted tag (document order i), `statuses` removed and
    a probe `@__rec_h<i> := @__rec_tick` added as a post condition, all on the same lines.

    The probe tells whether BT.CPP ticked the leaf when the Scripted callback did not run (a
    StatefulActionNode left SUCCESS/FAILURE by its parent); it writes only its own root key.
    It goes into `_post`, or into `_onSuccess` and `_onFailure` when the case uses `_post`
    itself (then appended to `_post` only if those two are used too).
    """
    comments = [m.span() for m in _COMMENT.finditer(text)]
    counter = [0]

    def fix(m: re.Match) -> str:
        if any(a <= m.start() < b for a, b in comments):
            return m.group(0)
        tag, attrs = m.group(1), m.group(2)
        is_scripted = tag == "Scripted"
        if tag in GENERIC_TAGS:
            idm = _ID_ATTR.search(attrs)
            is_scripted = bool(idm) and (idm.group(2) or idm.group(3)) == "Scripted"
        if not is_scripted:
            return m.group(0)
        probe = f"@{PROBE_KEY.format(counter[0])} := @{TICK_KEY}"
        counter[0] += 1
        new = _STATUSES_ATTR.sub(lambda a: "\n" * a.group(0).count("\n") or "", attrs)
        if _attr_value_span(new, "_post") is None:
            new += f' _post="{probe}"'
        elif _attr_value_span(new, "_onSuccess") is None and _attr_value_span(new, "_onFailure") is None:
            new += f' _onSuccess="{probe}" _onFailure="{probe}"'
        else:
            a, b = _attr_value_span(new, "_post")
            new = new[:b] + "; " + probe + new[b:]
        return f"<{tag}{new}{m.group(0)[len(tag) + 1 + len(attrs):]}"
    return _START_TAG.sub(fix, text)


def _effective_id(el: ET.Element) -> str:
    return el.get("ID", el.tag) if el.tag in GENERIC_TAGS else el.tag


def _preorder(el: ET.Element):
    for child in el:
        if not isinstance(child.tag, str):
            continue
        yield child
        if child.tag != "SubTree":
            yield from _preorder(child)


def parse_statuses(text: str) -> list[bt.NodeStatus]:
    if "{" in text:
        raise RecorderError(f"statuses from the blackboard ({text!r}) are not supported")
    seq = [LETTERS[c.strip()] for c in text.split(",") if c.strip()]
    if not seq:
        raise RecorderError("empty statuses")
    return seq


PRECONDITIONS = ("_skipIf", "_successIf", "_failureIf", "_while")


def map_scripted(xml_text: str, subtrees: list[dict]) -> dict[int, dict]:
    """For every Scripted instance, by UID: its statuses, its probe index (document order of its
    element) and whether it has pre conditions; the XML is matched with the created nodes."""
    root = ET.fromstring(xml_text)
    doc_index = {}
    for el in root.iter():
        if isinstance(el.tag, str) and _effective_id(el) == "Scripted":
            doc_index[id(el)] = len(doc_index)
    trees = {bt_el.get("ID"): bt_el for bt_el in root.findall("BehaviorTree")}
    table: dict[int, dict] = {}
    for sub in subtrees:
        el_tree = trees.get(sub["tree_id"])
        if el_tree is None:
            raise RecorderError(f"tree {sub['tree_id']!r} not found in the XML")
        elements = list(_preorder(el_tree))
        if len(elements) != len(sub["nodes"]):
            raise RecorderError(f"tree {sub['tree_id']!r}: {len(elements)} XML elements, "
                                f"{len(sub['nodes'])} nodes created")
        for el, (uid, name, _path, reg) in zip(elements, sub["nodes"], strict=False):
            eid = _effective_id(el)
            if eid != reg or el.get("name", name if el.tag == "SubTree" else eid) != name:
                raise RecorderError(f"XML <{el.tag} name={el.get('name')}> does not match node "
                                    f"{name!r} [{reg}] uid {uid}")
            if reg == "Scripted":
                table[uid] = {"statuses": parse_statuses(el.get("statuses", "S")),
                              "probe": doc_index[id(el)],
                              "pre": any(a in el.attrib for a in PRECONDITIONS)}
    return table


# --------------------------------------------------------------------------- recording
class _Scripted:
    """State of the Scripted leaves of one tree: statuses and cursor by UID, and the event log."""

    def __init__(self):
        self.table: dict[int, list] = {}
        self.cursor: dict[int, int] = {}
        self.events: list[list[str]] = []
        self.ticked: set[int] = set()
        self.failure: str | None = None

    def tick(self, node):
        try:
            uid = node.uid()
            seq = self.table[uid]["statuses"]
            self.ticked.add(uid)
            i = self.cursor.get(uid, 0)
            self.cursor[uid] = i + 1
            status = seq[min(i, len(seq) - 1)]
            self.events.append(["tick", node.name(), status.name])
            return status
        except Exception as exc:  # noqa: BLE001 - behaviortreepy would turn it into FAILURE
            self.failure = f"Scripted callback failed: {exc!r}"
            return bt.NodeStatus.FAILURE

    def halted(self, node):
        try:
            self.events.append(["halt", node.name()])
        except Exception as exc:  # noqa: BLE001
            self.failure = f"Scripted halt callback failed: {exc!r}"


def _make_tree(text: str):
    state = _Scripted()
    factory = bt.BehaviorTreeFactory()
    factory.register_simple_stateful_action("Scripted", state.tick, state.tick, state.halted)
    tree = factory.create_tree_from_text(text)
    return factory, tree, state


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_COUT_LINE = re.compile(r"^\[[0-9.]+\]: (.*?)\s+(IDLE|RUNNING|SUCCESS|FAILURE|SKIPPED) -> "
                        r"(IDLE|RUNNING|SUCCESS|FAILURE|SKIPPED)$")


class _CoutCapture:
    """Redirects file descriptor 1 (where StdCoutLogger writes) into a temporary file."""

    def __init__(self):
        self.file = tempfile.TemporaryFile()
        self.pos = 0

    def __enter__(self):
        sys.stdout.flush()
        self.saved = os.dup(1)
        os.dup2(self.file.fileno(), 1)
        return self

    def __exit__(self, *exc):
        os.dup2(self.saved, 1)
        os.close(self.saved)

    def new_lines(self) -> list[tuple[str, str, str]]:
        self.file.seek(self.pos)
        data = self.file.read()
        self.pos += len(data)
        out = []
        for line in _ANSI.sub("", data.decode(errors="replace")).splitlines():
            m = _COUT_LINE.match(line)
            if not m:
                raise RecorderError(f"unexpected StdCoutLogger line {line!r}")
            out.append(m.groups())
        return out


def _read_file_logger(path: str) -> list[tuple[int, str]]:
    data = Path(path).read_bytes()
    magic = b"BTCPP4-FileLogger2"
    if not data.startswith(magic):
        raise RecorderError("unexpected FileLogger2 header")
    pos = len(magic) + 1                      # + format version byte
    (xml_len,) = struct.unpack_from("<i", data, pos)
    pos += 4 + xml_len + 8                    # XML, first timestamp
    out = []
    while pos + 9 <= len(data):               # 6 bytes timestamp, 2 bytes uid, 1 byte status
        uid, status = struct.unpack_from("<HB", data, pos + 6)
        out.append((uid, STATUS_NAMES[status]))
        pos += 9
    if pos != len(data):
        raise RecorderError("truncated FileLogger2 record")
    return out


def _open_case(xml_path: Path):
    """Load a case in BT.CPP. Returns (factory, tree, state, subtrees, scripted pointers)."""
    factory, tree, state = _make_tree(prepare_xml(xml_path.read_text()))
    subtrees = tree_subtrees(tree)
    state.table = map_scripted(xml_path.read_text(), subtrees)
    ptrs = {uid: p for sub in subtrees for uid, p in sub["ptrs"].items() if uid in state.table}
    return factory, tree, state, subtrees, ptrs


def _probe_hits(bb, n: int, table: dict[int, dict], stale: dict[int, str], ticked: set[int]) -> set[int]:
    """Stale leaves (not reset) that BT.CPP ticked during tick n without calling the callback."""
    hits = set()
    for uid in stale:
        if uid in ticked:
            continue
        try:
            if bb.get_int(PROBE_KEY.format(table[uid]["probe"])) == n:
                hits.add(uid)
        except RuntimeError:
            pass
    return hits


def record_case(xml_path: Path, ticks: int | None, resets: dict[int, set[int]]) -> tuple[dict, dict]:
    """Record one case with tickExactlyOnce, silently resetting the leaves `resets[n]` before
    tick n. Returns the trace (without case/description) and the stale ticks found:
    {tick: {uid, ...}} of leaves BT.CPP ticked while they still were SUCCESS/FAILURE."""
    trace: dict = {"tick_method": "tickExactlyOnce"}
    try:
        factory, tree, state, subtrees, ptrs = _open_case(xml_path)
    except RuntimeError as exc:
        trace.update({"error": str(exc), "error_at": "load", "ticks": []})
        return trace, {}
    root_bb = tree.root_blackboard()
    if subtrees[0]["bb"] != _cpp_ptr(root_bb):
        raise RecorderError("first subtree is not the root blackboard's")
    paths = {uid: (name, path) for sub in subtrees for uid, name, path, _reg in sub["nodes"]}

    def keys(bb_ptr):
        return [k for k in _bb_keys(bb_ptr) if not k.startswith(PROBE_PREFIX)]

    def snapshot() -> tuple[dict, dict | None]:
        main = dump_blackboard(subtrees[0]["bb"], keys(subtrees[0]["bb"]), root_bb.get_string)
        if len(subtrees) == 1:
            return main, None
        subs = {s["instance"]: dump_blackboard(s["bb"], keys(s["bb"])) for s in subtrees[1:]}
        return main, subs

    trace["blackboard_initial"] = snapshot()[0]
    steps, counts, reset_by_tick = [], [], []
    stale_ticks: dict[int, set[int]] = {}
    notes: list[str] = []
    cout_lines: list[tuple[str, str, str]] = []
    log_path = tempfile.mktemp(suffix=".btlog")
    with _CoutCapture() as cout:
        file_logger = bt.FileLogger(tree, log_path)
        cout_logger = bt.StdCoutLogger(tree)
        limit = ticks if ticks is not None else MAX_TICKS_UNTIL_DONE
        for n in range(1, limit + 1):
            state.events, state.ticked = [], set()
            done = reset_leaves(ptrs, resets.get(n, ()))
            reset_by_tick.append(done)
            for uid, was in done.items():
                notes.append(f"tick {n}: BT.CPP would not tick leaf {paths[uid][1]}, left {was} by its "
                             "parent; it was reset to IDLE to tick like the 4.10 leaf")
                if state.table[uid]["pre"]:
                    notes.append(f"tick {n}: UNSURE: that leaf has pre conditions, which BT.CPP only "
                                 "checks on an IDLE node")
            stale = stale_leaves(ptrs)
            root_bb.set_int(TICK_KEY, n)
            step: dict = {"tick": n}
            error = None
            try:
                status = tree.tick_exactly_once()
                step["root"] = status.name
            except RuntimeError as exc:
                error = str(exc)
                step["root"] = None
                step["error"] = error
            if state.failure:
                raise RecorderError(state.failure)
            hits = _probe_hits(root_bb, n, state.table, stale, state.ticked)
            if hits:
                stale_ticks[n] = hits
            step["events"] = state.events
            state.events = []      # halts when the tree is destroyed belong to no tick
            main, subs = snapshot()
            step["blackboard"] = main
            if subs is not None:
                step["subtree_blackboards"] = subs
            lines = cout.new_lines()
            counts.append(len(lines))
            cout_lines.extend(lines)
            steps.append(step)
            if error is not None:
                trace["error"] = error
                trace["error_at"] = n
                break
            if ticks is None and step["root"] != "RUNNING":
                break
        cout_logger.set_enabled(False)
        del cout_logger
        # FileLogger2 writes from its own thread (every 10 ms) and may drop its queue when
        # destroyed: wait until everything StdCoutLogger saw is in the file.
        deadline = time.monotonic() + 10.0
        while True:
            file_logger.flush()
            try:
                records = _read_file_logger(log_path)
            except (RecorderError, struct.error, FileNotFoundError):
                records = []
            if len(records) >= len(cout_lines) or time.monotonic() > deadline:
                break
            time.sleep(0.005)
        del file_logger
    os.unlink(log_path)
    if len(records) != len(cout_lines):
        raise RecorderError(f"FileLogger2 saw {len(records)} transitions, StdCoutLogger {len(cout_lines)}")
    pos = 0
    for step, count, done in zip(steps, counts, reset_by_tick, strict=False):
        transitions = []
        for (uid, new), (cname, prev, cnew) in zip(records[pos:pos + count], cout_lines[pos:pos + count], strict=False):
            name, path = paths[uid]
            if (name, new) != (cname, cnew):
                raise RecorderError(f"loggers disagree: {name} {new} vs {cname} {cnew}")
            if uid in done and prev == "IDLE":
                prev = done.pop(uid)       # the 4.10 leaf was still in that status
                if prev == new:
                    continue               # no change for the 4.10 leaf
            transitions.append([name, path, prev, new])
        step["transitions"] = transitions
        pos += count
    trace["ticks"] = steps
    if notes:
        trace["recorder_notes"] = notes
    del tree, factory
    return trace, stale_ticks


MAX_REPLAYS = 10


def record_emulating_410_leaf(xml_path: Path, ticks: int | None) -> dict:
    """Record, replaying from scratch with one more silent reset each time a stale tick is found
    (earliest first), until BT.CPP never ticks a leaf that the 4.10 leaf would have ticked."""
    resets: dict[int, set[int]] = {}
    for _ in range(MAX_REPLAYS):
        trace, stale = record_case(xml_path, ticks, resets)
        if not stale:
            return trace
        first = min(stale)
        resets.setdefault(first, set()).update(stale[first])
    raise RecorderError("too many stale leaves to emulate the 4.10 leaf")


def record_tick_once(xml_path: Path, n_ticks: int, resets_at: dict[int, set[str]]) -> tuple[list, object, str | None]:
    """Roots with tickOnce (which loops on wake-up signals) for the same number of ticks; the
    leaves reset in the tickExactlyOnce run (by path) are reset before the same tick."""
    try:
        factory, tree, state, subtrees, ptrs = _open_case(xml_path)
    except RuntimeError as exc:
        return [], "load", str(exc)
    by_path = {path: uid for sub in subtrees for uid, _n, path, _r in sub["nodes"]}
    root_bb = tree.root_blackboard()
    roots = []
    for n in range(1, n_ticks + 1):
        reset_leaves(ptrs, [by_path[p] for p in resets_at.get(n, ())])
        root_bb.set_int(TICK_KEY, n)   # read by the probes
        try:
            roots.append(tree.tick_once().name)
        except RuntimeError as exc:
            roots.append(None)
            return roots, n, str(exc)
    return roots, None, None


_NOTE = re.compile(r"^tick (\d+): BT.CPP would not tick leaf (.*), left \w+ by its parent")


def record_entry(root: Path, entry: dict) -> dict:
    """Record the case of an index entry; writes traces/NAME.json, returns the updated entry."""
    name = entry["case"]
    xml_path = root / "cases" / f"{name}.xml"
    trace = record_emulating_410_leaf(xml_path, entry.get("ticks"))
    ordered = {"case": name, "tick_method": trace["tick_method"]}
    for key in ("blackboard_initial", "error", "error_at", "ticks", "recorder_notes"):
        if key in trace:
            ordered[key] = trace[key]
    ordered["description"] = entry.get("description", "")
    ordered["recorded_with"] = RECORDED_WITH
    (root / "traces").mkdir(exist_ok=True)
    (root / "traces" / f"{name}.json").write_text(json.dumps(ordered, indent=1) + "\n")

    n_ticks = len(trace["ticks"])
    out = {
        "case": name,
        "ticks": entry.get("ticks", n_ticks) if trace.get("error_at") != "load" else entry.get("ticks", 1),
        "description": entry.get("description", ""),
    }
    for key in ("trust", "trust_reason"):
        if key in entry:
            out[key] = entry[key]
    if "error" in trace:
        out["error"] = trace["error"]
        out["error_at"] = trace["error_at"]
    out["roots"] = [s["root"] for s in trace["ticks"]]
    resets_at: dict[int, set[str]] = {}
    for note in trace.get("recorder_notes", []):
        m = _NOTE.match(note)
        if m:
            resets_at.setdefault(int(m.group(1)), set()).add(m.group(2))
    roots_once, err_at, err = record_tick_once(xml_path, entry.get("ticks", n_ticks) if n_ticks else 0,
                                               resets_at)
    out["roots_tickOnce"] = roots_once
    if err_at is not None:
        out["error_tickOnce_at"] = err_at
        out["error_tickOnce"] = err
    if "recorder_notes" in trace:
        out["recorder_notes"] = trace["recorder_notes"]
    out["recorded_with"] = RECORDED_WITH
    return out


# --------------------------------------------------------------------------- comparison
def compare_traces(mine: dict, ref: dict) -> list[str]:
    """Differences that matter to check.py (plus error messages), as readable lines."""
    diffs = []
    if (mine.get("error_at") == "load") != (ref.get("error_at") == "load"):
        return [f"load: 4.8.2 {mine.get('error', 'loads')!r} / 4.10 {ref.get('error', 'loads')!r}"]
    if mine.get("error_at") == "load":
        if mine.get("error") != ref.get("error"):
            diffs.append(f"load error text: 4.8.2 {mine['error']!r} / 4.10 {ref['error']!r}")
        return diffs
    for a, b in zip(mine["ticks"], ref["ticks"], strict=False):
        t = b["tick"]
        if (a.get("error") is None) != (b.get("error") is None):
            diffs.append(f"tick {t}: error 4.8.2 {a.get('error')!r} / 4.10 {b.get('error')!r}")
            break
        if a.get("error") is not None and a["error"] != b["error"]:
            diffs.append(f"tick {t}: error text 4.8.2 {a['error']!r} / 4.10 {b['error']!r}")
        if a["root"] != b["root"]:
            diffs.append(f"tick {t}: root 4.8.2 {a['root']} / 4.10 {b['root']}")
        if a["events"] != b["events"]:
            diffs.append(f"tick {t}: events 4.8.2 {a['events']} / 4.10 {b['events']}")
        if a["blackboard"] != b["blackboard"]:
            keys = sorted(set(a["blackboard"]) | set(b["blackboard"]))
            for k in keys:
                if a["blackboard"].get(k) != b["blackboard"].get(k):
                    diffs.append(f"tick {t}: bb {k}: 4.8.2 {a['blackboard'].get(k)} / 4.10 {b['blackboard'].get(k)}")
        if a.get("transitions") != b.get("transitions"):
            diffs.append(f"tick {t}: transitions differ")
        if diffs:
            break
    if len(mine["ticks"]) != len(ref["ticks"]):
        diffs.append(f"tick count 4.8.2 {len(mine['ticks'])} / 4.10 {len(ref['ticks'])}")
    return diffs


def _record_in_child(root: Path, entry: dict) -> dict:
    """Record one case in a child process: a crash of BT.CPP (e.g. a stack overflow) stays there."""
    with tempfile.TemporaryDirectory() as tmp:
        spec, out = Path(tmp) / "entry.json", Path(tmp) / "out.json"
        spec.write_text(json.dumps(entry))
        proc = subprocess.run([sys.executable, __file__, str(root), "--one", str(spec), str(out)],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if proc.returncode < 0:
            raise RecorderError(f"BT.CPP crashed (signal {-proc.returncode})")
        if proc.returncode != 0 or not out.exists():
            raise RecorderError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "child failed")
        return json.loads(out.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases_dir")
    parser.add_argument("-k", default="", help="only cases whose name contains this")
    parser.add_argument("--compare", metavar="REF_DIR",
                        help="copy REF_DIR's cases into CASES_DIR, record them, print the differences")
    parser.add_argument("--one", nargs=2, metavar=("ENTRY_JSON", "OUT_JSON"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    root = Path(args.cases_dir)
    if args.one:
        entry = json.loads(Path(args.one[0]).read_text())
        try:
            result = record_entry(root, entry)
        except RecorderError as exc:
            print(f"RecorderError: {exc}", file=sys.stderr)
            return 2
        Path(args.one[1]).write_text(json.dumps(result))
        return 0
    if args.compare:
        ref = Path(args.compare)
        (root / "cases").mkdir(parents=True, exist_ok=True)
        entries = [{"case": e["case"], "ticks": e["ticks"], "description": e.get("description", "")}
                   for e in json.loads((ref / "index.json").read_text())]
        for e in entries:
            (root / "cases" / f"{e['case']}.xml").write_text((ref / "cases" / f"{e['case']}.xml").read_text())
    else:
        entries = json.loads((root / "index.json").read_text())
    done = []
    failures = recorded = 0
    for entry in entries:
        if args.k not in entry["case"]:
            done.append(entry)
            continue
        recorded += 1
        try:
            done.append(_record_in_child(root, entry))
        except RecorderError as exc:
            failures += 1
            print(f"NOT RECORDED {entry['case']}: {exc}")
            kept = dict(entry)
            kept["not_recorded"] = str(exc)
            done.append(kept)
            continue
        if args.compare:
            mine = json.loads((root / "traces" / f"{entry['case']}.json").read_text())
            theirs = json.loads((ref / "traces" / f"{entry['case']}.json").read_text())
            diffs = compare_traces(mine, theirs)
            print(f"{'DIFF' if diffs else 'same'} {entry['case']}")
            for d in diffs:
                print(f"     {d}")
    (root / "index.json").write_text(json.dumps(done, indent=1) + "\n")
    print(f"{recorded - failures} recorded, {failures} not recorded")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
