"""Reply templates: earlier replies with their slot values taken out, drafted with the current header's values.

Replies confirm the header ("导航到X" -> "好的，正在为您导航到X。"), so once `<|reply|>` is out, an earlier reply
to the same header shape, with this header's slot values put back in, usually drafts the whole rest of the
reply, `<|end|>` included. Built from the training outputs (stored in `drafts.npz` next to the n-gram table):
for each output, every slot value that reappears in the reply becomes a placeholder in both the header key
and the reply; values that do not (enum values worded differently) stay literal in the key.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import product
from typing import TYPE_CHECKING

import numpy as np

from globalgen_ros.decoding.tree import Chain

if TYPE_CHECKING:
    from globalgen_ros.decoding.drafters import DraftContext

HOLE = -1  # placeholder of a slot value in a header key


def find(seq: Sequence[int], part: Sequence[int]) -> int:
    """Return the first index of `part` in `seq`, or -1."""
    n = len(part)
    for i in range(len(seq) - n + 1):
        if list(seq[i: i + n]) == list(part):
            return i
    return -1


def split_header(header: Sequence[int], value_id: int, stops: frozenset[int]) -> list[tuple[int, int]]:
    """Return the (start, end) spans of the slot values in a header (after each <|value|>)."""
    spans, i = [], 0
    while i < len(header):
        if header[i] == value_id:
            j = i + 1
            while j < len(header) and header[j] not in stops:
                j += 1
            spans.append((i + 1, j))
            i = j
        else:
            i += 1
    return spans


class ReplyTemplates:
    """{(lang, delexicalised header): Counter(delexicalised reply)}; replies refer to value i as -(i + 1)."""

    def __init__(self, value_id: int, stops: Iterable[int], table: dict | None = None):
        self.value_id, self.stops = value_id, frozenset(stops)
        self.table: dict[tuple, Counter] = table or {}

    def add(self, lang: str, header: Sequence[int], reply: Sequence[int]) -> None:
        """Count one output: header tokens (before <|reply|>) and reply tokens (after it, <|end|> included)."""
        key, reply = [lang], list(reply)
        last = 0
        for i, (a, b) in enumerate(split_header(header, self.value_id, self.stops)):
            key += header[last:a]
            value = list(header[a:b])
            at = find(reply, value) if value else -1
            if at < 0:
                key += value
            else:
                key.append(HOLE)
                while at >= 0:
                    reply[at: at + len(value)] = [-(i + 1)]
                    at = find(reply, value)
            last = b
        key += header[last:]
        self.table.setdefault(tuple(key), Counter())[tuple(reply)] += 1

    def candidates(self, lang: str, header: Sequence[int], top: int | None = 3) -> list[tuple[list[int], float]]:
        """Return up to `top` (all if None) (reply tokens with this header's values filled in, share), likeliest
        first."""
        spans = split_header(header, self.value_id, self.stops)
        values = [list(header[a:b]) for a, b in spans]
        found: Counter = Counter()
        for holes in product((False, True), repeat=len(spans)):  # which values the template took out
            key, last = [lang], 0
            for (a, b), hole in zip(spans, holes, strict=True):
                key += header[last:a]
                key += [HOLE] if hole else header[a:b]
                last = b
            key += header[last:]
            for reply, n in self.table.get(tuple(key), {}).items():
                filled = []
                for t in reply:
                    filled += values[-t - 1] if t < 0 else [t]
                found[tuple(filled)] += n
        total = sum(found.values())
        return [(list(r), n / total) for r, n in found.most_common(top)]

    def to_json(self) -> str:
        return json.dumps([[list(k), [[list(r), n] for r, n in c.items()]] for k, c in self.table.items()],
                          ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str, value_id: int, stops: Iterable[int]) -> ReplyTemplates:
        table = {tuple(k): Counter({tuple(r): n for r, n in rows}) for k, rows in json.loads(text)}
        return cls(value_id, stops, table)

    def __len__(self) -> int:
        return len(self.table)


class TemplateDrafter:
    """After <|reply|>: propose the rest of an earlier reply to the same header shape, with this header's values."""

    source = "tpl"

    def __init__(self, templates: ReplyTemplates, reply_id: int, user_id: int, assistant_id: int,
                 cjk: np.ndarray, top: int = 3):
        self.templates, self.reply_id, self.top = templates, reply_id, top
        self.user_id, self.assistant_id = user_id, assistant_id
        self.cjk = cjk  # (V,) bool: the token spells a CJK character (the reply language follows the user's)
        self._key: tuple | None = None
        self._cands: list[tuple[list[int], float]] = []

    def language(self, tokens: Sequence[int], n_prompt: int) -> str:
        """Return 'zh' if the last user turn of the prompt has a CJK token, else 'en'."""
        start = max(i for i in range(n_prompt) if tokens[i] == self.user_id) if self.user_id in tokens else 0
        return "zh" if self.cjk[np.asarray(tokens[start:n_prompt], np.int64)].any() else "en"

    def propose(self, ctx: DraftContext) -> list[Chain]:
        out = ctx.tokens[ctx.n_prompt:] + ctx.extra
        if not out:
            return []
        if self.reply_id in out:
            at = out.index(self.reply_id)
            header, said, lead = out[:at], out[at + 1:], []
        else:  # the header may be complete: draft <|reply|> itself, then the reply (the schema cuts it if not)
            header, said, lead = out, [], [self.reply_id]
        key = (id(ctx.tokens), ctx.n_prompt, tuple(header))
        if key != self._key:  # look a header up once per request and header
            self._key = key
            self._cands = self.templates.candidates(self.language(ctx.tokens, ctx.n_prompt), header, top=None)
        # The replies that agree with what was said so far; their shares renormalised among themselves (after
        # "抱" the rarer "抱歉，我暂时还不能查看时间。" is still a candidate though not among a header's top 3).
        match = [(reply, share) for reply, share in self._cands
                 if len(reply) > len(said) and reply[: len(said)] == said]
        total = sum(share for _, share in match)
        chains = []
        for reply, share in match[: self.top]:
            rest = (lead + reply[len(said):])[: ctx.max_depth]
            raw = ([0.5] if lead else []) + [share / total] + [0.97] * (len(rest) - len(lead) - 1)
            tags = (["tpl<"] if lead else []) + ["tpl"] + ["tpl+"] * (len(rest) - len(lead) - 1)
            chains.append(Chain(rest, raw[: len(rest)], tags[: len(rest)]))
        return chains
