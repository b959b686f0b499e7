"""First-clause reading: a declined utterance whose first clause is a command for now (understanding/clauses.py)."""

from __future__ import annotations

import pytest
from model_fixtures import DEFAULT_MODEL

from globalgen_ros.schema import load_schema
from globalgen_ros.serving.confirm import Confirmations
from globalgen_ros.understanding.clauses import first_clause
from globalgen_ros.watchdog.supervisor import EDGE, OK, Outcome


@pytest.mark.parametrize("text, clause", [
    ("take me to the airport, and if there's traffic, tell me", "take me to the airport"),
    ("play some jazz now and switch to rock when we hit the highway", "play some jazz now"),
    ("先导航去公司，到了再给老王打电话", "先导航去公司"),
    ("把空调打开 等会儿上高速再把窗户关上", "把空调打开"),  # a pause written as a space
    ("打开 空调 等 会儿 上 高速 再 把 窗户 关上", None),  # a space between every word (vosk): no pauses
    ("take me to the airport", None),  # one clause: the model's reading of the whole stands
    ("if it rains, close the windows", None),  # the first clause is a condition
    ("明天早上，导航去机场", None),  # a later time
    ("call Dad, actually, never mind", None),  # a withdrawal anywhere
    ("导航去机场，哦不对，不去了", None),
    ("can you open the window, it's hot?", None),  # a question
    ("Tom, pick up your toys", "Tom"),  # the first clause is read: a name alone is no command
])
def test_the_first_clause_is_read_only_when_nothing_withdraws_or_defers_it(text, clause):
    span = first_clause(text)
    assert (text[span[0]:span[1]] if span else None) == clause


@pytest.fixture(scope="module")
def nlu():
    from globalgen_ros.understanding.predict import Understanding

    return Understanding(DEFAULT_MODEL / "nlu")


@pytest.mark.parametrize("text, intent, slots, clause", [
    # the shipped model (v35s) declines each whole utterance and reads its first clause as the command
    ("take me to the airport, and if there's traffic, tell me", "navigate", {"destination": "the airport"},
     "take me to the airport"),
    ("先导航去公司，到了再给老王打电话", "navigate", {"destination": "公司"}, "先导航去公司"),
    ("go to the laundry room now and later fold the towels", "robot_go_to", {"location": "laundry room"},
     "go to the laundry room now"),
    ("if it rains, close the windows", "none", {}, None),
    ("Tom, pick up your toys", "none", {}, None),
])
def test_a_declined_chain_is_answered_by_its_first_clause(nlu, text, intent, slots, clause):
    out = nlu.predict(text)
    assert (out["intent"], out["slots"], out.get("clause")) == (intent, slots, clause)
    for name, (a, b) in out["spans"].items():
        assert text[a:b] == out["slots"][name]  # spans are offsets into the whole utterance


def test_motion_read_from_a_first_clause_is_asked_first():
    confirm = Confirmations(load_schema(), words={})
    sure = Outcome(OK, EDGE, "", "en-US", intent="robot_go_to", slots={"location": "the laundry room"},
                   confidence=0.99)
    assert not confirm.needs_asking(sure)
    assert confirm.needs_asking(Outcome(**{**sure.__dict__, "clause": "go to the laundry room now"}))
    music = Outcome(OK, EDGE, "", "en-US", intent="play_music", slots={"query": "jazz"}, confidence=0.99,
                    clause="play some jazz now")
    assert not confirm.needs_asking(music)  # not motion: acted on
