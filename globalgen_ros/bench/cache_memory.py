"""Replay many simulated sessions through the tiered cache alone: peak bytes vs budget and process memory.

No model runs here: each turn's KV rows are slices of a fixed pool of random rows (their values do not matter
for memory), so 10,000 sessions take seconds. Sessions overlap (several are active at once, as with several
people talking to a robot), have 1-6 turns, and their histories are compacted to the window as in Assistant.
"""

from __future__ import annotations

import os
import random

import numpy as np

from globalgen_ros.cache.tiered import CacheConfig, TieredKVCache

FLAT_BYTES = 2 << 20  # RSS may grow less than this after warm-up (allocator noise), whatever the session count


def rss_bytes() -> int:
    """Return the resident set size of this process (Linux /proc)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def growth_per_1k(samples: list[tuple[int, int]]) -> float:
    """Return the least-squares slope of RSS (bytes) per 1,000 sessions."""
    x = np.array([s for s, _ in samples], np.float64)
    y = np.array([r for _, r in samples], np.float64)
    if len(x) < 2:
        return 0.0
    return float(np.polyfit(x, y, 1)[0] * 1000)


def turn(rng: random.Random, vocab: int) -> list[int]:
    """Return a user turn plus reply in the text format's shape: <|user|> text <|assistant|> ... <|end|>."""
    user = [rng.randrange(9, vocab) for _ in range(rng.randint(4, 14))]
    reply = [rng.randrange(9, vocab) for _ in range(rng.randint(10, 30))]
    return [1] + user + [2] + reply + [7]


def simulate(row_shape: tuple[int, int, int, int], config: CacheConfig, *, sessions: int = 10_000,
             active: int = 8, vocab: int = 4000, seed: int = 0, sample_every: int = 250) -> dict:
    """Run `sessions` simulated sessions; return peak bytes, budget, RSS samples and their trend."""
    rng = random.Random(seed)
    cache = TieredKVCache(row_shape, config, model_id="simulation")
    pool = np.random.default_rng(seed).standard_normal((cache.capacity, *row_shape)).astype(np.float32)
    live: dict[str, int] = {}  # session id -> turns left
    started, samples, max_total, turns_done = 0, [], 0, 0
    while started < sessions or live:
        while started < sessions and len(live) < active:
            live[f"s{started}"] = rng.randint(1, 6)
            started += 1
            if started % sample_every == 0:
                samples.append((started, rss_bytes()))
        sid = rng.choice(sorted(live))
        session = cache.session(sid)
        turns = session.turns() if session is not None else []
        new = turn(rng, vocab)
        user_len = new.index(2) + 1  # the prompt ends with <|assistant|>
        plan = cache.plan([len(t) for t in turns], user_len, None if session is None else session.turn_values)
        if plan.defer:
            live.pop(sid)
            continue
        history = [0] + [int(t) for i in plan.keep for t in turns[i]]
        starts = np.cumsum([1] + [len(turns[i]) for i in plan.keep]).tolist()
        prompt = history + new[:user_len]
        n = cache.restore(prompt)
        reply = new[user_len:][: cache.capacity - len(prompt)]
        cache.commit(pool[n:len(prompt) + len(reply) - 1])  # prefill + accepted reply tokens but the last
        cache.save(history + new[:user_len] + reply, sid, starts)
        max_total = max(max_total, cache.total_bytes())
        turns_done += 1
        live[sid] -= 1
        if live[sid] == 0:
            live.pop(sid)
    stats = cache.stats()
    tail = samples[len(samples) // 5:]  # after warm-up: the tiers fill during the first sessions
    growth = tail[-1][1] - tail[0][1] if len(tail) > 1 else 0
    return {
        "sessions": sessions, "turns": turns_done, "budget_bytes": stats["budget_bytes"],
        "peak_bytes": max(stats["peak_bytes"], max_total), "stats": stats,
        "rss_first_mb": samples[0][1] / 2**20 if samples else 0.0,
        "rss_last_mb": samples[-1][1] / 2**20 if samples else 0.0,
        "rss_growth_kb_per_1k_sessions": growth_per_1k(tail) / 1024, "rss_samples": samples,
        "rss_flat": growth < FLAT_BYTES,
    }
