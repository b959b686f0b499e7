"""Second path of the stop reflex: the understanding model's own stop decision, before the decoder is queued.

The word lists (reflex.py) catch stop phrases in a fraction of a millisecond, also on partial transcripts. Warnings
without a stop word ("Kid in the road!", "要撞上了！") need language understanding: the understanding model (a few
milliseconds, no decoding) reads every final transcript on a thread of its own, before the transcript is queued
for the decoder, and a confident `stop` fires the same stop as the word lists, never queued behind the language
model; the callback thread stays free for the word lists (on 2 cores the encoder thread still slows a word-list
stop said right after a request by ~1-3 ms at p95: README).
Threshold: node parameter reflex.model_threshold (0 turns this path off), default measured on the blind stop lists
(docs/model.md).
"""

from __future__ import annotations

MAX_MODEL_STOP_CHARS = 200  # a warning is short; longer text goes the normal way (the worker still reads it)


class ModelStop:
    """Decide from the understanding model whether a final transcript is an emergency stop."""

    def __init__(self, understanding, threshold: float):
        self.understanding = understanding  # understanding.predict.Understanding, or None (path off)
        self.threshold = threshold

    @property
    def enabled(self) -> bool:
        return self.understanding is not None and self.threshold > 0.0

    def wants(self, text: str) -> bool:
        """Return True if `text` is to be read by this path (on, short, not blank)."""
        return self.enabled and len(text) <= MAX_MODEL_STOP_CHARS and bool(text.strip())

    def is_stop(self, text: str) -> bool:
        """Return True if the model says `stop` with at least `threshold` confidence."""
        if not self.wants(text):
            return False
        nlu = self.understanding.predict(text, remember=True)  # the worker takes it if this is no stop
        return nlu["intent"] == "stop" and nlu["confidence"] >= self.threshold
