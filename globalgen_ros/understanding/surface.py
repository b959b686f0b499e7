"""Surface-form augmentation: the same request as ASR and casual speech deliver it, with intent and slots kept.

Blind speech says "Wind the window down, mate", "kindly call Ramesh", "um skip this", "暂挺一下" (暂停 heard by sound),
"劳驾，把杯子拿起来"; the templates rarely do. One transform per chosen example, never inside a slot's words:
- en: ASR casing (lower case, no sentence punctuation), a filler before ("um", "okay so"), a vocative or tag after
  (", mate", " please"), a polite frame before ("kindly", "I need you to");
- zh: one character replaced by another with the same toneless pinyin (pypinyin; candidates are characters the
  training text uses), a filler before (那个, 嗯), a polite frame before (麻烦, 劳驾), a particle after (吧, 呗).
Applied to `none` examples as often as to commands, so that none of these forms is a cue for acting.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import replace

from pypinyin import lazy_pinyin

from globalgen_ros.understanding.data import NOT_STOP, Example

EN_FILLERS = ("um ", "uh ", "so ", "okay so ", "right, ", "yeah ", "alright ", "hey, ", "erm ", "oh and ")
EN_TAGS = (", mate", " mate", ", buddy", " man", ", pal", ", love", " bro", ", dude", " please", ", cheers",
           " yeah", " for me", " real quick")
# No "can you / could you …" frames: they are also how questions about a feature begin ("can you heat the seats?"),
# which v27 (with them) learnt to act on.
EN_POLITE = ("please ", "kindly ", "be a dear and ", "if you could ", "do me a favour and ", "go ahead and ",
             "I need you to ", "I'd like you to ")
ZH_FILLERS = ("那个", "嗯，", "哎，", "诶", "那个那个", "呃", "就是", "喂，")
ZH_POLITE = ("麻烦", "劳驾，", "请", "麻烦你", "帮忙", "拜托，", "你给我", "帮我")
ZH_TAGS = ("吧", "呗", "哈", "啊", "呀", "嘛", "，谢谢", "，快点", "，行吗", "一下")
NUMERALS = set("零〇一二三四五六七八九十百千万两点半")
_SENTENCE_PUNCT = re.compile(r"[,.!?;:]+(?=\s|$)")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def homophones(texts: list[str], min_count: int = 3) -> dict[str, list[str]]:
    """Toneless pinyin -> the characters of texts that sound so (each seen at least min_count times)."""
    seen = Counter(c for t in texts for c in t if _CJK.match(c))
    by_sound: dict[str, list[str]] = {}
    for c, n in sorted(seen.items()):
        if n >= min_count and c not in NUMERALS:
            by_sound.setdefault(lazy_pinyin(c)[0], []).append(c)
    return {s: cs for s, cs in by_sound.items() if len(cs) > 1}


def slot_chars(ex: Example) -> set[int]:
    """Positions of ex.text inside the words of a slot value (after ex.start), which a transform must keep."""
    keep = set()
    for value in ex.slots.values():
        a = ex.text.find(str(value), ex.start)
        if a >= 0:
            keep.update(range(a, a + len(str(value))))
    return keep


def sound_alike(ex: Example, sounds: dict[str, list[str]], rng: random.Random) -> Example | None:
    """Replace one character outside the slots by another that sounds the same (None if there is none)."""
    keep = slot_chars(ex)
    spots = [i for i, c in enumerate(ex.text) if i not in keep and _CJK.match(c) and c not in NUMERALS
             and len(sounds.get(lazy_pinyin(c)[0], ())) > 1]
    if not spots:
        return None
    i = rng.choice(spots)
    other = rng.choice([c for c in sounds[lazy_pinyin(ex.text[i])[0]] if c != ex.text[i]])
    return replace(ex, text=ex.text[:i] + other + ex.text[i + 1:])


def asr_case(ex: Example) -> Example:
    """Lower case, sentence punctuation removed, in the text and the slot values alike."""
    def f(s: str) -> str:
        return _SENTENCE_PUNCT.sub("", s.lower())
    head = f(ex.text[:ex.start])
    return replace(ex, text=head + f(ex.text[ex.start:]), start=len(head),
                   slots={k: f(v) if isinstance(v, str) else v for k, v in ex.slots.items()})


def before(ex: Example, prefix: str) -> Example:
    """The example with prefix said before it (an English command then starts in lower case)."""
    text = ex.text[:1].lower() + ex.text[1:] if ex.lang == "en" and ex.start == 0 else ex.text
    return replace(ex, text=prefix + text, start=ex.start + len(prefix))


def after(ex: Example, tag: str) -> Example:
    """The example with a tag said after it (its closing punctuation moved behind the tag)."""
    body = ex.text.rstrip(" .!?。！？")
    return replace(ex, text=body + tag + ex.text[len(body):].strip())


def surface_form(ex: Example, sounds: dict[str, list[str]], rng: random.Random) -> Example | None:
    """One random surface transform of ex, marked in its source (None when the chosen one does not apply)."""
    if ex.intent == NOT_STOP:
        return None
    asks = ex.text.rstrip().endswith(("?", "？"))  # no polite frame or tag around a question
    if ex.lang == "en":
        kind = rng.choice(("asr", "filler", "tag", "polite"))
        if asks and kind in ("polite", "tag"):
            return None
        make = {"asr": lambda: asr_case(ex), "filler": lambda: before(ex, rng.choice(EN_FILLERS)),
                "tag": lambda: after(ex, rng.choice(EN_TAGS)), "polite": lambda: before(ex, rng.choice(EN_POLITE))}
        out = make[kind]()
    elif ex.lang == "zh":
        kind = rng.choice(("sound", "filler", "polite", "tag"))
        if asks and kind in ("polite", "tag"):
            return None
        make = {"sound": lambda: sound_alike(ex, sounds, rng), "filler": lambda: before(ex, rng.choice(ZH_FILLERS)),
                "polite": lambda: before(ex, rng.choice(ZH_POLITE)), "tag": lambda: after(ex, rng.choice(ZH_TAGS))}
        out = make[kind]()
    else:
        return None
    return replace(out, source=f"{ex.source}+{kind}") if out else None
