"""Slot values on word boundaries: a text slot never ends inside a Latin-script word ("Ren" of Renée)."""

from __future__ import annotations

import re
import unicodedata


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
