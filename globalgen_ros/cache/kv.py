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
        """Return the committed K/V rows (P, L, 2, H, D) (fed to the model as `past_kv`)."""

    def commit(self, new_kv: np.ndarray, rows: Sequence[int] | slice | None = None) -> None:
        """Append `new_kv[rows]` (all rows if None) after the committed tokens, in the given order."""

    def rollback(self, length: int) -> None:
        """Forget every token after the first `length` committed ones."""

    def bytes_used(self) -> int:
        """Return the bytes held by committed tokens."""


def layer_major_rows(n: int, row_shape: tuple[int, int, int, int], dtype=np.float32) -> np.ndarray:
    """Return zeroed KV rows (n, L, 2, H, D), a view of (L, 2, n, H, D) storage.

    Rows are what the cache stores and restores; the model reads each layer's K or V, rows[:P, i, j], and in this
    layout that is one contiguous (P, H, D) block, which ONNX Runtime reads in place (no copy per forward).
    """
    L, two, H, D = row_shape
    return np.zeros((L, two, n, H, D), dtype).transpose(2, 0, 1, 3, 4)


class HotKVCache:
    """One preallocated buffer of max_len KV rows (a layer-major view); `buf[:P]` holds the committed tokens."""

    def __init__(self, max_len: int, row_shape: tuple[int, ...], dtype=np.float32):
        self.buf = layer_major_rows(max_len, row_shape, dtype)
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
        return self.buf[: self._len]  # a view: each layer's K or V in it is contiguous (layer_major_rows)

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
