"""Session and prefix reuse through the Assistant: reused K/V gives exactly the recomputed tokens (fp32 warm tier),
the int8 warm tier's agreement is measured, long sessions are compacted, too-long turns are refused for deferral,
and a corrupt cold-store file is discarded and recomputed.

Exactness is checked with the decoder graph run in fp32. The int8 decoder quantizes activations per token, so
a one-ulp difference between two fp32 kernels (a token fed alone vs. in a batch) can round an activation to the
neighbouring int8 step: a token's K/V then depends slightly on how it was batched, and "recomputing" itself has
no single answer. In fp32 the K/V of a token is the same however it is batched, so reuse must match exactly.
The other tests use the shipped model (models/default, or $GLOBALGEN_MODEL_DIR) when present; otherwise a small
random-weight model (tokenizer trained on the seeded corpus) that is exported once per test module.
"""

from __future__ import annotations

import json
import logging
import os
import random
from pathlib import Path

import numpy as np
import pytest

from globalgen_ros.assistant import Assistant, CacheConfig, ContextTooLong
from globalgen_ros.decoding.tree import step_mask
from globalgen_ros.runtime.format import prompt_tokens
from globalgen_ros.runtime.onnx_model import open_session

REPO = Path(__file__).resolve().parents[1]


def build_random_model(out: Path) -> Path:
    """Export a 2-layer random-weight model with a tokenizer trained on seeded corpus text."""
    import torch

    from globalgen_ros.corpus.build import Builder
    from globalgen_ros.model.export import export_all
    from globalgen_ros.model.llama import LlamaConfig, LlamaWithHeads
    from globalgen_ros.model.tokenizer import train_tokenizer
    from globalgen_ros.schema import load_schema

    schema = load_schema()
    builder, rng = Builder(schema, 0, values_per_kind=300), random.Random(0)
    texts = [intent.name for intent in schema.intents]
    for _ in range(1500):
        for turn in builder.dialogue(rng)["turns"]:
            texts += [" " + turn["user"], " " + turn["reply"]]
    train_tokenizer(texts, 1024, out / "tokenizer.json")
    torch.manual_seed(0)
    model = LlamaWithHeads(LlamaConfig(vocab_size=1024, hidden_size=64, intermediate_size=172, num_hidden_layers=2,
                                       num_attention_heads=2))
    export_all(model, out, recipe={"kind": "random", "seed": 0}, tokenizer=out / "tokenizer.json", keep_fp32=True)
    return out


@pytest.fixture(scope="module")
def random_model(tmp_path_factory) -> str:
    return str(build_random_model(tmp_path_factory.mktemp("random_model")))


@pytest.fixture(scope="module")
def model_dir(request) -> str:
    for candidate in (os.environ.get("GLOBALGEN_MODEL_DIR"), REPO / "models" / "default"):
        if candidate and (Path(candidate) / "manifest.json").is_file():
            return str(candidate)
    return request.getfixturevalue("random_model")


@pytest.fixture(scope="module")
def sessions() -> list[list[str]]:
    from globalgen_ros.bench.cache_bench import held_out_sessions

    return held_out_sessions(4, seed=1)


def assistant(model_dir: str, fp32: bool = False, **cache) -> Assistant:
    bot = Assistant(model_dir, calibration=None, cache=CacheConfig(**cache))
    if fp32:  # the same decoder graph, not quantized
        bot.model.decoder = open_session(Path(model_dir) / "model.fp32.onnx", bot.model.threads)
    return bot


def replay(model_dir: str, sessions, modes: dict[str, dict], max_new: int = 16, with_session: bool = True,
           fp32: bool = False, strategies: tuple[str, ...] = ("ar", "parallel")):
    """Replay sessions round-robin (so follow-ups come from the warm tier).

    Returns {mode: [token ids per turn]}, {mode: [(ids, K/V rows) of the cache after each turn]} and the bots.
    """
    bots = {name: assistant(model_dir, fp32, **cache) for name, cache in modes.items()}
    ref = next(iter(bots))  # the first mode's replies make the shared text history
    out = {name: [] for name in bots}
    rows = {name: [] for name in bots}
    histories = [[] for _ in sessions]
    for turn in range(max(map(len, sessions))):
        for s, session in enumerate(sessions):
            if turn >= len(session):
                continue
            strategy = strategies[(turn + s) % len(strategies)]
            replies = {name: bot.respond(session[turn], history=histories[s], session_id=f"s{s}" * with_session,
                                         max_new_tokens=max_new, strategy=strategy) for name, bot in bots.items()}
            for name, reply in replies.items():
                out[name].append(reply.token_ids)
                cache = bots[name].cache
                rows[name].append((cache._hot_ids.tolist(), cache.past().copy()))
            histories[s].append((session[turn], replies[ref].raw))
    return out, rows, bots


def same_rows(a, b) -> bool:
    """Return True if two caches hold the same tokens with the same K/V (fp32 batching noise aside)."""
    return a[0] == b[0] and np.allclose(a[1], b[1], rtol=0, atol=1e-4)


def test_session_reuse_gives_the_recomputed_tokens(random_model, sessions):
    out, rows, bots = replay(random_model, sessions, {"recompute": {"reuse": False}, "fp32": {"warm_format": "fp32"}},
                             fp32=True)
    assert out["fp32"] == out["recompute"]
    assert all(same_rows(a, b) for a, b in zip(rows["fp32"], rows["recompute"], strict=True))
    stats = bots["fp32"].cache_stats()
    assert stats["warm_hit_tokens"] > 0 and stats["reuse_ratio"] > 0.5
    assert stats["sessions_count"] == len(sessions) and stats["peak_bytes"] <= stats["budget_bytes"]
    assert all(isinstance(v, (int, float, str, bool)) for v in stats.values())  # flat, for /diagnostics
    assert bots["recompute"].cache_stats()["reused_tokens"] == 0


def test_saving_after_the_answer_changes_nothing_but_when(random_model, sessions):
    """save_later (the node files a turn's K/V after publishing) gives the same tokens and the same reuse."""
    now, later = assistant(random_model), assistant(random_model)
    histories = [[] for _ in sessions]
    for turn in range(max(map(len, sessions))):
        for s, session in enumerate(sessions):
            if turn >= len(session):
                continue
            a = now.respond(session[turn], history=histories[s], session_id=f"s{s}", max_new_tokens=16)
            b = later.respond(session[turn], history=histories[s], session_id=f"s{s}", max_new_tokens=16,
                              save_later=True)
            assert a.token_ids == b.token_ids
            assert later.cache.session(f"s{s}") is None or turn > 0  # not filed yet on a first turn
            if s % 2:
                later.save_pending()  # as the node does; otherwise the next respond files it first
            histories[s].append((session[turn], a.raw))
    later.save_pending()
    a_stats, b_stats = now.cache_stats(), later.cache_stats()
    for key in ("reused_tokens", "prompt_tokens", "sessions_count", "warm_used_bytes"):
        assert a_stats[key] == b_stats[key], key
    assert b_stats["reused_tokens"] > 0


def test_prefix_reuse_without_sessions_gives_the_recomputed_tokens(random_model, sessions):
    modes = {"recompute": {"reuse": False}, "fp32": {"warm_format": "fp32"}}
    out, rows, bots = replay(random_model, sessions[:2], modes, with_session=False, fp32=True)
    assert out["fp32"] == out["recompute"]
    assert all(same_rows(a, b) for a, b in zip(rows["fp32"], rows["recompute"], strict=True))
    stats = bots["fp32"].cache_stats()
    assert stats["sessions_count"] == 0 and stats["warm_hit_tokens"] > 0  # by token content alone


def test_int8_warm_tier_agreement_is_measured(model_dir):
    from globalgen_ros.bench.cache_bench import agreement, held_out_sessions

    # `ar` feeds every forward the same way in both modes, so only the stored K/V differs
    out, _, _ = replay(model_dir, held_out_sessions(16, seed=2), {"fp32": {"warm_format": "fp32"},
                                                                 "int8": {"warm_format": "int8"}}, max_new=64,
                       strategies=("ar",))
    tokens, replies = agreement(out["fp32"], out["int8"])  # tokens up to each reply's first difference
    # The benchmark's target is 99 % over 40 sessions; one early flip in this smaller sample costs ~1 %.
    # Random weights have tiny logit margins, so int8 K/V flips more of their greedy choices.
    trained = json.loads((Path(model_dir) / "manifest.json").read_text())["recipe"].get("kind") != "random"
    assert tokens >= (0.98 if trained else 0.9), f"int8 warm tier agreement {tokens:.3f} ({replies:.2%} identical)"


def test_long_session_is_compacted_and_an_oversized_turn_is_refused(model_dir, sessions):
    bot = assistant(model_dir, windows=(48, 96), expected_reply=16, recent_turns=1)
    texts = [t for s in sessions for t in s][:10]
    compactions = 0
    for text in texts:
        plan = bot.plan_context(text, session_id="long", max_new_tokens=16)
        reply = bot.respond(text, session_id="long", max_new_tokens=16)
        assert reply.stats.prompt_tokens == plan.prompt_tokens <= 96 - 16
        compactions += bool(plan.dropped)
    assert compactions >= 2, "a 10-turn session must be compacted to stay within a 96-token window"
    session = bot.cache.session("long")
    assert len(session.ids) <= bot.cache.capacity + 2 and len(session.turn_starts) < len(texts)
    with pytest.raises(ContextTooLong, match="defer"):
        bot.respond("go " * 120, session_id="long", max_new_tokens=16)
    assert bot.plan_context("go " * 120, max_new_tokens=16).defer


def test_corrupt_cold_file_is_discarded_and_recomputed(random_model, sessions, tmp_path, caplog):
    model_dir, cold = random_model, {"warm_format": "fp32", "cold_dir": str(tmp_path), "fp32": True}
    history: list[tuple[str, str]] = []
    first = assistant(model_dir, **cold)
    for text in sessions[0][:3]:
        history.append((text, first.respond(text, history=history, max_new_tokens=16).raw))
    first.cache.close()  # write the warm blocks to disk
    files = sorted(tmp_path.glob("*.kv"))
    assert files
    for f in files:  # corrupt every block: nothing may be served from disk
        data = bytearray(f.read_bytes())
        data[-5] ^= 0x5A
        f.write_bytes(bytes(data))
    restarted = assistant(model_dir, **cold)
    recompute = assistant(model_dir, True, reuse=False)
    with caplog.at_level(logging.WARNING):
        got = restarted.respond("and then stop", history=history, max_new_tokens=16)
    want = recompute.respond("and then stop", history=history, max_new_tokens=16)
    assert got.token_ids == want.token_ids
    stats = restarted.cache_stats()
    assert stats["cold_corrupt"] == 1 and stats["reused_tokens"] == 0 and "corrupt" in caplog.text

    restarted.cache.close()  # the recomputed blocks replace the corrupt ones
    again = assistant(model_dir, **cold)
    assert again.respond("and then stop", history=history, max_new_tokens=16).token_ids == want.token_ids
    assert again.cache_stats()["cold_hits"] > 0 and again.cache_stats()["cold_corrupt"] == 0


def test_layer0_attention_from_weights_matches_the_decoder(model_dir, sessions):
    """The numpy first layer (turn values for compaction) computes the decoder's own layer-0 keys."""
    bot = assistant(model_dir)
    scorer = bot.cache.scorer
    assert scorer is not None  # model.safetensors ships with the model
    ids, _ = prompt_tokens(bot.tokenizer, sessions[0][0])
    _, k0 = scorer.qk(np.array(ids))  # (H, T, D)
    n = len(ids)
    _, _, new_kv = bot.model.forward(np.array([ids]), np.arange(n)[None], step_mask(0, n, np.zeros(0, np.int64)),
                                     None)
    onnx_k0 = new_kv[:, 0, 0].transpose(1, 0, 2)  # (H, T, D), int8 weights
    assert np.abs(k0 - onnx_k0).max() <= 0.05 * np.abs(onnx_k0).max()
    probs = scorer.attention(ids)
    assert np.allclose(probs.sum(-1), 1, atol=1e-5) and np.allclose(np.triu(probs, 1), 0)
    values = scorer.turn_values(ids + ids[1:], [1, n], 2 * n - 1)  # a turn seen by the repeat of itself
    assert values[0] > 0 and values[1] == 0
