"""Stop-phrase matching of the safety reflex, session history and language detection (no ROS traffic)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from globalgen_ros.ros.params import DEFAULT_STOP_PHRASES
from globalgen_ros.ros.reflex import StopReflex
from globalgen_ros.ros.sessions import Sessions
from globalgen_ros.watchdog.language import detect_language
from globalgen_ros.watchdog.supervisor import Turn

REFLEX = StopReflex(DEFAULT_STOP_PHRASES)


@pytest.mark.parametrize("text", ["stop", "Stop!", "STOP STOP STOP", "stop, stop!", "please stop now", "freeze",
                                  "Emergency stop!", "halt right now", "停", "停！", "停停停", "停车", "快停车",
                                  "请马上停车！", "紧急停车", "别动", "停下吧", " 停 车 ", "Hit the brakes!",
                                  "don't move.", "立即停车啊", "停止一切动作", "快刹车", "stop the robot now"])
def test_stop_phrases_fire(text):
    assert REFLEX.matches(text)


@pytest.mark.parametrize("text", ["导航到停车场", "stop the music", "don't stop", "stop the navigation please",
                                  "bus stop", "别停", "停止导航", "帮我找个停车位", "", "   ", "!!!", "stopping",
                                  "stop " * 30, "don't move the box", "brake lights on", "刹车灯", "stop the song"])
def test_commands_containing_stop_words_go_to_the_model(text):
    assert not REFLEX.matches(text)


def test_phrases_are_configurable():
    reflex = StopReflex(["whoa"])
    assert reflex.matches("Whoa!") and not reflex.matches("stop")
    reflex.configure(["stop"])
    assert reflex.matches("stop") and not reflex.matches("whoa")


def test_fires_once_per_utterance():
    reflex = StopReflex(["stop"], remember=2)
    assert reflex.first_fire("u1") and not reflex.first_fire("u1")
    assert reflex.first_fire("u2") and reflex.first_fire("u3") and reflex.first_fire("u1")  # u1 forgotten


@given(st.text(max_size=200))
def test_any_text_is_handled(text):
    assert REFLEX.matches(text) in (True, False)


@pytest.mark.parametrize("text, language", [("导航到西单", "zh-CN"), ("navigate home", "en-US"), ("123 !", "en-US"),
                                            ("call 王伟", "zh-CN"), ("", "en-US")])
def test_detect_language(text, language):
    assert detect_language(text) == language


def test_session_history_grows_as_a_prefix_and_restarts_from_its_latest_half():
    """Between restarts each history extends the previous one, so the session's cached K/V stays reusable."""
    sessions = Sessions(max_turns=4, max_sessions=2, ttl_s=10.0)
    lengths, prev = [], []
    for i in range(9):
        sessions.add("s", Turn(f"u{i}", f"r{i}"))
        hist = [t.user for t in sessions.history("s")]
        assert hist[-1] == f"u{i}" and len(hist) <= 4
        if len(hist) > len(prev):
            assert hist[:len(prev)] == prev  # extends: a prefix match for the cache
        lengths.append(len(hist))
        prev = hist
    assert lengths == [1, 2, 3, 4, 2, 3, 4, 2, 3]


def test_sessions_keep_recent_turns_and_forget_idle_ones():
    now = [0.0]
    sessions = Sessions(max_turns=2, max_sessions=2, ttl_s=10.0, clock=lambda: now[0])
    for i in range(3):
        sessions.add("a", Turn(f"u{i}", f"r{i}", f"raw{i}"))
    assert [t.user for t in sessions.history("a")] == ["u2"]  # over 2: restarted from the latest half
    sessions.add("a", Turn("u3", "r3"))
    assert [t.user for t in sessions.history("a")] == ["u2", "u3"]
    assert sessions.history("") == [] and sessions.history("never-seen") == []
    sessions.add("b", Turn("x", "y"))
    sessions.add("c", Turn("x", "y"))  # a is the least recently used: forgotten
    assert sessions.history("a") == [] and len(sessions) == 2
    now[0] = 11.0
    assert sessions.history("b") == [] and len(sessions) == 0
