"""Guess the user's language from the text, and the node's own short sentences in zh-CN and en-US."""

from __future__ import annotations

import re

ZH, EN = "zh-CN", "en-US"

APOLOGY = {
    ZH: "抱歉，我现在无法处理这个请求，请稍后再试。",
    EN: "Sorry, I can't handle that right now. Please try again later.",
}
STOPPING = {ZH: "好的，马上停下。", EN: "Stopping now."}
BUSY = {ZH: "抱歉，我正忙，请稍后再说一遍。", EN: "Sorry, I'm busy. Please say that again in a moment."}
NOT_UNDERSTOOD = {ZH: "抱歉，我没有听清。", EN: "Sorry, I didn't catch that."}
DECLINED = {ZH: "抱歉，这个我做不到。", EN: "Sorry, I can't do that."}
TOO_LONG = {ZH: "抱歉，这段话太长了，我处理不了，请分几次说。",
            EN: "Sorry, that was too long for me. Please say it in parts."}
CONFIRM = {ZH: "确定要这样做吗？请说“确认”或“取消”。", EN: "Shall I go ahead? Please say yes or no."}
CANCELLED = {ZH: "好的，已取消。", EN: "Okay, cancelled."}
NOTHING_TO_CONFIRM = {ZH: "现在没有需要确认的事。", EN: "There's nothing to confirm right now."}
OUT_OF_RANGE = {ZH: "抱歉，{label}只能设在{min}到{max}{unit}之间，您说的是{value}{unit}。",
                EN: "Sorry, {label} must be between {min} and {max} {unit}; you said {value}."}
MISSING = {ZH: "抱歉，我没听清{label}，请再说一遍。", EN: "Sorry, I didn't get {label}. Please say it again."}
FOR_LATER = {ZH: "抱歉，我只能马上执行，不能等到“{found}”再做。到时候请再跟我说一遍。",
             EN: "Sorry, I can only do things now, not \"{found}\". Please ask me again when it's time."}
ASKS_HOW = {ZH: "这听起来是在问怎么做，不是让我现在就做。需要的话，请直接吩咐我。",
            EN: "That sounds like a question about how to do it, not a request to do it now. Just ask if you want it."}
WEIGHS_OPTIONS = {ZH: "听起来您还在选，所以我先没有动。想好了请直接吩咐我。",
                  EN: "It sounds like you're still choosing, so I didn't act. Tell me when you've decided."}
FORBIDDEN = {ZH: "您说的是“{found}”，所以我没有动。如果是要我做，请直接吩咐我。",
             EN: "You said \"{found}\", so I didn't do it. If you do want it, just ask."}
TO_AN_ANIMAL = {ZH: "这句听起来是在跟“{found}”说话，所以我没有动。如果是跟我说的，请叫我一声再说一遍。",
                EN: "That sounded like it was for {found}, so I didn't act. "
                    "If it was for me, call me and say it again."}
TO_A_PERSON = {ZH: "这句听起来是在跟“{found}”说话，所以我没有动。如果是跟我说的，请叫我一声再说一遍。",
               EN: "That sounded like it was said to {found}, so I didn't act. "
                   "If it was for me, call me and say it again."}
NUMBER_UNCLEAR = {ZH: "抱歉，我没听清{label}是多少，请再说一遍。",
                  EN: "Sorry, I didn't get {label}. Please say it again."}


IDEOGRAPHS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs (extension A, unified, compatibility)
_IDEOGRAPH = re.compile(f"[{IDEOGRAPHS}]")


def is_ideograph(ch: str) -> bool:
    """Return True for a Chinese/Japanese ideograph."""
    return bool(_IDEOGRAPH.fullmatch(ch))


def is_cjk(ch: str) -> bool:
    """Return True for a Chinese/Japanese ideograph or CJK punctuation."""
    code = ord(ch)
    return (0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2A6DF
            or 0xF900 <= code <= 0xFAFF or 0x3000 <= code <= 0x303F or 0xFF00 <= code <= 0xFFEF)


def detect_language(text: str, default: str = EN) -> str:
    """Return zh-CN if the text has ideographs, en-US if it has Latin letters, zh-CN if it has only CJK
    punctuation, else `default` (the one language test of the package: node, assistant, corpus and eval)."""
    if _IDEOGRAPH.search(text):
        return ZH
    if any(ch.isascii() and ch.isalpha() for ch in text):
        return EN
    if any(is_cjk(ch) for ch in text):
        return ZH
    return default


def language_code(tag: str) -> str:
    """Map a BCP-47 tag to the short code of the corpus, tokenizer and templates: "zh" or "en"."""
    return "zh" if tag.lower().startswith("zh") else "en"


def base_language(tag: str) -> str:
    """Map a BCP-47 tag (zh, zh-TW, en-GB, ...) to the language we have sentences for."""
    return ZH if tag.lower().startswith("zh") else EN


def say(table: dict[str, str], language: str) -> str:
    """Return the sentence of `table` in the user's language."""
    return table[base_language(language)]
