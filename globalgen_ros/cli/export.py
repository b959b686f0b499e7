"""`globalgen export`: write the ONNX (int8) artifacts and manifest of a trained model (needs torch)."""

from __future__ import annotations

import argparse


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `export` and its options."""
    p = subparsers.add_parser("export", help="export a checkpoint or model directory to ONNX int8 (needs torch)",
                              description=__doc__)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--checkpoint", help="training checkpoint (.pt), e.g. runs/default/last.pt")
    src.add_argument("--model-dir", help="directory with config.json + model/heads.safetensors to re-export")
    src.add_argument("--random", action="store_true", help="randomly initialised model (for development)")
    p.add_argument("--out", required=True, help="output directory, e.g. models/default")
    p.add_argument("--tokenizer", help="tokenizer.json to include (default: next to the checkpoint)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--keep-fp32", action="store_true", help="also write model.fp32.onnx / heads.fp32.onnx")
    return p


def run(args) -> int:
    from globalgen_ros.model.export import main

    argv = ["--out", args.out, "--seed", str(args.seed)]
    argv += (["--checkpoint", args.checkpoint] if args.checkpoint else
             ["--model-dir", args.model_dir] if args.model_dir else ["--random"])
    argv += ["--tokenizer", args.tokenizer] if args.tokenizer else []
    argv += ["--keep-fp32"] if args.keep_fp32 else []
    return main(argv)
