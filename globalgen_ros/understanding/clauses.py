"""Read the first clause of a declined utterance: a command for now chained with one for later or one the schema
lacks ("take me to the airport, and if there's traffic, tell me", "先导航去公司，到了再给老王打电话").

The understanding model reads the whole utterance and may decline it for its second half. When it does, the first
clause alone is read again, under conditions measured on the spent blind sets (docs/model.md, session 29): no
question, no clause that withdraws, negates or corrects ("call Dad, actually, never mind", "导航去机场，哦不对"), and a
first clause that names no condition or later time ("if it rains, close the windows"). A motion intent read this way
is asked first (serving/confirm.py): the rest of the utterance was not understood.
"""

from __future__ import annotations

import re

MIN_CONFIDENCE = 0.95  # the first clause's command must be this sure (docs/model.md, session 29)

# Clause boundaries: punctuation and pauses; in English also the coordinators that chain requests.
EN_SPLIT = re.compile(r"(?i)\s*(?:[,.;!]+\s*(?:and then|and|then|but)?|\s(?:and then|and|then)\s)\s*")
ZH_SPLIT = re.compile(r"\s*[，。！；,.!;\s]+\s*")
ZH_PUNCT_SPLIT = re.compile(r"\s*[，。！；,.!;]+\s*")  # a transcript with a space between every word (vosk): no pauses
WORD_SPACED = 4  # Chinese text split by spaces into this many pieces or more is word-spaced
# Conditions and later times: a clause that names one is not for now.
EN_LATER = re.compile(r"(?i)\b(?:if|when|whenever|once|after|before|unless|later|tonight|tomorrow|until|till|"
                      r"in case)\b|\bat \d|\bin \w+ (?:minutes|hours)\b")
ZH_LATER = re.compile(r"如果|要是|的话|等|待会|一会儿|回头|明天|晚上|以后|之后|到了|回来|再说|万一|的时候|假如")
# Withdrawals, negations and corrections anywhere: the whole decline stands.
EN_UNSURE = re.compile(r"(?i)\b(?:no|not|nope|never|don'?t|do not|cancel|forget|actually|wait|instead|scratch|"
                       r"leave it|leave them|stop|sorry|rather|mean|meant)\b|n't\b")
ZH_UNSURE = re.compile(r"算了|不|别|没|取消|还是|改|换|哦|呃|额|停")
CJK = re.compile(r"[\u4e00-\u9fff]")


def first_clause(text: str) -> tuple[int, int] | None:
    """Return the (start, end) of the first clause if the utterance qualifies for a second reading, else None."""
    if "?" in text or "？" in text:
        return None
    zh = bool(CJK.search(text))
    split, later, unsure = (ZH_SPLIT, ZH_LATER, ZH_UNSURE) if zh else (EN_SPLIT, EN_LATER, EN_UNSURE)
    if zh and len(text.split()) >= WORD_SPACED:
        split = ZH_PUNCT_SPLIT
    bounds = [(0, 0)] + [(m.start(), m.end()) for m in split.finditer(text)] + [(len(text), len(text))]
    clauses = [(a, b) for (_, a), (b, _) in zip(bounds, bounds[1:], strict=False) if text[a:b].strip()]
    if len(clauses) < 2 or any(unsure.search(text[a:b]) for a, b in clauses):
        return None
    a, b = clauses[0]
    return None if later.search(text[a:b]) else (a, b)


def read_first_clause(predict, text: str) -> dict | None:
    """Return the prediction of the first clause, spans in the utterance's offsets and "clause" set to its words,
    when it is a command (not `stop`) at MIN_CONFIDENCE or more; else None. `predict` reads one text."""
    span = first_clause(text)
    if span is None:
        return None
    a, b = span
    out = predict(text[a:b])
    if out["intent"] in ("none", "stop") or out["confidence"] < MIN_CONFIDENCE:
        return None
    out["spans"] = {name: (s + a, e + a) for name, (s, e) in out.get("spans", {}).items()}
    out["clause"] = text[a:b]
    return out
