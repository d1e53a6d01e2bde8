"""BT.CPP 4.10 scoped blackboards: entries, SubTree remapping, autoremap, "@" root keys.

A `Blackboard` maps keys to shared `Entry` objects. A SubTree's blackboard has a parent; a
key that is remapped (`add_remapping`) or autoremapped resolves to the parent's entry, and a
key written as "@key" always resolves in the root blackboard; each blackboard memoises the
entries its keys resolve to. The value rules mirror BT.CPP's `Blackboard::set<T>` (`set`),
`set<BT::Any>` (`set_any`, what SetBlackboard uses) and `safe_any` (Python `int` stands for
int64, `float` for double, `str` for std::string, `bool` for a real C++ bool, anything else is
stored as it is). An entry's type is None for AnyTypeAllowed, `AnyValue` for BT::Any (both
not strongly typed), else the Python type.

Imports nothing of soccerbt.
"""
from __future__ import annotations

import enum
import math
import re
import weakref
from collections.abc import Callable, Iterator, MutableMapping

__all__ = [
    "AnyValue",
    "Blackboard",
    "BlackboardError",
    "BlackboardTypeError",
    "Entry",
    "btcpp_format",
    "btcpp_type_name",
    "is_number",
    "is_strongly_typed",
    "number_cast",
]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_TWO_63 = 9.223372036854775808e18  # 2**63 as a double: the first value outside int64


class BlackboardError(Exception):
    """A blackboard operation BT.CPP refuses (bad key, missing parent, ...)."""


class BlackboardTypeError(BlackboardError):
    """A value whose type does not fit the entry (BT.CPP's LogicError on set/createEntry)."""


class AnyValue:
    """Entry type marker for BT.CPP's `BT::Any`: what an untyped entry becomes when
    `set<BT::Any>` (SetBlackboard) writes it. Like "any type allowed" (None) it is not
    strongly typed, but it has a string converter that refuses (convertFromString<BT::Any>
    is not specialised) and a script's first assignment does not bypass the type rules."""

    __slots__ = ()


def is_strongly_typed(t: type | None) -> bool:
    """TypeInfo::isStronglyTyped: neither AnyTypeAllowed (None) nor BT::Any."""
    return t is not None and t is not AnyValue


class Entry:
    """One blackboard entry, shared by every blackboard that resolves to it."""

    __slots__ = ("value", "type_", "converter", "sequence_id", "stamp_s", "writer", "writer_seq",
                 "cpp_type", "cpp_value_type")

    def __init__(
        self,
        type_: type | None = None,
        converter: Callable[[str], object] | None = None,
        value: object | None = None,
    ) -> None:
        self.value: object | None = value  # None = declared but empty
        self.type_: type | None = type_  # None = any type allowed, AnyValue = BT::Any
        self.converter: Callable[[str], object] | None = converter
        self.sequence_id: int = 0
        self.stamp_s: float | None = None
        # who made the write numbered writer_seq (a node uid), stamped by tree nodes while a
        # recorder tracks writers; a later unstamped write (an adapter's) leaves it stale
        self.writer: object = None
        self.writer_seq: int = -1
        # the C++ type BT.CPP would have declared this entry with, when the Python type does
        # not say it: a tree's load sets it ("int", "unsigned int", ... for a port's entry, "int"
        # for a SubTree's literal 5), since Python's int stands for int, long and unsigned int
        self.cpp_type: str | None = None
        # the C++ type of the value itself where BT.CPP's Any keeps one the Python value does
        # not say (a SubTree literal's int); None where it is unknown or follows the value
        self.cpp_value_type: str | None = None

    def __repr__(self) -> str:
        kind = btcpp_type_name(self.type_) if self.type_ is not None else "any"
        return f"Entry(value={self.value!r}, type={kind}, seq={self.sequence_id})"


# --------------------------------------------------------------------------- type helpers


def btcpp_type_name(t: type | None) -> str:
    """The name BT.CPP's demangle() prints for the C++ type a Python type stands for."""
    if t is None:
        return "BT::AnyTypeAllowed"
    if t is AnyValue:
        return "BT::Any"
    if t is bool:
        return "bool"
    if t is int:
        return "long"
    if t is float:
        return "double"
    if t is str:
        return "std::string"
    return getattr(t, "__qualname__", repr(t))


def btcpp_format(value: object) -> str | None:
    """A value as BT.CPP prints it: integers plainly, doubles with six decimals ("%f"),
    strings verbatim, bools as 1/0, None (empty) as None, other objects with repr()."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "%f" % value
    return repr(value)


def is_number(v: object) -> bool:
    """BT.CPP's Any::isNumber(): integers (bool included, stored as int64) and doubles."""
    t = type(v)
    if t is int or t is float or t is bool:
        return True
    return isinstance(v, (int, float)) and not isinstance(v, str)


def number_cast(v: float, target: type) -> object:
    """safe_any's convertNumber: int/float/bool conversions that lose nothing, else raise.

    Raises BlackboardTypeError with BT.CPP's message when the conversion would truncate.
    """
    if target is float:
        if type(v) is float:
            return v
        if isinstance(v, float):
            return float(v)
        f = float(v)
        if isinstance(v, int) and not isinstance(v, bool) and int(f) != v:
            raise BlackboardTypeError("Loss of precision in conversion to floating point")
        return f
    if target is bool:
        if isinstance(v, bool):
            return v
        if isinstance(v, int):
            if v != 0 and v != 1:
                raise BlackboardTypeError("Implicit casting to bool is not allowed")
            return bool(v)
        return bool(v)  # a double accepts truncation to bool in safe_any
    if target is int:
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, int):
            if v < _INT64_MIN or v > _INT64_MAX:
                raise BlackboardTypeError("Value outside numeric limits")
            return int(v)
        f = float(v)
        if math.isnan(f) or f >= _TWO_63 or f < -_TWO_63 or f != math.floor(f):
            raise BlackboardTypeError("Invalid floating point to integer conversion")
        return int(f)
    raise BlackboardTypeError(f"no numeric conversion to [{btcpp_type_name(target)}]")


def _default_converter(t: type | None) -> Callable[[str], object] | None:
    """GetAnyFromStringFunctor<T>: the converter a set()-typed entry gets (None = none).

    std::string gives the string itself, numbers, bool and lists (std::vector<std::string>,
    ';'-separated) BT.CPP's convertFromString, a class
    with `from_btcpp_string` that function, an enum none; any other type a converter that
    refuses, as the unspecialised convertFromString<T> does.
    """
    if t is None:
        return None
    if t is str:
        return str
    if t is int:
        return _parse_int
    if t is float:
        return _parse_float
    if t is bool:
        return _parse_bool
    if t is list:
        return _split_list
    if isinstance(t, type) and issubclass(t, enum.Enum):
        return None
    conv = getattr(t, "from_btcpp_string", None)
    if callable(conv):
        return conv
    return _no_converter(t)


def _no_converter(t: type) -> Callable[[str], object]:
    name = btcpp_type_name(t)

    def refuse(text: str) -> object:
        raise BlackboardTypeError("You didn't implement the template specialization of "
                                  f"convertFromString for this type: {name}")

    return refuse


_INT_PREFIX = re.compile(r"-?[0-9]+")
_REAL_PREFIX = re.compile(
    r"-?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:infinity|inf|nan))"
)


def _parse_int(text: str) -> int:
    """convertFromString<int64_t>: std::from_chars, a valid prefix is enough (no '+', no blank)."""
    m = _INT_PREFIX.match(text)
    if m is not None:
        value = int(m.group(0))
        if _INT64_MIN <= value <= _INT64_MAX:
            return value
    raise BlackboardTypeError(f"Can't convert string [{text}] to integer")


def _parse_float(text: str) -> float:
    """convertFromString<double>: std::from_chars (prefix, general format, no hex)."""
    m = _REAL_PREFIX.match(text)
    if m is not None:
        value = float(m.group(0))
        if not math.isinf(value) or "n" in m.group(0).lower():
            return value
    raise BlackboardTypeError(f"Can't convert string [{text}] to double")


def _split_list(text: str) -> list[str]:
    """convertFromString<std::vector<std::string>>: splitString(text, ';')."""
    parts = text.split(";")
    if parts[-1] == "":
        parts.pop()
    return parts


def _parse_bool(text: str) -> bool:
    """convertFromString<bool>: 1/true/True/TRUE and 0/false/False/FALSE, nothing else."""
    if text in ("1", "true", "True", "TRUE"):
        return True
    if text in ("0", "false", "False", "FALSE"):
        return False
    raise BlackboardTypeError("convertFromString(): invalid bool conversion")


_PLAIN_TYPES = frozenset([int, float, str, bool, tuple, list, dict, type(None)])
_NONE_TYPE = type(None)


def _plain_scalar(value: object) -> object:
    """A numpy scalar (np.float64, np.int64, np.bool_) as the Python number it stands for.

    The world model computes with numpy; BT.CPP's Any would hold a double/int64/bool.
    """
    if type(value).__module__ == "numpy" and getattr(value, "shape", None) == ():
        item = getattr(value, "item", None)
        if item is not None:
            return item()
    return value


def _is_private_key(key: str) -> bool:
    return key[:1] == "_"


# --------------------------------------------------------------------------- blackboard


class Blackboard(MutableMapping):
    """A BT.CPP blackboard: local storage plus remapping to the parent (SubTree scopes).

    Mapping view (iteration, len, items): the local keys whose entry holds a value. Reading
    a key (`bb[key]`, `get`) resolves "@key", explicit remapping and autoremap like BT.CPP.

    Resolved entries are memoised per blackboard (`_view`, key -> entry): a key's resolution
    depends only on this blackboard and its ancestors (their storage, remappings and
    autoremap flag), so removing an entry or changing a remapping or the autoremap flag
    clears the memo of that blackboard and of all its descendants. Values are never memoised
    (entries are shared objects); a key that does not resolve is never memoised, so a newly
    created entry needs no clearing.
    """

    __slots__ = ("_parent", "_storage", "_remap", "_autoremap", "_root", "_view", "_children",
                 "layout_version", "__weakref__")

    def __init__(self, parent: Blackboard | None = None, *, autoremap: bool = False) -> None:
        self._parent: Blackboard | None = parent
        self._storage: dict[str, Entry] = {}
        # counts entries added to or removed from this blackboard's own storage: a reader of
        # the entries (the recorder) re-reads them only when it changed
        self.layout_version = 0
        self._remap: dict[str, str] = {}
        self._autoremap: bool = autoremap
        self._root: Blackboard = self if parent is None else parent.root()
        self._view: dict[str, Entry] = {}
        # weak references: a child scope lives as long as its tree, not as long as its
        # parent (a Blackboard is a Mapping, so unhashable: a list, not a WeakSet)
        self._children: list[weakref.ref[Blackboard]] = []
        if parent is not None:
            parent._children.append(weakref.ref(self))

    # ----------------------------------------------------------------- scopes

    @property
    def parent(self) -> Blackboard | None:
        """The enclosing scope (fixed at construction: the memo of resolved keys relies on it)."""
        return self._parent

    def root(self) -> Blackboard:
        """The top blackboard of the chain of parents ("@key" resolves there)."""
        return self._root

    def add_remapping(self, internal_key: str, external_key: str) -> None:
        """SubTree port: `internal_key` here refers to `external_key` in the parent.

        As BT.CPP's addSubtreeRemapping, the first remapping of a key wins.
        """
        if internal_key not in self._remap:
            self._remap[internal_key] = external_key
            self._forget_resolutions()

    def enable_autoremap(self, on: bool = True) -> None:
        """SubTree `_autoremap`: every non-private key ("_x" excluded) resolves in the parent."""
        on = bool(on)
        if on != self._autoremap:
            self._autoremap = on
            self._forget_resolutions()

    @property
    def autoremap(self) -> bool:
        return self._autoremap

    def remappings(self) -> dict[str, str]:
        """A copy of the explicit internal -> external remapping table."""
        return dict(self._remap)

    def root_key(self, key: str) -> str | None:
        """The root blackboard's key that ``key`` names from this scope, following "@", the
        remapping and autoremap as ``get_entry`` does; None when it stays in a SubTree's own
        scope (what a replay log records is the root blackboard)."""
        bb = self
        while True:
            if key[:1] == "@":
                return key[1:]
            parent = bb._parent
            if parent is None:
                return key
            if key in bb._storage:
                return None
            external = bb._remap.get(key)
            if external is not None:
                key = external
            elif not (bb._autoremap and key[:1] != "_"):
                return None
            bb = parent

    def _forget_resolutions(self) -> None:
        """Clear the memo of resolved keys here and in every descendant scope."""
        stack = [self]
        while stack:
            bb = stack.pop()
            bb._view.clear()
            children = bb._children
            if children:
                alive = [c for c in (ref() for ref in children) if c is not None]
                if len(alive) != len(children):
                    bb._children = [weakref.ref(c) for c in alive]
                stack.extend(alive)

    # ----------------------------------------------------------------- entries

    def get_entry(self, key: str) -> Entry | None:
        """The entry `key` resolves to (BT.CPP getEntry), or None."""
        entry = self._view.get(key)
        if entry is None:
            entry = self._resolve(key)
            if entry is not None:
                self._view[key] = entry
        return entry

    def _resolve(self, key: str) -> Entry | None:
        # BT.CPP checks "@" before the storage: an entry stored as "@key" (what a SubTree
        # remapping to {@key} creates, below) is never found under that name
        if key[:1] == "@":
            return self._root.get_entry(key[1:])
        entry = self._storage.get(key)
        if entry is not None:
            return entry
        parent = self._parent
        if parent is not None:
            external = self._remap.get(key)
            if external is not None:
                return parent.get_entry(external)
            if self._autoremap and key[:1] != "_":
                return parent.get_entry(key)
        return None

    def create_entry(
        self,
        key: str,
        type_: type | None = None,
        converter: Callable[[str], object] | None = None,
    ) -> Entry:
        """Declare `key` (BT.CPP createEntry): reuse it when it exists, follow remapping.

        A typed entry without a converter gets the default one of its type
        (GetAnyFromStringFunctor). Raises BlackboardTypeError when `key` was declared
        already with another type, and BlackboardError for a key with more than one "@" or
        a remapping without parent.
        """
        if type_ is not None and converter is None:
            converter = _default_converter(type_)
        if key[:1] == "@":
            if "@" in key[1:]:
                raise BlackboardError("Character '@' used multiple times in the key")
            return self._root._create_entry_impl(key[1:], type_, converter)
        return self._create_entry_impl(key, type_, converter)

    def _create_entry_impl(
        self, key: str, type_: type | None, converter: Callable[[str], object] | None
    ) -> Entry:
        entry = self._storage.get(key)
        if entry is not None:
            prev = entry.type_
            if prev is not type_ and is_strongly_typed(prev) and is_strongly_typed(type_):
                raise BlackboardTypeError(
                    f"Blackboard entry [{key}]: once declared, the type of a port shall not "
                    f"change. Previously declared type [{btcpp_type_name(prev)}], current "
                    f"type [{btcpp_type_name(type_)}]"
                )
            return entry
        external = self._remap.get(key)
        if external is not None:
            if self._parent is None:
                raise BlackboardError("Missing parent blackboard")
            # BT.CPP 4.10 follows a remapping with createEntryImpl, which does not strip "@":
            # a port remapped to {@top} declares the parent's entry "@top", not the root's
            # "top" (so a script's `p := 1` in the SubTree then throws "Bug: report")
            return self._parent._create_entry_impl(external, type_, converter)
        if self._autoremap and not _is_private_key(key):
            if self._parent is None:
                raise BlackboardError("Missing parent blackboard")
            return self._parent._create_entry_impl(key, type_, converter)
        # no memo to clear: a key is stored here only when it does not lead to the parent,
        # so until now it resolved nowhere, here or below, and misses are never memoised
        entry = Entry(type_, converter)
        self._storage[key] = entry
        self.layout_version += 1
        return entry

    def local_keys(self) -> list[str]:
        """Keys stored in this very blackboard, declared-but-empty ones included."""
        return list(self._storage)

    def local_entries(self) -> dict[str, Entry]:
        """A copy of this blackboard's own key -> entry table (for dumps and debuggers)."""
        return dict(self._storage)

    # ----------------------------------------------------------------- values

    def __getitem__(self, key: str) -> object:
        entry = self._view.get(key)
        if entry is None:
            entry = self.get_entry(key)
            if entry is None:
                raise KeyError(key)
        value = entry.value
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: str, default: object = None) -> object:
        entry = self._view.get(key)
        if entry is None:
            entry = self.get_entry(key)
            if entry is None:
                return default
        value = entry.value
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        entry = self.get_entry(key)
        return entry is not None and entry.value is not None

    def set(self, key: str, value: object) -> None:
        """Write `value` like BT.CPP's `Blackboard::set<T>`, T being the value's type.

        Python `int` stands for int64 (long), `float` for double, `bool` for bool, `str` for
        std::string; a numpy scalar is stored as the Python number it holds.

        - A key not stored in this very blackboard is created (createEntry, following
          remapping and autoremap) typed by the value, except a string which makes an
          untyped entry, as BT.CPP does for std::string. When the key resolves to an entry
          of the parent, that entry just takes the value: no type check beyond createEntry's
          (two different declared types), as in BT.CPP.
        - A local untyped entry becomes typed by this value (TypeInfo::Create<T>).
        - A local typed entry takes a value of another type only when it is a string its
          converter parses, or a number isCastingSafe accepts; otherwise BlackboardTypeError
          "Blackboard::set(key): once declared, the type of a port shall not change. ...".
          The value is then copied into the current one keeping its type (Any::copyInto).

        `None` (a Python extension) empties the entry and keeps its type.
        """
        entry = self._storage.get(key)
        if entry is not None:
            vt = type(value)
            # the adapters' case, at every tick: a local entry of this very plain type takes the
            # value as it is (no conversion, no copyInto): what the full rules below end in
            if entry.type_ is vt and vt in _PLAIN_TYPES and vt is not _NONE_TYPE:
                current = entry.value
                if current is None or type(current) is vt:
                    entry.value = value
                    entry.sequence_id += 1
                    return
        if key[:1] == "@":
            self._root.set(key[1:], value)
            return
        vt = type(value)
        if vt not in _PLAIN_TYPES:
            value = _plain_scalar(value)
            vt = type(value)
        entry = self._storage.get(key)
        if entry is None:
            if value is None or vt is str:
                entry = self._create_entry_impl(key, None, None)
            else:
                entry = self._create_entry_impl(key, vt, _default_converter(vt))
        elif value is not None:
            declared = entry.type_
            if declared is None or declared is AnyValue:
                # not strongly typed so far: the value types it
                entry.type_ = vt
                entry.converter = _default_converter(vt)
            else:
                if declared is not vt and (declared in _BASIC_TYPES
                                           or not isinstance(value, declared)):
                    value = _value_for_typed_entry(entry, key, value, vt)
                current = entry.value
                if current is not None and type(current) is not type(value):
                    value = _copy_into(value, current)
        entry.value = value
        entry.sequence_id += 1

    __setitem__ = set

    def set_any(self, key: str, value: object) -> None:
        """BT.CPP's `Blackboard::set<BT::Any>` (what SetBlackboard calls).

        Like `set`, except that a new entry takes the value's type even for a string
        (SetBlackboard makes std::string entries), a local untyped entry stays not strongly
        typed (it becomes `AnyValue`, BT::Any), and a typed entry takes only a value of its
        very type (no string parsing, no numeric cast, no copyInto).
        """
        if key[:1] == "@":
            self._root.set_any(key[1:], value)
            return
        vt = type(value)
        if vt not in _PLAIN_TYPES:
            value = _plain_scalar(value)
            vt = type(value)
        entry = self._storage.get(key)
        if entry is None:
            if value is None:
                entry = self._create_entry_impl(key, None, None)
            else:
                entry = self._create_entry_impl(key, vt, _default_converter(vt))
        else:
            declared = entry.type_
            if declared is None or declared is AnyValue:
                # TypeInfo::Create<BT::Any>(): still not strongly typed, now BT::Any
                entry.type_ = AnyValue
                entry.converter = _default_converter(AnyValue)
            elif declared is not vt and (
                    value is None or declared in _BASIC_TYPES or not isinstance(value, declared)):
                raise _mismatch(key, declared, "BT::Any")
        entry.value = value
        entry.sequence_id += 1

    def unset(self, key: str) -> None:
        """Remove `key` from this blackboard's own storage (BT.CPP unset).

        A remapped or autoremapped key is not stored here, so unsetting it does nothing: the
        parent's entry survives. Absent keys are ignored.
        """
        if self._storage.pop(key, None) is not None:
            self.layout_version += 1
            self._forget_resolutions()

    def __delitem__(self, key: str) -> None:
        if key not in self._storage:
            raise KeyError(key)
        del self._storage[key]
        self.layout_version += 1
        self._forget_resolutions()

    def __iter__(self) -> Iterator[str]:
        return iter([k for k, e in self._storage.items() if e.value is not None])

    def __len__(self) -> int:
        return sum(1 for e in self._storage.values() if e.value is not None)

    def __repr__(self) -> str:
        scope = "root" if self._parent is None else "child"
        body = ", ".join(f"{k}={e.value!r}" for k, e in self._storage.items())
        return f"<Blackboard {scope} {{{body}}}>"


_BASIC_TYPES = frozenset([int, float, bool, str])


def _value_for_typed_entry(entry: Entry, key: str, value: object, vt: type) -> object:
    """The type check of Blackboard::set for a value whose type is not the declared one:
    a string parsed by the entry's converter, or a number isCastingSafe accepts."""
    if isinstance(value, str):
        conv = entry.converter
        if conv is not None:
            try:
                parsed = conv(value)
            except BlackboardError:
                raise
            except Exception as exc:  # a converter refusing the text: BT.CPP lets it through
                raise BlackboardTypeError(str(exc)) from None
            if parsed is not None:
                return parsed
    elif (vt is int or vt is float or vt is bool) and _is_casting_safe(entry.type_, value):
        return value
    raise _mismatch(key, entry.type_, btcpp_type_name(vt))


def _is_casting_safe(target: type | None, value: object) -> bool:
    """isCastingSafe(type, value): whether a number survives the trip to `target` and back.

    Only integer and floating point targets qualify (bool is not among them)."""
    if target is int:
        if type(value) is float:
            f = value
            return not math.isnan(f) and -_TWO_63 <= f < _TWO_63 and f == math.floor(f)
        return _INT64_MIN <= int(value) <= _INT64_MAX  # type: ignore[call-overload]
    if target is float:
        if type(value) is float or type(value) is bool:
            return True
        try:
            return int(float(value)) == value  # type: ignore[arg-type]
        except OverflowError:
            return False
    return False


def _copy_into(value: object, current: object) -> object:
    """Any::copyInto(current): `value` as it is stored over `current`, keeping current's kind
    (int64, double, string) or BlackboardTypeError("Any::copyInto fails")."""
    vt, ct = type(value), type(current)
    v_int = vt is int or vt is bool
    c_int = ct is int or ct is bool
    if v_int and c_int:
        # same stored kind (int64): a bool over a long stays a long
        return int(value) if ct is int else value  # type: ignore[call-overload]
    if isinstance(value, str) and isinstance(current, str):
        return value
    if (v_int or vt is float) and (c_int or ct is float):
        # value is an int, a bool or a float there (mypy does not narrow it through vt = type(value))
        return number_cast(value, int if c_int else float)  # type: ignore[arg-type]
    if vt is ct or (ct not in _BASIC_TYPES and isinstance(value, ct)):
        return value
    raise BlackboardTypeError("Any::copyInto fails")


def _mismatch(key: str, target: type | None, given: str) -> BlackboardTypeError:
    return BlackboardTypeError(
        f"Blackboard::set({key}): once declared, the type of a port shall not change. "
        f"Previously declared type [{btcpp_type_name(target)}], current type [{given}]"
    )
