"""A command forbidden in the clause that says it is declined saying why; one that a command follows is left alone."""

from __future__ import annotations

import pytest

from globalgen_ros.grounding.prohibition import forbids
from globalgen_ros.schema import load_schema
from globalgen_ros.serving.checks import check_answer
from globalgen_ros.watchdog.supervisor import CLOUD, EDGE, OK, Outcome

SCHEMA = load_schema()


@pytest.mark.parametrize("text, words, word", [
    ("你千万别把那个花瓶拿起来", "那个花瓶", "千万别"),  # test set 25: robot_pick acted on
    ("不许把我的奥特曼卡片捡走", "我的奥特曼卡片", "不许"),  # test set 32: robot_pick acted on
    ("whatever you do, don't pick up the vase", "the vase", "don't"),
    ("Never call my ex again, okay?", "my ex", "Never"),
    ("你不要去厨房啊", "厨房", "不要"),
])
def test_a_word_that_forbids_before_the_command_is_found(text, words, word):
    assert forbids(text, words) == word


@pytest.mark.parametrize("text, words", [
    ("别把杯子放桌上，放到水池里", "水池里"), ("别把杯子放桌上，放到水池里", "杯子"),  # a command follows
    ("don't play Adele, play Sia", "Sia"), ("don't play Adele, play Sia", "Adele"),
    ("don't forget to call Mom", "Mom"), ("别忘了给妈妈打电话", "妈妈"),  # asked for, not forbidden
    ("别的先不管，导航去公司", "公司"), ("特别想去故宫，导航去故宫吧", "故宫"),  # 别的, 特别 are other words
    ("把那个花瓶拿起来", "那个花瓶"), ("pick up the vase", "the vase"), ("别急 我找找 把钥匙拿过来", "钥匙"),
])
def test_a_command_not_forbidden_in_its_own_clause_is_left_alone(text, words):
    assert forbids(text, words) == ""


@pytest.mark.parametrize("source", [EDGE, CLOUD])
def test_a_forbidden_command_is_declined_saying_why(source):
    zh = Outcome(OK, source, "好的，正在拿起那个花瓶。", "zh-CN", intent="robot_pick", slots={"object": "那个花瓶"})
    checked = check_answer(zh, "你千万别把那个花瓶拿起来", SCHEMA)
    assert checked.intent == "none" and checked.slots == {} and "千万别" in checked.text
    assert any("forbidden as it is said" in n for n in checked.notes)
    en = Outcome(OK, source, "Okay.", "en-US", intent="robot_pick", slots={"object": "the vase"})
    assert "didn't do it" in check_answer(en, "whatever you do, don't pick up the vase", SCHEMA).text


def test_a_command_after_a_forbidden_one_is_acted_on():
    outcome = Outcome(OK, EDGE, "好的，把杯子放到水池里。", "zh-CN", intent="robot_place",
                      slots={"object": "杯子", "location": "水池里"})
    assert check_answer(outcome, "别把杯子放桌上，放到水池里", SCHEMA).intent == "robot_place"
