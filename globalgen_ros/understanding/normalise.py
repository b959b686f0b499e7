"""Text normalisation before tokenising (NFKC, traditional -> simplified Chinese), with a map back to the input."""

import unicodedata
from functools import lru_cache

NORMALISATION = "per-character NFKC, then OpenCC t2s (per character if the whole-string conversion changes length)"


@lru_cache(maxsize=1)
def _t2s():
    """The OpenCC traditional -> simplified converter (loaded once)."""
    import opencc

    return opencc.OpenCC("t2s")


def nfkc_map(text: str) -> tuple[str, list[int]]:
    """NFKC per character; returns the string and, per output character, the index of its input character."""
    out, idx = [], []
    for i, ch in enumerate(text):
        for c in unicodedata.normalize("NFKC", ch):
            out.append(c)
            idx.append(i)
    return "".join(out), idx


def to_simplified(text: str) -> str:
    """Traditional -> simplified Chinese, keeping the length (falls back to per-character conversion)."""
    cc = _t2s()
    out = cc.convert(text)
    if len(out) == len(text):
        return out
    chars = [cc.convert(c) for c in text]
    return "".join(c if len(c) == 1 else o for c, o in zip(chars, text, strict=True))


def normalise(text: str) -> tuple[str, list[int]]:
    """Normalised text and, per normalised character, the index of the original character it came from."""
    s, idx = nfkc_map(text)
    return to_simplified(s), idx


def to_original_span(idx: list[int], start: int, end: int) -> tuple[int, int]:
    """Normalised char span [start, end) -> original char span [a, b)."""
    return idx[start], idx[end - 1] + 1


def to_normalised_span(idx: list[int], start: int, end: int) -> tuple[int, int] | None:
    """Original char span [start, end) -> normalised char span, or None if no normalised char falls inside."""
    js = [j for j, i in enumerate(idx) if start <= i < end]
    return (js[0], js[-1] + 1) if js else None
