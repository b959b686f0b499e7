"""Options of `globalgen train` (kept free of torch so the CLI can list them without importing it)."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field


@dataclass
class TrainConfig:
    out: str = "runs/default"
    corpus: str = ""              # default: <out>/corpus (built if missing)
    schema: str = ""              # default: config/intents.yaml
    seed: int = 0
    train_dialogues: int = 150_000
    vocab_size: int = 4096
    model: dict = field(default_factory=lambda: {"num_hidden_layers": 4})  # LlamaConfig overrides
    steps: int = 3600
    batch_tokens: int = 3072      # padded tokens per batch
    lr: float = 2e-3
    warmup: int = 100
    min_lr_ratio: float = 0.05
    weight_decay: float = 0.1
    header_weight: float = 2.0    # loss weight of header tokens (intent, slots) relative to reply tokens
    head_weight: float = 0.2      # loss weight of extra head j is head_weight * 0.8**j
    head_sample: float = 0.35     # fraction of target positions the extra heads are trained on (saves time)
    dropout: float = 0.0          # on the embeddings and residual branches
    word_drop: float = 0.0        # fraction of dialogues whose user turns lose 1-2 words (never slot values)
    max_len: int = 256
    threads: int = 2
    checkpoint_every: int = 200
    log_every: int = 50
    resume: str = ""              # continue from this checkpoint (same config)
    init: str = ""                # fine-tune: start from this checkpoint's weights with a fresh schedule
    device: str = "cpu"           # torch device for training ("cuda" on a GPU machine); results differ by device
    time_limit_s: float = 0.0     # the schedule runs against steps or this many seconds, whichever ends first


def add_arguments(parser: argparse.ArgumentParser) -> None:
    d = TrainConfig()
    parser.add_argument("--out", default=d.out, help="run directory (corpus, tokenizer, checkpoints, log)")
    parser.add_argument("--export", help="write the model artifacts here when done (e.g. models/default)")
    parser.add_argument("--corpus", default="", help="corpus directory (default: <out>/corpus, built if missing)")
    parser.add_argument("--schema", default="", help="intent schema (default: config/intents.yaml)")
    parser.add_argument("--seed", type=int, default=d.seed)
    parser.add_argument("--steps", type=int, default=d.steps)
    parser.add_argument("--batch-tokens", type=int, default=d.batch_tokens)
    parser.add_argument("--lr", type=float, default=d.lr)
    parser.add_argument("--vocab-size", type=int, default=d.vocab_size)
    parser.add_argument("--train-dialogues", type=int, default=d.train_dialogues)
    parser.add_argument("--threads", type=int, default=d.threads)
    parser.add_argument("--model", default=json.dumps(d.model),
                        help="LlamaConfig overrides as JSON (default %(default)s)")
    parser.add_argument("--resume", default="", help="continue from this checkpoint (e.g. runs/default/last.pt)")
    parser.add_argument("--init", default="",
                        help="fine-tune: start from this checkpoint's weights (same tokenizer and model size) with a "
                             "fresh optimizer and schedule")
    parser.add_argument("--device", default=d.device, help="torch device, e.g. cpu or cuda (default %(default)s)")
    parser.add_argument("--dropout", type=float, default=d.dropout,
                        help="dropout on the embeddings and residual branches (default %(default)s)")
    parser.add_argument("--word-drop", type=float, default=d.word_drop,
                        help="fraction of dialogues whose user turns lose 1-2 words, never slot values or "
                             "short commands (default %(default)s)")
    parser.add_argument("--time-limit-s", type=float, default=d.time_limit_s,
                        help="fit the cosine schedule into this many seconds: training ends when the steps or "
                             "the time run out, whichever first (0: no time limit)")


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    return TrainConfig(out=args.out, corpus=args.corpus, schema=args.schema, seed=args.seed, steps=args.steps,
                       batch_tokens=args.batch_tokens, lr=args.lr, vocab_size=args.vocab_size,
                       train_dialogues=args.train_dialogues, threads=args.threads, model=json.loads(args.model),
                       resume=args.resume, init=args.init, device=args.device, time_limit_s=args.time_limit_s,
                       dropout=args.dropout, word_drop=args.word_drop)
