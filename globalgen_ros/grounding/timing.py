"""Find a request for later: an utterance that opens with a condition or a later time and says nothing of now.

"In ten minutes, set the temperature to 20", "later on, move forward a metre", "一会儿孩子上车了把座椅加热打开",
"要是前面还堵，就导航去东门", "at closing time, go back to the dock", 打烊以后把桌子收了, "before we leave, open the
windows", 到家之前把座椅加热打开: the command is clear, but not for now, and the node schedules nothing, so the
answer is a decline that says why (serving/checks.py). Not for later: a condition that is politeness ("if you don't
mind, open the window", 要是不麻烦的话), a past time ("when I was a kid…", "after the concert last night…"), "before
I forget" (that is now), a condition already met ("once you've got the mug, oh you already have it"), or any word
for now or first ("…, but for now set it to 19", 明天的事明天再说，现在导航去国贸). A day that opens a statement
of its own and a pause ("tomorrow's the parents evening, today take me to Halfords", 明天装修师傅要来，把工具箱拿起来)
is context: the rest is read again.
The opening is read after fillers and a vocative ("um, robot, later…"). Rule and measurements: docs/model.md,
sessions 31-34.
"""

from __future__ import annotations

import re

OPENING = (r"^[\W_]*(?:(?:um+|uh+|er+|erm|hmm+|so|okay|ok|oh|well|right|hey|robot|car|嗯|呃|额|那个|哦|好|那|机器人)"
         r"(?![\w\u4e00-\u9fff])[\W_]*)*")
_NUMBER = r"(?:a|an|one|two|three|four|five|ten|fifteen|twenty|thirty|forty|a few|a couple of|\d+)"
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
EN_LATER = re.compile(
    OPENING + r"(?P<when>later|tomorrow|if|unless|in case|when|whenever|once(?! more| again)|as soon as|first thing|"
    r"after (?:i|we|you|he|she|they|it)\b|"
    rf"in {_NUMBER} (?:minutes?|mins?|hours?|seconds?|secs?)|"
    r"at (?:\d|noon|midnight|half past|quarter (?:past|to)|\w+ o'?clock|(?:closing|opening|lunch|dinner|tea|bed|"
    r"break|home) ?time|the end of (?:the|my|your|our) (?:day|shift|service)|dawn|dusk|sunrise|sunset)|"
    r"(?:after|by) (?:closing|lunch|dinner|bedtime)|"
    r"before (?!i forget\b|it'?s too late\b)(?:i|we|you|he|she|they|it|the|my|our|your|bed|bedtime|lunch|dinner|"
    r"closing)\b|"
    rf"next (?:week|time|month|{_WEEKDAY})|on {_WEEKDAY})\b", re.IGNORECASE)
_ZH_NUMBER = r"[一二三四五六七八九十两几\d]+"
ZH_LATER = re.compile(
    OPENING + r"(?P<when>如果|要是|假如|假设|万一|等(?!一下|一等|等|不了|着)|待会|一会儿?|回头|到时候|"
    r"明天|明早|今晚|后天|下次|(?:下班|打烊|关门|收工|收摊|睡觉|吃完饭|散场|放学)(?:的时候|以后|之后|后)|"
    r"(?:下班|打烊|关门|收工|收摊|睡觉|睡|吃饭|出门|下车|上车|到家|回家|进门|开会|临走|走之|散场|放学)(?:前|之前|以前)|"
    rf"过(?:一会儿?|{_ZH_NUMBER}(?:分钟|小时))|{_ZH_NUMBER}(?:分钟|小时)(?:后|以后|之后)|"
    r"[^，,。！？!?…\s]{1,12}?(?:的时候|以后|之后)(?=[，,…\s])|"  # 客人来的时候，… : a when-clause, then a pause
    rf"(?:(?:(?:今天|明天|今晚)?(?:上午|下午|晚上|早上|中午|傍晚|凌晨)?{_ZH_NUMBER}点(?:半|钟|{_ZH_NUMBER}分?)?|"
    r"下个?(?:礼拜|星期|周)[一二三四五六日天末]?|(?:今天|今儿)(?:上午|下午|晚上|傍晚))(?![的前要了过有在之以])))")
    # 下午三点你去阳台一趟, 下礼拜去泉州: a clock time or a day first; not 三点前到, 两点的会, 三点有个会
NOW = re.compile(r"(?i)\b(?:now|right away|straight away|immediately|first|already)\b|现在|先|马上|立刻|立即|赶紧|已经")
POLITE = re.compile(
    r"(?i)\b(?:if (?:it'?s|it is|that'?s) (?:no|not too much|not a|okay|ok|alright|all right|fine)|"
    r"if you(?: (?:don'?t|do not|wouldn'?t|would not) mind|'d|'ll| could| would| can| will| please| like| want)\b|"
    r"if possible|(?:when|if) you (?:get|have) a|(?:when|whenever) you(?:'re| are)? (?:like|want|wish|ready|can))|"
    r"不麻烦|方便的话|可以的话|行的话")
PAST = re.compile(r"(?i)\b(?:when|after|once|if) (?:i|we|he|she|they|my|our)(?: \w+)? (?:was|were|had|left|got|did)\b|"
                  r"\blast (?:night|week|time|year)\b|\byesterday\b|\bago\b|昨天|上次|刚才")

_DAY = rf"(?:tomorrow(?: morning| night| evening| afternoon)?|next (?:week|month|{_WEEKDAY})|on {_WEEKDAY})"
# "tomorrow's the …", "Tomorrow I'll be the passenger, …", "next week there's …": a statement, then a pause
EN_CONTEXT = re.compile(
    OPENING + _DAY + r"(?:'s|'ll be| is| will be| we(?:'ve| have)(?: got)?| i(?:'ve| have)(?: got)?| there'?s|"
    r" there is| there will be| (?:i|we|you|he|she|it|they)(?:'ll|'m|'re|'s| will| am| are| is))\b"
    r"[^,.;:!?…]*[,.;:!?…]+",
    re.IGNORECASE)
# 明天装修师傅要来，… / 明天要搬家，… / 明天起得早，…: the day's first clause says something of its own (a modal, a
# copula or an aspect word), then a pause; not with a time of day (明天早上七点要出发，…: the plan has its hour), a
# condition (明天要是…), a question (明天要下雨吗，…) or a command verb of its own
ZH_CONTEXT = re.compile(OPENING + r"(?:明天|明早|后天|下(?:个)?(?:礼拜|星期|周)[一二三四五六日天末]?)"
                        r"(?![^，,。！？…]*?(?:导航|打给|打电话|播放|放点|放首|调到|调成|打开|关掉|关上|帮我|给我|叫我|带我|把))"
                        r"(?![^，,。！？…]*?(?:要是|如果|的话|早上|上午|下午|中午|晚上|傍晚|凌晨|一早|点))"
                        r"[^，,。！？…]{0,10}?(?:要|得|会|(?<![要若如还就不可但只总倒于凡])是|有|起|没|不|了|过|放假|生日|考试|出差)"
                        r"[^，,。！？…]*(?<![吗呢么])[，,。！？…]+")

# "if you were a car you'd be a Skoda, close all the windows": a counterfactual with its own consequence, then a pause
COUNTERFACTUAL = re.compile(OPENING + r"if (?:i|you|we|he|she|it|they|this|that) were\b[^,.;:!?…]*?"
                            r"(?:'d|\bwould)\b[^,.;:!?…]*[,.;:!?…]+", re.IGNORECASE)


TODAY = re.compile(r"(?i)^(?:today|tonight|this (?:morning|afternoon|evening))$|^(?:今天|今晚|今儿)")


def for_later(text: str, after_day: bool = False) -> str:
    """Return the condition or later time `text` opens with, or "" when the request may be for now."""
    context = EN_CONTEXT.match(text) or ZH_CONTEXT.match(text)
    if context and text[context.end():].strip():
        return for_later(text[context.end():], after_day=True)  # T6: the day was context for what follows
    supposed = COUNTERFACTUAL.match(text)
    if supposed and text[supposed.end():].strip():
        return for_later(text[supposed.end():])  # a supposition said for its own sake conditions nothing after it
    found = EN_LATER.search(text) or ZH_LATER.search(text)
    if not found or NOW.search(text) or POLITE.search(text) or PAST.search(text):
        return ""
    if after_day and TODAY.match(found.group("when")):
        return ""  # 明天要开会，今晚想放松一下，放点轻音乐: today, after a sentence about tomorrow, is now
    return found.group("when")
