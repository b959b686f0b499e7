"""The cold tier: KV blocks on disk that survive a restart, checksummed, byte-budgeted, LRU by mtime.

A file is `<block key hex>.kv`: 32 bytes sha256 of the payload, then the payload (an uncompressed .npz without
pickles). A file whose checksum, layout or shape is wrong is deleted with a warning and reported as a miss, so
the caller recomputes the block; it is never loaded. Writes go to a temporary file first and are renamed into
place, so a crash leaves either the old state or the new file, never half a file under a valid name.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import tempfile
from pathlib import Path

import numpy as np

from globalgen_ros.cache.quant import QuantKV
from globalgen_ros.cache.tiers import TierStats

log = logging.getLogger(__name__)
_QFIELDS = ("k_codes", "k_scale", "k_zero", "v_codes", "v_scale", "v_zero")


def _serialize(tokens: np.ndarray, kv: QuantKV | np.ndarray) -> bytes:
    arrays = {"tokens": tokens}
    if isinstance(kv, QuantKV):
        arrays |= {name: getattr(kv, name) for name in _QFIELDS} | {"group": np.array(kv.group)}
    else:
        arrays["kv"] = kv
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    payload = buf.getvalue()
    return hashlib.sha256(payload).digest() + payload


def _deserialize(data: bytes, shape: tuple[int, int, int]) -> tuple[np.ndarray, QuantKV | np.ndarray]:
    """Parse a file; raise ValueError if its checksum or layout is wrong."""
    digest, payload = data[:32], data[32:]
    if len(data) < 32 or hashlib.sha256(payload).digest() != digest:
        raise ValueError("checksum mismatch")
    with np.load(io.BytesIO(payload), allow_pickle=False) as z:
        arrays = {name: z[name] for name in z.files}
    tokens = arrays["tokens"]
    L, H, D = shape
    if "kv" in arrays:
        kv = arrays["kv"]
        ok = kv.dtype == np.float32 and kv.shape == (len(tokens), L, 2, H, D)
    else:
        kv = QuantKV(*(arrays[name] for name in _QFIELDS), group=int(arrays["group"]))
        ok = kv.k_codes.shape == (len(tokens), L, H, D) and kv.v_codes.shape == kv.k_codes.shape
    if not ok or tokens.dtype != np.int32:
        raise ValueError("unexpected array layout")
    return tokens, kv


class ColdStore:
    """Keep KV blocks as files under root, at most budget_bytes on disk."""

    def __init__(self, root: str | Path, budget_bytes: int, shape: tuple[int, int, int]):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        for tmp in self.root.glob("*.tmp"):  # left by a crash between write and rename
            tmp.unlink(missing_ok=True)
        self.budget_bytes = budget_bytes
        self.shape = shape  # (L, H, D) of the model whose KV this is (the key's seed names the model)
        self.stats = TierStats()
        self.corrupt = 0
        self.used_bytes = sum(p.stat().st_size for p in self.root.glob("*.kv"))
        self.stats.peak_bytes = self.used_bytes
        self._evict(0)

    def _path(self, key: bytes) -> Path:
        return self.root / f"{key.hex()}.kv"

    def __contains__(self, key: bytes) -> bool:
        return self._path(key).exists()

    def get(self, key: bytes) -> tuple[np.ndarray, QuantKV | np.ndarray] | None:
        """Return (tokens, kv) of a block, or None if absent or corrupt (a corrupt file is deleted)."""
        path = self._path(key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            self.stats.misses += 1
            return None
        try:
            block = _deserialize(data, self.shape)
        except (ValueError, KeyError, OSError, EOFError, TypeError) as err:
            log.warning("cold KV cache: discarding corrupt file %s (%s); the block will be recomputed", path, err)
            self.corrupt += 1
            self.stats.misses += 1
            self._remove(path)
            return None
        os.utime(path)  # mark as recently used
        self.stats.hits += 1
        return block

    def put(self, key: bytes, tokens: np.ndarray, kv: QuantKV | np.ndarray) -> bool:
        """Write a block (replacing any file of that key); False if it does not fit the budget at all."""
        path = self._path(key)
        data = _serialize(tokens, kv)
        if len(data) > self.budget_bytes:
            self.stats.rejected += 1
            return False
        self._remove(path)  # a stale or corrupt copy never survives a write
        self._evict(len(data))
        fd, tmp = tempfile.mkstemp(dir=self.root, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        self.used_bytes += len(data)
        self.stats.inserts += 1
        self.stats.peak_bytes = max(self.stats.peak_bytes, self.used_bytes)
        return True

    def _remove(self, path: Path) -> None:
        try:
            size = path.stat().st_size
            path.unlink()
            self.used_bytes -= size
        except FileNotFoundError:
            pass

    def _evict(self, nbytes: int) -> None:
        """Delete least recently used files until nbytes more fit."""
        if self.used_bytes + nbytes <= self.budget_bytes:
            return
        files = sorted(self.root.glob("*.kv"), key=lambda p: p.stat().st_mtime_ns)
        for path in files:
            if self.used_bytes + nbytes <= self.budget_bytes:
                break
            self._remove(path)
            self.stats.evictions += 1
