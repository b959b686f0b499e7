"""Build the prompt of a request from its session or history, within the request's context window.

A request continues its session (the stored token ids, already compacted to the window) when the caller sends
no history or the same history the session stands for (compared by digest); otherwise the history text is
tokenized as in runtime/format.py and the session is started over from it. Either way the prompt is then
planned against the windows (window.plan_window): kept as is when it fits, compacted by whole turns when the
history is too long, and marked `plan.defer` (the Assistant raises ContextTooLong, the watchdog defers it to
the cloud) when even the new turn alone does not fit the largest window.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from globalgen_ros.cache.tiered import TieredKVCache
from globalgen_ros.cache.window import WindowPlan
from globalgen_ros.runtime.format import prompt_tokens


@dataclass(frozen=True)
class Context:
    ids: list[int]  # prompt ids: <|bos|> + kept turns + <|user|> text <|assistant|>
    user_ids: list[int]  # token ids of the new transcript (for the header constraint)
    turn_starts: list[int]  # index of every turn's <|user|> in ids, the new turn's last
    plan: WindowPlan
    digest: bytes  # digest of the text history before this turn


def history_digest(history: Sequence[tuple[str, str]], start: bytes = b"") -> bytes:
    """Return a digest naming a text history of (user, raw output) turns, chained from `start`."""
    digest = start
    for user, raw in history:
        digest = hashlib.sha256(digest + user.encode() + b"\x00" + raw.encode() + b"\x01").digest()
    return digest


def build_context(cache: TieredKVCache, tok, text: str, history: Sequence[tuple[str, str]], session_id: str,
                  expected_reply: int) -> Context:
    """Return the prompt of a request, planned against the cache's windows (plan.defer: no window fits)."""
    base, user_ids = prompt_tokens(tok, text, list(history))  # the history as text, tokenized
    new_turn = len(user_ids) + 2  # <|user|> text <|assistant|>
    digest = history_digest(history)
    session = cache.session(session_id)
    if session is not None and (not history or session.digest == digest):
        ids, starts, values, digest = [int(t) for t in session.ids], list(session.turn_starts), \
            list(session.turn_values), session.digest
    else:
        ids, values = base[:-new_turn], None
        starts = [i for i, t in enumerate(ids) if t == tok.user]
    bounds = starts + [len(ids)]
    turns = [ids[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    lengths = [len(t) for t in turns]
    plan = cache.plan(lengths, new_turn, None, expected_reply)
    if plan.dropped and not plan.defer:  # compaction: keep the earlier turns of most value
        if cache.scorer is not None:  # their first-layer attention, the new turn included (H2O + SnapKV)
            values = cache.scorer.turn_values(ids + base[-new_turn:], starts + [len(ids)], len(ids) + new_turn)[:-1]
        if values:  # else: the key-norm values of the session's cached rows, if any
            plan = cache.plan(lengths, new_turn, values, expected_reply)
    if plan.defer:
        return Context([], list(user_ids), [], plan, digest)
    ids = ids[:starts[0]] if starts else ids  # <|bos|> (the attention sink)
    kept = []
    for i in plan.keep:
        kept.append(len(ids))
        ids = ids + turns[i]
    kept.append(len(ids))
    ids = ids + base[-new_turn:]
    return Context(ids, list(user_ids), kept, plan, digest)
