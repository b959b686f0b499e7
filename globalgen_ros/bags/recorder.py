"""Record live topics into a rosbag2 bag through raw subscriptions (like `ros2 bag record`)."""

from __future__ import annotations

import threading
import time

from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy

from globalgen_ros.bags.io import BagWriter
from globalgen_ros.bags.types import BEST_EFFORT_QOS, RELIABLE_QOS, python_class, typestore


class TopicRecorder(Node):
    """Subscribe to each topic once a publisher announces its type; write every message as received."""

    def __init__(self, writer: BagWriter, topics: list[str], name: str = "globalgen_recorder"):
        super().__init__(name)
        self._writer, self._lock = writer, threading.Lock()
        self._wanted = [self.resolve_topic_name(t) for t in topics]   # absolute names, as the bag stores them
        self.counts: dict[str, int] = {}
        self._subscriptions_by_topic = {}
        self.create_timer(0.2, self.discover)

    @property
    def pending(self) -> list[str]:
        """Topics not subscribed yet (no publisher seen)."""
        return [t for t in self._wanted if t not in self._subscriptions_by_topic]

    def discover(self) -> None:
        """Subscribe to wanted topics that have appeared in the graph."""
        types = dict(self.get_topic_names_and_types())
        for topic in self.pending:
            known = [t for t in types.get(topic, []) if t in typestore().types]
            if not known:
                continue
            msgtype = known[0]
            # Match best-effort publishers too: a reliable subscription would never hear them.
            publishers = self.get_publishers_info_by_topic(topic)
            reliable = all(p.qos_profile.reliability == ReliabilityPolicy.RELIABLE for p in publishers)
            qos = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE if reliable
                             else ReliabilityPolicy.BEST_EFFORT)
            with self._lock:
                self._writer.add_topic(topic, msgtype, RELIABLE_QOS if reliable else BEST_EFFORT_QOS)
            self.counts[topic] = 0
            self._subscriptions_by_topic[topic] = self.create_subscription(
                python_class(msgtype), topic, lambda raw, t=topic: self._write(t, raw), qos, raw=True)
            self.get_logger().info(f"recording {topic} ({msgtype})")

    def _write(self, topic: str, raw: bytes) -> None:
        with self._lock:
            self._writer.write(topic, time.time_ns(), raw)
            self.counts[topic] += 1
