"""Replay a bag's transcripts into a running globalgen_node at recorded timing and collect its answers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import QoSProfile
from rclpy.serialization import deserialize_message

from globalgen_ros.bags.io import BagMessage, BagWriter
from globalgen_ros.bags.report import Outcome
from globalgen_ros.bags.types import (
    ACTION_INTENT,
    INTENT_TOPIC,
    RESPONSE,
    RESPONSE_STREAM_TOPIC,
    RESPONSE_TOPIC,
    TRANSCRIPT,
)
from globalgen_ros.msg import ActionIntent, Response, Transcript

QOS = QoSProfile(depth=1000)  # reliable, volatile, deep like the node's topics (globalgen_ros/ros/qos.py)


class BagPlayer(Node):
    """Publish recorded transcripts as raw CDR and record the node's final replies and intents."""

    def __init__(self, *, writer: BagWriter | None = None, stream: bool = False, name: str = "globalgen_replay",
                 context=None):
        super().__init__(name, context=context)
        self._writer = writer
        self._cond = threading.Condition()
        self._outcomes: dict[str, Outcome] = {}
        self._sent: dict[str, float] = {}   # utterance id -> monotonic time of publication
        self._transcript_pubs = {}
        self._stop = threading.Event()
        self.unexpected = 0                  # final replies for utterances that this replay did not send
        self._on_answer: Callable[[Outcome], None] | None = None
        self._reported: set[str] = set()
        topics = [(RESPONSE_TOPIC, Response, RESPONSE, self._on_response),
                  (INTENT_TOPIC, ActionIntent, ACTION_INTENT, self._on_intent)]
        if stream:
            topics.append((RESPONSE_STREAM_TOPIC, Response, RESPONSE, self._on_stream))
        self._subscriptions_by_topic = {}
        for topic, cls, msgtype, callback in topics:
            if writer is not None:
                writer.add_topic(topic, msgtype)
            self._subscriptions_by_topic[topic] = self.create_subscription(
                cls, topic, lambda raw, t=topic, cb=callback: self._record(t, raw, cb), QOS, raw=True)
        self._executor = SingleThreadedExecutor(context=self.context)
        self._executor.add_node(self)
        self._spinner = threading.Thread(target=self._executor.spin, name="replay_spin", daemon=True)
        self._spinner.start()

    def _publisher(self, topic: str):
        if topic not in self._transcript_pubs:
            self._transcript_pubs[topic] = self.create_publisher(Transcript, topic, QOS)
            if self._writer is not None:
                self._writer.add_topic(topic, TRANSCRIPT)
        return self._transcript_pubs[topic]

    def wait_for_node(self, topic: str, timeout_s: float) -> None:
        """Wait until a node subscribes to topic and publishes replies; raise TimeoutError saying what is missing."""
        publisher, deadline = self._publisher(topic), time.monotonic() + timeout_s
        checks = {f"a subscriber on {topic}": lambda: publisher.get_subscription_count() > 0}
        checks.update({f"a publisher on {t}": (lambda s=s: s.get_publisher_count() > 0)
                       for t, s in self._subscriptions_by_topic.items() if t != RESPONSE_STREAM_TOPIC})
        while missing := [name for name, ok in checks.items() if not ok()]:
            if time.monotonic() > deadline or self._stop.wait(0.02):
                raise TimeoutError(f"no globalgen_node found after {timeout_s:.0f} s (missing {', '.join(missing)}); "
                                   "start it (globalgen_node or ros2 launch) with the same ROS_DOMAIN_ID")

    def _record(self, topic: str, raw: bytes, callback: Callable) -> None:
        received = time.monotonic()
        with self._cond:
            if self._writer is not None:
                self._writer.write(topic, time.time_ns(), raw)
            callback(raw, received)
            self._cond.notify_all()

    def _on_response(self, raw: bytes, received: float) -> None:
        msg = deserialize_message(raw, Response)
        outcome = self._outcomes.get(msg.utterance_id)
        if outcome is None:
            self.unexpected += 1
            return
        outcome.finals += 1
        if outcome.finals == 1:
            outcome.status, outcome.reply, outcome.source, outcome.error = msg.status, msg.text, msg.source, msg.error
            outcome.intent = outcome.intent or msg.intent
            outcome.latency_ms, outcome.tokens, outcome.forwards = msg.latency_ms, msg.tokens, msg.forwards
            outcome.e2e_ms = (received - self._sent[msg.utterance_id]) * 1000
        self._report(outcome)

    def _on_intent(self, raw: bytes, received: float) -> None:
        msg = deserialize_message(raw, ActionIntent)
        if outcome := self._outcomes.get(msg.utterance_id):
            outcome.intent, outcome.slots = msg.name, dict(zip(msg.slot_names, msg.slot_values, strict=False))
            outcome.intent_seen = True
            self._report(outcome)

    def _report(self, outcome: Outcome, force: bool = False) -> None:
        """Hand a newly answered utterance to on_answer once its reply (and an intent, if one is due) are in."""
        # Only answered replies (OK, DEFERRED_TO_CLOUD) come with an ActionIntent.
        intent_due = outcome.intent and outcome.status in (0, 1) and not outcome.intent_seen
        complete = outcome.finals and (force or not intent_due)
        if complete and self._on_answer and outcome.utterance_id not in self._reported:
            self._reported.add(outcome.utterance_id)
            self._on_answer(outcome)

    def _on_stream(self, raw: bytes, received: float) -> None:
        msg = deserialize_message(raw, Response)
        if outcome := self._outcomes.get(msg.utterance_id):
            outcome.stream_messages += 1

    def play(self, messages: list[BagMessage], *, rate: float = 1.0, timeout_s: float = 30.0,
             on_answer: Callable[[Outcome], None] | None = None) -> list[Outcome]:
        """Publish messages at their recorded spacing divided by rate; wait for one final reply per final one."""
        if rate <= 0:
            raise ValueError(f"rate must be > 0, got {rate}")
        fresh = {m.msg.utterance_id: Outcome(m.msg.utterance_id, m.msg.text, m.msg.session_id)
                 for m in messages if m.msg.is_final}   # an id repeated in the bag counts once
        outcomes = list(fresh.values())
        with self._cond:
            self._on_answer = on_answer
            self._outcomes.update(fresh)
            self._reported.difference_update(fresh)
        if not messages:
            return outcomes
        first_ns, start = messages[0].timestamp, time.monotonic()
        for m in messages:
            target = start + (m.timestamp - first_ns) / 1e9 / rate
            if self._stop.wait(max(0.0, target - time.monotonic())):
                break
            with self._cond:  # the reply may come back before publish() returns
                now = time.monotonic()
                self._publisher(m.topic).publish(m.raw)
                if self._writer is not None:
                    self._writer.write(m.topic, time.time_ns(), m.raw)
                if m.msg.is_final and (o := self._outcomes.get(m.msg.utterance_id)) and o.sent_s is None:
                    o.recorded_s, o.sent_s = (m.timestamp - first_ns) / 1e9, now - start
                    self._sent[o.utterance_id] = now
        self._wait_answers(outcomes, timeout_s)
        with self._cond:
            for o in outcomes:
                self._report(o, force=True)
            self._on_answer = None
        return outcomes

    def _wait_answers(self, outcomes: list[Outcome], timeout_s: float) -> None:
        """Wait until every outcome has a final reply (and its intent, if one is named) or timeout_s passes."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while not all(o.finals for o in outcomes) and not self._stop.is_set() and \
                    (remaining := deadline - time.monotonic()) > 0:
                self._cond.wait(timeout=min(0.1, remaining))
            # An intent may follow its reply by a moment: give the named ones a short grace period.
            self._cond.wait_for(lambda: all(o.intent_seen or not o.intent or o.status not in (0, 1)
                                            for o in outcomes), timeout=0.5)

    def close(self) -> None:
        """Stop spinning and destroy the node."""
        self._stop.set()
        self._executor.shutdown()
        self._spinner.join(5.0)
        self.destroy_node()
