"""Find a command forbidden as it is said: "whatever you do, don't pick up the vase", 你千万别把那个花瓶拿起来,
不许把我的卡片捡走.

The words of a command are in it, and the model may read the command, but the speaker forbids it, so the answer is a
decline (serving/checks.py). Only the clause that holds the command's words counts, and only when it ends the
utterance: "别把杯子放桌上，放到水池里" and "don't play Adele, play Sia" go on with a command of their own. A word that
forbids must stand in that clause before the words of the command (a slot's text): 别, 不要, 不许 … as jieba's words
(别人 and 特别 are not 别), "don't", "do not", "never" …; "don't forget to" and 别忘了 ask for the action. Rule and
measurements: docs/model.md, session 36.
"""

from __future__ import annotations

import re

import jieba

jieba.setLogLevel(60)

ZH_FORBID = frozenset({"别", "不要", "不许", "不准", "甭", "千万别", "千万不要", "不用", "不必", "勿", "莫"})
ZH_ASKS_ANYWAY = re.compile(r"(?:别|不要)忘")  # 别忘了把伞带上: do it
EN_FORBID = re.compile(r"(?i)\b(?:don'?t|do not|never|mustn'?t|must not|you'?re not allowed to|no need to)\b"
                       r"(?! (?:forget|hesitate|worry|wait)\b)")
# A clause ends at punctuation, at a pause between Chinese words, or before a coordinator that chains requests.
_CLAUSE_END = re.compile(r"[，。！？；：,.!?;:]|(?<=[\u4e00-\u9fff])\s+|\s(?:and|but|then|so|instead)\s"
                         r"|不过|但是|然后|而是")
# What may follow the clause without being a command: particles, "please", "thanks".
_TAIL = re.compile(r"(?i)[\W_]|吧|啊|呀|哦|了|啦|嘛|哈|呢|please|ok(?:ay)?|thanks|thank you")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def forbids(text: str, words: str) -> str:
    """Return the word that forbids the command whose slot text is `words` in the last clause of `text`, or ""."""
    at = text.rfind(words) if words else -1
    if at < 0:
        return ""
    starts = [m.end() for m in _CLAUSE_END.finditer(text, 0, at)]
    begin = starts[-1] if starts else 0
    end = _CLAUSE_END.search(text, at + len(words))
    if end and _TAIL.sub("", text[end.start():]):
        return ""  # a clause follows with words of its own
    before = text[begin:at]
    if _CJK.search(before):
        if ZH_ASKS_ANYWAY.search(before):
            return ""
        return next((w for w in jieba.lcut(before, HMM=False) if w in ZH_FORBID), "")
    found = EN_FORBID.search(before)
    return found.group() if found else ""
