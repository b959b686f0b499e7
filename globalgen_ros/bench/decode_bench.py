"""`globalgen bench --suite decode`: ar, parallel, confident and transformers peers on the same weights.

One process, interleaved per prompt (the order rotates), after a warm-up. Prints a table (median / p95 reply
latency, time to first token, tokens/s, tokens per forward, speed-ups, identity to `ar`, intent accuracy), a
table of time per engine stage, and as its last line one JSON object.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from globalgen_ros.decoding.calibration import cpu_name

OURS = ("ar", "parallel", "confident")
PEERS = ("hf_greedy", "hf_lookup")
# The engine's ceiling: `parallel` whose only draft is the `ar` answer (every draft right), at the default tree
# limits, with unlimited trees after the prompt's forward (what a drafter that needs the model's first token
# could reach), and with the whole answer drafted into the prompt's forward as well (one forward in all).
CEILINGS = {"oracle": {}, "oracle_deep": {"max_depth": 64, "max_draft": 64},
            "oracle_1fwd": {"max_depth": 64, "max_draft": 64, "prefill_draft": 64}}


@dataclass
class Sample:
    latency_ms: float
    ttft_ms: float
    tokens: list[int]
    forwards: int
    intent: str
    engine_ms: float = 0.0  # time inside Decoder.generate
    stage_ms: dict[str, float] = field(default_factory=dict)
    hist: dict[int, int] = field(default_factory=dict)


def load_cases(path: str | None, n: int, seed: int = 0) -> list[dict]:
    """Return up to n eval cases ({"text", "intent", ...}): from a JSONL file, or the seeded held-out split."""
    if path is None:
        default = Path(__file__).resolve().parents[2] / "data" / "corpus" / "eval.jsonl"
        if default.is_file():
            path = str(default)
    if path is not None:
        with open(path, encoding="utf-8") as f:
            cases = [json.loads(line) for line in f if line.strip()]
    else:
        import random

        from globalgen_ros.corpus.build import Builder
        from globalgen_ros.schema import load_schema

        builder, rng = Builder(load_schema(), seed), random.Random(seed + 2)  # the same draw as corpus.build
        cases = []
        for i in range(n):
            lang = "zh" if i % 2 == 0 else "en"
            t = builder.turn(rng, True, builder.sample_intent(rng), lang)
            cases.append({"text": t["user"], "intent": t["intent"], "slots": t["slots"], "lang": lang})
    return cases[:n]


class TransformersPeer:
    """Hugging Face LlamaForCausalLM (PyTorch, CPU, fp32) on the shipped safetensors: greedy generate()."""

    def __init__(self, model_dir: Path, threads: int, end_id: int, pad_id: int):
        # OpenMP workers that spin after each torch op would steal the CPU from the ONNX Runtime strategies
        # interleaved with this peer: make them sleep (read when torch loads its OpenMP runtime).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        os.environ.setdefault("GOMP_SPINCOUNT", "0")
        import torch
        from transformers import LlamaForCausalLM
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        torch.set_num_threads(threads)
        self.torch = torch
        self.model = LlamaForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32).eval()
        self.end_id, self.pad_id = end_id, pad_id
        self.calls = 0
        self.model.register_forward_hook(self._count)

    def _count(self, *_):
        self.calls += 1

    def generate(self, ids: list[int], max_new_tokens: int, lookup: int | None) -> tuple[list[int], int, float]:
        """Return (new tokens, forwards, ms to first new token)."""
        from transformers.generation.streamers import BaseStreamer

        marks: list[float] = []

        class Clock(BaseStreamer):
            def put(self, value):
                marks.append(time.perf_counter())

            def end(self):
                pass

        kwargs = {"prompt_lookup_num_tokens": lookup} if lookup else {}
        self.calls = 0
        t0 = time.perf_counter()
        with self.torch.inference_mode():
            out = self.model.generate(self.torch.tensor([ids]), max_new_tokens=max_new_tokens, do_sample=False,
                                      eos_token_id=self.end_id, pad_token_id=self.pad_id, streamer=Clock(),
                                      **kwargs)
        ttft = (marks[1] - t0) * 1e3 if len(marks) > 1 else 0.0  # put() #0 is the prompt
        return out[0, len(ids):].tolist(), self.calls, ttft


def run_ours(assistant, case: dict, strategy: str, max_new: int) -> Sample:
    r = assistant.respond(case["text"], strategy=strategy, max_new_tokens=max_new)
    return Sample(r.latency_ms, r.ttft_ms, r.token_ids, r.forwards, r.intent, r.stats.total_ms,
                  dict(r.stats.stage_ms), dict(r.stats.accepted_hist))


def run_oracle(assistant, case: dict, answer: list[int], max_new: int, options: dict) -> Sample:
    """Decode with `parallel` whose only draft is `answer`; own acceptance statistics, options restored."""
    from dataclasses import replace

    from globalgen_ros.decoding.calibration import AcceptanceStats
    from globalgen_ros.decoding.drafters import OracleDrafter
    from globalgen_ros.runtime.format import prompt_tokens

    dec, tok = assistant.decoder, assistant.tokenizer
    ids, user = prompt_tokens(tok, case["text"])
    nlu = assistant.understanding.predict(case["text"]) if assistant.understanding is not None else None
    constraint = assistant.header_constraint(nlu, user)[1]  # the header as the assistant decodes it
    saved = dec.options, dec.acceptance, dec.overhead_ms
    dec.options, dec.acceptance = replace(dec.options, **options), AcceptanceStats()
    try:
        gen = dec.generate(ids, constraint=constraint, strategy="parallel", max_new_tokens=max_new,
                           drafters=[OracleDrafter(ids, answer)])
    finally:
        dec.options, dec.acceptance, dec.overhead_ms = saved
    if gen.tokens != answer:
        raise AssertionError(f"parallel with perfect drafts differs from ar on {case['text']!r}")
    return Sample(gen.stats.total_ms, gen.stats.ttft_ms, gen.tokens, gen.stats.forwards, "", gen.stats.total_ms)


def run_peer(peer: TransformersPeer, assistant, case: dict, lookup: int | None, max_new: int) -> Sample:
    from globalgen_ros.runtime.format import parse_output, prompt_tokens

    t0 = time.perf_counter()
    ids, _ = prompt_tokens(assistant.tokenizer, case["text"])
    tokens, forwards, ttft = peer.generate(ids, max_new, lookup)
    end = assistant.tokenizer.end
    body = tokens[: tokens.index(end)] if end in tokens else tokens
    intent = parse_output(assistant.tokenizer.decode(body)).intent
    return Sample((time.perf_counter() - t0) * 1e3, ttft, tokens, forwards, intent)


def same_as(a: list[Sample], b: list[Sample]) -> list[bool]:
    """Return, per prompt, whether two strategies produced the same tokens."""
    return [x.tokens == y.tokens for x, y in zip(a, b, strict=True)]


def intent_accuracy(samples: list[Sample], cases: list[dict]) -> float:
    return sum(s.intent == c["intent"] for s, c in zip(samples, cases, strict=True)) / len(cases)


def summarise(samples: list[Sample]) -> dict:
    lat = [s.latency_ms for s in samples]
    tokens = sum(len(s.tokens) for s in samples)
    forwards = sum(s.forwards for s in samples)
    hist: dict[int, int] = {}
    stages: dict[str, float] = {}
    for s in samples:
        for k, v in s.hist.items():
            hist[k] = hist.get(k, 0) + v
        for k, v in s.stage_ms.items():
            stages[k] = stages.get(k, 0.0) + v / len(samples)
    return {"median_ms": statistics.median(lat), "p95_ms": float(np.percentile(lat, 95)),
            "ttft_ms": statistics.median(s.ttft_ms for s in samples),
            "tokens_per_s": tokens / (sum(lat) / 1e3), "tpf": tokens / forwards if forwards else 0.0,
            "tokens": tokens, "forwards": forwards, "hist": dict(sorted(hist.items())), "stage_ms": stages}


def print_tables(summary: dict, cases: list[dict], results: dict, out=sys.stdout) -> None:
    ar = summary["ar"]["median_ms"]
    print(f"{'strategy':<12}{'median ms':>10}{'p95 ms':>9}{'TTFT ms':>9}{'tok/s':>8}{'TPF':>6}{'speed-up':>9}"
          f"{'same as ar':>11}{'intent acc':>11}", file=out)
    for name, s in summary.items():
        same = sum(same_as(results[name], results["ar"]))
        acc = intent_accuracy(results[name], cases)
        print(f"{name:<12}{s['median_ms']:>10.2f}{s['p95_ms']:>9.2f}{s['ttft_ms']:>9.2f}{s['tokens_per_s']:>8.0f}"
              f"{s['tpf']:>6.2f}{ar / s['median_ms']:>8.2f}x{same:>6}/{len(cases):<4}{acc:>11.3f}", file=out)
    print("\nmean ms per request by stage (draft = proposing + sizing + mask; verify = acceptance walk + KV commit)",
          file=out)
    stages = ("prefill", "forward", "draft", "verify", "heads")
    print(f"{'strategy':<12}" + "".join(f"{k:>9}" for k in stages) + f"{'forwards':>10}", file=out)
    for name in OURS:
        st, n = summary[name]["stage_ms"], len(cases)
        print(f"{name:<12}" + "".join(f"{st.get(k, 0.0):>9.2f}" for k in stages)
              + f"{summary[name]['forwards'] / n:>10.1f}", file=out)


def ceiling_summary(results: dict[str, list[Sample]], ceiling: dict[str, list[Sample]]) -> dict:
    """Return engine-time medians, speed-ups over `ar` and forwards of `parallel` and its perfect-draft ceilings."""
    ar = statistics.median(s.engine_ms for s in results["ar"])
    rows = {"parallel": results["parallel"], **ceiling}
    return {name: {"engine_ms": round(statistics.median(s.engine_ms for s in xs), 3),
                   "speedup": round(ar / statistics.median(s.engine_ms for s in xs), 3),
                   "forwards": round(statistics.mean(s.forwards for s in xs), 2)} for name, xs in rows.items()}


def print_ceiling(rows: dict, out=sys.stdout) -> None:
    print("\nceiling: `parallel` with perfect drafts (the ar answer), engine time only (Decoder.generate)", file=out)
    print(f"{'drafts':<12}{'median ms':>10}{'speed-up':>9}{'forwards':>10}", file=out)
    for name, r in rows.items():
        print(f"{name:<12}{r['engine_ms']:>10.2f}{r['speedup']:>8.2f}x{r['forwards']:>10.2f}", file=out)


def plot(summary: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    names = list(summary)
    med = [summary[n]["median_ms"] for n in names]
    p95 = [summary[n]["p95_ms"] - summary[n]["median_ms"] for n in names]
    ax1.bar(names, med, yerr=[[0] * len(names), p95], capsize=4, color="tab:blue")
    ax1.set_ylabel("reply latency, ms (median, bar to p95)")
    ax1.set_title("latency per strategy")
    ax1.tick_params(axis="x", rotation=20)
    width = 0.4
    for i, name in enumerate(("parallel", "confident")):
        hist = summary[name]["hist"]
        total = sum(hist.values()) or 1
        ks = sorted(hist)
        ax2.bar([k + (i - 0.5) * width for k in ks], [hist[k] / total for k in ks], width, label=name)
    ax2.set_xlabel("tokens accepted per forward")
    ax2.set_ylabel("share of forwards")
    ax2.set_title("tokens per forward")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def profile_parallel(assistant, cases: list[dict], max_new: int, path: str) -> str:
    """Profile `parallel` over the cases with pyinstrument; write the report; return its short text form."""
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.0002)
    profiler.start()
    for case in cases:
        assistant.respond(case["text"], strategy="parallel", max_new_tokens=max_new)
    profiler.stop()
    if path.endswith(".html"):
        Path(path).write_text(profiler.output_html())
    else:
        Path(path).write_text(profiler.output_text(unicode=True, color=False))
    return profiler.output_text(unicode=False, color=False, show_all=False)


def run(args) -> int:
    from globalgen_ros.assistant import Assistant

    n, max_new, warmup = args.n, args.max_new_tokens, args.warmup
    cases = load_cases(args.prompts, n + warmup)
    if len(cases) <= warmup:
        print(f"bench: need more than {warmup} prompts, got {len(cases)}", file=sys.stderr)
        return 2
    # Every strategy sees each prompt fresh: no runtime reply history in the datastore (it would hold the same
    # prompt's answer from another strategy) and no KV prefix reuse (measured by `--suite cache`).
    assistant = Assistant(args.model_dir, strategy="parallel", threads=args.threads, history_replies=0,
                          calibration=args.calibration, cache={"reuse": False})
    peer = None
    if not args.no_transformers:
        tok = assistant.tokenizer
        try:
            peer = TransformersPeer(assistant.artifacts.root, args.threads, tok.end, tok.pad)
        except ImportError as e:  # a robot image without torch/transformers: measure our strategies only
            print(f"bench: transformers peers skipped ({e}); install requirements/train.txt to include them",
                  file=sys.stderr)
    names = list(OURS) + (list(PEERS) if peer else [])
    runners = {s: (lambda c, s=s: run_ours(assistant, c, s, max_new)) for s in OURS}
    if peer:
        runners["hf_greedy"] = lambda c: run_peer(peer, assistant, c, None, max_new)
        runners["hf_lookup"] = lambda c: run_peer(peer, assistant, c, args.lookup, max_new)
    for case in cases[:warmup]:
        for name in names:
            runners[name](case)
    cases = cases[warmup:]
    results: dict[str, list[Sample]] = {name: [] for name in names}
    ceiling: dict[str, list[Sample]] = {}
    for i, case in enumerate(cases):
        order = names[i % len(names):] + names[: i % len(names)]  # rotate who runs first
        for name in order:
            results[name].append(runners[name](case))
        for name, options in CEILINGS.items():
            ceiling.setdefault(name, []).append(run_oracle(assistant, case, results["ar"][-1].tokens, max_new,
                                                           options))
    summary = {name: summarise(results[name]) for name in names}
    identical = same_as(results["parallel"], results["ar"])
    acc = {name: intent_accuracy(results[name], cases) for name in names}
    ar_med = summary["ar"]["median_ms"]
    line = {
        "suite": "decode", "n": len(cases), "machine": cpu_name(), "python": platform.python_version(),
        "threads": args.threads, "max_new_tokens": max_new,
        "speedup_parallel": round(ar_med / summary["parallel"]["median_ms"], 3),
        "tpf_parallel": round(summary["parallel"]["tpf"], 3),
        "identical": all(identical), "identical_rate": round(sum(identical) / len(cases), 4),
        "speedup_confident": round(ar_med / summary["confident"]["median_ms"], 3),
        "tpf_confident": round(summary["confident"]["tpf"], 3),
        "intent_accuracy_ar": round(acc["ar"], 4), "intent_accuracy_parallel": round(acc["parallel"], 4),
        "intent_accuracy_confident": round(acc["confident"], 4),
        "confident_same_as_ar": round(sum(same_as(results["confident"], results["ar"])) / len(cases), 4),
        "speedup_vs_transformers": (round(summary["hf_greedy"]["median_ms"] / summary["parallel"]["median_ms"], 3)
                                    if peer else None),
        "speedup_vs_transformers_lookup": (round(summary["hf_lookup"]["median_ms"]
                                                 / summary["parallel"]["median_ms"], 3) if peer else None),
        "median_ms": {k: round(v["median_ms"], 3) for k, v in summary.items()},
        "p95_ms": {k: round(v["p95_ms"], 3) for k, v in summary.items()},
        "ttft_ms": {k: round(v["ttft_ms"], 3) for k, v in summary.items()},
        "tpf": {k: round(v["tpf"], 3) for k, v in summary.items()},
        "acceptance": assistant.decoder.acceptance.summary(),
        "ceiling": ceiling_summary(results, ceiling),
    }
    if not args.json:
        print(f"decode bench: {len(cases)} prompts, {cpu_name()}, {args.threads} threads, max {max_new} new tokens")
        print_tables(summary, cases, results)
        print_ceiling(line["ceiling"])
    if args.plot:
        plot(summary, args.plot)
        if not args.json:
            print(f"\nplot written to {args.plot}")
    if args.profile:
        text = profile_parallel(assistant, cases[: min(len(cases), 100)], max_new, args.profile)
        if not args.json:
            print(f"\npyinstrument profile of `parallel` written to {args.profile}; top of the call tree:")
            print("\n".join(text.splitlines()[:40]))
    print(json.dumps(line, ensure_ascii=False))
    return 0
