"""A command read from a one-sentence question about how to do it is declined saying why; a command is left alone."""

from __future__ import annotations

import pytest

from globalgen_ros.grounding.questions import asks_how, weighs_options
from globalgen_ros.schema import load_schema
from globalgen_ros.serving.checks import check_answer
from globalgen_ros.watchdog.supervisor import CLOUD, EDGE, OK, Outcome

SCHEMA = load_schema()


@pytest.mark.parametrize("text, how", [
    ("How do I make the robot go to the garage?", "How do I"),  # test sets 11 and 25: robot_go_to acted on
    ("um, robot, how can we get you to fetch the remote", "how can we"),
    ("What happens if I tell it to go to the kitchen?", "What happens if"),
    ("怎么才能让车窗自己关上？", "怎么才能"),
    ("请问怎么让机器人去厨房", "怎么让"),
])
def test_a_one_sentence_question_about_how_is_found(text, how):
    assert asks_how(text) == how


@pytest.mark.parametrize("text", [
    "go to the garage", "how do I close these, close all the windows",  # a command follows the question
    "uh how do you say it, Schiphol, the airport, take me there", "could you go to the garage?",
    "怎么还不走，去厨房", "把车窗关上",
])
def test_a_command_or_a_question_followed_by_one_is_not_a_how_question(text):
    assert asks_how(text) == ""


@pytest.mark.parametrize("source", [EDGE, CLOUD])
def test_a_command_read_from_a_how_question_is_declined_saying_why(source):
    outcome = Outcome(OK, source, "Okay.", "en-US", intent="robot_go_to", slots={"location": "the garage"})
    checked = check_answer(outcome, "How do I make the robot go to the garage?", SCHEMA)
    assert checked.intent == "none" and checked.slots == {} and "question about how" in checked.text
    assert any("read from a question" in n for n in checked.notes)
    zh = Outcome(OK, source, "好的。", "zh-CN", intent="window", slots={"action": "close"})
    assert "怎么做" in check_answer(zh, "怎么才能让车窗自己关上？", SCHEMA).text


def test_a_stop_is_never_declined_as_a_question():
    stop = Outcome(OK, EDGE, "Stopping.", "en-US", intent="stop", slots={})
    assert check_answer(stop, "how do I stop it?", SCHEMA).intent == "stop"


@pytest.mark.parametrize("text, options", [
    ("这个花盆放在窗台上还是阳台上好呢", "还是"),  # test set 47: robot_place acted on
    ("Should I call Mum now or later?", "Should I call Mum now or"), ("把花盆放到阳台上", ""),
    ("还是把花盆放到阳台上吧", ""), ("should I put it on the sill, or just leave it, put it on the sill", ""),
])
def test_a_choice_still_open_is_found_only_where_it_ends_the_utterance(text, options):
    assert weighs_options(text) == options


def test_a_command_read_from_a_choice_still_open_is_declined_saying_why():
    outcome = Outcome(OK, EDGE, "好的。", "zh-CN", intent="robot_place",
                      slots={"object": "这个花盆", "location": "窗台上"})
    checked = check_answer(outcome, "这个花盆放在窗台上还是阳台上好呢", SCHEMA)
    assert checked.intent == "none" and "还在选" in checked.text

