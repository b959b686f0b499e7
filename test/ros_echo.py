"""Republish every message of one topic on another, unchanged (the far end of the message round-trip tests).

Usage: python test/ros_echo.py TYPE IN_TOPIC OUT_TOPIC, with TYPE a message of globalgen_ros.msg (e.g. Transcript).
"""

import importlib
import sys

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)


class Echo(Node):
    """Subscribe to IN_TOPIC and publish each message on OUT_TOPIC."""

    def __init__(self, msg_type, in_topic: str, out_topic: str):
        super().__init__("globalgen_test_echo")
        self._publisher = self.create_publisher(msg_type, out_topic, QOS)
        self.create_subscription(msg_type, in_topic, self._publisher.publish, QOS)


def main(argv: list[str]) -> int:
    """Run the echo node until interrupted."""
    type_name, in_topic, out_topic = argv
    msg_type = getattr(importlib.import_module("globalgen_ros.msg"), type_name)
    try:
        with rclpy.init():
            rclpy.spin(Echo(msg_type, in_topic, out_topic))
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
