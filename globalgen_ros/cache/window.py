"""Choose a short context window per request and, when a session outgrows it, the turns to keep.

The window is the smallest configured size that holds the prompt and the expected reply. A history that does
not fit the largest window is compacted at turn granularity: the `<|bos|>` attention sink and the new user turn
always stay, then the most recent turns, then the earlier turns of highest value, until the kept prompt fills
`compact_fill` of the largest window (the slack lets the next follow-ups reuse the compacted KV without
compacting again). A request whose sink + new turn + expected reply alone exceed the largest window gets no
window: the caller must defer it (watchdog -> cloud), never truncate it.

Turn value: H2O / SnapKV rank cached tokens by the attention they receive. The ONNX decoder does not output
attention weights; attention.py computes the first layer's attention exactly from the weights instead (the
value used when model.safetensors is there). The fallback here needs only the cached rows: keys with a *small*
L2 norm receive *high* attention (Devoto et al., "A Simple and Effective L2 Norm-Based Strategy for KV Cache
Compression", EMNLP 2024; the first layers are skipped), a turn's value being the mean over its tokens. On our
trained model it ranks older turns less well than the layer-0 attention (docs/cache.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class WindowPlan:
    window: int | None  # None: does not fit the largest window, defer the request
    keep: list[int] = field(default_factory=list)  # indices of the earlier turns kept, in order
    dropped: list[int] = field(default_factory=list)  # indices of the earlier turns left out
    prompt_tokens: int = 0  # sink + kept turns + new turn

    @property
    def defer(self) -> bool:
        return self.window is None


def choose_window(n_tokens: int, windows: Sequence[int]) -> int | None:
    """Return the smallest window holding n_tokens, or None if even the largest is too small."""
    fits = [w for w in sorted(windows) if n_tokens <= w]
    return fits[0] if fits else None


def plan_window(turn_lengths: Sequence[int], new_turn: int, expected_reply: int, windows: Sequence[int], *,
                sink: int = 1, recent_turns: int = 2, turn_values: Sequence[float] | None = None,
                compact_fill: float = 0.75) -> WindowPlan:
    """Plan the context of a request: window size and which earlier turns (of turn_lengths tokens) to keep."""
    everything = sink + sum(turn_lengths) + new_turn
    window = choose_window(everything + expected_reply, windows)
    if window is not None:
        return WindowPlan(window, list(range(len(turn_lengths))), [], everything)
    largest = max(windows)
    if sink + new_turn + expected_reply > largest:
        return WindowPlan(None, [], list(range(len(turn_lengths))), sink + new_turn)
    hard_room = largest - expected_reply - sink - new_turn  # what may be kept at most
    soft_room = min(hard_room, int(compact_fill * largest) - sink - new_turn)  # what earlier turns may fill
    keep: list[int] = []
    used, n = 0, len(turn_lengths)
    for i in range(n - 1, max(n - recent_turns, 0) - 1, -1):  # most recent first, without gaps
        if used + turn_lengths[i] > hard_room:
            break
        keep.append(i)
        used += turn_lengths[i]
    values = list(turn_values) if turn_values is not None else [0.0] * n
    for i in sorted(range(max(n - recent_turns, 0)), key=lambda i: (-values[i], -i)):  # most valuable first
        if used + turn_lengths[i] <= soft_room:
            keep.append(i)
            used += turn_lengths[i]
    keep.sort()
    kept_tokens = sink + sum(turn_lengths[i] for i in keep) + new_turn
    window = choose_window(kept_tokens + expected_reply, windows)
    return WindowPlan(window, keep, [i for i in range(n) if i not in keep], kept_tokens)


def key_value_scores(kv: np.ndarray, skip_layers: int = 2) -> np.ndarray:
    """Return a per-token attention proxy (T,) from cached rows (T, L, 2, H, D): minus the mean key norm."""
    L = kv.shape[1]
    first = skip_layers if L > skip_layers else 0
    norms = np.linalg.norm(kv[:, first:, 0], axis=-1)  # (T, L', H)
    return -norms.mean(axis=(1, 2))


def turn_values(token_scores: np.ndarray, turn_starts: Sequence[int], end: int) -> list[float]:
    """Return the mean token score of each turn [turn_starts[i], turn_starts[i + 1]) (the last ends at end)."""
    bounds = list(turn_starts) + [end]
    return [float(token_scores[a:b].mean()) if b > a else 0.0 for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
