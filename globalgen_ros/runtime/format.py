"""Prompt and output format of the model (docs/architecture.md, "Text format").

A turn is `<|user|>` + " " + transcript + `<|assistant|>` + header + `<|reply|>` + " " + reply + `<|end|>`;
the header is `<|intent|>NAME` then `<|slot|>SLOT<|value|>VALUE` for each present slot, in schema order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from globalgen_ros.schema import NUMBER_RE

# Ids 0..8 in this order in every tokenizer we train (tokenizer.json is the source of truth at run time).
SPECIAL_TOKENS = ["<|bos|>", "<|user|>", "<|assistant|>", "<|intent|>", "<|slot|>", "<|value|>", "<|reply|>",
                  "<|end|>", "<|pad|>"]
BOS, USER, ASSISTANT, INTENT, SLOT, VALUE, REPLY, END, PAD = SPECIAL_TOKENS
N_SPECIAL, END_ID = len(SPECIAL_TOKENS), SPECIAL_TOKENS.index(END)
MAX_NUMBER_DIGITS = 4


@dataclass
class Parsed:
    intent: str = "none"
    slots: dict[str, str] = field(default_factory=dict)
    reply: str = ""
    complete: bool = False  # the header was closed by <|reply|>


def user_tokens(tok, text: str) -> list[int]:
    """Tokens of a transcript as they appear after <|user|> (leading space included)."""
    return tok.encode(" " + text)


def find_span(tok, user_ids: list[int], value: str) -> list[int] | None:
    """Return the token span of user_ids that spells value (leading whitespace-only tokens dropped)."""
    def strip_space(span: list[int]) -> list[int]:
        while span and not tok.token_text(span[0]).strip():
            span = span[1:]
        return span

    for candidate in (tok.encode(" " + value), tok.encode(value)):
        candidate = strip_space(candidate)
        n = len(candidate)
        for i in range(len(user_ids) - n + 1):
            if n and user_ids[i:i + n] == candidate:
                return candidate
    target = " ".join(value.split())
    for i in range(len(user_ids)):
        for j in range(i + 1, len(user_ids) + 1):
            if " ".join(tok.decode(user_ids[i:j]).split()) == target:
                return strip_space(user_ids[i:j])
    return None


def header_tokens(tok, schema, intent: str, slots: dict[str, str], user_ids: list[int]) -> list[int]:
    """Encode the header; free-text values are copied spans of user_ids (ValueError if a value is not a span)."""
    ids = [tok.intent] + tok.encode(intent)
    for slot in schema[intent].slots:
        if slot.name not in slots:
            continue
        value = str(slots[slot.name])
        if slot.type == "text":
            span = find_span(tok, user_ids, value)
            if span is None:
                raise ValueError(f"slot {slot.name}={value!r} is not a token span of the transcript")
        elif slot.type == "number":
            point = getattr(tok, "point_id", None)
            if (not NUMBER_RE.fullmatch(value) or sum(c.isdigit() for c in value) > MAX_NUMBER_DIGITS
                    or ("." in value and point is None)):
                raise ValueError(f"slot {slot.name}={value!r} is not a number of at most {MAX_NUMBER_DIGITS} digits")
            span = [tok.digit_ids[int(c)] if c.isdigit() else point for c in value]
        else:
            if value not in slot.values:
                raise ValueError(f"slot {slot.name}={value!r} is not one of {list(slot.values)}")
            span = tok.encode(value)
        ids += [tok.slot] + tok.encode(slot.name) + [tok.value] + span
    return ids


def turn_tokens(tok, schema, user: str, intent: str, slots: dict[str, str], reply: str) -> tuple[list[int], int]:
    """Return the ids of one whole turn and the index where the assistant part (the training target) starts."""
    u = user_tokens(tok, user)
    prompt = [tok.user] + u + [tok.assistant]
    answer = header_tokens(tok, schema, intent, slots, u) + [tok.reply] + tok.encode(" " + reply) + [tok.end]
    return prompt + answer, len(prompt)


def prompt_tokens(tok, text: str, history=()) -> tuple[list[int], list[int]]:
    """Return (prompt ids up to and including <|assistant|>, user token ids of the new turn).

    history: (user text, raw model output) pairs of earlier turns; raw is header + reply as decoded.
    """
    ids = [tok.bos]
    for user, raw in history:
        raw = raw.split(END)[0]
        ids += [tok.user] + user_tokens(tok, user) + [tok.assistant] + tok.encode_trusted(raw) + [tok.end]
    u = user_tokens(tok, text)
    return ids + [tok.user] + u + [tok.assistant], u


def parse_output(raw: str) -> Parsed:
    """Split a decoded model output (header + reply) into intent, slots and reply text."""
    out = Parsed()
    raw = raw.split(END)[0]
    header, sep, reply = raw.partition(REPLY)
    out.complete, out.reply = bool(sep), reply.strip()
    header = header.split(INTENT, 1)[-1]
    parts = header.split(SLOT)
    out.intent = parts[0].strip() or "none"
    for part in parts[1:]:
        name, _, value = part.partition(VALUE)
        if name.strip():
            out.slots[name.strip()] = " ".join(value.split())
    return out
