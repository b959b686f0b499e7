"""Cloud client, reply parsing and circuit breaker against a real HTTP server on 127.0.0.1 (no ROS)."""

from __future__ import annotations

import pytest
from cloud_server import ChatServer, closed_port_url

from globalgen_ros.schema import load_schema
from globalgen_ros.watchdog.breaker import CLOSED, HALF_OPEN, OPEN, CircuitBreaker
from globalgen_ros.watchdog.cloud import CloudClient, CloudConfig, CloudError, api_key, parse_base_url
from globalgen_ros.watchdog.cloud_format import build_messages, clean_text, parse_answer

SCHEMA = load_schema()


def client(base_url: str, breaker: CircuitBreaker | None = None, **kw) -> CloudClient:
    cfg = CloudConfig(base_url=base_url, model="test-model", api_key_env="GG_TEST_CLOUD_KEY",
                      timeout_s=kw.pop("timeout_s", 2.0), retries=kw.pop("retries", 0), backoff_s=0.01, **kw)
    return CloudClient(cfg, breaker or CircuitBreaker(3, 60.0))


@pytest.fixture
def server():
    with ChatServer() as srv:
        yield srv


def test_request_is_openai_compatible_and_sends_key(server, monkeypatch):
    monkeypatch.setenv("GG_TEST_CLOUD_KEY", "sk-test-123")
    server.reply = {"intent": "navigate", "slots": {"destination": "西单大悦城"}, "reply": "好的，导航到西单大悦城。"}
    messages = build_messages(SCHEMA, "导航到西单大悦城", "zh-CN", [("你好", "你好！")])
    content = client(server.base_url).chat(messages)
    req = server.requests[-1]
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["Authorization"] == "Bearer sk-test-123"
    assert req["body"]["model"] == "test-model"
    assert req["body"]["response_format"] == {"type": "json_object"}
    roles = [m["role"] for m in req["body"]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert "navigate(destination: text)" in req["body"]["messages"][0]["content"]
    answer = parse_answer(content, SCHEMA, "zh-CN")
    assert (answer.intent, answer.slots, answer.text) == ("navigate", {"destination": "西单大悦城"},
                                                          "好的，导航到西单大悦城。")


def test_no_key_no_header(server, monkeypatch):
    monkeypatch.delenv("GG_TEST_CLOUD_KEY", raising=False)
    client(server.base_url).chat([{"role": "user", "content": "hi"}])
    assert "Authorization" not in server.requests[-1]["headers"]


def test_connection_refused_is_cloud_error():
    with pytest.raises(CloudError, match="unreachable"):
        client(closed_port_url()).chat([{"role": "user", "content": "hi"}])


def test_slow_server_times_out(server):
    server.mode, server.delay_s = "slow", 2.0
    with pytest.raises(CloudError, match="timed out"):
        client(server.base_url, timeout_s=0.3).chat([{"role": "user", "content": "hi"}])


def test_a_trickling_body_ends_at_the_deadline(server):
    """Each byte arrives well within timeout_s, but the whole answer would take ~13 s: the call ends at 1 s."""
    import time

    server.mode, server.delay_s = "trickle", 0.05
    start = time.monotonic()
    with pytest.raises(CloudError, match="deadline_s=1"):
        client(server.base_url, timeout_s=2.0, deadline_s=1.0, retries=3).chat([{"role": "user", "content": "x"}])
    assert time.monotonic() - start < 2.0


def test_a_deeply_nested_body_is_a_failure_the_breaker_counts(server):
    server.mode = "nested"
    breaker = CircuitBreaker(1, 0.05)
    c = client(server.base_url, breaker=breaker)
    for _ in range(3):  # the probe after reset_s fails the same way: the circuit never sticks half-open
        with pytest.raises(CloudError, match="not JSON|could not be read"):
            c.chat([{"role": "user", "content": "x"}])
        assert breaker.state == OPEN
        import time
        time.sleep(0.06)
    server.mode = "ok"
    assert "Hello" in c.chat([{"role": "user", "content": "x"}]) and breaker.state == CLOSED


@pytest.mark.parametrize("value, problem", [("sk-ok\r\n", None), ("  sk-ok  ", None), ("sk-a\nb", "line break"),
                                            ("sk-é€", "Latin-1"), ("", None)])
def test_malformed_keys_are_refused_by_name_never_by_value(monkeypatch, server, value, problem):
    monkeypatch.setenv("GG_TEST_CLOUD_KEY", value)
    if problem is None:
        assert api_key("GG_TEST_CLOUD_KEY") == value.strip()
        client(server.base_url).chat([{"role": "user", "content": "x"}])
        sent = server.requests[-1]["headers"].get("Authorization")
        assert sent == (f"Bearer {value.strip()}" if value.strip() else None)
        return
    with pytest.raises(CloudError, match=problem) as info:
        client(server.base_url).chat([{"role": "user", "content": "x"}])
    assert "GG_TEST_CLOUD_KEY" in str(info.value) and value.strip() not in str(info.value) and "sk-" not in str(
        info.value)


def test_error_bodies_and_url_credentials_are_not_repeated(server, monkeypatch):
    monkeypatch.setenv("GG_TEST_CLOUD_KEY", "sk-secret-777")
    server.mode = "http_400_echo"
    with pytest.raises(CloudError) as info:
        client(server.base_url).chat([{"role": "user", "content": "x"}])
    assert "HTTP 400" in str(info.value) and "sk-secret-777" not in str(info.value)
    url = closed_port_url().replace("http://", "http://user:hunter2@")
    with pytest.raises(CloudError) as info:
        client(url).chat([{"role": "user", "content": "x"}])
    assert "hunter2" not in str(info.value) and "user" not in str(info.value)


def test_retry_after_server_error(server):
    server.mode = "flaky"  # first request 500, second fine
    content = client(server.base_url, retries=1).chat([{"role": "user", "content": "hi"}])
    assert "Hello from the cloud" in content
    assert len(server.requests) == 2


def test_garbage_body_is_not_retried(server):
    server.mode = "garbage_body"
    with pytest.raises(CloudError, match="not JSON"):
        client(server.base_url, retries=2).chat([{"role": "user", "content": "hi"}])
    assert len(server.requests) == 1


def test_breaker_opens_and_refuses_without_calling(server):
    server.mode = "http_500"
    c = client(server.base_url, breaker=CircuitBreaker(2, 60.0))
    for _ in range(2):
        with pytest.raises(CloudError, match="HTTP 500"):
            c.chat([{"role": "user", "content": "hi"}])
    assert c.breaker.state == OPEN
    with pytest.raises(CloudError, match="circuit open"):
        c.chat([{"role": "user", "content": "hi"}])
    assert len(server.requests) == 2


def test_breaker_half_open_probe():
    now = [0.0]
    b = CircuitBreaker(1, 10.0, clock=lambda: now[0])
    b.record_failure()
    assert b.state == OPEN and not b.allow()
    now[0] = 10.5
    assert b.state == HALF_OPEN
    assert b.allow() and not b.allow()  # one probe at a time
    b.record_failure()
    assert b.state == OPEN and b.trips == 2
    now[0] = 21.0
    assert b.allow()
    b.record_success()
    assert b.state == CLOSED and b.allow()


@pytest.mark.parametrize("content, intent, slots", [
    ('{"intent": "unlock_all_doors", "slots": {}, "reply": "Unlocking all doors."}', "none", {}),
    ('```json\n{"intent": "window", "slots": {"action": "explode", "position": "rear"}, "reply": "OK"}\n```',
     "window", {"position": "rear"}),
    ('Sure! {"intent": "set_temperature", "slots": {"temperature": 22, "zone": "driver", "x": 1}, "reply": "OK"}',
     "set_temperature", {"temperature": "22", "zone": "driver"}),
    ('{"intent": "set_temperature", "slots": {"temperature": "twenty"}, "reply": "OK"}', "set_temperature", {}),
    ('{"intent": ["navigate"], "slots": "x", "reply": "OK"}', "none", {}),
    ("I am just text, not JSON.", "none", {}),
])
def test_parse_keeps_only_schema_content(content, intent, slots):
    answer = parse_answer(content, SCHEMA, "en-US")
    assert answer.intent == intent and answer.slots == slots
    assert answer.intent in SCHEMA


def test_unknown_intent_reply_is_replaced():
    answer = parse_answer('{"intent": "unlock_all_doors", "reply": "Unlocking all doors."}', SCHEMA, "en-US")
    assert "Unlocking" not in answer.text and not answer.trusted and answer.notes


@pytest.mark.parametrize("content", ["", "   ", "\x00\x01\x02", '{"intent": "navigate", "slots": {}}',
                                     '{"intent": "none", "reply": 42}'])
def test_unusable_content_raises(content):
    with pytest.raises(CloudError):
        parse_answer(content, SCHEMA, "en-US")


def test_clean_text_drops_control_characters():
    assert clean_text("a\u202eb\x07c\n d", 100) == "abc d"


@pytest.mark.parametrize("url", ["ftp://x/v1", "127.0.0.1:8000", "http:///v1", "http://h/v1?x=1"])
def test_bad_base_url(url):
    with pytest.raises(ValueError):
        parse_base_url(url)


@pytest.mark.parametrize("content, confidence", [
    ('{"intent": "navigate", "slots": {"destination": "X"}, "reply": "ok", "confidence": 0.72}', 0.72),
    ('{"intent": "navigate", "slots": {"destination": "X"}, "reply": "ok"}', 0.5),
    ('{"intent": "navigate", "slots": {"destination": "X"}, "reply": "ok", "confidence": 7}', 0.5),
    ('{"intent": "unlock", "slots": {}, "reply": "ok", "confidence": 1.0}', 0.0),
    ("just words", 0.0)])
def test_a_cloud_answer_carries_the_confidence_it_earned(content, confidence):
    assert parse_answer(content, SCHEMA, "en-US").confidence == confidence


def test_numbers_of_absurd_length_and_nested_bodies_are_not_slots():
    answer = parse_answer('{"intent": "set_temperature", "slots": {"temperature": "' + "9" * 120 + '"}, "reply": "ok"}',
                          SCHEMA, "en-US")
    assert "temperature" not in answer.slots
    deep = "{" + '"a": [' * 50_000 + "]" * 50_000 + "}"
    assert parse_answer(deep, SCHEMA, "en-US").intent == "none"  # unreadable JSON: plain text, never acted on


@pytest.mark.parametrize("value, kept", [('"1.5"', "1.5"), ("1.5", "1.5"), ("2", "2"), ('"1."', None),
                                         ('"1.5.2"', None), ('"-3"', None), ('"one"', None)])
def test_a_decimal_distance_from_the_cloud_is_kept_like_the_edge_s(value, kept):
    answer = parse_answer('{"intent": "robot_move", "slots": {"direction": "backward", "distance": ' + value + '}, '
                          '"reply": "ok"}', SCHEMA, "en-US")
    assert answer.slots.get("distance") == kept
