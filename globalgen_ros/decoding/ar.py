"""`ar`: greedy autoregressive decoding with the KV cache, one token per forward (the baseline).

It shares every piece of machinery with the parallel strategies (same session, preallocated cache, same
constrained greedy), so speed-ups measured against it come from decoding, not from a handicap.
"""

from __future__ import annotations

import time

import numpy as np

from globalgen_ros.decoding.engine import Decoder, Run, accept, greedy, record_first_decision
from globalgen_ros.decoding.tree import step_mask


def prefill(dec: Decoder, run: Run) -> int:
    """Feed the prompt after its cached prefix (cache.length tokens); return the first generated token."""
    past = dec.cache.length
    ids = np.asarray(run.tokens[past:], np.int64)[None]  # (1, T - P)
    positions = np.arange(past, len(run.tokens), dtype=np.int64)[None]
    logits, _, new_kv = dec.forward(run, ids, positions, step_mask(past, ids.shape[1], np.zeros(0, np.int64)))
    dec.cache.commit(new_kv)
    allowed = run.constraint.allowed(run.state)
    token = greedy(logits[0, -1], allowed)
    record_first_decision(run, logits[0, -1], allowed, token)
    return token


def decode_one_token(dec: Decoder, run: Run, token: int) -> int:
    """Feed the last accepted token; commit its K/V; return the next greedy token."""
    past = dec.cache.length
    ids = np.array([[token]], np.int64)
    positions = np.array([[past]], np.int64)
    logits, _, new_kv = dec.forward(run, ids, positions, dec.causal_row_mask(past))
    dec.cache.commit(new_kv)
    allowed = run.constraint.allowed(run.state)
    nxt = greedy(logits[0, 0], allowed)
    record_first_decision(run, logits[0, 0], allowed, nxt)
    return nxt


def generate_ar(dec: Decoder, run: Run) -> None:
    """Decode one token per forward until <|end|>, the token limit, the deadline or a cancel."""
    stats = run.stats
    run.finish = run.stop_reason()
    if run.finish:
        return
    token = prefill(dec, run)
    accept(run, token, dec.end_id)
    stats.ttft_ms = (time.perf_counter() - run.t0) * 1e3
    stats.accepted_hist[1] = 1
    if run.on_tokens:
        run.on_tokens(run.output)
    while run.finish is None:
        reason = run.stop_reason()
        if reason:
            run.finish = reason
            break
        t = time.perf_counter()
        token = decode_one_token(dec, run, token)
        accept(run, token, dec.end_id)
        stats.accepted_hist[1] += 1
        stats.stage_ms["verify"] += (time.perf_counter() - t) * 1e3
        if run.on_tokens:
            run.on_tokens(run.output)
    stats.stage_ms["verify"] -= stats.stage_ms["forward"]  # verify = loop time outside the forwards
