"""The order in which a C++ ``std::unordered_map`` (GCC's libstdc++) lists its keys.

BT.CPP keeps a node's ports (``PortsRemapping``) and a model's ports (``PortsList``) in
unordered maps and writes them, in the tree XML Groot2 receives, in the map's iteration order.
That order is deterministic: it follows from the keys' hashes, the number of buckets and the
order of insertion. `UnorderedKeys` replays the same insertions and lists the keys as libstdc++
would:

- a string's hash is ``std::_Hash_bytes(data, len, 0xc70f6907)`` (64-bit MurmurHash2 as
  libstdc++ writes it), an integer's the integer itself (BT.CPP's hooks are kept by uint16
  uid); a key's bucket is the hash modulo the bucket count;
- the nodes form one singly linked list, each bucket's nodes together: a node whose bucket is
  empty goes to the front of the list, any other to the front of its bucket's run;
- a map made empty has one bucket; the first insertion grows it to 13 buckets (11 asked for,
  the next size of libstdc++'s table), and an insertion that would pass one key per bucket grows
  it to the next prime of at least twice as many, relinking the nodes in list order by the same
  rule (``_Prime_rehash_policy``, maximum load factor 1).

Insertions of new keys and erasures are modelled (an erasure unlinks the node and never shrinks
the table).
Knows nothing of Groot2; checked against BT.CPP 4.10's own replies in tests/groot.
"""
from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any

__all__ = ["UnorderedKeys", "hash_bytes", "unordered_order"]

_MASK = (1 << 64) - 1
_MUL = ((0xC6A4A793 << 32) + 0x5BD1E995) & _MASK
_SEED = 0xC70F6907

# libstdc++'s bucket counts: the small table for fewer than 14 buckets asked, then the primes
_FAST_BUCKETS = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97,
           103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 197, 199, 211, 227, 241, 257, 277, 293,
           313, 337, 359, 383, 409, 439, 467, 503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109,
           1193, 1289, 1381, 1493, 1613, 1741, 1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739,
           4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011)


def _shift_mix(value: int) -> int:
    return value ^ (value >> 47)


def hash_bytes(data: bytes, seed: int = _SEED) -> int:
    """std::_Hash_bytes on a 64-bit target: std::hash<std::string> of `data`."""
    length = len(data)
    aligned = length & ~7
    h = (seed ^ (length * _MUL)) & _MASK
    for i in range(0, aligned, 8):
        word = int.from_bytes(data[i:i + 8], "little")
        h ^= (_shift_mix((word * _MUL) & _MASK) * _MUL) & _MASK
        h = (h * _MUL) & _MASK
    if length & 7:
        h ^= int.from_bytes(data[aligned:], "little")
        h = (h * _MUL) & _MASK
    h = (_shift_mix(h) * _MUL) & _MASK
    return _shift_mix(h)


class UnorderedKeys:
    """The keys of a std::unordered_map<std::string, T> in its iteration order (see the module
    docstring). `hint` is the element count a constructor reserves buckets for (none of BT.CPP's
    maps is made so: a brace list of ports fills an empty table one insertion at a time)."""

    def __init__(self, hint: int | None = None) -> None:
        self._buckets = 1
        self._next_resize = 0
        self._keys: list[Any] = []
        self._codes: dict[Any, int] = {}
        if hint:
            self._buckets = max(self._buckets, self._next_bucket_count(hint))

    def _next_bucket_count(self, wanted: int) -> int:
        if wanted < len(_FAST_BUCKETS):
            self._next_resize = _FAST_BUCKETS[wanted]
            return _FAST_BUCKETS[wanted]
        index = bisect.bisect_left(_PRIMES, wanted, lo=6)
        if index >= len(_PRIMES):
            raise ValueError(f"{wanted} buckets: more than this model knows")
        self._next_resize = _PRIMES[index]
        return _PRIMES[index]

    def _link(self, keys: list[Any], key: Any, buckets: int) -> None:
        bucket = self._codes[key] % buckets
        for index, other in enumerate(keys):
            if self._codes[other] % buckets == bucket:
                keys.insert(index, key)  # the front of its bucket's run
                return
        keys.insert(0, key)  # an empty bucket: the front of the list

    def insert(self, key: str | int) -> None:
        """Insert `key` (nothing happens when it is there already)."""
        if key in self._codes:
            return
        count = len(self._keys)
        if count + 1 > self._next_resize:
            least = max(count + 1, 0 if self._next_resize else 11)
            if least >= self._buckets:
                buckets = self._next_bucket_count(max(least + 1, self._buckets * 2))
                old, self._keys = self._keys, []
                for other in old:
                    self._link(self._keys, other, buckets)
                self._buckets = buckets
            else:
                self._next_resize = self._buckets
        self._codes[key] = key if isinstance(key, int) else hash_bytes(key.encode("utf-8"))
        self._link(self._keys, key, self._buckets)

    def erase(self, key: str | int) -> None:
        """Erase `key` (nothing happens when it is not there)."""
        if key in self._codes:
            self._keys.remove(key)
            del self._codes[key]

    def __contains__(self, key: object) -> bool:
        return key in self._codes

    def keys(self) -> list[Any]:
        return list(self._keys)


def unordered_order(keys: Iterable[str]) -> list[str]:
    """The iteration order of a map made empty and given `keys` one by one, in this order."""
    table = UnorderedKeys()
    for key in keys:
        table.insert(key)
    return table.keys()
