"""The decoding engine: one `Decoder` that runs `ar`, `parallel` or `confident` generation on an OnnxModel.

Vocabulary of the loop (all strategies):
- `tokens`: prompt + accepted output. The first `cache.length` of them have their K/V in the cache; the rest
  are *pending*: accepted, but their K/V is computed by the next forward (the bonus token of the last
  verification, schema-forced tokens, and in `confident` mode tokens accepted without verification).
- Each forward feeds the pending tokens plus a draft tree rooted at the last pending token (`ar`: one pending
  token and no tree) and commits the K/V of the pending tokens and of the accepted tree branch only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from globalgen_ros.cache.kv import HotKVCache, KVCache
from globalgen_ros.decoding.calibration import AcceptanceStats, CostModel
from globalgen_ros.decoding.datastore import NgramDatastore
from globalgen_ros.decoding.drafters import ContextDrafter, CopyDrafter, DatastoreDrafter, Drafter, HeadsDrafter
from globalgen_ros.decoding.templates import TemplateDrafter
from globalgen_ros.runtime.format import END_ID, N_SPECIAL
from globalgen_ros.runtime.onnx_model import OnnxModel

STRATEGIES = ("ar", "parallel", "confident")


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


class Decoder:
    """Greedy decoding of an OnnxModel with a KV cache; strategies `ar`, `parallel` (lossless), `confident`."""

    def __init__(self, model: OnnxModel, *, end_id: int, options: DecodeOptions | None = None,
                 cache: KVCache | None = None, datastore: NgramDatastore | None = None,
                 cost: CostModel | None = None, drafters: list[Drafter] | None = None,
                 stop_ids: tuple[int, ...] = (), clock: Callable[[], float] = time.monotonic,
                 special_ids: dict[str, int] | None = None, cjk: np.ndarray | None = None,
                 more_ends: tuple[int, ...] = ()):
        self.model = model
        self.clock = clock
        self.end_id = end_id
        self.more_ends = frozenset(more_ends) - {end_id}  # a reply also ends at these (a chat model's eos ids)
        self.options = options or DecodeOptions()
        self.cache = cache if cache is not None else HotKVCache(model.dims.max_len, model.dims.kv_row_shape)
        self.datastore = datastore if datastore is not None else NgramDatastore()
        self.cost = cost
        self.acceptance = AcceptanceStats()
        self.overhead_ms = 0.15  # running estimate of per-step time outside the decoder forward
        self.stop_ids = stop_ids
        self.default_drafters = drafters
        self.special_ids = special_ids or {}  # reply, user, assistant: what the template drafter needs
        self.cjk = cjk                        # (V,) bool: tokens spelling CJK characters (reply language)
        self._zeros_row = np.zeros((1, 1, 1, model.dims.max_len + 64), np.float32)
        self._cost_rows: dict[tuple, np.ndarray] = {}

    def calibrate(self, **kwargs) -> CostModel:
        """Measure this machine's forward cost curve (used to size draft trees)."""
        from globalgen_ros.decoding.calibration import measure_cost

        self.cost = measure_cost(self.model, **kwargs)
        return self.cost

    def make_drafters(self) -> list[Drafter]:
        if self.default_drafters is not None:
            return self.default_drafters
        o, out, ids = self.options, [], self.special_ids
        if "copy" in o.sources and self.datastore.copy_prior and {"value", "user", "assistant", "reply"} <= ids.keys():
            out.append(CopyDrafter(self.datastore.copy_prior, self.datastore.end_prior, ids["value"], ids["user"],
                                   ids["assistant"], ids["reply"]))
        if ("templates" in o.sources and self.datastore.templates is not None and self.cjk is not None
                and {"reply", "user", "assistant"} <= ids.keys()):
            out.append(TemplateDrafter(self.datastore.templates, ids["reply"], ids["user"], ids["assistant"],
                                       self.cjk))
        if "context" in o.sources:
            out.append(ContextDrafter(stop_ids=self.stop_ids))
        if "datastore" in o.sources:
            out.append(DatastoreDrafter(self.datastore, self.end_id))
        if "heads" in o.sources and self.model.dims.n_extra_heads:
            out.append(HeadsDrafter(o.head_topk))
        return out

    def step_costs(self, n_pending: int, max_nodes: int, past_len: int) -> np.ndarray:
        """Return the estimated ms of a step feeding n_pending + t tokens, for t = 0..max_nodes."""
        key = (past_len // 16, id(self.cost))  # a new cost model (calibrate()) invalidates the rows
        row = self._cost_rows.get(key)
        if row is None:  # forward ms for n = 0..max_len new tokens at this past length (16-token buckets)
            n = np.arange(self.model.dims.max_len + 1)
            row = (1.0 + 0.12 * (n - 1) if self.cost is None  # a typical small-model CPU curve until calibrated
                   else self.cost.costs(n, past_len // 16 * 16 + 8))
            self._cost_rows = {k: v for k, v in self._cost_rows.items() if k[1] == key[1]}
            self._cost_rows[key] = row
        end = n_pending + max_nodes + 1
        if end > len(row):
            row = np.concatenate([row, row[-1] + (row[-1] - row[-2]) * np.arange(1, end - len(row) + 1)])
        return self.overhead_ms + row[n_pending:end]

    def generate(self, prompt: list[int], *, constraint: Constraint | None = None, strategy: str | None = None,
                 max_new_tokens: int | None = None, on_tokens: Callable[[list[int]], None] | None = None,
                 deadline: float | None = None, cancel: Callable[[], bool] | None = None,
                 drafters: list[Drafter] | None = None) -> Generation:
        """Decode a reply to `prompt` (token ids); return its tokens, why it stopped and statistics."""
        from globalgen_ros.decoding.ar import generate_ar
        from globalgen_ros.decoding.parallel import generate_parallel

        strategy = strategy or self.options.strategy
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown decoding strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
        if not prompt:
            raise ValueError("empty prompt")
        max_new = self.options.max_new_tokens if max_new_tokens is None else max_new_tokens
        limit = min(len(prompt) + max(1, max_new), self.cache.capacity)
        if len(prompt) >= limit:
            raise ValueError(f"prompt of {len(prompt)} tokens leaves no room in a cache of {self.cache.capacity}")
        constraint = constraint or Unconstrained()
        run = Run(tokens=list(prompt), n_prompt=len(prompt), limit=limit, constraint=constraint,
                  state=constraint.start(), stats=GenerationStats(strategy=strategy, prompt_tokens=len(prompt)),
                  t0=time.perf_counter(), on_tokens=on_tokens, deadline=deadline, cancel=cancel, clock=self.clock,
                  more_ends=self.more_ends)
        self.cache.restore(prompt)  # K/V of the prompt's cached prefix, if any: not prefilled again
        if strategy == "ar":
            generate_ar(self, run)
        else:
            generate_parallel(self, run, drafters if drafters is not None else self.make_drafters(),
                              confident=strategy == "confident")
        run.stats.new_tokens = len(run.output)
        run.stats.total_ms = (time.perf_counter() - run.t0) * 1e3
        return Generation(tokens=run.output, finish_reason=run.finish or "max_tokens", stats=run.stats)

    def forward(self, run: Run, ids: np.ndarray, positions: np.ndarray, mask: np.ndarray, logits_from: int = 0):
        """Run one decoder forward over `ids` (1, n) against the cache, logits of rows logits_from..; count it."""
        t = time.perf_counter()
        out = self.model.forward(ids, positions, mask, self.cache.past(), logits_from)
        dt = (time.perf_counter() - t) * 1e3
        stage = "prefill" if run.stats.forwards == 0 else "forward"
        run.stats.stage_ms[stage] += dt
        run.stats.forwards += 1
        return out

    def causal_row_mask(self, past_len: int) -> np.ndarray:
        """Return the (1, 1, 1, P + 1) all-visible mask of a single new token (a view, no allocation)."""
        return self._zeros_row[..., : past_len + 1]
