"""`globalgen ask TEXT`: answer one transcript with the on-board model and print reply, intent and timing.

With an imported model (`--model-dir` of `globalgen import`) the understanding model decides intent and slots and
the imported model speaks the reply (docs/import.md)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `ask` and its options."""
    p = subparsers.add_parser("ask", help="answer one transcript (reply, intent, slots, latency)", description=__doc__)
    p.add_argument("text", help='the transcript, e.g. "导航到西单大悦城"')
    p.add_argument("--json", action="store_true", help="print the reply as one JSON object")
    p.add_argument("--model-dir", help="model directory (default: $GLOBALGEN_MODEL_DIR or models/default)")
    p.add_argument("--schema", help="intent schema (default: config/intents.yaml)")
    p.add_argument("--strategy", default="parallel", help="decoding strategy: ar, parallel (default), confident")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--understanding", metavar="DIR",
                   help="understanding model directory (default: the model dir's nlu/, for an imported model the "
                        "shipped models/default/nlu)")
    return p


def run(args) -> int:
    """Answer the transcript; exit status 2 on a bad model or bad input."""
    from globalgen_ros.assistant import Assistant, InputError, ModelArtifactError

    try:
        assistant = Assistant(args.model_dir, schema_path=args.schema, strategy=args.strategy, threads=args.threads,
                              calibration=None if args.strategy == "ar" else "measure",
                              understanding=args.understanding or True)
        reply = assistant.respond(args.text, max_new_tokens=args.max_new_tokens)
    except (InputError, ModelArtifactError) as e:
        print(f"globalgen ask: {e}", file=sys.stderr)
        return 2
    if args.json:
        out = {k: v for k, v in asdict(reply).items() if k not in ("stats", "token_ids")}
        print(json.dumps(out, ensure_ascii=False))
        return 0
    slots = ", ".join(f"{k}={v}" for k, v in reply.slots.items()) or "-"
    print(reply.text)
    print(f"intent: {reply.intent} ({reply.confidence:.2f})  slots: {slots}")
    print(f"tokens: {reply.tokens}  forwards: {reply.forwards}  latency: {reply.latency_ms:.1f} ms  "
          f"first token: {reply.ttft_ms:.1f} ms  strategy: {reply.strategy}")
    return 0
