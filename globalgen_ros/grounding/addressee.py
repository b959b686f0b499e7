"""Find speech to an animal or a person: an utterance that opens by calling a pet ("bad dog, get off the sofa, go to
your bed", 旺财！过来！往后退) or a person ("Mum, put your coat on the hook", 小宝，把玩具放回箱子里) and never
names the machine.

The words of a command are in it ("go to your bed", 往后退), but a dog or a cat is told, so the answer is a decline
that says so (serving/checks.py). The opening words are a short list of what people call animals in the blind sets'
two languages (pet words and the commonest Chinese pet names); 小白, "good boy" and names that people also give
robots are left to the model. A word for the machine anywhere ("good dog, here's your treat. Robot, move forward")
means the machine is spoken to as well. A person is called by a kin or role word (Mum, honey, kids, waiter; 老婆, 小宝,
服务员, 师傅), or in Chinese by a surname or a trade with what people call each other by (老周, 张师傅, 叉车师傅,
王老师), then a pause or 你 (老周你倒一下车); not by "mate", "buddy", 老铁 or a given name, which people also call
machines.
The call covers one sentence: "Kids, quiet. Car, pause the music" and "Guys, quiet down. Turn the volume down" go on
to the machine. Rules and measurements: docs/model.md, sessions 33 (animals), 34 and 36 (people).
"""

from __future__ import annotations

import re

EN_ANIMAL = re.compile(
    r"^[\W_]*(?P<who>(?:bad|good|naughty|silly) (?:dog|cat)|doggy|doggie|doggo|puppy|kitty)\b", re.IGNORECASE)
ZH_ANIMAL = re.compile(
    r"^[\W_]*(?P<who>小狗狗?|小猫咪?|狗狗|猫咪|喵喵|咪咪|旺财|狗子|大黄|豆豆|毛毛|球球|汪汪)[，,！!。\s]")
MACHINE = re.compile(r"(?i)\b(?:robot|robo|bot|car|assistant)\b|机器人|小车|车车|助手|小智")
EN_PERSON = re.compile(
    r"^[\W_]*(?P<who>honey|love|babe|sweetheart|sweetie|darling|mum|mom|mummy|mommy|dad|daddy|son|kids|guys|sir|madam|"
    r"ma'am|grandma|grandpa|nan|nana|gran|granny|waiter|driver)\s*[,!]", re.IGNORECASE)
ZH_PERSON = re.compile(
    r"^[\W_]*(?P<who>宝宝|宝贝|小宝|儿子|闺女|女儿|老婆|老公|媳妇|妈妈?|爸爸?|老妈|老爸|奶奶|爷爷|姥姥|姥爷|外婆|外公|师傅|"
    r"服务员|哥们|兄弟|姐姐?|哥哥?|弟弟|妹妹|孩子们?|亲爱的|小伙子|小朋友们?|同学们?|老师|阿姨|叔叔|大爷|大妈|"
    # a surname, or a name or a trade, with what people call each other by: 老周, 张师傅, 叉车师傅, 王老师, 李姐
    r"老(?![天家铁])[\u4e00-\u9fff]|(?![给跟和叫让找问请帮打])(?:[\u4e00-\u9fff]{1,2}师傅|"
    r"[\u4e00-\u9fff](?:老师|大夫|医生|护士|经理|主任|队长|班长|阿姨|大爷|大妈|叔|姐|哥|总))|阿仔)"
    r"(?:[，,！!]|\s+|(?=[你您]))")  # called, then a pause or "you": 老周你倒一下车; 老张 往后退
# A sentence ends at its punctuation, at a colon that introduces what is shown or quoted (哥你看我的：空调关掉！), and
# at a pause after a Chinese question (师傅您去哪儿 首都机场是吧 好嘞 导航去首都机场).
SENTENCE_END = re.compile(r"[.!?。！？…:：]+|——|--|(?:吗|呢|吧|哪儿|哪里|什么|怎么|谁)\s")


def said_to_an_animal(text: str) -> str:
    """Return the animal the utterance opens by calling, or "" (also when the machine is named too)."""
    found = EN_ANIMAL.search(text) or ZH_ANIMAL.search(text)
    if not found or MACHINE.search(text):
        return ""
    return found.group("who")


def said_to_a_person(text: str) -> str:
    """Return the person the utterance opens by calling, when one sentence follows and the machine is not named."""
    found = EN_PERSON.search(text) or ZH_PERSON.search(text)
    if not found or MACHINE.search(text) or SENTENCE_END.search(text[found.end():].rstrip(".!?。！？… ")):
        return ""
    return found.group("who")
