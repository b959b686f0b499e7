"""Name token prefixes by chained hashes of fixed-size blocks (vLLM-style automatic prefix caching).

Block i's key is sha256(key of block i-1 || token ids of block i), so equal keys mean equal *whole prefixes*,
not just equal blocks, and the KV of a block (which depends on every earlier token) can be shared by key.
The chain starts from a seed that names the model, so KV of one model is never served to another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


def model_seed(model_id: str) -> bytes:
    """Return the chain seed for a model (e.g. the sha256 of model.int8.onnx from the manifest)."""
    return hashlib.sha256(b"globalgen-kv-v1:" + model_id.encode()).digest()


def block_keys(token_ids: Sequence[int] | np.ndarray, block_size: int, seed: bytes) -> list[bytes]:
    """Return the chained key of every *full* block of token_ids (a trailing partial block has none)."""
    ids = np.asarray(token_ids, dtype=np.int64)
    keys, prev = [], seed
    for start in range(0, len(ids) - block_size + 1, block_size):
        prev = hashlib.sha256(prev + ids[start:start + block_size].tobytes()).digest()
        keys.append(prev)
    return keys


def common_prefix(a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray) -> int:
    """Return the length of the longest common prefix of two token sequences."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    diff = np.flatnonzero(np.asarray(a[:n]) != np.asarray(b[:n]))
    return int(diff[0]) if len(diff) else n
