"""Measure a model directory and record the results in its manifest.json (needs torch for the fp32 side).

    PYTHONPATH=. .venv/bin/python -m globalgen_ros.model.report --model-dir models/default \\
        --held-out runs/default/corpus/eval.jsonl --natural globalgen_ros/corpus/natural_cases.jsonl \\
        [--also held_out_10000_cases=runs/c10k/eval.jsonl ...]

- held-out / natural (and every `--also` set's) accuracy through the Assistant (strategy ar, ONNX int8), as
  `globalgen eval` computes it;
- fp32 (torch) vs int8 (ONNX) greedy agreement on the held-out prompts: identical outputs, and the share of
  output tokens produced before the first divergence;
- single-token decode step of the int8 decoder (median ms, k = 1 at a KV length of 48) and file sizes.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from globalgen_ros.assistant import Assistant
from globalgen_ros.cache.kv import layer_major_rows
from globalgen_ros.model.export import load_model
from globalgen_ros.model.greedy import generate
from globalgen_ros.runtime.artifacts import sha256_file
from globalgen_ros.scoring import load_cases, score


def evaluate(assistant: Assistant, cases: list[dict], desc: str) -> tuple[dict, list[dict]]:
    preds = []
    for case in tqdm(cases, desc=desc, unit="case", mininterval=5):
        r = assistant.respond(case["text"])
        preds.append({"intent": r.intent, "slots": r.slots, "response": r.text, "token_ids": r.token_ids})
    return score(cases, preds), preds


def agreement(model, assistant: Assistant, cases: list[dict], int8_preds: list[dict]) -> dict:
    """Compare torch fp32 greedy outputs with the int8 outputs already decoded."""
    same, matched, total = 0, 0, 0
    for case, pred in tqdm(list(zip(cases, int8_preds, strict=True)), desc="fp32", unit="case", mininterval=5):
        ref = generate(model, assistant.tokenizer, assistant.schema, case["text"])
        got = pred["token_ids"]
        same += ref == got
        prefix = next((i for i, (a, b) in enumerate(zip(ref, got, strict=False)) if a != b), min(len(ref), len(got)))
        matched += prefix
        total += len(ref)
    return {"prompts": len(cases), "identical_outputs": round(same / len(cases), 4),
            "tokens_before_first_divergence": round(matched / max(1, total), 4)}


def decode_step_ms(assistant: Assistant, past: int = 48, repeats: int = 200) -> float:
    """Median wall time of one k = 1 forward of the int8 decoder against a cache of `past` tokens."""
    dims = assistant.model.dims
    kv = layer_major_rows(past, dims.kv_row_shape)  # laid out as the hot buffer: read in place
    kv[...] = np.random.default_rng(0).standard_normal(kv.shape).astype(np.float32) * 0.1
    ids, pos = np.array([[42]], np.int64), np.array([[past]], np.int64)
    mask = np.zeros((1, 1, 1, past + 1), np.float32)
    times = []
    for _ in range(repeats + 10):
        t0 = time.perf_counter()
        assistant.model.forward(ids, pos, mask, kv)
        times.append((time.perf_counter() - t0) * 1e3)
    return round(float(np.median(times[10:])), 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-dir", default="models/default")
    parser.add_argument("--held-out", required=True, help="held-out eval cases (JSONL)")
    parser.add_argument("--natural", required=True, help="hand-written natural cases (JSONL)")
    parser.add_argument("--agreement-n", type=int, default=200, help="held-out prompts for fp32 vs int8")
    parser.add_argument("--also", action="append", default=[], metavar="NAME=CASES.jsonl",
                        help="more labelled cases to score, recorded under NAME (e.g. a larger held-out sample)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave manifest.json as it is")
    args = parser.parse_args(argv)
    if bad := [item for item in args.also if "=" not in item]:
        parser.error(f"--also takes NAME=CASES.jsonl, got {bad}")
    also = dict(item.split("=", 1) for item in args.also)
    torch.set_num_threads(2)
    root = Path(args.model_dir)
    assistant = Assistant(str(root), strategy="ar", calibration=None)
    held_cases, natural_cases = load_cases(args.held_out), load_cases(args.natural)
    held, held_preds = evaluate(assistant, held_cases, "held-out")
    natural, _ = evaluate(assistant, natural_cases, "natural")
    extra = {name: {**evaluate(assistant, load_cases(path), name)[0], "cases": path,
                    "cases_sha256": sha256_file(Path(path))} for name, path in also.items()}
    step_ms = decode_step_ms(assistant)  # before torch runs (its OpenMP workers may spin after work)
    n = min(args.agreement_n, len(held_cases))
    agree = agreement(load_model(root), assistant, held_cases[:n], held_preds[:n])
    results = {"held_out": held, "natural": natural, "fp32_vs_int8": agree,
               "decode_step_ms_int8_k1": step_ms,
               "sizes_bytes": {p.name: p.stat().st_size for p in sorted(root.iterdir()) if p.is_file()},
               "held_out_cases_sha256": sha256_file(Path(args.held_out)), "strategy": "ar", "threads": 2,
               "decode_step_threads": assistant.model.threads, **extra}
    print(json.dumps(results, ensure_ascii=False))
    if not args.no_write:
        manifest = json.loads((root / "manifest.json").read_text())
        manifest["eval"] = results
        (root / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
