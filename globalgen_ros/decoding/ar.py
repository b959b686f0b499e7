"""`ar`: greedy autoregressive decoding with the KV cache, one model decision per forward (the baseline).

It shares every piece of machinery with the parallel strategies (same session, preallocated cache, same
constrained greedy, and the same jump over schema-forced tokens: a run of tokens the schema leaves no choice
about is fed in the next forward instead of one forward each), so speed-ups measured against it come from
drafting, not from a handicap.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from globalgen_ros.decoding.step import Run, accept, extend_forced, greedy, record_first_decision
from globalgen_ros.decoding.tree import step_mask

if TYPE_CHECKING:
    from globalgen_ros.decoding.engine import Decoder


def decode_pending(dec: Decoder, run: Run) -> int:
    """Feed the tokens not yet in the cache (the prompt, or the last token plus any forced run); commit their
    K/V; return the next greedy token."""
    past = dec.cache.length
    ids = np.asarray(run.tokens[past:], np.int64)[None]  # (1, m)
    m = ids.shape[1]
    if m == 1:
        positions, mask = np.array([[past]], np.int64), dec.causal_row_mask(past)
    else:
        positions = np.arange(past, past + m, dtype=np.int64)[None]
        mask = step_mask(past, m, np.zeros(0, np.int64))
    logits, _, new_kv = dec.forward(run, ids, positions, mask, logits_from=m - 1)  # (1, 1, V): the last row
    dec.cache.commit(new_kv)
    allowed = run.constraint.allowed(run.state)
    token = greedy(logits[0, -1], allowed)
    record_first_decision(run, logits[0, -1], allowed, token)
    return token


def generate_ar(dec: Decoder, run: Run) -> None:
    """Decode one token per forward until <|end|>, the token limit, the deadline or a cancel."""
    stats = run.stats
    extend_forced(dec, run)
    first = True
    while run.finish is None:
        reason = run.stop_reason()
        if reason:
            run.finish = reason
            break
        t = time.perf_counter()
        emitted = len(run.tokens)
        accept(run, decode_pending(dec, run), dec.end_id)
        extend_forced(dec, run)
        new = len(run.tokens) - emitted
        stats.accepted_hist[new] = stats.accepted_hist.get(new, 0) + 1
        if first:
            stats.ttft_ms = (time.perf_counter() - run.t0) * 1e3
            first = False
        else:
            stats.stage_ms["verify"] += (time.perf_counter() - t) * 1e3
        if run.on_tokens:
            run.on_tokens(run.output)
    stats.stage_ms["verify"] -= stats.stage_ms["forward"]  # verify = loop time outside the forwards
