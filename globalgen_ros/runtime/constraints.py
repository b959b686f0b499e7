"""Schema-constrained header decoding (docs/architecture.md, "Constrained header decoding").

The header can only spell an intent of the schema, its slot names in schema order (every slot not marked
optional included), and for each value: a span of the user's tokens (text), a schema value (enum) or digits
(number, with at most one decimal point). The reply is free text (`decoding.step.greedy`: any token but the
special ones, <|end|> aside).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from globalgen_ros.runtime.format import MAX_NUMBER_DIGITS
from globalgen_ros.schema import Schema


@dataclass(frozen=True)
class State:
    phase: str = "start"  # start | intent | slot | value | reply | done
    intent: int = -1      # index of the intent in the schema (set when its name is complete)
    slot: int = -1        # index (in the intent) of the slot being / last filled
    prefix: tuple[int, ...] = ()  # tokens of the current name or value so far
    ends: tuple[int, ...] = ()    # text values: user positions where a copy of prefix ends


class Trie:
    """Token-sequence trie: which tokens may follow a prefix, and which prefixes are complete words."""

    def __init__(self, words: dict[tuple[int, ...], int]):
        self.words = words  # token sequence -> payload (index)
        self.children: dict[tuple[int, ...], set[int]] = {}
        for seq in words:
            for i in range(len(seq)):
                self.children.setdefault(seq[:i], set()).add(seq[i])

    def next(self, prefix: tuple[int, ...]) -> set[int]:
        return self.children.get(prefix, set())

    def complete(self, prefix: tuple[int, ...]) -> int | None:
        return self.words.get(prefix)


@dataclass(frozen=True)
class SchemaTries:
    """The schema's names and enum values as token tries: they depend on the schema only, not on the request."""

    intent: Trie
    slots: list[list[Trie]]         # [intent][last filled slot + 1] -> names of the slots still allowed
    enums: list[list[Trie | None]]  # [intent][slot] -> enum values (None: not an enum slot)

    @classmethod
    def build(cls, schema: Schema, tokenizer) -> SchemaTries:
        return cls(
            intent=Trie({tuple(tokenizer.encode(i.name)): k for k, i in enumerate(schema.intents)}),
            slots=[[Trie({tuple(tokenizer.encode(s.name)): j for j, s in enumerate(i.slots)
                          if last < j <= _next_required(i.slots, last)})
                    for last in range(-1, len(i.slots))] for i in schema.intents],
            enums=[[Trie({tuple(tokenizer.encode(v)): n for n, v in enumerate(s.values)})
                    if s.type == "enum" else None for s in i.slots] for i in schema.intents],
        )


def _next_required(slots, last: int) -> int:
    """Index of the first required slot after `last` (a header may not skip it), or the last index."""
    return next((j for j in range(last + 1, len(slots)) if not slots[j].optional), len(slots) - 1)


class HeaderConstraint:
    def __init__(self, schema: Schema, tokenizer, user_token_ids: list[int], tries: SchemaTries | None = None):
        """Constrain one request's header; pass `tries` (built once per schema) to skip rebuilding them."""
        self.schema, self.tok = schema, tokenizer
        self.user = [int(t) for t in user_token_ids]
        tries = tries or SchemaTries.build(schema, tokenizer)
        self.intent_trie, self.slot_tries, self.enum_tries = tries.intent, tries.slots, tries.enums
        # a copied span starts at a visible token on a character boundary and ends on a character boundary
        mid = [tokenizer.starts_mid_character(t) for t in self.user] + [False]
        self.char_end = tuple(not mid[p + 1] for p in range(len(self.user)))
        self.copy_starts = tuple(p for p in range(len(self.user)) if not mid[p] and self._visible(p, tokenizer))
        if not self.copy_starts:  # nothing to copy: an intent that requires a text slot could never be finished
            needs_text = [any(s.type == "text" and not s.optional for s in i.slots) for i in schema.intents]
            self.intent_trie = Trie({seq: k for seq, k in tries.intent.words.items() if not needs_text[k]})
        self._cache: dict[State, np.ndarray] = {}
        self._sets: dict[State, frozenset[int]] = {}

    def _visible(self, p: int, tokenizer) -> bool:
        """Does the character(s) starting at user token p show something (a value may not be only whitespace)?"""
        if self.char_end[p]:  # the token holds whole characters
            return bool(tokenizer.token_text(self.user[p]).strip())
        q = p
        while not self.char_end[q]:  # a character split over tokens (e.g. U+0085, whitespace, as 2 bytes)
            q += 1
        return bool(tokenizer.decode(self.user[p:q + 1]).strip())

    def start(self) -> State:
        return State()

    def forced(self, state: State) -> int | None:
        allowed = self.allowed(state)
        return int(allowed[0]) if allowed is not None and len(allowed) == 1 else None

    def allowed(self, state: State) -> np.ndarray | None:
        """Return the sorted allowed token ids, or None in the (unconstrained) reply."""
        if state.phase == "reply":
            return None
        if state not in self._cache:
            self._cache[state] = np.array(sorted(self._allowed(state)), dtype=np.int64)
        return self._cache[state]

    def allowed_set(self, state: State) -> frozenset[int] | None:
        """allowed() as a set, for membership tests (the drafting loop asks many times per state)."""
        if state.phase == "reply":
            return None
        hit = self._sets.get(state)
        if hit is None:
            hit = self._sets[state] = frozenset(self.allowed(state).tolist())
        return hit

    def _terminators(self, intent: int, slot: int) -> set[int]:
        """Tokens that may close a name/value: another slot (if any is left), the reply (if none required is)."""
        slots = self.schema.intents[intent].slots
        more = slot + 1 < len(slots)
        required_left = any(not s.optional for s in slots[slot + 1:])
        return ({self.tok.slot} if more else set()) | (set() if required_left else {self.tok.reply})

    def _allowed(self, s: State) -> set[int]:
        tok = self.tok
        if s.phase == "start":
            return {tok.intent}
        if s.phase == "done":
            return set()
        if s.phase == "intent":
            out = set(self.intent_trie.next(s.prefix))
            k = self.intent_trie.complete(s.prefix)
            return out | (self._terminators(k, -1) if k is not None else set())
        if s.phase == "slot":
            trie = self.slot_tries[s.intent][s.slot + 1]
            return set(trie.next(s.prefix)) | ({tok.value} if trie.complete(s.prefix) is not None else set())
        # value
        slot = self.schema.intents[s.intent].slots[s.slot]
        done = self._terminators(s.intent, s.slot)
        if slot.type == "number":  # digits, at most one decimal point between digits ("1.5")
            point = getattr(tok, "point_id", None)
            n_digits = sum(t != point for t in s.prefix)
            digits = set(tok.digit_ids) if n_digits < MAX_NUMBER_DIGITS else set()
            if s.prefix and s.prefix[-1] == point:
                return digits
            can_point = point is not None and s.prefix and point not in s.prefix and n_digits < MAX_NUMBER_DIGITS
            return digits | ({point} if can_point else set()) | (done if s.prefix else set())
        if slot.type == "enum":
            trie = self.enum_tries[s.intent][s.slot]
            return set(trie.next(s.prefix)) | (done if trie.complete(s.prefix) is not None else set())
        if not s.prefix:
            return {self.user[p] for p in self.copy_starts}
        can_end = any(self.char_end[p] for p in s.ends)
        return {self.user[p + 1] for p in s.ends if p + 1 < len(self.user)} | (done if can_end else set())

    def advance(self, state: State, token_id: int) -> State:
        """Return the state after token_id (ValueError if the token is not allowed)."""
        t, tok, s = int(token_id), self.tok, state
        if s.phase == "reply":
            return State("done", s.intent) if t == tok.end else s
        if t not in self.allowed_set(s):
            raise ValueError(f"token {t} ({tok.token_text(t)!r}) is not allowed in header phase {s.phase!r}")
        if s.phase == "start":
            return State("intent")
        if s.phase == "intent":
            k = self.intent_trie.complete(s.prefix)
            if k is not None and t in (tok.slot, tok.reply) and t not in self.intent_trie.next(s.prefix):
                return State("slot", k, -1) if t == tok.slot else State("reply", k)
            return State("intent", prefix=s.prefix + (t,))
        if s.phase == "slot":
            trie = self.slot_tries[s.intent][s.slot + 1]
            if t == tok.value and t not in trie.next(s.prefix):
                return State("value", s.intent, trie.complete(s.prefix))
            return State("slot", s.intent, s.slot, s.prefix + (t,))
        # value: a terminator closes it, anything else extends it
        slot = self.schema.intents[s.intent].slots[s.slot]
        if s.prefix and t in (tok.slot, tok.reply):  # user tokens are never special: this closes the value
            return State("slot", s.intent, s.slot) if t == tok.slot else State("reply", s.intent, s.slot)
        if slot.type == "text":
            ends = (tuple(p for p in self.copy_starts if self.user[p] == t) if not s.prefix
                    else tuple(p + 1 for p in s.ends if p + 1 < len(self.user) and self.user[p + 1] == t))
            return State("value", s.intent, s.slot, s.prefix + (t,), ends)
        return State("value", s.intent, s.slot, s.prefix + (t,))


class ForcedPrefix:
    """Force a token prefix (a header decided by the understanding model), then constrain like `base`.

    The prefix tokens are accepted without a forward (`forced`); the base constraint advances through them too, so
    a prefix that ends inside the header (the intent only) leaves the slots to the schema-constrained copy, and one
    that ends with <|reply|> leaves the reply free.
    """

    def __init__(self, base: HeaderConstraint, prefix: list[int]):
        self.base, self.prefix = base, [int(t) for t in prefix]
        state = base.start()
        for t in self.prefix:  # ValueError if the prefix is not a header the schema allows
            state = base.advance(state, t)
        self._after = state
        self._only = [np.array([t], dtype=np.int64) for t in self.prefix]

    def start(self) -> tuple[int, State | None]:
        return (0, None)

    def allowed(self, state) -> np.ndarray | None:
        i, s = state
        return self._only[i] if i < len(self.prefix) else self.base.allowed(s)

    def allowed_set(self, state) -> frozenset[int] | None:
        i, s = state
        return frozenset((self.prefix[i],)) if i < len(self.prefix) else self.base.allowed_set(s)

    def forced(self, state) -> int | None:
        i, s = state
        return self.prefix[i] if i < len(self.prefix) else self.base.forced(s)

    def advance(self, state, token_id: int):
        i, s = state
        if i < len(self.prefix):
            if int(token_id) != self.prefix[i]:
                raise ValueError(f"token {token_id} is not the forced header token {self.prefix[i]}")
            return (i + 1, self._after) if i + 1 == len(self.prefix) else (i + 1, None)
        return (i, self.base.advance(s, token_id))
