"""Quantize a shipped understanding model again with today's `quantize_int8` (same weights, new 8-bit layout).

    python -m globalgen_ros.understanding.requantize --model-dir models/default

The int8 file is dequantized into the torch model (from_shipped.rebuild), exported to fp32 ONNX and quantized
again; nlu.json keeps its calibration and gets the new sha256 and a note; manifest.json is updated by ship().
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import torch

from globalgen_ros.runtime.artifacts import sha256_file
from globalgen_ros.understanding.export import quantize_int8
from globalgen_ros.understanding.from_shipped import rebuild
from globalgen_ros.understanding.model import export_nlu
from globalgen_ros.understanding.ship import ship


def requantize(model_dir: Path) -> dict:
    """Rewrite model_dir/nlu/nlu.int8.onnx with quantize_int8 and record it; return the manifest entry."""
    nlu = model_dir / "nlu"
    model, _, meta = rebuild(nlu)
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = export_nlu(model, Path(tmp) / "fp32.onnx")
        quantize_int8(fp32, nlu / "nlu.int8.onnx")
    meta["sha256"]["nlu.int8.onnx"] = sha256_file(nlu / "nlu.int8.onnx")
    meta.setdefault("quantization", {})["requantized"] = "uint8 per-channel weights (export.quantize_int8)"
    (nlu / "nlu.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False), encoding="utf-8")
    entry = json.loads((model_dir / "manifest.json").read_text(encoding="utf-8"))["understanding"]
    return ship(nlu, model_dir, entry["version"], entry.get("eval"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", type=Path, default=Path("models/default"))
    args = ap.parse_args(argv)
    torch.set_num_threads(2)
    entry = requantize(args.model_dir)
    print(json.dumps({"version": entry["version"], "quantization": entry.get("quantization", {}).get("requantized")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
