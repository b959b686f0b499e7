"""QoS of each topic of globalgen_node, and why (docs/node.md has the table).

- Transcripts in, final responses and intents out: RELIABLE, so none is lost; KEEP_LAST with a deep history
  (`qos.depth`, default 1000) so a burst is buffered rather than overwritten, and VOLATILE, because an intent
  replayed to a controller that joins late ("move forward", minutes ago) would be dangerous.
- Final and partial transcripts share one topic but never one history: the node subscribes twice with DDS
  content filters (`is_final = TRUE` with the deep history, `is_final = FALSE` with a shallow one,
  `qos.partial_depth`), so a flood of partials cannot push a final out before its callback runs.
- Partial responses: RELIABLE (so reliable subscribers match) but a shallow history (`qos.stream_depth`): a
  slow display only needs the latest partial text.
- /diagnostics: the QoS diagnostic_aggregator and rqt_robot_monitor expect (reliable, volatile, depth 10).
Subscribers using BEST_EFFORT still match every publisher here; a BEST_EFFORT transcript publisher does not
match our RELIABLE subscription (ROS 2 QoS compatibility rules), so ASR nodes must publish RELIABLE.
"""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.subscription_content_filter_options import ContentFilterOptions


def reliable(depth: int) -> QoSProfile:
    """Return a RELIABLE, VOLATILE, KEEP_LAST(depth) profile."""
    return QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=depth, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.VOLATILE)


def transcripts(depth: int = 1000) -> QoSProfile:
    """QoS of asr/transcript and asr/text."""
    return reliable(depth)


def finals_only() -> ContentFilterOptions:
    """Content filter of the final-transcript subscription."""
    return ContentFilterOptions(filter_expression="is_final = %0", expression_parameters=["TRUE"])


def partials_only() -> ContentFilterOptions:
    """Content filter of the partial-transcript subscription."""
    return ContentFilterOptions(filter_expression="is_final = %0", expression_parameters=["FALSE"])


def responses(depth: int = 1000) -> QoSProfile:
    """QoS of globalgen/response and globalgen/intent."""
    return reliable(depth)


def stream(depth: int = 20) -> QoSProfile:
    """QoS of globalgen/response_stream."""
    return reliable(depth)


def diagnostics() -> QoSProfile:
    """QoS of /diagnostics."""
    return reliable(10)
