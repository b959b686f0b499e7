"""Lengths said in other units than the slot's (五十公分, ten feet) and distances the model left untagged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_serving import en_number, zh_number

from globalgen_ros.grounding.units import lengths_said, said_in_unit, the_one_said
from globalgen_ros.schema import load_schema
from globalgen_ros.scoring import score
from globalgen_ros.serving.checks import check_answer
from globalgen_ros.watchdog.supervisor import EDGE, OK, Outcome

SCHEMA = load_schema()
# unit as said -> metres per unit (written out here so that the test does not use the code's own pint lookup)
ZH = {"厘米": 0.01, "公分": 0.01, "毫米": 0.001, "米": 1.0, "公里": 1000.0}
EN = {"centimeters": 0.01, "centimetres": 0.01, "cm": 0.01, "millimetres": 0.001, "metres": 1.0, "meters": 1.0,
      "feet": 0.3048, "inches": 0.0254, "km": 1000.0}


def move(distance: str | None, text: str = "Moving forward.") -> Outcome:
    slots = {"direction": "forward", **({"distance": distance} if distance is not None else {})}
    return Outcome(OK, EDGE, text, "en-US", intent="robot_move", slots=slots, confidence=0.9)


def metres(n: int, per: float) -> str:
    value = round(n * per, 6)
    return str(int(value)) if value == int(value) else f"{value:g}"


@settings(deadline=None)  # the first call builds pint's registry (half a second)
@given(st.integers(1, 99), st.sampled_from(sorted(ZH)), st.integers(1, 99))
def test_a_chinese_length_is_converted_to_metres(n, unit, gate):
    text = f"到{gate}号门那边，机器人往前挪{zh_number(n)}{unit}"
    checked = check_answer(move(str(n), f"好的，向前移动{n}米。"), text, SCHEMA)
    want = metres(n, ZH[unit])
    if float(want) <= 20:
        assert checked.slots == {"direction": "forward", "distance": want}
        assert (unit != "米") == any("was said in" in note for note in checked.notes)
    else:  # never clamped: the range check declines and says the range
        assert checked.intent == "none" and "20" in checked.text


@settings(deadline=None)
@given(st.integers(1, 99), st.sampled_from(sorted(EN)), st.sampled_from(["words", "digits"]), st.integers(1, 99))
def test_an_english_length_is_converted_to_metres(n, unit, form, gate):
    said = en_number(n) if form == "words" else str(n)
    text = f"at gate {gate} move forward {said} {unit}"
    checked = check_answer(move(str(n), f"Moving forward {n} metres."), text, SCHEMA)
    want = metres(n, EN[unit])
    if float(want) <= 20:
        assert checked.slots == {"direction": "forward", "distance": want} and want in checked.text
    else:
        assert checked.intent == "none"


@pytest.mark.parametrize("text, filled", [
    ("go forward a hundred meters", None),  # 100 m: out of range, declined instead of moving an unsaid distance
    ("move left a metre", "1"), ("后退五十公分", "0.5"), ("往前走一米五", "1.5"), ("往前走一百米", None),
    ("robot go forward a kilometre, go on", None), ("go forward a mile", None),  # test set 46: "a" is one
    ("move forward half a metre", "0.5")])
def test_a_distance_left_untagged_is_taken_from_the_words(text, filled):
    checked = check_answer(move(None), text, SCHEMA)
    if filled is None:
        assert checked.intent == "none" and "20" in checked.text
    else:
        assert checked.slots == {"direction": "forward", "distance": filled}
    assert any("was left out" in note for note in checked.notes)


@pytest.mark.parametrize("text", ["move forward a couple of feet", "move 3 in front of the door",
                                  "go forward 3 meters, not 30 centimeters", "Move forward a bit", "往前走两步"])
def test_no_single_length_said_leaves_the_slot_empty(text):
    assert the_one_said(text, "m") is None
    assert check_answer(move(None), text, SCHEMA).slots == {"direction": "forward"}


def test_an_article_is_one_only_before_a_length_unit():
    assert [(q.value, q.unit) for q in lengths_said("go forward a kilometre")] == [(1.0, "kilometer")]
    assert [(q.value, q.unit) for q in lengths_said("half an inch to the left")] == [(0.5, "inch")]
    assert lengths_said("drive up to a parking meter") == lengths_said("move forward a few metres") == []


def test_inches_need_the_word_not_in():
    assert [q.unit for q in lengths_said("move 3 inches in front")] == ["inch"]
    assert lengths_said("put 3 in the box") == []


def test_scoring_counts_a_converted_length_as_said():
    case = {"text": "后退五十公分", "intent": "robot_move", "slots": {"direction": "backward", "distance": "0.5"},
            "lang": "zh"}
    assert said_in_unit("0.5", case["text"], "m") and not said_in_unit("0.05", case["text"], "m")
    good = score([case], [{"intent": "robot_move", "slots": {"direction": "backward", "distance": "0.5"}}],
                 {"distance": "m"})
    bad = score([case], [{"intent": "robot_move", "slots": {"direction": "backward", "distance": "5"}}],
                {"distance": "m"})
    assert good["numbers_not_said"] == 0 and bad["numbers_not_said"] == 1
