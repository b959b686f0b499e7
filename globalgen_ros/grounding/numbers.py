"""Numbers an utterance says, in digits or in words, parsed by the ecosystem's libraries.

Chinese numerals (二十四, 两百, 二十二点五) are read by `cn2an`, English number words (twenty-one, forty five) by
`text2num`; both turn them into digits inside the sentence, and the digits are then collected in order. Measures
that neither library reads as one number are joined after them: 一米五 / 两米半 / 二十二度五 (1.5 m, 2.5 m,
22.5 °C), "one and a half", "half a metre", "a metre"; "twenty-ish" is twenty, as "about twenty" is. A number
below zero keeps its sign (零下三十度, "minus five": -30, -5), so "三十" of 零下三十 is not 30. A number slot may only
hold one of these: "never a number not said".

cn2an writes every 一 as 1, also where 一 is no quantity: 一样, 一直, 一下, 一起 ("the same", "straight on", "a bit",
"together"). jieba's dictionary says which words these are (its part of speech is not a numeral's, a noun's, a
time's or a measure's: 一楼 and 星期一 do say a number), and a few numeral-tagged words that count nothing (一下, 一点,
一起, 一些 …) are named here; their 一 is kept from cn2an, so "跟新闻里那个一样" says no 1. A numeral next to the word
keeps it a number (一点 五度 is 1.5, 二十 一度 is 21).
"""

from __future__ import annotations

import re
import warnings

import jieba
import jieba.posseg
from text_to_num import alpha2digit

with warnings.catch_warnings():  # cn2an's dependency `proces` warns on import about its own regex tables
    warnings.simplefilter("ignore")
    import cn2an

jieba.setLogLevel(60)
_WORD_TAGS = jieba.posseg.dt.word_tag_tab  # jieba's part of speech per dictionary word: "m" numeral, "mq" + measure
# Numeral-tagged words that count nothing: "a bit", "a while", "together", "some", "all", "all the way".
_COUNTS_NOTHING = frozenset({"一下", "一下子", "一点", "一点儿", "一点点", "一起", "一些", "一会", "一会儿", "一阵",
                             "一阵子", "一切", "一路"})
_COUNTING_TAGS = ("m", "n", "t", "q")  # numerals, nouns (一楼, 一号线), times (星期一), measures: a number is said
_ZH_NUMERAL = "零〇一二三四五六七八九十百千万亿两点"
_KEPT_ONE = "\ue000"  # stands in for a 一 that is no quantity while cn2an reads the rest
_DIGITS = re.compile(r"(?:(?<![A-Za-z0-9.])-)?(?<![\d.])\d+(?:\.\d+)?(?![\d])")  # "-5": a sign, not "t-20", "5-10"
# Below zero, said: 零下三十度 (read as 负三十 by cn2an), "minus five", "negative 5" (written "-5" before parsing).
_ZH_BELOW_ZERO = re.compile(r"零下")
_EN_MINUS = re.compile(r"(?i)\b(?:minus|negative)\s+(?=\d)")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
# Measures, read after the libraries have written the numerals as digits (1米5, 2米半, 1 and a half).
_ZH_TENTHS = re.compile(r"(\d+)([米度])([1-9])(?![\d.米度分秒个号次天年月岁块元])")  # 1米5 -> 1.5米, not 22度5分钟
_ZH_HALF = re.compile(r"(\d+)([米度])半")  # 2米半 -> 2.5米
_EN_UNIT = r"(metres?|meters?|degrees?)"
_EN_AND_A_HALF = re.compile(r"(?i)\b(\d+) and a half\b")  # 1 and a half -> 1.5
_EN_UNIT_AND_A_HALF = re.compile(rf"(?i)\ban? {_EN_UNIT} and a half\b")  # a metre and a half -> 1.5 metre
_EN_HALF_A_UNIT = re.compile(rf"(?i)\bhalf an? {_EN_UNIT}")  # half a metre -> 0.5 metre
_EN_A_METRE = re.compile(r"(?i)\ba (metre|meter)\b")  # a metre -> 1 metre
_EN_ISH = re.compile(  # "twenty-ish", "nineteenish", "20-ish" -> the number, as "about twenty" is
    r"(?i)\b((?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|four|five|six|seven|"
    r"eight|nine))?|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|\d+)-?ish\b")


def to_digits(text: str) -> str:
    """Return `text` with its Chinese and English number words written as digits."""
    out = _ZH_BELOW_ZERO.sub("负", text)
    if _CJK.search(out):
        out = _keep_lexical_ones(out)
        try:
            out = cn2an.transform(out, "cn2an")
        except (ValueError, KeyError, IndexError):  # cn2an refuses some mixtures; the digits stay as they are
            pass
        out = out.replace(_KEPT_ONE, "一")
    if re.search(r"[A-Za-z]", out):
        out = _EN_ISH.sub(r"\1", out)
        try:
            out = alpha2digit(out, "en", threshold=0)
        except (ValueError, RuntimeError):
            pass
    return measures(_EN_MINUS.sub("-", out))


def _keep_lexical_ones(text: str) -> str:
    """Return `text` with the 一 of words that are no quantity (一样, 一直, 一下) hidden from cn2an."""
    if "一" not in text:
        return text
    words = jieba.lcut(text, HMM=False)
    for i, word in enumerate(words):
        if "一" not in word or len(word) < 2:
            continue
        before = words[i - 1][-1:] if i else ""
        after = words[i + 1][:1] if i + 1 < len(words) else ""
        if before and before in _ZH_NUMERAL or after and after in _ZH_NUMERAL:  # 二十 一度, 一点 五度
            continue
        if word in _COUNTS_NOTHING or not _WORD_TAGS.get(word, "m").startswith(_COUNTING_TAGS):
            words[i] = word.replace("一", _KEPT_ONE)
    return "".join(words)


def measures(text: str) -> str:
    """Return `text` (numerals already in digits) with spoken measures as one number: 1米5 -> 1.5米."""
    text = _ZH_HALF.sub(r"\1.5\2", _ZH_TENTHS.sub(r"\1.\3\2", text))
    text = _EN_UNIT_AND_A_HALF.sub(r"1.5 \1", _EN_AND_A_HALF.sub(r"\1.5", text))
    return _EN_A_METRE.sub(r"1 \1", _EN_HALF_A_UNIT.sub(r"0.5 \1", text))


def canonical(number: str) -> str:
    """Return a number as the schema writes it: "45", "22.5" (no trailing zeros, no leading zeros)."""
    value = float(number)
    return str(int(value)) if value == int(value) else f"{value:g}"


def numbers_said(text: str) -> list[str]:
    """Return every number the utterance says, in order, canonical ("把温度调到四十五度" -> ["45"])."""
    return [canonical(m.group()) for m in _DIGITS.finditer(to_digits(text))]


def is_said(value: str, text: str) -> bool:
    """Return True if the number `value` is one the utterance says."""
    try:
        return canonical(value) in numbers_said(text)
    except ValueError:
        return False


# A self-correction after a number: "17, no, make that 22", "二十六 不 二十四度", "set it to 20 I mean 21".
CORRECTION = re.compile(r"(?i)\b(?:no|nope|sorry|i mean|make (?:that|it)|actually|wait|rather|correction|scratch that)"
                        r"\b|不对|(?<!是)不是|不要|哦不|我是说|改成|应该是|算了|[，,\s]不[，,\s]")  # 是不是 asks


# A number rejected as it is said: "move right 3 metres, not 30", "调到二十四度而不是二十六度". A bare 不是 before a
# number is a self-correction as often ("二十五呃不是二十三": 23), so it stays one (CORRECTION).
REJECTED = re.compile(r"(?i)(?:\bnot|\binstead of|\brather than|而不是)[\s,，]*$")


def corrected(value: str, text: str) -> str:
    """Return the number the speaker settled on: `value`, the last number said after a self-correction that
    follows it ("set it to 17, no, make that 22" -> "22"), or the number said before it when it is rejected as it
    is said ("move right 3 metres, not 30" -> "3")."""
    digits = to_digits(text)
    try:
        target = canonical(value)
    except ValueError:
        return value
    found = [m for m in _DIGITS.finditer(digits) if canonical(m.group()) == target]
    if not found:
        return value
    before = digits[:found[-1].start()]
    if REJECTED.search(before):
        earlier = [canonical(m.group()) for m in _DIGITS.finditer(before)]
        if earlier:
            return earlier[-1]
    after = digits[found[-1].end():]
    marker = CORRECTION.search(after)
    if marker is None:
        return target
    later = [canonical(m.group()) for m in _DIGITS.finditer(after[marker.end():])]
    return later[-1] if later else target

