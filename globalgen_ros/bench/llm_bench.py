"""`globalgen bench --suite llm --model-dir DIR`: an imported chat model, our strategies against its peers.

One process, interleaved per prompt (the order rotates), after a warm-up; the same fixed English prompts (car
and robot commands, open questions) rendered the same way for every decoder (ChatAssistant: the understanding
model's decision in the system prompt, the model's chat template): our `ar`, `parallel`, `confident`, then
transformers' greedy generate() on the same weights (model.safetensors, fp32) when torch and transformers are
installed, and llama.cpp greedy and its prompt look-up decoding (--lookup tokens drafted) on the imported GGUF when
llama-cpp-python is importable (requirements/peers.txt, never required; --peer none skips them).
The reply datastore holds the `ar` replies of the earlier prompts only (never the prompt's own reply). KV prefix
reuse is off (every prompt is prefilled) unless --kv-reuse: then each strategy has its own assistant whose
cache keeps its previous request, so the shared system-prompt prefix is restored as in a running system. Prints
a table and, as its last line, one JSON object.
"""

from __future__ import annotations

import json
import platform
import resource
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from globalgen_ros.decoding.calibration import cpu_name

OURS = ("ar", "parallel", "confident")
NO_HEADS = "parallel-noheads"  # `parallel` drafting without the model's draft heads (when it has any)
PROMPTS = (  # fixed: commands the understanding model decides, and open questions it declines
    "Navigate to the nearest gas station.",
    "What is the capital of France?",
    "Set the temperature to 22 degrees.",
    "Tell me a short joke about robots.",
    "Play some jazz music.",
    "Why is the sky blue?",
    "Move forward two meters.",
    "How far is the Moon from the Earth?",
    "Open the driver window.",
    "Give me a tip for driving in the rain.",
    "Turn on the air conditioning.",
    "What can you do for me?",
    "Pause the music.",
    "Who wrote Romeo and Juliet?",
    "Go to the kitchen.",
    "Explain what a battery does in one sentence.",
)
WARMUP = ("Turn off the seat heating.", "What day comes after Monday?")


@dataclass
class Sample:
    latency_ms: float
    tokens: list[int]
    forwards: int
    decode_ms: float = 0.0  # after the first new token: the decode alone, without prompt and prefill


def rss_mb() -> float:
    """Return the peak resident set size of this process so far, MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_ours(assistant, text: str, strategy: str, max_new: int) -> Sample:
    r = assistant.respond(text, strategy=strategy, max_new_tokens=max_new)
    return Sample(r.latency_ms, r.token_ids, r.forwards, r.stats.total_ms - r.stats.ttft_ms)


def run_transformers(peer, assistant, text: str, max_new: int) -> Sample:
    """transformers greedy generate() on the prompt ChatAssistant renders (the decision included in the time)."""
    t0 = time.perf_counter()
    decision = assistant.decision(text)[0]
    ids = assistant.chat_prompt(text, decision, [], max_new)
    tokens, forwards, _ = peer.generate(ids, max_new, None)
    return Sample((time.perf_counter() - t0) * 1e3, tokens, forwards, float("nan"))


def counting_llama(gguf: Path, threads: int, n_ctx: int, lookup: int = 0):
    """A llama_cpp.Llama that counts its forwards (calls of eval after the prompt); with lookup > 0 it drafts
    that many tokens by prompt look-up (llama-cpp-python's LlamaPromptLookupDecoding)."""
    from llama_cpp import Llama
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    class CountingLlama(Llama):
        evals = 0

        def eval(self, tokens):
            self.evals += 1
            return super().eval(tokens)

    draft = LlamaPromptLookupDecoding(num_pred_tokens=lookup) if lookup > 0 else None
    return CountingLlama(model_path=str(gguf), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads,
                         draft_model=draft, verbose=False)


class LlamaCppPeer:
    """llama-cpp-python greedy decoding of the GGUF file the model was imported from (same token ids); with
    lookup > 0 its prompt look-up decoding."""

    def __init__(self, gguf: Path, threads: int, end_ids: list[int], n_ctx: int, lookup: int = 0,
                 reuse: bool = False):
        self.llm = counting_llama(gguf, threads, n_ctx, lookup)
        self.end_ids = set(end_ids)
        self.reuse = reuse  # keep the K/V of the longest common prefix with the previous request (--kv-reuse)

    def generate(self, ids: list[int], max_new: int) -> tuple[list[int], int, float]:
        """Return (new token ids, forwards after the prompt's, ms after the first new token)."""
        out: list[int] = []
        self.llm.evals, first = 0, 0.0
        if not self.reuse:  # generate() itself keeps the longest common prefix of the previous request
            self.llm.reset()
        for token in self.llm.generate(ids, top_k=1, top_p=1.0, min_p=0.0, temp=0.0, repeat_penalty=1.0):
            out.append(int(token))
            if len(out) == 1:
                first = time.perf_counter()
            if token in self.end_ids or len(out) >= max_new:
                break
        return out, max(1, self.llm.evals - 1), (time.perf_counter() - first) * 1e3


def run_llamacpp(peer: LlamaCppPeer, assistant, text: str, max_new: int) -> Sample:
    t0 = time.perf_counter()
    ids = assistant.chat_prompt(text, assistant.decision(text)[0], [], max_new)
    tokens, forwards, decode_ms = peer.generate(ids, max_new)
    return Sample((time.perf_counter() - t0) * 1e3, tokens, forwards, decode_ms)


def llamacpp_peers(assistant, threads: int, lookup: int, reuse: bool = False) -> dict[str, LlamaCppPeer]:
    """Return llama.cpp greedy and prompt look-up peers when llama-cpp-python is importable
    (requirements/peers.txt) and the GGUF source file is still there; else none."""
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        print("bench: llama.cpp peers skipped (llama-cpp-python is not installed: requirements/peers.txt)",
              file=sys.stderr)
        return {}
    recipe = assistant.artifacts.manifest.get("recipe", {})
    gguf = Path(recipe.get("source", ""))
    if recipe.get("kind") != "gguf" or not gguf.is_file():
        print(f"bench: llama.cpp peers skipped (no GGUF source file: {gguf})", file=sys.stderr)
        return {}
    ends, n_ctx = assistant.chat.end_ids, assistant.cache.capacity
    return {"llama.cpp": LlamaCppPeer(gguf, threads, ends, n_ctx, reuse=reuse),
            "llama.cpp-lookup": LlamaCppPeer(gguf, threads, ends, n_ctx, lookup, reuse=reuse)}


def transformers_peer(assistant, threads: int):
    """Return the transformers peer (fp32 generate() on model.safetensors), or None without torch/transformers."""
    from globalgen_ros.bench.decode_bench import TransformersPeer

    ends = assistant.chat.end_ids
    pad = assistant.artifacts.config.get("pad_token_id")
    try:
        return TransformersPeer(assistant.artifacts.root, threads, ends, ends[0] if pad is None else pad)
    except ImportError as e:
        print(f"bench: transformers peer skipped ({e})", file=sys.stderr)
        return None


def summarise(samples: list[Sample], ar: list[Sample]) -> dict:
    """Return median reply latency, ms per token, tokens per forward and identity to `ar` of one decoder."""
    tokens = sum(len(s.tokens) for s in samples)
    forwards = sum(s.forwards for s in samples)
    total = sum(s.latency_ms for s in samples)
    decode = sum(s.decode_ms for s in samples)
    return {"median_ms": statistics.median(s.latency_ms for s in samples),
            "decode_ms_per_token": decode / max(1, tokens - len(samples)),
            "ms_per_token": total / tokens if tokens else 0.0, "tpf": tokens / forwards if forwards else 0.0,
            "tokens": tokens, "same_as_ar": sum(s.tokens == a.tokens for s, a in zip(samples, ar, strict=True))}


def print_table(summary: dict, n: int, out=None) -> None:
    out = out or sys.stdout  # looked up per call (a default bound at import outlives a redirected stdout)
    ar = summary["ar"]["median_ms"]
    print(f"{'decoder':<18}{'median ms':>10}{'ms/token':>10}{'decode ms/tok':>14}{'TPF':>7}{'speed-up':>10}"
          f"{'same as ar':>12}", file=out)
    for name, s in summary.items():
        print(f"{name:<18}{s['median_ms']:>10.1f}{s['ms_per_token']:>10.2f}{s['decode_ms_per_token']:>14.2f}"
              f"{s['tpf']:>7.2f}{ar / s['median_ms']:>9.2f}x{s['same_as_ar']:>7}/{n:<4}", file=out)


def open_assistants(args) -> dict:
    """Return the assistant of each strategy: one shared (no KV reuse), or with --kv-reuse one each, whose cache
    keeps its own previous request (the shared system-prompt prefix is restored, as in a running system)."""
    from globalgen_ros.assistant import Assistant
    from globalgen_ros.decoding.engine import DecodeOptions

    def make(**options):
        return Assistant(args.model_dir, strategy="parallel", threads=args.threads, history_replies=256,
                         calibration=args.calibration, cache={"reuse": bool(args.kv_reuse)}, **options)

    ours = {s: make() for s in OURS} if args.kv_reuse else dict.fromkeys(OURS, make())
    if ours["parallel"].model.dims.n_extra_heads:  # the baseline of trained heads, in the same run
        ours[NO_HEADS] = make(sources=tuple(s for s in DecodeOptions().sources if s != "heads"))
    return ours


def run(args) -> int:
    from globalgen_ros.importer.assistant import ChatAssistant

    n, max_new = max(1, min(args.n, len(PROMPTS))), args.max_new_tokens
    ours = open_assistants(args)
    assistant = ours["ar"]
    if not isinstance(assistant, ChatAssistant):
        print("bench: the llm suite needs an imported model directory (`globalgen import ... --out DIR`)",
              file=sys.stderr)
        return 2
    for a in ours.values():
        a.learn_replies = False  # the bench files only earlier prompts' ar replies (below)
    rss_ours = rss_mb()
    runners = {s: (lambda t, s=s: run_ours(ours[s], t, s, max_new)) for s in OURS}
    if NO_HEADS in ours:
        runners[NO_HEADS] = lambda t: run_ours(ours[NO_HEADS], t, "parallel", max_new)
    peer = None if args.no_transformers else transformers_peer(assistant, args.threads)
    if peer is not None:
        runners["transformers"] = lambda t: run_transformers(peer, assistant, t, max_new)
    if "llama.cpp" in (getattr(args, "peer", None) or ["llama.cpp"]):
        for name, cpp in llamacpp_peers(assistant, args.threads, args.lookup, bool(args.kv_reuse)).items():
            runners[name] = lambda t, cpp=cpp: run_llamacpp(cpp, assistant, t, max_new)
    names = list(runners)
    for text in WARMUP[: max(0, args.warmup)]:
        for name in names:
            runners[name](text)
    results: dict[str, list[Sample]] = {name: [] for name in names}
    for i, text in enumerate(PROMPTS[:n]):
        for name in names[i % len(names):] + names[: i % len(names)]:  # rotate who runs first
            results[name].append(runners[name](text))
        ids = assistant.chat_prompt(text, assistant.decision(text)[0], [], max_new)
        for a in {id(a): a for a in ours.values()}.values():  # for the next prompts, as a running system has them
            a.learn(ids, results["ar"][-1].tokens)
    summary = {name: summarise(results[name], results["ar"]) for name in names}
    line = summary_line(args, ours["parallel"], summary, n, rss_ours)
    if not args.json:
        print(f"llm bench: {assistant.artifacts.root.name} ({assistant.model.decoder_file}), {n} prompts, "
              f"{cpu_name()}, {args.threads} threads, max {max_new} new tokens, KV prefix reuse "
              f"{'on' if args.kv_reuse else 'off'}")
        print_table(summary, n)
        print(f"peak RSS: {rss_ours:.0f} MiB with our decoder loaded, {line['peak_rss_mb']:.0f} MiB at the end")
    print(json.dumps(line, ensure_ascii=False))
    return 0


def summary_line(args, assistant, summary: dict, n: int, rss_ours: float) -> dict:
    """Return the JSON line: speed-ups of `parallel` (whose assistant is given), its tokens per forward,
    identity, ms per token, RSS."""
    par, ar = summary["parallel"], summary["ar"]
    line = {
        "suite": "llm", "model": assistant.artifacts.root.name, "decoder": assistant.model.decoder_file,
        "n": n, "machine": cpu_name(), "python": platform.python_version(), "threads": args.threads,
        "max_new_tokens": args.max_new_tokens, "kv_reuse": bool(args.kv_reuse),
        "speedup_parallel": round(ar["median_ms"] / par["median_ms"], 3), "tpf_parallel": round(par["tpf"], 3),
        "identical": par["same_as_ar"] == n, "identical_rate": round(par["same_as_ar"] / n, 4),
        "ms_per_token_parallel": round(par["ms_per_token"], 3), "ms_per_token_ar": round(ar["ms_per_token"], 3),
        "speedup_confident": round(ar["median_ms"] / summary["confident"]["median_ms"], 3),
        "tpf_confident": round(summary["confident"]["tpf"], 3),
        "confident_same_as_ar": round(summary["confident"]["same_as_ar"] / n, 4),
        "median_ms": {k: round(v["median_ms"], 2) for k, v in summary.items()},
        "ms_per_token": {k: round(v["ms_per_token"], 3) for k, v in summary.items()},
        "decode_ms_per_token": {k: round(v["decode_ms_per_token"], 3) for k, v in summary.items()},
        "tpf": {k: round(v["tpf"], 3) for k, v in summary.items()},
        "same_as_ar": {k: v["same_as_ar"] for k, v in summary.items()},
        "peak_rss_mb_ours": round(rss_ours, 1), "peak_rss_mb": round(rss_mb(), 1),
        "acceptance": assistant.decoder.acceptance.summary(),
    }
    if NO_HEADS in summary:
        line["speedup_parallel_noheads"] = round(ar["median_ms"] / summary[NO_HEADS]["median_ms"], 3)
        line["tpf_parallel_noheads"] = round(summary[NO_HEADS]["tpf"], 3)
        line["heads"] = assistant.artifacts.manifest.get("heads", {})
    if "transformers" in summary:
        line["speedup_vs_transformers"] = round(summary["transformers"]["median_ms"] / par["median_ms"], 3)
    if "llama.cpp" in summary:
        line["speedup_vs_llamacpp"] = round(summary["llama.cpp"]["median_ms"] / par["median_ms"], 3)
        line["ms_per_token_llamacpp"] = round(summary["llama.cpp"]["ms_per_token"], 3)
    if "llama.cpp-lookup" in summary:
        line["speedup_vs_llamacpp_lookup"] = round(summary["llama.cpp-lookup"]["median_ms"] / par["median_ms"], 3)
        line["tpf_llamacpp_lookup"] = round(summary["llama.cpp-lookup"]["tpf"], 3)
    return line
