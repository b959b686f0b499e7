"""Find speech to an animal: an utterance that opens by calling a pet ("bad dog, get off the sofa, go to your bed",
旺财！过来！往后退) and never names the machine.

The words of a command are in it ("go to your bed", 往后退), but a dog or a cat is told, so the answer is a decline
that says so (serving/checks.py). The opening words are a short list of what people call animals in the blind sets'
two languages (pet words and the commonest Chinese pet names); 小白, "good boy" and names that people also give
robots are left to the model. A word for the machine anywhere ("good dog, here's your treat. Robot, move forward")
means the machine is spoken to as well. Rule and measurements: docs/model.md, session 33.
"""

from __future__ import annotations

import re

EN_ANIMAL = re.compile(
    r"^[\W_]*(?P<who>(?:bad|good|naughty|silly) (?:dog|cat)|doggy|doggie|doggo|puppy|kitty)\b", re.IGNORECASE)
ZH_ANIMAL = re.compile(
    r"^[\W_]*(?P<who>小狗狗?|小猫咪?|狗狗|猫咪|喵喵|咪咪|旺财|狗子|大黄|豆豆|毛毛|球球|汪汪)[，,！!。\s]")
MACHINE = re.compile(r"(?i)\b(?:robot|robo|bot|car)\b|机器人|小车|车车")


def said_to_an_animal(text: str) -> str:
    """Return the animal the utterance opens by calling, or "" (also when the machine is named too)."""
    found = EN_ANIMAL.search(text) or ZH_ANIMAL.search(text)
    if not found or MACHINE.search(text):
        return ""
    return found.group("who")
