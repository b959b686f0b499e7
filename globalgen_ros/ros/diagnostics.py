"""Node statistics (latency percentiles, tokens per forward, counts per status) as a DiagnosticArray."""

from __future__ import annotations

import threading
from collections import Counter, deque

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from std_msgs.msg import Header

STATUS_NAMES = ("ok", "deferred_to_cloud", "fallback", "rejected", "error")


class NodeStats:
    """Collect per-response numbers from the callback and worker threads."""

    def __init__(self, window: int = 500):
        self._lock = threading.Lock()
        self._latency: deque[float] = deque(maxlen=window)
        self._edge_latency: deque[float] = deque(maxlen=window)
        self.counts: Counter[str] = Counter()
        self.tokens = 0
        self.forwards = 0
        self.stops = 0
        self.stop_ms: deque[float] = deque(maxlen=window)

    def record(self, status: str, source: str, latency_ms: float, tokens: int = 0, forwards: int = 0) -> None:
        """Count one final response."""
        with self._lock:
            self.counts[status] += 1
            self._latency.append(latency_ms)
            if source == "edge":
                self._edge_latency.append(latency_ms)
                self.tokens += tokens
                self.forwards += forwards

    def record_stop(self, latency_ms: float) -> None:
        """Count one stop reflex and the time from receipt to publication."""
        with self._lock:
            self.stops += 1
            self.stop_ms.append(latency_ms)

    def snapshot(self) -> dict[str, float]:
        """Return the current numbers as a flat dict."""
        with self._lock:
            out: dict[str, float] = {f"count_{name}": self.counts[name] for name in STATUS_NAMES}
            out["count_total"] = sum(self.counts.values())
            for key, values in (("latency", self._latency), ("edge_latency", self._edge_latency),
                                ("stop", self.stop_ms)):
                arr = np.asarray(values, dtype=np.float64)
                for q in (50, 95, 99):
                    out[f"{key}_p{q}_ms"] = float(np.percentile(arr, q)) if arr.size else 0.0
            out["tokens_per_forward"] = self.tokens / self.forwards if self.forwards else 0.0
            out["stops"] = self.stops
            return out


def build(node_name: str, stamp, stats: dict[str, float], extra: dict[str, str], level: bytes,
          message: str) -> DiagnosticArray:
    """Return one DiagnosticArray with a single status for the node."""
    values = [KeyValue(key=key, value=f"{value:.3f}" if isinstance(value, float) else str(value))
              for key, value in stats.items()]
    values += [KeyValue(key=key, value=str(value)) for key, value in extra.items()]
    status = DiagnosticStatus(level=level, name=f"{node_name}: assistant", message=message,
                              hardware_id="globalgen_ros", values=values)
    return DiagnosticArray(header=Header(stamp=stamp), status=[status])


def level_for(queue_depth: int, queue_max: int, circuit: str, cloud_enabled: bool) -> tuple[bytes, str]:
    """Return (level, message): WARN when the queue is nearly full or the cloud circuit is open."""
    if queue_depth >= queue_max:
        return DiagnosticStatus.WARN, f"queue full ({queue_depth}/{queue_max}): rejecting transcripts"
    if cloud_enabled and circuit != "closed":
        return DiagnosticStatus.WARN, f"cloud circuit {circuit}: deferred requests get FALLBACK"
    return DiagnosticStatus.OK, "ok"
