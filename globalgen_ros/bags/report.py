"""Per-utterance table and summary of a replay (plain data in, text out; no rclpy)."""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

STATUS_NAMES = {0: "OK", 1: "DEFERRED_TO_CLOUD", 2: "FALLBACK", 3: "REJECTED", 4: "ERROR"}


@dataclass
class Outcome:
    """What happened to one final transcript of a replayed bag."""
    utterance_id: str
    text: str
    session_id: str = ""
    recorded_s: float = 0.0       # offset in the bag
    sent_s: float | None = None   # offset at which replay published it (after the first transcript)
    finals: int = 0               # final Responses received (must end up 1)
    status: int | None = None
    reply: str = ""
    intent: str = ""
    slots: dict[str, str] = field(default_factory=dict)
    intent_seen: bool = False     # an ActionIntent for this utterance arrived
    source: str = ""
    error: str = ""
    latency_ms: float | None = None   # the node's: receipt of the transcript -> publication of the reply
    e2e_ms: float | None = None       # replay's: publication of the transcript -> receipt of the reply
    tokens: int = 0
    forwards: int = 0
    stream_messages: int = 0

    @property
    def status_name(self) -> str:
        return "NO ANSWER" if self.status is None else STATUS_NAMES.get(self.status, str(self.status))


def width(text: str) -> int:
    """Return the terminal width of text (CJK characters take two columns)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fit(text: str, cols: int) -> str:
    """Cut text to at most cols terminal columns and pad it to exactly cols."""
    text = " ".join(text.split())
    if width(text) > cols:
        out = ""
        for c in text:
            if width(out + c) > cols - 1:
                break
            out += c
        text = out + "…"
    return text + " " * (cols - width(text))


def percentile(values: list[float], q: float) -> float | None:
    """Return the q-th percentile (nearest rank) of values, or None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def _num(value: float | None, fmt: str = "{:.1f}") -> str:
    return "-" if value is None else fmt.format(value)


def table(outcomes: list[Outcome]) -> str:
    """Format one row per utterance: text, intent, reply, status, latency and tokens per forward."""
    cols = [("text", 30), ("intent", 24), ("reply", 34), ("status", 10), ("ms", 7), ("e2e ms", 7), ("tok/fwd", 7)]
    lines = ["  ".join(fit(name, w) for name, w in cols)]
    for o in outcomes:
        intent = o.intent + ("(" + ", ".join(f"{k}={v}" for k, v in o.slots.items()) + ")" if o.slots else "")
        tpf = o.tokens / o.forwards if o.forwards else None
        cells = [o.text, intent, o.reply or o.error, o.status_name, _num(o.latency_ms), _num(o.e2e_ms),
                 _num(tpf, "{:.2f}")]
        lines.append("  ".join(fit(cell, w) for cell, (_, w) in zip(cells, cols, strict=True)).rstrip())
    return "\n".join(lines)


def summary(outcomes: list[Outcome]) -> dict:
    """Return counts per status, answers per utterance and latency percentiles."""
    latencies = [o.latency_ms for o in outcomes if o.latency_ms is not None]
    e2e = [o.e2e_ms for o in outcomes if o.e2e_ms is not None]
    edge = [o for o in outcomes if o.forwards]
    tokens, forwards = sum(o.tokens for o in edge), sum(o.forwards for o in edge)
    return {
        "utterances": len(outcomes),
        "answered_once": sum(o.finals == 1 for o in outcomes),
        "unanswered": sum(o.finals == 0 for o in outcomes),
        "answered_more_than_once": sum(o.finals > 1 for o in outcomes),
        "status": dict(Counter(o.status_name for o in outcomes)),
        "p50_ms": percentile(latencies, 50), "p95_ms": percentile(latencies, 95),
        "e2e_p50_ms": percentile(e2e, 50), "e2e_p95_ms": percentile(e2e, 95),
        "tokens_per_forward": tokens / forwards if forwards else None,
    }


def summary_text(stats: dict) -> str:
    """Format a summary as two readable lines."""
    status = ", ".join(f"{name} {count}" for name, count in sorted(stats["status"].items()))
    return (f"{stats['utterances']} utterances: {stats['answered_once']} answered exactly once, "
            f"{stats['unanswered']} unanswered, {stats['answered_more_than_once']} answered more than once "
            f"[{status}]\n"
            f"latency p50 {_num(stats['p50_ms'])} ms, p95 {_num(stats['p95_ms'])} ms (node); "
            f"e2e p50 {_num(stats['e2e_p50_ms'])} ms, p95 {_num(stats['e2e_p95_ms'])} ms; "
            f"tokens per forward {_num(stats['tokens_per_forward'], '{:.2f}')}")
