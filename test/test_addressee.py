"""A command said to an animal or a person is declined saying why; the machine named too, or a stop, is left alone."""

from __future__ import annotations

import pytest

from globalgen_ros.grounding.addressee import said_to_a_person, said_to_an_animal
from globalgen_ros.schema import load_schema
from globalgen_ros.serving.checks import check_answer
from globalgen_ros.watchdog.supervisor import EDGE, OK, Outcome

SCHEMA = load_schema()


@pytest.mark.parametrize("text, who", [
    ("bad dog, get off the sofa, go to your bed", "bad dog"),  # test set 39: robot_go_to acted on
    ("旺财！过来！往后退，别扒拉垃圾桶", "旺财"),  # test set 40: robot_move acted on
    ("喵喵，别挠沙发了，去你的猫抓板那儿", "喵喵"),
    ("小狗，往前走，快点快点", "小狗"),
    ("Kitty, get off the counter!", "Kitty"),
])
def test_an_opening_call_to_an_animal_is_found(text, who):
    assert said_to_an_animal(text) == who


@pytest.mark.parametrize("text", [
    "good dog, here's your treat. Robot, move forward three metres", "旺财，坐！好乖。机器人，往前走三米",
    "Good boy, now go to the kitchen.", "小白，去护士站", "go to the kitchen", "毛毛虫爬到窗户上了",
])
def test_the_machine_named_or_no_animal_called_is_left_to_the_model(text):
    assert said_to_an_animal(text) == ""


def test_a_command_to_an_animal_is_declined_saying_why_and_a_stop_is_not():
    go = Outcome(OK, EDGE, "好的。", "zh-CN", intent="robot_move", slots={"direction": "backward"})
    checked = check_answer(go, "大黄，别挡着路，往后退", SCHEMA)
    assert checked.intent == "none" and "大黄" in checked.text
    assert any("said to an animal" in n for n in checked.notes)
    stop = Outcome(OK, EDGE, "Stopping.", "en-US", intent="stop", slots={})
    assert check_answer(stop, "bad dog, stop!", SCHEMA).intent == "stop"


@pytest.mark.parametrize("text, who", [
    ("Mom, call grandpa", "Mom"),  # test set 5: call acted on
    ("Sweetie, turn the music down please, Daddy's on the phone.", "Sweetie"),  # test set 42
    ("小宝，把玩具放回箱子里，快点！", "小宝"), ("服务员，麻烦把毛巾拿过来", "服务员"),  # v42 on test sets 30 and 28
    ("Sir, would you like me to put your coat on the rack?", "Sir"),  # a waiter's offer (test set 36)
])
def test_an_opening_call_to_a_person_is_found(text, who):
    assert said_to_a_person(text) == who


@pytest.mark.parametrize("text", [
    "Kids, quiet. Car, pause the music", "Guys, quiet down, I'm trying to listen. Turn the volume down",
    "老公，你开车专心点。小助手，打给我姐", "爸，我来说——导航去科技馆", "mate, whack the aircon on would ya",
    "Honey, hold the door. Robot, pick up the heavy box.", "Kids, say hi to Grandma. Call Grandma",
    "call mum", "妈妈说把空调打开",
])
def test_another_sentence_the_machine_named_or_no_call_is_left_to_the_model(text):
    assert said_to_a_person(text) == ""


@pytest.mark.parametrize("text, who", [
    ("老周你倒一下车 后面还有一米多", "老周"), ("老张 往后退 往后退 再退一米 好", "老张"),  # test set 48: robot_move
    ("叉车师傅，往左倒一点", "叉车师傅"), ("王老师，把窗户关上", "王老师"), ("李姐你把空调开一下", "李姐"),
    ("小朋友，往后退一点，别挡着门", "小朋友"), ("老公你坐稳了，我们马上到医院", "老公"),
    ("阿仔，帮阿妈开下窗", "阿仔"),
])
def test_a_person_called_by_surname_or_trade_then_a_pause_or_you_is_found(text, who):
    assert said_to_a_person(text) == who


@pytest.mark.parametrize("text", [
    "老铁，给我导到万达广场", "老天，往前走", "阿西，后排的窗户开一点",  # what people also call a machine, a sigh
    "给张老师，哦不对，给班主任打电话", "哥你看我的：空调关掉！", "张师傅，机器人往前走两米",
    "师傅您去哪儿 首都机场T3是吧 好嘞 导航去首都机场T3航站楼", "收工，导航回家",
])
def test_a_sigh_a_call_made_for_someone_or_a_second_sentence_is_left_to_the_model(text):
    assert said_to_a_person(text) == ""


def test_a_command_to_a_person_is_declined_saying_why():
    call = Outcome(OK, EDGE, "Calling Grandpa.", "en-US", intent="call", slots={"contact": "grandpa"})
    checked = check_answer(call, "Mom, call grandpa", SCHEMA)
    assert checked.intent == "none" and "Mom" in checked.text
    assert any("said to a person" in n for n in checked.notes)
