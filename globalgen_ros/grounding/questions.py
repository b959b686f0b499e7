"""Find a question about how to do something: "How do I make the robot go to the garage?", 怎么才能让车窗自己关上？

The words of a command are in it, but it asks how, not for the action now, so the answer is a decline that says
so (serving/checks.py). Only a single sentence counts: "how do I close these, close all the windows" goes on with a
command, and "how do you say it, Schiphol, take me there" asks the speaker's own question. Rule and measurements:
docs/model.md, session 33.
"""

from __future__ import annotations

import re

from globalgen_ros.grounding.timing import OPENING

EN_HOW = re.compile(OPENING + r"(?P<how>how (?:do|can|could|should|would) (?:i|we|one)|how to|what happens if)\b",
                    re.IGNORECASE)
ZH_HOW = re.compile(r"^[\W_]*(?:请问)?[\W_]*(?P<how>(?:怎么|如何|咋)(?:样才能|才能|让|使))")
_SENTENCES = re.compile(r"[,.;:!?，。；：！？…]+")


def asks_how(text: str) -> str:
    """Return the opening of a one-sentence question about how to do something, or ""."""
    found = EN_HOW.search(text) or ZH_HOW.search(text)
    if not found or len([s for s in _SENTENCES.split(text[found.end():]) if s.strip()]) > 1:
        return ""
    return found.group("how")


# "这个花盆放在窗台上还是阳台上好呢", "should we put it on the sill or the balcony?": the speaker weighs options aloud
ZH_OPTIONS = re.compile(r"(?P<options>还是)[^，,。；！？!?…]*?呢[？?。…]*\s*$")
EN_OPTIONS = re.compile(OPENING + r"(?P<options>(?:should|shall) (?:i|we)\b[^,.;!?]*\bor\b)[^,.;!?]*\?\s*$",
                        re.IGNORECASE)


def weighs_options(text: str) -> str:
    """Return the word that sets out a choice in a question that ends the utterance ("…还是阳台上好呢"), or ""."""
    found = ZH_OPTIONS.search(text) or EN_OPTIONS.search(text)
    return found.group("options") if found else ""
