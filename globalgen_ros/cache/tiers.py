"""The warm tier: a byte-budgeted least-recently-used map from block keys to stored KV rows.

Byte accounting is exact for what the tier holds: an entry costs the bytes of its numpy buffers (KV codes,
scales, token ids), computed *before* anything is allocated, so the tier evicts first and never goes over its
budget, not even for a moment. Python bookkeeping (dict slots, key objects: ~200 B per entry) is not counted.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class TierStats:
    """Counters of one tier (exposed through TieredKVCache.stats() for /diagnostics)."""

    hits: int = 0  # lookups that found the entry
    misses: int = 0
    evictions: int = 0
    inserts: int = 0
    rejected: int = 0  # inserts larger than the whole budget
    hit_tokens: int = 0  # KV rows served from this tier
    peak_bytes: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class Entry:
    value: Any
    nbytes: int


@dataclass
class LRUStore:
    """Keep entries under budget_bytes; evict the least recently used first."""

    budget_bytes: int
    on_evict: Callable[[Hashable, Any], None] | None = None  # e.g. demote to the cold tier
    used_bytes: int = 0
    stats: TierStats = field(default_factory=TierStats)
    _entries: OrderedDict = field(default_factory=OrderedDict)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def get(self, key: Hashable, *, count: bool = True) -> Any | None:
        """Return the value for key and mark it most recently used, or None."""
        entry = self._entries.get(key)
        if count:
            if entry is None:
                self.stats.misses += 1
            else:
                self.stats.hits += 1
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry.value

    def touch(self, key: Hashable) -> None:
        if key in self._entries:
            self._entries.move_to_end(key)

    def reserve(self, nbytes: int) -> bool:
        """Evict least recently used entries until nbytes more fit; False if nbytes exceeds the budget."""
        if nbytes > self.budget_bytes:
            self.stats.rejected += 1
            return False
        while self.used_bytes + nbytes > self.budget_bytes:
            key, entry = self._entries.popitem(last=False)
            self.used_bytes -= entry.nbytes
            self.stats.evictions += 1
            if self.on_evict is not None:
                self.on_evict(key, entry.value)
        return True

    def put(self, key: Hashable, make: Callable[[], Any], nbytes: int) -> bool:
        """Insert make() under key after making room for nbytes; make() must allocate exactly nbytes."""
        self.pop(key)
        if not self.reserve(nbytes):
            return False
        value = make()
        actual = value_nbytes(value)
        if actual != nbytes:
            raise AssertionError(f"entry size {actual} B differs from the reserved {nbytes} B")
        self._entries[key] = Entry(value, nbytes)
        self.used_bytes += nbytes
        self.stats.inserts += 1
        self.stats.peak_bytes = max(self.stats.peak_bytes, self.used_bytes)
        return True

    def pop(self, key: Hashable) -> Any | None:
        """Remove key (not counted as an eviction); return its value or None."""
        entry = self._entries.pop(key, None)
        if entry is None:
            return None
        self.used_bytes -= entry.nbytes
        return entry.value

    def items(self):
        return list((k, e.value) for k, e in self._entries.items())

    def clear(self) -> None:
        self._entries.clear()
        self.used_bytes = 0


def value_nbytes(value: Any) -> int:
    """Return the bytes of the numpy buffers a stored value holds (its `nbytes`)."""
    return int(value.nbytes)
