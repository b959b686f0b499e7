"""ASR-like noise for rendered user turns: fillers, politeness, slips, casing, punctuation; spoken numbers."""

from __future__ import annotations

import random

EN_PREFIX = ["um ", "uh ", "hey ", "okay ", "so ", "please ", "hey robot ", "ok car ", "excuse me, ", "hmm ",
             "alright ", "yeah ", "hey there, ", "now ", "quick, "]
EN_SUFFIX = [" please", " thanks", " now", " thank you", " for me", " okay", " if you can", " right away"]
EN_FILLERS = ["uh", "um", "like", "er"]
ZH_PREFIX = ["嗯，", "那个", "请", "麻烦", "小G，", "你好小G，", "呃", "哎，", "好，", "现在"]
ZH_SUFFIX = ["吧", "一下", "谢谢", "好吗", "啊", "呗", "哈", "，谢谢", "可以吗"]
ZH_FILLERS = ["呃", "嗯", "那个"]
ZH_HOMOPHONES = {"导航": "倒航", "空调": "空跳", "音量": "音亮", "温度": "问度", "播放": "波放", "打电话": "打店话",
                 "车窗": "车床", "座椅": "坐椅", "移动": "一动", "拿起": "那起"}

EN_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " \
          "seventeen eighteen nineteen".split()
EN_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
ZH_DIGITS = "零一二三四五六七八九"


def en_number(n: int) -> str:
    """Spell 0..99 the way English ASR often does ('twenty two')."""
    if n < 20:
        return EN_ONES[n]
    tens, ones = divmod(n, 10)
    return EN_TENS[tens] + ("" if ones == 0 else " " + EN_ONES[ones])


def zh_number(n: int) -> str:
    """Spell 0..99 in Chinese numerals ('二十二'); 2 is sometimes '两'."""
    if n == 2:
        return "两"
    if n < 10:
        return ZH_DIGITS[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else ZH_DIGITS[tens]) + "十" + ("" if ones == 0 else ZH_DIGITS[ones])


def slip_en(rng: random.Random, text: str, attached: bool = False) -> str:
    """Add one ASR-like slip; `attached`: text follows a slot value directly, so its first word stays put."""
    words = text.split(" ")
    idx = [i for i, w in enumerate(words) if w and not (attached and i == 0)]
    if not idx:
        return text
    r = rng.random()
    i = rng.choice(idx)
    if r < 0.08:
        words.insert(i, words[i])  # repeated word
    elif r < 0.18:
        words.insert(i, rng.choice(EN_FILLERS))
    elif r < 0.22 and words[i].lower() in ("the", "a", "to", "my"):
        words.pop(i)  # dropped function word
    return " ".join(words)


def slip_zh(rng: random.Random, text: str) -> str:
    if not text:
        return text
    r = rng.random()
    if r < 0.08:
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice(ZH_FILLERS) + text[i:]
    if r < 0.13:
        i = rng.randrange(len(text))
        return text[:i + 1] + text[i] + text[i + 1:]  # stutter
    if r < 0.20:
        for word, slip in ZH_HOMOPHONES.items():
            if word in text:
                return text.replace(word, slip, 1)
    return text


def add_noise(rng: random.Random, parts: list[str], lang: str, lower: bool = False) -> str:
    """Join literal parts (even indices) and slot surfaces (odd indices), adding noise to the literal parts."""
    parts = list(parts)
    for i in range(0, len(parts), 2):
        parts[i] = slip_en(rng, parts[i], attached=i > 0) if lang == "en" else slip_zh(rng, parts[i])
        if lower:
            parts[i] = parts[i].lower()
    if lang == "en":
        if rng.random() < 0.3:
            parts[0] = rng.choice(EN_PREFIX) + parts[0]
        if rng.random() < 0.25:
            parts[-1] = parts[-1] + rng.choice(EN_SUFFIX)
        text = " ".join("".join(parts).split())
        if not lower and rng.random() < 0.5:
            text = text[:1].upper() + text[1:]
        return text + rng.choice(["", "", "", ".", "?", "!"])
    if rng.random() < 0.3:
        parts[0] = rng.choice(ZH_PREFIX) + parts[0]
    if rng.random() < 0.25:
        parts[-1] = parts[-1] + rng.choice(ZH_SUFFIX)
    text = "".join(parts)
    if rng.random() < 0.15:  # code-switched values are sometimes spaced out by the ASR
        text = " ".join(text.split())
    return text.strip() + rng.choice(["", "", "", "。", "？", "！"])
