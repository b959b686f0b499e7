"""Build the Response and ActionIntent messages of one utterance."""

from __future__ import annotations

import re

from globalgen_ros.msg import ActionIntent, Response
from globalgen_ros.watchdog.supervisor import Outcome

STATUS = {"ok": Response.STATUS_OK, "deferred_to_cloud": Response.STATUS_DEFERRED_TO_CLOUD,
          "fallback": Response.STATUS_FALLBACK, "rejected": Response.STATUS_REJECTED,
          "error": Response.STATUS_ERROR}


def response(stamp, utterance_id: str, session_id: str, outcome: Outcome, *, is_final: bool, seq: int,
             latency_ms: float) -> Response:
    """Return a final or partial Response carrying `outcome`."""
    return Response(stamp=stamp, utterance_id=utterance_id, session_id=session_id, text=outcome.text,
                    is_final=is_final, status=STATUS[outcome.status], source=outcome.source, error=outcome.error,
                    language=outcome.language, intent=outcome.intent if is_final else "",
                    strategy=outcome.strategy, latency_ms=float(latency_ms), ttft_ms=float(outcome.ttft_ms),
                    tokens=int(outcome.tokens), forwards=int(outcome.forwards), seq=seq)


def intent(stamp, utterance_id: str, session_id: str, outcome: Outcome, schema) -> ActionIntent:
    """Return the ActionIntent of `outcome`, slots in schema order, flags from the schema (requires_confirmation
    also on a question asked because the model was unsure)."""
    spec = schema[outcome.intent]
    names = [slot.name for slot in spec.slots if slot.name in outcome.slots]
    return ActionIntent(stamp=stamp, utterance_id=utterance_id, session_id=session_id, name=outcome.intent,
                        slot_names=names, slot_values=[outcome.slots[name] for name in names],
                        confidence=float(min(max(outcome.confidence, 0.0), 1.0)),
                        requires_confirmation=outcome.confirmed is False or (spec.requires_confirmation
                                                                             and outcome.confirmed is None),
                        safety=spec.safety, source=outcome.source)


def stop_intent(stamp, utterance_id: str, session_id: str) -> ActionIntent:
    """Return the safety reflex's stop intent (independent of the schema: it must never fail)."""
    return ActionIntent(stamp=stamp, utterance_id=utterance_id, session_id=session_id, name="stop", confidence=1.0,
                        requires_confirmation=False, safety=True, source="reflex")


MAX_ID_CHARS = 128
_BCP47 = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,4}$")


def field_problem(language: str, session_id: str, utterance_id: str) -> str:
    """Return why the message's other string fields cannot be used (too long, not a BCP-47 tag), or ""."""
    for name, value in (("session_id", session_id), ("utterance_id", utterance_id)):
        if len(value) > MAX_ID_CHARS:
            return f"{name} has {len(value)} characters, more than {MAX_ID_CHARS}: send a shorter id"
    if language and (len(language) > 35 or not _BCP47.match(language)):
        return f"language {language[:40]!r} is not a BCP-47 tag such as zh-CN or en-US: fix the ASR's language field"
    return ""


def input_problem(text: str, max_chars: int) -> str:
    """Return why `text` cannot be answered (empty, too long, not valid UTF-8), or "" if it can."""
    if not text.strip():
        return "empty transcript: nothing to answer (check the ASR output)"
    if len(text) > max_chars:
        return (f"transcript too long: {len(text)} characters > input.max_chars={max_chars} (the denial-of-service "
                "guard); split it or raise input.max_chars")
    if "\ufffd" in text:
        return ("transcript is not valid UTF-8 (rclpy replaced undecodable bytes by U+FFFD): fix the encoding of "
                "the ASR output")
    if "\x00" in text:
        return "transcript contains a NUL character"
    return ""
