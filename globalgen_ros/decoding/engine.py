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

import numpy as np

from globalgen_ros.cache.kv import HotKVCache, KVCache
from globalgen_ros.decoding.ar import generate_ar
from globalgen_ros.decoding.calibration import AcceptanceStats, CostModel
from globalgen_ros.decoding.datastore import NgramDatastore
from globalgen_ros.decoding.drafters import ContextDrafter, CopyDrafter, DatastoreDrafter, Drafter, HeadsDrafter
from globalgen_ros.decoding.parallel import generate_parallel
from globalgen_ros.decoding.step import Constraint, DecodeOptions, Generation, GenerationStats, Run, Unconstrained
from globalgen_ros.decoding.templates import TemplateDrafter
from globalgen_ros.runtime.onnx_model import OnnxModel

STRATEGIES = ("ar", "parallel", "confident")


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
