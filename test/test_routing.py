"""The routing table of README.md ("What the node does with each utterance") over real DDS, one globalgen_node per
cloud state (enabled towards a real chat-completions server on 127.0.0.1, disabled, enabled but dead).
"""

from __future__ import annotations

import pytest
from cloud_server import ChatServer, closed_port_url
from node_fixtures import Session, running_node

from globalgen_ros.msg import Response
from globalgen_ros.watchdog.language import APOLOGY, STOPPING, TOO_LONG

CLOUD_ANSWER = {"intent": "none", "slots": {}, "reply": "Paris is the capital of France."}
DICTATION = "Please summarise what I am about to say for the meeting notes. " + "We talked about budgets. " * 250
OK, DEFERRED, FALLBACK, ERROR = (Response.STATUS_OK, Response.STATUS_DEFERRED_TO_CLOUD, Response.STATUS_FALLBACK,
                                 Response.STATUS_ERROR)


@pytest.fixture(scope="module")
def cloud():
    with ChatServer() as server:
        server.reply = CLOUD_ANSWER
        yield server


@pytest.fixture(scope="module", params=["enabled", "disabled", "dead"])
def node(request, cloud):
    url = closed_port_url() if request.param == "dead" else cloud.base_url
    with running_node(f"cloud.enabled:={'false' if request.param == 'disabled' else 'true'}",
                      f"cloud.base_url:={url}", "cloud.retries:=0", "cloud.timeout_s:=2.0",
                      "watchdog.deadline_ms:=10000.0", "confirm.timeout_s:=2.0") as session:
        session.cloud_state = request.param
        yield session


def answer(node: Session, text: str, **kw):
    """Send a final transcript; return its final Response and the ActionIntents published for it."""
    c = node.client
    uid, _ = c.send(text, **kw)
    final = c.wait_final(uid, 60.0)
    if final.status in (OK, DEFERRED):
        c.spin_until(lambda: uid in c.intents, 10.0, f"intent of {uid}")
    return final, [m for _, m in c.intents.get(uid, [])]


def test_in_schema_command_is_answered_on_the_edge(node):
    final, intents = answer(node, "导航到西单大悦城")
    assert (final.status, final.source, final.intent) == (OK, "edge", "navigate")
    assert [(i.name, i.slot_values) for i in intents] == [("navigate", ["西单大悦城"])]


def test_stop_is_the_reflex_whatever_the_cloud(node):
    final, intents = answer(node, "停停停，前面有人！")
    assert (final.status, final.source, final.text) == (OK, "reflex", STOPPING["zh-CN"])
    assert [(i.name, i.source, i.safety) for i in intents] == [("stop", "reflex", True)]


@pytest.mark.parametrize("text, language", [("what is the capital of France", "en-US"), ("法国的首都是哪里", "zh-CN")])
def test_what_the_edge_declines_goes_to_the_cloud(node, text, language):
    final, intents = answer(node, text)
    assert final.intent == "none" and [i.name for i in intents] == ([] if node.cloud_state == "dead" else ["none"])
    if node.cloud_state == "enabled":
        assert (final.status, final.source, final.text) == (DEFERRED, "cloud", CLOUD_ANSWER["reply"])
        assert "declined on the edge" in final.error
    elif node.cloud_state == "disabled":  # the honest decline of the edge
        assert (final.status, final.source) == (OK, "edge") and final.text.startswith(("Sorry", "抱歉"))
    else:
        assert (final.status, final.source) == (FALLBACK, "node") and final.text.startswith(("Sorry", "抱歉"))
        assert "cloud failed" in final.error and "unreachable" in final.error


@pytest.mark.parametrize("text", ["hello", "谢谢"])
def test_small_talk_stays_on_the_edge(node, text):
    final, _ = answer(node, text)
    assert (final.status, final.source, final.intent) == (OK, "edge", "none")
    assert not final.text.startswith(("Sorry", "抱歉"))


def test_long_dictation_is_a_long_context_request(node, cloud):
    final, _ = answer(node, DICTATION)
    if node.cloud_state == "enabled":
        assert (final.status, final.source) == (DEFERRED, "cloud") and "long context" in final.error
        assert cloud.requests[-1]["body"]["messages"][-1]["content"].endswith(DICTATION)
    else:
        assert (final.status, final.text) == (FALLBACK, APOLOGY["en-US"]) and "long context" in final.error


def test_over_the_input_guard_is_an_error_that_says_too_long(node):
    final, intents = answer(node, "a" * 70_000)
    assert (final.status, final.text, intents) == (ERROR, TOO_LONG["en-US"], [])
    assert "too long" in final.error and "input.max_chars=65536" in final.error


def test_a_command_chained_with_a_later_one_or_said_last_is_answered_by_its_clause(node):
    final, intents = answer(node, "play some jazz now and switch to rock when we hit the highway", session_id="chain")
    assert (final.status, final.source, final.intent) == (OK, "edge", "play_music")
    assert [(i.name, i.requires_confirmation, list(i.slot_values)) for i in intents] == [
        ("play_music", False, ["jazz"])]
    final, intents = answer(node, "先导航去公司，到了再给老王打电话", session_id="chain")  # motion: asked first
    assert (final.status, final.source, final.intent, final.text) == (OK, "edge", "navigate", "要导航到公司吗？")
    assert [(i.name, i.requires_confirmation) for i in intents] == [("navigate", True)]
    final, intents = answer(node, "feed the cat, then go to the kitchen", session_id="last")  # said last: asked
    assert (final.status, final.source, final.intent) == (OK, "edge", "robot_go_to")
    assert [(i.name, i.requires_confirmation, list(i.slot_values)) for i in intents] == [
        ("robot_go_to", True, ["kitchen"])]


@pytest.mark.parametrize("text", ["把温度调到四十五度", "set the temperature to 45"])
def test_out_of_range_number_is_declined_saying_the_range(node, text):
    final, intents = answer(node, text)
    assert (final.status, final.intent) == (OK, "none") and [i.name for i in intents] == ["none"]
    assert "16" in final.text and "32" in final.text and "45" in final.text


def test_a_cloud_answer_without_its_required_slot_is_not_acted_on(cloud):
    from globalgen_ros.schema import load_schema
    from globalgen_ros.serving.checks import check_answer
    from globalgen_ros.watchdog.supervisor import CLOUD, DEFERRED, Outcome

    outcome = Outcome(DEFERRED, CLOUD, "Calling now.", "en-US", intent="call", slots={})
    checked = check_answer(outcome, "call her", load_schema())
    assert checked.intent == "none" and "contact" in checked.text and checked.status == DEFERRED
