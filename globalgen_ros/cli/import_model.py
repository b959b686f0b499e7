"""`globalgen import`: a Hugging Face LLaMA-family directory or GGUF file as an int8 ONNX model directory.

Writes the layout of models/default (config.json, model.safetensors, the model's own tokenizer.json, the
decoder: model.int4.onnx with 4-bit weight-only blocks by default (lossless `parallel`), or model.int8.onnx with
per-row activation quantization (`--weights int8`); manifest.json with sha256, the decoder file and the chat template);
needs torch, transformers and gguf (requirements/import.txt). See docs/import.md.
"""

from __future__ import annotations

import argparse
import json

from globalgen_ros.importer.weights import WEIGHTS


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `import` and its options."""
    p = subparsers.add_parser("import", help="import a Hugging Face LLaMA-family directory or GGUF file "
                              "(needs torch, transformers, gguf)", description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", help="HF model directory (config.json + safetensors/bin + tokenizer) or .gguf file")
    p.add_argument("--out", required=True, help="output model directory, e.g. models/smollm2")
    p.add_argument("--weights", choices=WEIGHTS,
                   help="int8 (default with grouped-query attention): uint8 weights, activations quantized per "
                        "row, parallel bit-identical to ar; int4 (default without GQA, where int8's parallel may "
                        "differ from ar): MatMulNBits 4-bit blocks of 32, fp32 activations")
    p.add_argument("--keep-fp32", action="store_true", help="also write model.fp32.onnx (reference decoder)")
    p.add_argument("--max-len", type=int, help="cap the context (max_position_embeddings: the KV cache size)")
    p.add_argument("--no-check", action="store_true", help="skip the ONNX Runtime vs torch comparison")
    return p


def run(args) -> int:
    from globalgen_ros.importer.source import SourceError
    from globalgen_ros.importer.write import import_model

    try:
        report = import_model(args.source, args.out, weights=args.weights, keep_fp32=args.keep_fp32,
                              max_len=args.max_len, check=not args.no_check)
    except SourceError as e:
        print(f"globalgen import: {e}")
        return 2
    print(json.dumps({"out": args.out, **report}))
    return 0
