"""Drafts for one step: propose chains (heads, look-up, datastore) and merge them into a schema-constrained trie.

Used by `parallel` (which sizes and verifies a tree of them) and by `confident` (which may accept a chain
without verification).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from globalgen_ros.decoding.drafters import DraftContext, Drafter, HeadsDrafter
from globalgen_ros.decoding.step import Run, free_text_token
from globalgen_ros.decoding.tree import Candidates, Chain

if TYPE_CHECKING:
    from globalgen_ros.decoding.engine import Decoder


def head_predictions(dec: Decoder, run: Run) -> tuple[np.ndarray, np.ndarray]:
    """Run the extra heads on the last verified hidden state (once per step); return (K, k) tokens, probs."""
    if run.head_out is None:
        t = time.perf_counter()
        after = run.head_base + 1  # the bonus token, which recurrent heads read
        token = np.array([run.tokens[after] if after < len(run.tokens) else 0])
        logits = dec.model.heads(run.head_hidden, token)[0]  # (K, V)
        rows = np.arange(logits.shape[0])
        best = logits.argmax(-1)  # (K,)
        rest = logits.copy()
        rest[rows, best] = -np.inf
        second = rest.argmax(-1)
        # Confidence from the top-2 margin (a full softmax over V costs more than the heads save here); the
        # acceptance statistics calibrate it against verification anyway.
        p_best = 1.0 / (1.0 + np.exp(logits[rows, second] - logits[rows, best]))  # (K,)
        vocab = dec.model.head_vocab
        if vocab is not None:  # heads over a draft vocabulary: columns -> token ids
            best, second = vocab[best], vocab[second]
        if dec.options.head_topk == 1:
            run.head_out = (best[:, None], p_best[:, None])
        else:
            run.head_out = (np.stack([best, second], 1), np.stack([p_best, 1.0 - p_best], 1))
        run.stats.stage_ms["heads"] += (time.perf_counter() - t) * 1e3
    return run.head_out


def expected_run(chain: Chain) -> float:
    """Return the expected number of accepted tokens of a chain by its drafter's own confidences."""
    total, p = 0.0, 1.0
    for raw in chain.raw:
        p *= raw
        total += p
    return total


def propose(dec: Decoder, run: Run, drafters: list[Drafter], max_depth: int) -> list[Chain]:
    """Collect draft chains; the heads (a second, costly session) only run when cheap drafts fall short."""
    has_heads = run.head_hidden is not None
    ctx = DraftContext(tokens=run.tokens, n_prompt=run.n_prompt, max_depth=max_depth, head_base=run.head_base,
                       n_heads=dec.model.dims.n_extra_heads,
                       heads=(lambda: head_predictions(dec, run)) if has_heads else None)
    chains: list[Chain] = []
    best, done = 0.0, False  # expected accepted tokens of the best chain; whether it is good enough
    share = dec.options.enough
    for drafter in drafters:  # cheap sources first; stop asking once a chain promises (nearly) everything
        if done or (isinstance(drafter, HeadsDrafter) and best >= dec.options.heads_skip):
            continue
        for chain in drafter.propose(ctx):
            chains.append(chain)
            run_len = expected_run(chain)
            best = max(best, run_len)
            # enough: most of the depth, or most of a chain that ends the reply
            done = done or run_len >= share * max_depth or (chain.tokens[-1] == dec.end_id
                                                              and run_len >= share * len(chain.tokens))
    if done:
        return chains
    return extend_best(chains, ctx, [d for d in drafters if not isinstance(d, HeadsDrafter)], dec.end_id)


def extend_best(chains: list[Chain], ctx: DraftContext, drafters: list[Drafter], end_id: int,
                top: int = 2) -> list[Chain]:
    """Continue the most promising chains with the cheap drafters, as if their tokens were accepted.

    A head chain is only K tokens long, a datastore walk stops at an unseen slot value where a copy from the
    context goes on, and a reply template needs the header's last value first: stitching sources together
    drafts further than any one of them.
    """
    out = list(chains)
    for best in sorted(chains, key=expected_run, reverse=True)[:top]:
        room = ctx.max_depth - len(best.tokens)
        if room <= 0 or best.tokens[-1] == end_id:
            continue
        ext = DraftContext(tokens=ctx.tokens, n_prompt=ctx.n_prompt, max_depth=room, extra=best.tokens)
        for drafter in drafters:
            if best.tags[-1].startswith(drafter.source):
                continue  # the source that stopped there would stop again
            for more in drafter.propose(ext)[:1]:
                out.append(Chain(best.tokens + more.tokens, best.raw + more.raw, best.tags + more.tags))
    return out


MIN_PATH = 0.03  # drafts less likely than this to be accepted are not even considered


class ConstraintMemo:
    """forced() and allowed() of the states met in one step, asked once per state object."""

    def __init__(self, con):
        self.con = con
        self.seen: dict[int, tuple] = {}

    def __call__(self, state) -> tuple[int | None, set[int] | None]:
        """Return (the forced token or None, the allowed tokens as a set or None = any)."""
        hit = self.seen.get(id(state))
        if hit is None:
            forced = self.con.forced(state)
            allowed = None if forced is not None else self.con.allowed_set(state)
            hit = self.seen[id(state)] = (state, forced, allowed)
        return hit[1], hit[2]  # the state itself is kept in `seen`, so its id stays unique


def build_candidates(dec: Decoder, run: Run, chains: list[Chain], max_depth: int) -> Candidates:
    """Merge chains into a trie below the last accepted token, keeping only schema-allowed tokens."""
    con, stats, end = run.constraint, dec.acceptance, dec.end_id
    rules = ConstraintMemo(con)
    cands = Candidates()
    known: dict[tuple[str, int], float] = {}  # acceptance estimates looked up in this step
    for chain in chains:
        parent, state, path = -1, run.state, 1.0
        for tok, raw, tag in zip(chain.tokens, chain.raw, chain.tags, strict=True):
            if (0 if parent < 0 else cands.depth[parent]) >= max_depth or path < MIN_PATH:
                break
            forced, allowed = rules(state)
            if forced is not None:
                if tok != forced:
                    break
                p, key = 1.0, None  # the schema leaves no choice: accepted whenever its parent is
            else:
                if (tok not in allowed) if allowed is not None else not free_text_token(tok):
                    break
                key = stats.key(tag, raw)
                p = known.get(key)
                if p is None:
                    p = known[key] = stats.estimate(key, raw)
                path *= p
            node = cands.kids[parent + 1].get(tok)
            state = cands.state[node] if node is not None else con.advance(state, tok)
            parent = cands.add(parent, tok, p, state, key)
            if tok == end:
                break
    small = dec.options.schema_branches
    add_schema_branches(cands, -1, run.state, rules, con, small, stats)
    i = 0
    while i < len(cands):  # new nodes are visited as they are added
        if cands.token[i] != end and cands.depth[i] < max_depth:
            add_schema_branches(cands, i, cands.state[i], rules, con, small, stats)
        i += 1
    return cands


def add_schema_branches(cands: Candidates, node: int, state, rules: ConstraintMemo, con, small: int,
                        stats) -> None:
    """Below `node`, draft what the schema allows when it allows little: a forced token (accepted whenever its
    parent is; no calibration key, so `confident` takes it as exact), or every one of a few choices (the rest
    of navigate / none after "n", on / off), which are guesses like any draft."""
    forced, allowed = rules(state)
    if forced is not None:
        choices, p = [forced], 1.0
    elif allowed is not None and len(allowed) <= small:
        choices, p = sorted(allowed), 1.0 / len(allowed)
    else:
        return
    kids = cands.kids[node + 1]
    missing = [tok for tok in choices if tok not in kids]
    if kids and forced is None:  # drafters proposed some of the choices: the others share what they left
        p = (1.0 - sum(cands.p[k] for k in kids.values())) / max(1, len(missing))
        if p < MIN_PATH:
            return
    key = None if forced is not None else stats.key("sch", p)
    p = p if key is None else stats.estimate(key, p)
    for tok in missing:
        cands.add(node, tok, p, con.advance(state, tok), key)


def draft_depth(dec: Decoder, run: Run) -> int:
    """Return the deepest useful draft node (the bonus token needs one more slot below the limit)."""
    return min(dec.options.max_depth, run.limit - len(run.tokens) - 1)
