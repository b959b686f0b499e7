"""Deferral rules around the real Assistant (shipped model) and a real chat-completions server (no ROS)."""

from __future__ import annotations

import pytest
from cloud_server import ChatServer

from globalgen_ros.assistant import Assistant, InputError
from globalgen_ros.watchdog.breaker import CircuitBreaker
from globalgen_ros.watchdog.cloud import CloudClient, CloudConfig
from globalgen_ros.watchdog.language import APOLOGY
from globalgen_ros.watchdog.supervisor import (
    CLOUD,
    DEFERRED,
    EDGE,
    FALLBACK,
    OK,
    Deferral,
    Request,
    Turn,
    Watchdog,
    WatchdogConfig,
)

LONG_ZH = "我在想一件事情，" * 100 + "带我去中央车站"  # under 1000 characters, far over 256 tokens


@pytest.fixture(scope="module")
def assistant():
    return Assistant(strategy="parallel")


@pytest.fixture(scope="module")
def server():
    with ChatServer() as srv:
        srv.reply = {"intent": "navigate", "slots": {"destination": "中央车站"}, "reply": "好的，去中央车站。"}
        yield srv


def watchdog(assistant, server=None, **cfg) -> Watchdog:
    cloud = None
    if server is not None:
        cloud = CloudClient(CloudConfig(base_url=server.base_url, timeout_s=2.0, retries=0), CircuitBreaker(5, 60.0))
    return Watchdog(assistant, assistant.schema, cloud, WatchdogConfig(cloud_enabled=server is not None, **cfg))


def test_edge_answers_a_known_command(assistant):
    streamed = []
    outcome = watchdog(assistant).answer(Request("导航到西单大悦城", "zh-CN"), on_text=streamed.append)
    assert (outcome.status, outcome.source, outcome.intent) == (OK, EDGE, "navigate")
    assert outcome.tokens > 0 and outcome.raw and streamed and outcome.text.startswith(streamed[0][:2])


def test_long_prompt_is_deferred_before_decoding(assistant, server):
    wd = watchdog(assistant, server)
    result = wd.edge(Request(LONG_ZH, "zh-CN"))
    assert isinstance(result, Deferral) and "long context" in result.reason and "max_edge_tokens=256" in result.reason
    outcome = wd.defer(Request(LONG_ZH, "zh-CN"), result)
    assert (outcome.status, outcome.source, outcome.intent, outcome.slots) == (DEFERRED, CLOUD, "navigate",
                                                                              {"destination": "中央车站"})
    assert outcome.text == "好的，去中央车站。"


def test_long_history_is_deferred(assistant):
    history = [Turn("导航到西单大悦城" * 6, "好的" * 10, "<|intent|>navigate" + "好的" * 30)] * 4
    result = watchdog(assistant).edge(Request("打开空调", "zh-CN", history=history))
    assert isinstance(result, Deferral) and "long context" in result.reason


def test_text_beyond_the_edge_models_limit_is_deferred(assistant):
    result = watchdog(assistant).edge(Request("navigate " * 150, "en-US"))
    assert isinstance(result, Deferral) and "characters" in result.reason


def test_deadline_cancels_the_edge_decode(assistant, server):
    wd = watchdog(assistant, server, deadline_ms=1.0)
    outcome = wd.answer(Request("navigate to the central library and tell me how long it takes", "en-US"))
    assert outcome.status == DEFERRED and "deadline" in outcome.error


def test_low_confidence_is_deferred(assistant, server):
    req = Request("嗯那个就是说吧", "zh-CN")
    first = watchdog(assistant).answer(req)
    assert first.status == OK and 0.0 <= first.confidence <= 1.0
    above = watchdog(assistant, server, min_confidence=min(1.0, first.confidence + 1e-4)).edge(req)
    assert isinstance(above, Deferral) == (first.confidence < 1.0)
    if isinstance(above, Deferral):
        assert "low confidence" in above.reason
    below = watchdog(assistant, server, min_confidence=first.confidence / 2).edge(req)
    assert not isinstance(below, Deferral) and below.intent == first.intent


def test_without_cloud_a_deferral_is_a_fallback_in_the_users_language(assistant):
    outcome = watchdog(assistant).answer(Request(LONG_ZH, "zh-CN"))
    assert outcome.status == FALLBACK and outcome.text == APOLOGY["zh-CN"] and "cloud disabled" in outcome.error


def test_empty_text_is_an_input_error(assistant):
    with pytest.raises(InputError):
        watchdog(assistant).answer(Request("  ", "en-US"))
