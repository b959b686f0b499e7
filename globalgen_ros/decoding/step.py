"""Step primitives shared by the decoding strategies: the run state, greedy choice, accepting a token.

`ar`, `parallel` and `confident` (and the Decoder in engine.py) import these; this module imports no strategy,
so the strategies never import each other in a circle.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from globalgen_ros.runtime.format import END_ID, N_SPECIAL

if TYPE_CHECKING:
    from globalgen_ros.decoding.engine import Decoder


class Constraint(Protocol):
    """The HeaderConstraint interface of runtime/constraints.py (docs/architecture.md)."""

    def start(self) -> Any: ...
    def allowed(self, state: Any) -> np.ndarray | None: ...
    def allowed_set(self, state: Any) -> frozenset[int] | None: ...
    def advance(self, state: Any, token_id: int) -> Any: ...
    def forced(self, state: Any) -> int | None: ...


class Unconstrained:
    """Free text everywhere: any token but the special ones, <|end|> aside (plain greedy decoding of a reply)."""

    def start(self) -> None:
        return None

    def allowed(self, state: Any) -> None:
        return None

    def allowed_set(self, state: Any) -> None:
        return None

    def advance(self, state: Any, token_id: int) -> None:
        return None

    def forced(self, state: Any) -> None:
        return None


@dataclass
class DecodeOptions:
    """Parameters of the decoding strategies (also accepted as keyword options by Assistant)."""

    strategy: str = "parallel"
    max_new_tokens: int = 64
    max_draft: int = 20     # most draft-tree nodes verified in one forward
    max_depth: int = 16     # deepest draft node
    prefill_draft: int = 0  # most draft nodes in the first forward (the prompt's): intent guesses cost TTFT
    schema_branches: int = 4  # where the schema allows at most this many tokens, draft all of them (0: off)
    head_topk: int = 2      # alternatives per head: 1 (top-1 chain) or 2
    heads_skip: float = 3.0  # skip the heads when cheap drafts already promise this many accepted tokens
    enough: float = 0.6      # stop asking drafters once a chain promises this share of max_depth tokens
    sources: tuple[str, ...] = ("copy", "templates", "context", "datastore", "heads")
    tau: float = 0.93       # confident: threshold at the first step ...
    tau_decay: float = 0.97  # ... multiplied by this per forward ...
    tau_floor: float = 0.5  # ... down to this floor ...
    tau_end: float = 0.93   # ... and raised back to this for <|end|> and within end_window tokens of the limit
    end_window: int = 4
    lossy_header: bool = False  # confident: may header choices (intent, slots) skip verification too?


@dataclass
class GenerationStats:
    """Per-request statistics of the engine."""

    strategy: str = ""
    prompt_tokens: int = 0
    new_tokens: int = 0
    forwards: int = 0
    draft_tokens: int = 0      # draft-tree nodes verified (all forwards)
    unverified: int = 0        # confident: tokens accepted without verification
    accepted_hist: dict[int, int] = field(default_factory=dict)  # tokens accepted by a forward -> count
    ttft_ms: float = 0.0       # time until the first forward's tokens were accepted
    total_ms: float = 0.0
    stage_ms: dict[str, float] = field(default_factory=lambda: dict.fromkeys(
        ("draft", "forward", "verify", "heads", "prefill"), 0.0))
    first_prob: float = 1.0    # probability of the first real (non-forced) constrained decision

    @property
    def tokens_per_forward(self) -> float:
        return self.new_tokens / self.forwards if self.forwards else 0.0

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["tokens_per_forward"] = round(self.tokens_per_forward, 3)
        d["stage_ms"] = {k: round(v, 3) for k, v in self.stage_ms.items()}
        return d


@dataclass
class Generation:
    tokens: list[int]      # generated tokens (<|end|> included when reached)
    finish_reason: str     # 'end' | 'max_tokens' | 'deadline' | 'cancelled'
    stats: GenerationStats


@dataclass
class Run:
    """State of one request while it is decoded."""

    tokens: list[int]
    n_prompt: int
    limit: int                 # len(tokens) may not exceed this
    constraint: Constraint
    state: Any                 # constraint state after all of `tokens`
    stats: GenerationStats
    t0: float
    on_tokens: Callable[[list[int]], None] | None = None
    deadline: float | None = None
    cancel: Callable[[], bool] | None = None
    clock: Callable[[], float] = time.monotonic  # the clock of `deadline`
    more_ends: frozenset[int] = frozenset()  # end-of-sequence ids besides the decoder's end_id (imported models)
    finish: str | None = None
    first_decision: bool = True
    head_base: int = -1                     # index of the token whose hidden state feeds the heads
    head_hidden: np.ndarray | None = None   # (1, d) that hidden state
    head_out: tuple[np.ndarray, np.ndarray] | None = None  # its (K, k) top tokens and probabilities, once run

    @property
    def output(self) -> list[int]:
        return self.tokens[self.n_prompt:]

    def stop_reason(self) -> str | None:
        """Say why generation must stop before the next forward, if it must."""
        if self.cancel is not None and self.cancel():
            return "cancelled"
        if self.deadline is not None and self.clock() >= self.deadline:
            return "deadline"
        return None


def softmax_prob(row: np.ndarray, allowed: np.ndarray | None, token: int) -> float:
    """Return p(token) under softmax over the allowed entries of one logits row (V,)."""
    z = row if allowed is None else row[allowed]
    mx = z.max()
    return float(np.exp(row[token] - mx) / np.exp(z - mx).sum())


def greedy(row: np.ndarray, allowed: np.ndarray | None) -> int:
    """Return the argmax of one logits row (V,) over the allowed tokens; None means free text (the reply): any
    token but the special ones, <|end|> aside, so a reply can never spell header or prompt markers."""
    if allowed is None:
        best = N_SPECIAL + int(row[N_SPECIAL:].argmax())
        return END_ID if row[END_ID] >= row[best] else best
    return int(allowed[row[allowed].argmax()])


def free_text_token(token: int) -> bool:
    """Return True if `token` may appear in free text (see greedy)."""
    return token >= N_SPECIAL or token == END_ID


def accept(run: Run, token: int, end_id: int, state: Any = None, *, known_state: bool = False) -> None:
    """Append an accepted token, advance the constraint and set `finish` at an end id or the length limit."""
    run.tokens.append(token)
    run.state = state if known_state else run.constraint.advance(run.state, token)
    if token == end_id or token in run.more_ends:
        run.finish = "end"
    elif len(run.tokens) >= run.limit:
        run.finish = "max_tokens"


def extend_forced(dec: Decoder, run: Run) -> None:
    """Accept the tokens the schema forces after the last accepted one (no forward needed to choose them)."""
    con = run.constraint
    while run.finish is None:
        forced = con.forced(run.state)
        if forced is None:
            return
        accept(run, forced, dec.end_id)


def record_first_decision(run: Run, row: np.ndarray, allowed: np.ndarray | None, token: int) -> None:
    """Keep the probability of the first constrained choice (the intent) as the reply confidence."""
    if run.first_decision and allowed is not None and len(allowed) > 1:
        run.stats.first_prob = softmax_prob(row, allowed, token)
        run.first_decision = False
