"""A datastore of earlier model outputs for drafting: n-gram continuation tables (REST / lookahead style).

Static part: built offline from the training outputs (header + reply), stored as `drafts.npz` next to the model
(contexts of 1..max_n tokens -> their two most frequent next tokens with relative frequencies). Dynamic part:
counts over the most recent runtime replies, bounded (the oldest reply's counts are removed when a new one
arrives). Drafting walks the table greedily from the longest matching context.
"""

from __future__ import annotations

import os
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from itertools import islice
from pathlib import Path

import numpy as np

from globalgen_ros.decoding.templates import ReplyTemplates

Entry = tuple[tuple[int, ...], tuple[float, ...], int]  # next tokens (best first), their frequencies, total count


def _pack(windows: np.ndarray, bits: int) -> np.ndarray:
    """Pack rows of token ids (N, n) into one int64 key per row."""
    key = np.zeros(len(windows), np.int64)
    for j in range(windows.shape[1]):
        key = (key << bits) | windows[:, j].astype(np.int64)
    return key


def count_ngrams(sequences: Iterable[Sequence[int]], max_n: int = 4, min_count: int = 2,
                 top: int = 2) -> dict[tuple[int, ...], Entry]:
    """Return {context: entry} for contexts of 1..max_n tokens whose best next token occurs >= min_count times."""
    seqs = [np.asarray(s, np.int64) for s in sequences if len(s) > 1]
    if not seqs:
        return {}
    vocab = int(max(s.max() for s in seqs)) + 1
    bits = max(1, int(vocab).bit_length())
    if bits * max_n > 62:
        raise ValueError(f"vocabulary of {vocab} too large to pack {max_n}-token contexts into int64")
    table: dict[tuple[int, ...], Entry] = {}
    for n in range(1, max_n + 1):
        wins = [np.lib.stride_tricks.sliding_window_view(s, n + 1) for s in seqs if len(s) > n]
        if not wins:
            break
        w = np.concatenate(wins)  # (N, n + 1): context + next token
        pairs, counts = np.unique(np.stack([_pack(w[:, :n], bits), w[:, n]], 1), axis=0, return_counts=True)
        ctx_keys, nxt = pairs[:, 0], pairs[:, 1]
        order = np.lexsort((-counts, ctx_keys))  # by context, most frequent next first
        ctx_keys, nxt, counts = ctx_keys[order], nxt[order], counts[order]
        starts = np.flatnonzero(np.r_[True, ctx_keys[1:] != ctx_keys[:-1]])
        totals = np.add.reduceat(counts, starts)
        for s, total in zip(starts, totals, strict=False):
            if counts[s] < min_count:
                continue
            end = s + top
            same = ctx_keys[s:end] == ctx_keys[s]
            ctx = tuple(int((ctx_keys[s] >> (bits * (n - 1 - j))) & ((1 << bits) - 1)) for j in range(n))
            table[ctx] = (tuple(int(t) for t in nxt[s:end][same]),
                          tuple(float(c) / float(total) for c in counts[s:end][same]), int(total))
    return table


class NgramDatastore:
    """Static corpus table plus a bounded table of recent runtime replies."""

    def __init__(self, static: dict[tuple[int, ...], Entry] | None = None, max_n: int = 4, history: int = 256,
                 templates: ReplyTemplates | None = None, copy_prior: dict[int, float] | None = None,
                 end_prior: dict[int, float] | None = None):
        self.static = static or {}
        self.copy_prior = copy_prior or {}  # token before a transcript position -> P(a slot value starts there)
        self.end_prior = end_prior or {}  # token after a transcript position -> P(a slot value ends there)
        self.templates = templates  # reply templates of the training outputs (templates.py), if built
        self.max_n = max_n
        self.dynamic: dict[tuple[int, ...], Counter] = {}
        self.recent: deque[tuple[int, ...]] = deque()
        self.history = history

    # ---- static table file -------------------------------------------------------------------------------
    @classmethod
    def build(cls, sequences: Iterable[Sequence[int]], max_n: int = 4, min_count: int = 2) -> NgramDatastore:
        return cls(count_ngrams(sequences, max_n, min_count), max_n=max_n)

    def save(self, path: str | os.PathLike) -> None:
        """Write the static table as .npz (contexts left-padded with -1)."""
        items = list(self.static.items())
        ctx = np.full((len(items), self.max_n), -1, np.int32)
        nxt = np.full((len(items), 2), -1, np.int32)
        prob = np.zeros((len(items), 2), np.float32)
        total = np.zeros(len(items), np.int32)
        for i, (c, (toks, probs, tot)) in enumerate(items):
            ctx[i, self.max_n - len(c):] = c
            nxt[i, : len(toks)] = toks[:2]
            prob[i, : len(probs)] = probs[:2]
            total[i] = tot
        extra = {}
        if self.templates is not None:
            t = self.templates
            extra = {"templates": np.array(t.to_json()), "tpl_value_id": np.int32(t.value_id),
                     "tpl_stops": np.array(sorted(t.stops), np.int32)}
        if self.copy_prior:
            extra["copy_prev"] = np.array(list(self.copy_prior), np.int32)
            extra["copy_p"] = np.array(list(self.copy_prior.values()), np.float32)
        if self.end_prior:
            extra["end_next"] = np.array(list(self.end_prior), np.int32)
            extra["end_p"] = np.array(list(self.end_prior.values()), np.float32)
        with open(path, "wb") as f:
            np.savez_compressed(f, ctx=ctx, next=nxt, prob=prob, total=total, max_n=np.int32(self.max_n), **extra)

    @classmethod
    def load(cls, path: str | os.PathLike, history: int = 256) -> NgramDatastore:
        with np.load(Path(path)) as z:
            ctx, nxt, prob, total, max_n = z["ctx"], z["next"], z["prob"], z["total"], int(z["max_n"])
            templates = (ReplyTemplates.from_json(str(z["templates"]), int(z["tpl_value_id"]), z["tpl_stops"].tolist())
                         if "templates" in z.files else None)
            copy_prior = (dict(zip(z["copy_prev"].tolist(), z["copy_p"].tolist(), strict=True))
                          if "copy_prev" in z.files else {})
            end_prior = (dict(zip(z["end_next"].tolist(), z["end_p"].tolist(), strict=True))
                         if "end_next" in z.files else {})
        static = {}
        for c, t, p, tot in zip(ctx.tolist(), nxt.tolist(), prob.tolist(), total.tolist(), strict=True):
            k = sum(1 for x in t if x >= 0)
            static[tuple(x for x in c if x >= 0)] = (tuple(t[:k]), tuple(p[:k]), tot)
        return cls(static, max_n=max_n, history=history, templates=templates, copy_prior=copy_prior,
                   end_prior=end_prior)

    # ---- runtime history ---------------------------------------------------------------------------------
    def _count(self, seq: tuple[int, ...], delta: int) -> None:
        for i in range(1, len(seq)):
            for n in range(1, min(self.max_n, i) + 1):
                ctx = seq[i - n: i]
                counter = self.dynamic.setdefault(ctx, Counter())
                counter[seq[i]] += delta
                if counter[seq[i]] <= 0:
                    del counter[seq[i]]
                    if not counter:
                        del self.dynamic[ctx]

    def add(self, seq: Sequence[int]) -> None:
        """Remember one runtime output (start it with the token before the output, e.g. <|assistant|>)."""
        if self.history <= 0:
            return
        seq = tuple(int(t) for t in seq)
        self.recent.append(seq)
        self._count(seq, +1)
        while len(self.recent) > self.history:
            self._count(self.recent.popleft(), -1)

    # ---- look-up -----------------------------------------------------------------------------------------
    def lookup(self, context: Sequence[int]) -> tuple[int, tuple[int, ...], tuple[float, ...]]:
        """Return (order, next tokens best first, frequencies) for the longest known suffix of context."""
        for n in range(min(self.max_n, len(context)), 0, -1):
            key = tuple(context[-n:])
            s, d = self.static.get(key), self.dynamic.get(key)
            if s is None and d is None:
                continue
            if d is None:
                return n, s[0], s[1]
            counts = Counter(d)
            if s is not None:
                for t, p in zip(s[0], s[1], strict=False):
                    counts[t] += p * s[2]
            total = sum(d.values()) + (s[2] if s is not None else 0)
            best = counts.most_common(2)
            return n, tuple(t for t, _ in best), tuple(c / total for _, c in best)
        return 0, (), ()

    def __len__(self) -> int:
        return len(self.static) + len(self.dynamic)


# ---- building drafts.npz from the training corpus ----------------------------------------------------------
def corpus_turns(train_jsonl: str | os.PathLike):
    """Yield every turn ({user, intent, slots, reply}) of every dialogue of a training corpus."""
    import json

    with open(train_jsonl, encoding="utf-8") as f:
        for line in f:
            yield from json.loads(line)["turns"]


def corpus_outputs(train_jsonl: str | os.PathLike, tokenizer, schema, limit: int | None = None):
    """Yield (language, <|assistant|> + output tokens (header, reply, <|end|>)) of each training turn."""
    from globalgen_ros.runtime.format import turn_tokens
    from globalgen_ros.watchdog.language import detect_language, language_code

    n = 0
    for turn in corpus_turns(train_jsonl):
        try:
            ids, start = turn_tokens(tokenizer, schema, turn["user"], turn["intent"], turn["slots"], turn["reply"])
        except ValueError:  # a slot value that is not a span of the transcript: not a valid target
            continue
        yield language_code(detect_language(turn["user"])), ids[start - 1:]
        n += 1
        if limit is not None and n >= limit:
            return


def copy_priors(train_jsonl: str | os.PathLike, tokenizer, schema, limit: int | None = None,
                min_count: int = 5) -> tuple[dict[int, float], dict[int, float]]:
    """Return ({token: P(a text slot value starts right after it)}, {token: P(a value ends right before it)})
    over the transcript positions of the corpus (<|user|> precedes a transcript, <|assistant|> follows it)."""
    from globalgen_ros.runtime.format import find_span, user_tokens

    starts, ends, before, after = Counter(), Counter(), Counter(), Counter()
    for turn in islice(corpus_turns(train_jsonl), limit):
        user = [tokenizer.user] + user_tokens(tokenizer, turn["user"]) + [tokenizer.assistant]
        before.update(user[:-2])
        after.update(user[2:])
        for slot in schema[turn["intent"]].slots if turn["intent"] in schema else ():
            value = turn["slots"].get(slot.name)
            span = find_span(tokenizer, user[1:-1], str(value)) if slot.type == "text" and value else None
            at = next((q for q in range(1, len(user) - len(span)) if user[q:q + len(span)] == span),
                      None) if span else None
            if at is not None:
                starts[user[at - 1]] += 1
                ends[user[at + len(span)]] += 1
    return ({t: starts[t] / before[t] for t in starts if before[t] >= min_count},
            {t: ends[t] / after[t] for t in ends if after[t] >= min_count})


def main(argv: list[str] | None = None) -> int:
    """Build drafts.npz from a training corpus into a model directory and record it in manifest.json."""
    import argparse
    import json

    from globalgen_ros.runtime.artifacts import sha256_file
    from globalgen_ros.runtime.tokenizer import Tokenizer
    from globalgen_ros.schema import load_schema

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--corpus", required=True, help="train.jsonl written by globalgen_ros.corpus.build")
    parser.add_argument("--model-dir", required=True, help="model directory (tokenizer.json; drafts.npz goes here)")
    parser.add_argument("--schema", help="intent schema (default config/intents.yaml)")
    parser.add_argument("--limit", type=int, default=None, help="use at most this many training turns")
    parser.add_argument("--max-n", type=int, default=4, help="longest context (tokens)")
    parser.add_argument("--min-count", type=int, default=3, help="drop continuations seen fewer times")
    args = parser.parse_args(argv)
    root = Path(args.model_dir)
    tok = Tokenizer(root / "tokenizer.json")
    outputs = list(corpus_outputs(args.corpus, tok, load_schema(args.schema), args.limit))
    seqs = [seq for _, seq in outputs]
    store = NgramDatastore.build(seqs, max_n=args.max_n, min_count=args.min_count)
    store.templates = ReplyTemplates(tok.value, (tok.slot, tok.reply, tok.end))
    for lang, seq in outputs:  # seq: <|assistant|> header <|reply|> reply <|end|>
        at = seq.index(tok.reply)
        store.templates.add(lang, seq[1:at], seq[at + 1:])
    store.copy_prior, store.end_prior = copy_priors(args.corpus, tok, load_schema(args.schema), args.limit)
    out = root / "drafts.npz"
    store.save(out)
    manifest_path = root / "manifest.json"
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        manifest.setdefault("files", {})["drafts.npz"] = {"sha256": sha256_file(out), "size": out.stat().st_size}
        manifest.setdefault("recipe", {})["drafts"] = {"turns": len(seqs), "max_n": args.max_n,
                                                        "min_count": args.min_count, "contexts": len(store.static),
                                                        "templates": len(store.templates),
                                                        "copy_prior_tokens": len(store.copy_prior)}
        manifest_path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({"out": str(out), "turns": len(seqs), "contexts": len(store.static),
                      "templates": len(store.templates), "bytes": out.stat().st_size}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
