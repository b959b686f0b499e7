"""Read Chinese text by sound: a character the ASR may have written for a stop word's character becomes that one.

Speech recognisers write homophones: 挺挺挺 or 听停停 for 停停停, 杀车 for 刹车. `sounds_like` replaces every Chinese
character that is not one of the stop words' own characters but is pronounced as one of them (toneless pinyin, from
pypinyin) by that character. The reflex fires on the result only when it is stop phrases and nothing else
(StopReflex.matches, strict), so a misheard word cannot turn an ordinary request into a stop; a stop character said
three times (挺挺挺前面有人) is no misheard word and may go on with a hazard as written text does.
"""

from __future__ import annotations

from functools import lru_cache

from pypinyin import lazy_pinyin

from globalgen_ros.watchdog.language import is_cjk


@lru_cache(maxsize=8)
def _by_sound(known: str) -> dict[str, str]:
    """Map the toneless pinyin of each known character to the character (the first one known for a sound)."""
    out: dict[str, str] = {}
    for ch in known:
        out.setdefault(lazy_pinyin(ch)[0], ch)
    return out


def sounds_like(text: str, known: str) -> str:
    """Return text with each Chinese character outside `known` that sounds like one inside it replaced by it."""
    if not any(map(is_cjk, text)):
        return text
    sounds = _by_sound(known)
    return "".join(sounds.get(lazy_pinyin(ch)[0], ch) if is_cjk(ch) and ch not in known else ch for ch in text)
