"""Read one clause of a declined utterance: a command for now chained with one for later or one the schema lacks
("take me to the airport, and if there's traffic, tell me", "先导航去公司，到了再给老王打电话"), a command said after a
remark ("lock the doors and call Dave"), or a command corrected ("pick up the remote, no, the phone, grab the phone").

The understanding model reads the whole utterance and may decline it for the rest. When it does, one clause alone is
read again, under conditions measured on the spent blind sets (docs/model.md, sessions 29 and 30): the first clause
when nothing withdraws, negates, corrects or defers anywhere; else the last clause when, moreover, what comes before
it is more than a vocative ("Mum, call Dad" is speech to a person); else, after a correction with no withdrawal, the
last clause without its correction words. A motion intent read this way is asked first (serving/confirm.py): the rest
of the utterance was not understood.
"""

from __future__ import annotations

import functools
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


def _clauses(text: str, en: re.Pattern, zh: re.Pattern, zh_spaced: re.Pattern) -> list[tuple[int, int]]:
    """Return the (start, end) of each clause of `text`, split by `en`, `zh` or, for a Chinese transcript with a
    space between every word, `zh_spaced` (punctuation only)."""
    split = en
    if CJK.search(text):
        split = zh_spaced if len(text.split()) >= WORD_SPACED else zh
    bounds = [(0, 0)] + [(m.start(), m.end()) for m in split.finditer(text)] + [(len(text), len(text))]
    return [(a, b) for (_, a), (b, _) in zip(bounds, bounds[1:], strict=False) if text[a:b].strip()]


def first_clause(text: str) -> tuple[int, int] | None:
    """Return the (start, end) of the first clause if the utterance qualifies for a second reading, else None."""
    if "?" in text or "？" in text:
        return None
    clauses = _clauses(text, EN_SPLIT, ZH_SPLIT, ZH_PUNCT_SPLIT)
    if len(clauses) < 2 or any(_unsure(text[a:b]) for a, b in clauses):
        return None
    a, b = clauses[0]
    return None if _later(text[a:b]) else (a, b)


# The last clause may follow a question or a "so"; the first clause must be more than a vocative.
EN_LAST_SPLIT = re.compile(r"(?i)\s*(?:[,.;!?]+\s*(?:and then|and|then|but|so)?|\s(?:and then|and|then)\s)\s*")
ZH_LAST_SPLIT = re.compile(r"\s*[，。！？；,.!?;\s]+\s*")
ZH_LAST_PUNCT_SPLIT = re.compile(r"\s*[，。！？；,.!?;]+\s*")
EN_TIME = re.compile(r"(?i)\b(?:o'?clock|half (?:past )?\w+|quarter (?:past|to) \w+|every|each time|as soon as|"
                     r"should (?:it|the|we|you|i|he|she|they)|on my (?:count|signal|mark)|[ap]\.?m|noon|midnight)\b|"
                     r"\d:\d\d")
# 三点 and 十一点 are times; 一点 (a little) and 三点五 (3.5) are not
ZH_TIME = re.compile(r"(?:[二三四五六七八九两\d]|十[一二]?)点(?![一二三四五六七八九十\d])|点钟|每天|每次|每回|"
                     r"早上|中午|下午|明早")
EN_SUBJECT = re.compile(r"(?i)^(?:i|i'?d|i'?ll|i'?m|i'?ve|we|we'?d|we'?ll|he|she|they)\b")
MIN_FIRST_WORDS, MIN_FIRST_CHARS = 3, 5  # the first clause: more than a vocative
MIN_ZIPF = 2.5  # a Latin-script word before the last clause must be this common in English (docs/model.md, session 30)
LATIN_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
# Corrections ("no, the phone", 我是说开窗) without a withdrawal (never mind, 算了): the last clause is the command.
EN_CORRECTION = re.compile(r"(?i)\b(?:no|actually|sorry|i mean|i meant|make that|scratch that|rather|instead|"
                           r"correction)\b")
ZH_CORRECTION = re.compile(r"不对|我是说|说错了|不是.{1,8}是|改成|换成")
EN_WITHDRAWAL = re.compile(r"(?i)never ?mind|forget (?:it|that|about)|cancel|don'?t bother|leave it|no need|not now|"
                           r"hold off|don'?t|do not")
ZH_WITHDRAWAL = re.compile(r"算了|不用了|不要了|取消|别了|先别|不用")
EN_CORRECTION_WORDS = re.compile(r"(?i)^(?:(?:no|nope|actually|sorry|wait|i mean|i meant|rather|instead|make that|"
                                 r"make it|oh|uh|um|er|hmm|well|ok|okay)\b[\s,]*)+")
ZH_CORRECTION_WORDS = re.compile(r"^(?:不对|不是|我是说|我说的是|说错了|哦|呃|额|嗯|啊|改成|换成)+")


def _unsure(text: str) -> bool:
    """Return True if `text` withdraws, negates or corrects, in either language (code-switched speech)."""
    return bool(EN_UNSURE.search(text) or ZH_UNSURE.search(text))


def _later(text: str, times: bool = False) -> bool:
    """Return True if `text` names a condition or a later time (with `times`, a clock time too), in either language."""
    found = EN_LATER.search(text) or ZH_LATER.search(text)
    return bool(found or (times and (EN_TIME.search(text) or ZH_TIME.search(text))))


@functools.lru_cache(maxsize=4096)
def _english(word: str) -> bool:
    """Return True for a common English word (Zipf frequency >= MIN_ZIPF in wordfreq)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= MIN_ZIPF


def warm_clauses() -> None:
    """Load the English word frequencies now (~0.2 s once) rather than on the first utterance that needs them."""
    _english("the")


def last_clause(text: str) -> tuple[int, int] | None:
    """Return the (start, end) of the last clause if it qualifies for a second reading, else None."""
    zh = bool(CJK.search(text))
    clauses = _clauses(text, EN_LAST_SPLIT, ZH_LAST_SPLIT, ZH_LAST_PUNCT_SPLIT)
    if len(clauses) < 2 or text.rstrip().endswith(("?", "？")) or _unsure(text) or _later(text, times=True):
        return None
    a, b = clauses[-1]
    first = text[clauses[0][0]:clauses[0][1]]  # "Ben, go to the garage and get the toolbox": a name first
    long_enough = len(re.sub(r"\W", "", first)) >= MIN_FIRST_CHARS if zh else len(first.split()) >= MIN_FIRST_WORDS
    known = all(_english(w.lower()) for w in LATIN_WORD.findall(text[:a]))  # "si empieza a llover, close …"
    return (a, b) if long_enough and known and (zh or not EN_SUBJECT.match(text[a:b])) else None


def corrected_clause(text: str) -> tuple[int, int] | None:
    """Return the (start, end) of the last clause without its correction words, if the utterance corrects itself
    and withdraws nothing, else None."""
    zh = bool(CJK.search(text))
    lead = ZH_CORRECTION_WORDS if zh else EN_CORRECTION_WORDS
    clauses = _clauses(text, EN_LAST_SPLIT, ZH_LAST_SPLIT, ZH_LAST_PUNCT_SPLIT)
    corrects = EN_CORRECTION.search(text) or ZH_CORRECTION.search(text)
    withdraws = EN_WITHDRAWAL.search(text) or ZH_WITHDRAWAL.search(text)
    if len(clauses) < 2 or text.rstrip().endswith(("?", "？")) or not corrects or withdraws:
        return None
    a, b = clauses[-1]
    a += lead.match(text[a:b]).end() if lead.match(text[a:b]) else 0
    a += len(text[a:b]) - len(text[a:b].lstrip())
    return (a, b) if a < b and not _unsure(text[a:b]) else None


def read_clause(predict, text: str) -> dict | None:
    """Return the prediction of one clause (first, last, corrected: the first that qualifies and is a command),
    spans in the utterance's offsets and "clause" set to its words, when it is a command (not `stop`) at
    MIN_CONFIDENCE or more; else None. `predict` reads one text."""
    for find in (first_clause, last_clause, corrected_clause):
        span = find(text)
        if span is None:
            continue
        a, b = span
        out = predict(text[a:b])
        if out["intent"] in ("none", "stop") or out["confidence"] < MIN_CONFIDENCE:
            continue
        out["spans"] = {name: (s + a, e + a) for name, (s, e) in out.get("spans", {}).items()}
        out["clause"] = text[a:b]
        return out
    return None
