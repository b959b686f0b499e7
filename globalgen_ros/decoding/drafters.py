"""Draft sources: the model's multi-token heads, n-gram look-up in the context, and the datastore.

A drafter proposes chains continuing the accepted tokens (`DraftContext.tokens`, pending ones included); the
decoder merges them into one tree, applies the schema constraint at every node and sizes the tree. Drafters
only propose: a wrong draft costs verification time, never correctness.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from globalgen_ros.decoding.datastore import NgramDatastore
from globalgen_ros.decoding.tree import Chain


@dataclass
class DraftContext:
    tokens: list[int]    # prompt + accepted output (pending tokens included)
    n_prompt: int
    max_depth: int
    head_base: int = -1  # index in tokens of the token whose hidden state feeds the heads (-1: no heads yet)
    n_heads: int = 0
    heads: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None  # lazy: (K, k) top tokens and probabilities
    extra: list[int] = field(default_factory=list)  # hypothetical tokens after `tokens` (extending a draft)


class Drafter(Protocol):
    source: str  # prefix of the calibration tags of its tokens

    def propose(self, ctx: DraftContext) -> list[Chain]: ...


class HeadsDrafter:
    """Chains from the multi-token heads: the top-1 chain plus the runner-up at the first `alt_depth` depths."""

    source = "head"  # the prefix of its calibration tags

    def __init__(self, topk: int = 2, alt_depth: int = 1):
        self.topk, self.alt_depth = topk, alt_depth

    def propose(self, ctx: DraftContext) -> list[Chain]:
        first = len(ctx.tokens) - ctx.head_base - 2  # head j predicts tokens[head_base + 2 + j]
        if ctx.heads is None or ctx.extra or first < 0 or first >= ctx.n_heads:
            return []
        top, prob = ctx.heads()
        top, prob = top[first:], prob[first:]  # (K', k)
        depth = min(len(top), ctx.max_depth)
        tags = [f"head{first + j}" for j in range(depth)]
        best = top[:depth, 0].tolist()
        best_p = prob[:depth, 0].tolist()
        chains = [Chain(best, best_p, tags)]
        for j in range(min(depth, self.alt_depth)):
            for r in range(1, min(self.topk, top.shape[1])):
                chains.append(Chain(best[:j] + [int(top[j, r])] + best[j + 1:],
                                    best_p[:j] + [float(prob[j, r])] + best_p[j + 1:], tags))
        return chains


class ContextDrafter:
    """Prompt look-up: continue the longest suffix n-gram that occurred earlier in the prompt or the output."""

    source = "ctx"

    RAW = {1: 0.25, 2: 0.5, 3: 0.7}  # prior acceptance of the first token by match length (then learned)

    def __init__(self, max_n: int = 3, max_chains: int = 2, stop_ids: tuple[int, ...] = ()):
        self.max_n, self.max_chains = max_n, max_chains
        self.stop_ids = frozenset(stop_ids)  # prompt-only tokens (<|user|>, <|assistant|>...) end a continuation
        self.index: dict[tuple[int, ...], list[int]] = {}
        self.tokens: list[int] = []
        self.indexed = 0

    def reset(self, tokens: list[int]) -> None:
        """Index a new request's token list (kept by reference; appended tokens are indexed lazily)."""
        self.index, self.tokens, self.indexed = {}, tokens, 0

    def _sync(self) -> None:
        toks = self.tokens
        for i in range(max(self.indexed, 1), len(toks)):  # n-grams ending before i, continued at i
            for n in range(1, min(self.max_n, i) + 1):
                self.index.setdefault(tuple(toks[i - n: i]), []).append(i)
        self.indexed = max(self.indexed, len(toks))

    def propose(self, ctx: DraftContext) -> list[Chain]:
        if ctx.tokens is not self.tokens:
            self.reset(ctx.tokens)
        self._sync()
        toks, chains, seen = self.tokens, [], set()
        tail = (toks[-self.max_n:] + ctx.extra)[-self.max_n:] if ctx.extra else toks[-self.max_n:]
        for n in range(len(tail), 0, -1):
            for start in reversed(self.index.get(tuple(tail[-n:]), ())):
                cont = toks[start: start + ctx.max_depth]
                for j, t in enumerate(cont):
                    if t in self.stop_ids:
                        cont = cont[:j]
                        break
                if not cont or cont[0] in seen:
                    continue
                seen.add(cont[0])
                raw = [self.RAW.get(n, 0.7)] + [0.8] * (len(cont) - 1)
                chains.append(Chain(cont, raw, [f"ctx{n}"] + ["ctx+"] * (len(cont) - 1)))
                if len(chains) >= self.max_chains:
                    return chains
        return chains


class DatastoreDrafter:
    """Walk the n-gram datastore of earlier outputs greedily from the longest matching context."""

    source = "ds"

    def __init__(self, store: NgramDatastore, end_id: int, alternatives: int = 2, alt_depth: int = 3,
                 min_path: float = 0.05):
        self.store, self.end_id, self.alternatives, self.alt_depth = store, end_id, alternatives, alt_depth
        self.min_path = min_path  # stop walking once the continuation has become this unlikely

    def propose(self, ctx: DraftContext) -> list[Chain]:
        store = self.store
        base = ctx.tokens[-store.max_n:] + ctx.extra if ctx.extra else ctx.tokens[-store.max_n:]
        order, first, freq = store.lookup(base[-store.max_n:])
        chains = []
        for rank, (tok, p) in enumerate(list(zip(first, freq, strict=True))[: self.alternatives]):
            if rank and freq[0] >= 0.8:  # a clear favourite: the runner-up is not worth verifying
                break
            seq, raw, tags = [tok], [p], [f"ds{order}"]
            window = base[max(0, len(base) - store.max_n + 1):] + [tok]
            depth = ctx.max_depth if rank == 0 else min(ctx.max_depth, self.alt_depth)
            path = p
            while len(seq) < depth and seq[-1] != self.end_id and path >= self.min_path:
                o, nxt, f = store.lookup(window[-store.max_n:])
                if not nxt:
                    break
                path *= f[0]
                seq.append(nxt[0])
                raw.append(f[0])
                tags.append(f"ds{o}")
                window.append(nxt[0])
            chains.append(Chain(seq, raw, tags))
        return chains


class CopyDrafter:
    """Slot values copied from the transcript, from their likeliest start to their likeliest end, then <|reply|>.

    Text values are spans of the transcript. At a value's start (after <|value|>) the start points are ranked by
    P(a value starts after token x); inside a value the copy goes on. Either way the copy stops where
    P(a value ends before token y) is high and the chain closes the header with <|reply|>, so the reply
    templates can draft on from there. Both priors are counted on the training corpus (`datastore.copy_priors`).
    """

    source = "cp"

    def __init__(self, prior: dict[int, float], end_prior: dict[int, float], value_id: int, user_id: int,
                 assistant_id: int, reply_id: int, max_chains: int = 3, min_p: float = 0.05):
        self.prior, self.end_prior = prior, end_prior
        self.value_id, self.user_id, self.assistant_id, self.reply_id = value_id, user_id, assistant_id, reply_id
        self.max_chains, self.min_p = max_chains, min_p

    def propose(self, ctx: DraftContext) -> list[Chain]:
        toks, n = ctx.tokens, ctx.n_prompt
        prompt = toks[:n]
        try:  # this request's transcript: after the prompt's last <|user|>, up to its <|assistant|>
            u = len(prompt) - 1 - prompt[::-1].index(self.user_id)
            a = prompt.index(self.assistant_id, u)
        except ValueError:
            return []
        out = toks[n:] + ctx.extra
        if not out or self.value_id not in out:
            return []
        if out[-1] == self.value_id:  # a value starts: rank the start points
            ranked = sorted(((self.prior.get(toks[q - 1], 0.0), q) for q in range(u + 1, a)), reverse=True)
            starts = [(p, q, "cp") for p, q in ranked[: self.max_chains] if p >= self.min_p]
        else:  # inside a value? continue the copy where its tokens occur in the transcript
            v = out[len(out) - out[::-1].index(self.value_id):]
            if any(t in (self.reply_id, self.user_id, self.assistant_id) for t in v):
                return []
            k = len(v)
            starts = [(0.9, q + k, "cp+") for q in range(u + 1, a - k + 1) if toks[q:q + k] == v][:1]
        chains = []
        for p, q, tag in starts:
            e = max(range(q + 1 if tag == "cp" else q, a + 1), default=a,  # the likeliest end; ties: the first
                    key=lambda e: (self.end_prior.get(toks[e] if e < a else self.assistant_id, 0.0), -e))
            cont = toks[q:e][: ctx.max_depth]
            raw = ([p] + [0.9] * (len(cont) - 1) if tag == "cp" else [0.9] * len(cont)) if cont else []
            tags = ([tag] + ["cp+"] * (len(cont) - 1)) if cont else []
            if len(cont) < ctx.max_depth:
                stop = toks[e] if e < a else self.assistant_id
                cont, raw, tags = cont + [self.reply_id], raw + [self.end_prior.get(stop, 0.5)], tags + ["cp$"]
            if cont:
                chains.append(Chain(cont, raw, tags))
        return chains


class OracleDrafter:
    """Proposes a known answer (the `ar` output): every draft is right. Measures the engine's ceiling; tests."""

    source = "oracle"

    def __init__(self, prompt: list[int], answer: list[int]):
        self.prompt, self.answer = prompt, answer

    def propose(self, ctx: DraftContext) -> list[Chain]:
        done = len(ctx.tokens) - len(self.prompt) + len(ctx.extra)
        rest = self.answer[done: done + ctx.max_depth]
        return [Chain(rest, [0.99] * len(rest), ["oracle"] * len(rest))] if rest else []
