"""The tiered KV cache: the hot buffer the decoder uses, plus warm (RAM, int8) and cold (disk) block tiers.

Requests go through three calls around the decoder's usual `past` / `commit` / `rollback`:
- `restore(prompt_ids)` puts the longest cached prefix of the prompt into `buf[:n]` (what the hot buffer still
  holds from the last request, then warm blocks, then cold blocks) and returns n: the caller prefills the rest;
- the decoder commits accepted tokens as with `HotKVCache` (rejected drafts are never committed);
- `save(ids, session_id, turn_starts)` files the committed rows away as blocks (chained keys, see blocks.py) and
  remembers the session, so the next utterance (or any request with the same history) starts from them.
Memory: the hot buffer is preallocated at the largest window; the warm tier and the session store evict least
recently used entries before they would exceed their budgets; the cold tier is off unless `cold_dir` is set.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, fields

import numpy as np

from globalgen_ros.cache.attention import Layer0Attention
from globalgen_ros.cache.blocks import block_keys, common_prefix, model_seed
from globalgen_ros.cache.cold_store import ColdStore
from globalgen_ros.cache.kv import HotKVCache
from globalgen_ros.cache.quant import FORMATS, QuantKV, decode, encode, encoded_nbytes
from globalgen_ros.cache.sessions import Session, SessionStore
from globalgen_ros.cache.tiers import LRUStore, TierStats
from globalgen_ros.cache.window import WindowPlan, key_value_scores, plan_window, turn_values


@dataclass
class CacheConfig:
    """Parameters of the tiered cache (ROS parameters `cache.*`)."""

    windows: tuple[int, ...] = (64, 128, 256, 512)  # context window sizes; the hot buffer holds the largest
    warm_bytes: int = 16 << 20  # RAM budget of the warm tier
    warm_format: str = "int8"  # 'int8' (KIVI-style) or 'fp32' (exact)
    tail_format: str = "fp32"  # the partial last block (the most recent tokens of a saved prompt): KIVI's residual
    block_size: int = 16  # tokens per block (prefix-hash granularity and int8 K-scale group)
    cold_dir: str = ""  # directory of the on-disk tier; '' = off
    cold_bytes: int = 64 << 20  # disk budget of the cold tier
    max_sessions: int = 256  # sessions remembered (least recently used forgotten first)
    expected_reply: int = 48  # tokens reserved for the reply when choosing a window
    recent_turns: int = 2  # earlier turns always kept when a history is compacted
    compact_fill: float = 0.75  # a compacted history fills at most this share of the largest window
    reuse: bool = True  # False: never restore (the baseline of the cache benchmark)

    @classmethod
    def from_dict(cls, values: dict) -> CacheConfig:
        """Build and validate a config from a dict of field values (e.g. ROS parameters `cache.*`)."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown cache parameters {unknown}; valid: {sorted(known)}")
        config = cls(**{k: tuple(int(w) for w in v) if k == "windows" else v for k, v in values.items()})
        config.validate()
        return config

    def validate(self) -> None:
        """Raise ValueError naming the first invalid parameter."""
        if not self.windows or any(int(w) < 8 for w in self.windows):
            raise ValueError(f"cache windows must be sizes >= 8 tokens, got {self.windows!r}")
        for name in ("warm_format", "tail_format"):
            if getattr(self, name) not in FORMATS:
                raise ValueError(f"cache {name} must be one of {FORMATS}, got {getattr(self, name)!r}")
        for name in ("warm_bytes", "cold_bytes", "expected_reply", "recent_turns"):
            if getattr(self, name) < 0:
                raise ValueError(f"cache {name} must be >= 0, got {getattr(self, name)}")
        if self.block_size < 1 or self.max_sessions < 1:
            raise ValueError("cache block_size and max_sessions must be >= 1")
        if not 0.0 < self.compact_fill <= 1.0:
            raise ValueError(f"cache compact_fill must be in (0, 1], got {self.compact_fill}")


@dataclass(frozen=True)
class Block:
    """KV rows of one (full or partial) block and the token ids they belong to."""

    ids: np.ndarray  # (n,) int32
    kv: QuantKV | np.ndarray  # n rows, see quant.py

    @property
    def nbytes(self) -> int:
        return self.ids.nbytes + self.kv.nbytes


@dataclass
class HotStats:
    hits: int = 0  # restores that kept rows of the previous request
    misses: int = 0
    hit_tokens: int = 0


class TieredKVCache(HotKVCache):
    """A `KVCache` (kv.py) whose committed rows outlive the request in budgeted tiers."""

    def __init__(self, row_shape: tuple[int, int, int, int], config: CacheConfig | None = None, *,
                 model_id: str = "", scorer: Layer0Attention | None = None):
        """Create the tiers for KV rows of row_shape (L, 2, H, D).

        model_id names the model in block keys; scorer (from model.safetensors) values turns by their first-layer
        attention when a history is compacted; without it, by the key-norm proxy of their cached rows.
        """
        self.config = config or CacheConfig()
        self.scorer = scorer
        self.config.validate()
        super().__init__(max(self.config.windows), row_shape)
        L, _, H, D = row_shape
        self._dims = (L, H, D)
        self.seed = model_seed(model_id)
        self.warm = LRUStore(self.config.warm_bytes, on_evict=self._demote)
        self.cold = ColdStore(self.config.cold_dir, self.config.cold_bytes, self._dims) if self.config.cold_dir \
            else None
        self.sessions = SessionStore(self.config.max_sessions)
        self.hot = HotStats()
        self.counts = {"restores": 0, "prompt_tokens": 0, "reused_tokens": 0, "saves": 0}
        self.peak_bytes = self.total_bytes()
        self._hot_ids = np.zeros(0, np.int32)  # token ids of buf[:len(_hot_ids)], kept between requests

    def rollback(self, length: int) -> None:
        super().rollback(length)
        self._hot_ids = self._hot_ids[:length]

    def reset(self) -> None:
        super().reset()
        self._hot_ids = self._hot_ids[:0]

    # ---- budgets ---------------------------------------------------------------------------------------------
    def budget_bytes(self) -> int:
        """Return the RAM budget: hot buffer + warm tier + session store (ids bounded by the largest window)."""
        return self.bytes_allocated() + self.config.warm_bytes + self.config.max_sessions * self.session_max_bytes()

    def session_max_bytes(self) -> int:
        """Return the most one session may hold: ids (up to capacity + 2 tokens), two values per turn, digest."""
        return 4 * (self.capacity + 2) + 8 * self.capacity + 32

    def total_bytes(self) -> int:
        """Return the RAM held now: the hot buffer (allocated once) + warm blocks + sessions."""
        return self.bytes_allocated() + self.warm.used_bytes + self.sessions.used_bytes

    def _note_peak(self) -> None:
        self.peak_bytes = max(self.peak_bytes, self.total_bytes())

    def _block_nbytes(self, n: int, fmt: str) -> int:
        return 4 * n + encoded_nbytes(n, *self._dims, fmt, self.config.block_size)

    def _put_block(self, key: bytes, ids: np.ndarray, rows: np.ndarray, fmt: str) -> bool:
        def make() -> Block:  # allocated only once the tier has made room for it
            return Block(ids.astype(np.int32), encode(rows, fmt, self.config.block_size))

        ok = self.warm.put(key, make, self._block_nbytes(len(ids), fmt))
        self._note_peak()
        return ok

    def _tail_key(self, prev: bytes, ids: np.ndarray) -> bytes:
        return hashlib.sha256(prev + b"tail" + ids.astype(np.int64).tobytes()).digest()

    # ---- tiers -----------------------------------------------------------------------------------------------
    def _demote(self, key, block: Block) -> None:
        """Write a full block evicted from the warm tier to the cold tier (if on)."""
        if self.cold is not None and len(block.ids) == self.config.block_size:
            self.cold.put(key, block.ids, block.kv)

    def _find_block(self, key: bytes, ids: np.ndarray) -> Block | None:
        """Return the block for key from warm, else from cold (promoting it to warm), if its ids match.

        A cold block is verified (checksum, layout, shapes, token ids) before it is returned; one that cannot be
        read or verified is a miss (cold_store.py), so what this returns can always be decoded.
        """
        block = self.warm.get(key)
        if block is None and self.cold is not None:
            found = self.cold.get(key, ids)
            if found is not None:
                block = Block(*found)
                self.warm.put(key, lambda: block, block.nbytes)
                self._note_peak()
                self.cold.stats.hit_tokens += len(ids)
                return block
        if block is None or not np.array_equal(block.ids, ids):
            return None
        self.warm.stats.hit_tokens += len(ids)
        return block

    # ---- requests --------------------------------------------------------------------------------------------
    def restore(self, prompt_ids) -> int:
        """Load the longest cached prefix of prompt_ids (all but its last token at most) into buf; return n."""
        ids = np.asarray(prompt_ids, np.int32)
        self.counts["restores"] += 1
        self.counts["prompt_tokens"] += len(ids)
        limit = min(len(ids) - 1, self.capacity)
        if not self.config.reuse or limit <= 0:
            self._len = 0
            self._hot_ids = ids[:0]
            return 0
        bs = self.config.block_size
        n_hot = min(common_prefix(self._hot_ids, ids), limit)  # rows the hot buffer still holds
        keys = block_keys(ids[:limit], bs, self.seed)
        start = c = n_hot // bs  # c: first block not wholly in the hot buffer
        # 1. stage: find every block (warm, or read and verified from disk) before the hot buffer is touched, so
        #    a block that cannot be read or verified ends the reused prefix there and nothing is half written
        staged: list[tuple[int, Block]] = []  # (first row, block)
        while c < len(keys):
            block = self._find_block(keys[c], ids[c * bs:(c + 1) * bs])
            if block is None:
                break
            staged.append((c * bs, block))
            c += 1
        n = max(n_hot, c * bs)
        prev = keys[c - 1] if c else self.seed
        for r in range(min(bs - 1, limit - c * bs), max(n - c * bs, 0), -1):  # longest partial block first
            block = self.warm.get(self._tail_key(prev, ids[c * bs:c * bs + r]), count=False)
            if block is not None:
                staged.append((c * bs, block))
                self.warm.stats.hits += 1
                self.warm.stats.hit_tokens += r
                n = c * bs + r
                break
        kept = n_hot if n == n_hot else min(n_hot, start * bs)  # hot rows not overwritten by a block
        # 2. commit: until every staged block is written, the hot ids cover only the rows that are not rewritten
        # (the buffer and _hot_ids never disagree, whatever happens in between)
        if staged:
            self._len = kept
            self._hot_ids = ids[:kept].copy()
            for row, block in staged:
                decode(block.kv, self.buf[row:row + len(block.ids)])
        hit = kept >= min(bs, limit)  # at least a block's worth (every prompt shares its first token or two)
        self.hot.hits += hit
        self.hot.misses += not hit
        self.hot.hit_tokens += kept
        self._len = n
        self._hot_ids = ids[:n].copy()
        self.counts["reused_tokens"] += n
        return n

    def save(self, ids, session_id: str = "", turn_starts=None, digest: bytes = b"") -> None:
        """File the committed rows (ids[:length]) as blocks; remember session_id's history ids and turns."""
        ids = np.asarray(ids, np.int32)
        n = self._len
        if len(ids) < n:
            raise ValueError(f"save() needs the ids of all {n} committed rows, got {len(ids)}")
        if len(digest) > 32:
            raise ValueError("a session digest has at most 32 bytes (sha256)")
        if session_id and len(ids) > self.capacity + 2:
            raise ValueError(f"session history of {len(ids)} tokens exceeds the largest window ({self.capacity}): "
                             "compact it first (window.plan_window)")
        self.counts["saves"] += 1
        self._hot_ids = ids[:n].copy()
        old = self.sessions.get(session_id) if session_id else None
        tail_key = None
        if self.config.reuse:
            tail_key = self._save_blocks(ids[:n], old.tail_key if old is not None else None)
        if session_id:
            starts = np.asarray(turn_starts if turn_starts is not None else [], np.int32)
            values = np.zeros(0, np.float32) if self.scorer is not None else \
                np.asarray(turn_values(key_value_scores(self.buf[:n]), starts, n), np.float32)
            for gone in self.sessions.put(session_id, Session(ids.copy(), starts, values, digest, tail_key)):
                if gone.tail_key is not None:
                    self.warm.pop(gone.tail_key)
            self._note_peak()

    def _save_blocks(self, ids: np.ndarray, old_tail: bytes | None) -> bytes | None:
        """Store the full blocks and the partial last block of the rows buf[:len(ids)]; return the tail's key."""
        n, bs = len(ids), self.config.block_size
        keys = block_keys(ids, bs, self.seed)
        c = len(keys)
        tail_key = None
        if n > c * bs:  # the partial last block goes in first, so it is evicted before its chain
            tail_key = self._tail_key(keys[c - 1] if c else self.seed, ids[c * bs:n])
            if tail_key not in self.warm:  # the most recent tokens: their error would weigh most on the next turn
                self._put_block(tail_key, ids[c * bs:n], self.buf[c * bs:n], self.config.tail_format)
        if old_tail not in (None, tail_key):
            self.warm.pop(old_tail)  # superseded by this turn
        for i in range(c - 1, -1, -1):  # last block first: the chain's first block ends most recently used
            if keys[i] in self.warm:
                self.warm.touch(keys[i])
            else:
                self._put_block(keys[i], ids[i * bs:(i + 1) * bs], self.buf[i * bs:(i + 1) * bs],
                                self.config.warm_format)
        return tail_key

    def plan(self, turn_lengths: list[int], new_turn: int, turn_values=None,
             expected_reply: int | None = None) -> WindowPlan:
        """Return the WindowPlan of a request (window.plan_window with this cache's parameters)."""
        c = self.config
        return plan_window(turn_lengths, new_turn, c.expected_reply if expected_reply is None else expected_reply,
                           c.windows, recent_turns=c.recent_turns, turn_values=turn_values,
                           compact_fill=c.compact_fill)

    def session(self, session_id: str) -> Session | None:
        """Return the remembered state of a session, or None."""
        return self.sessions.get(session_id) if session_id else None

    def forget(self, session_id: str) -> None:
        session = self.sessions.pop(session_id)
        if session is not None and session.tail_key is not None:
            self.warm.pop(session.tail_key)

    def close(self) -> None:
        """Write the warm tier's full blocks to the cold tier (if on), so they survive a restart, and close it.

        Idempotent (the node calls it on shutdown); never raises (a block that cannot be written is counted in
        cold_io_errors). Afterwards the cache still answers from the hot buffer and the warm tier, but nothing is
        read from or written to disk any more.
        """
        if self.cold is None or self.cold.closed:
            return
        for key, block in self.warm.items():
            self._demote(key, block)
        self.cold.close()

    def reset_stats(self) -> None:
        """Zero the hit/miss/eviction counters (byte use stays; the peak restarts from the bytes held now)."""
        self.hot, self.counts = HotStats(), dict.fromkeys(self.counts, 0)
        self.warm.stats = TierStats()
        if self.cold is not None:
            self.cold.stats, self.cold.corrupt, self.cold.io_errors, self.cold.stale_tmp_removed = TierStats(), 0, 0, 0
            self.cold.last_error = ""
        self.peak_bytes = self.total_bytes()

    def stats(self) -> dict:
        """Return byte use and hit/miss/eviction counters of every tier (for /diagnostics)."""
        warm = self.warm.stats.as_dict() | {"used_bytes": self.warm.used_bytes, "budget_bytes": self.warm.budget_bytes,
                                            "entries": len(self.warm), "format": self.config.warm_format}
        cold = {"enabled": False}
        if self.cold is not None:
            cold = self.cold.stats.as_dict() | {
                "enabled": True, "closed": self.cold.closed, "used_bytes": self.cold.used_bytes,
                "budget_bytes": self.cold.budget_bytes, "corrupt": self.cold.corrupt,
                "io_errors": self.cold.io_errors, "last_error": self.cold.last_error,
                "stale_tmp_removed": self.cold.stale_tmp_removed}
        prompt = self.counts["prompt_tokens"]
        return {
            "budget_bytes": self.budget_bytes(), "used_bytes": self.total_bytes(), "peak_bytes": self.peak_bytes,
            "hot": asdict(self.hot) | {"allocated_bytes": self.bytes_allocated(), "used_bytes": self.bytes_used()},
            "warm": warm, "cold": cold,
            "sessions": {"count": len(self.sessions), "used_bytes": self.sessions.used_bytes,
                         "expired": self.sessions.expired},
            **self.counts, "reuse_ratio": self.counts["reused_tokens"] / prompt if prompt else 0.0,
        }

    def flat_stats(self) -> dict[str, int | float | str | bool]:
        """Return stats() with one level of keys joined by '_' (e.g. warm_hits): scalar values for diagnostics."""
        out = {}
        for key, value in self.stats().items():
            if isinstance(value, dict):
                out.update({f"{key}_{k}": v for k, v in value.items()})
            else:
                out[key] = value
        return out


__all__ = ["Block", "CacheConfig", "TieredKVCache", "TierStats"]
