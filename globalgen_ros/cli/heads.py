"""`globalgen heads --model-dir DIR`: train draft heads for an imported model on its own greedy replies.

Self-distillation (importer/heads.py): the model answers English transcripts of the phrasing data with `ar`
(never the llm benchmark's prompts); K residual heads learn to predict the tokens 2..K+1 ahead from the final
hidden state, scored over a draft vocabulary of the reply tokens seen. Writes heads.int8.onnx, heads_vocab.npy,
num_extra_heads in config.json and the manifest; `parallel` then drafts from them too (still token-identical to
`ar`). `--kind recurrent` (importer/recurrent_heads.py) feeds the bonus token and each guess back into one
unrolled block instead of K independent heads. `--samples FILE.npz` keeps the collected replies for a rerun.
Needs torch (requirements/train.txt). Measure with `globalgen bench --suite llm --model-dir DIR`.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `heads` and its options."""
    p = subparsers.add_parser("heads", help="train draft heads for an imported model (needs torch)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model-dir", required=True, help="an imported model directory (globalgen import)")
    p.add_argument("--prompts", type=int, default=1000, help="transcripts answered for training (default 1000)")
    p.add_argument("--held-out", type=int, default=40, help="of them, kept out of training to measure accuracy")
    p.add_argument("--heads", type=int, default=3, help="heads: tokens 2..K+1 ahead (default 3)")
    p.add_argument("--vocab", type=int, default=8192, help="largest draft vocabulary (default 8192)")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--minutes", type=float, default=20.0, help="stop training after this long")
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--kind", choices=("medusa", "recurrent"), default="medusa",
                   help="independent heads (medusa) or one block fed its own guesses (recurrent)")
    p.add_argument("--samples", metavar="FILE.npz", action="append",
                   help="collected replies: the files that exist are loaded (give it several times to pool them); "
                        "if none exists, the replies are collected and saved in the first")
    p.add_argument("--prompt-file", metavar="FILE.txt",
                   help="answer these transcripts (one per line) instead of the phrasing data's")
    p.add_argument("--collect-only", action="store_true", help="collect (and save with --samples), do not train")
    return p


def run(args) -> int:
    import numpy as np
    import torch

    from globalgen_ros.bench.llm_bench import PROMPTS, WARMUP
    from globalgen_ros.importer import heads as H
    from globalgen_ros.importer.assistant import ChatAssistant

    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    assistant = ChatAssistant(args.model_dir, strategy="ar", threads=args.threads, calibration=None)
    files = [Path(f) for f in args.samples or []]
    if any(f.exists() for f in files):
        samples = [s for f in files if f.exists() for s in H.load_samples(f)]
        random.Random(args.seed).shuffle(samples)  # pooled files: the held-out replies come from all of them
    else:
        prompts = (H.file_prompts(Path(args.prompt_file), exclude=PROMPTS + WARMUP) if args.prompt_file
                   else H.training_prompts(args.prompts, args.seed, exclude=PROMPTS + WARMUP))
        samples = H.collect(assistant, prompts, args.max_new_tokens)
        if files:
            H.save_samples(files[0], samples)
    t_collect = time.perf_counter()
    if args.collect_only:
        print(json.dumps({"collected": len(samples), "collect_s": round(t_collect - t0, 1)}))
        return 0
    n_test = min(args.held_out, len(samples) // 5)
    x, bonus, y = H.examples(assistant.model, samples[n_test:], args.heads)
    x_test, bonus_test, y_test = H.examples(assistant.model, samples[:n_test], args.heads)
    vocab = H.draft_vocab(y, args.vocab)
    root = Path(args.model_dir)
    out_rows = H.output_rows(root, vocab)
    if args.kind == "recurrent":
        from globalgen_ros.importer import recurrent_heads as R

        module = R.build(out_rows, H.embedding_rows(root, vocab), vocab, assistant.model.dims.vocab_size, args.heads)
        log = R.train(module, x, bonus, y, vocab, epochs=args.epochs, minutes=args.minutes, seed=args.seed)
        acc = H.accuracy(module, x_test, y_test, vocab, bonus_test)
    else:
        module, log = H.train(x, y, vocab, out_rows, epochs=args.epochs, minutes=args.minutes, seed=args.seed)
        acc = H.accuracy(module, x_test, y_test, vocab)
    recipe = {"kind": args.kind, "prompts": len(samples), "held_out_prompts": n_test, "positions": len(x),
              "heads": args.heads, "vocab": len(vocab),
              "target_coverage": round(float(np.isin(y[y >= 0], vocab).mean()), 4), "accuracy_held_out": acc,
              **log, "collect_s": round(t_collect - t0, 1)}
    H.write(root, module, vocab, args.heads, recipe, with_token=args.kind == "recurrent")
    recipe["total_s"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(recipe))
    return 0
