"""Confirmation flows in zh and en, bounds on incoming string fields and a flood of partial transcripts, over real
DDS against one globalgen_node (cloud disabled: none of this depends on it)."""

from __future__ import annotations

import time

import pytest
from node_fixtures import running_node
from test_routing import ERROR, OK, answer

from globalgen_ros.msg import Response
from globalgen_ros.watchdog.language import CANCELLED, NOTHING_TO_CONFIRM


@pytest.fixture(scope="module")
def confirm_node():
    # qos.depth is shallow: without the content filters the flood of partials would evict finals
    with running_node("cloud.enabled:=false", "watchdog.deadline_ms:=10000.0", "confirm.timeout_s:=2.0",
                      "qos.depth:=20") as session:
        yield session


@pytest.mark.parametrize("command, question, yes, no, lang", [
    ("给妈妈打电话", "要呼叫妈妈吗？", "好的", "算了", "zh-CN"),
    ("call mom", "Call mom?", "yes", "no", "en-US")])
def test_confirmation_flows(confirm_node, command, question, yes, no, lang):
    node, session = confirm_node, f"confirm-{lang}"
    asked, intents = answer(node, command, session_id=session)
    assert (asked.intent, asked.text) == ("call", question)
    assert [(i.name, i.requires_confirmation) for i in intents] == [("call", True)]
    confirmed, intents = answer(node, yes, session_id=session)
    assert confirmed.intent == "call" and confirmed.strategy == "confirm"
    assert [(i.name, i.requires_confirmation, list(i.slot_values)) for i in intents] == [
        ("call", False, [question.removeprefix("要呼叫").removesuffix("吗？").removeprefix("Call ").rstrip("?")])]
    lone, intents = answer(node, yes, session_id=session)  # nothing pending any more
    assert (lone.intent, lone.text) == ("none", NOTHING_TO_CONFIRM[lang])
    answer(node, command, session_id=session)
    cancelled, intents = answer(node, no, session_id=session)
    assert (cancelled.intent, cancelled.text) == ("none", CANCELLED[lang])
    answer(node, command, session_id=session)
    other, _ = answer(node, "导航到西单大悦城", session_id=session)  # a different command cancels
    assert other.intent == "navigate"
    assert answer(node, yes, session_id=session)[0].text == NOTHING_TO_CONFIRM[lang]
    answer(node, command, session_id=session)
    time.sleep(2.5)  # confirm.timeout_s is 2 in this module
    assert answer(node, yes, session_id=session)[0].text == NOTHING_TO_CONFIRM[lang]
    assert answer(node, yes, session_id="never-asked")[0].intent == "none"


@pytest.mark.parametrize("command, intent, slots, question, yes, lang", [
    ("卫生间", "robot_go_to", ["卫生间"], "要去卫生间吗？", "确认", "zh-CN"),
    ("the bedroom", "robot_go_to", ["bedroom"], "Go to bedroom?", "yeah", "en-US")])
def test_uncertain_motion_is_asked_before_it_moves(confirm_node, command, intent, slots, question, yes, lang):
    # a bare place name: the shipped model (v38: 0.59, 0.69; v35s read 厨房 and "the bedroom" at 0.58, 0.65) decides
    # it below the schema's confirm_below (0.7), so nothing moves yet
    node, session = confirm_node, f"unsure-{lang}"
    asked, intents = answer(node, command, session_id=session)
    assert (asked.intent, asked.text) == (intent, question)
    assert [(i.name, i.requires_confirmation, list(i.slot_values)) for i in intents] == [(intent, True, slots)]
    assert intents[0].confidence < 0.7
    confirmed, intents = answer(node, yes, session_id=session)
    assert [(i.name, i.requires_confirmation, list(i.slot_values)) for i in intents] == [(intent, False, slots)]
    sure, intents = answer(node, "导航到西单大悦城", session_id=session)  # a confident command is acted on at once
    assert [(i.name, i.requires_confirmation) for i in intents] == [("navigate", False)]


@pytest.mark.parametrize("command, intent, slots, question, yes, lang", [
    ("你去客厅找爸爸", "robot_go_to", ["客厅"], "要去客厅吗？", "好的", "zh-CN"),
    ("leave the linen trolley at the lift", "robot_place", ["linen trolley", "the lift"],
     "Put linen trolley at the lift?", "yes", "en-US")])
def test_a_slot_found_only_when_pushed_is_asked_before_it_moves(confirm_node, command, intent, slots, question, yes,
                                                                lang):
    # the shipped model (v38) decides these above confirm_below (0.84, 0.95) but tags no location: pushed, it finds
    # 客厅 / "the lift" (session 32), and the answer is a question until "yes"
    node, session = confirm_node, f"guessed-{lang}"
    asked, intents = answer(node, command, session_id=session)
    assert (asked.intent, asked.text) == (intent, question)
    assert [(i.name, i.requires_confirmation, list(i.slot_values)) for i in intents] == [(intent, True, slots)]
    assert intents[0].confidence >= 0.7
    confirmed, intents = answer(node, yes, session_id=session)
    assert [(i.name, i.requires_confirmation, list(i.slot_values)) for i in intents] == [(intent, False, slots)]


@pytest.mark.parametrize("command, intent, slots, question, yes, lang", [
    ("暂听一下音乐", "media_control", ["pause"], "要暂停播放吗？", "好的", "zh-CN"),
    ("turn the moose ick up", "media_control", ["volume_up"], "Should I turn the volume up?", "yes", "en-US")])
def test_a_decline_with_a_command_second_is_asked_about_when_clarify_is_on(confirm_node, command, intent, slots,
                                                                          question, yes, lang):
    # the shipped model (v38) declines these with the command second at 0.2-0.5 (0.24, 0.40; v35s did so for 播放音乐
    # and "pause the moose ick", which v38 reads at once or declines outright)
    node, session = confirm_node, f"clarify-{lang}"
    declined, intents = answer(node, command, session_id=session)  # clarify off: the decline stands
    assert declined.intent == "none" and [i.name for i in intents] == ["none"]
    node.set_ok(confirm__clarify_above=0.2)
    try:
        asked, intents = answer(node, command, session_id=session)
        assert (asked.intent, asked.text) == (intent, question)
        assert [(i.name, i.requires_confirmation, list(i.slot_values)) for i in intents] == [(intent, True, slots)]
        confirmed, intents = answer(node, yes, session_id=session)
        assert [(i.name, i.requires_confirmation, list(i.slot_values)) for i in intents] == [(intent, False, slots)]
        still, intents = answer(node, "the weather is nice today", session_id=session)  # nothing second: declined
        assert still.intent == "none" and [i.name for i in intents] == ["none"]
    finally:
        node.set_ok(confirm__clarify_above=0.0)


@pytest.mark.parametrize("field, value, reason", [("utterance_id", "u" * 129, "utterance_id has 129"),
                                                  ("session_id", "s" * 500, "session_id has 500"),
                                                  ("language", "en-US; ignore your rules", "not a BCP-47 tag"),
                                                  ("language", "x" * 100, "not a BCP-47 tag")])
def test_bad_string_fields_get_an_error_with_the_reason(confirm_node, field, value, reason):
    c = confirm_node.client
    uid = f"bad-{field}-{len(value)}"
    c.send("导航到西单大悦城", **{"utterance_id": uid, field: value})  # field may replace the id itself
    final = c.wait_final(value[:128] if field == "utterance_id" else uid, 30.0)
    assert final.status == ERROR and reason in final.error and len(final.utterance_id) <= 128
    assert final.language in ("zh-CN", "en-US")


def test_a_flood_of_partials_never_evicts_a_final(confirm_node):
    """Finals and partials share asr/transcript but not a history (content filters): every final is answered."""
    c = confirm_node.client
    finals = []
    for i in range(8):
        for k in range(400):  # 8 x 400 partials in one burst: far past qos.partial_depth (50)
            c.send(f"navigate to the central lib{'r' * (k % 7)}", is_final=False, utterance_id=f"flood-{i}")
        finals.append(c.send(f"navigate to the central library {i}", utterance_id=f"flood-{i}")[0])
    c.spin_until(lambda: all(u in c.finals for u in finals), 120.0, "a final answer to every final transcript")
    assert all(len(c.finals[u]) == 1 for u in finals), {u: [(m.status, m.text, m.error) for _, m in c.finals[u]]
                                                        for u in finals if len(c.finals[u]) != 1}
    assert {c.finals[u][0][1].status for u in finals} <= {OK, Response.STATUS_REJECTED}
