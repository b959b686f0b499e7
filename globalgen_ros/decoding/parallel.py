"""`parallel`: draft a token tree, verify it in ONE forward, keep the longest branch equal to greedy (lossless).

Per step: propose chains (heads, context look-up, datastore) -> merge them into a trie, constrained by the
schema at every node (forced tokens become certain drafts) -> keep the subtree that maximises expected
accepted tokens per millisecond on this machine -> one forward over pending tokens + tree with a tree mask ->
walk from the root taking the child equal to the constrained greedy token -> commit the K/V of the pending
tokens and the accepted branch only -> run the heads on the last accepted hidden state -> append the bonus
token and any schema-forced tokens as the next step's pending tokens.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from globalgen_ros.decoding.candidates import build_candidates, draft_depth, propose
from globalgen_ros.decoding.confident import ThresholdSchedule, extend_confident
from globalgen_ros.decoding.drafters import Drafter, HeadsDrafter
from globalgen_ros.decoding.step import (
    Run,
    accept,
    extend_forced,
    free_text_token,
    greedy,
    record_first_decision,
)
from globalgen_ros.decoding.tree import (
    EMPTY_TREE,
    DraftTree,
    key_block_room,
    select_tree,
    step_mask,
    step_positions,
)

if TYPE_CHECKING:
    from globalgen_ros.decoding.engine import Decoder


def build_tree(dec: Decoder, run: Run, drafters: list[Drafter], n_pending: int) -> DraftTree:
    """Draft, constrain and size the tree verified by the next forward."""
    depth = draft_depth(dec, run)
    # The first forward (the prompt) only drafts a few tokens: guesses of the intent rarely pay for the
    # longer time to the first token.
    max_nodes = dec.options.max_draft if run.stats.forwards else dec.options.prefill_draft
    max_nodes = min(max_nodes, key_block_room(dec.cache.length + n_pending))
    if depth <= 0 or not drafters or not max_nodes:
        return EMPTY_TREE
    cands = build_candidates(dec, run, propose(dec, run, drafters, depth), depth)
    costs = dec.step_costs(n_pending, max_nodes, dec.cache.length)
    return select_tree(cands, costs, max_nodes)


def verify_tree(dec: Decoder, run: Run, tree: DraftTree, logits: np.ndarray, n_pending: int,
                confident_tau: float | None = None) -> tuple[list[int], int]:
    """Walk the tree from its root along the constrained greedy tokens; accept them and the bonus token.

    logits: (1, 1 + t, V), rows m - 1 .. m + t - 1 of the forward (the last pending token and the tree).
    Returns the accepted node indices and the forward row of the last accepted token (whose hidden state feeds
    the heads). With `confident_tau`, a child whose verified probability reaches it is accepted even when it is
    not the greedy token (lossy).
    """
    con, stats = run.constraint, dec.acceptance
    node, row, accepted = -1, n_pending - 1, []
    while True:
        allowed = con.allowed(run.state)
        lg = logits[0, row - n_pending + 1]  # (V,)
        g = greedy(lg, allowed)
        record_first_decision(run, lg, allowed, g)
        kids = tree.children[node + 1]
        child = kids.get(g)
        for k in kids.values():  # every child of an accepted node was tested: learn acceptance rates
            for key in tree.keys[k]:
                stats.record(key, k == child)
        if child is None and confident_tau is not None and kids and (allowed is None or dec.options.lossy_header):
            child = confident_child(lg, allowed, kids, confident_tau)
        if child is None:
            break
        accept(run, int(tree.tokens[child]), dec.end_id, tree.states[child], known_state=True)
        accepted.append(child)
        node, row = child, n_pending + child
        if run.finish:
            return accepted, row
    accept(run, g, dec.end_id)  # the bonus token: greedy after the last accepted one
    return accepted, row


def confident_child(row: np.ndarray, allowed: np.ndarray | None, kids: dict[int, int], tau: float) -> int | None:
    """Return the child whose verified probability is highest and at least tau, if any."""
    z = row if allowed is None else row[allowed]
    mx = z.max()
    norm = np.exp(z - mx).sum()
    best, best_p = None, tau
    for tok, k in kids.items():
        if allowed is None and not free_text_token(tok):
            continue
        p = float(np.exp(row[tok] - mx) / norm)
        if p >= best_p:
            best, best_p = k, p
    return best


def generate_parallel(dec: Decoder, run: Run, drafters: list[Drafter], confident: bool = False) -> None:
    """Decode by draft-tree verification until <|end|>, the token limit, the deadline or a cancel."""
    opts, stats, cache = dec.options, run.stats, dec.cache
    schedule = ThresholdSchedule.from_options(opts) if confident else None
    use_heads = any(isinstance(d, HeadsDrafter) for d in drafters)
    extend_forced(dec, run)
    emitted = run.n_prompt
    step = 0
    while run.finish is None:
        reason = run.stop_reason()
        if reason:
            run.finish = reason
            break
        t_step, heads_ms = time.perf_counter(), stats.stage_ms["heads"]
        past, m = cache.length, len(run.tokens) - cache.length
        tree = build_tree(dec, run, drafters, m)
        ids = np.concatenate([np.asarray(run.tokens[past:], np.int64), tree.tokens])[None]  # (1, m + t)
        positions = step_positions(past, m, tree.depths)
        mask = step_mask(past, m, tree.parents)
        t_fwd = time.perf_counter()
        stats.stage_ms["draft"] += (t_fwd - t_step) * 1e3 - (stats.stage_ms["heads"] - heads_ms)
        logits, hidden, new_kv = dec.forward(run, ids, positions, mask, logits_from=m - 1)  # (1, 1 + t, V)
        t_ver = time.perf_counter()
        tau = schedule.verify_tau(step) if schedule is not None else None
        accepted, row = verify_tree(dec, run, tree, logits, m, tau)
        cache.commit(new_kv, list(range(m)) + [m + a for a in accepted])
        stats.draft_tokens += tree.size
        if use_heads:  # the heads run lazily, when the next step's drafting needs them
            run.head_hidden, run.head_base, run.head_out = hidden[0, row: row + 1], past + m - 1 + len(accepted), None
        stats.stage_ms["verify"] += (time.perf_counter() - t_ver) * 1e3
        extend_forced(dec, run)
        if schedule is not None and run.finish is None:
            extend_confident(dec, run, drafters, schedule, step)
        if step == 0:
            stats.ttft_ms = (time.perf_counter() - run.t0) * 1e3
        else:  # per-step time outside the forward, for sizing trees
            outside = (time.perf_counter() - t_step - (t_ver - t_fwd)) * 1e3
            dec.overhead_ms = 0.9 * dec.overhead_ms + 0.1 * outside
        new = len(run.tokens) - emitted
        stats.accepted_hist[new] = stats.accepted_hist.get(new, 0) + 1
        emitted = len(run.tokens)
        if run.on_tokens and new:
            run.on_tokens(run.output)
        step += 1
