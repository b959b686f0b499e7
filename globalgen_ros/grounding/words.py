"""Slot values on word boundaries: a text slot never ends inside a Latin-script word ("Ren" of Renée)."""

from __future__ import annotations

import re
import unicodedata

from globalgen_ros.watchdog.language import is_cjk


def is_latin_word_char(ch: str) -> bool:
    """Latin letter, digit, or an in-word apostrophe/hyphen-like mark."""
    if ch.isdigit() or ch in "'’-":
        return True
    return unicodedata.category(ch)[0] == "L" and "LATIN" in unicodedata.name(ch, "")


def widen_to_words(text: str, a: int, b: int) -> tuple[int, int]:
    """Strip surrounding whitespace, then extend [a, b) so it never cuts inside a Latin-script word."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if a >= b:
        return a, b
    while a > 0 and is_latin_word_char(text[a]) and is_latin_word_char(text[a - 1]):
        a -= 1
    while b < len(text) and is_latin_word_char(text[b - 1]) and is_latin_word_char(text[b]):
        b += 1
    return a, b


def whole_words(text: str, value: str) -> str:
    """Return `value` as said in `text` widened to whole Latin words where every occurrence of it cuts one
    ("call Zo" in "call Zoë" -> "Zoë"); a value that is whole somewhere, or not in the text, is returned as is."""
    v = value.strip()
    found = re.finditer(f"(?={re.escape(v)})", text, re.IGNORECASE) if v else ()  # overlapping, original indices
    spans = [(m.start(), m.start() + len(v)) for m in found]
    if not spans or any(widen_to_words(text, a, b) == (a, b) for a, b in spans):
        return value
    a, b = widen_to_words(text, *spans[0])
    return text[a:b]


PAIRS = {"《": "》", "“": "”", "「": "」", "『": "』", "〈": "〉"}
JOINERS = "·・/."  # inside one name: 买买提·艾力, AC/DC, G.E.M.
FILLERS = {"uh", "um", "er", "erm", "uhh", "umm", "uhm", "ah", "eh"}
ARTICLES = {"the", "a", "an"}


def close_marks(text: str, a: int, b: int) -> tuple[int, int]:
    """Close a title or quote mark that [a, b) leaves open (蔡健雅的《停格 -> 蔡健雅的《停格》), then drop a pair that
    encloses the whole span (《暂停》 -> 暂停)."""
    for open_, close in PAIRS.items():
        inside = text[a:b]
        if inside.count(open_) > inside.count(close) and text[b:b + 1] == close:
            b += 1
        elif inside.count(close) > inside.count(open_) and a > 0 and text[a - 1] == open_:
            a -= 1
    while b - a > 2 and PAIRS.get(text[a]) == text[b - 1] and text[a + 1:b - 1].count(text[a]) == 0:
        a, b = a + 1, b - 1
    return a, b


def join_names(text: str, a: int, b: int) -> tuple[int, int]:
    """Extend [a, b) over the word on the other side of a joining mark it starts or ends at (·艾力 -> 买买提·艾力,
    "/" of AC/DC -> AC/DC); the caller widens to whole words after."""
    while a > 0 and text[a] in JOINERS and text[a - 1].isalnum():
        a -= 1  # a Chinese word is then widened by jieba (widen_to_cjk_words), a Latin one here
        while a > 0 and is_latin_word_char(text[a]) and text[a - 1].isalnum() and is_latin_word_char(text[a - 1]):
            a -= 1
        if a > 1 and text[a - 1] in JOINERS and is_latin_word_char(text[a - 2]):
            a -= 1  # G.E.M.: one more joiner before
    while b < len(text) and text[b - 1] in JOINERS and text[b:b + 1].isalnum():
        b += 1
        while b < len(text) and is_latin_word_char(text[b - 1]) and text[b].isalnum() and is_latin_word_char(text[b]):
            b += 1
    return a, b


def drop_restart(text: str, a: int, b: int) -> tuple[int, int]:
    """Drop leading fillers and a restarted first word of a Latin-script span when more words follow ("the uh the
    post office" -> "the post office", "jon jon smith" -> "jon smith"; a repeated capitalised word is a name:
    "Bora Bora airport"); other spans are returned as they are."""
    while True:
        words = [(m.start() + a, m.end() + a) for m in re.finditer(r"\S+", text[a:b])]
        if len(words) < 3 and not (len(words) == 2 and text[words[0][0]:words[0][1]].lower() in FILLERS):
            return a, b
        first, second = (text[s:e].lower().strip(",") for s, e in words[:2])
        if not all(is_latin_word_char(ch) for ch in first + second):
            return a, b
        stutter = first == second and (first in ARTICLES or text[a:b].islower())  # not "Bora Bora airport"
        if first in FILLERS or stutter or (first in ARTICLES and second in FILLERS):
            a = words[1][0]
        else:
            return a, b


# Span conventions (docs/model.md, session 29): how the blind sets' writers bound a span of the words said.
CLASSIFIERS = "个只瓶件本把张条块双盒袋包杯碗台支根箱桶串副顶辆位片罐封份套颗粒盘堆"
DETERMINER_BEFORE = re.compile(rf"(?:[这那](?:一|几)?[{CLASSIFIERS}]?|[这那]些|[我你他她它咱]们?的|自己的)$")
LOCALIZERS = "上面|里面|下面|旁边|边上|那边|这边|那里|这里|那儿|这儿|上|里"
LOCALIZER_AFTER = re.compile(LOCALIZERS)
LOCALIZER_END = re.compile(f"(?:{LOCALIZERS})$")
GOVERNED_STOP = re.compile(r"[\s，。！？、,.!?;；：:把呃嗯啊哦额]")  # a pause or filler ends what 把 governs
POSSESSIVE_BEFORE = re.compile(r"(?i)\b(?:my|your|his|her|our|their)\s+$")


def conventional_span(text: str, a: int, b: int, slot: str) -> tuple[int, int]:
    """Bound [a, b) as the words said: a Chinese object or location keeps the demonstrative or possessive before it
    (那瓶酱油, 我的水杯) and a location its localizer (床头柜上); a Chinese span drops a 把 / 给 the vocabulary glued
    to the pronoun after it (把我的老花镜 -> 我的老花镜), and an object is all that 把 governs (把地上那条小被子捡起来);
    an English span keeps a possessive before it (my glasses)."""
    if a >= b:
        return a, b
    if any(is_cjk(ch) for ch in text[a:b]):
        if slot in ("object", "contact", "location") and b - a > 2 and text[a] in "把给":
            a += 1
        before = DETERMINER_BEFORE.search(text, 0, a)
        if slot in ("object", "location") and before:
            a = before.start()
        ba = text.rfind("把", 0, a)  # 把地上那条小被子捡起来: all that 把 governs is the object
        if slot == "object" and ba >= 0 and 0 < a - ba - 1 <= 12 and not GOVERNED_STOP.search(text, ba + 1, a):
            a = ba + 1
        after = LOCALIZER_AFTER.match(text, b)
        if slot == "location" and after and not LOCALIZER_END.search(text, a, b):
            b = after.end()
    elif slot in ("object", "location", "contact") and (text[a:b].split() or [""])[0].lower() not in ARTICLES:
        before = POSSESSIVE_BEFORE.search(text, 0, a)
        if before:
            a = before.start()
    return a, b
