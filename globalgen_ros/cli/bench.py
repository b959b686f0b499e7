"""`globalgen bench`: side-by-side benchmarks that print a table and, as the last line, one JSON object."""

from __future__ import annotations

import argparse
import importlib
import sys

SUITES = {"decode": "globalgen_ros.bench.decode_bench", "cache": "globalgen_ros.bench.cache_bench",
          "node": "globalgen_ros.bench.node_bench", "soak": "globalgen_ros.bench.soak_bench",
          "llm": "globalgen_ros.bench.llm_bench"}


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `bench` and its options."""
    p = subparsers.add_parser("bench", help="benchmark decoding strategies, the KV cache or the node",
                              description=__doc__)
    p.add_argument("--suite", choices=sorted(SUITES), default="decode",
                   help="decode: ar / parallel / confident / transformers (default); cache; node; soak; "
                        "llm: an imported model (--model-dir) against transformers (and llama.cpp if installed)")
    p.add_argument("--json", action="store_true", help="print only the JSON line")
    p.add_argument("--plot", metavar="FILE.png", help="write a chart (latency per strategy, tokens per forward)")
    p.add_argument("--prompts", metavar="FILE.jsonl",
                   help="cases {'text', 'intent', ...} (default: data/corpus/eval.jsonl or the seeded held-out split)")
    p.add_argument("--model-dir", help="model directory (default: $GLOBALGEN_MODEL_DIR or models/default)")
    p.add_argument("-n", "--n", type=int, default=200,
                   help="number of prompts measured (default 200; llm suite: at most its 16 fixed prompts)")
    p.add_argument("--warmup", type=int, default=5, help="prompts run first and not measured (default 5)")
    p.add_argument("--threads", type=int, default=1, help="intra-op threads (ORT and torch; default 1)")
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--calibration", default="measure",
                   help="forward cost curve: 'measure' at start (default) or a calibration JSON file")
    p.add_argument("--lookup", type=int, default=10,
                   help="tokens drafted by prompt look-up in the transformers and llama.cpp peers")
    p.add_argument("--peer", nargs="+", choices=("llama.cpp", "none"),
                   help="llm suite: peers besides transformers (default llama.cpp when llama-cpp-python is installed)")
    p.add_argument("--kv-reuse", dest="kv_reuse", action="store_true",
                   help="llm suite: one assistant per strategy keeping its KV cache between prompts")
    p.add_argument("--no-transformers", action="store_true", help="skip the PyTorch transformers peers")
    p.add_argument("--profile", metavar="FILE", help="profile `parallel` with pyinstrument (.html or text)")
    p.add_argument("--compare", action="store_true",
                   help="node suite: also measure a node whose decoder decides intent and slots (the baseline)")
    p.add_argument("--strategies", nargs="+", choices=("ar", "parallel", "confident"),
                   help="node suite: the strategies measured (default: all)")
    p.add_argument("--model-stop", dest="model_stop", type=float, default=0.9,
                   help="node suite: also measure stops with reflex.model_threshold at this value (0: skip)")
    p.add_argument("--minutes", type=float, help="soak suite: run for this long instead of -n utterances")
    p.add_argument("--window", type=int, default=8, help="soak suite: transcripts in flight at once (default 8)")
    p.add_argument("--sample-every", dest="sample_every", type=int, default=500,
                   help="soak suite: sample RSS, fds and threads every this many answers (default 500)")
    p.add_argument("--sessions", type=int, default=10_000,
                   help="cache suite: simulated sessions of the memory check (default 10000)")
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    """Dispatch to the suite's module (`run(args) -> int`)."""
    module = SUITES[args.suite]
    try:
        suite = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name != module:
            raise
        print(f"globalgen bench: the '{args.suite}' suite is not available in this build ({module} is missing)",
              file=sys.stderr)
        return 2
    return suite.run(args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="globalgen")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["bench", *(sys.argv[1:] if argv is None else argv)])
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
