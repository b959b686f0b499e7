"""The KV cache interface the decoder uses, and its preallocated hot-buffer implementation.

The decoder only ever calls the six methods of `KVCache`: it `restore`s the cached prefix of a new prompt
(nothing here), reads `past()` to feed the model, `commit`s the rows of `new_kv` that belong to accepted
tokens (the pending chain and the accepted branch of a draft tree), and `rollback`s when it wants to forget
tokens. Rejected tree nodes are simply never committed, so they leave no trace. The tiered cache
(cache/tiered.py) replaces the insides behind the same methods and reuses sessions and prefixes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class KVCacheFull(RuntimeError):
    """More tokens were committed than the cache can hold."""


class KVCache(Protocol):
    @property
    def length(self) -> int:
        """Number of committed tokens P."""

    def restore(self, prompt: Sequence[int]) -> int:
        """Start a request: keep or load the K/V of a prefix of `prompt` (never all of it); return its length."""

    def past(self) -> np.ndarray:
        """Return the committed K/V rows (P, L, 2, H, D), C-contiguous (fed to the model as `past_kv`)."""

    def commit(self, new_kv: np.ndarray, rows: Sequence[int] | slice | None = None) -> None:
        """Append `new_kv[rows]` (all rows if None) after the committed tokens, in the given order."""

    def rollback(self, length: int) -> None:
        """Forget every token after the first `length` committed ones."""

    def bytes_used(self) -> int:
        """Return the bytes held by committed tokens."""


class HotKVCache:
    """One preallocated (max_len, L, 2, H, D) float32 buffer; `buf[:P]` holds the committed tokens."""

    def __init__(self, max_len: int, row_shape: tuple[int, ...], dtype=np.float32):
        self.buf = np.zeros((max_len, *row_shape), dtype)
        self._len = 0
        self.row_bytes = int(np.prod(row_shape)) * self.buf.itemsize

    @property
    def length(self) -> int:
        return self._len

    @property
    def capacity(self) -> int:
        return self.buf.shape[0]

    def restore(self, prompt: Sequence[int]) -> int:
        self._len = 0  # no reuse here: the whole prompt is prefilled
        return 0

    def past(self) -> np.ndarray:
        return self.buf[: self._len]  # a leading slice of a C-contiguous buffer is C-contiguous: no copy

    def commit(self, new_kv: np.ndarray, rows: Sequence[int] | slice | None = None) -> None:
        src = new_kv if rows is None else new_kv[rows]  # (a, L, 2, H, D)
        a = src.shape[0]
        if self._len + a > self.capacity:
            raise KVCacheFull(f"KV cache full: {self._len} + {a} tokens > capacity {self.capacity}")
        self.buf[self._len: self._len + a] = src
        self._len += a

    def rollback(self, length: int) -> None:
        if not 0 <= length <= self._len:
            raise ValueError(f"cannot roll back to {length}: cache holds {self._len} tokens")
        self._len = length

    def bytes_used(self) -> int:
        return self._len * self.row_bytes

    def bytes_allocated(self) -> int:
        return self.buf.nbytes

    def reset(self) -> None:
        self._len = 0
