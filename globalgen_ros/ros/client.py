"""Talk to a running globalgen_node over DDS: publish transcripts, collect replies, intents and diagnostics.

Used by the node benchmark and the tests; also a minimal example of the node's topics for robot code.
Receipt times are taken in the subscription callbacks (time.perf_counter).
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from collections.abc import Callable

from diagnostic_msgs.msg import DiagnosticArray
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from std_msgs.msg import String

from globalgen_ros.msg import ActionIntent, Response, Transcript
from globalgen_ros.ros import qos


class NodeClient:
    """Publish on asr/transcript and asr/text; record globalgen/response, response_stream, intent, /diagnostics."""

    def __init__(self, *, context=None, namespace: str = "", name: str | None = None, depth: int = 1000):
        self.node = Node(name or f"globalgen_client_{uuid.uuid4().hex[:8]}", namespace=namespace, context=context)
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)
        self.pub_transcript = self.node.create_publisher(Transcript, "asr/transcript", qos.transcripts(depth))
        self.pub_text = self.node.create_publisher(String, "asr/text", qos.transcripts(depth))
        self.finals: dict[str, list[tuple[float, Response]]] = defaultdict(list)
        self.streams: dict[str, list[tuple[float, Response]]] = defaultdict(list)
        self.intents: dict[str, list[tuple[float, ActionIntent]]] = defaultdict(list)
        self.final_order: list[str] = []  # utterance ids in the order their final responses arrived
        self.diagnostics: list[DiagnosticArray] = []
        self._subs = [
            self.node.create_subscription(Response, "globalgen/response", self._on_final, qos.responses(depth)),
            self.node.create_subscription(Response, "globalgen/response_stream", self._on_stream, qos.stream(depth)),
            self.node.create_subscription(ActionIntent, "globalgen/intent", self._on_intent, qos.responses(depth)),
            self.node.create_subscription(DiagnosticArray, "/diagnostics", self.diagnostics.append, qos.diagnostics()),
        ]

    def _on_final(self, msg: Response) -> None:
        self.finals[msg.utterance_id].append((time.perf_counter(), msg))
        self.final_order.append(msg.utterance_id)

    def _on_stream(self, msg: Response) -> None:
        self.streams[msg.utterance_id].append((time.perf_counter(), msg))

    def _on_intent(self, msg: ActionIntent) -> None:
        self.intents[msg.utterance_id].append((time.perf_counter(), msg))

    def wait_for_node(self, timeout: float = 30.0) -> None:
        """Wait until the node's subscriptions and publishers have matched ours."""
        def matched() -> bool:
            return (self.pub_transcript.get_subscription_count() > 0 and self.pub_text.get_subscription_count() > 0
                    and all(sub.get_publisher_count() > 0 for sub in self._subs[:3]))
        self.spin_until(matched, timeout, "globalgen_node matching (is it running and active?)")

    def send(self, text: str, *, is_final: bool = True, language: str = "", session_id: str = "",
             utterance_id: str | None = None, confidence: float = -1.0) -> tuple[str, float]:
        """Publish a Transcript; return its utterance id and the send time."""
        uid = utterance_id if utterance_id is not None else uuid.uuid4().hex
        msg = Transcript(stamp=self.node.get_clock().now().to_msg(), text=text, is_final=is_final,
                         confidence=confidence, language=language, session_id=session_id, utterance_id=uid)
        sent = time.perf_counter()
        self.pub_transcript.publish(msg)
        return uid, sent

    def send_text(self, text: str | bytes) -> float:
        """Publish a std_msgs/String (bytes: already-serialized CDR, published as is); return the send time."""
        sent = time.perf_counter()
        self.pub_text.publish(text if isinstance(text, bytes) else String(data=text))
        return sent

    def wait_final(self, utterance_id: str, timeout: float = 30.0) -> Response:
        """Spin until the final Response of `utterance_id` arrived; return it."""
        self.spin_until(lambda: utterance_id in self.finals, timeout, f"final response for {utterance_id}")
        return self.finals[utterance_id][0][1]

    def ask(self, text: str, timeout: float = 30.0, **kwargs) -> Response:
        """Publish a final Transcript and return its final Response."""
        uid, _ = self.send(text, **kwargs)
        return self.wait_final(uid, timeout)

    def spin_until(self, condition: Callable[[], bool], timeout: float, what: str = "condition") -> None:
        """Spin until `condition()` holds; raise TimeoutError naming `what` after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not condition():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"{what}: not reached within {timeout:g} s")
            self.executor.spin_once(timeout_sec=min(0.05, remaining))

    def close(self) -> None:
        """Destroy the client node."""
        self.executor.shutdown()
        self.node.destroy_node()
