"""BT.CPP 4.10 scoped blackboards: entries, SubTree remapping, autoremap, "@" root keys.

A `Blackboard` maps keys to shared `Entry` objects. A SubTree's blackboard has a parent; a
key that is remapped (`add_remapping`) or autoremapped resolves to the parent's entry, and a
key written as "@key" always resolves in the root blackboard. The value rules mirror BT.CPP's
`Blackboard::set` and `safe_any` (Python `int` stands for int64, `float` for double, `str` for
std::string, `bool` for a real C++ bool, anything else is stored as it is).

Imports nothing of soccerbt.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator, MutableMapping

__all__ = [
    "Blackboard",
    "BlackboardError",
    "BlackboardTypeError",
    "Entry",
    "btcpp_format",
    "btcpp_type_name",
    "is_number",
    "number_cast",
]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_TWO_63 = 9.223372036854775808e18  # 2**63 as a double: the first value outside int64


class BlackboardError(Exception):
    """A blackboard operation BT.CPP refuses (bad key, missing parent, ...)."""


class BlackboardTypeError(BlackboardError):
    """A value whose type does not fit the entry (BT.CPP's LogicError on set/createEntry)."""


class Entry:
    """One blackboard entry, shared by every blackboard that resolves to it."""

    __slots__ = ("value", "type_", "converter", "sequence_id", "stamp_s")

    def __init__(
        self,
        type_: type | None = None,
        converter: Callable[[str], object] | None = None,
        value: object | None = None,
    ) -> None:
        self.value: object | None = value  # None = declared but empty
        self.type_: type | None = type_  # None = any type allowed
        self.converter: Callable[[str], object] | None = converter
        self.sequence_id: int = 0
        self.stamp_s: float | None = None

    def __repr__(self) -> str:
        kind = btcpp_type_name(self.type_) if self.type_ is not None else "any"
        return f"Entry(value={self.value!r}, type={kind}, seq={self.sequence_id})"


# --------------------------------------------------------------------------- type helpers


def btcpp_type_name(t: type | None) -> str:
    """The name BT.CPP's demangle() prints for the C++ type a Python type stands for."""
    if t is None:
        return "BT::AnyTypeAllowed"
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


def number_cast(v: object, target: type) -> object:
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


def _default_converter(t: type) -> Callable[[str], object] | None:
    """convertFromString<T> for the basic types, used when a typed entry has no converter."""
    if t is int:
        return _parse_int
    if t is float:
        return _parse_float
    if t is bool:
        return _parse_bool
    return None


def _parse_int(text: str) -> int:
    s = text.strip()
    try:
        if s[:2].lower() in ("0x", "-0x"):
            return int(s, 16)
        return int(s)
    except ValueError:
        raise BlackboardTypeError(f"Can't convert string [{text}] to integer") from None


def _parse_float(text: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise BlackboardTypeError(f"Can't convert string [{text}] to double") from None


def _parse_bool(text: str) -> bool:
    s = text.strip()
    if s in ("true", "True", "TRUE", "1"):
        return True
    if s in ("false", "False", "FALSE", "0"):
        return False
    raise BlackboardTypeError(f"Can't convert string [{text}] to bool")


_PLAIN_TYPES = frozenset([int, float, str, bool, tuple, list, dict, type(None)])


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
    """

    __slots__ = ("parent", "_storage", "_remap", "_autoremap", "_root", "__weakref__")

    def __init__(self, parent: Blackboard | None = None, *, autoremap: bool = False) -> None:
        self.parent: Blackboard | None = parent
        self._storage: dict[str, Entry] = {}
        self._remap: dict[str, str] = {}
        self._autoremap: bool = autoremap
        self._root: Blackboard = self if parent is None else parent.root()

    # ----------------------------------------------------------------- scopes

    def root(self) -> Blackboard:
        """The top blackboard of the chain of parents ("@key" resolves there)."""
        return self._root

    def add_remapping(self, internal_key: str, external_key: str) -> None:
        """SubTree port: `internal_key` here refers to `external_key` in the parent.

        As BT.CPP's addSubtreeRemapping, the first remapping of a key wins.
        """
        self._remap.setdefault(internal_key, external_key)

    def enable_autoremap(self, on: bool = True) -> None:
        """SubTree `_autoremap`: every non-private key ("_x" excluded) resolves in the parent."""
        self._autoremap = bool(on)

    @property
    def autoremap(self) -> bool:
        return self._autoremap

    def remappings(self) -> dict[str, str]:
        """A copy of the explicit internal -> external remapping table."""
        return dict(self._remap)

    # ----------------------------------------------------------------- entries

    def get_entry(self, key: str) -> Entry | None:
        """The entry `key` resolves to (BT.CPP getEntry), or None."""
        entry = self._storage.get(key)
        if entry is not None:
            return entry
        if key[:1] == "@":
            return self._root.get_entry(key[1:])
        parent = self.parent
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

        Raises BlackboardTypeError when `key` was declared already with another type, and
        BlackboardError for a key with more than one "@" or a remapping without parent.
        """
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
            if prev is not None and type_ is not None and prev is not type_:
                raise BlackboardTypeError(
                    f"Blackboard entry [{key}]: once declared, the type of a port shall not "
                    f"change. Previously declared type [{btcpp_type_name(prev)}], current "
                    f"type [{btcpp_type_name(type_)}]"
                )
            return entry
        external = self._remap.get(key)
        if external is not None:
            if self.parent is None:
                raise BlackboardError("Missing parent blackboard")
            return self.parent.create_entry(external, type_, converter)
        if self._autoremap and not _is_private_key(key):
            if self.parent is None:
                raise BlackboardError("Missing parent blackboard")
            return self.parent._create_entry_impl(key, type_, converter)
        entry = Entry(type_, converter)
        self._storage[key] = entry
        return entry

    def local_keys(self) -> list[str]:
        """Keys stored in this very blackboard, declared-but-empty ones included."""
        return list(self._storage)

    def local_entries(self) -> dict[str, Entry]:
        """A copy of this blackboard's own key -> entry table (for dumps and debuggers)."""
        return dict(self._storage)

    # ----------------------------------------------------------------- values

    def __getitem__(self, key: str) -> object:
        entry = self._storage.get(key)
        if entry is None:
            entry = self.get_entry(key)
            if entry is None:
                raise KeyError(key)
        value = entry.value
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: str, default: object = None) -> object:
        entry = self._storage.get(key)
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
        """Write `value` (BT.CPP Blackboard::set).

        An absent key is created (type any, following remapping/autoremap). An entry that
        has a declared type, or already holds a value, only takes a value of a compatible
        type: safe number conversions, a string parsed by the entry's converter; otherwise
        BlackboardTypeError("Blackboard::set(key): once declared, ..."). `None` empties the
        entry. A numpy scalar is stored as the Python number it holds.
        """
        if key[:1] == "@":
            self._root.set(key[1:], value)
            return
        if type(value) not in _PLAIN_TYPES:
            value = _plain_scalar(value)
        entry = self._storage.get(key)
        if entry is None:
            entry = self.create_entry(key)
        if value is not None and (entry.type_ is not None or entry.value is not None):
            value = _coerce_for_set(entry, key, value)
        entry.value = value
        entry.sequence_id += 1

    __setitem__ = set

    def unset(self, key: str) -> None:
        """Remove `key` from this blackboard's own storage (BT.CPP unset).

        A remapped or autoremapped key is not stored here, so unsetting it does nothing: the
        parent's entry survives. Absent keys are ignored.
        """
        self._storage.pop(key, None)

    def __delitem__(self, key: str) -> None:
        if key not in self._storage:
            raise KeyError(key)
        del self._storage[key]

    def __iter__(self) -> Iterator[str]:
        return iter([k for k, e in self._storage.items() if e.value is not None])

    def __len__(self) -> int:
        return sum(1 for e in self._storage.values() if e.value is not None)

    def __repr__(self) -> str:
        scope = "root" if self.parent is None else "child"
        body = ", ".join(f"{k}={e.value!r}" for k, e in self._storage.items())
        return f"<Blackboard {scope} {{{body}}}>"


def _coerce_for_set(entry: Entry, key: str, value: object) -> object:
    """The value Blackboard::set stores into an entry that has a type or a value."""
    declared = entry.type_
    if declared is None:
        current = entry.value
        # the current value's type plays the declared type (safe_any copyInto keeps it)
        target: type = bool if type(current) is bool else type(current)
    else:
        target = declared
    vt = type(value)
    if vt is target:
        return value
    if target is str or isinstance(value, str):
        if isinstance(value, str) and target is not str:
            conv = entry.converter or _default_converter(target)
            if conv is not None:
                try:
                    parsed = conv(value)
                except BlackboardError:
                    raise
                except Exception as exc:  # a user converter: report it as a type error
                    raise BlackboardTypeError(
                        f"Blackboard::set({key}): can't convert string [{value}] to type "
                        f"[{btcpp_type_name(target)}]: {exc}"
                    ) from None
                if parsed is not None:
                    return parsed
        elif isinstance(value, str) and target is str:
            return value
        raise _mismatch(key, target, vt)
    if target in (int, float, bool) and is_number(value):
        if target is bool and not isinstance(value, bool):
            if declared is None:
                # untyped entry holding a bool: copyInto keeps int64 storage, so any
                # integer is taken; a double must be integral
                return number_cast(value, int)
            raise _mismatch(key, target, vt)
        try:
            return number_cast(value, target)
        except BlackboardTypeError:
            raise _mismatch(key, target, vt) from None
    if isinstance(value, target):
        return value
    raise _mismatch(key, target, vt)


def _mismatch(key: str, target: type, given: type) -> BlackboardTypeError:
    return BlackboardTypeError(
        f"Blackboard::set({key}): once declared, the type of a port shall not change. "
        f"Previously declared type [{btcpp_type_name(target)}], current type "
        f"[{btcpp_type_name(given)}]"
    )
