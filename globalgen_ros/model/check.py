"""Score a training checkpoint with torch constrained greedy decoding (quick check while training).

    PYTHONPATH=. .venv/bin/python -m globalgen_ros.model.check runs/default/last.pt data/corpus/eval.jsonl -n 200
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch

from globalgen_ros.model.greedy import respond
from globalgen_ros.model.llama import LlamaConfig, LlamaWithHeads
from globalgen_ros.runtime.tokenizer import Tokenizer
from globalgen_ros.schema import load_schema
from globalgen_ros.scoring import load_cases, score


def load_checkpoint(path: str | Path) -> LlamaWithHeads:
    ckpt = torch.load(path, map_location="cpu", weights_only=False)
    model = LlamaWithHeads(LlamaConfig(**ckpt["config"]))
    model.load_state_dict(ckpt["model"])
    return model.eval()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("cases", nargs="+")
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--show-errors", type=int, default=10)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    model = load_checkpoint(args.checkpoint)
    tok = Tokenizer(Path(args.checkpoint).parent / "tokenizer.json")
    schema = load_schema()
    for path in args.cases:
        cases = load_cases(path, args.n)
        preds = [respond(model, tok, schema, c["text"]) for c in cases]
        result = score(cases, preds)
        print(path, json.dumps({k: v for k, v in result.items()}, ensure_ascii=False))
        shown = 0
        for c, p in zip(cases, preds, strict=True):
            if (c["intent"] != p["intent"] or score([c], [p])["slot_accuracy"] < 1) and shown < args.show_errors:
                print("  ", c["text"], "|", c["intent"], c["slots"], "=>", p["intent"], p["slots"], "|", p["response"])
                shown += 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
