"""The custom messages: real rosidl typesupport, sent between two processes over DDS with every field intact."""

import re
import sys

import pytest
from builtin_interfaces.msg import Time
from hypothesis import given, settings
from hypothesis import strategies as st
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message, serialize_message
from ros_harness import REPO_ROOT, TEST_DIR, spin_until, wait_for_matching

from globalgen_ros.msg import ActionIntent, AudioChunk, Response, Transcript

QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
STAMP = Time(sec=1_767_225_600, nanosec=123_456_789)
ZH_EN = "请把红色的箱子送到三号会议室, then return to the dock 🚗 (ünïcödé)"

SAMPLES = {
    "Transcript": Transcript(
        stamp=STAMP, text=ZH_EN, is_final=True, confidence=0.875, language="zh-CN",
        session_id="会话-42", utterance_id="utt-0001"),
    "Response": Response(
        stamp=STAMP, utterance_id="utt-0001", session_id="会话-42", text="好的, heading to meeting room 3 now.",
        is_final=True, status=Response.STATUS_DEFERRED_TO_CLOUD, source=Response.SOURCE_CLOUD,
        error="edge decode passed its deadline (400 ms)", language="zh-CN", intent="navigate", strategy="cloud",
        latency_ms=412.5, ttft_ms=35.25, tokens=4_000_000_000, forwards=17, seq=3),
    "ActionIntent": ActionIntent(
        stamp=STAMP, utterance_id="utt-0001", session_id="会话-42", name="navigate",
        slot_names=["destination", "speed", "object"], slot_values=["三号会议室", "slow", "the red box"],
        confidence=0.9375, requires_confirmation=True, safety=False, source=Response.SOURCE_EDGE),
    "AudioChunk": AudioChunk(
        stamp=STAMP, session_id="mic-0", sample_rate=16000,
        samples=[-32768, -1, 0, 1, 32767] + [(i * 37) % 65536 - 32768 for i in range(16000)], end_of_stream=True),
}


@pytest.mark.parametrize("type_name", sorted(SAMPLES))
def test_message_crosses_processes_intact(type_name, ros_node, ros_executor, ros_process):
    """Publish a message, let another process echo it back over DDS, and compare every field."""
    sent = SAMPLES[type_name]
    msg_type = type(sent)
    topic = f"globalgen_test/{type_name.lower()}"
    received = []
    publisher = ros_node.create_publisher(msg_type, topic, QOS)
    subscription = ros_node.create_subscription(msg_type, topic + "_echo", received.append, QOS)
    echo = ros_process([sys.executable, str(TEST_DIR / "ros_echo.py")], type_name, topic, topic + "_echo")

    wait_for_matching(publisher, timeout=20.0)
    wait_for_matching(subscription, timeout=20.0)
    publisher.publish(sent)
    spin_until(ros_executor, lambda: received, timeout=20.0, what=f"{type_name} echoed back")

    assert echo.popen.poll() is None, echo.output()
    assert received[0] == sent
    types = dict(ros_node.get_topic_names_and_types())
    assert types["/" + topic] == [f"globalgen_ros/msg/{type_name}"]


def _msg_constants(path):
    """Return {name: value} of the constants declared in a .msg file."""
    constants = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\s*(\w+)\s+([A-Z][A-Z0-9_]*)\s*=\s*(.*?)\s*(#.*)?$", line)
        if match:
            field_type, name, value = match.group(1), match.group(2), match.group(3)
            constants[name] = value.strip('"') if field_type == "string" else int(value)
    return constants


def test_response_constants_match_the_msg_file():
    """Response's status and source constants are generated with the values written in msg/Response.msg."""
    constants = _msg_constants(REPO_ROOT / "msg" / "Response.msg")
    assert {"STATUS_OK", "STATUS_DEFERRED_TO_CLOUD", "STATUS_FALLBACK", "STATUS_REJECTED", "STATUS_ERROR",
            "SOURCE_EDGE", "SOURCE_CLOUD", "SOURCE_REFLEX"} <= constants.keys()
    assert len({v for k, v in constants.items() if k.startswith("STATUS_")}) == 5
    for name, value in constants.items():
        assert getattr(Response, name) == value, name


def test_every_msg_file_is_generated_with_its_fields():
    """Each .msg in msg/ has a generated class with exactly the fields the file declares."""
    for path in sorted((REPO_ROOT / "msg").glob("*.msg")):
        declared = []
        for line in path.read_text(encoding="utf-8").splitlines():
            code = line.split("#", 1)[0].strip()
            if code and "=" not in code:
                declared.append(code.split()[1])
        msg_class = getattr(__import__("globalgen_ros.msg", fromlist=[path.stem]), path.stem)
        assert list(msg_class.get_fields_and_field_types()) == declared, path.name


def test_wrong_field_type_is_refused():
    """With field checks on (tests set ROS_PYTHON_CHECK_FIELDS=1), a bad value fails on assignment."""
    with pytest.raises(AssertionError):
        Transcript(is_final="yes", check_fields=True)
    with pytest.raises((AssertionError, OverflowError)):
        AudioChunk(samples=[40000], check_fields=True)
    with pytest.raises(AssertionError):
        Response(status=256, check_fields=True)
    with pytest.raises(AssertionError):
        ActionIntent(slot_names="destination")  # checked by default in tests: see ros_harness.configure_session


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.characters(exclude_characters="\x00"), max_size=300),
       slots=st.lists(st.text(max_size=20), max_size=5))
def test_any_unicode_text_survives_serialization(text, slots):
    """Any Unicode text (without NUL, which ends a ROS string) round-trips through the CDR typesupport."""
    slots = [s.replace("\x00", "") for s in slots]
    sent = ActionIntent(name=text, slot_names=slots, slot_values=list(reversed(slots)), source=text)
    assert deserialize_message(serialize_message(sent), ActionIntent) == sent
    transcript = Transcript(text=text, language="en-US")
    assert deserialize_message(serialize_message(transcript), Transcript).text == text


def test_readme_documents_every_field_and_constant():
    """README.md has a table row for every field and constant of every message (so the docs stay true)."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    for path in sorted((REPO_ROOT / "msg").glob("*.msg")):
        section = readme.split(f"### {path.stem} ", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
        for line in path.read_text(encoding="utf-8").splitlines():
            code = line.split("#", 1)[0].strip()
            if code:
                name = code.split("=", 1)[0].split()[1]
                assert f"| `{name}` |" in section, f"README.md, section {path.stem}: no row for {name}"
