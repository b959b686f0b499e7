"""Second path of the stop reflex: the shipped understanding model's own stop decision (no ROS traffic)."""

from __future__ import annotations

import pytest

from globalgen_ros.serving.reflex import StopReflex
from globalgen_ros.serving.stop_model import MAX_MODEL_STOP_CHARS, ModelStop
from globalgen_ros.understanding.predict import Understanding

MODEL = Understanding("models/default/nlu")
WORDS = StopReflex()


# "halt the vehicle immediately" was one until session 15 taught the word lists machine objects
@pytest.mark.parametrize("text", ["come to a halt immediately", "end all motion"])
def test_stops_the_word_lists_miss_are_caught_by_the_model(text):
    assert not WORDS.matches(text)
    assert ModelStop(MODEL, 0.9).is_stop(text)


@pytest.mark.parametrize("text", ["where is the emergency stop button", "play the song Stop by Sam Brown",
                                  "导航到停车场", "把温度调到二十二度"])
def test_questions_titles_and_commands_are_no_model_stops(text):
    assert not ModelStop(MODEL, 0.9).is_stop(text)


def test_the_path_is_off_without_a_model_or_with_threshold_zero_and_for_long_text():
    assert not ModelStop(None, 0.9).is_stop("end all motion")
    assert not ModelStop(MODEL, 0.0).is_stop("end all motion")
    assert not ModelStop(MODEL, 0.9).is_stop("cease all motion " + "x" * MAX_MODEL_STOP_CHARS)
    assert not ModelStop(MODEL, 0.9).is_stop("   ")


def test_the_worker_takes_the_stop_checks_prediction_instead_of_running_the_model_again():
    u = Understanding("models/default/nlu")
    text = "navigate to the central library"
    assert not ModelStop(u, 0.9).is_stop(text)
    kept = dict(u._recent)
    assert list(kept) == [text]
    assert u.predict(text) == kept[text] and not u._recent  # taken once, then forgotten
    assert u.predict(text)["intent"] == "navigate" and not u._recent  # without remember nothing is kept
