"""Tiered KV cache without a model: int8 error bounds, block keys, byte budgets, prefix restore, cold tier.

The "model" here is a deterministic function of the token prefix (row i depends on ids[:i + 1], as real KV
does), so every restored row can be checked against what recomputing it would give.
"""

from __future__ import annotations

import hashlib
import logging

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from globalgen_ros.cache.blocks import block_keys, common_prefix, model_seed
from globalgen_ros.cache.kv import HotKVCache, KVCacheFull
from globalgen_ros.cache.quant import dequantize, encoded_nbytes, quantize
from globalgen_ros.cache.tiered import CacheConfig, TieredKVCache
from globalgen_ros.cache.window import choose_window, key_value_scores, plan_window, turn_values

ROW = (2, 2, 2, 8)  # (L, 2, H, D): small, so that thousands of rows stay cheap


def true_rows(ids, row=ROW) -> np.ndarray:
    """Return the rows (T, L, 2, H, D) a model would compute for ids: row i is a function of ids[:i + 1]."""
    out, h = np.empty((len(ids), *row), np.float32), b"seed"
    for i, t in enumerate(ids):
        h = hashlib.sha256(h + int(t).to_bytes(4, "little")).digest()
        rng = np.random.default_rng(int.from_bytes(h[:8], "little"))
        out[i] = rng.standard_normal(row) * (1 + 4 * (np.arange(row[-1]) == 3))  # channel 3: an outlier
    return out


def check_budgets(cache: TieredKVCache) -> None:
    """Assert that every tier is within budget and that its accounting equals the bytes it really holds."""
    assert cache.warm.used_bytes == sum(b.ids.nbytes + b.kv.nbytes for _, b in cache.warm.items())
    assert cache.warm.used_bytes <= cache.config.warm_bytes
    assert cache.sessions.used_bytes == sum(s.nbytes for s in cache.sessions._sessions.values())
    assert all(s.nbytes <= cache.session_max_bytes() for s in cache.sessions._sessions.values())
    assert len(cache.sessions) <= cache.config.max_sessions
    assert cache.bytes_used() <= cache.bytes_allocated() == cache.capacity * cache.row_bytes
    assert cache.total_bytes() <= cache.peak_bytes <= cache.budget_bytes()


@settings(max_examples=60, deadline=None)
@given(x=st.integers(1, 40).flatmap(lambda t: st.tuples(st.just(t), st.integers(1, 16), st.floats(1e-3, 50),
                                                         st.floats(-100, 100), st.integers(0, 2**32 - 1))))
def test_int8_error_is_half_a_step(x):
    T, group, spread, offset, seed = x
    kv = (np.random.default_rng(seed).standard_normal((T, *ROW)) * spread + offset).astype(np.float32)
    q = quantize(kv, group)
    assert q.nbytes == encoded_nbytes(T, ROW[0], ROW[2], ROW[3], "int8", group)
    out = np.empty_like(kv)
    dequantize(q, out)
    k_step = np.repeat(q.k_scale.astype(np.float32), group, axis=0)[:T]  # (T, L, H, D)
    v_step = q.v_scale.astype(np.float32)  # (T, L, H, 1)
    slack = 4 * np.finfo(np.float32).eps * np.abs(kv)  # float32 arithmetic
    assert np.all(np.abs(out[:, :, 0] - kv[:, :, 0]) <= k_step / 2 + slack[:, :, 0])
    assert np.all(np.abs(out[:, :, 1] - kv[:, :, 1]) <= v_step / 2 + slack[:, :, 1])


def test_block_keys_name_whole_prefixes():
    seed = model_seed("m")
    a = block_keys(list(range(40)), 8, seed)
    assert len(a) == 5 and a == block_keys(list(range(40)) + [7, 7], 8, seed)
    b = block_keys(list(range(20)) + [99] + list(range(21, 40)), 8, seed)
    assert a[:2] == b[:2] and all(x != y for x, y in zip(a[2:], b[2:], strict=True))  # differs from block 2 on
    assert block_keys(list(range(40)), 8, model_seed("other")) != a
    assert common_prefix([1, 2, 3], [1, 2, 4, 5]) == 2 and common_prefix([], [1]) == 0


def run_request(cache: TieredKVCache, prompt: list[int], steps: list[tuple[list[int], int]], session: str = ""):
    """Serve one request like the decoder does: restore, prefill, draft/commit/rollback, save; return n restored."""
    n = cache.restore(prompt)
    exact = true_rows(prompt[:n])
    if cache.config.warm_format == cache.config.tail_format == "fp32":
        assert np.array_equal(cache.past(), exact)  # reuse is exact
    else:
        assert np.allclose(cache.past(), exact, atol=0.5, rtol=0)  # int8: within its steps
    ids = list(prompt)
    cache.commit(true_rows(ids)[n:])  # prefill the rest
    for drafts, accepted in steps:
        room = cache.capacity - cache.length
        if len(drafts) > room:  # a step that would overflow is refused and leaves the cache unchanged
            before = cache.length
            with pytest.raises(KVCacheFull):
                cache.commit(true_rows(ids + drafts)[len(ids):])
            assert cache.length == before
            break
        cache.commit(true_rows(ids + drafts)[len(ids):])  # the whole draft branch, then reject its tail
        check_budgets(cache)
        cache.rollback(len(ids) + accepted)
        ids += drafts[:accepted]
    cache.save(ids + [0], session, turn_starts=[1])
    check_budgets(cache)
    return n


tokens = st.lists(st.integers(0, 5), min_size=1, max_size=12)
request = st.tuples(st.integers(0, 3), tokens, st.lists(st.tuples(tokens, st.integers(0, 12)), max_size=4),
                    st.booleans())


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(warm_bytes=st.integers(0, 12_000), block=st.sampled_from([1, 2, 4, 8]), fmt=st.sampled_from(["fp32", "int8"]),
       tail=st.sampled_from(["fp32", "int8"]), max_sessions=st.integers(1, 3),
       requests=st.lists(request, min_size=1, max_size=25))
def test_budget_holds_and_reuse_is_exact(warm_bytes, block, fmt, tail, max_sessions, requests):
    cache = TieredKVCache(ROW, CacheConfig(windows=(16, 48), warm_bytes=warm_bytes, block_size=block,
                                           warm_format=fmt, tail_format=tail, max_sessions=max_sessions),
                          model_id="test")
    check_budgets(cache)
    history: dict[str, list[int]] = {}
    for sid, user, steps, other_used_hot in requests:
        if other_used_hot:
            cache.reset()  # the hot buffer was used by another request: warm blocks must serve this one
        session = f"s{sid}" if sid else ""
        prompt = (history.get(session) or [0]) + [1] + user  # <|bos|> ... <|user|> text
        if len(prompt) >= cache.capacity:
            history.pop(session, None)
            prompt = [0, 1] + user
        steps = [(d, min(a, len(d))) for d, a in steps]
        run_request(cache, prompt, steps, session)
        if session:
            history[session] = [int(t) for t in cache.session(session).ids[:cache.capacity - 14]]
        for stale in set(history) - {s for s in history if cache.session(s) is not None}:
            history.pop(stale)  # forgotten by the session store: start over


def test_follow_up_restores_the_session_and_counts_hits():
    cache = TieredKVCache(ROW, CacheConfig(warm_bytes=1 << 20, block_size=4, warm_format="fp32"), model_id="t")
    first = [0, 1, 5, 6, 7, 2, 3, 9, 9, 7]
    assert run_request(cache, first, [([4, 4, 4], 2)], "a") == 0
    history = list(cache.session("a").ids)
    cache.reset()  # another request used the hot buffer meanwhile: the warm tier must serve the session
    follow = history + [1, 8, 8]
    assert run_request(cache, follow, [], "a") == len(history) - 1  # all but the unfed <|end|>
    stats = cache.stats()
    assert stats["warm"]["hit_tokens"] == len(history) - 1 and stats["warm"]["hits"] >= 1
    assert stats["reused_tokens"] == len(history) - 1 and stats["peak_bytes"] <= stats["budget_bytes"]
    assert run_request(cache, follow + [5], [], "a") == len(follow)  # hot: the previous request's rows
    assert cache.stats()["hot"]["hit_tokens"] == len(follow)


def test_cold_tier_survives_restart_and_rejects_corrupt_files(tmp_path, caplog):
    cfg = CacheConfig(warm_bytes=1 << 20, block_size=4, warm_format="fp32", cold_dir=str(tmp_path))
    prompt = list(range(2, 15))
    cache = TieredKVCache(ROW, cfg, model_id="t")
    run_request(cache, prompt, [])
    cache.close()  # flush full blocks to disk
    files = sorted(tmp_path.glob("*.kv"))
    assert len(files) == 3  # 13 committed rows = 3 full blocks of 4 (+ a partial one that stays in RAM)

    restarted = TieredKVCache(ROW, cfg, model_id="t")
    assert run_request(restarted, prompt + [1], []) == 12  # served from disk, exactly (checked in run_request)
    assert restarted.stats()["cold"]["hits"] == 3

    keys = block_keys(prompt, 4, model_seed("t"))
    victim = tmp_path / f"{keys[1].hex()}.kv"
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped bit pattern in the payload
    victim.write_bytes(bytes(data))
    again = TieredKVCache(ROW, cfg, model_id="t")
    with caplog.at_level(logging.WARNING):
        assert run_request(again, prompt + [1], []) == 4  # block 1 is corrupt: only block 0 is reused
    assert "corrupt" in caplog.text and not victim.exists()
    assert again.stats()["cold"]["corrupt"] == 1
    again.close()  # the recomputed block is written back
    assert victim.exists() and run_request(TieredKVCache(ROW, cfg, model_id="t"), prompt + [1], []) == 12

    (tmp_path / f"{keys[0].hex()}.kv").write_bytes(b"not a kv file")
    broken = TieredKVCache(ROW, cfg, model_id="t")
    assert run_request(broken, prompt + [1], []) == 0 and broken.stats()["cold"]["corrupt"] == 1


def test_window_is_the_smallest_that_fits():
    plan = plan_window([20, 30], new_turn=10, expected_reply=40, windows=(64, 128, 256))
    assert plan.window == 128 and plan.keep == [0, 1] and plan.prompt_tokens == 61 and not plan.defer
    assert plan_window([], new_turn=5, expected_reply=40, windows=(64, 128)).window == 64
    assert choose_window(257, (64, 128, 256)) is None


def test_long_history_keeps_sink_recent_and_valuable_turns():
    lengths = [30] * 10  # 301 tokens of history: more than the largest window
    values = [0.0] * 10
    values[2] = 5.0  # one earlier turn stands out
    plan = plan_window(lengths, new_turn=12, expected_reply=40, windows=(64, 128, 256), turn_values=values,
                       recent_turns=2, compact_fill=0.75)
    assert plan.keep[-2:] == [8, 9] and 2 in plan.keep  # most recent turns + the valuable one
    assert plan.prompt_tokens <= 0.75 * 256 and plan.window == 256
    assert plan.dropped == [i for i in range(10) if i not in plan.keep] and not plan.defer


def test_request_too_long_for_any_window_is_deferred():
    plan = plan_window([10, 10], new_turn=230, expected_reply=40, windows=(64, 128, 256))
    assert plan.defer and plan.window is None and plan.keep == []


def test_key_norm_proxy_prefers_small_keys():
    kv = np.ones((6, 4, 2, 2, 8), np.float32)
    kv[3, :, 0] *= 0.1  # token 3 has small keys: the proxy expects it to draw attention
    kv[0, :2, 0] *= 100  # the first layers are skipped
    scores = key_value_scores(kv)
    assert scores.argmax() == 3 and scores[0] == scores[1]
    assert turn_values(scores, [0, 2, 4], 6) == pytest.approx([scores[0], (scores[2] + scores[3]) / 2, scores[4]])


def test_config_from_parameters_names_bad_values():
    config = CacheConfig.from_dict({"windows": [32, 64], "warm_bytes": 1000, "warm_format": "fp32"})
    assert config.windows == (32, 64) and config.warm_format == "fp32"
    for bad, words in [({"bogus": 1}, "unknown cache parameters"), ({"warm_format": "int4"}, "warm_format"),
                       ({"windows": [4]}, "windows"), ({"compact_fill": 0}, "compact_fill"),
                       ({"warm_bytes": -1}, "warm_bytes")]:
        with pytest.raises(ValueError, match=words):
            CacheConfig.from_dict(bad)


def test_plain_hot_cache_restores_nothing():
    hot = HotKVCache(8, ROW)
    hot.commit(true_rows([1, 2, 3]))
    assert hot.restore([1, 2, 3, 4]) == 0 and hot.length == 0  # the whole prompt is prefilled again
